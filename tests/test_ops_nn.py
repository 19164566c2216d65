"""NN-style ops (glassgrad/ops/nn.py) beyond their op-table cases (opinfo.py, run by
test_op_table.py): values without gradients, warnings, namespaces and errors, against torch.
torch computes every expectation."""
import warnings

import numpy as np
import pytest
import torch

import glassgrad as gg
from opinfo import F
from optable import assert_same, check_error, outcome

# (the op-table cases are in opinfo.py; test_op_table.py runs them)


# -- values without gradients --------------------------------------------------------------
def _ints(t):
    return t.tensor([[0, 3, 1], [2, 2, 0]])


VALUES = {
    "one_hot": lambda t: F(t).one_hot(_ints(t)),
    "one_hot_n": lambda t: F(t).one_hot(_ints(t), 5),
    "one_hot_0d": lambda t: F(t).one_hot(t.tensor(2)),
    "one_hot_empty_n": lambda t: F(t).one_hot(t.zeros(0, dtype=t.int64), 4),
    "pad_int_value": lambda t: F(t).pad(t.tensor([1, 2]), (1, 1), value=2.5),
    "pad_reflect_int": lambda t: F(t).pad(t.tensor([[1, 2, 3]]), (2, 1), mode="reflect"),
    "pad_replicate_int": lambda t: F(t).pad(t.tensor([[1, 2, 3]]), (2, 1), mode="replicate"),
    "pad_reflect_value0": lambda t: F(t).pad(t.ones(1, 3), (1, 1), mode="reflect", value=0.),
    "pad_0d_empty": lambda t: F(t).pad(t.tensor(1.5), ()),
    "pad_circular_to_empty": lambda t: F(t).pad(t.ones(1, 3), (-4, 1), mode="circular"),
    "pad_circular_int": lambda t: F(t).pad(t.tensor([[1, 2, 3]]), (2, 1), mode="circular"),
    "pad_circular_value0": lambda t: F(t).pad(t.ones(1, 3), (1, 1), mode="circular", value=0.),
    "pad_circular_version": lambda t: F(t).pad(t.ones(1, 3, requires_grad=True), (1, 2, 0, 0),
                                               mode="circular")._version,
    "pad_replicate_neg_big": lambda t: F(t).pad(t.ones(1, 3), (-3, 1), mode="replicate"),
    "softmax_f16": lambda t: F(t).softmax(t.tensor([1., 2., 3.], dtype=t.float16), 0),
    "log_softmax_f16": lambda t: t.log_softmax(t.tensor([1., 2., 3.], dtype=t.float16), 0),
    "softmax_int_dtype": lambda t: F(t).softmax(t.tensor([1, 2]), 0, dtype=t.float64),
    "softmax_empty": lambda t: F(t).softmax(t.ones(0, 3), 1),
    "softmax_large": lambda t: F(t).softmax(t.tensor([1000., 0.]), 0),
    "log_softmax_large": lambda t: F(t).log_softmax(t.tensor([1000., 0.]), 0),
    "cosine_int": lambda t: F(t).cosine_similarity(t.tensor([[1, 2]]), t.tensor([[1., 3.]])),
    "cosine_zero": lambda t: F(t).cosine_similarity(t.zeros(2, 3), t.ones(2, 3)),
    "pairwise_int": lambda t: F(t).pairwise_distance(t.tensor([[1, 2]]), t.tensor([[1, 3]])),
    "normalize_0d": lambda t: F(t).normalize(t.tensor(-2.), dim=0),
    "cdist_empty": lambda t: t.cdist(t.ones(0, 3), t.ones(2, 3)),
    "cdist_zero_cols": lambda t: t.cdist(t.ones(2, 0), t.ones(3, 0)),
    "cdist_identical": lambda t: t.cdist(t.tensor([[1., 2.]]), t.tensor([[1., 2.], [0., 0.]])),
    "linear_int": lambda t: F(t).linear(t.tensor([[1, 2]]), t.tensor([[3, 4]]), t.tensor([1])),
    "dropout_int_eval": lambda t: F(t).dropout(t.tensor([1, 2]), 0.5, False),
    "dropout_int_p1": lambda t: F(t).dropout(t.tensor([1, 2]), 1.0),
    "dropout_empty": lambda t: F(t).dropout(t.ones(0, 2), 0.5),
}


