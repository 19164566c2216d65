"""Indexing ops against torch: advanced __getitem__/__setitem__, index/index_put, gather and the
scatters, index_*, masked_*, take, take_along_dim, nonzero, argwhere.

Index tensors are built inside each row with ``lib.tensor`` so both libraries get the same
indices. torch computes every expectation.
"""
import warnings

import numpy as np
import pytest
import torch

import glassgrad as gg
from optable import (DTYPES, Mask, assert_same, build, check_error, check_op,
                     grad_flags, known, make_inputs, outcome, row, with_inplace)


def I(lib, data, dtype="int64"):       # noqa: E743 - an index tensor
    return lib.tensor(data, dtype=getattr(lib, dtype))


# -- __getitem__ -----------------------------------------------------------------------------
GETITEM = [row(name, fn, *shapes) for name, fn, *shapes in [
    ("list_repeats", lambda t, x: x[[0, 2, 0]], (3, 4)),
    ("tensor_neg", lambda t, x: x[I(t, [0, -1, 2, -3])], (3, 4)),
    ("tensor_2d", lambda t, x: x[I(t, [[0, 1], [2, 2]])], (3, 4)),
    ("int32", lambda t, x: x[I(t, [1, 1, 0], "int32")], (3, 4)),
    ("slice_idx", lambda t, x: x[:, I(t, [1, 1, 3])], (3, 4, 5)),
    ("idx_idx", lambda t, x: x[I(t, [0, 2, 0]), I(t, [1, 3, 1])], (3, 4, 5)),
    ("idx_bcast", lambda t, x: x[I(t, [[0], [2]]), I(t, [1, 3, 1])], (3, 4, 5)),
    ("int_slice_idx", lambda t, x: x[0, :, I(t, [1, 1])], (3, 4, 5)),
    ("idx_int", lambda t, x: x[I(t, [2, 0]), 1], (3, 4, 5)),
    ("separated", lambda t, x: x[I(t, [0, 2]), :, I(t, [1, 4])], (3, 4, 5)),
    ("none_idx", lambda t, x: x[None, I(t, [1, 0])], (3, 4)),
    ("idx_none", lambda t, x: x[I(t, [1, 0]), None], (3, 4)),
    ("ellipsis_idx", lambda t, x: x[..., I(t, [4, 0, 4])], (3, 4, 5)),
    ("slice_step_idx", lambda t, x: x[1:, I(t, [3, 3]), ::2], (3, 4, 5)),
    ("tuple_in_tuple", lambda t, x: x[(0, 1), ], (3, 4)),
    ("empty_list", lambda t, x: x[[]], (3, 4)),
    ("true", lambda t, x: x[True], (3, 4)),
    ("false", lambda t, x: x[False], (3, 4)),
    ("none_true", lambda t, x: x[None, 1, True], (3, 4)),
    ("0d_int_tensor", lambda t, x: x[I(t, 1)], (3, 4)),
    ("0d_bool_tensor", lambda t, x: x[I(t, True, "bool")], (3, 4)),
    ("bool_list", lambda t, x: x[[True, False, True]], (3, 4)),
    ("mask_full", lambda t, m, x: x[m], Mask((3, 4)), (3, 4)),
    ("mask_leading", lambda t, m, x: x[m], Mask((3,)), (3, 4)),
    ("mask_dim1", lambda t, m, x: x[:, m], Mask((4,)), (3, 4, 2)),
    ("mask_then_idx", lambda t, m, x: x[m, I(t, [0])], Mask((3, 4)), (3, 4, 2)),
    ("chain", lambda t, x: x[I(t, [0, 0, 1])][I(t, [2, 2])], (3, 4)),
    ("getitem_of_expr", lambda t, x: (x * x)[I(t, [1, 1])], (3, 4)),
]]
GETITEM.append(row("index_fn", lambda t, x: t.ops.aten.index(x, [None, I(t, [1, 1])])
                   if t is torch else gg.ops.indexing.index(x, [None, I(t, [1, 1])]), (3, 4)))


# -- __setitem__ and index_put ---------------------------------------------------------------
def _set(index, value=None):
    """y = x * 1; y[index] = value (or the second input); return y."""
    def fn(t, x, *vs):
        y = x * 1
        y[index(t)] = vs[0] if vs else value
        return y
    return fn


