"""torch.nn.utils against torch: gradient clipping, parameters as a vector, weight and spectral
normalisation (hook-based and parametrizations), register_parametrization, functional_call
(nn.utils.stateless and torch.func), conv/linear-batchnorm fusion and skip_init. Each program
runs in both libraries from the same seed (spectral norm's u and v are drawn from torch's
stream) and returns values, gradients, grad_fn names, reprs, state dicts, warnings and errors."""
import warnings

import numpy as np
import pytest
import torch

import glassgrad as gg
from differential import assert_same, norm
from test_nn_layers import err, same_stream

TOL = {"float32": (1e-5, 1e-6), "float64": (1e-10, 1e-12)}


def compare(program):
    def run(t):
        t.manual_seed(0)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = program(t)
        return out, [(c.category.__name__, str(c.message)) for c in caught
                     if "torch" in str(c.message) or c.category is FutureWarning]
    assert_same(norm(run(torch)), norm(run(gg)), tol=TOL)


def _x(t, *shape, seed=0):
    return t.tensor(np.random.default_rng(seed).standard_normal(shape).astype("float32"))


def _with_grads(t, seed=0):
    """A Linear with gradients from one backward."""
    m = t.nn.Linear(3, 4)
    m(_x(t, 5, 3, seed=seed)).pow(2).sum().backward()
    return m


def _grads(m):
    return [p.grad for p in m.parameters()]


# -- clipping ------------------------------------------------------------------------------
CLIP = {
    f"clip_grad_norm_-{p}": (lambda p: lambda t: (lambda m: (
        t.nn.utils.clip_grad_norm_(m.parameters(), 0.5, p), _grads(m)))(_with_grads(t)))(p)
    for p in (2.0, 1, float("inf"), 0.5, 3)
}
CLIP.update({
    "clip_grad_norm_-large": lambda t: (lambda m: (t.nn.utils.clip_grad_norm_(
        m.parameters(), 100.0), _grads(m)))(_with_grads(t)),
    "clip_grad_norm_-tensor": lambda t: (lambda m: (t.nn.utils.clip_grad_norm_(
        m.weight, 0.1, foreach=True), _grads(m)))(_with_grads(t)),
    "clip_grad_norm_-foreach-false": lambda t: (lambda m: (t.nn.utils.clip_grad_norm_(
        m.parameters(), 0.1, foreach=False), _grads(m)))(_with_grads(t)),
    "clip_grad_norm_-no-grads": lambda t: t.nn.utils.clip_grad_norm_(
        t.nn.Linear(2, 2).parameters(), 1.0),
    "clip_grad_norm_-empty-generator": lambda t: t.nn.utils.clip_grad_norm_(
        (p for p in []), 1.0),
    "clip_grad_norm_-nonfinite": lambda t: (lambda m: (m.weight.grad.fill_(float("inf")), err(
        t.nn.utils.clip_grad_norm_, m.parameters(), 1.0, 2.0, True)))(_with_grads(t)),
    "clip_grad_norm_-nonfinite-allowed": lambda t: (lambda m: (m.bias.grad.fill_(float("nan")),
        t.nn.utils.clip_grad_norm_(m.parameters(), 1.0), _grads(m)))(_with_grads(t)),
    "clip_grad_norm-deprecated": lambda t: (lambda m: (t.nn.utils.clip_grad_norm(
        m.parameters(), 0.3), _grads(m)))(_with_grads(t)),
    "clip_grad_value_": lambda t: (lambda m: (t.nn.utils.clip_grad_value_(
        m.parameters(), 0.4), _grads(m)))(_with_grads(t)),
    "clip_grad_value_-tensor": lambda t: (lambda m: (t.nn.utils.clip_grad_value_(
        m.bias, 1), _grads(m)))(_with_grads(t)),
    "get_total_norm": lambda t: (lambda m: [t.nn.utils.get_total_norm(_grads(m), p)
                                            for p in (2, 1, float("inf"), 4.0)])(_with_grads(t)),
    "get_total_norm-mixed-dtypes": lambda t: t.nn.utils.get_total_norm(
        [_x(t, 3), _x(t, 2, 2, seed=1).double(), _x(t, 4, seed=2)]),
    "get_total_norm-empty": lambda t: t.nn.utils.get_total_norm([]),
    "clip_grads_with_norm_": lambda t: (lambda m: (t.nn.utils.clip_grads_with_norm_(
        m.parameters(), 1.0, t.tensor(4.0)), _grads(m)))(_with_grads(t)),
})


@pytest.mark.parametrize("name", CLIP)
def test_clip(name):
    compare(CLIP[name])


