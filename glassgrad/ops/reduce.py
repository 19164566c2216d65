"""Reductions (sum, mean, prod, max/min, median, sort, var/std, norms, cumulative ops, ...) and
sum_to, the broadcasting reduction the engine applies."""
import builtins
import functools
import math
import warnings

from .. import _runtime, dtypes
from .._creation import ones, zeros as _zeros, zeros_like
from .._autograd.engine import expandable, sum_dims, sum_to_array
from .._tensor import Tensor, _wrap_dim, _wrap_dims
from ..backend import kind as _kind, reduced_floats, xp
from ..backend.kernels.sums import add_reduce, short_rows
from ..backend.kernels.select import (_kth_row, _median_row, _mode_row, _nanmedian_row,
                                      _sort_row, _topk_row)
from . import _formula, public, publish, shape as _shape  # (shape is partial here: use lazily)
from .registry import _C10_NAMES, _SCALAR_NAMES, _return_type, apply_inplace, \
    defop as _defop

# torch's reductions return row-major results whatever their input's layout (sort keeps it);
# they choose their float16/bfloat16 accumulators themselves (_acc)
defop = functools.partial(_defop, row_major=True, opmath=False)

_INF = math.inf


def _acc(a):
    """Accumulate float16 and bfloat16 in float32, as torch does."""
    return xp.float32 if a.dtype in reduced_floats else None


def _axis(a, dim):
    """NumPy's axis for torch dims (a 0-d array has no axis; None: all)."""
    return None if dim is None or a.ndim == 0 else dim




def _sum_forward(xp, self, dim, keepdim, dtype):
    # the ufunc's reduce, which numpy.sum calls after a few microseconds of Python
    return add_reduce(self, _axis(self, dim), keepdim, dtype.np if dtype else _acc(self))


def _mean_forward(xp, self, dim, keepdim, dtype):
    # numpy.mean's own steps (the sum, then a division by the count) without its Python layer
    axis = _axis(self, dim)
    total = add_reduce(self, axis, keepdim, _acc(self))
    count = xp.intp(self.size if axis is None else math.prod(
        self.shape[d] for d in ((axis,) if isinstance(axis, int) else axis)))
    if type(total) is xp.ndarray:
        return xp.true_divide(total, count, out=total, casting="unsafe")
    return total.dtype.type(total / count)


def _restore(grad, dims, ndim, keepdim=False):
    """Put back the dims a reduction removed (a no-op with keepdim or a 0-d input); grad a
    tensor, or an array in a formula with grad mode off."""
    if not keepdim and ndim:
        for d in sorted(range(ndim) if dims is None else dims):
            grad = _shape._unsqueeze.call(grad, dim=d)
    return grad


def _sum_backward(grad, sizes, dim, keepdim):
    """grad (a tensor, or an array in a formula with grad mode off) with the reduced dims put
    back, expanded to ``sizes``."""
    if not keepdim and sizes:
        for d in sorted(range(len(sizes)) if dim is None else dim):
            grad = _shape._unsqueeze.call(grad, dim=d)
    return _shape._expand.call(grad, size=sizes)


def _numel(sizes, dims):
    n = 1
    for d in range(len(sizes)) if dims is None or not sizes else dims:
        n *= sizes[d]
    return n


def _result_dtype(values, attrs):
    if attrs["dtype"] is not None:
        return attrs["dtype"]
    d = values[0].dtype
    return d if d.is_floating_point or d.is_complex else dtypes.int64


_sum_all = defop("SumBackward0", lambda xp, self, dtype: _sum_forward(xp, self, None, False, dtype),
                 dtype=_result_dtype, fast_attr="dtype",
                 grads={"self": lambda grad, self_sym_sizes: _sum_backward(
                     grad, self_sym_sizes, None, True)}, arrays=True)
_sum_dim = defop("SumBackward1", _sum_forward, dtype=_result_dtype, fast_attr="dtype",
                 grads={"self": lambda grad, self_sym_sizes, dim, keepdim:
                        _sum_backward(grad, self_sym_sizes, dim, keepdim)}, arrays=True)


def _mean_grad(grad, sizes, dim, keepdim, count):
    """mean's gradient: grad spread back over ``sizes``, divided by the ``count`` of elements
    averaged. On arrays, grad is divided once and then copied out (the same division per
    element as dividing the spread gradient, without the slow loop over a broadcast
    operand); on tensors, the ops torch records (expand, then div)."""
    if isinstance(grad, Tensor) or not math.prod(sizes):
        return _sum_backward(grad, sizes, dim, keepdim) / count
    part = _restore(grad, dim, len(sizes), keepdim) / count
    out = xp.empty(sizes, part.dtype)
    xp.copyto(out, part)
    return out


def _mean_dim_grad(grad, self_sym_sizes, dim, keepdim):
    return _mean_grad(grad, self_sym_sizes, dim, keepdim, _numel(self_sym_sizes, dim))


_mean_all = defop("MeanBackward0", lambda xp, self, dtype: _mean_forward(xp, self, None, False,
                  dtype),
                  dtype=_result_dtype, fast_attr="dtype",
                  grads={"self": lambda grad, self_sym_sizes, self_sym_numel: _mean_grad(
                      grad, self_sym_sizes, None, True, self_sym_numel)}, arrays=True)
_mean_dim = defop("MeanBackward1", _mean_forward, dtype=_result_dtype, fast_attr="dtype",
                  # self_sym_numel is unused here but saved, as PyTorch's MeanBackward1 does
                  grads={"self": lambda grad, self_sym_sizes, self_sym_numel, dim, keepdim:
                         _mean_dim_grad(grad, self_sym_sizes, dim, keepdim)}, arrays=True)


# sum(x) and mean(x) are other overloads (other nodes) than sum(x, dim=None)
_NOT_GIVEN = type("NotGiven", (), {"__repr__": lambda self: "<not given>"})()


def _dims(dim, ndim):
    """The wrapped dims of a reduction; an empty list reduces every dim (torch's legacy rule)."""
    if isinstance(dim, int):
        return _wrap_dims((dim,), ndim)
    return _wrap_dims(dim, ndim) if len(dim) else tuple(range(ndim))


def _type_name(d):
    return _SCALAR_NAMES[d.name]


@public("function", "method", signatures=(
    "sum(Tensor input, *, ScalarType? dtype=None)",
    "sum(Tensor input, IntArrayRef[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, "
    "Tensor out=None)"))
def sum(input, dim=_NOT_GIVEN, keepdim=False, *, dtype=None):
    if dim is _NOT_GIVEN:
        return _sum_all(input, dtype=dtype)
    return _sum_dim(input, dim=_dims(() if dim is None else dim, input.dim()), keepdim=keepdim,
                    dtype=dtype)


@public("function", "method", signatures=(
    "mean(Tensor input, *, ScalarType? dtype=None, Tensor out=None)",
    "mean(Tensor input, IntArrayRef[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, "
    "Tensor out=None)"))
def mean(input, dim=_NOT_GIVEN, keepdim=False, *, dtype=None):
    d = dtype or input.dtype
    if not d.is_floating_point and not d.is_complex:
        which = "Optional" if dtype is not None else "Input"
        raise RuntimeError(f"mean(): could not infer output dtype. {which} dtype must be either "
                           f"a floating point or complex dtype. Got: {_type_name(d)}")
    if dtype is not None and dtype is not input.dtype:
        input = input.to(dtype)
    if dim is _NOT_GIVEN:
        return _mean_all(input, dtype=None)
    return _mean_dim(input, dim=_dims(() if dim is None else dim, input.dim()), keepdim=keepdim,
                     dtype=None)


