"""The array seam: the only place that imports NumPy. Everything else uses ``xp`` from here."""
import numpy as xp

# torch computes IEEE results (inf, nan) silently; NumPy would warn on every overflow or log(0)
xp.seterr(all="ignore")

ndarray = xp.ndarray

__all__ = ["xp", "ndarray"]
