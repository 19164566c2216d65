"""torch.linalg beyond ops/linalg.py: triangular, LU, Cholesky, LDL and least-squares solvers,
Householder products, the matrix exponential and power, and the composites torch builds from
them (cond, matrix_rank, multi_dot, tensorinv, tensorsolve, vander, vecdot), with the older
torch.* spellings (triangular_solve, lu_solve, lu_unpack, cholesky_solve, ...).

Real and complex inputs (complex Householder reflectors are I - tau v v^H, LDL of a complex
matrix is hetrf's LDL^H with hermitian=True, sytrf's LDL^T otherwise). The factorizations
run as LAPACK does (backend/kernels/lapack.py: getrf's pivots, trsm's substitutions, sytrf,
geqrf) and their outputs take LAPACK's column-major layout; the backward formulas are torch's
(FunctionsManual.cpp) written as glassgrad ops, so they differentiate again: holomorphic ones
as real derivatives (conjugated by the registry for complex nodes), the others as torch's
complex formulas (wirtinger=False).
"""

from .. import dtypes
from .._autograd.grad_mode import state
from .._creation import eye, ones, zeros
from .._tensor import Tensor, _wrap_dim
from .._runtime import warn_once as _warn_once
from ..backend import xp
from ..backend.kernels.lapack import (_colmajor, _expm, _geqrf, _ldl, _ldl_solve, _lu_factor,
                                      _lu_info, _lu_solve, _pivots_to_perm, _trsm)
from . import public, publish
from .linalg import (_LinAlgError, _add_scaled, _batch_error, _check, _cholesky,
                     _cholesky_backward, _inv, _maybe_scale, _name, _return_type, _solve,
                     _solve_checks, eigvalsh, expand,
                     cholesky as _linalg_cholesky, diag_embed, inv, linalg_svd, matmul, mm,
                     outer, solve as linalg_solve, svdvals, tril, triu)
from .registry import _check_fits, apply_inplace, broadcast_shapes, defop
from .shape import cat, clone, reshape

_LU_FACTOR = _return_type("linalg_lu_factor", ("LU", "pivots"))
_LU_FACTOR_EX = _return_type("linalg_lu_factor_ex", ("LU", "pivots", "info"))
_LU = _return_type("linalg_lu", ("P", "L", "U"))
_LU_UNPACK = _return_type("lu_unpack", ("P", "L", "U"))
_TRIANGULAR_SOLVE = _return_type("triangular_solve", ("solution", "cloned_coefficient"))
_CHOLESKY_EX = _return_type("linalg_cholesky_ex", ("L", "info"))
_INV_EX = _return_type("linalg_inv_ex", ("inverse", "info"))
_SOLVE_EX = _return_type("linalg_solve_ex", ("result", "info"))
_LSTSQ = _return_type("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))
_LDL_FACTOR = _return_type("linalg_ldl_factor", ("LD", "pivots"))
_LDL_FACTOR_EX = _return_type("linalg_ldl_factor_ex", ("LD", "pivots", "info"))
_GEQRF = _return_type("geqrf", ("a", "tau"))


def _float_check(fn, A, name="A"):
    if A.dim() < 2:
        raise RuntimeError(f"{fn}: The input tensor {name} must have at least 2 dimensions.")
    if A.dtype.is_complex:
        raise NotImplementedError(f"{fn}: glassgrad's linear algebra has no complex kernels")
    if not A.dtype.is_floating_point or A.dtype is dtypes.float16:
        raise RuntimeError(f"{fn}: Expected a floating point or complex tensor as input. Got "
                           f"{_name(A)}")


_LAPACK_DTYPES = (dtypes.float32, dtypes.float64, dtypes.complex64, dtypes.complex128)


def _not_implemented(kernel, A):
    """torch's dispatch refusal of a dtype its LAPACK kernel has no version for."""
    if A.dtype not in _LAPACK_DTYPES:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_name(A)}\'')


def _same_dtype(fn, A, B, a="A", b="B"):
    if A.dtype is not B.dtype:
        raise RuntimeError(f"{fn}: Expected {a} and {b} to have the same dtype, but found {a} of "
                           f"type {_name(A)} and {b} of type {_name(B)} instead")


# -- triangular solves -------------------------------------------------------------------------
def _solve_triangular_grads(grad, self, result, upper, left, unitriangular):
    """torch's: gB solves the transposed system; gA = -gB X^T (left) or -X^T gB, kept to A's
    triangle (without its diagonal for a unit triangle)."""
    gB = solve_triangular(self.mT, grad, upper=not upper, left=left, unitriangular=unitriangular)
    gA = -matmul(gB, result.mT) if left else -matmul(result.mT, gB)
    gA = triu(gA, int(unitriangular)) if upper else tril(gA, -int(unitriangular))
    return gA, gB


_solve_triangular = defop(
    "LinalgSolveTriangularBackward0", lambda xp, self, B, upper, left, unitriangular:
    _colmajor(_trsm(self, B, upper, left, unitriangular)), ("self", "B"), dtype="same",
    grads={"self": lambda grad, self, result, upper, left, unitriangular:
           _solve_triangular_grads(grad, self, result, upper, left, unitriangular)[0],
           "B": lambda grad, self, result, upper, left, unitriangular:
           _solve_triangular_grads(grad, self, result, upper, left, unitriangular)[1]})


@public("linalg", linalg_signatures=(
    "linalg_solve_triangular(Tensor input, Tensor B, *, bool upper, bool left=True, bool unitriangular=False, Tensor out=None)",))
def solve_triangular(A, B, *, upper, left=True, unitriangular=False):
    fn = "linalg.solve_triangular"
    for t, name in ((A, "A"), (B, "B")):
        if t.dim() < 2:
            raise RuntimeError(f"{fn}: The input tensor {name} must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{fn}: A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")
    n, (p, q) = A.shape[-1], B.shape[-2:]
    if (p if left else q) != n:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"{fn}: Incompatible shapes of A and B for the equation {eq} "
                           f"({n}x{n} and {p}x{q})")
    broadcast_shapes(tuple(B.shape[:-2]), tuple(A.shape[:-2]))
    _not_implemented("triangular_solve_cpu", A)
    B = B if B.dtype is A.dtype else B.to(A.dtype)      # (torch computes in A's dtype)
    return _solve_triangular(A, B, upper=upper, left=left, unitriangular=unitriangular)


def _triangular_solve_forward(xp, self, A, upper, transpose, unitriangular):
    batch = broadcast_shapes(A.shape[:-2], self.shape[:-2])
    At = xp.swapaxes(A, -1, -2) if transpose else A
    X = _trsm(At, self, upper != transpose, True, unitriangular)
    return _colmajor(X), _colmajor(xp.broadcast_to(A, batch + A.shape[-2:]))


def _triangular_solve_backward(grads, self, A, solution, upper, transpose, unitriangular):
    gX, gM = grads
    gA = gB = None
    if gX is not None:
        gB = triangular_solve(gX, A, upper, not transpose, unitriangular)[0]
        gA = -matmul(solution, gB.mT) if transpose else -matmul(gB, solution.mT)
        gA = triu(gA, int(unitriangular)) if upper else tril(gA, -int(unitriangular))
    if gX is None:      # torch's zeros where the solution has no gradient
        gB = zeros(1, dtype=self.dtype).expand(self.shape)
        gA = zeros(1, dtype=A.dtype).expand(A.shape)
    if gM is not None:
        gA = gA + gM
    return gB, gA


_triangular_solve = defop(
    "TriangularSolveBackward0", _triangular_solve_forward, ("self", "A"), dtype="same",
    outputs=("solution", "cloned_coefficient"), diff_outputs=2, undefined_grads=True,
    grads={"self": lambda grads, self, A, solution, upper, transpose, unitriangular:
           _triangular_solve_backward(grads, self, A, solution, upper, transpose,
                                      unitriangular)[0],
           "A": lambda grads, self, A, solution, upper, transpose, unitriangular:
           _triangular_solve_backward(grads, self, A, solution, upper, transpose,
                                      unitriangular)[1]})

@public("function", "method", signatures=(
    "triangular_solve(Tensor input, Tensor A, bool upper=True, bool transpose=False, "
    "bool unitriangular=False, *, TensorList[2] out=None)",))
def triangular_solve(input, A, upper=True, transpose=False, unitriangular=False):
    for t, name in ((input, "b"), (A, "A")):
        if t.dim() < 2:
            raise RuntimeError(f"torch.triangular_solve: Expected {name} to have at least 2 "
                               f"dimensions, but it has {t.dim()} dimensions instead")
    if input.dtype is not A.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{_name(input)} and A of type {_name(A)} instead.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"A must be batches of square matrices, but they are {A.shape[-2]} "
                           f"by {A.shape[-1]} matrices")
    if A.shape[-1] != input.shape[-2]:
        n = A.shape[-1]
        raise RuntimeError(f"Incompatible matrix sizes for triangular_solve: each A matrix is "
                           f"{n} by {n} but each b matrix is {input.shape[-2]} by "
                           f"{input.shape[-1]}")
    _not_implemented("triangular_solve_cpu", A)
    _warn_once("triangular_solve", "torch.triangular_solve is deprecated in favor of "
               "torch.linalg.solve_triangularand will be removed in a future PyTorch release.\n"
               "torch.linalg.solve_triangular has its arguments reversed and does not return a "
               "copy of one of the inputs.\nX = torch.triangular_solve(B, A).solution\nshould be "
               "replaced with\nX = torch.linalg.solve_triangular(A, B). (Triggered internally at "
               "/__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp:2273.)")
    return _TRIANGULAR_SOLVE(*_triangular_solve(input, A, upper=upper, transpose=transpose,
                                                unitriangular=unitriangular))


