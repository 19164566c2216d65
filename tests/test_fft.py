"""torch.fft against torch 2.13: every function of the namespace over real and complex inputs,
n/s/dim/norm, output dtypes, grad_fn names, gradients of real losses (and a second order),
the frequency helpers and shifts, and torch's errors."""
import pytest
import torch

import glassgrad as gg
from differential import assert_same, catch, run

TOL = {"float32": (2e-5, 2e-5), "complex64": (2e-5, 2e-5), "float64": (1e-10, 1e-10),
       "complex128": (1e-10, 1e-10)}
NORMS = [None, "backward", "forward", "ortho"]
ONE_D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
N_D = ["fft2", "ifft2", "fftn", "ifftn", "rfft2", "irfft2", "rfftn", "irfftn", "hfft2",
       "ihfft2", "hfftn", "ihfftn"]
REAL_ONLY = {"rfft", "ihfft", "rfft2", "rfftn", "ihfft2", "ihfftn"}


def same(program, tol=TOL):
    assert_same(run(program, torch), run(program, gg), tol=tol)


def test_namespace():
    assert sorted(n for n in torch.fft.__all__) == sorted(gg.fft.__all__) or \
        set(torch.fft.__all__) <= set(gg.fft.__all__)
    for name in ONE_D + N_D + ["fftfreq", "rfftfreq", "fftshift", "ifftshift"]:
        assert callable(getattr(gg.fft, name)), name


def _input(t, dtype, shape, seed=0):
    t.manual_seed(seed)
    if dtype.startswith("complex"):
        return t.randn(*shape, dtype=getattr(t, dtype))
    if dtype == "int64":
        return t.randint(-5, 5, shape)
    return t.randn(*shape, dtype=getattr(t, dtype))


def _loss(t, out):
    """A real loss of an fft output (complex: its modulus and a weighted real part)."""
    if out.dtype.is_complex:
        w = t.linspace(-1, 1, out.numel(), dtype=out.real.dtype).reshape(out.shape)
        return out.abs().sum() + (out * w).real.sum()
    return (out * out).sum()


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128", "int64"])
@pytest.mark.parametrize("name", ONE_D)
@pytest.mark.parametrize("n,dim", [(None, -1), (None, 0), (3, -1), (9, -1), (1, 0)])
def test_one_dim(name, dtype, n, dim):
    def program(t):
        x = _input(t, dtype, (4, 6))
        out = []
        for norm in NORMS:
            y = catch(getattr(t.fft, name), x, n, dim, norm)
            out.append(y)
            if not dtype.startswith("int") and not isinstance(y, Exception) and \
                    hasattr(y, "dtype"):
                xg = x.detach().requires_grad_()
                r = getattr(t.fft, name)(xg, n, dim, norm)
                g, = t.autograd.grad(_loss(t, r), xg)
                out += [type(r.grad_fn).__name__, g]
        return out
    same(program)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("name", N_D)
@pytest.mark.parametrize("s,dim", [(None, None), ((3, 5), None), (None, (0, 2)), ((2, 8), (2, 0)),
                                   ((-1, 4), (-1, 1)), ((5,), (1,)), ((4, 3, 6), None)])
def test_n_dim(name, dtype, s, dim):
    def program(t):
        x = _input(t, dtype, (4, 3, 6))
        out = []
        for norm in NORMS:
            kw = {} if dim is None else {"dim": dim}
            if s is not None:
                kw["s"] = s
            y = catch(getattr(t.fft, name), x, norm=norm, **kw)
            out.append(y)
            if hasattr(y, "dtype"):
                xg = x.detach().requires_grad_()
                r = getattr(t.fft, name)(xg, norm=norm, **kw)
                g, = t.autograd.grad(_loss(t, r), xg)
                out += [type(r.grad_fn).__name__, g]
        return out
    same(program)


@pytest.mark.parametrize("name", ["fft", "rfft", "irfft", "hfft", "ihfft", "fft2", "irfftn",
                                  "hfftn", "ihfftn"])
def test_double_backward(name):
    def program(t):
        x = _input(t, "complex128" if name in ("irfft", "hfft", "irfftn", "hfftn") else
                   "float64", (3, 4)).requires_grad_()
        y = getattr(t.fft, name)(x)
        g, = t.autograd.grad(_loss(t, y), x, create_graph=True)
        g2, = t.autograd.grad(_loss(t, g * 1.5), x)
        return g, g2
    same(program)


def test_conjugate_results():
    def program(t):
        x = _input(t, "float32", (5,))
        return [t.fft.ifft(x).is_conj(), t.fft.ihfft(x).is_conj(), t.fft.fft(x).is_conj(),
                t.fft.ihfftn(x).is_conj(), t.fft.ihfft2(_input(t, "float32", (2, 3))).is_conj()]
    same(program)


def test_frequencies_and_shifts():
    def program(t):
        x = t.arange(12.0).reshape(3, 4)
        return [t.fft.fftfreq(5), t.fft.fftfreq(6, 0.1), t.fft.fftfreq(4, dtype=t.float64),
                t.fft.rfftfreq(5, d=0.5), t.fft.rfftfreq(8), t.fft.fftfreq(0),
                t.fft.fftfreq(1), t.fft.fftfreq(3, requires_grad=True),
                t.fft.fftshift(t.arange(6)), t.fft.ifftshift(t.arange(7)),
                t.fft.fftshift(x), t.fft.ifftshift(x, dim=1), t.fft.fftshift(x, dim=(0,)),
                t.fft.fftshift(x, dim=-1), catch(t.fft.fftshift, t.tensor(1.0)),
                type(t.fft.fftshift(x.requires_grad_()).grad_fn).__name__]
    same(program)


@pytest.mark.parametrize("call", [
    lambda t: t.fft.fft(t.ones(4), norm="bad"),
    lambda t: t.fft.fft(t.ones(4), n=0),
    lambda t: t.fft.fft(t.ones(4), dim=3),
    lambda t: t.fft.rfft(t.ones(4, dtype=t.cfloat)),
    lambda t: t.fft.ihfft(t.ones(4, dtype=t.cfloat)),
    lambda t: t.fft.rfftn(t.ones(4, 4, dtype=t.cfloat)),
    lambda t: t.fft.fft(t.ones(4, dtype=t.float16)),
    lambda t: t.fft.fft2(t.ones(4)),
    lambda t: t.fft.irfft(t.ones(1, dtype=t.cfloat)),
    lambda t: t.fft.hfft(t.ones(1, dtype=t.cfloat)),
    lambda t: t.fft.fftn(t.ones(4, 4), s=(2,), dim=(0, 1)),
    lambda t: t.fft.fftn(t.ones(4, 4), dim=(0, 0)),
    lambda t: t.fft.fftn(t.ones(4, 4), s=(2, 2, 2)),
    lambda t: t.fft.fft(t.ones(())),
    lambda t: t.fft.fft(t.ones(4, 4), dim=(0,)),
    lambda t: t.fft.fft(t.ones(4, dtype=t.bool)),
    lambda t: t.fft.fft(t.ones(4), 3.5),
    lambda t: t.fft.irfftn(t.ones(4, 4, dtype=t.cfloat), s=(4, 0)),
])
def test_errors_and_promotion(call):
    same(call)
