"""Pointwise ops of the tensor-API issue, each run on the same inputs in torch and glassgrad.

Rows go through the op-table harness (values, dtype, grad_fn name, saved tensors, .grad, finite
differences, double backward); non-differentiable ops, integer/bool dtypes and errors are
compared value by value. torch computes every expectation.
"""
import pytest
import torch
import torch.nn.functional as F

import glassgrad as gg
import glassgrad.ops.pointwise as P
from optable import DTYPES, Mask, assert_same, check_error, check_op, ip, outcome, row


def fn_of(mod):
    """torch.nn.functional for torch; the pointwise module (its future home) for glassgrad."""
    return F if mod is torch else P


def _x3(t, x):
    return x * 3


def _inplace_fn(name, *args, k=1, **kwargs):
    """F.name(x * k, *args, inplace=True) for the activations."""
    return lambda t, x: getattr(fn_of(t), name)(x * k, *args, inplace=True, **kwargs)


# the in-place variant of each UNARY row (it runs the same computation on a non-leaf)
UNARY_INPLACE = {
    **{n: ip(n + "_") for n in ("exp2 expm1 log2 log10 log1p rsqrt square tan asin acos atan "
                                "arcsin sinh cosh erf erfc erfinv fix sgn logit").split()},
    "exp2_m": ip("exp2_"), "square_m": ip("square_"), "logit_eps": ip("logit_", eps=0.2),
    "floor": ip("floor_", pre=_x3), "ceil": ip("ceil_", pre=_x3),
    "round": ip("round_", pre=_x3), "round_decimals": ip("round_", decimals=2, pre=_x3),
    "round_decimals_neg": ip("round_", decimals=-1, pre=lambda t, x: x * 300),
    "trunc": ip("trunc_", pre=_x3), "frac": ip("frac_", pre=_x3),
    "nan_to_num": ip("nan_to_num_", pre=lambda t, x: x.log()),
    "nan_to_num_args": ip("nan_to_num_", 1.0, 2.0, -3.0, pre=lambda t, x: x / 0),
    "div_scalar_trunc": ip("div_", 0.375, rounding_mode="trunc"),
    "remainder_scalar": ip("remainder_", 0.3), "x%0.3": ip("__imod__", 0.3),
    "x%-0.3": ip("__imod__", -0.3), "x//0.3": ip("__ifloordiv__", 0.3),
    "fmod_scalar": ip("fmod_", -0.3),
    "float_power_scalar": ip("float_power_", 2, pre=lambda t, x: x.double() * 1),
    "float_power_m": ip("float_power_", 2.5, pre=lambda t, x: x.double() * 1),
    "xlogy_scalar_other": ip("xlogy_", 3),
    "lerp_scalar_weight": lambda t, x: (x * 1).lerp_(x.exp(), 0.3),
    "lerp_scalar_weight_big": lambda t, x: (x * 1).lerp_(x * 2, 0.8),
    "clamp_tensor_min_self": lambda t, x: (x * 1).clamp_(x.mean()),
    "relu6": _inplace_fn("relu6", k=8), "leaky_relu": _inplace_fn("leaky_relu"),
    "leaky_relu_slope": _inplace_fn("leaky_relu", 0.2), "elu": _inplace_fn("elu"),
    "elu_alpha": _inplace_fn("elu", alpha=0.5), "selu": lambda t, x: t.selu_(x * 1),
    "selu_F": _inplace_fn("selu"), "celu": lambda t, x: t.celu_(x * 1),
    "celu_alpha": lambda t, x: t.celu_(x * 1, 2.0), "silu": _inplace_fn("silu", k=2),
    "mish": _inplace_fn("mish", k=2), "hardtanh": _inplace_fn("hardtanh", k=2),
    "hardtanh_range": _inplace_fn("hardtanh", -0.5, 0.25),
    "hardsigmoid": _inplace_fn("hardsigmoid", k=5), "hardswish": _inplace_fn("hardswish", k=5),
}

