"""UntypedStorage: the bytes a tensor and its views lie in (torch.UntypedStorage).

A tensor's storage is the array that owns its memory, as the backend finds it (``memory``):
tensors whose arrays lie in one array share one storage, and one storage object while it lives
(``t.untyped_storage() is t[1:].untyped_storage()``, as in torch). serialization.py saves a
storage once however many tensors view it, and rebuilds them on the loaded bytes.
"""
import weakref

from .backend import backend_for, backend_of, data_ptr, memory, xp

_LIVE = weakref.WeakValueDictionary()     # id(owner) -> its storage (the storage keeps owner alive)


class UntypedStorage:
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
