"""Reductions beyond their op-table cases (opinfo.py, run by test_op_table.py): named tuples,
binary max/min, errors, tie breaking, var's degrees-of-freedom warning, empty matrix norms,
against torch. torch computes every expectation."""
import itertools
import warnings

import numpy as np
import pytest
import torch

import glassgrad as gg
from optable import assert_same, check_error, check_op, compare_values, outcome

# (the op-table cases are in opinfo.py; test_op_table.py runs them)


# -- named tuples, the binary max/min, printing ------------------------------------------------
NAMED = {
    "max": lambda t, x: t.max(x, 1), "min": lambda t, x: x.min(0, keepdim=True),
    "median": lambda t, x: x.median(1), "mode": lambda t, x: t.mode(x),
    "kthvalue": lambda t, x: x.kthvalue(2), "topk": lambda t, x: t.topk(x, 2),
    "sort": lambda t, x: x.sort(), "cummax": lambda t, x: t.cummax(x, 1),
    "cummin": lambda t, x: x.cummin(0),
}


@pytest.mark.parametrize("name", NAMED)
def test_named_tuple(name):
    data = np.arange(12.0).reshape(3, 4) % 5
    ref = NAMED[name](torch, torch.tensor(data, requires_grad=True))
    got = NAMED[name](gg, gg.tensor(data, requires_grad=True))
    assert type(got).__name__ == type(ref).__name__ == name
    assert repr(got) == repr(ref)
    assert len(got) == 2
    assert_same(ref.values, got.values)
    assert_same(ref.indices, got.indices)
    values, indices = got
    assert values is got[0] and indices is got[1]


@pytest.mark.skipif(not hasattr(gg, "maximum"), reason="pointwise maximum/minimum not there yet")
@pytest.mark.parametrize("name", ["max", "min"])
def test_binary_max_min(name):
    check_op(lambda t, x, y: getattr(t, name)(x, y), ((3, 4), (4,)), {"ints": True, "fd": False},
             "float64")
    check_op(lambda t, x, y: getattr(x, name)(y), ((3, 4), (3, 4)), {}, "float64")


