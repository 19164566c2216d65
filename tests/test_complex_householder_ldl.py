"""Complex Householder products (linalg.householder_product / orgqr, ormqr) and complex LDL
(linalg.ldl_factor(_ex), ldl_solve, hermitian=True: hetrf/hetrs, False: sytrf/sytrs) against
torch 2.13: values, grad_fn names, gradients of real losses (torch's conjugate Wirtinger
convention), gradcheck, double backward, errors. torch computes every expectation."""
import numpy as np
import pytest
import torch

import glassgrad as gg
from differential import assert_same, catch, run

TOL = {"float32": (1e-4, 1e-5), "complex64": (1e-4, 1e-5), "float64": (1e-9, 1e-10),
       "complex128": (1e-9, 1e-10)}
DTYPES = ["complex64", "complex128"]


def same(program, tol=TOL):
    expected = run(program, torch)
    assert_same(expected, run(program, gg), tol=tol)
    return expected


def _data(shape, seed, scale=1.0):
    rng = np.random.default_rng(seed)
    return scale * (rng.uniform(-1, 1, shape) + 1j * rng.uniform(-1, 1, shape))


def _loss(*outs):
    """A real loss that reads real and imaginary parts and magnitudes."""
    return sum((o.real * o.imag).sum() + o.abs().sum() for o in outs)


# (input shape, tau shape): square, tall, batched, fewer reflectors than columns, empty
HH_SHAPES = [((3, 3), (3,)), ((5, 3), (3,)), ((2, 4, 3), (2, 2)), ((4, 2), (1,)),
             ((2, 0, 0), (2, 0))]


@pytest.mark.parametrize("shapes", HH_SHAPES, ids=str)
@pytest.mark.parametrize("dtype", DTYPES)
def test_householder_product(shapes, dtype):
    sa, st = shapes

    def program(t):
        d = getattr(t, dtype)
        a = t.tensor(_data(sa, 0, 0.5), dtype=d, requires_grad=True)
        tau = t.tensor(_data(st, 1, 0.5), dtype=d, requires_grad=True)
        q = t.linalg.householder_product(a, tau)
        return (q, q.stride(), type(q.grad_fn).__name__, t.orgqr(a, tau), a.orgqr(tau),
                t.autograd.grad(_loss(q), (a, tau), allow_unused=True))
    same(program)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (2, 4, 3)])
def test_householder_product_of_geqrf_is_qr(shape, dtype):
    """Q from geqrf's reflectors, and the product Q R giving the matrix back."""
    def program(t):
        A = t.tensor(_data(shape, 2), dtype=getattr(t, dtype))
        a, tau = t.geqrf(A)
        q = t.linalg.householder_product(a, tau)
        return q, q @ a.triu()[..., :shape[-1], :]
    same(program)


ORMQR = [(True, False), (True, True), (False, False), (False, True)]


@pytest.mark.parametrize("left,transpose", ORMQR)
@pytest.mark.parametrize("dtype", DTYPES)
def test_ormqr(left, transpose, dtype):
    """op(Q) C or C op(Q), op the conjugate transpose when transpose=True."""
    def program(t):
        d = getattr(t, dtype)
        a = t.tensor(_data((2, 5, 3), 3, 0.5), dtype=d, requires_grad=True)
        tau = t.tensor(_data((2, 3), 4, 0.5), dtype=d, requires_grad=True)
        c = t.tensor(_data((2, 5, 4) if left else (2, 4, 5), 5), dtype=d, requires_grad=True)
        out = t.ormqr(a, tau, c, left, transpose)
        return (out, out.stride(), type(out.grad_fn).__name__,
                a.ormqr(tau, c, left=left, transpose=transpose),
                t.autograd.grad(_loss(out), (a, tau, c)))
    same(program)


@pytest.mark.parametrize("left,transpose", ORMQR)
def test_ormqr_of_geqrf(left, transpose):
    """With geqrf's reflectors ormqr is a product with the full unitary Q."""
    def program(t):
        A = t.tensor(_data((5, 3), 6), dtype=t.complex128)
        a, tau = t.geqrf(A)
        q = t.linalg.householder_product(t.cat([a, t.zeros(5, 2, dtype=a.dtype)], 1), tau)
        c = t.tensor(_data((5, 2) if left else (2, 5), 7), dtype=t.complex128)
        op = q.mH if transpose else q
        return t.ormqr(a, tau, c, left, transpose), (op @ c if left else c @ op)
    same(program)


def _realified(lib, fn, *shapes):
    """fn of complex tensors as a function of their real and imaginary parts (float64), its
    complex outputs as real pairs: what the real gradcheck can check."""
    def f(*parts):
        args = [lib.complex(parts[2 * i], parts[2 * i + 1]) for i in range(len(shapes))]
        return lib.view_as_real(fn(*args))
    parts = []
    for i, shape in enumerate(shapes):
        x = _data(shape, 20 + i, 0.5)
        parts += [lib.tensor(x.real, requires_grad=True), lib.tensor(x.imag, requires_grad=True)]
    return f, tuple(parts)