UNARY = [row(name, fn, (3, 4), inplace=UNARY_INPLACE.get(name), **kw) for name, fn, kw in [
    ("exp2", lambda t, x: t.exp2(x), {}), ("exp2_m", lambda t, x: x.exp2(), {}),
    ("expm1", lambda t, x: x.expm1(), {}),
    ("log2", lambda t, x: t.log2(x), {"lo": 0.2, "hi": 2}),
    ("log10", lambda t, x: x.log10(), {"lo": 0.2, "hi": 2}),
    ("log1p", lambda t, x: t.log1p(x), {"lo": -0.5, "hi": 2}),
    ("rsqrt", lambda t, x: x.rsqrt(), {"lo": 0.2, "hi": 2}),
    ("square", lambda t, x: t.square(x), {}), ("square_m", lambda t, x: x.square(), {}),
    ("tan", lambda t, x: t.tan(x), {}), ("asin", lambda t, x: x.asin(), {"lo": -.9, "hi": .9}),
    ("acos", lambda t, x: t.acos(x), {"lo": -.9, "hi": .9}), ("atan", lambda t, x: x.atan(), {}),
    ("arcsin", lambda t, x: t.arcsin(x), {"lo": -.9, "hi": .9}),
    ("sinh", lambda t, x: x.sinh(), {}), ("cosh", lambda t, x: t.cosh(x), {}),
    ("asinh", lambda t, x: x.asinh(), {}), ("acosh", lambda t, x: t.acosh(x), {"lo": 1.2, "hi": 3}),
    ("atanh", lambda t, x: x.atanh(), {"lo": -.9, "hi": .9}),
    ("logit", lambda t, x: t.logit(x), {"lo": 0.1, "hi": 0.9}),
    ("logit_eps", lambda t, x: x.logit(eps=0.2), {"lo": 0.05, "hi": 0.95, "fd": False}),
    ("erf", lambda t, x: t.erf(x), {"lo": -2, "hi": 2}), ("erfc", lambda t, x: x.erfc(), {}),
    ("erfinv", lambda t, x: t.erfinv(x), {"lo": -.9, "hi": .9}),
    ("floor", lambda t, x: t.floor(x * 3), {"fd": False}),
    ("ceil", lambda t, x: (x * 3).ceil(), {"fd": False}),
    ("round", lambda t, x: t.round(x * 3), {"fd": False}),
    ("round_decimals", lambda t, x: (x * 3).round(decimals=2), {"fd": False}),
    ("round_decimals_neg", lambda t, x: t.round(x * 300, decimals=-1), {"fd": False}),
    ("trunc", lambda t, x: t.trunc(x * 3), {"fd": False}), ("fix", lambda t, x: x.fix(), {}),
    ("frac", lambda t, x: (x * 3).frac(), {"fd": False}),
    ("nan_to_num", lambda t, x: t.nan_to_num(x.log()), {"fd": False}),
    ("nan_to_num_args", lambda t, x: (x / 0).nan_to_num(1.0, 2.0, -3.0), {"fd": False}),
    ("sgn", lambda t, x: t.sgn(x), {}),
    ("div_scalar_trunc", lambda t, x: t.div(x, 0.375, rounding_mode="trunc"), {"fd": False}),
    ("remainder_scalar", lambda t, x: t.remainder(x, 0.3), {"fd": False}),
    ("x%0.3", lambda t, x: x % 0.3, {"fd": False}),
    ("x%-0.3", lambda t, x: x % -0.3, {"fd": False}),
    ("2%x", lambda t, x: 2 % x, {"nz": True, "grad": (False,)}),   # no derivative in torch
    ("x//0.3", lambda t, x: x // 0.3, {"grad": (False,)}),
    ("fmod_scalar", lambda t, x: t.fmod(x, -0.3), {"fd": False}),
    ("float_power_scalar", lambda t, x: t.float_power(x, 2), {}),
    ("float_power_base", lambda t, x: t.float_power(2, x), {}),
    ("float_power_m", lambda t, x: x.float_power(2.5), {"lo": 0.2, "hi": 2}),
    ("xlogy_scalar_self", lambda t, x: t.xlogy(2, x), {"lo": 0.2, "hi": 2}),
    ("xlogy_scalar_other", lambda t, x: t.xlogy(x, 3), {}),
    ("lerp_scalar_weight", lambda t, x: t.lerp(x, x.exp(), 0.3), {}),
    ("lerp_scalar_weight_big", lambda t, x: x.lerp(x * 2, 0.8), {}),
    ("clamp_tensor_min_self", lambda t, x: x.clamp(x.mean()), {}),
    # activations
    ("relu6", lambda t, x: fn_of(t).relu6(x * 8), {}),
    ("leaky_relu", lambda t, x: fn_of(t).leaky_relu(x), {}),
    ("leaky_relu_slope", lambda t, x: fn_of(t).leaky_relu(x, 0.2), {}),
    ("elu", lambda t, x: fn_of(t).elu(x), {}),
    ("elu_alpha", lambda t, x: fn_of(t).elu(x, alpha=0.5), {}),
    ("selu", lambda t, x: t.selu(x), {}), ("selu_F", lambda t, x: fn_of(t).selu(x), {}),
    ("celu", lambda t, x: t.celu(x), {}), ("celu_alpha", lambda t, x: t.celu(x, 2.0), {}),
    ("gelu", lambda t, x: fn_of(t).gelu(x * 2), {}),
    ("gelu_tanh", lambda t, x: fn_of(t).gelu(x * 2, approximate="tanh"), {}),
    ("silu", lambda t, x: fn_of(t).silu(x * 2), {}),
    ("mish", lambda t, x: fn_of(t).mish(x * 2), {}),
    ("softplus", lambda t, x: fn_of(t).softplus(x), {}),
    ("softplus_beta", lambda t, x: fn_of(t).softplus(x * 10, beta=2, threshold=5), {}),
    ("hardtanh", lambda t, x: fn_of(t).hardtanh(x * 2), {}),
    ("hardtanh_range", lambda t, x: fn_of(t).hardtanh(x, -0.5, 0.25), {}),
    ("hardsigmoid", lambda t, x: fn_of(t).hardsigmoid(x * 5), {}),
    ("hardswish", lambda t, x: fn_of(t).hardswish(x * 5), {}),
]]

# in-place programs beyond the in-place variants of the rows above (UNARY_INPLACE)
INPLACE = [row(name, fn, *shapes, **kw) for name, fn, shapes, kw in [
    ("div_trunc_", lambda t, x, y: (x * 1).div_(y, rounding_mode="trunc"), [(3, 4), (4,)],
     {"nz": True, "fd": False}),
    ("floor_divide_", lambda t, x, y: (x * 1).floor_divide_(y), [(3, 4), (4,)],
     {"nz": True, "grad": (False, False)}),
    ("ifloordiv", lambda t, x, y: x.__ifloordiv__(y), [(3, 4), (4,)],
     {"nz": True, "grad": (False, False)}),
    ("remainder_", lambda t, x, y: (x * 1).remainder_(y), [(3, 4), (4,)],
     {"nz": True, "fd": False}),
    ("imod_scalar", lambda t, x: (x * 1).__imod__(0.3), [(3, 4)], {"fd": False}),
    ("fmod_", lambda t, x, y: (x * 1).fmod_(y), [(3, 4), (4,)], {"nz": True, "fd": False}),
    ("true_divide_", lambda t, x, y: (x * 1).true_divide_(y), [(3, 4), (4,)], {"nz": True}),
    ("pow_", lambda t, x, y: (x * 1).pow_(y), [(3, 4), (4,)], {"lo": .5, "hi": 2}),
    ("pow_scalar", lambda t, x: (x * 1).pow_(3), [(3, 4)], {}),
    ("float_power_", lambda t, x, y: (x.double() * 1).float_power_(y), [(3, 4), (4,)],
     {"lo": .5, "hi": 2}),
    ("atan2_", lambda t, x, y: (x * 1).atan2_(y), [(3, 4), (4,)], {"nz": True}),
    ("hypot_", lambda t, x, y: (x * 1).hypot_(y), [(3, 4), (4,)], {"nz": True}),
    ("xlogy_", lambda t, x, y: (x * 1).xlogy_(y), [(3, 4), (4,)], {"lo": .2}),
    ("xlogy_scalar", lambda t, x: (x * 1).xlogy_(2.5), [(3, 4)], {}),
    ("lerp_", lambda t, x, y, w: (x * 1).lerp_(y, w), [(3, 4), (4,), (3, 1)], {}),
    ("lerp_scalar", lambda t, x, y: (x * 1).lerp_(y, 0.7), [(3, 4), (4,)], {}),
    ("addcmul_", lambda t, x, y, z: (x * 1).addcmul_(y, z, value=-2), [(3, 4), (4,), (3, 1)],
     {}),
    ("addcdiv_", lambda t, x, y, z: (x * 1).addcdiv_(y, z, value=0.5), [(3, 4), (4,), (3, 1)],
     {"nz": True}),
    ("round_decimals", lambda t, x: (x * 1).round_(decimals=1), [(3, 4)], {"fd": False}),
    ("clamp_tensor_", lambda t, x, lo, hi: (x * 1).clamp_(lo, hi), [(3, 4), (4,), (3, 1)],
     {"fd": False}),
    ("eq_", lambda t, x, y: (x * 1).eq_(y), [(3, 4), (4,)], {"ints": True}),
    ("lt_scalar", lambda t, x: (x * 1).lt_(0.5), [(3, 4)], {}),
    ("greater_equal_", lambda t, x, y: (x * 1).greater_equal_(y), [(3, 4), (3, 4)], {}),
    # torch keeps the old history (no node): its gradient is not the step function's
    ("logical_and_", lambda t, x, y: (x * 1).logical_and_(y), [(3, 4), (4,)],
     {"ints": True, "fd": False}),
    ("logical_not_", lambda t, x: (x * 1).logical_not_(), [(3, 4)], {"ints": True, "fd": False}),
    ("relu6_inplace", lambda t, x: fn_of(t).relu6(x * 8, inplace=True), [(3, 4)], {}),
    ("hardtanh_inplace", lambda t, x: fn_of(t).hardtanh(x * 2, inplace=True), [(3, 4)], {}),
    ("leaky_relu_inplace", lambda t, x: fn_of(t).leaky_relu(x * 1, 0.1, True), [(3, 4)], {}),
    ("elu_inplace", lambda t, x: fn_of(t).elu(x * 1, inplace=True), [(3, 4)], {}),
    ("selu_inplace", lambda t, x: t.selu_(x * 1), [(3, 4)], {}),
    ("celu_inplace", lambda t, x: t.celu_(x * 1, 0.5), [(3, 4)], {}),
    ("silu_inplace", lambda t, x: fn_of(t).silu(x * 1, inplace=True), [(3, 4)], {}),
    ("mish_inplace", lambda t, x: fn_of(t).mish(x * 1, inplace=True), [(3, 4)], {}),
    ("hardsigmoid_inplace", lambda t, x: fn_of(t).hardsigmoid(x * 5, inplace=True), [(3, 4)],
     {}),
    ("hardswish_inplace", lambda t, x: fn_of(t).hardswish(x * 5, inplace=True), [(3, 4)], {}),
]]

BCAST = [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 1, 4), (3, 1)), ((), (2, 3))]
BINARY_OPS = [
    ("true_divide", lambda t, x, y: t.true_divide(x, y), {"nz": True}),
    ("div_trunc", lambda t, x, y: t.div(x * 3, y, rounding_mode="trunc"), {"nz": True}),
    ("div_floor", lambda t, x, y: (x * 3).div(y, rounding_mode="floor"), {"nz": True}),
    ("floor_divide", lambda t, x, y: t.floor_divide(x * 3, y),      # no derivative in torch
     {"nz": True, "grad": (False, False)}),
    ("remainder", lambda t, x, y: t.remainder(x * 3, y), {"nz": True, "fd": False}),
    ("mod", lambda t, x, y: x % y, {"nz": True, "fd": False}),
    ("fmod", lambda t, x, y: t.fmod(x * 3, y), {"nz": True, "fd": False}),
    ("float_power", lambda t, x, y: t.float_power(x, y), {"lo": 0.5, "hi": 2}),
    ("atan2", lambda t, x, y: t.atan2(x, y), {"nz": True}),
    ("arctan2_m", lambda t, x, y: x.arctan2(y), {"nz": True}),
    ("minimum", lambda t, x, y: t.minimum(x, y), {}),
    ("maximum", lambda t, x, y: x.maximum(y), {}),
    ("fmax", lambda t, x, y: t.fmax(x, y), {}), ("fmin", lambda t, x, y: x.fmin(y), {}),
    ("hypot", lambda t, x, y: t.hypot(x, y), {"nz": True}),
    ("logaddexp", lambda t, x, y: t.logaddexp(x, y), {}),
    ("xlogy", lambda t, x, y: t.xlogy(x, y), {"lo": 0.2, "hi": 2}),
    ("lerp_scalar", lambda t, x, y: t.lerp(x, y, 0.6), {}),
    ("clamp_tensor_min", lambda t, x, y: t.clamp(x, min=y), {"fd": False}),
    ("clamp_tensor_max", lambda t, x, y: x.clamp(max=y), {"fd": False}),
]
# the in-place variants, where x holds the result's shape
BINARY_INPLACE = {
    "true_divide": ip("true_divide_"), "div_trunc": ip("div_", rounding_mode="trunc", pre=_x3),
    "div_floor": ip("div_", rounding_mode="floor", pre=_x3),
    "floor_divide": ip("floor_divide_", pre=_x3), "remainder": ip("remainder_", pre=_x3),
    "mod": ip("__imod__"), "fmod": ip("fmod_", pre=_x3),
    "float_power": ip("float_power_", pre=lambda t, x: x.double() * 1), "atan2": ip("atan2_"),
    "arctan2_m": ip("arctan2_"), "hypot": ip("hypot_"), "xlogy": ip("xlogy_"),
    "lerp_scalar": ip("lerp_", 0.6), "clamp_tensor_min": lambda t, x, y: (x * 1).clamp_(min=y),
    "clamp_tensor_max": lambda t, x, y: (x * 1).clamp_(max=y),
}
BINARY = [row(f"{name}-{'x'.join(map(str, a)) or '0d'}-{'x'.join(map(str, b)) or '0d'}",
              fn, a, b, inplace=BINARY_INPLACE.get(name) if a == (3, 4) else None, **kw)
          for name, fn, kw in BINARY_OPS for a, b in BCAST]
