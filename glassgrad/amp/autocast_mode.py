"""autocast: a context manager (and decorator) that never lowers precision in glassgrad.

Its state is torch's, per device type and thread: a CUDA region disables itself (no CUDA, as on
PyTorch's CPU build), an enabled region for an accelerator glassgrad holds no tensors on
changes nothing, and an enabled CPU region, which would run ops in bfloat16/float16, raises
NotImplementedError."""
import functools
import threading
import warnings

from .. import _device, dtypes
from .._args import bind

# each autocast device type's default lower-precision dtype; hip has a dtype but no autocast
_BF16 = dtypes.bfloat16
_FAST_DTYPES = {"cpu": _BF16, "cuda": dtypes.float16, "ipu": dtypes.float16,
                "xpu": dtypes.float16, "hip": dtypes.float16, "maia": _BF16, "xla": _BF16,
                "mps": dtypes.float16, "hpu": _BF16, "mtia": dtypes.float16,
                "privateuseone": dtypes.float16}
_PRIVATEUSE1 = (
    "Tried to use AMP with the `privateuseone` backend, but the backend has not registered a "
    "module or  the module miss some necessary funcs. The backend should register a module by "
    "`torch._register_device_module`, and the module must have these funcs: \n"
    "`get_amp_supported_dtype() -> List[torch.dtype]`. \n")
_CPU_REFUSED = ("glassgrad cannot run ops in lower precision (bfloat16/float16) automatically; "
                "pass enabled=False or cast explicitly")
_INIT = "(Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/init.cpp:{}.)"
_state = threading.local()      # this thread's autocast state, as torch keeps it per thread


def _local():
    """This thread's state: enabled and dtype per device type, the cache flag, the nesting."""
    if not hasattr(_state, "enabled"):
        _state.enabled, _state.dtype, _state.cache, _state.nesting = {}, {}, True, 0
    return _state


def _enabled_types():
    return _local().enabled


def _check_type(device_type, fn):
    if not isinstance(device_type, str):
        raise TypeError(f"{fn}(): argument 'device_type' (position 1) must be str, not "
                        f"{type(device_type).__name__}")
    return _device.device(device_type).type


def _deprecated(old, new, line):
    warnings.warn(f"torch.{old} is deprecated. Please use torch.{new} instead. "
                  + _INIT.format(line), DeprecationWarning, stacklevel=3)


def _one_argument(name, args):
    if len(args) != 1:
        raise TypeError(f"torch.{name}() takes exactly one argument ({len(args)} given)")
    return args[0]


def is_autocast_available(device_type):
    kind = _check_type(device_type, "_is_autocast_available")
    return kind in _FAST_DTYPES and kind != "hip"


def is_autocast_enabled(device_type=None):
    kind = "cuda" if device_type is None else _check_type(device_type, "is_autocast_enabled")
    return _enabled_types().get(kind, False)


def get_autocast_dtype(device_type):
    kind = _check_type(device_type, "get_autocast_dtype")
    if kind not in _FAST_DTYPES:
        raise RuntimeError("unsupported scalarType")
    return _local().dtype.get(kind, _FAST_DTYPES[kind])


def _set_enabled(device_type, enabled):
    kind = _device.device(device_type).type
    if kind not in _FAST_DTYPES:
        raise RuntimeError("unknown device type for autocast in "
                           "get_autocast_dispatch_key_from_device_type")
    if enabled and kind == "cpu":
        raise NotImplementedError("enabling CPU autocast: " + _CPU_REFUSED)
    _enabled_types()[kind] = enabled


def _set_autocast_enabled(device_type="cuda", enabled=None):
    """Records the state (a CUDA or other accelerator region changes no CPU op); enabling
    CPU autocast is refused, as glassgrad would silently compute in full precision."""
    _set_enabled(device_type, enabled)


def _set_autocast_dtype(device_type, dtype):
    _local().dtype[_device.device(device_type).type] = dtype


set_autocast_enabled = bind(_set_autocast_enabled, [
    "set_autocast_enabled(c10::string_view device_type, bool enabled)",
    "set_autocast_enabled(bool enabled)"])
set_autocast_dtype = bind(_set_autocast_dtype, [
    "set_autocast_dtype(c10::string_view device_type, ScalarType dtype)"])


def _checked(value, kind, what):
    if not isinstance(value, kind):
        raise TypeError(f"{what} (got {type(value).__name__})")
    return value


def is_autocast_cpu_enabled(*args):
    _no_arguments("is_autocast_cpu_enabled", args)
    _deprecated("is_autocast_cpu_enabled()", "is_autocast_enabled('cpu')", 883)
    return is_autocast_enabled("cpu")


def set_autocast_cpu_enabled(*args):
    enabled = _checked(_one_argument("set_autocast_cpu_enabled", args), bool,
                       "enabled must be a bool")
    _deprecated("set_autocast_cpu_enabled(enabled)", "set_autocast_enabled('cpu', enabled)", 874)
    _set_enabled("cpu", enabled)


def get_autocast_cpu_dtype(*args):
    _no_arguments("get_autocast_cpu_dtype", args)
    _deprecated("get_autocast_cpu_dtype()", "get_autocast_dtype('cpu')", 1016)
    return get_autocast_dtype("cpu")


