"""The kernels' size- and layout-dependent paths (issue 17's kernel work), on both sides of each
threshold, against torch: sums over many short rows by einsum (sum, mean, var, std, softmax,
log_softmax), mean's spread gradient, x ** 1, the stacked product of row-major by transposed
matrices, and the float32 convolution weight gradient as a transposed product. Each case
also says which path it takes, so that a threshold moved by accident shows here."""
import numpy as np
import pytest
import torch

import glassgrad as gg
from glassgrad.backend.kernels.sums import short_rows
from glassgrad.ops import conv as gg_conv, linalg as gg_linalg
from optable import check_op, compare_values

# -- sums over short rows --------------------------------------------------------------------
# (shape, whether the einsum path takes its last-axis sum): 128 rows or more of at most 128
ROWS = [((128, 64), True), ((127, 64), False), ((8, 64, 64), True), ((2, 64, 128), True),
        ((2, 64, 129), False), ((256, 1), True), ((300, 7), True), ((64, 10), False)]

SUMS = {
    "sum": lambda t, x: x.sum(-1), "sum_keepdim": lambda t, x: x.sum(-1, keepdim=True),
    "mean": lambda t, x: x.mean(-1), "mean_keepdim": lambda t, x: x.mean(dim=-1, keepdim=True),
    "var": lambda t, x: x.var(-1), "var_biased": lambda t, x: x.var(-1, unbiased=False,
                                                                     keepdim=True),
    "var_correction": lambda t, x: t.var(x, -1, correction=2.5),
    "std": lambda t, x: x.std(-1), "var_mean": lambda t, x: t.var_mean(x, -1, keepdim=True),
    "softmax": lambda t, x: t.softmax(x, -1), "log_softmax": lambda t, x: t.log_softmax(x, -1),
    "mean_all": lambda t, x: x.mean(),
}


@pytest.mark.parametrize("shape, fast", ROWS, ids=[str(s) for s, _ in ROWS])
def test_short_rows_path(shape, fast):
    a = np.zeros(shape, np.float32)
    assert short_rows(a, len(shape) - 1, None) is fast
    assert not short_rows(a.astype(np.float16), len(shape) - 1, None)
    assert not short_rows(a.swapaxes(-1, -2), len(shape) - 1, None)
    assert not short_rows(a, 0, None)


@pytest.mark.parametrize("name", SUMS)
@pytest.mark.parametrize("shape", [s for s, _ in ROWS if len(s) == 2 or s[-1] < 100],
                         ids=str)
def test_short_row_sums_float32(name, shape):
    check_op(SUMS[name], (shape,), {"fd": False}, "float32")


@pytest.mark.parametrize("name", SUMS)
def test_short_row_sums_float64(name):
    check_op(SUMS[name], ((128, 3),), {}, "float64")     # (with the finite differences)


def _special(shape, dtype):
    """Values with NaN, inf, -inf and signed zeros in some rows (positive elsewhere: sums
    without cancellation, which any order rounds alike). (Not sums that overflow: torch's
    float32 mean and var stay finite where the float32 sum overflows, glassgrad's do not,
    before and after issue 17's kernels.)"""
    rng = np.random.default_rng(1)
    a = rng.uniform(0.5, 2.0, shape)
    flat = a.reshape(-1, shape[-1])
    flat[1, 3], flat[2, 0], flat[2, 5], flat[4, :] = np.nan, np.inf, -np.inf, -0.0
    flat[5, :] = 0.0
    return a.astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", SUMS)
def test_short_row_sums_special_values(name, dtype):
    a = _special((8, 32, 16), dtype)
    compare_values(lambda t: SUMS[name](t, t.tensor(a)))


@pytest.mark.parametrize("layout", ["transposed", "sliced", "float16", "bfloat16"])
def test_short_row_sums_other_layouts(layout):
    """Non-contiguous rows and 2-byte floats keep NumPy's reduce; same values as torch."""
    def make(t):
        x = t.tensor(np.random.default_rng(2).standard_normal((8, 64, 64)))
        if layout == "transposed":
            return x.float().transpose(-1, -2)
        if layout == "sliced":
            return x.float()[..., ::2]
        return x.to(getattr(t, layout))
    # (log_softmax of float16/bfloat16 differs from torch's by one unit in the last place in
    # about a sixth of the elements, before and after issue 17's kernels: not compared here)
    names = ("sum", "mean_keepdim", "var", "softmax") + (
        ("log_softmax",) if layout in ("transposed", "sliced") else ())
    for name in names:
        compare_values(lambda t: SUMS[name](t, make(t)))


# -- mean's gradient, x ** 1 -----------------------------------------------------------------
@pytest.mark.parametrize("shape", [(8, 64, 64), (3, 0, 2), (5,), ()], ids=str)
def test_mean_gradient(shape):
    """MeanBackward0/1 on arrays divide the gradient once, then spread it: torch's values
    (also for an empty input, and NaN or inf gradients)."""
    for upstream in (1.5, float("nan"), float("inf")):
        for f in (lambda t, x: x.mean(), lambda t, x: x.mean(-1) if x.dim() else x.mean(),
                  lambda t, x: x.mean(0, keepdim=True) if x.dim() else x.mean()):
            def grad(t):
                x = t.ones(shape, dtype=t.float32, requires_grad=True)
                y = f(t, x)
                (g,) = t.autograd.grad(y, x, t.full(y.shape, upstream))
                return g
            compare_values(grad)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64", "complex64"])