# -- parameters as one vector ------------------------------------------------------------------
def _vector_roundtrip(t):
    m = t.nn.Linear(3, 2)
    vec = t.nn.utils.parameters_to_vector(m.parameters())
    t.nn.utils.vector_to_parameters(vec * 2, m.parameters())
    return vec, dict(m.state_dict()), type(m.weight).__name__, \
        err(t.nn.utils.vector_to_parameters, [1.0], m.parameters()), \
        err(t.nn.utils.vector_to_parameters, np.ones(3), m.parameters())


def test_parameters_to_vector():
    compare(_vector_roundtrip)


def test_parameters_to_vector_grad():
    def program(t):
        m = t.nn.Linear(3, 2)
        vec = t.nn.utils.parameters_to_vector(m.parameters())
        (vec * t.arange(8.0)).sum().backward()
        return vec, type(vec.grad_fn).__name__, _grads(m)
    compare(program)


# -- weight norm -----------------------------------------------------------------------------
def _weight_norm_program(dim, conv=False):
    def program(t):
        m = t.nn.Conv1d(2, 3, 2) if conv else t.nn.Linear(3, 4)
        t.nn.utils.weight_norm(m, dim=dim)
        inp = _x(t, 2, 2, 4) if conv else _x(t, 2, 3)
        out = m(inp)
        out.pow(2).sum().backward()
        state = dict(m.state_dict())
        grads = {k: p.grad for k, p in m.named_parameters()}
        again = err(t.nn.utils.weight_norm, m, dim=dim)
        t.nn.utils.remove_weight_norm(m)
        return (out, type(m.weight.grad_fn).__name__ if m.weight.grad_fn else None, state,
                grads, again, dict(m.state_dict()), type(m.weight).__name__,
                err(t.nn.utils.remove_weight_norm, m), repr(m))
    return program


@pytest.mark.parametrize("dim,conv", [(0, False), (1, False), (None, False), (0, True),
                                      (2, True), (1, True)])
def test_weight_norm(dim, conv):
    compare(_weight_norm_program(dim, conv))


# -- spectral norm (hook-based) ----------------------------------------------------------------
def _spectral_program(make, inp, dim=None, n=1):
    def program(t):
        m = t.nn.utils.spectral_norm(make(t), n_power_iterations=n, dim=dim)
        outs = [m(inp(t)) for _ in range(2)]
        outs[-1].sum().backward()
        m.eval()
        outs.append(m(inp(t)))
        state = m.state_dict()
        meta = dict(state._metadata[""])
        grads = {k: p.grad for k, p in m.named_parameters()}
        again = err(t.nn.utils.spectral_norm, m)
        t.nn.utils.remove_spectral_norm(m)
        return (outs, state, meta, grads, again, dict(m.state_dict()), repr(m),
                err(t.nn.utils.remove_spectral_norm, m), t.rand(2))
    return program


SPECTRAL = {
    "linear": _spectral_program(lambda t: t.nn.Linear(3, 4), lambda t: _x(t, 2, 3)),
    "linear-3-iterations": _spectral_program(lambda t: t.nn.Linear(4, 3),
                                             lambda t: _x(t, 2, 4), n=3),
    "conv-dim1": _spectral_program(lambda t: t.nn.Conv2d(2, 3, 2),
                                   lambda t: _x(t, 1, 2, 3, 3), dim=1),
}


@same_stream
@pytest.mark.parametrize("name", SPECTRAL)
def test_spectral_norm(name):
    compare(SPECTRAL[name])


def test_spectral_norm_errors():
    compare(lambda t: [err(t.nn.utils.spectral_norm, t.nn.Linear(2, 2), n_power_iterations=0),
                       err(t.nn.utils.spectral_norm, t.nn.Linear(2, 2, bias=False), "bias")])


@same_stream
def test_spectral_norm_loads_its_state():
    def program(t):
        a = t.nn.utils.spectral_norm(t.nn.Linear(3, 3))
        a(_x(t, 1, 3))
        b = t.nn.utils.spectral_norm(t.nn.Linear(3, 3))
        b.load_state_dict(a.state_dict())
        return b(_x(t, 1, 3)), dict(b.state_dict())
    compare(program)


