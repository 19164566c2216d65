"""Indexing ops: advanced __getitem__/__setitem__, gather/scatter, index_*, masked_*, take, nonzero.

Index tensors are real inputs without a formula where PyTorch's op takes one tensor (no edge,
saved and version-checked); ``index``/``index_put`` take a list of them, kept as an attr.
Backward formulas are written with these same ops, so double backward works.
"""
import builtins
import warnings

from .. import dtypes
from .._creation import full, ones, tensor, zeros
from .._tensor import Tensor, _wrap_dim
from .._autograd.grad_mode import state
from .._runtime import alert_not_deterministic, warn, warn_once
from ..backend import backend_of, finfo as _finfo, kind as _kind, xp
from . import shape as _shape
from . import _formula
from . import public, publish
from .registry import _C10_NAMES, _SCALAR_NAMES, apply_inplace, broadcast_shapes, defop


def _make(array):
    return Tensor._make(xp.asarray(array))


def _strided(shape, strides, dtype):
    """A fresh array with the given element strides (torch's layout, size-0 dims included)."""
    dtype = xp.dtype(dtype)
    size = 1 + builtins.sum((n - 1) * st for n, st in zip(shape, strides) if n)
    buf = xp.empty(size, dtype)
    return backend_of(buf).as_strided(buf, shape, [st * dtype.itemsize for st in strides])


def _dense(a):
    """A copy of ``a`` with torch's contiguous strides: NumPy's C-order copy, unless NumPy
    left other strides on size-0/1 dims."""
    out = xp.array(a, copy=True, order="C")
    return out if _torch_strides(out) else _restrided(out)


def _restrided(a):
    strides, step = [], 1
    for n in reversed(a.shape):
        strides.insert(0, step)
        step *= builtins.max(n, 1)
    out = _strided(a.shape, strides, a.dtype)
    out[...] = a
    return out


def _torch_strides(a):
    step = a.itemsize
    for n, st in zip(reversed(a.shape), reversed(a.strides)):
        if st != step:
            return False
        step *= builtins.max(n, 1)
    return True


def _fresh(a):
    """_dense for an array NumPy just computed (it owns its memory): ``a`` itself when its
    strides are already torch's contiguous ones (the usual case), else a copy."""
    return a if _torch_strides(a) else _restrided(a)


def _along(dim, item):
    """The NumPy index that applies ``item`` at ``dim``."""
    return (builtins.slice(None),) * dim + (item,)


def _coords(index, dim):
    """Broadcastable coordinates: index at ``dim``, the position itself elsewhere (scatter)."""
    coords = list(xp.indices(index.shape, sparse=True))
    coords[dim] = index.astype(xp.int64)
    return tuple(coords)


def _check_bounds(index, size, dim, error=RuntimeError, prefix="", wrap=False):
    """torch's out-of-bounds error; ``wrap``: negative indices count from the end."""
    bad = (index >= size) | (index < (-size if wrap else 0))
    if bad.any():
        raise error(f"{prefix}index {index[bad].flat[0]} is out of bounds for dimension {dim} "
                    f"with size {size}")


# -- index / index_put (advanced indexing) ---------------------------------------------------
def _key(shape, indices):
    """The NumPy index for torch's ``index(self, indices)``, with torch's checks."""
    for t in indices:
        if t is not None and t.dtype.name not in ("int64", "int32", "uint8", "bool"):
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    masks = [t is not None and t.dtype.name in ("uint8", "bool") for t in indices]
    if sum(t.dim() if m else 1 for t, m in zip(indices, masks)) > len(shape):
        raise IndexError(f"too many indices for tensor of dimension {len(shape)}")
    key, dims, dim = [], [], 0           # dims: the self dim each index array indexes
    for t, m in zip(indices, masks):
        if t is None:
            key.append(builtins.slice(None))
            dim += 1
        elif m:
            if t.dtype.name == "uint8":
                warn("indexing with dtype torch.uint8 is now deprecated, please use a dtype "
                     "torch.bool instead. (Triggered internally at "
                     "/__w/pytorch/pytorch/aten/src/ATen/native/IndexingUtils.h:37.)")
            for j, n in enumerate(t.shape):
                if n != shape[dim + j]:
                    raise IndexError(f"The shape of the mask {list(t.shape)} at index {j} does "
                                     f"not match the shape of the indexed tensor {list(shape)} "
                                     f"at index {dim + j}")
            key.extend(xp.nonzero(t._data))
            dims.extend(range(dim, dim + t.dim()))
            dim += t.dim()
        else:
            key.append(t._data.astype(xp.int64))
            dims.append(dim)
            dim += 1
    arrays = [k for k in key if not isinstance(k, builtins.slice)]
    try:
        xp.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError:
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together with "
                         "shapes " + ", ".join(str(list(a.shape)) for a in arrays)) from None
    for k, (a, d) in enumerate(zip(arrays, dims)):
        if shape[d] == 0 and a.size:    # (torch's text for an empty dim names no numbers)
            raise IndexError("index is out of bounds for dimension with size 0")
        _check_bounds(a, shape[d], k, IndexError, wrap=True)
    return tuple(key)


def _index_put_forward(xp, self, values, indices, accumulate):
    key = _key(self.shape, indices)
    out = self.copy(order="K")
    target = xp.empty(self.shape, bool)[key].shape
    try:
        xp.broadcast_shapes(values.shape, target)
    except ValueError:
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(values.shape)} cannot "
                           f"be broadcast to indexing result of shape {list(target)}") from None
    if accumulate:
        xp.add.at(out, key, values)
    else:
        out[key] = values
    return out


_index = defop(
    "IndexBackward0", lambda xp, self, indices: _dense(self[_key(self.shape, indices)]),
    dtype="same", grads={"self": lambda grad, self_sym_sizes, indices: _index_put(
        zeros(self_sym_sizes, dtype=grad.dtype), grad, indices=indices, accumulate=True)})
_index_put = defop(
    "IndexPutBackward0", _index_put_forward, ("self", "values"), dtype="same",
    grads={"self": lambda grad, indices, accumulate: grad if accumulate else _index_put(
               grad, zeros((), dtype=grad.dtype), indices=indices, accumulate=False),
           "values": lambda grad, indices: index(grad, indices)})


def _index_list(indices, name):
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"{name}(): argument 'indices' (position 1) must be tuple of Tensors, "
                        f"not {type(indices).__name__}")
    for i, t in enumerate(indices):
        if t is not None and not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(t).__name__}")
    return tuple(indices)


def index(input, indices):
    """torch's ``aten::index``: ``indices`` lists an index tensor (or None) per leading dim."""
    return _index(input, indices=_index_list(indices, "index"))


