"""LAPACK's conventions, for the factorizations torch runs through LAPACK.

torch factors with LAPACK (getrf for det, slogdet, solve and the singularity errors of inv) and
returns its results in LAPACK's column-major layout, so their values (which pivot wins a tie),
pivots (1-based, int32) and strides are LAPACK's. numpy.linalg does not expose getrf's factors,
so getrf's partial pivoting is replayed here, batched with NumPy.
"""
import numpy as xp


def _colmajor(a):
    """LAPACK's layout: each matrix column-major, batches row-major (torch's strides)."""
    return xp.swapaxes(xp.ascontiguousarray(xp.swapaxes(a, -1, -2)), -1, -2)


def _lu_factor(a):
    """Partially pivoted LU as LAPACK's getrf: packed LU and 1-based int32 pivots (the first
    largest magnitude in the column is the pivot, as getrf's idamax picks)."""
    n = a.shape[-1]
    lu = xp.array(a, copy=True)
    piv = xp.zeros(a.shape[:-1], xp.int32)
    flat, pflat = lu.reshape(-1, n, n), piv.reshape(-1, n)
    rows = xp.arange(flat.shape[0])
    with xp.errstate(divide="ignore", invalid="ignore"):
        for k in range(n):
            p = k + xp.argmax(abs(flat[:, k:, k]), axis=1)
            pflat[:, k] = p + 1
            top = flat[rows, k].copy()
            flat[rows, k] = flat[rows, p]
            flat[rows, p] = top
            pivot = flat[:, k, k]
            flat[:, k + 1:, k] /= xp.where(pivot == 0, 1, pivot)[:, None]
            flat[:, k + 1:, k + 1:] -= flat[:, k + 1:, k, None] * flat[:, k, None, k + 1:]
    return lu, piv


def _perm_sign(piv, dtype):
    """The sign of the permutation getrf's 1-based pivots describe: -1 per row swap."""
    swaps = xp.sum(piv != xp.arange(1, piv.shape[-1] + 1, dtype=piv.dtype), -1)
    return (1 - 2 * (swaps % 2)).astype(dtype)


def _lapack_view(A):
    """The matrix LAPACK sees in A's memory: torch factors a row-major A as A^T (same det)."""
    return xp.swapaxes(A, -1, -2) if A.flags.c_contiguous else A