# -- LU ---------------------------------------------------------------------------------------
def _unpack_arrays(lu, piv, unpack_data=True, unpack_pivots=True):
    """lu_unpack on arrays: P (m x m), L (m x k, unit diagonal), U (k x n), row-major."""
    m, n = lu.shape[-2:]
    k = min(m, n)
    batch = lu.shape[:-2]
    if unpack_data:
        L = xp.tril(lu[..., :, :k], -1) + xp.eye(m, k, dtype=lu.dtype)
        U = xp.ascontiguousarray(xp.triu(lu[..., :k, :]))
    else:
        L = xp.zeros((0,), lu.dtype)
        U = xp.zeros((0,), lu.dtype)
    if unpack_pivots:
        perm = _pivots_to_perm(piv, m)
        P = (xp.arange(m)[:, None] == perm[..., None, :]).astype(lu.dtype)
        P = xp.broadcast_to(P, batch + (m, m)).copy()
    else:
        P = xp.zeros((0,), lu.dtype)
    return L, U, P


def _lu_backward(gL, gU, P, L, U, pivot):
    """torch's linalg_lu_backward: the factors' gradients pulled back through the triangular
    solves; a wide (tall) A passes the extra block of U (L) straight through."""
    if gL is None and gU is None:
        return None
    m, n = L.shape[-2], U.shape[-1]
    k = min(m, n)
    if m == n:
        gA = None if gL is None else tril(matmul(L.mT, gL), -1)
        if gU is not None:
            term = triu(matmul(gU, U.mT))
            gA = term if gA is None else gA + term
        gA = solve_triangular(U.mT, gA, upper=False, left=False)
        gA = solve_triangular(L.mT, gA, upper=True, unitriangular=True)
    elif m < n:
        gA = None if gL is None else matmul(L.mT, gL)
        if gU is not None:
            term = matmul(triu(gU), U.mT)
            gA = -term if gA is None else gA - term
        gA = solve_triangular(U[..., :k].mT, tril(gA, -1), upper=False, left=False)
        if gU is not None:
            gA = cat([gA + triu(gU[..., :k]), gU[..., k:]], -1)
        gA = solve_triangular(L.mT, gA, upper=True, unitriangular=True)
        if gU is None:
            gA = cat([gA, zeros(*U.shape[:-1], n - k, dtype=U.dtype)], -1)
    else:
        gA = None if gU is None else matmul(gU, U.mT)
        if gL is not None:
            term = matmul(L.mT, tril(gL, -1))
            gA = -term if gA is None else gA - term
        gA = solve_triangular(L[..., :k, :].mT, triu(gA), upper=True, unitriangular=True)
        if gL is not None:
            gA = cat([gA + tril(gL[..., :k, :], -1), gL[..., k:, :]], -2)
        gA = solve_triangular(U.mT, gA, upper=False, left=False)
        if gL is None:
            gA = cat([gA, zeros(*L.shape[:-2], m - k, L.shape[-1], dtype=L.dtype)], -2)
    return matmul(P, gA) if pivot else gA


def _lu_factor_forward(xp, A, pivot):
    lu, piv = _lu_factor(A)
    return _colmajor(lu), piv, _lu_info(lu)


def _lu_factor_backward(grad, LU, pivots, pivot):
    P, L, U = lu_unpack(LU, pivots, True, pivot)
    k = min(LU.shape[-2:])
    return _lu_backward(grad[..., :k], grad[..., :k, :], P, L, U, pivot)


_lu_factor_ex = defop("LinalgLuFactorExBackward0", _lu_factor_forward, ("A",), dtype="same",
                      outputs=("LU", "pivots", "info"), grads={"A": _lu_factor_backward})


def _check_pivot(fn, pivot):
    if not pivot:
        raise RuntimeError(f"{fn}: LU without pivoting is not implemented on the CPU")


@public("linalg", linalg_signatures=(
    "linalg_lu_factor_ex(Tensor A, *, bool pivot=True, bool check_errors=False, TensorList[3] out=None)",))
def lu_factor_ex(A, *, pivot=True, check_errors=False):
    LU, pivots, info = _lu_factor_checked(A, pivot)
    if check_errors:
        _raise_zero_pivot("torch.linalg.lu_factor_ex", info)
    return _LU_FACTOR_EX(LU, pivots, info)


def _lu_factor_checked(A, pivot):
    if A.dim() < 2:
        raise RuntimeError(f"torch.lu_factor: Expected tensor with 2 or more dimensions. Got "
                           f"size: {list(A.shape)} instead")
    _check_pivot("linalg.lu_factor", pivot)
    _not_implemented("lu_cpu", A)
    return _lu_factor_ex(A, pivot=pivot)


def _raise_zero_pivot(fn, info):
    """lu_factor's error for the first matrix with a zero on U's diagonal."""
    flat = info._data.reshape(-1)
    for b, i in enumerate(flat):
        if i > 0:
            where = f"(Batch element {b}): " if info.dim() else ""
            raise RuntimeError(f"{fn}: {where}U[{i},{i}] is zero and using it on lu_solve would "
                               "result in a division by zero. If you still want to perform the "
                               "factorization, consider calling linalg.lu(A, pivot) or "
                               "linalg.lu_factor_ex(A, pivot)")


@public("linalg", linalg_signatures=(
    "linalg_lu_factor(Tensor A, *, bool pivot=True, TensorList[2] out=None)",))
def lu_factor(A, *, pivot=True):
    LU, pivots, info = _lu_factor_checked(A, pivot)
    _raise_zero_pivot("torch.linalg.lu_factor", info)
    return _LU_FACTOR(LU, pivots)


def _lu_forward(xp, A, pivot):
    lu, piv = _lu_factor(A)
    return _unpack_arrays(lu, piv)


_lu = defop("LinalgLuBackward0", _lu_forward, ("A",), dtype="same", outputs=("L", "U", "P"),
            diff_outputs=2, undefined_grads=True,
            grads={"A": lambda grads, P, L, U, pivot: _lu_backward(*grads, P, L, U, pivot)})


@public("linalg", linalg_signatures=(
    "linalg_lu(Tensor A, *, bool pivot=True, TensorList[3] out=None)",))
def lu(A, *, pivot=True):
    if A.dim() < 2:
        raise RuntimeError(f"linalg.lu: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(A.shape)} instead")
    _check_pivot("linalg.lu_factor", pivot)
    _not_implemented("lu_cpu", A)
    L, U, P = _lu(A, pivot=pivot)
    return _LU(P, L, U)


def _lu_unpack_backward(grads, LU_data_sym_argsize_minus_2, LU_data_sym_argsize_minus_1):
    gL, gU = grads
    m, n = LU_data_sym_argsize_minus_2, LU_data_sym_argsize_minus_1
    k = min(m, n)
    gL = None if gL is None else tril(gL, -1)
    gU = None if gU is None else triu(gU)
    if gL is None or gU is None:
        shape = (gL if gU is None else gU).shape[:-2] + (m, n)
        out = zeros(*shape, dtype=(gL if gU is None else gU).dtype)
        gL = out[..., :, :k] if gL is None else gL
        gU = out[..., :k, :] if gU is None else gU
    if m == n:
        return gL + gU
    if m < n:
        return cat([gU[..., :m] + gL, gU[..., m:]], -1)
    return cat([gL[..., :n, :] + gU, gL[..., n:, :]], -2)


_lu_unpack = defop(
    "LuUnpackBackward0", lambda xp, LU_data, LU_pivots, unpack_data, unpack_pivots,
    LU_data_sym_argsize_minus_2, LU_data_sym_argsize_minus_1:
    _unpack_arrays(LU_data, LU_pivots, unpack_data, unpack_pivots), ("LU_data",),
    dtype="same", outputs=("L", "U", "P"), diff_outputs=2,
    undefined_grads=True, grads={"LU_data": _lu_unpack_backward})


@public("function", signatures=(
    "lu_unpack(Tensor LU_data, Tensor LU_pivots, bool unpack_data=True, "
    "bool unpack_pivots=True, *, TensorList[3] out=None)",))
def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    if LU_pivots.dtype is not dtypes.int32:
        raise RuntimeError("torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of "
                           "torch.int32 dtype.\nNote: this function is intended to be used with "
                           "the output produced by torch.linalg.lu_factor")
    m, n = LU_data.shape[-2:]
    L, U, P = _lu_unpack(LU_data, LU_pivots, unpack_data=unpack_data,
                         unpack_pivots=unpack_pivots, LU_data_sym_argsize_minus_2=m,
                         LU_data_sym_argsize_minus_1=n)
    return _LU_UNPACK(P, L, U)


def _lu_solve_forward(xp, LU, B, pivots, left, adjoint):
    """(pivots: an attr, the int32 array; the row's inputs are its float operands)"""
    batch = broadcast_shapes(LU.shape[:-2], B.shape[:-2])
    n = LU.shape[-1]
    lu = xp.broadcast_to(LU, batch + (n, n))
    piv = xp.broadcast_to(pivots, batch + (n,))
    b = xp.broadcast_to(B, batch + B.shape[-2:])
    conj = adjoint and xp.iscomplexobj(lu)     # A^H X = B, or X A^H = B: conj(A) X^T = B^T
    if left:
        return _colmajor(_lu_solve(lu, piv, b, adjoint=adjoint, conj=conj))
    X = _lu_solve(lu, piv, xp.swapaxes(b, -1, -2), adjoint=not adjoint, conj=conj)
    return xp.ascontiguousarray(xp.swapaxes(X, -1, -2))


