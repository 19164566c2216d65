"""torch.optim.lr_scheduler against PyTorch 2.13: get_last_lr() sequences compared exactly
(as floats), the momenta the cyclic schedules write, state dicts, warnings and errors."""
import math
import warnings

import pytest
import torch

import glassgrad as gg


def make_optimizer(lib, opt="SGD", groups=2, **kwargs):
    params = [lib.zeros(2, requires_grad=True) for _ in range(groups)]
    spec = [{"params": [p], "lr": 0.1 * (i + 1)} for i, p in enumerate(params)]
    kwargs = kwargs or ({"lr": 0.1, "momentum": 0.9} if opt == "SGD" else {"lr": 0.1})
    return getattr(lib.optim, opt)(spec, **kwargs)


def run(lib, name, kwargs, steps=40, opt="SGD", metrics=None, epochs=None):
    """Build the scheduler and step it (after optimizer.step) ``steps`` times; return each
    step's get_last_lr() and the groups' momentum/betas, and the final state dict."""
    optimizer = make_optimizer(lib, opt)
    scheduler = getattr(lib.optim.lr_scheduler, name)(optimizer, **kwargs)
    seen = [list(scheduler.get_last_lr())]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")       # the epoch= deprecation
        for i in range(steps):
            optimizer.step()
            if metrics is not None:
                scheduler.step(metrics[i])
            elif epochs is not None:
                scheduler.step(epochs[i])
            else:
                scheduler.step()
            seen.append(list(scheduler.get_last_lr())
                        + [g.get("momentum", g.get("betas")) for g in optimizer.param_groups])
    return seen, scheduler


SCHEDULES = [
    ("LambdaLR", dict(lr_lambda=lambda e: 0.95 ** e)),
    ("LambdaLR", dict(lr_lambda=[lambda e: 1 / (e + 1), lambda e: 0.9 ** e])),
    ("MultiplicativeLR", dict(lr_lambda=lambda e: 0.95)),
    ("StepLR", dict(step_size=7, gamma=0.3)),
    ("MultiStepLR", dict(milestones=[3, 9, 9, 20], gamma=0.5)),
    ("ConstantLR", dict(factor=0.3, total_iters=6)),
    ("LinearLR", dict(start_factor=0.1, end_factor=0.9, total_iters=13)),
    ("ExponentialLR", dict(gamma=0.93)),
    ("PolynomialLR", dict(total_iters=17, power=1.7)),
    ("CosineAnnealingLR", dict(T_max=9, eta_min=0.001)),
    ("CosineAnnealingWarmRestarts", dict(T_0=5, T_mult=2, eta_min=0.01)),
    ("CosineAnnealingWarmRestarts", dict(T_0=3)),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.3, step_size_up=4, step_size_down=7,
                      mode="triangular2")),
    ("CyclicLR", dict(base_lr=0.01, max_lr=[0.3, 0.5], step_size_up=5, mode="exp_range",
                      gamma=0.97)),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.3, step_size_up=3, scale_fn=lambda x: 0.5 ** x,
                      scale_mode="iterations", cycle_momentum=False)),
    ("OneCycleLR", dict(max_lr=0.5, total_steps=41)),
    ("OneCycleLR", dict(max_lr=[0.5, 1.0], epochs=9, steps_per_epoch=5, three_phase=True,
                        anneal_strategy="linear")),
]


@pytest.mark.parametrize("name,kwargs", SCHEDULES,
                         ids=[f"{n}-{i}" for i, (n, _) in enumerate(SCHEDULES)])
@pytest.mark.parametrize("opt", ["SGD", "Adam"])
def test_sequences(name, kwargs, opt):
    expected, t_sched = run(torch, name, kwargs, opt=opt)
    got, g_sched = run(gg, name, kwargs, opt=opt)
    assert got == expected                      # exact floats, momenta and betas too
    assert list(g_sched.state_dict()) == list(t_sched.state_dict())


def _plain(state):
    """A scheduler state dict without what cannot compare across libraries (functions)."""
    return {k: v for k, v in state.items()
            if k not in ("lr_lambdas", "_scale_fn_custom", "_scale_fn_ref", "anneal_func")}


