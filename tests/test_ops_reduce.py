"""The reduction op table: sum/mean/prod, max/min and friends, median/mode/kthvalue/topk/sort,
var/std, norms, logsumexp, cumulative ops, all/any/count_nonzero and diff, run in torch and
glassgrad on the same inputs (the optable harness), with ties, integer outputs and errors.
torch computes every expectation."""
import itertools
import warnings

import numpy as np
import pytest
import torch

import glassgrad as gg
from optable import DTYPES, assert_same, check_error, check_op, ip, outcome, row

INF = float("inf")


def _call(name, *args, **kw):
    """fn(t, x): torch.<name>(x, *args, **kw) or x.<name>(...) alternately (both spellings)."""
    return lambda t, x: getattr(t, name)(x, *args, **kw)


def _method(name, *args, **kw):
    return lambda t, x: getattr(x, name)(*args, **kw)


def _rows(name, cases, suffix="", inplace=False, **defaults):
    """cases: (label, shape, args, kwargs[, row kw]); each as a method and a function (the
    method with its in-place variant, name_, when inplace)."""
    out = []
    for case in cases:
        label, s, a, k = case[:4]
        label += suffix
        kw = {**defaults, **(case[4] if len(case) > 4 else {})}
        out.append(row(f"{name}-{label}", _method(name, *a, **k), s,
                       inplace=ip(name + "_", *a, **k) if inplace else None, **kw))
        out.append(row(f"torch.{name}-{label}", _call(name, *a, **k), s, **kw))
    return out


DIMS = [("all", (3, 4), (), {}), ("0d", (), (), {}), ("dim1", (3, 4), (1,), {}),
        ("dim-1-keep", (2, 3, 4), (-1,), {"keepdim": True}), ("dim0-0d", (), (0,), {}),
        ("dim0-kw", (3, 4), (), {"dim": 0})]
MULTI_DIMS = [("dims02", (2, 3, 4), ((0, 2),), {}),
              ("dims-1-3-keep", (2, 3, 4), ((-1, -3),), {"keepdim": True})]

SUM_MEAN_PROD = (
    _rows("prod", DIMS) + _rows("prod", DIMS, "-ints", ints=True, fd=False) +
    [row("prod-zero-one", lambda t, x: (x * (x > -0.5)).prod(), (3, 4)),
     row("prod-dim-zero-one", lambda t, x: (x * (x > -0.5)).prod(0), (3, 4)),
     row("prod-zeros-two", lambda t, x: (x * (x.abs() > 0.8)).prod(1, keepdim=True), (3, 5)),
     row("prod-dtype", lambda t, x: x.prod(dtype=t.float64), (3, 4)),
     row("prod-dim-dtype", lambda t, x: t.prod(x, 1, dtype=t.float64), (3, 4)),
     row("prod-dim-size1", lambda t, x: x.prod(1), (3, 1))] +
    _rows("sum", DIMS + MULTI_DIMS) + _rows("mean", DIMS + MULTI_DIMS))

MAX_MIN = []
for _name in ("max", "min"):
    MAX_MIN += _rows(_name, [("all", (3, 4), (), {}), ("0d", (), (), {}),
                             ("dim1", (3, 4), (1,), {}), ("dim-1-keep", (2, 3, 4), (-1, True), {}),
                             ("0d-dim", (), (0,), {}), ("kwdim", (3, 4), (), {"dim": 0})])
    MAX_MIN += _rows(_name, [("ties", (4, 5), (), {}), ("ties-dim", (4, 5), (1,), {}),
                             ("ties-dim0-keep", (4, 5), (0,), {"keepdim": True})],
                     ints=True, fd=False)
for _name in ("amax", "amin"):
    MAX_MIN += _rows(_name, [("all", (3, 4), (), {}), ("dim1", (3, 4), (1,), {}),
                             ("dims", (2, 3, 4), ((0, 2),), {"keepdim": True}),
                             ("0d", (), (), {}), ("empty-dims", (3, 4), ((),), {})])
    MAX_MIN += _rows(_name, [("ties", (4, 5), (), {}), ("ties-dim", (4, 5), (-1,), {}),
                             ("ties-dims", (2, 3, 4), ((0, 1),), {})], ints=True, fd=False)

