"""glassgrad.linalg: the torch.linalg namespace (functions come from the ops modules' LINALG)."""
from .ops import linalg_functions as _functions

globals().update(_functions())
__all__ = sorted(_functions())