def sum_to(grad, shape):
    """Sum ``grad`` (a tensor, or an array in a formula with grad mode off) down to ``shape``
    (the reverse of broadcasting)."""
    shape = tuple(shape)
    if grad.shape == shape:
        return grad
    if not isinstance(grad, Tensor):
        return sum_to_array(grad, shape)
    dims = sum_dims(grad.shape, shape)
    if dims:
        grad = sum(grad, dims, keepdim=True)
    return grad.reshape(shape) if grad.ndim != len(shape) else grad


# -- helpers for backward formulas: flip and scatter into zeros (the public ops, imported late:
# shape and indexing import this module)
def _flip(t, dims):
    return _shape.flip(t, dims)


def _scatter_into_zeros(grad, dim, index, sizes, add=False):
    from . import indexing
    if not sizes:       # a 0-d input: its one element gets the gradient
        return grad
    zeros = _zeros(sizes, dtype=grad.dtype)
    return (indexing.scatter_add if add else indexing.scatter)(zeros, dim, index, grad)


def _narrow(t, dim, start, length):
    return _shape._slice(t, dim, start, start + length, 1)


def _select_backward(grad, dim, indices, sizes, keepdim):
    """The gradient of a reduction that picked ``indices`` along ``dim``."""
    if not sizes:
        return grad
    if not keepdim:
        grad, indices = grad.unsqueeze(dim), indices.unsqueeze(dim)
    return _scatter_into_zeros(grad, dim, indices, sizes)


def _evenly_distribute(grad, self, result):
    """All-reduce max/min/median: ties share the gradient evenly (NaN picks the NaNs)."""
    mask = self != self if bool(xp.isnan(result._data)) else self == result
    return _pw().where(mask, grad / mask.sum(), 0)


def _pw():
    from . import pointwise
    return pointwise


def _reduced_count_backward(grad, self, result, dim, keepdim):
    """amax/amin: ties along the reduced dims share the gradient evenly."""
    grad, result = (_restore(t, dim, self.dim(), keepdim) for t in (grad, result))
    mask = result == self
    return grad / mask.sum(dim, keepdim=True) * mask


# -- named tuples ----------------------------------------------------------------------------
def _named(name, pair):
    return _return_type(name)(*pair)


# -- prod ------------------------------------------------------------------------------------
def _prod_forward(self, dim, keepdim, dtype):
    # unlike sum, torch's prod rounds float16/bfloat16 at every step (no float accumulator)
    return xp.prod(self, axis=_axis(self, dim), keepdims=keepdim,
                   dtype=dtype.np if dtype else None)


def _has_zero(t):
    return bool((t._data == 0).any())


def _prod_safe_zeros_backward(grad, inp, dim):
    """grad times the product of the other elements along ``dim``, without dividing."""
    if inp.numel() == 0:
        return grad.expand(inp.shape)
    n = inp.shape[dim]
    if n == 1:
        return grad
    size = list(inp.shape)
    size[dim] = 1
    one = ones(size, dtype=inp.dtype)
    cat = _shape.cat
    before = cumprod(cat([one, _narrow(inp, dim, 0, n - 1)], dim), dim)
    after = _flip(cumprod(cat([one, _flip(_narrow(inp, dim, 1, n - 1), dims=(dim,))], dim),
                          dim), dims=(dim,))
    return grad * (before * after)


def _prod_all_backward(grad, self, result):
    if self.dim() == 0:
        return grad
    if not _has_zero(self):
        return grad * (result / self)
    return _prod_safe_zeros_backward(grad, self.reshape(-1), 0).reshape(self.shape)


def _prod_dim_backward(grad, self, result, dim, keepdim):
    if self.dim() == 0:
        return grad
    if not keepdim:
        grad, result = grad.unsqueeze(dim), result.unsqueeze(dim)
    if not _has_zero(self):
        return grad * (result / self)
    return _prod_safe_zeros_backward(grad, self, dim)


_prod_all = defop("ProdBackward0", lambda xp, self, dtype: _prod_forward(self, None, False, dtype),
                  dtype=_result_dtype, fast_attr="dtype", grads={"self": _prod_all_backward})
_prod_dim = defop("ProdBackward1", lambda xp, self, dim, keepdim, dtype: _prod_forward(
    self, (dim,), keepdim, dtype), dtype=_result_dtype, fast_attr="dtype",
    grads={"self": _prod_dim_backward})


@public("function", "method", signatures=(
    "prod(Tensor input, *, ScalarType? dtype=None)",
    "prod(Tensor input, int64_t dim, bool keepdim=False, *, ScalarType? dtype=None, "
    "Tensor out=None)"))
def prod(input, dim=None, keepdim=False, *, dtype=None):
    if dim is None:
        return _prod_all(input, dtype=dtype)
    return _prod_dim(input, dim=_wrap_dim(dim, input.dim()), keepdim=keepdim, dtype=dtype)


# -- max, min, amax, amin, argmax, argmin ----------------------------------------------------
def _first_index(a, dim, keepdim, largest):
    """argmax/argmin along ``dim``, NaN counting as the extreme (first occurrence)."""
    if a.ndim == 0:
        return xp.zeros((), xp.int64)
    nan = xp.isnan(a) if _kind(a.dtype) == "f" else None
    pick = xp.argmax if largest else xp.argmin
    idx = pick(a, axis=dim, keepdims=True)
    if nan is not None:
        has = nan.any(axis=dim, keepdims=True)
        idx = xp.where(has, xp.argmax(nan, axis=dim, keepdims=True), idx)
    return idx if keepdim else xp.squeeze(idx, dim)


def _extreme_dim(largest):
    def forward(xp, self, dim, keepdim):
        idx = _first_index(self, dim, keepdim, largest)
        if self.ndim == 0:
            return self.copy(), idx
        values = xp.take_along_axis(self, idx if keepdim else xp.expand_dims(idx, dim), dim)
        return (values if keepdim else xp.squeeze(values, dim)), idx
    return forward


def _extreme_all(largest):
    def forward(xp, self):
        if _kind(self.dtype) == "f" and xp.isnan(self).any():
            return xp.asarray(xp.nan, self.dtype)
        return xp.max(self) if largest else xp.min(self)
    return forward


_SELECT_GRAD = {"self": lambda grad, dim, indices, self_sym_sizes, keepdim: _select_backward(
    grad, dim, indices, self_sym_sizes, keepdim)}
_EVEN_GRAD = {"self": _evenly_distribute}
_max_all = defop("MaxBackward1", _extreme_all(True), dtype="same", grads=_EVEN_GRAD)
_min_all = defop("MinBackward1", _extreme_all(False), dtype="same", grads=_EVEN_GRAD)
_max_dim = defop("MaxBackward0", _extreme_dim(True), dtype="same", grads=_SELECT_GRAD,
                 outputs=("result", "indices"))
_min_dim = defop("MinBackward0", _extreme_dim(False), dtype="same", grads=_SELECT_GRAD,
                 outputs=("result", "indices"))


def _int64(values, attrs):
    return dtypes.int64


def _amax_forward(largest):
    def forward(xp, self, dim, keepdim):
        f = xp.amax if largest else xp.amin
        return f(self, axis=_axis(self, dim), keepdims=keepdim)
    return forward


_AMAX_GRAD = {"self": _reduced_count_backward}
_amax = defop("AmaxBackward0", _amax_forward(True), dtype="same", grads=_AMAX_GRAD)
_amin = defop("AminBackward0", _amax_forward(False), dtype="same", grads=_AMAX_GRAD)
def _aminmax_forward(xp, self, dim, keepdim):
    axis = None if dim is None else dim
    return xp.amin(self, axis=axis, keepdims=keepdim), xp.amax(self, axis=axis, keepdims=keepdim)


