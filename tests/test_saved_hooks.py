"""Saved-tensor hooks (saved_tensors_hooks, save_on_cpu, disable_saved_tensors_hooks,
grad_fn._raw_saved_*) and allow_mutation_on_saved_tensors, each program run in torch and
glassgrad (differential.same compares values, grads, errors, and the hook logs)."""
import pytest

from differential import catch, same


def describe(t):
    """What a hook sees of a tensor."""
    fn = t.grad_fn
    return (tuple(t.shape), str(t.dtype), t.requires_grad, t.is_leaf,
            None if fn is None else type(fn).__name__, t._version, t.detach().tolist())


def logging_hooks(t, log, copy=False):
    def pack(x):
        log.append(("pack", describe(x), t.is_grad_enabled()))
        return ("packed", x.detach().clone() if copy else x)

    def unpack(p):
        log.append(("unpack", describe(p[1])))
        return p[1]
    return pack, unpack


def leaf(t, n=3, start=1.0):
    return t.arange(start, start + n, dtype=t.float64).requires_grad_()


# -- saved_tensors_hooks --------------------------------------------------------------------
OPS = {
    "mul": lambda t, a, b: a * b,
    "mul_number": lambda t, a, b: a * 2.0,
    "exp (output)": lambda t, a, b: b.exp(),
    "pow_tensor": lambda t, a, b: a.pow(b),
    "lerp": lambda t, a, b: t.lerp(a, b, a * 0.5),
    "clamp_tensors": lambda t, a, b: a.clamp(b - 3, b),
    "mm": lambda t, a, b: a.view(3, 1).mm(b.view(1, 3)),
    "max_dim (indices)": lambda t, a, b: a.max(0)[0],
    "cumprod": lambda t, a, b: a.cumprod(0),
    "view input": lambda t, a, b: a[1:] * b[1:],
    "stack": lambda t, a, b: t.stack([a, b]),
    "sum (metadata only)": lambda t, a, b: a.sum(),
}


@pytest.mark.parametrize("op", OPS)
def test_hooks_see_every_saved_tensor_in_order(op):
    def run(t):
        log = []
        a = leaf(t)
        b = leaf(t, start=2.0) * 1
        with t.autograd.graph.saved_tensors_hooks(*logging_hooks(t, log)):
            y = OPS[op](t, a, b)
        packed = list(log)
        log.clear()
        y.sum().backward()
        return {"packed": packed, "unpacked": log, "grad": a.grad, "y": y}
    same(run)


def test_hooks_skip_the_version_check_and_use_what_unpack_returns():
    def run(t):
        a = leaf(t)
        b = a * 2
        with t.autograd.graph.saved_tensors_hooks(lambda x: x, lambda x: x):
            y = (a * b).exp()
        b.mul_(10)      # no version error: backward sees b's new value
        y.sum().backward()
        return a.grad
    same(run)


def test_copying_hooks_keep_the_saved_value():
    def run(t):
        log = []
        a = leaf(t)
        b = a * 2
        with t.autograd.graph.saved_tensors_hooks(*logging_hooks(t, log, copy=True)):
            y = a * b
        b.mul_(10)
        y.sum().backward()
        return a.grad, log
    same(run)


def test_saved_accessors_unpack_each_time():
    def run(t):
        log = []
        a = leaf(t)
        b = a * 2
        with t.autograd.graph.saved_tensors_hooks(*logging_hooks(t, log)):
            y = a * b
            z = b.exp()
        log.clear()
        s, o, r = y.grad_fn._saved_self, y.grad_fn._saved_other, z.grad_fn._saved_result
        return {"log": log, "self": describe(s), "self_is_a": s is a, "other_is_b": o is b,
                "other_fn_is_b_fn": o.grad_fn is b.grad_fn, "result_fn": r.grad_fn is z.grad_fn,
                "result_is_z": r is z, "versions": (s._version, o._version, r._version)}
    same(run)


def test_unpacked_tensor_shares_the_version_of_what_unpack_returned():
    def run(t):
        c = leaf(t) * 1
        with t.autograd.graph.saved_tensors_hooks(lambda x: x, lambda x: x):
            z = c.exp()
            w = c * c
        c.add_(1)
        return z.grad_fn._saved_result._version, w.grad_fn._saved_self._version
    same(run)


def test_nesting_applies_the_innermost_pair():
    def run(t):
        outer, inner = [], []
        a = leaf(t)
        with t.autograd.graph.saved_tensors_hooks(*logging_hooks(t, outer)):
            with t.autograd.graph.saved_tensors_hooks(*logging_hooks(t, inner)):
                y = a.exp()
            z = a.sin()
        (y + z).sum().backward()
        return outer, inner, a.grad
    same(run)


def test_double_backward_through_unpacked_tensors():
    def run(t):
        a = leaf(t)
        with t.autograd.graph.saved_tensors_hooks(lambda x: x.detach(), lambda x: x):
            y = (a * a * a).sum()
            g, = t.autograd.grad(y, a, create_graph=True)
        g.sum().backward()
        return g, a.grad
    same(run)