@pytest.mark.parametrize("name,kwargs", SCHEDULES[::2],
                         ids=[f"{n}-{i}" for i, (n, _) in enumerate(SCHEDULES)][::2])
def test_state_dict_and_resume(name, kwargs):
    """The state dict equals torch's; loading it into a fresh scheduler resumes the same
    sequence."""
    _, t_sched = run(torch, name, kwargs, steps=13)
    _, g_sched = run(gg, name, kwargs, steps=13)
    t_state, g_state = t_sched.state_dict(), g_sched.state_dict()
    assert _plain(g_state) == _plain(t_state)

    def resume(lib, scheduler):
        optimizer = scheduler.optimizer
        fresh = getattr(lib.optim.lr_scheduler, name)(make_optimizer(lib), **kwargs)
        fresh.optimizer.load_state_dict(optimizer.state_dict())
        fresh.load_state_dict(scheduler.state_dict())
        out = []
        for _ in range(10):
            fresh.optimizer.step()
            fresh.step()
            out.append(fresh.get_last_lr())
        return out
    assert resume(gg, g_sched) == resume(torch, t_sched)


def test_state_dict_interchange_through_files(tmp_path):
    """A scheduler state saved by torch loads into glassgrad's, and the reverse."""
    for first, second in ((torch, gg), (gg, torch)):
        _, sched = run(first, "OneCycleLR", dict(max_lr=0.5, total_steps=41), steps=11)
        path = str(tmp_path / f"{first.__name__}.pt")
        first.save({"optimizer": sched.optimizer.state_dict(),
                    "scheduler": sched.state_dict()}, path)
        checkpoint = second.load(path)
        optimizer = make_optimizer(second)
        fresh = second.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.5, total_steps=41)
        optimizer.load_state_dict(checkpoint["optimizer"])
        fresh.load_state_dict(checkpoint["scheduler"])
        assert _plain(fresh.state_dict()) == _plain(sched.state_dict())
        sched.optimizer.step()
        sched.step()
        optimizer.step()
        fresh.step()
        assert fresh.get_last_lr() == sched.get_last_lr()


def test_reduce_lr_on_plateau():
    metrics = [1.0 / (i % 5 + 1) for i in range(40)]
    for kwargs in (dict(patience=2, cooldown=1, factor=0.5),
                   dict(mode="max", threshold_mode="abs", threshold=0.1, patience=1,
                        min_lr=[0.01, 0.02]),
                   dict(patience=0, eps=0.05, factor=0.3)):
        expected, t_sched = run(torch, "ReduceLROnPlateau", kwargs, metrics=metrics)
        got, g_sched = run(gg, "ReduceLROnPlateau", kwargs, metrics=metrics)
        assert got == expected
        assert g_sched.state_dict() == t_sched.state_dict()


@pytest.mark.parametrize("name,kwargs", [
    ("StepLR", dict(step_size=3)), ("MultiStepLR", dict(milestones=[2, 5])),
    ("ExponentialLR", dict(gamma=0.9)), ("CosineAnnealingLR", dict(T_max=10)),
    ("LinearLR", {}), ("ConstantLR", {}), ("PolynomialLR", dict(power=2.0)),
    ("CosineAnnealingWarmRestarts", dict(T_0=5, T_mult=2)), ("LambdaLR", dict(lr_lambda=abs))])
def test_step_with_epoch_uses_the_closed_form(name, kwargs):
    epochs = [i * 2 for i in range(15)] if name != "CosineAnnealingWarmRestarts" else \
        [i * 0.7 for i in range(15)]
    expected = run(torch, name, kwargs, steps=15, epochs=epochs)[0]
    assert run(gg, name, kwargs, steps=15, epochs=epochs)[0] == expected


