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
    def program(lib):
        try:
            call(lib)
        except Exception as e:  # noqa: BLE001 - the error is the behaviour compared
            return type(e).__name__, str(e)
    want = program(torch)
    assert want is not None and program(gg) == want
