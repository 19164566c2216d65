"""torch.special and the special functions beyond their op-table cases (opinfo.py): values at
edges (zeros, negatives, poles, infinities, NaN, large arguments) in float32 and float64,
integer inputs, the namespace's names, errors. torch computes every expectation."""
import pytest
import torch

import glassgrad as gg
from differential import assert_same, norm, run

EDGES = [0.0, -0.0, -1.0, -2.5, -0.3, 1e-30, 0.5, 3.0, 30.0, 100.0, float("inf"),
         -float("inf"), float("nan"), -1e-8]
TOL = {"float32": (1e-5, 1e-6), "float64": (1e-10, 1e-12)}

UNARY = ["lgamma", "digamma", "i0", "sinc"]
SPECIAL_UNARY = ["gammaln", "digamma", "psi", "i0", "i0e", "i1", "i1e", "ndtr", "log_ndtr",
                 "erfcx", "entr", "sinc", "expit", "erf", "erfc", "exp2", "expm1", "log1p",
                 "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0",
                 "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
                 "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
                 "spherical_bessel_j0", "round"]


def same(program, tol=TOL):
    assert_same(run(program, torch), run(program, gg), tol=tol)


def edges(t, dtype):
    return t.tensor(EDGES, dtype=getattr(t, dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", UNARY)
def test_unary_edges(name, dtype):
    same(lambda t: getattr(t, name)(edges(t, dtype)))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", SPECIAL_UNARY)
def test_special_unary_edges(name, dtype):
    same(lambda t: getattr(t.special, name)(edges(t, dtype)))


@pytest.mark.parametrize("name", ["lgamma", "digamma", "i0", "sinc"])
def test_integer_inputs_give_the_default_float(name):
    same(lambda t: getattr(t, name)(t.tensor([1, 2, 5, -3])))
    same(lambda t: getattr(t.special, name if name != "lgamma" else "gammaln")(
        t.tensor([True, False])))


def test_airy_ai():
    # torch's Cephes port for negative arguments differs from SciPy's by ~2e-6 relative
    same(lambda t: t.special.airy_ai(t.tensor(EDGES, dtype=t.float64)),
         tol={"float64": (1e-5, 1e-12)})
    same(lambda t: t.special.airy_ai(t.tensor([0.5, 3.0, 200.0, 1e20], dtype=t.float64)))


def test_ndtri_edges():
    same(lambda t: t.special.ndtri(t.tensor([0.0, 1.0, 0.5, 1e-300, 0.3, -0.1, 1.1,
                                             float("nan")], dtype=t.float64)))


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_polygamma_edges(n, dtype):
    finite = [v for v in EDGES if v == v and abs(v) != float("inf") and v > -0.9 or v > 0]
    same(lambda t: t.polygamma(n, t.tensor(finite, dtype=getattr(t, dtype))))
    same(lambda t: t.special.polygamma(n, t.tensor([float("inf"), 0.0, -0.0, 2.0],
                                                   dtype=t.float64)))


def test_polygamma_errors_and_signatures():
    same(lambda t: t.polygamma(-1, t.ones(2)))
    same(lambda t: t.polygamma("a", t.ones(2)))
    same(lambda t: t.ones(2).polygamma(1.5))
    same(lambda t: t.special.polygamma(t.ones(2), 1))


def test_mvlgamma():
    same(lambda t: t.mvlgamma(t.tensor([2.5, 3.0, 10.0], dtype=t.float64), 4))
    same(lambda t: t.special.multigammaln(t.tensor([2.5, 3.0], dtype=t.float64), 1))
    same(lambda t: t.mvlgamma(t.tensor([2.5]), 0))
    same(lambda t: t.mvlgamma(t.tensor([2, 3]), 2))


def test_igamma_values_and_grads():
    def prog(t, fn):
        a = t.tensor([0.5, 1.0, 2.0, 0.0, 3.0, -1.0, 2.0], dtype=t.float64)
        x = t.tensor([0.3, 1.0, 0.0, 2.0, float("inf"), 1.0, -1.0], dtype=t.float64)
        return fn(t)(a, x)
    for fn in (lambda t: t.igamma, lambda t: t.igammac, lambda t: t.special.gammainc,
               lambda t: t.special.gammaincc):
        same(lambda t: prog(t, fn))
    same(lambda t: t.igamma(t.tensor([1, 2]), t.tensor([1, 2])))

    def backward(t):
        a = t.tensor([0.5, 2.0], requires_grad=True)
        r = t.igamma(a, t.tensor([1.0, 2.0]))
        return t.autograd.grad(r.sum(), a)
    same(backward)


def test_zeta_and_xlog1py():
    inf = float("inf")
    same(lambda t: t.special.zeta(t.tensor([3.0, 3.0, 3.0, 1.0, 0.5, 2.0, 2.0]),
                                  t.tensor([inf, -inf, 0.0, 2.0, 2.0, -2.5, -2.0])))
    same(lambda t: t.special.zeta(2.0, t.tensor([1.0, 2.0])))
    same(lambda t: t.special.zeta(t.tensor([2.0, 3.0]), 2.0))
    same(lambda t: t.special.xlog1py(t.tensor([0.0, 1.0, 2.0, 0.0]),
                                     t.tensor([-1.0, -1.0, 3.0, float("nan")])))
    same(lambda t: t.special.xlog1py(2, t.tensor([1.0, 3.0])))

    def backward(t):
        x = t.tensor([2.0, 3.0], requires_grad=True)
        return t.autograd.grad(t.special.zeta(x, t.tensor([1.0, 2.0])).sum(), x)
    same(backward)


@pytest.mark.parametrize("name", [
    "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
    "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
    "laguerre_polynomial_l", "legendre_polynomial_p"])
def test_polynomials(name):
    xs = [-1.0, 1.0, 0.3, -0.7, 2.5, 0.0]

    def prog(t):
        f = getattr(t.special, name)
        x = t.tensor(xs, dtype=t.float64)
        n = t.tensor([0, 1, 2, 3, 8, 12])
        return [f(x, n), f(x, 3), f(0.5, n), f(x, -1), f(x, 2.7), f(t.tensor([1, 2]), 3),
                f(x.float(), 10), f(x.requires_grad_(), 2).requires_grad]
    same(prog, tol={"float64": (1e-9, 1e-9), "float32": (1e-5, 1e-5)})


def test_grad_fn_names_of_aliases():
    def prog(t):
        x = t.tensor([0.5, 1.5], requires_grad=True)
        s = t.special
        return [type(f(x).grad_fn).__name__ for f in (
            s.gammaln, s.psi, s.digamma, s.i0, s.expit, s.sinc, s.erf, s.exp2,
            lambda y: s.multigammaln(y + 2, 2), lambda y: s.round(y), lambda y: s.logit(y),
            lambda y: s.logsumexp(y, 0), lambda y: s.softmax(y, 0),
            lambda y: s.log_softmax(y, 0), lambda y: s.xlogy(y, 2.0),
            lambda y: s.polygamma(1, y))]
    same(prog)


def test_namespace_is_torchs():
    public = {n for n in dir(torch.special) if not n.startswith("_")} - {
        "Tensor", "torch", "common_args", "multi_dim_common"}
    assert public == set(gg.special.__all__)


def test_signature_errors():
    same(lambda t: t.special.i0e("a"))
    same(lambda t: t.special.zeta("a"))
    same(lambda t: t.special.chebyshev_polynomial_t("a"))
    same(lambda t: t.lgamma([1.0]))


def test_inplace_integer_refused():
    same(lambda t: t.tensor([1, 2]).lgamma_())
    same(lambda t: t.tensor([1, 2]).digamma_())
    same(lambda t: t.tensor([1, 2]).i0_())


def test_out():
    def prog(t):
        out = t.empty(3)
        t.lgamma(t.tensor([0.5, 2.0, 3.0]), out=out)
        t.special.i1(t.tensor([0.5, 2.0, 3.0]), out=out)
        return out
    same(prog)