def _put_args(self, indices, values):
    """index_put's indices (a tuple of tensors, the argument layer checked) and dtypes."""
    if values.dtype is not self.dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{_SCALAR_NAMES[self.dtype.name]} for the destination and "
                           f"{_SCALAR_NAMES[values.dtype.name]} for the source.")
    return tuple(indices)


@public("function", "method", signatures=(
    "index_put(Tensor input, c10::List<::std::optional<Tensor>> indices, Tensor values, "
    "bool accumulate=False)",))
def index_put(input, indices, values, accumulate=False):
    indices = _put_args(input, indices, values)
    return _index_put(input, values, indices=indices, accumulate=accumulate)


@public("function", "method", name="index_put_", signatures=(
    "index_put_(Tensor input, c10::List<::std::optional<Tensor>> indices, Tensor values, "
    "bool accumulate=False)",))
def _index_put_into(input, indices, values, accumulate=False):
    """index_put_ (public through the argument layer; __setitem__ calls it with None among
    the indices, for its slices)."""
    indices = _put_args(input, indices, values)
    return apply_inplace(_index_put, input, (input, values),
                         {"indices": indices, "accumulate": accumulate})


# -- __getitem__ / __setitem__ ---------------------------------------------------------------
def _is_mask(t):
    return t.dtype.name in ("bool", "uint8")


def _items(index):
    """The index as a tuple of items, a list read as a tuple where torch still does."""
    if isinstance(index, tuple):
        return index
    if isinstance(index, list) and len(index) < 32 and any(
            it is None or it is Ellipsis or isinstance(it, (Tensor, list, tuple, builtins.slice))
            for it in index):
        warnings.warn("Using a non-tuple sequence for multidimensional indexing is deprecated "
                      "and will be changed in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. "
                      "In pytorch 2.9 this will be interpreted as tensor index, "
                      "x[torch.tensor(seq)], which will result either in an error or a "
                      "different result", UserWarning, stacklevel=3)
        return tuple(index)
    return (index,)


def _as_index_tensor(it):
    if isinstance(it, Tensor):
        return it
    if isinstance(it, (list, tuple)):
        t = tensor(it)
        return t if t.numel() else t.long()
    if isinstance(it, str):     # torch tries tensor(it)
        raise TypeError(f"new(): invalid data type '{type(it).__name__}'")
    raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                     f"Variables are valid indices (got {type(it).__name__})")


def _slicing(input, items):
    """torch's applySlicing: ints, slices and None become views; the tensor-like items become
    the index list (None where a dim is not indexed) for the ``index`` op that follows."""
    items = [_as_index_tensor(it) if isinstance(it, (list, tuple)) else it for it in items]
    specified = sum(0 if it is None or it is Ellipsis or isinstance(it, builtins.bool) else
                    it.dim() if isinstance(it, Tensor) and _is_mask(it) else 1 for it in items)
    if specified > input.dim():     # (before torch looks at what the items are)
        raise IndexError(f"too many indices for tensor of dimension {input.dim()}")
    items = [it if it is None or it is Ellipsis or isinstance(it, (builtins.int, builtins.slice))
             else _as_index_tensor(it) for it in items]
    batching = state.vmap       # func.vmap: a batched mask is refused; a batched 0-d index kept
    if batching is not None:
        batching.refuse("mask", *(it for it in items if isinstance(it, Tensor) and _is_mask(it)))
    result, dim, indices, covered = input, 0, [], 0   # covered: dims the index list spans

    def add(t, ndim):
        nonlocal covered
        indices.extend([None] * (dim - covered) + [t])
        covered = dim + ndim
    for position, it in enumerate(items):
        if isinstance(it, Tensor) and it.dim() == 0 and not it.is_floating_point() and not (
                batching is not None and batching.of((it,))):
            it = builtins.bool(it.item()) if it.dtype is dtypes.bool else builtins.int(it.item())
        if it is None:
            result = _shape.unsqueeze(result, dim)
            dim += 1
        elif it is Ellipsis:
            dim += input.dim() - specified
        elif isinstance(it, builtins.bool):      # x[True]: a new dim of size 1 (or 0), indexed
            result = _shape.unsqueeze(result, dim)
            add(tensor([0] if it else [], dtype=dtypes.int64), 1)
            dim += 1
        elif isinstance(it, builtins.int):
            result = _shape.select_item(result, dim, it, position)
        elif isinstance(it, builtins.slice):
            result = _shape._apply_slice(result, dim, it, force=False)
            dim += 1
        else:
            add(it, it.dim() if _is_mask(it) else 1)
            dim = covered
    return result, indices


def _basic(items):
    return all(it is None or it is Ellipsis or (isinstance(it, (builtins.int, builtins.slice))
                                                and not isinstance(it, builtins.bool))
               for it in items)


@public("__getitem__")
def getitem(input, index):
    """Tensor.__getitem__ with advanced indexing (tensors, lists, bool masks)."""
    items = _items(index)
    if _basic(items):
        return _shape.getitem(input, items if isinstance(index, list) else index)
    result, indices = _slicing(input, items)
    if not indices:
        return _shape.alias(input) if result is input else result
    return _index(result, indices=tuple(indices))


def _strip_leading_ones(value):
    n = 0
    while n < value.dim() and value.shape[n] == 1:
        n += 1
    return value.reshape(value.shape[n:]) if n else value


@public("__setitem__")
def setitem(self, index, value):
    """Tensor.__setitem__: views for the basic part, then fill_/copy_ or index_put_."""
    sliced, indices = _slicing(self, _items(index))
    if not isinstance(value, Tensor):
        value = _make(xp.asarray(value).astype(self.dtype.np))
    if indices:
        _index_put_into(sliced, indices, _strip_leading_ones(value))
    elif value.shape == sliced.shape:
        sliced.copy_(value)
    elif value.dim() == 0:
        sliced.fill_(value)
    else:
        sliced.copy_(_shape.expand(_strip_leading_ones(value), sliced.shape))


# -- gather / scatter ------------------------------------------------------------------------
def _check_index_dtype(index, name):
    if index.dtype.name not in ("int64", "int32"):
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index")


def _gather_forward(xp, self, index, dim, sparse_grad):
    dim = _wrap(dim, self)
    if self.ndim == 0:
        return xp.broadcast_to(self, index.shape).copy()
    part = self[tuple(builtins.slice(None) if d == dim else builtins.slice(0, n)
                      for d, n in enumerate(index.shape))]
    return _fresh(xp.take_along_axis(part, index.astype(xp.int64), dim))


_gather = defop("GatherBackward0", _gather_forward, ("self", "index"), dtype="same", arrays=True,
                grads={"self": lambda grad, self, dim, index, sparse_grad: _scatter_add.call(
                    _formula.zeros(grad, self.shape), index, grad, dim=dim)})


