"""The breadth of torch's API (glassgrad/ops/composite.py): each program runs in torch and in
glassgrad and must give the same values, dtypes, shapes, gradients, named-tuple fields and
errors (type and first line). torch computes every expectation."""
import warnings

import numpy as np
import pytest
import torch

import glassgrad as gg
from differential import assert_same, run

TOL = {"float32": (1e-5, 1e-6), "float64": (1e-10, 1e-12)}
NAN, INF = float("nan"), float("inf")


def X(t, dtype="float64"):
    return t.tensor([[1.5, -2.0, NAN, 0.0], [3.0, 1.0, 2.0, -0.5], [0.25, 4.0, -1.0, 2.0]],
                    dtype=getattr(t, dtype))


def R(t):   # a float64 leaf without NaNs
    return t.tensor([[1.5, -2.0, 0.7, 0.0], [3.0, 1.0, 2.0, -0.5], [0.25, 4.0, -1.0, 2.0]],
                    dtype=t.float64, requires_grad=True)


def grads(f):
    """f's value and the gradient of its sum with respect to R."""
    def program(t):
        x = R(t)
        out = f(t, x)
        return out, t.autograd.grad(out.sum(), x, allow_unused=True)[0]
    return program


def I(t, values, dtype="int64"):    # noqa: E743
    return t.tensor(values, dtype=getattr(t, dtype))