BINARY += [row(f"{name}-grad{int(g[0])}{int(g[1])}", fn, (3, 4), (4,), grad=g,
               inplace=BINARY_INPLACE.get(name), **kw)
           for name, fn, kw in BINARY_OPS if "grad" not in kw
           for g in ((True, False), (False, True))]

TERNARY = [row(name, fn, *shapes, **kw) for name, fn, shapes, kw in [
    ("lerp_tensor", lambda t, x, y, w: t.lerp(x, y, w), [(3, 4), (4,), (3, 1)],
     {"inplace": ip("lerp_")}),
    ("lerp_tensor_w_only", lambda t, x, y, w: x.lerp(y, w), [(3, 4), (4,), (3, 1)],
     {"grad": (False, False, True), "inplace": ip("lerp_")}),
    ("lerp_tensor_x_only", lambda t, x, y, w: x.lerp(y, w), [(3, 4), (4,), (3, 1)],
     {"grad": (True, False, False), "inplace": ip("lerp_")}),
    ("addcmul", lambda t, x, y, z: t.addcmul(x, y, z), [(3, 4), (4,), (3, 1)],
     {"inplace": ip("addcmul_")}),
    ("addcmul_value", lambda t, x, y, z: x.addcmul(y, z, value=2.5), [(3, 4), (4,), (3, 1)],
     {"inplace": ip("addcmul_", value=2.5)}),
    ("addcmul_t1_only", lambda t, x, y, z: x.addcmul(y, z, value=2), [(3, 4), (4,), (3, 1)],
     {"grad": (False, True, False), "inplace": ip("addcmul_", value=2)}),
    ("addcdiv", lambda t, x, y, z: t.addcdiv(x, y, z), [(3, 4), (4,), (3, 1)],
     {"nz": True, "inplace": ip("addcdiv_")}),
    ("addcdiv_value", lambda t, x, y, z: x.addcdiv(y, z, value=-0.5), [(3, 4), (4,), (3, 1)],
     {"nz": True, "inplace": ip("addcdiv_", value=-0.5)}),
    ("addcdiv_t2_only", lambda t, x, y, z: x.addcdiv(y, z, value=3), [(3, 4), (4,), (3, 1)],
     {"nz": True, "grad": (False, False, True), "inplace": ip("addcdiv_", value=3)}),
    ("clamp_tensor", lambda t, x, lo, hi: t.clamp(x, lo, hi), [(3, 4), (4,), (3, 1)],
     {"fd": False, "inplace": ip("clamp_")}),
    ("clamp_tensor_min_only_grad", lambda t, x, lo, hi: x.clamp(lo, hi), [(3, 4), (4,), (3, 1)],
     {"grad": (False, True, False), "fd": False, "inplace": ip("clamp_")}),
    ("clip_tensor_max_only_grad", lambda t, x, lo, hi: x.clip(lo, hi), [(3, 4), (4,), (3, 1)],
     {"grad": (False, False, True), "fd": False, "inplace": ip("clip_")}),
    ("where_method", lambda t, c, x, y: x.where(c, y), [Mask((3, 1)), (3, 4), (4,)], {}),
]]

