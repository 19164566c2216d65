"""The argument layer: public functions and methods take their arguments as PyTorch's argument
parser does (torch/csrc/utils/python_arg_parser.cpp and invalid_arguments.cpp), in one place.

A function declares its overloads in PyTorch's signature language, the same strings the
generated bindings use::

    @parses("sum(Tensor input, *, ScalarType? dtype=None)",
            "sum(Tensor input, IntArrayRef[1]? dim, bool keepdim=False, *, "
            "ScalarType? dtype=None, Tensor? out=None)")
    def sum(input, dim=None, keepdim=False, *, dtype=None, out=None): ...

and gets PyTorch's checks and messages: types (a Tensor is not a list, a bool is not a string,
an int is not a bool), positional and keyword names (with NumPy's ``axis``/``keepdims``/``x``
aliases), ``out=`` (supported, and refused as PyTorch refuses it when autograd is involved),
"received an invalid combination of arguments", "argument 'x' (position n) must be T, not U".
The implementation is then called with the parsed values by name; a call whose positional
arguments have the exact types of an overload (the common case) goes straight through.
"""
import ast
import functools
import inspect
import operator
import warnings
from types import CodeType, FunctionType

from . import _overrides, dtypes
from ._autograd.grad_mode import state
from ._device import device
from ._formats import HONOURED as _HONOURED, layout, memory_format, refuse as _refuse_format
from ._tensor import Size, Tensor, no_arguments
from .backend import xp

_TENSORS = dtypes.TENSOR_TYPES      # Tensor and every subclass (a live set)
# NumPy's names for PyTorch's (torch.sum(a=t, axis=0, keepdims=True) works)
_NUMPY_NAMES = {"dim": ("axis",), "keepdim": ("keepdims",), "input": ("x", "a", "x1"),
                "other": ("x2",)}
# the functions whose Tensor parameters also take Python numbers (PyTorch's list)
_NUMBERS_AS_TENSORS = {
    f + s for f in ("add", "div", "divide", "mul", "multiply", "sub", "subtract", "true_divide",
                    "floor_divide") for s in ("", "_", "_out")} | {"to", "_to_copy", "copy_"}
# the other types a kind accepts, registered by the modules that define them (Generator): see
# accept(); torch.device is below this layer (_tensor.py imports it), so it is named here
_EXTRA = {"Generator": (), "Device": (device,), "Layout": (layout,),
          "MemoryFormat": (memory_format,)}

_TYPE_NAMES = {
    "Tensor": "Tensor", "Scalar": "Number", "int64_t": "int", "SymInt": "int", "double": "float",
    "complex": "complex", "TensorList": "tuple of Tensors", "IntArrayRef": "tuple of ints",
    "SymIntArrayRef": "tuple of ints", "ArrayRef<double>": "tuple of floats",
    "Generator": "torch.Generator", "bool": "bool", "PyObject*": "object",
    "ScalarType": "torch.dtype", "Layout": "torch.layout", "MemoryFormat": "torch.memory_format",
    "Device": "torch.device", "std::string": "str", "c10::string_view": "str",
    "ScalarList": "tuple of Scalars"}

# kinds PyTorch's parser reads as another (a list of optional tensors is a TensorList to it:
# a None element is refused as any non-tensor is)
_KIND_ALIASES = {"c10::List<::std::optional<Tensor>>": "TensorList"}


def accept(kind, cls, torch_name):
    """Let parameters of ``kind`` ('Generator', 'Device', ...) take instances of ``cls``, whose
    type PyTorch's messages call ``torch_name``."""
    _EXTRA[kind] = (*_EXTRA[kind], cls)
    _TORCH_TYPE_NAMES[cls] = torch_name


def type_name(obj):
    """The name PyTorch's messages give an object's type."""
    return class_name(type(obj))


def class_name(t):
    """The name PyTorch's messages give a class (CPython's tp_name: NumPy's scalar types carry
    their module, Python classes their bare name)."""
    if t.__module__ == "numpy":
        return "numpy." + t.__name__
    return _TORCH_TYPE_NAMES.get(t, t.__name__)


# torch's C types carry their module in tp_name
_TORCH_TYPE_NAMES = {dtypes.dtype: "torch.dtype", device: "torch.device", Size: "torch.Size",
                     layout: "torch.layout", memory_format: "torch.memory_format"}