def _check_gather(self, dim, index, name="gather", src=None):
    """torch's gather/scatter checks; the dim is returned as given (torch saves it so)."""
    w = _wrap_dim(dim, self.dim())
    _check_index_dtype(index, "gather" if name == "gather" else "scatter")
    if builtins.max(index.dim(), 1) != builtins.max(self.dim(), 1) and index.numel():
        what = "input" if name == "gather" else "self"     # (a 0-d tensor counts as 1-d)
        raise RuntimeError(f"Index tensor must have the same number of dimensions as {what} "
                           "tensor")
    for k in range(index.dim()):
        if name == "gather" and k != w and index.shape[k] > self.shape[k]:
            raise RuntimeError(f"Size does not match at dimension {k} expected index "
                               f"{list(index.shape)} to be no larger than self "
                               f"{list(self.shape)} apart from dimension {w}")
        if name != "gather" and ((k != w and index.shape[k] > self.shape[k]) or (
                src is not None and index.shape[k] > src.size(k))):
            raise RuntimeError(f"Expected index {list(index.shape)} to be no larger than self "
                               f"{list(self.shape)} apart from dimension {w} and to be no "
                               f"larger size than src {list((self if src is None else src).shape)}")
    _check_bounds(index._data, self.shape[w] if self.dim() else 1, w)
    return dim


def _wrap(dim, a):
    return dim % builtins.max(a.ndim, 1)


@public("function", "method", signatures=(
    "gather(Tensor input, int64_t dim, Tensor index, *, bool sparse_grad=False, Tensor out=None)",))
def gather(input, dim, index, *, sparse_grad=False):
    dim = _check_gather(input, dim, index)
    return _gather(input, index, dim=dim, sparse_grad=sparse_grad)


_UFUNCS = {"sum": xp.add, "add": xp.add, "mean": xp.add, "prod": xp.multiply,
           "multiply": xp.multiply, "amax": xp.maximum, "amin": xp.minimum}


def _scatter_forward(xp, self, index, src, dim, reduce=None, include_self=True):
    if self.ndim == 0:      # a 0-d tensor counts as 1-d of size 1
        if isinstance(src, xp.ndarray):
            src = src.reshape(-1)
        return _scatter_forward(xp, self.reshape(1), index.reshape(-1), src, 0, reduce,
                                include_self).reshape(())
    dim = _wrap(dim, self)
    out = _dense(self)
    if not index.size:
        return out
    coords = _coords(index, dim)
    if isinstance(src, xp.ndarray) and src.ndim:
        src = src[tuple(builtins.slice(0, n) for n in index.shape)]
    src = xp.broadcast_to(xp.asarray(src, dtype=self.dtype), index.shape)
    if reduce is None:
        out[coords] = src
        return out
    if not include_self:
        ident = {"sum": 0, "mean": 0, "prod": 1}.get(reduce)
        if ident is None:
            info = _finfo if _kind(out.dtype) == "f" else xp.iinfo
            ident = info(out.dtype).min if reduce == "amax" else info(out.dtype).max
        out[coords] = ident
    _UFUNCS[reduce].at(out, coords, src)
    if reduce == "mean":
        count = xp.full(out.shape, builtins.int(include_self), out.dtype)
        xp.add.at(count, coords, 1)
        count[count == 0] = 1
        out = out / count if _kind(out.dtype) == "f" else out // count
    return out


def _not_implemented(grad):
    raise RuntimeError("derivative for aten::scatter is not implemented")


_scatter_src = defop("ScatterBackward0", _scatter_forward, ("self", "index", "src"), dtype="same",
                     grads={"self": lambda grad, dim, index: scatter(grad, dim, index, 0),
                            "src": lambda grad, dim, index: gather(grad, dim, index)})
_scatter_value = defop(
    "ScatterBackward1", lambda xp, self, index, dim, value: _scatter_forward(xp, self, index,
        value, dim),
    ("self", "index"), dtype="same",
    grads={"self": lambda grad, dim, index: scatter(grad, dim, index, 0)})
_scatter_reduce_arg = defop(     # scatter(..., reduce=): PyTorch has no derivative for it
    "NotImplemented", _scatter_forward, ("self", "index", "src"), dtype="same",
    grads={"self": _not_implemented, "src": _not_implemented})
_scatter_add = defop(
    "ScatterAddBackward0", lambda xp, self, index, src, dim: _scatter_forward(xp, 
        self, index, src, dim, "sum"), ("self", "index", "src"), dtype="same",
    grads={"self": lambda grad: grad, "src": lambda grad, dim, index: gather(grad, dim, index)})


def _scatter_reduce_grads(grad, self, index, src, result, dim, reduce, include_self):
    """Both gradients of scatter_reduce (PyTorch's scatter_reduce_backward, restated)."""
    if reduce == "sum":
        grad_self, grad_src = grad, gather(grad, dim, index)
    elif reduce == "mean":
        n = full(grad.shape, builtins.int(include_self), dtype=grad.dtype)
        n = scatter_add(n, dim, index, ones(src.shape, dtype=src.dtype))
        n = masked_fill(n, n == 0, 1)
        grad_self, grad_src = grad / n, gather(grad, dim, index) / gather(n, dim, index)
    elif reduce == "prod":
        masked_self = masked_fill(self, self == 0, 1)
        masked_self_result = scatter_reduce(masked_self, dim, index, src, reduce,
                                            include_self=include_self)
        grad_self = grad * masked_self_result / masked_self
        src_zero = src == 0
        zeros_self = zeros(self.shape, dtype=self.dtype)
        src_num_zeros = gather(scatter_add(zeros_self, dim, index, src_zero.to(self.dtype)), dim,
                               index)
        src_single_zero = src_zero & (src_num_zeros == 1)
        masked_src_result = scatter_reduce(self, dim, index, masked_fill(src, src_single_zero, 1),
                                           reduce, include_self=include_self)
        from .pointwise import where
        grad_src = where(src_single_zero, gather(grad * masked_src_result, dim, index),
                         gather(grad * result, dim, index) / masked_fill(src, src_zero, 1))
    else:       # amax / amin: the gradient is shared evenly among the tied extremes
        value = gather(result, dim, index)
        self_is_result = (self == result).to(self.dtype)
        src_is_result = (src == value).to(self.dtype)
        distributed = grad / scatter_add(self_is_result, dim, index, src_is_result)
        grad_self = self_is_result * distributed
        grad_src = src_is_result * gather(distributed, dim, index)
    if not include_self:
        grad_self = scatter(grad_self, dim, index, 0)
    return grad_self, grad_src


