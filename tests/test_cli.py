"""The `glassgrad` command: `run` executes unmodified PyTorch scripts on glassgrad, `compare`
diffs a script's output under torch and under glassgrad."""
import importlib.util
import os
import pathlib
import re
import subprocess
import sys

import pytest

from glassgrad.glass.errors import strip_explanations
from glassgrad.glass.imports import glassgrad_name
from glassgrad.seeds import PROGRAMS

SEEDS = {p.stem: p.read_text() for p in PROGRAMS}
needs_torch = pytest.mark.skipif(importlib.util.find_spec("torch") is None,
                                 reason="PyTorch is not installed: nothing to compare against")


ROOT = pathlib.Path(__file__).resolve().parent.parent


def glassgrad(*args, cwd=None):
    """`glassgrad ...` with this checkout's glassgrad (also when run from another folder)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    return subprocess.run([sys.executable, "-m", "glassgrad", *map(str, args)],
                          capture_output=True, text=True, timeout=300, cwd=cwd, env=env)


def python(*args, cwd=None, env=None):
    return subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True,
                          timeout=300, cwd=cwd, env=env)


def script(tmp_path, name, source):
    path = tmp_path / name
    path.write_text(source)
    return path


def test_alias_names():
    assert glassgrad_name("torch") == "glassgrad"
    assert glassgrad_name("torch.nn.functional") == "glassgrad.nn.functional"
    assert glassgrad_name("torchvision") is None and glassgrad_name("numpy") is None


def test_run_resolves_torch_and_its_submodules(tmp_path):
    path = script(tmp_path, "mods.py", (
        "import sys\n"
        "import torch\n"
        "import torch.nn.functional as F\n"
        "from torch.autograd import grad\n"
        "from torch import nn\n"
        "import torch.autograd\n"
        "print(torch.__name__, F.__name__, nn.__name__, torch.autograd.__name__)\n"
        "print(grad.__module__, sys.argv[1:], __name__)\n"
        "x = torch.ones(2, requires_grad=True)\n"
        "print(grad((x * x).sum(), x))\n"))
    proc = glassgrad("run", path, "a", "--flag", "-v")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "glassgrad glassgrad.nn.functional glassgrad.nn glassgrad.autograd"
    assert lines[1] == "glassgrad.autograd ['a', '--flag', '-v'] __main__"
    assert lines[2] == "(tensor([2., 2.]),)"


def test_run_refuses_missing_modules_clearly(tmp_path):
    path = script(tmp_path, "missing.py", "import torch.nonexistent_module_xyz\n")
    proc = glassgrad("run", path)
    assert proc.returncode == 1
    assert "ModuleNotFoundError: No module named 'torch.nonexistent_module_xyz'" in proc.stderr
    assert "glassgrad has no module 'glassgrad.nonexistent_module_xyz'" in proc.stderr


def test_run_exit_codes_and_sibling_imports(tmp_path):
    script(tmp_path, "helper.py", "import torch\nVALUE = torch.ones(1).item()\n")
    path = script(tmp_path, "main.py", "import sys\nfrom helper import VALUE\nprint(VALUE)\n"
                  "sys.exit(3)\n")
    proc = glassgrad("run", path)
    assert proc.stdout == "1.0\n" and proc.returncode == 3


@needs_torch
def test_run_prints_what_torch_prints_for_the_second_seed(tmp_path):
    path = script(tmp_path, "seed2.py", "import torch\n" + SEEDS["qa2_detach_linear"])
    expected = python(path)
    assert expected.returncode == 0, expected.stderr
    proc = glassgrad("run", path, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    # the seed prints the error it catches: exactly torch's text (the explanation is a note)
    assert proc.stdout == expected.stdout
    assert proc.stdout.startswith("tensor(27.)")


def test_run_explains_an_autograd_error(tmp_path):
    path = script(tmp_path, "seed1.py", (
        "import torch\n"
        "x = torch.tensor(3.0, requires_grad=True)\n"
        "y = x + 1\n"
        "z = y**2\n"
        "c = y.detach()\n"
        "c.zero_()\n"
        "z.backward()\n"))
    proc = glassgrad("run", path, cwd=tmp_path)
    assert proc.returncode == 1
    err = proc.stderr
    assert err.startswith("Traceback (most recent call last):\n  File \"" + str(path))
    assert "RuntimeError: one of the variables needed for gradient computation has been " \
           "modified by an inplace operation" in err
    explained = err.split("\nglassgrad explains:\n", 1)[1]
    assert explained.startswith("  PowBackward0, made at seed1.py:4: `z = y**2`, saved `self` = y")
    assert "version 1: `zero_` at seed1.py:6: `c.zero_()`, through c, a detach() of y" in explained
    assert err.count("glassgrad explains:") == 1


def test_run_explains_an_error_inside_a_function(tmp_path):
    path = script(tmp_path, "inner.py", (
        "import torch\n"
        "def step():\n"
        "    w = torch.ones(2, requires_grad=True)\n"
        "    h = w.exp()\n"
        "    h.add_(1)\n"
        "    h.sum().backward()\n"
        "step()\n"))
    proc = glassgrad("run", path, cwd=tmp_path)
    assert proc.returncode == 1
    explained = proc.stderr.split("glassgrad explains:\n", 1)[1]
    assert "ExpBackward0, made at inner.py:4: `h = w.exp()`, saved `result` = h" in explained
    assert "version 1: `add_` at inner.py:5: `h.add_(1)`, on h itself" in explained
    assert "`h = h.add(...)` instead of `h.add_(...)`" in explained


def test_run_explains_an_error_without_an_explanation_of_its_own(tmp_path):
    # a node's own error (a once_differentiable backward run twice) carries no explanation:
    # the runner then shows the history of the tensors involved
    path = script(tmp_path, "own.py", (
        "import torch\n"
        "x = torch.ones(2, requires_grad=True)\n"
        "y = x.exp()\n"
        "y.sum().backward()\n"
        "y.sum().backward()\n"))
    proc = glassgrad("run", path, cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stderr.count("glassgrad explains:") == 1
    assert "Trying to backward through the graph a second time" in proc.stderr


def test_run_without_autograd_error_adds_nothing(tmp_path):
    path = script(tmp_path, "boom.py", "import torch\nraise ValueError('boom')\n")
    proc = glassgrad("run", path)
    assert proc.returncode == 1
    assert proc.stderr.rstrip().endswith("ValueError: boom")
    assert "glassgrad explains" not in proc.stderr
    assert 'File "' + str(path) + '", line 2' in proc.stderr
    assert "runpy" not in proc.stderr and "cli.py" not in proc.stderr


@needs_torch
def test_compare_identical_script_exits_0(tmp_path):
    # the first seed prints a node's repr, <PowBackward0 object at 0x...>: addresses normalised
    path = script(tmp_path, "seed1.py", "import torch\n" + SEEDS["qa1_detach_pow"])
    proc = glassgrad("compare", path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout == "identical: seed1.py prints the same under torch and glassgrad\n"


@needs_torch
def test_compare_differing_script_exits_1_with_a_diff(tmp_path):
    path = script(tmp_path, "name.py", "import torch\nprint(torch.ones(2).sum())\n"
                  "print(torch.__name__)\n")
    proc = glassgrad("compare", path)
    assert proc.returncode == 1
    out = proc.stdout
    assert "--- torch stdout\n+++ glassgrad stdout\n" in out
    assert "\n-torch\n+glassgrad\n" in out
    assert "\n tensor(2.)\n" in out       # context line: the part that agrees
    assert "stdout: 1 lines equal, 1 differ (torch 2 lines, glassgrad 2)\n" in out


@needs_torch
def test_compare_reports_different_exit_codes_and_stderr(tmp_path):
    path = script(tmp_path, "fails.py", "import sys\nimport torch\n"
                  "sys.exit(0 if torch.__name__ == 'torch' else 4)\n")
    proc = glassgrad("compare", path)
    assert proc.returncode == 1
    assert "exit code: torch 0, glassgrad 4" in proc.stdout


def test_usage_errors():
    proc = glassgrad()
    assert proc.returncode == 2 and "usage: glassgrad" in proc.stderr
    proc = glassgrad("run", "/nonexistent/script.py")
    assert proc.returncode == 2 and "no such script" in proc.stderr


def test_console_script_is_declared():
    import tomllib
    pyproject = pathlib.Path(__file__).parent.parent / "pyproject.toml"
    scripts = tomllib.loads(pyproject.read_text())["project"]["scripts"]
    assert scripts["glassgrad"] == "glassgrad.cli:main"


def test_docs_generator_writes_the_page(tmp_path):
    root = pathlib.Path(__file__).parent.parent     # this checkout's glassgrad, not an install
    proc = python(str(root / "tools" / "glass_docs.py"), tmp_path,
                  env={**os.environ, "PYTHONPATH": str(root)})
    assert proc.returncode == 0, proc.stderr
    page = (tmp_path / "glass.md").read_text()
    assert "x ---> y = AddBackward0 ---> z = PowBackward0" in page
    assert "version 0 at save, 1 now MODIFIED" in page
    assert "glassgrad explains:" in page
    if "![glass_seed1](glass_seed1.svg)" in page:   # pictures only where `dot` is installed
        assert "<svg" in (tmp_path / "glass_seed1.svg").read_text()


def test_committed_docs_show_each_feature():
    docs = pathlib.Path(__file__).parent.parent / "docs"
    page = (docs / "glass.md").read_text()
    for fact in ("x ---> y = AddBackward0 ---> z = PowBackward0", "MODIFIED", "digraph glassgrad",
                 "PowBackward0 keeps `self` because its backward formula for `self` uses it",
                 "glassgrad explains:", "identical: seed2.py", "+glassgrad"):
        assert fact in page, fact
    for svg in re.findall(r"\]\(([\w.]+\.svg)\)", page):
        assert (docs / svg).read_text().lstrip().startswith(("<?xml", "<svg")), svg


def test_committed_docs_show_the_explained_errors_as_generated():
    from tools.glass_docs import ERRORS, explained_errors_section
    page = (pathlib.Path(__file__).parent.parent / "docs" / "glass.md").read_text()
    section = explained_errors_section()
    assert section in page, "docs/glass.md is stale: run `make docs`"
    assert section.count("\nglassgrad explains:\n  ") == len(ERRORS)
