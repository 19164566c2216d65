"""Shape ops (views share data and the version counter), clone, casts and basic indexing."""
import builtins
import itertools
import math
import warnings

from .. import _device, _runtime, dtypes
from .._formats import contiguous_format, preserve_format
from .._args import Parser as _Parser, bind as _bind, type_name as _type_name
from .._creation import uninitialized, zeros
from .._storage import TypedStorage, UntypedStorage, storage_of
from .._tensor import Tensor, _wrap_dim, _wrap_dims
from .._autograd.grad_mode import state
from ..backend import backend_of, xp
from . import public, publish
from .registry import _SCALAR_NAMES, TABLE, broadcast_shapes, bump, check_inplace, defop
from .reduce import sum_to

_INT64_MAX = 9223372036854775807


def _view_forward(xp, self, size):
    try:
        out = xp.reshape(self, size, copy=False)
    except ValueError:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
        ) from None
    if 1 in out.shape and out.size:     # a size-1 dim's stride is free: torch's is its own
        strides = _view_strides(self.shape, self.strides, out.shape, out.itemsize)
        if strides != out.strides:
            out = backend_of(out).as_strided(out, out.shape, strides)
    return out


def _view_strides(old_shape, old_strides, new_shape, itemsize):
    """The strides torch's view gives (ATen's computeStride): the new dims laid over each
    chunk of the old ones that is contiguous in memory, from the chunk's innermost stride."""
    new = [0] * len(new_shape)
    d = len(new_shape) - 1
    base = old_strides[-1] if old_strides else itemsize
    old_numel = new_numel = 1
    for k in range(len(old_shape) - 1, -1, -1):
        old_numel *= old_shape[k]
        if k == 0 or (old_shape[k - 1] != 1 and old_strides[k - 1] != old_numel * base):
            while d >= 0 and (new_numel < old_numel or new_shape[d] == 1):
                new[d] = new_numel * base
                new_numel *= new_shape[d]
                d -= 1
            if k > 0:
                base, old_numel, new_numel = old_strides[k - 1], 1, 1
    while d >= 0:       # (a 0-d input: the new dims are all of size 1)
        new[d] = new_numel * base
        d -= 1
    return tuple(new)


# arrays=True: these formulas also run on NumPy arrays (grad mode off, see defop)
_view = defop("ViewBackward0", _view_forward, dtype="same", view=True, arrays=True,
              grads={"self": lambda grad, self_sym_sizes: grad.reshape(self_sym_sizes)})
_reshape_alias = defop("ReshapeAliasBackward0", _view_forward, dtype="same", view=True,
                       grads={"self": lambda grad, self_sym_sizes: grad.reshape(self_sym_sizes)},
                       arrays=True)
# shares the data as view does (and refuses what view refuses), but is no view for autograd
_unsafe_view = defop("UnsafeViewBackward0", _view_forward, dtype="same", arrays=True,
                     grads={"self": lambda grad, self_sym_sizes: grad.reshape(self_sym_sizes)})
# order "C" (torch's contiguous_format: contiguous(), reshape's copy), or "K" (clone's
# preserve_format: a dense tensor keeps its strides, others their order)
_clone = defop("CloneBackward0", lambda xp, self, order="C": self.copy(order=order),
               dtype="same", grads={"self": lambda grad: grad}, arrays=True)
_alias = defop("AliasBackward0", lambda xp, self: self.view(), dtype="same", view=True,
               grads={"self": lambda grad: grad})
_t = defop("TBackward0", lambda xp, self: self.T, dtype="same", view=True, arrays=True,
           grads={"self": lambda grad: _t.call(grad)})
_transpose = defop("TransposeBackward0", lambda xp, self, dim0, dim1: xp.swapaxes(self, dim0, dim1)
                   if self.ndim else self.view(),
                   dtype="same", view=True, arrays=True,
                   grads={"self": lambda grad, dim0, dim1: _transpose.call(grad, dim0=dim0,
                                                                          dim1=dim1)})
_permute = defop("PermuteBackward0", lambda xp, self, dims: xp.transpose(self, dims), dtype="same",
                 view=True, grads={"self": lambda grad, dims: grad.permute(
                     tuple(sorted(range(len(dims)), key=dims.__getitem__)))})
def _unsqueezed(xp, a, dim):
    """a with a new size-1 dim at ``dim``, whose stride is torch's (the next dim's extent, or
    one element at the end)."""
    out = xp.expand_dims(a, dim)
    step = a.shape[dim] * a.strides[dim] if dim < a.ndim else a.itemsize
    if out.strides[dim] != step:
        out = backend_of(out).as_strided(out, out.shape, (*a.strides[:dim], step,
                                                          *a.strides[dim:]))
    return out


_unsqueeze = defop("UnsqueezeBackward0", _unsqueezed,
                   dtype="same", view=True, grads={"self": lambda grad, dim: grad.squeeze(dim)})


def _unsqueeze_to(grad, dims, sizes):
    for d in sorted(dims) if sizes else ():     # (a 0-d input's grad is 0-d)
        if sizes[d] == 1:
            grad = grad.unsqueeze(d)
    return grad


_squeeze_all = defop("SqueezeBackward0", "squeeze", dtype="same", view=True,
                     grads={"self": lambda grad, self_sym_sizes: grad.reshape(self_sym_sizes)})
def _squeezed(xp, a, dims):
    """``a`` without those of ``dims`` that have size 1 (a 0-d array as it is: torch wraps dim
    0 of a scalar)."""
    return xp.squeeze(a, tuple(d for d in dims if a.shape[d] == 1)) if a.ndim else a.view()


_squeeze_dim = defop(
    "SqueezeBackward1", lambda xp, self, dim: _squeezed(xp, self, (dim,)), dtype="same", view=True,
    grads={"self": lambda grad, dim, self_sym_sizes: _unsqueeze_to(grad, (dim,), self_sym_sizes)})
_squeeze_dims = defop(
    "SqueezeBackward2", lambda xp, self, dim: _squeezed(xp, self, dim), dtype="same", view=True,
    grads={"self": lambda grad, dim, self_sym_sizes: _unsqueeze_to(grad, dim, self_sym_sizes)})
# the in-place view ops (t_, transpose_, unsqueeze_, squeeze_) record their own nodes; matmul's
# vector @ matrix squeezes its fresh mm result in place (squeeze_), hence SqueezeBackward4 there
_t_ = defop("TBackward1", lambda xp, self: self.T, dtype="same",
            grads={"self": lambda grad: grad.t()})
_transpose_ = defop("TransposeBackward1", lambda xp, self, dim0, dim1: xp.swapaxes(self, dim0,
                    dim1),
                    dtype="same",
                    grads={"self": lambda grad, dim0, dim1: grad.transpose(dim0, dim1)})
_unsqueeze_ = defop("UnsqueezeBackward1", _unsqueezed,
                    dtype="same", grads={"self": lambda grad, dim: grad.squeeze(dim)})
_squeeze_all_ = defop("SqueezeBackward3", "squeeze", dtype="same",
                      grads={"self": lambda grad, self_sym_sizes: grad.reshape(self_sym_sizes)})
_squeeze_result = defop(
    "SqueezeBackward4", lambda xp, self, dim: _squeezed(xp, self, (dim,)), dtype="same",
    grads={"self": lambda grad, dim, self_sym_sizes: _unsqueeze_to(grad, (dim,), self_sym_sizes)})
_squeeze_dims_ = defop(
    "SqueezeBackward5", lambda xp, self, dim: _squeezed(xp, self, dim), dtype="same",
    grads={"self": lambda grad, dim, self_sym_sizes: _unsqueeze_to(grad, dim, self_sym_sizes)})


def _expand_forward(xp, self, size):
    """broadcast_to, but a kept dim keeps its stride (NumPy zeroes it for size-1 dims)."""
    if tuple(size) == self.shape:       # nothing to expand: a plain view (as_strided is slow)
        return self.view()
    lead = len(size) - self.ndim
    strides = (0,) * lead + tuple(st if n == s else 0 for st, n, s in
                                  zip(self.strides, self.shape, size[lead:]))
    # writeable like torch's expand: fill_/zero_ may write through it, other in-place ops refuse
    return backend_of(self).as_strided(self, size, strides)


_expand = defop("ExpandBackward0", _expand_forward, dtype="same", view=True, arrays=True,
                grads={"self": lambda grad, self_sym_sizes: sum_to(grad, self_sym_sizes)})
_to_copy = defop("ToCopyBackward0", lambda xp, self, dtype: self.astype(dtype.np), dtype="same",
                 grads={"self": lambda grad: grad})   # the engine casts back to self's dtype


