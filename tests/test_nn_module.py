"""nn.Parameter, nn.Buffer, nn.Module and the containers against torch: each program runs with
``t`` = torch and with ``t`` = glassgrad, and what it returns (tensors, names, reprs, exact
exception messages) must agree."""
import copy
import pickle
import warnings
from collections import OrderedDict

import pytest
import torch

import glassgrad as gg
from differential import assert_same, norm


def err(fn, *args, **kwargs):
    """The exception fn raises as (type name, full message); its result if none."""
    try:
        return fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - errors are compared
        # a class path names glassgrad's module where torch's names torch's
        return ("raised", type(e).__name__, str(e).replace("glassgrad.", "torch."))


def same(program):
    expected, got = norm(program(torch)), norm(program(gg))
    assert_same(expected, got)


def cls_net(t):
    """A user model written against t.nn: a parameter, two buffers (one non-persistent), a
    nested submodule, an extra_repr."""
    nn = t.nn

    class Leaf(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.n = n
            self.scale = nn.Parameter(t.arange(float(n)))
            self.register_buffer("count", t.zeros((), dtype=t.int64))

        def forward(self, x):
            return x * self.scale

        def extra_repr(self):
            return f"n={self.n}"

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = Leaf(3)
            self.b = nn.Sequential(Leaf(3), Leaf(3))
            self.w = nn.Parameter(t.ones(3))
            self.register_buffer("stats", t.full((2,), 2.0))
            self.register_buffer("tmp", t.zeros(1), persistent=False)

        def forward(self, x):
            return self.b(self.a(x)) + self.w

    return Net, Leaf


_CLASSES = {}


def classes(t):
    """cls_net's classes for t, made once and named at this module's top level (pickle finds
    them there)."""
    if t not in _CLASSES:
        made = cls_net(t)
        for c in made:
            c.__qualname__ = c.__name__ + "_" + t.__name__
            globals()[c.__qualname__] = c
        _CLASSES[t] = made
    return _CLASSES[t]


def net(t):
    return classes(t)[0]()


def _under_no_grad(t):
    with t.no_grad():
        return t.nn.Parameter(t.ones(1)).requires_grad


# -- Parameter and Buffer ----------------------------------------------------------------------
PARAMETER = {
    "repr": lambda t: repr(t.nn.Parameter(t.tensor([1.0, 2.0]))),
    "repr_no_grad": lambda t: repr(t.nn.Parameter(t.tensor([1.0, 2.0]), requires_grad=False)),
    "flags": lambda t: (lambda p: (p.requires_grad, p.is_leaf, p.grad_fn is None,
                                   isinstance(p, t.Tensor), type(p).__name__))(
        t.nn.Parameter(t.ones(2))),
    "default_empty": lambda t: t.nn.Parameter().shape,
    "under_no_grad": lambda t: _under_no_grad(t),
    "op_is_plain": lambda t: (lambda p: (type(p * 2).__name__, type(p.detach()).__name__,
                                         type(p[0]).__name__, (p * 2).grad_fn.name()))(
        t.nn.Parameter(t.ones(2))),
    "shares_memory": lambda t: (lambda d: (lambda p: (p.add_(0) is not None, d._version,
                                                      p.data_ptr() == d.data_ptr()))(
        t.nn.Parameter(d, requires_grad=False)))(t.zeros(2)),
    "deepcopy": lambda t: (lambda p: (lambda q: (type(q).__name__, q.requires_grad, q is p,
                                                 q.data_ptr() == p.data_ptr(), q))(
        copy.deepcopy(p)))(t.nn.Parameter(t.ones(2), requires_grad=False)),
    "pickle": lambda t: (lambda q: (type(q).__name__, q.requires_grad, q))(
        pickle.loads(pickle.dumps(t.nn.Parameter(t.ones(2))))),
    "buffer": lambda t: (lambda b: (type(b).__name__, isinstance(b, t.nn.Buffer),
                                    isinstance(t.ones(1), t.nn.Buffer), b))(
        t.nn.Buffer(t.ones(2))),
    "buffer_in_module": lambda t: (lambda m: [m.__setattr__("x", t.nn.Buffer(t.ones(1))),
                                              m.__setattr__("y", t.nn.Buffer(t.ones(1),
                                                                             persistent=False)),
                                              list(m.state_dict()),
                                              [k for k, _ in m.named_buffers()]])(t.nn.Module()),
}


@pytest.mark.parametrize("name", PARAMETER)
def test_parameter(name):
    same(PARAMETER[name])


# -- registration and its errors -------------------------------------------------------------
def _assign_before_init(t, value):
    class Bad(t.nn.Module):
        def __init__(self):
            self.x = value(t)
            super().__init__()
    return err(Bad)


def _set(t, name, value, m=None):
    m = net(t) if m is None else m
    return err(setattr, m, name, value)


REGISTRATION = {
    "param_before_init": lambda t: _assign_before_init(t, lambda t: t.nn.Parameter(t.ones(1))),
    "module_before_init": lambda t: _assign_before_init(t, lambda t: t.nn.Module()),
    "buffer_before_init": lambda t: _assign_before_init(t, lambda t: t.nn.Buffer(t.ones(1))),
    "tensor_to_param_name": lambda t: _set(t, "w", t.ones(3)),
    "int_to_param_name": lambda t: _set(t, "w", 3),
    "none_to_param_name": lambda t: (lambda m: (_set(t, "w", None, m), m.w,
                                                [k for k, _ in m.named_parameters()]))(net(t)),
    "tensor_to_module_name": lambda t: _set(t, "a", t.ones(1)),
    "str_to_buffer_name": lambda t: _set(t, "stats", "x"),
    "tensor_to_buffer_name": lambda t: (lambda m: (_set(t, "stats", t.ones(5), m), m.stats,
                                                   list(m.state_dict())))(net(t)),
    "tensor_to_nonpersistent": lambda t: (lambda m: (_set(t, "tmp", t.ones(5), m),
                                                     list(m.state_dict())))(net(t)),
    "param_replaces_attr": lambda t: (lambda m: (m.__setattr__("z", 1), _set(t, "z",
                                      t.nn.Parameter(t.ones(1)), m), "z" in m.__dict__,
                                      [k for k, _ in m.named_parameters()]))(net(t)),
    "module_replaces_param": lambda t: (lambda m: (_set(t, "w", t.nn.Module(), m),
                                                   [k for k, _ in m.named_parameters()],
                                                   [k for k, _ in m.named_children()]))(net(t)),
    "register_param_tensor": lambda t: err(net(t).register_parameter, "p", t.ones(1)),
    "register_param_nonleaf": lambda t: err(net(t).register_parameter, "p",
                                            t.nn.Parameter(t.ones(1)) * 2),
    "register_param_dot": lambda t: err(net(t).register_parameter, "a.b", None),
    "register_param_empty": lambda t: err(net(t).register_parameter, "", None),
    "register_param_int_name": lambda t: err(net(t).register_parameter, 1, None),
    "register_param_exists": lambda t: err(net(t).register_parameter, "a", None),
    "register_param_method": lambda t: err(net(t).register_parameter, "forward", None),
    "register_buffer_bad": lambda t: err(net(t).register_buffer, "q", [1.0]),
    "register_buffer_dot": lambda t: err(net(t).register_buffer, "q.r", None),
    "register_buffer_exists": lambda t: err(net(t).register_buffer, "w", None),
    "add_module_not_module": lambda t: err(net(t).add_module, "q", 3),
    "add_module_tensor": lambda t: err(net(t).add_module, "q", t.ones(1)),
    "add_module_dot": lambda t: err(net(t).add_module, "q.r", None),
    "add_module_empty": lambda t: err(net(t).add_module, "", None),
    "add_module_exists": lambda t: err(net(t).add_module, "w", None),
    "register_module": lambda t: (lambda m: (m.register_module("extra", t.nn.Module()),
                                             [k for k, _ in m.named_children()]))(net(t)),
    "getattr_missing": lambda t: err(getattr, net(t), "foo"),
    "getattr_missing_leaf": lambda t: err(getattr, net(t).a, "foo"),
    "delattr": lambda t: (lambda m: (delattr(m, "w"), delattr(m, "tmp"), delattr(m, "a"),
                                     list(m.state_dict()), err(getattr, m, "w")))(net(t)),
    "dir": lambda t: [k for k in dir(net(t)) if not k.startswith("_") and
                      k not in ("compile", "register_module_forward_hook")],
    "init_kwargs": lambda t: err(t.nn.Module, foo=1),
    "init_args": lambda t: err(t.nn.Module, 1),
    "no_forward": lambda t: err(t.nn.Module(), t.ones(1)),
}


@pytest.mark.parametrize("name", REGISTRATION)
def test_registration(name):
    same(REGISTRATION[name])


# -- traversals --------------------------------------------------------------------------------
def _names(pairs):
    return [k for k, _ in pairs]


def shared(t):
    """A module that holds one submodule and one parameter twice."""
    m = t.nn.Module()
    leaf = classes(t)[1](2)
    m.x = leaf
    m.y = leaf
    m.p = leaf.scale
    return m


TRAVERSALS = {
    "named_parameters": lambda t: list(net(t).named_parameters()),
    "named_parameters_prefix": lambda t: _names(net(t).named_parameters(prefix="top")),
    "named_parameters_norecurse": lambda t: _names(net(t).named_parameters(recurse=False)),
    "parameters": lambda t: list(net(t).parameters()),
    "parameters_norecurse": lambda t: list(net(t).parameters(recurse=False)),
    "named_buffers": lambda t: list(net(t).named_buffers()),
    "named_buffers_prefix": lambda t: _names(net(t).named_buffers(prefix="p", recurse=False)),
    "buffers": lambda t: list(net(t).buffers()),
    "children": lambda t: [type(m).__name__ for m in net(t).children()],
    "named_children": lambda t: _names(net(t).named_children()),
    "modules": lambda t: [type(m).__name__ for m in net(t).modules()],
    "named_modules": lambda t: _names(net(t).named_modules()),
    "named_modules_prefix": lambda t: _names(net(t).named_modules(prefix="m")),
    "shared_dedup": lambda t: (_names(shared(t).named_parameters()),
                               _names(shared(t).named_modules()),
                               _names(shared(t).named_children()),
                               _names(shared(t).named_buffers())),
    "shared_dup": lambda t: (_names(shared(t).named_parameters(remove_duplicate=False)),
                             _names(shared(t).named_modules(remove_duplicate=False)),
                             _names(shared(t).named_buffers(remove_duplicate=False))),
    "get_submodule": lambda t: (repr(net(t).get_submodule("b.1")), net(t).get_submodule("") is
                                not None),
    "get_submodule_missing": lambda t: err(net(t).get_submodule, "b.7"),
    "get_submodule_not_module": lambda t: err(net(t).get_submodule, "a.scale"),
    "get_parameter": lambda t: net(t).get_parameter("b.0.scale"),
    "get_parameter_top": lambda t: net(t).get_parameter("w"),
    "get_parameter_missing": lambda t: err(net(t).get_parameter, "b.0.nope"),
    "get_parameter_buffer": lambda t: err(net(t).get_parameter, "b.0.count"),
    "get_parameter_bad_path": lambda t: err(net(t).get_parameter, "zz.w"),
    "get_buffer": lambda t: net(t).get_buffer("a.count"),
    "get_buffer_param": lambda t: err(net(t).get_buffer, "a.scale"),
    "get_buffer_missing": lambda t: err(net(t).get_buffer, "a.nope"),
}


@pytest.mark.parametrize("name", TRAVERSALS)
def test_traversals(name):
    same(TRAVERSALS[name])


# -- modes, gradients, conversions -------------------------------------------------------------
def _trained(t):
    m = net(t)
    m(t.ones(3)).sum().backward()
    return m


def _zero_grad_keep(t):
    m = _trained(t)
    m.zero_grad(set_to_none=False)
    return [p.grad for p in m.parameters()]


def _convert(t, how):
    m = _trained(t)
    before = [id(p) for p in m.parameters()]
    out = how(m)
    return (out is m, [id(p) for p in m.parameters()] == before,
            [(k, v.dtype) for k, v in m.state_dict().items()],
            [p.grad.dtype for p in m.parameters()], [type(p).__name__ for p in m.parameters()],
            [p.requires_grad for p in m.parameters()])


MODES = {
    "train_eval": lambda t: (lambda m: (m.training, m.eval() is m, m.a.training, m.b[1].training,
                                        m.train() is m, m.b[0].training))(net(t)),
    "train_not_bool": lambda t: err(net(t).train, 1),
    "requires_grad_": lambda t: (lambda m: (m.requires_grad_(False) is m,
                                            [p.requires_grad for p in m.parameters()]))(net(t)),
    "grads": lambda t: [p.grad for p in _trained(t).parameters()],
    "zero_grad": lambda t: (lambda m: (m.zero_grad(), [p.grad for p in m.parameters()]))(
        _trained(t)),
    "zero_grad_keep": _zero_grad_keep,
    "apply": lambda t: (lambda names: (net(t).apply(lambda m: names.append(type(m).__name__)),
                                       names)[1])([]),
    "double": lambda t: _convert(t, lambda m: m.double()),
    "half": lambda t: _convert(t, lambda m: m.half()),
    "float_after_double": lambda t: _convert(t, lambda m: m.double().float()),
    "to_dtype": lambda t: _convert(t, lambda m: m.to(t.float64)),
    "to_dtype_kw": lambda t: _convert(t, lambda m: m.to(dtype=t.float64)),
    "to_device_dtype": lambda t: _convert(t, lambda m: m.to("cpu", t.float64)),
    "to_tensor": lambda t: _convert(t, lambda m: m.to(t.ones(1, dtype=t.float64))),
    "to_cpu": lambda t: _convert(t, lambda m: m.to("cpu")),
    "cpu": lambda t: _convert(t, lambda m: m.cpu()),
    "type": lambda t: _convert(t, lambda m: m.type(t.float64)),
    "to_int": lambda t: err(net(t).to, t.int32),
    "double_values": lambda t: list(net(t).double().state_dict().values()),
}


@pytest.mark.parametrize("name", MODES)
def test_modes_and_conversions(name):
    same(MODES[name])


def test_bfloat16_refuses_clearly_where_glassgrad_has_no_bfloat16():
    if hasattr(gg, "bfloat16"):
        same(lambda t: _convert(t, lambda m: m.bfloat16()))
    else:
        with pytest.raises(NotImplementedError, match="bfloat16"):
            net(gg).bfloat16()


# -- state dicts -------------------------------------------------------------------------------
def _load(t, edit, **kw):
    src, dst = net(t), net(t)
    with t.no_grad():
        for p in src.parameters():
            p.add_(1.5)
    sd = src.state_dict()
    edit(sd)
    out = err(dst.load_state_dict, sd, **kw)
    return out, list(dst.state_dict().values())


def _assign(t):
    dst = net(t)
    sd = {k: v.clone() + 1 for k, v in dst.state_dict().items()}
    old = dst.w
    res = dst.load_state_dict(sd, assign=True)
    return (repr(res), dst.w is old, type(dst.w).__name__, dst.w.requires_grad,
            dst.stats is sd["stats"], dst.w.data_ptr() == sd["w"].data_ptr())


def _state_hooks(t):
    log = []
    m = net(t)
    m.register_state_dict_pre_hook(lambda mod, prefix, keep_vars: log.append(
        ("pre", type(mod).__name__, prefix, keep_vars)))
    m.a.register_state_dict_post_hook(lambda mod, sd, prefix, meta: log.append(
        ("post", prefix, sorted(sd), dict(meta))))
    m.register_load_state_dict_pre_hook(lambda mod, sd, prefix, meta, strict, missing,
                                        unexpected, errors: log.append(
        ("load_pre", type(mod).__name__, prefix, sorted(sd), strict)))
    m.register_load_state_dict_post_hook(lambda mod, keys: log.append(
        ("load_post", keys.missing_keys, keys.unexpected_keys)))
    sd = m.state_dict(prefix="p.")
    m.load_state_dict(m.state_dict(), strict=False)
    return log, list(sd)


def _post_hook_returns(t):
    m = net(t)
    m.register_state_dict_post_hook(lambda *a: {"x": 1})
    return err(m.state_dict)


def _private_post_hook(t):
    m = net(t)
    m._register_state_dict_hook(lambda mod, sd, prefix, meta: {"only": t.ones(1)})
    return m.state_dict()


class _Extra:
    @staticmethod
    def make(t):
        class WithExtra(t.nn.Module):
            def __init__(self):
                super().__init__()
                self.note = "start"
                self.w = t.nn.Parameter(t.ones(1))

            def get_extra_state(self):
                return {"note": self.note}

            def set_extra_state(self, state):
                self.note = state["note"] + "!"
        return WithExtra()


def _extra_state(t):
    m = _Extra.make(t)
    sd = m.state_dict()
    other = _Extra.make(t)
    other.load_state_dict(sd)
    return list(sd), sd["_extra_state"], other.note, err(other.load_state_dict, {"w": t.ones(1)})


STATE = {
    "hooks": _state_hooks,
    "post_hook_must_return_none": _post_hook_returns,
    "private_post_hook_replaces": _private_post_hook,
    "extra_state": _extra_state,
    "positional_args": lambda t: (lambda: [list(net(t).state_dict(None, "q.")) for _ in [
        warnings.simplefilter("ignore")]])(),
    "extra_state_unexpected": lambda t: _load(t, lambda sd: sd.update({"_extra_state": 1})),
    "keys_values": lambda t: net(t).state_dict(),
    "metadata": lambda t: dict(net(t).state_dict()._metadata),
    "prefix": lambda t: list(net(t).state_dict(prefix="top.")),
    "prefix_metadata": lambda t: dict(net(t).state_dict(prefix="top.")._metadata),
    "detached": lambda t: [(v.requires_grad, type(v).__name__)
                           for v in net(t).state_dict().values()],
    "keep_vars": lambda t: [(v.requires_grad, type(v).__name__)
                            for v in net(t).state_dict(keep_vars=True).values()],
    "shares_memory": lambda t: (lambda m: m.state_dict()["w"].data_ptr() == m.w.data_ptr())(
        net(t)),
    "load": lambda t: (lambda r: (repr(r[0]), r[1]))(_load(t, lambda sd: None)),
    "load_result_fields": lambda t: (lambda r: (r.missing_keys, r.unexpected_keys, type(r).__name__))(
        net(t).load_state_dict(net(t).state_dict())),
    "load_missing": lambda t: _load(t, lambda sd: sd.pop("a.scale")),
    "load_unexpected": lambda t: _load(t, lambda sd: sd.update({"zz": t.ones(1),
                                                                "a.zz": t.ones(1)})),
    "load_both": lambda t: _load(t, lambda sd: (sd.pop("w"), sd.update({"b.5.x": t.ones(1)}))),
    "load_size_mismatch": lambda t: _load(t, lambda sd: sd.update({"w": t.ones(4)})),
    "load_not_tensor": lambda t: _load(t, lambda sd: sd.update({"w": [1.0, 2.0, 3.0]})),
    "load_non_strict": lambda t: (lambda r: (repr(r[0]), r[1]))(
        _load(t, lambda sd: (sd.pop("w"), sd.update({"q": t.ones(1)})), strict=False)),
    "load_non_strict_size": lambda t: _load(t, lambda sd: sd.update({"w": t.ones(2)}),
                                            strict=False),
    "load_not_mapping": lambda t: err(net(t).load_state_dict, [1]),
    "load_scalar_from_1": lambda t: (lambda m: (m.load_state_dict(
        {**m.state_dict(), "a.count": t.tensor([7])}), m.a.count))(net(t)),
    "load_nonpersistent_unexpected": lambda t: _load(t, lambda sd: sd.update({"tmp": t.ones(1)})),
    "load_assign": _assign,
    "load_into_nodes": lambda t: (lambda m: (m.load_state_dict(net(t).state_dict()),
                                             m.w._version, m.w.is_leaf))(net(t)),
}


@pytest.mark.parametrize("name", STATE)
def test_state_dict(name):
    same(STATE[name])


# -- repr --------------------------------------------------------------------------------------
def _repr_seq(t):
    Leaf = classes(t)[1]
    return t.nn.Sequential(OrderedDict([("first", Leaf(1)), ("inner", t.nn.Sequential(
        Leaf(2), t.nn.ModuleList([Leaf(2), Leaf(2), Leaf(3)]))), ("none", None)]))


class _Multi:
    pass


def _multiline(t):
    class M(t.nn.Module):
        def extra_repr(self):
            return "a=1\nb=2"
    m = M()
    m.sub = M()
    return m


REPRS = {
    "net": lambda t: repr(net(t)),
    "empty": lambda t: repr(t.nn.Module()),
    "sequential": lambda t: repr(_repr_seq(t)),
    "multiline_extra": lambda t: repr(_multiline(t)),
    "modulelist_empty": lambda t: repr(t.nn.ModuleList()),
    "moduledict": lambda t: repr(t.nn.ModuleDict({"x": classes(t)[1](2), "y": t.nn.Module()})),
    "parameterlist": lambda t: repr(t.nn.ParameterList([t.ones(2, 3), t.nn.Parameter(
        t.zeros(1, dtype=t.float64)), 5, "s"])),
    "parameterdict": lambda t: repr(t.nn.ParameterDict({"b": t.ones(2), "a": t.zeros(
        1, dtype=t.float64), "c": 3})),
}


@pytest.mark.parametrize("name", REPRS)
def test_repr(name):
    same(REPRS[name])


# -- the call and forward hooks ----------------------------------------------------------------
def _hooked(t, **kw):
    log = []
    m = classes(t)[1](3)
    m.register_forward_pre_hook(lambda mod, args: log.append(("pre", len(args))))
    m.register_forward_pre_hook(lambda mod, args: (args[0] * 2,))
    m.register_forward_hook(lambda mod, args, out: log.append(("post", out)))
    m.register_forward_hook(lambda mod, args, out: out + 1)
    return log, m


def _hooks_basic(t):
    log, m = _hooked(t)
    out = m(t.ones(3))
    return log, out


def _hooks_kwargs(t):
    log = []

    class K(t.nn.Module):
        def forward(self, x, *, scale=1.0):
            return x * scale
    m = K()
    m.register_forward_pre_hook(lambda mod, args, kwargs: (args, {"scale": 3.0}),
                                with_kwargs=True)
    m.register_forward_hook(lambda mod, args, kwargs, out: log.append(sorted(kwargs.items())),
                            with_kwargs=True)
    return m(t.ones(2), scale=2.0), log


def _hooks_prepend(t):
    log = []
    m = t.nn.Identity() if hasattr(t.nn, "Identity") else None
    m = classes(t)[1](1)
    m.register_forward_hook(lambda *a: log.append("first"))
    m.register_forward_hook(lambda *a: log.append("second"), prepend=True)
    m.register_forward_pre_hook(lambda *a: log.append("pre1"))
    m.register_forward_pre_hook(lambda *a: log.append("pre0"), prepend=True)
    m(t.ones(1))
    return log


def _hooks_remove(t):
    log = []
    m = classes(t)[1](1)
    h = m.register_forward_hook(lambda *a: log.append("h"), with_kwargs=False)
    m(t.ones(1))
    h.remove()
    m(t.ones(1))
    with m.register_forward_pre_hook(lambda *a: log.append("ctx")):
        m(t.ones(1))
    m(t.ones(1))
    return log


def _always_call(t):
    log = []

    class Boom(t.nn.Module):
        def forward(self, x):
            raise ValueError("boom")
    m = Boom()
    m.register_forward_hook(lambda *a: log.append("always"), always_call=True)
    m.register_forward_hook(lambda *a: log.append("not"))
    return err(m, t.ones(1)), log


def _bad_pre_kwargs(t):
    m = classes(t)[1](1)
    m.register_forward_pre_hook(lambda mod, args, kwargs: 5, with_kwargs=True)
    return err(m, t.ones(1))


HOOKS = {
    "basic": _hooks_basic,
    "kwargs": _hooks_kwargs,
    "prepend": _hooks_prepend,
    "remove": _hooks_remove,
    "always_call": _always_call,
    "bad_pre_kwargs": _bad_pre_kwargs,
    "forward_grad": lambda t: (lambda m: (lambda out: (out, out.grad_fn.name()))(
        m(t.ones(3, requires_grad=True))))(net(t)),
}


@pytest.mark.parametrize("name", HOOKS)
def test_forward_hooks(name):
    same(HOOKS[name])


def _call_impl_replaced(t):
    """Module.__call__ goes through ``_call_impl`` (its fast path inline in glassgrad): a
    subclass's or a patched class's ``_call_impl`` is still what a call runs, and a hook put
    straight into a module's hook dict is still seen."""
    nn = t.nn
    log = []

    class Logged(nn.Linear):
        def _call_impl(self, *args, **kwargs):
            log.append("sub")
            return super()._call_impl(*args, **kwargs)

    m = Logged(2, 3)
    m.weight.data.fill_(0.5)
    m.bias.data.fill_(0.25)
    out = [m(t.ones(1, 2))]
    original = nn.Module._call_impl
    nn.Module._call_impl = lambda self, *args, **kwargs: (log.append(type(self).__name__),
                                                          original(self, *args, **kwargs))[1]
    try:
        out.append(nn.Sequential(nn.Identity(), nn.ReLU())(t.tensor([-1.0, 2.0])))
    finally:
        nn.Module._call_impl = original
    r = nn.ReLU()
    r._forward_hooks[12345] = lambda mod, args, result: result * 2
    out.append(r(t.tensor([-1.0, 2.0])))
    return out, log


def test_call_impl_replaced_and_hook_dicts_written_directly():
    same(_call_impl_replaced)


# -- full backward hooks -----------------------------------------------------------------------
def _grads(gs):
    return [None if g is None else g for g in gs]


def _bw_basic(t):
    log = []
    m = classes(t)[1](3)
    m.register_full_backward_pre_hook(lambda mod, go: log.append(("pre", _grads(go))))
    m.register_full_backward_hook(lambda mod, gi, go: log.append(("full", _grads(gi),
                                                                  _grads(go))))
    x = t.arange(3.0, requires_grad=True)
    y = m(x)
    (y * t.tensor([1.0, 2.0, 3.0])).sum().backward()
    return log, type(y.grad_fn).__name__, x.grad, m.scale.grad


def _bw_replace(t):
    m = classes(t)[1](3)
    m.register_full_backward_pre_hook(lambda mod, go: (go[0] * 10,))
    m.register_full_backward_hook(lambda mod, gi, go: (gi[0] + 1,))
    x = t.arange(3.0, requires_grad=True)
    m(x).sum().backward()
    return x.grad, m.scale.grad


class _Two:
    """A module of two tensor inputs and a flag, two outputs."""

    @staticmethod
    def make(t):
        class Two(t.nn.Module):
            def forward(self, a, flag, b):
                return a * b, (a + b) if flag else a
        return Two()


def _bw_multi(t):
    log = []
    m = _Two.make(t)
    m.register_full_backward_hook(lambda mod, gi, go: log.append((_grads(gi), _grads(go))))
    a, b = t.ones(2, requires_grad=True), t.full((2,), 3.0)
    p, q = m(a, True, b)
    (p.sum() + 2 * q.sum()).backward()
    return log, a.grad, type(p.grad_fn).__name__, type(q.grad_fn).__name__


def _bw_no_input_grad(t):
    log = []
    m = classes(t)[1](2)
    m.register_full_backward_hook(lambda mod, gi, go: log.append((_grads(gi), _grads(go))))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m(t.ones(2)).sum().backward()
    return log, m.scale.grad, [str(w.message) for w in caught]


def _bw_bad_count(t):
    m = classes(t)[1](2)
    m.register_full_backward_hook(lambda mod, gi, go: (gi[0], gi[0]))
    x = t.ones(2, requires_grad=True)
    return err(m(x).sum().backward)


def _bw_bad_pre_count(t):
    m = classes(t)[1](2)
    m.register_full_backward_pre_hook(lambda mod, go: (go[0], go[0]))
    return err(m(t.ones(2, requires_grad=True)).sum().backward)


def _bw_sequential(t):
    log = []
    leaves = [classes(t)[1](2) for _ in range(3)]
    seq = t.nn.Sequential(*leaves)
    for i, leaf in enumerate(leaves):
        leaf.register_full_backward_hook(lambda mod, gi, go, i=i: log.append(
            (i, _grads(gi), _grads(go))))
    h = seq.register_full_backward_hook(lambda mod, gi, go: log.append(("seq", _grads(gi))))
    x = t.tensor([1.0, -2.0], requires_grad=True)
    seq(x).sum().backward()
    h.remove()
    seq(x).sum().backward()
    return log, x.grad


def _bw_prepend_and_remove(t):
    log = []
    m = classes(t)[1](2)
    m.register_full_backward_hook(lambda *a: log.append("first"))
    h = m.register_full_backward_hook(lambda *a: log.append("second"), prepend=True)
    x = t.ones(2, requires_grad=True)
    m(x).sum().backward()
    h.remove()
    m(x).sum().backward()
    return log


def _bw_no_grad(t):
    log = []
    m = classes(t)[1](2)
    m.register_full_backward_hook(lambda *a: log.append("hook"))
    with t.no_grad():
        out = m(t.ones(2, requires_grad=True))
    return log, out.requires_grad


BACKWARD_HOOKS = {
    "basic": _bw_basic, "replace": _bw_replace, "multi": _bw_multi,
    "no_input_grad": _bw_no_input_grad, "bad_count": _bw_bad_count,
    "bad_pre_count": _bw_bad_pre_count, "sequential": _bw_sequential,
    "prepend_and_remove": _bw_prepend_and_remove, "no_grad": _bw_no_grad,
}


@pytest.mark.parametrize("name", BACKWARD_HOOKS)
def test_full_backward_hooks(name):
    same(BACKWARD_HOOKS[name])


# -- global module hooks -----------------------------------------------------------------------
def _mm(t):
    return t.nn.modules.module


def _global_forward(t):
    log = []
    handles = [
        _mm(t).register_module_forward_pre_hook(lambda m, a: log.append(("gpre", type(m).__name__))),
        _mm(t).register_module_forward_hook(lambda m, a, o: log.append(("gpost", type(m).__name__))),
        _mm(t).register_module_forward_hook(lambda m, a, k, o: o * 2, with_kwargs=True),
    ]
    try:
        m = net(t)
        m.register_forward_pre_hook(lambda *a: log.append("own pre"))
        out = m(t.ones(3))
    finally:
        for h in handles:
            h.remove()
    return log, out, net(t)(t.ones(3))


def _global_always(t):
    log = []

    class Boom(t.nn.Module):
        def forward(self, x):
            raise ValueError("boom")
    h = _mm(t).register_module_forward_hook(lambda *a: log.append("always"), always_call=True)
    try:
        return err(Boom(), t.ones(1)), log
    finally:
        h.remove()


def _global_backward(t):
    log = []
    handles = [_mm(t).register_module_full_backward_hook(
        lambda m, gi, go: log.append((type(m).__name__, _grads(gi), _grads(go)))),
        _mm(t).register_module_full_backward_pre_hook(
            lambda m, go: log.append(("pre", type(m).__name__)))]
    try:
        x = t.ones(3, requires_grad=True)
        classes(t)[1](3)(x).sum().backward()
    finally:
        for h in handles:
            h.remove()
    return log, x.grad


def _global_registration(t):
    log = []
    handles = [
        _mm(t).register_module_parameter_registration_hook(
            lambda m, n, p: log.append(("param", type(m).__name__, n))),
        _mm(t).register_module_buffer_registration_hook(
            lambda m, n, b: (log.append(("buffer", n)), None if b is None else b * 0 + 7)[1]),
        _mm(t).register_module_module_registration_hook(
            lambda m, n, sub: log.append(("module", type(m).__name__, n))),
    ]
    try:
        m = net(t)
        m.register_parameter("none", None)
    finally:
        for h in handles:
            h.remove()
    return log, m.stats, m.a.count


GLOBAL_HOOKS = {"forward": _global_forward, "always": _global_always,
                "backward": _global_backward, "registration": _global_registration}


@pytest.mark.parametrize("name", GLOBAL_HOOKS)
def test_global_module_hooks(name):
    same(GLOBAL_HOOKS[name])


# -- copy and pickle ---------------------------------------------------------------------------
def _copied(t, how):
    m = net(t)
    m(t.ones(3)).sum().backward()
    c = how(m)
    return (repr(c), c.state_dict(), [type(p).__name__ for p in c.parameters()],
            [p.requires_grad for p in c.parameters()], c.w is m.w,
            c.w.data_ptr() == m.w.data_ptr(), c(t.ones(3)), [p.grad for p in c.parameters()])


COPIES = {
    "deepcopy": lambda t: _copied(t, copy.deepcopy),
    "pickle": lambda t: _copied(t, lambda m: pickle.loads(pickle.dumps(m))),
    "deepcopy_shared": lambda t: (lambda c: (c.x is c.y, c.p is c.x.scale,
                                             _names(c.named_parameters())))(
        copy.deepcopy(shared(t))),
    "copy_shallow": lambda t: (lambda m: (lambda c: (c.w is m.w, c._parameters is
                                                     m._parameters))(copy.copy(m)))(net(t)),
}


@pytest.mark.parametrize("name", COPIES)
def test_copy_and_pickle(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(COPIES[name])


# -- containers --------------------------------------------------------------------------------
def _leaves(t, *ns):
    Leaf = classes(t)[1]
    return [Leaf(n) for n in ns]


def _seq(t):
    return t.nn.Sequential(*_leaves(t, 1, 2, 3))


CONTAINERS = {
    "seq_forward": lambda t: t.nn.Sequential(*_leaves(t, 3, 3))(t.ones(3)),
    "seq_index": lambda t: (repr(_seq(t)[1]), repr(_seq(t)[-1]), err(_seq(t).__getitem__, 3),
                            err(_seq(t).__getitem__, -4)),
    "seq_slice": lambda t: (type(_seq(t)[1:]).__name__, repr(_seq(t)[1:]), repr(_seq(t)[::2])),
    "seq_len_iter": lambda t: (len(_seq(t)), [m.n for m in _seq(t)]),
    "seq_ordereddict": lambda t: (lambda s: (repr(s), repr(s.b), repr(s[0])))(
        t.nn.Sequential(OrderedDict([("a", _leaves(t, 1)[0]), ("b", _leaves(t, 2)[0])]))),
    "seq_append_insert": lambda t: (lambda s: (repr(s.append(_leaves(t, 4)[0])),
                                               repr(s.insert(0, _leaves(t, 5)[0])),
                                               repr(s.insert(-1, _leaves(t, 6)[0])),
                                               err(s.insert, 9, _leaves(t, 1)[0]),
                                               err(s.insert, 0, 3)))(_seq(t)),
    "seq_extend_pop": lambda t: (lambda s: (repr(s.extend(_leaves(t, 7, 8))), s.pop(1).n,
                                            repr(s), s.pop(-1).n, repr(s)))(_seq(t)),
    "seq_delitem": lambda t: (lambda s: (s.__delitem__(slice(0, 2)), repr(s)))(_seq(t)),
    "seq_setitem": lambda t: (lambda s: (s.__setitem__(-1, _leaves(t, 9)[0]), repr(s)))(_seq(t)),
    "seq_add": lambda t: repr(_seq(t) + t.nn.Sequential(*_leaves(t, 4))),
    "seq_add_bad": lambda t: err(lambda: _seq(t) + 1),
    "seq_iadd": lambda t: (lambda s: (s.__iadd__(_seq(t)) is s, repr(s)))(_seq(t)),
    "seq_mul": lambda t: (repr(_seq(t) * 2), repr(2 * _seq(t)), err(lambda: _seq(t) * 0),
                          err(lambda: _seq(t) * 1.5)),
    "seq_imul": lambda t: (lambda s: (s.__imul__(2) is s, repr(s)))(_seq(t)),
    "seq_params": lambda t: _names(_seq(t).named_parameters()),
    "seq_dir": lambda t: [k for k in dir(_seq(t)) if k.isdigit()],
    "list": lambda t: (lambda ml: (len(ml), repr(ml[0]), repr(ml[-1]), repr(ml[1:]),
                                   type(ml[1:]).__name__, err(ml.__getitem__, 5),
                                   _names(ml.named_parameters())))(
        t.nn.ModuleList(_leaves(t, 1, 2, 2))),
    "list_ops": lambda t: (lambda ml: (repr(ml.append(_leaves(t, 3)[0])),
                                       ml.insert(1, _leaves(t, 4)[0]), repr(ml),
                                       repr(ml.extend(_leaves(t, 5))), ml.pop(0).n,
                                       repr(ml), ml.__delitem__(slice(1, None)), repr(ml),
                                       repr(ml + t.nn.ModuleList(_leaves(t, 6))),
                                       err(ml.extend, 3)))(t.nn.ModuleList(_leaves(t, 1, 2))),
    "list_setitem": lambda t: (lambda ml: (ml.__setitem__(-1, _leaves(t, 7)[0]), repr(ml)))(
        t.nn.ModuleList(_leaves(t, 1, 2))),
    "dict": lambda t: (lambda md: (len(md), list(md), list(md.keys()), "b" in md,
                                   [v.n for v in md.values()], [k for k, _ in md.items()],
                                   md.pop("a").n, repr(md), _names(md.named_parameters())))(
        t.nn.ModuleDict({"b": _leaves(t, 2)[0], "a": _leaves(t, 1)[0]})),
    "dict_update": lambda t: (lambda md: (md.update([("x", _leaves(t, 1)[0])]),
                                          md.update(OrderedDict(y=_leaves(t, 2)[0])),
                                          err(md.update, 3), err(md.update, [("a",)]),
                                          err(md.update, [3]), md.__setitem__("z", t.nn.Module()),
                                          md.__delitem__("x"), list(md), md.clear(), len(md)))(
        t.nn.ModuleDict()),
    "paramlist": lambda t: (lambda pl: (len(pl), [type(p).__name__ for p in pl],
                                        _names(pl.named_parameters()), repr(pl[1:]),
                                        pl.append(t.ones(1)) is pl, len(pl), err(pl.extend, 3),
                                        err(pl.extend, t.ones(2)), err(pl), err(pl.__getitem__, 9)))(
        t.nn.ParameterList([t.ones(2), t.nn.Parameter(t.zeros(1)), "x"])),
    "paramdict": lambda t: (lambda pd: (len(pd), list(pd), [type(v).__name__ for v in
                                                            pd.values()],
                                        _names(pd.named_parameters()), "a" in pd,
                                        pd.get("zz", 1), pd.setdefault("d", t.ones(1)).shape,
                                        pd.pop("a"), list(pd), pd.popitem()[0], list(pd),
                                        list(reversed(pd)), list(pd.copy()),
                                        list(pd | t.nn.ParameterDict({"e": t.ones(1)})),
                                        err(pd.__getitem__, 1), err(pd), list(
                                            pd.fromkeys(["u", "v"], t.ones(1)))))(
        t.nn.ParameterDict({"b": t.ones(2), "a": t.zeros(1), "c": "s"})),
    "paramdict_update": lambda t: (lambda pd: (pd.update([("z", t.ones(1)), ("y", t.ones(1))]),
                                               list(pd), err(pd.update, 3),
                                               err(pd.update, [("q",)]), err(pd.update, [3])))(
        t.nn.ParameterDict()),
    "container_state_dict": lambda t: list(t.nn.Sequential(
        t.nn.ModuleList(_leaves(t, 1, 2)), t.nn.ModuleDict({"k": _leaves(t, 1)[0]}),
        t.nn.ParameterList([t.ones(1)]), t.nn.ParameterDict({"p": t.ones(1)})).state_dict()),
}


@pytest.mark.parametrize("name", CONTAINERS)
def test_containers(name):
    same(CONTAINERS[name])