# -- what each kind accepts ------------------------------------------------------------------
def _is_long(obj):
    """An integer that is not a bool: int, a NumPy integer (THPUtils_checkLong)."""
    return type(obj) is int or isinstance(obj, xp.integer) or (
        isinstance(obj, int) and not isinstance(obj, bool))


def _is_index(obj):
    """An int list's element: an integer or anything else with __index__ but a bool (a tensor
    of one integer element), as THPUtils_checkIndex."""
    return _is_long(obj) or (not isinstance(obj, (bool, xp.bool_))
                             and hasattr(type(obj), "__index__"))


def _is_number(obj):
    """A Python or NumPy number (THPUtils_checkScalar)."""
    return isinstance(obj, (int, float, complex, xp.number, xp.bool_))


def _int_list_failure(obj, size):
    """None when ``obj`` is a tuple of ints for an IntArrayRef parameter (PyTorch checks the
    first element only; the others fail later, when unpacked), else the index of the element
    that fails (-1: the object itself)."""
    if isinstance(obj, (tuple, list)):
        if not obj or _is_index(obj[0]):
            return None
        return 0
    if size > 0 and _is_index(obj):
        return None
    return -1


def _check(param, obj):
    """Does ``obj`` fit ``param``? (TensorList raises PyTorch's element error itself.)"""
    kind = param.kind
    if kind == "Tensor":
        return isinstance(obj, Tensor) or param.numbers_as_tensors and _is_number(obj)
    if kind in ("Scalar", "complex", "double"):     # a number of the kind, or a 0-d tensor
        number = (_is_number(obj) if kind == "Scalar" else isinstance(obj, (int, float, xp.number))
                  or kind == "complex" and isinstance(obj, complex))
        return number or isinstance(obj, Tensor) and not obj.requires_grad and obj.dim() == 0
    if kind in ("int64_t", "SymInt"):
        if _is_long(obj):
            return True
        return (isinstance(obj, Tensor) and not obj.requires_grad and obj.dim() == 0
                and not obj.is_floating_point() and obj.dtype is not dtypes.bool)
    if kind == "bool":
        return type(obj) is bool
    if kind in ("IntArrayRef", "SymIntArrayRef"):
        return _int_list_failure(obj, param.size) is None
    if kind == "TensorList":
        if not isinstance(obj, (tuple, list)):
            return False
        for i, item in enumerate(obj):
            if not isinstance(item, Tensor):
                raise TypeError(f"expected Tensor as element {i} in argument {param.index}, "
                                f"but got {type_name(item)}")
        return True
    if kind == "ScalarType":
        return type(obj) is dtypes.dtype or obj in (float, int, bool, complex)
    if kind == "ArrayRef<double>":
        return isinstance(obj, (tuple, list)) and (not obj or isinstance(obj[0], (float, int)))
    if kind == "ScalarList":
        return isinstance(obj, (tuple, list)) and all(_is_number(o) for o in obj)
    if kind in ("std::string", "c10::string_view"):
        return isinstance(obj, str)
    if kind == "Device":
        return _is_long(obj) or isinstance(obj, str) or isinstance(obj, _EXTRA["Device"])
    if kind == "PyObject*":
        return True
    return isinstance(obj, _EXTRA[kind])


def _convert(param, obj, fn):
    """The parsed value: int lists unpacked to ints (PyTorch's error for an element that is
    not one), NumPy scalars and 0-d tensors in number slots as Python numbers."""
    kind = param.kind
    if kind in ("IntArrayRef", "SymIntArrayRef") and isinstance(obj, (tuple, list)):
        out = []
        for i, item in enumerate(obj):
            if not _is_index(item):
                raise TypeError(f"{fn}(): argument '{param.name}' failed to unpack the object "
                                f"at pos {i + 1} with error \"type must be tuple of ints,but got "
                                f"{type_name(item)}\"")
            out.append(int(item))
        return tuple(out)
    if kind in ("int64_t", "SymInt", "IntArrayRef", "SymIntArrayRef") and type(obj) is not int:
        return operator.index(obj)
    if kind in ("Scalar", "double", "complex") and type(obj) not in (int, float, bool, complex):
        return obj.item()
    if kind == "ScalarType" and type(obj) is type:     # dtype=float: Python's type's dtype
        return _PY_DTYPES[obj]
    if kind in ("Layout", "MemoryFormat") and obj not in _HONOURED:
        _refuse_format(obj, fn, param.name)
    return obj