def _lu_solve_LU_grad(grad, LU, pivots, result, left, adjoint):
    """torch's linalg_lu_solve_LU: gR = U^{-H} op(-gX) op(X)^H, then L's and U's parts of it
    pulled back through the other factor (its complex formula; for real tensors mH is mT)."""
    X = result
    P, L, U = lu_unpack(LU, pivots, True, left == adjoint)
    if left != adjoint:
        gR = solve_triangular(U.mH, -matmul(grad if left else grad.mH, X.mH if left else X),
                              upper=False)
        gL = tril(solve_triangular(L.mH, matmul(gR, U.mH), upper=True, unitriangular=True), -1)
        return gL + triu(gR)
    gR = -matmul(matmul(matmul(P.mH, X if left else X.mH), grad.mH if left else grad), P)
    gR = solve_triangular(L.mH, gR, upper=True, left=False, unitriangular=True)
    gU = triu(solve_triangular(U.mH, matmul(L.mH, gR), upper=False, left=False))
    return tril(gR, -1) + gU


_lu_solve_row = defop(
    "LinalgLuSolveBackward0", _lu_solve_forward, ("LU", "B"), dtype="same", wirtinger=False,
    grads={"LU": _lu_solve_LU_grad,
           "B": lambda grad, LU, pivots, left, adjoint: _lu_solve_row(
               LU, grad, pivots=pivots, left=left, adjoint=not adjoint)})


@public("linalg", name="lu_solve", linalg_signatures=(
    "linalg_lu_solve(Tensor LU, Tensor pivots, Tensor B, *, bool left=True, bool adjoint=False, Tensor out=None)",))
def linalg_lu_solve(LU, pivots, B, *, left=True, adjoint=False):
    fn = "linalg.lu_solve"
    for t, name in ((LU, "LU"), (B, "B")):
        if t.dim() < 2:
            raise RuntimeError(f"{fn}: The input tensor {name} must have at least 2 dimensions.")
    n = LU.shape[-1]
    if LU.shape[-2] != n:
        raise RuntimeError(f"torch.{fn}: A must be batches of square matrices, but they are "
                           f"{LU.shape[-2]} by {n} matrices")
    if (B.shape[-2] if left else B.shape[-1]) != n:
        raise RuntimeError(f"{fn}: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {B.shape[-2]}x"
                           f"{B.shape[-1]})")
    if pivots.shape[-1] != n:
        raise RuntimeError(f"{fn}: Number of pivots per batch should be same as the dimension "
                           "of the matrix")
    if pivots.dtype is not dtypes.int32:
        raise RuntimeError(f"{fn}: pivots should be a Tensor of scalar type torch.int32")
    _same_dtype(fn, LU, B, "LU", "B")
    if not LU.dtype.is_complex:
        _float_check(fn, LU, "LU")
    return _lu_solve_row(LU, B, pivots=pivots, left=left, adjoint=adjoint)


@public("function", "method", name="lu_solve", signatures=(
    "lu_solve(Tensor input, Tensor LU_data, Tensor LU_pivots, *, Tensor out=None)",))
def _lu_solve_old(input, LU_data, LU_pivots):
    _warn_once("lu_solve", "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand "
               "will be removed in a future PyTorch release.\nNote that torch.linalg.lu_solve "
               "has its arguments reversed.\nX = torch.lu_solve(B, LU, pivots)\nshould be "
               "replaced with\nX = torch.linalg.lu_solve(LU, pivots, B) (Triggered internally at "
               "/__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp:2230.)")
    return linalg_lu_solve(LU_data, LU_pivots, input)


# -- the _ex variants of ops/linalg.py's rows --------------------------------------------------
@public("linalg", linalg_signatures=(
    "linalg_cholesky_ex(Tensor input, *, bool upper=False, bool check_errors=False, TensorList[2] out=None)",))
def cholesky_ex(A, *, upper=False, check_errors=False):
    _check("linalg.cholesky", A)
    return _CHOLESKY_EX(*_cholesky(A, upper=upper, check_errors=check_errors,
                                   fn="linalg.cholesky_ex"))


@public("linalg", linalg_signatures=(
    "linalg_inv_ex(Tensor A, *, bool check_errors=False, TensorList[2] out=None)",))
def inv_ex(A, *, check_errors=False):
    _check("linalg.inv", A)
    return _INV_EX(*_inv(A, check_errors=check_errors, fn="linalg.inv_ex"))


@public("linalg", linalg_signatures=(
    "linalg_solve_ex(Tensor A, Tensor B, *, bool left=True, bool check_errors=False, TensorList[2] out=None)",))
def solve_ex(A, B, *, left=True, check_errors=False):
    _solve_checks(A, B, left)
    result, _, _, info = _solve(A, B, left=left, check_errors=check_errors,
                                fn="torch.linalg.solve_ex")
    return _SOLVE_EX(result, info)


# -- Cholesky: torch.cholesky, cholesky_solve, cholesky_inverse ---------------------------------
_cholesky_old = defop("CholeskyBackward0", lambda xp, self, upper: _cholesky.forward(
    xp, self, upper, True, "cholesky")[0], dtype="same",
    grads={"self": lambda grad, result, upper: _cholesky_backward(grad, result, upper)},
    wirtinger=False)


@public("function", "method", signatures=(
    "cholesky(Tensor input, bool upper=False, *, Tensor out=None)",))
def cholesky(input, upper=False):
    _warn_once("cholesky", "torch.cholesky is deprecated in favor of torch.linalg.cholesky and "
               "will be removed in a future PyTorch release.\nL = torch.cholesky(A)\nshould be "
               "replaced with\nL = torch.linalg.cholesky(A)\nand\nU = torch.cholesky(A, "
               "upper=True)\nshould be replaced with\nU = torch.linalg.cholesky(A).mH\nThis "
               "transform will produce equivalent results for all valid (symmetric positive "
               "definite) inputs. (Triggered internally at "
               "/__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp:1765.)")
    if input.dim() < 2:
        _check("cholesky", input, square=False)
    _not_implemented("cholesky_cpu", input)
    _check("cholesky", input)
    return _cholesky_old(input, upper=upper)


def _cholesky_solve_forward(xp, self, input2, upper):
    L = xp.conj(xp.swapaxes(input2, -1, -2)) if upper else input2    # A = L L^H
    Y = _trsm(L, self, False)
    return _colmajor(_trsm(xp.conj(xp.swapaxes(L, -1, -2)), Y, True))


def _cholesky_solve_grads(grad, self, input2, result, upper):
    """torch's (its complex formula: A = L L^H is Hermitian, so A^-H = A^-1)."""
    g_self = cholesky_solve(grad, input2, upper)
    common = matmul(g_self, result.mH)
    common = common + common.mH
    return g_self, (-matmul(input2, common) if upper else -matmul(common, input2))


_cholesky_solve = defop(
    "CholeskySolveBackward0", _cholesky_solve_forward, ("self", "input2"), dtype="same",
    wirtinger=False,
    grads={"self": lambda grad, self, input2, result, upper:
           _cholesky_solve_grads(grad, self, input2, result, upper)[0],
           "input2": lambda grad, self, input2, result, upper:
           _cholesky_solve_grads(grad, self, input2, result, upper)[1]})


@public("function", "method", signatures=(
    "cholesky_solve(Tensor input, Tensor input2, bool upper=False, *, Tensor out=None)",))
def cholesky_solve(input, input2, upper=False):
    for t, name in ((input, "b"), (input2, "u")):
        if t.dim() < 2:
            raise RuntimeError(f"b should have at least 2 dimensions, but has {t.dim()} "
                               "dimensions instead" if name == "b" else
                               f"u should have at least 2 dimensions, but has {t.dim()} "
                               "dimensions instead")
    if input.dtype is not input2.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{_name(input)} and A of type {_name(input2)} instead.")
    n = input2.shape[-1]
    if input2.shape[-2] != n or input.shape[-2] != n:
        raise RuntimeError(f"Incompatible matrix sizes for cholesky_solve: each A matrix is "
                           f"{input2.shape[-2]} by {n} but each b matrix is {input.shape[-2]} by "
                           f"{input.shape[-1]}")
    return _cholesky_solve(input, input2, upper=upper)


def _cholesky_inverse_forward(xp, self, upper):
    L = xp.conj(xp.swapaxes(self, -1, -2)) if upper else self      # (L L^H)^-1 = L^-H L^-1
    n = self.shape[-1]
    Linv = _trsm(xp.tril(L), xp.broadcast_to(xp.eye(n, dtype=self.dtype), self.shape), False)
    return _colmajor(xp.matmul(xp.conj(xp.swapaxes(Linv, -1, -2)), Linv))


def _cholesky_inverse_backward(grad, self, upper, result):
    """torch's (its complex formula: conjugate transposes)."""
    common = matmul(result, matmul(grad + grad.mH, result))
    return -matmul(self, common) if upper else -matmul(common, self)


_cholesky_inverse = defop("CholeskyInverseBackward0", _cholesky_inverse_forward, dtype="same",
                          grads={"self": _cholesky_inverse_backward}, wirtinger=False)


