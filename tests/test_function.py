"""Custom autograd Functions, differential against torch: each program defines its Functions
on ``lib.autograd.Function`` and returns values, gradients, node names and errors."""
import gc
import warnings
import weakref

from differential import catch, same


def names(t):
    """type(grad_fn).__name__ and grad_fn.name(), as torch reports them."""
    return None if t.grad_fn is None else (type(t.grad_fn).__name__, t.grad_fn.name())


def edges(node):
    return [(None if n is None else n.name(), nr) for n, nr in node.next_functions]


# -- the tutorial's Functions ----------------------------------------------------------------

def legendre(lib):
    class LegendrePolynomial3(lib.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            ctx.save_for_backward(input)
            return 0.5 * (5 * input ** 3 - 3 * input)

        @staticmethod
        def backward(ctx, grad_output):
            input, = ctx.saved_tensors
            return grad_output * 1.5 * (5 * input ** 2 - 1)
    return LegendrePolynomial3


def my_relu(lib):
    class MyReLU(lib.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            ctx.save_for_backward(input)
            return input.clamp(min=0)

        @staticmethod
        def backward(ctx, grad_output):
            input, = ctx.saved_tensors
            grad_input = grad_output.clone()
            grad_input[input < 0] = 0
            return grad_input
    return MyReLU


def exp_fn(lib):
    class Exp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, i):
            result = i.exp()
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx, grad_output):
            result, = ctx.saved_tensors
            return grad_output * result
    return Exp


def cube(lib, once=False):
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return 3 * x ** 2 * g

    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

    Cube.backward = staticmethod(lib.autograd.function.once_differentiable(backward) if once
                                 else backward)
    return Cube


def test_legendre_values_grads_and_node():
    def program(lib):
        P3 = legendre(lib)
        x = lib.linspace(-1, 1, 7, dtype=lib.float64, requires_grad=True)
        y = P3.apply(x)
        (y * lib.arange(7.0, dtype=lib.float64)).sum().backward()
        return y, x.grad, names(y), edges(y.grad_fn), y.grad_fn.needs_input_grad
    same(program)


def test_legendre_training_loop():
    def program(lib):
        P3 = legendre(lib)
        x = lib.linspace(-1.0, 1.0, 20)
        target = x.sin()
        a, b = lib.tensor(0.0, requires_grad=True), lib.tensor(-1.0, requires_grad=True)
        losses = []
        for _ in range(5):
            pred = a + b * P3.apply(0.1 + 0.4 * x)
            loss = (pred - target).pow(2).sum()
            loss.backward()
            with lib.no_grad():
                a -= 1e-2 * a.grad
                b -= 1e-2 * b.grad
                a.grad = None
                b.grad = None
            losses.append(loss.item())
        return losses, a, b
    same(program)


def test_my_relu():
    def program(lib):
        x = lib.tensor([[-1.0, 2.0, 0.5], [3.0, -0.25, -4.0]], requires_grad=True)
        y = my_relu(lib).apply(x)
        (y * y).sum().backward()
        return y, x.grad, names(y)
    same(program)


def test_exp_saves_its_output_without_a_cycle():
    def program(lib):
        x = lib.tensor([0.5, 1.0, -1.0], requires_grad=True)
        y = exp_fn(lib).apply(x)
        saved, = y.grad_fn.saved_tensors
        out = [y, names(saved), saved.grad_fn is y.grad_fn, saved is y, saved.output_nr]
        y.backward(lib.ones(3), retain_graph=True)
        y.backward(lib.ones(3))
        out += [x.grad, catch(lambda: y.grad_fn.saved_tensors), catch(y.sum().backward)]
        return out
    same(program)


def test_saved_output_modified_in_place():
    def program(lib):
        x = lib.tensor([0.5, 1.0], requires_grad=True)
        y = exp_fn(lib).apply(x)
        y.mul_(2)
        return y._version, catch(y.sum().backward)
    same(program)


