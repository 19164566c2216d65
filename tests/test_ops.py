"""Foundation ops beyond their op-table cases (opinfo.py, run by test_op_table.py): dtype
promotion and result types, errors, in-place writes into expanded tensors, against torch.
torch computes every expectation.
"""
import itertools

import pytest
import torch

import glassgrad as gg
from optable import assert_same, check_error, outcome

# (the op-table cases, arithmetic to views, are in opinfo.py; test_op_table.py runs them)


# -- dtype promotion -------------------------------------------------------------------------
ALL = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64")
SCALARS = (True, 2, 2.5)


def operand(mod, dtype, kind):
    """A 0-d ('0') or 1-d ('t') tensor of small positive values."""
    vals = [1, 2, 3] if dtype != "bool" else [True, False, True]
    data = vals[1] if kind == "0" else vals
    return mod.tensor(data, dtype=getattr(mod, dtype))


def combos(a, b):
    """Operand pairs: tensor kinds of dtypes a, b, and each tensor of a with Python scalars."""
    for ka, kb in itertools.product("t0", repeat=2):
        yield f"{a}[{ka}] , {b}[{kb}]", (lambda m, ka=ka, kb=kb: operand(m, a, ka),
                                         lambda m, kb=kb: operand(m, b, kb))


@pytest.mark.parametrize("a,b", list(itertools.product(ALL, repeat=2)), ids=str)
def test_result_type(a, b):
    for label, (fa, fb) in combos(a, b):
        ref = torch.result_type(fa(torch), fb(torch))
        assert str(gg.result_type(fa(gg), fb(gg))) == str(ref), label
    assert str(gg.promote_types(getattr(gg, a), getattr(gg, b))) == \
        str(torch.promote_types(getattr(torch, a), getattr(torch, b)))


@pytest.mark.parametrize("a", ALL)
def test_result_type_scalar(a):
    for kind, s in itertools.product("t0", SCALARS):
        for args in (("T", s), (s, "T")):
            def run(m):
                return str(m.result_type(*(operand(m, a, kind) if x == "T" else x for x in args)))
            assert outcome(lambda: run(gg)) == outcome(lambda: run(torch)), (kind, args)


def compare_values(f):
    ref, ref_err = outcome(lambda: f(torch))
    got, got_err = outcome(lambda: f(gg))
    assert got_err == ref_err
    if ref_err is None:
        assert_same(ref, got)


ARITH = {"add": lambda x, y: x + y, "sub": lambda x, y: x - y, "mul": lambda x, y: x * y,
         "div": lambda x, y: x / y, "pow": lambda x, y: x ** y}


@pytest.mark.parametrize("op", ARITH)
@pytest.mark.parametrize("a", ALL)
def test_promotion_values(op, a):
    f = ARITH[op]
    for b in ALL:
        for label, (fa, fb) in combos(a, b):
            compare_values(lambda m: f(fa(m), fb(m)))
    for kind, s in itertools.product("t0", SCALARS):
        compare_values(lambda m: f(operand(m, a, kind), s))
        compare_values(lambda m: f(s, operand(m, a, kind)))