@public("function", "method", signatures=(
    "cholesky_inverse(Tensor input, bool upper=False, *, Tensor out=None)",))
def cholesky_inverse(input, upper=False):
    if input.dim() < 2:
        raise RuntimeError("cholesky_inverse: The input tensor A must have at least 2 "
                           "dimensions.")
    _not_implemented("cholesky_inverse_out_cpu", input)
    _check("cholesky_inverse", input)
    return _cholesky_inverse(input, upper=upper)


# -- matrix functions -------------------------------------------------------------------------
def _matrix_exp_backward(grad, self):
    """torch's: exp of the block matrix [[A^T, G], [0, A^T]], whose top-right block is the
    adjoint of the differential."""
    n = self.shape[-1]
    At = self.mT
    big = cat([cat([At, grad], -1), cat([zeros(self.shape, dtype=self.dtype), At], -1)], -2)
    return matrix_exp(big)[..., :n, n:]


_matrix_exp = defop("LinalgMatrixExpBackward0", lambda xp, self: _expm(self), dtype="same",
                    row_major=True, grads={"self": _matrix_exp_backward})


@public("function", "method", "linalg", signatures=("matrix_exp(Tensor input)",))
def matrix_exp(A):
    _check("linalg.matrix_exp", A)
    return _matrix_exp(A)


@public("function", "method", signatures=(
    "matrix_power(Tensor input, int64_t n, *, Tensor out=None)",))
@public("linalg", linalg_signatures=(
    "linalg_matrix_power(Tensor input, int64_t n, *, Tensor out=None)",))
def matrix_power(A, n):
    """ATen's: the identity for n = 0, the inverse's power for n < 0, then products by the
    binary digits of n (squarings of A, multiplied in from the lowest set bit)."""
    if A.dim() < 2:
        raise RuntimeError(f"linalg.matrix_power: The input tensor A must have at least 2 "
                           "dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but they "
                           f"are {A.shape[-2]} by {A.shape[-1]} matrices")
    if n == 0:
        return clone(A).copy_(eye(A.shape[-1], dtype=A.dtype).expand(A.shape))
    if n < 0:
        if not A.dtype.is_floating_point and not A.dtype.is_complex:
            raise RuntimeError(f"linalg.inv: Expected a floating point or complex tensor as "
                               f"input. Got {_name(A)}")
        A, n = inv(A), -n
    if n == 1:
        return clone(A)
    if n == 2:
        return matmul(A, A)
    if n == 3:
        return matmul(matmul(A, A), A)
    z = result = None
    while n > 0:
        bit, n = n % 2, n // 2
        z = A if z is None else matmul(z, z)
        if bit:
            result = z if result is None else matmul(result, z)
    return result


# -- composites --------------------------------------------------------------------------------
# the element type names torch's messages print (caffe2's TypeMeta)
_META_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half",
               "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
               "uint8": "unsigned char", "bool": "bool"}


def _chain_order(shapes):
    """The matrix chain order (CLRS): split[i][j] for the cheapest product of i..j."""
    p = [shapes[0][0]] + [s[1] for s in shapes]
    n = len(shapes)
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                if cost[i][j] is None or c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def _chain(mats, split, i, j):
    if i == j:
        return mats[i]
    k = split[i][j]
    return mm(_chain(mats, split, i, k), _chain(mats, split, k + 1, j))


@public("linalg", linalg_signatures=(
    "linalg_multi_dot(TensorList tensors, *, Tensor out=None)",))
def multi_dot(tensors):
    tensors = list(tensors)
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    first, last = tensors[0].dim(), tensors[-1].dim()
    if first not in (1, 2):
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got {first}D")
    if last not in (1, 2):
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {last}D")
    for i, t in enumerate(tensors[1:-1], 1):
        if t.dim() != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {t.dim()}D")
    for i, t in enumerate(tensors[1:], 1):
        if t.dtype is not tensors[0].dtype:
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but "
                               f"tensor 0 is {_META_NAMES[tensors[0].dtype.name]} and tensor "
                               f"{i} {_META_NAMES[t.dtype.name]}")
    mats = list(tensors)
    if first == 1:
        mats[0] = mats[0].unsqueeze(0)
    if last == 1:
        mats[-1] = mats[-1].unsqueeze(-1)
    for i in range(n - 1):
        if mats[i].shape[1] != mats[i + 1].shape[0]:
            (a, b), (c, d) = mats[i].shape, mats[i + 1].shape
            raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes [{a}, {b}] and "
                               f"[{c}, {d}] cannot be multiplied")
    if n == 2:
        out = mm(mats[0], mats[1])
    elif n == 3:
        a, b, c = (t.shape for t in mats)
        cost_1 = (a[0] * c[0]) * (a[1] + c[1])      # (AB)C
        cost_2 = (a[1] * c[1]) * (a[0] + b[1])      # A(BC)
        out = (mm(mats[0], mm(mats[1], mats[2])) if cost_1 > cost_2 else
               mm(mm(mats[0], mats[1]), mats[2]))
    else:
        out = _chain(mats, _chain_order([tuple(t.shape) for t in mats]), 0, n - 1)
    if first == 1 and last == 1:
        return out.view(())
    if first == 1:
        return out.view(-1)
    if last == 1:
        return out.view(-1)
    return out.view(out.shape)


@public("function")
def chain_matmul(*matrices, out=None):
    _warn_once("chain_matmul", "torch.chain_matmul is deprecated and will be removed in a future "
               "PyTorch release. Use torch.linalg.multi_dot instead, which accepts a list of two "
               "or more tensors rather than multiple parameters. (Triggered internally at "
               "/__w/pytorch/pytorch/aten/src/ATen/native/LinearAlgebra.cpp:1102.)")
    if out is not None:
        raise NotImplementedError("glassgrad: chain_matmul(..., out=) is not supported")
    if len(matrices) == 1 and isinstance(matrices[0], (list, tuple)):
        matrices = tuple(matrices[0])
    if len(matrices) == 1:
        return clone(matrices[0])
    return multi_dot(matrices)


@public("linalg", linalg_signatures=(
    "linalg_vecdot(Tensor x, Tensor y, *, int64_t dim=-1, Tensor out=None)",))
def vecdot(x, y, *, dim=-1):
    if x.dtype is not y.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found x "
                           f"of type {_name(x)} and y of type {_name(y)} instead")
    if x.dim() == 1 and y.dim() == 1:
        from .linalg import vdot
        return vdot(x, y)
    return ((x.conj() if x.dtype.is_complex else x) * y).sum(dim)


@public("linalg", linalg_signatures=(
    "linalg_diagonal(Tensor A, *, int64_t offset=0, int64_t dim1=-2, int64_t dim2=-1)",),
    name="diagonal")
def _linalg_diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    return A.diagonal(offset, dim1, dim2)


@public("linalg", name="vander", linalg_signatures=(
    "linalg_vander(Tensor x, *, SymInt? N=None)",))
def linalg_vander(x, *, N=None):
    n = (x.shape[-1] if x.dim() else 0) if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    powers = x.unsqueeze(-1).expand(*x.shape, n - 1).cumprod(-1)
    return cat([ones(*x.shape, 1, dtype=powers.dtype), powers], -1)


@public("function", signatures=(
    "vander(Tensor x, int64_t? N=None, bool increasing=False)",), name="vander")
def _vander_old(x, N=None, increasing=False):
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    if N is not None and N < 0:
        raise RuntimeError("N must be non-negative.")
    n = x.shape[0] if N is None else N
    if n == 0:
        return zeros(x.shape[0], 0, dtype=x.dtype if x.dtype.is_floating_point else dtypes.int64)
    dtype = x.dtype if x.dtype.is_floating_point else dtypes.int64
    result = ones(x.shape[0], n, dtype=dtype)
    if n > 1:
        result = cat([result[:, :1], x.unsqueeze(1).expand(x.shape[0], n - 1).cumprod(1)
                      .to(dtype)], 1)
    return result if increasing else result.flip(1)


@public("linalg", linalg_signatures=(
    "linalg_matrix_rank(Tensor input, *, Tensor? atol=None, Tensor? rtol=None, bool hermitian=False, "
    "Tensor out=None)",
    "linalg_matrix_rank(Tensor input, *, double? atol=None, double? rtol=None, bool hermitian=False, "
    "Tensor out=None)",
    "linalg_matrix_rank(Tensor input, double tol, bool hermitian=False, *, Tensor out=None)",
    "linalg_matrix_rank(Tensor input, Tensor tol, bool hermitian=False, *, Tensor out=None)"))
def matrix_rank(input, tol=None, hermitian=False, *, atol=None, rtol=None):
    if input.dim() < 2:
        _float_check("torch.linalg.matrix_rank", input, "input")
    if input.dtype not in (dtypes.float32, dtypes.float64, dtypes.complex64, dtypes.complex128):
        raise RuntimeError("This function doesn't handle types other than float and double")
    if tol is not None:
        atol, rtol = tol, 0.0
    S = eigvalsh(input.detach()).abs() if hermitian else svdvals(input.detach())
    smax = S.amax(-1, keepdim=True) if S.shape[-1] else zeros(*S.shape[:-1], 1, dtype=S.dtype)
    if rtol is None:
        eps = xp.finfo(input._data.dtype).eps
        # (rtol's default: eps * max(m, n) unless a positive atol is given)
        given = atol is not None and (isinstance(atol, Tensor) or atol > 0)
        rtol = 0.0 if given else eps * max(input.shape[-2:])
    tol_t = _as_tensor(rtol, S) * smax
    if atol is not None:
        tol_t = _maximum(_as_tensor(atol, S), tol_t)
    return (S > tol_t).sum(-1)