def _aminmax_backward(grads, self, dim, keepdim, min, max):
    """amin's and amax's gradients (ties share evenly) for the outputs a gradient reached."""
    dims = tuple(builtins.range(self.dim())) if dim is None else (dim,)
    out = None
    for g, r in zip(grads, (min, max)):
        if g is not None:
            term = _reduced_count_backward(g, self, r, dims, keepdim)
            out = term if out is None else out + term
    return out


_aminmax = defop("AminmaxBackward0", _aminmax_forward, dtype="same", outputs=("min", "max"),
                 diff_outputs=2, undefined_grads=True, grads={"self": _aminmax_backward})
_argmax = defop("argmax", lambda xp, self, dim, keepdim: _arg_forward(self, dim, keepdim, True),
                dtype=_int64, promote=())
_argmin = defop("argmin", lambda xp, self, dim, keepdim: _arg_forward(self, dim, keepdim, False),
                dtype=_int64, promote=())


def _arg_forward(self, dim, keepdim, largest):
    if dim is None:
        idx = _first_index(self.reshape(-1), 0, False, largest)
        return idx.reshape((1,) * self.ndim) if keepdim else idx
    return _first_index(self, dim, keepdim, largest)


def _check_nonempty(name, input, dim=None):
    if dim is None and input.numel() == 0:
        if name.startswith("arg"):
            raise IndexError(f"{name}(): Expected reduction dim to be specified for "
                             f"input.numel() == 0.")
        raise RuntimeError(f"{name}(): Expected reduction dim to be specified for "
                           f"input.numel() == 0. Specify the reduction dim with the 'dim' "
                           f"argument.")
    if dim is not None and input.dim() and input.shape[dim] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {dim} to have non-zero size.")


def _no_complex(input, message, error=RuntimeError):
    """torch's refusal of an ordering of complex numbers."""
    if input.dtype.is_complex:
        raise error(message)


def _max_min(name, input, dim, keepdim, other):
    if isinstance(dim, Tensor):          # max(a, b): the binary, pointwise form
        dim, other = None, dim
    if other is not None:
        pw = _pw()
        binary = getattr(pw, "maximum" if name == "max" else "minimum", None)
        if binary is None:
            raise NotImplementedError(f"glassgrad: {name}(input, other) needs "
                                      f"pointwise.{'maximum' if name == 'max' else 'minimum'}")
        return binary(input, other)
    if dim is None:
        _check_nonempty(name, input)
        _no_complex(input, f'"{name}_all" not implemented for \'{_type_name(input.dtype)}\'',
                    NotImplementedError)
        return (_max_all if name == "max" else _min_all)(input)
    _no_complex(input, f"{name}(): does not support complex input")
    dim = _wrap_dim(dim, input.dim())
    _check_nonempty(name, input, dim)
    op = _max_dim if name == "max" else _min_dim
    return _named(name, op(input, dim=dim, keepdim=keepdim))


@public("function", "method", signatures=(
    "max(Tensor input, *, Tensor out=None)",
    "max(Tensor input, Tensor other, *, Tensor out=None)",
    "max(Tensor input, int64_t dim, bool keepdim=False, *, TensorList[2] out=None)"))
def max(input, dim=None, keepdim=False):
    return _max_min("max", input, dim, keepdim, None)


@public("function", "method", signatures=(
    "min(Tensor input, *, Tensor out=None)",
    "min(Tensor input, Tensor other, *, Tensor out=None)",
    "min(Tensor input, int64_t dim, bool keepdim=False, *, TensorList[2] out=None)"))
def min(input, dim=None, keepdim=False):
    return _max_min("min", input, dim, keepdim, None)


def _amax_dims(name, input, dim):
    given = [] if dim is None else [dim] if isinstance(dim, int) else list(dim)
    dims = _dims(given, input.dim())
    if input.numel() == 0 and not given:
        raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() "
                           f"== 0. Specify the reduction dim with the 'dim' argument.")
    if input.numel() == 0:      # torch names the dim as it was given
        for d, name_d in zip(dims, given):
            if input.shape[d] == 0:
                raise IndexError(f"{name}(): Expected reduction dim {name_d} to have non-zero "
                                 f"size.")
    return dims


@public("function", "method", signatures=(
    "amax(Tensor input, IntArrayRef[1] dim=None, bool keepdim=False, *, Tensor out=None)",))
def amax(input, dim=(), keepdim=False):
    _no_complex(input, f'"max_values_cpu" not implemented for \'{_type_name(input.dtype)}\'',
                NotImplementedError)
    return _amax(input, dim=_amax_dims("amax", input, dim), keepdim=keepdim)


@public("function", "method", signatures=(
    "amin(Tensor input, IntArrayRef[1] dim=None, bool keepdim=False, *, Tensor out=None)",))
def amin(input, dim=(), keepdim=False):
    _no_complex(input, f'"min_values_cpu" not implemented for \'{_type_name(input.dtype)}\'',
                NotImplementedError)
    return _amin(input, dim=_amax_dims("amin", input, dim), keepdim=keepdim)


def _argmax_min(name, op, input, dim, keepdim):
    if input.dtype is dtypes.bool:
        raise RuntimeError(f"{name}(): does not support bool input")
    _no_complex(input, f"{name}(): does not support complex input")
    if dim is not None:
        dim = _wrap_dim(dim, input.dim())
    _check_nonempty(name, input, dim)
    return op(input, dim=dim, keepdim=keepdim)


@public("function", "method", signatures=(
    "argmax(Tensor input, int64_t? dim=None, bool keepdim=False, *, Tensor out=None)",))
def argmax(input, dim=None, keepdim=False):
    return _argmax_min("argmax", _argmax, input, dim, keepdim)


@public("function", "method", signatures=(
    "argmin(Tensor input, int64_t? dim=None, bool keepdim=False, *, Tensor out=None)",))
def argmin(input, dim=None, keepdim=False):
    return _argmax_min("argmin", _argmin, input, dim, keepdim)


# -- selection in torch's order: libstdc++'s introselect/introsort and TH's quickselect -------
# Ties come out of these partial sorts in an order that depends on the algorithm, and the
# gradient goes to the chosen index, so the row kernels (backend/kernels/select.py) replay the
# same steps on Python lists; _rows runs them on the rows a NumPy shortcut cannot settle.
def _rows(a, dim, fn, width, rank=None):
    """Apply fn(list of values) -> (values, indices) of length ``width`` to each 1-d slice
    along ``dim``; returns arrays with that dim of size ``width``. rank(order): the positions
    of a stable ascending argsort to take, a NumPy shortcut for rows without ties or NaNs
    (where every algorithm agrees)."""
    moved = xp.moveaxis(a, dim, -1)
    flat = moved.reshape(math.prod(moved.shape[:-1]), moved.shape[-1])
    vals = xp.empty((flat.shape[0], width), a.dtype)
    idx = xp.empty((flat.shape[0], width), xp.int64)
    slow = range(flat.shape[0])
    if rank is not None and flat.size:
        order = xp.argsort(flat, axis=1, kind="stable")
        idx[...] = xp.take(order, rank(flat.shape[1]), axis=1)
        vals[...] = xp.take_along_axis(flat, idx, 1)
        s = xp.take_along_axis(flat, order, 1)
        tied = (s[:, 1:] == s[:, :-1]).any(1)
        if _kind(flat.dtype) == "f":
            tied |= xp.isnan(s[:, -1])
        slow = xp.flatnonzero(tied)
    for r in slow:
        vals[r], idx[r] = fn(flat[r].tolist())
    shape = moved.shape[:-1] + (width,)
    return tuple(_fresh(xp.moveaxis(t.reshape(shape), -1, dim)) for t in (vals, idx))