@pytest.mark.parametrize("f", VALUES.values(), ids=VALUES.keys())
def test_values(f):
    ref, ref_err = outcome(lambda: f(torch))
    got, got_err = outcome(lambda: f(gg))
    assert got_err == ref_err
    assert_same(ref, got)


def test_circular_pad_of_empty_batch():
    """An empty batch: torch still copies into the (empty) result, versions bumped."""
    def program(t):
        out = F(t).pad(t.ones(0, 3), (1, 1), mode="circular")
        return out, out._version
    ref, ref_err = outcome(lambda: program(torch))
    got, got_err = outcome(lambda: program(gg))
    assert got_err == ref_err
    assert_same(ref[0], got[0])
    assert got[1] == ref[1]


def test_softmax_implicit_dim_warns():
    for ndim, shape in ((1, (3,)), (2, (2, 3)), (3, (2, 3, 4)), (4, (2, 3, 2, 2))):
        x = np.random.default_rng(ndim).standard_normal(shape)
        outs = []
        for lib in (torch, gg):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                outs.append(F(lib).softmax(lib.tensor(x)))
            assert [str(m.message) for m in w if m.category is UserWarning], lib.__name__
        assert_same(*outs)


def test_dropout_training_eval_returns_input():
    for lib in (torch, gg):
        x = lib.ones(3, requires_grad=True)
        assert F(lib).dropout(x, 0.5, training=False) is x
        assert F(lib).dropout(x, 0.0) is x
        assert lib.dropout(x, 0.7, False) is x


def test_namespaces():
    """Each name lives where torch has it: top level, Tensor method, nn.functional."""
    names = ["softmax", "log_softmax", "dropout", "linear", "one_hot", "pad", "normalize",
             "cosine_similarity", "pairwise_distance", "cdist", "relu", "relu_", "clamp_min",
             "clamp_max", "clamp_min_", "clamp_max_"]
    for name in names:
        assert hasattr(gg, name) == hasattr(torch, name), name
        assert hasattr(gg.Tensor, name) == hasattr(torch.Tensor, name), name
        assert hasattr(F(gg), name) == hasattr(F(torch), name), name


# -- errors ----------------------------------------------------------------------------------
def _T(t, *s, **kw):
    return t.ones(*s, **kw)