def test_errors():
    def run(t):
        g = t.autograd.graph
        a = leaf(t)
        out = {}
        with g.saved_tensors_hooks(lambda x: x, lambda p: 3):
            y = a.exp()
        out["non-tensor unpack"] = catch(lambda: y.sum().backward())
        out["non-tensor accessor"] = catch(lambda: y.grad_fn._saved_result)
        x = a * 1

        def modify():
            with g.saved_tensors_hooks(lambda x: x.mul_(2), lambda p: p):
                x.exp()
        out["pack modifies"] = catch(modify)
        with g.saved_tensors_hooks(lambda x: x, lambda x: x):
            y = a.exp()
        y.sum().backward()
        out["twice"] = catch(lambda: y.sum().backward())
        out["after free"] = catch(lambda: y.grad_fn._saved_result)
        return out
    same(run)


def test_disable_saved_tensors_hooks():
    def run(t):
        g = t.autograd.graph
        a = leaf(t)
        out = {}

        def push():
            with g.disable_saved_tensors_hooks("no hooks here"):
                with g.save_on_cpu():
                    pass
        out["push"] = catch(push)

        def save_under_outer_hooks():
            with g.saved_tensors_hooks(lambda x: x, lambda x: x):
                with g.disable_saved_tensors_hooks("disabled"):
                    return a.exp()
        out["save"] = catch(save_under_outer_hooks)
        with g.disable_saved_tensors_hooks("disabled"):      # no hooks: saving is fine
            y = a.exp()
            with g.disable_saved_tensors_hooks("inner"):
                pass
            out["restored"] = catch(push)
        y.sum().backward()
        with g.saved_tensors_hooks(lambda x: x, lambda x: x):     # enabled again after
            out["after"] = a.exp()
        out["grad"] = a.grad
        return out
    same(run)


@pytest.mark.parametrize("pin", [False, True])
def test_save_on_cpu(pin):
    def run(t):
        a = leaf(t)
        b = a.clone()
        with t.autograd.graph.save_on_cpu(pin_memory=pin):
            y = b * b
        b.add_(1)       # pin_memory=True packs a copy; False keeps the (CPU) tensor itself
        y.sum().backward()
        return a.grad
    same(run)