_scatter_reduce = defop(
    "ScatterReduceBackward0", _scatter_forward, ("self", "index", "src"), dtype="same",
    grads={"self": lambda grad, self, index, src, result, dim, reduce, include_self:
           _scatter_reduce_grads(grad, self, index, src, result, dim, reduce, include_self)[0],
           "src": lambda grad, self, index, src, result, dim, reduce, include_self:
           _scatter_reduce_grads(grad, self, index, src, result, dim, reduce, include_self)[1]})


def _scatter_args(input, dim, index, src, name):
    if isinstance(src, Tensor) and src.dtype is not input.dtype:
        _check_index_dtype(index, "scatter")
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    return _check_gather(input, dim, index, name, src if isinstance(src, Tensor) else None)


def _scatter(input, dim, index, src, reduce, inplace):
    dim = _scatter_args(input, dim, index, src, "scatter")
    run = (lambda op, values, attrs: apply_inplace(op, input, values, attrs)) if inplace else \
        (lambda op, values, attrs: op(*values, **attrs))
    if reduce is not None:
        if reduce not in ("add", "multiply"):
            raise RuntimeError("reduce argument must be either add or multiply.")
        if isinstance(src, Tensor):
            warn("The reduce argument of torch.scatter with Tensor src is deprecated and will "
                 "be removed in a future PyTorch release. Use torch.scatter_reduce instead for "
                 "more reduction options. (Triggered internally at "
                 "/__w/pytorch/pytorch/aten/src/ATen/native/TensorAdvancedIndexing.cpp:225.)")
        src = src if isinstance(src, Tensor) else _make(xp.asarray(src, input.dtype.np))
        return run(_scatter_reduce_arg, (input, index, src), {"dim": dim, "reduce": reduce})
    if isinstance(src, Tensor):
        return run(_scatter_src, (input, index, src), {"dim": dim})
    return run(_scatter_value, (input, index), {"dim": dim, "value": src})


@public("function", "method", signatures=(
    "scatter(Tensor input, int64_t dim, Tensor index, Tensor src, *, Tensor out=None)",
    "scatter(Tensor input, int64_t dim, Tensor index, Tensor src, *, c10::string_view reduce, "
    "Tensor out=None)",
    "scatter(Tensor input, int64_t dim, Tensor index, Scalar value, *, Tensor out=None)",
    "scatter(Tensor input, int64_t dim, Tensor index, Scalar value, *, c10::string_view reduce, "
    "Tensor out=None)"))
def scatter(input, dim, index, src=None, value=None, *, reduce=None):
    return _scatter(input, dim, index, value if src is None else src, reduce, False)


@public("method", method_signatures=(
    "scatter_(Tensor self, int64_t dim, Tensor index, Tensor src)",
    "scatter_(Tensor self, int64_t dim, Tensor index, Tensor src, *, c10::string_view reduce)",
    "scatter_(Tensor self, int64_t dim, Tensor index, Scalar value)",
    "scatter_(Tensor self, int64_t dim, Tensor index, Scalar value, *, c10::string_view reduce)"))
def scatter_(input, dim, index, src=None, value=None, *, reduce=None):
    return _scatter(input, dim, index, value if src is None else src, reduce, True)


@public("function", "method", signatures=(
    "scatter_add(Tensor input, int64_t dim, Tensor index, Tensor src, *, Tensor out=None)",))
def scatter_add(input, dim, index, src):
    dim = _scatter_args(input, dim, index, src, "scatter_add")
    return _scatter_add(input, index, src, dim=dim)


@public("method", method_signatures=(
    "scatter_add_(Tensor self, int64_t dim, Tensor index, Tensor src)",))
def scatter_add_(input, dim, index, src):
    dim = _scatter_args(input, dim, index, src, "scatter_add")
    return apply_inplace(_scatter_add, input, (input, index, src), {"dim": dim})


def _scatter_reduce_args(input, dim, index, src, reduce):
    if reduce not in ("sum", "prod", "mean", "amax", "amin"):
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")
    return _scatter_args(input, dim, index, src, "scatter_reduce")


@public("function", "method", signatures=(
    "scatter_reduce(Tensor input, int64_t dim, Tensor index, Tensor src, "
    "c10::string_view reduce, *, bool include_self=True, Tensor out=None)",))
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    dim = _scatter_reduce_args(input, dim, index, src, reduce)
    return _scatter_reduce(input, index, src, dim=dim, reduce=reduce, include_self=include_self)


@public("method", method_signatures=(
    "scatter_reduce_(Tensor self, int64_t dim, Tensor index, Tensor src, "
    "c10::string_view reduce, *, bool include_self=True)",))
def scatter_reduce_(input, dim, index, src, reduce, *, include_self=True):
    dim = _scatter_reduce_args(input, dim, index, src, reduce)
    return apply_inplace(_scatter_reduce, input, (input, index, src),
                         {"dim": dim, "reduce": reduce, "include_self": include_self})


@public("function", "method", signatures=(
    "take_along_dim(Tensor input, Tensor indices, int64_t? dim=None, *, Tensor out=None)",))
def take_along_dim(input, indices, dim=None):
    if indices.dtype is not dtypes.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{_SCALAR_NAMES[indices.dtype.name]}")
    if dim is None:
        return gather(input.reshape(-1), 0, indices.reshape(-1))
    if input.dim() != indices.dim():
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same "
                           f"number of dimensions, but got {input.dim()} dimensions for input, "
                           f"and {indices.dim()} dimensions for indices")
    dim = _wrap_dim(dim, input.dim())
    sizes = list(input.shape)
    sizes[dim] = indices.shape[dim]
    shape = list(broadcast_shapes(tuple(sizes), indices.shape))
    indices = _shape.expand(indices, shape)
    shape[dim] = input.shape[dim]
    return gather(_shape.expand(input, shape), dim, indices)


# -- index_select / index_add / index_copy / index_fill --------------------------------------
def _vector_index(index, name):
    if index.dim() > 1:
        raise IndexError(f"{name}(): Index is supposed to be a vector")
    return index._data.reshape(-1).astype(xp.int64)


def _index_select_forward(xp, self, index, dim):
    dim = _wrap(dim, self)
    if self.ndim == 0:      # (one index, checked: the scalar itself)
        return self.copy()
    return _fresh(xp.take(self, index.reshape(-1).astype(xp.int64), axis=dim))


_index_select = defop(
    "IndexSelectBackward0", _index_select_forward, ("self", "index"), dtype="same",
    grads={"self": lambda grad, self_sym_sizes, dim, index: index_add(
        zeros(self_sym_sizes, dtype=grad.dtype), dim, index, grad)})


@public("function", "method", signatures=(
    "index_select(Tensor input, int64_t dim, Tensor index, *, Tensor out=None)",))
