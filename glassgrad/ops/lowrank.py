"""torch.svd_lowrank and torch.pca_lowrank (torch._lowrank): Halko, Martinsson and Tropp's
randomised range finder (their algorithm 4.4, with ``niter`` subspace iterations) and the SVD
of the small projected matrix (algorithm 5.1), written with the public ops so the random
matrix is torch's draw after the same seed and the gradients are the ops' own. Real tensors
only as yet: the conjugate transposes torch takes (mH) are plain transposes (mT) here."""
from .. import dtypes
from .._creation import randn
from . import public, publish
from .linalg import linalg_qr, linalg_svd, matmul


def _floating(A):
    """The dtype the random test matrix is drawn in: A's when floating, else float32."""
    return A.dtype if A.dtype in (dtypes.float16, dtypes.float32, dtypes.float64) else \
        dtypes.float32


def _minus(product, M, Q):
    return product if M is None else product - matmul(M, Q)


def _approximate_basis(A, q, niter=2, M=None):
    """Q with q orthonormal columns whose span approximates the range of A (or A - M)."""
    niter = 2 if niter is None else niter
    R = randn(A.shape[-1], q, dtype=_floating(A))
    Q = linalg_qr(_minus(matmul(A, R), M, R)).Q
    for _ in range(niter):
        X = matmul(A.mT, Q)
        Q = linalg_qr(X if M is None else X - matmul(M.mT, Q)).Q
        Q = linalg_qr(_minus(matmul(A, Q), M, Q)).Q
    return Q


def _svd_lowrank(A, q=6, niter=2, M=None):
    q = 6 if q is None else q
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.size())
    if m < n:
        A = A.mT
        M = None if M is None else M.mT
    Q = _approximate_basis(A, q, niter=niter, M=M)
    B = matmul(Q.mT, A)
    if M is not None:
        B = B - matmul(Q.mT, M)
    U, S, Vh = linalg_svd(B, full_matrices=False)
    U, V = Q.matmul(U), Vh.mT
    return (V, S, U) if m < n else (U, S, V)


@public("function")
def svd_lowrank(A, q=6, niter=2, M=None):
    """(U, S, V) with A (or A - M) ~ U diag(S) V^H, of rank q, from a random projection."""
    return _svd_lowrank(A, q=q, niter=niter, M=M)


@public("function")
def pca_lowrank(A, q=None, center=True, niter=2):
    """svd_lowrank of A less its column means (when ``center``): V's columns are the
    principal directions."""
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (q >= 0 and q <= min(m, n)):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than "
                         f"min(m, n)={min(m, n)}")
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return _svd_lowrank(A, q, niter=niter, M=None)
    return _svd_lowrank(A - A.mean(dim=(-2,), keepdim=True), q, niter=niter, M=None)


publish(globals())
