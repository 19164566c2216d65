"""The legacy API: the tensor types (torch.FloatTensor, ...), the legacy constructors
(torch.Tensor(...), torch.FloatTensor(...), Tensor.new(...)), set_default_tensor_type,
Tensor.type() and the new_* factories.

A legacy type is an instance of ``tensortype`` (as torch's are): calling it runs the legacy
constructor with its dtype, and ``isinstance(t, torch.FloatTensor)`` holds for a float32 tensor.
Tensors themselves are always ``Tensor``."""
import builtins
import warnings

from .. import _device, _runtime, dtypes
from .._args import class_name, type_name
from .._creation import _flat, _size, empty, empty_strided, full, ones, tensor, zeros
from .._tensor import _CPP_NAMES, Size, Tensor
from ..backend import ndarray
from . import public, publish
from .shape import _alias as alias, _to

_SIGNATURES = ("\n * (*, torch.device device = None)\n * (torch.Storage storage)\n * (Tensor other)"
               "\n * (tuple of ints size, *, torch.device device = None)\n * (object data, *, "
               "torch.device device = None)\n")


class tensortype(type):
    """The type of torch.FloatTensor, ...: calling one constructs a tensor of its dtype; a
    tensor is an instance of the one of its dtype."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj.dtype is cls.dtype and not cls.is_cuda

    def __call__(cls, *args, **kwargs):
        if cls.is_cuda:
            raise TypeError(f"type torch.cuda.{cls.__name__} not available. Torch not "
                            "compiled with CUDA enabled.")
        return legacy_new(cls.dtype, args, kwargs, check_tensor=True)

    def __repr__(cls):
        return f"<class 'torch.{'cuda.' if cls.is_cuda else ''}{cls.__name__}'>"


def _make_type(dtype, module):
    # __module__ is where glassgrad defines it (pickle finds it there); the repr says torch
    return tensortype(dtype.tensor_type, (), {"dtype": dtype, "is_cuda": module != "glassgrad",
                                              "is_sparse": False, "__module__": module})


TYPES = {d.tensor_type: _make_type(d, "glassgrad") for d in dtypes.ALL}
CUDA_TYPES = {d.tensor_type: _make_type(d, "glassgrad.cuda") for d in dtypes.ALL
              if not d.is_complex}
_PUBLIC = {name: t for name, t in TYPES.items() if not t.dtype.is_complex}   # torch has no
globals().update(_PUBLIC)       # torch.ComplexFloatTensor (x.type() still names it)
__all__ = ["set_default_tensor_type", *_PUBLIC]


def legacy_new(dtype, args, kwargs, check_tensor=False):
    """torch.Tensor(...) (check_tensor False) and torch.FloatTensor(...), ..., Tensor.new(...):
    () empty, (tensor) an alias, (*sizes) or (torch.Size) uninitialised, (data) a copy."""
    device = _legacy_device(args, kwargs)
    if len(args) == 1 and isinstance(args[0], Tensor):
        if device is not None:
            raise RuntimeError("Legacy tensor constructor of the form torch.Tensor(tensor, "
                               "device=device) is not supported.  Use torch.tensor(...) or "
                               "torch.as_tensor(...) instead.")
        return _alias(args[0], dtype if check_tensor else None)
    if len(args) == 1 and (isinstance(args[0], builtins.bool) or
                           not isinstance(args[0], (builtins.int, Size))):
        return _from_data(args[0], dtype)
    size = _legacy_size(tuple(args[0]) if len(args) == 1 and isinstance(args[0], Size) else args)
    return empty(size if size else (0,), dtype=dtype, device=_device.CPU)


def _legacy_device(args, kwargs):
    """The device= of a legacy constructor (None or the CPU); torch's errors for other
    keywords, for a first argument that is no size among several, and for other devices."""
    if builtins.any(k != "device" for k in kwargs) or \
            (len(args) > 1 and not isinstance(args[0], builtins.int)):
        got = ", ".join([type_name(a) for a in args] +
                        [f"{k}={type_name(v)}" for k, v in kwargs.items()])
        raise TypeError(f"new() received an invalid combination of arguments - got ({got}), but "
                        f"expected one of:{_SIGNATURES}")
    device = kwargs.get("device")
    if device is not None:
        device = _device.as_device(device)
        if device.type != "cpu":
            raise RuntimeError(f"legacy constructor expects device type: cpu but device type: "
                               f"{device.type} was passed")
    return device


def _legacy_size(size):
    for i, s in enumerate(size):
        if not isinstance(s, builtins.int) or isinstance(s, builtins.bool):
            raise TypeError(f"new(): argument 'size' failed to unpack the object at pos {i + 1} "
                            f"with error \"type must be tuple of ints,but got "
                            f"{type(s).__name__}\"")
    bad = [s for s in size if s < 0]
    if bad:
        raise RuntimeError(f"Trying to create tensor with negative dimension {bad[0]}: "
                           f"{list(size)}")
    return size


def _options(dtype):
    return (f"TensorOptions(dtype={_CPP_NAMES[dtype.name]}, device=cpu, layout=Strided, "
            "requires_grad=false (default), pinned_memory=false (default), "
            "memory_format=(nullopt))")


def _alias(other, dtype):
    if dtype is not None and other.dtype is not dtype:
        raise TypeError(f"expected {_options(dtype)} (got {_options(other.dtype)})")
    return alias(other)


def _from_data(data, dtype):
    if isinstance(data, str):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    if not isinstance(data, (list, tuple, ndarray)):
        raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
    if not dtype.is_floating_point and isinstance(data, (list, tuple)) and builtins.any(
            isinstance(d, Tensor) and d.is_floating_point() for d in _flat(data)):
        # torch reads each element tensor as an index for integer types
        raise TypeError("only integer tensors of a single element can be converted to an index")
    return tensor(data, dtype=dtype, device=_device.CPU)


def _tensor_new(cls, *args, **kwargs):
    """torch.Tensor(...): the legacy constructor with the default dtype (a tensor argument
    keeps its own)."""
    return legacy_new(dtypes.get_default_dtype(), args, kwargs)


Tensor.__new__ = staticmethod(_tensor_new)

_warned = [False]
_DEPRECATED = ("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
               "torch.set_default_dtype() and torch.set_default_device() as alternatives. "
               "(Triggered internally at /__w/pytorch/pytorch/torch/csrc/tensor/"
               "python_tensor.cpp:434.)")


def set_default_tensor_type(t):
    """Sets the default dtype from a legacy type or its name ('torch.DoubleTensor'); warns
    once, as torch does."""
    if not _warned[0]:
        _warned[0] = True
        warnings.warn(_DEPRECATED, UserWarning, stacklevel=2)
    if isinstance(t, str):
        t = _resolve(t)
    if not isinstance(t, tensortype):
        raise TypeError("invalid type object: only floating-point types are supported as the "
                        "default type")
    if t.is_cuda:
        raise TypeError(f"type torch.cuda.{t.__name__} not available. Torch not compiled with "
                        "CUDA enabled.")
    dtypes.set_default_dtype(t.dtype)


def _resolve(name):
    """A legacy type's name as torch's _import_dotted_name resolves it."""
    module, _, attr = name.rpartition(".")
    if module == "torch.cuda" and attr in CUDA_TYPES:
        return CUDA_TYPES[attr]
    if module == "torch" and attr in TYPES:
        return TYPES[attr]
    if module == "torch":
        raise AttributeError(f"module 'torch' has no attribute '{attr}'")
    raise ModuleNotFoundError(f"No module named '{name.split('.')[0]}'")

_CUDA_INIT = (
    "Cannot initialize CUDA without ATen_cuda library. PyTorch splits its backend into two "
    "shared libraries: a CPU library and a CUDA library; this error has occurred because you are "
    "trying to use some CUDA functionality, but the CUDA library has not been loaded by the "
    "dynamic linker for some reason.  The CUDA library MUST be loaded, EVEN IF you don't "
    "directly use any symbols from the CUDA library! One common culprit is a lack of "
    "-Wl,--no-as-needed in your link arguments; many dynamic linkers will delete dynamic library "
    "dependencies if you don't depend on any of their symbols.  You can check if this has "
    "occurred by using ldd on your binary to see if there is a dependency on *_cuda.so library.")


@public("method", name="type", method_signatures=(
    "type(Tensor self, PyObject* dtype=None, bool non_blocking=False, *, "
    "MemoryFormat? memory_format=None)",
    "type(Tensor self, PyObject* dtype=None, bool async=False, *, "
    "MemoryFormat? memory_format=None)|deprecated"))
def _type(self, dtype=None, non_blocking=False, *, memory_format=None):
    """type(): the legacy type's name ('torch.FloatTensor'); type(dtype or legacy type or its
    name): this tensor in that dtype (itself when it has it)."""
    if dtype is None:
        return "torch." + self.dtype.tensor_type
    if isinstance(dtype, str):
        if dtype.startswith("torch.cuda."):
            raise RuntimeError(_CUDA_INIT)
        kind = TYPES.get(dtype.removeprefix("torch.")) if dtype.startswith("torch.") else None
        if kind is None:
            raise ValueError(f"invalid type: '{dtype}'")
        dtype = kind.dtype
    elif dtype is Tensor:
        dtype = dtypes.get_default_dtype()
    elif isinstance(dtype, tensortype):
        if dtype.is_cuda:
            raise RuntimeError(_CUDA_INIT)
        dtype = dtype.dtype
    elif isinstance(dtype, type):       # another class: torch reads its name as a type's
        raise ValueError(f"invalid type: '{class_name(dtype)}'")
    elif not isinstance(dtype, dtypes.dtype):
        raise TypeError("dtype must be a type, str, or dtype object")
    return _to(self, dtype)


@public("method")
def new(self, *args, **kwargs):
    """The legacy constructor with this tensor's dtype."""
    return legacy_new(self.dtype, args, kwargs, check_tensor=True)


