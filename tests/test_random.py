"""Random ops (glassgrad/ops/random.py, glassgrad/_creation.py) and dropout, against torch bit for
bit: after the same manual_seed (or with a Generator of the same seed) every sampler returns
torch's values and leaves the generator in torch's state (get_rng_state's bytes compared), so
mixed sequences of calls stay in step. Also: node names, zero gradients, errors."""
import numpy as np
import pytest
import torch

import glassgrad as gg
from optable import assert_same, check_error, outcome

N = 100_000
SEEDS = [0, 1, 42, 2 ** 32 + 5, 2 ** 63 + 12345]


def _same_values(t, g):
    t, g = t.detach().numpy(), g.detach().numpy()
    assert g.dtype == t.dtype and g.shape == t.shape
    np.testing.assert_array_equal(g, t)


def _same_state():
    np.testing.assert_array_equal(gg.get_rng_state().numpy(), torch.get_rng_state().numpy())


def differential(f, seed):
    torch.manual_seed(seed)
    gg.manual_seed(seed)
    t, g = f(torch), f(gg)
    for a, b in zip(t if isinstance(t, tuple) else (t,), g if isinstance(g, tuple) else (g,)):
        _same_values(a, b)
    _same_state()


def _w(t):
    return t.tensor([0.1, 0.0, 2.0, 0.5, 1.5, 0.25, 3.0])