PROMOTION = {
    "int/2": lambda t: t.tensor([1, 2, 3]) / 2,
    "float32*2.0": lambda t: t.ones(3) * 2.0,
    "int8+uint8": lambda t: t.tensor([1, 2], dtype=t.int8) + t.tensor([3, 250], dtype=t.uint8),
    "f64_0d*f32": lambda t: t.tensor(2.0, dtype=t.float64) * t.ones(3),
    "f16+int": lambda t: t.ones(3, dtype=t.float16) + t.tensor([1, 2, 3]),
    "f16+2.5": lambda t: t.ones(3, dtype=t.float16) + 2.5,
    "bool+bool": lambda t: t.tensor([True, False]) + t.tensor([True, True]),
    "bool*2": lambda t: t.tensor([True, False]) * 2,
    "bool/bool": lambda t: t.tensor([True, False]) / t.tensor([True, True]),
    "int_0d+f16": lambda t: t.tensor(3) + t.ones(2, dtype=t.float16),
    "i32_0d*i8": lambda t: t.tensor(3, dtype=t.int32) * t.tensor([1, 2], dtype=t.int8),
    "u8-1": lambda t: t.tensor([0, 5], dtype=t.uint8) - 1,
    "int**-1": lambda t: t.tensor([1, 2]) ** -1,
    "int**0.5": lambda t: t.tensor([1, 4]) ** 0.5,
    "2**int": lambda t: 2 ** t.tensor([1, 4]),
    "2.0**int": lambda t: 2.0 ** t.tensor([1, 4]),
    "int_add_alpha": lambda t: t.tensor([1, 2]).add(t.tensor([1, 1]), alpha=3),
    "neg_bool": lambda t: -t.tensor([True]),
    "sub_bool": lambda t: t.tensor([True]) - t.tensor([False]),
    "abs_int": lambda t: t.tensor([-1, 2], dtype=t.int8).abs(),
    "exp_int": lambda t: t.tensor([1, 2]).exp(),
    "sqrt_bool": lambda t: t.tensor([True, False]).sqrt(),
    "relu_int": lambda t: t.tensor([-1, 2]).relu(),
    "sign_bool": lambda t: t.tensor([True, False]).sign(),
    "clamp_int_float": lambda t: t.tensor([-1, 2]).clamp(0.5),
    "where_int_float": lambda t: t.where(t.tensor([True, False]), t.tensor([1, 2]), 0.5),
    "sum_int": lambda t: t.tensor([1, 2], dtype=t.int8).sum(),
    "sum_bool": lambda t: t.tensor([True, True]).sum(0),
    "sum_f16": lambda t: t.ones(3, dtype=t.float16).sum(),
    "mean_dtype": lambda t: t.tensor([1.0, 2.0]).mean(dtype=t.float64),
    "mm_int": lambda t: t.tensor([[1, 2]]).mm(t.tensor([[3], [4]])),
    "eq_int_float": lambda t: t.tensor([1, 2]) == 1.0,
    "lt_u8_neg": lambda t: t.tensor([0, 5], dtype=t.uint8) < -1,
    "u8+300": lambda t: t.tensor([0, 5], dtype=t.uint8) + 300,
    "i8*200": lambda t: t.tensor([1, -2], dtype=t.int8) * 200,
    "u8_0d-1": lambda t: t.tensor(0, dtype=t.uint8) - 1,
    "bool-bool": lambda t: t.tensor([True]) - t.tensor([False]),
    "bool-int": lambda t: t.tensor([True]) - t.tensor([1]),
    "int-True": lambda t: t.tensor([1]) - True,
    "1-bool": lambda t: 1 - t.tensor([True]),
    "rsub_bool": lambda t: t.rsub(t.tensor([True]), t.tensor([2])),
    "abs_bool": lambda t: t.tensor([True]).abs(),
    "relu_bool": lambda t: t.tensor([True]).relu(),
    "bool**bool": lambda t: t.tensor([True, False]) ** t.tensor([True, True]),
    "bool**2": lambda t: t.tensor([True, False]) ** 2,
    "bool**True": lambda t: t.tensor([True, False]) ** True,
    "True**bool": lambda t: True ** t.tensor([True, False]),
    "add_float_alpha_int": lambda t: t.tensor([1, 2]).add(1, alpha=0.5),
    "sub_float_alpha_int": lambda t: t.tensor([1, 2]).sub(t.tensor([1, 2]), alpha=1.5),
    "add_bool_alpha_int": lambda t: t.tensor([1, 2]).add(t.tensor([1, 2]), alpha=True),
    "add_bool_alpha_bool": lambda t: t.tensor([True]).add(t.tensor([False]), alpha=True),
    "add_float_alpha_float": lambda t: t.ones(2).add(t.tensor([1, 2]), alpha=0.5),
    "rsub_float_alpha_int": lambda t: t.rsub(t.tensor([1, 2]), 2, alpha=0.5),
    "clamp_both_int_float": lambda t: t.tensor([-1, 2]).clamp(0, 1.5),
    "clamp_max_int": lambda t: t.tensor([-1, 2]).clamp(max=1),
    "clamp_bool": lambda t: t.tensor([True, False]).clamp(0),
    "clamp_min_gt_max": lambda t: t.tensor([-1.0, 2.0]).clamp(1.0, 0.0),
    "where_bool_int": lambda t: t.where(t.tensor([True, False]), t.tensor([True, True]), 2),
    "div_int_int": lambda t: t.tensor([1, 2]) / t.tensor([2, 4], dtype=t.int8),
    "mul_f16_0d_f64": lambda t: t.ones(2, dtype=t.float16) * t.tensor(3.0, dtype=t.float64),
}


