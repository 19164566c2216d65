"""glassgrad.nn: the functional ops so far (modules, losses and init come with the nn issue)."""
from . import functional, parallel  # noqa: F401
