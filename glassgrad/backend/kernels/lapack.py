"""LAPACK's conventions, for the factorizations torch runs through LAPACK.

torch factors with LAPACK (getrf for det, slogdet, solve and the singularity errors of inv) and
returns its results in LAPACK's column-major layout, so their values (which pivot wins a tie),
pivots (1-based, int32) and strides are LAPACK's. numpy.linalg does not expose getrf's factors,
so getrf's partial pivoting is replayed here, batched with NumPy.
"""
import math

import numpy as xp


def _colmajor(a):
    """LAPACK's layout: each matrix column-major, batches row-major (torch's strides, kept for
    size-1 dims too, where NumPy would normalise them)."""
    out = xp.swapaxes(xp.ascontiguousarray(xp.swapaxes(a, -1, -2)), -1, -2)
    if out.ndim < 2 or 1 not in out.shape[-2:] or out.size == 0:
        return out
    m, n = out.shape[-2:]
    step, strides = m * n * out.itemsize, []
    for size in reversed(out.shape[:-2]):
        strides.append(step)
        step *= size
    strides = tuple(reversed(strides)) + (out.itemsize, m * out.itemsize)
    return xp.lib.stride_tricks.as_strided(out, out.shape, strides)


def _lu_factor(a):
    """Partially pivoted LU as LAPACK's getrf, of an m x n matrix (or a batch): packed LU and
    min(m, n) 1-based int32 pivots (the first largest magnitude in the column is the pivot, as
    getrf's idamax picks); a zero pivot leaves its column unscaled, as getrf."""
    m, n = a.shape[-2:]
    lu = xp.array(a, copy=True)
    piv = xp.zeros(a.shape[:-2] + (min(m, n),), xp.int32)
    batch = math.prod(a.shape[:-2])    # (not -1: an empty matrix has no size to divide)
    flat, pflat = lu.reshape(batch, m, n), piv.reshape(batch, min(m, n))
    rows = xp.arange(flat.shape[0])
    iscomplex = a.dtype.kind == "c"    # izamax's magnitude: |re| + |im|
    with xp.errstate(divide="ignore", invalid="ignore"):
        for k in range(min(m, n)):
            col = flat[:, k:, k]
            p = k + xp.argmax(abs(col.real) + abs(col.imag) if iscomplex else abs(col), axis=1)
            pflat[:, k] = p + 1
            top = flat[rows, k].copy()
            flat[rows, k] = flat[rows, p]
            flat[rows, p] = top
            pivot = flat[:, k, k]
            flat[:, k + 1:, k] /= xp.where(pivot == 0, 1, pivot)[:, None]
            flat[:, k + 1:, k + 1:] -= flat[:, k + 1:, k, None] * flat[:, k, None, k + 1:]
    return lu, piv


def _lu_info(lu):
    """getrf's info: the 1-based index of the first zero on U's diagonal, 0 if none."""
    zero = xp.diagonal(lu, 0, -2, -1) == 0
    if zero.shape[-1] == 0:
        return xp.zeros(zero.shape[:-1], xp.int32)
    return xp.where(zero.any(-1), xp.argmax(zero, -1) + 1, 0).astype(xp.int32)


def _pivots_to_perm(piv, m):
    """The row order getrf's pivots apply: row j of P^T A is A's row perm[j]."""
    perm = xp.broadcast_to(xp.arange(m), piv.shape[:-1] + (m,)).copy()
    flat, pflat = perm.reshape(-1, m), piv.reshape(-1, piv.shape[-1]) - 1
    rows = xp.arange(flat.shape[0])
    for i in range(pflat.shape[-1]):
        p = pflat[:, i]
        top = flat[rows, i].copy()
        flat[rows, i] = flat[rows, p]
        flat[rows, p] = top
    return perm