MEDIAN = (
    _rows("median", [("all", (3, 4), (), {}), ("all-even", (2, 4), (), {}), ("0d", (), (), {}),
                     ("empty", (0,), (), {}), ("empty-2d", (2, 0), (), {}),
                     ("dim1", (3, 4), (1,), {}), ("dim0-keep", (4, 3), (0, True), {}),
                     ("0d-dim", (), (0,), {})]) +
    _rows("median", [("ties", (4, 5), (), {}), ("ties-dim", (5, 7), (1,), {}),
                     ("ties-dim0", (9, 4), (0,), {})], ints=True, fd=False) +
    _rows("mode", [("default", (3, 4), (), {}), ("dim0-keep", (4, 3), (0, True), {}),
                   ("0d", (), (), {})]) +
    _rows("mode", [("ties", (4, 5), (), {}), ("ties-long", (3, 20), (1,), {}),
                   ("ties-dim0", (9, 4), (0,), {})], ints=True, fd=False) +
    _rows("kthvalue", [("k2", (3, 4), (2,), {}), ("k1-dim0", (4, 3), (1, 0), {}),
                       ("k3-keep", (3, 5), (3,), {"dim": 1, "keepdim": True}),
                       ("0d", (), (1,), {})]) +
    _rows("kthvalue", [(f"ties-k{k}-n{n}", (4, n), (k,), {})
                       for n, k in ((5, 3), (8, 2), (8, 5), (13, 7), (20, 11))],
                      ints=True, fd=False))

SORT = (
    _rows("topk", [("k2", (3, 4), (2,), {}), ("k1-dim0", (4, 3), (1, 0), {}),
                   ("smallest", (3, 5), (3,), {"largest": False}),
                   ("unsorted", (3, 5), (3,), {"sorted": False}), ("0d", (), (1,), {}),
                   ("k0", (3, 4), (0,), {})]) +
    _rows("topk", [(f"ties-k{k}-n{n}{'-min' if not lg else ''}{'-uns' if not so else ''}",
                    (4, n), (k,), {"largest": lg, "sorted": so})
                   for n, k in ((5, 2), (8, 3), (12, 6), (20, 19), (70, 1), (40, 30))
                   for lg, so in ((True, True), (False, True), (True, False))],
                  ints=True, fd=False) +
    _rows("sort", [("default", (3, 4), (), {}), ("dim0-desc", (4, 3), (0, True), {}),
                   ("0d", (), (), {}), ("kw", (3, 4), (), {"dim": 1, "descending": True})]) +
    _rows("sort", [("ties", (4, 9), (), {}), ("ties-desc", (4, 9), (), {"descending": True}),
                   ("ties-long", (3, 30), (), {}), ("ties-long-desc-dim0", (25, 3), (0, True), {}),
                   ("ties-stable", (9, 4), (), {"dim": 0, "stable": True}),
                   ("ties-stable-long", (3, 30), (), {"stable": True, "descending": True})],
          ints=True, fd=False) +
    _rows("argsort", [("ties", (4, 9), (), {}), ("ties-desc-dim0", (9, 4), (0, True), {}),
                      ("ties-long", (3, 40), (), {}), ("ties-long-stable", (3, 40), (),
                                                        {"stable": True}),
                      ("0d", (), (), {})], ints=True))

VAR = []
for _name in ("var", "std", "var_mean", "std_mean"):
    _cases = [("all", (3, 4), (), {}), ("dim1", (3, 4), (1,), {}),
              ("dims-keep", (2, 3, 4), ((0, 2),), {"keepdim": True}),
              ("unbiased-false", (3, 4), (), {"unbiased": False}),
              ("positional-unbiased", (3, 4), (False,), {}),
              ("dim-unbiased", (3, 4), (0, False, True), {}),
              ("correction0", (3, 4), (1,), {"correction": 0}),
              ("correction2", (2, 5), (), {"correction": 2}),
              ("1d-dim", (5,), (0,), {}), ("dof0", (1, 3), (0,), {}),
              ("dof0-all", (1,), (), {})]
    if _name.endswith("_mean"):
        VAR += [row(f"{_name}-{c[0]}", _call(_name, *c[2], **c[3]), c[1]) for c in _cases]
    else:
        VAR += _rows(_name, _cases)
VAR += [row("var_mean-only-mean", lambda t, x: t.var_mean(x, 1)[1], (3, 4)),
        row("std_mean-only-std", lambda t, x: t.std_mean(x)[0], (3, 4)),
        row("std-constant", lambda t, x: (x * 0 + 1).std(1), (3, 4))]

