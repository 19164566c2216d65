"""Known differences from torch, fixed (issue 16): named-tuple field names, grad_fn names of
the functions torch computes in one node (nansum, dist, renorm, the *_scatter functions), their
gradients and double backward, their errors; unique(sorted=False) order."""
import pytest
import torch

import glassgrad as gg
from differential import assert_same, run


def same(program, tol=None):
    assert_same(run(program, torch), run(program, gg), tol=tol)


def test_named_tuples_field_names_and_reprs():
    def program(lib):
        x = lib.tensor([[1.5, 8.0, -0.3], [0.0, 2.0, 5.0]])
        f = lib.frexp(x)
        a = lib.aminmax(x)
        h = lib.histogram(x.flatten(), bins=3)
        m = x.max(1)
        return [f.mantissa, f.exponent, repr(f), type(f).__name__, a.min, a.max, repr(a),
                h.hist, h.bin_edges, repr(h), m.values, m.indices, repr(m),
                hasattr(f, "values"), hasattr(a, "indices"), len(f), f[0]]
    same(program)


def _cases(lib):
    a = lib.randn(4, 5, dtype=lib.float64, requires_grad=True)
    with lib.no_grad():
        a[1, 2] = float("nan")
    b = lib.randn(4, 5, dtype=lib.float64, requires_grad=True)
    s2 = lib.randn(2, 5, dtype=lib.float64, requires_grad=True)
    s1 = lib.randn(5, dtype=lib.float64, requires_grad=True)
    d4 = lib.randn(4, dtype=lib.float64, requires_grad=True)
    return [a, b, s2, s1, d4], {
        "nansum": lambda: lib.nansum(a),
        "nansum_dim": lambda: lib.nansum(a, 1, keepdim=True),
        "nansum_dims": lambda: a.nansum((0, 1)),
        "dist": lambda: lib.dist(b, s1 * 2),
        "dist3": lambda: lib.dist(b, s1, 3),
        "dist_inf": lambda: b.dist(s1, float("inf")),
        "dist1": lambda: lib.dist(b, s1, 1),
        "renorm": lambda: lib.renorm(b, 2, 0, 1.0),
        "renorm1": lambda: b.renorm(1, 1, 1.5),
        "renorm_inf": lambda: lib.renorm(b, float("inf"), -1, 0.5),
        "slice_scatter": lambda: lib.slice_scatter(b, s2, 0, 1, 4, 2),
        "slice_scatter_dim": lambda: b.slice_scatter(s2.mT[:, :4], dim=1, start=-2),
        "select_scatter": lambda: lib.select_scatter(b, s1, 0, -1),
        "diagonal_scatter": lambda: lib.diagonal_scatter(b, d4, 1),
        "diagonal_scatter_neg": lambda: b.diagonal_scatter(d4, -1, 1, 0),
        "logcumsumexp": lambda: lib.logcumsumexp(b, 1),
        "logcumsumexp_dim0": lambda: b.logcumsumexp(-2),
        "block_diag": lambda: lib.block_diag(b, s1, d4[0], lib.tensor([[1, 2]])),
    }


@pytest.mark.parametrize("name", sorted(_cases(torch)[1]))
def test_single_node_composites(name):
    def program(lib):
        lib.manual_seed(0)
        inputs, cases = _cases(lib)
        out = cases[name]()
        w = lib.randn(out.shape, dtype=lib.float64)
        grads = lib.autograd.grad((out * w).sum(), inputs, allow_unused=True, create_graph=True)
        live = [g for g in grads if g is not None and g.requires_grad]
        second = lib.autograd.grad(sum((g ** 2).sum() for g in live), inputs,
                                   allow_unused=True) if live else None
        return [out.grad_fn.name(), out, grads, second]
    same(program, tol={"float64": (1e-12, 1e-13)})


