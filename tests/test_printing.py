"""Differential tests: glassgrad._printing against torch's own repr."""

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

from glassgrad import _printing
from glassgrad._printing import get_printoptions, set_printoptions, tensor_repr

DTYPES = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"]


@pytest.fixture(autouse=True)
def _reset_printing():
    set_printoptions(profile="default")
    torch.set_printoptions(profile="default")
    yield
    set_printoptions(profile="default")
    torch.set_printoptions(profile="default")
    torch.set_default_dtype(torch.float32)


def name_of(dtype):
    return str(dtype).removeprefix("torch.")


def check(arr):
    """Compare against torch for an ndarray; returns the text."""
    arr = np.asarray(arr)
    t = torch.from_numpy(arr.copy())
    got = tensor_repr(arr, name_of(t.dtype))
    assert got == repr(t)
    assert got == str(t)
    return got


def check_tensor(t):
    """Compare against torch for a torch tensor (possibly requiring grad)."""
    got = tensor_repr(
        t.detach().numpy(),
        name_of(t.dtype),
        grad_fn_name=type(t.grad_fn).__name__ if t.grad_fn is not None else None,
        requires_grad=t.requires_grad,
        is_leaf=t.is_leaf,
        default_dtype_name=name_of(torch.get_default_dtype()),
    )
    assert got == repr(t)
    return got


rng = np.random.default_rng(12345)
nan, inf = float("nan"), float("inf")

