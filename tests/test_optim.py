"""torch.optim against PyTorch 2.13: trajectories, state, state dicts (through files), hooks,
errors and reprs. Every test runs the same program in torch and in glassgrad."""
import copy
import importlib
import warnings

import numpy as np
import pytest
import torch

import glassgrad as gg

LIBS = (torch, gg)


def optimizer_module(lib):
    """torch.optim.optimizer (a module torch.optim does not keep as an attribute)."""
    return importlib.import_module(lib.__name__ + ".optim.optimizer")


# ---- the problem: three parameters, a non-quadratic loss made of elementwise ops only, so
# both libraries compute bit-identical gradients from bit-identical parameters
def problem(lib, dtype="float32", seed=0, sign=1.0):
    rng = np.random.default_rng(seed)
    shapes = [(3, 4), (4,), (2, 3)]
    params = [lib.tensor(rng.standard_normal(s), dtype=getattr(lib, dtype), requires_grad=True)
              for s in shapes]
    targets = [lib.tensor(rng.standard_normal(s), dtype=getattr(lib, dtype)) for s in shapes]

    def loss_fn():
        total = 0
        for p, t in zip(params, targets):
            d = p - t
            total = total + (d * d * 0.5 + 0.1 * p * p * p * p - 0.3 * p).sum()
        return total * sign
    return params, loss_fn


def snapshot(opt, params):
    """Parameters, then every tensor in every parameter's state, as arrays."""
    out = [p.detach().numpy().copy() for p in params]
    for p in params:
        for key, value in opt.state[p].items():
            if hasattr(value, "numpy"):
                out.append(value.detach().numpy().copy())
    return out


def trajectory(lib, name, kwargs, steps=100, dtype="float32", sign=1.0, closure=False,
               groups=None):
    params, loss_fn = problem(lib, dtype, sign=sign)
    kwargs = {k: (v(lib) if callable(v) else v) for k, v in kwargs.items()}
    spec = params if groups is None else [dict(g, params=[params[i] for i in g["params"]])
                                          for g in groups]
    opt = getattr(lib.optim, name)(spec, **kwargs)
    snaps, losses = [], []
    for _ in range(steps):
        if closure:
            def step_closure():
                opt.zero_grad()
                loss = loss_fn()
                loss.backward()
                return loss
            losses.append(float(opt.step(step_closure).detach()))
        else:
            opt.zero_grad()
            loss_fn().backward()
            opt.step()
        snaps.append(snapshot(opt, params))
    return snaps, losses, opt


TOL = {"float32": 1e-6, "float64": 1e-12}


def assert_trajectories(expected, got, rtol):
    """After every step, each tensor agrees within rtol of its largest magnitude over the
    run (a state tensor that decays to zero is not compared relative to its tail)."""
    assert len(expected[0]) == len(got[0])
    for k in range(len(expected[0])):
        scale = max(float(np.abs(snap[k]).max()) for snap in expected) or 1.0
        for step, (a, b) in enumerate(zip(expected, got)):
            assert a[k].dtype == b[k].dtype and a[k].shape == b[k].shape
            np.testing.assert_allclose(b[k], a[k], rtol=rtol, atol=rtol * scale,
                                       err_msg=f"tensor {k} after step {step + 1}")


