"""The Cephes-style float polynomials (log, sincos) of the AVX2 kernel torch uses for float32
normal_ on CPUs with AVX2 (aten/src/ATen/native/cpu/avx_mathfun.h), replayed operation by
operation in float32 so each rounding is the same. The compiler fuses some multiply-adds
(found by comparing with torch): ``_fma`` gives those one rounding (the float product is exact
in double)."""
import numpy as np

_f = np.float32
_LOG_P = [_f(c) for c in (7.0376836292E-2, -1.1514610310E-1, 1.1676998740E-1,
                          -1.2420140846E-1, 1.4249322787E-1, -1.6668057665E-1,
                          2.0000714765E-1, -2.4999993993E-1, 3.3333331174E-1)]
_LOG_Q1, _LOG_Q2, _SQRTHF = _f(-2.12194440e-4), _f(0.693359375), _f(0.707106781186547524)
_DP = [_f(-0.78515625), _f(-2.4187564849853515625e-4), _f(-3.77489497744594108e-8)]
_SIN_P = [_f(-1.9515295891E-4), _f(8.3321608736E-3), _f(-1.6666654611E-1)]
_COS_P = [_f(2.443315711809948E-005), _f(-1.388731625493765E-003), _f(4.166664568298827E-002)]
_FOPI, _HALF, _ONE = _f(1.27323954473516), _f(0.5), _f(1.0)


def _fma(a, b, c):
    return (np.asarray(a, np.float64) * np.asarray(b, np.float64) + c).astype(_f)


def log(x):
    """log256_ps for positive float32 x."""
    x = np.maximum(x.astype(_f), np.array(0x00800000, np.int32).view(_f))
    bits = x.view(np.int32)
    e = ((bits >> 23) - 0x7F).astype(_f) + _ONE
    x = ((bits & ~0x7F800000) | _HALF.view(np.int32)).view(_f)
    mask = x < _SQRTHF
    tmp = np.where(mask, x, _f(0))
    x = x - _ONE
    e = e - np.where(mask, _ONE, _f(0))
    x = x + tmp
    z = x * x
    y = _LOG_P[0]
    for p in _LOG_P[1:]:
        y = _fma(y, x, p)
    y = _fma(y * x, z, e * _LOG_Q1)
    y = _fma(-z, _HALF, y)
    return _fma(e, _LOG_Q2, x + y)


def sincos(x):
    """sincos256_ps: (sin, cos) of float32 x."""
    x = x.astype(_f)
    sign_sin = np.signbit(x)
    x = np.abs(x)
    j = (((x * _FOPI).astype(np.int32) + 1) & ~1)
    y = j.astype(_f)
    swap_sin = (j & 4) != 0
    poly = (j & 2) == 0
    cos_sign = (~(j - 2) & 4) != 0
    for dp in _DP:
        x = _fma(y, dp, x)
    z = x * x
    c = _fma(_fma(_fma(_COS_P[0], z, _COS_P[1]), z, _COS_P[2]) * z, z, -(z * _HALF)) + _ONE
    s = _fma(_fma(_fma(_SIN_P[0], z, _SIN_P[1]), z, _SIN_P[2]) * z, x, x)
    sin = np.where(poly, s, c)
    cos = np.where(poly, c, s)
    sin = np.where(sign_sin ^ swap_sin, -sin, sin)
    cos = np.where(cos_sign, -cos, cos)
    return sin, cos
