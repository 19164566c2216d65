"""Thread settings: torch's intra-op pool is NumPy's BLAS pool here (threadpoolctl limits it);
glassgrad runs no inter-op pool, so its size is only remembered."""
import builtins
import os

from .backend import NUMPY

_interop = [os.cpu_count() or 1]


def _positive(n, fn):
    if not isinstance(n, builtins.int) or isinstance(n, builtins.bool):
        raise RuntimeError(f"{fn} expects an int, but got {type(n).__name__}")
    if n <= 0:
        raise RuntimeError(f"{fn} expects a positive integer")


def set_num_threads(int):     # noqa: A002 - torch's parameter name
    _positive(int, "set_num_threads")
    NUMPY.set_num_threads(int)


def get_num_threads():
    return NUMPY.get_num_threads()


def set_num_interop_threads(int):     # noqa: A002
    _positive(int, "set_num_interop_threads")
    _interop[0] = int


def get_num_interop_threads():
    return _interop[0]