def _index(dim, item):
    """The NumPy index of ``item`` at ``dim``; the trailing ... keeps a 0-d result a view."""
    return (builtins.slice(None),) * dim + (item, Ellipsis)


def _select_backward_forward(xp, grad_output, input_sizes, dim, index):
    out = xp.zeros(input_sizes, grad_output.dtype)
    out[_index(dim, index)] = grad_output
    return out


def _slice_backward_forward(xp, grad_output, input_sizes, dim, start, end, step):
    out = xp.zeros(input_sizes, grad_output.dtype)
    out[_index(dim, builtins.slice(start, end, step))] = grad_output
    return out


_select_backward = defop(
    "SelectBackwardBackward0", _select_backward_forward, ("grad_output",), dtype="same",
    grads={"grad_output": lambda grad, dim, index: grad.select(dim, index)})
_slice_backward = defop(
    "SliceBackwardBackward0", _slice_backward_forward, ("grad_output",), dtype="same",
    grads={"grad_output": lambda grad, dim, start, end, step: _slice(grad, dim, start, end, step)})
_select = defop(
    "SelectBackward0", lambda xp, self, dim, index: self[_index(dim, index)], dtype="same",
    view=True, grads={"self": lambda grad, self_sym_sizes, dim, index: _select_backward(
        grad, input_sizes=self_sym_sizes, dim=dim, index=index)})
_slice_op = defop(
    "SliceBackward0", lambda xp, self, dim, start, end, step:
    self[_index(dim, builtins.slice(start, end, step))], dtype="same", view=True,
    grads={"self": lambda grad, self_sym_sizes, dim, start, end, step: _slice_backward(
        grad, input_sizes=self_sym_sizes, dim=dim, start=start, end=end, step=step)})


# -- a view's region inside its base (CopySlices and regenerated AsStridedBackward0) ----------
# geom: (base shape, base strides, view shape, view strides, view offset), in elements
def _geom_buffer(geom, dtype, fill=None):
    """A zero buffer laid out like the base: (buffer, index of the base's first element)."""
    shape, strides = geom[0], geom[1]
    lo = hi = 0
    for n, st in zip(shape, strides):
        if n == 0:
            lo = hi = 0
            break
        if st < 0:
            lo += (n - 1) * st
        else:
            hi += (n - 1) * st
    buf = xp.zeros(hi - lo + 1, dtype)
    if fill is not None:
        _strided(buf, -lo, shape, strides)[...] = fill
    return buf, -lo


def _strided(buf, start, shape, strides):
    it = buf.itemsize
    return backend_of(buf).as_strided(buf[start:], shape, tuple(st * it for st in strides))


def _gather_forward(xp, self, geom):
    buf, at = _geom_buffer(geom, self.dtype, self)
    return _strided(buf, at + geom[4], geom[2], geom[3]).copy()


def _scatter_forward(xp, self, geom):
    buf, at = _geom_buffer(geom, self.dtype)
    shape, strides = geom[2], geom[3]
    if _may_overlap(shape, strides):    # elements that share memory: accumulate
        idx = _strided(xp.arange(buf.size), at + geom[4], shape, strides)
        xp.add.at(buf, idx, xp.broadcast_to(self, shape))
    else:
        _strided(buf, at + geom[4], shape, strides)[...] = self
    return _strided(buf, at, geom[0], geom[1]).copy()


def _may_overlap(shape, strides):
    """Whether two elements of the layout may share memory (False is certain): each dim's
    stride, smallest first, must pass the extent of the dims below it."""
    extent = 0
    for st, n in sorted((abs(st), n) for n, st in zip(shape, strides) if n > 1):
        if st <= extent:
            return True
        extent += st * (n - 1)
    return False


def _zero_forward(xp, self, geom):
    buf, at = _geom_buffer(geom, self.dtype, self)
    _strided(buf, at + geom[4], geom[2], geom[3])[...] = 0
    return _strided(buf, at, geom[0], geom[1]).copy()


as_strided_gather = defop("AsStridedBackward0", _gather_forward, dtype="same",
                          grads={"self": lambda grad, geom: as_strided_scatter(grad, geom=geom)})
as_strided_scatter = defop("AsStridedScatterBackward0", _scatter_forward, dtype="same",
                           grads={"self": lambda grad, geom: as_strided_gather(grad, geom=geom)})
as_strided_zero = defop("AsStridedZeroBackward0", _zero_forward, dtype="same",
                        grads={"self": lambda grad, geom: as_strided_zero(grad, geom=geom)})
for _op in (as_strided_gather, as_strided_scatter, as_strided_zero):
    TABLE.remove(_op)       # engine internals, not public ops (docs/ops.md lists the table)


# -- as_strided, unfold, view(dtype): new layouts of the same memory -------------------------
def _storage_view(a, size, stride, offset):
    """a's storage seen with element ``size``, ``stride`` and ``offset`` (in a's dtype)."""
    storage = storage_of(a)[0]
    return backend_of(a).typed_view(storage.span, a.dtype, offset, size, stride)


def _as_strided_grad(grad, geoms):
    # the gradient laid into the storage (summed where the view's elements overlap), then
    # read back at the input's elements: storage the input does not cover gets none
    return as_strided_gather(as_strided_scatter(grad, geom=geoms[0]), geom=geoms[1])


_as_strided = defop("AsStridedBackward0", lambda xp, self, size, stride, storage_offset, geoms:
                    _storage_view(self, size, stride, storage_offset), dtype="same", view=True,
                    grads={"self": _as_strided_grad})


def _check_as_strided(input, size, stride, offset):
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(st < 0 for st in stride):
        raise RuntimeError("as_strided: Negative strides are not supported at the moment, got "
                           f"strides: {list(stride)}")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    itemsize = input.element_size()
    need = 0 if 0 in size else itemsize * (
        offset + 1 + builtins.sum(st * (n - 1) for n, st in zip(size, stride)))
    nbytes = input.untyped_storage().nbytes()
    if need > nbytes:
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, "
            f"and itemsize {itemsize} requiring a storage size of {need} are out of bounds for "
            f"storage of size {nbytes}")
    return nbytes // itemsize


@public("function", "method", signatures=(
    "as_strided(Tensor input, SymIntArrayRef size, SymIntArrayRef stride, "
    "SymInt? storage_offset=None)",))
def as_strided(input, size, stride, storage_offset=None):
    size, stride = tuple(size), tuple(stride)
    offset = input.storage_offset() if storage_offset is None else storage_offset
    numel = _check_as_strided(input, size, stride, offset)
    whole = ((numel,), (1,))
    geoms = ((*whole, size, stride, offset),
             (*whole, tuple(input.shape), input.stride(), input.storage_offset()))
    return _as_strided(input, size=size, stride=stride, storage_offset=offset, geoms=geoms)


@public("function", "method", signatures=(
    "as_strided_(Tensor input, SymIntArrayRef size, SymIntArrayRef stride, "
    "SymInt? storage_offset=None)",))
def as_strided_(input, size, stride, storage_offset=None):
    """The tensor itself, given the new layout (its version bumped, as torch's)."""
    size, stride = tuple(size), tuple(stride)
    offset = input.storage_offset() if storage_offset is None else storage_offset
    _check_as_strided(input, size, stride, offset)
    if input.requires_grad and state.grad:
        raise NotImplementedError("as_strided_ on a tensor that requires grad is not supported "
                                  "by glassgrad")
    input._data = _storage_view(input._data, size, stride, offset)
    bump(input, "as_strided_", None)
    return input


# -- resize_, set_: a tensor given another layout or another storage in place ----------------
def _contiguous_strides(size):
    strides, step = [], 1
    for n in reversed(size):
        strides.insert(0, step)
        step *= builtins.max(n, 1)
    return tuple(strides)


def _relayout(input, storage, offset, size, stride):
    """input made to view storage with the given layout (its version bumped, as torch's)."""
    input._data = backend_of(storage.span).typed_view(storage.span, input._data.dtype, offset,
                                                      size, stride)
    bump(input, "set_", None)
    return input


def _check_resizable(input, name):
    if input.requires_grad:
        if input.grad_fn is None or name == "resize_":
            raise RuntimeError("cannot resize variables that require grad" if name == "resize_"
                               else "a leaf Variable that requires grad is being used in an "
                               "in-place operation.")
        raise NotImplementedError(f"{name} on a tensor that requires grad: glassgrad has no "
                                  "node for it (torch's is NotImplemented)")


@public("method", method_signatures=(
    "resize_(Tensor self, SymIntArrayRef size, *, MemoryFormat? memory_format=None)",))