def _as_tensor(v, like):
    if isinstance(v, Tensor):
        return v.unsqueeze(-1) if v.dim() else v
    return Tensor._make(xp.asarray(v, dtype=like._data.dtype))


def _maximum(a, b):
    return Tensor._make(xp.maximum(a._data, b._data))


@public("linalg", linalg_signatures=(
    "linalg_cond(Tensor input, Scalar? p=None, *, Tensor out=None)",
    "linalg_cond(Tensor input, c10::string_view p, *, Tensor out=None)",))
def cond(input, p=None):
    from .reduce import matrix_norm
    if input.dim() < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    if p not in (None, 2, -2, 1, -1, float("inf"), -float("inf"), "fro", "nuc"):
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    if p in (None, 2, -2):      # the ratio of the extreme singular values
        _check("linalg.svd", input, square=False)
        S = svdvals(input)
        first, last = S.narrow(-1, 0, 1), S.narrow(-1, S.shape[-1] - 1, 1)
        return (first / last if p != -2 else last / first).squeeze(-1)
    if input.shape[-1] != input.shape[-2]:
        raise RuntimeError(f"linalg.cond(ord={p}): A must be batches of square matrices, but "
                           f"they are {input.shape[-2]} by {input.shape[-1]} matrices")
    if p == "nuc":      # the sums of the singular values of A and of A^-1
        S = svdvals(input)
        return S.sum(-1) * S.reciprocal().sum(-1)
    # as ATen: the inverse of a singular matrix filled with inf in place (so that, as torch's,
    # this graph's backward refuses: LinalgInvExBackward0's saved output was modified)
    inverse, info = inv_ex(input)
    inverse.masked_fill_(info.unsqueeze(-1).unsqueeze(-1) > 0, float("inf"))
    inf = float("inf")
    return (matrix_norm(input, p) * matrix_norm(inverse, p)).nan_to_num(inf, inf, -inf)


@public("linalg", linalg_signatures=(
    "linalg_tensorinv(Tensor input, int64_t ind=2, *, Tensor out=None)",))
def tensorinv(input, ind=2):
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    shape = tuple(input.shape)
    rows, cols = shape[:ind], shape[ind:]
    p, q = _prod(rows), _prod(cols)
    if p != q:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {q} != {p}")
    return inv(input.reshape(p, q)).reshape(*cols, *rows)


def _prod(sizes):
    out = 1
    for s in sizes:
        out *= s
    return out


@public("linalg", linalg_signatures=(
    "linalg_tensorsolve(Tensor input, Tensor other, IntArrayRef? dims=None, *, Tensor out=None)",))
def tensorsolve(A, B, dims=None):
    if dims is not None:
        nd = A.dim()
        dims = [_wrap_dim(d, nd) for d in dims]
        A = A.permute([d for d in range(nd) if d not in dims] + list(dims))
    result_shape = tuple(A.shape[B.dim():])
    n = _prod(result_shape)
    if B.numel() != n:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[other.ndim:])"
                           f" == prod(self.shape[:other.ndim]), but got {n} != {B.numel()}")
    return linalg_solve(A.reshape(B.numel(), n), B.reshape(B.numel())).reshape(result_shape)


# -- Householder: geqrf, householder_product (orgqr), ormqr ------------------------------------
def _geqrf_forward(xp, self):
    a, tau = _geqrf(self)
    return _colmajor(a), tau


def _geqrf_backward(grads, self):
    raise NotImplementedError("the derivative for 'geqrf' is not implemented.")


_geqrf_row = defop("GeqrfBackward0", _geqrf_forward, dtype="same", outputs=("a", "tau"),
                   diff_outputs=2, undefined_grads=True, grads={"self": _geqrf_backward})


@public("function", "method", signatures=("geqrf(Tensor input, *, TensorList[2] out=None)",))
def geqrf(input):
    if input.dim() < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    if not (input.dtype.is_floating_point or input.dtype.is_complex) or \
            input.dtype is dtypes.float16:
        raise NotImplementedError(f'"geqrf_cpu" not implemented for \'{_name(input)}\'')
    if input.dtype.is_complex and input.requires_grad and state.grad:
        raise RuntimeError("geqrf does not support automatic differentiation for outputs with "
                           "complex dtype.")
    return _GEQRF(*_geqrf_row(input))


def _reflect(xp, V, tau, E, adjoint=False):
    """H_1 ... H_k E (adjoint: H_k^H ... H_1^H E), H_i = I - tau_i v_i v_i^H, applied one
    reflector at a time from the right end, vectorised over the batch."""
    order = range(V.shape[-1]) if adjoint else reversed(range(V.shape[-1]))
    tau = xp.conj(tau) if adjoint else tau
    for i in order:
        v = V[..., :, i:i + 1]
        E = E - tau[..., i, None, None] * v * xp.matmul(xp.conj(xp.swapaxes(v, -1, -2)), E)
    return E


def _vectors(xp, A, k):
    """The Householder vectors geqrf packs below A's diagonal, with their unit heads."""
    m = A.shape[-2]
    return xp.tril(A[..., :, :k], -1) + xp.eye(m, k, dtype=A.dtype)


def _householder_forward(xp, input, tau):
    m, n = input.shape[-2:]
    batch = broadcast_shapes(input.shape[:-2], tau.shape[:-1])
    E = xp.broadcast_to(xp.eye(m, n, dtype=input.dtype), batch + (m, n))
    return _colmajor(_reflect(xp, _vectors(xp, input, tau.shape[-1]), tau, E))


def _householder_vjp(G, input, tau, E):
    """The gradients of R = H_1 ... H_k E for its vectors and scalars, given G = dL/dR (torch's
    convention for complex: the adjoint of the real-linear differential): with R_i = H_i R_{i+1},
    dL/dtau_i = -sum((v_i^H G_i) conj(v_i^H R_{i+1})), dL/dv_i = -(conj(tau_i) G_i R_{i+1}^H +
    tau_i R_{i+1} G_i^H) v_i, and G_{i+1} = H_i^H G_i (glassgrad ops: they differentiate
    again)."""
    m, n = input.shape[-2:]
    k = tau.shape[-1]
    if k == 0:      # no reflectors: R = E depends on neither
        return zeros(*G.shape[:-2], m, n, dtype=G.dtype), zeros(*G.shape[:-2], 0, dtype=G.dtype)
    V = tril(input[..., :, :k], -1) + eye(m, k, dtype=input.dtype)
    states = [E]
    for i in reversed(range(k)):
        v = V[..., :, i:i + 1]
        states.append(states[-1] - tau[..., i, None, None] * v * matmul(v.mH, states[-1]))
    states = states[::-1]       # states[i] = R_{i+1}: what H_i is applied to is states[i + 1]
    gv, gt = [], []
    for i in range(k):
        v, t, R = V[..., :, i:i + 1], tau[..., i, None, None], states[i + 1]
        vG, vR = matmul(v.mH, G), matmul(v.mH, R)
        gt.append(-(vG * vR.conj()).sum((-2, -1)))
        gv.append(-(t.conj() * matmul(G, vR.mH) + t * matmul(R, vG.mH)))
        G = G - t.conj() * v * vG
    gV = tril(cat(gv, -1), -1)
    if n > k:
        gV = cat([gV, zeros(*gV.shape[:-1], n - k, dtype=gV.dtype)], -1)
    return gV, _stack_last(gt)


def _stack_last(ts):
    return cat([t.unsqueeze(-1) for t in ts], -1)


def _householder_grads(grad, input, tau):
    if input.numel() == 0 or tau.numel() == 0:     # torch's: undefined gradients
        return None, None
    m, n = input.shape[-2:]
    E = eye(m, n, dtype=input.dtype).expand(*grad.shape[:-2], m, n)
    return _householder_vjp(grad, input, tau, E)


_householder = defop(
    "LinalgHouseholderProductBackward0", _householder_forward, ("input", "tau"), dtype="same",
    wirtinger=False,
    grads={"input": lambda grad, input, tau, result: _householder_grads(grad, input, tau)[0],
           "tau": lambda grad, input, tau, result: _householder_grads(grad, input, tau)[1]})


def _householder_checks(fn, input, tau):
    if input.dim() < 2:
        raise RuntimeError(f"{fn}: input must have at least 2 dimensions.")
    if input.shape[-2] < input.shape[-1]:
        raise RuntimeError(f"{fn}: input.shape[-2] must be greater than or equal to "
                           "input.shape[-1]")
    if input.shape[-1] < tau.shape[-1]:
        raise RuntimeError(f"{fn}: input.shape[-1] must be greater than or equal to "
                           "tau.shape[-1]")
    if tau.dim() != input.dim() - 1:
        raise RuntimeError(f"{fn}: Expected tau to have one dimension less than input, but got "
                           f"tau.ndim equal to {tau.dim()} and input.ndim is equal to "
                           f"{input.dim()}")
    if tau.dtype is not input.dtype:
        raise RuntimeError(f"{fn}: tau dtype {_name(tau)} does not match input dtype "
                           f"{_name(input)}")
    _not_implemented("orgqr_cpu", input)


@public("linalg", linalg_signatures=(
    "linalg_householder_product(Tensor input, Tensor tau, *, Tensor out=None)",))