@pytest.mark.parametrize("lib", [torch, gg], ids=["torch", "glassgrad"])
def test_gradcheck(lib):
    """The complex formulas against finite differences in the real and imaginary parts (first
    and second order), in glassgrad as in torch."""
    checks = [(lib.linalg.householder_product, (4, 3), (3,)),
              (lambda a, t, c: lib.ormqr(a, t, c, False, True), (4, 3), (3,), (2, 4)),
              (lambda a, t, c: lib.ormqr(a, t, c, True, False), (3, 3), (3,), (3, 2))]
    for fn, *shapes in checks:
        f, parts = _realified(lib, fn, *shapes)
        assert lib.autograd.gradcheck(f, parts)
    f, parts = _realified(lib, lib.linalg.householder_product, (3, 2), (2,))
    assert lib.autograd.gradgradcheck(f, parts)


def test_double_backward():
    def program(t):
        a = t.tensor(_data((4, 3), 11, 0.5), requires_grad=True)
        tau = t.tensor(_data((2,), 12, 0.5), requires_grad=True)
        c = t.tensor(_data((4, 2), 13), requires_grad=True)
        ga, gt = t.autograd.grad(_loss(t.linalg.householder_product(a, tau)), (a, tau),
                                 create_graph=True)
        gc, = t.autograd.grad(_loss(t.ormqr(a, tau[:2].expand(2), c[:, :2], True, True)), c,
                              create_graph=True)
        return t.autograd.grad(_loss(ga, gt, gc), (a, tau, c))
    same(program)


def test_householder_errors():
    def program(t):
        c = t.ones(4, 3, dtype=t.complex64)
        return [catch(t.linalg.householder_product, c, t.ones(3)),
                catch(t.linalg.householder_product, c, t.ones(4, dtype=t.complex64)),
                catch(t.linalg.householder_product, c[0], t.ones(3, dtype=t.complex64)),
                catch(t.ormqr, c, t.ones(3), t.ones(4, 2, dtype=t.complex64)),
                catch(t.ormqr, c, t.ones(3, dtype=t.complex64), t.ones(4, 2)),
                catch(t.ormqr, c, t.ones(3, dtype=t.complex64),
                      t.ones(4, 2, dtype=t.complex128)),
                catch(t.ormqr, c, t.ones(3, dtype=t.complex64), t.ones(3, 2, dtype=t.complex64)),
                catch(t.ormqr, t.ones(4, 3, dtype=t.int64), t.ones(3, dtype=t.int64),
                      t.ones(4, 2, dtype=t.int64)),
                catch(t.ormqr, t.ones(4, 3, dtype=t.bfloat16), t.ones(3, dtype=t.bfloat16),
                      t.ones(4, 2, dtype=t.bfloat16)),
                catch(t.linalg.householder_product, t.ones(4, 3, dtype=t.bfloat16),
                      t.ones(3, dtype=t.bfloat16)),
                catch(t.ormqr, t.ones(4, 3, dtype=t.float16), t.ones(3, dtype=t.float16),
                      t.ones(4, 2, dtype=t.float16)),
                catch(t.linalg.solve_triangular, t.eye(3, dtype=t.bfloat16),
                      t.ones(3, 1, dtype=t.bfloat16), upper=True)]
    same(program)


# -- LDL -----------------------------------------------------------------------------------------
def _sym(t, x, hermitian):
    return x + (x.mH if hermitian else x.mT)


@pytest.mark.parametrize("hermitian", [False, True])
@pytest.mark.parametrize("shape", [(1, 1), (4, 4), (2, 5, 5), (6, 6), (0, 3, 3), (2, 0, 0)],
                         ids=str)
@pytest.mark.parametrize("dtype", DTYPES + ["float64"])
def test_ldl_factor(dtype, shape, hermitian):
    """LAPACK's Bunch-Kaufman (hetrf for a Hermitian complex matrix, sytrf otherwise): the
    pivots and info exactly, LD as MKL's (torch's) up to rounding, column-major."""
    def program(t):
        d = getattr(t, dtype)
        x = _data(shape, 14)
        A = _sym(t, t.tensor(x if d.is_complex else x.real, dtype=d), hermitian)
        LD, piv, info = t.linalg.ldl_factor_ex(A, hermitian=hermitian)
        r = t.linalg.ldl_factor(A, hermitian=hermitian)
        return (LD, piv, info, LD.stride() if LD.numel() else None, type(r).__name__, r.LD,
                r.pivots)
    same(program)


