"""torch.lobpcg (torch._lobpcg): Knyazev's locally optimal block preconditioned conjugate
gradient for the k largest (or smallest) eigenpairs of a symmetric A (optionally of A x =
lambda B x), with torch's "ortho" (Duersch et al. 2018) and "basic" updates, written with the
public ops in torch's order of operations, so a run after the same seed draws torch's initial
X and takes the same steps. The gradient is torch's symeig backward of the eigenpairs found
(for B = I), through a custom Function."""
import math

from . import _creation, dtypes, linalg
from .autograd.function import Function
from .ops.linalg import matmul
from .ops.reduce import norm
from .ops.solvers import cholesky_solve

__all__ = ["lobpcg"]


def _mm(A, X):
    """A @ X, with A = None standing for the identity."""
    return X if A is None else matmul(A, X)


def _qform(A, S):
    return matmul(S.mT, _mm(A, S))


def _symeig(A, largest=False):
    E, Z = linalg.eigh(A, UPLO="U")
    return (E.flip(-1), Z.flip(-1)) if largest else (E, Z)


def _floating(A):
    return A.dtype if A.dtype in (dtypes.float16, dtypes.float32, dtypes.float64) else \
        dtypes.float32


# -- the gradient: torch's symeig backward for the complete or a partial eigenspace --------------
def _complete_backward(D_grad, U_grad, A, D, U):
    F = D.unsqueeze(-2) - D.unsqueeze(-1)
    F.diagonal(dim1=-2, dim2=-1).fill_(math.inf)
    F.pow_(-1)
    Ut = U.mT.contiguous()
    return matmul(U, matmul(D_grad.diag_embed() + matmul(Ut, U_grad) * F, Ut))


def _poly_from_roots(roots):
    """Coefficients (lowest power first) of prod (x - root), with a leading 1."""
    order = roots.shape[-1]
    shape = list(roots.shape)
    shape[-1] += 2
    coeffs = roots.new_zeros(shape)
    coeffs[..., 0] = 1
    coeffs[..., -1] = 1
    for i in range(1, order + 1):
        new = coeffs.clone() if roots.requires_grad else coeffs
        out = new.narrow(-1, order - i, i + 1)
        out -= roots.narrow(-1, i - 1, 1) * coeffs.narrow(-1, order - i + 1, i + 1)
        coeffs = new
    return coeffs.narrow(-1, 1, order + 1)


def _horner(poly, x, value, step):
    value = value.clone()
    for k in range(poly.size(-1) - 2, -1, -1):
        value = step(value, x, poly[..., k])
    return value


def _matrix_poly(poly, x):
    def step(value, x, c):
        out = x.matmul(value)
        out.diagonal(dim1=-2, dim2=-1).add_(c.unsqueeze(-1))
        return out
    eye = _creation.eye(x.size(-1), x.size(-1), dtype=x.dtype).view(
        *[1] * len(x.shape[:-2]), x.size(-1), x.size(-1))
    return _horner(poly, x, eye, step)


def _vector_poly(poly, x):
    return _horner(poly, x, x.new_ones(1).expand(x.shape),
                   lambda value, x, c: c.unsqueeze(-1).addcmul(x, value))


def _partial_backward(D_grad, U_grad, A, D, U, largest):
    Ut = U.mT.contiguous()
    proj = -U.matmul(Ut)
    proj.diagonal(dim1=-2, dim2=-1).add_(1)
    gen = _creation_generator()
    U_ortho = proj.matmul(_creation.randn((*A.shape[:-1], A.size(-1) - D.size(-1)),
                                          dtype=A.dtype, generator=gen))
    U_ortho_t = U_ortho.mT.contiguous()
    chr_poly = _poly_from_roots(D)
    projected = U_grad
    series = projected.new_zeros(projected.shape)
    for k in range(1, chr_poly.size(-1)):
        series += projected * _vector_poly(chr_poly[..., k:], D).unsqueeze(-2)
        projected = A.matmul(projected)
    at_A = matmul(U_ortho_t, matmul(_matrix_poly(chr_poly, A), U_ortho))
    sign = -1 if largest and k % 2 == 1 else +1
    L = linalg.cholesky(sign * at_A)
    res = _complete_backward(D_grad, U_grad, A, D, U)
    res -= U_ortho.matmul(sign * cholesky_solve(U_ortho_t.matmul(series), L)).matmul(Ut)
    return res


def _creation_generator():
    from ._generator import Generator       # a fresh default-seeded generator, as torch's
    return Generator()