def resize_(input, size, *, memory_format=None):
    """The tensor given ``size`` in place: contiguous over its storage from its offset; a
    storage too small grows (the new tensor alone sees the larger copy: a NumPy buffer cannot
    grow in place under the other tensors on it; the new elements uninitialized)."""
    _check_resizable(input, "resize_")
    if memory_format not in (None, contiguous_format):
        raise NotImplementedError(f"resize_ with memory_format={memory_format}: glassgrad lays "
                                  "tensors out contiguously only")
    size = tuple(builtins.int(n) for n in size)
    if builtins.any(n < 0 for n in size):
        raise RuntimeError("numel: integer multiplication overflow")
    if size == tuple(input.shape):
        return input
    storage, offset = input.untyped_storage(), input.storage_offset()
    item = input._data.itemsize
    need = (offset + math.prod(size)) * item if math.prod(size) else 0
    if need > storage.nbytes():
        span = backend_of(storage.span).empty_bytes(need)
        span[:storage.nbytes()] = storage.span
        uninitialized(span[storage.nbytes() - storage.nbytes() % item:].view(input._data.dtype))
        storage = UntypedStorage.from_bytes_array(span)
    return _relayout(input, storage, offset, size, _contiguous_strides(size))


@public("function", "method", signatures=(
    "resize_as_(Tensor input, Tensor the_template, *, MemoryFormat? memory_format=None)",))
def resize_as_(input, the_template, *, memory_format=None):
    return resize_(input, the_template.shape, memory_format=memory_format)


@public("method")
def set_(input, *args, **kwargs):
    """Tensor.set_ (its Storage overloads parsed here: the argument layer has no Storage)."""
    names = ("source", "storage_offset", "size", "stride")
    values = dict(zip(names, args), **kwargs)
    source = values.get("source")
    ok = (len(args) <= 4 and set(kwargs) <= set(names) and
          (source is None or isinstance(source, (Tensor, UntypedStorage, TypedStorage))) and
          ("storage_offset" in values) == ("size" in values))
    if not ok:
        got = ", ".join("torch.storage.UntypedStorage" if isinstance(a, UntypedStorage)
                        else _type_name(a) for a in args)
        raise TypeError(f"set_() received an invalid combination of arguments - got ({got}), "
                        "but expected one of:\n * ()\n * (torch.Storage source)\n * "
                        "(torch.Storage source, int storage_offset, tuple of ints size, tuple of "
                        "ints stride = None)\n * (Tensor source)\n * (Tensor source, int "
                        "storage_offset, tuple of ints size, tuple of ints stride = None)\n")
    return _set(input, **values)


def _set(input, source=None, storage_offset=None, size=None, stride=None):
    """Tensor.set_: the tensor made to view source (a tensor's storage and layout, or a
    storage with the given offset, size and stride), or nothing."""
    _check_resizable(input, "set_")
    if isinstance(source, Tensor):
        if source.dtype is not input.dtype:
            raise RuntimeError(f"Could not set tensor of type {_CPP_TYPES[source.dtype.name]} "
                               f"to a tensor of type {_CPP_TYPES[input.dtype.name]}")
        if source.requires_grad:
            raise NotImplementedError("set_ from a tensor that requires grad: glassgrad has no "
                                      "node for it (torch's is NotImplemented)")
        if storage_offset is None:
            return _relayout(input, source.untyped_storage(), source.storage_offset(),
                             tuple(source.shape), source.stride())
        source = source.untyped_storage()
    if isinstance(source, TypedStorage):
        if source.dtype is not input.dtype:
            raise RuntimeError(f"Expected a Storage of type {_CPP_TYPES[input.dtype.name]} or an "
                               f"UntypedStorage, but got type "
                               f"{_SCALAR_NAMES[source.dtype.name]} for argument 1 'storage'")
        source = source.untyped()
    if source is None:
        storage = UntypedStorage(0)
        return _relayout(input, storage, 0, (0,), (1,))
    item = input._data.itemsize
    if storage_offset is None:
        return _relayout(input, source, 0, (source.nbytes() // item,), (1,))
    size = tuple(size)
    stride = _contiguous_strides(size) if stride is None else tuple(stride)
    need = 0 if 0 in size else (storage_offset + 1 + builtins.sum(
        (n - 1) * st for n, st in zip(size, stride))) * item
    if need > source.nbytes():
        raise NotImplementedError("set_ past the end of the storage: torch grows the storage "
                                  "in place, which glassgrad cannot")
    return _relayout(input, source, storage_offset, size, stride)


_CPP_TYPES = {"float32": "float", "float64": "double", "float16": "c10::Half",
              "bfloat16": "c10::BFloat16", "int64": "long int", "int32": "int",
              "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
              "bool": "bool", "complex64": "c10::complex<float>",
              "complex128": "c10::complex<double>"}


def _unfold_forward(xp, self, dimension, size, step):
    if self.ndim == 0:
        return self.reshape(1)[:size]
    shape, strides = list(self.shape), list(self.strides)
    shape[dimension] = (shape[dimension] - size) // step + 1
    strides[dimension] *= step
    return backend_of(self).as_strided(self, (*shape, size), (*strides, self.strides[dimension]))


def _unfold_backward_forward(xp, grad, input_sizes, dimension, size, step):
    """The windows' gradients summed back into the input's shape (one strided add per window
    position: windows overlap when step < size)."""
    out = xp.zeros(input_sizes, grad.dtype)
    if not input_sizes:
        out[...] = grad.sum()
        return out
    windows = _unfold_forward(xp, out, dimension, size, step)
    for k in range(size):
        windows[..., k] += grad[..., k]     # window k's elements are distinct
    return out


_unfold_backward = defop(
    "UnfoldBackwardBackward0", _unfold_backward_forward, ("grad",), dtype="same",
    grads={"grad": lambda grad, dimension, size, step: unfold(grad, dimension, size, step)})
_unfold = defop("UnfoldBackward0", _unfold_forward, dtype="same", view=True,
                grads={"self": lambda grad, self_sym_sizes, dimension, size, step:
                       _unfold_backward(grad, input_sizes=self_sym_sizes, dimension=dimension,
                                        size=size, step=step)})


@public("method", method_signatures=(
    "unfold(Tensor self, int64_t dimension, int64_t size, int64_t step)",))
def unfold(self, dimension, size, step):
    dim = _wrap_dim(dimension, self.dim())
    extent = self.shape[dim] if self.dim() else 1
    if size > extent:
        raise RuntimeError(f"maximum size for tensor at dimension {dim} is {extent} but size is "
                           f"{size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    return _unfold(self, dimension=dim, size=size, step=step)


_ELEMENT_SIZE_ERROR = "{} to view {} as {} (different element sizes){}"


def _view_dtype(input, dtype):
    """The bytes of ``input`` read as ``dtype`` (ATen's view.dtype): the last dim scaled by the
    ratio of element sizes; no gradient flows through it, and it is no view for autograd."""
    a, old, new = input._data, input.dtype, dtype
    if old.itemsize != new.itemsize:
        def refuse(what, got=""):
            raise RuntimeError(_ELEMENT_SIZE_ERROR.format(
                what, _SCALAR_NAMES[old.name], _SCALAR_NAMES[new.name], got))
        ratio = builtins.max(old.itemsize, new.itemsize) // builtins.min(old.itemsize,
                                                                          new.itemsize)
        if a.ndim == 0:
            refuse("self.dim() cannot be 0")
        strides = input.stride()
        if old.itemsize < new.itemsize:
            if a.shape[-1] % ratio:
                refuse(f"self.size(-1) must be divisible by {ratio}", f", but got {a.shape[-1]}")
            if input.storage_offset() % ratio:
                refuse(f"self.storage_offset() must be divisible by {ratio}",
                       f", but got {input.storage_offset()}")
            for i, st in enumerate(strides[:-1]):
                if st % ratio:
                    refuse(f"self.stride({i}) must be divisible by {ratio}", f", but got {st}")
        if strides[-1] != 1:
            refuse("self.stride(-1) must be 1", f", but got {strides[-1]}")
    # no view for autograd (torch's _base is None), but one version counter with input
    t = Tensor._make(a.view(dtype.np), counter=input._version_counter)
    t._inference = input._inference
    return t


def _slice(input, dim, start, end, step):
    return _slice_op(input, dim=dim, start=start, end=end, step=step)


# -- public functions ------------------------------------------------------------------------
def _parse_size(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    return tuple(builtins.int(s) for s in size)


def _infer_size(size, numel):
    if not size or min(size) >= 0:      # no size to infer: only the count to check
        if math.prod(size) != numel:
            raise RuntimeError(f"shape '{list(size)}' is invalid for input of size {numel}")
        return size
    for i, s in enumerate(size):
        if s < -1:
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape {list(size)}")
    if size.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for s in size:
        if s != -1:
            known *= s
    if -1 in size:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(size)}' is invalid for input of size {numel}")
        return tuple(numel // known if s == -1 else s for s in size)
    if known != numel:
        raise RuntimeError(f"shape '{list(size)}' is invalid for input of size {numel}")
    return size


@public("method", method_signatures=(
    "view(Tensor self, ScalarType dtype)",
    "view(Tensor self, SymIntArrayRef size)"))
def view(input, size):
    if isinstance(size, dtypes.dtype):
        return _view_dtype(input, size)
    size = _infer_size(_parse_size(size), input.numel())
    return _view(input, size=size)


@public("function", "method", signatures=(
    "reshape(Tensor input, SymIntArrayRef shape)",))
def reshape(input, shape):
    size = _infer_size(_parse_size(shape), input.numel())
    if input._batched or input._data.flags.c_contiguous:   # (func.vmap's rules reshape)
        return _view(input, size=size)
    try:    # a strided view of a non-contiguous tensor (torch's _reshape_alias)
        xp.reshape(input._data, size, copy=False)
    except ValueError:      # not expressible as a view: copy, like torch (Clone + UnsafeView)
        return _unsafe_view(_clone(input), size=size)
    return _reshape_alias(input, size=size)


def _unsafe_view_of(input, size):
    return _unsafe_view(input, size=tuple(size))


@public("function", "method", signatures=(
    "clone(Tensor input, *, MemoryFormat? memory_format=None)",))
def clone(input, *, memory_format=None):
    """A copy laid out as the input (torch.preserve_format), or row-major (contiguous_format)."""
    return _clone(input, order="K" if memory_format in (None, preserve_format) else "C")


@public("method", method_signatures=(
    "contiguous(Tensor self, *, MemoryFormat memory_format=contiguous_format)",))
def contiguous(input, memory_format=None):
    return input if input._data.flags.c_contiguous else _clone(input)


def alias(input):
    return _alias(input)


@public("method")
def as_subclass(self, cls):
    """A ``cls`` tensor on the same memory and in the same graph (torch: an alias of self,
    AliasBackward0 where self requires grad)."""
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError("Creating a Tensor subclass from a class that does not inherit from "
                        "Tensor is not possible. Make sure your class inherits from Tensor.")
    source = _alias(self) if self.requires_grad and state.grad else self.detach()
    t = object.__new__(cls)
    for name in Tensor.__slots__[:-1]:      # all but __weakref__; unset slots stay unset
        if hasattr(source, name):
            setattr(t, name, getattr(source, name))
    return t


@public("function", "method", signatures=(
    "t(Tensor input)",))
def t(input):
    if input.dim() > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is "
                           f"{input.dim()}D")
    return _t(input)


@public("function", "method", signatures=(
    "transpose(Tensor input, int64_t dim0, int64_t dim1)",))
def transpose(input, dim0, dim1):
    n = input.dim()
    return _transpose(input, dim0=_wrap_dim(dim0, n), dim1=_wrap_dim(dim1, n))


@public("function", "method", signatures=(
    "permute(Tensor input, IntArrayRef dims)",))
def permute(input, dims):
    dims = tuple(_wrap_dim(d, input.dim()) for d in _parse_size(dims))
    if len(dims) != input.dim():
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does "
                           f"not match the length of the desired ordering of dimensions i.e. "
                           f"input.dim() = {input.dim()} is not equal to len(dims) = {len(dims)}")
    if len(set(dims)) != len(dims):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return _permute(input, dims=dims)


@public("function", "method", signatures=(
    "unsqueeze(Tensor input, int64_t dim)",))
def unsqueeze(input, dim):
    return _unsqueeze(input, dim=_wrap_dim(dim, input.dim() + 1))


@public("function", "method", signatures=(
    "squeeze(Tensor input)",
    "squeeze(Tensor input, int64_t dim)",
    "squeeze(Tensor input, IntArrayRef dim)"))
def squeeze(input, dim=None):
    if dim is None:
        return _squeeze_all(input)
    if isinstance(dim, (tuple, list)):
        return _squeeze_dims(input, dim=_wrap_dims(dim, input.dim()))
    return _squeeze_dim(input, dim=_wrap_dim(dim, input.dim()))


def _view_inplace(op, self, **attrs):
    """An in-place view op: ``self`` takes the new geometry of its own data; as in torch the
    version moves and, when recording, history gains the op's node (views stay views)."""
    check_inplace(self)
    if state.on_mutate is not None:     # allow_mutation_on_saved_tensors
        state.on_mutate(self)
    new = op.kernel((self._data,))(self._data, **attrs)
    node = None
    if state.grad and self.requires_grad:
        shaped = Tensor._make(new)      # carries the new geometry into the node's metadata
        node = op.attach((shaped,), (self,), attrs, [True])
    self._data = new
    bump(self, op.name, None)
    if node is not None:
        self.grad_fn, self._output_nr = node, 0
    if state.handler is not None:   # forward AD: the tangent takes the new geometry too
        state.handler.handle_view_inplace(op, self, attrs)
    return self


@public("method", method_signatures=(
    "t_(Tensor self)",))
def t_(input):
    check_inplace(input)        # torch refuses a leaf before it looks at the shape
    if input.dim() > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is "
                           f"{input.dim()}D")
    return _view_inplace(_t_, input)