_PY_DTYPES = {float: dtypes.float64, int: dtypes.int64, bool: dtypes.bool}


# -- signatures ------------------------------------------------------------------------------
class Param:
    """One parameter of a signature: ``IntArrayRef[1]? dim=None`` -> kind IntArrayRef, size 1,
    allow_none, optional with its default. ``key``: the name the implementation takes it by."""
    __slots__ = ("name", "key", "kind", "size", "allow_none", "optional", "default", "default_text",
                 "keyword_only", "names", "numbers_as_tensors", "index")

    def __init__(self, text, keyword_only, numbers_as_tensors, index):
        kind, _, rest = text.partition(" ")
        self.allow_none = kind.endswith("?")
        kind = _KIND_ALIASES.get(kind.rstrip("?"), kind.rstrip("?"))
        self.size = 0
        if "[" in kind:
            kind, size = kind[:-1].split("[")
            self.size = int(size)
        if kind not in _TYPE_NAMES:
            raise ValueError(f"unknown parameter type {kind!r} in {text!r}")
        self.kind = kind
        self.name, eq, default = rest.partition("=")
        self.key = self.name
        self.optional = bool(eq)
        self.default_text = default
        self.default = None
        if eq:
            self.allow_none |= default == "None"
            self.default = _default(default)
        self.keyword_only = keyword_only
        self.names = (self.name, *_NUMPY_NAMES.get(self.name, ()))
        self.numbers_as_tensors = numbers_as_tensors
        self.index = index

    def type_name(self):
        return _TYPE_NAMES[self.kind]

    def __str__(self):
        text = f"{self.type_name()} {self.name}"
        return text + f" = {self.default_text}" if self.optional else text


def _default(text):
    """A default's value: a literal, an int list ``{1, 2}``, else (a C++ name such as
    ``contiguous_format``, ``at::Reduction::Mean``) the text itself."""
    if text.startswith("{"):
        return tuple(int(v) for v in text[1:-1].split(",") if v)
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