SETITEM = [row(name, fn, *shapes, **kw) for name, fn, shapes, kw in [
    ("idx=tensor", _set(lambda t: I(t, [0, 2])), ((3, 4), (4,)), {}),
    ("idx=2d", _set(lambda t: I(t, [2, 0])), ((3, 4), (2, 4)), {}),
    ("idx=lead1", _set(lambda t: I(t, [2, 0])), ((3, 4), (1, 1, 4)), {}),
    ("idx=0d", _set(lambda t: I(t, [2, 0])), ((3, 4), ()), {}),
    ("idx=scalar", _set(lambda t: I(t, [2, -3]), 2.5), ((3, 4),), {}),
    ("idx=int", _set(lambda t: [1], 7), ((3, 4),), {}),
    ("slice_idx=tensor", _set(lambda t: (slice(None), I(t, [3, 1]))), ((3, 4), (3, 2)), {}),
    ("pair=tensor", _set(lambda t: (I(t, [0, 2]), I(t, [3, 1]))), ((3, 4), (2,)), {}),
    ("value_only", _set(lambda t: I(t, [1])), ((3, 4), (4,)), {"grad": (False, True)}),
    ("base_only", _set(lambda t: I(t, [1])), ((3, 4), (4,)), {"grad": (True, False)}),
    ("ellipsis=tensor", _set(lambda t: ...), ((3, 4), (4,)), {}),
    ("ellipsis=scalar", _set(lambda t: ..., 1.5), ((3, 4),), {}),
    ("ellipsis=same_shape", _set(lambda t: ...), ((3, 4), (3, 4)), {}),
    ("basic_nograd", _set(lambda t: (0, slice(1, None))), ((3, 4), (3,)),
     {"grad": (False, False)}),
    ("basic_scalar_nograd", _set(lambda t: (slice(None), 1), -1.0), ((3, 4),),
     {"grad": (False,)}),
]]
SETITEM += [
    row("mask=scalar", lambda t, m, x: _set(lambda t: m, 0.5)(t, x), Mask((3, 4)), (3, 4)),
    row("mask=0d", lambda t, m, x, v: _set(lambda t: m)(t, x, v), Mask((3,)), (3, 4), ()),
    row("index_put", lambda t, x, v: t.index_put(x, (I(t, [0, 2]),), v), (3, 4), (4,)),
    row("index_put_acc_repeats", lambda t, x, v: x.index_put((I(t, [0, 2, 0]),), v,
                                                              accumulate=True), (3, 4), (3, 4)),
    row("index_put_pair", lambda t, x, v: x.index_put((I(t, [0, 2]), I(t, [1, 1])), v), (3, 4),
        ()),
    row("index_put_", lambda t, x, v: (x * 1).index_put_((I(t, [1]),), v), (3, 4), (4,)),
    row("index_put_acc_", lambda t, x, v: (x * 1).index_put_((I(t, [0, 0, 2]), I(t, [1, 1, 3])),
                                                             v, True), (3, 4), (3,)),
]


# -- gather / scatter ------------------------------------------------------------------------
IDX2 = [[0, 1, 2, 0], [2, 0, 1, 1]]       # (2, 4): distinct per column, into dim 0 of size 3
REP2 = [[0, 0, 2, 0], [0, 2, 2, 1]]       # repeats in columns 0 and 2


def _reduce_rows():
    out = []
    for reduce in ("sum", "prod", "mean", "amax", "amin"):
        for inc in (True, False):
            out.append(row(f"scatter_reduce-{reduce}-{'incl' if inc else 'excl'}",
                           lambda t, x, s, r=reduce, i=inc: x.scatter_reduce(
                               0, I(t, REP2), s, r, include_self=i), (3, 4), (2, 4),
                           **({"lo": 0.5, "hi": 1.5} if reduce == "prod" else {})))
    out.append(row("scatter_reduce_-amax", lambda t, x, s: (x * 1).scatter_reduce_(
        1, I(t, [[0, 0], [1, 1], [3, 0]]), s, "amax", include_self=False), (3, 4), (3, 2)))
    out.append(row("torch.scatter_reduce", lambda t, x, s: t.scatter_reduce(
        x, 1, I(t, [[0, 0], [1, 1], [3, 0]]), s, reduce="mean"), (3, 4), (3, 2)))
    return out