def test_saved_input_modified_in_place():
    def program(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = a * 1
        y = legendre(lib).apply(b)
        b.add_(1)
        return catch(y.sum().backward), catch(lambda: y.grad_fn.saved_tensors)
    same(program)


def test_graph_freed_by_reference_counting():
    def program(lib):
        class Double(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.mul_(2)
                ctx.mark_dirty(x)
                ctx.save_for_backward(x)
                return x

            @staticmethod
            def backward(ctx, g):
                x, = ctx.saved_tensors
                return g * 2

        gc.disable()    # no cycle collector: only reference counting may free the nodes
        try:
            a = lib.ones(2, requires_grad=True)
            b = a * 1
            y = Double.apply(b)
            ref = weakref.ref(y.grad_fn)
            del y, b
            z = exp_fn(lib).apply(a)
            ref_exp = weakref.ref(z.grad_fn)
            del z
            return ref() is None, ref_exp() is None
        finally:
            gc.enable()
    same(program)


def test_hooks_on_function_nodes():
    def program(lib):
        seen = []
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = legendre(lib).apply(x)
        y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: seen.append(
            (grad_inputs, grad_outputs)))
        y.register_hook(lambda g: g * 10)
        y.sum().backward()
        return seen, x.grad
    same(program)


# -- ctx features ----------------------------------------------------------------------------

def test_non_tensor_inputs_needs_input_grad_and_none_grads():
    def program(lib):
        seen = []

        class Scale(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, k, w, flag=True):
                seen.append((ctx.needs_input_grad, lib.is_grad_enabled()))
                ctx.k = k
                ctx.save_for_backward(w)
                return x * k * w

            @staticmethod
            def backward(ctx, g):
                w, = ctx.saved_tensors
                return g * ctx.k * w, None, None, None

        x = lib.tensor([1.0, 2.0], requires_grad=True)
        w = lib.tensor([3.0, 4.0])
        y = Scale.apply(x, 2.5, w, False)
        y.sum().backward()
        with lib.no_grad():
            z = Scale.apply(x, 2.0, w)
        plain = Scale.apply(w, 2.0, w)
        return (y, x.grad, y.grad_fn.k, edges(y.grad_fn), seen, z.grad_fn is None,
                z.requires_grad, plain.requires_grad)
    same(program)


def test_setup_context_style_with_default_arguments():
    def program(lib):
        seen = []

        class Mul(lib.autograd.Function):
            @staticmethod
            def forward(x, y, k=2.0):
                return x * y * k

            @staticmethod
            def setup_context(ctx, inputs, output):
                x, y, k = inputs
                seen.append((len(inputs), k, ctx.needs_input_grad))
                ctx.k = k
                ctx.save_for_backward(x, y, output)

            @staticmethod
            def backward(ctx, g):
                x, y, out = ctx.saved_tensors
                seen.append(names(out))
                gx = g * y * ctx.k if ctx.needs_input_grad[0] else None
                gy = g * x * ctx.k if ctx.needs_input_grad[1] else None
                return gx, gy, None

        x = lib.tensor([1.0, -2.0], requires_grad=True)
        y = lib.tensor([3.0, 0.5], requires_grad=True)
        r1 = Mul.apply(x, y)
        r1.sum().backward()
        r2 = Mul.apply(x, y.detach(), k=3.0)
        r2.sum().backward()
        return r1, r2, x.grad, y.grad, seen, names(r2)
    same(program)


def test_multiple_outputs_non_tensor_outputs_and_returned_inputs():
    def program(lib):
        seen = []

        class Split(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, n):
                return x, n, x * 2

            @staticmethod
            def backward(ctx, g1, g2, g3):
                seen.append((g1, g2, g3))
                return g1 + 2 * g3, None

        a = lib.tensor([1.0, 2.0], requires_grad=True)
        y1, n, y3 = Split.apply(a, 5)
        y3.sum().backward()
        b = lib.ones(2)
        z1, _, _ = Split.apply(b, 1)
        return (y1, n, y3, y1 is a, y1._base is a, y1.output_nr, y3.output_nr, a.grad, seen,
                names(y1), z1 is b, z1._base is b, z1.requires_grad)
    same(program)


def test_mark_dirty():
    def program(lib):
        class AddOne(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.add_(1)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, g):
                return g * 3

        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = a * 2
        c = AddOne.apply(b)
        out = [c is b, b._version, names(b), edges(b.grad_fn), b]
        (c * c).sum().backward()
        out.append(a.grad)
        plain = lib.ones(2)
        d = AddOne.apply(plain)
        out += [d is plain, plain._version, d.grad_fn is None, plain]
        out.append(catch(AddOne.apply, a))
        with lib.no_grad():
            out.append(AddOne.apply(a).requires_grad)
        out.append(a._version)
        return out
    same(program)


def test_mark_dirty_not_returned():
    def program(lib):
        class Bad(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.add_(1)
                ctx.mark_dirty(x)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g
        a = lib.tensor([1.0], requires_grad=True)
        return catch(Bad.apply, a * 1), catch(Bad.apply, lib.ones(2))
    same(program)


def test_mark_non_differentiable():
    def program(lib):
        seen = []

        class Positive(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                doubled, positive = x * 2, (x > 0).to(x.dtype)
                ctx.mark_non_differentiable(positive)
                ctx.save_for_backward(positive)
                return doubled, positive

            @staticmethod
            def backward(ctx, g, g_positive):
                seen.append(g_positive)
                positive, = ctx.saved_tensors
                return g * 2 + positive

        class Alias(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.mark_non_differentiable(x)
                return x

            @staticmethod
            def backward(ctx, g):
                return g

        x = lib.tensor([3.5, 1.0, -2.25], requires_grad=True)
        s, i = Positive.apply(x)
        (s * lib.arange(3.0)).sum().backward()
        r = Alias.apply(x)
        return (s, i, names(s), names(i), i.requires_grad, x.grad, seen, r.requires_grad,
                r is x, Alias.apply(x * 1).requires_grad)
    same(program)


def test_set_materialize_grads():
    def program(lib):
        seen = []

        def make(materialize):
            class Two(lib.autograd.Function):
                @staticmethod
                def forward(ctx, x):
                    ctx.set_materialize_grads(materialize)
                    return x.clone(), x.clone()

                @staticmethod
                def backward(ctx, g1, g2):
                    seen.append((g1, g2))
                    return g1 if g2 is None else g1 + g2
            return Two

        out = []
        for materialize in (True, False):
            x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
            o1, o2 = make(materialize).apply(x)
            (o1 * 2).sum().backward()
            out.append(x.grad)
        return out, seen
    same(program)


def test_create_graph_through_a_function():
    def program(lib):
        x = lib.tensor([1.0, 2.0, -0.5], requires_grad=True)
        y = cube(lib).apply(x)
        gx, = lib.autograd.grad(y.sum(), x, create_graph=True)
        ggx, = lib.autograd.grad(gx.sum(), x)
        return y, gx, names(gx), ggx
    same(program)


def test_once_differentiable():
    def program(lib):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = cube(lib, once=True).apply(x)
        g1, = lib.autograd.grad(y.sum(), x, create_graph=True)   # plain grads: nothing recorded
        y = cube(lib, once=True).apply(x)
        gx, = lib.autograd.grad((y ** 2).sum(), x, create_graph=True)
        return (g1, names(g1), gx, gx.requires_grad, names(gx), edges(gx.grad_fn),
                catch(gx.sum().backward))
    same(program)


def test_no_graph_when_no_input_requires_grad():
    def program(lib):
        x = lib.tensor([1.0, 2.0])
        y = legendre(lib).apply(x)
        with lib.no_grad():
            z = legendre(lib).apply(x.requires_grad_())
        return y, y.grad_fn is None, y.requires_grad, z.grad_fn is None
    same(program)


def test_integer_outputs_are_not_differentiable():
    def program(lib):
        class Round(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x.long(), x * 2

            @staticmethod
            def backward(ctx, g_long, g):
                return 2 * g

        x = lib.tensor([1.5, 2.5], requires_grad=True)
        i, y = Round.apply(x)
        y.sum().backward()
        return i, i.requires_grad, y, x.grad
    same(program)


# -- errors ----------------------------------------------------------------------------------

def fn_class(lib, forward, backward):
    return type("Custom", (lib.autograd.Function,),
                {"forward": staticmethod(forward), "backward": staticmethod(backward)})


def test_wrong_number_of_gradients():
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        few = fn_class(lib, lambda ctx, a, b: a * b, lambda ctx, g: g)
        extra_none = fn_class(lib, lambda ctx, a: a * 2, lambda ctx, g: (2 * g, None, None))
        extra = fn_class(lib, lambda ctx, a: a * 2, lambda ctx, g: (2 * g, g))
        x.grad = None
        extra_none.apply(x).sum().backward()
        return (catch(few.apply(x, x).sum().backward), x.grad,
                catch(extra.apply(x).sum().backward), names(few.apply(x, x)))
    same(program)


def test_gradient_for_non_tensor_input_and_bad_types():
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        for_int = fn_class(lib, lambda ctx, a, k: a * k, lambda ctx, g: (g, g))
        number = fn_class(lib, lambda ctx, a: a * 2, lambda ctx, g: 3)
        scalar = fn_class(lib, lambda ctx, a: a * 2, lambda ctx, g: g.sum())
        wide = fn_class(lib, lambda ctx, a: a * 2, lambda ctx, g: lib.ones(5))
        return [catch(f.apply(*args).sum().backward)
                for f, args in ((for_int, (x, 2)), (number, (x,)), (scalar, (x,)),
                                (wide, (x,)))]
    same(program)


def test_save_for_backward_non_tensor():
    def program(lib):
        def forward(ctx, a):
            ctx.save_for_backward(a, 1)
            return a * 2
        bad = fn_class(lib, forward, lambda ctx, g: g)
        return (catch(bad.apply, lib.tensor([1.0], requires_grad=True)),
                bad.apply(lib.ones(1)))     # nothing is saved without a graph
    same(program)


def test_legacy_non_static_forward():
    def program(lib):
        class Legacy(lib.autograd.Function):
            def forward(self, x):
                return x

        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            err = catch(lambda: Legacy()(lib.ones(1)))
        return err, [type(x.message).__name__ for x in w]
    same(program)


def test_missing_backward():
    def program(lib):
        class NoBackward(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2
        return catch(NoBackward.apply(lib.ones(1, requires_grad=True)).sum().backward)
    same(program)


# -- mark_dirty on views, views made inside a Function ------------------------------------------

def _doubler(lib, n_out=1):
    class Double(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, *others):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x if n_out == 1 else (x, x.detach() * 3)

        @staticmethod
        def backward(ctx, g, *gs):
            return (g * 2, *[g.sum() * 0 for _ in range(len(ctx.needs_input_grad) - 1)])
    return Double


def test_mark_dirty_on_a_view_rebases_its_base():
    def run(t):
        w = t.arange(6.0, dtype=t.float64, requires_grad=True)
        base = w * 1
        v = base[2:4]
        out = _doubler(t).apply(v)
        fns = {"out is v": out is v, "out": names(out), "base": names(base),
               "base edges": edges(base.grad_fn), "view edges": edges(v.grad_fn),
               "versions": (out._version, base._version), "is view": out._is_view()}
        (base * t.arange(6.0, dtype=t.float64)).sum().backward()
        return fns, w.grad, base
    same(run)


def test_mark_dirty_on_a_view_then_more_ops():
    def run(t):
        w = t.arange(12.0, dtype=t.float64, requires_grad=True)
        base = (w * 1).view(3, 4)
        v = base[:, 1]
        y = _doubler(t).apply(v)
        other = base[1] * 10        # a view regenerated from the rebased base
        (y.exp().sum() + other.sum() + base.sum()).backward()
        return w.grad, names(other)
    same(run)


def test_mark_dirty_on_views_refused():
    def run(t):
        out = {}
        w = t.arange(6.0, dtype=t.float64, requires_grad=True)
        out["view of a leaf"] = catch(_doubler(t).apply, w[1:3])
        b = w * 1
        with t.no_grad():
            v = b[1:3]
        out["no_grad view"] = catch(_doubler(t).apply, v)
        out["multi-output view"] = catch(_doubler(t).apply, (w * 1).unbind(0)[1])
        out["two outputs"] = catch(_doubler(t, 2).apply, (w * 1)[1:3])
        return out
    same(run)


def test_views_made_inside_a_function_refuse_inplace():
    def run(t):
        class ViewFn(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x.view(-1)[1:3]

            @staticmethod
            def backward(ctx, g):
                r = t.zeros(6, dtype=g.dtype)
                r[1:3] = g
                return r

        class TwoViews(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x[1:3], x[3:5]

            @staticmethod
            def backward(ctx, g, h):
                return None

        class Ident(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, g):
                return g

        w = t.arange(6.0, dtype=t.float64, requires_grad=True)
        out = {}
        o = ViewFn.apply(w * 1)
        out["view"] = (o._is_view(), names(o))
        out["inplace"] = catch(o.mul_, 2)
        out["view of it"] = catch(lambda: o.view(2).mul_(2))
        out["base modified"] = catch(lambda: (o._base.add_(1), o.grad_fn)[1])
        a, b = TwoViews.apply(w * 1)
        out["two views"] = catch(a.mul_, 2)
        i = Ident.apply(w * 1)
        out["as-is"] = (i._is_view(), names(i), catch(i.mul_, 2))
        o2 = ViewFn.apply(w * 1)
        o2.sum().backward()         # untouched, the custom backward runs
        out["grad"] = w.grad
        with t.no_grad():
            o3 = ViewFn.apply(w * 1)
        out["no_grad"] = (o3._is_view(), o3.requires_grad, catch(o3.mul_, 2))
        return out
    same(run)
