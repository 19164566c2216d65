"""Tensor subclasses and __torch_function__, differentially against torch 2.13: which class a
result has, what a subclass's __torch_function__ is handed, NotImplemented, opting out
(nn.Parameter), torch.overrides, as_subclass, reprs; and the plain fast path stays plain."""
import pytest
import torch

import glassgrad as gg
from differential import catch, same


def _classes(lib):
    """A logging subclass, a plain one, one that refuses every call, and a non-Tensor type."""
    log = []

    class Logged(lib.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            log.append([t.__name__ for t in types])
            return super().__torch_function__(func, types, args, kwargs)

    class Plain(lib.Tensor):
        pass

    class Refuse(lib.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return NotImplemented

    class Other:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return ("other", func.__name__, len(args))
    return log, Logged, Plain, Refuse, Other


CALLS = {
    "function": lambda lib, s, x: lib.add(s, x),
    "function_second": lambda lib, s, x: lib.mul(x, s),
    "function_kwarg": lambda lib, s, x: lib.add(x, other=s),
    "method": lambda lib, s, x: s.sum(),
    "method_args": lambda lib, s, x: s.add(x, alpha=2),
    "dunder": lambda lib, s, x: s + 1,
    "reflected": lambda lib, s, x: 1 - s,
    "plain_left": lambda lib, s, x: x * s,
    "list_argument": lambda lib, s, x: lib.stack([x, s]),
    "in_place": lambda lib, s, x: s.mul_(2),
    "named_tuple": lambda lib, s, x: s.max(0),
    "indexing": lambda lib, s, x: s[1:],
    "view": lambda lib, s, x: s.view(2, 2),
    "comparison": lambda lib, s, x: s > 1,
}


def _describe(result):
    if isinstance(result, (tuple, list)):
        return [type(result).__name__, [_describe(r) for r in result]]
    return [type(result).__name__, result.tolist() if hasattr(result, "tolist") else result]


@pytest.mark.parametrize("call", sorted(CALLS))
def test_subclass_calls(call):
    def program(lib):
        log, logged, plain, _, _ = _classes(lib)
        x = lib.arange(4.)
        s, p = x.clone().as_subclass(logged), x.clone().as_subclass(plain)
        out = CALLS[call](lib, s, x)
        return [_describe(out), bool(log), log[:1], _describe(CALLS[call](lib, p, x))]
    same(program)


def test_not_implemented_everywhere():
    def program(lib):
        _, _, _, refuse, _ = _classes(lib)
        q = lib.arange(4.).as_subclass(refuse)
        try:
            lib.add(q, 1)
        except TypeError as e:
            return str(e).replace("test_torch_function._classes.<locals>.", "")
    same(program)


def test_parameter_opts_out():
    def program(lib):
        w = lib.nn.Parameter(lib.ones(2))
        return [type(w * 2).__name__, type(lib.sin(w)).__name__, type(w.sum()).__name__,
                lib.overrides.has_torch_function((w,)), repr(w)]
    same(program)


def test_overrides_helpers():
    def program(lib):
        _, logged, _, _, other = _classes(lib)
        x = lib.arange(3.)
        s = x.as_subclass(logged)

        def f(a, b=2):
            if lib.overrides.has_torch_function((a,)):
                return lib.overrides.handle_torch_function(f, (a,), a, b=b)
            return a
        return [lib.overrides.has_torch_function((x,)), lib.overrides.has_torch_function((s,)),
                lib.overrides.has_torch_function((1, [x, s])),
                lib.overrides.has_torch_function_unary(s),
                lib.overrides.has_torch_function_variadic(x, s),
                lib.overrides.is_tensor_like(x), lib.overrides.is_tensor_like(s),
                lib.overrides.is_tensor_like(other()), lib.overrides.is_tensor_like(3),
                f(other()), lib.add(other(), 1), type(f(s)).__name__]
    same(program)


def test_disable_torch_function_subclass():
    def program(lib):
        log, logged, _, _, _ = _classes(lib)
        s = lib.arange(3.).as_subclass(logged)
        with lib.DisableTorchFunctionSubclass():
            inside = [type(s + 1).__name__, type(lib.sin(s)).__name__, len(log)]
        return [inside, type(s + 1).__name__, len(log)]
    same(program)


def test_as_subclass():
    def program(lib):
        _, logged, plain, _, _ = _classes(lib)
        w = lib.ones(2, requires_grad=True)
        y = w.as_subclass(plain)
        (y * 2).sum().backward()
        x = lib.arange(3.)
        z = x.as_subclass(plain)
        z[0] = 5
        return [type(y).__name__, y.requires_grad, y.grad_fn.name(), y.is_leaf, w.grad, x,
                z.data_ptr() == x.data_ptr(), lib.arange(2.).as_subclass(logged).grad_fn,
                catch(lambda: x.as_subclass(int))]
    same(program)


def test_subclass_repr():
    def program(lib):
        _, logged, plain, _, _ = _classes(lib)
        return [repr(lib.arange(3.).as_subclass(logged)),
                repr(lib.ones(2, 2, requires_grad=True).as_subclass(plain)),
                repr(lib.arange(3).as_subclass(plain)), repr(lib.nn.Parameter(lib.ones(1)))]
    same(program)


def test_plain_calls_take_the_fast_path():
    """The argument layer's fast path admits exactly the protocol-less classes."""
    from glassgrad import _overrides
    _, logged, plain, _, _ = _classes(gg)
    assert gg.Tensor in _overrides.PLAIN and gg.nn.Parameter in _overrides.PLAIN
    assert logged not in _overrides.PLAIN and plain not in _overrides.PLAIN


def test_a_planned_call_shape_still_dispatches():
    """The argument layer plans a call shape (keywords, int lists) once it has parsed it; a
    shape first seen with the protocol disabled must not skip the subclass's
    __torch_function__ afterwards (plans are made for plain tensors only)."""
    def program(lib):
        log, logged, _, _, _ = _classes(lib)
        s = lib.arange(6.).reshape(2, 3).as_subclass(logged)
        calls = [lambda: s.sum(dim=1, keepdim=True), lambda: s.permute((1, 0)),
                 lambda: lib.sum(s, dim=[0]), lambda: s.sub_(lib.ones(3), alpha=2)]
        seen = []
        for call in calls:
            with lib.DisableTorchFunctionSubclass():
                inside = call()
            before = len(log)
            outside = call()
            seen.append([type(inside).__name__, type(outside).__name__, len(log) - before])
        for _ in range(2):  # planned shapes with plain tensors, then the subclass again
            x = lib.arange(6.).reshape(2, 3)
            seen.append([type(x.sum(dim=1, keepdim=True)).__name__,
                         type(s.sum(dim=1, keepdim=True)).__name__])
        return [seen, len(log)]
    same(program)