CLAMP_BOUND = [row(name, fn, *shapes, inplace=inplace, **kw)
               for name, fn, shapes, inplace, kw in [
    ("clamp_min", lambda t, x: t.clamp_min(x, 0.1), [(3, 4)],
     lambda t, x: t.clamp_min_(x * 1, 0.1), {}),
    ("clamp_max_m", lambda t, x: x.clamp_max(-0.2), [(3, 4)], ip("clamp_max_", -0.2), {}),
    ("clamp_min_int_bound", lambda t, x: x.clamp_min(0), [(3, 4)], ip("clamp_min_", 0), {}),
    ("clamp_min_tensor", lambda t, x, y: t.clamp_min(x, y), [(3, 4), (4,)], ip("clamp_min_"),
     {"fd": False}),
    ("clamp_max_tensor_m", lambda t, x, y: x.clamp_max(y), [(3, 4), (3, 1)], ip("clamp_max_"),
     {"fd": False}),
    ("clamp_min_tensor_bcast", lambda t, x, y: t.clamp_min(x, y), [(4,), (3, 4)], None,
     {"fd": False}),
    ("clamp_max_tensor_bound_only", lambda t, x, y: t.clamp_max(x, y), [(3, 4), (4,)],
     ip("clamp_max_"), {"grad": (False, True), "fd": False}),
    ("clamp_min_tensor_kinks", lambda t, x, y: x.clamp_min(y), [(3, 4), (4,)],
     ip("clamp_min_"), {"ints": True, "fd": False}),
    ("clamp_max_kinks", lambda t, x: t.clamp_max(x, 0), [(3, 4)], ip("clamp_max_", 0),
     {"ints": True, "fd": False}),
]]

# values on the kinks of piecewise ops (ints=True draws -2..2; scaled onto the kinks)
KINKS = [row(f"{name}-at-kinks", fn, *shapes, ints=True, fd=False, inplace=inplace)
         for name, fn, shapes, inplace in [
    ("maximum", lambda t, x, y: t.maximum(x, y), [(3, 4), (4,)], None),
    ("minimum", lambda t, x, y: t.minimum(x, y), [(3, 4), (4,)], None),
    ("fmax", lambda t, x, y: t.fmax(x, y), [(3, 4), (4,)], None),
    ("fmin", lambda t, x, y: t.fmin(x, y), [(3, 4), (4,)], None),
    ("clamp_tensor", lambda t, x, lo, hi: t.clamp(x, lo, hi), [(3, 4), (4,), (3, 1)],
     ip("clamp_")),
    ("relu6", lambda t, x: fn_of(t).relu6(x * 3), [(3, 4)], _inplace_fn("relu6", k=3)),
    ("hardtanh", lambda t, x: fn_of(t).hardtanh(x), [(3, 4)], _inplace_fn("hardtanh")),
    ("leaky_relu", lambda t, x: fn_of(t).leaky_relu(x), [(3, 4)], _inplace_fn("leaky_relu")),
    ("elu", lambda t, x: fn_of(t).elu(x), [(3, 4)], _inplace_fn("elu")),
    ("hardsigmoid", lambda t, x: fn_of(t).hardsigmoid(x * 1.5), [(3, 4)],
     _inplace_fn("hardsigmoid", k=1.5)),
    ("hardswish", lambda t, x: fn_of(t).hardswish(x * 1.5), [(3, 4)],
     _inplace_fn("hardswish", k=1.5)),
    ("softplus", lambda t, x: fn_of(t).softplus(x * 10, threshold=10), [(3, 4)], None),
    ("xlogy_zero", lambda t, x, y: t.xlogy(x, y.abs()), [(3, 4), (4,)],
     lambda t, x, y: (x * 1).xlogy_(y.abs())),
    ("logit_eps_edges", lambda t, x: t.logit(x * 0.1 + 0.5, eps=0.3), [(3, 4)],
     ip("logit_", eps=0.3, pre=lambda t, x: x * 0.1 + 0.5)),
    ("remainder_exact", lambda t, x, y: t.remainder(x, y + 3), [(3, 4), (4,)],
     lambda t, x, y: (x * 1).remainder_(y + 3)),
    ("nan_to_num_inf", lambda t, x: t.nan_to_num(1 / x), [(3, 4)],
     ip("nan_to_num_", pre=lambda t, x: 1 / x)),
]]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn,shapes,kw", UNARY + INPLACE + BINARY + TERNARY + CLAMP_BOUND + KINKS)
def test_op(fn, shapes, kw, dtype):
    check_op(fn, shapes, kw, dtype)


