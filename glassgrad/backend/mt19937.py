"""PyTorch's CPU random engine on NumPy's MT19937 bit generator.

torch seeds the reference mt19937 with ``init_genrand(seed & 0xffffffff)`` (NumPy's legacy
``RandomState(seed)`` is the same seeding) and draws 32-bit words from it, or 64-bit words as
``(first << 32) | second``. ``Engine`` holds that stream in a NumPy ``MT19937`` (vectorised
``random_raw``), the seed and the Box-Muller values torch caches, and reads and writes torch's
5056-byte state (``CPUGeneratorImplState``). ``libm`` evaluates a C library function elementwise,
as torch's serial kernels call it (NumPy's own SIMD log/exp/tan differ in the last bit).
"""
import ctypes
import ctypes.util
import math
import os

import numpy as np

MASK64 = (1 << 64) - 1
STATE_SIZE = 5056
_N = 624
# torch's CPUGeneratorImplState: the legacy THGenerator POD, then the float normal cache
_LAYOUT = np.dtype([("seed", "<u8"), ("left", "<i4"), ("seeded", "<i4"), ("next", "<u8"),
                    ("state", "<u8", (_N,)), ("normal_x", "<f8"), ("normal_y", "<f8"),
                    ("normal_rho", "<f8"), ("normal_is_valid", "<i4"), ("_pad", "<i4"),
                    ("float_normal", "<f4"), ("float_normal_is_valid", "u1"),
                    ("_pad2", "u1", (3,))])
assert _LAYOUT.itemsize == STATE_SIZE


class Engine:
    """One generator's stream: mt19937 words, the seed, the cached normal samples."""

    def __init__(self, seed):
        self._bits = np.random.MT19937(0)
        self.reseed(seed)

    def reseed(self, seed):
        """torch's manual_seed: any integer, kept modulo 2**64; the engine uses its low 32 bits;
        the cached normals are dropped."""
        self.seed = seed & MASK64
        key = np.random.RandomState(self.seed & 0xFFFFFFFF).get_state()[1]
        self._set(key, _N)
        self.fresh = True           # torch reports next=0, left=1 until the first draw
        self.normal = None          # the second Box-Muller value (double), or None
        self.float_normal = None

    def _set(self, key, pos):
        self._bits.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": pos}}

    def words(self, n):
        """n 32-bit draws (uint64 array)."""
        self.fresh = self.fresh and n == 0        # drawing nothing leaves a fresh engine fresh
        return self._bits.random_raw(n)

    def words64(self, n):
        """n 64-bit draws, each two 32-bit words (the first is the high half)."""
        w = self.words(2 * n)
        return (w[0::2] << np.uint64(32)) | w[1::2]

    # -- save and restore -------------------------------------------------------------------
    def snapshot(self):
        return (self._bits.state, self.seed, self.fresh, self.normal, self.float_normal)

    def restore(self, snap):
        state, self.seed, self.fresh, self.normal, self.float_normal = snap
        self._bits.state = state

    def to_bytes(self):
        """torch's get_state(): the 5056 bytes as a uint8 array."""
        s = np.zeros((), _LAYOUT)
        st = self._bits.state["state"]
        pos = 0 if self.fresh else int(st["pos"])
        s["seed"], s["seeded"], s["state"] = self.seed, 1, st["key"]
        s["next"], s["left"] = pos, 1 if self.fresh else _N + 1 - pos
        if self.normal is not None:
            s["normal_y"], s["normal_is_valid"] = self.normal, 1
        if self.float_normal is not None:
            s["float_normal"], s["float_normal_is_valid"] = self.float_normal, 1
        return np.frombuffer(s.tobytes(), np.uint8).copy()

    def from_bytes(self, data):
        """torch's set_state() from the 5056 bytes (a uint8 array)."""
        s = np.frombuffer(np.ascontiguousarray(data).tobytes(), _LAYOUT)[0]
        left, nxt = int(s["left"]), int(s["next"])
        self.fresh = left == 1 and nxt == 0
        self._set(s["state"].astype(np.uint32), _N if left <= 1 else min(nxt, _N))
        self.seed = int(s["seed"])
        self.normal = float(s["normal_y"]) if s["normal_is_valid"] else None
        self.float_normal = float(s["float_normal"]) if s["float_normal_is_valid"] else None


def nondeterministic_seed():
    """A seed from the operating system's entropy, as torch.seed() takes one."""
    return int.from_bytes(os.urandom(8), "little")


# -- the C library's math functions, elementwise ------------------------------------------------
_LIBM = ctypes.CDLL(ctypes.util.find_library("m"))
_FUNCS = {}
LGAMMA = _LIBM.lgamma         # the C library's (Python's math.lgamma is CPython's own)
LGAMMA.restype, LGAMMA.argtypes = ctypes.c_double, [ctypes.c_double]


def _function(name, dtype):
    key = (name, dtype)
    if key not in _FUNCS:
        if dtype == np.float64:      # Python's math module calls the C library's double function
            f = getattr(math, name)
        else:
            f = getattr(_LIBM, name + "f")
            f.restype, f.argtypes = ctypes.c_float, [ctypes.c_float]
        _FUNCS[key] = f
    return _FUNCS[key]


def libm(name, x):
    """The C library's ``name`` (log, log1p, exp, sin, cos, tan) of each element of x,
    in x's precision: double for float64, the ``...f`` function for float32. Infinite and NaN
    results (log(0), ...) are IEEE's, which NumPy gives too.

    One C call per element (through ``map``): NumPy's own vectorised functions are not the C
    library's (on AVX-512 its log, log1p, exp and tan, and its float32 functions, are SIMD
    code that differs from glibc in the last bit: for 0.3% (log) to 7% (log1p) of uniform
    inputs, measured), and NumPy offers no loop over the C library's function; the per-element
    call costs about 70 ns."""
    x = np.asarray(x)
    dtype = np.dtype(np.float64 if x.dtype == np.float64 else np.float32)
    x = x.astype(dtype)
    out = np.array(getattr(np, name)(x), dtype)
    finite = np.isfinite(out)
    if finite.any():
        values = x[finite].astype(np.float64).tolist()
        out[finite] = np.fromiter(map(_function(name, dtype.type), values), np.float64,
                                  len(values))
    return out
