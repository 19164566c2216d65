"""Shape ops (views share data and the version counter), clone, casts and basic indexing."""
import builtins

from .._creation import zeros
from .._tensor import Tensor, _wrap_dim
from ..backend import xp
from .registry import defop
from .reduce import sum_to

_INT64_MAX = 9223372036854775807


def _view_forward(self, size):
    try:
        return xp.reshape(self, size, copy=False)
    except ValueError:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
        ) from None


_view = defop("ViewBackward0", _view_forward, dtype="same", view=True,
              grads={"self": lambda grad, self_sym_sizes: grad.reshape(self_sym_sizes)})
_reshape_alias = defop("ReshapeAliasBackward0", _view_forward, dtype="same", view=True,
                       grads={"self": lambda grad, self_sym_sizes: grad.reshape(self_sym_sizes)})
_unsafe_view = defop("UnsafeViewBackward0", lambda self, size: self.reshape(size), dtype="same",
                     grads={"self": lambda grad, self_sym_sizes: grad.reshape(self_sym_sizes)})
_clone = defop("CloneBackward0", lambda self: self.copy(), dtype="same",
               grads={"self": lambda grad: grad})
_alias = defop("AliasBackward0", lambda self: self.view(), dtype="same", view=True,
               grads={"self": lambda grad: grad})
_t = defop("TBackward0", lambda self: self.T, dtype="same", view=True,
           grads={"self": lambda grad: grad.t()})
_transpose = defop("TransposeBackward0", lambda self, dim0, dim1: xp.swapaxes(self, dim0, dim1),
                   dtype="same", view=True,
                   grads={"self": lambda grad, dim0, dim1: grad.transpose(dim0, dim1)})
_permute = defop("PermuteBackward0", lambda self, dims: xp.transpose(self, dims), dtype="same",
                 view=True, grads={"self": lambda grad, dims: grad.permute(
                     tuple(sorted(range(len(dims)), key=dims.__getitem__)))})
_unsqueeze = defop("UnsqueezeBackward0", lambda self, dim: xp.expand_dims(self, dim),
                   dtype="same", view=True, grads={"self": lambda grad, dim: grad.squeeze(dim)})


def _unsqueeze_to(grad, dims, sizes):
    for d in sorted(dims):
        if sizes[d] == 1:
            grad = grad.unsqueeze(d)
    return grad


_squeeze_all = defop("SqueezeBackward0", lambda self: xp.squeeze(self), dtype="same", view=True,
                     grads={"self": lambda grad, self_sym_sizes: grad.reshape(self_sym_sizes)})
_squeeze_dim = defop(
    "SqueezeBackward1", lambda self, dim: xp.squeeze(self, dim) if self.shape[dim] == 1 else
    self.view(), dtype="same", view=True,
    grads={"self": lambda grad, dim, self_sym_sizes: _unsqueeze_to(grad, (dim,), self_sym_sizes)})
_squeeze_dims = defop(
    "SqueezeBackward2", lambda self, dim: xp.squeeze(
        self, tuple(d for d in dim if self.shape[d] == 1)), dtype="same", view=True,
    grads={"self": lambda grad, dim, self_sym_sizes: _unsqueeze_to(grad, dim, self_sym_sizes)})
# matmul's vector @ matrix squeezes its fresh mm result in place (squeeze_), hence its own name
_squeeze_result = defop(
    "SqueezeBackward4", lambda self, dim: xp.squeeze(self, dim), dtype="same",
    grads={"self": lambda grad, dim, self_sym_sizes: _unsqueeze_to(grad, (dim,), self_sym_sizes)})


def _expand_forward(self, size):
    """broadcast_to, but a kept dim keeps its stride (NumPy zeroes it for size-1 dims)."""
    lead = len(size) - self.ndim
    strides = (0,) * lead + tuple(st if n == s else 0 for st, n, s in
                                  zip(self.strides, self.shape, size[lead:]))
    # writeable like torch's expand: fill_/zero_ may write through it, other in-place ops refuse
    return xp.lib.stride_tricks.as_strided(self, size, strides, writeable=self.flags.writeable)


