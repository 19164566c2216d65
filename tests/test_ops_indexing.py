"""Indexing ops beyond their op-table cases (opinfo.py, run by test_op_table.py): every saved
attribute of each case, __setitem__ with every grad combination, repeated indices, errors.

Index tensors are built inside each program with ``lib.tensor`` so both libraries get the same
indices. torch computes every expectation.
"""
import warnings

import numpy as np
import pytest
import torch

import glassgrad as gg
from opinfo import I, case_params
from optable import assert_same, build, check_error, grad_flags, make_inputs, outcome

# (the op-table cases are in opinfo.py; test_op_table.py runs them)
ROWS = case_params("indexing")


EXTRA_SAVED = ("_saved_indices", "_saved_accumulate", "_saved_self_sym_sizes", "_saved_dim",
               "_saved_index", "_saved_sparse_grad", "_saved_src", "_saved_reduce",
               "_saved_include_self", "_saved_alpha", "_saved_source", "_saved_source_dim",
               "_saved_mask", "_saved_source_sym_sizes", "_saved_value")


def _same_saved(ref, got, what):
    if isinstance(ref, torch.Tensor):
        assert_same(ref, got, what)
    elif isinstance(ref, tuple) and ref and any(isinstance(r, torch.Tensor) for r in ref):
        assert isinstance(got, tuple) and len(got) == len(ref), what
        for r, g in zip(ref, got):
            _same_saved(r, g, what)
    elif what.endswith("_saved_dim") and got < 0:
        assert got % 2 ** 64 == ref, what      # torch shows a negative dim as unsigned
    else:
        assert got == ref, what


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("fn,shapes,kw", ROWS)
def test_saved(fn, shapes, kw):
    """The saved names the op table does not list (indices, dim, mask, ...): same set, values."""
    arrays = make_inputs(shapes, kw, "float32", np.random.default_rng(0))
    flags = grad_flags(shapes, kw)
    t_outs = build(torch, fn, arrays, flags)[1]
    g_outs = build(gg, fn, arrays, flags)[1]
    for k, (t, g) in enumerate(zip(t_outs, g_outs)):
        if t.grad_fn is None:
            assert g.grad_fn is None
            continue
        names = [n for n in EXTRA_SAVED if hasattr(t.grad_fn, n)]
        assert names == [n for n in EXTRA_SAVED if hasattr(g.grad_fn, n)], f"output {k}"
        for n in names:
            _same_saved(getattr(t.grad_fn, n), getattr(g.grad_fn, n), f"output {k}: {n}")


# -- __setitem__: versions, gradients, values ------------------------------------------------
def _program_setitem(lib, index, value, base_grad, value_grad):
    """Both libraries run the same program; returns what it observed."""
    x = lib.arange(12.).reshape(3, 4).requires_grad_(base_grad)
    y = x * 2
    v = value(lib)
    if isinstance(v, lib.Tensor):
        v.requires_grad_(value_grad)
    before = y._version
    y[index(lib)] = v
    out = [y.detach().clone(), y._version - before, type(y.grad_fn).__name__, y.requires_grad]
    if y.requires_grad:
        (y * lib.arange(12.).reshape(3, 4)).sum().backward()
        out += [x.grad, v.grad if isinstance(v, lib.Tensor) else None]
    return out


SETITEM_CASES = {
    "idx_scalar": (lambda t: I(t, [0, 2]), lambda t: 5.0),
    "idx_int_value": (lambda t: [1, 1], lambda t: 7),
    "idx_bool_value": (lambda t: I(t, [1]), lambda t: True),
    "mask_scalar": (lambda t: t.arange(12.).reshape(3, 4) > 5, lambda t: -1.0),
    "mask_row": (lambda t: I(t, [True, False, True], "bool"), lambda t: t.ones(4)),
    "pair_tensor": (lambda t: (I(t, [0, 2]), I(t, [3, 0])), lambda t: t.tensor([8.0, 9.0])),
    "slice_idx": (lambda t: (slice(1, None), I(t, [0])), lambda t: t.tensor([[1.0], [2.0]])),
    "ellipsis": (lambda t: ..., lambda t: t.tensor([1.0, 2.0, 3.0, 4.0])),
    "ellipsis_0d": (lambda t: ..., lambda t: t.tensor(3.0)),
    "none_idx": (lambda t: (None, I(t, [2])), lambda t: t.zeros(4)),
}


@pytest.mark.parametrize("grads", [(False, False), (True, False), (False, True), (True, True)],
                         ids=lambda g: f"base{int(g[0])}-value{int(g[1])}")