@public("method", aliases=("swapdims_",), method_signatures=(
    "transpose_(Tensor self, int64_t dim0, int64_t dim1)",))
def transpose_(input, dim0, dim1):
    n = input.dim()
    return _view_inplace(_transpose_, input, dim0=_wrap_dim(dim0, n), dim1=_wrap_dim(dim1, n))


public("method", name="swapaxes_", method_signatures=(
    "swapaxes_(Tensor self, int64_t axis0, int64_t axis1)",))(
    lambda input, axis0, axis1: transpose_(input, axis0, axis1))


@public("method", method_signatures=(
    "unsqueeze_(Tensor self, int64_t dim)",))
def unsqueeze_(input, dim):
    return _view_inplace(_unsqueeze_, input, dim=_wrap_dim(dim, input.dim() + 1))


@public("method", method_signatures=(
    "squeeze_(Tensor self)",
    "squeeze_(Tensor self, int64_t dim)",
    "squeeze_(Tensor self, IntArrayRef dim)"))
def squeeze_(input, dim=None):
    if dim is None:
        return _view_inplace(_squeeze_all_, input)
    if isinstance(dim, (tuple, list)):
        return _view_inplace(_squeeze_dims_, input, dim=_wrap_dims(dim, input.dim()))
    return _view_inplace(_squeeze_result, input, dim=_wrap_dim(dim, input.dim()))


@public("method", method_signatures=(
    "expand(Tensor self, SymIntArrayRef size, *, bool implicit=False)",))
def expand(input, sizes, *, implicit=False):
    return _expand(input, size=expanded_size(input, _parse_size(sizes)))


def expanded_size(input, sizes):
    """The size ``input`` expands to (-1 keeps a dim), or torch's expand error: the check
    alone, for ops that broadcast an operand without a view (addmm's bias)."""
    shape = input.shape
    if sizes == shape:      # (a shape has no -1 and no negative size)
        return tuple(sizes)
    if len(sizes) < len(shape):
        raise RuntimeError(f"expand(torch.{input.dtype.tensor_type}{{{list(shape)}}}, "
                           f"size={list(sizes)}): the number of sizes provided ({len(sizes)}) "
                           f"must be greater or equal to the number of dimensions in the tensor "
                           f"({len(shape)})")
    lead = len(sizes) - len(shape)
    out = list(sizes)
    for i, s in enumerate(shape):
        want = sizes[lead + i]
        if want == -1:
            out[lead + i] = s
        elif s != 1 and s != want:
            raise RuntimeError(
                f"The expanded size of the tensor ({want}) must match the existing size ({s}) at "
                f"non-singleton dimension {lead + i}.  Target sizes: {list(sizes)}.  Tensor "
                f"sizes: {list(shape)}")
    for i in range(lead):
        if sizes[i] == -1:
            raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a "
                               f"leading, non-existing dimension {i}")
    if any(s < 0 for s in out):     # (torch's numel check meets the negative size first)
        raise RuntimeError("numel: integer multiplication overflow")
    return tuple(out)


@public("function", "method", method_signatures=(
    "expand_as(Tensor self, Tensor other)",))
def expand_as(input, other):
    return expand(input, other.shape)


