"""torch.linalg on complex inputs, and linalg.eig/eigvals, against torch 2.13: values, dtypes,
strides-free results, grad_fn names and the gradients of real-valued losses (torch's
conjugate Wirtinger convention), errors with torch's text. torch computes every expectation."""
import numpy as np
import pytest
import torch

import glassgrad as gg
from differential import assert_same, catch, run

TOL = {"float32": (1e-4, 1e-5), "complex64": (1e-4, 1e-5), "float64": (1e-9, 1e-10),
       "complex128": (1e-9, 1e-10)}


def same(program, tol=TOL):
    expected = run(program, torch)
    assert_same(expected, run(program, gg), tol=tol)
    return expected


def _data(shape, seed=0, dtype="complex128"):
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, shape)
    if dtype.startswith("complex"):
        a = a + 1j * rng.uniform(-1, 1, shape)
    return a


def _well(t, x):
    """A well-conditioned square matrix (batch) from x."""
    return x + 3 * t.eye(x.shape[-1], dtype=x.dtype)


def _hpd(t, x):
    """A Hermitian positive-definite matrix from x."""
    return x @ x.mH + x.shape[-1] * t.eye(x.shape[-1], dtype=x.dtype)


def _herm(t, x):
    return x + x.mH


def _gauge(t, V):
    """V's columns each turned so their largest component is real and positive: MKL's geev
    (torch's) and the reference LAPACK's (NumPy's) may return a real matrix's eigenvector
    negated (about one matrix in five in float64, most in float32), both unit vectors."""
    k = V.abs().argmax(-2, keepdim=True)
    return V * V.gather(-2, k).sgn().conj()


def _abs(*outs):
    """A real loss of each output that a phase of singular/eigen vectors leaves alone."""
    return sum(o.abs().sum() for o in outs)