@pytest.mark.parametrize("name", SETITEM_CASES)
def test_setitem(name, grads):
    """Values, the version bump, grad_fn and the gradients of base and value."""
    index, value = SETITEM_CASES[name]
    got, got_err = outcome(lambda: _program_setitem(gg, index, value, *grads))
    ref, ref_err = outcome(lambda: _program_setitem(torch, index, value, *grads))
    assert got_err == ref_err
    if ref_err:
        return
    for k, (r, g) in enumerate(zip(ref, got)):
        if isinstance(r, torch.Tensor) or r is None:
            assert_same(r, g, f"item {k}")
        else:
            assert g == r, f"item {k}"


def _write_basic(lib, index, value):
    x = lib.zeros(3, 4)
    before = x._version
    x[index] = value(lib) if callable(value) else value
    return x.tolist(), x._version - before


@pytest.mark.parametrize("index,value", [
    (0, 1.0), ((slice(None), 1), lambda t: t.tensor([1.0, 2.0, 3.0])),
    ((1, slice(1, 3)), lambda t: t.tensor([[5.0, 6.0]])), (slice(0, 2), 2),
    ((None, 2), lambda t: t.ones(1, 4)), (..., lambda t: t.tensor(4.0, dtype=t.float64)),
    ((1, ...), lambda t: t.tensor([1, 2, 3, 4])),
], ids=str)
def test_setitem_basic_values(index, value):
    """Basic-index writes (no grad): values and version bumps through the view."""
    assert _write_basic(gg, index, value) == _write_basic(torch, index, value)


def test_setitem_view_requiring_grad_rebases():
    """Writes into a view of a non-leaf: the base's history becomes CopySlices, as in torch."""
    def run(t):
        w = t.ones(3, 4, requires_grad=True)
        y = w * 1
        y[0] = 2.0
        y[0, t.tensor([1, 2])] = w[1, :2] * 3
        (y * t.arange(12.).reshape(3, 4)).sum().backward()
        return type(y.grad_fn).__name__, y._version, y.tolist(), w.grad.tolist()
    assert run(gg) == run(torch)