_expand = defop("ExpandBackward0", _expand_forward, dtype="same",
                view=True, grads={"self": lambda grad, self_sym_sizes: sum_to(grad, self_sym_sizes)})
_to_copy = defop("ToCopyBackward0", lambda self, dtype: self.astype(dtype.np), dtype="same",
                 grads={"self": lambda grad: grad})   # the engine casts back to self's dtype


def _index(dim, item):
    """The NumPy index of ``item`` at ``dim``; the trailing ... keeps a 0-d result a view."""
    return (builtins.slice(None),) * dim + (item, Ellipsis)


def _select_backward_forward(grad_output, input_sizes, dim, index):
    out = xp.zeros(input_sizes, grad_output.dtype)
    out[_index(dim, index)] = grad_output
    return out


def _slice_backward_forward(grad_output, input_sizes, dim, start, end, step):
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
    "SelectBackward0", lambda self, dim, index: self[_index(dim, index)], dtype="same",
    view=True, grads={"self": lambda grad, self_sym_sizes, dim, index: _select_backward(
        grad, input_sizes=self_sym_sizes, dim=dim, index=index)})
_slice_op = defop(
    "SliceBackward0", lambda self, dim, start, end, step:
    self[_index(dim, builtins.slice(start, end, step))], dtype="same", view=True,
    grads={"self": lambda grad, self_sym_sizes, dim, start, end, step: _slice_backward(
        grad, input_sizes=self_sym_sizes, dim=dim, start=start, end=end, step=step)})


def _slice(input, dim, start, end, step):
    return _slice_op(input, dim=dim, start=start, end=end, step=step)


# -- public functions ------------------------------------------------------------------------
def _parse_size(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    return tuple(builtins.int(s) for s in size)


def _infer_size(size, numel):
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


def view(input, *size):
    size = _infer_size(_parse_size(size), input.numel())
    return _view(input, size=size)


def reshape(input, *shape):
    size = _infer_size(_parse_size(shape), input.numel())
    if input._data.flags.c_contiguous:
        return _view(input, size=size)
    try:    # a strided view of a non-contiguous tensor (torch's _reshape_alias)
        xp.reshape(input._data, size, copy=False)
    except ValueError:      # not expressible as a view: copy, like torch (Clone + UnsafeView)
        return _unsafe_view(_clone(input), size=size)
    return _reshape_alias(input, size=size)


def _unsafe_view_of(input, size):
    return _unsafe_view(input, size=tuple(size))


def clone(input, *, memory_format=None):
    return _clone(input)


def contiguous(input, memory_format=None):
    return input if input._data.flags.c_contiguous else _clone(input)


def alias(input):
    return _alias(input)


def t(input):
    if input.dim() > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is "
                           f"{input.dim()}D")
    return _t(input)


def transpose(input, dim0, dim1):
    n = input.dim()
    return _transpose(input, dim0=_wrap_dim(dim0, n), dim1=_wrap_dim(dim1, n))


def permute(input, *dims):
    dims = tuple(_wrap_dim(d, input.dim()) for d in _parse_size(dims))
    if len(dims) != input.dim():
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does "
                           f"not match the length of the desired ordering of dimensions i.e. "
                           f"input.dim() = {input.dim()} is not equal to len(dims) = {len(dims)}")
    return _permute(input, dims=dims)


def unsqueeze(input, dim):
    return _unsqueeze(input, dim=_wrap_dim(dim, input.dim() + 1))


def squeeze(input, dim=None):
    if dim is None:
        return _squeeze_all(input)
    if isinstance(dim, (tuple, list)):
        return _squeeze_dims(input, dim=tuple(_wrap_dim(d, input.dim()) for d in dim))
    return _squeeze_dim(input, dim=_wrap_dim(dim, input.dim()))


def expand(input, *sizes):
    sizes = _parse_size(sizes)
    shape = input.shape
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
    return _expand(input, size=tuple(out))


def expand_as(input, other):
    return expand(input, other.shape)


def to_dtype(input, dtype):
    return input if input.dtype is dtype else _to_copy(input, dtype=dtype)


