"""a * b + c rounded once, vectorised: the fused multiply-add PyTorch's CPU kernels use for
add/sub with alpha, addcmul and lerp (their loops contract to FMA instructions) and the samplers
of backend/kernels/random.py (C++'s std::fma).

float32 (and narrower) operands: the product of two float32 values is exact in float64, so the
float64 sum rounded to the dtype is the fused result (a second rounding that matters only
where the float64 sum lands exactly halfway between two float32 values). float64: Boldo and
Melquiond's emulation ("Emulation of FMA and correctly rounded sums: proved algorithms using
rounding to odd", IEEE TC 2008), correctly rounded: Dekker's exact product a * b = uh + ul,
Knuth's exact sum c + uh = th + tl, then th + odd(tl + ul), where odd() rounds to odd (an
inexact sum keeps its last bit set). The proof needs no overflow and no underflow: elements
whose product is tiny or huge, or whose result is not finite, are computed one by one with the
C library's fma instead (a rare, masked fallback).
"""
import ctypes
import ctypes.util

import numpy as xp

_SPLITTER = 134217729.0          # 2**27 + 1: Veltkamp's split of a double into two halves
_TINY, _HUGE = 2.0 ** -900, 2.0 ** 900
_C_FMA = ctypes.CDLL(ctypes.util.find_library("m")).fma
_C_FMA.restype, _C_FMA.argtypes = ctypes.c_double, [ctypes.c_double] * 3
_ONE_BY_ONE = xp.frompyfunc(_C_FMA, 3, 1)


def _split(x):
    c = _SPLITTER * x
    hi = c - (c - x)
    return hi, x - hi


def _two_sum(x, y):
    """s, e with s = x + y rounded and x + y = s + e exactly (Knuth)."""
    s = x + y
    v = s - x
    return s, (x - (s - v)) + (y - v)


def _round_to_odd_sum(x, y):
    """x + y rounded to odd: the nearest double, moved one step towards the exact sum when it
    is inexact and its last mantissa bit is 0."""
    s, e = _two_sum(x, y)
    even = (s.view(xp.int64) & 1) == 0
    return xp.where((e != 0) & even, xp.nextafter(s, xp.where(e > 0, xp.inf, -xp.inf)), s)


def _fma64(a, b, c):
    a, b, c = xp.broadcast_arrays(a, b, c)
    uh = a * b
    a_hi, a_lo = _split(a)
    b_hi, b_lo = _split(b)
    ul = ((a_hi * b_hi - uh) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo
    th, tl = _two_sum(c, uh)
    out = xp.asarray(th + _round_to_odd_sum(tl, ul))
    big = xp.maximum(xp.maximum(abs(a), abs(b)), abs(c))
    unsafe = (~xp.isfinite(out) | (big > _HUGE)
              | ((abs(uh) < _TINY) & (a != 0) & (b != 0)) | ((c != 0) & (abs(c) < _TINY)))
    if unsafe.any():
        out = out.copy()
        out[unsafe] = _ONE_BY_ONE(a[unsafe], b[unsafe], c[unsafe]).astype(xp.float64)
    return out


def fma(a, b, c, dtype):
    """a * b + c in ``dtype`` (a floating dtype), rounded once; scalars are first rounded to
    dtype, as the kernels cast their scalar arguments."""
    a, b, c = (xp.asarray(v, dtype=dtype) for v in (a, b, c))
    with xp.errstate(all="ignore"):
        if dtype == xp.float64:
            out = _fma64(a, b, c)
        else:
            # (the product is exact in float64, c joins it there)
            out = xp.add(xp.multiply(a, b, dtype=xp.float64), c).astype(dtype)
    return out