# name -> (program(t, A, B) -> tensor or tuple (each output's abs enters the loss), A's shape,
# B's shape or None)
SQ, B2 = (3, 3), (3, 2)
CASES = {
    "matmul": (lambda t, a, b: a @ b, SQ, B2),
    "mm": (lambda t, a, b: t.mm(a, b), SQ, B2),
    "bmm": (lambda t, a, b: t.bmm(a, b), (2, 3, 3), (2, 3, 2)),
    "det": (lambda t, a, b: t.linalg.det(a), SQ, None),
    "det_batched": (lambda t, a, b: t.linalg.det(a), (2, 3, 3), None),
    "slogdet": (lambda t, a, b: tuple(t.linalg.slogdet(_well(t, a))), SQ, None),
    "slogdet_sign": (lambda t, a, b: t.linalg.slogdet(a).sign.real, SQ, None),
    "logdet": (lambda t, a, b: t.logdet(_well(t, a)), SQ, None),
    "inv": (lambda t, a, b: t.linalg.inv(_well(t, a)), (2, 3, 3), None),
    "inv_ex": (lambda t, a, b: t.linalg.inv_ex(_well(t, a)).inverse, SQ, None),
    "solve": (lambda t, a, b: t.linalg.solve(_well(t, a), b), SQ, B2),
    "solve_vector": (lambda t, a, b: t.linalg.solve(_well(t, a), b[:, 0]), SQ, B2),
    "solve_right": (lambda t, a, b: t.linalg.solve(_well(t, a), b.mT, left=False), SQ, B2),
    "cholesky": (lambda t, a, b: t.linalg.cholesky(_hpd(t, a)), SQ, None),
    "cholesky_upper": (lambda t, a, b: t.linalg.cholesky(_hpd(t, a), upper=True), SQ, None),
    "qr": (lambda t, a, b: tuple(t.linalg.qr(a)), (4, 3), None),
    "qr_wide": (lambda t, a, b: tuple(t.linalg.qr(a)), (3, 4), None),
    "svd_S": (lambda t, a, b: t.linalg.svdvals(a), (4, 3), None),
    "svd": (lambda t, a, b: (lambda r: (r.S, r.U.abs(), r.Vh.abs(), (r.U * r.S.unsqueeze(-2))
                                        @ r.Vh))(t.linalg.svd(a, full_matrices=False)),
            (4, 3), None),
    "svd_wide": (lambda t, a, b: (lambda r: (r.S, r.U.abs(), r.Vh.abs()))(
        t.linalg.svd(a, full_matrices=False)), (3, 4), None),
    "eigh": (lambda t, a, b: (lambda r: (r.eigenvalues, r.eigenvectors.abs()))(
        t.linalg.eigh(_herm(t, a))), SQ, None),
    "eigvalsh": (lambda t, a, b: t.linalg.eigvalsh(_herm(t, a)), SQ, None),
    "eig": (lambda t, a, b: tuple(t.linalg.eig(a)), SQ, None),
    "eig_batched": (lambda t, a, b: tuple(t.linalg.eig(a)), (2, 3, 3), None),
    "eigvals": (lambda t, a, b: t.linalg.eigvals(a), (4, 4), None),
    "matrix_exp": (lambda t, a, b: t.linalg.matrix_exp(a), SQ, None),
    "matrix_power": (lambda t, a, b: t.linalg.matrix_power(_well(t, a), -2), SQ, None),
    "pinv": (lambda t, a, b: t.linalg.pinv(a), (4, 3), None),
    "lstsq": (lambda t, a, b: t.linalg.lstsq(a, b).solution, (4, 3), (4, 2)),
    "lstsq_residuals": (lambda t, a, b: tuple(t.linalg.lstsq(a, b, driver="gelsd")), (4, 3),
                        (4, 2)),
    "lstsq_vector": (lambda t, a, b: t.linalg.lstsq(a, b[:, 0]).solution, (4, 3), (4, 2)),
    "lu_factor": (lambda t, a, b: tuple(t.linalg.lu_factor(a))[0], SQ, None),
    "lu": (lambda t, a, b: tuple(t.linalg.lu(a)), SQ, None),
    "lu_solve": (lambda t, a, b: t.linalg.lu_solve(*t.linalg.lu_factor(_well(t, a)), b),
                 SQ, B2),
    "lu_solve_right": (lambda t, a, b: t.linalg.lu_solve(*t.linalg.lu_factor(_well(t, a)), b.mT,
                                                         left=False), SQ, B2),
    "lu_solve_adjoint": (lambda t, a, b: t.linalg.lu_solve(*t.linalg.lu_factor(_well(t, a)), b,
                                                           adjoint=True), SQ, B2),
    "lu_solve_right_adjoint": (lambda t, a, b: t.linalg.lu_solve(
        *t.linalg.lu_factor(_well(t, a)), b.mT, left=False, adjoint=True), SQ, B2),
    "lu_solve_old": (lambda t, a, b: t.lu_solve(b, *t.linalg.lu_factor(_well(t, a))), SQ, B2),
    "solve_triangular": (lambda t, a, b: t.linalg.solve_triangular(_well(t, a).triu(), b,
                                                                   upper=True), SQ, B2),
    "norm": (lambda t, a, b: t.linalg.norm(a), SQ, None),
    "vector_norm": (lambda t, a, b: t.linalg.vector_norm(a, 3), SQ, None),
    "matrix_norm": (lambda t, a, b: t.linalg.matrix_norm(a), SQ, None),
    "matrix_norm_1": (lambda t, a, b: t.linalg.matrix_norm(a, 1), SQ, None),
    "matrix_norm_2": (lambda t, a, b: t.linalg.matrix_norm(a, 2), SQ, None),
    "matrix_norm_nuc": (lambda t, a, b: t.linalg.matrix_norm(a, "nuc"), SQ, None),
    "matrix_norm_inf": (lambda t, a, b: t.linalg.matrix_norm(a, -float("inf")), (2, 3, 4),
                        None),
    "matrix_norm_m2": (lambda t, a, b: t.linalg.matrix_norm(a, -2, keepdim=True), (2, 3, 4),
                       None),
    "norm_ord": (lambda t, a, b: t.linalg.norm(a, "nuc"), SQ, None),
    "norm_vector": (lambda t, a, b: t.linalg.norm(a[0], 1), SQ, None),
    "cond": (lambda t, a, b: t.linalg.cond(_well(t, a)), SQ, None),
    "cond_fro": (lambda t, a, b: t.linalg.cond(_well(t, a), "fro"), SQ, None),
    "matrix_rank": (lambda t, a, b: t.linalg.matrix_rank(a).float(), SQ, None),
    "multi_dot": (lambda t, a, b: t.linalg.multi_dot([a, a, b]), SQ, B2),
    "vecdot": (lambda t, a, b: t.linalg.vecdot(a, a.exp()), SQ, None),
    "vdot": (lambda t, a, b: t.vdot(a[0], a[1]), SQ, None),
    "einsum": (lambda t, a, b: t.einsum("ij,jk->ik", a, b), SQ, B2),
    "tensorinv": (lambda t, a, b: t.linalg.tensorinv(_well(t, a), 1), SQ, None),
    "cholesky_solve": (lambda t, a, b: t.cholesky_solve(b, t.linalg.cholesky(_hpd(t, a))),
                       SQ, B2),
    "svd_old": (lambda t, a, b: t.svd(a).S, (4, 3), None),
    "cholesky_old": (lambda t, a, b: t.cholesky(_hpd(t, a), upper=True), SQ, None),
    "cholesky_inverse": (lambda t, a, b: t.cholesky_inverse(t.linalg.cholesky(_hpd(t, a))),
                         SQ, None),
    "cholesky_inverse_upper": (lambda t, a, b: t.cholesky_inverse(
        t.linalg.cholesky(_hpd(t, a), upper=True), upper=True), SQ, None),
    "cholesky_solve_upper": (lambda t, a, b: t.cholesky_solve(
        b, t.linalg.cholesky(_hpd(t, a), upper=True), upper=True), SQ, B2),
    "triangular_solve": (lambda t, a, b: tuple(t.triangular_solve(b, _well(t, a).tril(),
                                                                  upper=False)), SQ, B2),
    "triangular_solve_transpose": (lambda t, a, b: t.triangular_solve(
        b, _well(t, a).triu(), transpose=True).solution, SQ, B2),
    "solve_triangular_right": (lambda t, a, b: t.linalg.solve_triangular(
        _well(t, a).tril(), b.mT, upper=False, left=False, unitriangular=True), SQ, B2),
    "lu_wide": (lambda t, a, b: tuple(t.linalg.lu(a)), (3, 4), None),
    "lu_factor_ex": (lambda t, a, b: tuple(t.linalg.lu_factor_ex(a))[:2], (4, 3), None),
    "lu_unpack": (lambda t, a, b: tuple(t.lu_unpack(*t.linalg.lu_factor(a))), SQ, None),
    "qr_complete": (lambda t, a, b: tuple(t.linalg.qr(a, mode="complete")), (3, 4), None),
    "svd_full": (lambda t, a, b: (lambda r: (r.S, r.U @ t.diag_embed(r.S + 0j) @ r.Vh))(
        t.linalg.svd(a)), SQ, None),
    "pinverse": (lambda t, a, b: t.pinverse(a), (3, 4), None),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_values_and_gradients(name, dtype):
    fn, sa, sb = CASES[name]

    def program(t):
        d = getattr(t, dtype)
        a = t.tensor(_data(sa, 0), dtype=d, requires_grad=True)
        b = t.tensor(_data(sb, 1), dtype=d, requires_grad=True) if sb else None
        out = fn(t, a, b)
        outs = out if isinstance(out, tuple) else (out,)
        grads = t.autograd.grad(_abs(*outs), [a] + ([b] if sb else []), allow_unused=True)
        return [o.detach() for o in outs], [type(o.grad_fn).__name__ for o in outs], grads
    same(program)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (5, 5)])
