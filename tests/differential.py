"""Run one program in torch and in glassgrad and compare what they give back.

A program is ``program(lib)`` with lib the torch or glassgrad module; its result (tensors,
dtypes, sizes, arrays, numbers, nested in lists/tuples/dicts) is normalised to plain data, and
an exception becomes Raised(type, first line), which compares like a value.
"""
import numpy as np
import pytest
import torch

import glassgrad as gg

LIBS = (torch, gg)


class Raised:
    def __init__(self, exc):
        self.type = type(exc).__name__
        self.first_line = str(exc).splitlines()[0] if str(exc) else ""

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
        return ("T", str(x.dtype), tuple(x.shape), x.detach().numpy().copy(), x.requires_grad)
    if isinstance(x, (torch.dtype, gg.dtype)):
        return ("dtype", repr(x))
    if isinstance(x, (torch.Size, gg.Size)):
        return ("Size", repr(x), tuple(x))
    if isinstance(x, (list, tuple)):
        return type(x).__name__, [norm(v) for v in x]
    if isinstance(x, dict):
        return {k: norm(v) for k, v in x.items()}
    if isinstance(x, np.ndarray):
        return ("nd", x.dtype.str, x.shape, x.copy())
    return x


def assert_same(a, b, path="result"):
    """a from torch, b from glassgrad."""
    if isinstance(a, tuple) and a and a[0] in ("T", "nd"):
        assert isinstance(b, tuple) and b and b[0] == a[0], f"{path}: {b!r} vs {a!r}"
        assert a[1:3] == b[1:3], f"{path}: dtype/shape glassgrad {b[1:3]} != torch {a[1:3]}"
        assert a[4:] == b[4:], f"{path}: requires_grad {b[4:]} != {a[4:]}"
        if a[3].dtype.kind == "f":
            np.testing.assert_allclose(b[3], a[3], rtol=2e-6, atol=1e-7, err_msg=path)
        else:
            np.testing.assert_array_equal(b[3], a[3], err_msg=path)
    elif isinstance(a, tuple) and len(a) == 2 and a[0] in ("list", "tuple"):
        assert isinstance(b, tuple) and b[0] == a[0] and len(b[1]) == len(a[1]), \
            f"{path}: glassgrad {b!r} != torch {a!r}"
        for i, (u, v) in enumerate(zip(a[1], b[1])):
            assert_same(u, v, f"{path}[{i}]")
    elif isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), f"{path}: {b!r} != {a!r}"
        for k in a:
            assert_same(a[k], b[k], f"{path}[{k!r}]")
    elif isinstance(a, float) and isinstance(b, float):
        assert b == pytest.approx(a, rel=2e-6, nan_ok=True), path
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