GATHER = [row(name, fn, *shapes, **kw) for name, fn, shapes, kw in [
    ("gather-dim0", lambda t, x: x.gather(0, I(t, REP2)), ((3, 4),), {}),
    ("gather-dim1-small", lambda t, x: t.gather(x, 1, I(t, [[3, 3], [0, 1]])), ((3, 4),), {}),
    ("gather-3d-int32", lambda t, x: x.gather(-1, I(t, [[[1, 0, 1]]], "int32")), ((2, 3, 2),),
     {}),
    ("scatter-src", lambda t, x, s: x.scatter(0, I(t, IDX2), s), ((3, 4), (2, 4)), {}),
    # src larger than index: torch's own src gradient has the wrong shape, so self only
    ("scatter-src-big", lambda t, x, s: t.scatter(x, 1, I(t, [[2], [0]]), s), ((3, 4), (3, 3)),
     {"grad": (True, False)}),
    ("scatter-src-only", lambda t, x, s: x.scatter(0, I(t, IDX2), s), ((3, 4), (2, 4)),
     {"grad": (False, True)}),
    ("scatter-value", lambda t, x: x.scatter(1, I(t, [[0, 3], [1, 1]]), 2.5), ((3, 4),), {}),
    ("scatter-value-kw", lambda t, x: t.scatter(x, 0, I(t, IDX2), value=-1), ((3, 4),), {}),
    ("scatter_", lambda t, x, s: (x * 1).scatter_(0, I(t, IDX2), s), ((3, 4), (2, 4)), {}),
    ("scatter_-value", lambda t, x: (x * 1).scatter_(0, I(t, IDX2), 0.5), ((3, 4),), {}),
    ("scatter-reduce-add", lambda t, x, s: x.scatter(0, I(t, REP2), s, reduce="add"),
     ((3, 4), (2, 4)), {"grad": (False, False)}),
    ("scatter-reduce-mul-value", lambda t, x: x.scatter(0, I(t, REP2), 3.0,
                                                        reduce="multiply"),
     ((3, 4),), {"grad": (False,)}),
    ("scatter_add-repeats", lambda t, x, s: x.scatter_add(0, I(t, REP2), s), ((3, 4), (2, 4)),
     {}),
    ("torch.scatter_add", lambda t, x, s: t.scatter_add(x, 1, I(t, [[0, 0, 0]]), s),
     ((3, 4), (2, 5)), {"grad": (True, False)}),
    ("scatter_add_", lambda t, x, s: (x * 1).scatter_add_(0, I(t, REP2), s), ((3, 4), (2, 4)),
     {}),
    ("take_along_dim", lambda t, x: t.take_along_dim(x, I(t, [[0, 2, 2, 1]]), 0), ((3, 4),),
     {}),
    ("take_along_dim-bcast", lambda t, x: x.take_along_dim(I(t, [[[1], [0]]]), 2),
     ((3, 2, 4),), {}),
    ("take_along_dim-none", lambda t, x: t.take_along_dim(x, I(t, [11, 0, 5, 0])), ((3, 4),),
     {}),
]] + _reduce_rows()


# -- index_select / index_add / index_copy / index_fill --------------------------------------
INDEX_OPS = [row(name, fn, *shapes, **kw) for name, fn, shapes, kw in [
    ("index_select-dim0", lambda t, x: x.index_select(0, I(t, [2, 0, 2])), ((3, 4),), {}),
    ("index_select-dim1-int32", lambda t, x: t.index_select(x, -1, I(t, [3, 3], "int32")),
     ((3, 4),), {}),
    ("index_select-0d-index", lambda t, x: x.index_select(1, I(t, 2)), ((3, 4),), {}),
    ("index_add", lambda t, x, s: x.index_add(0, I(t, [2, 0, 2]), s), ((3, 4), (3, 4)), {}),
    ("index_add-alpha", lambda t, x, s: t.index_add(x, 1, I(t, [1, 1]), s, alpha=2.5),
     ((3, 4), (3, 2)), {}),
    ("index_add-source-only", lambda t, x, s: x.index_add(0, I(t, [1]), s), ((3, 4), (1, 4)),
     {"grad": (False, True)}),
    ("index_add_", lambda t, x, s: (x * 1).index_add_(0, I(t, [0, 0]), s, alpha=-1),
     ((3, 4), (2, 4)), {}),
    ("index_copy", lambda t, x, s: x.index_copy(1, I(t, [3, 0]), s), ((3, 4), (3, 2)), {}),
    ("torch.index_copy", lambda t, x, s: t.index_copy(x, 0, I(t, [2]), s), ((3, 4), (1, 4)),
     {}),
    ("index_copy_", lambda t, x, s: (x * 1).index_copy_(0, I(t, [2, 1]), s), ((3, 4), (2, 4)),
     {}),
    ("index_fill-scalar", lambda t, x: x.index_fill(1, I(t, [0, 3, 0]), -2.0), ((3, 4),), {}),
    ("index_fill-neg", lambda t, x: t.index_fill(x, 0, I(t, [-1]), 1), ((3, 4),), {}),
    ("index_fill-tensor", lambda t, x, v: x.index_fill(1, I(t, [0, 3, 0]), v), ((3, 4), ()),
     {}),
    ("index_fill_-tensor", lambda t, x, v: (x * 1).index_fill_(0, I(t, [1, 1]), v),
     ((3, 4), ()), {}),
]]


