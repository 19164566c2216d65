"""The cached dtype decisions (ops/dispatch.py) agree with the dtype rule itself (the registry's
slow_prepare) on random operands, for every row that caches; a Tensor subclass takes the cached
path and gets the same results as a Tensor."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import glassgrad as gg
from glassgrad.ops.registry import TABLE

DTYPES = ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool")
CACHED = [op for op in TABLE if op._dtype_cache is not None]


class Sub(gg.Tensor):
    """A Tensor subclass: ops on it give Subs (torch's default __torch_function__)."""


class Opted(gg.Tensor):
    """A subclass that opts out of __torch_function__, as nn.Parameter: ops give Tensors."""
    __torch_function__ = gg.nn.Parameter.__torch_function__


def _tensor(draw, kind):
    dtype = draw(st.sampled_from(DTYPES))
    shape = draw(st.sampled_from([(), (1,), (3,), (2, 3), (1, 3)]))
    t = gg.ones(shape, dtype=getattr(gg, dtype))
    return Sub._make(t._data) if kind == "sub" else t


@st.composite
def operands(draw, n):
    out = []
    for _ in range(n):
        kind = draw(st.sampled_from(["tensor", "tensor", "sub", "int", "float", "bool"]))
        if kind in ("tensor", "sub"):
            out.append(_tensor(draw, kind))
        else:
            out.append({"int": 3, "float": 2.5, "bool": True}[kind])
    if not any(isinstance(v, gg.Tensor) for v in out):
        out[0] = _tensor(draw, "tensor")
    return out


def _same(a, b):
    assert b[1] is a[1]
    assert len(a[0]) == len(b[0])
    for x, y in zip(a[0], b[0]):
        if isinstance(y, np.ndarray):
            assert isinstance(x, np.ndarray) and x.dtype == y.dtype and x.shape == y.shape
            np.testing.assert_array_equal(x, y)
        else:
            assert type(x) is type(y) and x == y


@pytest.mark.parametrize("op", CACHED, ids=lambda op: op.name)
@settings(max_examples=40, deadline=None, derandomize=True)
@given(data=st.data())
def test_cache_agrees_with_the_rule(op, data):
    values = data.draw(operands(len(op.inputs)))
    attrs = {}
    attr = op._dtype_cache.attr
    if attr is not None:    # a number (its type decides), or a dtype= argument
        attrs[attr] = data.draw(st.sampled_from(
            [None, gg.float64, gg.float16, gg.int32, gg.bool] if attr == "dtype" else
            [2, 0.5, True]))
    try:
        slow = op.slow_prepare(values, attrs)
    except (RuntimeError, TypeError) as e:     # the rule refuses: so must the cached path
        with pytest.raises(type(e)):
            op.prepare(values, attrs)
        return
    _same(slow, op.prepare(values, attrs))
    _same(slow, op.prepare(values, attrs))     # the second call reads the cache


@pytest.mark.parametrize("cls,result", [(Sub, Sub), (Opted, gg.Tensor)])
@pytest.mark.parametrize("program", [lambda x: x * 3.0, lambda x: x * x, lambda x: x.exp(),
                                     lambda x: x + gg.ones(2), lambda x: x ** 2])
def test_a_subclass_takes_the_fast_path(program, cls, result, monkeypatch):
    x = cls._make(gg.tensor([1.0, 2.0])._data, requires_grad=True)
    program(x)      # warm the caches

    def slow(*args):
        raise AssertionError("a Tensor subclass took the slow path")
    for op in CACHED:
        monkeypatch.setattr(op, "slow_prepare", slow)
    y = program(x)
    assert type(y) is result and y.grad_fn is not None
    expected = program(gg.tensor([1.0, 2.0], requires_grad=True))
    if result is Sub:   # torch's default converts the result: an alias (AliasBackward0)
        assert y.grad_fn.name() == "AliasBackward0"
        y = y._base
    assert y.tolist() == expected.tolist() and y.grad_fn.name() == expected.grad_fn.name()