STREAMS = {
    **{f"rand_{d}_{n}": (lambda d, n: lambda t: t.rand(n, dtype=getattr(t, d)))(d, n)
       for d in ("float32", "float64") for n in (1, 3, 16, 37, 1000)},
    "rand_f16": lambda t: t.rand(7, dtype=t.float16),
    "rand_f16_many": lambda t: t.rand(5000, dtype=t.float16),       # some round up to 1 -> 0
    **{f"uniform_f16_{lo}_{hi}": (lambda lo, hi: lambda t: t.empty(3000, dtype=t.float16).uniform_(
        lo, hi))(lo, hi) for lo, hi in ((-2, 3), (-2.5, 3.7), (0.1, 0.7))},
    "uniform_f32_odd": lambda t: t.empty(3000).uniform_(-2.5, 3.7),
    "uniform_f64_odd": lambda t: t.empty(3000, dtype=t.float64).uniform_(-100.3, 1000.7),
    "rand_2d": lambda t: t.rand(4, 5),
    **{f"randn_{d}_{n}": (lambda d, n: lambda t: t.randn(n, dtype=getattr(t, d)))(d, n)
       for d in ("float32", "float64") for n in (1, 3, 15, 16, 17, 37, 64, 1000)},
    **{f"randn_f16_{n}": (lambda n: lambda t: t.randn(n, dtype=t.float16))(n)
       for n in (1, 5, 15, 16, 17, 20, 31, 32, 37, 160, 1000)},
    "normal__f16": lambda t: t.empty(37, dtype=t.float16).normal_(1.5, 2.0),
    "normal__f16_small": lambda t: t.empty(5, dtype=t.float16).normal_(1.5, 2.0),
    "exponential_f16": lambda t: t.empty(40, dtype=t.float16).exponential_(),
    "bernoulli_f16": lambda t: t.bernoulli(t.rand(30, dtype=t.float16)),
    "randn_2d": lambda t: t.randn(8, 5),
    "randint": lambda t: t.randint(-5, 17, (30,)),
    "randint_high": lambda t: t.randint(10, (3, 4), dtype=t.int32),
    "randint_wide": lambda t: t.randint(0, 2 ** 40, (20,)),
    "randint_f32": lambda t: t.randint(0, 100, (9,), dtype=t.float32),
    "randperm_small": lambda t: t.randperm(10),
    "randperm_1000": lambda t: t.randperm(1000, dtype=t.int32),
    "randperm_big": lambda t: t.randperm(100_000),
    "normal_tt": lambda t: t.normal(t.zeros(20), t.ones(20) * 2),
    "normal_tt_small": lambda t: t.normal(t.zeros(3), t.ones(3) * 2),
    "normal_tf": lambda t: t.normal(t.ones(5), 2.0),
    "normal_tf_big": lambda t: t.normal(t.ones(40, dtype=t.float64), 0.5),
    "normal_ft": lambda t: t.normal(1.0, t.ones(20) * 3),
    "normal_ff": lambda t: t.normal(0.5, 2.0, (7,)),
    "normal_ff_big": lambda t: t.normal(0.5, 2.0, (70,)),
    "normal_bcast": lambda t: t.normal(t.zeros(2, 1), t.ones(3)),
    **{f"uniform_{d}": (lambda d: lambda t: t.empty(50, dtype=getattr(t, d)).uniform_(-2, 3))(d)
       for d in ("float32", "float64")},
    **{f"normal__{d}_{n}": (lambda d, n: lambda t: t.empty(n, dtype=getattr(t, d)).normal_(
        1.5, 2.0))(d, n) for d in ("float32", "float64") for n in (5, 40)},
    "normal__transposed": lambda t: t.zeros(5, 4).t().normal_(),
    "uniform__transposed": lambda t: t.zeros(5, 4).t().uniform_(),
    "bernoulli_f32": lambda t: t.bernoulli(t.rand(30)),
    "bernoulli_f64": lambda t: t.bernoulli(t.rand(30, dtype=t.float64)),
    "bernoulli_p": lambda t: t.bernoulli(t.zeros(30), 0.3),
    "bernoulli_": lambda t: t.empty(30).bernoulli_(0.3),
    "bernoulli__int": lambda t: t.empty(30, dtype=t.int64).bernoulli_(),
    "bernoulli__tensor": lambda t: t.empty(4, 6).bernoulli_(t.rand(6)),
    "multinomial": lambda t: t.multinomial(_w(t), 3),
    "multinomial_one": lambda t: t.multinomial(_w(t).repeat(3, 1), 1),
    "multinomial_all": lambda t: t.multinomial(_w(t), 5),
    "multinomial_repl": lambda t: t.multinomial(_w(t), 20, True),
    "multinomial_repl_2d": lambda t: t.multinomial(_w(t).repeat(2, 1).double(), 6, True),
    "exponential_": lambda t: t.empty(40, dtype=t.float64).exponential_(2.5),
    "exponential_f32": lambda t: t.empty(40).exponential_(),
    "geometric_": lambda t: t.empty(40).geometric_(0.3),
    "log_normal_": lambda t: t.empty(41, dtype=t.float64).log_normal_(0.5, 0.7),
    "cauchy_": lambda t: t.empty(40, dtype=t.float64).cauchy_(0.5, 2.0),
    **{f"random_{d}": (lambda d: lambda t: t.empty(20, dtype=getattr(t, d)).random_())(d)
       for d in ("int64", "int32", "int16", "int8", "uint8", "bool", "float32", "float64")},
    "random_to": lambda t: t.empty(20, dtype=t.int64).random_(10),
    "random_from_to": lambda t: t.empty(20).random_(-3, 9),
    "random_from": lambda t: t.empty(20, dtype=t.int8).random_(5, None),
    **{f"random_full_{d}": (lambda d: lambda t: t.empty(20, dtype=getattr(t, d)).random_(
        -2 ** 63, None))(d) for d in ("int64", "float32", "float64")},
    "random_from_f32": lambda t: t.empty(20).random_(3, None),
    "random_from_to_f64_wide": lambda t: t.empty(20, dtype=t.float64).random_(-5, 2 ** 40),
    "poisson": lambda t: t.poisson(t.tensor([0.5, 3.0, 0.0, 12.0, 50.0, 1000.0, 7.0] * 5,
                                            dtype=t.float64)),
    "poisson_f32": lambda t: t.poisson(t.tensor([0.5, 3.0, 12.0] * 4)),
    "rand_like": lambda t: t.rand_like(t.zeros(3, 7, dtype=t.float64)),
    "randn_like": lambda t: t.randn_like(t.zeros(3, 7)),
    "randint_like": lambda t: t.randint_like(t.zeros(3, 7), 4, 9),
    "dropout": lambda t: t.nn.functional.dropout(t.ones(100), 0.3),
    "dropout_transposed": lambda t: t.nn.functional.dropout(t.ones(5, 6).t(), 0.4),
    "multinomial_ties": lambda t: t.multinomial(t.tensor([0., 0, 1, 0, 2, 0, 0, 0]), 6),
    "multinomial_transposed": lambda t: t.multinomial(t.rand(3, 40).t(), 2),
    "multinomial_f16": lambda t: t.multinomial(t.rand(4, 50, dtype=t.float16), 3),
    "multinomial_repl_f16": lambda t: t.multinomial(t.rand(4, 50, dtype=t.float16), 3, True),
    "bernoulli_transposed": lambda t: t.bernoulli(t.rand(4, 6).t()),
    "bernoulli__transposed": lambda t: t.zeros(4, 6).t().bernoulli_(t.rand(6, 1)),
    "exponential__transposed": lambda t: t.zeros(4, 5).t().exponential_(),
    "mixed": lambda t: (t.rand(3), t.randn(3), t.randn(100), t.randint(0, 10, (5,)), t.randn(1),
                        t.empty(7).normal_(), t.rand(2, dtype=t.float64), t.randn(3),
                        t.randperm(5), t.randn(17, dtype=t.float64)),
}


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("f", STREAMS.values(), ids=STREAMS.keys())
def test_stream_matches_torch(f, seed):
    differential(f, seed)