class LOBPCGAutogradFunction(Function):
    @staticmethod
    def forward(ctx, A, k, B, X, n, iK, niter, tol, largest, method, tracker, iparams, fparams,
                bparams):
        A = A.contiguous()
        B = None if B is None else B.contiguous()
        D, U = _lobpcg(A, k, B, X, n, iK, niter, tol, largest, method, tracker, iparams,
                       fparams, bparams)
        ctx.save_for_backward(A, B, D, U)
        ctx.largest = largest
        return D, U

    @staticmethod
    def backward(ctx, D_grad, U_grad):
        A, B, D, U = ctx.saved_tensors
        if B is not None:
            raise ValueError("lobpcg.backward does not support backward with B != I yet.")
        largest = True if ctx.largest is None else ctx.largest
        grad = (_complete_backward(D_grad, U_grad, A, D, U) if U.size(-1) == U.size(-2) else
                _partial_backward(D_grad, U_grad, A, D, U, largest))
        return (grad,) + (None,) * 13


def lobpcg(A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None,
           method=None, tracker=None, ortho_iparams=None, ortho_fparams=None,
           ortho_bparams=None):
    """The k largest (smallest with largest=False) eigenpairs (E, X) of the symmetric A."""
    if A.requires_grad or (B is not None and B.requires_grad):
        A_sym = (A + A.mT) / 2
        B_sym = (B + B.mT) / 2 if B is not None else None
        return LOBPCGAutogradFunction.apply(A_sym, k, B_sym, X, n, iK, niter, tol, largest, method,
                                     tracker, ortho_iparams, ortho_fparams, ortho_bparams)
    return _lobpcg(A, k, B, X, n, iK, niter, tol, largest, method, tracker, ortho_iparams,
                   ortho_fparams, ortho_bparams)


def _params(A, k, X, n, niter, tol, largest, method, ortho_iparams, ortho_fparams,
            ortho_bparams):
    dtype = _floating(A)
    if tol is None:
        tol = {dtypes.float32: 1.2e-07, dtypes.float64: 2.23e-16}[dtype] ** 0.5
    m = A.shape[-1]
    k = (1 if X is None else X.shape[-1]) if k is None else k
    n = (k if n is None else n) if X is None else X.shape[-1]
    if m < 3 * n:
        raise ValueError(f"LOBPCG algorithm is not applicable when the number of A rows (={m})"
                         f" is smaller than 3 x the number of requested eigenpairs (={n})")
    method = "ortho" if method is None else method
    iparams = {"m": m, "n": n, "k": k, "niter": 1000 if niter is None else niter}
    fparams = {"tol": tol}
    bparams = {"largest": True if largest is None else largest}
    if method == "ortho":
        iparams.update(ortho_iparams or {})
        fparams.update(ortho_fparams or {})
        bparams.update(ortho_bparams or {})
        iparams.setdefault("ortho_i_max", 3)
        iparams.setdefault("ortho_j_max", 3)
        for key in ("ortho_tol", "ortho_tol_drop", "ortho_tol_replace"):
            fparams.setdefault(key, tol)
        bparams.setdefault("ortho_use_drop", False)
    return dtype, m, n, k, method, iparams, fparams, bparams


def _lobpcg(A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None,
            method=None, tracker=None, ortho_iparams=None, ortho_fparams=None,
            ortho_bparams=None):
    if A.shape[-2] != A.shape[-1]:
        raise AssertionError(f"A must be square, got shape {A.shape}")
    if B is not None and A.shape != B.shape:
        raise AssertionError(f"A and B must have same shape, got {A.shape} vs {B.shape}")
    dtype, m, n, k, method, iparams, fparams, bparams = _params(
        A, k, X, n, niter, tol, largest, method, ortho_iparams, ortho_fparams, ortho_bparams)

    def solve(A_, B_, X_):
        X_ = _creation.randn((m, n), dtype=dtype) if X_ is None else X_
        if not (len(X_.shape) == 2 and X_.shape == (m, n)):
            raise AssertionError(f"X shape mismatch: got {X_.shape}, expected {(m, n)}")
        worker = _LOBPCG(A_, B_, X_, iK, iparams, fparams, bparams, method, tracker)
        worker.run()
        return worker.E[:k], worker.X[:, :k]
    if len(A.shape) == 2:
        return solve(A, B, X)
    N = math.prod(A.shape[:-2])
    bA = A.reshape((N,) + A.shape[-2:])
    bB = None if B is None else B.reshape((N,) + A.shape[-2:])
    bX = None if X is None else X.reshape((N,) + X.shape[-2:])
    bE = _creation.empty((N, k), dtype=dtype)
    bXret = _creation.empty((N, m, k), dtype=dtype)
    for i in range(N):
        iparams["batch_index"] = i
        bE[i], bXret[i] = solve(bA[i], None if bB is None else bB[i],
                                None if bX is None else bX[i])
    return bE.reshape(A.shape[:-2] + (k,)), bXret.reshape(A.shape[:-2] + (m, k))