@public("function", "method", name="orgqr", signatures=(
    "orgqr(Tensor input, Tensor input2, *, Tensor out=None)",))
def householder_product(input, tau):
    _householder_checks("torch.linalg.householder_product", input, tau)
    return _householder(input, tau)


def _ormqr_forward(xp, self, input2, input3, left, transpose):
    m = self.shape[-2]
    V = _vectors(xp, self, input2.shape[-1])
    if left:        # op(Q) C: Q C applies H_k first; Q^H C applies H_1^H first
        return _colmajor(_reflect(xp, V, input2, input3, transpose))
    out = _reflect(xp, V, input2, _adjoint(xp, input3), not transpose)   # (C op(Q))^H
    return _colmajor(_adjoint(xp, out)) if m else out


def _adjoint(xp, a):
    return xp.conj(xp.swapaxes(a, -1, -2))


def _ormqr_grads(grad, self, input2, input3, result, left, transpose):
    """gC = ormqr(grad) with op transposed; for the reflectors, the gradient of the full Q
    (dL/dQ from the product) pulled through the Householder product of Q = H_1...H_k I."""
    gC = ormqr(self, input2, grad, left, not transpose)
    if left:
        gQ = matmul(grad, input3.mH) if not transpose else matmul(input3, grad.mH)
    else:
        gQ = matmul(input3.mH, grad) if not transpose else matmul(grad.mH, input3)
    m = self.shape[-2]
    E = eye(m, dtype=self.dtype).expand(*gQ.shape[:-2], m, m)
    gA, gtau = _householder_vjp(gQ, self, input2, E)
    return gA[..., :, :self.shape[-1]], gtau, gC


_ormqr = defop(
    "OrmqrBackward0", _ormqr_forward, ("self", "input2", "input3"), dtype="same",
    wirtinger=False,
    grads={n: (lambda i: lambda grad, self, input2, input3, result, left, transpose:
               _ormqr_grads(grad, self, input2, input3, result, left, transpose)[i])(i)
           for i, n in enumerate(("self", "input2", "input3"))})


@public("function", "method", signatures=(
    "ormqr(Tensor input, Tensor input2, Tensor input3, bool left=True, bool transpose=False, *, "
    "Tensor out=None)",))
def ormqr(input, input2, input3, left=True, transpose=False):
    fn = "torch.ormqr"
    for t, name in ((input, "input"), (input3, "other")):
        if t.dim() < 2:
            raise RuntimeError(f"{fn}: {name} must have at least 2 dimensions.")
    dim = -2 if left else -1
    if input3.shape[dim] != input.shape[-2]:
        raise RuntimeError(f"{fn}: other.shape[{dim}] must be equal to input.shape[-2]")
    k = min(input3.shape[dim], input.shape[-1])
    if input2.shape[-1] != k:
        raise RuntimeError(f"{fn}: tau.shape[-1] must be equal to min(other.shape[{dim}], "
                           "input.shape[-1])")
    for t, name in ((input2, "tau"), (input3, "other")):
        if t.dtype is not input.dtype:
            raise RuntimeError(f"{fn}: Expected input and {name} to have the same dtype, but "
                               f"input has dtype{_name(input)} and {name} has dtype "   # (sic)
                               f"{_name(t)}")
    _not_implemented("ormqr_cpu", input)
    return _ormqr(input, input2, input3, left=left, transpose=transpose)


# -- LDL (Bunch-Kaufman): not differentiable in torch ------------------------------------------
def _not_differentiable(op):
    def backward(grad):
        raise RuntimeError(f"derivative for aten::{op} is not implemented")
    return backward


def _ldl_forward(xp, A, hermitian):
    ld, piv, info = _ldl(A, hermitian)
    return _colmajor(xp.tril(ld)), piv, info


_ldl_factor_ex = defop("NotImplemented", _ldl_forward, ("A",), dtype="same",
                       outputs=("LD", "pivots", "info"),
                       grads={"A": _not_differentiable("linalg_ldl_factor_ex")})
_ldl_factor_ex.node_cls.name = lambda self: "torch::autograd::NotImplemented"


def _ldl_checks(fn, A):
    if A.dim() < 2:
        raise RuntimeError(f"{fn}: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{fn}: A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")
    if not (A.dtype.is_floating_point or A.dtype.is_complex):
        raise RuntimeError(f"{fn}: Expected a floating point or complex tensor as input. Got "
                           f"{_name(A)}")


@public("linalg", linalg_signatures=(
    "linalg_ldl_factor_ex(Tensor input, *, bool hermitian=False, bool check_errors=False, "
    "TensorList[3] out=None)",))
def ldl_factor_ex(input, *, hermitian=False, check_errors=False):
    fn = "torch.linalg.ldl_factor_ex"
    _ldl_checks(fn, input)
    _not_implemented("ldl_factor_kernel_cpu", input)
    LD, pivots, info = _ldl_factor_ex(input, hermitian=hermitian)
    if check_errors and bool((info._data > 0).any()):
        raise RuntimeError(f"false INTERNAL ASSERT FAILED at \"/__w/pytorch/pytorch/aten/src/"
                           f"ATen/native/BatchLinearAlgebra.cpp\":1642, please report a bug to "
                           f"PyTorch. {fn}: Unknown error code: {int(info._data.max())}.")
    return _LDL_FACTOR_EX(LD, pivots, info)


@public("linalg", linalg_signatures=(
    "linalg_ldl_factor(Tensor input, *, bool hermitian=False, TensorList[2] out=None)",))
def ldl_factor(input, *, hermitian=False):
    fn = "torch.linalg.ldl_factor"
    _ldl_checks("torch.linalg.ldl_factor_ex", input)
    _not_implemented("ldl_factor_kernel_cpu", input)
    LD, pivots, info = _ldl_factor_ex(input, hermitian=hermitian)
    if bool((info._data > 0).any()):
        raise RuntimeError(f"false INTERNAL ASSERT FAILED at \"/__w/pytorch/pytorch/aten/src/"
                           f"ATen/native/BatchLinearAlgebra.cpp\":1642, please report a bug to "
                           f"PyTorch. {fn}: Unknown error code: {int(info._data.max())}.")
    return _LDL_FACTOR(LD, pivots)


def _ldl_solve_forward(xp, LD, B, pivots, hermitian):
    batch = broadcast_shapes(B.shape[:-2], LD.shape[:-2])
    n = LD.shape[-1]
    ld = xp.broadcast_to(LD, batch + (n, n))
    piv = xp.broadcast_to(pivots, batch + (n,))
    return _colmajor(_ldl_solve(ld, piv, xp.broadcast_to(B, batch + B.shape[-2:]), hermitian))


_ldl_solve_row = defop("NotImplemented", _ldl_solve_forward, ("LD", "B"), dtype="same",
                       grads={"LD": _not_differentiable("linalg_ldl_solve"),
                              "B": _not_differentiable("linalg_ldl_solve")})
_ldl_solve_row.node_cls.name = lambda self: "torch::autograd::NotImplemented"


@public("linalg", linalg_signatures=(
    "linalg_ldl_solve(Tensor LD, Tensor pivots, Tensor B, *, bool hermitian=False, "
    "Tensor out=None)",))
def ldl_solve(LD, pivots, B, *, hermitian=False):
    fn = "torch.linalg.ldl_solve"
    _ldl_checks(fn, LD)
    if B.dtype is not LD.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{_name(B)} and A of type {_name(LD)} instead.")
    n = LD.shape[-1]
    if B.dim() < 2:     # (torch reads B.size(-2) before it checks B's dimensions)
        raise IndexError("Dimension specified as -2 but tensor has no dimensions" if B.dim() == 0
                         else "Dimension out of range (expected to be in range of [-1, 0], but "
                         "got -2)")
    if B.shape[-2] != n:
        raise RuntimeError(f"Incompatible matrix sizes for {fn}: each A matrix is {n} by {n} "
                           f"but each b matrix is {B.shape[-2]} by {B.shape[-1]}")
    if tuple(pivots.shape) != tuple(LD.shape[:-1]):
        raise RuntimeError(f"{fn}: Expected LD.shape[:-1] and pivots.shape to be the same, but "
                           f"got pivots with shape {list(pivots.shape)} instead")
    if pivots.dtype.is_floating_point or pivots.dtype.is_complex or pivots.dtype is dtypes.bool:
        raise RuntimeError(f"{fn}: Expected pivots to be integers. Got {_name(pivots)}")
    _not_implemented("ldl_solve_kernel_cpu", LD)
    return _ldl_solve_row(LD, B, pivots=pivots, hermitian=hermitian)