def index_select(input, dim, index):
    raw, dim = dim, _wrap_dim(dim, input.dim())
    if index.dtype.name not in ("int64", "int32"):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    idx = _vector_index(index, "index_select")
    if input.dim() == 0 and idx.size != 1:
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got "
                           f"{idx.size} value(s)")
    size = input.shape[dim] if input.dim() else 1
    if ((idx < 0) | (idx >= size)).any():
        raise IndexError("index out of range in self")
    return _index_select(input, index, dim=raw)


def _index_add_forward(xp, self, index, source, dim, alpha, source_dim):
    dim = _wrap(dim, self)
    out = _dense(self)
    flat = out.reshape(1) if out.ndim == 0 else out     # (a 0-d tensor counts as 1-d)
    xp.add.at(flat, _along(dim, index.reshape(-1).astype(xp.int64)),
              (source if alpha == 1 else source * xp.asarray(alpha, self.dtype)).reshape(
                  (1,) if source.ndim == 0 else source.shape))
    return out


def _index_copy_forward(xp, self, index, source, dim, source_dim):
    dim = _wrap(dim, self)
    out = _dense(self)
    out[_along(dim, index.reshape(-1).astype(xp.int64))] = source
    return out


def _source_grad(grad, dim, index, source, source_dim):
    if source_dim > 0:
        return index_select(grad, dim, index).expand_as(source)
    return index_select(grad, dim, index.squeeze(0))


_index_add = defop(
    "IndexAddBackward0", _index_add_forward, ("self", "index", "source"), dtype="same",
    grads={"self": lambda grad: grad,
           "source": lambda grad, dim, index, source, source_dim, alpha:
           _source_grad(grad, dim, index, source, source_dim) * alpha if alpha != 1 else
           _source_grad(grad, dim, index, source, source_dim)})
_index_copy = defop(
    "IndexCopyBackward0", _index_copy_forward, ("self", "index", "source"), dtype="same",
    grads={"self": lambda grad, dim, index: index_fill(grad, dim, index, 0),
           "source": _source_grad})


def _check_index_source(name, input, dim, index, source):
    """index_add_'s and index_reduce_'s checks of index and source along (wrapped) dim."""
    if index.dtype.name not in ("int64", "int32"):
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index but got: "
                           f"{_SCALAR_NAMES[index.dtype.name]}")
    if index.dim() > 1:
        raise IndexError(f"{name}(): Index is supposed to be a vector, but got dim: "
                         f"{index.dim()} with type: {_SCALAR_NAMES[index.dtype.name]} and size: "
                         f"{list(index.shape)}")
    n = source.shape[dim] if source.dim() else 1
    if index.numel() != n:
        raise RuntimeError(f"{name}(): Number of indices ({index.numel()}) should be equal "
                           f"to source.size(dim): ({n}), for dim: {dim}")
    if source.dtype is not input.dtype:
        raise RuntimeError(f"{name}(): self ({_SCALAR_NAMES[input.dtype.name]}) and source "
                           f"({_SCALAR_NAMES[source.dtype.name]}) must have the same scalar "
                           "type")


def _index_add_args(input, dim, index, source):
    raw, dim = dim, _wrap_dim(dim, input.dim())
    _check_index_source("index_add_", input, dim, index, source)
    _check_bounds(index._data.reshape(-1), input.shape[dim] if input.dim() else 1, dim)
    return {"dim": raw, "source_dim": source.dim()}


@public("function", "method", signatures=(
    "index_add(Tensor input, int64_t dim, Tensor index, Tensor source, *, Scalar alpha=1, "
    "Tensor out=None)",))
def index_add(input, dim, index, source, *, alpha=1):
    return _index_add(input, index, source, alpha=alpha,
                      **_index_add_args(input, dim, index, source))


@public("method", method_signatures=(
    "index_add_(Tensor self, int64_t dim, Tensor index, Tensor source, *, Scalar alpha=1)",))
def index_add_(input, dim, index, source, *, alpha=1):
    attrs = {**_index_add_args(input, dim, index, source), "alpha": alpha}
    return apply_inplace(_index_add, input, (input, index, source), attrs)


def _index_copy_args(input, dim, index, source):
    raw, dim = dim, _wrap_dim(dim, input.dim())
    if index.dtype is not dtypes.int64:
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got "
                           f"{_SCALAR_NAMES[index.dtype.name]}")
    if index.dim() > 1:
        raise IndexError("index_copy_(): Index should have dimension 1 or 0 (got "
                         f"{index.dim()})")
    n = source.shape[dim] if source.dim() else 1
    if index.numel() != n:
        raise IndexError(f"index_copy_(): Number of indices ({index.numel()}) should be equal "
                         f"to source.size(dim) ({n})")
    rest = [s for d, s in enumerate(input.shape) if d != dim]
    src_rest = [s for d, s in enumerate(source.shape) if d != dim]
    if source.dim() and rest != src_rest:
        raise RuntimeError(f"index_copy_(): Source/destination tensor must have same slice "
                           f"shapes. Destination slice shape: {' '.join(map(str, rest))} at "
                           f"dimension {dim} and source slice shape: "
                           f"{' '.join(map(str, src_rest))} at dimension 0.")
    if source.dtype is not input.dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, "
                           f"but got (self) {_SCALAR_NAMES[input.dtype.name]} and (source) "
                           f"{_SCALAR_NAMES[source.dtype.name]}")
    size = input.shape[dim] if input.dim() else 1
    _check_bounds(index._data.reshape(-1), size, dim, IndexError, "index_copy_(): ")
    return {"dim": raw, "source_dim": source.dim()}


@public("function", "method", signatures=(
    "index_copy(Tensor input, int64_t dim, Tensor index, Tensor source, *, Tensor out=None)",))
def index_copy(input, dim, index, source):
    return _index_copy(input, index, source, **_index_copy_args(input, dim, index, source))


@public("method", method_signatures=(
    "index_copy_(Tensor self, int64_t dim, Tensor index, Tensor source)",))
def index_copy_(input, dim, index, source):
    return apply_inplace(_index_copy, input, (input, index, source),
                         _index_copy_args(input, dim, index, source))


def _index_fill_forward(self, index, value=None, dim=0):
    dim = _wrap(dim, self)
    out = self.copy(order="K")
    out[_along(dim, index.reshape(-1).astype(xp.int64))] = value
    return out


_index_fill_scalar = defop(
    "IndexFillBackward0", lambda xp, self, index, dim, value: _index_fill_forward(self, index,
        value,
                                                                               dim),
    ("self", "index"), dtype="same",
    grads={"self": lambda grad, dim, index: index_fill(grad, dim, index, 0)})
_index_fill_tensor = defop(
    "IndexFillBackward1", lambda xp, self, index, value, dim: _index_fill_forward(self, index,
        value,
                                                                               dim),
    ("self", "index", "value"), dtype="same",
    grads={"self": lambda grad, dim, index: index_fill(grad, dim, index, 0),
           "value": lambda grad, dim, index: index_select(
               grad, dim, _make(xp.unique(index._data))).sum()})


