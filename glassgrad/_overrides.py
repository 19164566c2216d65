"""__torch_function__: Tensor subclasses (and other types) that take over torch calls.

A type *overrides* when it has a ``__torch_function__`` other than
``_disabled_torch_function_impl`` (nn.Parameter's); plain Tensor is never an override. A call
that meets one is handed to ``type.__torch_function__(func, types, args, kwargs)`` in torch's
order (subclasses before their bases, else left to right); NotImplemented passes it on.

Plain tensors never pay for this: the argument layer's fast path admits only the types in
``PLAIN`` (Tensor and the subclasses that disable the protocol), so a call with an override
goes to its slow path, which asks ``overloaded``; a method called on an override instance is
caught by the wrappers ``wrap_methods`` sets on its class (Tensor's own stay as they are), and
Python tries an override's reflected operator first (``x * sub`` calls ``sub.__rmul__``).
Properties (``sub.shape``) are not intercepted.
"""
import contextlib
import types as _types

from ._autograd.grad_mode import state

PLAIN = set()   # Tensor and its subclasses without the protocol (add_plain)
# the argument types a scan passes over at once: PLAIN's and Python's scalars
_SKIP = {int, float, bool, str, type(None)}


def add_plain(cls):
    PLAIN.add(cls)
    _SKIP.add(cls)

# the Tensor methods an override's wrappers leave alone (object machinery, copying, pickling)
_NOT_WRAPPED = {"__init__", "__new__", "__init_subclass__", "__reduce_ex__", "__deepcopy__",
                "__getattribute__", "__setattr__", "__delattr__", "__torch_function__",
                "__format__", "__array__", "__hash__", "__copy__", "__reduce__", "__sizeof__",
                "__dir__", "__getstate__", "__setstate__", "__subclasshook__", "as_subclass",
                "__class_getitem__"}


def _disabled_torch_function_impl(func, types, args=(), kwargs=None):
    """The __torch_function__ of types that opt out (nn.Parameter): the call runs as usual."""
    with DisableTorchFunctionSubclass():
        return func(*args, **(kwargs or {}))


def overrides(cls):
    impl = getattr(cls, "__torch_function__", None)
    if impl is None or cls is _Tensor[0]:
        return False
    return getattr(impl, "__func__", impl) is not _disabled_torch_function_impl


def _relevant(values, out, nested):
    for v in values:
        t = type(v)
        if t in _SKIP:
            continue
        if t is list or t is tuple:
            if nested:
                _relevant(v, out, False)
        elif t not in out and overrides(t):
            out.append(t)


def overloaded(args, kwargs=None, nested=True):
    """The overriding types among ``args`` (and in lists and tuples among them, where
    ``nested``: tensor-list arguments) and ``kwargs``'s values, in dispatch order; empty when
    torch functions are disabled."""
    if state.torch_function_off:
        return []
    for v in args:      # the common case, at once: plain tensors and numbers only
        if type(v) not in _SKIP:
            break
    else:
        if not kwargs:
            return []
    found = []
    _relevant(args, found, nested)
    if kwargs:
        _relevant(kwargs.values(), found, nested)
    ordered = []
    for t in found:     # a subclass goes before the first of its bases already placed
        at = next((i for i, u in enumerate(ordered) if issubclass(t, u)), len(ordered))
        ordered.insert(at, t)
    return ordered


def has_torch_function(relevant_args):
    """torch.overrides.has_torch_function."""
    return bool(overloaded(relevant_args, nested=False))


def is_tensor_like(inp):
    """A Tensor, or an object whose type has __torch_function__."""
    return type(inp) is _Tensor[0] or hasattr(inp, "__torch_function__")


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """torch.overrides.handle_torch_function: hand the call to the overrides among
    ``relevant_args``."""
    return dispatch(public_api, args, kwargs, overloaded(relevant_args, nested=False))


def dispatch(func, args, kwargs, types=None):
    """Run ``func(*args, **kwargs)`` through the overrides (``types``: overloaded(...))."""
    types = overloaded(args, kwargs) if types is None else types
    if not types:
        return func(*args, **kwargs)
    for t in types:
        result = t.__torch_function__(func, tuple(types), args, kwargs)
        if result is not NotImplemented:
            return result
    name = getattr(func, "__name__", str(func))
    handlers = "".join(f"\n  - tensor subclass {t}" if issubclass(t, _Tensor[0]) else
                       f"\n  - {t}" for t in types)
    raise TypeError(f"Multiple dispatch failed for 'torch.{name}'; all __torch_function__ "
                    f"handlers returned NotImplemented:\n{handlers}\n\nFor more information, try "
                    "re-running with TORCH_LOGS=not_implemented")


class DisableTorchFunctionSubclass(contextlib.ContextDecorator):
    """torch._C.DisableTorchFunctionSubclass: calls inside skip the overrides."""

    def __enter__(self):
        state.torch_function_off += 1

    def __exit__(self, *exc):
        state.torch_function_off -= 1


DisableTorchFunction = DisableTorchFunctionSubclass


def convert(result, cls):
    """Tensor.__torch_function__'s last step: tensors in the result become ``cls``."""
    tensor = _Tensor[0]
    if isinstance(result, tensor) and not isinstance(result, cls):
        return result.as_subclass(cls)
    if isinstance(result, (tuple, list)):
        items = [convert(r, cls) for r in result]
        # (torch.return_types take their fields one by one)
        return type(result)(items) if type(result) in (tuple, list) else type(result)(*items)
    return result


def _method(name, fn):
    def method(self, *args, **kwargs):
        if state.torch_function_off:
            return fn(self, *args, **kwargs)
        return dispatch(fn, (self, *args), kwargs)
    method.__name__ = method.__qualname__ = name
    method.__wrapped__ = fn
    return method


def wrap_methods(cls):
    """On an overriding subclass: each Tensor method it inherits as it is, through dispatch."""
    tensor = _Tensor[0]
    for name, fn in vars(tensor).items():
        if (name in _NOT_WRAPPED or not isinstance(fn, _types.FunctionType) or
                (name.startswith("_") and not name.endswith("__"))):
            continue
        if getattr(cls, name, None) is fn:
            setattr(cls, name, _method(name, fn))


_Tensor = []    # [Tensor], set by _tensor.py (which imports this module)
