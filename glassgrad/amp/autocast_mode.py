"""autocast: a context manager (and decorator) that never lowers precision in glassgrad.

Its state is torch's, per device type and thread: a CUDA region disables itself (no CUDA, as on
PyTorch's CPU build), an enabled region for an accelerator glassgrad holds no tensors on
changes nothing, and an enabled CPU region, which would run ops in bfloat16/float16, raises
NotImplementedError."""
import functools
import threading
import warnings

from .. import _device, dtypes

# each autocast device type's default lower-precision dtype: None is bfloat16, which glassgrad
# does not have; hip has a dtype but no autocast
_FAST_DTYPES = {"cpu": None, "cuda": dtypes.float16, "ipu": dtypes.float16,
                "xpu": dtypes.float16, "hip": dtypes.float16, "maia": None, "xla": None,
                "mps": dtypes.float16, "hpu": None, "mtia": dtypes.float16,
                "privateuseone": dtypes.float16}
_PRIVATEUSE1 = (
    "Tried to use AMP with the `privateuseone` backend, but the backend has not registered a "
    "module or  the module miss some necessary funcs. The backend should register a module by "
    "`torch._register_device_module`, and the module must have these funcs: \n"
    "`get_amp_supported_dtype() -> List[torch.dtype]`. \n")
_state = threading.local()      # device type -> enabled, for this thread


def _enabled_types():
    if not hasattr(_state, "enabled"):
        _state.enabled = {}
    return _state.enabled


def _check_type(device_type, fn):
    if not isinstance(device_type, str):
        raise TypeError(f"{fn}(): argument 'device_type' (position 1) must be str, not "
                        f"{type(device_type).__name__}")
    return _device.device(device_type).type


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
    if _FAST_DTYPES[kind] is None:
        raise NotImplementedError(f"torch.get_autocast_dtype('{kind}') is torch.bfloat16, which "
                                  "glassgrad does not have")
    return _FAST_DTYPES[kind]


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
        self.device, self.fast_dtype = kind, dtype or _FAST_DTYPES[kind]
        self._enabled = enabled and self._can_enable(kind, dtype)

    @staticmethod
    def _can_enable(kind, dtype):
        if kind == "cuda":
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.",
                          UserWarning, stacklevel=3)
            return False
        if dtype is not None and dtype is not dtypes.float16:
            warnings.warn(f"In {kind.upper()} autocast, but the target dtype is not supported. "
                          f"Disabling autocast.\n{kind.upper()} Autocast only supports dtypes "
                          "of torch.bfloat16, torch.float16 currently.", UserWarning,
                          stacklevel=3)
            return False
        if kind == "cpu":
            raise NotImplementedError(
                "torch.autocast('cpu') with enabled=True: glassgrad cannot run ops in lower "
                "precision (bfloat16/float16) automatically; pass enabled=False or cast "
                "explicitly")
        return True     # a device glassgrad holds no tensors on: no op is affected

    def __enter__(self):
        enabled = _enabled_types()
        self._prev = enabled.get(self.device, False)
        enabled[self.device] = self._enabled
        return self

    def __exit__(self, *exc):
        _enabled_types()[self.device] = self._prev
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