# -- non-differentiable ops, integer and bool dtypes -----------------------------------------
def compare_values(f):
    ref, ref_err = outcome(lambda: f(torch))
    got, got_err = outcome(lambda: f(gg))
    assert got_err == ref_err
    if ref_err is None:
        for r, g in zip(ref, got) if isinstance(ref, tuple) else [(ref, got)]:
            assert_same(r, g)
            assert g.requires_grad == r.requires_grad


def _special(t):
    return t.tensor([float("nan"), float("inf"), -float("inf"), 0.0, -1.5, 2.5, 1.0, -0.0])


def _ints(t, dtype="int64"):
    return t.tensor([5, -7, 3, 0, -2, 8], dtype=getattr(t, dtype))


def _bools(t):
    return t.tensor([True, False, True, True, False, False])


UNARY_NAMES = ("exp2 expm1 log2 log10 log1p rsqrt square tan asin acos atan sinh cosh asinh acosh "
               "atanh logit erf erfc erfinv floor ceil round trunc fix frac nan_to_num isnan isinf "
               "isfinite sgn arcsin arccos arctan arcsinh arccosh arctanh logical_not bitwise_not "
               "selu celu").split()
BINARY_NAMES = ("true_divide floor_divide remainder fmod float_power atan2 arctan2 minimum maximum "
                "fmax fmin hypot logaddexp xlogy eq ne lt le gt ge greater greater_equal less "
                "less_equal not_equal logical_and logical_or logical_xor bitwise_and bitwise_or "
                "bitwise_xor").split()
ACTIVATIONS = ("relu6 leaky_relu elu selu celu gelu silu mish softplus hardtanh hardsigmoid "
               "hardswish").split()
KINDS = ("float32", "float64", "float16", "int64", "int32", "uint8", "bool")


def _input(t, kind):
    if kind == "bool":
        return _bools(t)
    if kind == "uint8":
        return _ints(t).abs().to(t.uint8)
    if kind.startswith("int"):
        return _ints(t, kind)
    return t.tensor([0.5, -0.25, 0.75, 0.0, -0.875, 0.375], dtype=getattr(t, kind))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", UNARY_NAMES)
def test_unary_dtypes(name, kind):
    compare_values(lambda t: getattr(t, name)(_input(t, kind)))
    compare_values(lambda t: getattr(_input(t, kind), name)())
    compare_values(lambda t: getattr(_input(t, kind).clone(), name + "_")())


@pytest.mark.parametrize("name", ["nan_to_num", "isnan", "isinf", "isfinite", "sgn", "floor",
                                  "ceil", "round", "trunc", "frac", "erf", "erfc", "erfinv",
                                  "logit", "exp2", "expm1", "log1p", "rsqrt", "tan", "atanh"])
def test_unary_special_values(name):
    compare_values(lambda t: getattr(t, name)(_special(t)))
    compare_values(lambda t: getattr(t, name)(_special(t).double()))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", ACTIVATIONS)
def test_activation_dtypes(name, kind):
    compare_values(lambda t: getattr(fn_of(t), name)(_input(t, kind)))


@pytest.mark.parametrize("kinds", [("float32", "float32"), ("int64", "int64"), ("bool", "bool"),
                                   ("int32", "uint8"), ("int64", "float32"),
                                   ("float32", "float64"), ("uint8", "bool"), ("bool", "int64")])
@pytest.mark.parametrize("name", BINARY_NAMES)
def test_binary_dtypes(name, kinds):
    a, b = kinds

    def nonzero(t, kind):
        x = _input(t, kind)
        return x.masked_fill(x == 0, 1) if hasattr(x, "masked_fill") else x + (x == 0)
    compare_values(lambda t: getattr(t, name)(_input(t, a), nonzero(t, b)))
    compare_values(lambda t: getattr(_input(t, a), name)(nonzero(t, b)))
    compare_values(lambda t: getattr(_input(t, a).clone(), name + "_")(nonzero(t, b))
                   if hasattr(torch.Tensor, name + "_") else _input(t, a))


@pytest.mark.parametrize("scalar", [2, -3, 2.5, True])
@pytest.mark.parametrize("kind", ["float32", "int64", "uint8", "bool"])
@pytest.mark.parametrize("name", ["floor_divide", "remainder", "fmod", "float_power", "xlogy",
                                  "eq", "lt", "ge", "logical_and", "logical_xor", "bitwise_and",
                                  "bitwise_xor", "bitwise_or", "true_divide"])
def test_binary_scalars(name, kind, scalar):
    compare_values(lambda t: getattr(t, name)(_input(t, kind), scalar))
    compare_values(lambda t: getattr(_input(t, kind).clone(), name + "_")(scalar))


DUNDERS = {
    "floordiv": lambda a, b: a // b, "mod": lambda a, b: a % b, "xor": lambda a, b: a ^ b,
    "and": lambda a, b: a & b, "or": lambda a, b: a | b,
}


@pytest.mark.parametrize("other", [2, -3, 2.5, True, "bool", "int64", "float32"])
@pytest.mark.parametrize("kind", ["float32", "int64", "bool"])
@pytest.mark.parametrize("op", DUNDERS)
def test_dunders(op, kind, other):
    f = DUNDERS[op]

    def arg(t):
        return _input(t, other).abs() + 1 if isinstance(other, str) else other
    compare_values(lambda t: f(_input(t, kind), arg(t)))
    compare_values(lambda t: f(arg(t), _input(t, kind)))

    def inplace(t):
        x = _input(t, kind).clone()
        x = {"floordiv": x.__ifloordiv__, "mod": x.__imod__, "xor": x.__ixor__,
             "and": x.__iand__, "or": x.__ior__}[op](arg(t))
        return x
    compare_values(inplace)


@pytest.mark.parametrize("kind", ["float32", "int64", "uint8", "bool"])
def test_invert(kind):
    compare_values(lambda t: ~_input(t, kind))


