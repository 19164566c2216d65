"""UntypedStorage: the bytes a tensor and its views lie in (torch.UntypedStorage).

A tensor's storage is the array that owns its memory, as the backend finds it (``memory``):
tensors whose arrays lie in one array share one storage, and one storage object while it lives
(``t.untyped_storage() is t[1:].untyped_storage()``, as in torch). serialization.py saves a
storage once however many tensors view it, and rebuilds them on the loaded bytes.
"""
import warnings
import weakref

from . import dtypes
from ._device import CPU
from .backend import backend_for, backend_of, data_ptr, memory, xp

_LIVE = weakref.WeakValueDictionary()     # id(owner) -> its storage (the storage keeps owner alive)


class StorageBase:
    """torch._C.StorageBase: the class of the byte storages (UntypedStorage)."""
    __slots__ = ()


class UntypedStorage(StorageBase):
    """Bytes in memory: ``span`` is a flat uint8 array over them, ``owner`` the array they
    belong to."""
    __slots__ = ("owner", "span", "__weakref__")

    def __init__(self, nbytes=0):
        span = backend_for(None).empty_bytes(int(nbytes))
        span[...] = 0
        self.owner, self.span = span, span
        _LIVE[id(span)] = self

    @classmethod
    def of(cls, owner, span):
        """The storage of the memory ``owner`` holds (one object per owner while it lives)."""
        s = _LIVE.get(id(owner))
        if s is None or s.owner is not owner:
            s = object.__new__(cls)
            s.owner, s.span = owner, span
            _LIVE[id(owner)] = s
        return s

    @classmethod
    def from_bytes_array(cls, span):
        """A storage on a flat uint8 array (what load reads or maps)."""
        return cls.of(span, span)

    def nbytes(self):
        return len(self.span)

    size = __len__ = nbytes

    def element_size(self):
        return 1

    @property
    def device(self):
        return "cpu"

    def data_ptr(self):
        # torch's storages of no bytes hold no allocation: address 0
        return data_ptr(self.span) if len(self.span) else 0

    def __getitem__(self, index):
        if isinstance(index, slice):
            raise NotImplementedError("glassgrad's UntypedStorage takes integer indices only")
        n = len(self.span)
        if not -n <= index < n:
            raise IndexError(f"index {index} out of range for storage of size {n}")
        return int(self.span[index])

    def __iter__(self):
        return iter(self.span.tolist())

    def tolist(self):
        return self.span.tolist()

    def __repr__(self):
        info = f"[torch.storage.UntypedStorage(device=cpu) of size {len(self.span)}]"
        return " " + "\n ".join(str(b) for b in self.span.tolist()) + "\n" + info

    def clone(self):
        return UntypedStorage.from_bytes_array(self.span.copy())

    __copy__ = clone

    def __deepcopy__(self, memo):
        # copy.deepcopy's memo holds one copy per storage object, and a storage is one object
        # per owner: tensors sharing memory keep sharing within one deepcopy
        return self.clone()

    def __reduce__(self):
        return (_storage_from_bytes, (self.span.tobytes(),))


def _storage_from_bytes(raw):
    """Unpickling a storage: new bytes holding raw."""
    return UntypedStorage.from_bytes_array(xp.frombuffer(raw, xp.uint8).copy())


def storage_of(array):
    """(storage, low): array's storage and the address of its first byte."""
    owner, span = memory(array)
    return UntypedStorage.of(owner, span), data_ptr(span)


def rebuild(cls, storage, offset, size, stride, dtype, requires_grad):
    """A tensor of class ``cls`` viewing ``storage`` (bounds already checked)."""
    data = backend_of(storage.span).typed_view(storage.span, dtype.np, offset, size, stride)
    t = cls._make(data)
    if requires_grad:
        t.requires_grad = True      # torch's error for a dtype that cannot require grad
    return t


# -- TypedStorage and the legacy typed classes ------------------------------------------------
_DEPRECATED = ("TypedStorage is deprecated. It will be removed in the future and UntypedStorage "
               "will be the only storage class. This should only matter to you if you are using "
               "storages directly.  To access UntypedStorage directly, use "
               "tensor.untyped_storage() instead of tensor.storage()")


_warned = []


def _warn_removal(stacklevel):
    """torch's _warn_typed_storage_removal: the first time in the process only."""
    if not _warned:
        _warned.append(True)
        warnings.warn(_DEPRECATED, UserWarning, stacklevel=stacklevel)


