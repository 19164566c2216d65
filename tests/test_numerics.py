"""Numerical edge cases, as PyTorch 2.13 computes them: decompositions at repeated singular
values and eigenvalues, determinants of singular matrices (their gradients, first and second
order), atan2 at the origin, float16 reductions accumulated in float32, integers to negative
integer powers. torch computes every expectation."""
import numpy as np
import pytest
import torch

import glassgrad as gg
from differential import assert_same, run

# roundoff of different LAPACK paths: values near 1e-15 where torch and glassgrad take the same
# formula with other rounding
TOL = {"float64": (1e-7, 1e-12), "float32": (2e-6, 1e-6), "float16": (1e-3, 0)}


def same(program):
    assert_same(run(program, torch), run(program, gg), tol=TOL)


def _leaf(lib, values, dtype="float64", t=False):
    x = lib.tensor(values, dtype=getattr(lib, dtype))
    return (x.t() if t else x).requires_grad_()


def _grad(fn, values, dtype="float64", t=False):
    """fn(lib, x) -> a scalar: x's gradient after backward."""
    def program(lib):
        x = _leaf(lib, values, dtype, t)
        fn(lib, x).backward()
        return x.grad
    return program


def _double(fn, values, dtype="float64"):
    """The first gradient (with its grad_fn's name) and the gradient of its sum."""
    def program(lib):
        x = _leaf(lib, values, dtype)
        g, = lib.autograd.grad(fn(lib, x), x, create_graph=True)
        g.sum().backward()
        return g, g.grad_fn.name(), x.grad
    return program


EYE2, EYE3 = [[1., 0.], [0., 1.]], [[1., 0., 0.], [0., 1., 0.], [0., 0., 1.]]
SING2 = [[1., 2.], [2., 4.]]
RANK2 = [[1., 2., 3.], [2., 4., 6.], [1., 0., 1.]]
RANK1 = [[1., 2., 3.], [2., 4., 6.], [3., 6., 9.]]
ZERO3 = [[0.] * 3] * 3
MIXED = [SING2, [[1., 2.], [3., 4.]]]

# -- repeated singular values / eigenvalues: the values alone differentiate ---------------------
REPEATED = {
    "svd_S": (lambda lib, x: lib.svd(x)[1].sum(), EYE2, "float32"),
    "svd_U_nan": (lambda lib, x: lib.svd(x)[0].sum(), EYE2, "float32"),
    "linalg_svd_S": (lambda lib, x: lib.linalg.svd(x)[1].sum(), EYE3, "float64"),
    "linalg_svd_S_Vh_nan":
        (lambda lib, x: lib.linalg.svd(x, full_matrices=False)[1].sum() +
         lib.linalg.svd(x, full_matrices=False)[2].sum(), EYE3, "float64"),
    "svdvals": (lambda lib, x: lib.linalg.svdvals(x).sum(), EYE3, "float64"),
    "svd_wide": (lambda lib, x: lib.svd(x)[1].sum(), [[2., 0., 0.], [0., 2., 0.]], "float64"),
    "svd_tall": (lambda lib, x: lib.linalg.svd(x)[1].pow(2).sum(),
                 [[2., 0.], [0., 2.], [0., 0.]], "float64"),
    "svd_compute_uv_false": (lambda lib, x: lib.svd(x, compute_uv=False)[1].sum(), EYE3,
                             "float64"),
    "eigh_L": (lambda lib, x: lib.linalg.eigh(x)[0].sum(), EYE3, "float64"),
    "eigvalsh": (lambda lib, x: lib.linalg.eigvalsh(x).pow(2).sum(), EYE3, "float64"),
    "eigh_V_nan": (lambda lib, x: lib.linalg.eigh(x)[1].sum(), EYE3, "float64"),
    # distinct values: every output's term still there
    "svd_U_S": (lambda lib, x: lib.linalg.svd(x, full_matrices=False)[0].sum() +
                lib.linalg.svd(x, full_matrices=False)[1].sum(),
                [[3., 1.], [1., 2.], [0., 1.]], "float64"),
    "svd_full_U": (lambda lib, x: lib.linalg.svd(x)[0][:, :2].sum(),
                   [[3., 1.], [1., 2.], [0., 1.]], "float64"),
    "eigh_V_abs": (lambda lib, x: lib.linalg.eigh(x)[1].abs().sum(), [[2., 1.], [1., 3.]],
                   "float64"),
}


