"""Tensor.view(dtype), as_strided / as_strided_, Tensor.unfold: new layouts of a tensor's memory,
differentially against torch 2.13 (values, strides, offsets, sharing, grad_fn names, gradients
and torch's errors)."""
import pytest
import torch

import glassgrad as gg
from differential import catch, same


def _layout(t):
    return [t, t.stride(), t.storage_offset(), t.is_contiguous()]


# -- view(dtype) -------------------------------------------------------------------------------
VIEWS = {
    "same_size": lambda lib: lib.arange(12.).reshape(3, 4).view(lib.int32),
    "smaller": lambda lib: lib.arange(12.).reshape(3, 4).view(lib.int16),
    "bytes": lambda lib: lib.arange(6.).view(lib.uint8),
    "larger": lambda lib: lib.arange(12.).reshape(3, 4).view(lib.float64),
    "transposed_same": lambda lib: lib.arange(12.).reshape(3, 4).t().view(lib.int32),
    "zero_dim_same": lambda lib: lib.tensor(1.0).view(lib.int32),
    "to_bfloat16": lambda lib: lib.tensor([1.0, 2.0]).view(lib.bfloat16),
    "from_bfloat16": lambda lib: lib.tensor([1.0, 2.0], dtype=lib.bfloat16).view(lib.int16),
    "to_bool": lambda lib: lib.ones(3, dtype=lib.uint8).view(lib.bool),
    "int_to_bool": lambda lib: lib.ones(3, dtype=lib.int32).view(lib.bool),
    "empty": lambda lib: lib.ones(2, 0, dtype=lib.float16).view(lib.float32),
    # torch's errors
    "odd_last": lambda lib: lib.arange(12.).reshape(3, 4)[:, :3].view(lib.float64),
    "strided_last": lambda lib: lib.arange(12.).reshape(3, 4).t().view(lib.int16),
    "zero_dim": lambda lib: lib.tensor(1.0).view(lib.float16),
    "offset": lambda lib: lib.arange(8.).reshape(2, 4)[:, 1:3].view(lib.float64),
    "stride": lambda lib: lib.ones(2, 0).view(lib.float64),
    "char_short": lambda lib: lib.ones(3, dtype=lib.int8).view(lib.int16),
}


@pytest.mark.parametrize("case", sorted(VIEWS))
def test_view_dtype(case):
    same(lambda lib: _layout(VIEWS[case](lib)))


def test_view_dtype_shares_memory_and_version():
    def program(lib):
        x = lib.arange(4.)
        y = x.view(lib.int32)
        y[0] = 5
        return [x, y._version, x._version, y._base is None, y._is_view()]
    same(program)


def test_view_dtype_is_not_differentiable():
    def program(lib):
        w = lib.ones(2, 4, requires_grad=True)
        same_dtype = (w * 2).view(lib.float32)
        return [w.view(lib.int32), w.view(lib.float16), same_dtype.requires_grad,
                same_dtype.grad_fn is None]
    same(program)


# -- as_strided --------------------------------------------------------------------------------
STRIDED = {
    "overlapping": lambda lib: lib.as_strided(lib.arange(12.), (3, 3), (1, 1)),
    "offset": lambda lib: lib.arange(12.).as_strided((2, 2), (4, 1), 2),
    "input_offset_kept": lambda lib: lib.arange(12.)[2:].as_strided((2, 2), (4, 1)),
    "keywords": lambda lib: lib.arange(12.).as_strided(size=(2,), stride=(3,), storage_offset=4),
    "lists": lambda lib: lib.arange(12.).as_strided([3], [2], 1),
    "zero_dim": lambda lib: lib.as_strided(lib.tensor(1.), (), ()),
    "empty": lambda lib: lib.arange(12.).as_strided((2, 0), (100, 1), 5),
    "out_of_bounds": lambda lib: lib.arange(12.).as_strided((4, 4), (4, 1)),
    "negative_stride": lambda lib: lib.arange(12.).as_strided((2,), (-1,)),
    "length_mismatch": lambda lib: lib.arange(12.).as_strided((2, 2), (1,)),
    "negative_offset": lambda lib: lib.arange(12.).as_strided((2,), (1,), -1),
}


@pytest.mark.parametrize("case", sorted(STRIDED))
def test_as_strided(case):
    same(lambda lib: _layout(STRIDED[case](lib)))


GRAD_CASES = {
    "transposed": lambda w: w.as_strided((2, 2), (1, 2), 1),
    "before_input": lambda w: w[1:].as_strided((3,), (1,), 0),
    "overlapping": lambda w: w.as_strided((3, 2), (1, 1)),
    "broadcast": lambda w: w.as_strided((2, 3), (0, 2)),
}


@pytest.mark.parametrize("case", sorted(GRAD_CASES))
def test_as_strided_autograd(case):
    def program(lib):
        w = lib.arange(6., dtype=lib.float64, requires_grad=True)
        y = GRAD_CASES[case](w)
        weights = lib.arange(1., y.numel() + 1, dtype=lib.float64).reshape(y.shape)
        (y * weights).sum().backward()
        return [y, y.grad_fn.name(), y._base is w, w.grad]
    same(program)


def test_as_strided_view_shares_memory():
    def program(lib):
        x = lib.zeros(6)
        y = x.as_strided((2, 2), (1, 2), 1)
        y[0, 1] = 7
        return [x, x._version, y._version]
    same(program)


