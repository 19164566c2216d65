"""The seed programs (glassgrad/seeds/*.py) print exactly what PyTorch prints."""
import re
import subprocess
import sys

import pytest

from glassgrad.seeds import PROGRAMS


def run(program, module):
    code = f"import {module} as torch\n" + program
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    return re.sub(r"0x[0-9a-f]+", "0x?", proc.stdout)


@pytest.mark.parametrize("seed", PROGRAMS, ids=lambda p: p.stem)
def test_seed_prints_what_torch_prints(seed):
    program = seed.read_text()
    expected = run(program, "torch")
    assert expected.strip(), "the seed printed nothing under torch"
    assert run(program, "glassgrad") == expected


def test_demo_runs_the_seeds():
    proc = subprocess.run([sys.executable, "-m", "glassgrad.demo"], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    for seed in PROGRAMS:   # the demo shows each seed's output, exactly as torch prints it
        assert run(seed.read_text(), "torch") in re.sub(r"0x[0-9a-f]+", "0x?", proc.stdout)
