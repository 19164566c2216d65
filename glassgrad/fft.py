"""glassgrad.fft: the torch.fft namespace (functions come from the ops modules' FFT tables;
ops/fft.py defines them)."""
from .ops import fft_functions as _functions
from ._tensor import Tensor

globals().update(_functions())
__all__ = sorted(_functions()) + ["Tensor"]
