"""torch.device, the default device, and the errors of devices glassgrad has no backend for.

glassgrad computes on the CPU (NumPy). A device names where a tensor lives: 'cpu' (any index)
is where every tensor is; the other types parse as torch's do, and asking for a tensor there
raises what PyTorch's CPU build raises (CUDA: ``AssertionError: Torch not compiled with CUDA
enabled``), or NotImplementedError where PyTorch's CPU build could make one (meta tensors).
"""
import re

# c10::DeviceType's numbering (hash and comparisons use it), in torch's parser's order of names
_TYPE_IDS = {"cpu": 0, "cuda": 1, "ipu": 18, "xpu": 12, "mkldnn": 2, "opengl": 3, "opencl": 4,
             "ideep": 5, "hip": 6, "ve": 16, "fpga": 7, "maia": 8, "xla": 9, "lazy": 17,
             "vulkan": 10, "mps": 13, "meta": 14, "hpu": 15, "mtia": 19, "privateuseone": 20}
_DEVICE_STRING = re.compile(r"([a-zA-Z_]+)(?::(0|[1-9][0-9]*))?")
_NO_ACCELERATOR = "Cannot access accelerator device when none is available."


class device:
    """torch.device(type, index=None), device('cuda:1'), device(other_device). Immutable."""
    __slots__ = ("_type", "_index")

    def __init__(self, type=None, index=None):
        if isinstance(type, device) and index is None:
            kind, idx = type._type, type._index
        elif isinstance(type, str):
            if index is not None and not isinstance(index, int):
                raise TypeError(f"device(): argument 'index' (position 2) must be int, not "
                                f"{_typename(index)}")
            kind, idx = _parse(type)
            if index is not None:
                if idx is not None:
                    raise RuntimeError("type (string) must not include an index because index "
                                       f"was passed explicitly: {type}")
                if index < 0:
                    raise RuntimeError("Device index must not be negative")
                idx = index
        elif isinstance(type, int) and not isinstance(type, bool) and index is None:
            raise RuntimeError("Device index must not be negative" if type < 0 else
                               _NO_ACCELERATOR)
        elif isinstance(type, device):
            raise TypeError("device(): argument 'type' (position 1) must be str, not "
                            "torch.device")
        else:
            raise TypeError(
                f"device() received an invalid combination of arguments - got "
                f"({_typename(type)}), but expected one of:\n * (torch.device device)\n      "
                f"didn't match because some of the arguments have invalid types: "
                f"(!{_typename(type)}!)\n * (str type, int index = -1)\n")
        object.__setattr__(self, "_type", kind)
        object.__setattr__(self, "_index", idx)

    @property
    def type(self):
        return self._type

    @property
    def index(self):
        return self._index

    def __setattr__(self, name, value):
        raise AttributeError(f"attribute '{name}' of 'torch.device' objects is not writable")

    def __eq__(self, other):
        # torch compares devices with devices only: device('cpu') == 'cpu' is False
        if not isinstance(other, device):
            return False
        return (self._type, self._index) == (other._type, other._index)

    def __ne__(self, other):
        return not self == other

    def _refuse(self, other):
        raise TypeError("comparison not implemented")

    __lt__ = __le__ = __gt__ = __ge__ = _refuse

    def __hash__(self):
        return (_TYPE_IDS[self._type] << 16) | (-1 if self._index is None else self._index) & 0xFF

    def __repr__(self):
        if self._index is None:
            return f"device(type='{self._type}')"
        return f"device(type='{self._type}', index={self._index})"

    def __str__(self):
        return self._type if self._index is None else f"{self._type}:{self._index}"

    def __format__(self, spec):
        if spec:
            raise TypeError("unsupported format string passed to torch.device.__format__")
        return str(self)

    def __reduce__(self):
        return (device, (self._type,) if self._index is None else (self._type, self._index))

    # `with torch.device('cpu'):` makes it the default device of factories inside
    def __enter__(self):
        _DEFAULT_STACK.append(_default[0])
        set_default_device(self)
        return self

    def __exit__(self, *exc):
        _default[0] = _DEFAULT_STACK.pop()
        return False


device.__module__ = "glassgrad"      # where pickle finds it


def _typename(obj):
    if isinstance(obj, device):
        return "torch.device"
    return type(obj).__name__


def _parse(text):
    if not text:
        raise RuntimeError("Device string must not be empty")
    m = _DEVICE_STRING.fullmatch(text)
    if m is None:
        raise RuntimeError(f"Invalid device string: '{text}'")
    kind, idx = m.group(1), m.group(2)
    if kind not in _TYPE_IDS:
        raise RuntimeError(f"Expected one of {', '.join(_TYPE_IDS)} device type at start of "
                           f"device string: {kind}")
    return kind, None if idx is None else int(idx)