def _index_fill_args(input, dim, index, value):
    raw, dim = dim, _wrap_dim(dim, input.dim())
    if index.dtype is not dtypes.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if isinstance(value, Tensor) and value.dim():
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value.dim()} dimension(s).")
    _check_bounds(index._data.reshape(-1), input.shape[dim] if input.dim() else 1, dim,
                  IndexError, wrap=True)
    return raw


def _index_fill(input, dim, index, value, inplace):
    dim = _index_fill_args(input, dim, index, value)
    if isinstance(value, Tensor):
        op, values, attrs = _index_fill_tensor, (input, index, value), {"dim": dim}
    else:
        op, values, attrs = _index_fill_scalar, (input, index), {"dim": dim, "value": value}
    return apply_inplace(op, input, values, attrs, overlap=None) if inplace else \
        op(*values, **attrs)


@public("function", "method", signatures=(
    "index_fill(Tensor input, int64_t dim, Tensor index, Tensor value)",
    "index_fill(Tensor input, int64_t dim, Tensor index, Scalar value)"))
def index_fill(input, dim, index, value):
    return _index_fill(input, dim, index, value, False)


@public("method", method_signatures=(
    "index_fill_(Tensor self, int64_t dim, Tensor index, Tensor value)",
    "index_fill_(Tensor self, int64_t dim, Tensor index, Scalar value)"))
def index_fill_(input, dim, index, value):
    return _index_fill(input, dim, index, value, True)


# -- masked_fill / masked_select / masked_scatter --------------------------------------------
def _masked_fill_forward(xp, self, mask, value):
    return _fresh(xp.where(mask, xp.asarray(value).astype(self.dtype), self))


_masked_fill_scalar = defop(
    "MaskedFillBackward0", _masked_fill_forward, ("self", "mask"), dtype="same",
    grads={"self": lambda grad, mask: masked_fill(grad, mask, 0)})
_masked_fill_tensor = defop(
    "MaskedFillBackward1", _masked_fill_forward, ("self", "mask", "value"), dtype="same",
    grads={"self": lambda grad, mask: masked_fill(grad, mask, 0),
           "value": lambda grad, mask: masked_select(grad, mask).sum()})


def _masked_fill(input, mask, value, inplace):
    if mask.dtype is not dtypes.bool:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{_C10_NAMES[mask.dtype.name]}")
    if isinstance(value, Tensor) and value.dim():
        raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value.dim()} dimension(s).")
    if isinstance(value, Tensor):
        op, values, attrs = _masked_fill_tensor, (input, mask, value), {}
    else:
        op, values, attrs = _masked_fill_scalar, (input, mask), {"value": value}
    if inplace:
        if any(st == 0 and n > 1 for st, n in zip(input._data.strides, input._data.shape)):
            warnings.warn("Use of masked_fill_ on expanded tensors is deprecated. Please clone() "
                          "the tensor before performing this operation. This also applies to "
                          "advanced indexing e.g. tensor[mask] = scalar", UserWarning,
                          stacklevel=3)
        return apply_inplace(op, input, values, attrs, overlap=None)
    broadcast_shapes(mask.shape, input.shape)
    return op(*values, **attrs)


@public("function", "method", signatures=(
    "masked_fill(Tensor input, Tensor mask, Tensor value)",
    "masked_fill(Tensor input, Tensor mask, Scalar value)"))
def masked_fill(input, mask, value):
    return _masked_fill(input, mask, value, False)


@public("method", method_signatures=(
    "masked_fill_(Tensor self, Tensor mask, Tensor value)",
    "masked_fill_(Tensor self, Tensor mask, Scalar value)"))
def masked_fill_(input, mask, value):
    return _masked_fill(input, mask, value, True)


def _masked_select_forward(xp, self, mask):
    shape = xp.broadcast_shapes(self.shape, mask.shape)
    return xp.broadcast_to(self, shape)[xp.broadcast_to(mask, shape)]


def _masked_select_backward(grad, self, mask):
    shape = broadcast_shapes(self.shape, mask.shape)
    return masked_scatter(zeros(shape, dtype=grad.dtype), _shape.expand(mask, shape), grad)


_masked_select = defop("MaskedSelectBackward0", _masked_select_forward, ("self", "mask"),
                       dtype="same", grads={"self": _masked_select_backward})


@public("function", "method", signatures=(
    "masked_select(Tensor input, Tensor mask, *, Tensor out=None)",))
def masked_select(input, mask):
    if mask.dtype is not dtypes.bool:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    if state.vmap is not None:
        state.vmap.refuse("masked_select", mask)
    broadcast_shapes(mask.shape, input.shape)
    return _masked_select(input, mask)


def _masked_scatter_forward(xp, self, mask, source):
    shape = xp.broadcast_shapes(self.shape, mask.shape)
    out = _dense(xp.broadcast_to(self, shape))
    where = xp.broadcast_to(mask, shape)
    n = builtins.int(where.sum())
    if n > source.size:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    out[where] = source.reshape(-1)[:n]
    return out


def _masked_scatter_backward(grad, mask, sizes):
    selected = masked_select(grad, mask)
    numel = 1
    for s in sizes:
        numel *= s
    if numel > selected.numel():
        selected = _shape.cat([selected, zeros(numel - selected.numel(), dtype=grad.dtype)])
    return selected.reshape(sizes)


_masked_scatter = defop(
    "MaskedScatterBackward0", _masked_scatter_forward, ("self", "mask", "source"), dtype="same",
    grads={"self": lambda grad, mask: masked_fill(grad, mask, 0),
           "source": lambda grad, mask, source_sym_sizes: _masked_scatter_backward(
               grad, mask, source_sym_sizes)})


def _masked_scatter_args(input, mask, source):
    if mask.dtype is not dtypes.bool:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with "
                           f"dtype {_SCALAR_NAMES[mask.dtype.name]}")
    if source.dtype is not input.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but "
                           f"got{_SCALAR_NAMES[input.dtype.name]} and "
                           f"{_SCALAR_NAMES[source.dtype.name]}")


@public("function", "method", signatures=(
    "masked_scatter(Tensor input, Tensor mask, Tensor source)",))
def masked_scatter(input, mask, source):
    _masked_scatter_args(input, mask, source)
    broadcast_shapes(input.shape, mask.shape)
    return _masked_scatter(input, mask, source)


@public("method", method_signatures=(
    "masked_scatter_(Tensor self, Tensor mask, Tensor source)",))
def masked_scatter_(input, mask, source):
    _masked_scatter_args(input, mask, source)
    _shape.expand(mask, input.shape)        # the mask must expand to self (torch's error)
    return apply_inplace(_masked_scatter, input, (input, mask, source), {})