EDGE_CASES = {
    # 0-d
    "0d_int": np.array(7, dtype=np.int64),
    "0d_negint": np.array(-120, dtype=np.int8),
    "0d_uint8": np.array(255, dtype=np.uint8),
    "0d_float": np.array(3.14159265, dtype=np.float32),
    "0d_intfloat": np.array(27.0, dtype=np.float32),
    "0d_f64": np.array(2.5, dtype=np.float64),
    "0d_f16": np.array(1.5, dtype=np.float16),
    "0d_true": np.array(True),
    "0d_false": np.array(False),
    "0d_zero": np.array(0.0, dtype=np.float32),
    "0d_negzero": np.array(-0.0, dtype=np.float32),
    "0d_nan": np.array(nan, dtype=np.float32),
    "0d_inf": np.array(-inf, dtype=np.float64),
    "0d_tiny": np.array(1e-7, dtype=np.float32),
    "0d_huge": np.array(3e12, dtype=np.float64),
    "0d_huge_int_valued": np.array(1e9, dtype=np.float32),
    # 1-d basics
    "int_valued": np.array([1.0, 2.0], dtype=np.float32),
    "int_valued_neg": np.array([-1.0, 20.0, 300.0], dtype=np.float64),
    "fractions": np.array([0.1, 0.25, -1.5], dtype=np.float32),
    "ints": np.array([1, -22, 333], dtype=np.int32),
    "int64s": np.array([10**15, -3], dtype=np.int64),
    "int16s": np.array([-32768, 32767], dtype=np.int16),
    "uint8s": np.array([0, 7, 255], dtype=np.uint8),
    "bools": np.array([True, False, True]),
    "bools_true": np.array([True, True]),
    # scientific notation triggers
    "ratio_over_1000": np.array([1.0, 1001.0, 5.5], dtype=np.float32),
    "ratio_exact_1000": np.array([1.0, 1000.0, 5.5], dtype=np.float64),
    "ratio_int_valued": np.array([1.0, 100000.0], dtype=np.float32),
    "max_over_1e8": np.array([2e8, 3e8], dtype=np.float64),
    "max_exact_1e8": np.array([1e8, 2e7], dtype=np.float64),
    "min_under_1e-4": np.array([5e-5, 6e-5], dtype=np.float32),
    "min_exact_1e-4": np.array([1e-4, 2e-4], dtype=np.float64),
    "tiny": np.array([1e-30, -2e-35], dtype=np.float32),
    "huge": np.array([1e300, -1e299], dtype=np.float64),
    "ratio_overflows": np.array([1e300, 1e-300], dtype=np.float64),
    "mixed_mag": np.array([1e-3, 1.0, 1e6, -42.0], dtype=np.float64),
    # nan / inf / zeros
    "nan_inf_mix": np.array([nan, inf, -inf, 1.5], dtype=np.float32),
    "nan_inf_int_valued": np.array([nan, inf, -inf, 2.0], dtype=np.float32),
    "nan_inf_sci": np.array([nan, inf, 1e-8, 3.0], dtype=np.float64),
    "only_nonfinite": np.array([nan, inf, -inf], dtype=np.float32),
    "only_zeros": np.zeros(4, dtype=np.float32),
    "neg_zero": np.array([-0.0, 0.0, 1.0], dtype=np.float32),
    "neg_zero_frac": np.array([-0.0, 0.5], dtype=np.float64),
    "neg_zero_sci": np.array([-0.0, 1e-9], dtype=np.float64),
    "neg_zero_only": np.array([-0.0, -0.0], dtype=np.float32),
    "f16_mix": np.array([65504.0, 0.001, nan, -inf], dtype=np.float16),
    "f16_tiny": np.array([6e-8, 1.0], dtype=np.float16),
    "f16_frac": np.array([0.1, 0.2, 0.3], dtype=np.float16),
    # empty
    "empty_f32": np.zeros((0,), dtype=np.float32),
    "empty_i64": np.zeros((0,), dtype=np.int64),
    "empty_bool": np.zeros((0,), dtype=bool),
    "empty_f64_2x0": np.zeros((2, 0), dtype=np.float64),
    "empty_0x3x1": np.zeros((0, 3, 1), dtype=np.int32),
    "empty_f16": np.zeros((0, 0), dtype=np.float16),
    # n-d
    "2d_int_valued": np.arange(12, dtype=np.float32).reshape(3, 4),
    "2d_random": rng.standard_normal((4, 5)).astype(np.float32),
    "3d_random": rng.standard_normal((2, 3, 4)),
    "4d_random": rng.standard_normal((2, 2, 2, 3)).astype(np.float32),
    "4d_ints": rng.integers(-1000, 1000, (2, 3, 2, 2)),
    "5d_bools": rng.random((2, 1, 2, 1, 2)) > 0.5,
    "2d_sci": (rng.standard_normal((3, 3)) * 10.0 ** rng.integers(-8, 8, (3, 3))),
    "2d_one_col": np.ones((3, 1), dtype=np.float32),
    "2d_one_row": np.ones((1, 3), dtype=np.int8),
    "noncontig_T": np.arange(20, dtype=np.float64).reshape(4, 5).T / 7,
    "noncontig_stride": np.arange(40, dtype=np.int16)[::3],
    # wrapping
    "wide_row_float": rng.standard_normal(40).astype(np.float32),
    "wide_row_int": np.arange(100, dtype=np.int64) * 1234,
    "wide_row_sci": rng.standard_normal(30) * 1e10,
    "wide_2d": rng.standard_normal((3, 30)),
    "wide_3d": rng.integers(0, 10**6, (2, 2, 25)).astype(np.int32),
    "wide_bool": rng.random(50) > 0.3,
    # summarisation (> 1000 elements)
    "summ_1d": rng.standard_normal(2000).astype(np.float32),
    "summ_1d_ints": np.arange(1001, dtype=np.int64),
    "summ_1d_uint8": (np.arange(5000) % 256).astype(np.uint8),
    "summ_2d": rng.standard_normal((50, 40)),
    "summ_2d_narrow": rng.standard_normal((1001, 1)).astype(np.float32),
    "summ_2d_short_rows": rng.standard_normal((4, 300)).astype(np.float16),
    "summ_3d": rng.standard_normal((12, 11, 10)).astype(np.float32),
    "summ_3d_int_valued": np.arange(2 * 30 * 30, dtype=np.float64).reshape(2, 30, 30),
    "summ_4d": rng.integers(-50, 50, (7, 6, 5, 8)).astype(np.int8),
    "summ_hidden_outlier": np.concatenate([np.ones(600), [1e9], np.full(600, 2.5)]),
    "summ_nan_edges": np.concatenate([[nan, inf], rng.standard_normal(1500), [-inf]]),
    "exactly_1000": rng.standard_normal(1000).astype(np.float32),
}


@pytest.mark.parametrize("name", list(EDGE_CASES))
def test_edge_cases(name):
    check(EDGE_CASES[name])


@pytest.mark.parametrize("name", ["0d_int", "ints", "fractions", "bools", "2d_random", "nan_inf_mix"])
def test_matches_torch_tensor_constructor(name):
    arr = EDGE_CASES[name]
    t = torch.tensor(arr)
    assert tensor_repr(arr, name_of(t.dtype)) == repr(t)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (1,), (5,), (3, 4), (2, 3, 2), (0,), (3, 0), (1200,), (40, 40)])
def test_every_dtype_and_shape(dtype, shape):
    if dtype == "bool":
        arr = rng.random(shape) > 0.5
    elif dtype.startswith("float"):
        arr = (rng.standard_normal(shape) * 100).astype(dtype)
    else:
        info = np.iinfo(dtype)
        arr = rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
    check(arr)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("scale", [1e-12, 1e-5, 1e-2, 1.0, 1e3, 1e7, 1e9, 1e30])
def test_float_magnitudes(dtype, scale):
    with np.errstate(over="ignore"):
        arr = (rng.standard_normal(17) * scale).astype(dtype)
    check(arr)
    check(np.round(arr))


