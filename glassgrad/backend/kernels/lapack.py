"""LAPACK's conventions, for the factorizations torch runs through LAPACK.

torch factors with LAPACK (getrf for det, slogdet, solve and the singularity errors of inv) and
returns its results in LAPACK's column-major layout, so their values (which pivot wins a tie),
pivots (1-based, int32) and strides are LAPACK's. numpy.linalg does not expose getrf's factors,
so getrf's partial pivoting is replayed here, batched with NumPy.
"""
import math

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
    batch = math.prod(a.shape[:-2])    # (not -1: an empty matrix has no size to divide)
    flat, pflat = lu.reshape(batch, n, n), piv.reshape(batch, n)
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


def _lu_solve(lu, piv, b, adjoint=False):
    """getrs: X with A X = B (adjoint: A^T X = B) from getrf's packed factors of A = P L U and
    its 1-based pivots, batched over b's leading dims (lu's and piv's, the same). As LAPACK's
    triangular solves, a zero pivot divides (inf, nan), no check."""
    n = lu.shape[-1]
    k = b.shape[-1]
    x = xp.array(b, copy=True)
    batch = math.prod(lu.shape[:-2])
    flat, L = x.reshape(batch, n, k), lu.reshape(batch, n, n)
    pflat = piv.reshape(batch, n) - 1
    rows = xp.arange(flat.shape[0])

    def swap(i):
        p = pflat[:, i]
        top = flat[rows, i].copy()
        flat[rows, i] = flat[rows, p]
        flat[rows, p] = top

    with xp.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if not adjoint:
            for i in range(n):
                swap(i)
            for i in range(n):          # L: unit lower triangular
                flat[:, i + 1:] -= L[:, i + 1:, i, None] * flat[:, i, None, :]
            for i in reversed(range(n)):    # U
                flat[:, i] /= L[:, i, i, None]
                flat[:, :i] -= L[:, :i, i, None] * flat[:, i, None, :]
        else:
            for i in range(n):          # U^T: lower triangular
                flat[:, i] /= L[:, i, i, None]
                flat[:, i + 1:] -= L[:, i, i + 1:, None] * flat[:, i, None, :]
            for i in reversed(range(n)):    # L^T: unit upper triangular
                flat[:, :i] -= L[:, i, :i, None] * flat[:, i, None, :]
            for i in reversed(range(n)):
                swap(i)
    return x
