"""The seed programs (glassgrad/seeds/*.py) print exactly what PyTorch prints (the errors they
catch and print included: glassgrad's explanation is a note); the notes name the seeds' facts."""
import re
import subprocess
import sys

import pytest

from glassgrad.glass.errors import HEADER, strip_explanations
from glassgrad.seeds import PROGRAMS

SEEDS = {p.stem: p for p in PROGRAMS}


def run(program, module, path="<string>", notes=False):
    """What ``program`` prints with torch = ``module``; notes: each printed exception's notes
    follow it (glassgrad.demo's print_with_notes)."""
    show = ", 'print': __import__('glassgrad.demo').demo.print_with_notes" if notes else ""
    code = (f"import {module} as torch\n"
            f"exec(compile({program!r}, {str(path)!r}, 'exec'), {{'torch': torch{show}}})\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    return re.sub(r"0x[0-9a-f]+", "0x?", proc.stdout)


@pytest.mark.parametrize("seed", PROGRAMS, ids=lambda p: p.stem)
def test_seed_prints_what_torch_prints(seed):
    program = seed.read_text()
    expected = run(program, "torch", seed)
    assert expected.strip(), "the seed printed nothing under torch"
    assert run(program, "glassgrad", seed) == expected


def explanations(text):
    """The explanation blocks of a printed output, unindented."""
    return [block.replace("\n  ", "\n").strip()
            for block in re.findall(re.escape(HEADER) + r"\n((?:  [^\n]*\n?)*)", text)]


def test_first_seed_explains_its_error():
    path = SEEDS["qa1_detach_pow"]
    (text,) = explanations(run(path.read_text(), "glassgrad", path, notes=True))
    where = "glassgrad/seeds/qa1_detach_pow.py" if "glassgrad/seeds" in text else path.name
    # which node saved which tensor, where each was made, and why
    assert f"PowBackward0, made at {where}:4: `z = y**2`, saved `self` = y" in text
    assert f"a float32 tensor of shape [] made at {where}:3: `y = x + 1`" in text
    assert "its backward formula for `self` uses it (d(y**2)/dy = 2*y)" in text
    assert "_grad(" not in text     # the math, not glassgrad's formula names
    # which in-place op moved the version, where, through which alias
    assert "y was at version 0 when saved; it is at version 1 now" in text
    assert (f"version 1: `zero_` at {where}:6: `c.zero_()`, through c, a detach() of y that "
            "shares its storage and version counter") in text
    # the fix
    assert "`c = y.detach().clone()`" in text and "`c = torch.zeros_like(c)`" in text


def test_second_seed_explains_the_variant_through_a_temporary():
    path = SEEDS["qa2_detach_linear"]
    (text,) = explanations(run(path.read_text(), "glassgrad", path, notes=True))
    assert "PowBackward0, made at " in text and ":14: `z = 3*y1 + 4*y2**2`" in text
    assert "saved `self` = y2" in text and ":13: `y2 = x**2`" in text
    assert ":15: `y2.detach().zero_()`, through a temporary, a detach() of y2" in text


def test_demo_runs_the_seeds():
    proc = subprocess.run([sys.executable, "-m", "glassgrad.demo"], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = re.sub(r"0x[0-9a-f]+", "0x?", proc.stdout)
    for seed in PROGRAMS:   # each seed's output, exactly as torch prints it, explanations aside
        assert run(seed.read_text(), "torch", seed) in strip_explanations(out)
    first, second = out.split("=== qa2_detach_linear")[0], out.split("=== qa2_detach_linear")[1]
    assert "version 1: `zero_` at " in first and "`c.zero_()`, through c, a detach() of y" \
        in first
    # the second seed: its graph before the first backward, and the note that nothing saved y2
    graph = second.split("glassgrad.glass.graph(z) before line 8")[1].split("===")[0]
    assert "x ---> y2 = PowBackward0 ---> MulBackward0#2 ---> z = AddBackward0" in graph
    assert "saved other: the number 4, kept by value" in graph
    assert "nothing saved y1, y2 (nor c, sharing its storage), z" in graph
