"""The remaining norms, dropouts, activations, distances, losses and the lazy modules against
torch: each layer built in torch, its state copied into glassgrad's, outputs, grad_fn names,
input and parameter gradients, reprs and state after a call compared (test_nn_layers' harness);
default initialisation and the random draws of the dropouts bit for bit after manual_seed;
the torch.* and in-place function forms and torch's error texts."""
import warnings

import numpy as np
import pytest
import torch

import glassgrad as gg
from differential import assert_same, norm
from test_nn_layers import _run, _state_from, err, same, same_stream, x

TOL = {"float32": (1e-5, 1e-6), "float64": (1e-10, 1e-12)}


def _labels(*rows):
    return np.array(rows)


LAYERS = {
    "InstanceNorm1d": (lambda t: t.nn.InstanceNorm1d(3), [x(2, 3, 5)]),
    "InstanceNorm1d_unbatched": (lambda t: t.nn.InstanceNorm1d(3), [x(3, 5)]),
    "InstanceNorm1d_affine_stats": (lambda t: t.nn.InstanceNorm1d(3, affine=True,
                                                                  track_running_stats=True),
                                    [x(2, 3, 5)]),
    "InstanceNorm2d_affine": (lambda t: t.nn.InstanceNorm2d(3, affine=True, momentum=0.3),
                              [x(2, 3, 4, 4)]),
    "InstanceNorm2d_stats": (lambda t: t.nn.InstanceNorm2d(3, track_running_stats=True,
                                                           momentum=None), [x(2, 3, 4, 4)]),
    "InstanceNorm3d": (lambda t: t.nn.InstanceNorm3d(2, affine=True, bias=False),
                       [x(2, 2, 3, 3, 3)]),
    "RMSNorm": (lambda t: t.nn.RMSNorm(4), [x(2, 3, 4)]),
    "RMSNorm_2d_eps": (lambda t: t.nn.RMSNorm([3, 4], eps=1e-3), [x(2, 3, 4)]),
    "RMSNorm_plain": (lambda t: t.nn.RMSNorm(4, elementwise_affine=False), [x(3, 4)]),
    "RMSNorm_double": (lambda t: t.nn.RMSNorm(4, dtype=t.float64), [x(3, 4, dtype="float64")]),
    "LocalResponseNorm": (lambda t: t.nn.LocalResponseNorm(3), [x(2, 5, 4)]),
    "LocalResponseNorm_4d": (lambda t: t.nn.LocalResponseNorm(2, 0.1, 0.5, 2.0),
                             [x(2, 5, 3, 3)]),
    "LocalResponseNorm_5d": (lambda t: t.nn.LocalResponseNorm(4, 0.3), [x(2, 5, 2, 3, 2)]),
    "CrossMapLRN2d": (lambda t: t.nn.CrossMapLRN2d(3), [x(2, 5, 3, 3)]),
    "CrossMapLRN2d_even": (lambda t: t.nn.CrossMapLRN2d(4, 0.1, 0.5, 2), [x(2, 6, 2, 3)]),
    "CrossMapLRN2d_wide": (lambda t: t.nn.CrossMapLRN2d(7, 0.2, 0.75, 1), [x(1, 3, 2, 2)]),
    "AlphaDropout_eval": (lambda t: t.nn.AlphaDropout(0.3).eval(), [x(2, 3)]),
    "RReLU_eval": (lambda t: t.nn.RReLU(0.1, 0.3).eval(), [x(2, 3, 4)]),
    "RReLU_eval_inplace": (lambda t: t.nn.RReLU(inplace=True).eval(), [x(2, 3, 4)]),
    "FeatureAlphaDropout_eval": (lambda t: t.nn.FeatureAlphaDropout(0.3).eval(), [x(2, 3, 4)]),
    "CosineSimilarity": (lambda t: t.nn.CosineSimilarity(), [x(3, 4), x(3, 4, seed=1)]),
    "CosineSimilarity_dim": (lambda t: t.nn.CosineSimilarity(0, 1e-3), [x(3, 4), x(3, 4, seed=1)]),
    "PairwiseDistance": (lambda t: t.nn.PairwiseDistance(), [x(3, 4), x(3, 4, seed=1)]),
    "PairwiseDistance_p1_keep": (lambda t: t.nn.PairwiseDistance(1.0, 1e-3, True),
                                 [x(3, 4), x(3, 4, seed=1)]),
    "MultiMarginLoss": (lambda t: t.nn.MultiMarginLoss(), [x(3, 4), _labels(1, 3, 0)]),
    "MultiMarginLoss_p2_weight": (lambda t: t.nn.MultiMarginLoss(
        p=2, margin=0.5, weight=t.tensor([1.0, 2.0, 0.5, 3.0]), reduction="sum"),
        [x(3, 4), _labels(1, 3, 0)]),
    "MultiLabelMarginLoss": (lambda t: t.nn.MultiLabelMarginLoss(reduction="none"),
                             [x(3, 4), _labels([1, 2, -1, 0], [3, 3, 0, -1], [-1, 1, 2, 3])]),
    "TripletMarginWithDistanceLoss": (lambda t: t.nn.TripletMarginWithDistanceLoss(),
                                      [x(3, 4), x(3, 4, seed=1), x(3, 4, seed=2)]),
    "TripletMarginWithDistanceLoss_fn": (lambda t: t.nn.TripletMarginWithDistanceLoss(
        distance_function=t.nn.CosineSimilarity(), margin=0.5, swap=True, reduction="none"),
        [x(3, 4), x(3, 4, seed=1), x(3, 4, seed=2)]),
    "EmbeddingBag": (lambda t: t.nn.EmbeddingBag(6, 3), [np.array([0, 2, 2, 5, 1, 3]),
                                                         np.array([0, 2, 2, 5])]),
    "EmbeddingBag_2d_sum": (lambda t: t.nn.EmbeddingBag(6, 3, mode="sum"),
                            [np.array([[0, 2, 2], [5, 1, 3]])]),
    "EmbeddingBag_max_padding": (lambda t: t.nn.EmbeddingBag(6, 3, mode="max", padding_idx=2),
                                 [np.array([0, 2, 2, 5, 1, 3]), np.array([0, 2, 2, 5])]),
    "EmbeddingBag_last_offset_freq": (lambda t: t.nn.EmbeddingBag(
        6, 3, scale_grad_by_freq=True, include_last_offset=True, padding_idx=-1),
        [np.array([0, 2, 2, 5, 1, 3, 3]), np.array([0, 2, 2, 5])]),
    "EmbeddingBag_max_norm": (lambda t: t.nn.EmbeddingBag(6, 3, max_norm=1.0, norm_type=1.0),
                              [np.array([0, 2, 4, 5]), np.array([0, 1])]),
    "CTCLoss": (lambda t: t.nn.CTCLoss(), [x(6, 3, 5), _labels([1, 2, 2], [3, 1, 0], [4, 4, 4]),
                                           _labels(6, 4, 6), _labels(3, 2, 0)]),
    "CTCLoss_sum_blank_concatenated": (lambda t: t.nn.CTCLoss(blank=4, reduction="sum"),
                                       [x(5, 2, 5), _labels(1, 2, 2, 3), _labels(5, 4),
                                        _labels(3, 1)]),
    "CTCLoss_zero_infinity_none": (lambda t: t.nn.CTCLoss(reduction="none", zero_infinity=True),
                                   [x(6, 3, 5), _labels(*[[1, 1, 1, 1]] * 3), _labels(6, 6, 3),
                                    _labels(4, 3, 4)]),
    "LazyLinear": (lambda t: t.nn.LazyLinear(4), [x(2, 3)]),
    "LazyConv1d": (lambda t: t.nn.LazyConv1d(4, 3), [x(2, 3, 7)]),
    "LazyConv2d_groups": (lambda t: t.nn.LazyConv2d(4, 2, groups=2, bias=False),
                          [x(1, 2, 4, 4)]),
    "LazyConv3d": (lambda t: t.nn.LazyConv3d(2, 2), [x(1, 2, 3, 3, 3)]),
    "LazyConvTranspose1d": (lambda t: t.nn.LazyConvTranspose1d(4, 3, stride=2), [x(2, 3, 5)]),
    "LazyConvTranspose2d_groups": (lambda t: t.nn.LazyConvTranspose2d(6, 3, groups=2),
                                   [x(2, 4, 5, 5)]),
    "LazyConvTranspose3d": (lambda t: t.nn.LazyConvTranspose3d(2, 2, bias=False),
                            [x(1, 2, 3, 3, 3)]),
    "LazyBatchNorm1d": (lambda t: t.nn.LazyBatchNorm1d(), [x(4, 3)]),
    "LazyBatchNorm2d": (lambda t: t.nn.LazyBatchNorm2d(affine=False), [x(2, 3, 2, 2)]),
    "LazyBatchNorm3d": (lambda t: t.nn.LazyBatchNorm3d(track_running_stats=False),
                        [x(2, 2, 2, 2, 2)]),
    "LazyInstanceNorm1d": (lambda t: t.nn.LazyInstanceNorm1d(), [x(2, 3, 5)]),
    "LazyInstanceNorm2d": (lambda t: t.nn.LazyInstanceNorm2d(affine=False), [x(2, 3, 2, 3)]),
}
LAZY = {name for name in LAYERS if name.startswith("Lazy")}


