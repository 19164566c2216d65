"""torch.linalg's solvers beyond their op-table cases (opinfo.py's SOLVERS, run by
test_op_table.py): errors (type and text), the _ex variants' info and what LAPACK leaves in a
failed factorization, forward-only programs (torch's own backward refuses their graphs),
named tuples, out=, deprecation warnings and the functions torch removed. torch computes every
expectation."""
import warnings

import numpy as np
import pytest
import torch

import glassgrad as gg
from optable import assert_same, compare_values, outcome

SING = [[1., 2, 3], [2, 4, 6], [1, 1, 1]]


def _t(t, *shape, dtype=None, **kw):
    data = np.random.default_rng(3).uniform(-1, 1, shape)
    return t.tensor(data, dtype=dtype or t.float64, **kw)


def _lu(t, n=3):
    return t.linalg.lu_factor(_t(t, n, n) + 3 * t.eye(n, dtype=t.float64))


ERRORS = {
    "solve_triangular_1d": lambda t: t.linalg.solve_triangular(t.eye(3), t.ones(3), upper=True),
    "solve_triangular_nonsquare": lambda t: t.linalg.solve_triangular(
        t.ones(3, 4), t.ones(3, 2), upper=True),
    "solve_triangular_shapes": lambda t: t.linalg.solve_triangular(t.eye(3), t.ones(4, 2),
                                                                   upper=True),
    "solve_triangular_right_shapes": lambda t: t.linalg.solve_triangular(
        t.eye(3), t.ones(3, 2), upper=True, left=False),
    "solve_triangular_long": lambda t: t.linalg.solve_triangular(
        t.eye(3).long(), t.ones(3, 2).long(), upper=True),
    "solve_triangular_no_upper": lambda t: t.linalg.solve_triangular(t.eye(3), t.ones(3, 2)),
    "solve_triangular_batch": lambda t: t.linalg.solve_triangular(
        t.ones(2, 3, 3), t.ones(3, 3, 2), upper=True),
    "triangular_solve_1d": lambda t: t.triangular_solve(t.ones(3), t.eye(3)),
    "triangular_solve_shapes": lambda t: t.triangular_solve(t.ones(4, 2), t.eye(3)),
    "triangular_solve_nonsquare": lambda t: t.triangular_solve(t.ones(3, 2), t.ones(3, 4)),
    "triangular_solve_dtypes": lambda t: t.triangular_solve(t.ones(3, 2), t.eye(3).double()),
    "lu_factor_1d": lambda t: t.linalg.lu_factor(t.ones(3)),
    "lu_factor_long": lambda t: t.linalg.lu_factor(t.ones(3, 3).long()),
    "lu_factor_singular": lambda t: t.linalg.lu_factor(t.zeros(3, 3)),
    "lu_factor_singular_batch": lambda t: t.linalg.lu_factor(t.stack([t.eye(3),
                                                                      t.zeros(3, 3)])),
    "lu_factor_no_pivot": lambda t: t.linalg.lu_factor(t.eye(3), pivot=False),
    "lu_factor_ex_check": lambda t: t.linalg.lu_factor_ex(t.zeros(3, 3), check_errors=True),
    "lu_factor_ex_check_batch": lambda t: t.linalg.lu_factor_ex(
        t.stack([t.eye(3), t.zeros(3, 3)]), check_errors=True),
    "lu_no_pivot": lambda t: t.linalg.lu(t.eye(3), pivot=False),
    "lu_long": lambda t: t.linalg.lu(t.eye(3).long()),
    "lu_solve_shapes": lambda t: t.linalg.lu_solve(*_lu(t), t.ones(4, 2).double()),
    "lu_solve_right_shapes": lambda t: t.linalg.lu_solve(*_lu(t), t.ones(3, 2).double(),
                                                         left=False),
    "lu_solve_pivots_dtype": lambda t: t.linalg.lu_solve(t.eye(3), t.ones(3).long(),
                                                         t.ones(3, 2)),
    "lu_solve_dtypes": lambda t: t.linalg.lu_solve(*_lu(t), t.ones(3, 2)),
    "lu_solve_B_1d": lambda t: t.linalg.lu_solve(*_lu(t), t.ones(3).double()),
    "lu_solve_nonsquare": lambda t: t.linalg.lu_solve(t.ones(3, 4), t.ones(3, dtype=t.int32),
                                                      t.ones(3, 2)),
    "lu_solve_pivots_shape": lambda t: t.linalg.lu_solve(t.eye(3), t.ones(2, dtype=t.int32),
                                                         t.ones(3, 2)),
    "lu_unpack_pivots_dtype": lambda t: t.lu_unpack(t.eye(3), t.ones(3).long()),
    "cholesky_ex_check": lambda t: t.linalg.cholesky_ex(-t.eye(3), check_errors=True),
    "cholesky_ex_check_batch": lambda t: t.linalg.cholesky_ex(t.stack([t.eye(3), -t.eye(3)]),
                                                              check_errors=True),
    "inv_ex_check": lambda t: t.linalg.inv_ex(t.zeros(3, 3), check_errors=True),
    "inv_ex_check_batch": lambda t: t.linalg.inv_ex(t.stack([t.eye(3), t.zeros(3, 3)]),
                                                    check_errors=True),
    "solve_ex_check": lambda t: t.linalg.solve_ex(t.zeros(3, 3), t.ones(3), check_errors=True),
    "cholesky_not_pd": lambda t: t.cholesky(-t.eye(3)),
    "cholesky_long": lambda t: t.cholesky(t.eye(3).long()),
    "cholesky_solve_1d": lambda t: t.cholesky_solve(t.ones(3), t.eye(3)),
    "cholesky_solve_dtypes": lambda t: t.cholesky_solve(t.ones(3, 2), t.eye(3).double()),
    "cholesky_solve_shapes": lambda t: t.cholesky_solve(t.ones(4, 2), t.eye(3)),
    "cholesky_inverse_1d": lambda t: t.cholesky_inverse(t.ones(3)),
    "cholesky_inverse_nonsquare": lambda t: t.cholesky_inverse(t.ones(3, 4)),
    "cholesky_inverse_long": lambda t: t.cholesky_inverse(t.ones(3, 3).long()),
    "matrix_exp_nonsquare": lambda t: t.linalg.matrix_exp(t.ones(3, 4)),
    "matrix_exp_1d": lambda t: t.linalg.matrix_exp(t.ones(3)),
    "matrix_exp_long": lambda t: t.linalg.matrix_exp(t.ones(3, 3).long()),
    "matrix_power_nonsquare": lambda t: t.linalg.matrix_power(t.ones(3, 4), 2),
    "matrix_power_1d": lambda t: t.linalg.matrix_power(t.ones(3), 2),
    "matrix_power_long_negative": lambda t: t.linalg.matrix_power(t.ones(3, 3).long(), -1),
    "matrix_power_singular_negative": lambda t: t.linalg.matrix_power(t.zeros(3, 3), -1),
    "multi_dot_one": lambda t: t.linalg.multi_dot([t.ones(3, 3)]),
    "multi_dot_first_3d": lambda t: t.linalg.multi_dot([t.ones(2, 3, 3), t.ones(3, 3)]),
    "multi_dot_last_3d": lambda t: t.linalg.multi_dot([t.ones(3, 3), t.ones(2, 3, 3)]),
    "multi_dot_middle_1d": lambda t: t.linalg.multi_dot([t.ones(3, 3), t.ones(3),
                                                         t.ones(3, 3)]),
    "multi_dot_shapes": lambda t: t.linalg.multi_dot([t.ones(3, 3), t.ones(4, 3)]),
    "multi_dot_dtypes": lambda t: t.linalg.multi_dot([t.ones(3, 3), t.ones(3, 3).double()]),
    "multi_dot_empty": lambda t: t.linalg.multi_dot([]),
    "vecdot_dtypes": lambda t: t.linalg.vecdot(t.ones(3), t.ones(3).double()),
    "vecdot_shapes": lambda t: t.linalg.vecdot(t.ones(3), t.ones(4)),
    "vander_0d": lambda t: t.linalg.vander(t.tensor(1.)),
    "vander_N1": lambda t: t.linalg.vander(t.ones(3), N=1),
    "vander_N0": lambda t: t.linalg.vander(t.ones(3), N=0),
    "vander_old_2d": lambda t: t.vander(t.ones(2, 3)),
    "vander_old_negative": lambda t: t.vander(t.ones(3), -1),
    "matrix_rank_long": lambda t: t.linalg.matrix_rank(t.ones(3, 3).long()),
    "matrix_rank_1d": lambda t: t.linalg.matrix_rank(t.ones(3)),
    "cond_1d": lambda t: t.linalg.cond(t.ones(3)),
    "cond_long": lambda t: t.linalg.cond(t.ones(3, 3).long()),
    "cond_nonsquare_1": lambda t: t.linalg.cond(t.ones(3, 4), 1),
    "cond_bad_p": lambda t: t.linalg.cond(t.ones(3, 3), 3),
    "cond_bad_name": lambda t: t.linalg.cond(t.ones(3, 3), "foo"),
    "tensorinv_ind0": lambda t: t.linalg.tensorinv(t.ones(3, 3), 0),
    "tensorinv_shape": lambda t: t.linalg.tensorinv(t.ones(2, 3), 1),
    "tensorsolve_shape": lambda t: t.linalg.tensorsolve(t.ones(2, 3, 6), t.ones(2, 2)),
    "addr_2d": lambda t: t.addr(t.ones(3, 4), t.ones(3, 1), t.ones(4)),
    "addr_input": lambda t: t.addr(t.ones(2, 4), t.ones(3), t.ones(4)),
    "addbmm_2d": lambda t: t.addbmm(t.ones(3, 4), t.ones(3, 5), t.ones(2, 5, 4)),
    "addbmm_batches": lambda t: t.addbmm(t.ones(3, 4), t.ones(2, 3, 5), t.ones(3, 5, 4)),
    "addbmm_inner": lambda t: t.addbmm(t.ones(3, 4), t.ones(2, 3, 5), t.ones(2, 6, 4)),
    "addbmm_input": lambda t: t.addbmm(t.ones(2, 4), t.ones(2, 3, 5), t.ones(2, 5, 4)),
    "addbmm_dtypes": lambda t: t.addbmm(t.ones(3, 4), t.ones(2, 3, 5),
                                        t.ones(2, 5, 4).double()),
    "ger_2d": lambda t: t.ger(t.ones(3, 1), t.ones(3)),
    "frobenius_norm_dims": lambda t: t.frobenius_norm(t.ones(3, 4), (0, 1, 1)),
    "nuclear_norm_dims": lambda t: t.nuclear_norm(t.ones(3, 4), (0,)),
    "lstsq_driver": lambda t: t.linalg.lstsq(t.ones(3, 3), t.ones(3, 2), driver="foo"),
    "lstsq_rows": lambda t: t.linalg.lstsq(t.ones(3, 3), t.ones(4, 2)),
    "lstsq_rows_vector": lambda t: t.linalg.lstsq(t.ones(3, 3), t.ones(4)),
    "lstsq_dtypes": lambda t: t.linalg.lstsq(t.ones(3, 3), t.ones(3, 2).double()),
    "lstsq_1d": lambda t: t.linalg.lstsq(t.ones(3), t.ones(3)),
    "lstsq_long": lambda t: t.linalg.lstsq(t.ones(3, 3).long(), t.ones(3, 2).long()),
    "lstsq_dims": lambda t: t.linalg.lstsq(t.ones(3, 3), t.ones(2, 2, 3, 2)),
    "householder_product_1d": lambda t: t.linalg.householder_product(t.ones(3), t.ones(3)),
    "householder_product_wide": lambda t: t.linalg.householder_product(t.ones(2, 3),
                                                                       t.ones(3)),
    "householder_product_tau_long": lambda t: t.linalg.householder_product(t.ones(4, 3),
                                                                           t.ones(4)),
    "householder_product_tau_ndim": lambda t: t.linalg.householder_product(t.ones(4, 3),
                                                                           t.ones(2, 3)),
    "householder_product_dtypes": lambda t: t.linalg.householder_product(
        t.ones(4, 3), t.ones(3).double()),
    "orgqr_long": lambda t: t.orgqr(t.ones(4, 3).long(), t.ones(3).long()),
    "ormqr_rows": lambda t: t.ormqr(t.ones(4, 3), t.ones(3), t.ones(3, 2)),
    "ormqr_tau": lambda t: t.ormqr(t.ones(4, 3), t.ones(5), t.ones(4, 2)),
    "ormqr_1d": lambda t: t.ormqr(t.ones(3), t.ones(3), t.ones(4, 2)),
    "ormqr_right_tau": lambda t: t.ormqr(t.ones(2, 4, 3), t.ones(2, 2), t.ones(2, 5, 4), False),
    "geqrf_1d": lambda t: t.geqrf(t.ones(3)),
    "geqrf_long": lambda t: t.geqrf(t.ones(3, 3).long()),
    "geqrf_backward": lambda t: t.geqrf(_t(t, 3, 3, requires_grad=True))[0].sum().backward(),
    "ldl_factor_1d": lambda t: t.linalg.ldl_factor(t.ones(3)),
    "ldl_factor_nonsquare": lambda t: t.linalg.ldl_factor_ex(t.ones(2, 3)),
    "ldl_factor_long": lambda t: t.linalg.ldl_factor(t.ones(3, 3).long()),
    "ldl_factor_singular": lambda t: t.linalg.ldl_factor(t.zeros(3, 3)),
    "ldl_factor_ex_check": lambda t: t.linalg.ldl_factor_ex(t.zeros(3, 3), check_errors=True),
    "ldl_factor_backward": lambda t: t.linalg.ldl_factor(2 * t.eye(3, requires_grad=True))
    .LD.sum().backward(),
    "ldl_solve_backward": lambda t: t.linalg.ldl_solve(*t.linalg.ldl_factor(2 * t.eye(3)),
                                                       t.ones(3, 2, requires_grad=True))
    .sum().backward(),
    "ldl_solve_dtypes": lambda t: t.linalg.ldl_solve(*t.linalg.ldl_factor(2 * t.eye(3)),
                                                     t.ones(3, 2).double()),
    "removed_solve": lambda t: t.solve(t.eye(2), t.eye(2)),
    "removed_lstsq": lambda t: t.lstsq(t.eye(2), t.eye(2)),
    "removed_symeig": lambda t: t.symeig(t.eye(2)),
    "removed_eig": lambda t: t.eig(t.eye(2)),
    "removed_symeig_method": lambda t: t.eye(2).symeig(),
    "removed_lstsq_method": lambda t: t.eye(2).lstsq(t.eye(2)),
    "removed_solve_method": lambda t: t.eye(2).solve(t.eye(2)),
    "removed_eig_method": lambda t: t.eye(2).eig(),
    "removed_matrix_rank": lambda t: t.matrix_rank(t.eye(2)),
    "cond_1_backward": lambda t: t.linalg.cond(_t(t, 3, 3, requires_grad=True) + 3 * t.eye(3),
                                               1).backward(),
}


