"""Factory functions: tensor, from_numpy, zeros, ones, arange, rand, randn, randint, ..."""
import builtins
import math
import os

from . import _device, dtypes
from ._formats import preserve_format
from ._args import bind
from ._tensor import Tensor
from ._autograd.grad_mode import state
from ._autograd.provenance import leaf_created
from ._generator import engine
from .backend import backend_for, kind as _kind, ndarray, xp
from .backend import from_dlpack as backend_from_dlpack, to_dlpack as backend_to_dlpack
from .backend.kernels import random as sample
from ._runtime import fills_uninitialized, warn, warn_once

def _new(data, dtype, requires_grad):
    """A leaf tensor from an array (cast to ``dtype`` when given)."""
    if dtype is not None and data.dtype != dtype.np:
        data = data.astype(dtype.np)
    t = Tensor._make(data)
    if requires_grad:
        if not (t.dtype.is_floating_point or t.dtype.is_complex):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        t._requires_grad = True
        leaf_created(t)
    return t


def _from_data(data, dtype=None):
    """An array for Python data, with torch's dtype inference (floats -> default dtype).

    dtype: the requested dtype; Python numbers headed for an integer dtype are range-checked
    like torch's checked conversion."""
    if isinstance(data, Tensor):
        return data._data
    if isinstance(data, (ndarray, xp.generic)):     # NumPy arrays and scalars keep their dtype
        dtypes.from_numpy_dtype(data.dtype)
        return xp.asarray(data)
    if isinstance(data, (list, tuple)) and any(isinstance(d, Tensor) for d in _flat(data)):
        data = _nested_tolist(data)
    if isinstance(data, str):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    if isinstance(data, (list, tuple)):
        _check_lengths(data, _sizes(data), 0)
    try:
        arr = xp.asarray(data)
    except ValueError as e:
        raise ValueError(f"expected sequence of equal-length lists: {e}") from None
    if arr.dtype.kind in "US":
        raise ValueError(f"too many dimensions '{arr.dtype.type.__name__.rstrip('_')}'")
    if dtype is not None and not dtype.is_floating_point and dtype is not dtypes.bool:
        _check_overflow(arr, dtype)
    if _kind(arr.dtype) == "f":       # Python floats: straight to the requested dtype
        arr = arr.astype((dtype if dtype is not None and (dtype.is_floating_point or
                                                          dtype.is_complex)
                          else dtypes.get_default_dtype()).np)
    elif arr.dtype.kind == "c" and (dtype is None or dtype.is_complex):  # Python complex
        arr = arr.astype((dtype or dtypes.get_default_dtype().to_complex()).np)
    elif arr.dtype.kind in "iu" and arr.dtype != xp.int64:
        arr = arr.astype(xp.int64)
    elif _kind(arr.dtype) not in "biuf":
        odd = next(d for d in _flat([data]) if not isinstance(d, (bool, int, float)))
        if isinstance(odd, complex) and dtype is dtypes.bool:
            return arr.astype(xp.bool_)
        if dtype is not None:       # torch converts each element to the given dtype's kind
            raise TypeError(f"must be real number, not {type(odd).__name__}"
                            if dtype.is_floating_point else
                            f"'{type(odd).__name__}' object cannot be interpreted as an integer")
        raise RuntimeError(f"Could not infer dtype of {type(odd).__name__}")
    return arr


def uninitialized(array):
    """New memory as torch leaves it: as it was, or, while deterministic algorithms are on,
    filled with NaN (floats and complex) or the largest value (integers, True)."""
    if fills_uninitialized():
        kind = _kind(array.dtype)
        array[...] = (xp.nan if kind in "fc" else True if kind == "b"
                      else xp.iinfo(array.dtype).max)
    return array


def _is_sequence(d):
    return isinstance(d, (list, tuple)) or (isinstance(d, ndarray) and d.ndim > 0)


def _sizes(data):
    """The shape torch infers from the first element at each depth."""
    sizes = []
    while _is_sequence(data):
        sizes.append(len(data))
        if not len(data):
            break
        data = data[0]
    return sizes