def _by_dim(fn, rank=None):
    """A forward over ``dim`` (0-d inputs act as 1-element vectors) with keepdim."""
    def forward(xp, self, dim, keepdim, **kw):
        a = self.reshape(1) if self.ndim == 0 else self
        vals, idx = _rows(a, dim, lambda row: fn(row, **kw), 1,
                          rank and (lambda n: [rank(n, **kw)]))
        if self.ndim == 0:
            return vals.reshape(()), idx.reshape(())
        if not keepdim:
            vals, idx = xp.squeeze(vals, dim), xp.squeeze(idx, dim)
        return vals, idx
    return forward


def _fresh(a):
    """A C-ordered copy with torch's contiguous strides (size-1 dims included)."""
    out = xp.empty(a.shape, a.dtype)
    out[...] = a
    return out


def _median_all_forward(xp, self):
    flat = self.reshape(-1)
    if flat.size == 0 or (_kind(self.dtype) == "f" and xp.isnan(flat).any()):
        return xp.asarray(xp.nan, self.dtype)
    return xp.sort(flat)[(flat.size - 1) // 2]


_median_all = defop("MedianBackward0", _median_all_forward, dtype="same", grads=_EVEN_GRAD)
_median_dim = defop("MedianBackward1", _by_dim(_median_row, lambda n: (n - 1) // 2),
                    dtype="same", grads=_SELECT_GRAD, outputs=("result", "indices"))


def _nanmedian_all_forward(xp, self):
    flat = self.reshape(-1)
    if _kind(self.dtype) == "f":
        flat = flat[~xp.isnan(flat)]
    if flat.size == 0:
        return xp.asarray(xp.nan, self.dtype)
    return xp.sort(flat)[(flat.size - 1) // 2]


_nanmedian_all = defop("NanmedianBackward0", _nanmedian_all_forward, dtype="same",
                       grads=_EVEN_GRAD)
_nanmedian_dim = defop("NanmedianBackward1", _by_dim(_nanmedian_row, lambda n: (n - 1) // 2),
                       dtype="same", grads=_SELECT_GRAD, outputs=("result", "indices"))
_mode = defop("ModeBackward0", _by_dim(_mode_row), dtype="same", grads=_SELECT_GRAD,
              outputs=("result", "indices"))
_kthvalue = defop("KthvalueBackward0", _by_dim(_kth_row, lambda n, k: k - 1), dtype="same",
                  grads=_SELECT_GRAD, outputs=("result", "indices"))
_KEEP_GRAD = {"self": lambda grad, dim, indices, self_sym_sizes: _select_backward(
    grad, dim, indices, self_sym_sizes, True)}


def _topk_forward(xp, self, dim, k, largest, sorted):
    if self.ndim == 0:
        return self.copy(), xp.zeros((), xp.int64)
    rank = (lambda n: range(n - 1, n - k - 1, -1) if largest else range(k)) if sorted else None
    return _rows(self, dim, lambda row: _topk_row(row, k, largest, sorted), k, rank)


def _sort_indices(xp, a, dim, descending, stable):
    if a.ndim == 0:
        return xp.zeros((), xp.int64)
    n = a.shape[dim]
    if not stable and n > 16:   # torch runs std::sort: ties come out in introsort's order
        return _rows(a, dim, lambda row: _sort_row(row, descending), n,
                     lambda n: range(n - 1, -1, -1) if descending else range(n))[1]
    if not descending:
        return xp.argsort(a, axis=dim, kind="stable")
    # stable descending: sort the reversed input, read it backwards
    rev = xp.flip(xp.argsort(xp.flip(a, dim), axis=dim, kind="stable"), dim)
    return n - 1 - rev


def _sort_forward(xp, self, dim, descending, stable):
    idx = _sort_indices(xp, self, dim, descending, stable)
    if self.ndim == 0:
        return self.copy(), idx
    return (_laid_out_as(xp, xp.take_along_axis(self, idx, dim), self),
            _laid_out_as(xp, idx, self))


def _laid_out_as(xp, a, like):
    """``a`` in ``like``'s memory order, as torch's sort lays its results out (empty_like)."""
    if a.ndim < 2 or a.strides == like.strides:
        return a
    out = xp.empty_like(like, dtype=a.dtype)
    out[...] = a
    return out


_topk = defop("TopkBackward0", _topk_forward, dtype="same", grads=_KEEP_GRAD,
              outputs=("result", "indices"))
_sort = _defop("SortBackward0", _sort_forward, dtype="same", grads=_KEEP_GRAD,
              outputs=("result", "indices"))
_sort_stable = _defop("SortBackward1", _sort_forward, dtype="same", grads=_KEEP_GRAD,
                     outputs=("result", "indices"))
_argsort = _defop("argsort", lambda xp, self, dim, descending, stable: _laid_out_as(
    xp, _sort_indices(xp, self, dim, descending, stable), self), dtype=_int64, promote=())


def _dim_size(input, dim):
    return input.shape[dim] if input.dim() else 1


@public("function", "method", signatures=(
    "median(Tensor input)",
    "median(Tensor input, int64_t dim, bool keepdim=False, *, TensorList[2] out=None)"))
def median(input, dim=None, keepdim=False):
    if dim is None:
        return _median_all(input)
    dim = _wrap_dim(dim, input.dim())
    if _dim_size(input, dim) == 0:
        raise IndexError(f"median(): Expected reduction dim {dim} to have non-zero size.")
    return _named("median", _median_dim(input, dim=dim, keepdim=keepdim))


@public("function", "method", signatures=(
    "aminmax(Tensor input, *, int64_t? dim=None, bool keepdim=False, TensorList[2] out=None)",))
def aminmax(input, *, dim=None, keepdim=False):
    _no_complex(input, f'"aminmax_cpu" not implemented for \'{_type_name(input.dtype)}\'',
                NotImplementedError)
    if dim is None and input.numel() == 0:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the "
                           "operation has no identity.")
    if dim is not None:
        dim = _wrap_dim(dim, input.dim())
        if _dim_size(input, dim) == 0:
            raise IndexError(f"aminmax: Expected reduction dim {dim} to have non-zero size.")
    if input.dim() == 0:
        dim, keepdim = None, False
    return _return_type("aminmax", ("min", "max"))(*_aminmax(input, dim=dim, keepdim=keepdim))


@public("function", "method", signatures=(
    "nanmedian(Tensor input)",
    "nanmedian(Tensor input, int64_t dim, bool keepdim=False, *, TensorList[2] out=None)"))
def nanmedian(input, dim=None, keepdim=False):
    """The lower median of the values that are not NaN (NaN where all are)."""
    if dim is None:
        return _nanmedian_all(input)
    dim = _wrap_dim(dim, input.dim())
    if _dim_size(input, dim) == 0:
        raise IndexError(f"median(): Expected reduction dim {dim} to have non-zero size.")
    return _named("nanmedian", _nanmedian_dim(input, dim=dim, keepdim=keepdim))


@public("function", "method", signatures=(
    "mode(Tensor input, int64_t dim=-1, bool keepdim=False, *, TensorList[2] out=None)",))
def mode(input, dim=-1, keepdim=False):
    dim = _wrap_dim(dim, input.dim())
    if _dim_size(input, dim) == 0:
        raise IndexError(f"mode(): Expected reduction dim {dim} to have non-zero size.")
    return _named("mode", _mode(input, dim=dim, keepdim=keepdim))


@public("function", "method", signatures=(
    "kthvalue(Tensor input, SymInt k, int64_t dim=-1, bool keepdim=False, *, "
    "TensorList[2] out=None)",))
def kthvalue(input, k, dim=-1, keepdim=False):
    dim = _wrap_dim(dim, input.dim())
    size = _dim_size(input, dim)
    if size == 0:
        raise IndexError(f"kthvalue(): Expected reduction dim {dim} to have non-zero size.")
    if not 0 < k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {dim}")
    return _named("kthvalue", _kthvalue(input, dim=dim, keepdim=keepdim, k=k))


@public("function", "method", signatures=(
    "topk(Tensor input, SymInt k, int64_t dim=-1, bool largest=True, bool sorted=True, *, "
    "TensorList[2] out=None)",))
def topk(input, k, dim=-1, largest=True, sorted=True):
    _no_complex(input, " topk does not support complex dtypes on CPU")
    dim = _wrap_dim(-1 if dim is None else dim, input.dim())
    if not 0 <= k <= _dim_size(input, dim):
        raise RuntimeError("selected index k out of range")
    return _named("topk", _topk(input, dim=dim, k=k, largest=largest, sorted=sorted))


@public("function", "method", signatures=(
    "sort(Tensor input, *, bool? stable, int64_t dim=-1, bool descending=False, "
    "TensorList[2] out=None)",
    "sort(Tensor input, int64_t dim=-1, bool descending=False, *, TensorList[2] out=None)"))
def sort(input, dim=-1, descending=False, *, stable=False):
    _no_complex(input, " Sort does not support complex dtypes on CPU")
    op = _sort_stable if stable else _sort
    return _named("sort", op(input, dim=_wrap_dim(dim, input.dim()), descending=descending,
                             stable=bool(stable)))


@public("function", "method", signatures=(
    "argsort(Tensor input, *, bool stable, int64_t dim=-1, bool descending=False, "
    "Tensor out=None)",
    "argsort(Tensor input, int64_t dim=-1, bool descending=False)"))
def argsort(input, dim=-1, descending=False, *, stable=False):
    _no_complex(input, " Sort does not support complex dtypes on CPU")
    return _argsort(input, dim=_wrap_dim(dim, input.dim()), descending=descending,
                    stable=bool(stable))


# -- var, std, var_mean, std_mean ------------------------------------------------------------
def _var_forward(xp, self, dim, correction, keepdim, sqrt=False):
    """var (std with sqrt): float16 accumulated in float32, the result (after the square root)
    cast back, as torch does."""
    c = 1 if correction is None else correction
    axis = _axis(self, dim)
    if short_rows(self, axis, None):
        with xp.errstate(all="ignore"):
            v = _var_rows(xp, self, axis, c, keepdim)
    else:
        with warnings.catch_warnings(), xp.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            v = xp.var(self, axis=axis, ddof=c, keepdims=keepdim, dtype=_acc(self))
    return (xp.sqrt(v) if sqrt else v).astype(self.real.dtype, copy=False)


def _var_rows(xp, self, axis, ddof, keepdim):
    """numpy.var's steps (the mean, the squared deviations, their sum, each division by a
    count in float64 as NumPy's intp count makes it) with the sums over short rows (see
    backend/kernels/sums.py)."""
    n = xp.intp(self.shape[-1])
    mean = add_reduce(self, axis, True)
    xp.true_divide(mean, n, out=mean, casting="unsafe")
    x = xp.subtract(self, mean)
    xp.multiply(x, x, out=x)
    v = add_reduce(x, axis, keepdim)
    return xp.true_divide(v, xp.maximum(n - ddof, 0), out=v, casting="unsafe")


def _var_backward(grad, self, dim, correction, keepdim):
    """On tensors, or on arrays (the var row has arrays=True): the same steps."""
    c = 1 if correction is None else correction
    shape = tuple(self.shape)
    if not shape or dim is None:
        dof = _numel(shape, None) - c
        mean = _mean_all.call(self, dtype=None)
        if dof <= 0:
            return grad * _formula.where(self == mean, math.nan, _INF)
        return (2.0 / dof) * grad * (self - mean)
    if not keepdim and len(shape) > 1:
        grad = _restore(grad, dim, len(shape))
    with xp.errstate(divide="ignore"):
        scale = float(xp.float64(2.0) / (_numel(shape, dim) - c))   # inf when dof is 0
    return scale * grad * (self - _mean_dim.call(self, dim=dim, keepdim=True, dtype=None))


def _std_backward(grad, self, result, dim, correction, keepdim):
    grad = _pw().where(result == 0, 0, grad / (result * 2))
    return _var_backward(grad, self, dim, correction, keepdim)


def _mean_backward(grad, self, dim, keepdim):
    if dim is None:
        return grad.expand(self.shape) / self.numel()
    return _sum_backward(grad, self.shape, dim, keepdim) / _numel(self.shape, dim)


def _arrived(g):
    """False for the zeros the registry fills in for an output that got no gradient (torch
    leaves that part out, which matters for double backward's requires_grad)."""
    return g.requires_grad or bool(g._data.any())


def _var_mean_backward(grads, self, dim, correction, keepdim, result0=None):
    gvar, gmean = grads
    out = _mean_backward(gmean, self, dim, keepdim) if _arrived(gmean) else None
    if _arrived(gvar) or out is None:
        part = _var_backward(gvar, self, dim, correction, keepdim) if result0 is None else \
            _std_backward(gvar, self, result0, dim, correction, keepdim)
        out = part if out is None else part + out
    return out


_var = defop("VarBackward0", _var_forward, dtype="same", grads={"self": _var_backward},
             arrays=True)
_std = defop("StdBackward0", lambda xp, self, dim, correction, keepdim: _var_forward(
    xp, self, dim, correction, keepdim, sqrt=True), dtype="same", grads={"self": _std_backward})
_var_mean = defop(
    "VarMeanBackward0", lambda xp, self, dim, correction, keepdim: (
        _var_forward(xp, self, dim, correction, keepdim),
        _mean_forward(xp, self, _axis(self, dim), keepdim, None).astype(self.dtype)),
    dtype="same",
    # the formulas are torch's for complex inputs (var's is not holomorphic; mean's is real)
    outputs=("result0", "result1"), diff_outputs=2, wirtinger=False,
    grads={"self": lambda grads, self, dim, correction, keepdim: _var_mean_backward(
        grads, self, dim, correction, keepdim)})
_std_mean = defop(
    "StdMeanBackward0", lambda xp, self, dim, correction, keepdim: (
        _var_forward(xp, self, dim, correction, keepdim, sqrt=True),
        _mean_forward(xp, self, _axis(self, dim), keepdim, None).astype(self.dtype)),
    dtype="same",
    outputs=("result0", "result1"), diff_outputs=2, wirtinger=False,
    grads={"self": lambda grads, self, result0, dim, correction, keepdim: _var_mean_backward(
        grads, self, dim, correction, keepdim, result0)})


def _var_args(name, input, dim, unbiased, keepdim, correction):
    if not input.dtype.is_floating_point and not input.dtype.is_complex:
        what = "std and var" if name in ("var", "std") else name
        raise RuntimeError(f"{what} only support floating point and complex dtypes")
    if isinstance(dim, builtins.bool):      # var(input, unbiased)
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None:
        raise RuntimeError(f"{name}(): Only one of \"unbiased\" or \"correction\" may be given")
    if unbiased is not None:
        correction = 1 if unbiased else 0
    elif correction is None and dim is not None:
        correction = 1
    dims = None if dim is None else _dims(dim, input.dim())
    factor = _numel(input.shape, dims)
    if factor - (1 if correction is None else correction) <= 0:
        _runtime.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the reduction factor (input numel divided by output numel). "
                      "(Triggered internally at "
                      "/__w/pytorch/pytorch/aten/src/ATen/native/ReduceOps.cpp:1861.)")
    return {"dim": dims, "correction": correction, "keepdim": keepdim}


@public("function", "method", signatures=(
    "var(Tensor input, IntArrayRef[1]? dim, bool unbiased=True, bool keepdim=False, *, "
    "Tensor out=None)",
    "var(Tensor input, IntArrayRef[1]? dim=None, *, Scalar? correction=None, bool keepdim=False, "
    "Tensor out=None)",
    "var(Tensor input, bool unbiased=True)"))
def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _var(input, **_var_args("var", input, dim, unbiased, keepdim, correction))


@public("function", "method", signatures=(
    "std(Tensor input, IntArrayRef[1]? dim, bool unbiased=True, bool keepdim=False, *, "
    "Tensor out=None)",
    "std(Tensor input, IntArrayRef[1]? dim=None, *, Scalar? correction=None, bool keepdim=False, "
    "Tensor out=None)",
    "std(Tensor input, bool unbiased=True)"))
def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _std(input, **_var_args("std", input, dim, unbiased, keepdim, correction))


@public("function", signatures=(
    "var_mean(Tensor input, IntArrayRef[1]? dim, bool unbiased=True, bool keepdim=False)",
    "var_mean(Tensor input, IntArrayRef[1]? dim=None, *, Scalar? correction=None, "
    "bool keepdim=False)",
    "var_mean(Tensor input, bool unbiased=True)"))
def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _var_mean(input, **_var_args("var_mean", input, dim, unbiased, keepdim, correction))


@public("function", signatures=(
    "std_mean(Tensor input, IntArrayRef[1]? dim, bool unbiased=True, bool keepdim=False)",
    "std_mean(Tensor input, IntArrayRef[1]? dim=None, *, Scalar? correction=None, "
    "bool keepdim=False)",
    "std_mean(Tensor input, bool unbiased=True)"))
def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _std_mean(input, **_var_args("std_mean", input, dim, unbiased, keepdim, correction))


# -- norms -----------------------------------------------------------------------------------
def _vector_norm_forward(xp, self, ord, dim, keepdim, dtype):
    """float16 and bfloat16 accumulated in float32 (each element widened first), as torch does."""
    if dtype is not None:
        self = self.astype(dtype.np)
    if self.dtype in reduced_floats:
        return _vector_norm_forward(xp, self.astype(xp.float32), ord, dim, keepdim,
                                    None).astype(self.dtype)
    a, axis = xp.abs(self), _axis(self, dim)
    if ord == _INF:
        return xp.amax(a, axis=axis, keepdims=keepdim)
    if ord == -_INF:
        return xp.amin(a, axis=axis, keepdims=keepdim)
    if ord == 0:
        return xp.sum(a != 0, axis=axis, keepdims=keepdim).astype(self.dtype)
    if ord == 1:
        return xp.sum(a, axis=axis, keepdims=keepdim)
    if ord == 2:
        return xp.sqrt(xp.sum(a * a, axis=axis, keepdims=keepdim))
    with xp.errstate(divide="ignore"):
        return xp.sum(a ** ord, axis=axis, keepdims=keepdim) ** (1.0 / ord)


def _vector_norm_backward(grad, self, ord, result, dim, keepdim):
    p = float(ord)
    if not keepdim and self.dim() and dim is not None:
        grad, result = _restore(grad, dim, self.dim()), _restore(result, dim, self.dim())
    where = _pw().where
    if p == 0:
        return None         # torch returns an undefined gradient
    if p == 1:
        return self.sign() * grad
    if p == 2:
        return grad * where(result == 0, 0, self / result)
    if math.isinf(p):
        a = self.abs()
        mask = (a == result) | (a != a)
        dims = tuple(range(self.dim())) if dim is None else dim
        return self.sign() * ((grad / mask.sum(dims, keepdim=True)) * mask)
    if p < 1:
        scaled = self.sign() * where(self == 0, 0, self.abs() ** (p - 1))
        return scaled * grad * result ** (1 - p)
    scaled = self.sign() * self.abs() ** (p - 1) if p < 2 else self * self.abs() ** (p - 2)
    return scaled * where(result == 0, 0, grad / result ** (p - 1))


_vector_norm = defop("LinalgVectorNormBackward0", _vector_norm_forward,
                     dtype=lambda values, attrs: attrs["dtype"] or values[0].dtype,
                     grads={"self": _vector_norm_backward})
# at::norm(self, p, dim, keepdim): the same math under the node ATen's composites record
# (pairwise_distance)
norm_p = defop("NormBackward1", lambda xp, self, p, dim, keepdim: _vector_norm_forward(xp, 
    self, p, dim, keepdim, None), dtype="same",
    grads={"self": lambda grad, self, p, result, dim, keepdim: _vector_norm_backward(
        grad, self, p, result, dim, keepdim)})


@public("linalg")
def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    if x.dtype.is_complex:      # the norm of the moduli (torch's complex norm, real-valued)
        return vector_norm(x.abs(), ord, dim, keepdim, dtype=dtype and dtype.to_real())
    if not x.dtype.is_floating_point:
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {_type_name(x.dtype)}")
    if dtype is not None:
        if dtype.category < x.dtype.category or (dtype.is_floating_point and
                                                 dtype.itemsize < x.dtype.itemsize):
            raise RuntimeError(f"linalg.vector_norm: the dtype of the input "
                               f"({_type_name(x.dtype)}) should be convertible without "
                               f"narrowing to the specified dtype ({_type_name(dtype)})")
    dims = None if dim is None else _dims(dim, x.dim())
    if ord < 0 and x.numel() == 0:
        raise RuntimeError(f"linalg.vector_norm cannot compute the {ord} norm on an empty "
                           f"tensor because the operation does not have an identity")
    return _vector_norm(x, ord=ord, dim=dims, keepdim=keepdim, dtype=dtype)


@public("linalg")
def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    if ord not in ("fro", "nuc", 1, -1, 2, -2, _INF, -_INF):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if A.dim() < 2:
        raise RuntimeError(f"linalg.matrix_norm: The input tensor A must have at least 2 "
                           f"dimensions.")
    if not A.dtype.is_floating_point and not A.dtype.is_complex:
        raise RuntimeError(f"linalg.matrix_norm: Expected a floating point or complex tensor as "
                           f"input. Got {_type_name(A.dtype)}")
    if A.dtype is dtypes.float16 and ord in ("nuc", 2, -2):
        raise RuntimeError("linalg.matrix_norm: Low precision dtypes not supported. Got Half")
    dims = tuple(_wrap_dim(d, A.dim()) for d in ((dim,) if isinstance(dim, int) else dim))
    if len(dims) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got "
                           f"{' '.join(map(str, dim))}")
    if dims[0] == dims[1]:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got {dims}")
    if dtype is not None and (dtype.category < A.dtype.category or (
            dtype.is_floating_point and dtype.itemsize < A.dtype.itemsize)):
        raise RuntimeError(f"linalg.matrix_norm: the dtype of the input ({_type_name(A.dtype)}) "
                           f"should be convertible without narrowing to the specified dtype "
                           f"({_type_name(dtype)})")
    if ord == "fro":
        return vector_norm(A, 2, dims, keepdim, dtype=dtype)
    if ord in ("nuc", 2, -2):
        return _svd_norm(A, ord, dims, keepdim, dtype)
    d0, d1 = dims if abs(ord) == 1 else dims[::-1]
    if not keepdim and d0 < d1:
        d1 -= 1
    return _max_min_of(vector_norm(A, 1.0, (d0,), keepdim, dtype=dtype), d1, keepdim, ord > 0)


def _max_min_of(x, dim, keepdim, largest):
    """amax / amin over dim; the max over an empty dim is zeros without history, as ATen
    computes a norm (the min of nothing stays amin's error)."""
    if largest and x.shape[dim] == 0:
        shape, dim = list(x.shape), dim % x.dim()
        shape[dim:dim + 1] = [1] if keepdim else []
        return _zeros(shape, dtype=x.dtype)
    return (amax if largest else amin)(x, dim, keepdim)


def _svd_norm(A, ord, dims, keepdim, dtype):
    """ATen's composite: the two dims moved last, svdvals, then sum / amax / amin of them."""
    from .linalg import svdvals
    if dtype is not None:
        A = A.to(dtype)
    perm = [d for d in range(A.dim()) if d not in dims] + list(dims)
    s = svdvals(_shape.permute(A, perm))
    result = sum(s, -1, keepdim) if ord == "nuc" else _max_min_of(s, -1, keepdim, ord > 0)
    if keepdim:
        inverse = sorted(range(len(perm)), key=perm.__getitem__)
        result = _shape.permute(_shape.unsqueeze(result, -1), inverse)
    return result


@public("linalg", name="norm")
def linalg_norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """torch.linalg.norm: a matrix norm over two dims (or a 2-D input) when ord is given,
    otherwise vector_norm."""
    dims = [dim] if isinstance(dim, int) else None if dim is None else list(dim)
    if dims is not None and len(dims) not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. "
                           f"Got {dims}")
    if dims is None and (ord is not None) and A.dim() not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be "
                           f"1D or 2D. Got {A.dim()}D.")
    if isinstance(ord, str) or (ord is not None and len(dims or range(A.dim())) == 2):
        return matrix_norm(A, ord, [0, 1] if dims is None else dims, keepdim, dtype=dtype)
    return vector_norm(A, 2.0 if ord is None else ord, dims, keepdim, dtype=dtype)

