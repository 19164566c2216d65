"""Complex numbers against torch 2.13: dtypes and promotion, inference, creation and random
streams, printing, real/imag views, view_as_real/view_as_complex, the conjugate bit, angle/abs/
polar/complex/sgn, conversions, errors, and complex autograd (torch's conjugate Wirtinger
convention: gradients of real losses of complex tensors), grad_fn names."""
import itertools

import numpy as np
import pytest
import torch

import glassgrad as gg
from differential import Raised, assert_same, catch, run

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64",
          "complex64", "complex128"]
TOL = {"float32": (1e-5, 1e-6), "complex64": (1e-5, 1e-6), "float64": (1e-12, 1e-12),
       "complex128": (1e-12, 1e-12)}


def same(program, tol=TOL):
    expected = run(program, torch)
    assert_same(expected, run(program, gg), tol=tol)
    return expected


def test_dtype_objects():
    same(lambda t: [(repr(d), d.is_complex, d.is_floating_point, d.is_signed, d.itemsize)
                    for d in (t.complex64, t.complex128, t.cfloat, t.cdouble)])
    assert gg.cfloat is gg.complex64 and gg.cdouble is gg.complex128


@pytest.mark.parametrize("a,b", list(itertools.product(DTYPES, DTYPES)))
def test_promote_types(a, b):
    same(lambda t: t.promote_types(getattr(t, a), getattr(t, b)))


@pytest.mark.parametrize("a", DTYPES)
@pytest.mark.parametrize("b", ["complex64", "complex128", 1j, 2.5, 3])
def test_result_type(a, b):
    if a == "float16" and b == 1j:      # torch: complex32, which glassgrad refuses
        assert isinstance(catch(gg.result_type, gg.ones(2, dtype=gg.float16), 1j), Raised)
        return
    for za, zb in itertools.product((True, False), repeat=2):
        if (a, b, za, zb) in (("float16", "complex64", False, True),
                              ("float16", "complex128", False, True)):
            continue    # complex32 again

        def program(t):
            x = t.ones(() if za else (2,), dtype=getattr(t, a))
            y = t.ones(() if zb else (2,), dtype=getattr(t, b)) if isinstance(b, str) else b
            return t.result_type(x, y), (x * y).dtype if a != "bool" or b != 1j else None
        same(program)


def test_chalf_refused():
    with pytest.raises(NotImplementedError, match="complex32"):
        gg.ones(2, dtype=gg.float16) * 1j


@pytest.mark.parametrize("default", ["float32", "float64"])
def test_default_complex_dtype(default):
    def program(t):
        old = t.get_default_dtype()
        t.set_default_dtype(getattr(t, default))
        try:
            return (t.tensor([1j]).dtype, t.tensor(2 + 0j).dtype, t.result_type(t.ones(2), 1j),
                    repr(t.tensor([1 + 1j])), repr(t.ones(1, dtype=t.complex64)),
                    repr(t.ones(1, dtype=t.complex128)))
        finally:
            t.set_default_dtype(old)
    same(program)


def test_tensor_inference_and_creation():
    same(lambda t: [t.tensor([1 + 2j, 3 - 1j]), t.tensor(1 + 2j), t.tensor([1, True, 2.5 + 1j]),
                    t.tensor([1.0, 2.0], dtype=t.complex64), t.tensor([1j], dtype=t.complex128),
                    t.tensor([1j, 0j], dtype=t.bool),
                    t.zeros(2, dtype=t.cfloat), t.ones(2, 2, dtype=t.cdouble),
                    t.full((2,), 1j), t.full((2,), 1j, dtype=t.complex128),
                    t.zeros_like(t.ones(2, dtype=t.cfloat)), t.empty(3, dtype=t.cfloat).shape])
    same(lambda t: catch(t.tensor, [1j, 2], dtype=t.float32))
    same(lambda t: catch(t.tensor, [1j, 2], dtype=t.int64))
    same(lambda t: t.ones(2, dtype=t.cfloat, requires_grad=True))


def test_random_streams():
    def program(t):
        t.manual_seed(0)
        return [t.randn(3, dtype=t.cfloat), t.randn(20, dtype=t.cfloat),
                t.randn(7, dtype=t.cdouble), t.rand(9, dtype=t.cfloat),
                t.rand(2, 3, dtype=t.complex128), t.randn_like(t.ones(17, dtype=t.cfloat)),
                t.rand_like(t.ones(4, dtype=t.cdouble)), t.randn(5)]
    same(program, tol={})    # bit for bit


