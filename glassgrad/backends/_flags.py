"""Module attributes that keep checked bool flags (torch's PropModule/ContextProp)."""
import contextlib
import sys
import types


class _Flag:
    """A module attribute that keeps a bool; ``setter`` names torch's C++ setter in the error
    for anything else."""

    def __init__(self, default, setter):
        self.default, self.setter = default, setter

    def __set_name__(self, owner, name):
        self.name = "_" + name

    def __get__(self, module, owner=None):
        return module.__dict__.get(self.name, self.default)

    def __set__(self, module, value):
        if not isinstance(value, bool):
            raise RuntimeError(f"{self.setter} expects a bool, but got {type(value).__name__}")
        module.__dict__[self.name] = value


def flag_module(name, **flags):
    """Turn module ``name`` into an instance of a module type with ``flags`` (name -> (default,
    setter name)) as checked attributes, as torch's PropModule does; returns it."""
    attrs = {k: _Flag(*v) for k, v in flags.items()}
    module = sys.modules[name]
    new = type(name.rsplit(".", 1)[1].capitalize() + "Module", (types.ModuleType,), attrs)(name)
    new.__dict__.update(module.__dict__)
    sys.modules[name] = new
    return new


@contextlib.contextmanager
def flags_context(module, **values):
    """Set the module's flags (those not None) for the block, then restore them all."""
    old = {k: getattr(module, k) for k in values}
    try:
        for k, v in values.items():
            if v is not None:
                setattr(module, k, v)
        yield
    finally:
        for k, v in old.items():
            setattr(module, k, v)
