"""torch.nn.parameter: Parameter (a leaf Tensor subclass a Module registers), Buffer, and the
uninitialized parameters and buffers of lazy modules."""
import weakref

from .. import _creation
from .._overrides import _disabled_torch_function_impl
from .._tensor import PLAIN_REPR, Tensor

__all__ = ["Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer", "is_lazy"]


class Parameter(Tensor):
    """A tensor a Module registers as a parameter: a leaf sharing ``data``'s memory and version
    counter, ``requires_grad`` True unless asked otherwise (grad mode does not matter)."""

    __torch_function__ = _disabled_torch_function_impl     # ops on it give plain Tensors

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _creation.empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter.__new__(): argument 'data' (position 1) must be Tensor, "
                            f"not {type(data).__name__}")
        return cls._make(data._data, requires_grad=bool(requires_grad),
                         counter=data._version_counter)

    def __init__(self, data=None, requires_grad=True):
        pass

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def __deepcopy__(self, memo):
        # torch's: a fresh Parameter on a clone of the data (the grad is not copied)
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.data.clone(), self.requires_grad)
        return memo[id(self)]

    def __reduce_ex__(self, protocol):
        return (_rebuild_parameter, (self.data, self.requires_grad))


def _rebuild_parameter(data, requires_grad):
    return Parameter(data, requires_grad)


# Buffer(t) returns a plain Tensor, as torch's does; glassgrad's Tensor has no __dict__ to mark
# it with, so the marks (and ``persistent``) are kept here, by id, while the tensor lives.
_BUFFERS = {}


def _buffer_persistent(t):
    """persistent= of a tensor made by nn.Buffer, or None for any other tensor."""
    mark = _BUFFERS.get(id(t))
    return mark[1] if mark is not None and mark[0]() is t else None


PLAIN_REPR.add(Parameter)


class _BufferMeta(type):
    def __instancecheck__(cls, instance):
        return isinstance(instance, Tensor) and _buffer_persistent(instance) is not None


class Buffer(metaclass=_BufferMeta):
    """``nn.Buffer(t, persistent=True)``: a detached plain Tensor that Module.__setattr__
    registers as a buffer."""

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = _creation.empty(0)
        t = data.detach().requires_grad_(data.requires_grad)
        key = id(t)
        _BUFFERS[key] = (weakref.ref(t, lambda _: _BUFFERS.pop(key, None)), bool(persistent))
        return t


class UninitializedTensorMixin:
    """A parameter or buffer whose shape is not known yet: an empty tensor until
    ``materialize(shape)`` gives it memory of that shape and makes it what it stands for.
    (torch also refuses any other op on it; glassgrad's ops see an empty tensor.)"""
    __slots__ = ()

    def materialize(self, shape, device=None, dtype=None):
        device = self.data.device if device is None else device
        dtype = self.data.dtype if dtype is None else dtype
        self.data = _creation.empty(shape, device=device, dtype=dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError("Can't access the shape of an uninitialized parameter or buffer. This "
                           "error usually happens in `load_state_dict` when trying to load an "
                           "uninitialized parameter into an initialized one. Call `forward` to "
                           "initialize the parameters before accessing their attributes.")

    def share_memory_(self):
        raise RuntimeError("Can't share memory on an uninitialized parameter or buffer. Call "
                           "`forward` to initialize the parameters before calling "
                           "`module.share_memory()`.")

    def __repr__(self):
        return f"<{self.__class__.__name__}>"

    __str__ = __repr__

    def __reduce_ex__(self, proto):
        return (self.__class__, (self.requires_grad,))


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        data = _creation.empty(0, device=device, dtype=dtype)
        return cls._make(data._data, requires_grad=bool(requires_grad))

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.requires_grad, self.data.device, self.data.dtype)
        return memo[id(self)]


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    __slots__ = ()
    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        data = _creation.empty(0, device=device, dtype=dtype)
        t = cls._make(data._data, requires_grad=bool(requires_grad))
        key = id(t)
        _BUFFERS[key] = (weakref.ref(t, lambda _: _BUFFERS.pop(key, None)), bool(persistent))
        return t


def is_lazy(param):
    return isinstance(param, UninitializedTensorMixin)