NORM = []
for _p in (2, 1, 3, 1.5, 0.5, 0, INF, -INF, -1):
    # ord 0: torch's gradient is None (undefined), which the finite differences take as zeros
    _kw = {"nz": 1}
    NORM += [row(f"vector_norm-{_p}", lambda t, x, p=_p: t.linalg.vector_norm(x, p), (3, 4), **_kw),
             row(f"vector_norm-{_p}-dim", lambda t, x, p=_p: t.linalg.vector_norm(x, p, 1), (3, 4),
                 **_kw),
             row(f"norm-{_p}-dim-keep", lambda t, x, p=_p: x.norm(p, dim=(0, 2), keepdim=True),
                 (2, 3, 4), **_kw)]
NORM += [
    row("vector_norm-zeros", lambda t, x: t.linalg.vector_norm(x * 0, dim=1), (3, 4), fd=False),
    row("vector_norm-inf-ties", lambda t, x: t.linalg.vector_norm(x, INF, 1), (4, 5), ints=True,
        fd=False),
    # with float32 inputs: computed in float64, the gradient comes back in float32
    row("vector_norm-dtype", lambda t, x: t.linalg.vector_norm(x, dtype=t.float64), (3, 4)),
    row("vector_norm-dtype-dim", lambda t, x: t.linalg.vector_norm(x, 3, 1, dtype=t.float64),
        (3, 4)),
    row("vector_norm-0d", lambda t, x: t.linalg.vector_norm(x), (), nz=1),
    row("norm", lambda t, x: x.norm(), (3, 4)),
    row("norm-fro", lambda t, x: t.norm(x, "fro"), (3, 4)),
    row("norm-fro-dim", lambda t, x: t.norm(x, "fro", dim=1), (3, 4)),
    row("norm-p-dim-int", lambda t, x: t.norm(x, 3, 1), (3, 4), nz=1),
    row("norm-None", lambda t, x: t.norm(x, None, 1), (3, 4)),
] + [row(f"matrix_norm-{o}", lambda t, x, o=o: t.linalg.matrix_norm(x, o), (2, 3, 4), nz=1)
     for o in ("fro", 1, -1, INF, -INF)] + [
    row("matrix_norm-dims-keep", lambda t, x: t.linalg.matrix_norm(x, 1, (2, 0), keepdim=True),
        (2, 3, 4), nz=1),
    row("matrix_norm-inf-keep", lambda t, x: t.linalg.matrix_norm(x, INF, keepdim=True), (3, 4),
        nz=1),
    row("matrix_norm-ties", lambda t, x: t.linalg.matrix_norm(x, 1), (4, 4), ints=True, fd=False),
] + [row(f"matrix_norm-{o}-{name}", lambda t, x, o=o, a=a: t.linalg.matrix_norm(x, o, *a), s)
     for o in ("nuc", 2, -2) for name, s, a in [
         ("", (3, 4), ()), ("batch", (2, 3, 4), ()), ("wide", (4, 3), ()),
         ("dims-keep", (2, 3, 4), ((2, 0), True)), ("dims", (3, 2, 4), ((1, 0),))]] + [
    row("matrix_norm-nuc-dtype", lambda t, x: t.linalg.matrix_norm(x, "nuc", dtype=t.float64),
        (3, 4)),
    row("norm-nuc", lambda t, x: t.norm(x, "nuc"), (3, 4)),
    row("norm-nuc-dims-keep", lambda t, x: x.norm("nuc", dim=(0, 2), keepdim=True), (2, 3, 4)),
    row("linalg.norm", lambda t, x: t.linalg.norm(x), (2, 3, 4)),
    row("linalg.norm-2", lambda t, x: t.linalg.norm(x, 2), (3, 4)),
    row("linalg.norm--2-dims", lambda t, x: t.linalg.norm(x, -2, (2, 1)), (2, 3, 4)),
    row("linalg.norm-nuc", lambda t, x: t.linalg.norm(x, "nuc", keepdim=True), (3, 4)),
    row("linalg.norm-fro-dims", lambda t, x: t.linalg.norm(x, "fro", (0, 2)), (2, 3, 4)),
    row("linalg.norm-1", lambda t, x: t.linalg.norm(x, 1), (3, 4), nz=1),
    row("linalg.norm-vector", lambda t, x: t.linalg.norm(x, 3, 1), (3, 4), nz=1),
    row("linalg.norm-vector-1d", lambda t, x: t.linalg.norm(x, INF), (4,), nz=1),
]