@public("function", "method")
def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    dims = [dim] if isinstance(dim, int) else dim
    if isinstance(p, str):
        if p == "fro" and (dim is None or len(dims) <= 2):
            return vector_norm(input, 2, dims, keepdim, dtype=dtype)
        return matrix_norm(input, p, list(range(input.dim())) if dims is None else dims,
                           keepdim, dtype=dtype)
    return vector_norm(input, 2.0 if p is None else p, dims, keepdim, dtype=dtype)


# -- logsumexp -------------------------------------------------------------------------------
def _logsumexp_forward(xp, self, dim, keepdim):
    axis = _axis(self, dim)
    if self.size == 0:
        return xp.log(xp.sum(xp.exp(self), axis=axis, keepdims=keepdim))
    m = xp.amax(self, axis=axis, keepdims=True)
    m = xp.where(xp.isinf(m), 0, m)
    with xp.errstate(divide="ignore"):
        # float16/bfloat16: torch composes ops, each rounding to the dtype (the sum's
        # accumulator is float)
        total = xp.sum(xp.exp(self - m), axis=axis, keepdims=True, dtype=_acc(self))
        out = xp.log(total.astype(self.dtype, copy=False)) + m
    return out if keepdim or axis is None else xp.squeeze(out, axis)


_logsumexp = defop("LogsumexpBackward0", _logsumexp_forward, dtype="float", grads={
    "self": lambda grad, self, result, dim, keepdim: _restore(grad, dim, self.dim(), keepdim) *
    (self - _restore(result, dim, self.dim(), keepdim)).exp()})