ERRORS = {
    "softmax_int": lambda t: F(t).softmax(t.tensor([1, 2]), 0),
    "softmax_int_dim0": lambda t: F(t).softmax(t.tensor([[1, 2]]), 0),
    "softmax_bool": lambda t: t.tensor([True]).softmax(0),
    "log_softmax_int": lambda t: F(t).log_softmax(t.tensor([[1, 2]]), 1),
    "log_softmax_int_dim0": lambda t: t.log_softmax(t.tensor([[1, 2]]), 0),
    "softmax_dim": lambda t: F(t).softmax(_T(t, 2, 3), 2),
    "log_softmax_dim": lambda t: _T(t, 2, 3).log_softmax(-3),
    "dropout_p": lambda t: F(t).dropout(_T(t, 3), 1.5),
    "dropout_pneg": lambda t: F(t).dropout(_T(t, 3), -0.1),
    "dropout_top_p": lambda t: t.dropout(_T(t, 3), 1.5, True),
    "dropout_top_pneg": lambda t: t.dropout(_T(t, 3), -0.5, True),
    "dropout__top_p": lambda t: t.dropout_(_T(t, 3), 1.5, True),
    "dropout__leaf": lambda t: t.dropout_(_T(t, 3, requires_grad=True), 0.5, True),
    "dropout_int": lambda t: F(t).dropout(t.tensor([1, 2]), 0.5),
    "dropout_leaf_inplace": lambda t: F(t).dropout(_T(t, 3, requires_grad=True), 0.5,
                                                   inplace=True),
    "linear_0d": lambda t: F(t).linear(t.tensor(1.), _T(t, 3)),
    "linear_w0d": lambda t: F(t).linear(_T(t, 3), t.tensor(1.)),
    "linear_shape": lambda t: F(t).linear(_T(t, 3, 3), _T(t, 5, 4), _T(t, 5)),
    "linear_shape_3d": lambda t: F(t).linear(_T(t, 2, 3, 3), _T(t, 5, 4), _T(t, 5)),
    "linear_shape_nobias": lambda t: F(t).linear(_T(t, 2, 3, 3), _T(t, 5, 4)),
    "linear_w_dtype": lambda t: F(t).linear(_T(t, 3, 4), _T(t, 5, 4, dtype=t.float64), _T(t, 5)),
    "linear_b_dtype": lambda t: F(t).linear(_T(t, 3, 4), _T(t, 5, 4), _T(t, 5, dtype=t.float64)),
    "linear_x_dtype": lambda t: F(t).linear(_T(t, 3, 4, dtype=t.float64), _T(t, 5, 4), _T(t, 5)),
    "linear_x_dtype_3d": lambda t: F(t).linear(_T(t, 2, 3, 4, dtype=t.float64), _T(t, 5, 4),
                                               _T(t, 5)),
    "linear_nobias_dtype": lambda t: F(t).linear(_T(t, 3, 4), _T(t, 5, 4, dtype=t.float64)),
    "linear_bias_shape": lambda t: F(t).linear(_T(t, 3, 4), _T(t, 5, 4), _T(t, 3)),
    "linear_bias_3d": lambda t: F(t).linear(_T(t, 3, 4), _T(t, 5, 4), _T(t, 2, 3, 5)),
    "linear_w3d": lambda t: F(t).linear(_T(t, 3, 4), _T(t, 2, 5, 4)),
    "linear_w1d_bias": lambda t: F(t).linear(_T(t, 3, 4), _T(t, 4), _T(t, ())),
    "linear_int_float": lambda t: F(t).linear(_T(t, 3, 4).int(), _T(t, 5, 4), _T(t, 1)),
    "linear_order": lambda t: F(t).linear(_T(t, 3, 3, dtype=t.float64), _T(t, 4, 5), _T(t, 2)),
    "one_hot_float": lambda t: F(t).one_hot(_T(t, 3)),
    "one_hot_int32": lambda t: F(t).one_hot(t.tensor([1], dtype=t.int32)),
    "one_hot_neg": lambda t: F(t).one_hot(t.tensor([-1, 0])),
    "one_hot_big": lambda t: F(t).one_hot(t.tensor([3, 0]), 3),
    "one_hot_empty": lambda t: F(t).one_hot(t.zeros(0, dtype=t.int64)),
    "one_hot_n-2": lambda t: F(t).one_hot(t.tensor([1]), -2),
    "pad_odd": lambda t: F(t).pad(_T(t, 3), (1,)),
    "pad_too_long": lambda t: F(t).pad(_T(t, 3), (1, 1, 1, 1)),
    "pad_0d": lambda t: F(t).pad(t.tensor(1.), (1, 1)),
    "pad_mode": lambda t: F(t).pad(_T(t, 1, 3), (1, 1), mode="foo"),
    "pad_mode_first": lambda t: F(t).pad(_T(t, 3), (1,), mode="foo"),
    "pad_neg_too_big": lambda t: F(t).pad(_T(t, 3), (-2, -2)),
    "pad_neg_too_big_left": lambda t: F(t).pad(_T(t, 3), (-4, 2)),
    "pad_reflect_big": lambda t: F(t).pad(_T(t, 1, 3), (3, 1), mode="reflect"),
    "pad_reflect_big_right": lambda t: F(t).pad(_T(t, 2, 1, 3), (1, 3), mode="reflect"),
    "pad_reflect_big2": lambda t: F(t).pad(_T(t, 1, 3, 3), (1, 1, 3, 1), mode="reflect"),
    "pad_reflect_big2w": lambda t: F(t).pad(_T(t, 1, 3, 3), (3, 1, 1, 1), mode="reflect"),
    "pad_reflect_big3": lambda t: F(t).pad(_T(t, 1, 3, 3, 3), (1, 1, 1, 1, 3, 1), mode="reflect"),
    "pad_reflect_1d": lambda t: F(t).pad(_T(t, 3), (1, 1), mode="reflect"),
    "pad_reflect_4d_1d": lambda t: F(t).pad(_T(t, 1, 1, 1, 3), (1, 1), mode="reflect"),
    "pad_reflect_2d_on_2d": lambda t: F(t).pad(_T(t, 2, 3), (1, 1, 1, 1), mode="reflect"),
    "pad_reflect_value": lambda t: F(t).pad(_T(t, 1, 3), (1, 1), mode="reflect", value=1.),
    "pad_replicate_value": lambda t: F(t).pad(_T(t, 1, 3), (1, 1), mode="replicate", value=2),
    "pad_reflect_8pad": lambda t: F(t).pad(_T(t, 1, 1, 1, 1, 3), (1,) * 8, mode="reflect"),
    "pad_replicate_1d": lambda t: F(t).pad(_T(t, 3), (1, 1), mode="replicate"),
    "pad_replicate_empty": lambda t: F(t).pad(_T(t, 0, 3), (1, 1), mode="replicate"),
    "pad_reflect_empty": lambda t: F(t).pad(_T(t, 1, 0), (1, 1), mode="reflect"),
    "pad_reflect_empty2": lambda t: F(t).pad(_T(t, 1, 0, 3), (1, 1, 1, 1), mode="reflect"),
    "pad_replicate_empty3": lambda t: F(t).pad(_T(t, 1, 1, 0, 3), (1,) * 6, mode="replicate"),
    "pad_circular_1d": lambda t: F(t).pad(_T(t, 3), (1, 1), mode="circular"),
    "pad_circular_wrap": lambda t: F(t).pad(_T(t, 1, 3), (4, 1), mode="circular"),
    "pad_circular_wrap_right": lambda t: F(t).pad(_T(t, 2, 1, 3), (1, 4), mode="circular"),
    "pad_circular_value": lambda t: F(t).pad(_T(t, 1, 3), (1, 1), mode="circular", value=1.),
    "pad_circular_2d_on_2d": lambda t: F(t).pad(_T(t, 2, 3), (1, 1, 1, 1), mode="circular"),
    "pad_circular_negative": lambda t: F(t).pad(_T(t, 1, 3), (-2, -2), mode="circular"),
    "pad_circular_8pad": lambda t: F(t).pad(_T(t, 1, 1, 1, 1, 3), (1,) * 8, mode="circular"),
    "relu_bool": lambda t: F(t).relu(t.tensor([True]), inplace=True),
    "relu__leaf": lambda t: F(t).relu_(_T(t, 3, requires_grad=True)),
    "normalize_int": lambda t: F(t).normalize(t.tensor([[1, 2]])),
    "normalize_dim": lambda t: F(t).normalize(_T(t, 3), dim=1),
    "cosine_shape": lambda t: F(t).cosine_similarity(_T(t, 3, 4), _T(t, 3, 5)),
    "cosine_int": lambda t: F(t).cosine_similarity(t.tensor([[1, 2]]), t.tensor([[1, 2]])),
    "cosine_dim": lambda t: F(t).cosine_similarity(_T(t, 3), _T(t, 3)),
    "pairwise_shape": lambda t: F(t).pairwise_distance(_T(t, 3, 4), _T(t, 3, 5)),
    "cdist_1d": lambda t: t.cdist(_T(t, 3), _T(t, 3, 3)),
    "cdist_1d_x2": lambda t: t.cdist(_T(t, 3, 3), _T(t, 3)),
    "cdist_cols": lambda t: t.cdist(_T(t, 3, 4), _T(t, 3, 5)),
    "cdist_int": lambda t: t.cdist(_T(t, 3, 4, dtype=t.int64), _T(t, 3, 4, dtype=t.int64)),
    "cdist_int_x2": lambda t: t.cdist(_T(t, 3, 4), _T(t, 3, 4, dtype=t.int64)),
    "cdist_p": lambda t: t.cdist(_T(t, 3, 4), _T(t, 3, 4), p=-1),
    "cdist_dtype": lambda t: t.cdist(_T(t, 3, 4), _T(t, 3, 4, dtype=t.float64)),
    "cdist_mode": lambda t: t.cdist(_T(t, 3, 4), _T(t, 3, 4), compute_mode="foo"),
    "cdist_batch": lambda t: t.cdist(_T(t, 2, 3, 4), _T(t, 3, 2, 4)),
    "cdist_double_backward": lambda t: (lambda x: t.autograd.grad(
        t.autograd.grad(t.cdist(x, x * 2).sum(), x, create_graph=True)[0].sum(), x))(
        _T(t, 3, 2, requires_grad=True) * t.tensor([1., 2.])),
}


@pytest.mark.parametrize("f", ERRORS.values(), ids=ERRORS.keys())
def test_errors(f):
    check_error(f)