CUMULATIVE = (
    _rows("logsumexp", [("dim1", (3, 4), (1,), {}), ("dims-keep", (2, 3, 4), ((0, 2), True), {}),
                        ("0d", (), (0,), {}), ("large", (3, 4), (0,), {}, {"lo": 50, "hi": 60})]) +
    _rows("cumsum", [("dim1", (3, 4), (1,), {}), ("dim0", (3, 4), (0,), {}),
                     ("0d", (), (0,), {}), ("dim-1-3d", (2, 3, 4), (-1,), {}),
                     ], inplace=True) +
    [row("cumsum-dtype", lambda t, x: x.float().cumsum(1, dtype=t.float64), (3, 4), fd=False),
     row("cumprod-dtype", lambda t, x: x.float().cumprod(0, dtype=t.float64), (3, 4), fd=False),
     row("prod-dim-dtype-f32", lambda t, x: x.float().prod(0, dtype=t.float64), (3, 4),
         fd=False),
     row("torch.cumsum-dtype", lambda t, x: t.cumsum(x, 0, dtype=t.float32), (3, 4))] +
    _rows("cumprod", [("dim1", (3, 4), (1,), {}), ("dim0", (3, 4), (0,), {}),
                      ("0d", (), (0,), {}), ("size1", (3, 1), (1,), {})], inplace=True) +
    _rows("cumprod", [("zeros", (3, 5), (1,), {}), ("zeros-dim0", (4, 3), (0,), {})],
          inplace=True, ints=True, fd=False) +
    [row("cumprod-one-zero", lambda t, x: (x * (x > -0.6)).cumprod(1), (3, 5))])
for _name in ("cummax", "cummin"):
    CUMULATIVE += _rows(_name, [("dim1", (3, 4), (1,), {}), ("dim0", (3, 4), (0,), {}),
                                ("0d", (), (0,), {})])
    CUMULATIVE += _rows(_name, [("ties", (4, 6), (1,), {}), ("ties-dim0", (6, 3), (0,), {})],
                        ints=True, fd=False)

DIFF = _rows("diff", [("default", (3, 4), (), {}), ("n2-dim0", (4, 3), (2, 0), {}),
                      ("n0", (3, 4), (0,), {}), ("n3", (3, 4), (3,), {}),
                      ("1d", (5,), (), {}), ("n-too-big", (3, 4), (5,), {})]) + [
    row("diff-prepend", lambda t, x, y: t.diff(x, prepend=y), (3, 4), (3, 2)),
    row("diff-append", lambda t, x, y: x.diff(dim=0, append=y), (3, 4), (1, 4)),
    row("diff-both", lambda t, x, y, z: x.diff(2, 1, y, z), (3, 4), (3, 1), (3, 2)),
    row("diff-prepend-nograd", lambda t, x, y: x.diff(prepend=y), (3, 4), (3, 2),
        grad=(True, False))]

