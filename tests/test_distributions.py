"""torch.distributions, differential against torch: samples after manual_seed (exactly),
log_prob / cdf / icdf / entropy / moments and their gradients, shapes, expand, reprs,
constraints, transforms, kl_divergence and the errors of argument validation."""
import warnings

import pytest
import torch

import glassgrad as gg
from differential import assert_same, norm, run

EXACT = {}                          # tol={} compares every float exactly
CLOSE = None                        # differential.FLOAT_TOL


def same(program, tol=CLOSE):
    assert_same(run(program, torch), run(program, gg), tol=tol)


def error(fn):
    """(type, full message) of what fn() raises; None when it returns."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the error is the behaviour compared
        return type(e).__name__, str(e)
    return None


def same_error(program):
    expected, got = program(torch), program(gg)
    assert expected is not None
    assert got == expected


def _p(lib, values, dtype="float64", grad=True):
    return lib.tensor(values, dtype=getattr(lib, dtype), requires_grad=grad)


# name -> (make(lib, dtype) -> (distribution, [parameters]), values(lib, dtype) -> points inside
# the support (for log_prob / cdf), whether icdf exists)
def _two(cls, a, b):
    def make(lib, dt):
        x, y = _p(lib, a, dt), _p(lib, b, dt)
        return getattr(lib.distributions, cls)(x, y), [x, y]
    return make


def _one(cls, a, **kw):
    def make(lib, dt):
        x = _p(lib, a, dt)
        return getattr(lib.distributions, cls)(x, **kw), [x]
    return make


def _kw(cls, key, a):
    def make(lib, dt):
        x = _p(lib, a, dt)
        return getattr(lib.distributions, cls)(**{key: x}), [x]
    return make


def _pos(lib, dt):
    return lib.tensor([[0.3, 1.2, 2.5], [0.1, 0.7, 4.0]], dtype=getattr(lib, dt))


def _real(lib, dt):
    return lib.tensor([[-1.3, 0.2, 2.5], [0.1, -0.7, 4.0]], dtype=getattr(lib, dt))


def _unit(lib, dt):
    return lib.tensor([[0.05, 0.5, 0.9], [0.3, 0.2, 0.7]], dtype=getattr(lib, dt))


def _bits(lib, dt):
    return lib.tensor([[0., 1., 1.], [1., 0., 0.]], dtype=getattr(lib, dt))


def _counts(lib, dt):
    return lib.tensor([[0., 3., 1.], [2., 0., 5.]], dtype=getattr(lib, dt))


def _index(lib, dt):
    return lib.tensor([[0, 3, 1], [2, 0, 3]])


def _onehot(lib, dt):
    return lib.eye(4, dtype=getattr(lib, dt))[lib.tensor([[0, 3, 1], [2, 0, 3]])]


LOC, SCALE = [0.5, -1.0, 2.0], [1.5, 0.3, 2.0]
PROBS4 = [[0.1, 0.2, 0.3, 0.4], [0.5, 0.25, 0.125, 0.125], [0.7, 0.1, 0.1, 0.1]]
LOGITS4 = [[0.1, -2.0, 0.3, 1.4], [0.5, 0.25, -1.0, 0.0], [2.0, 0.1, 0.1, -0.1]]

A3 = [[1.0, 0.2, -0.3], [0.4, 1.5, 0.1], [-0.2, 0.3, 0.8]]


def _mvn(kind):
    def make(lib, dt):
        loc, a = _p(lib, LOC, dt), _p(lib, A3, dt)
        cov = a @ a.mT + lib.eye(3, dtype=getattr(lib, dt))
        matrix = {"covariance_matrix": cov, "precision_matrix": lib.linalg.inv(cov),
                  "scale_tril": lib.linalg.cholesky(cov)}[kind]
        return lib.distributions.MultivariateNormal(loc, **{kind: matrix}), [loc, a]
    return make


def _lowrank(lib, dt):
    loc, w = _p(lib, LOC, dt), _p(lib, [[1.0, 0.2], [0.4, -1.5], [-0.2, 0.3]], dt)
    d = _p(lib, [0.5, 1.0, 2.0], dt)
    return lib.distributions.LowRankMultivariateNormal(loc, w, d), [loc, w, d]


def _mixture(lib, dt):
    logits = _p(lib, LOGITS4[:2], dt)
    loc = _p(lib, [[0.0, 1.0, -1.0, 2.0], [0.5, -0.5, 1.5, 0.0]], dt)
    D = lib.distributions
    return D.MixtureSameFamily(D.Categorical(logits=logits), D.Normal(loc, 0.7)), [logits, loc]


def _relaxed(cls, key, values):
    def make(lib, dt):
        x = _p(lib, values, dt)
        t = lib.tensor(0.7, dtype=getattr(lib, dt))
        return getattr(lib.distributions, cls)(t, **{key: x}), [x]
    return make


def _mixed(lib, dt):
    return lib.tensor([[0.3, 1.2], [-0.1, 0.7]], dtype=getattr(lib, dt))


def _simplex(lib, dt):
    return lib.tensor([[0.1, 0.2, 0.3, 0.4], [0.25, 0.25, 0.4, 0.1], [0.7, 0.1, 0.1, 0.1]],
                      dtype=getattr(lib, dt))


def _simplex2(lib, dt):
    return lib.tensor([[0.1, 0.2, 0.3, 0.4], [0.25, 0.25, 0.4, 0.1]], dtype=getattr(lib, dt))


def _above2(lib, dt):
    return lib.tensor([[2.3, 3.2, 2.5], [4.1, 2.7, 6.0]], dtype=getattr(lib, dt))


def _binomial(key, values):
    def make(lib, dt):
        x = _p(lib, values, dt)
        return lib.distributions.Binomial(10, **{key: x}), [x]
    return make


def _multinomial(lib, dt):
    x = _p(lib, PROBS4, dt)
    return lib.distributions.Multinomial(6, probs=x), [x]


def _mcounts(lib, dt):
    return lib.tensor([[1., 2., 3., 0.], [0., 0., 6., 0.], [2., 2., 1., 1.]],
                      dtype=getattr(lib, dt))


def _gpareto(lib, dt):
    loc, scale = _p(lib, LOC, dt), _p(lib, SCALE, dt)
    xi = _p(lib, [0.3, 0.0, -0.2], dt)
    return lib.distributions.GeneralizedPareto(loc, scale, xi), [loc, scale, xi]


def _above_loc(lib, dt):
    return lib.tensor([[0.6, -0.5, 2.5], [1.0, 0.0, 4.0]], dtype=getattr(lib, dt))


def _lkj(lib, dt):
    x = _p(lib, [0.5, 2.0], dt)
    return lib.distributions.LKJCholesky(3, x), [x]


def _corr_chol(lib, dt):
    a = lib.tensor([[[1.0, 0.3, -0.2], [0.3, 1.0, 0.4], [-0.2, 0.4, 1.0]],
                    [[1.0, -0.6, 0.1], [-0.6, 1.0, 0.0], [0.1, 0.0, 1.0]]], dtype=getattr(lib, dt))
    return lib.linalg.cholesky(a)


def _wishart(kind):
    def make(lib, dt):
        df, a = _p(lib, [4.0, 6.5], dt), _p(lib, A3, dt)
        cov = a @ a.mT + lib.eye(3, dtype=getattr(lib, dt))
        matrix = {"covariance_matrix": cov, "precision_matrix": lib.linalg.inv(cov),
                  "scale_tril": lib.linalg.cholesky(cov)}[kind]
        return lib.distributions.Wishart(df, **{kind: matrix}), [df, a]
    return make


def _pd(lib, dt):
    a = lib.tensor([[[2.0, 0.3, 0.1], [0.3, 1.5, -0.2], [0.1, -0.2, 1.0]],
                    [[1.0, 0.2, 0.0], [0.2, 3.0, 0.5], [0.0, 0.5, 0.7]]], dtype=getattr(lib, dt))
    return a


DISTS = {
    "Binomial_probs": (_binomial("probs", [0.2, 0.5, 0.9]), _counts, False),
    "Binomial_logits": (_binomial("logits", [-1.2, 0.0, 2.0]), _counts, False),
    "Multinomial": (_multinomial, _mcounts, False),
    "Kumaraswamy": (_two("Kumaraswamy", [0.5, 2.0, 7.5], [1.0, 0.3, 2.0]), _unit, True),
    "InverseGamma": (_two("InverseGamma", [0.5, 2.0, 7.5], [1.0, 0.3, 2.0]), _pos, False),
    "LogisticNormal": (_two("LogisticNormal", LOC, SCALE), _simplex2, False),
    "GeneralizedPareto": (_gpareto, _above_loc, True),
    "LKJCholesky": (_lkj, _corr_chol, False),
    "Wishart_cov": (_wishart("covariance_matrix"), _pd, False),
    "Wishart_precision": (_wishart("precision_matrix"), _pd, False),
    "Wishart_scale_tril": (_wishart("scale_tril"), _pd, False),
    "Normal": (_two("Normal", LOC, SCALE), _real, True),
    "Bernoulli_probs": (_kw("Bernoulli", "probs", [0.2, 0.5, 0.9]), _bits, False),
    "Bernoulli_logits": (_kw("Bernoulli", "logits", [-1.2, 0.0, 2.0]), _bits, False),
    "Categorical_probs": (_kw("Categorical", "probs", PROBS4), _index, False),
    "Categorical_logits": (_kw("Categorical", "logits", LOGITS4), _index, False),
    "OneHotCategorical": (_kw("OneHotCategorical", "probs", PROBS4), _onehot, False),
    "Uniform": (_two("Uniform", [-1.0, 0.0, 0.05], [1.0, 3.0, 4.5]), _unit, True),
    "Exponential": (_one("Exponential", [0.5, 1.0, 3.0]), _pos, True),
    "Laplace": (_two("Laplace", LOC, SCALE), _real, True),
    "Cauchy": (_two("Cauchy", LOC, SCALE), _real, True),
    "Gumbel": (_two("Gumbel", LOC, SCALE), _real, False),
    "LogNormal": (_two("LogNormal", LOC, SCALE), _pos, True),
    "HalfNormal": (_one("HalfNormal", SCALE), _pos, True),
    "HalfCauchy": (_one("HalfCauchy", SCALE), _pos, True),
    "Geometric_probs": (_kw("Geometric", "probs", [0.2, 0.5, 0.9]), _counts, False),
    "Geometric_logits": (_kw("Geometric", "logits", [-1.2, 0.0, 2.0]), _counts, False),
    "MVN_cov": (_mvn("covariance_matrix"), _real, False),
    "MVN_precision": (_mvn("precision_matrix"), _real, False),
    "MVN_scale_tril": (_mvn("scale_tril"), _real, False),
    "LowRankMVN": (_lowrank, _real, False),
    "ContinuousBernoulli": (_kw("ContinuousBernoulli", "probs", [0.2, 0.5, 0.9]), _unit, True),
    "ContinuousBernoulli_logits": (_kw("ContinuousBernoulli", "logits", [-1.2, 0.0, 2.0]), _unit,
                                   True),
    "VonMises": (_two("VonMises", LOC, [0.5, 2.0, 5.0]), _real, False),
    "Gamma": (_two("Gamma", [0.5, 2.0, 7.5], [1.0, 0.3, 2.0]), _pos, False),
    "Chi2": (_one("Chi2", [0.5, 3.0, 7.5]), _pos, False),
    "Beta": (_two("Beta", [0.5, 2.0, 7.5], [1.0, 0.3, 2.0]), _unit, False),
    "Dirichlet": (_one("Dirichlet", [[0.5, 2.0, 7.5, 1.0], [1.0, 0.3, 2.0, 4.0]]), _simplex2,
                  False),
    "StudentT": (_two("StudentT", [0.5, 2.0, 7.5], LOC), _real, False),
    "Poisson": (_one("Poisson", [0.5, 3.0, 17.5]), _counts, False),
    "Weibull": (_two("Weibull", [1.0, 2.0, 0.5], [0.7, 1.5, 3.0]), _pos, False),
    "FisherSnedecor": (_two("FisherSnedecor", [0.5, 3.0, 7.5], [1.0, 5.0, 12.0]), _pos, False),
    "NegativeBinomial": (_two("NegativeBinomial", [1.0, 3.0, 7.5], [0.2, 0.5, 0.9]), _counts,
                         False),
    "MixtureSameFamily": (_mixture, _mixed, False),
    "RelaxedBernoulli": (_relaxed("RelaxedBernoulli", "probs", [0.2, 0.5, 0.9]), _unit, False),
    "RelaxedOneHotCategorical": (_relaxed("RelaxedOneHotCategorical", "logits", LOGITS4),
                                 _simplex, False),
    "Pareto": (_two("Pareto", [1.0, 2.0, 0.5], [2.5, 3.0, 1.5]), _above2, False),
}
NO_ENTROPY = {"VonMises", "MixtureSameFamily", "RelaxedBernoulli", "RelaxedOneHotCategorical",
              "LogisticNormal", "LKJCholesky"}
# value tables given whole (their last dim is an event dim, not the batch)
WHOLE_VALUES = {"Categorical_probs", "Categorical_logits", "OneHotCategorical", "Multinomial",
                "LKJCholesky", "Wishart_cov", "Wishart_precision", "Wishart_scale_tril"}
# log_prob through a linear solve: glassgrad solves by LU where torch solves triangular
VIA_SOLVE = {"MVN_cov", "MVN_precision", "MVN_scale_tril", "LowRankMVN", "Wishart_cov",
             "Wishart_precision", "Wishart_scale_tril"}
CONTINUOUS_CDF = {"Kumaraswamy", "GeneralizedPareto", "Gamma", "Chi2", "ContinuousBernoulli", "ContinuousBernoulli_logits", "Normal", "Uniform", "Exponential", "Laplace", "Cauchy", "LogNormal",
                  "HalfNormal", "HalfCauchy", "Gumbel"}
DTYPES = ["float32", "float64"]


def _grads(out, params, lib):
    if not out.requires_grad:
        return None
    return lib.autograd.grad(out.sum(), params, allow_unused=True)


# samples that pass the stream's draws through log/exp/log1p: glassgrad's elementwise math
# (NumPy's) may differ from torch's vectorised kernels in the last bit, the draws do not
THROUGH_LIBM = {"Laplace", "Gumbel", "LogNormal", "Pareto", "RelaxedBernoulli",
                "RelaxedOneHotCategorical", "LowRankMVN", "MVN_cov", "ContinuousBernoulli",
                "ContinuousBernoulli_logits", "VonMises", "Gamma", "Chi2", "Beta", "Dirichlet",
                "StudentT", "Weibull", "FisherSnedecor", "MVN_precision", "MVN_scale_tril",
                "Kumaraswamy", "InverseGamma", "LogisticNormal", "GeneralizedPareto",
                "LKJCholesky", "Wishart_cov", "Wishart_precision", "Wishart_scale_tril"}
ULP = {"float32": (1e-6, 1e-7), "float64": (1e-14, 1e-15)}
# LKJCholesky's diagonal is sqrt(1 - sum of squares): the cancellation scales an ulp of the
# Beta draws (through libm) by up to 1/(1 - sum)
# by up to 1/(1 - sum); Wishart's are matrix products, summed in BLAS's order
SAMPLE_TOL = {"LKJCholesky": {"float32": (5e-5, 1e-6), "float64": (1e-12, 1e-14)},
              **dict.fromkeys(("Wishart_cov", "Wishart_precision", "Wishart_scale_tril"),
                              {"float32": (1e-5, 1e-6), "float64": (1e-13, 1e-14)})}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(DISTS))
def test_samples_are_torchs(name, dtype):
    make = DISTS[name][0]

    def program(lib):
        d, _ = make(lib, dtype)
        lib.manual_seed(7)
        out = [d.sample(), d.sample((4,)), d.sample((2, 3))]
        if d.has_rsample:
            out += [d.rsample((5,)).detach()]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            out.append(d.sample_n(2))
        return out
    same(program, SAMPLE_TOL.get(name, ULP if name in THROUGH_LIBM else EXACT))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(DISTS))
def test_log_prob_entropy_and_gradients(name, dtype):
    make, values, _ = DISTS[name]

    def program(lib):
        d, params = make(lib, dtype)
        v = values(lib, dtype)[..., :d.batch_shape[-1] if d.batch_shape else None]
        if name in WHOLE_VALUES:
            v = values(lib, dtype)
        out = {"log_prob": d.log_prob(v)}
        out["grad_log_prob"] = _grads(out["log_prob"], params, lib)
        if name not in NO_ENTROPY:
            out["entropy"] = d.entropy()
            out["grad_entropy"] = _grads(out["entropy"], params, lib)
            out["perplexity"] = d.perplexity()
        return out
    loose = name in VIA_SOLVE or name.startswith("Relaxed")
    same(program, {"float32": (2e-5, 2e-6) if loose else (1e-5, 1e-6),
                   "float64": (1e-10, 1e-11) if loose else (1e-12, 1e-13)})


@pytest.mark.parametrize("name", sorted(CONTINUOUS_CDF))
def test_cdf_icdf_and_gradients(name):
    make, values, has_icdf = DISTS[name]

    def program(lib):
        d, params = make(lib, "float64")
        out = {}
        x = values(lib, "float64")
        if name != "Gumbel":
            out["cdf"] = d.cdf(x)
            out["grad_cdf"] = _grads(out["cdf"], params, lib)
        if has_icdf:
            q = _unit(lib, "float64")
            out["icdf"] = d.icdf(q)
            out["grad_icdf"] = _grads(out["icdf"], params, lib)
        return out
    same(program, {"float64": (1e-12, 1e-13)})


@pytest.mark.parametrize("name", sorted(DISTS))
def test_moments_shapes_and_repr(name):
    make = DISTS[name][0]

    def attr(d, key):
        try:
            return getattr(d, key)
        except NotImplementedError as e:
            return ("NotImplementedError", str(e).replace("glassgrad", "torch"))

    def program(lib):
        d, _ = make(lib, "float64")
        e = d.expand((2,) + tuple(d.batch_shape))
        return {"mean": attr(d, "mean"), "mode": attr(d, "mode"),
                "variance": attr(d, "variance"), "stddev": attr(d, "stddev"),
                "batch": d.batch_shape, "event": d.event_shape, "has_rsample": d.has_rsample,
                "enum": d.has_enumerate_support, "repr": repr(d), "support": repr(d.support),
                "expanded": [e.batch_shape, e.event_shape, repr(e), type(e).__name__,
                             e.log_prob(d.sample()).shape,
                             None if name in NO_ENTROPY else e.entropy()],
                "args": sorted(d.arg_constraints), "arg_reprs":
                [repr(c) for c in d.arg_constraints.values()]}
    same(program, {"float64": (1e-12, 1e-13)})


@pytest.mark.parametrize("name", ["Bernoulli_probs", "Categorical_logits", "OneHotCategorical",
                                  "Binomial_probs"])
def test_enumerate_support(name):
    make = DISTS[name][0]
    same(lambda lib: [make(lib, "float32")[0].enumerate_support(),
                      make(lib, "float32")[0].enumerate_support(expand=False)])


def test_rsample_gradients_are_reparameterised():
    def program(lib):
        out = []
        for name in ("Normal", "Uniform", "Exponential", "Laplace", "Cauchy", "LogNormal",
                     "HalfNormal", "HalfCauchy", "Gamma", "Chi2", "StudentT",
                     "FisherSnedecor", "Beta", "Dirichlet", "Kumaraswamy", "InverseGamma",
                     "LogisticNormal", "GeneralizedPareto"):
            d, params = DISTS[name][0](lib, "float64")
            lib.manual_seed(3)
            out.append(lib.autograd.grad(d.rsample((4,)).pow(2).sum(), params))
        return out
    same(program, {"float64": (1e-12, 1e-13)})


def test_scalar_parameters():
    def program(lib):
        D = lib.distributions
        lib.manual_seed(1)
        ds = [D.Normal(0., 1.), D.Uniform(0., 2.), D.Exponential(2.), D.Laplace(1., 2.),
              D.Cauchy(0., 1.), D.Bernoulli(0.3), D.Geometric(0.4), D.Gumbel(1., 2.),
              D.LogNormal(0., 1.), D.HalfNormal(1.), D.HalfCauchy(1.)]
        return [[repr(d), d.batch_shape, d.sample(), d.sample((3,)), d.entropy()] for d in ds]
    same(program, EXACT)


# -- validation --------------------------------------------------------------------------------
BAD = [
    lambda D, lib: D.Normal(lib.tensor([0., 1.]), lib.tensor([1., -1.])),
    lambda D, lib: D.Normal(0., -1.),
    lambda D, lib: D.Bernoulli(probs=lib.tensor([0.5, 1.5])),
    lambda D, lib: D.Bernoulli(probs=0.5, logits=0.0),
    lambda D, lib: D.Bernoulli(),
    lambda D, lib: D.Categorical(probs=lib.tensor([0.5, -0.5])),
    lambda D, lib: D.Categorical(probs=lib.tensor(0.5)),
    lambda D, lib: D.Categorical(logits=lib.tensor(0.5)),
    lambda D, lib: D.Uniform(lib.tensor([0., 2.]), lib.tensor([1., 1.])),
    lambda D, lib: D.Exponential(lib.tensor([0., 1.])),
    lambda D, lib: D.Geometric(probs=lib.tensor([0.0, 0.5])),
    lambda D, lib: D.Normal(0., 1.).log_prob(1.0),
    lambda D, lib: D.Normal(lib.zeros(3), 1.).log_prob(lib.zeros(2)),
    lambda D, lib: D.Exponential(1.).log_prob(lib.tensor([-1.0, 2.0])),
    lambda D, lib: D.Bernoulli(0.3).log_prob(lib.tensor([0.5])),
    lambda D, lib: D.OneHotCategorical(lib.ones(3)).log_prob(lib.ones(3)),
    lambda D, lib: D.Categorical(lib.ones(3)).log_prob(lib.tensor([3])),
    lambda D, lib: D.Independent(D.Normal(lib.zeros(3), 1.), 2),
    lambda D, lib: D.Independent(D.Normal(lib.zeros(3, 2), 1.), 2).enumerate_support(),
    lambda D, lib: D.Normal(0., 1.).mode if False else D.Distribution().mean,
    lambda D, lib: D.TransformedDistribution(D.Normal(0., 1.), 3),
    lambda D, lib: D.TransformedDistribution(D.Normal(0., 1.), [3]),
    lambda D, lib: D.kl_divergence(D.Normal(0., 1.), D.Bernoulli(0.5)),
    lambda D, lib: D.transform_to(D.constraints.boolean),
    lambda D, lib: D.transforms.Transform(cache_size=2),
    lambda D, lib: D.transforms.ReshapeTransform((2, 3), (4,)),
    lambda D, lib: D.Distribution.set_default_validate_args(3),
    lambda D, lib: D.Binomial(10),
    lambda D, lib: D.Binomial(lib.tensor([3., 4.]), lib.tensor([0.5, 1.5])),
    lambda D, lib: D.Binomial(lib.tensor([3., 4.5]), lib.tensor([0.5, 0.5])),
    lambda D, lib: D.Binomial(lib.tensor([3., 4.]), lib.tensor([0.5, 0.5])).entropy(),
    lambda D, lib: D.Binomial(5, lib.tensor([0.5])).log_prob(lib.tensor([6.])),
    lambda D, lib: D.kl_divergence(D.Binomial(3, lib.tensor([0.5])),
                                   D.Binomial(5, lib.tensor([0.5]))),
    lambda D, lib: D.Multinomial(lib.tensor(3), lib.tensor([0.5, 0.5])),
    lambda D, lib: D.Multinomial(3, lib.tensor([0.5, -0.5])),
    lambda D, lib: D.Multinomial(3, lib.tensor([0.5, 0.5])).log_prob(lib.tensor([1., 3.])),
    lambda D, lib: D.LKJCholesky(1),
    lambda D, lib: D.LKJCholesky(3, -1.0),
    lambda D, lib: D.LKJCholesky(2).log_prob(lib.eye(2) * 2),
    lambda D, lib: D.Wishart(4.0, lib.eye(3), scale_tril=lib.eye(3)),
    lambda D, lib: D.Wishart(1.5, lib.eye(3)),
    lambda D, lib: D.Wishart(4.0, lib.ones(3)),
    lambda D, lib: D.Wishart(4.0, -lib.eye(3)),
    lambda D, lib: D.Kumaraswamy(lib.tensor([1.0, -1.0]), 1.0),
    lambda D, lib: D.InverseGamma(1.0, -2.0),
    lambda D, lib: D.InverseGamma(1.0, 2.0).log_prob(lib.tensor(-1.0)),
    lambda D, lib: D.LogisticNormal(lib.zeros(2), lib.zeros(2)),
    lambda D, lib: D.GeneralizedPareto(0.0, -1.0, 0.5),
    lambda D, lib: D.GeneralizedPareto(lib.zeros(1), lib.ones(1), -lib.ones(1)).log_prob(
        lib.tensor([2.0])),
]


@pytest.mark.parametrize("i", range(len(BAD)))
def test_errors_as_torchs(i):
    same_error(lambda lib: error(lambda: BAD[i](lib.distributions, lib)))


def test_validate_args_switches():
    def program(lib):
        D = lib.distributions
        out = [error(lambda: D.Normal(0., -1., validate_args=False)) is None,
               D.Normal(0., 1., validate_args=False).log_prob(lib.tensor(float("nan")))]
        D.Distribution.set_default_validate_args(False)
        try:
            out.append(error(lambda: D.Normal(0., -1.)) is None)
        finally:
            D.Distribution.set_default_validate_args(True)
        out.append(error(lambda: D.Normal(0., -1.)))
        return out
    same(program)


def test_sample_n_warns():
    for lib in (torch, gg):
        with pytest.warns(FutureWarning, match=r"`sample_n\(n\)` will be deprecated"):
            lib.distributions.Normal(0., 1.).sample_n(2)


# -- constraints, transforms, biject_to ----------------------------------------------------------
def test_constraints_check_and_repr():
    def program(lib):
        C = lib.distributions.constraints
        x = lib.tensor([[-1.0, 0.0, 0.5, 1.0, 2.0, float("nan")]])
        simplex = lib.tensor([[0.2, 0.8], [0.5, 0.6], [-0.1, 1.1]])
        m = lib.tensor([[[2.0, 0.0], [1.0, 3.0]], [[1.0, 2.0], [0.0, 1.0]],
                        [[1.0, 0.5], [0.5, 2.0]]])
        cs = [C.real, C.positive, C.nonnegative, C.unit_interval, C.boolean,
              C.nonnegative_integer, C.positive_integer, C.interval(-1, 1),
              C.half_open_interval(0, 1), C.greater_than(0.5), C.greater_than_eq(0.5),
              C.less_than(1.0), C.integer_interval(0, 1), C.real_vector,
              C.independent(C.positive, 1)]
        out = [[repr(c), c.check(x), c.event_dim, c.is_discrete] for c in cs]
        out += [[repr(c), c.check(simplex)] for c in (C.simplex, C.multinomial(1))]
        out += [[repr(c), c.check(m)] for c in (C.lower_triangular, C.lower_cholesky,
                                                C.symmetric, C.positive_definite, C.square,
                                                C.positive_semidefinite)]
        out.append([repr(C.one_hot), C.one_hot.check(lib.tensor([[0., 1.], [1., 1.]]))])
        out.append([repr(C.cat([C.positive, C.real], lengths=[1, 2])),
                    C.cat([C.positive, C.real], lengths=[1, 2]).check(
                        lib.tensor([-1.0, 2.0, 3.0]))])
        out.append(C.stack([C.positive, C.real], dim=-1).check(lib.tensor([[1.0, -2.0]])))
        out.append([C.is_dependent(C.dependent), repr(C.dependent),
                    error(lambda: C.dependent.check(x)), error(lambda: C.dependent.event_dim)])
        return out
    same(program, EXACT)


TRANSFORMS = [
    lambda T, lib: T.ExpTransform(),
    lambda T, lib: T.AffineTransform(0.5, -2.0),
    lambda T, lib: T.AffineTransform(lib.tensor([0.5, 1.0, 2.0], dtype=lib.float64),
                                     lib.tensor([1.5, -0.5, 2.0], dtype=lib.float64)),
    lambda T, lib: T.SigmoidTransform(),
    lambda T, lib: T.TanhTransform(),
    lambda T, lib: T.SoftplusTransform(),
    lambda T, lib: T.PowerTransform(lib.tensor(2.5, dtype=lib.float64)),
    lambda T, lib: T.ComposeTransform([T.ExpTransform(), T.AffineTransform(1.0, 3.0)]),
    lambda T, lib: T.ExpTransform().inv,
    lambda T, lib: T.SoftmaxTransform(),
    lambda T, lib: T.StickBreakingTransform(),
    lambda T, lib: T.IndependentTransform(T.ExpTransform(), 1),
    lambda T, lib: T.ReshapeTransform((3,), (3, 1)),
    lambda T, lib: T.AffineTransform(1.0, 2.0, event_dim=1),
    lambda T, lib: T.CorrCholeskyTransform(),
    lambda T, lib: T.CatTransform([T.ExpTransform(), T.AffineTransform(1.0, 2.0)], dim=1,
                                  lengths=[1, 2]),
    lambda T, lib: T.StackTransform([T.ExpTransform(), T.TanhTransform()], dim=0),
    lambda T, lib: T.CumulativeDistributionTransform(lib.distributions.Normal(0.5, 2.0)),
]


@pytest.mark.parametrize("i", range(len(TRANSFORMS)))
def test_transforms(i):
    def program(lib):
        t = TRANSFORMS[i](lib.distributions.transforms, lib)
        x = lib.tensor([[0.3, -1.2, 0.8], [1.5, 0.1, -0.4]], dtype=lib.float64,
                       requires_grad=True)
        if isinstance(t, (lib.distributions.transforms.PowerTransform,)):
            x = x.detach().abs().requires_grad_()
        y = t(x)
        out = {"y": y, "x_back": t.inv(y), "repr": repr(t), "domain": repr(t.domain),
               "codomain": repr(t.codomain), "bijective": t.bijective,
               "fshape": t.forward_shape(lib.Size([2, 3])),
               "ishape": error(lambda: t.inverse_shape(lib.Size([2, 3])))}
        if not isinstance(t, lib.distributions.transforms.SoftmaxTransform):
            ladj = t.log_abs_det_jacobian(x, y)
            out["ladj"] = ladj
            out["grad"] = lib.autograd.grad(ladj.sum() + y.sum(), x)
        return out
    same(program, {"float64": (1e-12, 1e-12)})


def test_transform_cache_and_equality():
    def program(lib):
        T = lib.distributions.transforms
        t = T.ExpTransform(cache_size=1)
        x = lib.tensor([1.0, 2.0])
        y = t(x)
        return [t.inv(y) is x, T.ExpTransform() == T.ExpTransform(),
                T.AffineTransform(1., 2.) == T.AffineTransform(1., 2.),
                T.AffineTransform(1., 2.) == T.AffineTransform(1., 3.),
                T.ExpTransform().inv == T.ExpTransform().inv, T.identity_transform(x),
                T.AffineTransform(1.0, -2.0).sign, T.ExpTransform().with_cache(1)._cache_size,
                error(lambda: T.AffineTransform(1., 2.).event_dim and T.Transform().sign)]
    same(program)


@pytest.mark.parametrize("which", ["biject_to", "transform_to"])
def test_biject_to_and_transform_to(which):
    def program(lib):
        D = lib.distributions
        C = D.constraints
        reg = getattr(D, which)
        x = lib.tensor([[0.3, -1.2, 0.8], [1.5, 0.1, -0.4]], dtype=lib.float64)
        cs = [C.real, C.positive, C.nonnegative, C.unit_interval, C.interval(-2.0, 3.0),
              C.greater_than(1.0), C.less_than(-1.0), C.simplex, C.real_vector,
              C.independent(C.positive, 1), C.half_open_interval(0., 2.),
              C.cat([C.positive, C.real, C.unit_interval], dim=1), C.stack([C.positive, C.real]),
              C.corr_cholesky]
        out = []
        for c in cs:
            t = reg(c)
            y = t(x if c is not C.corr_cholesky else x[0])
            out.append([repr(t), y, c.check(y)])
        return out
    same(program, {"float64": (1e-12, 1e-12)})


# -- composite distributions -------------------------------------------------------------------
def test_independent():
    def program(lib):
        D = lib.distributions
        loc = lib.tensor([[0.0, 1.0, 2.0], [1.0, -1.0, 0.5]], requires_grad=True)
        d = D.Independent(D.Normal(loc, 1.5), 1)
        lib.manual_seed(0)
        s = d.sample((2,))
        lp = d.log_prob(s)
        e = d.expand((4, 2))
        return [repr(d), d.batch_shape, d.event_shape, s, lp, lib.autograd.grad(lp.sum(), loc),
                d.entropy(), d.mean, d.variance, repr(d.support), e.batch_shape,
                e.log_prob(s).shape, d.has_rsample, d.has_enumerate_support]
    same(program, {"float32": (1e-6, 1e-6)})


def test_transformed_distribution():
    def program(lib):
        D = lib.distributions
        T = D.transforms
        loc = lib.tensor([0.0, 1.0, -0.5], requires_grad=True)
        base = D.Normal(loc, lib.tensor([1.0, 0.5, 2.0]))
        ts = [T.AffineTransform(1.0, 2.0), T.SigmoidTransform()]
        d = D.TransformedDistribution(base, ts)
        lib.manual_seed(2)
        s = d.rsample((3,))
        lp = d.log_prob(s)
        sb = D.TransformedDistribution(D.Normal(lib.zeros(2, 3), 1.), T.StickBreakingTransform())
        lib.manual_seed(2)
        v = sb.sample()
        return [d.batch_shape, d.event_shape, s, lp, lib.autograd.grad(lp.sum(), loc),
                d.cdf(lib.tensor([0.6, 0.7, 0.9])), d.icdf(lib.tensor([0.1, 0.5, 0.8])),
                repr(d.support), sb.batch_shape, sb.event_shape, v, sb.log_prob(v),
                d.expand((2, 3)).batch_shape, repr(sb.support)]
    same(program, {"float32": (2e-6, 1e-6)})


# -- kl_divergence ----------------------------------------------------------------------------
KL_PAIRS = [("Normal", "Normal"), ("Bernoulli_probs", "Bernoulli_logits"),
            ("Categorical_probs", "Categorical_logits"), ("OneHotCategorical", "OneHotCategorical"),
            ("Uniform", "Uniform"), ("Exponential", "Exponential"), ("Laplace", "Laplace"),
            ("Cauchy", "Cauchy"), ("Geometric_probs", "Geometric_logits"),
            ("HalfNormal", "HalfNormal"), ("LogNormal", "LogNormal"),
            ("Normal", "Laplace"), ("Normal", "Gumbel"), ("Laplace", "Normal"),
            ("Exponential", "Normal"), ("Exponential", "Gumbel"), ("Gumbel", "Normal"),
            ("Uniform", "Normal"), ("Uniform", "Gumbel"), ("Uniform", "Exponential"),
            ("Normal", "Uniform"), ("Gumbel", "Uniform"), ("Laplace", "Exponential"),
            ("Normal", "Exponential"), ("Exponential", "Uniform"), ("Pareto", "Pareto"),
            ("MVN_cov", "MVN_scale_tril"), ("MVN_precision", "MVN_cov"), ("Normal", "Pareto"),
            ("Pareto", "Normal"), ("Pareto", "Exponential"), ("Uniform", "Pareto"),
            ("Pareto", "Uniform"), ("Laplace", "Pareto"), ("Gumbel", "Pareto"),
            ("ContinuousBernoulli", "ContinuousBernoulli_logits"),
            ("Gamma", "Gamma"), ("Beta", "Beta"), ("Dirichlet", "Dirichlet"),
            ("Poisson", "Poisson"), ("Gumbel", "Gumbel"), ("Chi2", "Gamma"),
            ("Exponential", "Gamma"), ("Gamma", "Exponential"), ("Gamma", "Normal"),
            ("Gamma", "Gumbel"), ("Uniform", "Gamma"), ("Normal", "Gamma"), ("Gamma", "Uniform"),
            ("Beta", "Normal"), ("Beta", "Exponential"), ("Beta", "Gamma"), ("Beta", "Uniform"),
            ("Beta", "ContinuousBernoulli"), ("Uniform", "Beta"), ("Bernoulli_probs", "Poisson"),
            ("Pareto", "Gamma"), ("Poisson", "Bernoulli_probs"),
            ("ContinuousBernoulli", "Normal"), ("ContinuousBernoulli", "Exponential"),
            ("ContinuousBernoulli", "Uniform"), ("ContinuousBernoulli", "Pareto"),
            ("Uniform", "ContinuousBernoulli"), ("Normal", "ContinuousBernoulli"),
            ("Exponential", "ContinuousBernoulli"), ("Pareto", "ContinuousBernoulli"),
            ("LowRankMVN", "LowRankMVN"), ("MVN_cov", "LowRankMVN"), ("LowRankMVN", "MVN_cov"),
            ("Binomial_probs", "Binomial_logits"), ("Poisson", "Binomial_probs")]


@pytest.mark.parametrize("pair", KL_PAIRS, ids="-".join)
def test_kl_divergence(pair):
    def program(lib):
        p, pp = DISTS[pair[0]][0](lib, "float64")
        q, qp = DISTS[pair[1]][0](lib, "float64")
        if pair[1] == "Uniform" and pair[0] == "Uniform":
            q = lib.distributions.Uniform(q.low - 1, q.high + 1)
        kl = lib.distributions.kl_divergence(p, q)
        return [kl, lib.autograd.grad(kl.sum(), pp + qp, allow_unused=True)
                if kl.requires_grad else None]
    same(program, {"float64": (1e-10, 1e-12)})


def test_register_kl_and_dispatch():
    def program(lib):
        D = lib.distributions

        class MyNormal(D.Normal):
            pass

        @D.register_kl(MyNormal, D.Normal)
        def _kl(p, q):
            return lib.tensor(42.0)

        return [D.kl_divergence(MyNormal(0., 1.), D.Normal(0., 2.)),
                D.kl_divergence(D.Normal(0., 1.), MyNormal(0., 2.)),
                D.kl_divergence(D.Independent(D.Normal(lib.zeros(3), 1.), 1),
                                D.Independent(D.Normal(lib.ones(3), 2.), 1))]
    same(program)


def test_expfamily_entropy_by_bregman():
    def program(lib):
        D = lib.distributions
        out = []
        for d in (D.Normal(lib.tensor([0.5, 1.0]), lib.tensor([1.5, 0.2])),
                  D.Exponential(lib.tensor([0.5, 3.0])), D.Bernoulli(lib.tensor([0.3, 0.8]))):
            out.append(D.ExponentialFamily.entropy(d))
        return out
    same(program, {"float32": (1e-5, 1e-6)})


def test_namespace():
    import torch.distributions as td
    names = {n for n in dir(gg.distributions) if not n.startswith("_")}
    for n in ("Normal", "Bernoulli", "kl_divergence", "register_kl", "biject_to",
              "transform_to", "constraints", "transforms", "Distribution",
              "TransformedDistribution", "ExpTransform", "AffineTransform"):
        assert n in names and hasattr(td, n)
    assert gg.distributions.Normal.__name__ == td.Normal.__name__
    assert norm(gg.distributions.utils.probs_to_logits(gg.tensor([0.0, 0.5]))) is not None


# -- the gamma and Dirichlet samplers (ATen's CPU Marsaglia-Tsang on torch's stream) ------------
@pytest.mark.parametrize("dtype", DTYPES)
def test_standard_gamma_and_dirichlet_samples_are_torchs(dtype):
    def program(lib):
        dt = getattr(lib, dtype)
        alpha = lib.tensor([0.3, 1.0, 2.5, 0.0, 7.0, 0.05, 100.0, 1e-3] * 8, dtype=dt)
        lib.manual_seed(11)
        out = [lib._standard_gamma(alpha), lib.randn(3, dtype=dt),     # the cached normal
               lib._standard_gamma(alpha[:3].reshape(3, 1)),
               lib._sample_dirichlet(alpha.reshape(-1, 4) + 0.1), lib.rand(2, dtype=dt)]
        g = lib.Generator().manual_seed(5)
        out.append(lib._standard_gamma(alpha[:5] + 0.5, generator=g))
        out.append(error(lambda: lib._standard_gamma(lib.tensor([1, 2]))))
        out.append(error(lambda: lib._sample_dirichlet(lib.tensor([1, 2]))))
        return out
    same(program, EXACT)


@pytest.mark.parametrize("dtype", DTYPES)
def test_dirichlet_grad(dtype):
    def program(lib):
        dt = getattr(lib, dtype)
        lib.manual_seed(2)
        alpha = lib.rand(60, 4, dtype=dt) * 12 + 0.05
        alpha[:10] = alpha[:10] * 0.02 + 0.01          # the small-x series
        alpha[10:20, 0] = 40.0                          # near 1: the other series
        alpha[20:30] = alpha[20:30] + 8                 # both large: the saddle point
        x = lib._sample_dirichlet(alpha)
        total = alpha.sum(-1, True).expand_as(alpha)
        out = lib._dirichlet_grad(x, alpha, total)
        a = alpha.clone().requires_grad_()
        g = lib._dirichlet_grad(x, a, total)
        return [out, type(g.grad_fn).__name__, error(lambda: g.sum().backward()),
                error(lambda: lib._dirichlet_grad(x.long(), alpha, total)),
                error(lambda: lib._dirichlet_grad(x, alpha.long(), total)),
                error(lambda: lib._dirichlet_grad(x.long(), alpha.long(), total.long())),
                error(lambda: lib._standard_gamma_grad(x, alpha.double() if dtype == "float32"
                                                       else alpha.float()))]
    same(program, {"float64": (0, 0), "float32": (4e-7, 1e-12)})


def test_sampler_gradients():
    def program(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        s = lib._sample_dirichlet(a)
        out = [type(s.grad_fn).__name__, error(lambda: s.sum().backward())]
        for dt in (lib.float32, lib.float64):
            lib.manual_seed(4)
            alpha = lib.tensor([0.05, 0.5, 1.0, 2.5, 7.0, 9.0, 30.0, 100.0] * 4, dtype=dt,
                               requires_grad=True)
            x = lib._standard_gamma(alpha)
            out += [type(x.grad_fn).__name__, lib.autograd.grad(x.sum(), alpha)]
            g = lib._standard_gamma_grad(alpha, x)
            out += [g, type(g.grad_fn).__name__, error(lambda: g.sum().backward())]
        return out
    same(program, EXACT)


def test_doc_example_prints_what_torch_prints():
    import contextlib
    import io
    import pathlib
    import re
    doc = pathlib.Path(__file__).parent.parent / "docs" / "distributions.md"
    (code,) = re.findall(r"```python\n(.*?)```", doc.read_text(), re.S)

    def printed(src):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(src, "distributions.md", "exec"), {"__name__": "doc_block"})
        return out.getvalue()
    mine = printed(code)
    theirs = printed(code.replace("import glassgrad as torch", "import torch").replace(
        "from glassgrad.distributions", "from torch.distributions"))
    assert "Independent(Normal(" in mine and mine == theirs, f"{mine}\n---\n{theirs}"


@pytest.mark.parametrize("name", ["MVN_cov", "MVN_precision", "MVN_scale_tril", "LowRankMVN"])
def test_gaussian_matrices(name):
    def program(lib):
        d, params = DISTS[name][0](lib, "float64")
        mats = [d.covariance_matrix, d.precision_matrix, d.scale_tril]
        e = d.expand((2,))
        return mats + [lib.autograd.grad(sum(m.sum() for m in mats), params),
                       e.covariance_matrix.shape, e.precision_matrix.shape, e.variance]
    same(program, {"float64": (1e-10, 1e-12)})


def test_binomial_sampler():
    def program(lib):
        out = []
        for dt in (lib.float32, lib.float64):
            lib.manual_seed(3)
            c = lib.tensor([0., 1., 5., 20., 100., 1000., 37., 50., 3., 1e4, 7., 12.],
                           dtype=dt).repeat(15)
            p = lib.tensor([0.3, 0.7, 0.5, 0.5, 0.2, 0.9, 0.05, 0.99, 1.0, 0.001, 0.0, 0.45],
                           dtype=dt).repeat(15)
            out += [lib.binomial(c, p), lib.binomial(c[:5, None], p[:5]), lib.rand(3, dtype=dt)]
            g = lib.Generator().manual_seed(9)
            out.append(lib.binomial(c[:12], p[:12], generator=g))
        q = lib.tensor([0.3, 0.6], requires_grad=True)
        r = lib.binomial(lib.tensor([4., 9.]), q)
        out += [r.requires_grad, type(r.grad_fn).__name__, error(lambda: r.sum().backward()),
                error(lambda: lib.binomial(lib.tensor([1, 2]), lib.tensor([0.5, 0.5]))),
                error(lambda: lib.binomial(lib.tensor([1., 2.]),
                                           lib.tensor([0.5, 0.5], dtype=lib.float64))),
                error(lambda: lib.binomial(lib.tensor([1., 2.]), lib.tensor([0.5, 0.5, 0.2])))]
        return out
    same(program, EXACT)


def test_class_level_facts():
    def program(lib):
        D = lib.distributions
        C = D.constraints
        out = []
        for name in ("Normal", "Uniform", "Categorical", "Independent", "Bernoulli", "Gumbel",
                     "LogNormal", "MultivariateNormal", "Pareto", "TransformedDistribution",
                     "Binomial", "Multinomial", "Kumaraswamy", "InverseGamma", "LogisticNormal",
                     "GeneralizedPareto", "LKJCholesky", "Wishart"):
            cls = getattr(D, name)
            support = cls.support
            flags = [f if isinstance(f, bool) else type(f).__name__
                     for f in (cls.has_rsample, cls.has_enumerate_support)]
            out.append([name, flags, C.is_dependent(support),
                        None if C.is_dependent(support) else repr(support)])
        return out
    same(program)
