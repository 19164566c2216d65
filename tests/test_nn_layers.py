"""The nn layers against torch: each layer is built in torch, its state copied into glassgrad's,
and both run forward and backward on the same input: outputs, grad_fn names, the gradients of
the input and of every parameter, reprs, state_dict keys and buffers after the call. Default
initialisation (and dropout's masks) are compared bit for bit after manual_seed, where
glassgrad's random stream is torch's."""
import warnings

import numpy as np
import pytest
import torch

import glassgrad as gg
from differential import assert_same, norm


def _stream_matches():
    torch.manual_seed(0)
    gg.manual_seed(0)
    return np.array_equal(torch.rand(8).numpy(), gg.rand(8).numpy())


same_stream = pytest.mark.skipif(not _stream_matches(),
                                 reason="glassgrad's random stream is not torch's yet")


def err(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - errors are compared
        return ("raised", type(e).__name__, str(e).replace("glassgrad.", "torch."))


def _set_in_message(outcome):
    kind, name, text = outcome
    head, rest = text.split("{", 1)
    inside, tail = rest.split("}", 1)
    return kind, name, head, sorted(inside.split(", ")), tail


def same(program):
    assert_same(norm(program(torch)), norm(program(gg)))


F32 = "float32"


def x(*shape, dtype=F32, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


# name -> (constructor(t), inputs as arrays (int arrays are indices))
LAYERS = {
    "Identity": (lambda t: t.nn.Identity(3, foo=1), [x(2, 3)]),
    "Linear": (lambda t: t.nn.Linear(3, 4), [x(2, 3)]),
    "Linear_1d": (lambda t: t.nn.Linear(3, 4), [x(3)]),
    "Linear_3d": (lambda t: t.nn.Linear(3, 4), [x(2, 5, 3)]),
    "Linear_nobias": (lambda t: t.nn.Linear(3, 4, bias=False), [x(2, 3)]),
    "Linear_double": (lambda t: t.nn.Linear(3, 2, dtype=t.float64), [x(2, 3, dtype="float64")]),
    "Bilinear": (lambda t: t.nn.Bilinear(3, 2, 4), [x(5, 3), x(5, 2, seed=1)]),
    "Bilinear_3d": (lambda t: t.nn.Bilinear(3, 2, 4, bias=False), [x(2, 5, 3), x(2, 5, 2)]),
    "Flatten": (lambda t: t.nn.Flatten(), [x(2, 3, 4)]),
    "Flatten_dims": (lambda t: t.nn.Flatten(0, 1), [x(2, 3, 4)]),
    "Unflatten": (lambda t: t.nn.Unflatten(1, (2, 3)), [x(4, 6)]),
    "Conv1d": (lambda t: t.nn.Conv1d(3, 4, 3), [x(2, 3, 7)]),
    "Conv1d_stride_pad": (lambda t: t.nn.Conv1d(2, 4, 3, stride=2, padding=1, bias=False),
                          [x(2, 2, 8)]),
    "Conv2d": (lambda t: t.nn.Conv2d(3, 4, 3), [x(2, 3, 6, 5)]),
    "Conv2d_groups": (lambda t: t.nn.Conv2d(4, 6, (3, 2), groups=2, dilation=(1, 2)),
                      [x(2, 4, 6, 7)]),
    "Conv2d_same": (lambda t: t.nn.Conv2d(2, 3, 3, padding="same"), [x(1, 2, 5, 5)]),
    "Conv2d_valid": (lambda t: t.nn.Conv2d(2, 3, 3, padding="valid"), [x(1, 2, 5, 5)]),
    "Conv2d_reflect": (lambda t: t.nn.Conv2d(2, 3, 3, padding=1, padding_mode="reflect"),
                       [x(1, 2, 5, 5)]),
    "Conv2d_circular": (lambda t: t.nn.Conv2d(2, 3, 3, padding=(1, 2), padding_mode="circular"),
                        [x(1, 2, 5, 5)]),
    "Conv2d_replicate_same": (lambda t: t.nn.Conv2d(2, 3, (3, 4), padding="same",
                                                    padding_mode="replicate"), [x(1, 2, 5, 6)]),
    "Conv2d_unbatched": (lambda t: t.nn.Conv2d(2, 3, 2), [x(2, 4, 4)]),
    "Conv3d": (lambda t: t.nn.Conv3d(2, 2, 2), [x(1, 2, 3, 4, 3)]),
    "MaxPool1d": (lambda t: t.nn.MaxPool1d(2), [x(2, 3, 7)]),
    "MaxPool1d_indices": (lambda t: t.nn.MaxPool1d(3, 2, 1, return_indices=True), [x(2, 3, 7)]),
    "MaxPool2d": (lambda t: t.nn.MaxPool2d(2), [x(2, 3, 6, 5)]),
    "MaxPool2d_args": (lambda t: t.nn.MaxPool2d((3, 2), stride=1, padding=1, ceil_mode=True),
                       [x(2, 3, 6, 5)]),
    "AvgPool1d": (lambda t: t.nn.AvgPool1d(3, 2, 1), [x(2, 3, 7)]),
    "AvgPool2d": (lambda t: t.nn.AvgPool2d(2), [x(2, 3, 6, 5)]),
    "AvgPool2d_args": (lambda t: t.nn.AvgPool2d(3, 2, 1, count_include_pad=False,
                                                divisor_override=None), [x(2, 3, 6, 5)]),
    "AdaptiveAvgPool2d": (lambda t: t.nn.AdaptiveAvgPool2d((3, 2)), [x(2, 3, 7, 5)]),
    "AdaptiveAvgPool2d_1": (lambda t: t.nn.AdaptiveAvgPool2d(1), [x(2, 3, 7, 5)]),
    "AdaptiveAvgPool1d": (lambda t: t.nn.AdaptiveAvgPool1d(4), [x(2, 3, 7)]),
    "BatchNorm1d": (lambda t: t.nn.BatchNorm1d(3), [x(5, 3)]),
    "BatchNorm1d_3d": (lambda t: t.nn.BatchNorm1d(3, momentum=None), [x(5, 3, 2)]),
    "BatchNorm1d_eval": (lambda t: t.nn.BatchNorm1d(3).eval(), [x(5, 3)]),
    "BatchNorm2d": (lambda t: t.nn.BatchNorm2d(3, eps=1e-3, momentum=0.3), [x(2, 3, 4, 4)]),
    "BatchNorm2d_noaffine": (lambda t: t.nn.BatchNorm2d(3, affine=False), [x(2, 3, 4, 4)]),
    "BatchNorm2d_notrack": (lambda t: t.nn.BatchNorm2d(3, track_running_stats=False),
                            [x(2, 3, 4, 4)]),
    "BatchNorm2d_notrack_eval": (lambda t: t.nn.BatchNorm2d(3, track_running_stats=False).eval(),
                                 [x(2, 3, 4, 4)]),
    "BatchNorm2d_nobias": (lambda t: t.nn.BatchNorm2d(3, bias=False), [x(2, 3, 4, 4)]),
    "LayerNorm": (lambda t: t.nn.LayerNorm(4), [x(3, 4)]),
    "LayerNorm_2d": (lambda t: t.nn.LayerNorm((3, 4), eps=1e-3, bias=False), [x(2, 3, 4)]),
    "LayerNorm_noaffine": (lambda t: t.nn.LayerNorm([4], elementwise_affine=False), [x(3, 4)]),
    "GroupNorm": (lambda t: t.nn.GroupNorm(2, 4), [x(2, 4, 3, 3)]),
    "GroupNorm_noaffine": (lambda t: t.nn.GroupNorm(3, 6, affine=False), [x(2, 6, 5)]),
    "Embedding": (lambda t: t.nn.Embedding(5, 3), [np.array([[0, 2], [4, 2]])]),
    "Embedding_padding": (lambda t: t.nn.Embedding(5, 3, padding_idx=-1),
                          [np.array([0, 4, 2, 4])]),
    "Embedding_freq": (lambda t: t.nn.Embedding(5, 3, scale_grad_by_freq=True),
                       [np.array([1, 1, 3])]),
    "Embedding_max_norm": (lambda t: t.nn.Embedding(5, 3, max_norm=1.0),
                           [np.array([0, 1, 1, 3])]),
    "Dropout_eval": (lambda t: t.nn.Dropout(0.5).eval(), [x(3, 4)]),
    "Dropout_p0": (lambda t: t.nn.Dropout(0.0), [x(3, 4)]),
}

ACTIVATIONS = {
    "ReLU": lambda t: t.nn.ReLU(),
    "ReLU_inplace": lambda t: t.nn.ReLU(inplace=True),
    "LeakyReLU": lambda t: t.nn.LeakyReLU(0.2),
    "ELU": lambda t: t.nn.ELU(alpha=0.5),
    "SELU": lambda t: t.nn.SELU(),
    "CELU": lambda t: t.nn.CELU(2.0),
    "GELU": lambda t: t.nn.GELU(),
    "GELU_tanh": lambda t: t.nn.GELU("tanh"),
    "SiLU": lambda t: t.nn.SiLU(),
    "Mish": lambda t: t.nn.Mish(),
    "Sigmoid": lambda t: t.nn.Sigmoid(),
    "Tanh": lambda t: t.nn.Tanh(),
    "Softmax": lambda t: t.nn.Softmax(dim=1),
    "LogSoftmax": lambda t: t.nn.LogSoftmax(dim=-1),
    "Softmin": lambda t: t.nn.Softmin(dim=0),
    "Softmax2d": lambda t: t.nn.Softmax2d(),
    "Softplus": lambda t: t.nn.Softplus(beta=2, threshold=1),
    "Hardtanh": lambda t: t.nn.Hardtanh(-0.5, 0.75),
    "ReLU6": lambda t: t.nn.ReLU6(),
    "Hardsigmoid": lambda t: t.nn.Hardsigmoid(),
    "Hardswish": lambda t: t.nn.Hardswish(),
    "Threshold": lambda t: t.nn.Threshold(0.1, 20.0),
    "Threshold_inplace": lambda t: t.nn.Threshold(0.1, 20.0, inplace=True),
    "PReLU": lambda t: t.nn.PReLU(),
    "PReLU_channels": lambda t: t.nn.PReLU(3, init=0.1),
    "GLU": lambda t: t.nn.GLU(dim=-1),
    "Softsign": lambda t: t.nn.Softsign(),
    "Tanhshrink": lambda t: t.nn.Tanhshrink(),
    "LogSigmoid": lambda t: t.nn.LogSigmoid(),
    "Hardshrink": lambda t: t.nn.Hardshrink(0.3),
    "Softshrink": lambda t: t.nn.Softshrink(),
}
LAYERS.update({name: (ctor, [x(2, 3, 4) * 3]) for name, ctor in ACTIVATIONS.items()})


def _state_from(torch_module):
    return {k: gg.tensor(v.numpy()) for k, v in torch_module.state_dict().items()}


def _run(lib, module, arrays):
    inputs = [lib.tensor(a) if a.dtype.kind == "i" else lib.tensor(a, requires_grad=True)
              for a in arrays]
    fed = [i * 1 if i.requires_grad else i for i in inputs]     # in-place layers: not a leaf
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = module(*fed)
    first = out[0] if isinstance(out, tuple) else out
    seed = np.random.default_rng(1).standard_normal(tuple(first.shape)).astype(
        str(first.dtype).removeprefix("torch."))
    if first.requires_grad:
        first.backward(lib.tensor(seed))
    return {"out": out, "grad_fn": type(first.grad_fn).__name__ if first.grad_fn else None,
            "input_grads": [i.grad for i in inputs],
            "param_grads": {k: p.grad for k, p in module.named_parameters()},
            "state": dict(module.state_dict()), "repr": repr(module),
            "keys": list(module.state_dict())}


@pytest.mark.parametrize("name", LAYERS)
def test_layer(name):
    ctor, arrays = LAYERS[name]
    tm, gm = ctor(torch), ctor(gg)
    gm.load_state_dict(_state_from(tm))
    gm.train(tm.training)
    expected, got = _run(torch, tm, arrays), _run(gg, gm, arrays)
    assert_same(norm(expected), norm(got), tol={"float32": (1e-5, 1e-6),
                                                "float64": (1e-10, 1e-12)})


# -- default initialisation and dropout masks: torch's stream, bit for bit --------------------
INIT = {
    "Linear": lambda t: t.nn.Linear(3, 2),
    "Linear_big": lambda t: t.nn.Linear(20, 7, dtype=t.float64),
    "Bilinear": lambda t: t.nn.Bilinear(3, 2, 4),
    "Conv1d": lambda t: t.nn.Conv1d(3, 4, 3),
    "Conv2d": lambda t: t.nn.Conv2d(4, 6, (3, 2), groups=2),
    "Conv3d": lambda t: t.nn.Conv3d(2, 3, 2, bias=False),
    "Embedding": lambda t: t.nn.Embedding(6, 3, padding_idx=2),
    "PReLU": lambda t: t.nn.PReLU(4),
    "BatchNorm2d": lambda t: t.nn.BatchNorm2d(3),
    "LayerNorm": lambda t: t.nn.LayerNorm((2, 3)),
    "GroupNorm": lambda t: t.nn.GroupNorm(2, 4),
    "model": lambda t: t.nn.Sequential(t.nn.Linear(4, 8), t.nn.ReLU(), t.nn.Linear(8, 3)),
}


@same_stream
@pytest.mark.parametrize("name", INIT)
def test_default_init_bit_for_bit(name):
    def program(t):
        t.manual_seed(0)
        return INIT[name](t).state_dict()
    assert_same(norm(program(torch)), norm(program(gg)), tol={})    # exact


DROPOUT = {
    "Dropout": (lambda t: t.nn.Dropout(0.3), (4, 5)),
    "Dropout_inplace": (lambda t: t.nn.Dropout(0.5, inplace=True), (4, 5)),
    "Dropout1d": (lambda t: t.nn.Dropout1d(0.5), (3, 4, 5)),
    "Dropout1d_unbatched": (lambda t: t.nn.Dropout1d(0.5), (4, 5)),
    "Dropout2d": (lambda t: t.nn.Dropout2d(0.5), (2, 3, 4, 4)),
    "Dropout2d_3d": (lambda t: t.nn.Dropout2d(0.5), (3, 4, 4)),
    "Dropout3d": (lambda t: t.nn.Dropout3d(0.5), (2, 3, 2, 2, 2)),
    "Dropout3d_unbatched": (lambda t: t.nn.Dropout3d(0.25), (3, 2, 2, 2)),
    "Dropout_p1": (lambda t: t.nn.Dropout(1.0), (4, 5)),
}


@same_stream
@pytest.mark.parametrize("name", DROPOUT)
def test_dropout_masks(name):
    ctor, shape = DROPOUT[name]

    def program(t):
        t.manual_seed(0)
        inp = t.ones(shape, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = ctor(t)(inp * 1)
        out.backward(t.ones(shape))
        return out, type(out.grad_fn).__name__, inp.grad, repr(ctor(t))
    same(program)


# -- constructor checks, input checks, extra_repr details -------------------------------------
CHECKS = {
    "conv_groups": lambda t: err(t.nn.Conv2d, 3, 4, 3, groups=2),
    "conv_groups_out": lambda t: err(t.nn.Conv2d, 4, 3, 3, groups=2),
    "conv_groups_zero": lambda t: err(t.nn.Conv2d, 4, 4, 3, groups=0),
    "conv_bad_padding": lambda t: err(t.nn.Conv2d, 4, 4, 3, padding="full"),
    "conv_same_strided": lambda t: err(t.nn.Conv2d, 4, 4, 3, stride=2, padding="same"),
    # (the message prints a set: its order comes from the hash seed the .pyc was compiled
    # under, torch's or glassgrad's, so the set is compared as a set)
    "conv_bad_mode": lambda t: _set_in_message(err(t.nn.Conv1d, 4, 4, 3, padding_mode="wrap")),
    "conv_repr": lambda t: repr(t.nn.Conv2d(4, 4, 3, 2, 1, 2, groups=2, bias=False,
                                            padding_mode="reflect")),
    "conv_repr_same": lambda t: repr(t.nn.Conv1d(4, 4, 3, padding="same")),
    "conv_attrs": lambda t: (lambda c: (c.kernel_size, c.stride, c.padding, c.dilation,
                                        c.output_padding, c.transposed,
                                        c._reversed_padding_repeated_twice))(
        t.nn.Conv2d(1, 1, (3, 4), padding="same", dilation=2)),
    "hardtanh_bad": lambda t: err(t.nn.Hardtanh, 1.0, 0.5),
    "dropout_bad": lambda t: err(t.nn.Dropout, 1.5),
    "dropout1d_bad_dim": lambda t: err(t.nn.Dropout1d(), t.ones(2, 3, 4, 5)),
    "batchnorm_dim": lambda t: err(t.nn.BatchNorm2d(3), t.ones(2, 3)),
    "batchnorm1d_dim": lambda t: err(t.nn.BatchNorm1d(3), t.ones(2, 3, 4, 4)),
    "batchnorm_one_value": lambda t: err(t.nn.BatchNorm1d(3), t.ones(1, 3)),
    "batchnorm_counts": lambda t: (lambda m: [m(t.ones(2, 3) * i) for i in range(3)] and
                                   (m.num_batches_tracked, m.running_mean, m.running_var))(
        t.nn.BatchNorm1d(3, momentum=None)),
    "batchnorm_old_checkpoint": lambda t: (lambda m: (m.load_state_dict(
        {k: v for k, v in m.state_dict().items() if k != "num_batches_tracked"}),
        m.num_batches_tracked))(t.nn.BatchNorm1d(3)),
    "layernorm_shape": lambda t: err(t.nn.LayerNorm(4), t.ones(2, 3)),
    "groupnorm_divisible": lambda t: err(t.nn.GroupNorm, 3, 4),
    "groupnorm_input": lambda t: err(t.nn.GroupNorm(2, 4), t.ones(2, 6, 3)),
    "embedding_padding_range": lambda t: err(t.nn.Embedding, 3, 2, padding_idx=3),
    "embedding_float_index": lambda t: err(t.nn.Embedding(3, 2), t.ones(2)),
    "embedding_out_of_range": lambda t: err(t.nn.Embedding(3, 2), t.tensor([3])),
    "embedding_repr": lambda t: repr(t.nn.Embedding(3, 2, padding_idx=1, max_norm=2.0,
                                                    norm_type=1.0, scale_grad_by_freq=True)),
    "embedding_pretrained": lambda t: (lambda e: (e.weight, e.weight.requires_grad, repr(e),
                                                  e(t.tensor([1]))))(
        t.nn.Embedding.from_pretrained(t.tensor([[1.0, 2.0], [3.0, 4.0]]), padding_idx=0)),
    "embedding_pretrained_train": lambda t: t.nn.Embedding.from_pretrained(
        t.ones(2, 2), freeze=False).weight.requires_grad,
    "embedding_pretrained_1d": lambda t: err(t.nn.Embedding.from_pretrained, t.ones(3)),
    "unflatten_bad": lambda t: err(t.nn.Unflatten, 1, (2, 2.0)),
    "unflatten_bad_type": lambda t: err(t.nn.Unflatten, 1, 4),
    "softmax2d_dim": lambda t: err(t.nn.Softmax2d(), t.ones(2, 2)),
    "softmax_nodim": lambda t: (lambda: [t.nn.Softmax()(t.ones(2, 3)) for _ in [
        warnings.simplefilter("ignore")]])(),
    "linear_shape": lambda t: err(t.nn.Linear(3, 2), t.ones(2, 4)),
    "glu_odd": lambda t: err(t.nn.GLU(), t.ones(2, 3)),
    "prelu_mismatch": lambda t: err(t.nn.PReLU(3), t.ones(2, 4)),
    "module_reprs": lambda t: [repr(m) for m in (
        t.nn.Identity(), t.nn.Threshold(0.1, 2, True), t.nn.ReLU(True), t.nn.ELU(inplace=True),
        t.nn.LeakyReLU(inplace=True), t.nn.Hardtanh(inplace=True), t.nn.ReLU6(True),
        t.nn.GELU(), t.nn.Softplus(), t.nn.Hardshrink(), t.nn.PReLU(), t.nn.GLU(),
        t.nn.Softmax(), t.nn.MaxPool1d(2), t.nn.AvgPool1d(2), t.nn.AvgPool2d(2),
        t.nn.AdaptiveAvgPool2d((None, 3)), t.nn.Dropout2d(), t.nn.BatchNorm1d(2, affine=False),
        t.nn.GroupNorm(1, 2, affine=False), t.nn.LayerNorm(2, elementwise_affine=False),
        t.nn.Bilinear(1, 2, 3, bias=False), t.nn.Unflatten(-1, (2, 2)), t.nn.Flatten(0))],
}


@pytest.mark.parametrize("name", CHECKS)
def test_checks(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(CHECKS[name])


def test_unavailable_features_refuse_clearly():
    with pytest.raises(NotImplementedError, match="sparse"):
        gg.nn.Embedding(3, 2, sparse=True)(gg.tensor([1]))


# -- nn.init -------------------------------------------------------------------------------
def _init(name, *args, shape=(4, 5), **kwargs):
    def program(t):
        t.manual_seed(0)
        w = t.empty(shape)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = err(getattr(t.nn.init, name), w, *args, **kwargs)
        return out if isinstance(out, tuple) and out and out[0] == "raised" else \
            (out is w, w, [str(c.message) for c in caught])
    return program


INIT_RANDOM = {
    "uniform_": _init("uniform_", -2.0, 3.0),
    "normal_": _init("normal_", 1.0, 0.5),
    "xavier_uniform_": _init("xavier_uniform_", gain=2.0),
    "xavier_normal_": _init("xavier_normal_", shape=(3, 4, 2)),
    "kaiming_uniform_": _init("kaiming_uniform_", a=0.1, mode="fan_out"),
    "kaiming_uniform_relu": _init("kaiming_uniform_", nonlinearity="relu", shape=(6, 2, 3)),
    "kaiming_normal_": _init("kaiming_normal_", mode="fan_out", nonlinearity="tanh"),
    "kaiming_empty": _init("kaiming_normal_", shape=(0, 3)),
    "kaiming_bad_mode": _init("kaiming_uniform_", mode="fan_avg"),
    "trunc_normal_": _init("trunc_normal_", shape=(50, 4)),
    "trunc_normal_narrow": _init("trunc_normal_", 0.0, 1.0, 1.5, 2.5, shape=(50, 4)),
    "trunc_normal_far": _init("trunc_normal_", 5.0, 1.0, -1.0, 1.0, shape=(20, 2)),
    "sparse_": _init("sparse_", 0.5, shape=(6, 3)),
    "deprecated_uniform": _init("uniform"),
}


@same_stream
@pytest.mark.parametrize("name", INIT_RANDOM)
def test_init_draws_torchs_numbers(name):
    assert_same(norm(INIT_RANDOM[name](torch)), norm(INIT_RANDOM[name](gg)), tol={})


def test_orthogonal_matches_torch_to_rounding():
    # the same draws; the QR factorisation may differ from torch's LAPACK in the last bit
    for shape in ((3, 5), (5, 3), (4, 2, 2)):
        assert_same(norm(_init("orthogonal_", gain=2.0, shape=shape)(torch)),
                    norm(_init("orthogonal_", gain=2.0, shape=shape)(gg)),
                    tol={"float32": (1e-5, 1e-6)})


INIT_FIXED = {
    "constant_": _init("constant_", 0.25),
    "ones_": _init("ones_"),
    "zeros_": _init("zeros_"),
    "eye_": _init("eye_"),
    "eye_3d": _init("eye_", shape=(2, 2, 2)),
    "dirac_": _init("dirac_", shape=(4, 2, 3, 3)),
    "dirac_groups": _init("dirac_", 2, shape=(4, 2, 3)),
    "dirac_2d": _init("dirac_"),
    "dirac_bad_groups": _init("dirac_", 3, shape=(4, 2, 3)),
    "orthogonal_1d": _init("orthogonal_", shape=(3,)),
    "fan_1d": lambda t: err(t.nn.init._calculate_fan_in_and_fan_out, t.ones(3)),
    "fan": lambda t: [t.nn.init._calculate_fan_in_and_fan_out(t.ones(s))
                      for s in ((3, 4), (3, 4, 5), (2, 3, 4, 5))],
    "gain": lambda t: [t.nn.init.calculate_gain(n, *p) for n, *p in (
        ("linear",), ("conv2d",), ("sigmoid",), ("tanh",), ("relu",), ("leaky_relu",),
        ("leaky_relu", 0.2), ("leaky_relu", 3), ("selu",), ("conv_transpose1d",))],
    "gain_bad": lambda t: err(t.nn.init.calculate_gain, "softmax"),
    "gain_bad_slope": lambda t: err(t.nn.init.calculate_gain, "leaky_relu", True),
}


@pytest.mark.parametrize("name", INIT_FIXED)
def test_init_fixed(name):
    assert_same(norm(INIT_FIXED[name](torch)), norm(INIT_FIXED[name](gg)), tol={})


# -- F.linear where no node is recorded (it skips the t() op: nothing of it can be seen) ------
LINEAR_MODES = {
    "no_grad": lambda t: t.no_grad(),
    "inference_mode": lambda t: t.inference_mode(),
    "grad_on_nothing_requires": lambda t: t.enable_grad(),
}


@pytest.mark.parametrize("mode", LINEAR_MODES.values(), ids=LINEAR_MODES.keys())
@pytest.mark.parametrize("shape", [(4, 6), (2, 3, 6), (6,)])
def test_linear_without_a_node(mode, shape):
    """Value, dtype, strides, requires_grad, inference flag, versions and views as torch's,
    and bit for bit the value F.linear gives while recording."""
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in (shape, (5, 6), (5,))]
    outs = []
    for lib in (torch, gg):
        x, w, b = (lib.tensor(a) for a in arrays)
        with mode(lib):
            y = lib.nn.functional.linear(x, w, b)
            y2 = lib.nn.functional.linear(x, w)
        outs.append((y, y2, w))
        assert not y.requires_grad and y.grad_fn is None
        assert w._version == 0 and (y.is_inference() or y._version == 0)
    (ty, ty2, _), (gy, gy2, gw) = outs
    for t, g in ((ty, gy), (ty2, gy2)):
        assert g.dtype == gg.float32 and g.shape == t.shape and g.stride() == t.stride()
        np.testing.assert_allclose(g.numpy(), t.numpy(), rtol=1e-5, atol=1e-6)
        assert g.is_inference() == t.is_inference()
        assert (g._base is None) == (t._base is None)
    x, w, b = (gg.tensor(a, requires_grad=True) for a in arrays)
    assert np.array_equal(gg.nn.functional.linear(x, w, b).detach().numpy(), gy.numpy())


def test_linear_records_through_t_when_a_parameter_requires_grad():
    for lib in (torch, gg):
        w = lib.ones(5, 6, requires_grad=True)
        y = lib.nn.functional.linear(lib.ones(4, 6), w, lib.ones(5))
        names = [type(y.grad_fn).__name__] + [type(n).__name__ for n, _ in
                                               y.grad_fn.next_functions if n is not None]
        assert names == ["AddmmBackward0", "TBackward0"], (lib.__name__, names)