def test_pow_one(dtype):
    a = np.array([1.5, -0.0, np.nan, np.inf, -2.0, 0.0])
    compare_values(lambda t: t.tensor(a).to(getattr(t, dtype)) ** 1)
    compare_values(lambda t: t.tensor(a).to(getattr(t, dtype)).pow(1.0))
    check_op(lambda t, x: x ** 2, ((8, 64, 64),), {"fd": False}, "float32")   # (grad: x ** 1)


# -- stacked products of row-major by transposed matrices ------------------------------------
# (batch, m, k, n, whether the transposed stack is copied row-major first)
STACKS = [(8, 64, 64, 64, True), (16, 32, 16, 32, True), (8, 31, 64, 64, False),
          (8, 64, 65, 64, False), (8, 64, 64, 8, False), (2, 33, 17, 16, False)]


@pytest.mark.parametrize("b, m, k, n, copied", STACKS, ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_transposed_stack(b, m, k, n, copied, dtype):
    a = np.zeros((b, m, k), dtype)
    bt = np.zeros((b, n, k), dtype).swapaxes(1, 2)
    assert gg_linalg._transposed_stack(a, bt) is copied
    assert not gg_linalg._transposed_stack(a, np.ascontiguousarray(bt))
    assert not gg_linalg._transposed_stack(a, np.broadcast_to(bt[:1], bt.shape))
    check_op(lambda t, x, y: x @ y.transpose(-2, -1), ((b, m, k), (b, n, k)), {"fd": False},
             dtype)
    check_op(lambda t, x, y: t.bmm(x, y.mT), ((b, m, k), (b, n, k)), {"fd": False}, dtype)


def test_transposed_stack_special_values():
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((8, 64, 64)), rng.standard_normal((8, 64, 64))
    a[0, 1, 2], a[1, 3, 0], b[2, 4, 5] = np.nan, np.inf, -np.inf
    compare_values(lambda t: t.tensor(a).float() @ t.tensor(b).float().mT)


# -- the convolution weight gradient ---------------------------------------------------------
# (N, C, O, size, whether the float32 weight gradient is the transposed product)
CONVS = [(32, 16, 32, 13, True), (32, 1, 16, 28, False), (16, 32, 8, 8, False),
         (4, 3, 8, 16, False), (8, 64, 64, 16, True)]


def _conv_grads(t, x, w, go, dtype):
    xt, wt = t.tensor(x).to(dtype).requires_grad_(), t.tensor(w).to(dtype).requires_grad_()
    out = t.nn.functional.conv2d(xt, wt, padding=1)
    out.backward(t.tensor(go).to(dtype))
    return out, xt.grad, wt.grad


def _assert_close_to(ref64, got, what):
    """float32 sums of thousands of products: within 1e-5 of the largest magnitude of the
    float64 result (the op tables' float32 tolerance is for short sums); NaN and inf where
    torch has them."""
    ref, val = ref64.detach().numpy(), got.detach().numpy()
    assert got.dtype is gg.float32 and tuple(got.shape) == ref.shape, what
    assert np.array_equal(np.isnan(val), np.isnan(ref)), what
    assert np.array_equal(val[np.isinf(ref)], ref[np.isinf(ref)]), what
    fin = np.isfinite(ref)
    scale = np.abs(ref[fin]).max()
    np.testing.assert_allclose(val[fin], ref[fin], rtol=0, atol=1e-5 * scale, err_msg=what)


@pytest.mark.parametrize("n, c, o, size, transposed", CONVS, ids=str)
def test_conv_weight_gradient(n, c, o, size, transposed):
    go = np.zeros((n, 1, o, size * size), np.float32)
    cols = np.zeros((n, 1, c * 9, size * size), np.float32)
    assert gg_conv._weight_grad_by_transpose(go, cols) is transposed
    assert not gg_conv._weight_grad_by_transpose(go.astype(np.float64), cols.astype(np.float64))
    rng = np.random.default_rng(5)
    x = rng.standard_normal((n, c, size, size)).astype(np.float32)
    w = rng.standard_normal((o, c, 3, 3)).astype(np.float32)
    g = rng.standard_normal((n, o, size, size)).astype(np.float32)
    ref = _conv_grads(torch, x, w, g, torch.float64)
    got = _conv_grads(gg, x, w, g, gg.float32)
    for r, v, what in zip(ref, got, ("output", "input gradient", "weight gradient")):
        _assert_close_to(r, v, what)
    assert type(got[0].grad_fn).__name__ == "ConvolutionBackward0"


def test_conv_weight_gradient_special_values():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((32, 16, 13, 13)).astype(np.float32)
    x[0, 0, 1, 1], x[3, 2, 5, 5], x[7, 1, 0, 0] = np.nan, np.inf, -0.0
    w = rng.standard_normal((32, 16, 3, 3)).astype(np.float32)
    g = rng.standard_normal((32, 32, 13, 13)).astype(np.float32)
    _assert_close_to(_conv_grads(torch, x, w, g, torch.float64)[2],
                     _conv_grads(gg, x, w, g, gg.float32)[2], "weight gradient")
