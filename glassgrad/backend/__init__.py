"""The array seam: only this package imports NumPy (and, later, CuPy). Everything else uses
``xp`` from here, or asks the backend an array belongs to (``backend_of``) for its namespace and
its memory facts.

A backend is an object with ``name``, ``device``, ``xp`` (the array namespace), ``ndarray``,
``scalar_types``, and the memory facts: ``data_ptr(a)``, ``may_share_memory(a, b)``,
``as_strided(a, shape, strides)``, ``word(dtype)``, ``bits(a)``, ``from_bits(w, dtype)``,
``to_host(a)``, ``from_dlpack(obj)``, ``to_dlpack(a)``, and for storages ``memory(a)``,
``typed_view(span, dtype, offset, shape, strides)``, ``empty_bytes(n)``, ``array_out(name)``,
``map_bytes(path, offset, n)`` (numpy_backend.NumpyBackend is the reference). Kernels that
replay torch's exact numerics on one backend live in ``backend/kernels/``.
"""
from .numpy_backend import NUMPY

# the default (CPU) backend's namespace and array type, which most modules import
xp = NUMPY.xp
ndarray = NUMPY.ndarray
# the namespace of host arrays: what to_host returns (printing and checks work there)
host_xp = NUMPY.xp
# the NumPy dtype of torch.bfloat16 (ml_dtypes), and the float types torch computes in float32
bfloat16 = NUMPY.bfloat16
reduced_floats = NUMPY.reduced_floats
finfo = NUMPY.finfo     # a float dtype's machine limits (NumPy's finfo, bfloat16's too)
array_out = NUMPY.array_out     # whether a namespace function takes out=... (0-d arrays)


def kind(dtype):
    """A NumPy dtype's kind as torch sees it: "f" for bfloat16 too (ml_dtypes says "V")."""
    return "f" if dtype is bfloat16 else dtype.kind


_BACKENDS = (NUMPY,)
_BY_TYPE = {NUMPY.ndarray: NUMPY}
_BY_DEVICE = {NUMPY.device: NUMPY}


def backend_of(array):
    """The backend an array belongs to: one dict lookup by type (subclasses and scalar types
    are looked up once, then cached)."""
    try:
        return _BY_TYPE[type(array)]
    except KeyError:
        pass
    for b in _BACKENDS:
        if isinstance(array, (b.ndarray, *b.scalar_types)):
            _BY_TYPE[type(array)] = b
            return b
    raise TypeError(f"no glassgrad backend holds arrays of type {type(array).__name__}")


NAMESPACE_OF = {NUMPY.ndarray: NUMPY.xp}     # array type -> its backend's namespace


def namespace_of(array):
    """The namespace of the backend that holds ``array`` (an array or one of its scalars),
    kept in NAMESPACE_OF by type; None for anything else (a Python number)."""
    ns = NAMESPACE_OF.get(type(array))
    if ns is None:
        for b in _BACKENDS:
            if isinstance(array, (b.ndarray, *b.scalar_types)):
                ns = NAMESPACE_OF[type(array)] = b.xp
    return ns


def xp_of(arrays):
    """The array namespace to compute on ``arrays`` with: the backend of the first one whose
    type a backend holds (Python numbers are skipped); the default backend's for none. (The
    registry's hot path reads NAMESPACE_OF for the first operand, and calls this for others.)"""
    for a in arrays:
        b = _BY_TYPE.get(type(a))
        if b is not None:
            return b.xp
    return xp


def backend_for(device):
    """The backend of a device (a str such as 'cpu' or 'cpu:0', a device object, or None for
    the default); unknown devices raise as Tensor.to does."""
    if device is None:
        return NUMPY
    b = _BY_DEVICE.get(str(device).split(":", 1)[0])
    if b is None:
        raise RuntimeError(f"glassgrad runs on the CPU only; cannot move to {device!r}")
    return b


def to_host(array):
    """array as a NumPy array in host memory (for printing, saving, comparing)."""
    return backend_of(array).to_host(array)


def data_ptr(array):
    """The address of array's first element."""
    return backend_of(array).data_ptr(array)


def may_share_memory(a, b):
    """Whether a and b may overlap (False is certain)."""
    return backend_of(a).may_share_memory(a, b)


def from_dlpack(obj):
    """An array on a DLPack producer's or capsule's memory (None for a used capsule); CPU."""
    return NUMPY.from_dlpack(obj)


def to_dlpack(array):
    """A DLPack capsule over array's memory."""
    return backend_of(array).to_dlpack(array)


def memory(array):
    """(owner, span): the array holding array's memory and its bytes as a flat uint8 array
    (storages, serialization)."""
    return backend_of(array).memory(array)


__all__ = ["xp", "ndarray", "host_xp", "bfloat16", "reduced_floats", "kind", "finfo",
           "backend_of", "backend_for", "xp_of", "to_host", "data_ptr", "may_share_memory",
           "memory", "namespace_of", "from_dlpack", "to_dlpack"]