def to_dtype(input, dtype):
    return input if input.dtype is dtype else _to_copy(input, dtype=dtype)


_TO = _Parser([f"to(Tensor input, {s}, *, MemoryFormat? memory_format=None)" for s in (
    "Device? device=None, ScalarType? dtype=None, bool non_blocking=False, bool copy=False",
    "ScalarType dtype, bool non_blocking=False, bool copy=False",
    "Tensor tensor, bool non_blocking=False, bool copy=False")], method=True)


@public("method", name="to")
def _to(self, *args, **kwargs):
    """to(device, dtype), to(dtype), to(other): a copy (ToCopyBackward0) when the dtype changes
    or copy=True, else self. Devices other than the CPU raise as PyTorch's CPU build does."""
    if not kwargs and len(args) == 1:       # the common calls: to(dtype), to('cpu')
        if type(args[0]) is dtypes.dtype:
            return to_dtype(self, args[0])
        if type(args[0]) is str and _device.as_device(args[0]) is _device.CPU:
            return self
    bound = _TO.parse(args, kwargs)
    dtype, device = bound.get("dtype"), bound.get("device")
    if "tensor" in bound:       # a tensor, or a Python float or bool (a wrapped number)
        other = bound["tensor"]
        dtype, device = (other.dtype, other.device) if isinstance(other, Tensor) else \
            (dtypes.scalar_dtype(other) if type(other) is builtins.bool else dtypes.float64, None)
    if device is not None:
        device = _device.as_device(device)
        if device.type != "cpu":
            _device.unavailable(device)
    dtype = dtype or self.dtype
    # a device with an index is not the tensor's (index-less) cpu device: torch copies
    if dtype is self.dtype and not bound.get("copy") and (device is None or device.index is None):
        return self
    return _to_copy(self, dtype=dtype)


@public("method", method_signatures=(
    "cpu(Tensor self, *, MemoryFormat? memory_format=None)",))
def cpu(self, memory_format=None):
    return self


@public("method")
def cuda(self, device=None, non_blocking=False, memory_format=None):
    if device is not None and _device.as_device(device).type != "cuda":
        raise RuntimeError("Invalid device, must be cuda device")
    raise AssertionError("Torch not compiled with CUDA enabled")


public("method", name="type_as", method_signatures=("type_as(Tensor self, Tensor other)",))(lambda self, other: _to(self, other.dtype))
for _name, _d in (("float", dtypes.float32), ("double", dtypes.float64),
                  ("half", dtypes.float16), ("bfloat16", dtypes.bfloat16), ("long", dtypes.int64),
                  ("int", dtypes.int32),
                  ("short", dtypes.int16), ("char", dtypes.int8), ("byte", dtypes.uint8),
                  ("bool", dtypes.bool), ("cfloat", dtypes.complex64),
                  ("cdouble", dtypes.complex128)):
    public("method", name=_name, method_signatures=(
        f"{_name}(Tensor self, *, MemoryFormat? memory_format=None)",))(
        lambda self, memory_format=None, _d=_d: to_dtype(self, _d))
del _name, _d


@public("method", method_signatures=("chalf(Tensor self, *, MemoryFormat? memory_format=None)",))
def chalf(self, memory_format=None):
    """Tensor.chalf: torch.complex32, which glassgrad lacks (NumPy has no half-precision
    complex): the NotImplementedError torch raises for an op ComplexHalf does not support."""
    raise NotImplementedError("\"chalf\" not implemented for 'ComplexHalf': glassgrad has no "
                              "complex32 (NumPy has no half-precision complex)")

# Tensor's own methods, behind torch's signatures (so bad arguments get torch's errors)
for _name, _signature in (("size", "size(Tensor self, int64_t? dim=None)"),
                          ("stride", "stride(Tensor self, int64_t? dim=None)"),
                          ("requires_grad_",
                           "requires_grad_(Tensor self, bool requires_grad=True)"),
                          ("numpy", "numpy(Tensor self, *, bool force=False)"),
                          ("is_contiguous", "is_contiguous(Tensor self, *, "
                                            "MemoryFormat memory_format=contiguous_format)")):
    public("method", name=_name, method_signatures=(_signature,))(getattr(Tensor, _name))
del _name, _signature


@public("function", "method", signatures=(
    "select(Tensor input, int64_t dim, SymInt index)",))
def select(input, dim, index):
    if input.dim() == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    dim = _wrap_dim(dim, input.dim())
    size = input.shape[dim]
    if not -size <= index < size:
        raise IndexError(f"index {index} is out of bounds for dimension {dim} with size {size}")
    return _select(input, dim=dim, index=index % size)


def select_item(input, dim, index, position):
    """x[..., index, ...]: select, whose bounds error names the item's position in the index
    (torch's applySlicing does)."""
    size = input.shape[dim]
    if not -size <= index < size:
        raise IndexError(f"index {index} is out of bounds for dimension {position} with size "
                         f"{size}")
    return _select(input, dim=dim, index=index % size)


_unbind = defop("UnbindBackward0", lambda xp, self, dim: [self[_index(dim, i)]
                                                     for i in range(self.shape[dim])],
                dtype="same", view=True, outputs=None,
                grads={"self": lambda grads, dim: stack(grads, dim)})
_stack = defop("StackBackward0", lambda xp, *tensors, dim: xp.stack(tensors, dim),
               inputs=("*tensors",),
               grads={"tensors": lambda grad, dim, tensors_args_scalartypes: grad.unbind(dim)})
_cat = defop("CatBackward0", lambda xp, *tensors, dim: xp.concatenate(tensors, dim),
             inputs=("*tensors",),
             grads={"tensors": lambda grad, dim, tensors_args_sizes: _split_sizes(
                 grad, [s[dim] for s in tensors_args_sizes], dim)})


def _split_sizes(grad, sizes, dim):
    out, start = [], 0
    for n in sizes:
        out.append(_slice(grad, dim, start, start + n, 1))
        start += n
    return out


@public("function", "method", signatures=(
    "unbind(Tensor input, int64_t dim=0)",))
def unbind(input, dim=0):
    return tuple(_unbind(input, dim=_wrap_dim(dim, input.dim(), scalar=False)))


def _tensor_list(tensors, name):
    if isinstance(tensors, Tensor) or not all(isinstance(t, Tensor) for t in tensors):
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, "
                        f"not {type(tensors).__name__}")
    if not tensors:
        raise RuntimeError(f"{name}(): expected a non-empty list of Tensors")
    return tuple(tensors)


@public("function", signatures=(
    "stack(TensorList tensors, int64_t dim=0, *, Tensor out=None)",))
def stack(tensors, dim=0):
    tensors = _tensor_list(tensors, "stack")
    for i, t in enumerate(tensors[1:], 1):
        if t.shape != tensors[0].shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(tensors[0].shape)} at entry 0 and {list(t.shape)} at "
                               f"entry {i}")
    return _stack(*tensors, dim=_wrap_dim(dim, tensors[0].dim() + 1))


@public("function", signatures=(
    "cat(TensorList tensors, int64_t dim=0, *, Tensor out=None)",))
def cat(tensors, dim=0):
    return _cat_checked(tensors, dim, "cat")


@public("function", signatures=(
    "concat(TensorList tensors, int64_t dim=0, *, Tensor out=None)",))
def concat(tensors, dim=0):
    return _cat_checked(tensors, dim, "concat")


@public("function", signatures=(
    "concatenate(TensorList tensors, int64_t dim=0, *, Tensor out=None)",))
def concatenate(tensors, dim=0):
    return _cat_checked(tensors, dim, "concatenate")


def _cat_checked(tensors, dim, name):
    tensors = _tensor_list(tensors, name)
    for i, t in enumerate(tensors):
        if t.dim() == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    ref = next((t for t in tensors if t.shape != (0,)), tensors[0])
    dim = _wrap_dim(dim, ref.dim())
    for i, t in enumerate(tensors):
        if t.shape == (0,):
            continue
        if t.dim() != ref.dim():
            raise RuntimeError(f"Tensors must have same number of dimensions: got "
                               f"{ref.dim()} and {t.dim()}")
        for d in range(ref.dim()):
            if d != dim and t.shape[d] != ref.shape[d]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {dim}. "
                                   f"Expected size {ref.shape[d]} but got size {t.shape[d]} "
                                   f"for tensor number {i} in the list.")
    return _cat(*[t for t in tensors if t.shape != (0,) or t is ref], dim=dim)


