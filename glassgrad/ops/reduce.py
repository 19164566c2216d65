"""Reductions (sum, mean) and sum_to, the broadcasting reduction the engine applies."""
from .. import dtypes
from .._tensor import _wrap_dim
from ..backend import xp
from .registry import _SCALAR_NAMES, defop


def _acc(a):
    """Accumulate float16 in float32, as torch does."""
    return xp.float32 if a.dtype == xp.float16 else None


def _sum_forward(self, dim, keepdim, dtype):
    out = xp.sum(self, axis=dim, keepdims=keepdim, dtype=dtype.np if dtype else _acc(self))
    return out


def _mean_forward(self, dim, keepdim, dtype):
    return xp.mean(self, axis=dim, keepdims=keepdim, dtype=_acc(self))


def _sum_backward(grad, sizes, dim, keepdim):
    if not keepdim and sizes:
        for d in sorted(dim):
            grad = grad.unsqueeze(d)
    return grad.expand(sizes)


def _numel(sizes, dims):
    n = 1
    for d in dims:
        n *= sizes[d]
    return n


def _result_dtype(values, attrs):
    if attrs["dtype"] is not None:
        return attrs["dtype"]
    d = values[0].dtype
    return d if d.is_floating_point else dtypes.int64


_sum_all = defop("SumBackward0", lambda self, dtype: _sum_forward(self, None, False, dtype),
                 dtype=_result_dtype,
                 grads={"self": lambda grad, self_sym_sizes: grad.expand(self_sym_sizes)})
_sum_dim = defop("SumBackward1", _sum_forward, dtype=_result_dtype,
                 grads={"self": lambda grad, self_sym_sizes, dim, keepdim:
                        _sum_backward(grad, self_sym_sizes, dim, keepdim)})
_mean_all = defop("MeanBackward0", lambda self, dtype: _mean_forward(self, None, False, dtype),
                  dtype=_result_dtype,
                  grads={"self": lambda grad, self_sym_sizes, self_sym_numel:
                         grad.expand(self_sym_sizes) / self_sym_numel})
_mean_dim = defop("MeanBackward1", _mean_forward, dtype=_result_dtype,
                  # self_sym_numel is unused here but saved, as PyTorch's MeanBackward1 does
                  grads={"self": lambda grad, self_sym_sizes, self_sym_numel, dim, keepdim:
                         _sum_backward(grad, self_sym_sizes, dim, keepdim) /
                         _numel(self_sym_sizes, dim)})


def _dims(dim, ndim):
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    out = tuple(_wrap_dim(d, ndim) for d in dims)
    for i, d in enumerate(out):
        if d in out[:i]:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return out


def sum(input, dim=None, keepdim=False, *, dtype=None):
    if dim is None:
        return _sum_all(input, dtype=dtype)
    return _sum_dim(input, dim=_dims(dim, input.dim()), keepdim=keepdim, dtype=dtype)


def mean(input, dim=None, keepdim=False, *, dtype=None):
    d = dtype or input.dtype
    if not d.is_floating_point:
        which = "Optional" if dtype is not None else "Input"
        raise RuntimeError(f"mean(): could not infer output dtype. {which} dtype must be either "
                           f"a floating point or complex dtype. Got: "
                           f"{_SCALAR_NAMES[d.name]}")
    if dtype is not None and dtype is not input.dtype:
        input = input.to(dtype)
    if dim is None:
        return _mean_all(input, dtype=None)
    return _mean_dim(input, dim=_dims(dim, input.dim()), keepdim=keepdim, dtype=None)


def sum_to(grad, shape):
    """Sum ``grad`` down to ``shape`` (the reverse of broadcasting)."""
    shape = tuple(shape)
    if grad.shape == shape:
        return grad
    lead = grad.dim() - len(shape)
    dims = tuple(range(lead)) + tuple(
        lead + i for i, s in enumerate(shape) if s == 1 and grad.shape[lead + i] != 1)
    if dims:
        grad = sum(grad, dims, keepdim=True)
    if lead:
        grad = grad.reshape(shape)
    return grad



__all__ = ["sum", "mean"]

METHODS = {"sum": sum, "mean": mean}
