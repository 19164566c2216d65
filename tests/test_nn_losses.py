"""Losses (modules and nn.functional) against torch: values, grad_fn names, gradients of input
and target, every reduction, and torch's errors for wrong target shapes and dtypes."""
import warnings

import numpy as np
import pytest
import torch

import glassgrad as gg
from differential import assert_same, norm, same

REDUCTIONS = ("mean", "sum", "none")


def err(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - errors are compared
        return ("raised", type(e).__name__, str(e))


def arr(*shape, seed=0, lo=None):
    a = np.random.default_rng(seed).standard_normal(shape)
    if lo is not None:      # probabilities in (lo, 1 - lo)
        a = lo + (1 - 2 * lo) / (1 + np.exp(-a))
    return a.astype("float32")


def idx(*values):
    return np.array(values, dtype="int64")


# name -> (loss(t) as a module or a function, input arrays, which take grad)
CASES = {
    "L1Loss": (lambda t, r: t.nn.L1Loss(reduction=r), [arr(3, 4), arr(3, 4, seed=1)], (1, 1)),
    "MSELoss": (lambda t, r: t.nn.MSELoss(reduction=r), [arr(3, 4), arr(3, 4, seed=1)], (1, 1)),
    "MSELoss_bcast": (lambda t, r: t.nn.MSELoss(reduction=r), [arr(3, 4), arr(4, seed=1)],
                      (1, 1)),
    "SmoothL1Loss": (lambda t, r: t.nn.SmoothL1Loss(reduction=r, beta=0.5),
                     [arr(3, 4), arr(3, 4, seed=1)], (1, 1)),
    "SmoothL1Loss_beta0": (lambda t, r: t.nn.SmoothL1Loss(reduction=r, beta=0.0),
                           [arr(3, 4), arr(3, 4, seed=1)], (1, 1)),
    "HuberLoss": (lambda t, r: t.nn.HuberLoss(reduction=r, delta=0.7),
                  [arr(3, 4), arr(3, 4, seed=1)], (1, 1)),
    "BCELoss": (lambda t, r: t.nn.BCELoss(reduction=r),
                [arr(3, 4, lo=0.02), arr(3, 4, seed=1, lo=0.0)], (1, 1)),
    "BCELoss_weight": (lambda t, r: t.nn.BCELoss(weight=t.tensor([1.0, 2.0, 0.5, 3.0]),
                                                 reduction=r),
                       [arr(3, 4, lo=0.02), arr(3, 4, seed=1, lo=0.0)], (1, 0)),
    "BCEWithLogitsLoss": (lambda t, r: t.nn.BCEWithLogitsLoss(reduction=r),
                          [arr(3, 4) * 4, arr(3, 4, seed=1, lo=0.0)], (1, 1)),
    "BCEWithLogitsLoss_pos": (lambda t, r: t.nn.BCEWithLogitsLoss(
        weight=t.tensor([1.0, 2.0, 0.5, 3.0]), pos_weight=t.tensor([0.5, 1.0, 2.0, 4.0]),
        reduction=r), [arr(3, 4) * 4, arr(3, 4, seed=1, lo=0.0)], (1, 1)),
    "NLLLoss": (lambda t, r: t.nn.NLLLoss(reduction=r), [arr(3, 5), idx(0, 4, 2)], (1, 0)),
    "NLLLoss_weight_ignore": (lambda t, r: t.nn.NLLLoss(
        weight=t.tensor([1.0, 2.0, 3.0, 0.5, 1.5]), ignore_index=4, reduction=r),
        [arr(4, 5), idx(0, 4, 2, 2)], (1, 0)),
    "NLLLoss_unbatched": (lambda t, r: t.nn.NLLLoss(reduction=r), [arr(5), np.array(3)], (1, 0)),
    "NLLLoss_2d": (lambda t, r: t.nn.NLLLoss(reduction=r),
                   [arr(2, 3, 2, 2), idx(0, 1, 2, 2, 1, 0, 0, 1).reshape(2, 2, 2)], (1, 0)),
    "NLLLoss_kd": (lambda t, r: t.nn.NLLLoss(reduction=r),
                   [arr(2, 3, 4), idx(0, 1, 2, 2, 1, 0, 0, 1).reshape(2, 4)], (1, 0)),
    "CrossEntropyLoss": (lambda t, r: t.nn.CrossEntropyLoss(reduction=r),
                         [arr(3, 5), idx(0, 4, 2)], (1, 0)),
    "CrossEntropyLoss_weight": (lambda t, r: t.nn.CrossEntropyLoss(
        weight=t.tensor([1.0, 2.0, 3.0, 0.5, 1.5]), reduction=r), [arr(3, 5), idx(0, 4, 2)],
        (1, 0)),
    "CrossEntropyLoss_ignore": (lambda t, r: t.nn.CrossEntropyLoss(ignore_index=2, reduction=r),
                                [arr(3, 5), idx(0, 2, 2)], (1, 0)),
    "CrossEntropyLoss_smoothing": (lambda t, r: t.nn.CrossEntropyLoss(
        label_smoothing=0.2, reduction=r), [arr(3, 5), idx(0, 4, 2)], (1, 0)),
    "CrossEntropyLoss_smoothing_weight_ignore": (lambda t, r: t.nn.CrossEntropyLoss(
        weight=t.tensor([1.0, 2.0, 3.0, 0.5, 1.5]), ignore_index=4, label_smoothing=0.3,
        reduction=r), [arr(4, 5), idx(0, 4, 2, 1)], (1, 0)),
    "CrossEntropyLoss_probs": (lambda t, r: t.nn.CrossEntropyLoss(reduction=r),
                               [arr(3, 5), arr(3, 5, seed=1, lo=0.0)], (1, 1)),
    "CrossEntropyLoss_probs_weight_smoothing": (lambda t, r: t.nn.CrossEntropyLoss(
        weight=t.tensor([1.0, 2.0, 3.0, 0.5, 1.5]), label_smoothing=0.1, reduction=r),
        [arr(3, 5), arr(3, 5, seed=1, lo=0.0)], (1, 1)),
    "CrossEntropyLoss_kd": (lambda t, r: t.nn.CrossEntropyLoss(reduction=r),
                            [arr(2, 3, 2, 2), idx(0, 1, 2, 2, 1, 0, 0, 1).reshape(2, 2, 2)],
                            (1, 0)),
    "CrossEntropyLoss_unbatched": (lambda t, r: t.nn.CrossEntropyLoss(reduction=r),
                                   [arr(5), np.array(1)], (1, 0)),
    "KLDivLoss": (lambda t, r: t.nn.KLDivLoss(reduction=r),
                  [arr(3, 4), arr(3, 4, seed=1, lo=0.0)], (1, 1)),
    "KLDivLoss_log_target": (lambda t, r: t.nn.KLDivLoss(reduction=r, log_target=True),
                             [arr(3, 4), arr(3, 4, seed=1)], (1, 1)),
    "SoftMarginLoss": (lambda t, r: t.nn.SoftMarginLoss(reduction=r),
                       [arr(3, 4), np.sign(arr(3, 4, seed=1))], (1, 0)),
    "MultiLabelSoftMarginLoss": (lambda t, r: t.nn.MultiLabelSoftMarginLoss(
        weight=t.tensor([1.0, 2.0, 0.5, 3.0]), reduction=r),
        [arr(3, 4), (arr(3, 4, seed=1) > 0).astype("float32")], (1, 0)),
    "MarginRankingLoss": (lambda t, r: t.nn.MarginRankingLoss(margin=0.3, reduction=r),
                          [arr(5), arr(5, seed=1), np.sign(arr(5, seed=2))], (1, 1, 0)),
    "HingeEmbeddingLoss": (lambda t, r: t.nn.HingeEmbeddingLoss(margin=0.5, reduction=r),
                           [arr(3, 4), np.sign(arr(3, 4, seed=1))], (1, 0)),
    "CosineEmbeddingLoss": (lambda t, r: t.nn.CosineEmbeddingLoss(margin=0.1, reduction=r),
                            [arr(3, 4), arr(3, 4, seed=1), np.sign(arr(3, seed=2))], (1, 1, 0)),
    "TripletMarginLoss": (lambda t, r: t.nn.TripletMarginLoss(reduction=r),
                          [arr(3, 4), arr(3, 4, seed=1), arr(3, 4, seed=2)], (1, 1, 1)),
    "TripletMarginLoss_swap": (lambda t, r: t.nn.TripletMarginLoss(margin=2.0, p=1, swap=True,
                                                                   reduction=r),
                               [arr(3, 4), arr(3, 4, seed=1), arr(3, 4, seed=2)], (1, 1, 1)),
    "PoissonNLLLoss": (lambda t, r: t.nn.PoissonNLLLoss(reduction=r),
                       [arr(3, 4), np.abs(arr(3, 4, seed=1)) * 3], (1, 1)),
    "PoissonNLLLoss_full": (lambda t, r: t.nn.PoissonNLLLoss(log_input=False, full=True,
                                                             reduction=r),
                            [np.abs(arr(3, 4)), np.abs(arr(3, 4, seed=1)) * 3], (1, 0)),
    "GaussianNLLLoss": (lambda t, r: t.nn.GaussianNLLLoss(reduction=r),
                        [arr(3, 4), arr(3, 4, seed=1), np.abs(arr(3, 4, seed=2))], (1, 1, 1)),
    "GaussianNLLLoss_full_var": (lambda t, r: t.nn.GaussianNLLLoss(full=True, reduction=r),
                                 [arr(3, 4), arr(3, 4, seed=1), np.abs(arr(3, seed=2))],
                                 (1, 1, 1)),
}


def _run(lib, name, reduction):
    make, arrays, grads = CASES[name]
    ins = [lib.tensor(a, requires_grad=bool(g) and a.dtype.kind == "f")
           for a, g in zip(arrays, grads)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = make(lib, reduction)(*ins)
    out.backward(lib.ones_like(out) * 0.5 + lib.arange(out.numel()).reshape(out.shape) * 0.25)
    return out, type(out.grad_fn).__name__, [i.grad for i in ins], repr(make(lib, reduction))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", CASES)
def test_loss_module(name, reduction):
    assert_same(norm(_run(torch, name, reduction)), norm(_run(gg, name, reduction)),
                tol={"float32": (2e-5, 1e-6)})


def test_kl_div_batchmean_and_mean_warning():
    def program(t):
        x, y = t.tensor(arr(3, 4), requires_grad=True), t.tensor(arr(3, 4, seed=1, lo=0.0))
        out = t.nn.functional.kl_div(x, y, reduction="batchmean")
        out.backward()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            t.nn.functional.kl_div(x, y)
        return out, type(out.grad_fn).__name__, x.grad, [str(w.message) for w in caught]
    assert_same(norm(program(torch)), norm(program(gg)))


def _f(t):
    return t.nn.functional


ERRORS = {
    "nll_target_float": lambda t: _f(t).nll_loss(t.ones(3, 4), t.ones(3)),
    "nll_batch_mismatch": lambda t: _f(t).nll_loss(t.ones(3, 4), t.tensor([0, 1])),
    "nll_out_of_bounds": lambda t: _f(t).nll_loss(t.ones(3, 4), t.tensor([0, 1, 4])),
    "nll_negative": lambda t: _f(t).nll_loss(t.ones(3, 4), t.tensor([0, -1, 2])),
    "nll_multi_target": lambda t: _f(t).nll_loss(t.ones(3, 4), t.tensor([[0, 1, 1]] * 3)),
    "nll_weight_size": lambda t: _f(t).nll_loss(t.ones(3, 4), t.tensor([0, 1, 2]),
                                                weight=t.ones(3)),
    "nll_0d": lambda t: _f(t).nll_loss(t.tensor(1.0), t.tensor(0)),
    "nll_kd_target": lambda t: _f(t).nll_loss(t.ones(2, 3, 4), t.zeros(2, 5, dtype=t.int64)),
    "ce_probs_int": lambda t: _f(t).cross_entropy(t.ones(3, 4), t.ones(3, 4, dtype=t.int32)),
    "ce_probs_ignore": lambda t: _f(t).cross_entropy(t.ones(3, 4), t.ones(3, 4),
                                                     ignore_index=1),
    "ce_probs_weight": lambda t: _f(t).cross_entropy(t.ones(3, 4), t.ones(3, 4),
                                                     weight=t.ones(3)),
    "ce_smoothing_big": lambda t: _f(t).cross_entropy(t.ones(3, 4), t.tensor([0, 1, 2]),
                                                      label_smoothing=1.5),
    "ce_target_float_wrong_shape": lambda t: _f(t).cross_entropy(t.ones(3, 4), t.ones(3)),
    "ce_bad_reduction": lambda t: _f(t).cross_entropy(t.ones(3, 4), t.tensor([0, 1, 2]),
                                                      reduction="avg"),
    "bce_out_of_range": lambda t: _f(t).binary_cross_entropy(t.tensor([1.5]), t.tensor([1.0])),
    "bce_size": lambda t: _f(t).binary_cross_entropy(t.ones(3) / 2, t.ones(3, 1)),
    "bce_weight_grad": lambda t: _f(t).binary_cross_entropy(
        t.ones(3) / 2, t.ones(3), weight=t.ones(3, requires_grad=True)),
    "bce_logits_size": lambda t: _f(t).binary_cross_entropy_with_logits(t.ones(3), t.ones(1)),
    "mse_shape": lambda t: _f(t).mse_loss(t.ones(3, 4), t.ones(5)),
    "mse_weight_size": lambda t: _f(t).mse_loss(t.ones(3), t.ones(3), weight=t.ones(2)),
    "l1_bad_reduction": lambda t: _f(t).l1_loss(t.ones(3), t.ones(3), reduction="x"),
    "kl_int": lambda t: _f(t).kl_div(t.ones(3), t.tensor([1, 2, 3])),
    "huber_delta_type": lambda t: t.nn.HuberLoss(delta="1"),
    "smooth_l1_negative_beta": lambda t: _f(t).smooth_l1_loss(t.ones(3), t.ones(3), beta=-1.0),
    "margin_ranking_dims": lambda t: _f(t).margin_ranking_loss(t.ones(3), t.ones(3),
                                                               t.ones(1, 3)),
    "cosine_target_2d": lambda t: _f(t).cosine_embedding_loss(t.ones(3, 2), t.ones(3, 2),
                                                              t.ones(3, 1)),
    "cosine_1d_target_1d_inputs": lambda t: _f(t).cosine_embedding_loss(t.ones(3), t.ones(3),
                                                                        t.ones(3)),
    "triplet_margin": lambda t: _f(t).triplet_margin_loss(t.ones(2), t.ones(2), t.ones(2),
                                                          margin=0.0),
    "triplet_module_margin": lambda t: t.nn.TripletMarginLoss(margin=-1),
    "triplet_dims": lambda t: _f(t).triplet_margin_loss(t.ones(2, 2), t.ones(2), t.ones(2)),
    "poisson_reduction": lambda t: _f(t).poisson_nll_loss(t.ones(2), t.ones(2), reduction="x"),
    "gaussian_negative_var": lambda t: _f(t).gaussian_nll_loss(t.ones(2), t.ones(2),
                                                               -t.ones(2)),
    "gaussian_var_size": lambda t: _f(t).gaussian_nll_loss(t.ones(2, 3), t.ones(2, 3),
                                                           t.ones(3, 3)),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors(name):
    def program(t):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return err(ERRORS[name], t)
    assert_same(norm(program(torch)), norm(program(gg)))


WARNINGS = {
    "size_mismatch": lambda t: _f(t).mse_loss(t.ones(3, 4), t.ones(4)),
    "legacy_reduce": lambda t: _f(t).nll_loss(t.ones(3, 4), t.tensor([0, 1, 2]),
                                              size_average=False),
    "legacy_module": lambda t: t.nn.MSELoss(reduce=False).reduction,
}


@pytest.mark.parametrize("name", WARNINGS)
def test_warnings(name):
    def program(t):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = WARNINGS[name](t)
        return out, [(w.category.__name__, str(w.message)) for w in caught]
    assert_same(norm(program(torch)), norm(program(gg)))


def test_state_dict_of_weighted_losses():
    def program(t):
        m = t.nn.BCEWithLogitsLoss(pos_weight=t.ones(2))
        return list(m.state_dict()), list(t.nn.CrossEntropyLoss(weight=t.ones(3)).state_dict()), \
            list(t.nn.NLLLoss().state_dict()), repr(m)
    assert_same(norm(program(torch)), norm(program(gg)))


def test_nll_mean_with_every_target_ignored_like_torch():
    """The mean over zero total weight is nan, its gradient zero (ATen writes only the
    positions it reads), in both libraries."""
    def program(t):
        x = t.tensor([[0.5, 1.0, -1.0], [2.0, 0.1, 0.3]], requires_grad=True)
        res = []
        for target in (t.tensor([-100, -100]), t.tensor([2, -100])):
            loss = t.nn.functional.cross_entropy(x, target)
            res += [loss, t.autograd.grad(loss, x)[0]]
        loss = t.nn.functional.nll_loss(x[0], t.tensor(1), ignore_index=1)
        return res + [loss, t.autograd.grad(loss, x)[0]]
    same(program)