class Signature:
    """One overload, parsed from PyTorch's signature language. A ``|hidden`` or
    ``|deprecated`` mark (PyTorch's) parses but is not printed in the "expected one of" list;
    a deprecated overload's parameters are in another order than the implementation's, so its
    calls are passed by name."""

    def __init__(self, text, drop_self=False):
        text, _, mark = text.partition("|")
        self.hidden = mark in ("hidden", "deprecated")
        self.deprecated = self.by_name = mark == "deprecated"
        self.defaults = {}      # name -> this overload's default where the implementation's differs
        self.name, _, params = text.partition("(")
        params = params.rstrip(")")
        numbers = self.name in _NUMBERS_AS_TENSORS
        self.params = []
        keyword_only = False
        for p in (params.split(", ") if params else []):
            if p == "*":
                keyword_only = True
            else:
                self.params.append(Param(p, keyword_only, numbers, len(self.params)))
        if drop_self:       # the method: self is the tensor it is called on, no out=
            self.params = [p for p in self.params[1:] if p.name != "out"]
            for i, p in enumerate(self.params):
                p.index = i
        self.min_args = sum(not p.optional for p in self.params)
        self.max_pos = sum(not p.keyword_only for p in self.params)
        self.varargs = (self.max_pos == 1 and self.params[0].kind in (
            "IntArrayRef", "SymIntArrayRef"))

    def __str__(self):
        out, star = [], False
        for p in self.params:
            if p.keyword_only and not star:
                out.append("*")
                star = True
            out.append(str(p))
        return "(" + ", ".join(out) + ")"

    def parse(self, args, kwargs, raise_errors):
        """{name: value} for the parameters given (None where None stands for the default),
        or None when the arguments do not fit (raising PyTorch's error if raise_errors)."""
        nargs = len(args)
        if nargs > self.max_pos and not (self.varargs and _is_index(args[0])):
            return self._fail(raise_errors, self._extra_args, nargs)
        out = {}
        pos = 0
        left = len(kwargs)
        for p in self.params:
            keyword = False
            if pos < nargs:
                if p.keyword_only:
                    return self._fail(raise_errors, self._extra_args, nargs)
                obj = args[pos]
                found = True
            else:
                keyword = True
                found = False
                for n in p.names:
                    if n in kwargs:
                        obj, found = kwargs[n], True
                        break
            if not found or (obj is None and p.allow_none):
                if not found and not p.optional:
                    return self._fail(raise_errors, self._missing, p.index)
                if found:
                    out[p.key] = None
                    if keyword:
                        left -= 1
                    else:
                        pos += 1
                continue
            if _check(p, obj):
                out[p.key] = _convert(p, obj, self.name)
            elif self.varargs and pos == 0 and not keyword and _int_list_failure(args, 1) is None:
                out[p.key] = _convert(p, args, self.name)     # view(2, 3) as view((2, 3))
                pos = nargs
                continue
            elif raise_errors:
                raise TypeError(self._type_error(p, obj, pos, keyword, args))
            else:
                return None
            if keyword:
                left -= 1
            else:
                pos += 1
        if left > 0:
            return self._fail(raise_errors, self._extra_kwargs, kwargs, nargs)
        for name, value in self.defaults.items():
            out.setdefault(name, value)
        return out

    def _fail(self, raise_errors, error, *args):
        if raise_errors:
            raise TypeError(error(*args))
        return None

    def _type_error(self, p, obj, pos, keyword, args):
        if keyword:
            return (f"{self.name}(): argument '{p.name}' must be {p.type_name()}, "
                    f"not {type_name(obj)}")
        failed = (_int_list_failure(obj, p.size) if p.kind in ("IntArrayRef", "SymIntArrayRef")
                  else -1)
        if failed is not None and failed >= 0:
            return (f"{self.name}(): argument '{p.name}' (position {pos + 1}) must be "
                    f"{p.type_name()}, but found element of type {type_name(obj[failed])} at "
                    f"pos {failed}")
        return (f"{self.name}(): argument '{p.name}' (position {pos + 1}) must be "
                f"{p.type_name()}, not {type_name(obj)}")

    def _extra_args(self, nargs):
        if self.min_args != self.max_pos:
            return (f"{self.name}() takes from {self.min_args} to {self.max_pos} positional "
                    f"arguments but {nargs} were given")
        return (f"{self.name}() takes {self.max_pos} positional argument"
                f"{'' if self.max_pos == 1 else 's'} but {nargs} "
                f"{'was' if nargs == 1 else 'were'} given")

    def _missing(self, index):
        missing = [f'"{p.name}"' for p in self.params[index:] if not p.optional]
        # (PyTorch's message says "arguments" for one and "argument" for several)
        return (f"{self.name}() missing {len(missing)} required positional argument"
                f"{'s' if len(missing) == 1 else ''}: {', '.join(missing)}")

    def _extra_kwargs(self, kwargs, nargs):
        for key in kwargs:
            if not isinstance(key, str):
                return "keywords must be strings"
            index = next((p.index for p in self.params if key in p.names), -1)
            if index < 0:
                return f"{self.name}() got an unexpected keyword argument '{key}'"
            if index < nargs:
                return f"{self.name}() got multiple values for argument '{key}'"
        return "invalid keyword arguments"


class Parser:
    """A function's overloads: parse(args, kwargs) -> {name: value} of the first that fits, or
    PyTorch's error."""

    def __init__(self, signatures, method=False):
        self.signatures = [Signature(s, method) for s in signatures]
        self.name = self.signatures[0].name
        self.method = method

    def parse(self, args, kwargs):
        sigs = self.signatures
        if len(sigs) == 1:
            if self.method and not sigs[0].params and (args or kwargs):
                raise no_arguments(self.name, args, kwargs)
            return sigs[0].parse(args, kwargs, True)
        for s in sigs:
            out = s.parse(args, kwargs, False)
            if out is not None:
                return out
        n = len(args) + len(kwargs)
        plausible = [s for s in sigs if s.min_args <= n <= len(s.params) and not s.hidden]
        if len(plausible) == 1:
            plausible[0].parse(args, kwargs, True)
        raise TypeError(invalid_combination(self.name, args, kwargs, sigs))


