"""torch.save / torch.load in PyTorch's own file format (torch.serialization).

The file is a zip archive, as torch 2.13 writes it: ``<name>/data.pkl`` (the object, pickled at
protocol 2 with torch's global names: ``torch._utils._rebuild_tensor_v2``, ``torch.FloatStorage``,
``collections.OrderedDict``), ``.format_version``, ``.storage_alignment``, ``byteorder``, one
record ``<name>/data/<key>`` per storage (stored, uncompressed, its bytes 64-byte aligned), and
``version`` and ``.data/serialization_id``. A tensor in the pickle names its storage by a
persistent id ``('storage', torch.<Type>Storage, key, 'cpu', numel)``, so tensors sharing memory
share one record and share memory again when loaded. Files written here load in torch and the
reverse (tests/test_serialization.py checks both ways).

``load`` is restricted by default (``weights_only=True``, as torch 2.6+): its unpickler runs only
tensors, containers, primitive types and allowlisted globals (``add_safe_globals``,
``safe_globals``) and refuses anything else with torch's ``pickle.UnpicklingError``; nothing in
the file is ever called unless allowed. ``weights_only=False`` loads any pickle.
"""
import collections
import contextlib
import io
import os
import pickle
import pickletools
import re
import secrets
import struct
import sys
import warnings
import zipfile
from _codecs import encode
from _compat_pickle import IMPORT_MAPPING, NAME_MAPPING

from . import dtypes
from ._device import device
from ._storage import UntypedStorage, rebuild
from ._tensor import Size, Tensor
from .nn.parameter import Parameter
from .backend import backend_for, xp

__all__ = ["save", "load", "add_safe_globals", "get_safe_globals", "clear_safe_globals",
           "safe_globals", "get_unsafe_globals_in_checkpoint"]