@pytest.mark.parametrize("f", ERRORS.values(), ids=ERRORS.keys())
def test_errors(f):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref, ref_err = outcome(lambda: f(torch))
        got, got_err = outcome(lambda: f(gg))
    assert ref_err is not None, "torch accepted this case"
    assert got_err == ref_err


def _stack(t, *mats):
    return t.stack([t.tensor(m) if isinstance(m, list) else m for m in mats])


# programs compared by value only: failed factorizations (what LAPACK leaves and the info),
# singular inputs, and programs whose backward torch itself refuses
VALUES = {
    "inv_ex_singular": lambda t: tuple(t.linalg.inv_ex(_stack(t, t.zeros(3, 3), t.eye(3),
                                                              SING))),
    "solve_ex_singular": lambda t: tuple(t.linalg.solve_ex(t.tensor(SING), t.ones(3, 2))),
    "solve_ex_singular_vector": lambda t: tuple(t.linalg.solve_ex(t.tensor(SING), t.ones(3))),
    "cholesky_ex_not_pd": lambda t: tuple(t.linalg.cholesky_ex(t.tensor([[4., 2, 1], [2, 1, 3],
                                                                        [1, 3, 5]]))),
    "cholesky_ex_not_pd_batch_upper": lambda t: tuple(t.linalg.cholesky_ex(_stack(
        t, t.diag(t.tensor([4., 2, -1])), -t.eye(3), 2 * t.eye(3)), upper=True)),
    "lu_factor_ex_singular": lambda t: tuple(t.linalg.lu_factor_ex(t.tensor(SING))),
    "lu_factor_ex_zeros_batch": lambda t: tuple(t.linalg.lu_factor_ex(t.zeros(2, 3, 4))),
    "lu_singular": lambda t: tuple(t.linalg.lu(t.tensor(SING))),
    "cond_1": lambda t: t.linalg.cond(t.tensor([[2., 1, 0], [1, 3, 1], [0, 1, 4]]), 1),
    "cond_fro": lambda t: t.linalg.cond(t.tensor([[2., 1, 0], [1, 3, 1], [0, 1, 4]]), "fro"),
    "cond_-inf": lambda t: t.linalg.cond(t.tensor([[2., 1, 0], [1, 3, 1], [0, 1, 4]]),
                                         -float("inf")),
    "cond_inf_singular": lambda t: t.linalg.cond(_stack(t, t.zeros(3, 3), t.eye(3), SING),
                                                 float("inf")),
    "cond_nuc_singular": lambda t: t.linalg.cond(_stack(t, t.zeros(3, 3), t.eye(3)), "nuc"),
    "cond_singular": lambda t: t.linalg.cond(_stack(t, t.zeros(3, 3), t.eye(3))),
    "vander_old": lambda t: t.vander(t.tensor([1., 2, 3])),
    "vander_old_int_increasing": lambda t: t.vander(t.tensor([1, 2, 3]), 4, True),
    "vander_old_N0": lambda t: t.vander(t.tensor([1., 2, 3]), 0),
    "vander_N_int": lambda t: t.linalg.vander(t.tensor([1, 2, 3]), N=4),
    "matrix_rank": lambda t: t.linalg.matrix_rank(_t(t, 3, 4)),
    "matrix_rank_zeros": lambda t: t.linalg.matrix_rank(t.zeros(2, 3, 3)),
    "matrix_rank_deficient": lambda t: t.linalg.matrix_rank(t.tensor(SING)),
    "matrix_rank_hermitian_atol": lambda t: t.linalg.matrix_rank(
        _t(t, 3, 3) + _t(t, 3, 3).mT, hermitian=True, atol=0.5),
    "matrix_rank_tol": lambda t: t.linalg.matrix_rank(_t(t, 3, 4), 0.3),
    "matrix_rank_rtol": lambda t: t.linalg.matrix_rank(_t(t, 2, 3, 4), rtol=0.5),
    "matrix_rank_tensor_atol": lambda t: t.linalg.matrix_rank(_t(t, 2, 3, 4),
                                                              atol=t.tensor([0.1, 0.9])),
    "lstsq_rank_deficient": lambda t: tuple(t.linalg.lstsq(t.ones(4, 3), _t(t, 4, 2))),
    "lstsq_rank_deficient_gelsd": lambda t: tuple(t.linalg.lstsq(t.ones(4, 3), _t(t, 4, 2),
                                                                 driver="gelsd")),
    "lstsq_rcond": lambda t: tuple(t.linalg.lstsq(_t(t, 5, 3), _t(t, 5, 2), rcond=0.9,
                                                  driver="gelss")),
    "geqrf": lambda t: tuple(t.geqrf(_t(t, 2, 3, 5))),
    "householder_product_of_geqrf": lambda t: t.linalg.householder_product(*t.geqrf(
        _t(t, 4, 3))),
    "ormqr_of_geqrf": lambda t: t.ormqr(*t.geqrf(_t(t, 4, 4)), _t(t, 4, 2)),
    "matrix_power_empty": lambda t: t.linalg.matrix_power(t.ones(0, 0), 3),
    "lu_factor_empty": lambda t: tuple(t.linalg.lu_factor_ex(t.ones(2, 0, 0))),
    "solve_triangular_singular": lambda t: t.linalg.solve_triangular(t.tensor(SING).triu(),
                                                                     t.ones(3, 1), upper=True),
    "solve_triangular_promotes": lambda t: t.linalg.solve_triangular(
        t.eye(3), t.ones(3, 2).double(), upper=True),
    "lu_old_singular": lambda t: t.lu(t.zeros(2, 2)),
    "ldl_factor_ex": lambda t: tuple(t.linalg.ldl_factor_ex(_t(t, 2, 3, 3) + _t(t, 2, 3, 3).mT)),
    "ldl_factor_hermitian": lambda t: tuple(t.linalg.ldl_factor(_t(t, 4, 4) + _t(t, 4, 4).mT,
                                                                hermitian=True)),
    "ldl_factor_ex_singular": lambda t: tuple(t.linalg.ldl_factor_ex(t.zeros(3, 3))),
    "ldl_solve": lambda t: t.linalg.ldl_solve(*t.linalg.ldl_factor(_t(t, 2, 3, 3) +
                                                                   _t(t, 2, 3, 3).mT),
                                              _t(t, 3, 2)),
    "nuclear_norm_batched": lambda t: t.nuclear_norm(_t(t, 2, 3, 4)),
    "ger": lambda t: t.ger(t.tensor([1, 2]), t.tensor([3, 4, 5])),
    "addr_ints": lambda t: t.addr(t.ones(2, 3, dtype=t.int64), t.tensor([1, 2]),
                                  t.tensor([3, 4, 5]), beta=2, alpha=3),
    "addr_promotes": lambda t: t.addr(t.ones(2, 3), t.tensor([1., 2], dtype=t.float64),
                                      t.tensor([3., 4, 5])),
}