def _check_lengths(data, sizes, dim):
    if dim == len(sizes):
        return
    if not _is_sequence(data):
        raise TypeError("not a sequence")
    if len(data) != sizes[dim]:
        raise ValueError(f"expected sequence of length {sizes[dim]} at dim {dim} "
                         f"(got {len(data)})")
    for d in data:
        _check_lengths(d, sizes, dim + 1)


def _check_overflow(arr, dtype):
    """c10::checked_convert of Python numbers to an integer dtype (unsigned types also take
    negative integers down to -max, which wrap)."""
    if arr.size == 0 or _kind(arr.dtype) not in "biuf" or dtype.is_complex:
        return
    info = xp.iinfo(dtype.np)
    if _kind(arr.dtype) == "f":     # NaN and inf overflow too: integers have neither
        bad = bool(xp.isnan(arr).any()) or arr.min() < info.min or arr.max() > info.max
    else:
        lo = info.min if info.min < 0 else -builtins.int(info.max)
        bad = builtins.int(arr.min()) < lo or builtins.int(arr.max()) > info.max
    if bad:
        raise RuntimeError(f"value cannot be converted to type {dtype.name} without overflow")


def _flat(data):
    for d in data:
        if isinstance(d, (list, tuple)):
            yield from _flat(d)
        else:
            yield d


def _nested_tolist(data):
    if isinstance(data, Tensor):
        return data._data.tolist()
    if isinstance(data, (list, tuple)):
        return [_nested_tolist(d) for d in data]
    return data


def _factory(*signatures):
    """A factory behind the argument layer with PyTorch's overloads (a ``layout`` other than
    None/strided and ``pin_memory`` are refused where the factory looks at them)."""
    return lambda impl: bind(impl, signatures)


@_factory("tensor(PyObject* data, *, ScalarType dtype=None, Device? device=None, "
          "bool pin_memory=False, bool requires_grad=False)")     # (no named tensors: names=)
def tensor(data, *, dtype=None, device=None, pin_memory=False, requires_grad=False):
    _device.check(device, "tensor", op=None)
    _device.check_pin(pin_memory)
    if isinstance(data, Tensor):
        warn("To copy construct from a tensor, it is recommended to use "
             "sourceTensor.detach().clone() or "
             "sourceTensor.detach().clone().requires_grad_(True), rather than "
             "torch.tensor(sourceTensor).")
    arr = _from_data(data, dtype)
    arr = arr.copy() if dtype is None or arr.dtype == dtype.np else arr.astype(dtype.np)
    return _new(arr, None, requires_grad)


@_factory("as_tensor(PyObject* data, *, ScalarType dtype=None, Device? device=None)")
def as_tensor(data, *, dtype=None, device=None):
    _device.check(device, "as_tensor", op=None)
    if isinstance(data, Tensor):
        return data if dtype is None or data.dtype is dtype else data.to(dtype)
    if isinstance(data, ndarray):
        dtypes.from_numpy_dtype(data.dtype)
        return _new(data, dtype, False)
    return tensor(data, dtype=dtype)


@_factory("asarray(PyObject* obj, *, ScalarType? dtype=None, Device? device=None, "
          "bool? copy=None, bool? requires_grad=None)")
def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=None):
    """torch.asarray: obj itself where it is a tensor of the asked dtype (a NumPy array or a
    buffer: a tensor on its memory), a copy where copy=True or the dtype differs (copy=False
    refuses to copy); a sequence becomes a new tensor."""
    _device.check(device, "asarray", op=None)
    source = obj if isinstance(obj, Tensor) else None
    wants_grad = (source is not None and source.requires_grad) if requires_grad is None \
        else requires_grad
    if wants_grad and requires_grad is None:
        warn_once("asarray", "torch.asarray: unspecified requires_grad now defaults to "
                  "obj.requires_grad instead of False. Pass requires_grad=False explicitly to "
                  "get the old behavior and silence this warning. (Triggered internally at "
                  "/__w/pytorch/pytorch/torch/csrc/utils/tensor_new.cpp:1737.)")
    if source is None and isinstance(obj, (ndarray, xp.generic)):
        if isinstance(obj, xp.generic) and copy is False:
            raise RuntimeError("can't alias NumPy scalars. Either remove copy=False or "
                               "transform it in a ndarray. ")
        dtypes.from_numpy_dtype(obj.dtype)
        source = Tensor._make(xp.array(obj) if isinstance(obj, xp.generic) else obj)
        copy = None if isinstance(obj, xp.generic) and copy else copy
    elif source is None and _has_buffer(obj):
        source = frombuffer(obj, dtype=dtype or dtypes.get_default_dtype(),
                            requires_grad=builtins.bool(wants_grad))
    if source is None:
        if copy is False:
            raise ValueError("can't alias arbitrary sequence into a tensor.")
        return tensor(obj, dtype=dtype, requires_grad=builtins.bool(wants_grad))
    wrong_dtype = dtype is not None and dtype is not source.dtype
    if copy or (copy is None and wrong_dtype):
        source = source.to(dtype or source.dtype, copy=builtins.bool(copy))
    elif wrong_dtype:
        names = dtypes.SCALAR_NAMES
        raise ValueError(f"can't alias tensor with dtype '{names[source.dtype.name]}' into "
                         f"dtype '{names[dtype.name]}'.")
    if not source.is_leaf and not wants_grad:
        return source.detach()
    if source.requires_grad != builtins.bool(wants_grad):
        source.requires_grad = builtins.bool(wants_grad)
    return source