PROGRAMS = {
    # pointwise rows
    "deg2rad": lambda t: [t.deg2rad(X(t)), X(t).rad2deg(), t.deg2rad(I(t, [180, 90]))],
    "deg2rad_grad": grads(lambda t, x: t.deg2rad(x) + x.rad2deg()),
    "deg2rad_": lambda t: [X(t).deg2rad_(), t.rad2deg_(X(t))],
    "logaddexp2": grads(lambda t, x: t.logaddexp2(x, x.flip(0))),
    "copysign": lambda t: [t.copysign(X(t), -1.0), X(t).copysign(X(t).flip(0)),
                           t.copysign(I(t, [1, -2]), I(t, [-1, 1]))],
    "copysign_grad": grads(lambda t, x: t.copysign(x, -1.0) + x.copysign(x.flip(1))),
    "nextafter": lambda t: [t.nextafter(X(t), t.zeros(4, dtype=t.float64)),
                            X(t, "float32").nextafter(t.tensor(INF))],
    "heaviside": lambda t: [t.heaviside(X(t), t.tensor([0.5], dtype=t.float64)),
                            t.heaviside(I(t, [-1, 0, 2]), I(t, [7])),
                            t.heaviside(X(t), t.tensor([0.5]))],
    "gcd_lcm": lambda t: [t.gcd(I(t, [4, 6, 0, -8]), I(t, [6, 9, 5, 12])),
                          I(t, [4, 6, 0, -8]).lcm(I(t, [6, 9, 5, 12])),
                          t.gcd(X(t), X(t))],
    "shifts": lambda t: [t.bitwise_left_shift(I(t, [1, -3, 5]), I(t, [2, 1, 70])),
                         t.bitwise_right_shift(I(t, [16, -16, 5]), I(t, [2, 1, 70])),
                         I(t, [1, 2], "uint8").bitwise_left_shift(I(t, [7, 8], "uint8")),
                         t.bitwise_left_shift(X(t), X(t))],
    "ldexp": grads(lambda t, x: t.ldexp(x, x.detach().round())),
    "ldexp_int": lambda t: t.ldexp(I(t, [1, 3]), I(t, [2, -1])),
    "frexp": lambda t: [tuple(t.frexp(X(t))), t.frexp(X(t)).exponent,
                        t.frexp(X(t, "float32")).mantissa, t.frexp(I(t, [1]))],
    "frexp_grad": grads(lambda t, x: t.frexp(x)[0]),
    "tests": lambda t: [t.isposinf(t.tensor([INF, -INF, NAN, 1.0])),
                        t.isneginf(t.tensor([INF, -INF, NAN, 1.0])), t.isneginf(I(t, [1])),
                        t.signbit(t.tensor([-0.0, 0.0, -1.0, NAN])), t.signbit(I(t, [-1, 2])),
                        t.isreal(X(t)), t.positive(X(t)), t.positive(t.tensor([True]))],
    "predicates": lambda t: [t.is_nonzero(t.tensor([0.0])), t.tensor(2).is_nonzero(),
                             t.is_same_size(X(t), X(t)), t.is_signed(I(t, [1], "uint8")),
                             t.is_signed(X(t)), t.is_nonzero(t.ones(2))],
    "is_nonzero_empty": lambda t: t.is_nonzero(t.ones(0)),
    # comparisons of whole tensors
    "isclose": lambda t: [t.isclose(X(t), X(t) + 1e-9), t.isclose(X(t), X(t), equal_nan=True),
                          X(t).isclose(X(t) * 1.1, rtol=0.2),
                          t.isclose(t.tensor([INF, -INF]), t.tensor([INF, INF])),
                          t.isclose(I(t, [1, 5]), I(t, [2, 5]), atol=1)],
    "isclose_dtypes": lambda t: t.isclose(X(t), X(t).float()),
    "allclose": lambda t: [t.allclose(X(t), X(t)), t.allclose(X(t), X(t), equal_nan=True),
                           X(t).nan_to_num().allclose(X(t).nan_to_num() + 1e-3, atol=1e-2)],
    "equal": lambda t: [t.equal(X(t), X(t)), t.equal(I(t, [1, 2]), I(t, [1, 2])),
                        t.equal(I(t, [1, 2]), I(t, [1])), I(t, [1, 2]).equal(t.tensor([1., 2.]))],
    # sets, counts, searches
    "unique": lambda t: [t.unique(I(t, [3, 1, 2, 3, 1])),
                         t.unique(I(t, [3, 1, 2, 3, 1]), return_inverse=True, return_counts=True),
                         t.unique(t.tensor([[1, 2], [1, 2], [0, 5]]), dim=0,
                                  return_inverse=True, return_counts=True),
                         t.tensor([[1, 2, 1], [3, 0, 3]]).unique(dim=1, return_counts=True),
                         t.unique(X(t).nan_to_num())],
    "unique_consecutive": lambda t: [
        t.unique_consecutive(I(t, [1, 1, 2, 2, 3, 1, 1]), return_inverse=True,
                             return_counts=True),
        t.unique_consecutive(t.tensor([[1, 2], [1, 2], [0, 5], [1, 2]]), dim=0,
                             return_counts=True)],
    "isin": lambda t: [t.isin(I(t, [1, 2, 3, 4]), I(t, [2, 4])),
                       t.isin(I(t, [1, 2, 3, 4]), I(t, [2, 4]), invert=True),
                       t.isin(I(t, [1, 2]), 2), t.isin(2, I(t, [1, 2]))],
    "searchsorted": lambda t: [
        t.searchsorted(t.tensor([1.0, 3, 5, 7]), t.tensor([3.0, 6, 9, 0])),
        t.searchsorted(t.tensor([1.0, 3, 5, 7]), t.tensor([3.0, 6]), right=True),
        t.searchsorted(t.tensor([1.0, 3, 5, 7]), t.tensor([3.0]), side="right"),
        t.searchsorted(t.tensor([[1.0, 3, 5], [2, 4, 6]]), t.tensor([[3.0, 4], [4, 7]])),
        t.searchsorted(t.tensor([1, 3, 5]), 4, out_int32=True),
        t.searchsorted(t.tensor([5.0, 1, 3]), t.tensor([2.0]), sorter=t.tensor([1, 2, 0]))],
    "searchsorted_errors": lambda t: t.searchsorted(t.tensor([1.0]), t.tensor([1.0]),
                                                    side="middle"),
    "bucketize": lambda t: [t.bucketize(t.tensor([[3.0, 6], [9, 0]]), t.tensor([1.0, 3, 5, 7])),
                            t.bucketize(t.tensor([3.0, 6]), t.tensor([1.0, 3, 5]), right=True,
                                        out_int32=True)],
    "bincount": lambda t: [t.bincount(I(t, [1, 1, 3, 0])), I(t, [2]).bincount(minlength=5),
                           t.bincount(I(t, [1, 1, 3]), t.tensor([0.5, 1.0, 2.0])),
                           t.bincount(I(t, [1, 1, 3]), t.tensor([0.5, 1.0, 2.0],
                                                                dtype=t.float64))],
    "bincount_negative": lambda t: t.bincount(I(t, [-1, 2])),
    "histc": lambda t: [t.histc(X(t).nan_to_num(), 4), X(t).nan_to_num().histc(5, -1, 3),
                        t.histc(t.tensor([1.0, 1.0]), 3),
                        t.histc(t.tensor([0.0, 0.1, 0.2, 0.3, 1.0]), 10, 0, 1)],
    "histc_int": lambda t: t.histc(I(t, [1, 2])),
    "histogram": lambda t: [tuple(t.histogram(X(t).nan_to_num(), 4)),
                            t.histogram(X(t).nan_to_num(), t.tensor([-2.0, 0, 1, 5],
                                                                    dtype=t.float64)).hist,
                            t.histogram(t.tensor([1.0, 2, 1]), 3, range=(0.0, 3.0),
                                        weight=t.tensor([1.0, 2, 4])).bin_edges],
    # NaN-ignoring and other reductions
    "nansum": lambda t: [t.nansum(X(t)), X(t).nansum(1), t.nansum(X(t), (0, 1), True),
                         t.nansum(I(t, [1, 2]))],
    "nansum_grad": grads(lambda t, x: t.nansum(x.log(), 1)),
    "nanmean": lambda t: [t.nanmean(X(t)), X(t).nanmean(0), t.nanmean(X(t), 1, keepdim=True),
                          t.nanmean(t.tensor([NAN, NAN]))],
    "nanmean_int": lambda t: t.nanmean(I(t, [1, 2])),
    "nanmedian": lambda t: [t.nanmedian(X(t)), tuple(X(t).nanmedian(1)),
                            tuple(t.nanmedian(X(t), 0, keepdim=True)),
                            t.nanmedian(t.tensor([NAN, NAN])), t.nanmedian(I(t, [3, 1, 2, 5]))],
    "nanmedian_grad": grads(lambda t, x: t.nanmedian(x, 1).values),
    "logcumsumexp": grads(lambda t, x: t.logcumsumexp(x, 1) + x.logcumsumexp(0)),
    "logcumsumexp_inf": lambda t: t.logcumsumexp(t.tensor([-INF, 0.0, INF, 1.0]), 0),
    "aminmax": lambda t: [tuple(t.aminmax(X(t).nan_to_num())),
                          t.aminmax(X(t).nan_to_num(), dim=1).min,
                          tuple(I(t, [3, 1]).aminmax(dim=0, keepdim=True)),
                          tuple(t.aminmax(X(t).nan_to_num(), keepdim=True))],
    "dist": grads(lambda t, x: t.stack([t.dist(x, x.flip(0)), x.dist(x * 2, 1),
                                        t.dist(x, x.flip(1), float("inf"))])),
    "renorm": grads(lambda t, x: t.renorm(x, 2, 0, 2.0) + x.renorm(1, 1, 3.0)),
    # statistics
    "cov": grads(lambda t, x: t.cov(x)),
    "cov_args": lambda t: [t.cov(R(t).detach(), correction=0),
                           t.cov(R(t).detach(), fweights=I(t, [1, 2, 1, 3])),
                           t.cov(R(t).detach(), aweights=t.tensor([0.5, 1, 2, 1],
                                                                 dtype=t.float64)),
                           t.cov(R(t).detach()[0]), t.cov(I(t, [1, 2, 4]))],
    "corrcoef": grads(lambda t, x: t.corrcoef(x)),
    # constructions
    "cartesian_prod": lambda t: [t.cartesian_prod(I(t, [1, 2]), I(t, [3, 4, 5])),
                                 t.cartesian_prod(I(t, [1, 2]))],
    "combinations": lambda t: [t.combinations(I(t, [1, 2, 3])),
                               t.combinations(I(t, [1, 2, 3]), 3),
                               t.combinations(I(t, [1, 2, 3]), with_replacement=True),
                               t.combinations(I(t, [1, 2]), 1), t.combinations(I(t, [1]), 2)],
    "combinations_grad": grads(lambda t, x: t.combinations(x[0]).prod(1)),
    "block_diag": grads(lambda t, x: t.block_diag(x, x[0], x[0, 0], x[:2, :1])),
    "block_diag_dtypes": lambda t: t.block_diag(I(t, [[1, 2]]), t.tensor([[0.5]])),
    "diagflat": grads(lambda t, x: t.diagflat(x) + 0),
    "diagflat_offset": lambda t: [t.diagflat(I(t, [1, 2]), 1), I(t, [1, 2]).diagflat(-2)],
    "trapezoid": grads(lambda t, x: t.stack([
        t.trapezoid(x).sum(), t.trapezoid(x, dx=0.5, dim=0).sum(),
        t.trapezoid(x, t.tensor([0.0, 1, 3, 4], dtype=t.float64)).sum(),
        t.trapz(x, dim=0).sum()])),
    "cumulative_trapezoid": grads(lambda t, x: t.cumulative_trapezoid(x) + t.cumulative_trapezoid(
        x, t.tensor([0.0, 1, 3, 4], dtype=t.float64))),
    "vander": lambda t: [t.vander(t.tensor([1.0, 2, 3])), t.vander(I(t, [1, 2, 3]), 4, True),
                         t.vander(t.tensor([1.0, 2]), 0)],
    # (torch's vander backward refuses: its cumprod writes in place into a saved tensor)
    "tri_indices": lambda t: [t.tril_indices(3, 4), t.triu_indices(4, 3, 1),
                              t.tril_indices(3, 3, -1, dtype=t.int32), t.triu_indices(0, 3)],
    "logspace": lambda t: [t.logspace(0, 2, 5), t.logspace(-1, 1, 4, base=2.0,
                                                            dtype=t.float64),
                           t.logspace(0, 1, 1), t.logspace(1, 0, 3)],
    "range": lambda t: [t.range(1, 4), t.range(0, 1, 0.25, dtype=t.float64), t.range(3, 0, -1)],
    "range_no_end": lambda t: t.range(3),
    "broadcast_shapes": lambda t: [t.broadcast_shapes((2, 1), (3,), 1),
                                   t.broadcast_shapes()],
    "broadcast_shapes_error": lambda t: t.broadcast_shapes((2,), (3,)),
    "broadcast_shapes_error2": lambda t: t.broadcast_shapes((4, 1), (1, 3), (2, 3)),
    "stacks": lambda t: [t.column_stack([I(t, [1, 2]), I(t, [[3], [4]])]),
                         t.row_stack([I(t, [1, 2]), I(t, [3, 4])])],
    "splits": lambda t: [t.hsplit(t.arange(12).reshape(3, 4), 2),
                         t.arange(12).reshape(3, 4).hsplit([1, 3]),
                         t.vsplit(t.arange(12).reshape(4, 3), 2), t.hsplit(t.arange(6), 3),
                         t.dsplit(t.arange(12).reshape(1, 2, 6), [1, 4])],
    "split_errors": lambda t: t.hsplit(t.arange(12).reshape(3, 4), 3),
    "vsplit_1d": lambda t: t.vsplit(t.arange(4), 2),
    "msort": grads(lambda t, x: t.msort(x) * t.arange(3.0, dtype=t.float64).unsqueeze(1)),
    "scalar_tensor": lambda t: [t.scalar_tensor(3), t.scalar_tensor(2.5, dtype=t.float64),
                                t.scalar_tensor(True)],
    # scatters into a copy, splits, view copies, aliases
    "select_scatter": grads(lambda t, x: t.select_scatter(x, x[0] * 2, 0, 1) * x),
    "slice_scatter": grads(lambda t, x: x.slice_scatter(x[:, :2].exp(), 1, 1, 4, 2) * x),
    "diagonal_scatter": grads(lambda t, x: t.diagonal_scatter(x, x[0, :3] * 3, 1) * x),
    "scatter_errors": lambda t: t.select_scatter(t.zeros(3, 4), t.ones(3), 0, 1),
    "split_with_sizes": lambda t: [t.split_with_sizes(t.arange(5), [2, 3]),
                                   t.arange(6).reshape(2, 3).split_with_sizes([1, 2], 1),
                                   t.unsafe_split(t.arange(5), 2),
                                   t.unsafe_chunk(t.arange(5), 2),
                                   t.arange(5).unsafe_split_with_sizes([4, 1])],
    "view_copies": lambda t: [t.permute_copy(X(t), (1, 0)), t.expand_copy(I(t, [1]), (3,)),
                              t.select_copy(X(t), 1, 0), t.t_copy(X(t)),
                              t.transpose_copy(X(t), 0, 1), t.view_copy(X(t), (4, 3)),
                              t.diagonal_copy(X(t)), t.unbind_copy(X(t)),
                              t.squeeze_copy(I(t, [[1]])), t.unsqueeze_copy(I(t, [1]), 0),
                              t.narrow_copy(X(t), 1, 1, 2), t.detach_copy(X(t)),
                              t.split_copy(t.arange(5), 2),
                              t.split_with_sizes_copy(t.arange(5), [1, 4])],
    "view_copy_grad": grads(lambda t, x: t.permute_copy(x, (1, 0)) * 2),
    "aliases": lambda t: [X(t).subtract(1, alpha=2), X(t).multiply(X(t)),
                          X(t).divide(2, rounding_mode="floor"), X(t).clone().subtract_(1),
                          X(t).clone().multiply_(3), X(t).clone().divide_(4), X(t).ndimension(),
                          t.clamp_(X(t).clone(), 0, 1), t.clip_(X(t).clone(), -1),
                          t.fill_(X(t).clone(), 2), t.zero_(X(t).clone()),
                          t.square_(X(t).clone()), t.round_(X(t).clone(), decimals=1),
                          t.xlogy_(X(t).clone().abs(), 2), t.logit_(X(t).clone() / 5),
                          t.nan_to_num_(X(t).clone()), t.gcd_(I(t, [4]), I(t, [6])),
                          t.lcm_(I(t, [4]), I(t, [6]))],
}


