"""Sums over many short rows, faster than NumPy's reduce and in another order.

NumPy's ``add.reduce`` over a contiguous last axis calls its inner loop once per row (~28 ns a
row here: 512 rows of 64 cost 15 µs where torch takes 5); ``einsum("...i->...")`` adds a row
several times faster, after a fixed cost that fewer rows do not repay. Its order is another
one (NumPy's pairwise sum of at most 128 elements runs eight sums, einsum its vector lanes,
torch a third), and a row's sum does not depend on where the row lies in memory. Used by the
reductions (sum, mean, var, softmax) and the engine's sum of broadcast gradients."""
import numpy as np

_EINSUM_SUMS = (np.dtype(np.float32), np.dtype(np.float64))


def short_rows(a, axis, dtype=None):
    """Whether a sum of ``a`` over ``axis`` is one over many short rows that einsum adds
    faster: the last axis, contiguous, at most 128 long, of a float32/float64 array with 128
    rows or more, summed in its own dtype."""
    shape = a.shape
    if len(shape) < 2 or not 0 < shape[-1] <= 128 or a.size < 128 * shape[-1]:
        return False
    last = len(shape) - 1
    return ((axis == last or axis == (last,)) and a.dtype in _EINSUM_SUMS
            and (dtype is None or dtype == a.dtype) and a.strides[-1] == a.itemsize)


def add_reduce(a, axis, keepdims=False, dtype=None):
    """np.add.reduce(a, axis, dtype, keepdims), short rows by einsum (the row count tested
    first: small sums pay no more than that)."""
    if a.ndim > 1 and a.size >= 128 * a.shape[-1] and short_rows(a, axis, dtype):
        total = np.einsum("...i->...", a)
        return total.reshape(*total.shape, 1) if keepdims else total
    return np.add.reduce(a, axis=axis, keepdims=keepdims, dtype=dtype)
