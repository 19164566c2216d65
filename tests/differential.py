"""Run one program in torch and in glassgrad and compare what they give back.

A program is ``program(lib)`` with lib the torch or glassgrad module; its result (tensors,
dtypes, sizes, arrays, numbers, nested in lists/tuples/dicts) is normalised to plain data, and
an exception becomes Raised(type, first line), which compares like a value. This is the one
comparator of the suite: the op-table harness (optable.py) normalises and compares with it too,
with its per-dtype tolerances.
"""
import numpy as np
import pytest
import torch

import glassgrad as gg

LIBS = (torch, gg)


FLOAT_TOL = (2e-6, 1e-7)    # (rtol, atol) for float values unless a caller gives its own


class Raised:
    """An exception as data: its type's name and the first line of its message."""

    def __init__(self, exc):
        self.type = type(exc).__name__
        self.first_line = (str(exc).splitlines() or [""])[0]

    def __eq__(self, other):
        return isinstance(other, Raised) and (self.type, self.first_line) == \
            (other.type, other.first_line)

    def __repr__(self):
        return f"Raised({self.type}: {self.first_line})"


def is_tensor(x):
    return isinstance(x, (torch.Tensor, gg.Tensor))


def norm(x):
    """A library-neutral description: tensors become (dtype, shape, values, requires_grad)."""
    if is_tensor(x):
        # force: torch's double backward may give ZeroTensors; bfloat16 (which NumPy lacks)
        # as float32, which holds each value exactly
        d = x.detach()
        d = d.float() if str(x.dtype) == "torch.bfloat16" else d
        return ("T", str(x.dtype), tuple(x.shape), d.numpy(force=True).copy(),
                x.requires_grad)
    if isinstance(x, (torch.dtype, gg.dtype)):
        return ("dtype", repr(x))
    if isinstance(x, (torch.device, gg.device)):
        return ("device", repr(x))
    if isinstance(x, (torch.Size, gg.Size)):
        return ("Size", repr(x), tuple(x))
    if isinstance(x, (list, tuple)):
        return type(x).__name__, [norm(v) for v in x]
    if isinstance(x, dict):
        return {k: norm(v) for k, v in x.items()}
    if isinstance(x, np.ndarray):
        return ("nd", x.dtype.str, x.shape, x.copy())
    return x


def assert_same(a, b, path="result", tol=None):
    """a from torch, b from glassgrad (both normalised). Float values compare within ``tol``:
    dtype name (e.g. "float32") -> (rtol, atol), exact for a dtype not named; FLOAT_TOL for
    every float dtype when tol is None. Other values compare exactly."""
    if isinstance(a, tuple) and a and a[0] in ("T", "nd"):
        assert isinstance(b, tuple) and b and b[0] == a[0], f"{path}: {b!r} vs {a!r}"
        assert a[1:3] == b[1:3], f"{path}: dtype/shape glassgrad {b[1:3]} != torch {a[1:3]}"
        assert a[4:] == b[4:], f"{path}: requires_grad {b[4:]} != {a[4:]}"
        if a[3].dtype.kind in "fc":
            name = str(a[1]).removeprefix("torch.") if a[0] == "T" else np.dtype(a[1]).name
            rtol, atol = FLOAT_TOL if tol is None else tol.get(name, (0, 0))
            np.testing.assert_allclose(b[3], a[3], rtol=rtol, atol=atol, err_msg=path)
        else:
            np.testing.assert_array_equal(b[3], a[3], err_msg=path)
    elif isinstance(a, tuple) and len(a) == 2 and a[0] in ("list", "tuple"):
        assert isinstance(b, tuple) and b[0] == a[0] and len(b[1]) == len(a[1]), \
            f"{path}: glassgrad {b!r} != torch {a!r}"
        for i, (u, v) in enumerate(zip(a[1], b[1])):
            assert_same(u, v, f"{path}[{i}]", tol)
    elif isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), f"{path}: {b!r} != {a!r}"
        for k in a:
            assert_same(a[k], b[k], f"{path}[{k!r}]", tol)
    elif isinstance(a, float) and isinstance(b, float):
        assert b == pytest.approx(a, rel=FLOAT_TOL[0], nan_ok=True), path
    else:
        assert type(a) is type(b) and a == b, f"{path}: glassgrad {b!r} != torch {a!r}"


def run(program, lib):
    try:
        return norm(program(lib))
    except Exception as e:  # noqa: BLE001 - errors are part of the behaviour compared
        return Raised(e)


def same(program):
    """Run ``program(lib)`` in torch and glassgrad and assert the results agree."""
    expected, got = run(program, torch), run(program, gg)
    assert_same(expected, got)
    return expected


def catch(fn, *args):
    """fn(*args), or Raised for an exception (so later steps of a program still run)."""
    try:
        return fn(*args)
    except Exception as e:  # noqa: BLE001
        return Raised(e)