# -- custom Functions --------------------------------------------------------------------------
def make_function(t):
    class F(t.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            out = x * y
            ctx.save_for_backward(x, out, None, y)
            return out

        @staticmethod
        def backward(ctx, g):
            x, out, none, y = ctx.saved_tensors
            return g * y, g * x
    return F


def test_function_save_for_backward_goes_through_hooks():
    def run(t):
        log = []
        F = make_function(t)
        a, b = leaf(t), leaf(t, start=4.0)
        with t.autograd.graph.saved_tensors_hooks(*logging_hooks(t, log)):
            o = F.apply(a, b)
        packed = list(log)
        log.clear()
        saved = [None if s is None else describe(s) for s in o.grad_fn.saved_tensors]
        o.sum().backward()
        return {"packed": packed, "unpacked": log, "saved": saved, "grads": (a.grad, b.grad),
                "after": catch(lambda: o.grad_fn.saved_tensors),
                "raw after": catch(lambda: o.grad_fn._raw_saved_tensors)}
    same(run)


def test_function_raw_saved_tensors():
    def run(t):
        log = []
        F = make_function(t)
        a, b = leaf(t), leaf(t, start=4.0)
        o = F.apply(a, b)
        raw = o.grad_fn._raw_saved_tensors
        out = {"n": len(raw), "none data": raw[2].data, "none unpack": raw[2].unpack(),
               "none hooks": catch(raw[2].register_hooks, lambda x: x, lambda x: x)}
        raw[0].register_hooks(*logging_hooks(t, log))
        raw[1].register_hooks(*logging_hooks(t, log))
        out["saved"] = [None if s is None else describe(s) for s in o.grad_fn.saved_tensors]
        o.sum().backward()
        out["log"], out["grads"] = log, (a.grad, b.grad)
        return out
    same(run)


# -- grad_fn._raw_saved_* ----------------------------------------------------------------------
def test_raw_saved_register_hooks():
    def run(t):
        log = []
        a = leaf(t)
        b = a * 2
        y = a * b
        raw = y.grad_fn._raw_saved_self
        out = {"data": raw.data, "hook": raw.unpack_hook, "unpack": raw.unpack()}
        raw.register_hooks(*logging_hooks(t, log))
        out["again"] = catch(raw.register_hooks, lambda x: x, lambda x: x)
        out["packed"] = raw.data[1]
        out["hook set"] = raw.unpack_hook is not None
        out["self"] = describe(y.grad_fn._saved_self)
        b.mul_(3)       # other has no hooks: its version is checked
        out["other"] = catch(lambda: y.grad_fn._saved_other)
        y.grad_fn._raw_saved_other.register_hooks(lambda x: x, lambda x: x)
        y.sum().backward()      # now nothing is checked: b's new value is used
        out["log"], out["grad"] = log, a.grad
        out["freed"] = catch(raw.register_hooks, lambda x: x, lambda x: x)
        out["freed unpack"] = catch(raw.unpack)
        out["freed data"] = raw.data
        return out
    same(run)


def test_raw_saved_outputs_and_misuse():
    def run(t):
        a = leaf(t)
        z = a.exp()
        raw = z.grad_fn._raw_saved_result
        out = {"unpack": catch(raw.unpack), "data": raw.data,
               "arity": catch(raw.register_hooks, lambda x: x),
               "not callable": catch(raw.register_hooks, 1, lambda x: x),
               "sizes": catch(lambda: a.sum().grad_fn._raw_saved_self_sym_sizes),
               "no such": catch(lambda: z.grad_fn._raw_saved_other),
               "undefined": (a * t.ones(3, dtype=t.float64)).grad_fn._raw_saved_self.data}
        log = []
        raw.register_hooks(*logging_hooks(t, log))
        out["hooked unpack"] = catch(raw.unpack)
        z.sum().backward()
        out["log"], out["grad"] = log, a.grad
        with t.autograd.graph.saved_tensors_hooks(lambda x: x, lambda x: x):
            w = a.exp()
        out["default hooks"] = catch(w.grad_fn._raw_saved_result.register_hooks,
                                     lambda x: x, lambda x: x)
        return out
    same(run)


# -- allow_mutation_on_saved_tensors -----------------------------------------------------------
MUTATIONS = {
    "sin_": lambda b: b.sin_(),
    "twice": lambda b: (b.mul_(2), b.mul_(2)),
    "view at offset 0": lambda b: b[:2].mul_(2),
    "view at an offset (not cloned, as in torch)": lambda b: b[1:].mul_(2),
    "reshaped view": lambda b: b.view(2, 2).mul_(2),
    "setitem": lambda b: b.__setitem__(0, 5.0),
    "copy_": lambda b: b.copy_(b * 3),
    "zero_": lambda b: b.zero_(),
    "t_": lambda b: b.t_(),
    "under no_grad": lambda b: b.add_(1),
}


@pytest.mark.parametrize("mutation", MUTATIONS)
def test_allow_mutation_on_saved_tensors(mutation):
    def run(t):
        a = t.arange(1.0, 5.0, dtype=t.float64).requires_grad_()
        with t.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
            b = a.clone()
            y = (b * b).sum()
            if mutation == "under no_grad":
                with t.no_grad():
                    MUTATIONS[mutation](b)
            else:
                MUTATIONS[mutation](b)
            sizes = (len(ctx.cloned), len(ctx.original), len(ctx.sid_to_tid),
                     len(ctx.tid_to_weakhandle))
            y.backward()
        return {"sizes": sizes, "grad": a.grad, "b": b, "fn": type(b.grad_fn).__name__,
                "cleared": (len(ctx.cloned), len(ctx.original), len(ctx.sid_to_tid))}
    same(run)


def test_allow_mutation_without_context_fails_like_torch():
    def run(t):
        a = t.arange(1.0, 4.0, dtype=t.float64).requires_grad_()
        b = a.clone()
        y = (b * b).sum()
        b.sin_()
        return catch(y.backward)
    same(run)


def test_allow_mutation_saved_outputs_and_plain_tensors():
    def run(t):
        g = t.autograd.graph
        a = t.arange(1.0, 4.0, dtype=t.float64).requires_grad_()
        c = t.arange(1.0, 4.0, dtype=t.float64)
        out = {}
        with g.allow_mutation_on_saved_tensors() as ctx:
            z = (a * 1).exp()
            z.mul_(2)
            out["cloned"] = len(ctx.cloned)
            z.sum().backward()
            out["exp grad"] = a.grad
            a.grad = None
            y = (a * c).sum()
            c.mul_(10)
            y.backward()
            out["mul grad"] = a.grad
            out["leaf"] = catch(a.mul_, 2)
            out["cloned after leaf error"] = len(ctx.cloned)
        return out
    same(run)


def test_allow_mutation_errors():
    def run(t):
        g = t.autograd.graph
        a = t.arange(1.0, 4.0, dtype=t.float64).requires_grad_()
        out = {}
        with g.allow_mutation_on_saved_tensors():
            b = a.clone()
            y = (b * b).sum()
        out["outside"] = catch(y.backward)
        with g.allow_mutation_on_saved_tensors():
            out["another context"] = catch(y.backward)
        with g.allow_mutation_on_saved_tensors():
            def nest():
                with g.allow_mutation_on_saved_tensors():
                    pass
            out["nested"] = catch(nest)
        with g.allow_mutation_on_saved_tensors():     # usable again afterwards
            b = a.clone()
            y = (b * b).sum()
            b.cos_()
            y.backward()
        out["grad"] = a.grad
        return out
    same(run)


def test_allow_mutation_with_custom_function():
    def run(t):
        F = make_function(t)
        a = t.arange(1.0, 4.0, dtype=t.float64).requires_grad_()
        with t.autograd.graph.allow_mutation_on_saved_tensors():
            x, y = a * 1, a * 2
            o = F.apply(x, y)
            y.add_(100)
            o.sum().backward()
        return a.grad
    same(run)
