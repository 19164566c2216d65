"""glassgrad.utils: checkpoint (activation recomputation), data (datasets and the DataLoader)."""
from . import checkpoint, data  # noqa: F401