def get_autocast_gpu_dtype(*args):
    _no_arguments("get_autocast_gpu_dtype", args)
    _deprecated("get_autocast_gpu_dtype()", "get_autocast_dtype('cuda')", 1007)
    return get_autocast_dtype("cuda")


def set_autocast_cpu_dtype(*args):
    dtype = _checked(_one_argument("set_autocast_cpu_dtype", args), dtypes.dtype,
                     "dtype must be a torch.dtype")
    _deprecated("set_autocast_cpu_dtype(dtype)", "set_autocast_dtype('cpu', dtype)", 967)
    _local().dtype["cpu"] = dtype


def set_autocast_gpu_dtype(*args):
    dtype = _checked(_one_argument("set_autocast_gpu_dtype", args), dtypes.dtype,
                     "dtype must be a torch.dtype")
    _deprecated("set_autocast_gpu_dtype(dtype)", "set_autocast_dtype('cuda', dtype)", 952)
    _local().dtype["cuda"] = dtype


def is_autocast_cache_enabled(*args):
    _no_arguments("is_autocast_cache_enabled", args)
    return _local().cache


def set_autocast_cache_enabled(*args):
    enabled = _one_argument("set_autocast_cache_enabled", args)
    _local().cache = _checked(enabled, bool, "enabled must be a bool")


def clear_autocast_cache(*args):
    """torch.clear_autocast_cache: glassgrad's autocast casts nothing, so caches nothing."""
    _no_arguments("clear_autocast_cache", args)


def autocast_increment_nesting(*args):
    _no_arguments("autocast_increment_nesting", args)
    _local().nesting += 1
    return _local().nesting


def autocast_decrement_nesting(*args):
    _no_arguments("autocast_decrement_nesting", args)
    _local().nesting -= 1
    return _local().nesting


def _no_arguments(name, args):
    if args:
        raise TypeError(f"torch.{name}() takes no arguments ({len(args)} given)")


class autocast:
    """torch.autocast(device_type, dtype=None, enabled=True, cache_enabled=None)."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        kind = _device.device(device_type).type
        if dtype is None and kind not in _FAST_DTYPES:
            raise RuntimeError("unsupported scalarType")
        if kind == "privateuseone":
            raise AssertionError(_PRIVATEUSE1)
        if not is_autocast_available(kind):
            raise RuntimeError(f"User specified an unsupported autocast device_type '{kind}'")
        self.device, self.fast_dtype = kind, dtype or get_autocast_dtype(kind)
        self._cache_enabled = (is_autocast_cache_enabled() if cache_enabled is None
                               else cache_enabled)
        self._enabled = enabled and self._can_enable(kind, self.fast_dtype)

    @staticmethod
    def _can_enable(kind, dtype):
        if kind == "cuda":
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.",
                          UserWarning, stacklevel=3)
            return False
        if dtype not in (dtypes.bfloat16, dtypes.float16):
            warnings.warn(f"In {kind.upper()} autocast, but the target dtype is not supported. "
                          f"Disabling autocast.\n{kind.upper()} Autocast only supports dtypes "
                          "of torch.bfloat16, torch.float16 currently.", UserWarning,
                          stacklevel=3)
            return False
        if kind == "cpu":
            raise NotImplementedError("torch.autocast('cpu') with enabled=True: " + _CPU_REFUSED)
        return True     # a device glassgrad holds no tensors on: no op is affected

    def __enter__(self):
        self._prev = (is_autocast_cache_enabled(), is_autocast_enabled(self.device),
                      get_autocast_dtype(self.device))
        _set_enabled(self.device, self._enabled)
        _set_autocast_dtype(self.device, self.fast_dtype)
        autocast_increment_nesting()
        _local().cache = self._cache_enabled
        return self

    def __exit__(self, *exc):
        autocast_decrement_nesting()
        local = _local()
        local.cache, local.enabled[self.device], local.dtype[self.device] = self._prev
        return False

    def __call__(self, func):
        if not callable(func):
            raise TypeError(
                f"autocast()(func) requires a callable, but got {type(func).__name__}. Did you "
                "mean to use autocast as a context manager? For example:\n    with "
                "torch.autocast(device_type=...):\n        output = model(input)")

        @functools.wraps(func)
        def decorated(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return decorated


def _check_device_type(device_type):
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Decorates a custom Function's forward: records on ctx that autocast was off (it always
    is in glassgrad), so cast_inputs never applies, and runs forward as it is."""
    _check_device_type(device_type)
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        args[0]._dtype = _FAST_DTYPES.get(_device.device(device_type).type)
        args[0]._fwd_used_autocast = False
        return fwd(*args, **kwargs)
    return decorate_fwd


def custom_bwd(bwd=None, *, device_type):
    """Decorates a custom Function's backward: runs it in forward's autocast state (off)."""
    _check_device_type(device_type)
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        with autocast(device_type, enabled=args[0]._fwd_used_autocast, dtype=args[0]._dtype):
            return bwd(*args, **kwargs)
    return decorate_bwd