# -- masked_* --------------------------------------------------------------------------------
MASKED = [row(name, fn, *shapes, **kw) for name, fn, shapes, kw in [
    ("masked_fill", lambda t, m, x: x.masked_fill(m, 0.5), (Mask((3, 4)), (3, 4)), {}),
    ("masked_fill-bcast-mask", lambda t, m, x: t.masked_fill(x, m, -1), (Mask((4,)), (3, 4)),
     {}),
    ("masked_fill-bcast-self", lambda t, m, x: x.masked_fill(m, 2.0), (Mask((3, 4)), (4,)), {}),
    ("masked_fill-tensor", lambda t, m, x, v: x.masked_fill(m, v), (Mask((3, 1)), (3, 4), ()),
     {}),
    ("masked_fill_", lambda t, m, x: (x * 1).masked_fill_(m, 0.0), (Mask((3, 4)), (3, 4)), {}),
    ("masked_fill_-tensor", lambda t, m, x, v: (x * 1).masked_fill_(m, v),
     (Mask((4,)), (3, 4), ()), {}),
    ("masked_select", lambda t, m, x: x.masked_select(m), (Mask((3, 4)), (3, 4)), {}),
    ("masked_select-bcast", lambda t, m, x: t.masked_select(x, m), (Mask((2, 3, 4)), (3, 4)),
     {}),
    ("masked_select-bcast-self", lambda t, m, x: x.masked_select(m), (Mask((3, 1)), (3, 4)),
     {}),
    ("masked_scatter", lambda t, m, x, s: x.masked_scatter(m, s), (Mask((3, 4)), (3, 4), (3, 5)),
     {}),
    ("masked_scatter-bcast", lambda t, m, x, s: t.masked_scatter(x, m, s),
     (Mask((2, 1, 4)), (3, 4), (25,)), {}),
    ("masked_scatter_", lambda t, m, x, s: (x * 1).masked_scatter_(m, s),
     (Mask((4,)), (3, 4), (12,)), {}),
]]


# -- take, nonzero, argwhere -----------------------------------------------------------------
OTHER = [row(name, fn, *shapes, **kw) for name, fn, shapes, kw in [
    ("take", lambda t, x: x.take(I(t, [0, 11, -1, 5, 5])), ((3, 4),), {}),
    ("take-2d", lambda t, x: t.take(x, I(t, [[1, 2], [1, -12]])), ((3, 4),), {}),
    ("nonzero", lambda t, x: t.nonzero(x), ((3, 4),), {"ints": True}),
    ("nonzero-method", lambda t, x: x.nonzero(), ((2, 3, 2),), {"ints": True}),
    ("nonzero-as_tuple", lambda t, x: t.nonzero(x, as_tuple=True), ((3, 4),), {"ints": True}),
    ("nonzero-empty", lambda t, x: (x * 0).nonzero(), ((3, 4),), {}),
    ("nonzero-0d", lambda t, x: x.sum().nonzero(), ((3, 4),), {}),
    ("argwhere", lambda t, x: t.argwhere(x), ((3, 4),), {"ints": True}),
    ("argwhere-method", lambda t, x: x.argwhere(), ((4,),), {"ints": True}),
]]

