"""The op table, grouped by kind. Each module lists its public functions in ``__all__`` (the
``glassgrad.*`` namespace), its Tensor methods in ``METHODS`` and, where it has any, its
``glassgrad.linalg`` functions in ``LINALG``; the merges below check that no name is defined
twice."""
from .. import dtypes
from .._tensor import Tensor
from . import conv, indexing, linalg, nn, pointwise, random, reduce, shape

MODULES = (pointwise, reduce, linalg, shape, indexing, nn, conv, random)


def _merged(attr):
    out = {}
    for module in MODULES:
        table = getattr(module, attr, {})
        clash = out.keys() & table.keys()
        assert not clash, f"{module.__name__} redefines {clash}"
        out.update(table)
    return out


def methods():
    """name -> function (or property) for the Tensor class."""
    out = _merged("METHODS")
    out.update(to=_to, type_as=lambda self, other: _to(self, other.dtype), cpu=lambda self: self)
    for name, d in (("float", dtypes.float32), ("double", dtypes.float64),
                    ("half", dtypes.float16), ("long", dtypes.int64), ("int", dtypes.int32),
                    ("short", dtypes.int16), ("char", dtypes.int8), ("byte", dtypes.uint8),
                    ("bool", dtypes.bool)):
        out[name] = lambda self, _d=d: shape.to_dtype(self, _d)
    return out


def _to(self, *args, **kwargs):
    """to(dtype), to(device), to(other), to(device, dtype): devices other than cpu are refused."""
    dtype = kwargs.get("dtype")
    for a in args:
        if isinstance(a, dtypes.dtype):
            dtype = a
        elif isinstance(a, Tensor):
            dtype = a.dtype
        elif a not in ("cpu", None) and str(a) != "cpu":
            raise RuntimeError(f"glassgrad runs on the CPU only; cannot move to {a!r}")
    if kwargs.get("copy") and (dtype is None or dtype is self.dtype):
        return self.clone()
    return self if dtype is None else shape.to_dtype(self, dtype)


def linalg_functions():
    """name -> function for the glassgrad.linalg namespace."""
    return _merged("LINALG")
