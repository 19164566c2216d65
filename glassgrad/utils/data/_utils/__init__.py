"""torch.utils.data._utils: collation, fetching and the worker process loop."""
from . import collate, fetch, worker  # noqa: F401