@pytest.mark.parametrize("fn,values,dtype", REPEATED.values(), ids=REPEATED.keys())
def test_repeated_values(fn, values, dtype):
    same(_grad(fn, values, dtype))


@pytest.mark.parametrize("fn", [lambda lib, x: lib.linalg.svdvals(x).sum(),
                                lambda lib, x: lib.linalg.eigvalsh(x).pow(2).sum()],
                         ids=["svdvals", "eigvalsh"])
def test_repeated_values_double_backward(fn):
    same(_double(fn, EYE3))


# -- determinants of singular matrices ---------------------------------------------------------
DETS = {"singular_2x2": SING2, "rank2_3x3": RANK2, "rank1_3x3": RANK1, "zeros_3x3": ZERO3,
        "batch_mixed": MIXED, "one_by_one_zero": [[0.]]}


@pytest.mark.parametrize("values", DETS.values(), ids=DETS.keys())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_det_backward_singular(values, dtype):
    same(_grad(lambda lib, x: lib.linalg.det(x).sum(), values, dtype))


@pytest.mark.parametrize("values", [SING2, RANK2], ids=["singular_2x2", "rank2_3x3"])
def test_det_backward_singular_transposed(values):
    # a non-contiguous A: LAPACK's LU is of A itself, solved adjoint
    same(_grad(lambda lib, x: lib.det(x), values, t=True))


@pytest.mark.parametrize("values", DETS.values(), ids=DETS.keys())
def test_det_double_backward_singular(values):
    # create_graph: the adjugate from the SVD where |det| < 100 eps, solve elsewhere
    same(_double(lambda lib, x: lib.linalg.det(x).sum(), values))


def test_det_double_backward_nonsingular():
    same(_double(lambda lib, x: lib.det(x), [[1., 2.], [3., 4.]]))


SLOGDETS = {
    "logabsdet_singular": lambda lib, x: lib.linalg.slogdet(x)[1],
    "logabsdet_singular_transposed": lambda lib, x: lib.linalg.slogdet(x.t())[1],
    "old_slogdet": lambda lib, x: lib.slogdet(x)[1],
    "logdet_singular": lambda lib, x: lib.logdet(x),
    "sign_only": lambda lib, x: lib.linalg.slogdet(x)[0],
}


@pytest.mark.parametrize("fn", SLOGDETS.values(), ids=SLOGDETS.keys())
def test_slogdet_singular(fn):
    def program(lib):
        x = _leaf(lib, SING2)
        out = fn(lib, x)
        out.backward()
        return out, x.grad
    same(program)


def test_slogdet_singular_double_backward_refuses():
    same(_double(lambda lib, x: lib.linalg.slogdet(x)[1], SING2))


LOGDETS = {
    "positive": [[2., 1.], [1., 3.]], "negative_nan": [[1., 2.], [3., 4.]],
    "batch": [[[2., 1.], [1., 3.]], [[-1., 0.], [0., 1.]]], "empty": [[[]]],
    "vector": [1., 2.], "not_square": [[1., 2., 3.], [4., 5., 6.]],
}


@pytest.mark.parametrize("values", LOGDETS.values(), ids=LOGDETS.keys())
def test_logdet(values):
    def program(lib):
        x = lib.tensor(values, dtype=lib.float64)
        x = (x.reshape(0, 0) if x.numel() == 0 else x).requires_grad_()
        out = x.logdet()
        if x.numel():
            out.sum().backward()
        return out, out.grad_fn.name(), x.grad
    same(program)


@pytest.mark.parametrize("dtype", ["int64", "float16"])
def test_logdet_refuses(dtype):
    same(lambda lib: lib.logdet(lib.ones(2, 2, dtype=getattr(lib, dtype))))


def test_empty_matrices():
    def program(lib):
        return (lib.linalg.solve(lib.zeros(0, 0), lib.zeros(0)), lib.linalg.inv(lib.zeros(0, 0)),
                tuple(lib.linalg.slogdet(lib.zeros(2, 0, 0))), lib.det(lib.zeros(0, 0)))
    same(program)


# -- atan2 at the origin -----------------------------------------------------------------------
ATAN2 = {"origin": ([0., 0.], [0., 0.]), "mixed": ([0., 1., 0.5], [0., 2., -1.]),
         # float32: 1e-20 squared is a nonzero subnormal (1/x overflows: not masked, as torch);
         # 1e-30 squared is 0 (masked)
         "tiny": ([1e-20, 0., 1e-30], [0., 1e-20, 0.])}