# a transposed input: which ops keep its layout and which return a contiguous result
TRANSPOSED = [row(f"transposed-{name}", lambda t, x, f=f: f(t, x.t()), (4, 3)) for name, f in [
    ("getitem", lambda t, y: y[:, I(t, [0, 2])]),
    ("scatter", lambda t, y: y.scatter(0, I(t, [[0, 1, 2, 0]]), 1.0)),
    ("scatter_add", lambda t, y: y.scatter_add(1, I(t, [[0], [1], [3]]), y[:, :1] * 2)),
    ("index_add", lambda t, y: y.index_add(1, I(t, [1]), y[:, :1])),
    ("index_copy", lambda t, y: y.index_copy(0, I(t, [1]), y[:1])),
    ("index_put", lambda t, y: y.index_put((I(t, [1]),), y[0])),
    ("index_fill", lambda t, y: y.index_fill(0, I(t, [2]), 0.5)),
    ("masked_fill", lambda t, y: y.masked_fill(y > 0, 0.5)),
    ("masked_scatter", lambda t, y: y.masked_scatter(y > 0, y * 3)),
    ("gather", lambda t, y: y.gather(1, I(t, [[0, 3], [1, 1], [2, 0]]))),
]]

# the in-place variant of each row whose op has one (written into x * 1)
INPLACE = {
    "index_put": lambda t, x, v: (x * 1).index_put_((I(t, [0, 2]),), v),
    "index_put_acc_repeats": lambda t, x, v: (x * 1).index_put_((I(t, [0, 2, 0]),), v,
                                                                accumulate=True),
    "index_put_pair": lambda t, x, v: (x * 1).index_put_((I(t, [0, 2]), I(t, [1, 1])), v),
    "scatter-src": lambda t, x, s: (x * 1).scatter_(0, I(t, IDX2), s),
    "scatter-src-only": lambda t, x, s: (x * 1).scatter_(0, I(t, IDX2), s),
    "scatter-value": lambda t, x: (x * 1).scatter_(1, I(t, [[0, 3], [1, 1]]), 2.5),
    "scatter-value-kw": lambda t, x: (x * 1).scatter_(0, I(t, IDX2), value=-1),
    "scatter-reduce-add": lambda t, x, s: (x * 1).scatter_(0, I(t, REP2), s, reduce="add"),
    "scatter-reduce-mul-value": lambda t, x: (x * 1).scatter_(0, I(t, REP2), 3.0,
                                                              reduce="multiply"),
    "scatter_add-repeats": lambda t, x, s: (x * 1).scatter_add_(0, I(t, REP2), s),
    "torch.scatter_add": lambda t, x, s: (x * 1).scatter_add_(1, I(t, [[0, 0, 0]]), s),
    **{f"scatter_reduce-{r}-{'incl' if i else 'excl'}":
       lambda t, x, s, r=r, i=i: (x * 1).scatter_reduce_(0, I(t, REP2), s, r, include_self=i)
       for r in ("sum", "prod", "mean", "amax", "amin") for i in (True, False)},
    "torch.scatter_reduce": lambda t, x, s: (x * 1).scatter_reduce_(
        1, I(t, [[0, 0], [1, 1], [3, 0]]), s, reduce="mean"),
    "index_add": lambda t, x, s: (x * 1).index_add_(0, I(t, [2, 0, 2]), s),
    "index_add-alpha": lambda t, x, s: (x * 1).index_add_(1, I(t, [1, 1]), s, alpha=2.5),
    "index_add-source-only": lambda t, x, s: (x * 1).index_add_(0, I(t, [1]), s),
    "index_copy": lambda t, x, s: (x * 1).index_copy_(1, I(t, [3, 0]), s),
    "torch.index_copy": lambda t, x, s: (x * 1).index_copy_(0, I(t, [2]), s),
    "index_fill-scalar": lambda t, x: (x * 1).index_fill_(1, I(t, [0, 3, 0]), -2.0),
    "index_fill-neg": lambda t, x: (x * 1).index_fill_(0, I(t, [-1]), 1),
    "index_fill-tensor": lambda t, x, v: (x * 1).index_fill_(1, I(t, [0, 3, 0]), v),
    "masked_fill": lambda t, m, x: (x * 1).masked_fill_(m, 0.5),
    "masked_fill-bcast-mask": lambda t, m, x: (x * 1).masked_fill_(m, -1),
    "masked_fill-tensor": lambda t, m, x, v: (x * 1).masked_fill_(m, v),
    "masked_scatter": lambda t, m, x, s: (x * 1).masked_scatter_(m, s),
}
ROWS = with_inplace(TRANSPOSED + GETITEM + SETITEM + GATHER + INDEX_OPS + MASKED + OTHER, INPLACE)


# version-check mismatches whose cause lies outside glassgrad/ops (reasons: optable.py)
KNOWN = {}


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn,shapes,kw", known(ROWS, KNOWN))
def test_op(fn, shapes, kw, dtype):
    check_op(fn, shapes, kw, dtype)


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