@pytest.mark.parametrize("f", VALUES.values(), ids=VALUES.keys())
def test_values(f):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compare_values(f)


def test_named_tuples():
    a = np.random.default_rng(2).uniform(-1, 1, (3, 3)) + 3 * np.eye(3)
    progs = [lambda t, x: t.linalg.lu_factor(x), lambda t, x: t.linalg.lu_factor_ex(x),
             lambda t, x: t.linalg.lu(x), lambda t, x: t.lu_unpack(*t.linalg.lu_factor(x)),
             lambda t, x: t.triangular_solve(x[:, :2], x),
             lambda t, x: t.linalg.cholesky_ex(x @ x.mT), lambda t, x: t.linalg.inv_ex(x),
             lambda t, x: t.linalg.solve_ex(x, x[0]),
             lambda t, x: t.linalg.lstsq(2 * t.eye(3, dtype=x.dtype), x),
             lambda t, x: t.geqrf(x), lambda t, x: t.linalg.ldl_factor(x + x.mT),
             lambda t, x: t.linalg.ldl_factor_ex(x + x.mT), lambda t, x: t.lu(x, get_infos=True)]
    for f in progs:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref, got = f(torch, torch.tensor(a)), f(gg, gg.tensor(a))
        assert type(got).__name__ == type(ref).__name__
        assert len(got) == len(ref)
        assert repr(got) == repr(ref)