# -- parametrize ------------------------------------------------------------------------------
def _symmetric(t):
    class Symmetric(t.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

        def right_inverse(self, A):
            return A.triu()
    return Symmetric()


def _scale(t, k=2.0):
    class Scale(t.nn.Module):
        def forward(self, X):
            return X * k
    return Scale()


def _parametrize_program(t):
    P = t.nn.utils.parametrize
    m = t.nn.Linear(3, 3)
    P.register_parametrization(m, "weight", _symmetric(t))
    first = (type(m).__name__, repr(m), P.is_parametrized(m), P.is_parametrized(m, "weight"),
             P.is_parametrized(m, "bias"), sorted(m.state_dict()), m.weight,
             P.type_before_parametrizations(m).__name__)
    m.weight = t.eye(3) * 4
    assigned = (m.weight, m.parametrizations.weight.original)
    P.register_parametrization(m, "weight", _scale(t))
    out = m(_x(t, 2, 3))
    out.sum().backward()
    grad = m.parametrizations.weight.original.grad
    with P.cached():
        cached = m.weight is m.weight
    uncached = m.weight is m.weight
    no_inverse = err(setattr, m, "weight", t.eye(3))
    P.register_parametrization(m, "bias", _scale(t, 3.0))
    P.remove_parametrizations(m, "weight")
    after_one = (type(m).__name__, sorted(m.state_dict()), repr(m))
    P.remove_parametrizations(m, "bias", leave_parametrized=False)
    return (first, out, type(out.grad_fn).__name__, grad, cached, uncached, assigned, no_inverse,
            after_one, type(m).__name__, dict(m.state_dict()), P.is_parametrized(m))


def test_register_parametrization():
    compare(_parametrize_program)


def _changes_shape(t):
    class Row(t.nn.Module):
        def forward(self, X):
            return X[0]
    return Row()


def test_parametrize_errors():
    def program(t):
        P = t.nn.utils.parametrize
        m = t.nn.Linear(3, 3)
        no_inverse = P.register_parametrization(t.nn.Linear(2, 2), "weight", _scale(t))
        return [err(P.register_parametrization, m, "weight", _changes_shape(t)),
                err(P.register_parametrization, m, "missing", _scale(t)),
                err(P.remove_parametrizations, m, "weight"),
                type(P.register_parametrization(t.nn.Linear(3, 3), "weight", _changes_shape(t),
                                                unsafe=True).weight).__name__,
                err(setattr, no_inverse, "weight", t.ones(2, 2))]
    compare(program)


# -- parametrizations ------------------------------------------------------------------------
def _parametrized_norm_program(kind, **kw):
    def program(t):
        m = getattr(t.nn.utils.parametrizations, kind)(t.nn.Linear(3, 4), **kw)
        outs = [m(_x(t, 2, 3)) for _ in range(2)]
        outs[-1].pow(2).sum().backward()
        grads = {k: p.grad for k, p in m.named_parameters()}
        m.eval()
        outs.append(m(_x(t, 2, 3)))
        state = dict(m.state_dict())
        t.nn.utils.parametrize.remove_parametrizations(m, "weight")
        return (outs, type(outs[0].grad_fn).__name__, repr(m), grads, state,
                type(m).__name__, dict(m.state_dict()), t.rand(2))
    return program


PARAMETRIZED = {
    "weight_norm": _parametrized_norm_program("weight_norm"),
    "weight_norm-dim1": _parametrized_norm_program("weight_norm", dim=1),
    "weight_norm-dimNone": _parametrized_norm_program("weight_norm", dim=None),
    "spectral_norm": _parametrized_norm_program("spectral_norm"),
    "spectral_norm-dim1": _parametrized_norm_program("spectral_norm", dim=1,
                                                      n_power_iterations=2),
}


@same_stream
@pytest.mark.parametrize("name", PARAMETRIZED)
def test_parametrizations(name):
    compare(PARAMETRIZED[name])


def test_parametrized_repr_and_weight_norm_compat():
    def program(t):
        m = t.nn.utils.parametrizations.weight_norm(t.nn.Linear(3, 4))
        old = t.nn.utils.weight_norm(t.nn.Linear(3, 4))
        m.load_state_dict(old.state_dict())
        return repr(m), dict(m.state_dict()), m.weight
    compare(program)


# -- functional_call -----------------------------------------------------------------------------
def _tied(t):
    m = t.nn.Sequential(t.nn.Linear(2, 2), t.nn.Linear(2, 2))
    m[1].weight = m[0].weight
    return m


FUNCTIONAL = {
    "func": lambda t: (lambda m: (t.func.functional_call(m, {"weight": t.ones(3, 2)},
                                                         (_x(t, 1, 2),)), m.weight))(
        t.nn.Linear(2, 3)),
    "func-single-arg-kwargs": lambda t: t.func.functional_call(
        t.nn.Linear(2, 3), {"bias": t.zeros(3)}, _x(t, 1, 2), {}),
    "func-dicts": lambda t: t.func.functional_call(
        t.nn.Linear(2, 3), ({"weight": t.ones(3, 2)}, {"bias": t.ones(3)}), (_x(t, 1, 2),)),
    "func-repeated": lambda t: err(t.func.functional_call, t.nn.Linear(2, 3),
                                   ({"bias": t.ones(3)}, {"bias": t.ones(3)}), (_x(t, 1, 2),)),
    "func-not-dicts": lambda t: [err(t.func.functional_call, t.nn.Linear(2, 3), [1],
                                     (_x(t, 1, 2),)),
                                 err(t.func.functional_call, t.nn.Linear(2, 3), 5,
                                     (_x(t, 1, 2),))],
    "func-strict": lambda t: err(t.func.functional_call, t.nn.Linear(2, 3),
                                 {"weight": t.ones(3, 2), "extra": t.ones(1)}, (_x(t, 1, 2),),
                                 strict=True),
    "func-buffer": lambda t: (lambda m: (t.func.functional_call(
        m, {"running_mean": t.ones(2)}, (_x(t, 3, 2),)), m.running_mean))(
        t.nn.BatchNorm1d(2).eval()),
    "func-tied": lambda t: (lambda m: t.func.functional_call(
        m, {"0.weight": t.eye(2) * 2}, (_x(t, 1, 2),)))(_tied(t)),
    "func-untied": lambda t: (lambda m: t.func.functional_call(
        m, {"0.weight": t.eye(2) * 2}, (_x(t, 1, 2),), tie_weights=False))(_tied(t)),
    "func-tied-conflict": lambda t: err(t.func.functional_call, _tied(t),
                                        {"0.weight": t.eye(2), "1.weight": t.ones(2, 2)},
                                        (_x(t, 1, 2),)),
    "func-grad": lambda t: (lambda w: (lambda out: (out, t.autograd.grad(out.sum(), w)))(
        t.func.functional_call(t.nn.Linear(2, 3), {"weight": w}, (_x(t, 4, 2),))))(
        t.ones(3, 2, requires_grad=True)),
    "stateless-deprecated": lambda t: t.nn.utils.stateless.functional_call(
        t.nn.Linear(2, 3), {"weight": t.ones(3, 2)}, (_x(t, 1, 2),)),
}


@pytest.mark.parametrize("name", FUNCTIONAL)
def test_functional_call(name):
    compare(FUNCTIONAL[name])


# -- fusion and skip_init ----------------------------------------------------------------------
def _trained_bn(t, n, d=1):
    bn = t.nn.BatchNorm1d(n) if d == 1 else t.nn.BatchNorm2d(n)
    bn(_x(t, 4, n) if d == 1 else _x(t, 2, n, 3, 3))
    bn.weight.data.mul_(1.5)
    return bn.eval()


FUSION = {
    "conv": lambda t: (lambda c, bn: (lambda f: (f(_x(t, 1, 2, 4, 4)), c.eval()(bn)
                                                 if False else bn(c(_x(t, 1, 2, 4, 4))),
                                                 dict(f.state_dict()), repr(f)))(
        t.nn.utils.fuse_conv_bn_eval(c, bn)))(t.nn.Conv2d(2, 3, 2).eval(), _trained_bn(t, 3, 2)),
    "conv-no-bias": lambda t: t.nn.utils.fuse_conv_bn_weights(
        _x(t, 3, 2, 2, 2), None, _x(t, 3, seed=1), _x(t, 3, seed=2).abs(), 1e-5, None, None),
    "conv-transpose-weights": lambda t: t.nn.utils.fuse_conv_bn_weights(
        _x(t, 2, 3, 2), _x(t, 3, seed=3), _x(t, 3, seed=1), _x(t, 3, seed=2).abs(), 1e-3,
        _x(t, 3, seed=4), _x(t, 3, seed=5), transpose=True),
    "linear": lambda t: (lambda lin, bn: (lambda f: (f(_x(t, 4, 3)), bn(lin(_x(t, 4, 3))),
                                                     dict(f.state_dict())))(
        t.nn.utils.fuse_linear_bn_eval(lin, bn)))(t.nn.Linear(3, 2).eval(), _trained_bn(t, 2)),
    "linear-weights-no-bias": lambda t: t.nn.utils.fuse_linear_bn_weights(
        _x(t, 2, 3), None, _x(t, 2, seed=1), _x(t, 2, seed=2).abs(), 1e-5, _x(t, 2, seed=3),
        _x(t, 2, seed=4)),
    "errors": lambda t: [
        err(t.nn.utils.fuse_conv_bn_eval, t.nn.Conv2d(2, 3, 2), t.nn.BatchNorm2d(3)),
        err(t.nn.utils.fuse_linear_bn_eval, t.nn.Linear(3, 2).eval(),
            t.nn.BatchNorm1d(3).eval()),
        err(t.nn.utils.fuse_linear_bn_eval, t.nn.Linear(3, 2).eval(),
            t.nn.BatchNorm1d(2, track_running_stats=False).eval())],
}


@pytest.mark.parametrize("name", FUSION)
def test_fusion(name):
    compare(FUSION[name])


@same_stream
def test_skip_init_draws_nothing():
    def program(t):
        m = t.nn.utils.skip_init(t.nn.Linear, 3, 4)
        return (repr(m), [tuple(p.shape) for p in m.parameters()], t.rand(3),
                err(t.nn.utils.skip_init, int), err(t.nn.utils.skip_init, t.nn.ReLU))
    compare(program)