def select(input, dim, index):
    dim = _wrap_dim(dim, input.dim())
    size = input.shape[dim]
    if not -size <= index < size:
        raise IndexError(f"index {index} is out of bounds for dimension {dim} with size {size}")
    return _select(input, dim=dim, index=index % size)


_unbind = defop("UnbindBackward0", lambda self, dim: [self[_index(dim, i)]
                                                     for i in range(self.shape[dim])],
                dtype="same", view=True, outputs=None,
                grads={"self": lambda grads, dim: stack(grads, dim)})
_stack = defop("StackBackward0", lambda *tensors, dim: xp.stack(tensors, dim),
               inputs=("*tensors",),
               grads={"tensors": lambda grad, dim, tensors_args_scalartypes: grad.unbind(dim)})
_cat = defop("CatBackward0", lambda *tensors, dim: xp.concatenate(tensors, dim),
             inputs=("*tensors",),
             grads={"tensors": lambda grad, dim, tensors_args_sizes: _split_sizes(
                 grad, [s[dim] for s in tensors_args_sizes], dim)})


def _split_sizes(grad, sizes, dim):
    out, start = [], 0
    for n in sizes:
        out.append(_slice(grad, dim, start, start + n, 1))
        start += n
    return out


def unbind(input, dim=0):
    return tuple(_unbind(input, dim=_wrap_dim(dim, input.dim())))


def _tensor_list(tensors, name):
    if isinstance(tensors, Tensor) or not all(isinstance(t, Tensor) for t in tensors):
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, "
                        f"not {type(tensors).__name__}")
    if not tensors:
        raise RuntimeError(f"{name}(): expected a non-empty list of Tensors")
    return tuple(tensors)


def stack(tensors, dim=0):
    tensors = _tensor_list(tensors, "stack")
    for i, t in enumerate(tensors[1:], 1):
        if t.shape != tensors[0].shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(tensors[0].shape)} at entry 0 and {list(t.shape)} at "
                               f"entry {i}")
    return _stack(*tensors, dim=_wrap_dim(dim, tensors[0].dim() + 1))


def cat(tensors, dim=0):
    tensors = _tensor_list(tensors, "cat")
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
    """Basic indexing (ints, slices, None, ...) as torch's chain of select/slice/unsqueeze."""
    if isinstance(index, builtins.slice):      # a lone slice always records a SliceBackward0
        return _apply_slice(input, 0, index, force=True)
    if input.dim() == 0 and isinstance(index, builtins.int) and \
            not isinstance(index, builtins.bool):
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                         "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
    items = index if isinstance(index, tuple) else (index,)
    for it in items:
        if not (it is None or it is Ellipsis or isinstance(it, (builtins.int, builtins.slice))) \
                or isinstance(it, builtins.bool):
            raise IndexError("glassgrad: only integers, slices (`:`), ellipsis (`...`) and None "
                             "are supported as indices so far (advanced indexing comes with the "
                             "tensor-API issue)")
    consumed = sum(1 for it in items if it is not None and it is not Ellipsis)
    if consumed > input.dim():
        raise IndexError(f"too many indices for tensor of dimension {input.dim()}")
    result, dim = input, 0
    for it in items:
        if it is None:
            result = unsqueeze(result, dim)
            dim += 1
        elif it is Ellipsis:
            dim += input.dim() - consumed
        elif isinstance(it, builtins.int):
            result = select(result, dim, it)
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


__all__ = ["cat", "clone", "expand_as", "permute", "reshape", "select", "squeeze", "stack", "t",
           "transpose", "unbind", "unsqueeze"]

METHODS = {
    "view": view, "reshape": reshape, "view_as": lambda self, other: view(self, other.shape),
    "reshape_as": lambda self, other: reshape(self, other.shape), "t": t,
    "transpose": transpose, "permute": permute, "unsqueeze": unsqueeze, "squeeze": squeeze,
    "expand": expand, "expand_as": expand_as, "select": select, "unbind": unbind,
    "clone": clone, "contiguous": contiguous, "__getitem__": getitem,
    "T": property(lambda self: permute(self, tuple(reversed(range(self.dim()))))),
    "mT": property(lambda self: transpose(self, -2, -1)),
}