def _has_buffer(obj):
    try:
        memoryview(obj).release()
    except TypeError:
        return False
    return True


@_factory("frombuffer(PyObject* buffer, *, ScalarType dtype, int64_t count=-1, "
          "int64_t offset=0, bool requires_grad=False)")
def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-d tensor on the bytes of an object with the buffer protocol (a read-only buffer is
    copied, with torch's warning: glassgrad's arrays cannot write into it)."""
    try:
        view = memoryview(buffer).cast("B")
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    size, length = xp.dtype(dtype.np).itemsize, len(view)
    if length <= 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if not 0 <= offset < length:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than "
                         f"buffer length ({length} bytes) minus 1")
    if count < 0 and (length - offset) % size:
        raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} "
                         f"bytes) must be a multiple of element size ({size})")
    count = (length - offset) // size if count < 0 else count
    if offset + count * size > length:
        raise ValueError(f"requested buffer length ({count} * {size} bytes) after offset "
                         f"({offset} bytes) must not be greater than actual buffer length "
                         f"({length} bytes)")
    raw = xp.frombuffer(view, xp.uint8)
    if view.readonly:
        warn_once("frombuffer", "The given buffer is not writable, and PyTorch does not "
                  "support non-writable tensors. This means you can write to the underlying "
                  "(supposedly non-writable) buffer using the tensor. You may want to copy the "
                  "buffer to protect its data or make it writable before converting it to a "
                  "tensor. This type of warning will be suppressed for the rest of this "
                  "program. (Triggered internally at /__w/pytorch/pytorch/torch/csrc/utils/"
                  "tensor_new.cpp:1556.)")
        raw = raw.copy()
    return _new(raw[offset:offset + count * size].view(dtype.np), None, requires_grad)


_BAD_CAPSULE = ("from_dlpack received an invalid capsule. Note that DLTensor capsules can be "
                "consumed only once, so you might have already constructed a tensor from it "
                "once.")


def from_dlpack(ext_tensor, *, device=None, copy=None):
    """A tensor on the memory of a DLPack producer (a tensor of another library, a NumPy
    array) or of a capsule from to_dlpack."""
    _device.check(device, "from_dlpack", op=None)
    if type(ext_tensor).__name__ != "PyCapsule" and not hasattr(ext_tensor, "__dlpack__"):
        raise RuntimeError(_BAD_CAPSULE)
    array = backend_from_dlpack(ext_tensor)
    if array is None:
        raise RuntimeError(_BAD_CAPSULE)
    dtypes.from_numpy_dtype(array.dtype)
    return Tensor._make(array.copy() if copy else array)


def to_dlpack(tensor):
    """A DLPack capsule ("dltensor") over the tensor's memory."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"_to_dlpack(): argument 'data' (position 1) must be Tensor, not "
                        f"{type(tensor).__name__}")
    return backend_to_dlpack(tensor._data)


def from_numpy(ndarray_):
    if not isinstance(ndarray_, ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray_).__name__})")
    dtypes.from_numpy_dtype(ndarray_.dtype)
    return Tensor._make(ndarray_)