@pytest.mark.parametrize("name", PROGRAMS)
def test_program(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected, got = run(PROGRAMS[name], torch), run(PROGRAMS[name], gg)
    assert_same(expected, got, tol=TOL)


WINDOWS = ["hann_window", "hamming_window", "blackman_window", "bartlett_window",
           "kaiser_window"]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("periodic", [True, False])
@pytest.mark.parametrize("n", [0, 1, 2, 5, 16, 101])
@pytest.mark.parametrize("name", WINDOWS)
def test_windows(name, n, periodic, dtype):
    def program(t):
        return getattr(t, name)(n, periodic, dtype=getattr(t, dtype))
    assert_same(run(program, torch), run(program, gg), tol=TOL)


def test_window_arguments():
    for program in (lambda t: t.hamming_window(8, True, 0.5, 0.5),
                    lambda t: t.kaiser_window(8, False, 5.0),
                    lambda t: t.hann_window(4, dtype=t.int64),
                    lambda t: t.hann_window(5).dtype,
                    lambda t: t.bartlett_window(4, requires_grad=True).requires_grad):
        assert_same(run(program, torch), run(program, gg), tol=TOL)


def test_range_warns_as_torch():
    with pytest.warns(UserWarning, match="torch.range is deprecated"):
        gg.range(1, 3)


def test_named_tuple_fields():
    x = gg.tensor([1.0, 2.0])
    assert gg.aminmax(x).max.item() == 2.0
    assert gg.frexp(x).exponent.dtype is gg.int32
    assert type(gg.histogram(x, 2)).__name__ == type(torch.histogram(torch.tensor([1.0]), 2)) \
        .__name__


# torch's histogram takes bin edges that do not increase (NumPy refuses them): its binary search
# decides each element's bin, elements outside [first edge, last edge] are not counted
@pytest.mark.parametrize("edges", [[3., 1., 2.], [1., 1., 2.], [0., 2., 1.], [0., 3., 1., 2.],
                                   [2., 1., 0.5, 3.]])
@pytest.mark.parametrize("kw", [{}, {"weight": True}, {"density": True}],
                         ids=["plain", "weight", "density"])
def test_histogram_with_edges_that_do_not_increase(edges, kw):
    got = []
    for lib in (torch, gg):
        x = lib.tensor([1., 2., 1., 2.5, 0., 3., 0.5])
        options = {"weight": lib.arange(1., 8.)} if "weight" in kw else kw
        r = lib.histogram(x, bins=lib.tensor(edges), **options)
        got.append((r.hist.numpy(), r.bin_edges.numpy()))
    np.testing.assert_allclose(got[1][0], got[0][0], rtol=1e-6)
    np.testing.assert_array_equal(got[1][1], got[0][1])
