"""NumPy as a glassgrad backend: the array namespace, and the memory facts ops ask of an array.

Everything here answers a question that depends on how NumPy lays out memory: where an array's
data starts, whether two arrays may overlap, an array's bits as unsigned words. A CuPy backend
answers the same questions through ``__cuda_array_interface__``.
"""
import ctypes
import os

import ml_dtypes
import numpy

# torch computes IEEE results (inf, nan) silently; NumPy would warn on every overflow or log(0)
numpy.seterr(all="ignore")

_WORDS = {1: numpy.uint8, 2: numpy.uint16, 4: numpy.uint32, 8: numpy.uint64}


class NumpyBackend:
    """The CPU backend: arrays are ``numpy.ndarray`` in host memory."""

    name = "numpy"
    device = "cpu"
    xp = numpy
    ndarray = numpy.ndarray
    # what backend_of also accepts as this backend's arrays: NumPy scalars (0-d results)
    scalar_types = (numpy.generic,)
    # torch.bfloat16's element type: ml_dtypes' NumPy extension (its ufuncs compute in float32
    # and round once, as torch's CPU kernels do)
    bfloat16 = numpy.dtype(ml_dtypes.bfloat16)
    # the dtypes whose arithmetic torch's CPU kernels carry out in float32 (reductions
    # accumulate there too)
    reduced_floats = (numpy.dtype(numpy.float16), bfloat16)

    @staticmethod
    def finfo(dtype):
        """NumPy's machine limits of a float dtype, bfloat16 included (ml_dtypes')."""
        return ml_dtypes.finfo(dtype)

    @staticmethod
    def set_num_threads(n):
        """Limit NumPy's BLAS pool to n threads (through threadpoolctl), for the process."""
        import threadpoolctl     # imported on first use: it scans the loaded libraries
        threadpoolctl.threadpool_limits(limits=n, user_api="blas")

    @staticmethod
    def get_num_threads():
        """The threads NumPy's BLAS may use (the CPU count where no BLAS pool is found)."""
        import threadpoolctl
        pools = threadpoolctl.threadpool_info()
        blas = [p["num_threads"] for p in pools if p["user_api"] == "blas"]
        return max(blas) if blas else os.cpu_count()

    @staticmethod
    def data_ptr(a):
        """The address of a's first element (torch's data_ptr())."""
        return a.__array_interface__["data"][0]

    # whether a and b may overlap (bounds only: False is certain, True may be a false alarm
    # for interleaved strided views)
    may_share_memory = staticmethod(numpy.may_share_memory)

    @staticmethod
    def as_strided(a, shape, strides):
        """A view of a's memory with the given shape and byte strides (no bounds check),
        writable exactly when a is. Within a one-piece array (an expand's or a window's view)
        the ndarray constructor makes it on a's buffer (≈ 0.2 µs, NumPy's as_strided ≈ 2.5)."""
        if type(a) is numpy.ndarray and (a.flags.c_contiguous or a.flags.f_contiguous) and \
                min(strides, default=0) >= 0:
            try:
                return numpy.ndarray(shape, a.dtype, a, 0, strides)
            except ValueError:  # (reaches past a's own elements)
                pass
        return numpy.lib.stride_tricks.as_strided(a, shape, strides, writeable=a.flags.writeable)

    @staticmethod
    def memory(a):
        """(owner, span): the array that holds a's memory (followed through ``.base``, past the
        buffers NumPy puts between a view and its array) and that array's bytes as a flat
        uint8 array (a view: writing into it writes into a)."""
        owner, obj = a, getattr(a, "base", None)
        while obj is not None:
            if isinstance(obj, numpy.ndarray):
                owner = obj
            obj = getattr(obj, "base", None)
        if not isinstance(owner, numpy.ndarray):      # a NumPy scalar: its own memory
            owner = numpy.asarray(owner)
        low, high = numpy.lib.array_utils.byte_bounds(owner)
        return owner, numpy.asarray(_Span(owner, low, high - low))

    @staticmethod
    def typed_view(span, dtype, offset, shape, strides):
        """A view of the flat uint8 ``span`` as ``dtype`` elements, starting ``offset``
        elements in, with ``shape`` and element ``strides`` (the caller checks the bounds)."""
        size = dtype.itemsize
        start = offset * size
        count = max(len(span) - start, 0) // size
        flat = span[start:start + count * size].view(dtype)
        return numpy.lib.stride_tricks.as_strided(
            flat, tuple(shape), tuple(s * size for s in strides), writeable=span.flags.writeable)

    @staticmethod
    def from_dlpack(obj):
        """An array on the memory of a DLPack producer (an object with ``__dlpack__``) or of a
        capsule (consumed once, as DLPack's rules say; None for a used one)."""
        if type(obj).__name__ == "PyCapsule":
            if _capsule_name(obj) not in (b"dltensor", b"dltensor_versioned"):
                return None
            obj = _CapsuleProducer(obj)
        array = numpy.from_dlpack(obj)
        # a legacy capsule says nothing of read-only memory: NumPy imports it read-only, torch
        # writable; the same memory, writable, as torch has it
        return array if array.flags.writeable else numpy.asarray(_Writable(array))

    @staticmethod
    def to_dlpack(a):
        """A DLPack capsule ("dltensor") over a's memory."""
        return a.__dlpack__()

    @staticmethod
    def empty_bytes(nbytes):
        """A new flat uint8 array of nbytes (uninitialised)."""
        return numpy.empty(nbytes, numpy.uint8)

    @staticmethod
    def map_bytes(path, offset, nbytes, shared=False):
        """nbytes of the file at path from offset, mapped copy-on-write (writes stay in
        memory, as mmap's MAP_PRIVATE), or shared (writes reach the file): a flat uint8
        array."""
        if nbytes == 0:
            return numpy.empty(0, numpy.uint8)
        return numpy.memmap(path, numpy.uint8, mode="r+" if shared else "c", offset=offset,
                            shape=(nbytes,))

    @staticmethod
    def word(dtype):
        """The unsigned integer dtype as wide as ``dtype`` (a NumPy dtype), to work on bits."""
        return _WORDS[dtype.itemsize]

    @staticmethod
    def bits(a):
        """a's elements as unsigned words of the same width: a view, no copy."""
        return a.view(_WORDS[a.dtype.itemsize])

    @staticmethod
    def from_bits(w, dtype):
        """Words made by bits() (or the same width) read back as ``dtype``: a view, no copy."""
        return w.view(dtype)

    @staticmethod
    def to_host(a):
        """a as a NumPy array in host memory (already there: the array itself)."""
        return numpy.asarray(a)

    @staticmethod
    def array_out(name):
        """Whether the namespace's function ``name`` takes ``out=...`` to return a 0-d array
        where it would return a scalar (a ufunc with one output, NumPy 2.3 on): the op path
        then needs no asarray for 0-d results."""
        fn = getattr(numpy, name, None)
        return isinstance(fn, numpy.ufunc) and fn.nout == 1 and _ARRAY_OUT


def _array_out():
    try:
        return type(numpy.negative(numpy.float64(1), out=...)) is numpy.ndarray
    except TypeError:
        return False


_ARRAY_OUT = _array_out()


class _Span:
    """A byte range of an array's memory, as NumPy's array interface (``base`` keeps the
    array alive and lets memory() find it again)."""

    def __init__(self, base, address, nbytes):
        self.base = base
        self.__array_interface__ = {"shape": (nbytes,), "typestr": "|u1", "version": 3,
                                    "data": (address, not base.flags.writeable)}


NUMPY = NumpyBackend()


def _capsule_name(capsule):
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype, get_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
    return get_name(capsule)


class _CapsuleProducer:
    """A DLPack capsule as the producer NumPy's from_dlpack asks for (a CPU one)."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, **_):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)


class _Writable:
    """An array's memory described as writable (numpy.asarray of it: a writable view)."""

    def __init__(self, array):
        self.array = array
        face = dict(array.__array_interface__)
        face["data"] = (face["data"][0], False)
        self.__array_interface__ = face