def _size(size, negative=None):
    """A factory's sizes as a tuple; torch's error for a negative one (``negative``: the
    factory's own text)."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    size = tuple(builtins.int(s) for s in size)
    bad = [s for s in size if s < 0]
    if bad:
        raise RuntimeError(negative or f"Trying to create tensor with negative dimension "
                                       f"{bad[0]}: {list(size)}")
    return size


def _number(v):
    """A number as torch's messages print it (C++ stream formatting: 6 significant digits)."""
    return f"{v:g}" if isinstance(v, builtins.float) else str(v)


def _dtype(dtype):
    return dtypes.get_default_dtype() if dtype is None else dtype


_OPTIONS = ("ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
            "bool? pin_memory=False, bool? requires_grad=False")


@_factory(f"zeros(SymIntArrayRef size, *, Tensor out=None, {_OPTIONS})")
def zeros(size, *, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False):
    _device.check(device, "zeros")
    _device.check_pin(pin_memory)
    shape = _size((size,), negative="zeros: Dimension size must be non-negative.")
    return _new(xp.zeros(shape, _dtype(dtype).np), None, requires_grad)


@_factory(f"ones(SymIntArrayRef size, *, Tensor out=None, {_OPTIONS})")
def ones(size, *, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False):
    _device.check(device, "ones")
    _device.check_pin(pin_memory)
    return _new(xp.ones(_size((size,)), _dtype(dtype).np), None, requires_grad)


@_factory(f"empty(SymIntArrayRef size, *, MemoryFormat? memory_format=None, Tensor out=None, "
          f"{_OPTIONS})")
def empty(size, *, memory_format=None, dtype=None, layout=None, device=None, pin_memory=False,
          requires_grad=False):
    _device.check(device, "empty")
    _device.check_pin(pin_memory)
    return _new(uninitialized(xp.empty(_size((size,)), _dtype(dtype).np)), None, requires_grad)


@_factory(f"empty_strided(SymIntArrayRef size, SymIntArrayRef stride, *, {_OPTIONS})")
def empty_strided(size, stride, *, dtype=None, layout=None, device=None, pin_memory=False,
                  requires_grad=False):
    _device.check(device, "empty_strided")
    _device.check_pin(pin_memory)
    return _new(strided_array(size, stride, _dtype(dtype).np), None, requires_grad)


def strided_array(size, stride, np_dtype):
    """A new array of ``size`` with element strides ``stride`` in memory of its own (as
    torch's empty_strided lays it out: just the bytes the strides reach)."""
    size, stride = _size((size,)), tuple(builtins.int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError(f"dimensionality of sizes ({len(size)}) must match dimensionality "
                           f"of strides ({len(stride)})")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} and "
                           f"strides={list(stride)}")
    count = 0 if 0 in size else 1 + sum((n - 1) * s for n, s in zip(size, stride))
    flat = uninitialized(xp.empty(count, np_dtype))
    return backend_for(None).as_strided(flat, size, tuple(s * flat.itemsize for s in stride))


@_factory("empty_permuted(SymIntArrayRef size, IntArrayRef physical_layout, *, "
          f"{_OPTIONS})")
def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None,
                   pin_memory=False, requires_grad=False):
    """An empty tensor whose dims lie in memory in the order ``physical_layout`` gives
    (outermost first)."""
    _device.check(device, "empty_permuted")
    _device.check_pin(pin_memory)
    size, order = _size((size,)), [builtins.int(d) for d in physical_layout]
    if len(size) != len(order):
        raise RuntimeError("Number of dimensions in size does not match the length of the "
                           f"physical_layout; i.e. len(size) = {len(size)} is not equal to "
                           f"len(physical_layout) = {len(order)}")
    for i, d in enumerate(order):
        if not 0 <= d < len(size):
            raise RuntimeError(f"Dimension out of range (expected to be between 0 and "
                               f"{len(size) - 1}, but got {d} at index {i}).  NB: negative "
                               "dims not currently supported; file an issue if you want it.")
    if len(set(order)) != len(order):
        raise RuntimeError("Duplicate dim not allowed")
    physical = uninitialized(xp.empty([size[d] for d in order], _dtype(dtype).np))
    return _new(physical.transpose(xp.argsort(order)), None, requires_grad)


