"""glassgrad.utils: checkpoint (activation recomputation), data (datasets and the DataLoader),
deterministic (fill_uninitialized_memory)."""
from . import checkpoint, data, deterministic  # noqa: F401
