"""Runtime settings. Threads: torch's intra-op pool is NumPy's BLAS pool here (threadpoolctl
limits it); glassgrad runs no inter-op pool, so its size is only remembered. The float32 matmul
precision is kept (glassgrad always computes float32 matmuls in float32)."""
import builtins
import os
import warnings

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


# float32 matmul precision: a permission to compute float32 matmuls in lower precision (TF32,
# bfloat16) that glassgrad never uses; it is kept, and torch.backends.cuda.matmul.allow_tf32
# reads and writes it as in torch
_matmul_precision = ["highest"]


def set_float32_matmul_precision(precision):
    if not isinstance(precision, str):
        raise RuntimeError(f"set_float32_matmul_precision expects a str, but got "
                           f"{type(precision).__name__}")
    if precision not in ("highest", "high", "medium"):
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      "setFloat32MatmulPrecision call has no effect. (Triggered internally at "
                      "/__w/pytorch/pytorch/aten/src/ATen/Context.cpp:458.)", UserWarning,
                      stacklevel=2)
        return
    _matmul_precision[0] = precision


def get_float32_matmul_precision():
    return _matmul_precision[0]
