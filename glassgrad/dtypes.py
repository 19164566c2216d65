"""dtype objects and PyTorch's type-promotion rules (``torch.result_type``)."""
import builtins as _builtins

from .backend import bfloat16 as _np_bfloat16, finfo as _np_finfo, xp

_BOOL, _INT, _FLOAT, _COMPLEX = 0, 1, 2, 3


class dtype:
    __slots__ = ("name", "np", "kind", "reduced", "is_floating_point", "is_complex", "is_signed",
                 "itemsize", "category", "tensor_type")

    def __init__(self, name, np_dtype, tensor_type):
        self.name = name
        self.np = xp.dtype(np_dtype)
        # NumPy's kind letter as torch sees the dtype (bfloat16 is "f"; ml_dtypes says "V")
        self.kind = kind = "f" if self.np == _np_bfloat16 else self.np.kind
        self.reduced = self.np.itemsize == 2 and kind == "f"    # float16, bfloat16
        self.category = {"b": _BOOL, "f": _FLOAT, "c": _COMPLEX}.get(kind, _INT)
        self.is_floating_point = self.category == _FLOAT
        self.is_complex = self.category == _COMPLEX
        self.is_signed = kind in "ifc"
        self.itemsize = self.np.itemsize
        self.tensor_type = tensor_type

    def to_real(self):
        """The real dtype of a complex one's parts (itself for a real dtype)."""
        return _FROM_NP[self.np.type(0).real.dtype] if self.category == _COMPLEX else self

    def to_complex(self):
        """The complex dtype whose parts are this floating dtype (itself for a complex one)."""
        if self.category == _COMPLEX:
            return self
        if self is float16:
            raise NotImplementedError("glassgrad has no complex32 (torch.chalf): NumPy cannot "
                                      "compute in half-precision complex")
        return complex128 if self is float64 else complex64

    def __repr__(self):
        return "torch." + self.name

    def __reduce__(self):
        return self.name


float16 = dtype("float16", xp.float16, "HalfTensor")
float32 = dtype("float32", xp.float32, "FloatTensor")
float64 = dtype("float64", xp.float64, "DoubleTensor")
bfloat16 = dtype("bfloat16", _np_bfloat16, "BFloat16Tensor")
int8 = dtype("int8", xp.int8, "CharTensor")
int16 = dtype("int16", xp.int16, "ShortTensor")
int32 = dtype("int32", xp.int32, "IntTensor")
int64 = dtype("int64", xp.int64, "LongTensor")
uint8 = dtype("uint8", xp.uint8, "ByteTensor")
bool = dtype("bool", xp.bool_, "BoolTensor")  # noqa: A001 - torch's name
complex64 = dtype("complex64", xp.complex64, "ComplexFloatTensor")
complex128 = dtype("complex128", xp.complex128, "ComplexDoubleTensor")
cfloat, cdouble = complex64, complex128
half, float, double = float16, float32, float64  # noqa: A001
short, int, long = int16, int32, int64  # noqa: A001

ALL = (float16, float32, float64, bfloat16, int8, int16, int32, int64, uint8, bool, complex64,
       complex128)
_FROM_NP = {d.np: d for d in ALL}

_default = [float32]
CACHES = []         # dicts of results that depend on the default dtype (cleared when it changes)
TENSOR_TYPES = set()    # Tensor and its subclasses (_tensor.py adds them; keys read their arrays)


class _TypeInfo:
    """What finfo and iinfo share: torch's repr (numbers as %g) and equality by dtype."""
    _fields = ()

    def __repr__(self):
        fields = ", ".join(f"{k}={getattr(self, k):g}" for k in self._fields)
        return f"{type(self).__name__}({fields}, dtype={self.dtype})"

    def __eq__(self, other):
        return type(other) is type(self) and other.dtype == self.dtype

    def __hash__(self):
        return hash((type(self).__name__, self.dtype))


def _info_dtype(name, type):
    if not isinstance(type, dtype):
        raise TypeError(f"{name}(): argument 'type' (position 1) must be torch.dtype, not "
                        f"{_builtins.type(type).__name__}")
    return type


class finfo(_TypeInfo):  # noqa: N801 - torch's name
    """torch.finfo: the machine limits of a floating dtype (the default dtype if none)."""
    __module__ = "torch"
    _fields = ("resolution", "min", "max", "eps", "smallest_normal", "tiny")

    def __init__(self, type=None):  # noqa: A002 - torch's parameter name
        d = _default[0] if type is None else _info_dtype("finfo", type)
        if not d.is_floating_point:
            raise TypeError("torch.finfo() requires a floating point input type. Use "
                            "torch.iinfo to handle 'torch.finfo'")
        info, number = _np_finfo(d.np), _builtins.float
        self.bits = d.itemsize * 8
        self.eps, self.max, self.min = number(info.eps), number(info.max), number(info.min)
        self.tiny = self.smallest_normal = number(info.smallest_normal)
        self.resolution = 10.0 ** -info.precision
        self.dtype = d.name


