"""skip_init: a module built without running its initialisation."""
import inspect

from ... import random
from ..modules.module import Module

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """torch builds the module on the meta device and then allocates it uninitialised, so no
    random number is drawn. glassgrad has no meta device: it builds the module where it was
    asked and restores the random stream afterwards, so the stream is torch's; the parameters
    hold the values of the default initialisation (torch leaves them uninitialised, any
    values)."""
    if not isinstance(module_cls, type) or not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    kwargs.setdefault("device", "cpu")
    with random.fork_rng():
        return module_cls(*args, **kwargs)