@public("function", "method", signatures=(
    "logsumexp(Tensor input, IntArrayRef[1] dim, bool keepdim=False, *, Tensor out=None)",))
def logsumexp(input, dim, keepdim=False):
    if not isinstance(dim, int) and not dim and not keepdim and input.dim():   # torch's kernel writes [1, ...] into []
        raise RuntimeError(f"output with shape [] doesn't match the broadcast shape "
                           f"{[1] * input.dim()}")
    return _logsumexp(input, dim=_dims(dim, input.dim()), keepdim=keepdim)


# -- cumulative ops --------------------------------------------------------------------------
def _cumulative(fn):
    """torch accumulates floats in double on the CPU, rounding each output."""
    def forward(xp, self, dim, dtype):
        out = dtype.np if dtype else self.dtype if _kind(self.dtype) in "fc" else None
        acc = {"f": xp.float64, "c": xp.complex128}.get(_kind(out) if out is not None else None,
                                                        out)
        return getattr(xp, fn)(self, axis=dim, dtype=acc).astype(out,
            copy=False).reshape(self.shape)
    return forward


_cumsum_forward = _cumulative("cumsum")
_cumprod_forward = _cumulative("cumprod")


def _reversed_cumsum(t, dim):
    return _flip(cumsum(_flip(t, dims=(dim,)), dim), dims=(dim,))