@_factory("from_file(c10::string_view filename, bool? shared=None, int64_t? size=0, *, "
          f"{_OPTIONS})")
def from_file(filename, shared=None, size=0, *, dtype=None, layout=None, device=None,
              pin_memory=False, requires_grad=False):
    """A 1-d tensor of size elements on the file's bytes (mapped: shared=True writes reach the
    file, otherwise they stay in memory)."""
    _device.check(device, "from_file")
    dtype = _dtype(dtype)
    nbytes = (size or 0) * xp.dtype(dtype.np).itemsize
    try:
        have = os.path.getsize(filename)
    except OSError as e:
        mode = "read-write" if shared else "read-only"
        raise RuntimeError(f"unable to open file <{filename}> in {mode} mode: {e.strerror} "
                           f"({e.errno})") from None
    if have < nbytes:
        raise RuntimeError(f"file <{filename}> size <{have}> is smaller than the required mapping "
                           f"size <{nbytes}>")
    span = backend_for(None).map_bytes(filename, 0, nbytes, shared=builtins.bool(shared))
    return _new(span.view(dtype.np), None, requires_grad)


@_factory(f"full(SymIntArrayRef size, Scalar fill_value, *, Tensor out=None, {_OPTIONS})")
def full(size, fill_value, *, dtype=None, layout=None, device=None, pin_memory=False,
         requires_grad=False):
    _device.check(device, "full")
    _device.check_pin(pin_memory)
    if dtype is None:
        dtype = dtypes.scalar_dtype(fill_value)
    return _new(xp.full(_size((size,)), fill_value, dtype.np), None, requires_grad)


def _like(input, dtype):
    return input.dtype if dtype is None else dtype


def _array_of(input):
    while input._batched:       # func.vmap's BatchedTensor: made like its physical tensor
        input = input._value
    return input._data


def _made_like(input, data, requires_grad):
    t = _new(data, None, requires_grad)
    if state.vmap is not None:      # func.vmap: what is made like a batched tensor is batched
        if input._batched:
            return state.vmap.like(input, t)
        state.vmap.mark(t, state.vmap.of((input,)))
    return t


_LIKE = ("MemoryFormat? memory_format=None, ScalarType? dtype=None, Layout? layout=None, "
         "Device? device=None, bool? pin_memory=False, bool? requires_grad=False")


def _like_options(input, memory_format, dtype, device, pin_memory, name):
    """A *_like factory's options checked; the result's dtype."""
    _device.check(device, name, like=True)
    _device.check_pin(pin_memory)
    return _like(input, dtype)


def _template(input, memory_format):
    """The array a *_like result is made like: the input's (torch.preserve_format keeps its
    layout), or a row-major one (torch.contiguous_format)."""
    arr = _array_of(input)
    return arr if memory_format in (None, preserve_format) else xp.ascontiguousarray(arr)


# (NumPy's *_like keep the input's layout, as torch's preserve_format does)
@_factory(f"zeros_like(Tensor input, *, {_LIKE})")
def zeros_like(input, *, memory_format=None, dtype=None, layout=None, device=None,
               pin_memory=False, requires_grad=False):
    dtype = _like_options(input, memory_format, dtype, device, pin_memory, "zeros_like")
    return _made_like(input, xp.zeros_like(_template(input, memory_format), dtype.np), requires_grad)


@_factory(f"ones_like(Tensor input, *, {_LIKE})")
def ones_like(input, *, memory_format=None, dtype=None, layout=None, device=None,
              pin_memory=False, requires_grad=False):
    dtype = _like_options(input, memory_format, dtype, device, pin_memory, "ones_like")
    return _made_like(input, xp.ones_like(_template(input, memory_format), dtype.np), requires_grad)


@_factory(f"empty_like(Tensor input, *, {_LIKE})")
def empty_like(input, *, memory_format=None, dtype=None, layout=None, device=None,
               pin_memory=False, requires_grad=False):
    dtype = _like_options(input, memory_format, dtype, device, pin_memory, "empty_like")
    return _made_like(input, uninitialized(xp.empty_like(_template(input, memory_format),
                                                         dtype.np)), requires_grad)