def _new_size(size):
    return _size(size)      # (new_zeros refuses a negative size as new_ones does, not as zeros)


@public("method", method_signatures=(
    "new_tensor(Tensor self, PyObject* data, *, ScalarType dtype=None, Device? device=None, "
    "bool requires_grad=False)",))
def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
    if isinstance(data, Tensor):
        _runtime.warn("To copy construct from a tensor, it is recommended to use "
                      "sourceTensor.detach().clone() or "
                      "sourceTensor.detach().clone().requires_grad_(True), rather than "
                      "tensor.new_tensor(sourceTensor).")
        data = data.detach()._data
    return tensor(data, dtype=dtype or self.dtype, device=_device.CPU if device is None else
                  device, requires_grad=requires_grad)


@public("method", method_signatures=(
    "new_zeros(Tensor self, SymIntArrayRef size, *, ScalarType? dtype=None, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=False, bool? requires_grad=False)",))
def new_zeros(self, size, *, dtype=None, device=None, requires_grad=False, layout=None,
              pin_memory=False):
    _device.check_pin(pin_memory)
    return zeros(_new_size(size), dtype=dtype or self.dtype, device=_device.CPU if device is None else device,
                 requires_grad=requires_grad)


@public("method", method_signatures=(
    "new_ones(Tensor self, SymIntArrayRef size, *, ScalarType? dtype=None, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=False, bool? requires_grad=False)",))