def _cumsum_backward(grad, dim):
    if grad.numel() <= 1 or grad.shape[dim] == 1:
        return grad
    return _reversed_cumsum(grad, dim)


def _cumprod_backward(grad, self, dim, result):
    if self.numel() <= 1 or self.shape[dim] == 1:
        return grad
    if not _has_zero(self):
        return _reversed_cumsum(result * grad, dim) / self
    # with zeros: for each k, the sum over j >= k of grad_j times prod_{i <= j, i != k} x_i
    n, parts = self.shape[dim], []
    for k in range(n):
        rest = cumprod(_narrow(self, dim, k + 1, n - k - 1), dim)
        if k == 0:
            size = list(self.shape)
            size[dim] = 1
            omitted = _shape.cat([ones(size, dtype=self.dtype), rest], dim)
        else:
            until = prod(_narrow(self, dim, 0, k), dim, keepdim=True)
            omitted = until if k == n - 1 else _shape.cat([until, until * rest], dim)
        parts.append(sum(_narrow(grad, dim, k, n - k) * omitted, dim))
    return _shape.stack(parts, dim)


def _no_bool_result(kernel, dtype):
    if dtype is dtypes.bool:
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


def _cum_dtype(values, attrs):
    return _result_dtype(values, attrs) if attrs["dtype"] is None else attrs["dtype"]


# with dtype=, torch casts the incoming gradient to the input's dtype first: the attr
# self_scalar_type carries it (only when dtype= is given)
_cumsum = defop("CumsumBackward0", _cumsum_forward, dtype=_cum_dtype,
                grads={"self": lambda grad, dim: _cumsum_backward(grad, dim)})
_cumsum_cast = defop("CumsumBackward0", lambda xp, self, dim, dtype, self_scalar_type:
                     _cumsum_forward(xp, self, dim, dtype), dtype=_cum_dtype,
                     grads={"self": lambda grad, dim, self_scalar_type: _cumsum_backward(
                         grad.to(self_scalar_type), dim)})
_cumprod = defop("CumprodBackward0", _cumprod_forward, dtype=_cum_dtype,
                 grads={"self": _cumprod_backward})
_cumprod_cast = defop("CumprodBackward0", lambda xp, self, dim, dtype, self_scalar_type:
                      _cumprod_forward(xp, self, dim, dtype), dtype=_cum_dtype,
                      grads={"self": lambda grad, self, dim, result, self_scalar_type:
                             _cumprod_backward(grad.to(self_scalar_type), self, dim, result)})