def getitem(input, index):
    """Basic indexing (ints, slices, None, ...) as torch's chain of select/slice/unsqueeze.
    Tensor.__getitem__ is indexing.getitem, which hands basic indices here."""
    if isinstance(index, builtins.slice):      # a lone slice always records a SliceBackward0
        return _apply_slice(input, 0, index, force=True)
    if input.dim() == 0 and type(index) is builtins.int:
        if index == 0:
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                             "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
        raise IndexError(f"index {index} is out of bounds for dimension 0 with size 0")
    items = index if isinstance(index, tuple) else (index,)
    consumed = sum(1 for it in items if it is not None and it is not Ellipsis)
    if consumed > input.dim():
        raise IndexError(f"too many indices for tensor of dimension {input.dim()}")
    result, dim = input, 0
    for position, it in enumerate(items):
        if it is None:
            result = unsqueeze(result, dim)
            dim += 1
        elif it is Ellipsis:
            dim += input.dim() - consumed
        elif isinstance(it, builtins.int):
            result = select_item(result, dim, it, position)
        else:
            result = _apply_slice(result, dim, it, force=False)
            dim += 1
    return alias(input) if result is input else result


def _apply_slice(input, dim, sl, force):
    step = 1 if sl.step is None else sl.step
    if step == 0:
        raise ValueError("slice step cannot be zero")
    if step < 0:
        raise ValueError("step must be greater than zero")
    start = 0 if sl.start is None else sl.start
    end = _INT64_MAX if sl.stop is None else sl.stop
    if not input.dim():
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    size = input.shape[dim]
    lo, hi, _ = builtins.slice(start, end, step).indices(size)
    if not force and lo == 0 and hi == size and step == 1:
        return input
    return _slice(input, dim, start, end, step)


# -- the tensor-API shape ops ----------------------------------------------------------------
def _split_forward(self, dim, sizes):
    starts = itertools.accumulate(sizes, initial=0)
    return [self[_index(dim, builtins.slice(s, s + n))] for s, n in zip(starts, sizes)]


def _split_counts(size, split_size):
    if size == 0:
        return [0]
    return [builtins.min(split_size, size - s) for s in range(0, size, split_size)]


# the registry hands zeros for outputs that got no gradient; self_sym_sizes is saved as in torch
_split = defop(
    "SplitBackward0", lambda xp, self, dim, split_size: _split_forward(
        self, dim, _split_counts(self.shape[dim], split_size)),
    dtype="same", view=True, outputs=None,
    grads={"self": lambda grads, dim, self_sym_sizes, split_size: _cat(*grads, dim=dim)})
_split_with_sizes = defop(
    "SplitWithSizesBackward0", lambda xp, self, dim, split_sizes: _split_forward(
        self, dim, split_sizes),
    dtype="same", view=True, outputs=None,
    grads={"self": lambda grads, dim, self_sym_sizes, split_sizes: _cat(*grads, dim=dim)})


def _axes(dims, ndim):
    """Dims as given (torch saves them so) made non-negative; a 0-d tensor has none to move."""
    return tuple(d % ndim for d in dims) if ndim else ()


_flip = defop("FlipBackward0", lambda xp, self, dims: xp.flip(self, _axes(dims, self.ndim)).copy(),
              dtype="same", grads={"self": lambda grad, dims: _flip(grad, dims=dims)})


def _roll_forward(xp, self, shifts, dims):
    if not dims:        # no dims: roll the flattened tensor
        return xp.roll(self.reshape(-1), shifts[0]).reshape(self.shape)
    return xp.roll(self, shifts, _axes(dims, self.ndim))


_roll = defop("RollBackward0", _roll_forward, dtype="same",
              grads={"self": lambda grad, shifts, dims: _roll(
                  grad, shifts=tuple(-s for s in shifts), dims=dims)})


def _rot90_forward(xp, self, k, dims):
    """torch's own recipe (flip, then swap the axes), so the strides come out as torch's."""
    d0, d1 = _axes(dims, self.ndim)
    k %= 4
    if k == 0:
        return self.copy()
    if k == 2:
        return xp.flip(self, (d0, d1)).copy()
    return xp.swapaxes(xp.flip(self, d1 if k == 1 else d0).copy(), d0, d1)


_rot90 = defop("Rot90Backward0", _rot90_forward, dtype="same",
               grads={"self": lambda grad, k, dims: _rot90(grad, k=-k, dims=dims)})


def _repeat_backward(grad, repeats, sizes):
    """Each output dim r*s seen as (r, s): sum over the r's."""
    if 0 in repeats:        # like torch: fresh zeros, not a function of grad
        return zeros(sizes, dtype=grad.dtype)
    padded = (1,) * (len(repeats) - len(sizes)) + tuple(sizes)
    split = tuple(n for r, s in zip(repeats, padded) for n in (r, s))
    return grad.reshape(split).sum(tuple(range(0, len(split), 2))).reshape(sizes)


_repeat = defop("RepeatBackward0", lambda xp, self, repeats: xp.tile(self, repeats), dtype="same",
                grads={"self": lambda grad, repeats, self_sym_sizes: _repeat_backward(
                    grad, repeats, self_sym_sizes)})


@public("function", "method", signatures=(
    "flatten(Tensor input, int64_t start_dim=0, int64_t end_dim=-1)",))
def flatten(input, start_dim=0, end_dim=-1):
    n = input.dim()
    start, end = _wrap_dim(start_dim, n), _wrap_dim(end_dim, n)
    if n == 0:
        return reshape(input, (1,))
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if start == end:
        return input
    shape = input.shape
    numel = 1
    for s in shape[start:end + 1]:
        numel *= s
    return reshape(input, shape[:start] + (numel,) + shape[end + 1:])


@public("function", signatures=(
    "unflatten(Tensor input, int64_t dim, SymIntArrayRef sizes)",))
def unflatten(input, dim, sizes):
    if input.dim() == 0:
        raise RuntimeError("unflatten got an unexpected error:\nDimension specified as 0 but "
                           "tensor has no dimensions")
    dim = _wrap_dim(dim, input.dim())
    sizes = _parse_size((sizes,))
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    if sizes.count(-1) > 1:
        raise RuntimeError("unflatten got an unexpected error:\nonly one dimension can be "
                           "inferred")
    size = input.shape[dim]
    known = 1
    for s in sizes:
        known *= s if s != -1 else 1
    if (known != size if -1 not in sizes else known == 0 or size % known):
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the "
                           f"size of dim {dim} ({size}) in the input tensor")
    sizes = tuple(size // known if s == -1 else s for s in sizes)
    return view(input, input.shape[:dim] + sizes + input.shape[dim + 1:])


_unflatten_method = _bind(unflatten, ["unflatten(Tensor self, int64_t dim, SymIntArrayRef sizes)"],
                          method=True)


@public("method", name="unflatten")
def _python_unflatten(self, dim, sizes):
    """Tensor.unflatten, Python in torch: its own check of sizes, then the C method's parser."""
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    return _unflatten_method(self, dim, sizes)


_python_unflatten.__qualname__ = "Tensor.unflatten"     # (Python's messages name it so)


@public("function", "method", signatures=(
    "swapaxes(Tensor input, int64_t axis0, int64_t axis1)",))
def swapaxes(input, axis0, axis1):
    return transpose(input, axis0, axis1)


@public("function", "method", signatures=(
    "swapdims(Tensor input, int64_t dim0, int64_t dim1)",))
def swapdims(input, dim0, dim1):
    return transpose(input, dim0, dim1)


@public("function", "method", aliases=("moveaxis",), signatures=(
    "movedim(Tensor input, int64_t source, int64_t destination)",
    "movedim(Tensor input, IntArrayRef source, IntArrayRef destination)"))
def movedim(input, source, destination):
    src, dst = _parse_size((source,)), _parse_size((destination,))
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({list(src)} "
                           f"dims) should contain the same number of dims as destination "
                           f"({list(dst)} dims)")
    n = input.dim()
    wsrc, wdst = tuple(_wrap_dim(d, n) for d in src), tuple(_wrap_dim(d, n) for d in dst)
    if n == 0:
        return alias(input)
    for name, raw, wrapped in (("source", src, wsrc), ("destination", dst, wdst)):
        if len(set(wrapped)) != len(wrapped):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({list(raw)})")
    order = [None] * n
    for s, d in zip(wsrc, wdst):
        order[d] = s
    rest = iter(d for d in range(n) if d not in wsrc)
    return permute(input, tuple(next(rest) if o is None else o for o in order))


@public("function", "method", signatures=(
    "broadcast_to(Tensor input, SymIntArrayRef size)",))
def broadcast_to(input, size):
    return expand(input, size)


@public("function")
def broadcast_tensors(*tensors):
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(t).__name__}")
    shape = broadcast_shapes(*(t.shape for t in tensors)) if tensors else ()
    return tuple(t if t.shape == shape else expand(t, shape) for t in tensors)