# -- "received an invalid combination of arguments" (invalid_arguments.cpp) ------------------
# PyTorch re-reads each overload's printed form: its ", "-separated pieces (the "*" and a
# "name = default" piece included) are what the arguments are matched against, by type name.
_MATCHES = {"float": ("float", "int"), "int": ("int",)}


def _piece_type_and_name(piece):
    cut = piece.rfind(" ")
    return (piece, piece) if cut < 0 else (piece[:cut], piece[cut + 1:])


def _matches(type_text, obj):
    return type_name(obj) in _MATCHES.get(type_text, (type_text,))


def _describe(obj):
    if isinstance(obj, (tuple, list)):
        inner = ", ".join(type_name(o) for o in obj)
        if isinstance(obj, tuple):
            return f"tuple of ({inner}{',' if len(obj) == 1 else ''})"
        return f"list of [{inner}]"
    return type_name(obj)


def _kwargs_order(kwargs):
    """The keywords in the order PyTorch's message lists them: it copies them into a C++
    unordered_map, whose order for two keywords is the reverse of the call's (for more it
    depends on the standard library's hashing: reversed is the approximation kept here)."""
    return list(kwargs)[::-1]


def _arg_desc(args, kwargs):
    parts = [type_name(a) + ", " for a in args] + [f"{k}={type_name(kwargs[k])}, "
                                                   for k in _kwargs_order(kwargs)]
    text = "".join(parts)
    if args:
        text = text[:-2]
    return f"({text})"


def _formatted_desc(pieces, args, kwargs):
    out = ""
    given = list(args) + [None] * len(kwargs)
    for i in range(len(given)):
        keyword = i >= len(args)
        type_text, name = _piece_type_and_name(pieces[i])
        obj = kwargs.get(name) if keyword else given[i]
        mark = "" if _matches(type_text, obj) else "!"
        out += mark + (f"{name}=" if keyword else "") + _describe(obj) + mark + ", "
    if args:
        out = out[:-2]
    return f"({out})"


def _unmatched_kwargs(pieces, kwargs):
    start = max(len(pieces) - len(kwargs), 0)
    names = [_piece_type_and_name(p)[1] for p in pieces[start:]]
    return [k for k in _kwargs_order(kwargs) if k not in names]


def invalid_combination(name, args, kwargs, signatures):
    msg = f"{name}() received an invalid combination of arguments - "
    options = [str(s) for s in signatures if not s.hidden]
    if len(options) == 1:
        pieces = options[0][1:-1].split(", ")
        unmatched = _unmatched_kwargs(pieces, kwargs) if kwargs else []
        if unmatched:
            return msg + "got unrecognized keyword arguments: " + ", ".join(unmatched)
        got = (_formatted_desc(pieces, args, kwargs)
               if len(pieces) == len(args) + len(kwargs) else _arg_desc(args, kwargs))
        return msg + f"got {got}, but expected {options[0]}"
    msg += f"got {_arg_desc(args, kwargs)}, but expected one of:\n"
    for option in options:
        pieces = option[1:-1].split(", ")     # ("()": one empty piece, as PyTorch reads it)
        msg += f" * {option}\n"
        if len(pieces) == len(args) + len(kwargs):
            unmatched = _unmatched_kwargs(pieces, kwargs) if kwargs else []
            if unmatched:
                msg += ("      didn't match because some of the keywords were incorrect: "
                        + ", ".join(unmatched) + "\n")
            else:
                msg += ("      didn't match because some of the arguments have invalid types: "
                        + _formatted_desc(pieces, args, kwargs) + "\n")
    return msg


# -- out= ------------------------------------------------------------------------------------
# the functions whose out= must have the result's dtype exactly, and torch's texts
_EXACT_OUT = {
    "argmax": lambda d: f"Expected out tensor to have dtype long int, but got "
                        f"{dtypes.C10_NAMES[d]} instead",
    "all": lambda d: f"all only supports bool tensor for result, got: {dtypes.SCALAR_NAMES[d]}",
    "any": lambda d: f"any only supports bool tensor for result, got: {dtypes.SCALAR_NAMES[d]}"}
_EXACT_OUT["argmin"] = _EXACT_OUT["argmax"]