@pytest.mark.parametrize("f", PROMOTION.values(), ids=PROMOTION.keys())
def test_promotion_cases(f):
    compare_values(f)


# -- errors ----------------------------------------------------------------------------------
def _leaf(t):
    return t.ones(3, requires_grad=True)


ERRORS = {
    "broadcast": lambda t: t.ones(2, 3) + t.ones(4),
    "broadcast_3d": lambda t: t.ones(2, 3, 4) * t.ones(5, 1, 1),
    "mm_shape": lambda t: t.ones(2, 3).mm(t.ones(2, 3)),
    "mm_dtype": lambda t: t.ones(2, 3).mm(t.ones(3, 2, dtype=t.float64)),
    "mm_1d": lambda t: t.ones(3).mm(t.ones(3, 2)),
    "mm_3d_other": lambda t: t.ones(2, 3).mm(t.ones(1, 3, 2)),
    "mv_shape": lambda t: t.ones(2, 3).mv(t.ones(4)),
    "mv_dtype": lambda t: t.ones(2, 3).mv(t.ones(3, dtype=t.float64)),
    "mv_dims": lambda t: t.ones(2, 3).mv(t.ones(3, 1)),
    "dot_shape": lambda t: t.ones(3).dot(t.ones(4)),
    "dot_dtype": lambda t: t.ones(3).dot(t.ones(3, dtype=t.float64)),
    "dot_dims": lambda t: t.ones(3).dot(t.ones(3, 1)),
    "bmm_shape": lambda t: t.ones(2, 3, 4).bmm(t.ones(2, 5, 4)),
    "bmm_batch": lambda t: t.ones(2, 3, 4).bmm(t.ones(3, 4, 4)),
    "bmm_dtype": lambda t: t.ones(2, 3, 4).bmm(t.ones(2, 4, 5, dtype=t.float64)),
    "bmm_dims": lambda t: t.ones(3, 4).bmm(t.ones(2, 4, 5)),
    "matmul_0d": lambda t: t.ones(()) @ t.ones(3),
    "matmul_1d": lambda t: t.ones(3) @ t.ones(4),
    "matmul_2d": lambda t: t.ones(2, 3) @ t.ones(4, 5),
    "matmul_2d1d": lambda t: t.ones(2, 3) @ t.ones(4),
    "matmul_1d2d": lambda t: t.ones(3) @ t.ones(4, 5),
    "matmul_3d2d": lambda t: t.ones(2, 3, 4) @ t.ones(5, 6),
    "matmul_3d3d": lambda t: t.ones(2, 3, 4) @ t.ones(2, 5, 6),
    "matmul_batch": lambda t: t.ones(2, 3, 4) @ t.ones(3, 4, 5),
    "matmul_dtype": lambda t: t.ones(2, 3) @ t.ones(3, 2, dtype=t.float64),
    "matmul_dtype_3d": lambda t: t.ones(2, 2, 3) @ t.ones(2, 3, 2, dtype=t.float64),
    "view_noncontig": lambda t: t.ones(3, 4).t().view(12),
    "view_invalid": lambda t: t.ones(3, 4).view(5),
    "view_invalid_-1": lambda t: t.ones(3, 4).view(5, -1),
    "view_two_-1": lambda t: t.ones(3, 4).view(-1, -1),
    "reshape_invalid": lambda t: t.ones(3, 4).reshape(7),
    "expand_mismatch": lambda t: t.ones(3, 2).expand(3, 4),
    "expand_fewer": lambda t: t.ones(3, 2).expand(2),
    "sum_dim": lambda t: t.ones(3, 4).sum(2),
    "sum_dims": lambda t: t.ones(3, 4).sum((0, -3)),
    "sum_repeat": lambda t: t.ones(3, 4).sum((1, -1)),
    "mean_dim": lambda t: t.ones(3, 4).mean(-3),
    "mean_int": lambda t: t.tensor([1, 2]).mean(),
    "unsqueeze_dim": lambda t: t.ones(3, 4).unsqueeze(3),
    "squeeze_dim": lambda t: t.ones(3, 4).squeeze(2),
    "transpose_dim": lambda t: t.ones(3, 4).transpose(0, 2),
    "permute_dim": lambda t: t.ones(3, 4).permute(0, 2),
    "permute_len": lambda t: t.ones(3, 4).permute(0),
    "t_3d": lambda t: t.ones(2, 3, 4).t(),
    "select_dim": lambda t: t.ones(3, 4).select(2, 0),
    "index_out_of_range": lambda t: t.ones(3, 4)[3],
    "index_neg_out_of_range": lambda t: t.ones(3, 4)[:, -5],
    "too_many_indices": lambda t: t.ones(3, 4)[0, 0, 0],
    "index_0d": lambda t: t.ones(())[0],
    "negative_step": lambda t: t.ones(3, 4)[::-1],
    "zero_step": lambda t: t.ones(3, 4)[:, ::0],
    "inplace_leaf": lambda t: _leaf(t).add_(1),
    "inplace_leaf_mul": lambda t: _leaf(t).mul_(2),
    "inplace_leaf_zero": lambda t: _leaf(t).zero_(),
    "inplace_int_float": lambda t: t.tensor([1, 2]).add_(1.5),
    "inplace_int_float_tensor": lambda t: t.tensor([1, 2]).mul_(t.ones(2)),
    "inplace_int_div": lambda t: t.tensor([1, 2]).div_(2),
    "inplace_shape": lambda t: t.zeros(2).add_(t.ones(2, 2)),
    "inplace_shape_copy": lambda t: t.zeros(2).copy_(t.ones(3)),
    "fill_1d": lambda t: t.zeros(2).fill_(t.ones(2)),
    "modified_saved": lambda t: (lambda y: (y.add_(1), y.sum().backward()))(_leaf(t).exp()),
    "clamp_none": lambda t: t.ones(2).clamp(),
    "int_neg_pow": lambda t: t.tensor([1, 2]) ** -1,
    "slice_0d": lambda t: t.ones(())[:],
    "index_0d_none": lambda t: t.ones(())[None, 0],
    "copy_broadcast_bigger": lambda t: t.zeros(2, 3).copy_(t.ones(3, 1, 1)),
    "inplace_add_bigger": lambda t: t.zeros(3).add_(t.ones(2, 3)),
    "clamp_int_inplace_float": lambda t: t.tensor([1, 2]).clamp_(0.5),
    "clamp_int8_inplace_float": lambda t: t.tensor([1, 2], dtype=t.int8).clamp_(0.5, 1),
    "clamp_bool_inplace_int": lambda t: t.tensor([True]).clamp_(2),
    "inplace_bool_add_int": lambda t: t.tensor([True]).add_(t.tensor([2])),
    "neg_bool": lambda t: -t.tensor([True]),
    "mean_int_dim": lambda t: t.tensor([[1, 2]]).mean(1),
    "requires_grad_int": lambda t: t.tensor([1, 2]).requires_grad_(),
}


@pytest.mark.parametrize("f", ERRORS.values(), ids=ERRORS.keys())
def test_errors(f):
    check_error(f)


@pytest.mark.parametrize("op", ["zero_", "fill_", "add_", "mul_", "copy_"])
def test_inplace_into_an_expanded_tensor(op):
    """fill_/zero_ may write through an expand (every element gets one value); others refuse."""
    def program(lib):
        base = lib.zeros(1, 3)
        x = base.expand(2, 3)
        args = {"zero_": (), "fill_": (2.0,), "add_": (1.0,), "mul_": (2.0,),
                "copy_": (lib.ones(2, 3),)}[op]
        try:
            getattr(x, op)(*args)
        except RuntimeError as e:
            return "RuntimeError", str(e).splitlines()[0]
        return base.tolist(), x.tolist(), base._version
    assert program(gg) == program(torch)