@pytest.mark.parametrize("a,b", ATAN2.values(), ids=ATAN2.keys())
def test_atan2_gradients(a, b):
    def program(lib):
        x, y = lib.tensor(a, requires_grad=True), lib.tensor(b, requires_grad=True)
        lib.atan2(x, y).sum().backward()
        return x.grad, y.grad
    same(program)


@pytest.mark.parametrize("a,b", list(ATAN2.values())[:2], ids=list(ATAN2)[:2])
def test_atan2_double_backward(a, b):
    def program(lib):
        x = lib.tensor(a, dtype=lib.float64, requires_grad=True)
        y = lib.tensor(b, dtype=lib.float64, requires_grad=True)
        gx, gy = lib.autograd.grad(lib.atan2(x, y).sum(), (x, y), create_graph=True)
        (gx.sum() + gy.sum()).backward()
        return gx, gy, x.grad, y.grad
    same(program)


# -- float16 reductions: accumulated in float32, returned in float16 -----------------------------
def _half(lib, fill=300., n=1000):
    return lib.full((n,), fill, dtype=lib.float16)


def _ramp(lib):
    return lib.arange(1000, dtype=lib.float16)


HALF = {
    "norm": lambda lib: _half(lib).norm(),
    "norm_p1_inf": lambda lib: _half(lib).norm(p=1),
    "norm_p3": lambda lib: _half(lib, 30.).norm(p=3),
    "norm_p_inf": lambda lib: _half(lib).norm(p=float("inf")),
    "norm_p0": lambda lib: _half(lib).norm(p=0),
    "norm_dim": lambda lib: _half(lib).reshape(10, 100).norm(dim=1),
    "linalg_norm": lambda lib: lib.linalg.norm(_half(lib)),
    "vector_norm": lambda lib: lib.linalg.vector_norm(_half(lib)),
    "vector_norm_dtype": lambda lib: lib.linalg.vector_norm(_half(lib), dtype=lib.float32),
    "normalize": lambda lib: lib.nn.functional.normalize(_half(lib).reshape(2, 500), dim=1),
    "var": lambda lib: lib.tensor([1., 2., 4.], dtype=lib.float16).var(),
    "std_dim": lambda lib: lib.tensor([[1., 2., 4.]], dtype=lib.float16).std(dim=1),
    "var_overflows": lambda lib: _ramp(lib).var(),
    "std_of_large_var": lambda lib: _ramp(lib).std(),
    "var_mean": lambda lib: lib.var_mean(_ramp(lib).reshape(10, 100), dim=1),
    "std_mean": lambda lib: lib.std_mean(_ramp(lib)),
    "sum": lambda lib: _half(lib).sum(),
    "sum_small": lambda lib: _half(lib, 0.1, 3000).sum(),
    "mean": lambda lib: _half(lib).mean(),
    "mean_dim": lambda lib: _half(lib).reshape(2, 500).mean(1),
    "cumsum": lambda lib: _half(lib, 0.1, 3000).cumsum(0)[-1],
}


@pytest.mark.parametrize("fn", HALF.values(), ids=HALF.keys())
def test_float16_reductions(fn):
    same(fn)


def test_float16_norm_backward():
    def program(lib):
        x = lib.full((100,), 30., dtype=lib.float16, requires_grad=True)
        n = x.norm()
        n.backward()
        return n, x.grad
    same(program)


@pytest.mark.parametrize("fn", [lambda x: x.var(), lambda x: x.std(),
                                lambda x: x.var_mean()[0] + x.var_mean()[1]],
                         ids=["var", "std", "var_mean"])
def test_float16_var_backward(fn):
    def program(lib):
        x = lib.tensor([1., 2., 4., 7.], dtype=lib.float16, requires_grad=True)
        out = fn(x)
        out.backward()
        return out, x.grad
    same(program)