def _write_out(name, result, out):
    """Copy ``result`` into the tensor(s) ``out`` as PyTorch's out= variants do: resized
    (with PyTorch's warning when it had elements) to the result's shape, cast to its dtype."""
    if isinstance(out, (tuple, list)):
        for r, o in zip(result, out):
            _write_out(name, r, o)
        return out
    if not isinstance(out, Tensor):     # a number, where the function takes numbers as tensors
        out = Tensor._make(xp.asarray(out))
    exact = _EXACT_OUT.get(name)
    if exact is not None and out.dtype is not result.dtype:
        raise RuntimeError(exact(out.dtype.name))
    if result.dtype.category > out.dtype.category:
        names = dtypes.SCALAR_NAMES
        raise RuntimeError(f"result type {names[result.dtype.name]} can't be cast to the desired "
                           f"output type {names[out.dtype.name]}")
    if out.shape != result.shape:
        if out.numel():
            warnings.warn(
                f"An output with one or more elements was resized since it had shape "
                f"{list(out.shape)}, which does not match the required output shape "
                f"{list(result.shape)}. This behavior is deprecated, and in a future PyTorch "
                f"release outputs will not be resized unless they have zero elements. You can "
                f"explicitly reuse an out tensor t by resizing it, inplace, to zero elements "
                f"with t.resize_(0). (Triggered internally at "
                f"/__w/pytorch/pytorch/aten/src/ATen/native/Resize.cpp:30.)", UserWarning,
                stacklevel=4)
        out._data = result._data.astype(out._data.dtype, copy=True)
        out._version_counter.version += 1
        return out
    with _no_grad():
        out.copy_(result)
    return out


class _no_grad:
    def __enter__(self):
        self.prev = state.grad_enabled
        state.grad_enabled = False

    def __exit__(self, *exc):
        state.grad_enabled = self.prev


def _refuse_autograd(name, values):
    """PyTorch refuses out= when grad mode is on and a tensor argument requires grad."""
    if not state.grad:
        return
    for v in values:
        for t in (v if isinstance(v, (tuple, list)) else (v,)):
            if isinstance(t, Tensor) and t.requires_grad:
                raise RuntimeError(f"{name}(): functions with out=... arguments don't support "
                                   f"automatic differentiation, but one of the arguments "
                                   f"requires grad.")


def _match_impl(impl, parser, method):
    """The implementation takes the parsed values by name and, on the fast path, positionally:
    check that its parameters line up with every overload's (a positional parameter PyTorch
    names otherwise, pow's ``Scalar self``, is renamed to the implementation's parameter at
    its place) and that its defaults are the signatures' (the fast path leaves them to it; a
    default of None says the implementation tells "not given" apart itself). Where overloads
    differ in a default (conv1d's padding: 0, or "valid" in the string overload), the
    implementation has one of them and the parser passes the others' (those overloads take no
    fast path). An overload whose parameter the implementation has at another place (var's
    ``bool unbiased`` second) is passed by name only: no fast path."""
    params = list(inspect.signature(impl).parameters.values())[1 if method else 0:]
    by_name = {p.name: p for p in params}
    differing = []      # (signature, param, implementation's parameter)
    for s in parser.signatures:
        if s.by_name:
            continue
        for i, p in enumerate(s.params):
            if p.name == "out":       # the layer writes the result into it
                continue
            target = by_name.get(p.name)
            if target is None and not p.keyword_only and i < len(params):
                p.key = params[i].name
                target = params[i]
            if target is None and params and params[-1].kind is params[-1].VAR_KEYWORD:
                continue
            if target is None:
                raise TypeError(f"{impl.__qualname__} has no parameter {p.name!r} of {s.name}")
            if target.kind is target.VAR_POSITIONAL:
                raise TypeError(f"{impl.__qualname__}: {p.name!r} of {s.name} is one value, not "
                                f"*{p.name}")
            if not p.keyword_only and (params.index(target) != i
                                       or target.kind is target.KEYWORD_ONLY):
                s.by_name = True
            if p.optional and target.default is not inspect.Parameter.empty and \
                    target.default != p.default and None not in (p.default, target.default) \
                    and p.default != p.default_text:
                differing.append((s, p, target))
    for s, p, target in differing:
        if not any(o.name == p.name and o.default == target.default
                   for o in (q for t in parser.signatures for q in t.params)):
            raise TypeError(f"{impl.__qualname__}: default of {p.name!r} differs from {s.name}'s")
        s.defaults[p.key] = p.default


