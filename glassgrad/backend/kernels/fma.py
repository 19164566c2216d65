"""a * b + c rounded once, vectorised: the fused multiply-add PyTorch's CPU kernels use for
add/sub with alpha, addcmul and lerp (their loops contract to FMA instructions).

float32 (and narrower) operands: the product of two float32 values is exact in float64, so the
float64 sum rounded to the dtype is the fused result (a second rounding that matters only
where the float64 sum lands exactly halfway between two float32 values). float64: Dekker's
exact product and Knuth's exact sum give the product's and the sum's rounding errors, which
are added back before the one final rounding (Ogita-Rump-Oishi). Non-finite results fall back
to the plain expression, which gives IEEE's inf and nan.
"""
import numpy as xp

_SPLITTER = 134217729.0          # 2**27 + 1: Veltkamp's split of a double into two halves


def _split(x):
    c = _SPLITTER * x
    hi = c - (c - x)
    return hi, x - hi


def _fma64(a, b, c):
    p = a * b
    a_hi, a_lo = _split(a)
    b_hi, b_lo = _split(b)
    p_err = ((a_hi * b_hi - p) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo
    s = p + c
    v = s - p
    s_err = (p - (s - v)) + (c - v)
    out = s + (s_err + p_err)
    bad = ~xp.isfinite(out) | ~xp.isfinite(p_err)
    if bad.any():
        out = xp.where(bad, p + c, out)
    return out


def fma(a, b, c, dtype):
    """a * b + c in ``dtype`` (a floating dtype), rounded once; scalars are first rounded to
    dtype, as the kernels cast their scalar arguments."""
    a, b, c = (xp.asarray(v, dtype=dtype) for v in (a, b, c))
    with xp.errstate(all="ignore"):
        if dtype == xp.float64:
            out = _fma64(a, b, c)
        else:
            out = (a.astype(xp.float64) * b.astype(xp.float64) + c.astype(xp.float64)).astype(dtype)
    return out
