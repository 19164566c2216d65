"""torch.autograd.Variable: the pre-0.4 wrapper, now a function making tensors (and the type
every tensor is an instance of)."""
import warnings

from .._autograd import engine
from .._creation import empty
from .._tensor import Tensor

_PARAMS = ("data", "requires_grad", "volatile", "_grad_fn")


class VariableMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor)


class _ExecutionEngine:
    """Variable._execution_engine: the engine's seam for a callback at the end of backward."""
    queue_callback = staticmethod(engine.queue_callback)


class Variable(metaclass=VariableMeta):
    """Variable(data=None, requires_grad=False, volatile=False): a tensor sharing data's
    storage, detached (a leaf), requiring grad as asked."""

    _execution_engine = _ExecutionEngine()

    def __new__(cls, *args, **kwargs):
        if len(args) > len(_PARAMS):
            raise TypeError(f"argument {len(args)} must be str or None, not "
                            f"{type(args[-1]).__name__}")
        bound = dict(zip(_PARAMS, args))
        for k, v in kwargs.items():
            if k not in _PARAMS:
                raise TypeError(f"'{k}' is an invalid keyword argument for this function")
            if k in bound:
                raise TypeError(f"argument for function given by name ('{k}') and position "
                                f"({_PARAMS.index(k) + 1})")
            bound[k] = v
        data, requires_grad = bound.get("data"), bound.get("requires_grad", False)
        grad_fn = bound.get("_grad_fn")
        if grad_fn is not None:
            raise TypeError(f"_grad_fn has to be a Function object or None, but got "
                            f"{type(grad_fn).__name__}")
        if requires_grad is None:
            raise TypeError("'NoneType' object cannot be interpreted as an integer")
        if bound.get("volatile"):
            warnings.warn("volatile was removed and now has no effect. Use `with "
                          "torch.no_grad():` instead.", UserWarning, stacklevel=2)
            if requires_grad:
                raise ValueError("Variable can't be volatile and require_grad at the same time!")
        if data is None:
            data = empty(0)
        elif not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        t = data.detach()
        if requires_grad:
            if not t.is_floating_point():
                raise RuntimeError("Only Tensors of floating point and complex dtype can "
                                   "require gradients")
            t.requires_grad_(True)
        return t