ERRORS = [
    lambda lib: lib.renorm(lib.tensor([3.0, -4.0]), 2, 0, 1.0),
    lambda lib: lib.renorm(lib.ones(2, 2), 0, 0, 1.0),
    lambda lib: lib.renorm(lib.ones(2, 2), 2, 0, -1.0),
    lambda lib: lib.dist(lib.tensor([1, 2]), lib.tensor([1, 3])),
    lambda lib: lib.slice_scatter(lib.zeros(4), lib.ones(3), 0, 0, 2),
    lambda lib: lib.select_scatter(lib.zeros(4, 2), lib.ones(2), 0, 4),
    lambda lib: lib.diagonal_scatter(lib.zeros(3, 3), lib.ones(2)),
    lambda lib: lib.logcumsumexp(lib.tensor([1, 2]), 0),
    lambda lib: lib.block_diag(lib.ones(2), lib.zeros(2, 2, 2)),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors(i):
    def program(lib):
        try:
            ERRORS[i](lib)
        except Exception as e:  # noqa: BLE001 - the error is the behaviour compared
            return type(e).__name__, str(e)
        return None
    want = program(torch)
    assert want is not None and program(gg) == want


def test_scatter_dtypes_and_values():
    def program(lib):
        x = lib.zeros(3, 4)
        return [lib.slice_scatter(x, lib.ones(3, 2, dtype=lib.float64), 1, 0, 4, 2),
                lib.select_scatter(lib.zeros(3, 4, dtype=lib.int64), lib.arange(4), 0, 1),
                lib.diagonal_scatter(x, lib.tensor([1.0, 2.0]), 2),
                lib.diagonal_scatter(x, lib.ones(0), 4),
                lib.nansum(lib.tensor([1, 2])), lib.nansum(lib.tensor([True, True])),
                lib.nansum(lib.tensor([float("nan"), 1.0], dtype=lib.float16)),
                lib.nansum(lib.tensor([[1.0, float("nan")]]), 1, dtype=lib.float64)]
    same(program)


def test_logcumsumexp_and_block_diag_values():
    def program(lib):
        b = lib.tensor([[1., float("-inf"), 3.], [float("inf"), 2., -1.]])
        return [lib.logcumsumexp(b, 1), lib.logcumsumexp(b, 0), lib.logcumsumexp(b.half(), 1),
                lib.logcumsumexp(lib.tensor(3.), 0), lib.logcumsumexp(lib.zeros(0), 0),
                lib.block_diag(), lib.block_diag(lib.tensor([[1, 2]]), lib.tensor([True])),
                lib.block_diag(lib.ones(2, 3), lib.zeros(0, 2, dtype=lib.float64))]
    same(program)


def test_unique_unsorted_order():
    def program(lib):
        out = []
        for x in (lib.tensor([3., 1., 2., 3., 1., 5., 0., 7., 2., -1.5, 100.]),
                  lib.tensor([True, False, True]), lib.tensor([300, 2, -7, 300, 1000000, 2]),
                  lib.tensor([[1, 2], [1, 2], [0, 5]])):
            out.append(lib.unique(x, sorted=False, return_inverse=True, return_counts=True))
        out.append(lib.unique(lib.tensor([[1, 2], [1, 2], [0, 5]]), sorted=False, dim=0))
        return out
    same(program)


def _raised(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the error is the behaviour compared
        return type(e).__name__, str(e)
    return None


def test_unravel_index_can_cast_typename():
    def program(lib):
        out = [lib.unravel_index(lib.tensor([4, 1, 7, -1]), (3, 4)),
               lib.unravel_index(lib.tensor(5), (2, 3)),
               lib.unravel_index(lib.tensor([[3, 2]], dtype=lib.int32), 4),
               lib.unravel_index(lib.tensor([1]), ())]
        out += [_raised(lambda a=a: lib.unravel_index(*a)) for a in [
            (lib.tensor([1.5]), (3,)), (lib.tensor([True]), (3,)), (lib.tensor([1]), (-3, 4)),
            (lib.tensor([1]), 2.0), (lib.tensor([1]), (2.0,))]]
        ds = [lib.bool, lib.uint8, lib.int8, lib.int16, lib.int32, lib.int64, lib.float16,
              lib.float32, lib.float64]
        out.append([[lib.can_cast(a, b) for b in ds] for a in ds])
        out += [_raised(lambda: lib.can_cast(1, lib.float32)),
                _raised(lambda: lib.can_cast(lib.float32, "x"))]
        out += [lib.typename(lib.zeros(2)), lib.typename(lib.zeros(2, dtype=lib.int64)),
                lib.typename(3), lib.typename(lib.ones(1, dtype=lib.bool)), lib.typename(None),
                lib.typename(len)]
        return out
    same(program)
