"""glassgrad.utils: checkpoint (activation recomputation)."""
from . import checkpoint  # noqa: F401