class iinfo(_TypeInfo):  # noqa: N801 - torch's name
    """torch.iinfo: the range of an integer dtype."""
    __module__ = "torch"
    _fields = ("min", "max")

    def __init__(self, type):  # noqa: A002 - torch's parameter name
        d = _info_dtype("iinfo", type)
        if d is bool:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if d.category != _INT:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to "
                            "handle 'torch.iinfo'")
        info = xp.iinfo(d.np)
        self.bits, self.min, self.max = d.itemsize * 8, _builtins.int(info.min), \
            _builtins.int(info.max)
        self.dtype = d.name


def get_default_dtype():
    return _default[0]


def set_default_dtype(d):
    """A floating dtype: float16, bfloat16, float32 or float64."""
    if not isinstance(d, dtype):
        raise TypeError("invalid dtype object: only floating-point types are supported as the "
                        "default type")
    if not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _default[0] = d
    for cache in CACHES:    # Python floats promote to the default dtype: cached results go
        cache.clear()


def from_numpy_dtype(np_dtype):
    """The glassgrad dtype of a NumPy dtype; TypeError for the ones torch cannot hold."""
    try:
        return _FROM_NP[np_dtype]
    except KeyError:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{xp.dtype(np_dtype).type.__name__}. "
            "The only supported types are: float64, float32, float16, complex64, complex128, "
            "int64, int32, int16, int8, uint64, uint32, uint16, uint8, and bool.") from None


def promote_types(a, b):
    if a is b:
        return a
    if _COMPLEX in (a.category, b.category) and _FLOAT in (a.category, b.category):
        c, f = (a, b) if a.category == _COMPLEX else (b, a)   # complex parts as wide as both
        return c if c.to_real().itemsize >= f.itemsize else complex128
    if a.category != b.category:
        return a if a.category > b.category else b
    if a.category == _FLOAT or a.category == _COMPLEX:
        if a.category == _FLOAT and a.itemsize == b.itemsize:   # float16 with bfloat16
            return float32
        return a if a.itemsize > b.itemsize else b
    return _FROM_NP[xp.promote_types(a.np, b.np)]


def scalar_dtype(value):
    """The dtype torch gives a Python number (a 'wrapped number')."""
    if isinstance(value, _builtins.bool):
        return bool
    if isinstance(value, _builtins.int):
        return int64
    if isinstance(value, _builtins.complex):
        return _default[0].to_complex()
    return _default[0]


def _combine(higher, lower):
    # c10's combine_categories: a higher-priority operand group keeps its dtype unless a lower
    # group brings a higher category (e.g. an int tensor times a Python float).
    if higher is None:
        return lower
    if lower is None or higher.category >= _FLOAT and higher.category >= lower.category:
        return higher
    if lower.category == _COMPLEX:     # a float group keeps its width: float64 * 1j is cdouble
        return higher.to_complex() if higher.category == _FLOAT else lower
    if higher is bool or lower.category == _FLOAT:
        return promote_types(higher, lower)
    return higher


_RESULT_TYPES = {}
CACHES.append(_RESULT_TYPES)


def operand_key(operands):
    """What torch.result_type depends on: per tensor its dtype and whether it is 0-d, per
    Python number its type (None for anything else). Hashable; equal keys give equal results."""
    key = []
    for op in operands:
        t = type(op)
        if t in TENSOR_TYPES:
            d = op._data
            key.append(d.dtype.char)
            key.append(d.ndim == 0)
        elif t is _builtins.float or t is _builtins.int or t is _builtins.bool or \
                t is _builtins.complex:
            key.append(t)
        else:
            return None
    return tuple(key)


def result_type(*operands):
    """torch.result_type for tensors and Python numbers (any number of operands)."""
    key = operand_key(operands)
    if key is None:
        return _result_type(operands)
    r = _RESULT_TYPES.get(key)
    if r is None:
        r = _RESULT_TYPES[key] = _result_type(operands)
    return r


def _result_type(operands):
    dim_r = zero_r = wrapped_r = None
    for op in operands:
        d = None if isinstance(op, xp.generic) else getattr(op, "dtype", None)
        if d is None:     # a Python number (or a NumPy scalar: the number it holds)
            d = scalar_dtype(op.item() if isinstance(op, xp.generic) else op)
            wrapped_r = d if wrapped_r is None else promote_types(wrapped_r, d)
        elif op.ndim == 0:
            zero_r = d if zero_r is None else promote_types(zero_r, d)
        else:
            dim_r = d if dim_r is None else promote_types(dim_r, d)
    return _combine(dim_r, _combine(zero_r, wrapped_r))


# ATen's ScalarType names, as its messages print them ("result type Float ...")
SCALAR_NAMES = {"float16": "Half", "bfloat16": "BFloat16", "float32": "Float", "float64": "Double", "int8": "Char",
                "int16": "Short", "int32": "Int", "int64": "Long", "uint8": "Byte",
                "bool": "Bool", "complex64": "ComplexFloat", "complex128": "ComplexDouble"}
# their C++ type names, as other messages print them ("expected ... long int, but got float")
C10_NAMES = {"float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float", "float64": "double",
             "int8": "signed char", "int16": "short int", "int32": "int", "int64": "long int",
             "uint8": "unsigned char", "bool": "bool",
             "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}