# -- plans: a call shaped as one parsed before skips the parse ---------------------------------
# A call's shape is its positional arguments' types, its keyword names and their values' types.
# Where every value has one of its parameter's fast types (_fast_types) or is a non-empty int
# list for an int-list parameter, which overload fits and what the values become is decided by
# the shape alone, except where a tensor meets a number parameter of some overload (a 0-d tensor
# may fill it): such shapes get no plan.
_VALUE_DEPENDENT = {"Scalar", "complex", "double", "int64_t", "SymInt"}


def _int_tuple(obj):
    """A non-empty list or tuple of ints as a tuple; None otherwise (the parser decides)."""
    if not obj:
        return None
    for item in obj:
        if type(item) is not int:
            return None
    return tuple(obj)


def _slot(signature, position, keyword):
    """The parameter of ``signature`` a value given at ``position`` (or by ``keyword``) fills."""
    if keyword is None:
        positional = [p for p in signature.params if not p.keyword_only]
        return positional[position] if position < len(positional) else None
    return next((p for p in signature.params if keyword in p.names), None)


def _may_fit(signature, nargs, kwargs):
    """Whether some call with ``nargs`` positional values and these keywords can fit
    ``signature`` (the count, the names and the required parameters; not the values)."""
    if nargs > signature.max_pos and not signature.varargs:
        return False
    rest = signature.params[nargs:]
    if any(not any(n in p.names for p in rest) for n in kwargs):
        return False
    return all(p.optional or any(n in kwargs for n in p.names) for p in rest)


def _plan(parser, args, kwargs):
    """(((implementation name, position or keyword, converter or None), ...), the overload's
    defaults that differ from the implementation's) for calls shaped as this one (parsed: it
    fits), or None where the shape does not decide the parse."""
    given = [(i, None, v) for i, v in enumerate(args)] + [(None, k, v) for k, v in kwargs.items()]
    sigs = parser.signatures
    match = next(s for s in sigs if s.parse(args, kwargs, False) is not None)
    # the first overload that fits wins: a tensor in a value-dependent slot of the match, or of
    # an overload before it that calls of this shape could fit, leaves the parse to the values
    for s in sigs[:sigs.index(match) + 1]:
        if s is not match and not _may_fit(s, len(args), kwargs):
            continue
        for i, k, v in given:
            p = _slot(s, i, k)
            if p is not None and type(v) in _TENSORS and p.kind in _VALUE_DEPENDENT:
                return None
    if match.varargs and len(args) > 1 or match.varargs and args and type(args[0]) is int \
            and _fast_types(match.params[0]) is None:       # view(2, 3): the ints are the list
        if kwargs or _int_tuple(args) is None:
            return None
        return ((match.params[0].key, "*", _int_tuple),), match.defaults
    plan = []
    for i, k, v in given:
        p = _slot(match, i, k)
        if p.name == "out":
            return None
        if type(v) in (_fast_types(p) or ()):
            convert = None
        elif p.kind in ("IntArrayRef", "SymIntArrayRef") and type(v) in (tuple, list, Size) \
                and _int_tuple(v) is not None:
            convert = _int_tuple
        else:
            return None
        plan.append((p.key, k if i is None else i, convert))
    return tuple(plan), match.defaults


def _planned(plan, args, kwargs):
    """The implementation's values for a call of a planned shape; None where a converter
    refuses a value (the parser then gives the error, or the other overload)."""
    entries, defaults = plan
    values = dict(defaults) if defaults else {}
    for name, source, convert in entries:
        v = args if source == "*" else args[source] if type(source) is int else kwargs[source]
        if convert is not None:
            v = convert(v)
            if v is None:
                return None
        values[name] = v
    return values


# -- the decorator ---------------------------------------------------------------------------
_FAST_TYPES = {"Tensor": _overrides.PLAIN, "bool": {bool}, "int64_t": {int}, "SymInt": {int},
               "double": {float, int}, "Scalar": {int, float, bool}}