def _lazy_run(lib, ctor, arrays):
    """A lazy module: seeded, its repr and state before the first call, then the call."""
    lib.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = ctor(lib)
    before = (repr(m), type(m).__name__, m.has_uninitialized_params(),
              [(k, type(v).__name__) for k, v in m.state_dict().items()])
    return before, _run(lib, m, arrays), type(m).__name__


@pytest.mark.parametrize("name", LAYERS)
def test_layer(name):
    ctor, arrays = LAYERS[name]
    if name in LAZY:
        expected, got = _lazy_run(torch, ctor, arrays), _lazy_run(gg, ctor, arrays)
        assert_same(norm(expected), norm(got), tol=TOL)
        return
    tm, gm = ctor(torch), ctor(gg)
    gm.load_state_dict(_state_from(tm))
    gm.train(tm.training)
    assert_same(norm(_run(torch, tm, arrays)), norm(_run(gg, gm, arrays)), tol=TOL)


# -- default initialisation and the dropouts' draws: torch's stream, bit for bit --------------
INIT = {
    "InstanceNorm1d_affine": lambda t: t.nn.InstanceNorm1d(3, affine=True,
                                                           track_running_stats=True),
    "RMSNorm": lambda t: t.nn.RMSNorm((2, 3)),
    "EmbeddingBag": lambda t: t.nn.EmbeddingBag(5, 3, padding_idx=2),
    "LazyLinear_after_call": lambda t: (lambda m: (m(t.ones(2, 5)), m)[1])(t.nn.LazyLinear(3)),
    "LazyConv2d_after_call": lambda t: (lambda m: (m(t.ones(1, 2, 3, 3)), m)[1])(
        t.nn.LazyConv2d(3, 2)),
    "spectral_norm": lambda t: t.nn.utils.spectral_norm(t.nn.Linear(3, 4)),
    "parametrizations.spectral_norm": lambda t: t.nn.utils.parametrizations.spectral_norm(
        t.nn.Linear(4, 3)),
}