@_factory(f"full_like(Tensor input, Scalar fill_value, *, {_LIKE})")
def full_like(input, fill_value, *, memory_format=None, dtype=None, layout=None, device=None,
              pin_memory=False, requires_grad=False):
    dtype = _like_options(input, memory_format, dtype, device, pin_memory, "full_like")
    return _made_like(input, xp.full_like(_template(input, memory_format), fill_value, dtype.np), requires_grad)


@_factory(f"arange(Scalar end, *, Tensor out=None, {_OPTIONS})",
          f"arange(Scalar start, Scalar end, *, {_OPTIONS})",
          f"arange(Scalar start, Scalar end, Scalar step=1, *, Tensor out=None, {_OPTIONS})")
def arange(start=0, end=None, step=1, *, dtype=None, layout=None, device=None, pin_memory=False,
           requires_grad=False):
    _device.check(device, "arange")
    _device.check_pin(pin_memory)
    if end is None:
        start, end = 0, start
    if not (step > 0 or step < 0):      # (NaN too, as torch's check reads)
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {_number(start)} -> {_number(end)}")
    if dtype is dtypes.bool:
        raise NotImplementedError("\"arange_cpu\" not implemented for 'Bool'")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dtype is None:
        dtype = dtypes.result_type(start, end, step)
        dtype = dtypes.int64 if dtype.category < 2 else dtypes.get_default_dtype()
    n = builtins.max(0, -(-(end - start) // step) if isinstance(end - start, builtins.int)
                     and isinstance(step, builtins.int) else
                     builtins.int(xp.ceil((end - start) / step)))
    data = (start + xp.arange(n, dtype=xp.float64) * step) if dtype.is_floating_point else \
        xp.arange(start, start + n * step, step)[:n]
    return _new(data.astype(dtype.np), None, requires_grad)


@_factory(*(f"linspace({a} start, {b} end, int64_t steps, *, Tensor out=None, {_OPTIONS})"
            for a, b in (("Tensor", "Tensor"), ("Scalar", "Tensor"), ("Tensor", "Scalar"),
                         ("Scalar", "Scalar"))))
def linspace(start, end, steps, *, dtype=None, layout=None, device=None, pin_memory=False,
             requires_grad=False):
    _device.check(device, "linspace")
    _device.check_pin(pin_memory)
    start, end = (_scalar_of(v, name) for v, name in ((start, "start"), (end, "end")))
    dtype = _dtype(dtype)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    work = dtype.np if dtype.is_floating_point else xp.dtype(xp.float64)
    idx = xp.arange(steps)
    if steps > 1:
        step = (work.type(end) - work.type(start)) / work.type(steps - 1)
        half = steps // 2
        data = xp.where(idx < half, work.type(start) + step * idx.astype(work),
                        work.type(end) - step * (steps - 1 - idx).astype(work))
    else:
        data = xp.full(steps, start, work)
    return _new(data.astype(dtype.np), None, requires_grad)


def _scalar_of(value, name):
    """linspace's Tensor start/end: a 0-d tensor's value (torch refuses others)."""
    if not isinstance(value, Tensor):
        return value
    if value.dim() != 0:
        raise RuntimeError(f"linspace only supports 0-dimensional start and end tensors, but got "
                           f"{name} with {value.dim()} dimension(s).")
    return value.item()


@_factory(f"eye(SymInt n, *, Tensor out=None, {_OPTIONS})",
          f"eye(SymInt n, SymInt m, *, Tensor out=None, {_OPTIONS})")
def eye(n, m=None, *, dtype=None, layout=None, device=None, pin_memory=False,
        requires_grad=False):
    _device.check(device, "eye")
    _device.check_pin(pin_memory)
    for name, k in (("n", n), ("m", m)):
        if k is not None and k < 0:
            raise RuntimeError(f"{name} must be greater or equal to 0, got {k}")
    return _new(xp.eye(n, n if m is None else m, dtype=_dtype(dtype).np), None, requires_grad)


def _float_only(dtype, kernel):
    if not (dtype.is_floating_point or dtype.is_complex):
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{dtype.tensor_type[:-len('Tensor')]}'")


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _random_factory(name, head):
    """A random factory behind torch's two overloads of it: with a keyword-only generator
    (torch's first) and without."""
    rest = _LIKE if name.endswith("_like") else f"Tensor out=None, {_OPTIONS}"
    return _factory(f"{name}({head}*, Generator? generator, {rest})", f"{name}({head}*, {rest})")


@_random_factory("rand", "SymIntArrayRef size, ")
def rand(size, *, generator=None, dtype=None, layout=None, device=None, pin_memory=False,
         requires_grad=False):
    _device.check(device, "rand")
    _device.check_pin(pin_memory)
    dtype, shape = _dtype(dtype), _size((size,))
    _float_only(dtype, "check_uniform_bounds")
    data = sample.uniform(engine(generator), _numel(shape), dtype.np).reshape(shape)
    return _new(data, None, requires_grad)


@_random_factory("randn", "SymIntArrayRef size, ")
def randn(size, *, generator=None, dtype=None, layout=None, device=None, pin_memory=False,
          requires_grad=False):
    _device.check(device, "randn")
    _device.check_pin(pin_memory)
    dtype, shape = _dtype(dtype), _size((size,))
    _float_only(dtype, "normal_kernel_cpu")
    data = sample.normal(engine(generator), _numel(shape), dtype.np).reshape(shape)
    return _new(data, None, requires_grad)


def _check_from_to(low, high):
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= "
                           f"to={high}")