CASES = [
    ("SGD", dict(lr=0.01)),
    ("SGD", dict(lr=0.01, momentum=0.9)),
    ("SGD", dict(lr=0.01, momentum=0.9, nesterov=True, weight_decay=0.1)),
    ("SGD", dict(lr=0.01, momentum=0.8, dampening=0.3, weight_decay=0.05)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1)),
    ("Adam", dict(lr=0.01, amsgrad=True, weight_decay=0.1)),
    ("Adam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("Adam", dict(lr=lambda lib: lib.tensor(0.01))),
    ("AdamW", dict(lr=0.01)),
    ("AdamW", dict(lr=0.01, amsgrad=True, weight_decay=0.3)),
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, centered=True, momentum=0.5, weight_decay=0.1)),
    ("RMSprop", dict(lr=0.005, alpha=0.9, momentum=0.9)),
    ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, initial_accumulator_value=0.1, weight_decay=0.1)),
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, weight_decay=0.1)),
    ("Adamax", dict()),
    ("Adamax", dict(lr=0.01, weight_decay=0.1)),
    ("NAdam", dict(lr=0.01)),
    ("NAdam", dict(lr=0.01, momentum_decay=0.01, weight_decay=0.1)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("RAdam", dict(lr=0.01)),
    ("RAdam", dict(lr=0.01, weight_decay=0.1)),
    ("RAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("ASGD", dict(lr=0.01)),
    ("ASGD", dict(lr=0.01, t0=20, lambd=1e-3, weight_decay=0.1)),
    ("Rprop", dict(lr=0.01)),
    ("Rprop", dict(lr=0.02, etas=(0.3, 1.5), step_sizes=(1e-4, 0.1))),
    ("Adafactor", dict(lr=0.01)),
    ("Adafactor", dict(lr=0.05, weight_decay=0.1, beta2_decay=-0.5, eps=(1e-30, 1e-3), d=2.0)),
    ("LBFGS", dict(lr=0.5, max_iter=5)),
    ("LBFGS", dict(lr=1, max_iter=10, history_size=4, line_search_fn="strong_wolfe")),
]
IDS = [f"{name}-{i}" for i, (name, _) in enumerate(CASES)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,kwargs", CASES, ids=IDS)
def test_trajectory(name, kwargs, dtype):
    closure = name == "LBFGS"
    steps = 20 if closure else 100
    expected = trajectory(torch, name, kwargs, steps, dtype, closure=closure)
    got = trajectory(gg, name, kwargs, steps, dtype, closure=closure)
    rtol, compared = TOL[dtype], slice(None)
    if (name, kwargs, dtype) == ("RMSprop", CASES[13][1], "float32"):
        # PyTorch's float32 sqrt is MKL's (within 1 ulp, not correctly rounded: ~17% of
        # results differ by one ulp from IEEE's, which glassgrad gives); with momentum 0.9
        # this case amplifies those ulps to ~7e-5 over 100 steps
        rtol = 2e-4
    elif (name, dtype) == ("LBFGS", "float32"):
        # its inner products are float32 dots and sums, which glassgrad reduces in another
        # order than PyTorch's BLAS, and the curvature pairs amplify that rounding: compare
        # the parameters (the state's direction d is tiny and noisy) within 1e-4
        rtol, compared = 1e-4, slice(0, 3)
    elif (name, dtype) == ("Adafactor", "float64"):
        rtol = 1e-11       # its norms reduce in another order than PyTorch's (~1e-12 apart)
    assert_trajectories([s[compared] for s in expected[0]], [s[compared] for s in got[0]], rtol)
    np.testing.assert_allclose(got[1], expected[1], rtol=rtol)


@pytest.mark.parametrize("name,kwargs", [c for c in CASES if c[0] != "LBFGS"][::3])
def test_maximize(name, kwargs):
    """maximize=True on the negated loss: the same as torch's, and the same path as
    minimising."""
    kwargs = dict(kwargs, maximize=True)
    expected = trajectory(torch, name, kwargs, 50, sign=-1.0)[0]
    assert_trajectories(expected, trajectory(gg, name, kwargs, 50, sign=-1.0)[0], 1e-6)


@pytest.mark.parametrize("name", ["SGD", "Adam", "RMSprop", "Rprop", "ASGD"])
def test_closure_and_groups(name):
    """step(closure) returns the closure's loss; groups keep their own lr and options."""
    groups = [{"params": [0], "lr": 0.02}, {"params": [1, 2], "lr": 0.005, "maximize": False}]
    expected = trajectory(torch, name, {"lr": 0.01}, 40, closure=True, groups=groups)
    got = trajectory(gg, name, {"lr": 0.01}, 40, closure=True, groups=groups)
    assert_trajectories(expected[0], got[0], 1e-6)
    assert got[1] == pytest.approx(expected[1], rel=1e-6)
    assert [g["lr"] for g in got[2].param_groups] == [0.02, 0.005]


@pytest.mark.parametrize("name,kwargs", [("Adam", dict(lr=0.01, foreach=True)),
                                         ("Adam", dict(lr=0.01, fused=True)),
                                         ("AdamW", dict(lr=0.01, fused=True, amsgrad=True)),
                                         ("SGD", dict(lr=0.01, momentum=0.9, fused=True)),
                                         ("Adagrad", dict(lr=0.1, fused=True)),
                                         ("RMSprop", dict(lr=0.01, foreach=True)),
                                         ("NAdam", dict(lr=0.01, foreach=True))])
def test_foreach_and_fused(name, kwargs):
    """PyTorch runs other kernels for these (same algorithm, other rounding): glassgrad runs
    the single-tensor arithmetic, so the paths agree to rounding, and the state (a float32
    'step' for fused) is the same."""
    expected = trajectory(torch, name, kwargs, 50)
    got = trajectory(gg, name, kwargs, 50)
    assert_trajectories(expected[0], got[0], 1e-5)
    t_state, g_state = expected[2].state_dict(), got[2].state_dict()
    assert t_state["param_groups"] == g_state["param_groups"]
    for i, s in t_state["state"].items():
        for key, value in s.items():
            assert str(g_state["state"][i][key].dtype) == str(value.dtype)


def test_default_dtype_float64_steps():
    """'step' follows the default dtype (float64 under set_default_dtype(float64))."""
    def steps(lib):
        previous = lib.get_default_dtype()
        lib.set_default_dtype(lib.float64)
        try:
            params, loss_fn = problem(lib, "float64")
            opt = lib.optim.Adam(params)
            loss_fn().backward()
            opt.step()
            return str(opt.state[params[0]]["step"].dtype)
        finally:
            lib.set_default_dtype(previous)
    assert steps(torch) == steps(gg) == "torch.float64"


# ---- zero_grad
@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad(set_to_none):
    def program(lib):
        params, loss_fn = problem(lib)
        params.append(lib.zeros(2, requires_grad=True))     # never gets a gradient
        opt = lib.optim.SGD(params, lr=0.1)
        loss_fn().backward()
        params[1].grad = params[1].grad * 2                  # a grad with no graph
        opt.zero_grad(set_to_none=set_to_none)
        return [None if p.grad is None else (p.grad.tolist(), p.grad.requires_grad)
                for p in params]
    assert program(torch) == program(gg)


def test_zero_grad_detaches_a_grad_with_a_graph():
    def program(lib):
        p = lib.ones(3, requires_grad=True)
        w = lib.ones(3, requires_grad=True)
        p.grad = w * 2
        opt = lib.optim.SGD([p], lr=0.1)
        opt.zero_grad(set_to_none=False)
        return p.grad.tolist(), p.grad.grad_fn is None, p.grad.requires_grad
    assert program(torch) == program(gg)


def test_params_without_grad_are_skipped():
    def program(lib):
        a = lib.ones(2, requires_grad=True)
        b = lib.ones(2, requires_grad=True)
        opt = lib.optim.Adam([a, b], lr=0.1)
        (a * 3).sum().backward()
        opt.step()
        return a.tolist(), b.tolist(), len(opt.state), list(opt.state_dict()["state"])
    assert program(torch) == program(gg)


# ---- state dicts
ALL_OPTIMIZERS = [c for c in CASES if c[0] != "LBFGS"] + [("LBFGS", dict(lr=0.5, max_iter=3))]


def _normalised(sd):
    """A state dict as plain data: tensors become (dtype, shape, values)."""
    if hasattr(sd, "numpy"):
        return ("T", str(sd.dtype), tuple(sd.shape), sd.detach().numpy().tolist())
    if isinstance(sd, dict):
        return {k: _normalised(v) for k, v in sd.items()}
    if isinstance(sd, (list, tuple)):
        return type(sd).__name__, [_normalised(v) for v in sd]
    return sd


def assert_close_tree(expected, got, rtol, path="state_dict"):
    """Same structure, types, dtypes and shapes; tensors and floats within rtol."""
    if hasattr(expected, "numpy"):
        assert hasattr(got, "numpy"), path
        assert (str(expected.dtype), tuple(expected.shape)) == (str(got.dtype), tuple(got.shape)), path
        np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=rtol,
                                   atol=rtol * float(expected.detach().abs().max().item()
                                                     if expected.numel() else 0), err_msg=path)
    elif isinstance(expected, dict):
        assert isinstance(got, dict) and list(expected) == list(got), path
        for k in expected:
            assert_close_tree(expected[k], got[k], rtol, f"{path}[{k!r}]")
    elif isinstance(expected, (list, tuple)):
        assert type(got) is type(expected) and len(got) == len(expected), path
        for i, (a, b) in enumerate(zip(expected, got)):
            assert_close_tree(a, b, rtol, f"{path}[{i}]")
    elif isinstance(expected, float):
        assert type(got) is float and got == pytest.approx(expected, rel=rtol), path
    else:
        assert type(got) is type(expected) and got == expected, path


@pytest.mark.parametrize("name,kwargs", ALL_OPTIMIZERS[::2],
                         ids=[f"{n}-{i}" for i, (n, _) in enumerate(ALL_OPTIMIZERS)][::2])
def test_state_dict_structure(name, kwargs):
    """Same keys in the same order, param ids, state tensors (dtype, shape, values)."""
    closure = name == "LBFGS"
    t_opt = trajectory(torch, name, kwargs, 3, "float64", closure=closure)[2]
    g_opt = trajectory(gg, name, kwargs, 3, "float64", closure=closure)[2]
    assert_close_tree(t_opt.state_dict(), g_opt.state_dict(), 1e-12)


@pytest.mark.parametrize("name,kwargs", [("Adam", dict(lr=0.01, amsgrad=True)),
                                         ("SGD", dict(lr=0.01, momentum=0.9)),
                                         ("NAdam", dict(lr=0.01)), ("ASGD", dict(lr=0.01)),
                                         ("Adagrad", dict(lr=0.1)),
                                         ("Adam", dict(lr=0.01, fused=True))])
@pytest.mark.parametrize("direction", ["torch->glassgrad", "glassgrad->torch"])
def test_state_dict_interchange_through_files(tmp_path, name, kwargs, direction):
    """Train 10 steps in one library, save its optimizer state with save(), load it in the
    other into a fresh optimizer (other hyper-parameters, which the state dict replaces) and
    train both 10 more steps: the same trajectories."""
    first, second = (torch, gg) if direction == "torch->glassgrad" else (gg, torch)
    params_a, loss_a = problem(first)
    opt_a = getattr(first.optim, name)(params_a, **kwargs)
    for _ in range(10):
        opt_a.zero_grad()
        loss_a().backward()
        opt_a.step()
    path = str(tmp_path / "optimizer.pt")
    first.save(opt_a.state_dict(), path)
    params_b, loss_b = problem(second)
    with second.no_grad():
        for pb, pa in zip(params_b, params_a):
            pb.copy_(second.tensor(pa.detach().numpy()))
    opt_b = getattr(second.optim, name)(params_b, lr=0.5)
    opt_b.load_state_dict(second.load(path))
    assert _normalised(opt_b.state_dict()) == _normalised(opt_a.state_dict())
    snaps_a, snaps_b = [], []
    for opt, params, loss_fn, snaps in ((opt_a, params_a, loss_a, snaps_a),
                                        (opt_b, params_b, loss_b, snaps_b)):
        for _ in range(10):
            opt.zero_grad()
            loss_fn().backward()
            opt.step()
            snaps.append(snapshot(opt, params))
    expected, got = (snaps_a, snaps_b) if first is torch else (snaps_b, snaps_a)
    assert_trajectories(expected, got, 1e-5 if kwargs.get("fused") else 1e-6)


def test_load_state_dict_casts_to_the_parameter():
    """State tensors take the parameter's dtype; 'step' stays as saved (float32 for fused)."""
    def program(lib):
        p = lib.ones(3, dtype=lib.float64, requires_grad=True)
        opt = lib.optim.Adam([p])
        sd = {"state": {0: {"step": lib.tensor(4.0, dtype=lib.float64),
                            "exp_avg": lib.ones(3), "exp_avg_sq": lib.ones(3)}},
              "param_groups": [dict(opt.state_dict()["param_groups"][0])]}
        opt.load_state_dict(sd)
        fused = lib.optim.Adam([lib.ones(3, requires_grad=True)], fused=True)
        sd["param_groups"][0]["fused"] = True
        fused.load_state_dict(sd)
        return [str(v.dtype) for v in opt.state[p].values()], \
            [str(v.dtype) for v in next(iter(fused.state.values())).values()]
    assert program(torch) == program(gg)


@pytest.mark.parametrize("case", ["groups", "sizes"])
def test_load_state_dict_errors(case):
    def program(lib):
        a, b = lib.ones(2, requires_grad=True), lib.ones(2, requires_grad=True)
        one = lib.optim.SGD([a, b], lr=0.1)
        other = (lib.optim.SGD([{"params": [a]}, {"params": [b]}], lr=0.1) if case == "groups"
                 else lib.optim.SGD([a], lr=0.1))
        return _raised(one.load_state_dict, other.state_dict())
    assert program(torch) == program(gg)


def test_named_parameters_and_param_names():
    def program(lib):
        a, b = lib.ones(2, requires_grad=True), lib.ones(2, requires_grad=True)
        opt = lib.optim.SGD([("w", a), ("b", b)], lr=0.1)
        mixed = _raised(lib.optim.SGD, [("w", a), b], 0.1)
        adding = _raised(opt.add_param_group, {"params": [lib.ones(1, requires_grad=True)]})
        return opt.state_dict()["param_groups"], mixed, adding
    assert program(torch) == program(gg)


# ---- hooks
def test_step_hooks_order_and_removal():
    def program(lib):
        calls = []
        p = lib.ones(2, requires_grad=True)
        p.grad = lib.ones(2)
        opt = lib.optim.SGD([p], lr=0.1)
        h1 = opt.register_step_pre_hook(lambda o, a, k: calls.append(("pre", len(a), k)))
        h2 = opt.register_step_post_hook(lambda o, a, k: calls.append(("post", len(a), k)))
        g1 = optimizer_module(lib).register_optimizer_step_pre_hook(
            lambda o, a, k: calls.append("global pre"))
        g2 = optimizer_module(lib).register_optimizer_step_post_hook(
            lambda o, a, k: calls.append("global post"))
        opt.step()
        opt.step(closure=None)
        for h in (h1, h2, g1, g2):
            h.remove()
        opt.step()
        return calls, p.tolist()
    assert program(torch) == program(gg)


def test_step_pre_hook_rewrites_arguments():
    def program(lib):
        p = lib.ones(2, requires_grad=True)
        p.grad = lib.ones(2)
        opt = lib.optim.SGD([p], lr=0.1)
        opt.register_step_pre_hook(lambda o, a, k: (a, {"closure": lambda: 7.0}))
        loss = opt.step()
        opt2 = lib.optim.SGD([p], lr=0.1)
        opt2.register_step_pre_hook(lambda o, a, k: "bad")
        err = _raised(opt2.step)
        return loss, type(err[0]).__name__ if isinstance(err, tuple) else err
    t, g = program(torch), program(gg)
    assert t[0] == g[0] and t[1] == g[1]


def test_state_dict_hooks():
    def program(lib):
        calls = []
        p = lib.ones(2, requires_grad=True)
        opt = lib.optim.SGD([p], lr=0.1, momentum=0.9)
        opt.register_state_dict_pre_hook(lambda o: calls.append("pre"))
        opt.register_state_dict_pre_hook(lambda o: calls.append("pre first"), prepend=True)

        def post(o, sd):
            calls.append("post")
            sd["extra"] = 1
        opt.register_state_dict_post_hook(post)
        sd = opt.state_dict()

        def load_pre(o, sd):
            calls.append("load pre")
            sd = dict(sd)
            sd.pop("extra")
            sd["param_groups"] = [dict(g, lr=0.5) for g in sd["param_groups"]]
            return sd
        opt.register_load_state_dict_pre_hook(load_pre)
        opt.register_load_state_dict_post_hook(lambda o: calls.append("load post"))
        opt.load_state_dict(sd)
        return calls, sorted(sd), opt.param_groups[0]["lr"]
    assert program(torch) == program(gg)


# ---- errors, warnings, reprs
def _raised(fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - the error is the behaviour compared
        return type(e).__name__, str(e)
    return None


def _leaf(lib):
    return lib.ones(2, requires_grad=True)


ERRORS = [
    lambda lib: lib.optim.SGD([], lr=0.1),
    lambda lib: lib.optim.SGD(_leaf(lib), lr=0.1),
    lambda lib: lib.optim.SGD([_leaf(lib) * 2], lr=0.1),
    lambda lib: lib.optim.SGD([1.0], lr=0.1),
    lambda lib: lib.optim.SGD([{"params": {_leaf(lib)}}], lr=0.1),
    lambda lib: (lambda p: lib.optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1))(_leaf(lib)),
    lambda lib: lib.optim.SGD([_leaf(lib)], lr=-0.1),
    lambda lib: lib.optim.SGD([_leaf(lib)], lr=0.1, momentum=-1),
    lambda lib: lib.optim.SGD([_leaf(lib)], lr=0.1, weight_decay=-1),
    lambda lib: lib.optim.SGD([_leaf(lib)], lr=0.1, nesterov=True),
    lambda lib: lib.optim.SGD([_leaf(lib)], lr=lib.ones(2)),
    lambda lib: lib.optim.SGD([_leaf(lib)], lr=0.1, fused=True, foreach=True),
    lambda lib: lib.optim.SGD([_leaf(lib)], lr=0.1, fused=True, differentiable=True),
    lambda lib: lib.optim.Adam([_leaf(lib)], lr=-1),
    lambda lib: lib.optim.Adam([_leaf(lib)], eps=-1),
    lambda lib: lib.optim.Adam([_leaf(lib)], betas=(1.0, 0.9)),
    lambda lib: lib.optim.Adam([_leaf(lib)], betas=(0.9, -0.1)),
    lambda lib: lib.optim.Adam([_leaf(lib)], betas=(0, 0.9)),
    lambda lib: lib.optim.Adam([_leaf(lib)], weight_decay=-1),
    lambda lib: lib.optim.Adam([_leaf(lib)], lr=lib.tensor(0.1), foreach=True),
    lambda lib: lib.optim.Adam([_leaf(lib)], betas=(lib.tensor(0.9), lib.tensor(0.99)),
                               foreach=True),
    lambda lib: lib.optim.AdamW([_leaf(lib)], fused=True, foreach=True),
    lambda lib: lib.optim.RMSprop([_leaf(lib)], alpha=-1),
    lambda lib: lib.optim.RMSprop([_leaf(lib)], momentum=-1),
    lambda lib: lib.optim.RMSprop([_leaf(lib)], fused=True),
    lambda lib: lib.optim.Adagrad([_leaf(lib)], lr_decay=-1),
    lambda lib: lib.optim.Adagrad([_leaf(lib)], initial_accumulator_value=-1),
    lambda lib: lib.optim.Adadelta([_leaf(lib)], rho=1.5),
    lambda lib: lib.optim.Adamax([_leaf(lib)], betas=(0.9, 1.0)),
    lambda lib: lib.optim.NAdam([_leaf(lib)], momentum_decay=-1),
    lambda lib: lib.optim.RAdam([_leaf(lib)], eps=-1),
    lambda lib: lib.optim.ASGD([_leaf(lib)], weight_decay=-1),
    lambda lib: lib.optim.Rprop([_leaf(lib)], etas=(1.5, 1.2)),
    lambda lib: lib.optim.LBFGS([_leaf(lib)], lr=-1),
    lambda lib: lib.optim.LBFGS([{"params": [_leaf(lib)]}, {"params": [_leaf(lib)]}]),
    lambda lib: (lambda p: (setattr(p, "grad", lib.ones(2)),
                            lib.optim.LBFGS([p], line_search_fn="armijo").step(lambda: 1.0))
                 )(_leaf(lib)),
    lambda lib: lib.optim.SGD([_leaf(lib)], lr=0.1).add_param_group([_leaf(lib)]),
    lambda lib: lib.optim.Adafactor([_leaf(lib)], lr=-1),
    lambda lib: lib.optim.Adafactor([_leaf(lib)], beta2_decay=0.5),
    lambda lib: lib.optim.Adafactor([_leaf(lib)], eps=(-1, 1e-3)),
    lambda lib: lib.optim.Adafactor([_leaf(lib)], eps=(None, -1)),
    lambda lib: lib.optim.Adafactor([_leaf(lib)], d=0.5),
    lambda lib: lib.optim.Adafactor([_leaf(lib)], weight_decay=-1),
    lambda lib: lib.optim.SparseAdam([_leaf(lib)], lr=0),
    lambda lib: lib.optim.SparseAdam([_leaf(lib)], eps=0),
    lambda lib: lib.optim.SparseAdam([_leaf(lib)], betas=(0.9, 1)),
    lambda lib: (lambda p: (setattr(p, "grad", lib.ones(2)), lib.optim.SparseAdam([p]).step())
                 )(_leaf(lib)),
    lambda lib: lib.optim.Optimizer([_leaf(lib)], {"lr": optimizer_module(lib).required}
                                    ).add_param_group({"params": [_leaf(lib)], "lr": 1}),
    lambda lib: lib.optim.SGD([{"params": [_leaf(lib)]}],
                              lr=optimizer_module(lib).required),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors(i):
    expected = _raised(ERRORS[i], torch)
    assert expected is not None
    assert _raised(ERRORS[i], gg) == expected


@pytest.mark.parametrize("name,kwargs", [("Adam", dict(capturable=True)),
                                         ("AdamW", dict(capturable=True)),
                                         ("RMSprop", dict(capturable=True)),
                                         ("Adadelta", dict(capturable=True)),
                                         ("Adamax", dict(capturable=True)),
                                         ("NAdam", dict(capturable=True)),
                                         ("RAdam", dict(capturable=True)),
                                         ("ASGD", dict(capturable=True)),
                                         ("Rprop", dict(capturable=True)),
                                         ("Adam", dict(fused=True)),
                                         ("SGD", dict(fused=True))])
def test_step_errors_on_cpu(name, kwargs):
    """capturable=True needs an accelerator; fused=True needs floating-point parameters."""
    def program(lib):
        p = lib.zeros(3, dtype=lib.float32 if "capturable" in kwargs else lib.int64)
        p.grad = lib.ones(3, dtype=p.dtype)
        return _raised(getattr(lib.optim, name)([p], **kwargs).step)
    expected = program(torch)
    assert expected is not None and program(gg) == expected


def test_non_leaf_allowed_when_differentiable_and_retain_grad():
    def program(lib):
        x = lib.ones(2, requires_grad=True)
        y = x * 2
        y.retain_grad()
        a = lib.optim.SGD([y], lr=0.1)
        b = lib.optim.SGD([x * 3], lr=0.1, differentiable=True)
        return len(a.param_groups), len(b.param_groups)
    assert program(torch) == program(gg)


def test_differentiable_sgd_keeps_the_graph():
    """differentiable=True: the step runs with grad enabled, so the updated parameter is a
    function of the hyper-parameter tensors and of the original parameter."""
    def program(lib):
        w = lib.tensor([1.0, -2.0], requires_grad=True)
        p = w.clone()
        p.grad = lib.tensor([0.5, 0.25])
        lr = lib.tensor(0.1, requires_grad=True)
        opt = lib.optim.SGD([p], lr=lr, weight_decay=0.1, differentiable=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            opt.step()
            p.grad = lib.tensor([0.5, 0.25])
            opt.step()
        (p * p).sum().backward()
        return p.tolist(), w.grad.tolist(), lr.grad.tolist()
    t, g = program(torch), program(gg)
    np.testing.assert_allclose(np.array(g[0]), np.array(t[0]), rtol=1e-6)
    np.testing.assert_allclose(np.array(g[1]), np.array(t[1]), rtol=1e-6)
    np.testing.assert_allclose(g[2], t[2], rtol=1e-6)


def test_differentiable_adam_matches():
    def program(lib):
        w = lib.tensor([1.0, -2.0, 0.5], requires_grad=True)
        p = w.clone()
        opt = lib.optim.Adam([p], lr=0.1, amsgrad=True, differentiable=True)
        for g in ([0.5, 0.25, -1.0], [0.1, -0.3, 0.2]):
            p.grad = lib.tensor(g)
            opt.step()
        (p * p).sum().backward()
        return p.tolist(), w.grad.tolist()
    t, g = program(torch), program(gg)
    np.testing.assert_allclose(np.array(g), np.array(t), rtol=1e-6)


def test_muon_is_refused():
    """torch.optim.Muon runs in bfloat16, which glassgrad lacks: a clear NotImplementedError."""
    assert torch.optim.Muon([torch.zeros(2, 2, requires_grad=True)]) is not None
    with pytest.raises(NotImplementedError, match="bfloat16"):
        gg.optim.Muon([gg.zeros(2, 2, requires_grad=True)])


def test_duplicate_parameter_warns():
    def program(lib):
        p = _leaf(lib)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.optim.SGD([p, p], lr=0.1)
        return [(w.category.__name__, str(w.message)) for w in caught]
    expected = program(torch)
    assert expected and program(gg) == expected


@pytest.mark.parametrize("name,kwargs", [(n, k) for n, k in ALL_OPTIMIZERS if
                                         not callable(k.get("lr"))][::2])
def test_repr(name, kwargs):
    def program(lib):
        a, b = _leaf(lib), _leaf(lib)
        opt = getattr(lib.optim, name)([{"params": [a]}, {"params": [b], "lr": 0.5}], **kwargs)
        return repr(opt)
    assert program(torch) == program(gg)


def test_custom_optimizer_subclass_gets_hooks():
    """A user's Optimizer subclass with its own step runs the step hooks as torch's does."""
    def program(lib):
        calls = []

        class Plain(lib.optim.Optimizer):
            def __init__(self, params):
                super().__init__(params, {"lr": 0.1})

            @lib.no_grad()
            def step(self, closure=None):
                calls.append("step")
                for group in self.param_groups:
                    for p in group["params"]:
                        p.add_(p.grad, alpha=-group["lr"])

        p = _leaf(lib)
        p.grad = lib.ones(2)
        opt = Plain([p])
        opt.register_step_post_hook(lambda *a: calls.append("post"))
        opt.step()
        return calls, p.tolist(), opt.state_dict()["param_groups"]
    assert program(torch) == program(gg)


def test_pickle_and_deepcopy():
    def program(lib):
        params, loss_fn = problem(lib)
        opt = lib.optim.Adam(params, lr=0.01)
        loss_fn().backward()
        opt.step()
        clone = copy.deepcopy(opt)
        assert clone.state[clone.param_groups[0]["params"][0]]["exp_avg"] is not \
            opt.state[params[0]]["exp_avg"]
        return clone.state_dict()
    assert_close_tree(program(torch), program(gg), 1e-6)


def test_tensor_subclass_parameter():
    """Any Tensor subclass is a parameter (nn.Parameter will be one): same update as torch's
    for a subclass there. glassgrad has no as_subclass yet: Tensor._make builds one."""
    class TorchSub(torch.Tensor):
        pass

    class GlassSub(gg.Tensor):
        pass

    def program(lib, p):
        p.grad = lib.tensor([0.5, -1.0])
        opt = lib.optim.Adam([p], lr=0.1, weight_decay=0.1)
        opt.step()
        opt.step()
        return type(p).__name__.endswith("Sub"), p.tolist(), sorted(opt.state_dict()["state"][0])
    t_param = torch.tensor([1.0, 2.0]).as_subclass(TorchSub).requires_grad_()
    g_param = GlassSub._make(gg.tensor([1.0, 2.0])._data.copy(), requires_grad=True)
    assert program(gg, g_param) == program(torch, t_param)


# ---- swa_utils.AveragedModel (more in test_swa_utils.py)
def _tiny_values(seed):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((3, 2)), rng.standard_normal(2), seed, rng.standard_normal(2))


def tiny_model(lib, seed):
    """A module with two parameters and two buffers (an int64 one), built alike in each lib."""
    class Tiny(lib.nn.Module):
        def __init__(self):
            super().__init__()
            w, b, count, stat = _tiny_values(seed)
            self.w = lib.nn.Parameter(lib.tensor(w, dtype=lib.float32))
            self.b = lib.nn.Parameter(lib.tensor(b, dtype=lib.float32))
            self.register_buffer("count", lib.tensor(count, dtype=lib.int64))
            self.register_buffer("stat", lib.tensor(stat, dtype=lib.float32))

        def forward(self, x):
            return x @ self.w + self.b
    return Tiny()


AVERAGING = [
    ("swa", lambda su: {}),
    ("ema avg_fn", lambda su: {"avg_fn": su.get_ema_avg_fn(0.9)}),
    ("ema multi", lambda su: {"multi_avg_fn": su.get_ema_multi_avg_fn(0.8)}),
    ("swa multi", lambda su: {"multi_avg_fn": su.get_swa_multi_avg_fn()}),
    ("swa avg_fn buffers", lambda su: {"avg_fn": su.get_swa_avg_fn(), "use_buffers": True}),
]


@pytest.mark.parametrize("kind,make", AVERAGING, ids=[a[0] for a in AVERAGING])
def test_averaged_model(kind, make):
    def program(lib):
        su = importlib.import_module(lib.__name__ + ".optim.swa_utils")
        averaged = su.AveragedModel(tiny_model(lib, 0), **make(su))
        out = []
        for seed in range(1, 6):
            averaged.update_parameters(tiny_model(lib, seed))
            out.append([t.detach().numpy().tolist() for t in
                        list(averaged.module.parameters()) + list(averaged.module.buffers())]
                       + [averaged.n_averaged.item(), str(averaged.n_averaged.dtype)])
        x = lib.ones(1, 3)
        out.append(averaged(x).detach().numpy().tolist())
        return out
    expected, got = program(torch), program(gg)
    np.testing.assert_allclose(np.array(got[-1]), np.array(expected[-1]), rtol=1e-6)
    for e, g in zip(expected[:-1], got[:-1]):
        assert g[-2:] == e[-2:]
        for a, b in zip(e[:-2], g[:-2]):
            np.testing.assert_allclose(np.array(b), np.array(a), rtol=1e-6)


@pytest.mark.parametrize("fn", ["get_ema_avg_fn", "get_ema_multi_avg_fn"])
def test_averaging_errors(fn):
    def program(lib):
        su = importlib.import_module(lib.__name__ + ".optim.swa_utils")
        return _raised(getattr(su, fn), 1.5), _raised(
            su.AveragedModel, tiny_model(lib, 0), avg_fn=su.get_swa_avg_fn(),
            multi_avg_fn=su.get_swa_multi_avg_fn())
    assert program(torch) == program(gg)


@pytest.mark.parametrize("kwargs", [{}, {"fused": True}])
def test_with_grad_scaler(kwargs):
    """amp.GradScaler('cpu').step(optimizer): a step with inf gradients is skipped (no
    'step' increment), the others unscale first."""
    def program(lib):
        p = lib.tensor([1.0, -2.0, 0.5], requires_grad=True)
        opt = lib.optim.Adam([p], lr=0.1, **kwargs)
        scaler = lib.amp.GradScaler("cpu", init_scale=2.0 ** 16)
        for i in range(4):
            opt.zero_grad()
            loss = (p * p).sum() * (float("inf") if i == 1 else 1.0)
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
        return np.array(p.tolist()), scaler.get_scale(), opt.state[p]["step"].item()
    (t_p, *t_rest), (g_p, *g_rest) = program(torch), program(gg)
    np.testing.assert_allclose(g_p, t_p, rtol=1e-6)
    assert g_rest == t_rest


def test_third_party_optimizer_helpers():
    """Custom optimizers copied from torch's code import these from torch.optim.optimizer."""
    def program(lib):
        mod = optimizer_module(lib)

        class Lion(mod.Optimizer):
            def __init__(self, params, lr=mod.required, beta=0.9, differentiable=False):
                super().__init__(params, {"lr": lr, "beta": beta,
                                          "differentiable": differentiable})

            @mod._use_grad_for_differentiable
            def step(self, closure=None):
                self._accelerator_graph_capture_health_check()
                grad_mode = lib.is_grad_enabled()
                for group in self.param_groups:
                    for p in group["params"]:
                        state = self.state[p]
                        if not state:
                            state["step"] = lib.tensor(0.0)
                            state["m"] = lib.zeros_like(p)
                        state["step"] += 1
                        m = state["m"]
                        p.add_(m.lerp(p.grad, 1 - group["beta"]).sign(),
                               alpha=-group["lr"] * mod._get_value(state["step"]) ** -0.5)
                        m.lerp_(p.grad, 0.01)
                return grad_mode

        params, loss_fn = problem(lib)
        opt = Lion(params, lr=0.01)
        modes = []
        for _ in range(10):
            opt.zero_grad()
            loss_fn().backward()
            modes.append(opt.step())
        fused_foreach = mod._default_to_fused_or_foreach(params, False, use_fused=True)
        return [p.tolist() for p in params], modes, fused_foreach, \
            mod._default_to_fused_or_foreach(params, True)
    t, g = program(torch), program(gg)
    np.testing.assert_allclose(np.array(g[0][0]), np.array(t[0][0]), rtol=1e-6)
    assert g[1:] == t[1:]