def test_eig_of_real_matrices(dtype, shape):
    """Real inputs: complex outputs (conjugate pairs), LAPACK's normalisation and phase (the
    values themselves, not only up to a phase), gradients of real losses."""
    def program(t):
        a = t.tensor(_data(shape, 2, dtype), dtype=getattr(t, dtype), requires_grad=True)
        r = t.linalg.eig(a)
        loss = r.eigenvalues.abs().sum() + (r.eigenvectors.abs() ** 3).sum()
        gv, = t.autograd.grad(t.linalg.eigvals(a).real.sum(), a)
        with t.no_grad():
            plain = t.linalg.eigvals(a)
        return (type(r).__name__, r.eigenvalues, _gauge(t, r.eigenvectors),
                r.eigenvalues.grad_fn.name(), t.autograd.grad(loss, a), gv, plain,
                t.linalg.eigvals(a).grad_fn.name(), r.eigenvectors.stride())
    same(program)


def test_eig_symmetric_and_product():
    def program(t):
        a = t.tensor(_data((4, 4), 5), requires_grad=True)
        L, V = t.linalg.eig(a)
        rebuilt = V @ t.diag_embed(L) @ t.linalg.inv(V)     # A again: gauge-free
        g, = t.autograd.grad(rebuilt.real.sum() + L.imag.sum(), a)
        s = t.tensor(_data((3, 3), 6, "float64"))
        sym = t.linalg.eig(s + s.T)
        return (rebuilt, g, sym.eigenvalues, _gauge(t, sym.eigenvectors),
                t.linalg.eigvals(t.eye(3)))
    same(program)


