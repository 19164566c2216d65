"""torch.svd_lowrank and torch.pca_lowrank against torch's: the same random test matrix after
manual_seed, so the same subspace; singular values, the low-rank reconstruction U diag(S) V^T
and the singular vectors up to sign (glassgrad's linalg.svd of a wide matrix can choose other
signs than torch's LAPACK call), and the gradients of sign-free losses."""
import pytest
import torch

import glassgrad as gg
from differential import assert_same, run

TOL = {"float32": (2e-4, 2e-5), "float64": (1e-9, 1e-11)}


def _sign_free(lib, U, S, V):
    return [S, U.abs(), V.abs(), U @ lib.diag_embed(S) @ V.mT]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_svd_lowrank(dtype):
    def program(lib):
        dt = getattr(lib, dtype)
        lib.manual_seed(0)
        A = (lib.randn(8, 5, dtype=dt) @ lib.randn(5, 6, dtype=dt)).requires_grad_()
        out = []
        U, S, V = lib.svd_lowrank(A, q=3)
        out += _sign_free(lib, U, S, V)
        out.append(lib.autograd.grad(S.sum() + (U @ lib.diag_embed(S) @ V.mT).pow(2).sum(), A))
        M = A.detach().mean(0, keepdim=True)
        out += _sign_free(lib, *lib.svd_lowrank(A.mT, q=4, niter=1, M=M.mT))
        out += _sign_free(lib, *lib.svd_lowrank(A.detach(), q=2, niter=0))
        out.append(lib.randn(2, dtype=dt))              # the stream after the draws
        return out
    assert_same(run(program, torch), run(program, gg), tol=TOL)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_pca_lowrank(dtype):
    def program(lib):
        dt = getattr(lib, dtype)
        lib.manual_seed(1)
        A = (lib.randn(9, 7, dtype=dt) + lib.arange(7, dtype=dt)).requires_grad_()
        U, S, V = lib.pca_lowrank(A)
        out = _sign_free(lib, U, S, V) + [lib.autograd.grad(S.sum(), A)]
        out += _sign_free(lib, *lib.pca_lowrank(lib.randn(2, 7, 4, dtype=dt), q=2,
                                                center=False))
        out += _sign_free(lib, *lib.pca_lowrank(A.detach(), q=3, niter=3))
        return out
    assert_same(run(program, torch), run(program, gg), tol=TOL)


@pytest.mark.parametrize("call", [
    lambda lib: lib.pca_lowrank(lib.ones(4, 3), q=5),
    lambda lib: lib.pca_lowrank(lib.ones(4, 3), q=-1),
    lambda lib: lib.pca_lowrank(lib.ones(4, 3), niter=-1),
])
def test_errors(call):
    _same_error(call)


# -- lobpcg ---------------------------------------------------------------------------------------
def _spd(lib, dt, m=12, seed=0):
    lib.manual_seed(seed)
    a = lib.randn(m, m, dtype=dt)
    return a @ a.mT + lib.eye(m, dtype=dt) * 0.5


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_lobpcg(dtype):
    def program(lib):
        dt = getattr(lib, dtype)
        A = _spd(lib, dt)
        out = []
        E, X = lib.lobpcg(A, k=2)
        out += [E, X.abs()]
        E, X = lib.lobpcg(A, k=2, largest=False, method="basic", niter=50)
        out += [E, X.abs()]
        out.append(lib.lobpcg(A, k=1, B=lib.eye(12, dtype=dt) * 2)[0])
        out.append(lib.lobpcg(A.expand(2, 12, 12), k=2)[0])
        out.append(lib.lobpcg(A, X=lib.randn(12, 3, dtype=dt), niter=3)[0])
        steps = []
        lib.lobpcg(A, k=2, tracker=lambda w: steps.append(w.ivars["converged_count"]))
        out += [steps, lib.randn(2, dtype=dt)]      # the stream after the initial X drawn
        return out
    assert_same(run(program, torch), run(program, gg),
                tol={"float64": (1e-8, 1e-10), "float32": (1e-3, 1e-4)})


def test_lobpcg_gradients():
    def program(lib):
        A = _spd(lib, lib.float64, 9).requires_grad_()
        E, X = lib.lobpcg(A, k=2)
        out = [E, type(E.grad_fn).__name__,
               lib.autograd.grad(E.sum() + (X ** 2).sum(), A)]
        E, X = lib.lobpcg(A, k=2, largest=False)
        out.append(lib.autograd.grad(E.sum(), A))
        E, X = lib.lobpcg(A, k=3, n=3, niter=20)
        out.append(lib.autograd.grad(E.pow(2).sum(), A))
        return out
    assert_same(run(program, torch), run(program, gg), tol={"float64": (1e-7, 1e-9)})


@pytest.mark.parametrize("call", [
    lambda lib: lib.lobpcg(lib.eye(5), k=2),
    lambda lib: lib.lobpcg(lib.ones(4, 5), k=1),
    lambda lib: lib.lobpcg(lib.eye(6), k=1, B=lib.eye(5)),
    lambda lib: lib.lobpcg(lib.eye(9).requires_grad_(), k=1, B=lib.eye(9) * 2)[0].sum()
    .backward(),
])
def test_lobpcg_errors(call):
    _same_error(call)


def _same_error(call):
    """``call`` raises in torch, and glassgrad raises the same type with the same message."""
    def program(lib):
        try:
            call(lib)
        except Exception as e:  # noqa: BLE001 - the error is the behaviour compared
            return type(e).__name__, str(e)
    want = program(torch)
    assert want is not None and program(gg) == want