VALUES = {
    "div_trunc_int": lambda t: t.div(_ints(t), t.tensor([2, 2, -2, 3, 3, -3]),
                                     rounding_mode="trunc"),
    "div_floor_int": lambda t: t.div(_ints(t), t.tensor([2, 2, -2, 3, 3, -3]),
                                     rounding_mode="floor"),
    "div_floor_scalar": lambda t: t.div(_ints(t), -2, rounding_mode="floor"),
    "div_trunc_float_scalar": lambda t: _ints(t).div(2.5, rounding_mode="trunc"),
    "div_floor_by_zero_float": lambda t: t.div(_special(t), 0.0, rounding_mode="floor"),
    "div_trunc_by_zero_float": lambda t: t.div(_special(t), 0.0, rounding_mode="trunc"),
    "div_mode_none": lambda t: t.div(_ints(t), 4, rounding_mode=None),
    "floor_divide_float": lambda t: t.floor_divide(_special(t), t.tensor(-0.7)),
    "remainder_special": lambda t: t.remainder(_special(t), -0.7),
    "remainder_by_zero_float": lambda t: _special(t) % 0,
    "fmod_special": lambda t: t.fmod(_special(t), 0.7),
    "remainder_int_neg": lambda t: t.remainder(_ints(t), -3),
    "fmod_int_neg": lambda t: t.fmod(_ints(t), -3),
    "rmod_int": lambda t: 7 % (_ints(t).abs() + 1),
    "rfloordiv_int": lambda t: 7 // (_ints(t).abs() + 1),
    "float_power_int_int": lambda t: t.float_power(_ints(t), t.tensor([2, 1, 0, 3, 2, 1])),
    "float_power_int_neg": lambda t: t.float_power(_ints(t), -1),
    "xlogy_special": lambda t: t.xlogy(t.tensor([0., 0., 1., 0., 2.]),
                                       t.tensor([0., float("nan"), 0., -1., -1.])),
    "fmax_nan": lambda t: t.fmax(_special(t), t.tensor([1.0] * 8)),
    "fmin_nan": lambda t: t.fmin(t.tensor([1.0] * 8), _special(t)),
    "maximum_nan": lambda t: t.maximum(_special(t), t.tensor([1.0] * 8)),
    "minimum_nan": lambda t: t.minimum(t.tensor([1.0] * 8), _special(t)),
    "logaddexp_inf": lambda t: t.logaddexp(_special(t), _special(t)),
    "hypot_special": lambda t: t.hypot(_special(t), t.tensor([3.0] * 8)),
    "atan2_special": lambda t: t.atan2(_special(t), t.tensor([-1.0] * 8)),
    "round_half_even": lambda t: t.round(t.tensor([0.5, 1.5, 2.5, -0.5, -1.5, 2.675])),
    "round_decimals": lambda t: t.round(t.tensor([1.005, 2.675, 1234.5678, -0.125]), decimals=2),
    "round_decimals_neg": lambda t: t.round(t.tensor([15., 25., 1234.5678, -35.]), decimals=-1),
    "round_decimals_f64": lambda t: t.round(t.tensor([1.005, 2.675, -0.125]).double(), decimals=1),
    "nan_to_num_f16": lambda t: t.nan_to_num(_special(t).half()),
    "nan_to_num_f64": lambda t: t.nan_to_num(_special(t).double(), posinf=1e300),
    "nan_to_num_kw": lambda t: _special(t).nan_to_num(nan=-1.0, neginf=7.0),
    "logit_edges": lambda t: t.logit(t.tensor([0.0, 0.5, 1.0, 2.0, -1.0])),
    "logit_eps_edges": lambda t: t.logit(t.tensor([0.0, 0.5, 1.0, 2.0, -1.0]), eps=0.1),
    "erfinv_edges": lambda t: t.erfinv(t.tensor([-1.0, 1.0, 1.5, 0.0, 0.999999, -0.5])),
    "erfinv_f64_tail": lambda t: t.erfinv(t.tensor([0.9999999999, -0.99999, 1e-10]).double()),
    "erf_f64": lambda t: t.erf(t.linspace(-6, 6, 25, dtype=t.float64)),
    "erfc_f64": lambda t: t.erfc(t.linspace(-6, 26, 25, dtype=t.float64)),
    "erfinv_f64": lambda t: t.erfinv(t.linspace(-0.999, 0.999, 25, dtype=t.float64)),
    "gelu_f64": lambda t: fn_of(t).gelu(t.linspace(-6, 6, 25, dtype=t.float64)),
    "gelu_tanh_f64": lambda t: fn_of(t).gelu(t.linspace(-6, 6, 25, dtype=t.float64),
                                             approximate="tanh"),
    "softplus_big": lambda t: fn_of(t).softplus(t.tensor([-100.0, 100.0, 19.0, 21.0])),
    "mish_big": lambda t: fn_of(t).mish(t.tensor([-100.0, 100.0, 19.0, 21.0])),
    "silu_big": lambda t: fn_of(t).silu(t.tensor([-100.0, 100.0, 0.0])),
    "elu_big": lambda t: fn_of(t).elu(t.tensor([-100.0, 100.0, 0.0])),
    "relu6_int": lambda t: fn_of(t).relu6(_ints(t)),
    "hardtanh_int": lambda t: fn_of(t).hardtanh(_ints(t), -2, 4),
    "lerp_bcast": lambda t: t.lerp(t.ones(3), t.zeros(2, 3), t.ones(4, 1, 1) * 0.25),
    "addcmul_int": lambda t: t.addcmul(_ints(t), _ints(t), _ints(t), value=2),
    "addcmul_int_float_value": lambda t: t.addcmul(_ints(t), _ints(t), _ints(t), value=0.5),
    "addcdiv_mixed": lambda t: t.addcdiv(_ints(t), _ints(t).float(), _ints(t) + 10),
    "addcmul_f32_f64": lambda t: t.addcmul(t.ones(3), t.ones(3, dtype=t.float64), t.ones(3)),
    "clamp_tensor_int": lambda t: t.clamp(_ints(t), t.zeros(6)),
    "clamp_tensor_int_int": lambda t: t.clamp(_ints(t), t.tensor(0), t.tensor([1, 2, 3, 4, 5, 6])),
    "clamp_tensor_bcast": lambda t: t.clamp(t.ones(3), t.zeros(2, 1)),
    "clamp_min_gt_max": lambda t: t.clamp(_special(t), t.tensor(1.0), t.tensor(-1.0)),
    "clamp_min_int_float": lambda t: t.clamp_min(_ints(t), 0.5),
    "clamp_max_int_int": lambda t: _ints(t).clamp_max(2),
    "clamp_min_int_tensor": lambda t: t.clamp_min(_ints(t), t.tensor([0.5])),
    "clamp_max_bool": lambda t: t.clamp_max(_bools(t), False),
    "clamp_min__int": lambda t: _ints(t).clamp_min_(1),
    "clamp_min_uint8_wrap": lambda t: t.clamp_min(_ints(t).abs().to(t.uint8), -1),
    "clamp_max_nan": lambda t: t.clamp_max(_special(t), 0.5),
    "clamp_min_nan_bound": lambda t: t.clamp_min(t.ones(3), float("nan")),
    "relu__int": lambda t: t.relu_(_ints(t)),
    "where_1arg": lambda t: t.where(t.tensor([[0, 1], [2, 0]])),
    "where_1arg_float": lambda t: t.where(t.tensor([0.0, 1.5, -2.0])),
    "sgn_bool": lambda t: t.sgn(_bools(t)),
    "square_int": lambda t: _ints(t).square(),
    "square_bool": lambda t: t.square(_bools(t)),
    "isnan_f16": lambda t: t.isnan(_special(t).half()),
    "eq_int_inplace_float": lambda t: _ints(t).eq_(2.0),
    "lt_int_inplace": lambda t: _ints(t).lt_(2.5),
    "logical_and_f_inplace": lambda t: t.ones(3).logical_and_(t.tensor([0.0, 2.0, -1.0])),
    "logical_not_f_inplace": lambda t: t.tensor([0., 2.]).logical_not_(),
    "bitwise_not_bool": lambda t: t.bitwise_not(_bools(t)),
    "int_xor_bool": lambda t: _ints(t) ^ _bools(t),
    "3_xor_bool": lambda t: 3 ^ _bools(t),
    "float_power_0d": lambda t: t.float_power(t.tensor(2.0), t.tensor([1.0, 2.0])),
    "true_divide_int": lambda t: t.true_divide(_ints(t), 4),
}