class TypedStorage:
    """torch.TypedStorage (deprecated in torch): an UntypedStorage seen as elements of dtype.
    TypedStorage(size), TypedStorage(sequence) or TypedStorage(wrap_storage=untyped), with
    dtype= (the default dtype when not given)."""
    __slots__ = ("_untyped_storage", "dtype")
    is_sparse = False

    def __init__(self, *args, dtype=None, device=None, wrap_storage=None, _internal=False):
        if not _internal:
            _warn_removal(3)
        if device not in (None, "cpu"):
            raise NotImplementedError("TypedStorage on a device other than the CPU")
        self.dtype = dtypes.get_default_dtype() if dtype is None else dtype
        if wrap_storage is not None:
            if args:
                raise RuntimeError("TypedStorage.__init__ received an invalid combination of "
                                   "arguments: wrap_storage with positional arguments")
            self._untyped_storage = wrap_storage
            return
        data = args[0] if args else 0
        item = xp.dtype(self.dtype.np).itemsize
        if isinstance(data, int):
            self._untyped_storage = UntypedStorage(data * item)
            return
        if isinstance(data, str):
            raise TypeError("new(): invalid data type 'str'")
        values = xp.asarray(data, dtype=self.dtype.np).reshape(-1)
        self._untyped_storage = UntypedStorage.from_bytes_array(
            values.view(xp.uint8).reshape(-1).copy())

    def _view(self):
        span = self._untyped_storage.span
        item = xp.dtype(self.dtype.np).itemsize
        return span[:len(span) - len(span) % item].view(self.dtype.np)

    def size(self):
        return len(self._untyped_storage) // xp.dtype(self.dtype.np).itemsize

    __len__ = size

    def element_size(self):
        return xp.dtype(self.dtype.np).itemsize

    def nbytes(self):
        return self._untyped_storage.nbytes()

    def untyped(self):
        return self._untyped_storage

    def data_ptr(self):
        return self._untyped_storage.data_ptr()

    @property
    def device(self):
        return CPU

    def is_shared(self):
        return False

    def _index(self, index):
        if isinstance(index, slice):
            raise RuntimeError("slices are only supported in UntypedStorage.__getitem__")
        n = self.size()
        if not -n <= index < n:
            raise IndexError(f"index {index} out of range for storage of size {n}")
        return index % n

    def __getitem__(self, index):
        return self._view()[self._index(index)].item()

    def __setitem__(self, index, value):
        self._view()[self._index(index)] = value

    def tolist(self):
        return self._view().tolist()

    def __iter__(self):
        return iter(self.tolist())

    def type(self):
        return "torch." + self.pickle_storage_type()

    def pickle_storage_type(self):
        return _LEGACY_NAMES[self.dtype.name]

    def clone(self):
        return TypedStorage(wrap_storage=self._untyped_storage.clone(), dtype=self.dtype,
                            _internal=True)

    def __repr__(self):
        info = (f"[torch.storage.TypedStorage(dtype={self.dtype}, device=cpu) of size "
                f"{self.size()}]")
        return " " + "\n ".join(str(v) for v in self.tolist()) + "\n" + info

    __str__ = __repr__


def typed_storage_of(tensor):
    """Tensor.storage(): the tensor's storage as a TypedStorage of its dtype."""
    _warn_removal(4)
    return TypedStorage(wrap_storage=tensor.untyped_storage(), dtype=tensor.dtype,
                        _internal=True)


class _LegacyStorageMeta(type):
    def __instancecheck__(cls, instance):
        return type(instance) is TypedStorage and instance.dtype is cls.dtype


class _LegacyStorage(TypedStorage, metaclass=_LegacyStorageMeta):
    """torch.FloatStorage & co.: constructors of a TypedStorage of their dtype (whose type is
    TypedStorage; isinstance compares the dtype)."""
    __slots__ = ()

    def __new__(cls, *args, **kwargs):
        if "dtype" in kwargs:
            raise RuntimeError(f"{cls}.__new__ received an invalid combination of arguments. "
                               "Expected one of:\n * no arguments\n * (int size)\n * "
                               "(Sequence data)\n * (*, UntypedStorage wrap_storage)\n"
                               "Keyword argument 'dtype' cannot be specified")
        return TypedStorage(*args, dtype=cls.dtype, **kwargs)


_LEGACY_NAMES = {"float32": "FloatStorage", "float64": "DoubleStorage",
                 "float16": "HalfStorage", "bfloat16": "BFloat16Storage",
                 "int64": "LongStorage", "int32": "IntStorage", "int16": "ShortStorage",
                 "int8": "CharStorage", "uint8": "ByteStorage", "bool": "BoolStorage",
                 "complex64": "ComplexFloatStorage", "complex128": "ComplexDoubleStorage"}
LEGACY = {name: _LegacyStorageMeta(name, (_LegacyStorage,), {
    "__slots__": (), "dtype": getattr(dtypes, key), "__module__": "glassgrad"})
    for key, name in _LEGACY_NAMES.items()}


def is_storage(obj, /):
    """Whether obj is a storage (an UntypedStorage or a TypedStorage)."""
    return type(obj) in (TypedStorage, UntypedStorage)