@pytest.mark.parametrize("values", [
    [1 + 2j, 3 - 1j], [1e-5 + 2j, 3 - 1000j], [1.5 + 2j, -0.0 - 0.0j, float("nan") + 1j,
                                               complex(0, float("inf"))],
    [complex(i, -i / 3) for i in range(40)], [complex(i, -i / 3) for i in range(2000)],
    [complex(1e10, 1e-10), 1j], [0j, 0j]])
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_repr(values, dtype):
    same(lambda t: [repr(t.tensor(values, dtype=getattr(t, dtype))),
                    repr(t.tensor(values, dtype=getattr(t, dtype)).reshape(-1, 2)
                         if len(values) % 2 == 0 else None),
                    repr(t.tensor(values[0], dtype=getattr(t, dtype))),
                    str(t.tensor(values, dtype=getattr(t, dtype), requires_grad=True))])


def test_repr_options():
    def program(t):
        x = t.tensor([1.123456 + 2j, -3.5 - 0.25j])
        out = []
        for opts in ({"precision": 2}, {"sci_mode": True}, {"linewidth": 20}):
            t.set_printoptions(**opts)
            try:
                out.append(repr(x))
            finally:
                t.set_printoptions(profile="default")
        return out + [repr(t.zeros(0, dtype=t.cfloat)), repr(t.zeros(0, dtype=t.cdouble))]
    same(program)


def test_conversions():
    same(lambda t: [t.tensor(1 + 2j).item(), type(t.tensor(1 + 2j).item()).__name__,
                    t.tensor([1 + 2j]).tolist(), t.tensor([1 + 2j]).numpy(),
                    t.from_numpy(np.array([1 + 1j], np.complex128)),
                    t.tensor(np.array([2j], np.complex64)), t.tensor([1j]).is_complex(),
                    t.is_complex(t.ones(2)), t.tensor([1j]).is_floating_point()])


def test_real_imag_views():
    def program(t):
        x = t.tensor([[1 + 2j, 3 - 4j], [5j, -1 + 0j]])
        re, im = x.real, x.imag
        re[0, 0] = 10.0          # views: writes reach x
        im.mul_(2)
        y = t.ones(3)
        return [re, im, x, t.real(x), t.imag(x), y.real is y, re.stride(), im.stride(),
                x.t().real, x[:, 1].imag, re._is_view(), catch(lambda: y.imag)]
    same(program)


def test_view_as_real_complex():
    def program(t):
        x = t.tensor([1 + 2j, 3 - 4j, 5j])
        r = t.view_as_real(x)
        r[0, 1] = -7.0
        c = t.view_as_complex(t.arange(12.0).reshape(3, 2, 2))
        c[0, 0] = 0j
        return [r, x, r.stride(), c, c.stride(), t.view_as_real(t.tensor(1j)),
                t.view_as_complex(t.tensor([1.0, 2.0], dtype=t.float64)),
                t.view_as_real(x.t() if x.dim() > 1 else x[::2]),
                catch(t.view_as_real, t.ones(3)), catch(t.view_as_complex, t.ones(3)),
                catch(t.view_as_complex, t.ones(3, 2).t()),
                catch(t.view_as_complex, t.ones(3, 4)[:, :2].reshape(3, 2)[:, :]),
                catch(t.view_as_complex, t.ones(4, 2)[::1, :]),
                catch(t.view_as_complex, t.ones(3, 2, dtype=t.int64)),
                catch(t.view_as_real, x.conj())]
    same(program)


def test_conj_bit():
    def program(t):
        x = t.tensor([1 + 2j, -3j])
        y = x.conj()
        r = t.ones(2)
        return [y, y.is_conj(), x.is_conj(), y.resolve_conj(), y.resolve_conj().is_conj(),
                t.conj_physical(x), t.conj_physical(x).is_conj(), y.conj().is_conj(),
                y.conj(), r.conj() is r, r.conj().is_conj(), x.resolve_conj() is x,
                t.is_conj(y), repr(y), y.real, y.imag, t.conj(x) * 2, catch(y.numpy),
                y.numpy(force=True), y.detach().is_conj(), y.tolist(), y[0].item(),
                y.clone().is_conj(), (y * 1).is_conj()]
    same(program)