def new_ones(self, size, *, dtype=None, device=None, requires_grad=False, layout=None,
             pin_memory=False):
    _device.check_pin(pin_memory)
    return ones(_new_size(size), dtype=dtype or self.dtype, device=_device.CPU if device is None else device,
                requires_grad=requires_grad)


@public("method", method_signatures=(
    "new_empty(Tensor self, SymIntArrayRef size, *, ScalarType? dtype=None, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=False, bool? requires_grad=False)",))
def new_empty(self, size, *, dtype=None, device=None, requires_grad=False, layout=None,
              pin_memory=False):
    _device.check_pin(pin_memory)
    return empty(_new_size(size), dtype=dtype or self.dtype, device=_device.CPU if device is None else device,
                 requires_grad=requires_grad)


@public("method", method_signatures=(
    "new_empty_strided(Tensor self, SymIntArrayRef size, SymIntArrayRef stride, *, "
    "ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=False, "
    "bool? requires_grad=False)",))
def new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False,
                      layout=None, pin_memory=False):
    return empty_strided(size, stride, dtype=dtype or self.dtype, pin_memory=pin_memory,
                         device=_device.CPU if device is None else device,
                         requires_grad=requires_grad)


@public("method", method_signatures=(
    "new_full(Tensor self, SymIntArrayRef size, Scalar fill_value, *, ScalarType? dtype=None, "
    "Layout? layout=None, Device? device=None, bool? pin_memory=False, bool? requires_grad=False)",))
def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False,
             layout=None, pin_memory=False):
    _device.check_pin(pin_memory)
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"new_full(): argument 'size' (position 1) must be tuple of ints, not "
                        f"{type(size).__name__}")
    return full(tuple(size), fill_value, dtype=dtype or self.dtype,
                device=_device.CPU if device is None else device, requires_grad=requires_grad)


publish(globals())