@_factory(*(s for head in ("SymInt high, SymIntArrayRef size, ",
                           "SymInt low, SymInt high, SymIntArrayRef size, ")
            for s in (f"randint({head}*, Generator? generator, Tensor out=None, {_OPTIONS})",
                      f"randint({head}*, Tensor out=None, {_OPTIONS})")))
def randint(low=0, high=None, size=None, *, generator=None, dtype=None, layout=None,
            device=None, pin_memory=False, requires_grad=False):
    _device.check(device, "randint")
    _device.check_pin(pin_memory)
    shape = _size((size,))
    _check_from_to(low, high)
    dtype = dtype or dtypes.int64
    data = sample.random_from_to(engine(generator), _numel(shape), dtype.np, high - low, low)
    return _new(data.reshape(shape), None, requires_grad)


@_random_factory("rand_like", "Tensor input, ")
def rand_like(input, *, generator=None, memory_format=None, dtype=None, layout=None,
              device=None, pin_memory=False, requires_grad=False):
    dtype = _like_options(input, memory_format, dtype, device, pin_memory, "rand_like")
    _float_only(dtype, "check_uniform_bounds")
    return _drawn_like(input, dtype, memory_format, requires_grad,
                       lambda like: sample.uniform(engine(generator), like.size, like.dtype))


@_random_factory("randn_like", "Tensor input, ")
def randn_like(input, *, generator=None, memory_format=None, dtype=None, layout=None,
               device=None, pin_memory=False, requires_grad=False):
    dtype = _like_options(input, memory_format, dtype, device, pin_memory, "randn_like")
    _float_only(dtype, "normal_kernel_cpu")
    return _drawn_like(input, dtype, memory_format, requires_grad, lambda like: sample.normal(
        engine(generator), like.size, like.dtype, contiguous=like.flags.c_contiguous))


@_factory(*(s for head in ("SymInt low, SymInt high, ", "Tensor high, ", "SymInt high, ")
            for s in (f"randint_like(Tensor input, {head}*, Generator? generator, {_LIKE})",
                      f"randint_like(Tensor input, {head}*, {_LIKE})")))
def randint_like(input, low=0, high=None, *, generator=None, memory_format=None, dtype=None,
                 layout=None, device=None, pin_memory=False, requires_grad=False):
    dtype = _like_options(input, memory_format, dtype, device, pin_memory, "randint_like")
    high = high.item() if isinstance(high, Tensor) else high
    _check_from_to(low, high)
    return _drawn_like(input, dtype, memory_format, requires_grad, lambda like: sample.random_from_to(
        engine(generator), like.size, like.dtype, high - low, low))


def _drawn_like(input, dtype, memory_format, requires_grad, draw):
    """A random *_like factory's result: laid out as _template gives, its
    memory filled in order by ``draw(like)`` (torch draws into empty_like's result)."""
    like = xp.empty_like(_template(input, memory_format), dtype.np)
    return _new(sample.place(like, draw(like)), None, requires_grad)
