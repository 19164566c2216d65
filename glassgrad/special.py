"""glassgrad.special: the torch.special namespace (functions come from the ops modules'
SPECIAL tables)."""
from .ops import special_functions as _functions

globals().update(_functions())
__all__ = sorted(_functions())