@public("function", "method", signatures=(
    "cumsum(Tensor input, int64_t dim, *, ScalarType? dtype=None, Tensor out=None)",))
def cumsum(input, dim, *, dtype=None):
    dim = _wrap_dim(dim, input.dim())
    _no_bool_result("cumsum_out_cpu", dtype)
    if dtype is None or dtype is input.dtype:
        return _cumsum(input, dim=dim, dtype=dtype)
    return _cumsum_cast(input, dim=dim, dtype=dtype, self_scalar_type=input.dtype)


@public("function", "method", signatures=(
    "cumprod(Tensor input, int64_t dim, *, ScalarType? dtype=None, Tensor out=None)",))
def cumprod(input, dim, *, dtype=None):
    dim = _wrap_dim(dim, input.dim())
    _no_bool_result("cumprod_out_cpu", dtype)
    if dtype is None or dtype is input.dtype:
        return _cumprod(input, dim=dim, dtype=dtype)
    return _cumprod_cast(input, dim=dim, dtype=dtype, self_scalar_type=input.dtype)


def _cumulative_(op):
    """x.cumsum_(dim) / x.cumprod_(dim): the row written into x."""
    def inplace(self, dim, *, dtype=None):
        if dtype is not None and dtype is not self.dtype:
            raise RuntimeError(f"Bad in-place call: input tensor dtype "
                               f"{_C10_NAMES[self.dtype.name]} and output tensor dtype "
                               f"{_C10_NAMES[dtype.name]} should match")
        return apply_inplace(op, self, (self,), {"dim": _wrap_dim(dim, self.dim()),
                                                 "dtype": dtype})
    return inplace


cumsum_ = public("method", name="cumsum_", method_signatures=(
    "cumsum_(Tensor self, int64_t dim, *, ScalarType? dtype=None)",))(_cumulative_(_cumsum))
cumprod_ = public("method", name="cumprod_", method_signatures=(
    "cumprod_(Tensor self, int64_t dim, *, ScalarType? dtype=None)",))(_cumulative_(_cumprod))


def _cum_extreme(largest):
    """Running max/min; on ties (and at NaNs) the latest index wins, as in torch."""
    def forward(xp, self, dim):
        if self.ndim == 0:
            return self.copy(), xp.zeros((), xp.int64)
        a = xp.moveaxis(self, dim, 0)
        vals, idx = xp.empty_like(a), xp.empty(a.shape, xp.int64)
        cur, at = a[0], xp.zeros(a.shape[1:], xp.int64)
        for k in range(a.shape[0]):
            x = a[k]
            better = (x >= cur) if largest else (x <= cur)
            if _kind(a.dtype) == "f":
                better = (x != x) | ((cur == cur) & better)
            cur, at = xp.where(better, x, cur), xp.where(better, k, at)
            vals[k], idx[k] = cur, at
        return tuple(_fresh(xp.moveaxis(t, 0, dim)) for t in (vals, idx))
    return forward


_CUM_GRAD = {"self": lambda grad, self, indices, dim: self if self.numel() == 0 else
             _scatter_into_zeros(grad, dim, indices, self.shape, add=True)}
_cummax = defop("CummaxBackward0", _cum_extreme(True), dtype="same", grads=_CUM_GRAD,
                outputs=("result", "indices"))
_cummin = defop("CumminBackward0", _cum_extreme(False), dtype="same", grads=_CUM_GRAD,
                outputs=("result", "indices"))


@public("function", "method", signatures=(
    "cummax(Tensor input, int64_t dim, *, TensorList[2] out=None)",))
def cummax(input, dim):
    return _named("cummax", _cummax(input, dim=_wrap_dim(dim, input.dim())))


@public("function", "method", signatures=(
    "cummin(Tensor input, int64_t dim, *, TensorList[2] out=None)",))
def cummin(input, dim):
    return _named("cummin", _cummin(input, dim=_wrap_dim(dim, input.dim())))


# -- all, any, count_nonzero, diff -----------------------------------------------------------
def _logical_reduce(name):
    def forward(xp, self, dim, keepdim):
        out = getattr(xp, name)(self, axis=_axis(self, dim), keepdims=keepdim)
        return out.astype(xp.uint8) if self.dtype == xp.uint8 else out
    return forward


def _logical_dtype(values, attrs):
    return dtypes.uint8 if values[0].dtype is dtypes.uint8 else dtypes.bool


_all = defop("all", _logical_reduce("all"), dtype=_logical_dtype, promote=())
_any = defop("any", _logical_reduce("any"), dtype=_logical_dtype, promote=())
_count_nonzero = defop("count_nonzero", lambda xp, self, dim: xp.count_nonzero(
    self, axis=_axis(self, dim)), dtype=_int64, promote=())


@public("function", "method", signatures=(
    "all(Tensor input, *, Tensor out=None)",
    "all(Tensor input, IntArrayRef? dim=None, bool keepdim=False, *, Tensor out=None)",
    "all(Tensor input, int64_t dim, bool keepdim=False, *, Tensor out=None)"))
def all(input, dim=None, keepdim=False):
    return _all(input, dim=None if dim is None else _wrap_dims(  # (an empty list: none)
        (dim,) if isinstance(dim, int) else dim, input.dim()), keepdim=keepdim)


@public("function", "method", signatures=(
    "any(Tensor input, *, Tensor out=None)",
    "any(Tensor input, IntArrayRef? dim=None, bool keepdim=False, *, Tensor out=None)",
    "any(Tensor input, int64_t dim, bool keepdim=False, *, Tensor out=None)"))
def any(input, dim=None, keepdim=False):
    return _any(input, dim=None if dim is None else _wrap_dims(  # (an empty list: none)
        (dim,) if isinstance(dim, int) else dim, input.dim()), keepdim=keepdim)


@public("function", "method", signatures=(
    "count_nonzero(Tensor input, int64_t? dim=None)",
    "count_nonzero(Tensor input, IntArrayRef dim)"))
def count_nonzero(input, dim=None):
    return _count_nonzero(input, dim=None if dim is None else _dims(dim, input.dim()))


@public("function", "method", signatures=(
    "diff(Tensor input, int64_t n=1, int64_t dim=-1, Tensor? prepend=None, Tensor? append=None, "
    "*, Tensor out=None)",))
def diff(input, n=1, dim=-1, prepend=None, append=None):
    if input.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    dim = _wrap_dim(dim, input.dim())
    if prepend is not None or append is not None:
        parts = [t for t in (prepend, input, append) if t is not None]
        input = _shape.cat(parts, dim)
    if n == 0:
        return zeros_like(input).copy_(input)
    for _ in range(n):
        size = input.shape[dim]
        if size == 0:
            break
        if input.dtype is dtypes.bool:
            input = _narrow(input, dim, 1, size - 1) != _narrow(input, dim, 0, size - 1)
        else:
            input = _narrow(input, dim, 1, size - 1) - _narrow(input, dim, 0, size - 1)
    return input


@public("method", name="sum_to_size", method_signatures=(
    "sum_to_size(Tensor self, SymIntArrayRef size)",))
def _sum_to_size(self, size):
    """Tensor.sum_to_size: ``self`` summed down to ``size``, which must expand to its shape."""
    size = tuple(_shape._parse_size(size))
    shape = tuple(self.shape)
    if not expandable(size, shape):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
    return sum_to(self, size)


# @public objects name themselves (glassgrad.ops.publish)
publish(globals())