# ---------------------------------------------------------------- autograd suffixes

def _leaf(dtype=torch.float32, shape=(3,)):
    return torch.arange(1, math.prod(shape) + 1, dtype=dtype).reshape(shape).div(3).requires_grad_()


@pytest.mark.parametrize("case", [
    "leaf", "leaf_f64", "leaf_0d", "nonleaf_mul", "nonleaf_double", "nonleaf_sum",
    "nonleaf_2d", "nonleaf_wrapped", "leaf_long_line", "nonleaf_view", "no_grad",
    "leaf_f16", "nonleaf_summarized",
])
def test_autograd_suffixes(case):
    if case == "leaf":
        t = _leaf()
    elif case == "leaf_f64":
        t = _leaf(torch.float64)
    elif case == "leaf_0d":
        t = torch.tensor(2.0, requires_grad=True)
    elif case == "nonleaf_mul":
        t = _leaf() * 2
    elif case == "nonleaf_double":
        t = _leaf().double() * 2
    elif case == "nonleaf_sum":
        t = _leaf().sum()
    elif case == "nonleaf_2d":
        t = _leaf(shape=(3, 4)) @ _leaf(shape=(4, 2))
    elif case == "nonleaf_wrapped":
        t = _leaf(torch.float64, (2, 9)).exp()
    elif case == "leaf_long_line":
        t = torch.linspace(0, 1, 7, dtype=torch.float64).requires_grad_()
    elif case == "nonleaf_view":
        t = _leaf(shape=(2, 3)).t()
    elif case == "no_grad":
        t = _leaf().detach() * 2
    elif case == "leaf_f16":
        t = torch.tensor([1.5, 2.25], dtype=torch.float16, requires_grad=True)
    else:
        t = (_leaf(torch.float64, (40, 40)) + 1).tanh()
    check_tensor(t)


@pytest.mark.parametrize("n", range(1, 13))
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_suffix_wrapping_boundary(n, dtype):
    # vary the last-line length so the suffixes fall on both sides of linewidth
    t = (torch.arange(n, dtype=dtype) / 7).requires_grad_()
    check_tensor(t)
    check_tensor(t * 3)
    check_tensor(t.to(torch.float16) * 3)


@pytest.mark.parametrize("arr", [np.ones(3, np.float32), np.ones(3), np.zeros((0,), np.float32),
                                 np.zeros((0,)), np.array(1.5, np.float32)], ids=str)
def test_default_dtype_float64(arr):
    torch.set_default_dtype(torch.float64)
    t = torch.from_numpy(arr.copy())
    assert tensor_repr(arr, name_of(t.dtype), default_dtype_name="float64") == repr(t)


def test_tensor_contents():
    t = torch.ones(2, 3, dtype=torch.float64, requires_grad=True)
    expected = torch._tensor_str._str(t, tensor_contents="[custom]")
    got = tensor_repr(t.detach().numpy(), "float64", requires_grad=True, tensor_contents="[custom]")
    assert got == expected
    e = torch.zeros(0, 2, dtype=torch.int64)
    assert tensor_repr(e.numpy(), "int64", tensor_contents="X") == torch._tensor_str._str(
        e, tensor_contents="X")


# ---------------------------------------------------------------- print options

OPTION_SETS = {
    "precision2": dict(precision=2),
    "precision0": dict(precision=0),
    "precision8": dict(precision=8),
    "sci_false": dict(sci_mode=False),
    "sci_true": dict(sci_mode=True),
    "threshold5": dict(threshold=5),
    "threshold0": dict(threshold=0),
    "edgeitems2": dict(edgeitems=2),
    "edgeitems1_threshold5": dict(edgeitems=1, threshold=5),
    "edgeitems0": dict(edgeitems=0),
    "edgeitems0_threshold5": dict(edgeitems=0, threshold=5),
    "linewidth40": dict(linewidth=40),
    "linewidth10": dict(linewidth=10),
    "linewidth200": dict(linewidth=200),
    "profile_full": dict(profile="full"),
    "profile_short": dict(profile="short"),
    "profile_default": dict(profile="default"),
    "profile_short_precision6": dict(profile="short", precision=6),
    "combo": dict(precision=3, threshold=20, edgeitems=2, linewidth=50, sci_mode=True),
}

OPTION_ARRAYS = ["0d_float", "0d_intfloat", "0d_true", "0d_nan", "ints", "bools", "int_valued",
                 "fractions", "ratio_over_1000", "nan_inf_mix", "only_nonfinite", "neg_zero",
                 "f16_mix", "empty_f64_2x0", "empty_i64", "2d_random", "4d_random",
                 "wide_row_float", "wide_row_int", "wide_2d", "summ_1d", "summ_2d", "summ_3d",
                 "summ_4d", "exactly_1000", "summ_1d_ints", "5d_bools"]