DEFAULT_PROTOCOL = 2
_ALIGNMENT = 64
_UNSAFE_MESSAGE = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` "
    "from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will "
    "likely succeed, but it can result in arbitrary code execution. Do it only if you got the "
    "file from a trusted source.")


# -- torch's names in the pickle --------------------------------------------------------------
class _Global:
    """A name in torch's namespace, written into the pickle as a GLOBAL (glassgrad has no module
    called torch to pickle it from)."""
    __slots__ = ("module", "name")
    _made = {}

    def __new__(cls, module, name):
        g = cls._made.get((module, name))
        if g is None:
            g = cls._made[(module, name)] = object.__new__(cls)
            g.module, g.name = module, name
        return g

    def __call__(self, *args):      # pickle asks that a reduce function be callable
        raise TypeError(f"{self.module}.{self.name} is a name for the file, not a function")


_REBUILD_V2 = _Global("torch._utils", "_rebuild_tensor_v2")
_REBUILD_PARAMETER = _Global("torch._utils", "_rebuild_parameter")
_REBUILD_FROM_TYPE = _Global("torch._tensor", "_rebuild_from_type_v2")
_SIZE = _Global("torch", "Size")
_DEVICE = _Global("torch", "device")


def _storage_name(dtype):
    """torch's legacy storage class of a dtype: FloatTensor -> FloatStorage."""
    return dtype.tensor_type[:-len("Tensor")] + "Storage"


# -- save -------------------------------------------------------------------------------------
class _SavedStorage:
    """One tensor's reference to its storage, as the pickle meets it (a persistent id)."""
    __slots__ = ("storage", "dtype")

    def __init__(self, storage, dtype):
        self.storage, self.dtype = storage, dtype


class _Pickler(pickle._Pickler):
    """Python's pickler, writing glassgrad's tensors, storages, dtypes and Sizes under torch's
    names (the pure-Python pickler: it can write a GLOBAL for a name no module here holds)."""
    dispatch = pickle._Pickler.dispatch.copy()

    def __init__(self, file, protocol):
        super().__init__(file, protocol)
        self.storages = {}      # id(storage) -> [key, storage, dtype], in order of keys

    def persistent_id(self, obj):
        if isinstance(obj, _SavedStorage):
            storage, dtype = obj.storage, obj.dtype
            name, itemsize = _Global("torch", _storage_name(dtype)), dtype.itemsize
        elif isinstance(obj, UntypedStorage):
            storage, dtype, itemsize = obj, None, 1
            name = _Global("torch.storage", "UntypedStorage")
        else:
            return None
        entry = self.storages.get(id(storage))
        if entry is None:
            entry = self.storages[id(storage)] = [str(len(self.storages)), storage, dtype]
        elif dtype is not None and entry[2] is not None and entry[2] is not dtype:
            raise RuntimeError("Cannot save multiple tensors or storages that view the same data "
                               "as different types")
        return ("storage", name, entry[0], "cpu", storage.nbytes() // itemsize)

    def reducer_override(self, obj):
        if isinstance(obj, Tensor):
            return _reduce_tensor(obj)
        if type(obj) is Size:
            return (_SIZE, (tuple(obj),))
        if type(obj) is device:
            return (_DEVICE, (obj.type,) if obj.index is None else (obj.type, obj.index))
        return NotImplemented

    def save_torch_global(self, obj):
        module, name = (obj.module, obj.name) if type(obj) is _Global else ("torch", obj.name)
        self.write(pickle.GLOBAL + f"{module}\n{name}\n".encode("utf-8"))
        self.memoize(obj)

    dispatch[_Global] = save_torch_global
    dispatch[dtypes.dtype] = save_torch_global


def _reduce_tensor(t):
    """What torch's Tensor.__reduce_ex__ gives for a CPU tensor, with glassgrad's storage."""
    t._warn_if_has_hooks()
    if isinstance(t, Parameter):
        return (_REBUILD_PARAMETER, (t.detach(), t.requires_grad, collections.OrderedDict()))
    data = t._data
    storage, offset, size, stride = t._layout()
    if any(s < 0 or s % data.itemsize for s in data.strides) or \
            (t.data_ptr() - storage.data_ptr()) % data.itemsize:
        # a layout torch cannot describe (NumPy's negative or unaligned strides): a copy
        storage, offset, size, stride = Tensor._make(xp.ascontiguousarray(data))._layout()
    args = (_SavedStorage(storage, t.dtype), offset, size, tuple(stride), t.requires_grad,
            collections.OrderedDict())
    if type(t) is Tensor:
        return (_REBUILD_V2, args)
    state = getattr(t, "__dict__", None) or None      # its Python attributes, as torch's
    return (_REBUILD_FROM_TYPE, (_REBUILD_V2, type(t), args, state))


def _check_save_filelike(f):
    if not isinstance(f, (str, os.PathLike)) and not hasattr(f, "write"):
        raise AttributeError("expected 'f' to be string, path, or a file-like object with a "
                             "'write' attribute")


def save(obj, f, pickle_module=pickle, pickle_protocol=DEFAULT_PROTOCOL,
         _use_new_zipfile_serialization=True, _disable_byteorder_record=False):
    """torch.save: obj into f (a path, str or os.PathLike, or a binary file object) in PyTorch's
    zip format."""
    _check_save_filelike(f)
    if pickle_module is not pickle:
        raise NotImplementedError("glassgrad.save pickles with the standard pickle module only")
    if not _use_new_zipfile_serialization:
        raise NotImplementedError("glassgrad.save writes PyTorch's zip format only "
                                  "(_use_new_zipfile_serialization=False is not supported)")
    buffer = io.BytesIO()
    pickler = _Pickler(buffer, pickle_protocol)
    pickler.dump(obj)
    records = [("data.pkl", buffer.getvalue()), (".format_version", b"1"),
               (".storage_alignment", str(_ALIGNMENT).encode())]
    if not _disable_byteorder_record:
        records.append(("byteorder", sys.byteorder.encode()))
    records += [(f"data/{key}", storage.span) for key, storage, _ in pickler.storages.values()]
    records += [("version", b"3\n"),
                (".data/serialization_id", f"{secrets.randbits(128):040d}".encode())]
    if isinstance(f, (str, os.PathLike)):
        name = os.path.splitext(os.path.basename(os.fspath(f)))[0]
        with open(f, "wb") as file:
            _write_zip(file, name, records)
    else:
        _write_zip(f, "archive", records)


def _write_zip(file, name, records):
    """The records as a stored zip archive under ``name/``, each record's bytes 64-byte aligned
    (padded by an extra field, as torch's writer does, so that they can be mapped)."""
    with zipfile.ZipFile(file, "w", zipfile.ZIP_STORED) as archive:
        for record, data in records:
            info = zipfile.ZipInfo(f"{name}/{record}", date_time=(1980, 1, 1, 0, 0, 0))
            data = memoryview(data).cast("B")
            info.file_size = data.nbytes
            zip64 = info.file_size * 1.05 > zipfile.ZIP64_LIMIT
            start = archive.fp.tell() + 30 + len(info.filename.encode()) + 4 + 20 * zip64
            pad = -start % _ALIGNMENT
            info.extra = b"FB" + struct.pack("<H", pad) + b"Z" * pad
            with archive.open(info, "w") as out:
                out.write(data)


# -- load: rebuilding tensors ------------------------------------------------------------------
class _TypedStorage:
    """A loaded storage with the dtype its persistent id names (torch's TypedStorage)."""
    __slots__ = ("storage", "dtype")

    def __init__(self, storage, dtype):
        self.storage, self.dtype = storage, dtype


class StorageType:
    """What a legacy storage name in the file (torch.FloatStorage) stands for: its dtype."""

    def __init__(self, name):
        self.dtype = _STORAGE_DTYPES[name]

    def __str__(self):
        return f"StorageType(dtype={self.dtype})"


_STORAGE_DTYPES = {_storage_name(d): d for d in dtypes.ALL}


def _typed(storage):
    if isinstance(storage, UntypedStorage):
        return storage, dtypes.uint8
    if not isinstance(storage, _TypedStorage):
        raise TypeError(f"expected a storage to rebuild a tensor on, got {type(storage).__name__}")
    return storage.storage, storage.dtype


def _check_geometry(storage, offset, size, stride, itemsize):
    """torch's checks of a tensor's place in its storage, and a bounds check (torch grows the
    storage instead; glassgrad's memory may be shared, so it refuses)."""
    size, stride = [int(s) for s in size], [int(s) for s in stride]
    if len(size) != len(stride):
        raise RuntimeError(f"unequal size length ({len(size)}) and stride length "
                           f"({len(stride)})")
    if any(s < 0 for s in size):
        raise RuntimeError("numel: integer multiplication overflow")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={size} and "
                           f"strides={stride}")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    need = 0 if 0 in size else itemsize * (offset + 1 + sum(
        st * (sz - 1) for sz, st in zip(size, stride)))
    if need > storage.nbytes():
        raise RuntimeError(
            f"setStorage: sizes {size}, strides {stride}, storage offset {offset}, and itemsize "
            f"{itemsize} requiring a storage size of {need} are out of bounds for storage of "
            f"size {storage.nbytes()}")
    return size, stride


def _rebuild_tensor(storage, storage_offset, size, stride):
    storage, dtype = _typed(storage)
    offset = int(storage_offset)
    size, stride = _check_geometry(storage, offset, size, stride, dtype.itemsize)
    return rebuild(Tensor, storage, offset, size, stride, dtype, False)


def _check_metadata(metadata):
    if metadata:
        raise NotImplementedError(f"glassgrad cannot load tensor metadata {metadata!r} "
                                  "(conjugate and negative bits)")


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       metadata=None):
    _check_metadata(metadata)
    t = _rebuild_tensor(storage, storage_offset, size, stride)
    t.requires_grad = requires_grad
    return t


def _rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       dtype, metadata=None):
    _check_metadata(metadata)
    untyped, _ = _typed(storage)
    t = _rebuild_tensor(_TypedStorage(untyped, dtype), storage_offset, size, stride)
    t.requires_grad = requires_grad
    return t


def _leaf(data, requires_grad, state=None):
    """torch.nn.Parameter(data, requires_grad), on data's memory."""
    if not isinstance(data, Tensor):
        raise TypeError(f"expected a tensor for a Parameter's data, got {type(data).__name__}")
    return _set_state(Parameter(data, requires_grad), state)


def _rebuild_parameter(data, requires_grad, backward_hooks):
    return _leaf(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    return _leaf(data, requires_grad, state)


def _set_state(obj, state):
    """torch._utils._set_obj_state: a tensor's Python attributes (a dict, or (dict, slots))."""
    if not state:
        return obj
    attrs, slots = state if isinstance(state, tuple) else (state, None)
    for k, v in {**(attrs or {}), **(slots or {})}.items():
        try:
            setattr(obj, k, v)
        except AttributeError:
            raise NotImplementedError(f"glassgrad cannot set the attribute {k!r} the file gives "
                                      f"a {type(obj).__name__}") from None
    return obj


def _rebuild_from_type_v2(func, new_type, args, state):
    ret = func(*args)
    if not isinstance(ret, Tensor):
        raise TypeError(f"expected the rebuild function to give a tensor, got "
                        f"{type(ret).__name__}")
    if type(ret) is not new_type:
        if not (isinstance(new_type, type) and issubclass(new_type, Tensor)):
            raise NotImplementedError(f"glassgrad cannot load a tensor of type {new_type!r}")
        sub = new_type._make(ret._data)
        sub.requires_grad = ret.requires_grad
        ret = sub
    if hasattr(ret, "__setstate__") and state:
        ret.__setstate__(state)
        return ret
    return _set_state(ret, state)


def _unsupported(name, why):
    def refuse(*args, **kwargs):
        raise NotImplementedError(f"glassgrad.load cannot rebuild {name}: {why}")
    refuse.__name__ = refuse.__qualname__ = name.rsplit(".", 1)[1]
    return refuse


def _device(kind, index=None):
    """torch.device in a file: a glassgrad device."""
    return device(kind) if index is None else device(kind, index)


def _torch_globals():
    """torch's global names a file may hold, and what glassgrad loads for each."""
    names = {
        "torch._utils._rebuild_tensor": _rebuild_tensor,
        "torch._utils._rebuild_tensor_v2": _rebuild_tensor_v2,
        "torch._utils._rebuild_tensor_v3": _rebuild_tensor_v3,
        "torch._utils._rebuild_parameter": _rebuild_parameter,
        "torch._utils._rebuild_parameter_with_state": _rebuild_parameter_with_state,
        "torch._tensor._rebuild_from_type_v2": _rebuild_from_type_v2,
        "torch.Tensor": Tensor, "torch.Size": Size, "torch.storage.UntypedStorage": UntypedStorage,
        "torch.device": _device,
        "collections.OrderedDict": collections.OrderedDict,
        "collections.Counter": collections.Counter,
        "_codecs.encode": encode, "builtins.bytearray": bytearray, "builtins.set": set,
        "builtins.complex": complex,
    }
    for d in dtypes.ALL:
        names[f"torch.{d.name}"] = d
        names[f"torch.{_storage_name(d)}"] = StorageType(_storage_name(d))
    names["torch.nn.parameter.Parameter"] = Parameter
    for kind, why in (("qtensor", "glassgrad has no quantized tensors"),
                      ("sparse_tensor", "glassgrad has no sparse tensors"),
                      ("nested_tensor", "glassgrad has no nested tensors"),
                      ("meta_tensor_no_storage", "glassgrad has no meta device"),
                      ("wrapper_subclass", "glassgrad has no wrapper subclasses"),
                      ("device_tensor_from_numpy", "glassgrad has no devices but the CPU"),
                      ("device_tensor_from_cpu_tensor", "glassgrad has no devices but the CPU")):
        name = f"torch._utils._rebuild_{kind}"
        names[name] = _unsupported(name, why)
    names["torch.serialization._get_layout"] = _unsupported(
        "torch.serialization._get_layout", "glassgrad has no layouts but strided")
    return names


# -- load: the allowlist and the restricted unpickler ------------------------------------------
_SAFE_GLOBALS = set()
_BLOCKED_MODULES = ("sys", "os", "posix", "nt")


def add_safe_globals(safe_globals):
    """Mark functions and classes (or (object, "module.name") pairs) as safe for
    weights_only loading."""
    _SAFE_GLOBALS.update(safe_globals)


def get_safe_globals():
    return list(_SAFE_GLOBALS)


def clear_safe_globals():
    _SAFE_GLOBALS.clear()


class safe_globals:
    """Context manager: the globals are safe for weights_only loading inside the block."""

    def __init__(self, safe_globals):
        self.safe_globals = safe_globals

    def __enter__(self):
        add_safe_globals(self.safe_globals)

    def __exit__(self, *exc):
        _SAFE_GLOBALS.difference_update(self.safe_globals)


def _user_globals():
    found = {}
    for g in _SAFE_GLOBALS:
        if isinstance(g, tuple):
            if len(g) != 2:
                raise ValueError(f"Expected tuple of length 2 (global, str of callable full "
                                 f"path), but got tuple of length: {len(g)}")
            if type(g[1]) is not str:
                raise TypeError(f"Expected second item in tuple to be str of callable full "
                                f"path, but got: {type(g[1])}")
            found[g[1]] = g[0]
        else:
            found[f"{g.__module__}.{g.__qualname__}"] = g
    return found


def _read_name(readline):
    return _mapped(readline()[:-1].decode("utf-8"), readline()[:-1].decode("utf-8"))


def _mapped(module, name):
    """A GLOBAL's module and name, Python 2's names mapped as torch maps them."""
    if (module, name) in NAME_MAPPING:
        return NAME_MAPPING[(module, name)]
    return IMPORT_MAPPING.get(module, module), name


def get_unsafe_globals_in_checkpoint(f):
    """The GLOBALs in a torch.save file that weights_only loading would refuse (read from the
    pickle's opcodes, nothing run)."""
    with (open(f, "rb") if isinstance(f, (str, os.PathLike)) else
          contextlib.nullcontext(f)) as file:
        if not _is_zipfile(file):
            raise ValueError("Expected input to be a checkpoint returned by torch.save")
        archive = _Archive(file)
        if archive.has("constants.pkl"):
            raise ValueError("Expected input to be a checkpoint returned by torch.save but got a "
                             "torchscript checkpoint")
        names = {".".join(_mapped(*arg.split(" ", 1)))
                 for op, arg, _ in pickletools.genops(archive.record("data.pkl"))
                 if op.name == "GLOBAL"}
    safe = set(_torch_globals()) | set(_user_globals())
    return [n for n in names if n not in safe and not _TORCH_ONLY.match(n)]


_NEEDS_IMPORT = {
    "torch.nested._internal.nested_tensor.NestedTensor": "``torch.nested`` and "
    "``torch._dynamo`` must be imported to load nested jagged tensors (NJTs)",
    "torch.nested._internal.nested_tensor._rebuild_njt": "``torch.nested`` and "
    "``torch._dynamo`` must be imported to load nested jagged tensors (NJTs)",
    "torch._dynamo.decorators._DimRange": "``torch.nested`` and ``torch._dynamo`` must be "
    "imported to load nested jagged tensors (NJTs)",
    **{f"torch.distributed.{n}": "``torch.distributed.tensor`` must be imported to load "
       "DTensors" for n in ("device_mesh.DeviceMesh", "tensor._dtensor_spec.DTensorSpec",
                            "tensor._dtensor_spec.TensorMeta", "tensor.DTensor",
                            "tensor.placement_types.Partial", "tensor.placement_types.Replicate",
                            "tensor.placement_types.Shard")},
}


# names torch's weights_only loading allows that glassgrad has no object for: its other dtypes,
# their storage and legacy tensor types, quantization schemes (a clear NotImplementedError,
# where torch's refusal of a name it does not allow stays torch's UnpicklingError)
_TORCH_ONLY = re.compile(
    r"torch(\.cuda)?(\.sparse)?\.(\w+Storage|\w+Tensor|bfloat16|complex\d+|u?int[1-7]|"
    r"uint(16|32|64)|bits\w+|float[48]_\w+|q\w*int\w+|per_\w+)$"
    r"|torch\.storage\.TypedStorage$|torch\.nn\.parameter\.Parameter$")


def _missing(full):
    return NotImplementedError(f"glassgrad.load cannot load {full}: glassgrad has no such "
                               "dtype, storage or tensor type")


def _unsupported_global(full):
    shown = full
    if full.startswith("builtins"):     # torch shows builtins by their bare name
        rest = full[len("builtins"):]
        shown = rest[1:] if rest.startswith(".") else "builtins" + rest
    return pickle.UnpicklingError(
        f"Unsupported global: GLOBAL {shown} was not an allowed global by default. Please use "
        f"`torch.serialization.add_safe_globals([{shown}])` or the "
        f"`torch.serialization.safe_globals([{shown}])` context manager to allowlist this "
        "global if you trust this class/function.")


class _WeightsUnpickler:
    """A pickle machine that knows only what state dicts need (torch's weights_only
    unpickler): GLOBAL resolves names through the allowlist only, REDUCE and NEWOBJ call only
    allowlisted objects, BUILD sets state only on OrderedDicts, tensors and allowlisted
    classes, APPEND only lists, SETITEM only dicts; any other opcode is refused."""

    def __init__(self, file, persistent_load, encoding):
        self.read, self.readline = file.read, file.readline
        self.persistent_load, self.encoding = persistent_load, encoding
        self.allowed = _torch_globals()
        self.user = _user_globals()
        self.callables = list(self.allowed.values()) + list(self.user.values())
        self.memo, self.stack, self.marks = {}, [], []

    def load(self):
        while True:
            code = self.read(1)
            if not code:
                raise EOFError
            op = self._OPS.get(code[0])
            if op is None:
                raise pickle.UnpicklingError(f"Unsupported operand {code[0]}")
            if op(self):
                return self.stack.pop()

    def _allowed(self, obj):
        return any(obj is c for c in self.callables)

    def _pop_mark(self):
        items, self.stack = self.stack, self.marks.pop()
        return items

    # risky opcodes: names, calls, state
    def _global(self):
        module, name = _read_name(self.readline)
        full = f"{module}.{name}"
        if module in _BLOCKED_MODULES:
            raise pickle.UnpicklingError(f"Trying to load unsupported GLOBAL {full} whose module "
                                         f"{module} is blocked.")
        for table in (self.allowed, self.user):
            if full in table:
                self.stack.append(table[full])
                return
        if full in _NEEDS_IMPORT:
            raise pickle.UnpicklingError(_NEEDS_IMPORT[full])
        if _TORCH_ONLY.match(full):
            raise _missing(full)
        raise _unsupported_global(full)

    def _newobj(self):
        args, cls = self.stack.pop(), self.stack.pop()
        if cls is Parameter:
            self.stack.append(Parameter(*args))
        elif self._allowed(cls):
            self.stack.append(cls.__new__(cls, *args))
        else:
            raise pickle.UnpicklingError(
                "Can only create new object for nn.Parameter or classes allowlisted via "
                f"`add_safe_globals` but got {cls}")

    def _reduce(self):
        args, func = self.stack.pop(), self.stack[-1]
        if not self._allowed(func):
            message = f"Trying to call reduce for unrecognized function {func}"
            if hasattr(func, "__self__"):
                message += f" which belongs to {func.__self__}"
            raise pickle.UnpicklingError(message)
        self.stack[-1] = func(*args)

    def _build(self):
        state, inst = self.stack.pop(), self.stack[-1]
        kind = type(inst)
        if kind is Tensor:
            raise NotImplementedError("glassgrad cannot load a legacy pickled Tensor (BUILD with "
                                      "set_ state)")
        if kind is collections.OrderedDict:
            inst.__dict__.update(state)
        elif self._allowed(kind) or kind is Parameter:
            if hasattr(inst, "__setstate__"):
                inst.__setstate__(state)
            else:
                attrs, slots = state if isinstance(state, tuple) and len(state) == 2 else \
                    (state, None)
                if attrs:
                    inst.__dict__.update(attrs)
                for k, v in (slots or {}).items():
                    setattr(inst, k, v)
        else:
            raise pickle.UnpicklingError(
                "Can only build Tensor, Parameter, OrderedDict or types allowlisted via "
                f"`add_safe_globals`, but got {kind}")

    def _persid(self):
        pid = self.stack.pop()
        if type(pid) is not tuple and type(pid) is not int:
            raise pickle.UnpicklingError(f"persistent_load id must be tuple or int, but got "
                                         f"{type(pid)}")
        if type(pid) is tuple and pid and _ascii(pid[0]) != "storage":
            raise pickle.UnpicklingError(f"Only persistent_load of storage is allowed, but got "
                                         f"{type(pid[0])}")
        self.stack.append(self.persistent_load(pid))

    # containers
    def _append(self):
        item = self.stack.pop()
        self._list("append").append(item)

    def _appends(self):
        items = self._pop_mark()
        self._list("extend").extend(items)

    def _list(self, verb):
        target = self.stack[-1]
        if type(target) is not list:
            raise pickle.UnpicklingError(f"Can only {verb} to lists, but got {type(target)}"
                                         if verb == "append" else
                                         f"Can only {verb} lists, but got {type(target)}")
        return target

    def _dict(self, opcode):
        target = self.stack[-1]
        if type(target) not in (dict, collections.OrderedDict, collections.Counter):
            raise pickle.UnpicklingError(f"Can only {opcode} for dict, collections.OrderedDict, "
                                         f"collections.Counter, but got {type(target)}")
        return target

    def _setitem(self):
        value, key = self.stack.pop(), self.stack.pop()
        self._dict("SETITEM")[key] = value

    def _setitems(self):
        items = self._pop_mark()
        target = self._dict("SETITEMS")
        for i in range(0, len(items), 2):
            target[items[i]] = items[i + 1]

    def _mark(self):
        self.marks.append(self.stack)
        self.stack = []

    def _tuple(self):
        items = tuple(self._pop_mark())     # (before self.stack is read: the mark replaces it)
        self.stack.append(items)

    def _tuple_n(n):
        def op(self):
            items = tuple(self.stack[len(self.stack) - n:])
            del self.stack[len(self.stack) - n:]
            self.stack.append(items)
        return op

    def _push(value_of):
        def op(self):
            self.stack.append(value_of(self))
        return op

    def _unpack(fmt, n):
        return lambda self: struct.unpack(fmt, self.read(n))[0]

    def _unicode(self):
        n = struct.unpack("<I", self.read(4))[0]
        if n > sys.maxsize:
            raise pickle.UnpicklingError("String is too long")
        return str(self.read(n), "utf-8", "surrogatepass")

    def _short_binstring(self):
        data = self.read(self.read(1)[0])
        return data if self.encoding == "bytes" else data.decode(self.encoding, "strict")

    def _long1(self):
        return pickle.decode_long(self.read(self.read(1)[0]))

    def _get(fmt, n):
        def op(self):
            self.stack.append(self.memo[struct.unpack(fmt, self.read(n))[0]])
        return op

    def _put(fmt, n):
        def op(self):
            index = struct.unpack(fmt, self.read(n))[0]
            self.memo[index] = self.stack[-1]
        return op

    def _proto(self):
        protocol = self.read(1)[0]
        if protocol != 2:
            warnings.warn(
                f"Detected pickle protocol {protocol} in the checkpoint, which was not the "
                "default pickle protocol used by `torch.load` (2). The weights_only Unpickler "
                "might not support all instructions implemented by this protocol, please file "
                "an issue for adding support if you encounter this.", stacklevel=2)

    def _stop(self):
        return True

    _OPS = {
        pickle.GLOBAL[0]: _global, pickle.NEWOBJ[0]: _newobj, pickle.REDUCE[0]: _reduce,
        pickle.BUILD[0]: _build, pickle.BINPERSID[0]: _persid,
        pickle.APPEND[0]: _append, pickle.APPENDS[0]: _appends,
        pickle.SETITEM[0]: _setitem, pickle.SETITEMS[0]: _setitems,
        pickle.MARK[0]: _mark, pickle.TUPLE[0]: _tuple, pickle.TUPLE1[0]: _tuple_n(1),
        pickle.TUPLE2[0]: _tuple_n(2), pickle.TUPLE3[0]: _tuple_n(3),
        pickle.NONE[0]: _push(lambda self: None), pickle.NEWFALSE[0]: _push(lambda self: False),
        pickle.NEWTRUE[0]: _push(lambda self: True), pickle.EMPTY_TUPLE[0]: _push(lambda self: ()),
        pickle.EMPTY_LIST[0]: _push(lambda self: []), pickle.EMPTY_DICT[0]: _push(lambda self: {}),
        pickle.EMPTY_SET[0]: _push(lambda self: set()),
        pickle.BININT[0]: _push(_unpack("<i", 4)), pickle.BININT1[0]: _push(_unpack("<B", 1)),
        pickle.BININT2[0]: _push(_unpack("<H", 2)), pickle.BINFLOAT[0]: _push(_unpack(">d", 8)),
        pickle.BINUNICODE[0]: _push(_unicode), pickle.SHORT_BINSTRING[0]: _push(_short_binstring),
        pickle.LONG1[0]: _push(_long1),
        pickle.BINGET[0]: _get("<B", 1), pickle.LONG_BINGET[0]: _get("<I", 4),
        pickle.BINPUT[0]: _put("<B", 1), pickle.LONG_BINPUT[0]: _put("<I", 4),
        pickle.PROTO[0]: _proto, pickle.STOP[0]: _stop,
    }
    del _tuple_n, _push, _unpack, _get, _put


def _weights_only_message(message):
    """torch.load's wording around the unpickler's refusal."""
    docs = ("\n\nCheck the documentation of torch.load to learn more about types accepted by "
            "default with weights_only https://pytorch.org/docs/stable/generated/torch.load.html.")
    if re.search(r"GLOBAL (\S+) was not an allowed global by default.", message):
        return ("Weights only load failed. This file can still be loaded, to do so you have two "
                "options, \033[1mdo those steps only if you trust the source of the "
                f"checkpoint\033[0m. \n\t(1) {_UNSAFE_MESSAGE}\n\t(2) Alternatively, to load with "
                "`weights_only=True` please check the recommended steps in the following error "
                "message.\n\tWeightsUnpickler error: " + message + docs)
    if re.search(r"(\S+) must be (\S+) to load", message):
        return f"Weights only load failed. {message}\n {_UNSAFE_MESSAGE}\n"
    text = f"Weights only load failed. {_UNSAFE_MESSAGE}\n"
    if not re.search(r"whose module (\S+) is blocked", message):
        text += ("Please file an issue with the following so that we can make "
                 "`weights_only=True` compatible with your use case: WeightsUnpickler error: ")
    return text + "\n\n" + message + docs


def _free_unpickler(file, persistent_load, **kwargs):
    """weights_only=False: Python's unpickler, torch's names resolved to glassgrad's."""
    torch_names = _torch_globals()

    class Unpickler(pickle.Unpickler):
        def find_class(self, module, name):
            full = f"{module}.{name}"
            if full in torch_names:
                return torch_names[full]
            if _TORCH_ONLY.match(full):
                raise _missing(full)
            if module == "torch" or module.startswith("torch."):
                raise NotImplementedError(f"glassgrad.load cannot load {full}: glassgrad has "
                                          "no such name")
            return super().find_class(module, name)

    unpickler = Unpickler(file, **kwargs)
    unpickler.persistent_load = persistent_load
    return unpickler


# -- load: storages, locations ------------------------------------------------------------------
def _ascii(text):
    return text.decode("ascii") if isinstance(text, bytes) else text


_CUDA = re.compile(r"cuda(:|[0-9]+)")


def default_restore_location(storage, location):
    """A storage tagged with location, where glassgrad keeps it: the CPU, or torch's error."""
    if location == "cpu":
        return storage
    if location == "cuda" or _CUDA.match(location):
        raise RuntimeError("Attempting to deserialize object on a CUDA device but "
                           "torch.cuda.is_available() is False. If you are running on a CPU-only "
                           "machine, please use torch.load with map_location=torch.device('cpu') "
                           "to map your storages to the CPU.")
    if location == "meta":
        raise NotImplementedError("glassgrad has no meta device to load storages onto")
    raise RuntimeError("don't know how to restore data location of torch.storage.UntypedStorage "
                       f"(tagged with {location})")


def _restorer(map_location):
    """torch's map_location forms: None, a dict of locations, a device (a str, or an object
    whose str() is one), or a function (storage, location) -> storage or None."""
    if map_location is None:
        return default_restore_location
    if isinstance(map_location, dict):
        return lambda s, loc: default_restore_location(s, map_location.get(loc, loc))
    if isinstance(map_location, (str, bytes)):
        return lambda s, loc: default_restore_location(s, _ascii(map_location))
    if callable(map_location):
        def restore(s, loc):
            result = map_location(s, loc)
            return default_restore_location(s, loc) if result is None else result
        return restore
    return lambda s, loc: default_restore_location(s, str(map_location))


class _Archive:
    """The records of a torch.save zip archive: read into memory, or mapped from its file."""

    def __init__(self, file, path=None):
        self.zip = zipfile.ZipFile(file)
        self.file, self.path = file, path
        names = self.zip.namelist()
        if names and "/" not in names[0]:
            raise RuntimeError("[enforce fail at inline_container.cc:180] . file in archive is "
                               f"not in a subdirectory: {names[0]}")
        self.prefix = names[0].split("/", 1)[0] + "/" if names else ""
        self.names = set(names)

    def has(self, name):
        return self.prefix + name in self.names

    def record(self, name):
        if not self.has(name):
            raise RuntimeError(
                f"PytorchStreamReader failed locating file {name}: file not found. This is an "
                "internal miniz error. If you are seeing this error, there is a high likelihood "
                "that your checkpoint file is corrupted. This can happen if the checkpoint was "
                "not saved properly, was transferred incorrectly, or the file was modified after "
                "saving.")
        return self.zip.read(self.prefix + name)

    def storage(self, name, nbytes):
        info = self.zip.getinfo(self.prefix + name)
        if info.file_size < nbytes:
            raise RuntimeError(f"glassgrad.load: record {name} holds {info.file_size} bytes, "
                               f"the file's storage needs {nbytes}")
        if self.path is not None:
            if info.compress_type != zipfile.ZIP_STORED:
                raise RuntimeError(f"glassgrad.load(mmap=True): record {name} is compressed")
            return backend_for(None).map_bytes(self.path, self._data_offset(info), nbytes)
        span = backend_for(None).empty_bytes(nbytes)
        with self.zip.open(info) as stream:
            _read_into(stream, memoryview(span), f"record {name}")
        return span

    def _data_offset(self, info):
        """Where a stored record's bytes start: after its local header, name and extra field."""
        self.file.seek(info.header_offset)
        header = self.file.read(30)
        name_len, extra_len = struct.unpack("<HH", header[26:30])
        return info.header_offset + 30 + name_len + extra_len


def _load(archive, map_location, unpickler, **pickle_load_args):
    restore = _restorer(map_location)
    swap = False
    if archive.has("byteorder"):
        order = archive.record("byteorder")
        if order not in (b"little", b"big"):
            raise ValueError("Unknown endianness type: " + order.decode())
        swap = order.decode() != sys.byteorder
    loaded = {}

    def persistent_load(saved_id):
        if not isinstance(saved_id, tuple) or _ascii(saved_id[0]) != "storage":
            raise pickle.UnpicklingError("unsupported persistent id encountered")
        storage_type, key, location, numel = saved_id[1:]
        key = _ascii(key)
        if key not in loaded:
            untyped = storage_type is UntypedStorage
            dtype = dtypes.uint8 if untyped else storage_type.dtype
            span = archive.storage(f"data/{key}", numel * dtype.itemsize)
            if swap and dtype.itemsize > 1:
                span.view(dtype.np).byteswap(inplace=True)
            storage = restore(UntypedStorage.from_bytes_array(span), _ascii(location))
            if not isinstance(storage, UntypedStorage):
                raise TypeError(f"map_location must give a storage or None, not "
                                f"{type(storage).__name__}")
            loaded[key] = storage if untyped else _TypedStorage(storage, dtype)
        return loaded[key]

    data = io.BytesIO(archive.record("data.pkl"))
    return unpickler(data, persistent_load, **pickle_load_args).load()


_LEGACY_MAGIC = 0x1950a86a20f9469cfc6c
_LEGACY_PROTOCOL = 1001


def _load_legacy(file, map_location, unpickler, **pickle_load_args):
    """torch.save(..., _use_new_zipfile_serialization=False)'s stream: pickles of the magic
    number, the protocol version, the system's facts, the object (storages as persistent ids)
    and the storage keys, then each storage's element count and bytes. (The older tar
    archives of torch < 0.4 are not read.)"""
    restore = _restorer(map_location)
    storages = {}

    def persistent_load(saved_id):
        kind = _ascii(saved_id[0])
        if kind == "module":            # a pickled nn.Module's class (weights_only=False)
            return saved_id[1]
        if kind != "storage":
            raise RuntimeError(f"Unknown saved id type: {saved_id[0]}")
        storage_type, key, location, numel, view = saved_id[1:]
        if view is not None:
            raise NotImplementedError("glassgrad.load cannot load the legacy format's storage "
                                      "views")
        if key not in storages:
            span = backend_for(None).empty_bytes(numel * storage_type.dtype.itemsize)
            storage = restore(UntypedStorage.from_bytes_array(span), _ascii(location))
            storages[key] = _TypedStorage(storage, storage_type.dtype)
        return storages[key]

    def next_pickle():
        return unpickler(file, persistent_load, **pickle_load_args).load()

    if next_pickle() != _LEGACY_MAGIC:
        raise RuntimeError("Invalid magic number; corrupt file?")
    version = next_pickle()
    if version != _LEGACY_PROTOCOL:
        raise RuntimeError(f"Invalid protocol version: {version}")
    next_pickle()                       # sys_info: byte order and C type sizes
    result = next_pickle()
    for key in next_pickle():
        typed = storages[key]
        span = typed.storage.span
        numel = struct.unpack("<q", file.read(8))[0]
        expected = len(span) // typed.dtype.itemsize
        if numel != expected:
            raise RuntimeError(f"storage has wrong byte size: expected {expected} got {numel}")
        _read_into(file, memoryview(span), f"storage {key}")
        if sys.byteorder == "big" and typed.dtype.itemsize > 1:     # the stream is little-endian
            span.view(typed.dtype.np).byteswap(inplace=True)
    return result


def _read_into(stream, view, what):
    """Fill the memoryview from stream."""
    done = 0
    while done < len(view):
        n = stream.readinto(view[done:])
        if not n:
            raise EOFError(f"{what} ended early")
        done += n


def _is_zipfile(f):
    start = f.tell()
    magic = f.read(4)
    f.seek(start)
    return magic == b"PK\x03\x04"


def _weights_only_default(weights_only, pickle_module):
    flags = ("1", "y", "yes", "true")
    force = os.getenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "0").lower() in flags
    force_not = os.getenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "0").lower() in flags
    if force and force_not:
        raise RuntimeError("Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD` or "
                           "`TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD` should be set, but both were set.")
    if force:
        return True
    if weights_only is None:
        if force_not:
            warnings.warn("Environment variable TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD detected, since "
                          "the`weights_only` argument was not explicitly passed to `torch.load`, "
                          "forcing weights_only=False.", UserWarning, stacklevel=3)
            return False
        return pickle_module is None
    return weights_only


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None,
         **pickle_load_args):
    """torch.load: the object saved in f (a path or a binary file object with read and seek)
    by torch.save or glassgrad.save."""
    weights_only = _weights_only_default(weights_only, pickle_module)
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    if pickle_module is not None and pickle_module is not pickle:
        raise NotImplementedError("glassgrad.load unpickles with the standard pickle module only")
    if pickle_load_args and weights_only:
        warnings.warn("pickle_load_args only works if `weights_only=False`.", stacklevel=2)
    pickle_load_args.setdefault("encoding", "utf-8")
    is_path = isinstance(f, (str, os.PathLike))
    with (open(f, "rb") if is_path else contextlib.nullcontext(f)) as file:
        if not _is_zipfile(file) and mmap:
            name = f"{f}, " if isinstance(f, str) else ""
            raise RuntimeError("mmap can only be used with files saved with "
                               f"`torch.save({name}_use_new_zipfile_serialization=True), "
                               "please torch.save your checkpoint with this option in order "
                               "to use mmap.")
        if mmap and not is_path:
            raise ValueError("f must be a file path in order to use the mmap argument")
        if _is_zipfile(file):
            source = _Archive(file, os.fspath(f) if mmap else None)
            if source.has("constants.pkl"):
                raise NotImplementedError("glassgrad.load cannot load TorchScript archives")
            read = _load
        else:
            source, read = file, _load_legacy
        if not weights_only:
            return read(source, map_location, _free_unpickler, **pickle_load_args)
        try:
            return read(source, map_location, _WeightsUnpickler,
                        encoding=pickle_load_args["encoding"])
        except pickle.UnpicklingError as e:
            raise pickle.UnpicklingError(_weights_only_message(str(e))) from None
