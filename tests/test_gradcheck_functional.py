"""gradcheck/gradgradcheck and autograd.functional, differential against torch."""
import warnings

from differential import catch, same
from test_function import legendre


def wrong_cube(lib, factor):
    """x ** 3 whose backward is off by ``factor`` (factor 3 is right)."""
    class WrongCube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return factor * x ** 2 * g
    return WrongCube


def detached_cube(lib):
    """Right first derivative, but its backward hides x from double backward."""
    class DetachedCube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 3 * x.detach() ** 2 * g
    return DetachedCube


def x64(lib, values, grad=True):
    return lib.tensor(values, dtype=lib.float64, requires_grad=grad)


def gradcheck(lib):
    # torch.autograd.gradcheck is the function; the module (and GradcheckError) sits in
    # sys.modules under the same dotted name
    import importlib
    return importlib.import_module(lib.__name__ + ".autograd.gradcheck")


# -- gradcheck -------------------------------------------------------------------------------

def test_gradcheck_passes_correct_functions():
    def program(lib):
        ag = lib.autograd
        x = x64(lib, [[0.3, -0.7, 1.1], [0.2, 0.9, -1.4]])
        y = x64(lib, [0.5, -1.5, 2.0])
        return [ag.gradcheck(legendre(lib).apply, (x,)),
                ag.gradcheck(wrong_cube(lib, 3).apply, x),
                ag.gradcheck(lambda a, b: (a * b.exp(), (a - b).sum()), (x, y)),
                ag.gradcheck(lambda a, k: a.sin() * k, (x, 2.5), eps=1e-6, atol=1e-5),
                ag.gradgradcheck(wrong_cube(lib, 3).apply, (x,)),
                ag.gradgradcheck(lambda a, b: a * b * a, (x, y)),
                # a column-major output (as LAPACK-backed ops give): its Jacobian, row by row
                ag.gradcheck(lambda a: a.mT.contiguous().mT * a, (x,)),
                ag.gradcheck(lambda a: lib.linalg.householder_product(a.mT, a[:, 0]), (x,))]
    same(program)


def test_gradcheck_catches_a_wrong_backward():
    def program(lib):
        ag, mod = lib.autograd, gradcheck(lib)
        x = x64(lib, [0.3, -0.7, 1.1])
        y = x64(lib, [1.5, 0.5, 2.0])
        wrong = wrong_cube(lib, 2).apply
        err = catch(ag.gradcheck, wrong, (x,))
        second = catch(ag.gradcheck, lambda a, b: (a + b, wrong(b)), (x, y))
        try:
            ag.gradcheck(wrong, (x,))
        except mod.GradcheckError as e:
            is_runtime = isinstance(e, RuntimeError)
        return (err, second, is_runtime, ag.gradcheck(wrong, (x,), raise_exception=False),
                ag.gradcheck(wrong, (x,), atol=10.0, rtol=1.0))
    same(program)


def test_gradgradcheck_catches_a_wrong_double_backward():
    def program(lib):
        ag = lib.autograd
        x = x64(lib, [0.3, -0.7, 1.1])
        fn = detached_cube(lib).apply
        return (ag.gradcheck(fn, (x,)), catch(ag.gradgradcheck, fn, (x,)),
                ag.gradgradcheck(fn, (x,), raise_exception=False),
                ag.gradgradcheck(fn, (x,), (x64(lib, [1.0, -1.0, 0.5]),),
                                 raise_exception=False))
    same(program)


def test_gradcheck_input_checks():
    def program(lib):
        ag = lib.autograd
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            ok = ag.gradcheck(lambda a: a * 2, (lib.tensor([1.0, 2.0], requires_grad=True),),
                              eps=1e-2, atol=1e-2)
        return (catch(ag.gradcheck, lambda a: a * 2, (x64(lib, [1.0], grad=False),)),
                ok, [str(x.message).splitlines()[0] for x in w])
    same(program)


def test_gradcheck_non_differentiable_outputs():
    def program(lib):
        ag = lib.autograd
        x = x64(lib, [0.3, -0.7])
        # no output requires grad: the numerical Jacobian must then vanish
        return (catch(ag.gradcheck, lambda a: (a.detach() > 0).to(a.dtype), (x,)),
                catch(ag.gradcheck, lambda a: a.detach() * 2, (x,)))
    same(program)


# -- functional ------------------------------------------------------------------------------