def test_conj_and_negative_bits_follow_views():
    """A view of a conjugate (same dtype) is a conjugate, .imag of one carries the negative
    bit and so do its views; copies, .real and results of math do not (as torch's views)."""
    def program(t):
        x = t.tensor([[1 + 2j, 3 - 1j], [0.5j, 2]])
        y = x.conj()
        views = [y[0], y.t(), y.view(4), y.reshape(4), y.unsqueeze(0), y.expand(2, 2, 2),
                 y.diagonal(), y.select(1, 0), y.narrow(0, 0, 1), y.flatten(), y.contiguous(),
                 y.detach()[1]]
        copies = [y.t().reshape(4), y.clone(), y + 1, y.real, y.imag]
        return ([v.is_conj() for v in views] + [c.is_conj() for c in copies]
                + [y.imag.is_neg(), y.imag.t().is_neg(), y[0].imag.is_neg(), y.real.is_neg(),
                   catch(t.view_as_real, y[0]), t.view_as_real(y[0].resolve_conj()), views])
    same(program)


def test_conj_writes_reach_its_input():
    """Writes into conj()'s result, its views and detach()es land in the input, conjugated,
    as through torch's lazy conj view (version counters bumped as torch's)."""
    def program(t):
        x = t.tensor([1 + 2j, 3 - 1j, -2j])
        y = x.conj()
        y[0] = 5 + 1j
        out = [x.clone(), y.clone(), x._version, y._version]
        y.mul_(2)
        y[1:].add_(1j)
        y.detach()[2:].fill_(7j)
        out += [x.clone(), y.clone(), x._version]
        z = y.conj()
        z.zero_()
        out += [x, y, z, z.is_conj(), y.is_conj()]
        w = t.tensor([1 + 2j, 3 - 1j], requires_grad=True)
        out.append(catch(lambda: w.conj().mul_(2)))
        with t.no_grad():
            w.conj().mul_(2)
        return out + [w]
    same(program)


def test_conj_write_of_a_recorded_input_refused():
    """torch rebases the input's history (CopySlices); glassgrad's conj() is no view."""
    v = gg.tensor([1 + 2j, 3 - 1j], requires_grad=True) * 1
    with pytest.raises(NotImplementedError, match="conj"):
        v.conj().mul_(2)


def test_conj_physical_inplace_and_the_negative_bit():
    def program(t):
        r = t.tensor([1 + 1j, -2j])
        q = t.ones(2)
        a = t.tensor([1 + 2j, 3 - 1j], requires_grad=True)
        b = a * 1
        b.conj_physical_()
        g, = t.autograd.grad(b.abs().sum() + b.real.sum() + b.imag.sum(), a)
        return [t.conj_physical_(r), r, r.conj_physical_(), q.conj_physical_() is q,
                t.resolve_neg(q) is q, t.is_neg(q), q.is_neg(), q.resolve_neg() is q,
                t.is_neg(r.conj()), b, b.grad_fn.name(), g,
                catch(lambda: t.tensor([1j], requires_grad=True).conj_physical_())]
    same(program)


def test_angle_abs_polar_complex_sgn():
    def program(t):
        x = t.tensor([1 + 2j, 0j, -3 + 0.5j, -2 + 0j, float("nan") + 1j])
        r = t.tensor([-2.0, 0.0, 1.5, float("nan")])
        a, b = t.tensor([1.0, 2.0, 0.5]), t.tensor([0.0, 3.0, -1.0])
        return [x.abs(), x.angle(), t.angle(r), t.angle(t.tensor([-1, 0, 2])), x.sgn(),
                t.abs(x.to(t.complex128)), t.polar(a, b), t.polar(a.double(), b.double()),
                t.complex(a, b), t.complex(a.double(), b.double()),
                catch(t.complex, a, b.double()), catch(t.polar, a.long(), b.long()),
                catch(t.sign, x), catch(t.lt, x, x)]
    same(program)


def test_arithmetic_and_math():
    def program(t):
        t.manual_seed(1)
        x = t.randn(5, dtype=t.cfloat)
        y = t.randn(5, dtype=t.cfloat)
        r = t.randn(5, dtype=t.float64)
        return [x + y, x - y, x * y, x / y, x * 2, 2j * x, x / 1j, x + r, x * r, -x, x ** 2,
                x.exp(), x.log(), x.sin(), x.cos(), x.sqrt(), x.tanh(), x.sum(), x.mean(),
                t.matmul(x.reshape(1, 5), y.reshape(5, 1)), x.pow(y), 1j + r]
    same(program)