CPU = device("cpu")
_PARSED = {"cpu": CPU}     # device names as_device has parsed
_default = [None]       # the default device (None: cpu), set_default_device's argument parsed
_DEFAULT_STACK = []     # the defaults `with device(...)` blocks replaced


def as_device(obj):
    """A device from what torch accepts as one: a device, a str, an int (an accelerator's
    index)."""
    if isinstance(obj, device):
        return obj
    if isinstance(obj, str):
        dev = _PARSED.get(obj)
        if dev is None:
            dev = _PARSED[obj] = device(obj)     # devices are immutable: parse a name once
        return dev
    if isinstance(obj, int) and not isinstance(obj, bool):
        return device(obj)      # raises: no accelerator
    raise TypeError(f"expected torch.device, not {_typename(obj)}")


def set_default_device(dev):
    _default[0] = None if dev is None else device(dev) if not isinstance(dev, device) else dev


def get_default_device():
    dev = _default[0]
    if dev is None:
        return CPU
    if dev.type not in ("cpu", "meta"):
        unavailable(dev)
    return dev


# the dispatch key names of the backends torch's CPU build knows but has no kernels for
_BACKENDS = {"mps": "MPS", "xla": "XLA", "lazy": "Lazy", "ipu": "IPU", "hip": "HIP", "ve": "VE",
             "fpga": "FPGA", "maia": "MAIA", "vulkan": "Vulkan"}
_CAFFE2 = ("opengl", "opencl", "mkldnn", "ideep")


def unavailable(dev, op=None):
    """Raise what PyTorch's CPU build raises for a tensor on ``dev`` (not a cpu device): made
    by ``op`` (the allocating aten op of a factory of sizes), or moved there (``op`` None: to(),
    data factories)."""
    kind = dev.type
    if kind == "cuda":
        raise AssertionError("Torch not compiled with CUDA enabled")
    if kind == "xpu":
        raise AssertionError("Torch not compiled with XPU enabled")
    if kind == "mtia":
        raise AssertionError(
            "Torch not compiled with MTIA enabled. Ensure you have `import "
            "mtia.host_runtime.torch_mtia.dynamic_library` in your python src file and include "
            "`//mtia/host_runtime/torch_mtia:torch_mtia` as your target dependency!")
    if kind in ("hpu", "privateuseone"):
        raise ModuleNotFoundError(f"No module named 'torch.{kind}'")
    if kind == "meta":
        raise NotImplementedError("glassgrad has no meta tensors: device='meta' is not "
                                  "supported")
    if op is not None and kind in _CAFFE2:
        raise RuntimeError(f"This is a grandfathered Caffe2 device type {kind}, it shouldn't "
                           "ever convert to a DispatchKey (glassgrad computes on the CPU only)")
    if op is not None or kind == "lazy":
        # torch's first sentence; torch lists its dispatch keys after it, glassgrad says why
        raise NotImplementedError(
            f"Could not run 'aten::{op or 'empty.memory_format'}' with arguments from the "
            f"'{_BACKENDS[kind]}' backend. glassgrad computes on the CPU (NumPy) only and has no "
            f"{kind} backend.")
    raise RuntimeError(f"PyTorch is not linked with support for {kind} devices")


_NO_PINNED = ("pin_memory=True requires a CUDA or other accelerator backend; no pinned memory "
              "allocator is available on this system.")


def check_pin(pin_memory):
    """A factory's pin_memory=: pinned memory needs an accelerator."""
    if pin_memory:
        raise RuntimeError(_NO_PINNED)


def check(dev, fn="zeros", op="empty.memory_format", like=False):
    """A factory's ``device=``: None (the default device; for a *_like factory (``like``), the
    input's) or a cpu device pass; any other raises as PyTorch's CPU build does. ``fn`` names
    the factory in the type error; ``op`` is the aten op that allocates its result (None for
    the factories that build on CPU data and move it: tensor, as_tensor, new_tensor)."""
    if dev is None and like:
        return
    if dev is None:
        dev = _default[0]
        if dev is None:
            return
    elif not isinstance(dev, device):
        if not isinstance(dev, (str, int)) or isinstance(dev, bool):
            raise TypeError(f"{fn}(): argument 'device' must be torch.device, not "
                            f"{_typename(dev)}")
        dev = as_device(dev)
    if dev.type != "cpu":
        unavailable(dev, "empty_strided" if like else op)


class OutOfMemoryError(RuntimeError):
    """torch.OutOfMemoryError (torch.cuda.OutOfMemoryError): an accelerator ran out of memory."""


class AcceleratorError(RuntimeError):
    """torch.AcceleratorError: an accelerator runtime reported an error."""


OutOfMemoryError.__module__ = AcceleratorError.__module__ = "glassgrad"