# -- least squares ------------------------------------------------------------------------------
_LSTSQ_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def _lstsq_forward(xp, self, b, rcond, driver):
    """The minimum-norm solution from the SVD (what gelsd and gelss compute; gelsy's and gels's
    solution where A has full rank), with the outputs torch's CPU drivers fill: the residuals
    for gels/gelsd/gelss when m > n and A has full rank, the rank for all but gels, the
    singular values for gelsd/gelss. The solution is laid out as LAPACK leaves it: the first n
    rows of a column-major max(m, n) x k buffer."""
    m, n = self.shape[-2:]
    vector = b.ndim == self.ndim - 1
    b = b[..., None] if vector else b
    U, S, Vh = xp.linalg.svd(self, full_matrices=False)
    smax = S.max(-1, keepdims=True, initial=0)
    cut = (xp.finfo(self.dtype).eps * max(m, n) if rcond is None or rcond < 0 else rcond) * smax
    with xp.errstate(divide="ignore"):
        Sinv = xp.where(S > cut, 1 / S, 0).astype(self.dtype)
    pinv = xp.matmul(xp.conj(xp.swapaxes(Vh, -1, -2)) * Sinv[..., None, :],
                     xp.conj(xp.swapaxes(U, -1, -2)))
    X = xp.matmul(pinv, b)
    rank = (S > cut).sum(-1).astype(xp.int64)
    buf = _colmajor(xp.zeros(X.shape[:-2] + (max(m, n), X.shape[-1]), self.dtype))
    buf[..., :n, :] = X
    full = m > n and driver != "gelsy" and bool((rank == n).all())
    real = S.dtype      # (residuals and singular values are real for a complex A)
    resid = (abs(xp.matmul(self, X) - b) ** 2).sum(-2) if full else xp.zeros((0,), real)
    rank = rank if driver != "gels" else xp.zeros((0,), xp.int64)
    sv = S if driver in ("gelsd", "gelss") else xp.zeros((0,), real)
    return (buf[..., :n, 0] if vector else buf[..., :n, :]), resid, rank, sv


def _lstsq_grads(grads, self, b, solution):
    """torch's linalg_lstsq_backward (conjugate transposes: its complex formula): through
    pinv(A) for the solution, and for the residuals ||A X - B||^2 (stationary in X)
    2 (A X - B) X^H g and -2 (A X - B) g."""
    from .linalg import _pinv_backward, pinv
    gX, gR = grads
    gA = gB = None
    vector = b.dim() == self.dim() - 1
    if vector:
        b, solution = b.unsqueeze(-1), solution.unsqueeze(-1)
        gX = None if gX is None else gX.unsqueeze(-1)
    if gX is not None:
        P = pinv(self)
        gA = _pinv_backward(matmul(gX, b.mH), self, P)
        gB = matmul(P.mH, gX)
    if gR is not None and gR.numel():
        r = matmul(self, solution) - b
        g = gR.unsqueeze(-2)
        gA2, gB2 = 2 * matmul(r * g, solution.mH), -2 * (r * g)
        gA = gA2 if gA is None else gA + gA2
        gB = gB2 if gB is None else gB + gB2
    return gA, (gB.squeeze(-1) if vector and gB is not None else gB)


_lstsq = defop(
    "LinalgLstsqBackward0", _lstsq_forward, ("self", "b"), dtype="same",
    outputs=("solution", "residuals", "rank", "singular_values"), diff_outputs=2,
    undefined_grads=True, wirtinger=False,
    grads={"self": lambda grads, self, b, solution: _lstsq_grads(grads, self, b, solution)[0],
           "b": lambda grads, self, b, solution: _lstsq_grads(grads, self, b, solution)[1]})


@public("linalg", linalg_signatures=(
    "linalg_lstsq(Tensor input, Tensor b, double? rcond=None, *, c10::string_view? driver=None, "
    "TensorList[4] out=None)",))
def lstsq(input, b, rcond=None, *, driver=None):
    fn = "torch.linalg.lstsq"
    if input.dim() < 2:
        raise RuntimeError(f"{fn}: input must have at least 2 dimensions.")
    if input.dtype is not b.dtype:
        raise RuntimeError(f"{fn}: Expected input and other to have the same dtype, but got "
                           f"input's dtype {_name(input)} and other's dtype {_name(b)}")
    if input.dtype not in (dtypes.float32, dtypes.float64, dtypes.complex64, dtypes.complex128):
        raise RuntimeError("This function doesn't handle types other than float and double")
    vector = b.dim() == input.dim() - 1
    if not vector and b.dim() != input.dim():
        raise RuntimeError(f"{fn}: input.dim() must be greater or equal to other.dim() and "
                           f"(input.dim() - other.dim()) <= 1")
    B = b.unsqueeze(-1) if vector else b
    if input.shape[-2] != B.shape[-2]:
        where = "other.size(-1)" if vector else "other.size(-2)"
        raise RuntimeError(f"{fn}: input.size(-2) should match {where}")
    if driver is not None and driver not in _LSTSQ_DRIVERS:
        raise RuntimeError(f"{fn}: parameter `driver` should be one of (gels, gelsy, gelsd, "
                           f"gelss)")
    return _LSTSQ(*_lstsq(input, b, rcond=rcond, driver=driver or "gelsy"))


# -- products: addr, addbmm, ger ------------------------------------------------------------
_addr = defop(
    "AddrBackward0", lambda xp, self, vec1, vec2, beta, alpha:
    _add_scaled(self, xp.multiply.outer(vec1, vec2), beta, alpha), ("self", "vec1", "vec2"),
    dtype="same",
    grads={"self": lambda grad, beta: _maybe_scale(grad, beta),
           "vec1": lambda grad, vec2, alpha: _maybe_scale(grad.mv(vec2), alpha),
           "vec2": lambda grad, vec1, alpha: _maybe_scale(grad.t().mv(vec1), alpha)})


@public("function", "method", signatures=(
    "addr(Scalar beta, Tensor input, Scalar alpha, Tensor vec1, Tensor vec2, *, Tensor out=None)|deprecated",
    "addr(Scalar beta, Tensor input, Tensor vec1, Tensor vec2, *, Tensor out=None)|deprecated",
    "addr(Tensor input, Tensor vec1, Tensor vec2, *, Scalar beta=1, Scalar alpha=1, Tensor out=None)"), method_signatures=(
    "addr(Tensor self, Scalar beta, Scalar alpha, Tensor vec1, Tensor vec2)|deprecated",
    "addr(Tensor self, Scalar beta, Tensor vec1, Tensor vec2)|deprecated",
    "addr(Tensor self, Tensor vec1, Tensor vec2, *, Scalar beta=1, Scalar alpha=1)"))
def addr(input, vec1, vec2, *, beta=1, alpha=1):
    _addr_checks(input, vec1, vec2)
    expand(input, (vec1.shape[0], vec2.shape[0]))
    dtype = dtypes.result_type(input, vec1, vec2)      # (torch's TensorIterator promotes)
    input, vec1, vec2 = (t if t.dtype is dtype else t.to(dtype) for t in (input, vec1, vec2))
    return _addr(input, vec1, vec2, beta=beta, alpha=alpha)


def _addr_checks(input, vec1, vec2):
    for name, v in (("vec1", vec1), ("vec2", vec2)):
        if v.dim() != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v.dim()}-D")


@public("method", method_signatures=(
    "addr_(Tensor self, Scalar beta, Scalar alpha, Tensor vec1, Tensor vec2)|deprecated",
    "addr_(Tensor self, Scalar beta, Tensor vec1, Tensor vec2)|deprecated",
    "addr_(Tensor self, Tensor vec1, Tensor vec2, *, Scalar beta=1, Scalar alpha=1)"))
def addr_(input, vec1, vec2, *, beta=1, alpha=1):
    _addr_checks(input, vec1, vec2)
    if tuple(input.shape) != (vec1.shape[0], vec2.shape[0]):
        raise RuntimeError(f"size mismatch, input: {list(input.shape)}, v1: {list(vec1.shape)}, "
                           f"v2: {list(vec2.shape)}")
    _check_fits(input, dtypes.result_type(input, vec1, vec2))
    vec1, vec2 = (v if v.dtype is input.dtype else v.to(input.dtype) for v in (vec1, vec2))
    return apply_inplace(_addr, input, (input, vec1, vec2), {"beta": beta, "alpha": alpha})


def _addbmm_grad(grad, other, alpha, shape, first):
    g = grad.unsqueeze(0).expand(*shape)
    return _maybe_scale(g.bmm(other.transpose(1, 2)) if first else other.transpose(1, 2).bmm(g),
                        alpha)


_addbmm = defop(
    "AddbmmBackward0", lambda xp, self, batch1, batch2, beta, alpha, batch1_sym_argsize_0,
    batch1_sym_argsize_1, batch2_sym_argsize_2:
    _add_scaled(self, xp.matmul(batch1, batch2).sum(0), beta, alpha),
    ("self", "batch1", "batch2"), dtype="same",
    grads={"self": lambda grad, beta: _maybe_scale(grad, beta),
           "batch1": lambda grad, batch2, alpha, batch1_sym_argsize_0, batch1_sym_argsize_1,
           batch2_sym_argsize_2: _addbmm_grad(grad, batch2, alpha, (
               batch1_sym_argsize_0, batch1_sym_argsize_1, batch2_sym_argsize_2), True),
           "batch2": lambda grad, batch1, alpha, batch1_sym_argsize_0, batch1_sym_argsize_1,
           batch2_sym_argsize_2: _addbmm_grad(grad, batch1, alpha, (
               batch1_sym_argsize_0, batch1_sym_argsize_1, batch2_sym_argsize_2), False)})


@public("function", "method", signatures=(
    "addbmm(Scalar beta, Tensor input, Scalar alpha, Tensor batch1, Tensor batch2, *, Tensor out=None)|deprecated",
    "addbmm(Scalar beta, Tensor input, Tensor batch1, Tensor batch2, *, Tensor out=None)|deprecated",
    "addbmm(Tensor input, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1, Tensor out=None)"), method_signatures=(
    "addbmm(Tensor self, Scalar beta, Scalar alpha, Tensor batch1, Tensor batch2)|deprecated",
    "addbmm(Tensor self, Scalar beta, Tensor batch1, Tensor batch2)|deprecated",
    "addbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1)"))