def test_as_strided_in_place():
    def program(lib):
        a = lib.zeros(5)
        b = a.as_strided((2,), (2,), 1)
        out = b.as_strided_((2,), (1,), 0)
        c = lib.arange(6.)
        d = c.as_strided_((2, 3), (3, 1))
        return [out is b, _layout(b), a._version, d is c, _layout(c),
                catch(lambda: lib.zeros(2).as_strided_((3,), (1,)))]
    same(program)


def test_as_strided_gradcheck():
    w = gg.randn(7, dtype=gg.float64, requires_grad=True)
    assert gg.autograd.gradcheck(lambda t: t.as_strided((3, 3), (2, 1), 0), (w,))
    assert gg.autograd.gradgradcheck(lambda t: t.as_strided((3, 3), (2, 1), 0) ** 2, (w,))


# -- unfold ------------------------------------------------------------------------------------
UNFOLDS = {
    "overlapping": lambda lib: lib.arange(12.).reshape(3, 4).unfold(1, 2, 1),
    "rows": lambda lib: lib.arange(12.).reshape(3, 4).unfold(0, 2, 2),
    "negative_dim": lambda lib: lib.arange(12.).reshape(3, 4).unfold(-1, 4, 3),
    "empty_window": lambda lib: lib.arange(12.).reshape(3, 4).unfold(1, 0, 1),
    "zero_dim": lambda lib: lib.tensor(3.).unfold(0, 1, 1),
    "zero_dim_empty": lambda lib: lib.tensor(3.).unfold(0, 0, 1),
    "too_big": lambda lib: lib.arange(12.).reshape(3, 4).unfold(1, 5, 1),
    "zero_dim_too_big": lambda lib: lib.tensor(3.).unfold(0, 2, 1),
    "zero_step": lambda lib: lib.arange(12.).reshape(3, 4).unfold(1, 2, 0),
    "negative_size": lambda lib: lib.arange(12.).reshape(3, 4).unfold(1, -1, 1),
    "bad_dim": lambda lib: lib.arange(12.).reshape(3, 4).unfold(2, 1, 1),
}


@pytest.mark.parametrize("case", sorted(UNFOLDS))
def test_unfold(case):
    same(lambda lib: _layout(UNFOLDS[case](lib)))


@pytest.mark.parametrize("size,step", [(3, 2), (2, 1), (2, 3), (1, 1)])
def test_unfold_autograd(size, step):
    def program(lib):
        w = lib.arange(8., dtype=lib.float64, requires_grad=True)
        u = w.unfold(0, size, step)
        g = lib.autograd.grad((u ** 2).sum(), w, create_graph=True)[0]
        gg_ = lib.autograd.grad((g * lib.arange(8., dtype=lib.float64)).sum(), w)[0]
        return [u, u.grad_fn.name(), u._base is w, g, g.grad_fn.name(), gg_]
    same(program)


def test_unfold_gradcheck():
    w = gg.randn(3, 7, dtype=gg.float64, requires_grad=True)
    assert gg.autograd.gradcheck(lambda t: t.unfold(1, 3, 2), (w,))
    assert gg.autograd.gradgradcheck(lambda t: t.unfold(1, 3, 1) ** 2, (w,))


# -- the rest of the Tensor API on layouts -----------------------------------------------------
MORE = {
    "fill_diagonal": lambda lib: lib.zeros(3, 4).fill_diagonal_(5),
    "fill_diagonal_tall": lambda lib: lib.zeros(7, 3).fill_diagonal_(2),
    "fill_diagonal_wrap": lambda lib: lib.zeros(7, 3).fill_diagonal_(2, wrap=True),
    "fill_diagonal_cube": lambda lib: lib.zeros(2, 2, 2).fill_diagonal_(1),
    "fill_diagonal_int": lambda lib: lib.zeros(3, 3, dtype=lib.int64).fill_diagonal_(7),
    "fill_diagonal_transposed": lambda lib: lib.zeros(2, 3).t().fill_diagonal_(1),
    "fill_diagonal_unequal": lambda lib: lib.zeros(2, 3, 2).fill_diagonal_(1),
    "fill_diagonal_1d": lambda lib: lib.zeros(3).fill_diagonal_(1),
    "narrow_copy": lambda lib: lib.arange(12.).reshape(3, 4).narrow_copy(1, 1, 2),
    "narrow_copy_error": lambda lib: lib.arange(12.).reshape(3, 4).narrow_copy(1, 3, 2),
    "prelu": lambda lib: lib.tensor([-1., 2.]).prelu(lib.tensor([0.25])),
    "dense": lambda lib: [lib.ones(2, 3).dense_dim(), lib.ones(2).is_distributed(),
                          lib.ones(2).to_dense(), lib.ones(2).to_dense(lib.float64)],
}
for _name in ("coalesce", "is_coalesced", "indices", "values", "crow_indices", "col_indices",
              "ccol_indices", "row_indices"):
    MORE[_name] = lambda lib, _name=_name: getattr(lib.ones(2, 2), _name)()


@pytest.mark.parametrize("case", sorted(MORE))
def test_more_methods(case):
    same(lambda lib: MORE[case](lib))


def test_is_set_to():
    def program(lib):
        x = lib.arange(12.).reshape(3, 4)
        return [x.is_set_to(x), x.is_set_to(x.view(12)), x.is_set_to(x.clone()),
                x.is_set_to(x.view(3, 4)), x[1:].is_set_to(x[1:])]
    same(program)


def test_fill_diagonal_autograd():
    def program(lib):
        w = lib.ones(3, 3, requires_grad=True)
        y = (w * 2).fill_diagonal_(0)
        (y * lib.arange(9.).reshape(3, 3)).sum().backward()
        return [y, w.grad]
    same(program)
