"""torch.utils.benchmark: Timer (on the standard library's timeit) and Measurement."""
from .timer import Measurement, Timer  # noqa: F401