def _fast_types(p):
    """The exact types that may skip parsing in this parameter's slot (None: none may)."""
    if p.kind in ("IntArrayRef", "SymIntArrayRef") and p.size:
        return {int}
    return _FAST_TYPES.get(p.kind)


@functools.lru_cache(maxsize=None)
def _binder_code(source):
    """The code of the binder function ``source`` defines: binders of the same shape (their
    overloads' arities and type tests; names and types live in each one's globals) share one
    compile, which import time would otherwise pay a thousand times. (Tracebacks count it as
    glassgrad's: it is compiled under this file's name.)"""
    module = compile(source, __file__, "exec")
    return next(c for c in module.co_consts if isinstance(c, CodeType))


def bind(impl, signatures, method=False, positional=False):
    """``impl`` behind the parser of ``signatures``: the public function (or, method=True, the
    Tensor method: the first parameter is the tensor it is called on). positional=True: impl
    (an op row, a forwarder) takes the values positionally, in the order of the signatures'
    positional parameters, up to the first one not given; the others by name (out= excepted)."""
    parser = Parser(signatures, method)
    name = parser.name
    has_out = any(p.name == "out" for s in parser.signatures for p in s.params)
    if positional:
        order = list(dict.fromkeys(p.name for s in parser.signatures for p in s.params
                                   if not p.keyword_only))
        target = impl

        def impl(*args, **values):
            given = []
            for n in order:
                if n not in values:
                    break
                given.append(values.pop(n))
            return target(*args, *given, **values)
    else:
        _match_impl(impl, parser, method)
    fast = []       # (arity, exact types per position) of calls that go straight through
    for s in parser.signatures:
        if s.by_name or s.defaults:
            continue
        types = [_fast_types(p) for p in s.params if not p.keyword_only]
        for n in range(s.min_args, s.max_pos + 1):
            if all(t is not None for t in types[:n]) and s.min_args <= n:
                fast.append((n, tuple(types[:n])))

    plans = {}      # a call's shape (see slow) -> its plan (_plan), or False: none

    def slow(self, args, kwargs):
        key = (type(self), *map(type, args), *kwargs, *map(type, kwargs.values()))
        plan = plans.get(key)
        if plan:    # (its values are plain tensors, numbers and int lists: no override)
            values = _planned(plan, args, kwargs)
            if values is not None:
                return impl(**values) if self is None else impl(self, **values)
        overrides = _overrides.overloaded(args if self is None else (self, *args), kwargs)
        if overrides:   # a __torch_function__ type among the arguments: it takes the call
            return _overrides.dispatch(public, args if self is None else (self, *args), kwargs,
                                       overrides)
        values = parser.parse(args, kwargs)
        out = values.pop("out", None) if has_out else None
        if out is not None:
            _refuse_autograd(name, [self, out, *values.values()])
        elif plan is None and (self is None or type(self) in _overrides.PLAIN):
            plans[key] = _plan(parser, args, kwargs) or False
        result = impl(**values) if self is None else impl(self, **values)
        return result if out is None else _write_out(name, result, out)

    # the fast path, spelled out per overload and arity (a loop would cost more than it saves)
    scope = {"impl": target if positional else impl, "slow": slow}
    tests = []
    for k, (n, types) in enumerate(fast):
        for i, t in enumerate(types):
            scope[f"t{k}_{i}"] = t
        tests.append(" and ".join([f"n == {n}"] + [f"type(args[{i}]) in t{k}_{i}"
                                                   for i in range(n)]))
    head, call, rest = (("self, /, *args", "impl(self, *args)", "self") if method else
                        ("*args", "impl(*args)", "None"))
    body = "".join(f"        if {test}:\n            return {call}\n" for test in tests)
    fn_name = impl.__name__ if not positional and impl.__name__.isidentifier() else name
    source = (f"def public({head}, **kwargs):\n"
              f"    if not kwargs:\n        n = len(args)\n{body}"
              f"    return slow({rest}, args, kwargs)\n")
    # (slow's closure sees it: the func overrides are handed)
    public = FunctionType(_binder_code(source).replace(co_name=fn_name, co_qualname=fn_name),
                          scope, fn_name)
    public.__qualname__ = fn_name
    public.__doc__ = impl.__doc__
    public.__wrapped__ = impl
    public.parser = parser
    return public
