"""The op table, grouped by kind. A row that declares ``variants`` (defop) is published by name
into its module's namespace: ``publish(globals())`` at the bottom of each ops module makes its
function (listed in the module's ``__all__``, the ``glassgrad.*`` namespace), Tensor method
and in-place method (in ``METHODS``), and its aliases. Public functions with their own argument
checks, composites, ``glassgrad.linalg`` functions (``LINALG``) and dunders are still listed by
hand in each module; the merges below check that no name is defined twice."""
from .. import dtypes
from .._tensor import Tensor
from . import registry as _registry

_PUBLISHED = set()      # the rows publish() has named


def _function(op, name):
    def function(input):
        return op(input)
    function.__name__ = function.__qualname__ = name
    return function


def _inplace(op, name):
    def method(self):
        return _registry.apply_inplace(op, self, (self,), {})
    method.__name__ = method.__qualname__ = name + "_"
    return method


def publish(namespace):
    """Name every row defined since the last call by its declared variants (defop), in
    ``namespace``: an ops module's globals, its ``__all__`` and ``METHODS`` made here if not
    yet there. Rows with variants take one tensor, ``self``, and no attrs."""
    for op in _registry.TABLE:
        if not op.variants or op in _PUBLISHED:
            continue
        assert op.inputs == ("self",), op.public
        _PUBLISHED.add(op)
        names, methods = namespace.setdefault("__all__", []), namespace.setdefault("METHODS", {})
        function, inplace = _function(op, op.public), _inplace(op, op.public)
        for name in (op.public, *op.aliases):
            if "function" in op.variants:
                namespace[name] = function
                names.append(name)
            if "method" in op.variants:
                methods[name] = function
            if "inplace" in op.variants:
                methods[name + "_"] = inplace
                if name == op.public:
                    namespace.setdefault(name + "_", inplace)
            if "inplace_function" in op.variants:
                namespace[name + "_"] = inplace
                names.append(name + "_")


from . import conv, indexing, linalg, nn, pointwise, random, reduce, shape  # noqa: E402

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