@pytest.mark.parametrize("arr_name", OPTION_ARRAYS)
@pytest.mark.parametrize("opt_name", list(OPTION_SETS))
def test_printoptions(opt_name, arr_name):
    set_printoptions(**OPTION_SETS[opt_name])
    torch.set_printoptions(**OPTION_SETS[opt_name])
    assert get_printoptions() == torch._tensor_str.get_printoptions()
    check(EDGE_CASES[arr_name])


@pytest.mark.parametrize("opt_name", list(OPTION_SETS))
def test_printoptions_with_suffixes(opt_name):
    set_printoptions(**OPTION_SETS[opt_name])
    torch.set_printoptions(**OPTION_SETS[opt_name])
    check_tensor(_leaf(torch.float64, (2, 5)))
    check_tensor(_leaf(torch.float16, (3, 4)) * 2)


def test_get_printoptions_defaults_and_reset():
    assert get_printoptions() == torch._tensor_str.get_printoptions()
    assert list(get_printoptions()) == list(torch._tensor_str.get_printoptions())
    set_printoptions(precision=7, sci_mode=True)
    torch.set_printoptions(precision=7, sci_mode=True)
    assert get_printoptions() == torch._tensor_str.get_printoptions()
    set_printoptions(linewidth=100)  # sci_mode falls back to None when omitted
    torch.set_printoptions(linewidth=100)
    assert get_printoptions() == torch._tensor_str.get_printoptions()
    set_printoptions(profile="nonsense")  # unknown profiles are ignored, as in torch
    torch.set_printoptions(profile="nonsense")
    assert get_printoptions() == torch._tensor_str.get_printoptions()
    set_printoptions(profile="default")
    assert get_printoptions() == {"precision": 4, "threshold": 1000, "edgeitems": 3,
                                  "linewidth": 80, "sci_mode": None}


def test_get_printoptions_returns_copy():
    get_printoptions()["precision"] = 99
    assert get_printoptions()["precision"] == 4


def test_printoptions_context_manager():
    arr = np.array([1.25, 2.5, 3.75, 5.0])
    with _printing.printoptions(precision=1, threshold=3):
        assert get_printoptions()["precision"] == 1
        torch.set_printoptions(precision=1, threshold=3)
        check(arr)
    assert get_printoptions() == {"precision": 4, "threshold": 1000, "edgeitems": 3,
                                  "linewidth": 80, "sci_mode": None}


# ---------------------------------------------------------------- hypothesis

@st.composite
def float_arrays(draw):
    dtype = draw(st.sampled_from([np.float16, np.float32, np.float64]))
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=6))
    mantissa = draw(hnp.arrays(np.float64, shape, elements=st.floats(-10, 10, allow_nan=False)))
    exponent = draw(hnp.arrays(np.int64, shape, elements=st.integers(-12, 12)))
    special = draw(hnp.arrays(np.int64, shape, elements=st.sampled_from(
        [0] * 12 + [1, 2, 3, 4, 5])))
    values = mantissa * 10.0 ** exponent
    if draw(st.booleans()):
        values = np.round(values)
    values = np.where(special == 1, nan, values)
    values = np.where(special == 2, inf, values)
    values = np.where(special == 3, -inf, values)
    values = np.where(special == 4, 0.0, values)
    values = np.where(special == 5, -0.0, values)
    with np.errstate(over="ignore"):
        return np.asarray(values.astype(dtype))


@settings(max_examples=200, deadline=None)
@given(float_arrays())
def test_hypothesis_floats(arr):
    check(arr)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(DTYPES[3:8]).flatmap(lambda d: hnp.arrays(
    d, hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=6))))
def test_hypothesis_ints(arr):
    check(arr)


@settings(max_examples=200, deadline=None)
@given(arr=float_arrays(),
       precision=st.integers(0, 8),
       linewidth=st.integers(10, 120),
       threshold=st.integers(0, 60),
       edgeitems=st.integers(0, 4),
       sci_mode=st.sampled_from([None, True, False]),
       grad=st.sampled_from(["none", "leaf", "fn"]))
def test_hypothesis_options_and_suffixes(arr, precision, linewidth, threshold, edgeitems,
                                         sci_mode, grad):
    opts = dict(precision=precision, linewidth=linewidth, threshold=threshold,
                edgeitems=edgeitems, sci_mode=sci_mode)
    set_printoptions(**opts)
    torch.set_printoptions(**opts)
    try:
        t = torch.from_numpy(arr.copy())
        if grad != "none":
            t.requires_grad_()
            if grad == "fn":
                t = t * 1
        check_tensor(t)
    finally:
        set_printoptions(profile="default")
        torch.set_printoptions(profile="default")
