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