def test_eig_gauge_dependent_loss_refused():
    def program(t):
        a = t.tensor([[1.0, -1.0], [1.0, 1.0]], requires_grad=True)
        c = t.tensor(_data((3, 3), 7), requires_grad=True)
        return (catch(lambda: t.linalg.eig(a).eigenvectors.real.sum().backward()),
                catch(lambda: t.linalg.eig(a).eigenvectors.imag.sum().backward()),
                catch(lambda: t.linalg.eig(c).eigenvectors.sum().abs().backward()),
                a.grad)
    same(program)


def test_eig_errors_and_edges():
    def program(t):
        return [catch(t.linalg.eig, t.ones(3)), catch(t.linalg.eig, t.ones(3, 2)),
                catch(t.linalg.eigvals, t.ones(3, 2)),
                catch(t.linalg.eig, t.ones(3, 3, dtype=t.int64)),
                catch(t.linalg.eigvals, t.ones(3, 3, dtype=t.int64)),
                catch(t.linalg.eig, t.ones(3, 3, dtype=t.float16)),
                catch(t.linalg.eig, t.ones(3, 3, dtype=t.bfloat16)),
                catch(t.linalg.eig, t.full((3, 3), float("nan"))),
                catch(t.linalg.eig, t.full((2, 2), float("inf"))),
                catch(lambda: t.ones(3, 3).eig()),
                tuple(t.linalg.eig(t.ones(2, 2, 0, 0))),
                t.linalg.eigvals(t.ones(2, 0, 0).double()),
                tuple(t.linalg.eig(t.ones(1, 1, dtype=t.complex64) * 2j))]
    same(program)


def test_eig_saved_tensors():
    def program(t):
        a = t.tensor(_data((3, 3), 8, "float64"), requires_grad=True)
        fn = t.linalg.eig(a).eigenvalues.grad_fn
        return (fn._saved_eigenvalues, fn._saved_eigenvectors,
                [n for n in dir(fn) if n.startswith("_saved_")])
    same(program)


def test_eig_forward_ad_refused():
    """eig's tangents are complex: glassgrad's forward mode has no complex tangent rules."""
    fw = gg.autograd.forward_ad
    with fw.dual_level():
        x = fw.make_dual(gg.eye(3, dtype=gg.float64) + gg.ones(3, 3), gg.ones(3, 3).double())
        with pytest.raises(NotImplementedError, match="complex tangent rules"):
            gg.linalg.eig(x)


