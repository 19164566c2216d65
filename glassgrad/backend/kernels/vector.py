"""Where torch's CPU loops use vector registers, for the few results that depend on it.

ATen's binary kernels (cpu_kernel_vec) walk a TensorIterator: dimensions ordered by memory,
adjacent ones coalesced, and along the innermost one whole vectors (64 bytes with AVX-512, 32
with AVX2) go through the vector op, the remainder through the scalar op. The two disagree
on signed-zero ties and NaN: ``maximum(-0.0, 0.0)`` is the scalar op's first operand but the
vector op's second (``_mm512_max_pd`` returns its second operand on equal inputs), and the
vector op's NaN has every bit set (its sign too), so the sign of such a result depends on the
element's place in that walk."""
import functools
import os

import numpy as np


def _vector_bytes():
    """torch's CPU capability as ATen picks it (ATEN_CPU_CAPABILITY, else the best the CPU
    has): 64 for AVX-512, 32 for AVX2, None where the loops are not known (other CPUs)."""
    chosen = os.environ.get("ATEN_CPU_CAPABILITY", "").lower()
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((line.split(":", 1)[1].split() for line in f
                          if line.startswith("flags")), [])
    except OSError:
        flags = []
    avx512 = all(f in flags for f in ("avx512f", "avx512bw", "avx512vl", "avx512dq", "fma"))
    avx2 = "avx2" in flags and "fma" in flags
    if chosen == "avx512" and avx512 or not chosen and avx512:
        return 64
    if chosen in ("avx2", "avx512", "") and avx2:
        return 32
    return None


VECTOR_BYTES = _vector_bytes()


def _inner_positions(shape, strides):
    """(position along the innermost coalesced dim of TensorIterator's walk, its length) for
    every element of ``shape``, or None where some operand is not contiguous along it.
    ``strides``: each operand's strides in elements (0 where broadcast)."""
    def outer_first(d, e):      # TensorIterator's order: the first operand that tells them
        for s in strides:       # apart (neither broadcast) decides, else the dims' own order
            if s[d] and s[e] and s[d] != s[e]:
                return -1 if abs(s[d]) > abs(s[e]) else 1
        return -1 if d < e else 1
    order = sorted(range(len(shape)), key=functools.cmp_to_key(outer_first))
    dims = [d for d in order if shape[d] != 1]
    if not dims:
        return None, 0
    inner, span = [dims[-1]], shape[dims[-1]]
    for d in reversed(dims[:-1]):      # coalesce outward while every operand stays linear
        if all(s[d] == s[inner[0]] * shape[inner[0]] for s in strides):
            inner.insert(0, d)
            span *= shape[d]
        else:
            break
    last = inner[-1]
    if not all(s[last] == 1 for s in strides if s[last] != 0) or \
            sum(s[last] == 0 for s in strides) > 1:
        return None, span
    position, step = np.zeros((), np.int64), 1
    for d in reversed(inner):
        axis = np.arange(shape[d]).reshape([-1 if k == d else 1 for k in range(len(shape))])
        position = position + axis * step
        step *= shape[d]
    return position, span


def lanes(shape, dtype, *operands):
    """Which elements of a ``shape`` result torch's walk over ``operands`` hands to the vector
    op (a boolean array broadcastable to ``shape``), or None where none are."""
    if VECTOR_BYTES is None or not shape:
        return None
    size = np.dtype(dtype).itemsize
    views = [np.broadcast_to(a, shape) for a in operands]
    position, span = _inner_positions(shape, [tuple(s // v.itemsize for s in v.strides)
                                              for v in views])
    return None if position is None else position < span - span % (VECTOR_BYTES // size)


def keep_self(fn, self, other):
    """fn(self, other) for fn NumPy's maximum or minimum, keeping self on a tie as torch's
    scalar op does (max(-0.0, 0.0) is -0.0): NumPy keeps its second operand on a tie, its
    first for float16 (tests/test_numerics.py checks both)."""
    loop = (self.dtype if type(self) is np.ndarray and type(other) in (int, float) else
            np.result_type(self, other))    # (a Python number beside an array: the array's)
    return fn(self, other) if loop == np.float16 else fn(other, self)


def extremum(fn, self, other, vector=False):
    """``fn`` (NumPy's maximum or minimum) of float arrays as torch's kernel gives it,
    signed-zero ties and NaN signs included (see the module docstring). ``vector``: the lanes
    (see lanes()) when the walk has more operands than these two (clamp's)."""
    out = keep_self(fn, self, other)
    if VECTOR_BYTES is None or out.ndim == 0 or out.dtype.kind != "f":
        return out
    ties = (self == 0) & (other == 0)
    nan = np.isnan(out)
    if not (ties.any() or nan.any()):
        return out
    if vector is False:
        vector = lanes(out.shape, out.dtype, self, other)
    if vector is not None:
        np.copyto(out, np.broadcast_to(np.asarray(other, out.dtype), out.shape),
                  where=ties & vector)
        np.copyto(out, np.array(-1, f"i{out.itemsize}").view(out.dtype), where=nan & vector)
    return out