OUT = {
    "solve_triangular": lambda t, o: t.linalg.solve_triangular(t.eye(3), t.ones(3, 2), upper=True,
                                                               out=o[0]),
    "lu_factor": lambda t, o: t.linalg.lu_factor(t.eye(3) * 2, out=(o[0], o[1].int())),
    "matrix_power": lambda t, o: t.matrix_power(t.eye(3) * 2, 3, out=o[0]),
    "linalg_matrix_power": lambda t, o: t.linalg.matrix_power(t.eye(3) * 2, 3, out=o[0]),
    "multi_dot": lambda t, o: t.linalg.multi_dot([t.eye(3), t.ones(3, 2)], out=o[0]),
    "cholesky_solve": lambda t, o: t.cholesky_solve(t.ones(3, 2), t.eye(3), out=o[0]),
    "addr": lambda t, o: t.addr(t.ones(3, 2), t.ones(3), t.ones(2), out=o[0]),
    "lstsq": lambda t, o: t.linalg.lstsq(t.eye(3), t.ones(3, 2), out=(o[0], o[1], o[2].long(),
                                                                      o[3])),
    "vecdot": lambda t, o: t.linalg.vecdot(t.ones(3, 2), t.ones(3, 2), out=o[0]),
}


@pytest.mark.parametrize("f", OUT.values(), ids=OUT.keys())
def test_out(f):
    def program(t):
        outs = [t.zeros(0) for _ in range(4)]
        res = f(t, outs)
        res = res if isinstance(res, tuple) else (res,)
        return tuple(r * 1 for r in res)
    compare_values(program)


DEPRECATED = {
    "cholesky": lambda t: t.cholesky(t.eye(2)),
    "triangular_solve": lambda t: t.triangular_solve(t.ones(2, 1), t.eye(2)),
    "lu_solve": lambda t: t.lu_solve(t.ones(2, 1), *t.linalg.lu_factor(t.eye(2))),
    "chain_matmul": lambda t: t.chain_matmul(t.eye(2), t.eye(2)),
    "lu": lambda t: t.lu(t.eye(2)),
    "frobenius_norm": lambda t: t.frobenius_norm(t.eye(2), (0,)),
    "nuclear_norm": lambda t: t.nuclear_norm(t.eye(2)),
}


@pytest.mark.parametrize("f", DEPRECATED.values(), ids=DEPRECATED.keys())
def test_deprecation_warnings(f):
    texts = []
    for lib in (torch, gg):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            f(lib)
        texts.append([str(x.message) for x in w if x.category is UserWarning])
    assert texts[1] == texts[0] or (texts[1] and texts[0] == [])   # torch warns once per process


def test_ldl_and_lowrank_refuse_clearly_or_match():
    """(linalg.ldl_* and the low-rank helpers: see test_ldl / test_lowrank below)"""
    assert hasattr(gg.linalg, "lu_factor")