@pytest.mark.parametrize("case", ["sequential", "chained", "nested"])
def test_composites(case):
    def program(lib):
        S = lib.optim.lr_scheduler
        optimizer = make_optimizer(lib)
        warm = S.LinearLR(optimizer, start_factor=0.1, total_iters=4)
        decay = S.ExponentialLR(optimizer, gamma=0.9)
        if case == "sequential":
            sched = S.SequentialLR(optimizer, [warm, decay], milestones=[5])
        elif case == "chained":
            sched = S.ChainedScheduler([warm, decay])
        else:
            cosine = S.CosineAnnealingLR(optimizer, T_max=6)
            sched = S.SequentialLR(optimizer, [S.ChainedScheduler([warm, decay]), cosine],
                                   milestones=[8])
        out = [sched.get_last_lr()]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")     # nested: the inner chain warns as torch's
            for _ in range(20):
                optimizer.step()
                sched.step()
                out.append(sched.get_last_lr())
        state = sched.state_dict()
        return out, sorted(state), [_plain(s) if "_schedulers" not in s else sorted(s)
                                    for s in state["_schedulers"]]
    assert program(gg) == program(torch)


def test_tensor_lr_is_filled_in_place():
    def program(lib):
        p = lib.zeros(2, requires_grad=True)
        lr = lib.tensor(0.1)
        optimizer = lib.optim.Adam([p], lr=lr)
        sched = lib.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.5)
        optimizer.step()
        sched.step()
        return optimizer.param_groups[0]["lr"] is lr, lr.item(), \
            [float(x) for x in sched.get_last_lr()]
    assert program(gg) == program(torch)