@same_stream
@pytest.mark.parametrize("name", INIT)
def test_default_init_bit_for_bit(name):
    def program(t):
        t.manual_seed(0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return INIT[name](t).state_dict(), t.rand(2)
    assert_same(norm(program(torch)), norm(program(gg)), tol={"float32": (1e-6, 1e-7)})


DRAWS = {
    "AlphaDropout": lambda t, a: t.nn.AlphaDropout(0.3)(a),
    "FeatureAlphaDropout": lambda t, a: t.nn.FeatureAlphaDropout(0.4)(a),
    "AlphaDropout_inplace": lambda t, a: t.nn.AlphaDropout(0.2, inplace=True)(a),
    "F.alpha_dropout": lambda t, a: t.nn.functional.alpha_dropout(a, 0.5, True),
    "F.alpha_dropout_eval_default": lambda t, a: t.nn.functional.alpha_dropout(a, 0.5),
    "F.feature_alpha_dropout_inplace": lambda t, a: t.nn.functional.feature_alpha_dropout(
        a, 0.5, True, True),
    "torch.alpha_dropout": lambda t, a: t.alpha_dropout(a, 0.25, True),
    "torch.alpha_dropout_": lambda t, a: t.alpha_dropout_(a, 0.25, True),
    "torch.feature_alpha_dropout": lambda t, a: t.feature_alpha_dropout(a, 0.6, True),
    "torch.feature_alpha_dropout_": lambda t, a: t.feature_alpha_dropout_(a, 0.6, True),
    "p1": lambda t, a: t.alpha_dropout(a, 1.0, True),
    "RReLU": lambda t, a: t.nn.RReLU()(a - 10),
    "RReLU_inplace": lambda t, a: t.nn.RReLU(0.1, 0.3, inplace=True)(a - 12),
    "F.rrelu": lambda t, a: t.nn.functional.rrelu(a - 15, 0.2, 0.5, True),
    "F.rrelu_": lambda t, a: t.nn.functional.rrelu_(a - 15, 0.2, 0.5, True),
    "torch.rrelu_double": lambda t, a: t.rrelu(a.double() - 5, training=True),
    "torch.rrelu_equal_bounds": lambda t, a: t.rrelu_(a - 5, 0.3, 0.3, True),
    "torch.rrelu_eval": lambda t, a: t.rrelu(a - 5),
    "transposed": lambda t, a: t.alpha_dropout(a.transpose(0, 2), 0.3, True),
}


@same_stream
@pytest.mark.parametrize("name", DRAWS)
def test_dropout_draws(name):
    def program(t):
        t.manual_seed(0)
        inp = t.arange(24.0).view(2, 3, 4).requires_grad_()
        out = DRAWS[name](t, inp * 1)
        out.backward(t.ones(out.shape))
        return out, type(out.grad_fn).__name__, inp.grad, out._version, t.rand(2)
    same(program)


# -- the function forms, in-place forms, and torch's errors ------------------------------------
def _x(t, *shape, seed=0, dtype="float32"):
    return t.tensor(np.random.default_rng(seed).standard_normal(shape).astype(dtype))


def _grad_fn(out):
    return out, type(out.grad_fn).__name__ if out.grad_fn else None


FORMS = {
    "torch.batch_norm": lambda t: t.batch_norm(_x(t, 4, 3), _x(t, 3, seed=1), None, None, None,
                                               True, 0.1, 1e-5, False),
    "torch.layer_norm": lambda t: t.layer_norm(_x(t, 2, 3), [3]),
    "torch.group_norm": lambda t: t.group_norm(_x(t, 2, 4, 3), 2),
    "torch.instance_norm": lambda t: (lambda rm, rv: (t.instance_norm(
        _x(t, 2, 3, 4, dtype="float64"), None, None, rm, rv, True, 0.2, 1e-5, False), rm, rv))(
        t.zeros(3, dtype=t.float64), t.ones(3, dtype=t.float64)),
    "torch.instance_norm_eval_no_stats": lambda t: err(t.instance_norm, _x(t, 2, 3, 4), None,
                                                       None, None, None, False, 0.1, 1e-5,
                                                       False),
    "F.instance_norm_one_position": lambda t: err(t.nn.functional.instance_norm,
                                                  _x(t, 2, 3, 1)),
    "torch.rms_norm": lambda t: t.rms_norm(_x(t, 2, 3), [3], eps=1e-2),
    "rms_norm_half": lambda t: _grad_fn(t.rms_norm(_x(t, 2, 3).half().requires_grad_(), [3])),
    "rms_norm_bad_shape": lambda t: err(t.rms_norm, _x(t, 2, 3), [2]),
    "rms_norm_bad_weight": lambda t: err(t.rms_norm, _x(t, 2, 3), [3], t.ones(2)),
    "rms_norm_empty_shape": lambda t: err(t.rms_norm, _x(t, 2, 3), []),
    "local_response_norm_2d": lambda t: err(t.nn.functional.local_response_norm, _x(t, 2, 3),
                                            2),
    "local_response_norm_empty": lambda t: t.nn.functional.local_response_norm(
        t.zeros(0, 3, 2), 2),
    "CrossMapLRN2d_3d": lambda t: err(t.nn.CrossMapLRN2d(3), _x(t, 2, 3, 4)),
    "InstanceNorm1d_bad_dim": lambda t: err(t.nn.InstanceNorm1d(3), _x(t, 2, 3, 4, 5)),
    "InstanceNorm2d_affine_mismatch": lambda t: err(t.nn.InstanceNorm2d(4, affine=True),
                                                    _x(t, 2, 3, 4, 5)),
    "threshold": lambda t: (t.threshold(_x(t, 5), 0.1, 20.0),
                            t.nn.functional.threshold(_x(t, 5), 0.1, 2.0)),
    "threshold_": lambda t: (lambda a: (t.threshold_(a, 0.0, -1.0), a))(_x(t, 5) * 1),
    "F.threshold_": lambda t: (lambda a: (t.nn.functional.threshold_(a, 0.0, -1.0), a))(
        _x(t, 5) * 1),
    "hardshrink": lambda t: (t.hardshrink(_x(t, 6)), _x(t, 6).hardshrink(0.2),
                             t.hardshrink(_x(t, 6), lambd=1)),
    "pdist_errors": lambda t: [err(t.pdist, a, p) for a, p in (
        (_x(t, 3), 2), (_x(t, 3, 2).long(), 2), (_x(t, 3, 2), -1))],
    "pdist_one_row": lambda t: t.pdist(_x(t, 1, 3)),
    "pdist_transposed": lambda t: t.pdist(_x(t, 3, 4).t()),
    "multi_margin_errors": lambda t: [err(t.nn.functional.multi_margin_loss, a, b, **k)
                                      for a, b, k in (
        (_x(t, 1, 4), t.tensor([4]), {}), (_x(t, 1, 4), t.tensor([1, 2]), {}),
        (_x(t, 1, 4), t.tensor([1]), {"weight": t.ones(3)}),
        (_x(t, 1, 4), t.tensor([1]), {"p": 3}), (_x(t, 1, 4), t.tensor([1.0]), {}),
        (_x(t, 2, 3, 4), t.tensor([1, 0]), {}), (_x(t, 1, 4), t.tensor([1]),
                                                 {"weight": t.ones(2, 2)}))],
    "multilabel_margin_errors": lambda t: [err(t.nn.functional.multilabel_margin_loss, a, b)
                                           for a, b in (
        (_x(t, 1, 4), t.tensor([[4, 1, 1, 1]])), (_x(t, 1, 4), t.tensor([[1, 1, 1]])),
        (_x(t, 1, 4), t.tensor([[-2, 1, 1, 1]])), (_x(t, 2, 3, 4), t.zeros(2, 3, 4).long()))],
    "MultiMarginLoss_ctor_errors": lambda t: [err(t.nn.MultiMarginLoss, **k) for k in (
        {"p": 3}, {"weight": t.ones(2, 2)})],
    "triplet_distance_errors": lambda t: [
        err(t.nn.TripletMarginWithDistanceLoss, margin=0),
        err(t.nn.functional.triplet_margin_with_distance_loss, _x(t, 2, 3), _x(t, 2, 3),
            _x(t, 3), margin=1.0),
        err(t.nn.functional.triplet_margin_with_distance_loss, _x(t, 3), _x(t, 3), _x(t, 3),
            margin=-1.0),
        err(t.nn.functional.triplet_margin_with_distance_loss, _x(t, 3), _x(t, 3), _x(t, 3),
            reduction="max")],
    "rrelu_errors": lambda t: [err(t.rrelu, _x(t, 3).half(), training=True),
                               err(t.rrelu, _x(t, 3).long()),
                               err(t.rrelu, _x(t, 3), 0.5, 0.1, True)],
    "rrelu_half_eval": lambda t: t.rrelu(_x(t, 3).half()),
    "embedding_renorm_": lambda t: [(lambda w: (t.embedding_renorm_(w, t.tensor([0, 2, 2, -1]),
                                                                    1.0, p) is w, w, w._version))(
        _x(t, 5, 3) * 2) for p in (2.0, 1.0, float("inf"), 0.5)],
    "embedding_renorm_errors": lambda t: [
        err(t.embedding_renorm_, _x(t, 5, 3), t.tensor([1.0]), 1.0, 2.0),
        err(t.embedding_renorm_, _x(t, 5, 3), t.tensor([7]), 1.0, 2.0),
        err(t.embedding_renorm_, _x(t, 5, 3).requires_grad_(), t.tensor([1]), 1.0, 2.0),
        (lambda o: (type(o.grad_fn).__name__, err(o.sum().backward)))(
            t.embedding_renorm_(_x(t, 5, 3).requires_grad_() * 1, t.tensor([1]), 1.0, 2.0))],
    "Embedding_max_norm": lambda t: (lambda e: (e(t.tensor([[0, 2], [2, 3]])), e.weight,
                                                e.weight._version))(
        t.nn.Embedding.from_pretrained(_x(t, 4, 3) * 3, max_norm=1.5, norm_type=1.0)),
    "embedding_bag_psw": lambda t: (lambda w, p: (lambda y: (
        y, type(y.grad_fn).__name__, t.autograd.grad((y * y).sum(), (w, p))))(
        t.nn.functional.embedding_bag(
            t.tensor([0, 2, 2, 5, 1, 3]), w, t.tensor([0, 2, 2, 5]), mode="sum",
            per_sample_weights=p, padding_idx=5)))(
        _x(t, 6, 3).requires_grad_(), _x(t, 6, seed=1).requires_grad_()),
    "torch.embedding_bag": lambda t: [t.embedding_bag(_x(t, 6, 3), t.tensor([0, 2, 2, 5, 1, 3]),
                                                      t.tensor([0, 2, 2, 5]), False, m, False,
                                                      None, last, 2)
                                      for m in (0, 1, 2) for last in (False, True)],
    "torch.embedding_bag_short": lambda t: t.embedding_bag(
        _x(t, 6, 3), t.tensor([0, 2, 2, 5, 1, 3]).int(), t.tensor([0, 3]).int(), mode=1),
    "embedding_bag_errors": lambda t: [err(t.nn.functional.embedding_bag, *a, **k) for a, k in (
        ((t.tensor([0, 1]), _x(t, 4, 3), t.tensor([1])), {}),
        ((t.tensor([0, 1]), _x(t, 4, 3), t.tensor([0, 3])), {}),
        ((t.tensor([0, 7]), _x(t, 4, 3), t.tensor([0])), {}),
        ((t.tensor([0, 1]), _x(t, 4, 3)), {}),
        ((t.tensor([[0, 1]]), _x(t, 4, 3), t.tensor([0])), {}),
        ((t.tensor([0, 1]), _x(t, 4, 3), t.tensor([[0]])), {}),
        ((t.tensor([[[0]]]), _x(t, 4, 3)), {}),
        ((t.tensor([0, 1]), _x(t, 4), t.tensor([0])), {}),
        ((t.tensor([0, 1]), _x(t, 4, 3), t.tensor([0])), {"mode": "min"}),
        ((t.tensor([0, 1]), _x(t, 4, 3), t.tensor([0])), {"mode": "max",
                                                          "scale_grad_by_freq": True}),
        ((t.tensor([0, 1]), _x(t, 4, 3), t.tensor([0])), {"mode": "mean",
                                                          "per_sample_weights": _x(t, 2)}),
        ((t.tensor([0, 1]), _x(t, 4, 3), t.tensor([0])), {"per_sample_weights": _x(t, 3)}),
        ((t.tensor([0, 1]), _x(t, 4, 3), t.tensor([0])), {"padding_idx": -9}),
        ((t.tensor([0.0, 1.0]), _x(t, 4, 3), t.tensor([0])), {}),
        ((t.tensor([0, 1]), _x(t, 4, 3), t.tensor([0])), {"mode": "sum", "per_sample_weights":
                                                          _x(t, 2).double()}))],
    "EmbeddingBag_ctor": lambda t: [err(t.nn.EmbeddingBag, 3, 2, padding_idx=p) for p in (3, -4)]
    + [repr(t.nn.EmbeddingBag(3, 2, norm_type=1.0, scale_grad_by_freq=True, mode="sum")),
       (lambda b: (b.weight, b.weight.requires_grad, repr(b)))(
           t.nn.EmbeddingBag.from_pretrained(_x(t, 3, 2), freeze=False, mode="max"))],
    "ctc_loss_forms": lambda t: (lambda lp: [
        t.ctc_loss(lp, t.tensor([[1, 2], [2, 2]]), [4, 3], [2, 2]),
        t.ctc_loss(lp, t.tensor([[1, 2], [2, 2]]), t.tensor([4, 3]), t.tensor([2, 2]), 0, 2),
        t.nn.functional.ctc_loss(lp[:, 0], t.tensor([1, 2]), t.tensor(4), t.tensor(2),
                                 reduction="none"),
        t.nn.functional.ctc_loss(lp.double(), t.tensor([[1, 2], [2, 2]]).int(), (4, 3), (2, 1)),
        (lambda y: (type(y.grad_fn).__name__, err(lambda: t.autograd.grad(
            t.autograd.grad(y, lp, create_graph=True)[0].sum(), lp))))(
            t.nn.functional.ctc_loss(lp, t.tensor([[1, 2], [2, 2]]), [4, 3], [2, 2]))])(
        _x(t, 4, 2, 3).log_softmax(2).requires_grad_()),
    "ctc_loss_errors": lambda t: [err(t.nn.functional.ctc_loss, _x(t, 4, 2, 3),
                                      t.tensor([[1], [2]]), *a, **k) for a, k in (
        (([4, 3], [1, 1]), {"blank": 3}), (([4], [1, 1]), {}), (([4, 3], [1]), {}),
        (([5, 3], [1, 1]), {}), ((t.tensor([4.0, 3.0]), t.tensor([1, 1])), {}))],
    "alpha_dropout_p_errors": lambda t: [err(t.nn.functional.alpha_dropout, _x(t, 3), 1.5),
                                         err(t.alpha_dropout, _x(t, 3), 1.5, True),
                                         err(t.nn.AlphaDropout, -0.1)],
}
LOSS_FORMS = {
    "binary_cross_entropy_with_logits": lambda t, a, b, c: (
        t.binary_cross_entropy_with_logits(a, b.sigmoid()),
        t.binary_cross_entropy_with_logits(a, b.sigmoid(), None, c.detach().abs(), 1)),
    "margin_ranking_loss": lambda t, a, b, c: (t.margin_ranking_loss(a, b, c.sign()),
                                               t.margin_ranking_loss(a, b, c.sign(), 0.3, 2)),
    "hinge_embedding_loss": lambda t, a, b, c: (t.hinge_embedding_loss(a, c.sign()),
                                                t.hinge_embedding_loss(a, c.sign(), 0.5, 1)),
    "cosine_embedding_loss": lambda t, a, b, c: (t.cosine_embedding_loss(a, b, c[:, 0].sign()),
                                                 t.cosine_embedding_loss(a, b, c[:, 0].sign(),
                                                                         0.2, 1)),
    "triplet_margin_loss": lambda t, a, b, c: (t.triplet_margin_loss(a, b, c),
                                               t.triplet_margin_loss(a, b, c, 0.5, 1.0, 1e-6,
                                                                     True, 2)),
    "poisson_nll_loss": lambda t, a, b, c: (t.poisson_nll_loss(a, b.abs(), True, False, 1e-8, 0),
                                            t.poisson_nll_loss(a.abs(), b.abs(), False, True,
                                                               1e-8, 1)),
    "kl_div": lambda t, a, b, c: (t.kl_div(a, b.softmax(1)), t.kl_div(a, b, 2, log_target=True)),
    "pdist": lambda t, a, b, c: (t.pdist(a), t.nn.functional.pdist(a, 1.5)),
}
FORMS.update({f"torch.{k}": (lambda f: lambda t: f(t, *[_x(t, 3, 4, seed=s).requires_grad_()
                                                        for s in range(3)]))(f)
              for k, f in LOSS_FORMS.items()})
INPLACE = {
    "elu_": lambda t, a: t.nn.functional.elu_(a, 0.5),
    "selu_": lambda t, a: t.nn.functional.selu_(a),
    "celu_": lambda t, a: t.nn.functional.celu_(a, 2.0),
    "leaky_relu_": lambda t, a: t.nn.functional.leaky_relu_(a, 0.2),
    "hardtanh_": lambda t, a: t.nn.functional.hardtanh_(a, -0.5, 0.5),
    "threshold_": lambda t, a: t.nn.functional.threshold_(a, 0.1, 3.0),
}
FORMS.update({f"F.{k}": (lambda f: lambda t: (lambda leaf: (lambda a: (
    f(t, a), a._version, type(a.grad_fn).__name__,
    t.autograd.grad(a.sum(), leaf)))(leaf * 1))(_x(t, 6).requires_grad_()))(f)
    for k, f in INPLACE.items()})


@pytest.mark.parametrize("name", FORMS)
def test_forms(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(FORMS[name])


def test_lazy_modules():
    def program(t):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m = t.nn.LazyLinear(3)
            p = t.nn.UninitializedParameter()
            b = t.nn.UninitializedBuffer()
            lazy_state = {k: type(v).__name__ for k, v in m.state_dict().items()}
            target = t.nn.LazyLinear(3)
            target.load_state_dict(t.nn.Linear(4, 3).state_dict())
            bn = t.nn.LazyBatchNorm1d()
            bn(t.ones(2, 5))
            return (repr(p), repr(b), type(p).__name__, isinstance(p, t.nn.Parameter),
                    err(lambda: p.shape), lazy_state, type(target).__name__,
                    target.has_uninitialized_params(), target.weight.shape, repr(bn),
                    type(bn).__name__, bn.num_batches_tracked, [type(v).__name__ for v in
                                                                bn.state_dict().values()],
                    err(t.nn.LazyConv2d(3, 2), t.ones(2, 2)),
                    err(t.nn.LazyConv2d(3, 2, groups=2), t.ones(1, 3, 4, 4)))
    same(program)


def test_adaptive_log_softmax_with_loss():
    def program(t):
        t.manual_seed(0)
        m = t.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0, head_bias=True)
        x = _x(t, 6, 8).requires_grad_()
        out = m(x, t.tensor([0, 4, 9, 2, 7, 5]))
        out.loss.backward()
        one = m(x[0], t.tensor(7))
        return (out.output, out.loss, type(out.loss.grad_fn).__name__, x.grad,
                {k: p.grad for k, p in m.named_parameters()}, m.log_prob(x), m.predict(x),
                m.predict(x * 0), m.predict(x * 50), one.output, one.loss, repr(m),
                dict(m.state_dict()), type(out).__name__, out._fields,
                err(m, x, t.tensor([0, 10, 1, 1, 1, 1])), err(m, x, t.tensor([0, 1])),
                err(m, x, t.zeros(6, 1).long()), err(m, x[0], t.tensor([1])),
                err(m, x[:, None], t.tensor([1] * 6)),
                [err(t.nn.AdaptiveLogSoftmaxWithLoss, 8, 10, c) for c in
                 ([], [3, 3], [6, 3], [0, 3], [3, 10], [2.5])])
    assert_same(norm(program(torch)), norm(program(gg)), tol=TOL)


def test_torch_kl_div_does_not_warn():
    """torch.kl_div is ATen's: no deprecation warning for its mean, unlike F.kl_div's."""
    def program(t):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = t.kl_div(_x(t, 2, 3), _x(t, 2, 3, seed=1).exp(), 1)
        return out, [str(c.message) for c in caught]
    same(program)
