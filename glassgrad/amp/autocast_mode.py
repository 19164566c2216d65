"""autocast: a context manager (and decorator) that never lowers precision in glassgrad."""
import functools
import warnings

from .. import _device, dtypes


def _check_type(device_type, fn):
    if not isinstance(device_type, str):
        raise TypeError(f"{fn}(): argument 'device_type' (position 1) must be str, not "
                        f"{type(device_type).__name__}")
    return _device.device(device_type).type


def is_autocast_available(device_type):
    return _check_type(device_type, "is_autocast_available") in ("cpu", "cuda")


def is_autocast_enabled(device_type=None):
    """Always False: glassgrad never enters an enabled autocast region."""
    if device_type is not None:
        _check_type(device_type, "is_autocast_enabled")
    return False


def get_autocast_dtype(device_type):
    if _check_type(device_type, "get_autocast_dtype") == "cpu":
        raise NotImplementedError("torch.get_autocast_dtype('cpu') is torch.bfloat16, which "
                                  "glassgrad does not have")
    return dtypes.float16


class autocast:
    """torch.autocast(device_type, dtype=None, enabled=True, cache_enabled=None)."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        kind = _device.device(device_type).type
        if kind not in ("cpu", "cuda"):
            raise RuntimeError(f"User specified an unsupported autocast device_type '{kind}'")
        self.device, self.fast_dtype = device_type, dtype
        if enabled and kind == "cuda":
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.",
                          UserWarning, stacklevel=2)
            enabled = False
        elif enabled and dtype is not None and dtype is not dtypes.float16:
            warnings.warn(f"In {kind.upper()} autocast, but the target dtype is not supported. "
                          f"Disabling autocast.\n{kind.upper()} Autocast only supports dtypes "
                          "of torch.bfloat16, torch.float16 currently.", UserWarning,
                          stacklevel=2)
            enabled = False
        elif enabled:
            raise NotImplementedError(
                f"torch.autocast('{device_type}') with enabled=True: glassgrad cannot run ops in "
                "lower precision (bfloat16/float16) automatically; pass enabled=False or cast "
                "explicitly")
        self._enabled = enabled

    def __enter__(self):
        return self

    def __exit__(self, *exc):
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
        args[0]._dtype = None if _device.device(device_type).type == "cpu" else dtypes.float16
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