def test_scatter_reduce_arg_has_no_derivative():
    def run(t):
        x = t.ones(3, requires_grad=True) * 1
        s = t.ones(2, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y = x.scatter(0, I(t, [0, 0]), s, reduce="add")
        name = type(y.grad_fn).__name__
        return name, outcome(lambda: y.sum().backward())[1]
    assert run(gg) == run(torch)


def test_repeated_indices_accumulate():
    """x[idx] with repeats: every repeat adds into the same gradient entry."""
    def run(t):
        x = t.arange(5., requires_grad=True)
        x[[0, 0, 0, 3, -2, 3]].sum().backward()
        return x.grad.tolist()
    assert run(gg) == run(torch)


def test_nonzero_as_tuple_and_index_round_trip():
    def run(t):
        x = t.tensor([[0.0, 1.5, 0.0], [2.0, 0.0, -1.0]])
        return [x[t.nonzero(x, as_tuple=True)].tolist(), x[x != 0].tolist(),
                t.argwhere(x).tolist()]
    assert run(gg) == run(torch)


# -- errors ----------------------------------------------------------------------------------
def _x(t):
    return t.zeros(3, 4, 5)


ERRORS = {
    "getitem_float_tensor": lambda t: _x(t)[I(t, [1.0, 0.0], "float32")],
    "getitem_0d_float_tensor": lambda t: _x(t)[t.tensor(1.0)],
    "getitem_int16": lambda t: _x(t)[I(t, [1, 2], "int16")],
    "getitem_float": lambda t: _x(t)[1.5],
    "getitem_oob": lambda t: _x(t)[I(t, [3])],
    "getitem_oob_neg": lambda t: _x(t)[I(t, [-4])],
    "getitem_oob_dim1": lambda t: _x(t)[:, I(t, [4])],
    "getitem_oob_second": lambda t: _x(t)[I(t, [0]), I(t, [9])],
    "getitem_oob_after_mask": lambda t: _x(t)[t.ones(3, 4, dtype=t.bool), I(t, [9])],
    "getitem_oob_list": lambda t: _x(t)[[0, 3]],
    "getitem_mask_shape": lambda t: _x(t)[I(t, [True, False], "bool")],
    "getitem_mask_shape_2d": lambda t: _x(t)[t.ones(3, 3, dtype=t.bool)],
    "getitem_mask_shape_dim1": lambda t: _x(t)[:, t.ones(3, 3, dtype=t.bool)],
    "getitem_bcast": lambda t: _x(t)[I(t, [0, 1]), I(t, [0, 1, 2])],
    "getitem_too_many": lambda t: _x(t)[I(t, [0]), I(t, [0]), I(t, [0]), I(t, [0])],
    "getitem_too_many_mask": lambda t: _x(t)[t.ones(3, 4, dtype=t.bool), 0, 0],
    "getitem_oob_int_with_idx": lambda t: _x(t)[5, I(t, [0])],
    "setitem_dtype": lambda t: _x(t).__setitem__(I(t, [0]), t.ones(4, 5, dtype=t.float64)),
    "setitem_int_value_tensor": lambda t: _x(t).__setitem__(I(t, [0]), t.ones(5,
                                                                              dtype=t.int64)),
    "setitem_shape": lambda t: _x(t).__setitem__(I(t, [0, 1, 2]), t.ones(2, 4, 5)),
    "setitem_basic_shape": lambda t: t.zeros(3, 4).__setitem__(0, t.ones(3)),
    "setitem_oob": lambda t: _x(t).__setitem__(I(t, [7]), 1.0),
    "setitem_float_index": lambda t: _x(t).__setitem__(1.5, 1.0),
    "setitem_leaf": lambda t: t.ones(3, requires_grad=True).__setitem__(I(t, [0]), 1.0),
    "index_put_not_tuple": lambda t: _x(t).index_put_(I(t, [0]), t.ones(4, 5)),
    "index_put_scalar": lambda t: _x(t).index_put_((I(t, [0]),), 1.0),
    "index_put_dtype": lambda t: _x(t).index_put((I(t, [0]),), t.ones(5, dtype=t.float64)),
    "gather_float_index": lambda t: _x(t).gather(0, t.zeros(3, 4, 5)),
    "gather_oob": lambda t: _x(t).gather(0, t.full((3, 4, 5), 3)),
    "gather_neg": lambda t: _x(t).gather(0, t.full((3, 4, 5), -1)),
    "gather_size": lambda t: _x(t).gather(0, t.zeros(3, 5, 5, dtype=t.int64)),
    "gather_ndim": lambda t: _x(t).gather(0, t.zeros(3, 4, dtype=t.int64)),
    "gather_dim": lambda t: _x(t).gather(3, t.zeros(3, 4, 5, dtype=t.int64)),
    "scatter_oob": lambda t: _x(t).scatter(0, t.full((3, 4, 5), 3), 1.0),
    "scatter_float_index": lambda t: _x(t).scatter(0, t.zeros(3, 4, 5), 1.0),
    "scatter_src_small": lambda t: _x(t).scatter(0, t.zeros(3, 4, 5, dtype=t.int64),
                                                 t.ones(2, 4, 5)),
    "scatter_src_dtype": lambda t: _x(t).scatter(0, t.zeros(3, 4, 5, dtype=t.int64),
                                                 t.ones(3, 4, 5, dtype=t.float64)),
    "scatter_index_big": lambda t: _x(t).scatter(0, t.zeros(3, 5, 5, dtype=t.int64),
                                                 t.ones(3, 5, 5)),
    "scatter_ndim": lambda t: _x(t).scatter(0, t.zeros(3, 4, dtype=t.int64), 1.0),
    "scatter_src_ndim": lambda t: _x(t).scatter(0, t.zeros(3, 4, 5, dtype=t.int64),
                                                t.ones(3, 4)),
    "scatter_bad_reduce": lambda t: _x(t).scatter(0, t.zeros(3, 4, 5, dtype=t.int64), 1.0,
                                                  reduce="sum"),
    "scatter_add_dtype": lambda t: _x(t).scatter_add(0, t.zeros(3, 4, 5, dtype=t.int64),
                                                     t.ones(3, 4, 5, dtype=t.float64)),
    "scatter_add_oob": lambda t: _x(t).scatter_add(0, t.full((3, 4, 5), 3), _x(t)),
    "scatter_reduce_bad": lambda t: _x(t).scatter_reduce(0, t.zeros(3, 4, 5, dtype=t.int64),
                                                         _x(t), "add"),
    "scatter_reduce_float_index": lambda t: _x(t).scatter_reduce(0, t.zeros(3, 4, 5), _x(t),
                                                                 "sum"),
    "scatter_leaf": lambda t: t.ones(3, requires_grad=True).scatter_(0, I(t, [0]), 1.0),
    "index_select_oob": lambda t: _x(t).index_select(0, I(t, [3])),
    "index_select_neg": lambda t: _x(t).index_select(0, I(t, [-1])),
    "index_select_2d": lambda t: _x(t).index_select(0, I(t, [[1]])),
    "index_select_float": lambda t: _x(t).index_select(0, I(t, [1.0], "float32")),
    "index_select_dim": lambda t: _x(t).index_select(3, I(t, [1])),
    "index_add_count": lambda t: _x(t).index_add(0, I(t, [1]), t.ones(2, 4, 5)),
    "index_add_dtype": lambda t: _x(t).index_add(0, I(t, [1]), t.ones(1, 4, 5,
                                                                       dtype=t.float64)),
    "index_add_oob": lambda t: _x(t).index_add(0, I(t, [3]), t.ones(1, 4, 5)),
    "index_add_neg": lambda t: _x(t).index_add(0, I(t, [-1]), t.ones(1, 4, 5)),
    "index_add_float_index": lambda t: _x(t).index_add(0, I(t, [1.0], "float32"),
                                                       t.ones(1, 4, 5)),
    "index_add_2d_index": lambda t: _x(t).index_add(0, I(t, [[1]]), t.ones(1, 4, 5)),
    "index_copy_oob": lambda t: _x(t).index_copy(0, I(t, [3]), t.ones(1, 4, 5)),
    "index_copy_neg": lambda t: _x(t).index_copy(0, I(t, [-1]), t.ones(1, 4, 5)),
    "index_copy_float_index": lambda t: _x(t).index_copy(0, I(t, [1.0], "float32"),
                                                         t.ones(1, 4, 5)),
    "index_copy_count": lambda t: _x(t).index_copy(0, I(t, [1]), t.ones(2, 4, 5)),
    "index_copy_slice_shape": lambda t: _x(t).index_copy(0, I(t, [1]), t.ones(1, 3, 5)),
    "index_copy_dtype": lambda t: _x(t).index_copy(0, I(t, [1]), t.ones(1, 4, 5,
                                                                         dtype=t.float64)),
    "index_fill_oob": lambda t: _x(t).index_fill(0, I(t, [3]), 1.0),
    "index_fill_1d_value": lambda t: _x(t).index_fill(0, I(t, [1]), t.ones(2)),
    "index_fill_int32_index": lambda t: _x(t).index_fill(0, I(t, [1], "int32"), 1.0),
    "masked_fill_float_mask": lambda t: t.zeros(3).masked_fill(t.ones(3), 1.0),
    "masked_fill_long_mask": lambda t: t.zeros(3).masked_fill(t.ones(3, dtype=t.int64), 1.0),
    "masked_fill_1d_value": lambda t: t.zeros(3).masked_fill(t.ones(3, dtype=t.bool),
                                                             t.ones(2)),
    "masked_fill_bcast": lambda t: t.zeros(3).masked_fill(t.ones(2, dtype=t.bool), 1.0),
    "masked_fill__bigger_mask": lambda t: t.zeros(3).masked_fill_(t.ones(2, 3, dtype=t.bool),
                                                                  1.0),
    "masked_select_float_mask": lambda t: t.zeros(3).masked_select(t.ones(3)),
    "masked_select_shape": lambda t: t.zeros(3).masked_select(t.ones(2, dtype=t.bool)),
    "masked_scatter_few": lambda t: t.zeros(3).masked_scatter(t.ones(3, dtype=t.bool),
                                                              t.ones(2)),
    "masked_scatter_dtype": lambda t: t.zeros(3).masked_scatter(
        t.ones(3, dtype=t.bool), t.ones(3, dtype=t.float64)),
    "masked_scatter_long_mask": lambda t: t.zeros(3).masked_scatter(t.ones(3, dtype=t.int64),
                                                                    t.ones(3)),
    "take_oob": lambda t: _x(t).take(I(t, [60])),
    "take_oob_neg": lambda t: _x(t).take(I(t, [-61])),
    "take_int32": lambda t: _x(t).take(I(t, [1], "int32")),
    "take_along_dim_ndim": lambda t: t.take_along_dim(_x(t), I(t, [[1]]), 1),
    "take_along_dim_int32": lambda t: t.take_along_dim(_x(t), I(t, [[[1]]], "int32"), 1),
    "take_along_dim_bcast": lambda t: t.take_along_dim(_x(t), t.zeros(2, 2, 1, dtype=t.int64),
                                                       1),
    "take_along_dim_oob": lambda t: t.take_along_dim(_x(t), I(t, [1, 100])),
}


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("f", ERRORS.values(), ids=ERRORS.keys())
def test_errors(f):
    check_error(f)