@pytest.mark.parametrize("f", VALUES.values(), ids=VALUES.keys())
def test_values(f):
    compare_values(f)


def _rg(t):
    return t.rand(3, requires_grad=True) * 1


ERRORS = {
    "int_floordiv_zero": lambda t: _ints(t) // 0,
    "int_mod_zero": lambda t: _ints(t) % 0,
    "int_fmod_zero": lambda t: t.fmod(_ints(t), t.tensor([1, 0, 1, 1, 1, 1])),
    "int_div_trunc_zero": lambda t: t.div(_ints(t), 0, rounding_mode="trunc"),
    "div_bad_mode": lambda t: t.div(t.ones(2), 2, rounding_mode="round"),
    "bool_floordiv": lambda t: _bools(t) // _bools(t),
    "bool_mod": lambda t: _bools(t) % _bools(t),
    "bool_fmod": lambda t: t.fmod(_bools(t), _bools(t)),
    "bool_div_trunc": lambda t: t.div(_bools(t), _bools(t), rounding_mode="trunc"),
    "bool_floor": lambda t: t.floor(_bools(t)),
    "bool_round": lambda t: _bools(t).round(),
    "int_frac": lambda t: t.frac(_ints(t)),
    "int_round_decimals": lambda t: t.round(_ints(t), decimals=1),
    "int_round_decimals_0": lambda t: t.round(_ints(t), decimals=0),
    "float_power_inplace_float": lambda t: t.ones(2).float_power_(2),
    "exp2_inplace_int": lambda t: _ints(t).exp2_(),
    "int_hypot": lambda t: t.hypot(_ints(t), _ints(t)),
    "int_logaddexp": lambda t: t.logaddexp(_ints(t), _ints(t)),
    "atan2_scalar": lambda t: t.atan2(t.ones(3), 2),
    "atan2_scalar_first": lambda t: t.atan2(2, t.ones(3)),
    "maximum_scalar": lambda t: t.maximum(t.ones(3), 2),
    "maximum_method_scalar": lambda t: t.ones(3).maximum(2.5),
    "minimum_scalar_first": lambda t: t.minimum(1, t.ones(3)),
    "fmax_scalar": lambda t: t.fmax(t.ones(3), 2.0),
    "hypot_method_scalar": lambda t: t.ones(3).hypot(2.0),
    "lerp_dtype_end": lambda t: t.lerp(t.ones(3), t.ones(3, dtype=t.float64), 0.5),
    "lerp_dtype_weight": lambda t: t.lerp(t.ones(3), t.ones(3), t.ones(3, dtype=t.float64)),
    "lerp_int": lambda t: t.lerp(_ints(t), _ints(t), 0.5),
    "lerp_dtype_half_int": lambda t: t.lerp(t.ones(3).half(), t.tensor([1, 2, 3]), 0.5),
    "lerp_dtype_double_float": lambda t: t.lerp(t.ones(3).double(), t.ones(3), t.ones(3)),
    "lerp_int_tensor": lambda t: t.lerp(_ints(t), _ints(t), _ints(t)),
    "lerp_bcast": lambda t: t.lerp(t.ones(3), t.ones(4), 0.5),
    "addcdiv_int": lambda t: t.addcdiv(_ints(t), _ints(t), _ints(t)),
    "addcmul_bcast": lambda t: t.addcmul(t.ones(3), t.ones(4), t.ones(3)),
    "activation_elu_int": lambda t: fn_of(t).elu(_ints(t)),
    "activation_gelu_bad": lambda t: fn_of(t).gelu(t.ones(2), approximate="foo"),
    "selu_bool": lambda t: t.selu(_bools(t)),
    "clamp_tensor_none": lambda t: t.clamp(t.ones(3), None, None),
    "clamp_tensor_and_number": lambda t: t.clamp(t.ones(3), t.zeros(3), 0.5),
    "clamp_tensor_bcast": lambda t: t.clamp(t.ones(3), t.zeros(4)),
    "clamp_tensor_inplace_int_float": lambda t: _ints(t).clamp_(t.zeros(6)),
    "invert_float": lambda t: ~t.ones(2),
    "bitwise_not_float": lambda t: t.bitwise_not(t.ones(2)),
    "xor_float": lambda t: t.ones(2) ^ t.ones(2),
    "and_float_scalar": lambda t: _ints(t) & 1.5,
    "or_float": lambda t: t.ones(2) | t.ones(2),
    "ior_bool_int": lambda t: _bools(t).__ior__(_ints(t)),
    "logical_xor_bcast": lambda t: t.logical_xor(t.ones(2), t.ones(3)),
    "eq_bcast": lambda t: t.eq(t.ones(2), t.ones(3)),
    "floor_divide_backward": lambda t: t.floor_divide(_rg(t), 0.3).sum().backward(),
    "rmod_backward": lambda t: (2 % (_rg(t) + 1)).sum().backward(),
    "asinh_inplace_backward": lambda t: _rg(t).asinh_().sum().backward(),
    "acosh_inplace_backward": lambda t: (_rg(t) + 1).acosh_().sum().backward(),
    "atanh_inplace_backward": lambda t: _rg(t).atanh_().sum().backward(),
    "maximum_bcast": lambda t: t.maximum(t.ones(2, 3), t.ones(4)),
    "inplace_leaf_exp2": lambda t: t.ones(3, requires_grad=True).exp2_(),
    "remainder_inplace_int_float": lambda t: _ints(t).remainder_(2.5),
    "clamp_min__int_float": lambda t: _ints(t).clamp_min_(0.5),
    "clamp_max__int_tensor": lambda t: t.clamp_max_(_ints(t), t.ones(6)),
    "clamp_min_bcast": lambda t: t.clamp_min(t.ones(3), t.ones(4)),
    "clamp_min__bcast": lambda t: t.ones(3).clamp_min_(t.ones(2, 3)),
    "clamp_min__leaf": lambda t: t.ones(3, requires_grad=True).clamp_min_(0),
    "relu__bool": lambda t: _bools(t).relu_(),
    "clamp_max__bool": lambda t: _bools(t).clamp_max_(True),
    "exp__int": lambda t: _ints(t).exp_(),
    "sqrt__leaf": lambda t: t.ones(3, requires_grad=True).sqrt_(),
}