M = 10_000      # large streams: the vectorised samplers over many elements and rows


def _rates(t, dtype, low, high):
    """M Poisson rates from low to high, shuffled so the two algorithms alternate."""
    order = t.tensor(np.random.default_rng(5).permutation(M))
    return t.linspace(low, high, M, dtype=t.float64)[order].to(dtype)


LARGE = {
    **{f"poisson_{d}_{lo}_{hi}": (lambda d, lo, hi: lambda t: t.poisson(
        _rates(t, getattr(t, d), lo, hi)))(d, lo, hi)
       for d in ("float32", "float64") for lo, hi in ((0, 9.99), (10, 2000), (0, 30))},
    "poisson_zeros_mixed": lambda t: t.poisson(t.tensor([0.0, 0.5, 10.0] * (M // 3))),
    # nothing drawn: the generator stays freshly seeded (its state says so)
    "poisson_all_zero": lambda t: t.poisson(t.zeros(M)),
    "poisson_empty": lambda t: t.poisson(t.empty(0)),
    "rand_empty": lambda t: t.rand(0, dtype=t.float64),
    **{f"multinomial_repl_{d}": (lambda d: lambda t: t.multinomial(
        t.arange(1, 301, dtype=getattr(t, d)).sin().abs().repeat(40, 1), 250, True))(d)
       for d in ("float16", "float32", "float64")},
    "multinomial_repl_one_row": lambda t: t.multinomial(t.tensor([0.0, 2.0, 0.0, 1e-3, 5.0]),
                                                        M, True),
    **{f"uniform_{d}": (lambda d: lambda t: t.empty(M, dtype=getattr(t, d)).uniform_(
        -100.3, 1000.7))(d) for d in ("float32", "float64")},
    **{f"normal_{d}": (lambda d: lambda t: t.empty(M, dtype=getattr(t, d)).normal_(
        -1.25, 3.3))(d) for d in ("float32", "float64")},
    "normal_scalar_path": lambda t: t.normal(t.zeros(M, 1, dtype=t.float64),
                                             t.full((M, 1), 0.7, dtype=t.float64)),
    "exponential": lambda t: t.empty(M, dtype=t.float64).exponential_(0.3),
    "geometric": lambda t: t.empty(M, dtype=t.float64).geometric_(0.01),
    "log_normal": lambda t: t.empty(M, dtype=t.float64).log_normal_(0.5, 1.7),
    "cauchy": lambda t: t.empty(M, dtype=t.float64).cauchy_(-3.5, 0.01),
}


@pytest.mark.parametrize("seed", SEEDS[:3])
@pytest.mark.parametrize("f", LARGE.values(), ids=LARGE.keys())
def test_large_stream_matches_torch(f, seed):
    differential(f, seed)


@pytest.mark.parametrize("seed", [0, 7])
def test_generator_objects(seed):
    """A Generator of its own draws torch's numbers and leaves the default stream alone."""
    tg, gen = torch.Generator().manual_seed(seed), gg.Generator().manual_seed(seed)
    torch.manual_seed(3)
    gg.manual_seed(3)
    for f in (lambda t, g: t.rand(5, generator=g), lambda t, g: t.randn(40, generator=g),
              lambda t, g: t.randn(3, generator=g), lambda t, g: t.randperm(9, generator=g),
              lambda t, g: t.empty(6).normal_(generator=g),
              lambda t, g: t.multinomial(_w(t), 2, generator=g)):
        _same_values(f(torch, tg), f(gg, gen))
        np.testing.assert_array_equal(gen.get_state().numpy(), tg.get_state().numpy())
    _same_state()           # the default generators did not move
    assert gen.initial_seed() == tg.initial_seed() == seed
    assert str(gen.device) == str(tg.device)
    fresh = gg.Generator()
    assert fresh.initial_seed() == torch.Generator().initial_seed()
    np.testing.assert_array_equal(fresh.get_state().numpy(), torch.Generator().get_state().numpy())


@pytest.mark.parametrize("seed", [0, -1, 2 ** 32 + 5, 2 ** 64 - 1, -(2 ** 63)])
def test_seeds(seed):
    torch.manual_seed(seed)
    gg.manual_seed(seed)
    assert gg.initial_seed() == torch.initial_seed()
    _same_state()
    _same_values(torch.rand(5), gg.rand(5))


def test_seed_overflow():
    for bad in (2 ** 64, -(2 ** 63) - 1):
        check_error(lambda t: t.manual_seed(bad))


def test_seed_is_fresh():
    s = gg.seed()
    assert gg.initial_seed() == s and 0 <= s < 2 ** 64
    assert gg.random.seed() != s


def test_rng_state_round_trip():
    """torch's saved state set into glassgrad gives torch's next numbers, and back."""
    torch.manual_seed(5)
    torch.randn(3)          # leaves a cached normal in the state
    torch.rand(700)         # crosses a twist
    saved = torch.get_rng_state()
    gg.set_rng_state(gg.tensor(saved.numpy()))
    _same_state()
    _same_values(torch.randn(5), gg.randn(5))
    mine = gg.get_rng_state()
    assert mine.dtype is gg.uint8 and mine.shape == (5056,)
    a = gg.rand(10)
    gg.random.set_rng_state(mine)
    _same_values(a, gg.rand(10))
    torch.set_rng_state(torch.from_numpy(mine.numpy()))
    _same_values(torch.rand(10), a)


def test_fork_rng():
    for lib in (torch, gg):
        lib.manual_seed(0)
        before = lib.get_rng_state()
        with lib.random.fork_rng():
            lib.rand(100)
        np.testing.assert_array_equal(lib.get_rng_state().numpy(), before.numpy())
        with lib.random.fork_rng(enabled=False):
            lib.rand(1)
        assert not np.array_equal(lib.get_rng_state().numpy(), before.numpy())
    _same_state()
    assert gg.random.initial_seed() == torch.random.initial_seed()
    assert gg.random.default_generator is gg.default_generator


# -- values and statistics -------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_uniform_(dtype):
    x = gg.empty(N, dtype=getattr(gg, dtype))
    assert x.uniform_(-2, 3) is x
    a = x.numpy().astype(np.float64)
    assert x.dtype is getattr(gg, dtype) and x._version == 1
    assert a.min() >= -2 and a.max() <= 3      # half rounds up to `to`, as in torch
    assert abs(a.mean() - 0.5) < 0.03 and abs(a.std() - 5 / np.sqrt(12)) < 0.03
    b = gg.empty(N).uniform_(**{"from": 1, "to": 2}).numpy()
    assert b.min() >= 1 and b.max() < 2 and abs(b.mean() - 1.5) < 0.01
    c = gg.empty(N).uniform_(0.5).numpy()
    assert c.min() >= 0.5 and c.max() < 1


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_normal_(dtype):
    x = gg.empty(N, dtype=getattr(gg, dtype)).normal_(1.5, 2.0)
    a = x.numpy().astype(np.float64)
    assert x.dtype is getattr(gg, dtype)
    assert abs(a.mean() - 1.5) < 0.03 and abs(a.std() - 2.0) < 0.03
    assert (gg.empty(5).normal_(3.0, 0.0).numpy() == 3.0).all()


def test_exponential_():
    a = gg.empty(N, dtype=gg.float64).exponential_(4.0).numpy()
    assert a.min() >= 0 and abs(a.mean() - 0.25) < 0.005 and abs(a.std() - 0.25) < 0.005


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "uint8", "bool"])
def test_bernoulli_(dtype):
    x = gg.empty(N, dtype=getattr(gg, dtype)).bernoulli_(0.3)
    a = x.numpy().astype(np.float64)
    assert x.dtype is getattr(gg, dtype)
    assert set(np.unique(a)) <= {0.0, 1.0} and abs(a.mean() - 0.3) < 0.01
    p = gg.tensor([0.0, 0.2, 0.9, 1.0])
    b = gg.empty(N, 4, dtype=getattr(gg, dtype)).bernoulli_(p).numpy().astype(np.float64)
    np.testing.assert_allclose(b.mean(0), [0.0, 0.2, 0.9, 1.0], atol=0.01)
    assert gg.zeros(10).bernoulli_().numpy().sum() > 0      # default p=0.5


def test_bernoulli():
    p = gg.tensor([0.0, 0.25, 0.75, 1.0], dtype=gg.float64)
    out = gg.bernoulli(p.expand(N, 4))
    assert out.dtype is gg.float64 and out.shape == (N, 4)
    a = out.numpy()
    assert set(np.unique(a)) <= {0.0, 1.0}
    np.testing.assert_allclose(a.mean(0), [0.0, 0.25, 0.75, 1.0], atol=0.01)
    np.testing.assert_allclose(p.expand(N, 4).bernoulli().numpy().mean(0), p.numpy(), atol=0.01)
    ints = gg.bernoulli(gg.zeros(N, dtype=gg.int64), 0.6)
    assert ints.dtype is gg.int64 and abs(ints.numpy().mean() - 0.6) < 0.01


def test_normal():
    mean = gg.tensor([[-1.0], [2.0]], dtype=gg.float64)
    std = gg.tensor([0.5, 1.0, 3.0])
    out = gg.normal(mean.expand(2, N // 10).reshape(2, N // 10, 1), std)
    assert out.shape == (2, N // 10, 3) and out.dtype is gg.float64
    a = out.numpy()
    np.testing.assert_allclose(a.mean(1), [[-1.0] * 3, [2.0] * 3], atol=0.1)
    np.testing.assert_allclose(a.std(1), [[0.5, 1.0, 3.0]] * 2, rtol=0.03)
    b = gg.normal(gg.full((N,), 2.0), 0.5).numpy()
    assert abs(b.mean() - 2) < 0.01 and abs(b.std() - 0.5) < 0.01
    c = gg.normal(-3.0, gg.full((N,), 2.0)).numpy()
    assert abs(c.mean() + 3) < 0.03 and abs(c.std() - 2) < 0.03
    d = gg.normal(1.0, 2.0, (N,), dtype=gg.float64)
    assert d.dtype is gg.float64 and abs(d.numpy().mean() - 1) < 0.03
    assert str(gg.normal(0, 1, [2, 3]).dtype) == str(torch.normal(0, 1, [2, 3]).dtype)
    assert gg.normal(0.0, 1.0, (3,), requires_grad=True).requires_grad
    assert gg.normal(gg.tensor(0.), gg.tensor(1.)).shape == ()


@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "uint8", "float32", "float64"])
def test_randperm(dtype):
    for n in (0, 1, 7, 100):
        p = gg.randperm(n, dtype=getattr(gg, dtype))
        assert p.dtype is getattr(gg, dtype) and p.shape == (n,)
        np.testing.assert_array_equal(np.sort(p.numpy()), np.arange(n))
    assert gg.randperm(3, dtype=gg.float32, requires_grad=True).requires_grad


def test_multinomial_without_replacement():
    probs = gg.tensor([[0.1, 0.0, 0.5, 0.4, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0]])
    for _ in range(200):
        out = gg.multinomial(probs, 3).numpy()
        assert out.shape == (2, 3) and out.dtype == np.int64
        assert all(len(set(r)) == 3 for r in out)              # no repeats
        assert set(out[0]) == {0, 2, 3}                         # zero-probability never first
    full = gg.multinomial(probs, 5).numpy()
    assert all(sorted(r) == [0, 1, 2, 3, 4] for r in full)
    first = np.array([gg.multinomial(probs[0], 1).item() for _ in range(3000)])
    np.testing.assert_allclose(np.bincount(first, minlength=5) / 3000,
                               [0.1, 0.0, 0.5, 0.4, 0.0], atol=0.03)


def test_multinomial_with_replacement():
    probs = gg.tensor([2.0, 0.0, 5.0, 3.0])         # unnormalised weights
    out = probs.multinomial(N, replacement=True).numpy()
    assert out.shape == (N,) and out.dtype == np.int64
    np.testing.assert_allclose(np.bincount(out, minlength=4) / N, [0.2, 0.0, 0.5, 0.3],
                               atol=0.01)
    assert gg.multinomial(gg.ones(2, 3), 10, True).shape == (2, 10)
    assert gg.multinomial(gg.ones(0, 3), 2).shape == (0, 2)


# -- dropout ---------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("p", [0.1, 0.3, 0.5, 0.9])
def test_dropout_scaling(p, dtype):
    """The kept values are input / (1 - p), computed as torch computes it; about p dropped."""
    def run(lib):
        x = lib.ones(N, dtype=getattr(lib, dtype), requires_grad=True)
        out = lib.nn.functional.dropout(x, p)
        saved = out.grad_fn._saved_self, out.grad_fn._saved_other
        out.backward(lib.ones(N, dtype=getattr(lib, dtype)))
        return out, x.grad, saved
    (t_out, t_grad, (t_self, _)), (g_out, g_grad, (g_self, g_other)) = run(torch), run(gg)
    t_vals, g_vals = t_out.detach().numpy(), g_out.detach().numpy()
    assert g_vals.dtype == t_vals.dtype
    np.testing.assert_array_equal(np.unique(g_vals), np.unique(t_vals))   # {0, 1/(1-p)}
    assert abs((g_vals == 0).mean() - p) < 0.01
    assert type(g_out.grad_fn).__name__ == type(t_out.grad_fn).__name__ == "MulBackward0"
    np.testing.assert_array_equal(g_grad.numpy(), g_vals)     # d(x * mask)/dx = mask
    np.testing.assert_array_equal(g_other.numpy(), g_vals)
    assert_same(t_self, g_self, "_saved_self")      # not saved: the mask needs no grad


def test_dropout_training_flag_and_inplace():
    x = gg.ones(1000)
    assert gg.nn.functional.dropout(x, 0.5, training=False) is x
    assert gg.nn.functional.dropout(x, 0.0) is x
    assert gg.dropout(x, 0.5, False) is x
    np.testing.assert_array_equal(gg.nn.functional.dropout(x, 1.0).numpy(), np.zeros(1000))
    y = gg.ones(1000)
    out = gg.nn.functional.dropout(y, 0.5, inplace=True)
    assert out is y and y._version == 1 and set(np.unique(y.numpy())) == {0.0, 2.0}
    a = gg.dropout(gg.ones(N), 0.25, True).numpy()
    assert abs((a == 0).mean() - 0.25) < 0.01
    gg.manual_seed(5)
    b = gg.nn.functional.dropout(gg.ones(50), 0.5).numpy()
    gg.manual_seed(5)
    np.testing.assert_array_equal(gg.nn.functional.dropout(gg.ones(50), 0.5).numpy(), b)


# -- graph: node names and zero gradients, against torch -------------------------------------
GRAPHS = {
    "uniform_": lambda t, x, q: (x * 1).uniform_(),
    "normal_": lambda t, x, q: (x * 1).normal_(2.0, 0.5),
    "exponential_": lambda t, x, q: (x * 1).exponential_(),
    "bernoulli_": lambda t, x, q: (x * 1).bernoulli_(0.3),
    "bernoulli_tensor": lambda t, x, q: (x * 1).bernoulli_(q.sigmoid()),
    "bernoulli": lambda t, x, q: t.bernoulli(x.sigmoid()),
    "normal_tt": lambda t, x, q: t.normal(x, q.exp()),
    "normal_tf": lambda t, x, q: t.normal(x, 0.5),
    "normal_ft": lambda t, x, q: t.normal(1.0, q.exp()),
    "normal_bcast": lambda t, x, q: t.normal(x[:, :1], q[0].exp()),
}


@pytest.mark.parametrize("f", GRAPHS.values(), ids=GRAPHS.keys())
def test_random_graph(f):
    arrays = [np.random.default_rng(i).standard_normal((3, 4)) for i in range(2)]

    def run(lib):
        x, q = (lib.tensor(a, requires_grad=True) for a in arrays)
        out = f(lib, x, q)
        grads = lib.autograd.grad(out.sum(), (x, q), allow_unused=True)
        return out, grads
    (t_out, t_grads), (g_out, g_grads) = run(torch), run(gg)
    assert type(g_out.grad_fn).__name__ == type(t_out.grad_fn).__name__
    assert g_out.shape == t_out.shape and str(g_out.dtype) == str(t_out.dtype)
    assert g_out._version == t_out._version
    for t, g in zip(t_grads, g_grads):
        assert_same(t, g, "grad")
    for name in ("_saved_mean_sym_sizes", "_saved_std_sym_sizes"):
        if hasattr(t_out.grad_fn, name):
            assert getattr(g_out.grad_fn, name) == getattr(t_out.grad_fn, name)


def test_bernoulli_p_not_differentiable():
    def run(lib):
        out = lib.bernoulli(lib.ones(3, requires_grad=True) * 0.5, 0.3)
        return type(out.grad_fn).__name__, outcome(lambda: out.sum().backward())[1]
    assert run(gg) == run(torch)


# -- errors ----------------------------------------------------------------------------------
def _T(t, *s, **kw):
    return t.ones(*s, **kw)


ERRORS = {
    "uniform_int": lambda t: t.zeros(3, dtype=t.int64).uniform_(),
    "uniform_range": lambda t: t.zeros(3).uniform_(2, 1),
    "uniform_range_frac": lambda t: t.zeros(3).uniform_(1.5, 0.25),
    "uniform_to_inf": lambda t: t.zeros(3).uniform_(0, float("inf")),
    "uniform_from_f16": lambda t: t.zeros(3, dtype=t.float16).uniform_(-1e6, 0),
    "uniform_to_f16": lambda t: t.zeros(3, dtype=t.float16).uniform_(0, 1e6),
    "uniform_leaf": lambda t: _T(t, 3, requires_grad=True).uniform_(),
    "uniform_expanded": lambda t: t.zeros(1, 3).expand(2, 3).uniform_(),
    "normal_int": lambda t: t.zeros(3, dtype=t.int64).normal_(),
    "normal_std": lambda t: t.zeros(3).normal_(0, -1),
    "normal_std_frac": lambda t: t.zeros(3).normal_(0, -0.5),
    "normal_expanded": lambda t: t.zeros(1, 3).expand(2, 3).normal_(),
    "exponential_int": lambda t: t.zeros(3, dtype=t.int64).exponential_(),
    "exponential_neg": lambda t: t.zeros(3).exponential_(-1),
    "exponential_zero": lambda t: t.zeros(3).exponential_(0),
    "exponential_frac": lambda t: t.zeros(3).exponential_(-0.5),
    "bernoulli__p": lambda t: t.zeros(3).bernoulli_(1.5),
    "bernoulli__pneg": lambda t: t.zeros(3).bernoulli_(-0.5),
    "bernoulli__p_frac": lambda t: t.zeros(3).bernoulli_(1.25),
    "bernoulli__tensor_range": lambda t: t.zeros(3).bernoulli_(t.tensor([0.5, 2., 0.])),
    "bernoulli__tensor_shape": lambda t: t.zeros(3).bernoulli_(t.tensor([0.5, 0.5])),
    "bernoulli__leaf": lambda t: _T(t, 3, requires_grad=True).bernoulli_(),
    "bernoulli_range": lambda t: t.bernoulli(t.tensor([0.5, 1.5])),
    "bernoulli_neg": lambda t: t.bernoulli(t.tensor([0.5, -0.5])),
    "bernoulli_int": lambda t: t.bernoulli(t.tensor([1, 0])),
    "bernoulli_p": lambda t: t.bernoulli(t.tensor([0.5, 0.5]), p=1.5),
    "normal_tf_std": lambda t: t.normal(_T(t, 3), -1.0),
    "normal_tf_std_frac": lambda t: t.normal(_T(t, 3), -1.5),
    "normal_tt_std": lambda t: t.normal(_T(t, 3), -_T(t, 3)),
    "normal_ft_std": lambda t: t.normal(0.0, -_T(t, 3)),
    "normal_ff_std": lambda t: t.normal(1.0, -1.0, (3,)),
    "normal_shape": lambda t: t.normal(_T(t, 3), _T(t, 4)),
    "normal_int": lambda t: t.normal(_T(t, 3).long(), 1.0),
    "normal_int_both": lambda t: t.normal(_T(t, 3).long(), _T(t, 3)),
    "normal_int_std": lambda t: t.normal(2, _T(t, 3).long()),
    "normal_ff_int_dtype": lambda t: t.normal(2, 3, (2,), dtype=t.int64),
    "normal_no_size": lambda t: t.normal(1.0, 1.0),
    "normal_int_size": lambda t: t.normal(0., 1., 3),
    "normal_tensor_size": lambda t: t.normal(_T(t, 3), 1.0, (3,)),
    "randperm_neg": lambda t: t.randperm(-1),
    "randperm_bool": lambda t: t.randperm(2, dtype=t.bool),
    "randperm_int8": lambda t: t.randperm(200, dtype=t.int8),
    "randperm_uint8": lambda t: t.randperm(300, dtype=t.uint8),
    "randperm_f16": lambda t: t.randperm(3000, dtype=t.float16),
    "randperm_requires_grad": lambda t: t.randperm(4, requires_grad=True),
    "multinomial_3d": lambda t: t.multinomial(_T(t, 2, 2, 2), 1),
    "multinomial_0d": lambda t: t.multinomial(t.tensor(1.), 1),
    "multinomial_int": lambda t: t.multinomial(t.tensor([1, 2]), 1),
    "multinomial_too_many": lambda t: t.multinomial(_T(t, 3), 4),
    "multinomial_zero_samples": lambda t: t.multinomial(_T(t, 3), 0),
    "multinomial_zero_cats": lambda t: t.multinomial(_T(t, 0), 1),
    "multinomial_neg": lambda t: t.multinomial(t.tensor([1., -1.]), 1),
    "multinomial_nan": lambda t: t.multinomial(t.tensor([1., float("nan")]), 1),
    "multinomial_inf": lambda t: t.multinomial(t.tensor([1., float("inf")]), 2),
    "multinomial_zero_sum": lambda t: t.multinomial(t.tensor([0., 0.]), 1),
    "multinomial_zero_row": lambda t: t.multinomial(t.tensor([[0., 0.], [1., 1.]]), 1),
    "multinomial_repl_neg": lambda t: t.multinomial(t.tensor([1., -1.]), 2, True),
    "multinomial_repl_inf": lambda t: t.multinomial(t.tensor([1., float("inf")]), 2, True),
    "multinomial_repl_nan": lambda t: t.multinomial(t.tensor([1., float("nan")]), 2, True),
    "multinomial_repl_zero_sum": lambda t: t.multinomial(t.tensor([0., 0.]), 2, True),
    "geometric_zero": lambda t: t.zeros(3).geometric_(0),
    "geometric_one": lambda t: t.zeros(3).geometric_(1),
    "geometric_big": lambda t: t.zeros(3).geometric_(1.5),
    "log_normal_std": lambda t: t.zeros(3).log_normal_(0, 0),
    "log_normal_int": lambda t: t.zeros(3, dtype=t.int64).log_normal_(),
    "cauchy_sigma": lambda t: t.zeros(3).cauchy_(0, -1),
    **{f"cauchy_{d}": (lambda d: lambda t: t.zeros(3, dtype=getattr(t, d)).cauchy_())(d)
       for d in ("int64", "int32", "uint8", "bool")},
    "random_from_to": lambda t: t.zeros(3).random_(5, 2),
    "random_to_zero": lambda t: t.zeros(3).random_(0),
    "random_to_neg": lambda t: t.zeros(3).random_(-1),
    "random_from_uint8": lambda t: t.zeros(3, dtype=t.uint8).random_(-3, 5),
    "random_to_int8": lambda t: t.zeros(3, dtype=t.int8).random_(0, 1000),
    "random_to_bool": lambda t: t.zeros(3, dtype=t.bool).random_(0, 3),
    "random_from_int8": lambda t: t.zeros(3, dtype=t.int8).random_(-300, None),
    **{f"random_full_{d}": (lambda d: lambda t: t.zeros(3, dtype=getattr(t, d)).random_(
        -2 ** 63, None))(d) for d in ("int32", "uint8", "bool", "float16")},
    "randint_range": lambda t: t.randint(3, 2, (2,)),
    "poisson_neg": lambda t: t.poisson(t.tensor([-1.0])),
    "poisson_int": lambda t: t.poisson(t.tensor([1, 2])),
    "set_rng_state_size": lambda t: t.set_rng_state(t.zeros(3, dtype=t.uint8)),
    "generator_cuda": lambda t: t.Generator("cuda"),
    "set_rng_state_dtype": lambda t: t.set_rng_state(t.zeros(5056)),
}


@pytest.mark.parametrize("f", ERRORS.values(), ids=ERRORS.keys())
def test_errors(f):
    check_error(f)