# -- take, nonzero, argwhere -----------------------------------------------------------------
def _take_backward(grad, self, index):
    flat = zeros(self.numel(), dtype=grad.dtype)
    return _index_put(flat, grad.reshape(-1), indices=(index.reshape(-1),),
                      accumulate=True).reshape(self.shape)


_take = defop("TakeBackward0", lambda xp, self, index: _dense(self.reshape(-1)[index]),
              ("self", "index"), dtype="same", grads={"self": _take_backward})


@public("function", "method", signatures=(
    "take(Tensor input, Tensor index, *, Tensor out=None)",))
def take(input, index):
    if index.dtype is not dtypes.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got "
                           f"{_SCALAR_NAMES[index.dtype.name]}")
    n = input.numel()
    bad = (index._data >= n) | (index._data < -n)
    if bad.any():
        raise IndexError(f"out of range: tried to access index {index._data[bad].flat[0]} on a "
                         f"tensor of {n} elements.")
    return _take(input, index)


# -- put, index_reduce -----------------------------------------------------------------------
def _put_forward(xp, self, index, source, accumulate):
    out = _dense(self)
    flat, idx = out.reshape(-1), index.reshape(-1).astype(xp.int64)
    if accumulate:
        xp.add.at(flat, idx, source.reshape(-1))
    else:
        flat[idx] = source.reshape(-1)
    return out


_put = defop(
    "PutBackward0", _put_forward, ("self", "index", "source"), dtype="same",
    grads={"self": lambda grad, index, source, accumulate: grad if accumulate else
           grad.put(index, zeros(source.shape, dtype=grad.dtype), accumulate),
           "source": lambda grad, index, source: take(grad, index).reshape(source.shape)})


def _put_checks(input, index, source, accumulate):
    if index.dtype is not dtypes.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got "
                           f"{_SCALAR_NAMES[index.dtype.name]}")
    if input.dtype is not source.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got "
                           f"self.dtype = {_SCALAR_NAMES[input.dtype.name]} and source.dtype = "
                           f"{_SCALAR_NAMES[source.dtype.name]}")
    if source.numel() != index.numel():
        raise IndexError(f"put_(): Expected source and index to have the same number of "
                         f"elements, but got source.numel() = {source.numel()}, index.numel() = "
                         f"{index.numel()}")
    n = input.numel()
    if n == 0 and index.numel():
        raise IndexError("put_(): Tried to put elements into an empty tensor")
    if not accumulate:
        alert_not_deterministic("put_")
    bad = (index._data >= n) | (index._data < -n)
    if bad.any():
        raise IndexError(f"out of range: tried to access index {index._data[bad].flat[0]} on a "
                         f"tensor of {n} elements.")
    return {"accumulate": accumulate}


@public("function", "method", signatures=(
    "put(Tensor input, Tensor index, Tensor source, bool accumulate=False)",))
def put(input, index, source, accumulate=False):
    return _put(input, index, source, **_put_checks(input, index, source, accumulate))


@public("method", method_signatures=(
    "put_(Tensor self, Tensor index, Tensor source, bool accumulate=False)",))
def put_(input, index, source, accumulate=False):
    return apply_inplace(_put, input, (input, index, source),
                         _put_checks(input, index, source, accumulate))


_REDUCE_UFUNCS = {"prod": "multiply", "mean": "add", "amax": "maximum", "amin": "minimum"}


def _index_reduce_forward(xp, self, index, source, dim, reduce, include_self):
    out = _dense(self)
    view = xp.moveaxis(out.reshape(1) if out.ndim == 0 else out, dim, 0)
    src = xp.moveaxis(source.reshape(1) if source.ndim == 0 else source, dim, 0)
    idx = index.reshape(-1).astype(xp.int64)
    if not include_self:
        view[idx] = _reduce_identity(xp, reduce, out.dtype)
    getattr(xp, _REDUCE_UFUNCS[reduce]).at(view, idx, src)
    if reduce == "mean":
        counts = xp.full(view.shape[0], 1 if include_self else 0, xp.int64)
        xp.add.at(counts, idx, 1)
        counts = xp.maximum(counts, 1).reshape((-1,) + (1,) * (view.ndim - 1))
        view[...] = (view / counts if _kind(out.dtype) in "fc" else view // counts)
    return out


def _reduce_identity(xp, reduce, dtype):
    if reduce in ("prod", "mean"):
        return 1 if reduce == "prod" else 0
    kind = _kind(dtype)
    if kind == "f":
        return -xp.inf if reduce == "amax" else xp.inf
    info = xp.iinfo(dtype)
    return info.min if reduce == "amax" else info.max


def _index_reduce_grads(grad, self, index, source, result, dim, reduce, include_self):
    """Both gradients of index_reduce (PyTorch's index_reduce_backward, restated)."""
    if reduce == "prod":
        masked_self = masked_fill(self, self == 0, 1)
        grad_self = grad * index_reduce(masked_self, dim, index, source, reduce,
                                        include_self=include_self) / masked_self
        src_zero = source == 0
        src_num_zeros = index_select(index_add(zeros(self.shape, dtype=self.dtype), dim, index,
                                               src_zero.to(self.dtype)), dim, index)
        src_single_zero = src_zero & (src_num_zeros == 1)
        masked_src_result = index_reduce(self, dim, index, masked_fill(source, src_single_zero, 1),
                                         reduce, include_self=include_self)
        grad_src = _formula.where(
            src_single_zero, index_select(grad * masked_src_result, dim, index),
            index_select(grad * result, dim, index) / masked_fill(source, src_zero, 1))
    elif reduce == "mean":
        n = ones(grad.shape, dtype=grad.dtype) if include_self else zeros(grad.shape,
                                                                           dtype=grad.dtype)
        n = index_add(n, dim, index, ones(source.shape, dtype=grad.dtype))
        n = masked_fill(n, n == 0, 1)
        grad_self, grad_src = grad / n, index_select(grad, dim, index) / index_select(n, dim,
                                                                                      index)
    else:
        value = index_select(result, dim, index)
        self_is_result = (self == result).to(self.dtype)
        source_is_result = (source == value).to(self.dtype)
        distributed = grad / index_add(self_is_result, dim, index, source_is_result)
        grad_self = self_is_result * distributed
        grad_src = source_is_result * index_select(distributed, dim, index)
    if not include_self:
        grad_self = index_fill(grad_self, dim, index, 0)
    return grad_self, grad_src


_index_reduce = defop(
    "IndexReduceBackward0", _index_reduce_forward, ("self", "index", "source"), dtype="same",
    grads={"self": lambda grad, self, index, source, result, dim, reduce, include_self:
           _index_reduce_grads(grad, self, index, source, result, dim, reduce,
                               include_self)[0],
           "source": lambda grad, self, index, source, result, dim, reduce, include_self:
           _index_reduce_grads(grad, self, index, source, result, dim, reduce,
                               include_self)[1]})


def _index_reduce_args(input, dim, index, source, reduce, include_self):
    warn_once("index_reduce", "index_reduce() is in beta and the API may change at any time. "
              "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/"
              "TensorAdvancedIndexing.cpp:1523.)")
    if reduce not in _REDUCE_UFUNCS:
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or "
                           f"amin but got {reduce}.")
    dim = _wrap_dim(dim, input.dim())
    _check_index_source("index_reduce_", input, dim, index, source)
    rest = [s for d, s in enumerate(input.shape) if d != dim]
    if input.dim() != source.dim() or rest != [s for d, s in enumerate(source.shape) if d != dim]:
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the "
                           f"specified dimension. Got self.shape = {list(input.shape)} "
                           f"source.shape = {list(source.shape)}")
    idx = index._data.reshape(-1)
    size = input.shape[dim] if input.dim() else 1
    if ((idx < 0) | (idx >= size)).any():
        raise IndexError("index out of range in self")
    return {"dim": dim, "reduce": reduce, "include_self": include_self}