LOSSES = {
    "mul": lambda t, x, y, r, m: (x * y).abs().sum(),
    "div": lambda t, x, y, r, m: (x / y).real.sum(),
    "exp": lambda t, x, y, r, m: x.exp().imag.sum(),
    "log": lambda t, x, y, r, m: x.log().abs().sum(),
    "sin_angle": lambda t, x, y, r, m: x.sin().angle().sum(),
    "cos": lambda t, x, y, r, m: x.cos().real.sum(),
    "sqrt": lambda t, x, y, r, m: x.sqrt().abs().pow(2).sum(),
    "pow": lambda t, x, y, r, m: x.pow(3).imag.sum(),
    "pow_tensor": lambda t, x, y, r, m: (x ** y).real.sum(),
    "matmul": lambda t, x, y, r, m: (m @ x).abs().sum(),
    "mean_real_input": lambda t, x, y, r, m: (x * r).mean().abs(),
    "sum": lambda t, x, y, r, m: (x + r).sum().real,
    "conj": lambda t, x, y, r, m: (x.conj() * y).real.sum(),
    "conj_physical": lambda t, x, y, r, m: (x.conj_physical() * y).imag.sum(),
    "view_as_real": lambda t, x, y, r, m: t.view_as_real(x * y).pow(2).sum(),
    "view_as_complex_sgn": lambda t, x, y, r, m: t.view_as_complex(
        t.view_as_real(x) * 2).sgn().real.sum(),
    "polar": lambda t, x, y, r, m: t.polar(r.abs(), r).imag.sum(),
    "complex": lambda t, x, y, r, m: (t.complex(r, r * 2) * x).abs().sum(),
    "sub_angle": lambda t, x, y, r, m: (x - y).conj_physical().angle().sum(),
    "scalars": lambda t, x, y, r, m: (-x * 1j + 2).abs().sum(),
    "tanh": lambda t, x, y, r, m: x.tanh().real.sum(),
    "sigmoid": lambda t, x, y, r, m: x.sigmoid().real.sum(),
    "abs_sq": lambda t, x, y, r, m: (x.abs() ** 2).sum() + y.angle().sum(),
    "real_imag": lambda t, x, y, r, m: (x.real * y.imag).sum(),
    "resolve": lambda t, x, y, r, m: (x.conj().resolve_conj() * 3).real.sum(),
}


@pytest.mark.parametrize("name", sorted(LOSSES))
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_gradients(name, dtype):
    def program(t):
        t.manual_seed(0)
        cd = getattr(t, dtype)
        rd = t.float32 if dtype == "complex64" else t.float64
        x = t.randn(4, dtype=cd, requires_grad=True)
        y = t.randn(4, dtype=cd, requires_grad=True)
        r = t.randn(4, dtype=rd, requires_grad=True)
        m = t.randn(3, 4, dtype=cd, requires_grad=True)
        loss = LOSSES[name](t, x, y, r, m)
        grads = t.autograd.grad(loss, [x, y, r, m], allow_unused=True)
        return loss, type(loss.grad_fn).__name__, grads
    same(program, tol={"float32": (2e-5, 1e-6), "complex64": (2e-5, 1e-6),
                       "float64": (1e-10, 1e-12), "complex128": (1e-10, 1e-12)})


def test_grad_fn_names():
    def program(t):
        x = t.tensor([1 + 2j, 0j, -3 + 0.5j], requires_grad=True)
        r = t.tensor([1.0, 2.0], requires_grad=True)
        outs = [x.real, x.imag, x.conj(), x.conj().resolve_conj(), x.conj_physical(), x.abs(),
                x.angle(), x.sgn(), t.view_as_real(x), x * 2, x.exp(), x.sum(),
                t.polar(r, r), t.complex(r, r), -x, x.pow(2), x.sqrt(), x.log(),
                t.view_as_complex(t.stack([r, r], -1))]
        return [type(o.grad_fn).__name__ for o in outs] + [x.resolve_conj().grad_fn]
    same(program)


def test_backward_errors_and_grad_outputs():
    def program(t):
        x = t.tensor([1 + 2j, 3j], requires_grad=True)
        err = catch(lambda: (x * 2).sum().backward())
        y = x * (1 - 1j)
        y.backward(t.tensor([1 + 1j, 2 - 1j]))
        return err, x.grad, catch(lambda: t.ones(2, dtype=t.int64).requires_grad_())
    same(program)