def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    if batch1.dim() >= 2 and batch2.dim() >= 3:      # torch sizes the result first
        expand(input, (batch1.shape[1], batch2.shape[2]))
    return _addbmm(input, batch1, batch2, **_addbmm_attrs(input, batch1, batch2, beta, alpha))


@public("method", method_signatures=(
    "addbmm_(Tensor self, Scalar beta, Scalar alpha, Tensor batch1, Tensor batch2)|deprecated",
    "addbmm_(Tensor self, Scalar beta, Tensor batch1, Tensor batch2)|deprecated",
    "addbmm_(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1)"))
def addbmm_(input, batch1, batch2, *, beta=1, alpha=1):
    if batch1.dim() >= 2 and batch2.dim() >= 3:
        expand(input, (batch1.shape[1], batch2.shape[2]))
    attrs = _addbmm_attrs(input, batch1, batch2, beta, alpha)
    shape = (batch1.shape[1], batch2.shape[2])
    if tuple(input.shape) != shape:     # (torch resizes self to the result: not done here)
        raise NotImplementedError(f"addbmm_: glassgrad does not resize self "
                                  f"{list(input.shape)} to the result's size {list(shape)}")
    return apply_inplace(_addbmm, input, (input, batch1, batch2), attrs)


def _addbmm_attrs(input, batch1, batch2, beta, alpha):
    for name, b in (("batch1", batch1), ("batch2", batch2)):
        if b.dim() != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    if batch1.shape[0] != batch2.shape[0]:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got "
                           f"{batch1.shape[0]} and {batch2.shape[0]}")
    if batch1.shape[2] != batch2.shape[1]:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({batch1.shape[1]}x"
                           f"{batch1.shape[2]} and {batch2.shape[1]}x{batch2.shape[2]})")
    if input.dtype is not batch2.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {_name(input)} and "
                           f"{_name(batch2)}")
    if batch1.dtype is not batch2.dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {_name(batch1)} and "
                           f"{_name(batch2)}")
    return {"beta": beta, "alpha": alpha, "batch1_sym_argsize_0": batch1.shape[0],
            "batch1_sym_argsize_1": batch1.shape[1], "batch2_sym_argsize_2": batch2.shape[2]}


@public("function", name="ger", signatures=("ger(Tensor input, Tensor vec2, *, Tensor out=None)",))
def _ger(input, vec2):
    return outer(input, vec2)


# -- deprecated norms and torch.lu ---------------------------------------------------------------
def _frobenius_forward(xp, self, p, dim, keepdim):
    axes = tuple(d % self.ndim for d in dim) if self.ndim else ()
    return xp.sqrt(xp.sum(self * self, axis=axes, keepdims=keepdim))


def _frobenius_backward(grad, self, p, dim, keepdim, result):
    """torch's norm_backward for p = 2: grad * self / norm, 0 where the norm is 0."""
    if not keepdim:
        for d in sorted(_wrap_dim(d, self.dim()) for d in dim):
            grad, result = grad.unsqueeze(d), result.unsqueeze(d)
    return grad * (self / result).masked_fill(result == 0, 0)


_frobenius = defop("NormBackward1", _frobenius_forward, dtype="same", row_major=True,
                   grads={"self": _frobenius_backward})


@public("function", signatures=(
    "frobenius_norm(Tensor input, IntArrayRef[1] dim, bool keepdim=False, *, Tensor out=None)",))
def frobenius_norm(input, dim, keepdim=False):
    _warn_once("frobenius_norm", "at::frobenius_norm is deprecated and it is just left for JIT "
               "compatibility. It will be removed in a future PyTorch release. Please use "
               "`linalg.vector_norm(A, 2., dim, keepdim)` instead (Triggered internally at "
               "/__w/pytorch/pytorch/aten/src/ATen/native/LinearAlgebra.cpp:3175.)")
    if len(dim) > 2:
        raise RuntimeError(f"Expected at most 2 dimensions, but got {len(dim)} dimensions "
                           "instead.")
    for d in dim:
        _wrap_dim(d, input.dim())
    return _frobenius(input, p=2.0, dim=tuple(dim), keepdim=keepdim)     # (saved as given)


@public("function", signatures=(
    "nuclear_norm(Tensor input, IntArrayRef[2] dim, bool keepdim=False, *, Tensor out=None)",
    "nuclear_norm(Tensor input, bool keepdim=False, *, Tensor out=None)"))
def nuclear_norm(input, dim=(-2, -1), keepdim=False):
    from .reduce import matrix_norm
    _warn_once("nuclear_norm", "at::nuclear_norm is deprecated and it is just left for JIT "
               "compatibility. It will be removed in a future PyTorch release. Please use "
               "`linalg.matrix_norm(A, 'nuc', dim, keepdim)` instead (Triggered internally at "
               "/__w/pytorch/pytorch/aten/src/ATen/native/LinearAlgebra.cpp:3229.)")
    return matrix_norm(input, "nuc", tuple(dim), keepdim)


_LU_WITH_INFO = _return_type("_lu_with_info", ("LU", "pivots", "info"))


@public("function", "method")
def lu(A, pivot=True, get_infos=False, out=None):
    """torch.lu (torch/functional.py): lu_factor_ex, checked unless get_infos."""
    _warn_once("lu", "torch.lu is deprecated in favor of torch.linalg.lu_factor / "
               "torch.linalg.lu_factor_ex and will be removed in a future PyTorch release.\nLU, "
               "pivots = torch.lu(A, compute_pivots)\nshould be replaced with\nLU, pivots = "
               "torch.linalg.lu_factor(A, compute_pivots)\nand\nLU, pivots, info = torch.lu(A, "
               "compute_pivots, get_infos=True)\nshould be replaced with\nLU, pivots, info = "
               "torch.linalg.lu_factor_ex(A, compute_pivots) (Triggered internally at "
               "/__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp:2073.)")
    if out is not None:
        raise NotImplementedError("glassgrad: torch.lu(..., out=) is not supported")
    LU, pivots, info = _lu_factor_checked(A, pivot)
    if not get_infos:       # (a singular A is no error: only LAPACK's argument errors are)
        return LU, pivots
    return _LU_WITH_INFO(LU, pivots, info)


# -- removed in torch 1.9: their RuntimeErrors ---------------------------------------------------
_REMOVED = {
    "solve": "This function was deprecated since version 1.9 and is now removed. `torch.solve` is "
             "deprecated in favor of `torch.linalg.solve`. `torch.linalg.solve` has its arguments "
             "reversed and does not return the LU factorization.\n\nTo get the LU factorization "
             "see `torch.lu`, which can be used with `torch.lu_solve` or `torch.lu_unpack`.\nX = "
             "torch.solve(B, A).solution should be replaced with:\nX = torch.linalg.solve(A, B)",
    "lstsq": "This function was deprecated since version 1.9 and is now removed. `torch.lstsq` is "
             "deprecated in favor of `torch.linalg.lstsq`.\n`torch.linalg.lstsq` has reversed "
             "arguments and does not return the QR decomposition in the returned tuple (although "
             "it returns other information about the problem).\n\nTo get the QR decomposition "
             "consider using `torch.linalg.qr`.\n\nThe returned solution in `torch.lstsq` stored "
             "the residuals of the solution in the last m - n columns of the returned value "
             "whenever m > n. In torch.linalg.lstsq, the residuals are in the field 'residuals' "
             "of the returned named tuple.\n\nThe unpacking of the solution, as in\nX, _ = "
             "torch.lstsq(B, A).solution[:A.size(1)]\nshould be replaced with:\nX = "
             "torch.linalg.lstsq(A, B).solution",
    "symeig": "This function was deprecated since version 1.9 and is now removed. The default "
              "behavior has changed from using the upper triangular portion of the matrix by "
              "default to using the lower triangular portion.\n\nL, _ = torch.symeig(A, "
              "upper=upper) should be replaced with:\nL = torch.linalg.eigvalsh(A, UPLO='U' if "
              "upper else 'L')\n\nand\n\nL, V = torch.symeig(A, eigenvectors=True) should be "
              "replaced with:\nL, V = torch.linalg.eigh(A, UPLO='U' if upper else 'L')",
    "eig": "This function was deprecated since version 1.9 and is now removed. `torch.linalg.eig` "
           "returns complex tensors of dtype `cfloat` or `cdouble` rather than real tensors "
           "mimicking complex tensors.\n\nL, _ = torch.eig(A) should be replaced with:\n"
           "L_complex = torch.linalg.eigvals(A)\n\nand\n\nL, V = torch.eig(A, eigenvectors=True) "
           "should be replaced with:\nL_complex, V_complex = torch.linalg.eig(A)",
}


_REMOVED_FUNCTIONS = {      # (torch.matrix_rank has no Tensor method)
    "matrix_rank": "This function was deprecated since version 1.9 and is now removed.\nPlease "
                   "use the `torch.linalg.matrix_rank` function instead. The parameter "
                   "'symmetric' was renamed in `torch.linalg.matrix_rank()` to 'hermitian'.",
}


def _removed(name):
    def removed(*args, **kwargs):
        raise RuntimeError(_REMOVED.get(name) or _REMOVED_FUNCTIONS[name])
    removed.__name__ = name
    return removed


for _n in _REMOVED:
    public("function", "method", name=_n)(_removed(_n))
for _n in _REMOVED_FUNCTIONS:
    public("function", name=_n)(_removed(_n))

# rows and @public objects name themselves (glassgrad.ops.publish)
publish(globals())