@pytest.mark.parametrize("f", ERRORS.values(), ids=ERRORS.keys())
def test_errors(f):
    check_error(f)


@pytest.mark.parametrize("name", ["asinh_", "acosh_", "atanh_", "floor_divide"])
def test_not_implemented_nodes(name):
    """Ops torch gives no derivative: the node is recorded, its backward refuses."""
    def program(t):
        x = t.tensor([0.3, 0.6], requires_grad=True) * 1
        y = getattr(x + (1 if name == "acosh_" else 0), name)(*([] if name[-1] == "_" else [2]))
        return type(y.grad_fn).__name__, y.requires_grad
    assert program(gg) == program(torch)


@pytest.mark.parametrize("name", ["tanh", "sigmoid"])
def test_fused_backward_double_backward(name):
    """tanh/sigmoid's first-order grad is one fused node, as torch's TanhBackwardBackward0 /
    SigmoidBackwardBackward0, with the same saved tensors and second and third derivatives."""
    out = {}
    for t in (torch, gg):
        x = t.tensor([-1.5, -0.2, 0.3, 2.0], dtype=t.float64, requires_grad=True)
        v = t.tensor([0.7, -1.1, 0.4, 2.5], dtype=t.float64)
        g, = t.autograd.grad(getattr(x, name)(), x, v.requires_grad_(), create_graph=True)
        node = g.grad_fn
        saved = (node._saved_grad_output.detach(), node._saved_output.detach())
        g2, gv = t.autograd.grad((g * g).sum(), (x, v), create_graph=True)
        g3, = t.autograd.grad(g2.sum(), x)
        out[t] = (type(node).__name__ if t is gg else node.name(), saved, g, g2, gv, g3)
    assert out[gg][0] == out[torch][0] == name.capitalize() + "BackwardBackward0"
    for a, b in zip(out[gg][1:], out[torch][1:]):
        for ai, bi in zip(a if isinstance(a, tuple) else (a,), b if isinstance(b, tuple) else (b,)):
            assert_same(bi.detach(), ai.detach())


UNARY_3RD = ["abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "erf",
             "erfc", "erfinv", "exp", "exp2", "expm1", "log", "log10", "log1p", "log2", "logit",
             "neg", "reciprocal", "relu", "rsqrt", "sigmoid", "sin", "sinh", "sqrt", "square",
             "tan", "tanh", "trunc"]


@pytest.mark.parametrize("name", UNARY_3RD)
def test_third_derivative_of_unary_pointwise(name):
    """grad of grad of grad (create_graph=True at each order) equals torch's, float64; an order
    whose gradient has no graph (a linear op's) stops where torch's does."""
    out = {}
    for t in (torch, gg):
        x = t.tensor([0.15, 0.35, 0.55, 0.8], dtype=t.float64)
        if name == "acosh":
            x = x + 1.5
        x.requires_grad_()
        chain = [getattr(t, name)(x)]
        while len(chain) < 4 and chain[-1] is not None and chain[-1].requires_grad:
            chain.append(t.autograd.grad(chain[-1].sum(), x, create_graph=True,
                                         allow_unused=True)[0])
        out[t] = chain
    assert len(out[gg]) == len(out[torch]), name
    for a, b in zip(out[gg], out[torch]):
        assert (a is None) == (b is None), name
        if a is not None:
            assert a.requires_grad == b.requires_grad, name
            assert_same(b.detach(), a.detach())


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_relu_backward_passes_nan_and_inf_gradients_exactly(dtype):
    """ReluBackward0 on arrays clears the gradient where the result is <= 0 and passes it
    bit for bit elsewhere: a NaN or inf gradient becomes 0 (not NaN) where the input was <= 0,
    a NaN input passes its gradient; also broadcast gradients and double backward."""
    from differential import same
    def program(lib):
        d = getattr(lib, dtype)
        x = lib.tensor([[-1.0, 0.0, 2.0, float("nan")], [3.0, -0.0, -2.0, 1.0]], dtype=d,
                       requires_grad=True)
        g = lib.tensor([[float("nan"), float("inf"), float("nan"), -float("inf")],
                        [-0.0, float("nan"), -float("inf"), 5.0]], dtype=d)
        (gx,) = lib.autograd.grad(lib.relu(x), x, g)
        (gb,) = lib.autograd.grad(lib.relu(x * 2).sum(0), x, lib.tensor([1.0, 2.0, 3.0, 4.0],
                                                                         dtype=d))
        y = lib.relu(x) * x
        (gg_,) = lib.autograd.grad(y.sum(), x, create_graph=True)
        (g2,) = lib.autograd.grad((gg_ * g.nan_to_num()).sum(), x)
        bits = {"float16": "<u2", "float32": "<u4", "float64": "<u8"}[dtype]
        return [t.detach().numpy().view(bits) for t in (gx, gb)], g2     # compared bit for bit
    same(program)