class _LOBPCG:
    """One run's state: X (the current eigenvector estimates), E, the residuals R and the
    search basis S = [X, P, W]; the counters torch keeps (ivars, fvars, tvars) for a tracker."""

    def __init__(self, A, B, X, iK, iparams, fparams, bparams, method, tracker):
        self.A, self.B, self.iK = A, B, iK
        self.iparams, self.fparams, self.bparams = iparams, fparams, bparams
        self.method, self.tracker = method, tracker
        m, n = iparams["m"], iparams["n"]
        self.X = X
        self.E = _creation.zeros((n,), dtype=X.dtype)
        self.R = _creation.zeros((m, n), dtype=X.dtype)
        self.S = _creation.zeros((m, 3 * n), dtype=X.dtype)
        self.tvars, self.ivars = {}, {"istep": 0}
        self.fvars, self.bvars = {"_": 0.0}, {"_": False}

    def update(self):
        if self.ivars["istep"] == 0:
            X_norm = float(norm(self.X))
            iX_norm = X_norm ** (-1)
            self.fvars["X_norm"] = X_norm
            self.fvars["A_norm"] = float(norm(_mm(self.A, self.X))) * iX_norm
            self.fvars["B_norm"] = float(norm(_mm(self.B, self.X))) * iX_norm
            self.ivars["iterations_left"] = self.iparams["niter"]
            self.ivars["converged_count"] = 0
            self.ivars["converged_end"] = 0
        self._update_ortho() if self.method == "ortho" else self._update_basic()
        self.ivars["iterations_left"] -= 1
        self.ivars["istep"] += 1

    def update_residual(self):
        self.R = _mm(self.A, self.X) - _mm(self.B, self.X) * self.E

    def update_converged_count(self):
        prev = self.ivars["converged_count"]
        E, X, R = self.E, self.X, self.R
        rerr = norm(R, 2, (0,)) / (norm(X, 2, (0,)) * (
            self.fvars["A_norm"] + E[:X.shape[-1]].abs() * self.fvars["B_norm"]))
        count = 0
        for converged in (rerr < self.fparams["tol"]).tolist():
            if not converged:
                break
            count += 1
        if count < prev:
            raise AssertionError(f"the number of converged eigenpairs (was {prev}, got "
                                 f"{count}) cannot decrease")
        self.ivars["converged_count"] = count
        self.tvars["rerr"] = rerr
        return count

    def stop_iteration(self):
        return (self.bvars.get("force_stop", False) or self.ivars["iterations_left"] == 0
                or self.ivars["converged_count"] >= self.iparams["k"])

    def run(self):
        self.update()
        if self.tracker is not None:
            self.tracker(self)
        while not self.stop_iteration():
            self.update()
            if self.tracker is not None:
                self.tracker(self)

    def _first_step(self, assign):
        """Rayleigh-Ritz on X alone, then S = [X, W]."""
        n = self.iparams["n"]
        Ri = self._rayleigh_ritz_transform(self.X)
        E, Z = _symeig(_qform(_qform(self.A, self.X), Ri), self.bparams["largest"])
        assign(matmul(self.X, matmul(Ri, Z)), E)
        self.update_residual()
        self.update_converged_count()
        self.S[:, :n] = self.X
        W = _mm(self.iK, self.R) if self.method != "ortho" else self._get_ortho(self.R, self.X)
        ns = self.ivars["converged_end"] = n + W.shape[-1]
        self.S[:, n:ns] = W

    def _update_basic(self):
        ns, nc = self.ivars["converged_end"], self.ivars["converged_count"]
        n, largest = self.iparams["n"], self.bparams["largest"]
        if self.ivars["istep"] == 0:
            def assign(X, E):
                self.X[:] = X
                self.E[:] = E
            return self._first_step(assign)
        S_ = self.S[:, nc:ns]
        Ri = self._rayleigh_ritz_transform(S_)
        E_, Z = _symeig(_qform(_qform(self.A, S_), Ri), largest)
        self.X[:, nc:] = matmul(S_, matmul(Ri, Z[:, :n - nc]))
        self.E[nc:] = E_[:n - nc]
        P = matmul(S_, matmul(Ri, Z[:, n:2 * n - nc]))
        self._next_basis(P, lambda nc: _mm(self.iK, self.R[:, nc:]))

    def _update_ortho(self):
        ns, nc = self.ivars["converged_end"], self.ivars["converged_count"]
        n, largest = self.iparams["n"], self.bparams["largest"]
        if self.ivars["istep"] == 0:
            def assign(X, E):
                self.X = X
            return self._first_step(assign)
        S_ = self.S[:, nc:ns]
        E_, Z = _symeig(_qform(self.A, S_), largest)
        self.X[:, nc:] = matmul(S_, Z[:, :n - nc])
        self.E[nc:] = E_[:n - nc]
        P = matmul(S_, matmul(Z[:, n - nc:], linalg.qr(Z[:n - nc, n - nc:].mT).Q))
        np_ = P.shape[-1]
        self._next_basis(P, lambda nc: self._get_ortho(self.R[:, nc:], self.S[:, :n + np_]))

    def _next_basis(self, P, make_W):
        """After a step: residuals, the converged count, and S = [X, P, W]."""
        n, np_ = self.iparams["n"], P.shape[-1]
        self.update_residual()
        nc = self.update_converged_count()
        self.S[:, :n] = self.X
        self.S[:, n:n + np_] = P
        W = make_W(nc)
        ns = self.ivars["converged_end"] = n + np_ + W.shape[-1]
        self.S[:, n + np_:ns] = W

    def _rayleigh_ritz_transform(self, S):
        SBS = _qform(self.B, S)
        d_row = SBS.diagonal(0, -2, -1) ** (-0.5)
        d_col = d_row.reshape(d_row.shape[0], 1)
        R = linalg.cholesky(SBS * d_row * d_col, upper=True)
        return linalg.solve_triangular(R, d_row.diag_embed(), upper=True, left=False)

    def _get_svqb(self, U, drop, tau):
        """U's columns B-orthonormalised by the scaled eigendecomposition of U^T B U
        (Stathopoulos and Wu's SVQB), its small eigenvalues dropped or raised to tau."""
        if U.numel() == 0:
            return U
        UBU = _qform(self.B, U)
        d = UBU.diagonal(0, -2, -1)
        nz = (d.abs() != 0.0).nonzero()[:, 0]
        if len(nz) < len(d):
            U = U[:, nz]
            if U.numel() == 0:
                return U
            UBU = _qform(self.B, U)
            d = UBU.diagonal(0, -2, -1)
        d_col = (d ** (-0.5)).reshape(d.shape[0], 1)
        E, Z = _symeig(UBU * d_col * d_col.mT)
        t = tau * E.abs().max()
        if drop:
            keep = (E > t).nonzero()[:, 0]
            E, Z, d_col = E[keep], Z[:, keep], d_col[keep]
        else:
            E[(E < t).nonzero()[:, 0]] = t
        return matmul(U * d_col.mT, Z * E ** (-0.5))

    def _get_ortho(self, U, V):
        """U with V's span removed and B-orthonormalised, torch's repeated projections."""
        m = self.iparams["m"]
        tau_ortho, tau_drop, tau_replace = (self.fparams[k] for k in (
            "ortho_tol", "ortho_tol_drop", "ortho_tol_replace"))
        i_max, j_max = self.iparams["ortho_i_max"], self.iparams["ortho_j_max"]
        use_drop = self.bparams["ortho_use_drop"]
        for key in [k for k in self.fvars if k.startswith("ortho_") and k.endswith("_rerr")]:
            self.fvars.pop(key)
        self.ivars.pop("ortho_i", 0)
        self.ivars.pop("ortho_j", 0)
        BV_norm = norm(_mm(self.B, V))
        BU = _mm(self.B, U)
        VBU = matmul(V.mT, BU)
        i = j = 0
        for i in range(i_max):
            U = U - matmul(V, VBU)
            drop, tau_svqb = False, tau_drop
            for j in range(j_max):
                if use_drop:
                    U = self._get_svqb(U, drop, tau_svqb)
                    drop, tau_svqb = True, tau_replace
                else:
                    U = self._get_svqb(U, False, tau_replace)
                if U.numel() == 0:
                    self.ivars["ortho_i"], self.ivars["ortho_j"] = i, j
                    return U
                BU = _mm(self.B, U)
                UBU = matmul(U.mT, BU)
                U_norm, BU_norm = norm(U), norm(BU)
                R_norm = norm(UBU - _creation.eye(UBU.shape[-1], dtype=UBU.dtype))
                rerr = float(R_norm) * float(BU_norm * U_norm) ** (-1)
                self.fvars[f"ortho_UBUmI_rerr[{i}, {j}]"] = rerr
                if rerr < tau_ortho:
                    break
            VBU = matmul(V.mT, BU)
            rerr = float(norm(VBU)) * float(BV_norm * norm(U)) ** (-1)
            self.fvars[f"ortho_VBU_rerr[{i}]"] = rerr
            if rerr < tau_ortho:
                break
            if m < U.shape[-1] + V.shape[-1]:
                if self.B is None:
                    raise AssertionError("B must not be None")
                raise ValueError(f"Overdetermined shape of U: #B-cols(={self.B.shape[-1]}) >= "
                                 f"#U-cols(={U.shape[-1]}) + #V-cols(={V.shape[-1]}) must hold")
        self.ivars["ortho_i"], self.ivars["ortho_j"] = i, j
        return U