def _warnings_of(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [(w.category.__name__, str(w.message)) for w in caught]


WARNINGS = [
    # scheduler.step() before optimizer.step()
    lambda lib: (lambda o: (lambda s: s.step())(lib.optim.lr_scheduler.StepLR(o, 2)))(
        make_optimizer(lib)),
    # optimizer.step replaced after the scheduler wrapped it
    lambda lib: (lambda o: (lambda s: (setattr(o, "step", lambda: None), o.step(), s.step()))(
        lib.optim.lr_scheduler.StepLR(o, 2)))(make_optimizer(lib)),
    # get_lr() called directly
    lambda lib: lib.optim.lr_scheduler.StepLR(make_optimizer(lib), 2).get_lr(),
    # step(epoch)
    lambda lib: (lambda o: (lambda s: (o.step(), s.step(3)))(
        lib.optim.lr_scheduler.StepLR(o, 2)))(make_optimizer(lib)),
    lambda lib: lib.optim.lr_scheduler.ReduceLROnPlateau(make_optimizer(lib)).step(1.0, 4),
    # the right order warns nothing
    lambda lib: (lambda o: (lambda s: (o.step(), s.step()))(
        lib.optim.lr_scheduler.StepLR(o, 2)))(make_optimizer(lib)),
]


@pytest.mark.parametrize("i", range(len(WARNINGS)))
def test_warnings(i):
    assert _warnings_of(lambda: WARNINGS[i](gg)) == _warnings_of(lambda: WARNINGS[i](torch))


def _raised(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the error is the behaviour compared
        return type(e).__name__, str(e)
    return None


ERRORS = [
    lambda lib, S, o: S.StepLR(object(), 2),
    lambda lib, S, o: S.ConstantLR(o, factor=1.5),
    lambda lib, S, o: S.LinearLR(o, start_factor=0),
    lambda lib, S, o: S.LinearLR(o, end_factor=2),
    lambda lib, S, o: S.LambdaLR(o, [abs]),
    lambda lib, S, o: S.MultiplicativeLR(o, [abs, 1.0]),
    lambda lib, S, o: S.StepLR(o, 2, last_epoch=3),
    lambda lib, S, o: S.CosineAnnealingWarmRestarts(o, T_0=0),
    lambda lib, S, o: S.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=1.5),
    lambda lib, S, o: S.CosineAnnealingWarmRestarts(o, T_0=2, eta_min="x"),
    lambda lib, S, o: S.CosineAnnealingWarmRestarts(o, T_0=2).step(-1),
    lambda lib, S, o: S.CyclicLR(o, 0.1, 1.0, mode="bogus"),
    lambda lib, S, o: S.CyclicLR(o, [0.1], 1.0),
    lambda lib, S, o: S.CyclicLR(make_optimizer(lib, "Rprop"), 0.1, 1.0),
    lambda lib, S, o: S.OneCycleLR(o, 1.0),
    lambda lib, S, o: S.OneCycleLR(o, 1.0, total_steps=0),
    lambda lib, S, o: S.OneCycleLR(o, 1.0, epochs=0, steps_per_epoch=2),
    lambda lib, S, o: S.OneCycleLR(o, 1.0, epochs=2, steps_per_epoch=0),
    lambda lib, S, o: S.OneCycleLR(o, 1.0, total_steps=5, pct_start=1),
    lambda lib, S, o: S.OneCycleLR(o, 1.0, total_steps=5, anneal_strategy="exp"),
    lambda lib, S, o: (lambda s: [s.step() for _ in range(3)])(S.OneCycleLR(o, 1.0, total_steps=2)),
    lambda lib, S, o: S.ReduceLROnPlateau(o, factor=1.0),
    lambda lib, S, o: S.ReduceLROnPlateau(o, mode="avg"),
    lambda lib, S, o: S.ReduceLROnPlateau(o, threshold_mode="x"),
    lambda lib, S, o: S.ReduceLROnPlateau(o, min_lr=[0.1]),
    lambda lib, S, o: S.SequentialLR(o, [], []),
    lambda lib, S, o: S.SequentialLR(o, [S.StepLR(o, 2)], [3]),
    lambda lib, S, o: S.SequentialLR(o, [S.ReduceLROnPlateau(o)], []),
    lambda lib, S, o: S.SequentialLR(o, [1.0], []),
    lambda lib, S, o: S.ChainedScheduler([]),
    lambda lib, S, o: S.ChainedScheduler([S.StepLR(o, 2), S.StepLR(make_optimizer(lib), 2)]),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors(i):
    def program(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return _raised(lambda: ERRORS[i](lib, lib.optim.lr_scheduler, make_optimizer(lib)))
    expected = program(torch)
    assert expected is not None
    got = program(gg)
    if "which is different from" in expected[1]:     # the message holds the optimizer's repr
        assert got[0] == expected[0] and got[1].split(" has ")[0] == \
            expected[1].split(" has ")[0]
    else:
        assert got == expected


def test_cosine_matches_math():
    """A sanity anchor independent of torch: the chainable cosine returns to eta_min."""
    optimizer = make_optimizer(gg, groups=1)
    sched = gg.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=4, eta_min=0.01)
    for _ in range(4):
        optimizer.step()
        sched.step()
    assert math.isclose(sched.get_last_lr()[0], 0.01, rel_tol=1e-12)


@pytest.mark.parametrize("kwargs", [dict(swa_lr=0.05), dict(swa_lr=[0.05, 0.01], anneal_epochs=3,
                                                            anneal_strategy="linear"),
                                    dict(swa_lr=0.02, anneal_epochs=0)])
def test_swalr(kwargs):
    def program(lib):
        optimizer = make_optimizer(lib)
        sched = lib.optim.swa_utils.SWALR(optimizer, **kwargs)
        out = [sched.get_last_lr()]
        for _ in range(15):
            optimizer.step()
            sched.step()
            out.append(sched.get_last_lr())
        return out, _plain(sched.state_dict())
    assert program(gg) == program(torch)


@pytest.mark.parametrize("kwargs", [dict(swa_lr=0.1, anneal_strategy="exp"),
                                    dict(swa_lr=0.1, anneal_epochs=-1),
                                    dict(swa_lr=[0.1])])
def test_swalr_errors(kwargs):
    def program(lib):
        return _raised(lambda: lib.optim.swa_utils.SWALR(make_optimizer(lib), **kwargs))
    assert program(gg) == program(torch) != None  # noqa: E711


def test_user_defined_scheduler():
    """A scheduler written for torch: subclass LRScheduler, override get_lr."""
    def program(lib):
        class Halving(lib.optim.lr_scheduler.LRScheduler):
            def __init__(self, optimizer, every, last_epoch=-1):
                self.every = every
                super().__init__(optimizer, last_epoch)

            def get_lr(self):
                if self.last_epoch == 0 or self.last_epoch % self.every:
                    return [group["lr"] for group in self.optimizer.param_groups]
                return [group["lr"] / 2 for group in self.optimizer.param_groups]

        optimizer = make_optimizer(lib)
        sched = Halving(optimizer, 3)
        out = []
        for _ in range(10):
            optimizer.step()
            sched.step()
            out.append(sched.get_last_lr())
        return out, sorted(sched.state_dict())
    assert program(gg) == program(torch)