# -- errors ------------------------------------------------------------------------------------
ERRORS = {
    "max_empty": lambda t: t.ones(0).max(),
    "min_empty": lambda t: t.ones(2, 0).min(),
    "max_dim_empty": lambda t: t.ones(2, 0).max(1),
    "max_dim_range": lambda t: t.ones(2, 3).max(2),
    "min_dim_range_0d": lambda t: t.ones(()).min(1),
    "amax_empty": lambda t: t.ones(0, 3).amax(0),
    "amax_dim_repeat": lambda t: t.ones(2, 3).amax((0, 0)),
    "amin_range": lambda t: t.ones(2, 3).amin(-3),
    "argmax_empty": lambda t: t.ones(0).argmax(),
    "argmin_dim_empty": lambda t: t.ones(3, 0).argmin(1),
    "argmax_range": lambda t: t.ones(3).argmax(1),
    "argmax_bool": lambda t: t.tensor([True, False]).argmax(),
    "argmin_bool": lambda t: t.tensor([[True, False]]).argmin(1),
    "prod_range": lambda t: t.ones(3).prod(1),
    "median_dim_empty": lambda t: t.ones(2, 0).median(1),
    "median_range": lambda t: t.ones(2, 3).median(2),
    "mode_empty": lambda t: t.ones(2, 0).mode(),
    "kthvalue_big": lambda t: t.ones(2, 3).kthvalue(4),
    "kthvalue_zero": lambda t: t.ones(2, 3).kthvalue(0, 0),
    "kthvalue_empty": lambda t: t.ones(2, 0).kthvalue(1),
    "topk_big": lambda t: t.ones(2, 3).topk(4),
    "topk_negative": lambda t: t.ones(2, 3).topk(-1),
    "topk_range": lambda t: t.ones(2, 3).topk(1, 2),
    "sort_range": lambda t: t.ones(2, 3).sort(2),
    "argsort_range": lambda t: t.ones(2, 3).argsort(-3),
    "var_int": lambda t: t.tensor([1, 2]).var(),
    "std_int": lambda t: t.tensor([1, 2]).std(0),
    "var_mean_int": lambda t: t.var_mean(t.tensor([1, 2])),
    "std_mean_bool": lambda t: t.std_mean(t.tensor([True, False])),
    "var_range": lambda t: t.ones(3).var(1),
    "vector_norm_int": lambda t: t.linalg.vector_norm(t.tensor([1, 2])),
    "vector_norm_narrowing": lambda t: t.linalg.vector_norm(t.ones(3, dtype=t.float64),
                                                            dtype=t.float32),
    "vector_norm_empty_neg": lambda t: t.linalg.vector_norm(t.ones(0), -1),
    "vector_norm_range": lambda t: t.linalg.vector_norm(t.ones(3), dim=1),
    "norm_int": lambda t: t.tensor([1, 2]).norm(),
    "matrix_norm_1d": lambda t: t.linalg.matrix_norm(t.ones(3)),
    "matrix_norm_dims": lambda t: t.linalg.matrix_norm(t.ones(2, 3, 4), dim=(0, 1, 2)),
    "matrix_norm_bad_ord": lambda t: t.linalg.matrix_norm(t.ones(2, 3), 3),
    "matrix_norm_bad_str": lambda t: t.linalg.matrix_norm(t.ones(2, 3), "foo"),
    "matrix_norm_nuc_int": lambda t: t.linalg.matrix_norm(t.tensor([[1, 2]]), "nuc"),
    "matrix_norm_2_half": lambda t: t.linalg.matrix_norm(t.ones(2, 3, dtype=t.float16), 2),
    "matrix_norm_nuc_dims": lambda t: t.linalg.matrix_norm(t.ones(2, 3, 4), "nuc", (0, 1, 2)),
    "matrix_norm_same_dims": lambda t: t.linalg.matrix_norm(t.ones(3, 3), 2, dim=(0, -2)),
    "matrix_norm_narrowing": lambda t: t.linalg.matrix_norm(t.ones(3, 3, dtype=t.float64), -2,
                                                            dtype=t.float32),
    "matrix_norm_-2_empty": lambda t: t.linalg.matrix_norm(t.ones(0, 3), -2),
    "norm_nuc_3d": lambda t: t.norm(t.ones(2, 3, 3), "nuc"),
    "linalg_norm_dims": lambda t: t.linalg.norm(t.ones(2, 3, 3), dim=(0, 1, 2)),
    "linalg_norm_nuc_dims": lambda t: t.linalg.norm(t.ones(2, 3, 3), "nuc", dim=(0, 1, 2)),
    "linalg_norm_ord_3d": lambda t: t.linalg.norm(t.ones(2, 3, 3), 2),
    "linalg_norm_nuc_1dim": lambda t: t.linalg.norm(t.ones(2, 3, 3), "nuc", dim=1),
    "linalg_norm_int": lambda t: t.linalg.norm(t.tensor([[1, 2]]), 2),
    "logsumexp_range": lambda t: t.ones(2, 3).logsumexp(2),
    "cumsum_range": lambda t: t.ones(2, 3).cumsum(2),
    "cumsum__dtype": lambda t: t.ones(2, 3).cumsum_(1, dtype=t.float64),
    "cumprod__leaf": lambda t: t.ones(2, 3, requires_grad=True).cumprod_(1),
    "cumsum__int_float": lambda t: t.ones(2, 3).long().cumsum_(1, dtype=t.float32),
    "cumsum_0d_range": lambda t: t.ones(()).cumsum(1),
    "cumprod_range": lambda t: t.ones(2, 3).cumprod(-3),
    "cummax_range": lambda t: t.ones(2, 3).cummax(3),
    "all_range": lambda t: t.ones(2, 3).all(2),
    "any_dims_repeat": lambda t: t.ones(2, 3).any((1, 1)),
    "count_nonzero_range": lambda t: t.ones(2, 3).count_nonzero(2),
    "count_nonzero_repeat": lambda t: t.ones(2, 3).count_nonzero((0, -2)),
    "diff_0d": lambda t: t.ones(()).diff(),
    "diff_negative": lambda t: t.ones(3).diff(-1),
    "diff_range": lambda t: t.ones(3).diff(dim=1),
}


@pytest.mark.parametrize("f", ERRORS.values(), ids=ERRORS.keys())
def test_errors(f):
    check_error(f)