def functions(lib):
    return {
        "exp": lambda x: x.exp(),
        "poly": lambda x: (x ** 3).sum() + (x[0] * x[1]),
        "matvec": lambda x: lib.tensor([[1.0, 2.0], [3.0, -1.0], [0.5, 0.0]],
                                       dtype=lib.float64) @ x.sin(),
    }


def test_jacobian_single_input():
    def program(lib):
        F = lib.autograd.functional
        x = x64(lib, [0.5, -1.0], grad=False)
        out = {name: F.jacobian(f, x) for name, f in functions(lib).items()}
        out["create_graph"] = F.jacobian(functions(lib)["exp"], x, create_graph=True)
        out["vectorize"] = F.jacobian(functions(lib)["matvec"], x, vectorize=True)
        out["matrix"] = F.jacobian(lambda m: m * m.sum(), x64(lib, [[1.0, 2.0], [3.0, 4.0]]))
        return out
    same(program)


def test_jacobian_tuples():
    def program(lib):
        F = lib.autograd.functional
        a = x64(lib, [0.5, -1.0, 2.0], grad=False)
        b = x64(lib, [[1.0, 2.0], [0.5, 0.25]], grad=False)
        return (F.jacobian(lambda x, y: (x * y.sum(), (x ** 2).sum() * y), (a, b)),
                F.jacobian(lambda x, y: x.exp() * y[0, 0], (a, b)),
                F.jacobian(lambda x: (x, x * 3), a),
                F.jacobian(lambda x, y: x * 2, (a, b)),   # independent of y: zeros
                catch(F.jacobian, lambda x, y: x * 2, (a, b), False, True))
    same(program)


def test_hessian():
    def program(lib):
        F = lib.autograd.functional
        a = x64(lib, [0.5, -1.0, 2.0], grad=False)
        b = x64(lib, [0.3, 0.7, -0.2], grad=False)
        return (F.hessian(lambda x: (x ** 3).sum() + x[0] * x[1] * x[2], a),
                F.hessian(lambda x, y: (x.sin() * y.exp()).sum(), (a, b)),
                F.hessian(lambda m: (m @ m).sum(), x64(lib, [[1.0, 2.0], [3.0, 4.0]])),
                F.hessian(lambda x: (x ** 4).sum(), a, create_graph=True),
                catch(F.hessian, lambda x: x * 2, a),
                catch(F.hessian, lambda x: (x.sum(), x.sum()), a))
    same(program)


def test_vjp_jvp_hvp_vhp():
    def program(lib):
        F = lib.autograd.functional
        a = x64(lib, [0.5, -1.0, 2.0], grad=False)
        b = x64(lib, [0.3, 0.7, -0.2], grad=False)
        v = x64(lib, [1.0, 0.5, -2.0], grad=False)

        def f(x, y):
            return x * y.exp(), (x ** 2 * y).sum()

        def scalar(x, y):
            return (x ** 3 * y.sin()).sum()
        return (F.vjp(lambda x: x.exp() * 2, a, v),
                F.vjp(f, (a, b), (v, x64(lib, 2.0, grad=False))),
                F.vjp(lambda x: (x ** 2).sum(), a),
                F.jvp(lambda x: x.exp() * 2, a, v),
                F.jvp(f, (a, b), (v, b)),
                F.hvp(lambda x: (x ** 3).sum(), a, v),
                F.hvp(scalar, (a, b), (v, b)),
                F.vhp(scalar, (a, b), (v, b)),
                F.vhp(lambda x: (x ** 3).sum(), a, v, create_graph=True),
                F.jvp(lambda x: x.exp(), a, v, create_graph=True))
    same(program)


def test_functional_errors():
    def program(lib):
        F = lib.autograd.functional
        a = x64(lib, [0.5, -1.0], grad=False)
        return (catch(F.jacobian, lambda x: x, [1.0, 2.0]),
                catch(F.jacobian, lambda x, y: x, (a, 3)),
                catch(F.jacobian, lambda x: 3.0, a),
                catch(F.vjp, lambda x: x * 2, a),
                catch(F.vjp, lambda x: x * 2, a, x64(lib, [1.0, 2.0, 3.0], grad=False)),
                catch(F.vjp, lambda x, y: x * y, (a, a), (a, a)),
                catch(F.jvp, lambda x, y: x * y, (a, a), (a,)),
                catch(F.hvp, lambda x: x * 2, a, a),
                catch(F.vhp, lambda x: (x, x), a, a),
                catch(F.jacobian, lambda x: x.detach(), a, False, True),
                catch(F.jacobian, lambda x: x * 2, a, False, False, False, "sideways"),
                F.jacobian(lambda x: x.detach(), a))
    same(program)
