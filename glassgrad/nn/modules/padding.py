"""The padding modules: Constant/Zero/Reflection/Replication/CircularPad1d/2d/3d, each F.pad
with its mode (torch's padding tuple: last dim first, (left, right) per dim)."""
from .. import functional as F
from .module import Module
from .utils import _ntuple

__all__ = [f"{kind}Pad{k}d" for kind in ("Constant", "Zero", "Reflection", "Replication",
                                         "Circular") for k in (1, 2, 3)]


class _PadNd(Module):
    __constants__ = ["padding"]
    mode = None

    def forward(self, input):
        return F.pad(input, self.padding, self.mode)

    def extra_repr(self):
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    __constants__ = ["padding", "value"]

    def __init__(self, value):
        super().__init__()
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class _CircularPadNd(_PadNd):
    mode = "circular"

    def forward(self, input):
        k = len(self.padding) // 2
        if input.dim() not in (k + 1, k + 2):
            raise ValueError(f"expected {k + 1}D or {k + 2}D input (got {input.dim()}D input)")
        return super().forward(input)


def _padding_class(name, base, k, mode=None):
    """A module for k spatial dims: its padding an int (every side) or 2k numbers."""
    to_tuple = _ntuple(2 * k, "_ntuple")

    def __init__(self, padding, *value):
        base.__init__(self, *value)
        self.padding = to_tuple(padding)

    namespace = {"__init__": __init__, "__module__": __name__}
    if mode:
        namespace["mode"] = mode
    return type(name, (base,), namespace)


def _zero_class(k, constant):
    def __init__(self, padding):
        constant.__init__(self, padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"
    return type(f"ZeroPad{k}d", (constant,), {"__init__": __init__, "extra_repr": extra_repr,
                                              "__module__": __name__})


ConstantPad1d = _padding_class("ConstantPad1d", _ConstantPadNd, 1)
ConstantPad2d = _padding_class("ConstantPad2d", _ConstantPadNd, 2)
ConstantPad3d = _padding_class("ConstantPad3d", _ConstantPadNd, 3)
ZeroPad1d, ZeroPad2d, ZeroPad3d = (_zero_class(k, c) for k, c in
                                   ((1, ConstantPad1d), (2, ConstantPad2d), (3, ConstantPad3d)))
ReflectionPad1d, ReflectionPad2d, ReflectionPad3d = (
    _padding_class(f"ReflectionPad{k}d", _PadNd, k, "reflect") for k in (1, 2, 3))
ReplicationPad1d, ReplicationPad2d, ReplicationPad3d = (
    _padding_class(f"ReplicationPad{k}d", _PadNd, k, "replicate") for k in (1, 2, 3))
CircularPad1d, CircularPad2d, CircularPad3d = (
    _padding_class(f"CircularPad{k}d", _CircularPadNd, k) for k in (1, 2, 3))