@public("method", method_signatures=(
    "repeat(Tensor self, SymIntArrayRef repeats)",))
def repeat(input, repeats):
    repeats = _parse_size(repeats)
    if len(repeats) < input.dim():
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number "
                           "of dimensions of tensor")
    padded = (1,) * (len(repeats) - input.dim()) + input.shape
    if builtins.min(repeats, default=0) < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension "
                           f"{builtins.min(r * s for r, s in zip(repeats, padded))}: "
                           f"{[r * s for r, s in zip(repeats, padded)]}")
    return _repeat(input, repeats=repeats)


@public("function", "method", signatures=(
    "tile(Tensor input, SymIntArrayRef dims)",))
def tile(input, dims):
    dims = _parse_size(dims)
    return repeat(input, (1,) * (input.dim() - len(dims)) + dims)


@public("function", "method", signatures=(
    "repeat_interleave(Tensor input, Tensor repeats, int64_t? dim=None, *, "
    "SymInt? output_size=None)",
    "repeat_interleave(Tensor repeats, *, SymInt? output_size=None)",
    "repeat_interleave(Tensor input, SymInt repeats, int64_t? dim=None, *, "
    "SymInt? output_size=None)"), method_signatures=(
    "repeat_interleave(Tensor self, Tensor repeats, int64_t? dim=None, *, "
    "SymInt? output_size=None)",
    "repeat_interleave(Tensor self, SymInt repeats, int64_t? dim=None, *, "
    "SymInt? output_size=None)"))
def repeat_interleave(input=None, repeats=None, dim=None, *, output_size=None):
    """Integer repeats (a view of a copy, like torch: unsqueeze, expand, clone, view); with no
    input (``repeat_interleave(repeats)``), the repeated indices."""
    if input is None:
        input = repeats
    if repeats is None or repeats is input:
        return _repeat_indices(input)
    if isinstance(repeats, Tensor):
        return _repeat_interleave_tensor(input, repeats, dim, output_size)
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    if dim is None:
        input, dim = flatten(input), 0
    dim = _wrap_dim(dim, input.dim())
    shape = input.shape
    if output_size is not None and output_size != shape[dim] * repeats:
        raise RuntimeError(f"repeat_interleave: Invalid output_size, expected "
                           f"{shape[dim] * repeats} but got {output_size}")
    wide = shape[:dim + 1] + (repeats,) + shape[dim + 1:]
    out = _clone(expand(unsqueeze(input, dim + 1), wide))
    return view(out, shape[:dim] + (shape[dim] * repeats,) + shape[dim + 1:])


def _repeat_interleave_tensor(input, repeats, dim, output_size):
    """Tensor repeats: index_select with the repeated indices (as torch; index_select comes
    from the indexing ops)."""
    if repeats.dim() > 1:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    if dim is None:
        input, dim = flatten(input), 0
    dim = _wrap_dim(dim, input.dim())
    size = input.shape[dim]
    if repeats.numel() == 1:
        repeats = Tensor._make(xp.full(size, repeats._data.reshape(())))
    elif repeats.numel() != size:
        raise RuntimeError(f"repeats must have the same size as input along dim, but got "
                           f"repeats.size(0) = {repeats.numel()} and input.size({dim}) = {size}")
    index = _repeat_indices(repeats)
    if output_size is not None and output_size != index.numel():
        raise RuntimeError("allocated size does not match required size")
    return input.index_select(dim, index)


def _repeat_indices(repeats):
    if repeats.dim() != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    if repeats.dtype.name not in ("int32", "int64"):
        raise NotImplementedError(f"\"repeat_interleave_cpu\" not implemented for "
                                  f"'{_SCALAR_NAMES[repeats.dtype.name]}'")
    reps = repeats._data.reshape(-1)
    if (reps < 0).any():
        raise RuntimeError("repeats can not be negative")
    return Tensor._make(xp.repeat(xp.arange(reps.size, dtype=reps.dtype), reps))


def split_parts(tensor, split_size_or_sections, dim=0):
    """The pieces of split (an int size) or split_with_sizes (a list of sizes)."""
    if tensor.dim() == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    dim = _wrap_dim(dim, tensor.dim())
    size = tensor.shape[dim]
    if isinstance(split_size_or_sections, (tuple, list)):
        sizes = _parse_size((split_size_or_sections,))
        if builtins.min(sizes, default=0) < 0:
            raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative "
                               f"entries, but got split_sizes={list(sizes)}")
        if builtins.sum(sizes) != size:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} "
                               f"(input tensor's size at dimension {dim}), but got "
                               f"split_sizes={list(sizes)}")
        return tuple(_split_with_sizes(tensor, dim=dim, split_sizes=sizes))
    split_size = builtins.int(split_size_or_sections)
    if split_size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got "
                           f"split_size={split_size}")
    if split_size == 0 and size != 0:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got "
                           f"dimension size of {size}")
    return tuple(_split(tensor, dim=dim, split_size=split_size))


@public("function", "method", signatures=(
    "split_with_sizes(Tensor input, SymIntArrayRef split_sizes, int64_t dim=0)",))
def split_with_sizes(input, split_sizes, dim=0):
    return split_parts(input, list(split_sizes), dim)


# torch's native split (torch._VF.split), which the Python Tensor.split calls
_native_split = _bind(split_parts, [
    "split(Tensor input, SymInt split_size, int64_t dim=0)",
    "split(Tensor input, SymIntArrayRef split_size, int64_t dim=0)"])


@public("method", name="split")
def _python_split(self, split_size, dim=0):
    """Tensor.split, Python in torch: a one-element tensor is read as an int; an int goes to
    the native split, anything else to split_with_sizes (their parsers, their messages)."""
    if isinstance(split_size, Tensor):
        try:
            split_size = builtins.int(split_size)
        except ValueError:
            pass
    if isinstance(split_size, builtins.int):
        return _native_split(self, split_size, dim)
    return split_with_sizes(self, split_size, dim)


_python_split.__qualname__ = "Tensor.split"


@public("function")
def split(tensor, split_size_or_sections, dim=0):
    """torch.split, Python in torch: the tensor's split."""
    return tensor.split(split_size_or_sections, dim)


@public("function", "method", signatures=(
    "chunk(Tensor input, int64_t chunks, int64_t dim=0)",))
def chunk(input, chunks, dim=0):
    if input.dim() == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    dim = _wrap_dim(dim, input.dim())
    size = input.shape[dim]
    if size == 0:       # torch: as many empty chunks as asked for
        return split_parts(input, [0] * chunks, dim)
    return split_parts(input, -(-size // chunks), dim)


@public("function", "method", signatures=(
    "tensor_split(Tensor input, SymIntArrayRef indices, int64_t dim=0)",
    "tensor_split(Tensor input, Tensor tensor_indices_or_sections, int64_t dim=0)",
    "tensor_split(Tensor input, SymInt sections, int64_t dim=0)"))
def tensor_split(input, indices_or_sections, dim=0):
    if input.dim() == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a "
                           "tensor with 0 dims")
    arg = indices_or_sections
    if isinstance(arg, Tensor):
        if arg.dtype.name != "int64":
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to have dtype "
                               f"of long, but got {_SCALAR_NAMES[arg.dtype.name]}")
        if arg.dim() > 1:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be a "
                               f"zero-dimensional or one-dimensional tensor, but got a tensor "
                               f"with {arg.dim()} dims")
        arg = arg.item() if arg.dim() == 0 else arg.tolist()
    dim = _wrap_dim(dim, input.dim())
    size = input.shape[dim]
    if isinstance(arg, (tuple, list)):
        bounds = (0,) + _parse_size((arg,)) + (size,)
    else:
        sections = builtins.int(arg)
        if sections <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
        small, extra = divmod(size, sections)
        bounds = tuple(itertools.accumulate(
            (small + (i < extra) for i in range(sections)), initial=0))
    return tuple(_slice(input, dim, s, e, 1) for s, e in zip(bounds, bounds[1:]))


@public("function", "method", signatures=(
    "narrow(Tensor input, int64_t dim, Tensor start, SymInt length)",
    "narrow(Tensor input, int64_t dim, SymInt start, SymInt length)"))
def narrow(input, dim, start, length):
    if input.dim() == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    start, length = builtins.int(start), builtins.int(length)
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    dim = _wrap_dim(dim, input.dim())
    size = input.shape[dim]
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], "
                         f"but got {start})")
    if start < 0:
        start += size
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size "
                           f"({size}).")
    return _slice(input, dim, start, start + length, 1)