# -- random tie-breaking: index choices agree with torch on many small integer inputs ----------
TIE_OPS = {
    "median": lambda t, x: x.median(-1), "mode": lambda t, x: x.mode(-1),
    "kthvalue": lambda t, x: x.kthvalue((x.shape[-1] + 1) // 2, -1),
    "topk": lambda t, x: x.topk((x.shape[-1] + 2) // 3), "topk_min": lambda t, x: x.topk(
        (x.shape[-1] + 1) // 2, largest=False), "topk_uns": lambda t, x: x.topk(
        x.shape[-1] // 2 + 1, sorted=False), "sort": lambda t, x: x.sort(-1, True),
    "max": lambda t, x: x.max(-1), "cummin": lambda t, x: x.cummin(-1),
}


@pytest.mark.parametrize("name", TIE_OPS)
def test_tie_breaking(name):
    rng = np.random.default_rng(7)
    for n in itertools.chain(range(1, 40), (63, 64, 100)):
        data = rng.integers(-3, 4, (6, n)).astype(np.float64)
        ref = TIE_OPS[name](torch, torch.tensor(data))
        got = TIE_OPS[name](gg, gg.tensor(data))
        assert_same(ref[0], got[0], f"{name} n={n}: values")
        assert_same(ref[1], got[1], f"{name} n={n}: indices")


@pytest.mark.parametrize("name", ["var", "std", "var_mean", "std_mean"])
@pytest.mark.parametrize("args", [((0,), {}), ((), {"correction": 3}), ((1,), {}), ((), {})],
                         ids=["dof0", "correction3", "ok", "default"])
def test_var_degrees_of_freedom_warning(name, args):
    def warned(t):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            getattr(t, name)(t.ones(1, 3), *args[0], **args[1])
        return [(w.category.__name__, str(w.message).split(" (Triggered")[0]) for w in caught]
    assert warned(gg) == warned(torch)


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("shape", [(0, 3), (2, 0, 3), (0, 2, 3), (3, 0)])
@pytest.mark.parametrize("ord", ["nuc", 2, -2, "fro", 1, -1, float("inf")])
def test_matrix_norm_empty(ord, shape, keepdim):
    """Empty matrices: the 2-norm is zeros without history (ATen's shortcut), the others reduce."""
    def program(t):
        out = t.linalg.matrix_norm(t.ones(shape, requires_grad=True), ord, keepdim=keepdim)
        return out, type(out.grad_fn).__name__
    ref, ref_err = outcome(lambda: program(torch))
    got, got_err = outcome(lambda: program(gg))
    assert got_err == ref_err
    if ref_err is None:
        assert_same(ref[0], got[0])
        assert (got[0].requires_grad, got[1]) == (ref[0].requires_grad, ref[1])


# -- result layout: torch's reductions write row-major results, sort keeps its input's ---------
LAYOUT = {
    "sum": lambda t, x: x.sum(0), "sum-keepdim": lambda t, x: x.sum((0, 2), keepdim=True),
    "mean": lambda t, x: x.mean(1), "prod": lambda t, x: x.prod(1),
    "amax": lambda t, x: x.amax(2), "max": lambda t, x: x.max(1)[0],
    "argmax": lambda t, x: x.argmax(1), "median": lambda t, x: x.median(1)[0],
    "var": lambda t, x: x.var(1), "logsumexp": lambda t, x: x.logsumexp(1),
    "norm": lambda t, x: x.norm(dim=1), "all": lambda t, x: (x > 3).all(1),
    "cumsum": lambda t, x: x.cumsum(1), "cummax": lambda t, x: x.cummax(0)[0],
    "topk": lambda t, x: x.topk(2, 1)[1], "sort": lambda t, x: x.sort(1)[0],
    "sort-indices": lambda t, x: x.sort(2)[1], "argsort": lambda t, x: x.argsort(0),
    "softmax": lambda t, x: x.softmax(1), "log_softmax": lambda t, x: t.log_softmax(x, 2),
}


@pytest.mark.parametrize("name", LAYOUT)
@pytest.mark.parametrize("view", ["permuted", "strided"])
def test_result_layout(name, view):
    def make(t):
        x = t.arange(48.).reshape(2, 6, 4)
        return (x[:, ::2] if view == "strided" else x[:, :3]).permute(2, 0, 1)
    ref, got = LAYOUT[name](torch, make(torch)), LAYOUT[name](gg, make(gg))
    assert got.stride() == ref.stride()
    assert_same(ref, got)


# -- dim=None, dim=[] and dim=(): torch's legacy rules (an empty list reduces every dim, but
# for any/all none; keepdim=True with dim=None keeps every dim as size 1) ----------------------
EMPTY_DIM_REDUCTIONS = {
    "sum": lambda t, x, d, k: t.sum(x, dim=d, keepdim=k),
    "mean": lambda t, x, d, k: x.mean(dim=d, keepdim=k),
    "nansum": lambda t, x, d, k: t.nansum(x, dim=d, keepdim=k),
    "nanmean": lambda t, x, d, k: t.nanmean(x, dim=d, keepdim=k),
    "amax": lambda t, x, d, k: t.amax(x, dim=d, keepdim=k),
    "amin": lambda t, x, d, k: x.amin(dim=d, keepdim=k),
    "var": lambda t, x, d, k: t.var(x, dim=d, keepdim=k),
    "std": lambda t, x, d, k: x.std(dim=d, keepdim=k),
    "count_nonzero": lambda t, x, d, k: t.count_nonzero(x, dim=d),
    "norm": lambda t, x, d, k: t.norm(x, dim=d, keepdim=k),
    "vector_norm": lambda t, x, d, k: t.linalg.vector_norm(x, dim=d, keepdim=k),
    "logsumexp": lambda t, x, d, k: t.logsumexp(x, dim=d, keepdim=k),
    "any": lambda t, x, d, k: t.any(x, dim=d, keepdim=k),
    "all": lambda t, x, d, k: x.all(dim=d, keepdim=k),
}


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", [None, [], ()], ids=["None", "list", "tuple"])
@pytest.mark.parametrize("name", EMPTY_DIM_REDUCTIONS)
def test_reductions_over_no_dims(name, dim, keepdim):
    results = []
    for lib in (torch, gg):
        x = lib.tensor(np.arange(6.).reshape(2, 3) % 4, requires_grad=True)
        results.append(outcome(lambda: EMPTY_DIM_REDUCTIONS[name](lib, x, dim, keepdim)))
    (ref, ref_err), (got, got_err) = results
    assert got_err == ref_err
    assert_same(ref, got)
    if ref is not None and ref.grad_fn is not None:
        assert got.grad_fn.name() == ref.grad_fn.name()


# -- quantile and nanquantile: values, gradients and the graph as torch's (ATen's op order) --------
def _grad_fn_chain(t):
    names, f = [], t.grad_fn
    while f is not None:
        names.append(f.name())
        nxt = [n for n, _ in f.next_functions if n is not None]
        f = nxt[0] if nxt else None
    return names


@pytest.mark.parametrize("fn", ["quantile", "nanquantile"])
@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize("q", [0.3, 1.0, [0.0, 0.5, 0.9]], ids=["0.3", "1", "vector"])
@pytest.mark.parametrize("dim,keepdim", [(None, False), (None, True), (0, False), (1, True),
                                         (-1, False)])
def test_quantile(fn, interpolation, q, dim, keepdim):
    data = np.random.default_rng(0).standard_normal((3, 4, 5))
    data[1, 2, 3] = np.nan
    got = []
    for lib in (torch, gg):
        x = lib.tensor(data, requires_grad=True)
        qq = lib.tensor(q, dtype=lib.float64) if isinstance(q, list) else q
        r = getattr(lib, fn)(x, qq, dim=dim, keepdim=keepdim, interpolation=interpolation)
        r.nan_to_num().sum().backward()
        got.append((r, x.grad, _grad_fn_chain(r)))
    (ref, ref_grad, ref_chain), (out, out_grad, out_chain) = got
    assert_same(ref, out)
    assert_same(ref_grad, out_grad, "grad")
    assert out_chain == ref_chain


@pytest.mark.parametrize("call", [
    lambda t, x: t.quantile(x, 1.5), lambda t, x: t.quantile(x, t.tensor([1.5])),
    lambda t, x: t.quantile(x.int(), 0.5),
    lambda t, x: t.quantile(x, t.tensor([0.5], dtype=t.float64)),
    lambda t, x: t.quantile(x, 0.5, interpolation="foo"), lambda t, x: t.quantile(t.ones(0), 0.5),
    lambda t, x: t.quantile(x, t.ones(2, 2) * 0.5), lambda t, x: t.quantile(x, 0.5, dim=3),
    lambda t, x: x.nanquantile(0.5, 1, True, interpolation="lower"),
    lambda t, x: t.quantile(t.tensor(2.), 0.5, dim=0, keepdim=True),
    lambda t, x: t.quantile(x, "a"), lambda t, x: t.quantile(x, 0.5, interpolation=1),
])
def test_quantile_refusals_and_edges(call):
    compare_values(lambda lib: call(lib, lib.ones(3, 4)))
