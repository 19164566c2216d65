"""The array seam: the only place that imports NumPy. Everything else uses ``xp`` from here."""
import numpy as xp

ndarray = xp.ndarray

__all__ = ["xp", "ndarray"]