@public("function", "method", signatures=(
    "flip(Tensor input, IntArrayRef dims)",))
def flip(input, dims, *more):
    dims = _parse_size((dims,) + more)
    _wrap_dims(dims, input.dim())
    return _flip(input, dims=dims)


@public("function", "method", signatures=(
    "fliplr(Tensor input)",))
def fliplr(input):
    if input.dim() < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, (1,))


@public("function", "method", signatures=(
    "flipud(Tensor input)",))
def flipud(input):
    if input.dim() < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, (0,))


@public("function", "method", signatures=(
    "roll(Tensor input, SymIntArrayRef[1] shifts, IntArrayRef[1] dims=None)",))
def roll(input, shifts, dims=None):
    shifts = _parse_size((shifts,))
    dims = () if dims is None else _parse_size((dims,))
    if not shifts:
        raise RuntimeError("`shifts` required")
    if len(shifts) != len(dims) and (dims or len(shifts) != 1):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, "
                           f"dims:{len(dims)}")
    if dims and input.dim() == 0:
        raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions")
    for d in dims:
        _wrap_dim(d, input.dim())
    return _roll(input, shifts=shifts, dims=dims)


@public("function", "method", signatures=(
    "rot90(Tensor input, int64_t k=1, IntArrayRef dims={0,1})",))
def rot90(input, k=1, dims=(0, 1)):
    dims = _parse_size((dims,))
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    n = input.dim()
    if n < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {n}")
    if _wrap_dim(dims[0], n) == _wrap_dim(dims[1], n):
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} "
                           f"and dim1 = {dims[1]}")
    return _rot90(input, k=builtins.int(k), dims=dims)


@public("function", "method", signatures=(
    "ravel(Tensor input)",))
def ravel(input):
    return view(contiguous(input), (-1,))


@public("function")
def atleast_1d(*tensors):
    return _atleast(tensors, lambda t: reshape(t, (1,)) if t.dim() == 0 else t)


@public("function")
def atleast_2d(*tensors):
    return _atleast(tensors, lambda t: reshape(t, (1, 1)) if t.dim() == 0 else
                    unsqueeze(t, 0) if t.dim() == 1 else t)


@public("function")
def atleast_3d(*tensors):
    return _atleast(tensors, lambda t: reshape(t, (1, 1, 1)) if t.dim() == 0 else
                    unsqueeze(unsqueeze(t, 0), -1) if t.dim() == 1 else
                    unsqueeze(t, -1) if t.dim() == 2 else t)


def _atleast(tensors, f):
    if len(tensors) == 1 and isinstance(tensors[0], Tensor):
        return f(tensors[0])
    if len(tensors) == 1 and isinstance(tensors[0], (tuple, list)):
        tensors = tensors[0]
    return tuple(f(t) for t in tensors)


def _stack_list(tensors, name):
    if isinstance(tensors, (tuple, list)) and not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    return _tensor_list(tensors, name)


@public("function", signatures=(
    "hstack(TensorList tensors, *, Tensor out=None)",))
def hstack(tensors):
    tensors = atleast_1d(_stack_list(tensors, "hstack"))
    return _cat_checked(tensors, 0 if tensors[0].dim() == 1 else 1, "hstack")


@public("function", signatures=(
    "vstack(TensorList tensors, *, Tensor out=None)",))
def vstack(tensors):
    return _cat_checked(atleast_2d(_stack_list(tensors, "vstack")), 0, "vstack")


@public("function", signatures=(
    "dstack(TensorList tensors, *, Tensor out=None)",))
def dstack(tensors):
    return _cat_checked(atleast_3d(_stack_list(tensors, "dstack")), 2, "dstack")


@public("function")
def meshgrid(*tensors, indexing=None):
    if len(tensors) == 1 and isinstance(tensors[0], (tuple, list)):
        tensors = tuple(tensors[0])
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the "
                      "indexing argument.", UserWarning, stacklevel=2)
        indexing = "ij"
    for t in tensors:
        if t.dtype is not tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but '
                           f'received: {indexing}')
    for t in tensors:
        if t.dim() > 1:
            raise RuntimeError("torch.meshgrid: Expected 0D or 1D tensor in the tensor list")
    order = list(range(len(tensors)))
    if indexing == "xy" and len(tensors) > 1:    # the first two axes trade places
        order[0], order[1] = 1, 0
    shape = [0] * len(tensors)
    for i, t in zip(order, tensors):
        shape[i] = t.numel()
    out = []
    for i, t in zip(order, tensors):
        size = [1] * len(tensors)
        size[i] = -1
        out.append(expand(view(t, size), shape))
    return tuple(out)


# the Tensor's own spellings
public("method", name="view_as", method_signatures=("view_as(Tensor self, Tensor other)",))(lambda self, other: view(self, other.shape))
public("method", name="reshape_as", method_signatures=(
    "reshape_as(Tensor self, Tensor other)",))(lambda self, other: reshape(self, other.shape))
def _numpy_T(self):
    """Tensor.T: the dims reversed; deprecated (warned once) on other than 2-D tensors."""
    n = self.dim()
    if n == 0:
        _runtime.warn_once("T 0-d", "Tensor.T is deprecated on 0-D tensors. This function is the "
                           "identity in these cases. (Triggered internally at "
                           "/__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4321.)")
    elif n != 2:
        _runtime.warn_once("T", "The use of `x.T` on tensors of dimension other than 2 to reverse "
                           "their shape is deprecated and it will throw an error in a future "
                           "release. Consider `x.mT` to transpose batches of matrices or "
                           "`x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the "
                           "dimensions of a tensor. (Triggered internally at "
                           "/__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4314.)")
    return permute(self, tuple(reversed(range(n))))


public("method", name="T")(property(_numpy_T))
public("method", name="mT")(property(lambda self: transpose(self, -2, -1)))



# -- the rest of the Tensor API on layouts -----------------------------------------------------
@public("method", method_signatures=(
    "fill_diagonal_(Tensor self, Scalar fill_value, bool wrap=False)",))
def fill_diagonal_(self, fill_value, wrap=False):
    """The main diagonal set in place (a tall matrix's restarts every cols + 1 rows with
    wrap, as numpy.fill_diagonal's)."""
    shape = self.shape
    if len(shape) < 2:
        raise RuntimeError("dimensions must larger than 1")
    if len(shape) > 2 and any(n != shape[0] for n in shape):
        raise RuntimeError("all dimensions of input must be of equal length")
    n = builtins.min(shape)
    if len(shape) == 2 and wrap:
        rows, cols = shape
        flat = xp.arange(0, rows * cols, cols + 1)
        index = (Tensor._make(flat // cols), Tensor._make(flat % cols))
    else:
        index = (Tensor._make(xp.arange(n)),) * len(shape)
    from .indexing import index_put_
    return index_put_(self, index, self.new_tensor(fill_value).expand(index[0].shape))


@public("method", method_signatures=(
    "narrow_copy(Tensor self, int64_t dim, SymInt start, SymInt length)",))
def narrow_copy(self, dim, start, length):
    return contiguous(narrow(self, dim, start, length))


@public("method")
def is_set_to(self, tensor):
    """Whether both view the same storage with the same offset, sizes and strides."""
    return (self.untyped_storage().data_ptr() == tensor.untyped_storage().data_ptr() and
            self.storage_offset() == tensor.storage_offset() and
            self.shape == tensor.shape and self.stride() == tensor.stride())


public("method", name="is_distributed")(lambda self: False)
public("method", name="dense_dim")(lambda self: self.dim())     # a strided tensor's: all
public("method", name="to_dense")(lambda self, dtype=None, *, masked_grad=None:
                                  self if dtype is None else to_dtype(self, dtype))


def _sparse_only(name, layout):
    def refuse(self, *args, **kwargs):
        raise RuntimeError(f"{name} expected {layout} layout but got Strided")
    refuse.__name__ = name
    return public("method", name=name)(refuse)


for _name, _layout in (("coalesce", "sparse coordinate tensor"),
                       ("is_coalesced", "sparse coordinate tensor"),
                       ("indices", "sparse coordinate tensor"), ("values", "sparse tensor"),
                       ("crow_indices", "sparse row compressed tensor"),
                       ("col_indices", "sparse row compressed tensor"),
                       ("ccol_indices", "sparse column compressed tensor"),
                       ("row_indices", "sparse column compressed tensor")):
    _sparse_only(_name, _layout)
del _name, _layout


# rows and @public objects name themselves (glassgrad.ops.publish)
publish(globals())
