"""What backward formulas share beyond rows: helpers that take a tensor, or a NumPy array when
a formula runs in the engine's array mode (OpNode.apply_arrays, grad mode off)."""
from .._tensor import Tensor
from ..backend import xp


def where(condition, input, other):
    """torch.where on tensors; NumPy's where on arrays."""
    if isinstance(condition, Tensor):
        from .pointwise import where as _where
        return _where(condition, input, other)
    return xp.where(condition, input, other)


def zeros(like, shape=None):
    """Zeros of ``like``'s dtype (and shape, or ``shape``), never recorded."""
    if isinstance(like, Tensor):
        from .._creation import zeros as _zeros, zeros_like
        return zeros_like(like) if shape is None else _zeros(shape, dtype=like.dtype)
    return xp.zeros(like.shape if shape is None else shape, like.dtype)