SECOND = {
    "inv": lambda t, a: t.linalg.inv(_well(t, a)).abs().sum(),
    "det": lambda t, a: t.linalg.det(_well(t, a)).abs(),
    "solve": lambda t, a: t.linalg.solve(_well(t, a), a[:, :1]).abs().sum(),
    "lu_solve_adjoint": lambda t, a: t.linalg.lu_solve(
        *t.linalg.lu_factor(_well(t, a)), a[:, :2], adjoint=True).abs().sum(),
    "lu_solve_right_adjoint": lambda t, a: t.linalg.lu_solve(
        *t.linalg.lu_factor(_well(t, a)), a[:2], left=False, adjoint=True).abs().sum(),
    "svdvals": lambda t, a: t.linalg.svdvals(a).sum(),
    "eigvals": lambda t, a: t.linalg.eigvals(a).abs().sum(),
    "cholesky": lambda t, a: t.linalg.cholesky(_hpd(t, a)).abs().sum(),
    "eigvalsh": lambda t, a: t.linalg.eigvalsh(_herm(t, a)).pow(2).sum(),
}


@pytest.mark.parametrize("name", sorted(SECOND))
def test_double_backward(name):
    def program(t):
        a = t.tensor(_data((3, 3), 9), requires_grad=True)
        g, = t.autograd.grad(SECOND[name](t, a), a, create_graph=True)
        return g, t.autograd.grad(g.abs().sum(), a)
    same(program)


@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 4), (3, 3)])
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_geqrf(shape, dtype):
    """zgeqrf's packed reflectors and scalars (torch has no derivative for geqrf)."""
    def program(t):
        a = t.tensor(_data(shape, 4), dtype=getattr(t, dtype))
        r = t.geqrf(a)
        return (r.a, r.tau, r.a.stride(), catch(t.geqrf, a.requires_grad_()))
    same(program)


@pytest.mark.parametrize("dtype", ["float64", "complex128", "float32", "complex64"])
def test_eig_conventions_over_random_matrices(dtype):
    """What docs/linalg.md states, over 40 random matrices: in double precision the
    eigenvalues come in torch's order; a complex matrix's eigenvectors are torch's as they are
    (geev makes the largest component real and positive), a real matrix's up to a sign per
    column (MKL's dgeev/sgeev and NumPy's LAPACK differ there); in single precision MKL may
    order the eigenvalues otherwise (then the same set)."""
    rng = np.random.default_rng(11)
    single = dtype in ("float32", "complex64")
    tol = 1e-4 if single else 1e-9
    reordered = 0
    for _ in range(40):
        n = int(rng.integers(2, 9))
        a = rng.standard_normal((n, n))
        a = (a + 1j * rng.standard_normal((n, n)) if dtype.startswith("complex") else a)
        a = a.astype(dtype)
        Lt, Vt = (x.numpy() for x in torch.linalg.eig(torch.from_numpy(a)))
        Lg, Vg = (x.numpy() for x in gg.linalg.eig(gg.tensor(a)))
        if not np.allclose(Lg, Lt, rtol=tol, atol=tol):
            assert single
            key = lambda L: np.lexsort((L.imag.round(3), L.real.round(3)))   # noqa: E731
            np.testing.assert_allclose(Lg[key(Lg)], Lt[key(Lt)], rtol=tol, atol=tol)
            reordered += 1
            continue
        if dtype.startswith("complex"):
            np.testing.assert_allclose(Vg, Vt, rtol=10 * tol, atol=10 * tol)
        else:
            signs = np.sum(Vt.conj() * Vg, 0)       # each column: +1 or -1
            np.testing.assert_allclose(np.abs(signs), 1, atol=10 * tol)
            np.testing.assert_allclose(signs.imag, 0, atol=10 * tol)
    assert reordered <= 10 if single else reordered == 0
