"""Special functions NumPy lacks, for torch's erf, erfc and erfinv (and the exact GELU).

NumPy has no erf, erfc or erfinv (SciPy is not a dependency): erf and erfc apply the C
library's (``math.erf``) element by element in float64, and erfinv solves erf(x) = y to float64
accuracy. The ops round the float64 results to their dtype. A CuPy backend would use
``cupyx.scipy.special`` instead.
"""
import math

import numpy as xp

_erf_np = xp.vectorize(math.erf, otypes=[xp.float64],     # exact; NumPy has no erf
                       doc="erf of each element in float64 (math.erf: the C library's).")
_erfc_np = xp.vectorize(math.erfc, otypes=[xp.float64],
                        doc="erfc of each element in float64 (math.erfc: the C library's).")


def _erfinv_np(y):
    """Winitzki's approximation refined by Halley steps on erf: float64 accuracy."""
    y = xp.asarray(y, dtype=xp.float64)
    a = xp.abs(y)
    with xp.errstate(all="ignore"):
        ln = xp.log1p(-a * a)
        t = 2 / (xp.pi * 0.147) + ln / 2
        x = xp.sqrt(xp.sqrt(t * t - ln / 0.147) - t)
        small = a < 0.5
        for _ in range(4):
            x = xp.where(xp.isfinite(x), x, 0.0)
            f = xp.where(small, _erf_np(x) - a, (1 - a) - _erfc_np(x))   # erf(x) - a
            x = x - f / (2 / math.sqrt(math.pi) * xp.exp(-x * x) + x * f)
        x = xp.where(a == 1, xp.inf, xp.where(a > 1, xp.nan, x))
    return xp.copysign(x, y)


# -- SciPy's special functions (imported when first used), with torch's values at the edges --
def _sc():
    import scipy.special
    return scipy.special


def _like(out, *arrays):
    """out in the float dtype of the first float input (NumPy's float64 otherwise)."""
    kinds = [a.dtype for a in arrays if getattr(a, "dtype", xp.dtype(object)).kind == "f"]
    return xp.asarray(out, dtype=kinds[0] if kinds else xp.float64)


def scipy_unary(name):
    """x -> scipy.special.<name>(x) in x's float dtype."""
    def kernel(x):
        with xp.errstate(all="ignore"):
            return _like(getattr(_sc(), name)(x), x)
    kernel.__name__ = name
    return kernel


def scipy_binary(name, x, y):
    """scipy.special.<name>(x, y) in their float dtype."""
    with xp.errstate(all="ignore"):
        return _like(getattr(_sc(), name)(x, y), x, y)


def lgamma(x):
    with xp.errstate(all="ignore"):
        return _like(xp.where(x == -xp.inf, xp.inf, _sc().gammaln(x)), x)


def trigamma(x):
    """ATen's calc_trigamma: reflection below 1/2, six recurrence steps, then the asymptotic
    series."""
    x = xp.asarray(x, dtype=xp.float64)
    with xp.errstate(all="ignore"):
        low = x < 0.5
        result = xp.where(low, -(xp.pi ** 2) / xp.sin(xp.pi * x) ** 2, 0.0)
        x = xp.where(low, 1 - x, x)
        for _ in range(6):
            result = result + 1 / (x * x)
            x = x + 1
        ixx = 1 / (x * x)
        result = result + (1 + 1 / (2 * x) + ixx * (1 / 6 - ixx * (1 / 30 - ixx / 42))) / x
        return xp.where(low, -result, result)


def zeta(x, q):
    """The Hurwitz zeta function as ATen's: NaN at q = inf, inf at q = -inf."""
    with xp.errstate(all="ignore"):
        out = _sc().zeta(x, q)
        return _like(xp.where(q == xp.inf, xp.nan, xp.where(q == -xp.inf, xp.inf, out)), x, q)


def polygamma(n, x):
    """ATen's polygamma: digamma, trigamma, then (-1)**(n+1) n! zeta(n+1, x)."""
    if n == 0:
        return scipy_unary("psi")(x)
    if n == 1:
        return _like(trigamma(x), x)
    with xp.errstate(all="ignore"):
        return _like((1.0 if n % 2 else -1.0) * math.gamma(n + 1) *
                     zeta(xp.float64(n + 1), xp.asarray(x, dtype=xp.float64)), x)


def airy_ai(x):
    with xp.errstate(all="ignore"):
        return _like(xp.where((x > 103.892) & (x < xp.inf), 0.0, _sc().airy(x)[0]), x)


def spherical_bessel_j0(x):
    with xp.errstate(all="ignore"):
        return _like(_sc().spherical_jn(0, x), x)


def gammainc(a, x, upper=False):
    with xp.errstate(all="ignore"):
        return _like((_sc().gammaincc if upper else _sc().gammainc)(a, x), a, x)


def _chebyshev_u(sc, n, x):
    return xp.where(n < 0, 0.0, sc.eval_chebyu(xp.maximum(n, 0), x))


POLYNOMIALS = {
    "chebyshev_polynomial_t": lambda sc, n, x: sc.eval_chebyt(n, x),
    "chebyshev_polynomial_u": lambda sc, n, x: sc.eval_chebyu(n, x),
    "chebyshev_polynomial_v": lambda sc, n, x: _chebyshev_u(sc, n, x) - _chebyshev_u(sc, n - 1, x),
    "chebyshev_polynomial_w": lambda sc, n, x: _chebyshev_u(sc, n, x) + _chebyshev_u(sc, n - 1, x),
    "shifted_chebyshev_polynomial_t": lambda sc, n, x: sc.eval_chebyt(n, 2 * x - 1),
    "shifted_chebyshev_polynomial_u": lambda sc, n, x: sc.eval_chebyu(n, 2 * x - 1),
    "shifted_chebyshev_polynomial_v": lambda sc, n, x: POLYNOMIALS["chebyshev_polynomial_v"](
        sc, n, 2 * x - 1),
    "shifted_chebyshev_polynomial_w": lambda sc, n, x: POLYNOMIALS["chebyshev_polynomial_w"](
        sc, n, 2 * x - 1),
    "hermite_polynomial_h": lambda sc, n, x: sc.eval_hermite(n, x),
    "hermite_polynomial_he": lambda sc, n, x: sc.eval_hermitenorm(n, x),
    "laguerre_polynomial_l": lambda sc, n, x: sc.eval_laguerre(n, x),
    "legendre_polynomial_p": lambda sc, n, x: sc.eval_legendre(n, x),
}


def polynomial(name, x, n):
    """torch.special.<name>(x, n): the degree truncated to an integer, 0 for a negative one."""
    n = xp.trunc(xp.asarray(n, dtype=xp.float64)).astype(xp.int64)
    x = xp.asarray(x, dtype=xp.float64)
    n, x = xp.broadcast_arrays(n, x)
    with xp.errstate(all="ignore"):
        out = POLYNOMIALS[name](_sc(), xp.maximum(n, 0), x)
        return xp.where(n < 0, 0.0, out)
