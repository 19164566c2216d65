"""torch.jit: glassgrad runs eagerly, so script and trace hand back the function itself (what
TorchScript computes is what eager code computes, so results never change); ignore, unused and
export mark nothing; saving or loading TorchScript archives is not possible."""
import typing
import warnings

Final = typing.Final


def _deprecated(name):
    warnings.warn(f"`torch.jit.{name}` is deprecated. Please switch to `torch.compile` or "
                  "`torch.export`.", DeprecationWarning, stacklevel=3)


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    _deprecated("script")
    return obj


def trace(func, example_inputs=None, *args, **kwargs):
    _deprecated("trace")
    return func


def ignore(drop=False, **kwargs):
    """@ignore or @ignore(drop=...): the function, unchanged."""
    if callable(drop):
        return drop
    if not isinstance(drop, bool):
        raise RuntimeError(f"Argument to @torch.jit.ignore must be a bool or a function but got "
                           f"{drop}")
    if kwargs.pop("drop_on_export", None) or drop:
        warnings.warn(f"ignore({'drop_on_export=' if not drop else ''}True) has been deprecated. "
                      "TorchScript will now drop the function call on compilation. Use "
                      "torch.jit.unused now. {}", FutureWarning, stacklevel=2)
    return lambda fn: fn


def unused(fn):
    return fn


def export(fn):
    return fn


def is_scripting():
    return False


def is_tracing():
    return False


def annotate(the_type, the_value):
    return the_value


def save(m, f, _extra_files=None):
    raise NotImplementedError("torch.jit.save: glassgrad cannot write TorchScript archives")


def load(f, map_location=None, _extra_files=None, _restore_shapes=False):
    raise NotImplementedError("torch.jit.load: glassgrad cannot read TorchScript archives")
