"""nn.LinearCrossEntropyLoss and F.linear_cross_entropy against torch 2.13's reference path:
values, grad_fn names, gradients of the input, weight and bias, the module's default
initialisation (after manual_seed), repr and state_dict, every reduction, class indices and
probabilities, K-dimensional losses, and torch's errors. torch's chunked path (options=...)
is not implemented: where torch would take it glassgrad raises NotImplementedError; where torch
ignores the options (with a warning) glassgrad warns the same and runs the reference path."""
import warnings

import numpy as np
import pytest
import torch as T

import glassgrad as torch

REDUCTIONS = ("mean", "sum", "none")


def arr(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype("float32")


def indices(shape, classes, seed=1):
    return np.random.default_rng(seed).integers(0, classes, shape).astype("int64")


def outcome(lib, fn):
    """fn(lib)'s loss, its grad_fn name and the gradients of the tensors it returns."""
    loss, leaves = fn(lib)
    loss.sum().backward() if loss.dim() else loss.backward()
    return (loss.detach().numpy(), type(loss.grad_fn).__name__,
            [None if t.grad is None else t.grad.numpy() for t in leaves])


def same(fn, rtol=1e-5, atol=1e-6):
    got, want = outcome(torch, fn), outcome(T, fn)
    np.testing.assert_allclose(got[0], want[0], rtol=rtol, atol=atol)
    assert got[1] == want[1]
    for g, w in zip(got[2], want[2]):
        assert (g is None) == (w is None)
        if w is not None:
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


def functional(input_shape, weight_shape, target, bias=False, **kwargs):
    def fn(lib):
        x = lib.tensor(arr(*input_shape), requires_grad=True)
        w = lib.tensor(arr(*weight_shape, seed=2), requires_grad=True)
        b = lib.tensor(arr(*weight_shape[:-1], seed=3), requires_grad=True) if bias else None
        t = lib.tensor(target)
        args = dict(kwargs)
        if "weight" in args:
            args["weight"] = lib.tensor(args["weight"])
        loss = lib.nn.functional.linear_cross_entropy(x, w, t, linear_bias=b, **args)
        return loss, [x, w] + ([b] if bias else [])
    return fn


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("case", [
    dict(input_shape=(4, 3), weight_shape=(5, 3), target=indices(4, 5)),
    dict(input_shape=(4, 3), weight_shape=(5, 3), target=indices(4, 5), bias=True),
    dict(input_shape=(3,), weight_shape=(5, 3), target=np.array(2)),
    dict(input_shape=(4, 3), weight_shape=(5, 2, 3, 3), target=indices((4, 2, 3), 5),
         bias=True),
    dict(input_shape=(4, 3), weight_shape=(5, 3),
         target=np.array([0, -100, 4, 2]), weight=np.linspace(0.5, 2, 5, dtype="float32")),
    dict(input_shape=(4, 3), weight_shape=(5, 3), target=np.array([0, 3, 4, 3]),
         ignore_index=3, label_smoothing=0.2),
    dict(input_shape=(4, 3), weight_shape=(5, 3),
         target=np.random.default_rng(5).dirichlet(np.ones(5), 4).astype("float32")),
    dict(input_shape=(4, 3), weight_shape=(5, 2, 3),
         target=np.random.default_rng(6).dirichlet(np.ones(5), (4, 2)).transpose(0, 2, 1)
         .astype("float32").copy(), label_smoothing=0.1),
], ids=["indices", "bias", "unbatched", "k-dim", "class-weight", "smoothing-ignore",
        "probabilities", "k-dim-probabilities"])
def test_functional_is_torchs_reference_path(case, reduction):
    case = dict(case)
    same(functional(case.pop("input_shape"), case.pop("weight_shape"), case.pop("target"),
                    reduction=reduction, **case))


@pytest.mark.parametrize("out_features, bias", [((), False), ((), True), ((2, 3), True)])
def test_module_is_torchs(out_features, bias):
    def build(lib):
        lib.manual_seed(0)
        return lib.nn.LinearCrossEntropyLoss(3, 5, out_features=out_features, bias=bias,
                                             weight=lib.linspace(0.5, 2, 5),
                                             label_smoothing=0.1)
    g, t = build(torch), build(T)
    assert repr(g) == repr(t)
    assert list(g.state_dict()) == list(t.state_dict())
    for k, v in t.state_dict().items():
        assert np.array_equal(g.state_dict()[k].numpy(), v.numpy()), k
    target = indices((4, *out_features), 5)

    def fn(lib):
        m = build(lib)
        x = lib.tensor(arr(4, 3), requires_grad=True)
        return m(x, lib.tensor(target)), [x, *m.parameters()]
    same(fn)


def test_module_refuses_as_torch():
    for kwargs in (dict(weight=np.ones(4, "float32")), dict(label_smoothing=1.5)):
        got, want = [], []
        for lib, out in ((torch, got), (T, want)):
            args = dict(kwargs)
            if "weight" in args:
                args["weight"] = lib.tensor(args["weight"])
            with pytest.raises(RuntimeError) as e:
                lib.nn.LinearCrossEntropyLoss(3, 5, **args)
            out.append(str(e.value))
        assert got == want


@pytest.mark.parametrize("call", [
    lambda lib: (lib.ones(2, 2, 3), lib.ones(5, 3), lib.zeros(2, dtype=lib.int64), {}),
    lambda lib: (lib.ones(2, 3), lib.ones(5), lib.zeros(2, dtype=lib.int64), {}),
    lambda lib: (lib.ones(2, 3), lib.ones(5, 4), lib.zeros(2, dtype=lib.int64), {}),
    lambda lib: (lib.ones(2, 3), lib.ones(5, 3), lib.zeros(2, dtype=lib.int64),
                 {"linear_bias": lib.ones(4)}),
    lambda lib: (lib.ones(3), lib.ones(5, 2, 3), lib.zeros(2, dtype=lib.int64), {}),
    lambda lib: (lib.ones(2, 3), lib.ones(5, 3), lib.ones(2, 5) / 5, {"ignore_index": 1}),
])
def test_functional_refuses_as_torch(call):
    messages = []
    for lib in (torch, T):
        x, w, t, kwargs = call(lib)
        with pytest.raises(RuntimeError) as e:
            lib.nn.functional.linear_cross_entropy(x, w, t, **kwargs)
        messages.append(str(e.value))
    assert messages[0] == messages[1]


def test_options_validate_as_torchs():
    for kwargs in (dict(acc_policy="fast"), dict(chunking_method="aspect_ratio:0"),
                   dict(batch_chunk_size=0), dict(acc_dtype=T.int32)):
        messages = []
        for lib in (torch, T):
            args = {k: (lib.int32 if v is T.int32 else v) for k, v in kwargs.items()}
            with pytest.raises(ValueError) as e:
                lib.nn.LinearCrossEntropyOptions(**args)
            messages.append(str(e.value).replace("glassgrad.", "torch."))
        assert messages[0] == messages[1]
    assert repr(torch.nn.LinearCrossEntropyOptions(batch_chunk_size=4)) == \
        repr(T.nn.LinearCrossEntropyOptions(batch_chunk_size=4))


def test_options_torch_ignores_warn_and_run_the_reference_path():
    def fn(lib):
        x = lib.tensor(arr(4, 3), requires_grad=True)
        w = lib.tensor(arr(5, 3, seed=2), requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            loss = lib.nn.functional.linear_cross_entropy(
                x, w, lib.tensor(indices(4, 5)), label_smoothing=0.1,
                options=lib.nn.LinearCrossEntropyOptions())
        fn.warnings[lib] = [str(c.message).replace("glassgrad.", "torch.") for c in caught]
        return loss, [x, w]
    fn.warnings = {}
    same(fn)
    assert fn.warnings[torch] == fn.warnings[T] and len(fn.warnings[T]) == 1


def test_options_torch_would_chunk_are_refused():
    x, w, t = torch.ones(4, 3), torch.ones(5, 3), torch.zeros(4, dtype=torch.int64)
    with pytest.raises(NotImplementedError, match="no chunked implementation"):
        torch.nn.functional.linear_cross_entropy(
            x, w, t, options=torch.nn.LinearCrossEntropyOptions(batch_chunk_size=2))