# integer-valued results: values and dtypes checked by the harness (no gradient to compare)
INTEGER = (
    _rows("argmax", [("all", (3, 4), (), {}), ("dim1", (3, 4), (1,), {}),
                     ("dim0-keep", (4, 5), (0, True), {}),
                     ("keep-all", (3, 4), (), {"keepdim": True}),
                     ("0d", (), (), {}), ("0d-dim", (), (0,), {})], ints=True) +
    _rows("argmin", [("all", (4, 5), (), {}), ("dim-1", (4, 5), (-1,), {}),
                     ("keep-all", (3, 4), (None, True), {})], ints=True) +
    _rows("count_nonzero", [("all", (4, 5), (), {}), ("dim", (4, 5), (1,), {}),
                            ("dims", (2, 3, 4), ((0, 2),), {}), ("0d", (), (), {})], ints=True) +
    [row(f"{f}-{label}", lambda t, x, f=f, a=a, k=k: getattr(t, f)(x > 0, *a, **k), s, ints=True)
     for f in ("all", "any")
     for label, s, a, k in [("all", (3, 4), (), {}), ("dim", (3, 4), (1,), {}),
                            ("dims-keep", (2, 3, 4), ((0, 2),), {"keepdim": True}),
                            ("0d", (), (), {})]] +
    [row(f"{f}-float", lambda t, x, f=f: getattr(x, f)(1), (3, 4), ints=True)
     for f in ("all", "any")] +
    [row(f"{f}-uint8", lambda t, x, f=f: getattr(t, f)((x + 2).to(t.uint8), 0), (3, 4), ints=True)
     for f in ("all", "any")] +
    [row(f"int-{name}", fn, (4, 5), ints=True) for name, fn in [
        ("max", lambda t, x: x.long().max()), ("max-dim", lambda t, x: x.long().max(1)),
        ("min-dim", lambda t, x: x.int().min(0)), ("amax", lambda t, x: x.long().amax(1)),
        ("sum", lambda t, x: x.int().sum(1)), ("prod", lambda t, x: x.long().prod()),
        ("prod-dim", lambda t, x: x.to(t.int8).prod(1)), ("prod-bool", lambda t, x: (x > 0).prod()),
        ("cumsum", lambda t, x: x.to(t.int8).cumsum(0)),
        ("cumprod", lambda t, x: x.long().cumprod(1)),
        ("cumsum-bool", lambda t, x: (x > 0).cumsum(1)),
        ("cummax", lambda t, x: x.long().cummax(1)),
        ("median", lambda t, x: x.long().median()), ("median-dim", lambda t, x: x.long().median(1)),
        ("mode", lambda t, x: x.long().mode()), ("kthvalue", lambda t, x: x.long().kthvalue(3)),
        ("topk", lambda t, x: x.long().topk(2)), ("sort", lambda t, x: x.long().sort(0, True)),
        ("diff", lambda t, x: x.long().diff()), ("diff-bool", lambda t, x: (x > 0).diff()),
        ("logsumexp", lambda t, x: x.long().logsumexp(1)),
        ("max-bool", lambda t, x: (x > 0).max(1)),
("sort-bool", lambda t, x: (x > 0).sort(1)),
        ("cumsum-dtype", lambda t, x: x.long().cumsum(1, dtype=t.float32)),
    ]])

def _nan(t, x, above):
    """x with NaN where x <= above (the NaNs come from a constant: gradients flow to x)."""
    return x + t.where(x.detach() > above, 0.0, float("nan"))


NAN = [row(f"nan-{name}", fn, (3, 5), fd=False) for name, fn in [
    ("max", lambda t, x: _nan(t, x, -0.5).max()),
    ("max-dim", lambda t, x: _nan(t, x, -0.5).max(1)),
    ("min-dim", lambda t, x: _nan(t, x, -0.5).min(0)),
    ("amax", lambda t, x: _nan(t, x, -0.5).amax(1)),
    ("argmax", lambda t, x: _nan(t, x, -0.5).argmax(1)),
    ("argmin", lambda t, x: _nan(t, x, -0.5).argmin()),
    ("median", lambda t, x: _nan(t, x, -0.5).median()),
    ("median-dim", lambda t, x: _nan(t, x, -0.5).median(1)),
    ("sort", lambda t, x: _nan(t, x, -0.5).sort(1)),
    ("sort-desc", lambda t, x: _nan(t, x, -0.5).sort(1, True)),
    ("sort-long", lambda t, x: _nan(t, x.reshape(1, 15).expand(2, 15).reshape(1, 30), 0).sort()),
    ("topk", lambda t, x: _nan(t, x, -0.5).topk(2)),
    ("topk-min", lambda t, x: _nan(t, x, -0.5).topk(4, largest=False)),
    ("kthvalue", lambda t, x: _nan(t, x, -0.5).kthvalue(4)),
    ("cummax", lambda t, x: _nan(t, x, -0.5).cummax(1)),
    ("cummin", lambda t, x: _nan(t, x, -0.5).cummin(1)),
    ("vector_norm-inf", lambda t, x: t.linalg.vector_norm(_nan(t, x, -0.5), INF, 1)),
    ("logsumexp", lambda t, x: _nan(t, x, -0.5).logsumexp(1)),
]]

ALL_ROWS = SUM_MEAN_PROD + MAX_MIN + MEDIAN + SORT + VAR + NORM + CUMULATIVE + DIFF + INTEGER + NAN


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn,shapes,kw", ALL_ROWS)
def test_op(fn, shapes, kw, dtype):
    check_op(fn, shapes, kw, dtype)


def test_every_row_name_is_unique():
    ids = [p.id for p in ALL_ROWS]
    assert len(ids) == len(set(ids))


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