def test_double_backward():
    def program(t):
        x = t.tensor([1 + 2j, -0.5 + 1j], dtype=t.complex128, requires_grad=True)
        loss = (x.exp() * x.conj()).abs().sum()
        g, = t.autograd.grad(loss, x, create_graph=True)
        gg_, = t.autograd.grad(g.abs().sum(), x)
        return g, gg_
    same(program)


def test_saved_inputs_and_versions():
    def program(t):
        a, b = t.ones(3, requires_grad=True), t.ones(3, requires_grad=True)
        x, y = a * 1, b * 1
        z = t.complex(x, y)
        x.mul_(2)       # ComplexBackward0 saved its inputs (torch's codegen does)
        return catch(lambda: z.abs().sum().backward())
    same(program)


def test_inplace_on_complex_real_views_refused():
    x = gg.tensor([1 + 2j, 3j], requires_grad=True) * 1
    with pytest.raises(NotImplementedError, match="rebase the history"):
        gg.view_as_real(x).mul_(2)
    with gg.no_grad():     # without gradients the write goes through the view, as torch's
        y = gg.tensor([1 + 2j, 3j])
        y.real.mul_(2)
        assert y.tolist() == [2 + 2j, 3j]


def test_reductions_norms_and_inplace():
    def program(t):
        x = t.tensor([[1 + 2j, 3 - 1j, 0.5j], [2.0 + 0j, -1j, 1 + 1j]])
        return [x.cumsum(0), x.cumsum(1), x.sum(1), x.prod(), x.mean(0),
                t.linalg.vector_norm(x), t.linalg.vector_norm(x, 1, dim=1), x.norm(),
                catch(lambda: x.clone().abs_()), x.clone().exp_(), x.isnan(), x == x.conj(),
                t.allclose(x, x.clone()), x.to(t.complex128).dtype]
    same(program)


def test_norm_gradient():
    def program(t):
        x = t.tensor([1 + 2j, 3 - 1j], requires_grad=True)
        return t.autograd.grad(t.linalg.vector_norm(x), x)
    same(program)


def test_more_ops():
    def program(t):
        t.manual_seed(2)
        x = t.randn(3, 4, dtype=t.cfloat, requires_grad=True)
        v, s, vm = x.var(), x.std(1), t.var_mean(x, 0)
        grads = t.autograd.grad(v + s.sum() + vm[0].sum() + vm[1].abs().sum(), x)
        return [v, s, vm, grads, x[:, :3].trace(), t.isreal(t.tensor([1 + 0j, 1j])),
                t.isreal(t.ones(2)), x.mH, x.H, x.adjoint(), x.mH.is_conj(),
                type(x.mH.grad_fn).__name__, t.ones(2, 3).mH, catch(lambda: t.ones(3).H),
                t.adjoint(x)]
    same(program)


def test_save_load_and_legacy_type():
    import io
    for src, dst in ((torch, gg), (gg, torch)):
        buf = io.BytesIO()
        src.save({"a": src.tensor([1 + 2j, 3j]), "b": src.ones(2, dtype=src.complex128)}, buf)
        buf.seek(0)
        loaded = dst.load(buf)
        assert repr(loaded["a"]) == "tensor([1.+2.j, 0.+3.j])"
        assert repr(loaded["b"]) == "tensor([1.+0.j, 1.+0.j], dtype=torch.complex128)"
    same(lambda t: [t.tensor([1j]).type(), hasattr(t, "ComplexFloatTensor"),
                    t.ones(2).type("torch.ComplexDoubleTensor").dtype])


def test_forward_ad_of_complex_refused():
    with gg.autograd.forward_ad.dual_level():
        with pytest.raises(NotImplementedError, match="complex tangent rules"):
            gg.autograd.forward_ad.make_dual(gg.tensor([1 + 2j]), gg.tensor([1j]))


@pytest.mark.parametrize("call", [
    lambda t, x: x.max(), lambda t, x: x.min(), lambda t, x: x.max(0), lambda t, x: x.min(1),
    lambda t, x: x.amax(), lambda t, x: x.amin(0), lambda t, x: x.argmax(),
    lambda t, x: x.argmin(0), lambda t, x: x.topk(1), lambda t, x: x.sort(),
    lambda t, x: x.argsort(), lambda t, x: x.to(t.complex128).max()])
def test_orderings_refused(call):
    same(lambda t: catch(call, t, t.ones(2, 3, dtype=t.cfloat)))