@public("function", "method", signatures=(
    "index_reduce(Tensor input, int64_t dim, Tensor index, Tensor source, "
    "c10::string_view reduce, *, bool include_self=True, Tensor out=None)",))
def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    return _index_reduce(input, index, source,
                         **_index_reduce_args(input, dim, index, source, reduce, include_self))


@public("method", method_signatures=(
    "index_reduce_(Tensor self, int64_t dim, Tensor index, Tensor source, "
    "c10::string_view reduce, *, bool include_self=True)",))
def index_reduce_(input, dim, index, source, reduce, *, include_self=True):
    return apply_inplace(_index_reduce, input, (input, index, source),
                         _index_reduce_args(input, dim, index, source, reduce, include_self))


@public("function", "method", signatures=(
    "nonzero(Tensor input, *, bool as_tuple=False, Tensor out=None)",), method_signatures=(
    "nonzero(Tensor self)", "nonzero(Tensor self, *, bool as_tuple)"))
def nonzero(input, *, as_tuple=False):
    if state.vmap is not None:      # func.vmap: torch cannot batch a data-dependent shape
        state.vmap.refuse("nonzero_numpy" if as_tuple else "nonzero", input)
    data = input._data
    if as_tuple:
        if data.ndim == 0:
            return (_make(xp.zeros(builtins.int(data != 0), xp.int64)),)
        return _nonzero(input).unbind(1)
    return _nonzero(input)


def _nonzero(input):
    data = input._data
    found = xp.argwhere(data) if data.ndim else xp.zeros((builtins.int(data != 0), 0), int)
    out = _strided(found.shape, (1, found.shape[0]), xp.int64)    # column-major, like torch
    out[...] = found
    return Tensor._make(out)


@public("function", "method", signatures=(
    "argwhere(Tensor input)",))
def argwhere(input):
    return _nonzero(input)      # (torch's vmap runs argwhere per example too)


# rows and @public objects name themselves (glassgrad.ops.publish)
# -- Tensor.index: functorch.dim's positional form ----------------------------------------------
def _index_dim(d, ndim):
    """A position as functorch.dim reads it: an int, counted from the end (n >= ndim wraps
    around, below -ndim names no dim: None)."""
    if type(d) is not int:
        _refuse_first_class(d)
        raise TypeError(f"expected a dimension specifyer but found {d!r}")
    if d >= 0:
        return d % ndim if ndim else None
    return d + ndim if d >= -ndim else None


def _refuse_first_class(v):
    if type(v).__module__.startswith("functorch.dim"):
        raise NotImplementedError("Tensor.index: first-class dimensions (functorch.dim's Dim) "
                                  "are not in glassgrad; index with positions and indices")


@public("method", name="index")
def _index_positions(self, positions, dims):
    """Tensor.index as torch 2.13's (functorch.dim's ``index``) for positional dims: the dims
    ``positions`` (one, or a sequence; an inner sequence of several dims flattens them into
    the first, in the order given) indexed by ``dims`` (ints, slices, None, ..., sequences,
    tensors), the other dims whole: ``x.index(1, 2)`` is ``x[:, 2]``. functorch.dim's Dim
    objects are refused (NotImplementedError): glassgrad has no first-class dimensions."""
    keys, values = positions, dims
    if isinstance(keys, (tuple, list)) and isinstance(values, (tuple, list)):
        if len(keys) != len(values):
            raise TypeError(f"dims ({len(keys)}) and indices ({len(values)}) must have the "
                            "same length")
        keys, values = list(keys), list(values)
    else:
        keys, values = [keys], [values]
    ndim, x = self.dim(), self
    labels, flat_keys = list(range(ndim)), []     # labels: the original dim of each dim of x
    for key in keys:
        if not isinstance(key, (tuple, list)):
            flat_keys.append(_index_dim(key, ndim))
        elif not key:
            flat_keys.append(None)
        else:
            x, labels = _flatten_dims(x, labels, [_index_dim(k, ndim) for k in key], ndim)
            flat_keys.append(_index_dim(key[0], ndim))
    index_of = {}
    for key, value in zip(flat_keys, values):
        for v in (value if isinstance(value, (tuple, list)) else [value]):
            _refuse_first_class(v)
        if key is not None and key in labels and key not in index_of:
            index_of[key] = list(value) if isinstance(value, tuple) else value
    if all(isinstance(v, slice) and v == slice(None) for v in index_of.values()):
        return x        # (whole dims: no indexing, the tensor itself or its flattened view)
    return x[tuple(index_of.get(d, slice(None)) for d in labels)]


def _flatten_dims(x, labels, pack, ndim):
    """x with the dims ``pack`` names moved after its first and merged into it (functorch.dim's
    dim pack); the labels of the result's dims."""
    first, rest = pack[0], pack[1:]
    kept = list(labels)
    for d in rest:
        if d not in kept:
            raise TypeError(f"dimension {d} not in tensor of {ndim} dimensions")
        kept.remove(d)
    if first not in kept:
        raise TypeError(f"dimension {first} not in tensor of {ndim} dimensions")
    at = kept.index(first) + 1
    order = kept[:at] + rest + kept[at:]
    sizes = [x.shape[labels.index(d)] for d in order]
    merged = 1
    for size in sizes[at - 1:at + len(rest)]:
        merged *= size
    x = x.permute([labels.index(d) for d in order])
    return x.reshape(sizes[:at - 1] + [merged] + sizes[at + len(rest):]), kept


_index_positions.__name__, _index_positions.__qualname__ = "index", "Tensor.index"


publish(globals())