def _trsm(a, b, upper, left=True, unit=False):
    """trsm: X with op(A) X = B (left) or X A = B, A triangular (only that triangle read),
    batches broadcast; substitution row by row, vectorised over the batch and B's columns; a
    zero on the diagonal divides (inf, nan) as LAPACK's does."""
    if not left:
        return xp.swapaxes(_trsm(xp.swapaxes(a, -1, -2), xp.swapaxes(b, -1, -2), not upper,
                                 True, unit), -1, -2)
    batch = xp.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = xp.broadcast_to(a, batch + a.shape[-2:])
    x = xp.array(xp.broadcast_to(b, batch + b.shape[-2:]), dtype=xp.result_type(a, b))
    n = a.shape[-1]
    with xp.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for i in (reversed(range(n)) if upper else range(n)):
            done = slice(i + 1, n) if upper else slice(0, i)
            x[..., i, :] -= xp.matmul(a[..., i, None, done], x[..., done, :])[..., 0, :]
            if not unit:
                x[..., i, :] /= a[..., i, i, None]
    return x


def _expm(a):
    """The matrix exponential (SciPy's Pade approximant with scaling and squaring, batched)."""
    from scipy.linalg import expm
    return expm(a) if a.size else xp.array(a, copy=True)


def _geqrf(a):
    """geqrf's packed QR: the Householder vectors below R and their scalars tau."""
    h, tau = xp.linalg.qr(a, mode="raw")      # (h is LAPACK's column-major array)
    return xp.swapaxes(h, -1, -2), tau


def _ldl_kind(a, hermitian):
    """The Bunch-Kaufman routine torch calls: hetrf/hetrs for a complex Hermitian matrix,
    sytrf/sytrs otherwise (a complex symmetric one, or a real one)."""
    return "he" if hermitian and a.dtype.kind == "c" else "sy"


def _ldl(a, hermitian):
    """sytrf's (hetrf's) Bunch-Kaufman LDL^T (LDL^H), lower: packed factors, 1-based int32
    pivots, info. Pivots and info are LAPACK's exactly; the values may differ from MKL's (torch's)
    in the last bits."""
    from scipy.linalg import lapack
    flat = a.reshape(math.prod(a.shape[:-2]), *a.shape[-2:])
    fn = lapack.get_lapack_funcs(_ldl_kind(a, hermitian) + "trf", (flat,))
    out = xp.empty_like(flat)
    piv = xp.empty(flat.shape[:-1], xp.int32)
    info = xp.empty(flat.shape[0], xp.int32)
    for i, mat in enumerate(flat):
        out[i], piv[i], info[i] = fn(mat, lower=1)[:3] if mat.size else (mat, piv[i], 0)
    return out.reshape(a.shape), piv.reshape(a.shape[:-1]), info.reshape(a.shape[:-2])


def _ldl_solve(ld, piv, b, hermitian):
    """sytrs (hetrs): X with A X = B from _ldl's lower factors (batches of the same shape)."""
    from scipy.linalg import lapack
    batch = math.prod(b.shape[:-2])
    fl, pf = ld.reshape(batch, *ld.shape[-2:]), piv.reshape(batch, piv.shape[-1])
    bf = b.reshape(batch, *b.shape[-2:])
    fn = lapack.get_lapack_funcs(_ldl_kind(ld, hermitian) + "trs", (fl,))
    out = xp.empty_like(bf)
    if b.size:
        for i in range(batch):
            out[i] = fn(fl[i], pf[i].astype(xp.int32), bf[i], lower=1)[0]
    return out.reshape(b.shape)


def _perm_sign(piv, dtype):
    """The sign of the permutation getrf's 1-based pivots describe: -1 per row swap."""
    swaps = xp.sum(piv != xp.arange(1, piv.shape[-1] + 1, dtype=piv.dtype), -1)
    return (1 - 2 * (swaps % 2)).astype(dtype)


def _lapack_view(A):
    """The matrix LAPACK sees in A's memory: torch factors a row-major A as A^T (same det)."""
    return xp.swapaxes(A, -1, -2) if A.flags.c_contiguous else A


def _lu_solve(lu, piv, b, adjoint=False, conj=False):
    """getrs: X with A X = B (adjoint: A^T X = B; conj: conj(A) in place of A, so adjoint and
    conj together solve A^H X = B) from getrf's packed factors of A = P L U and its 1-based
    pivots, batched over b's leading dims (lu's and piv's, the same). As LAPACK's triangular
    solves, a zero pivot divides (inf, nan), no check."""
    n = lu.shape[-1]
    k = b.shape[-1]
    x = xp.array(b, copy=True)
    batch = math.prod(lu.shape[:-2])
    flat, L = x.reshape(batch, n, k), lu.reshape(batch, n, n)
    if conj:
        L = xp.conj(L)
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