@pytest.mark.parametrize("hermitian", [False, True])
@pytest.mark.parametrize("dtype", DTYPES)
def test_ldl_pivoting(dtype, hermitian):
    """Small diagonals force 2x2 pivots (negative pivots in LAPACK's convention); a
    non-symmetric input: only the lower triangle is read (hetrf: the diagonal's real part)."""
    def program(t):
        d = getattr(t, dtype)
        A = t.tensor(_data((5, 5), 15), dtype=d)
        A = _sym(t, A, hermitian) - t.diag_embed(_sym(t, A, hermitian).diagonal())
        plain = t.tensor(_data((4, 4), 16), dtype=d)
        return (tuple(t.linalg.ldl_factor_ex(A, hermitian=hermitian)),
                tuple(t.linalg.ldl_factor_ex(plain, hermitian=hermitian)))
    same(program)


@pytest.mark.parametrize("hermitian", [False, True])
@pytest.mark.parametrize("dtype", DTYPES)
def test_ldl_solve(dtype, hermitian):
    def program(t):
        d = getattr(t, dtype)
        A = _sym(t, t.tensor(_data((2, 4, 4), 17), dtype=d), hermitian)
        B = t.tensor(_data((2, 4, 3), 18), dtype=d)
        LD, piv = t.linalg.ldl_factor(A, hermitian=hermitian)
        X = t.linalg.ldl_solve(LD, piv, B, hermitian=hermitian)
        return (X, X.stride(), A @ X, t.linalg.ldl_solve(LD, piv.long(), B, hermitian=hermitian),
                t.linalg.ldl_solve(LD[0], piv[0], B, hermitian=hermitian))
    same(program)


def test_ldl_not_differentiable():
    def program(t):
        A = t.eye(3, dtype=t.complex128, requires_grad=True) * 2
        LD, piv = t.linalg.ldl_factor(A, hermitian=True)
        B = t.ones(3, 1, dtype=t.complex128, requires_grad=True)
        X = t.linalg.ldl_solve(LD.detach(), piv, B, hermitian=True)
        return (LD.grad_fn.name(), X.grad_fn.name(),
                catch(lambda: LD.abs().sum().backward()),
                catch(lambda: X.abs().sum().backward()))
    same(program)


def test_ldl_errors():
    def program(t):
        L3 = 2 * t.eye(3)
        p3 = t.arange(1, 4, dtype=t.int32)
        solve = t.linalg.ldl_solve
        return [catch(t.linalg.ldl_factor, t.eye(3, dtype=t.float16)),
                catch(t.linalg.ldl_factor_ex, t.eye(3, dtype=t.bfloat16)),
                catch(t.linalg.ldl_factor, t.eye(3, dtype=t.int64)),
                catch(solve, L3, p3, t.ones(3)),
                catch(solve, L3, p3, t.tensor(1.0)),
                catch(solve, L3, p3, t.ones(4, 2)),
                catch(solve, t.ones(3, 4), p3, t.ones(3, 2)),
                catch(solve, t.ones(3), p3, t.ones(3, 2)),
                catch(solve, L3, p3[:2], t.ones(3, 2)),
                catch(solve, L3, t.arange(1, 4, dtype=t.int8), t.ones(3, 2)),
                catch(solve, L3, t.ones(3, dtype=t.bool), t.ones(3, 2)),
                catch(solve, L3, t.ones(3), t.ones(3, 2)),
                catch(solve, L3.long(), p3, t.ones(3, 1, dtype=t.int32)),
                catch(solve, L3.half(), p3.long(), t.ones(3, 1).half()),
                catch(solve, L3.bfloat16(), p3, t.ones(3, 1).bfloat16()),
                catch(solve, L3.to(t.complex64), p3, t.ones(3, 1)),
                catch(solve, L3.expand(2, 3, 3), p3.expand(2, 3), t.ones(4, 3, 2)),
                solve(t.ones(0, 0), t.ones(0, dtype=t.int32), t.ones(0, 2))]
    same(program)


def test_ldl_solve_broadcasts():
    """Batch shapes that broadcast (torch 2.13's process crashes on them): the solutions are
    torch's for the batches expanded beforehand."""
    A = _data((2, 4, 4), 19)
    A = A + A.transpose(0, 2, 1).conj()
    B = _data((3, 1, 4, 2), 20)
    LD, piv = torch.linalg.ldl_factor(torch.tensor(A), hermitian=True)
    expected = torch.linalg.ldl_solve(LD.expand(3, 2, 4, 4), piv.expand(3, 2, 4),
                                      torch.tensor(B).expand(3, 2, 4, 2), hermitian=True)
    gLD, gpiv = gg.linalg.ldl_factor(gg.tensor(A), hermitian=True)
    got = gg.linalg.ldl_solve(gLD, gpiv, gg.tensor(B), hermitian=True)
    assert got.shape == gg.Size([3, 2, 4, 2]) and got.stride() == expected.stride()
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-10, atol=1e-12)