# -- integers to negative integer powers ----------------------------------------------------------
POWERS = {
    "tensor_exponents": lambda lib: lib.tensor([0, 1, -1, 2, -2, 0, 1, -1, 5]) ** lib.tensor(
        [-1, -2, -3, -1, -1, 0, -5, -4, -1]),
    "zero_dim_exponent": lambda lib: lib.tensor([0, 1, -1, 2]) ** lib.tensor(-1),
    "pow_function": lambda lib: lib.pow(lib.tensor([2, 3]), lib.tensor([-1, 2])),
    "scalar_base": lambda lib: 2 ** lib.tensor([-1, 0, 3]),
    "scalar_base_one": lambda lib: 1 ** lib.tensor([-1, 0]),
    "scalar_base_minus_one": lambda lib: lib.pow(-1, lib.tensor([-1, -2])),
    "inplace": lambda lib: lib.tensor([2, 3]).pow_(lib.tensor([-1, 2])),
    "uint8_int8": lambda lib: lib.tensor([2, 3], dtype=lib.uint8) ** lib.tensor(
        [-1, 2], dtype=lib.int8),
    "int8": lambda lib: lib.tensor([2, -1], dtype=lib.int8) ** lib.tensor(
        [-1, -3], dtype=lib.int8),
    "scalar_exponent_refused": lambda lib: lib.tensor([1, 2]) ** -1,
    "scalar_exponent_function_refused": lambda lib: lib.pow(lib.tensor([1, 2]), -1),
    "scalar_exponent_inplace_refused": lambda lib: lib.tensor([1, 2]).pow_(-1),
    "bool_refused": lambda lib: lib.tensor([True]) ** -1,
    "float_exponent": lambda lib: lib.tensor([1, 2]) ** lib.tensor(-1.),
    "zero_exponent": lambda lib: lib.tensor([1, 2]) ** 0,
}


@pytest.mark.parametrize("fn", POWERS.values(), ids=POWERS.keys())
def test_integer_negative_powers(fn):
    same(fn)


@pytest.mark.parametrize("a,b,kw", [((1, 3), (1, 3), {}), ((30, 3), (2, 3), {}),
                                    ((1, 3), (1, 3), {"p": 1.0}), ((0, 3), (2, 3), {}),
                                    ((1, 3), (1, 3), {"compute_mode": "use_mm_for_euclid_dist"})])
def test_cdist_float16(a, b, kw):
    # torch's cdist kernel has no float16 (its matmul path for p=2 does)
    same(lambda lib: lib.cdist(lib.ones(*a, dtype=lib.float16), lib.ones(*b, dtype=lib.float16),
                               **kw))


# -- the sign of zero at ties: torch's max/min keep self (relu(-0.0) is -0.0) ------------------
TIES = {
    "relu": lambda lib, t, z, nz: lib.relu(t),
    "relu_": lambda lib, t, z, nz: t.clone().relu_(),
    "clamp": lambda lib, t, z, nz: t.clamp(-0.5, 0.0),
    "clamp_min": lambda lib, t, z, nz: t.clamp_min(0.0),
    "clamp_max": lambda lib, t, z, nz: t.clamp_max(0.0),
    "clamp_tensors": lambda lib, t, z, nz: t.clamp(nz, z),
    "clamp_min_tensor": lambda lib, t, z, nz: t.clamp_min(z),
    "clamp_max_tensor": lambda lib, t, z, nz: t.clamp_max(z),
    "maximum": lambda lib, t, z, nz: lib.maximum(t, z),
    "maximum_swapped": lambda lib, t, z, nz: lib.maximum(z, t),
    "minimum": lambda lib, t, z, nz: lib.minimum(t, nz),
    "minimum_swapped": lambda lib, t, z, nz: lib.minimum(nz, t),
    "elu": lambda lib, t, z, nz: lib.nn.functional.elu(t),
    "hardtanh": lambda lib, t, z, nz: lib.nn.functional.hardtanh(t),
}


@pytest.mark.parametrize("n", [1, 8])     # (8 x 5 elements: some go through vector loops)
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("fn", TIES.values(), ids=TIES.keys())
def test_signed_zero_at_ties(fn, dtype, n):
    """Where the vector loops of torch's kernels reach (whole 32- or 64-byte vectors along the
    innermost dim of its walk), some ties give the other operand (see
    backend/kernels/vector.py): long, 2-d, transposed and broadcast operands check it."""
    def program(lib):
        dt = getattr(lib, dtype)
        t = lib.tensor([-0.0, 0.0, -1.0, 2.0, float("nan")] * n, dtype=dt)
        outs = [fn(lib, t, lib.zeros(5 * n, dtype=dt), -lib.zeros(5 * n, dtype=dt))]
        if n > 1:
            m = t.reshape(5, n)
            outs.append(fn(lib, m.t(), lib.zeros(n, 5, dtype=dt), -lib.zeros(n, 1, dtype=dt)))
        return outs, [np.signbit(o.numpy()).tolist() for o in outs]   # (allclose: -0.0 == 0.0)
    same(program)
