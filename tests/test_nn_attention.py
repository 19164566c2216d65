"""Attention and the Transformer against torch: scaled_dot_product_attention on both of torch's
CPU paths (the fused kernel's node and the math path's), its errors and dropout draws;
MultiheadAttention and the Transformer modules built in both libraries from the same seed
(default initialisation compared bit for bit), run on the same inputs: outputs, weights,
grad_fn names, reprs, and the gradients of the inputs and every parameter."""
import warnings

import numpy as np
import pytest
import torch

import glassgrad as gg
from differential import assert_same, norm

TOL = {"float32": (1e-4, 1e-5), "float64": (1e-10, 1e-12), "float16": (1e-2, 2e-3)}


def arr(*shape, seed=0, dtype="float32"):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def err(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - errors are compared
        return ("raised", type(e).__name__, str(e))


# -- scaled_dot_product_attention --------------------------------------------------------------
def _qkv(q, k, v, dtype="float32"):
    return [arr(*s, seed=i, dtype=dtype) for i, s in enumerate((q, k, v))]


def _mask(*shape, boolean=False, seed=7):
    m = arr(*shape, seed=seed)
    return m > -0.5 if boolean else m


B4 = ((2, 3, 4, 8), (2, 3, 6, 8), (2, 3, 6, 8))
SDPA = {    # name -> (q, k, v arrays, mask array or None, kwargs, grad of the mask)
    "fused": (_qkv(*B4), None, {}, False),
    "fused_double": (_qkv(*B4, dtype="float64"), None, {}, False),
    "fused_causal": (_qkv(*B4), None, {"is_causal": True}, False),
    "fused_scale": (_qkv(*B4), None, {"scale": 0.7}, False),
    "fused_negative_scale": (_qkv(*B4), None, {"scale": -0.3}, False),
    "fused_float_mask": (_qkv(*B4), _mask(4, 6), {}, False),
    "fused_bool_mask": (_qkv(*B4), _mask(4, 6, boolean=True), {}, False),
    "fused_bool_mask_4d": (_qkv(*B4), _mask(2, 1, 4, 6, boolean=True), {}, False),
    "fused_mask_broadcast": (_qkv(*B4), _mask(4, 1), {}, False),
    "fused_mask_and_causal": (_qkv(*B4), _mask(4, 6), {"is_causal": True}, False),
    "fused_gqa": (_qkv((2, 6, 4, 8), (2, 3, 6, 8), (2, 3, 6, 8)), None, {"enable_gqa": True},
                  False),
    "fused_masked_rows": (_qkv(*B4), np.array([[True] * 6, [False] * 6] * 2), {}, False),
    "math_3d": (_qkv((3, 4, 5), (3, 6, 5), (3, 6, 7)), None, {}, False),
    "math_2d": (_qkv((4, 5), (6, 5), (6, 7)), None, {"is_causal": True}, False),
    "math_value_dim": (_qkv((2, 3, 4, 8), (2, 3, 6, 8), (2, 3, 6, 5)), None, {}, False),
    "math_broadcast": (_qkv((2, 3, 4, 8), (1, 3, 6, 8), (1, 3, 6, 8)), None, {}, False),
    "math_3d_mask": (_qkv(*B4), _mask(3, 4, 6), {}, False),
    "math_mask_grad": (_qkv(*B4), _mask(4, 6), {}, True),
    "math_bool_mask_rows": (_qkv((3, 4, 5), (3, 6, 5), (3, 6, 5)),
                            np.array([[True] * 6, [False] * 6] * 2), {}, False),
    "math_gqa": (_qkv((2, 4, 3, 5), (2, 2, 6, 5), (2, 2, 6, 7)), None, {"enable_gqa": True},
                 False),
    "math_scale": (_qkv((3, 4, 5), (3, 6, 5), (3, 6, 5)), None, {"scale": -0.5}, False),
    "math_double": (_qkv((3, 4, 5), (3, 6, 5), (3, 6, 5), dtype="float64"), _mask(4, 6),
                    {}, False),
    "fused_half": (_qkv(*B4, dtype="float16"), _mask(4, 6, boolean=True), {}, False),
    "math_half": (_qkv((3, 4, 5), (3, 6, 5), (3, 6, 5), dtype="float16"), None,
                  {"is_causal": True}, False),
}


def _sdpa(lib, arrays, mask, kwargs, mask_grad):
    q, k, v = (lib.tensor(a, requires_grad=True) for a in arrays)
    m = None if mask is None else lib.tensor(mask if mask.dtype == bool else
                                             mask.astype(arrays[0].dtype),
                                             requires_grad=mask_grad)
    out = lib.nn.functional.scaled_dot_product_attention(q, k, v, m, **kwargs)
    out.backward(lib.tensor(arr(*out.shape, seed=9, dtype=arrays[0].dtype)))
    return {"out": out, "grad_fn": type(out.grad_fn).__name__, "stride": out.stride(),
            "grads": [q.grad, k.grad, v.grad, None if m is None else m.grad]}


@pytest.mark.parametrize("name", SDPA)
def test_sdpa(name):
    arrays, mask, kwargs, mask_grad = SDPA[name]
    assert_same(norm(_sdpa(torch, arrays, mask, kwargs, mask_grad)),
                norm(_sdpa(gg, arrays, mask, kwargs, mask_grad)), tol=TOL)


def test_sdpa_fused_node_saves_what_torchs_saves():
    def program(lib):
        q, k, v = (lib.tensor(a, requires_grad=True) for a in _qkv(*B4))
        fn = lib.nn.functional.scaled_dot_product_attention(
            q, k, v, lib.tensor(_mask(4, 6, boolean=True)), is_causal=True).grad_fn
        return (fn._saved_dropout_p, fn._saved_is_causal, fn._saved_scale, fn._saved_attn_mask,
                fn._saved_logsumexp, fn._saved_logsumexp.stride(), fn._saved_output,
                [type(f).__name__ if f else None for f, _ in fn.next_functions])
    assert_same(norm(program(torch)), norm(program(gg)), tol=TOL)


def test_sdpa_fused_backward_has_no_derivative():
    def program(lib):
        q, k, v = (lib.tensor(a, requires_grad=True) for a in _qkv(*B4))
        out = lib.nn.functional.scaled_dot_product_attention(q, k, v)
        g, = lib.autograd.grad(out.sum(), q, create_graph=True)
        return type(g.grad_fn).__name__, err(g.sum().backward)
    assert_same(norm(program(torch)), norm(program(gg)))


@pytest.mark.parametrize("shapes", [((2, 3, 0, 8), (2, 3, 5, 8), (2, 3, 5, 6)),
                                    ((3, 4, 8), (3, 0, 8), (3, 0, 5)),
                                    ((2, 3, 4, 8), (1, 3, 0, 8), (1, 3, 0, 5))])
def test_sdpa_empty_sequences(shapes):
    def program(lib):
        q, k, v = (lib.tensor(arr(*s, seed=i), requires_grad=True) for i, s in enumerate(shapes))
        out = lib.nn.functional.scaled_dot_product_attention(q, k, v)
        out.sum().backward()
        return out, type(out.grad_fn).__name__, q.grad, k.grad, v.grad
    assert_same(norm(program(torch)), norm(program(gg)))


def test_sdpa_no_grad_and_unbatched():
    def program(lib):
        q, k, v = (lib.tensor(a) for a in _qkv(*B4))
        with lib.no_grad():
            a = lib.nn.functional.scaled_dot_product_attention(q, k, v)
        return a, a.grad_fn, lib.nn.functional.scaled_dot_product_attention(q[0], k, v)
    assert_same(norm(program(torch)), norm(program(gg)), tol=TOL)


DROPOUT = {"math_4d": (B4, {}), "math_3d": (((3, 4, 5), (3, 6, 5), (3, 6, 5)), {}),
           "causal": (B4, {"is_causal": True})}


@pytest.mark.parametrize("name", DROPOUT)
def test_sdpa_dropout_draws_torchs_mask(name):
    shapes, kwargs = DROPOUT[name]

    def program(lib):
        lib.manual_seed(3)
        q, k, v = (lib.tensor(a, requires_grad=True) for a in _qkv(*shapes))
        out = lib.nn.functional.scaled_dot_product_attention(q, k, v, dropout_p=0.4, **kwargs)
        out.backward(lib.ones_like(out))
        return out, type(out.grad_fn).__name__, q.grad, k.grad, v.grad
    assert_same(norm(program(torch)), norm(program(gg)), tol=TOL)


def _sdpa_call(*shapes, mask=None, dtype="float32", **kwargs):
    def call(lib):
        q, k, v = (lib.tensor(arr(*s, seed=i, dtype=d)) for i, (s, d) in enumerate(
            zip(shapes, dtype if isinstance(dtype, tuple) else (dtype,) * 3)))
        m = None if mask is None else lib.tensor(mask)
        return err(lib.nn.functional.scaled_dot_product_attention, q, k, v, m, **kwargs)
    return call


SDPA_ERRORS = {
    "dtypes": _sdpa_call(*B4, dtype=("float32", "float64", "float32")),
    "dtypes_value": _sdpa_call(*B4, dtype=("float32", "float32", "float64")),
    "1d": _sdpa_call((8,), *B4[1:]),
    "mask_dtype": _sdpa_call(*B4, mask=np.zeros((4, 6), dtype=np.int64)),
    "mask_dtype_double": _sdpa_call(*B4, mask=np.zeros((4, 6))),
    "mask_shape": _sdpa_call(*B4, mask=np.zeros((4, 5), dtype=np.float32)),
    "mask_1d": _sdpa_call(*B4, mask=np.zeros(6, dtype=np.float32)),
    "heads": _sdpa_call((2, 3, 4, 8), (2, 2, 6, 8), (2, 2, 6, 8)),
    "gqa_divide": _sdpa_call((2, 3, 4, 8), (2, 2, 6, 8), (2, 2, 6, 8), enable_gqa=True),
    "dropout_big": _sdpa_call(*B4, dropout_p=1.5),
    "dropout_negative": _sdpa_call(*B4, dropout_p=-0.5),
    "causal_and_mask_math": _sdpa_call((3, 4, 5), (3, 6, 5), (3, 6, 5),
                                       mask=np.zeros((4, 6), np.float32), is_causal=True),
    "scale_positional": lambda lib: err(lib.nn.functional.scaled_dot_product_attention,
                                        *[lib.ones(2, 2)] * 3, None, 0.0, False, 1.0),
    "missing": lambda lib: err(lib.nn.functional.scaled_dot_product_attention, lib.ones(2, 2)),
}


@pytest.mark.parametrize("name", SDPA_ERRORS)
def test_sdpa_errors(name):
    assert_same(norm(SDPA_ERRORS[name](torch)), norm(SDPA_ERRORS[name](gg)))


# -- MultiheadAttention ------------------------------------------------------------------------
MHA = {     # name -> (constructor kwargs, query, key, value shapes, forward kwargs)
    "self": ({}, "qqq", {}),
    "self_no_weights": ({}, "qqq", {"need_weights": False}),
    "per_head_weights": ({}, "qqq", {"average_attn_weights": False}),
    "cross": ({}, "qkk", {}),
    "cross_no_weights": ({}, "qkk", {"need_weights": False}),
    "qkv": ({}, "qkv", {}),
    "kdim_vdim": ({"kdim": 5, "vdim": 3}, "qKV", {}),
    "kdim_vdim_no_weights": ({"kdim": 5, "vdim": 3}, "qKV", {"need_weights": False}),
    "no_bias": ({"bias": False}, "qqq", {}),
    "bias_kv": ({"add_bias_kv": True}, "qkk", {}),
    "zero_attn": ({"add_zero_attn": True}, "qkk", {"need_weights": False}),
    "bias_kv_zero_attn_masks": ({"add_bias_kv": True, "add_zero_attn": True}, "qkk",
                                {"attn_mask": "bool", "key_padding_mask": "bool"}),
    "batch_first": ({"batch_first": True}, "qqq", {}),
    "batch_first_cross": ({"batch_first": True}, "qkk", {"need_weights": False}),
    "bool_masks": ({}, "qkk", {"attn_mask": "bool", "key_padding_mask": "bool"}),
    "float_mask_no_weights": ({}, "qkk", {"attn_mask": "float", "need_weights": False}),
    "mask_3d": ({}, "qkk", {"attn_mask": "3d"}),
    "padding_no_weights": ({}, "qkk", {"key_padding_mask": "bool", "need_weights": False}),
    "causal": ({}, "qqq", {"attn_mask": "causal", "is_causal": True, "need_weights": False}),
    "causal_weights": ({}, "qqq", {"attn_mask": "causal", "is_causal": True}),
    "unbatched": ({}, "qkk", {"unbatched": True}),
    "unbatched_padding": ({}, "qkk", {"unbatched": True, "key_padding_mask": "bool",
                                      "need_weights": False}),
    "double": ({"dtype": "float64"}, "qkk", {}),
}
L, S, N, E, H = 4, 5, 3, 8, 2


def _mha_inputs(lib, roles, fkw, dtype):
    shapes = {"q": (L, N, E), "k": (S, N, E), "v": (S, N, E), "K": (S, N, 5), "V": (S, N, 3)}
    made = {}
    tensors = []
    for i, r in enumerate(roles):
        if r not in made:
            shape = shapes[r][:1] + shapes[r][2:] if fkw.get("unbatched") else shapes[r]
            made[r] = lib.tensor(arr(*shape, seed=i, dtype=dtype), requires_grad=True)
        tensors.append(made[r])
    return tensors, list(made.values())


def _mha_masks(lib, fkw, dtype):
    out, unbatched = {}, fkw.get("unbatched")
    for key in ("need_weights", "average_attn_weights", "is_causal"):
        if key in fkw:
            out[key] = fkw[key]
    kind = fkw.get("attn_mask")
    if kind == "bool":
        out["attn_mask"] = lib.tensor(_mask(L, S, boolean=True, seed=3) == 0)
    elif kind == "float":
        out["attn_mask"] = lib.tensor(_mask(L, S, seed=3).astype(dtype))
    elif kind == "3d":
        out["attn_mask"] = lib.tensor(_mask(N * H, L, S, seed=3).astype(dtype))
    elif kind == "causal":
        out["attn_mask"] = lib.nn.Transformer.generate_square_subsequent_mask(L, dtype=getattr(
            lib, dtype))
    if fkw.get("key_padding_mask"):
        pad = np.zeros((N, S), dtype=bool)
        pad[:, -1] = True
        pad[1, -2] = True
        out["key_padding_mask"] = lib.tensor(pad[0] if unbatched else pad)
    return out


def _mha(lib, name):
    ckw, roles, fkw = MHA[name]
    dtype = ckw.get("dtype", "float32")
    ckw = {**ckw, "dtype": getattr(lib, dtype)}
    lib.manual_seed(0)
    m = lib.nn.MultiheadAttention(E, H, **ckw)
    params = dict(m.named_parameters())
    inputs, leaves = _mha_inputs(lib, roles, fkw, dtype)
    if ckw.get("batch_first"):
        seen = {}       # the same tensor stays the same object (query is key is value)
        inputs = [seen.setdefault(id(t), t.transpose(0, 1)) for t in inputs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out, weights = m(*inputs, **_mha_masks(lib, fkw, dtype))
    out.backward(lib.tensor(arr(*out.shape, seed=5, dtype=dtype)))
    return {"out": out, "weights": weights, "grad_fn": type(out.grad_fn).__name__,
            "repr": repr(m), "params": params, "input_grads": [t.grad for t in leaves],
            "param_grads": {k: p.grad for k, p in params.items()},
            "out_proj": type(m.out_proj).__name__}


@pytest.mark.parametrize("name", MHA)
def test_multihead_attention(name):
    assert_same(norm(_mha(torch, name)), norm(_mha(gg, name)), tol=TOL)


def test_multihead_attention_dropout_draws_torchs_masks():
    def program(lib, need_weights):
        lib.manual_seed(0)
        m = lib.nn.MultiheadAttention(E, H, dropout=0.3)
        x = lib.tensor(arr(L, N, E), requires_grad=True)
        out, w = m(x, x, x, need_weights=need_weights)
        out.sum().backward()
        return out, w, x.grad, m.in_proj_weight.grad
    for nw in (True, False):
        assert_same(norm(program(torch, nw)), norm(program(gg, nw)), tol=TOL)


MHA_ERRORS = {
    "zero_heads": lambda lib: err(lib.nn.MultiheadAttention, 4, 0),
    "divisible": lambda lib: err(lib.nn.MultiheadAttention, 6, 4),
    "4d_query": lambda lib: err(lib.nn.MultiheadAttention(4, 2), *[lib.ones(1, 2, 3, 4)] * 3),
    "key_dims": lambda lib: err(lib.nn.MultiheadAttention(4, 2), lib.ones(2, 3, 4),
                                lib.ones(2, 4), lib.ones(2, 4)),
    "embed": lambda lib: err(lib.nn.MultiheadAttention(4, 2), *[lib.ones(2, 3, 6)] * 3),
    "int_mask": lambda lib: err(lib.nn.MultiheadAttention(4, 2), *[lib.ones(2, 3, 4)] * 3,
                                attn_mask=lib.ones(2, 2, dtype=lib.int64)),
    "mask_shape": lambda lib: err(lib.nn.MultiheadAttention(4, 2), *[lib.ones(2, 3, 4)] * 3,
                                  attn_mask=lib.ones(3, 3)),
    "mask_3d_shape": lambda lib: err(lib.nn.MultiheadAttention(4, 2), *[lib.ones(2, 3, 4)] * 3,
                                     attn_mask=lib.ones(2, 2, 2)),
    "causal_no_mask": lambda lib: err(lib.nn.MultiheadAttention(4, 2), *[lib.ones(2, 3, 4)] * 3,
                                      is_causal=True),
    "padding_shape": lambda lib: err(lib.nn.MultiheadAttention(4, 2), *[lib.ones(2, 3, 4)] * 3,
                                     key_padding_mask=lib.zeros(3, 3, dtype=lib.bool)),
    "reprs": lambda lib: [repr(lib.nn.MultiheadAttention(4, 2, bias=False, kdim=3)),
                          repr(lib.nn.MultiheadAttention(4, 1, add_bias_kv=True))],
    "mismatched_masks_warn": lambda lib: _warned(lambda: lib.nn.MultiheadAttention(4, 2)(
        *[lib.ones(2, 3, 4)] * 3, attn_mask=lib.zeros(2, 2),
        key_padding_mask=lib.zeros(3, 2, dtype=lib.bool))[0]),
}


def _warned(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn()
    return out, sorted({str(c.message) for c in caught if "Converting" not in str(c.message)})


@pytest.mark.parametrize("name", MHA_ERRORS)
def test_multihead_attention_checks(name):
    assert_same(norm(MHA_ERRORS[name](torch)), norm(MHA_ERRORS[name](gg)), tol=TOL)


# -- the Transformer modules -------------------------------------------------------------------
D, FF = 8, 16
TRANSFORMERS = {    # name -> (constructor(lib), kind of call, call kwargs)
    "encoder_layer": (lambda t: t.nn.TransformerEncoderLayer(D, 2, FF, dropout=0.0), "enc", {}),
    "encoder_layer_gelu_norm_first": (lambda t: t.nn.TransformerEncoderLayer(
        D, 2, FF, dropout=0.0, activation="gelu", norm_first=True), "enc", {}),
    "encoder_layer_callable": (lambda t: t.nn.TransformerEncoderLayer(
        D, 2, FF, dropout=0.0, activation=t.nn.functional.silu, bias=False), "enc", {}),
    "encoder_layer_masks": (lambda t: t.nn.TransformerEncoderLayer(D, 2, FF, dropout=0.0),
                            "enc", {"src_mask": "causal", "src_key_padding_mask": "pad"}),
    "encoder_layer_causal": (lambda t: t.nn.TransformerEncoderLayer(D, 2, FF, dropout=0.0),
                             "enc", {"src_mask": "causal", "is_causal": True}),
    "encoder_layer_unbatched": (lambda t: t.nn.TransformerEncoderLayer(D, 2, FF, dropout=0.0),
                                "enc1", {}),
    "encoder_layer_eval_batch_first": (lambda t: t.nn.TransformerEncoderLayer(
        D, 2, FF, batch_first=True).eval(), "enc", {}),
    "encoder_layer_train_dropout": (lambda t: t.nn.TransformerEncoderLayer(D, 2, FF, 0.2),
                                    "enc", {}),
    "encoder": (lambda t: t.nn.TransformerEncoder(t.nn.TransformerEncoderLayer(
        D, 2, FF, dropout=0.0), 2, t.nn.LayerNorm(D), enable_nested_tensor=False), "enc",
        {"mask": "causal"}),
    "encoder_padding": (lambda t: t.nn.TransformerEncoder(t.nn.TransformerEncoderLayer(
        D, 2, FF, dropout=0.0, batch_first=True), 2), "enc", {"src_key_padding_mask": "pad"}),
    "encoder_nested_eval": (lambda t: t.nn.TransformerEncoder(t.nn.TransformerEncoderLayer(
        D, 2, FF, batch_first=True), 2).eval().requires_grad_(False), "enc_nograd",
        {"src_key_padding_mask": "pad"}),
    "decoder_layer": (lambda t: t.nn.TransformerDecoderLayer(D, 2, FF, dropout=0.0), "dec",
                      {"tgt_mask": "causal", "memory_key_padding_mask": "pad"}),
    "decoder_layer_norm_first": (lambda t: t.nn.TransformerDecoderLayer(
        D, 2, FF, dropout=0.0, norm_first=True, activation="gelu"), "dec", {}),
    "decoder": (lambda t: t.nn.TransformerDecoder(t.nn.TransformerDecoderLayer(
        D, 2, FF, dropout=0.0, batch_first=True), 2, t.nn.LayerNorm(D)), "dec",
        {"tgt_mask": "causal"}),
    "transformer": (lambda t: t.nn.Transformer(D, 2, 2, 2, FF, dropout=0.0), "both",
                    {"tgt_mask": "causal", "src_key_padding_mask": "pad",
                     "memory_key_padding_mask": "pad"}),
    "transformer_train_dropout": (lambda t: t.nn.Transformer(D, 2, 1, 1, FF, batch_first=True,
                                                             norm_first=True), "both",
                                  {"tgt_mask": "causal", "tgt_is_causal": True}),
}
T_SRC, T_TGT, T_N = 5, 4, 3


def _transformer_inputs(lib, kind, module):
    batch_first = getattr(module, "batch_first", False) or getattr(getattr(
        module, "self_attn", None), "batch_first", False) or (
        hasattr(module, "layers") and module.layers[0].self_attn.batch_first)

    def seq(n, seed):
        shape = (T_N, n, D) if batch_first else (n, T_N, D)
        shape = shape[1:] if kind == "enc1" else shape
        return lib.tensor(arr(*shape, seed=seed), requires_grad=kind != "enc_nograd")
    if kind == "both":
        return [seq(T_SRC, 0), seq(T_TGT, 1)]
    if kind == "dec":
        return [seq(T_TGT, 1), seq(T_SRC, 0)]
    return [seq(T_SRC, 0)]


def _transformer_masks(lib, kw):
    out = {}
    for key, value in kw.items():
        if value == "causal":
            n = T_SRC if key in ("src_mask", "mask") else T_TGT
            out[key] = lib.nn.Transformer.generate_square_subsequent_mask(n)
        elif value == "pad":
            pad = np.zeros((T_N, T_SRC), dtype=bool)
            pad[0, -2:] = True
            pad[2, -1] = True
            out[key] = lib.tensor(pad)
        else:
            out[key] = value
    return out


def _transformer(lib, name):
    ctor, kind, kw = TRANSFORMERS[name]
    lib.manual_seed(0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m = ctor(lib)
    params = dict(m.named_parameters())
    inputs = _transformer_inputs(lib, kind, m)
    lib.manual_seed(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = m(*inputs, **_transformer_masks(lib, kw))
    if out.requires_grad:
        out.backward(lib.tensor(arr(*out.shape, seed=5)))
    return {"out": out, "grad_fn": type(out.grad_fn).__name__ if out.grad_fn else None,
            "repr": repr(m), "params": params, "input_grads": [t.grad for t in inputs],
            "param_grads": {k: p.grad for k, p in params.items()},
            "warnings": [str(c.message) for c in caught]}


@pytest.mark.parametrize("name", TRANSFORMERS)
def test_transformer_modules(name):
    assert_same(norm(_transformer(torch, name)), norm(_transformer(gg, name)), tol=TOL)


TRANSFORMER_CHECKS = {
    "mask": lambda lib: lib.nn.Transformer.generate_square_subsequent_mask(4),
    "mask_double": lambda lib: lib.nn.Transformer.generate_square_subsequent_mask(
        3, dtype=lib.float64),
    "bad_activation": lambda lib: err(lib.nn.TransformerEncoderLayer, 4, 2, activation="tanh"),
    "batch_mismatch": lambda lib: err(lib.nn.Transformer(4, 2, 1, 1, 8, batch_first=True),
                                      lib.ones(3, 2, 4), lib.ones(2, 2, 4)),
    "feature_mismatch": lambda lib: err(lib.nn.Transformer(4, 2, 1, 1, 8, batch_first=True),
                                        lib.ones(3, 2, 4), lib.ones(3, 2, 5)),
    "relu_or_gelu": lambda lib: [lib.nn.TransformerEncoderLayer(4, 2, activation=a)
                                 .activation_relu_or_gelu for a in (
                                     "relu", "gelu", lib.nn.ReLU(), lib.nn.GELU(),
                                     lib.nn.functional.silu)],
    "nested_flags": lambda lib: _warned(lambda: [(e.use_nested_tensor, e.enable_nested_tensor)
                                                 for e in (
        lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(4, 2, batch_first=True), 1),
        lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(4, 1, batch_first=True), 1),
        lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(4, 2, norm_first=True), 1),
        lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(4, 2), 1,
                                  enable_nested_tensor=False))]),
    "clones_are_copies": lambda lib: (lambda e: (e.layers[0] is not e.layers[1],
                                                 e.layers[0].linear1.weight.data_ptr() !=
                                                 e.layers[1].linear1.weight.data_ptr()))(
        lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(4, 2), 2,
                                  enable_nested_tensor=False)),
}


@pytest.mark.parametrize("name", TRANSFORMER_CHECKS)
def test_transformer_checks(name):
    assert_same(norm(TRANSFORMER_CHECKS[name](torch)), norm(TRANSFORMER_CHECKS[name](gg)))


# -- default initialisation, bit for bit; inference (torch's fast paths give the same values) --
INIT = {
    "mha": lambda t: t.nn.MultiheadAttention(8, 2),
    "mha_kdim_bias_kv": lambda t: t.nn.MultiheadAttention(8, 4, kdim=3, vdim=5, add_bias_kv=True),
    "mha_double": lambda t: t.nn.MultiheadAttention(6, 3, dtype=t.float64),
    "encoder_layer": lambda t: t.nn.TransformerEncoderLayer(8, 2, 16),
    "decoder": lambda t: t.nn.TransformerDecoder(t.nn.TransformerDecoderLayer(8, 2, 16), 2),
    "transformer": lambda t: t.nn.Transformer(8, 2, 2, 1, 16, batch_first=True),
}


@pytest.mark.parametrize("name", INIT)
def test_default_init_bit_for_bit(name):
    def program(t):
        t.manual_seed(0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return INIT[name](t).state_dict()
    assert_same(norm(program(torch)), norm(program(gg)), tol={})    # exact


INFERENCE = {   # eval, no grad: where torch takes its fused inference kernels
    "mha_native": lambda t, x, pad: t.nn.MultiheadAttention(8, 2, batch_first=True).eval()(
        x, x, x, key_padding_mask=pad),
    "mha_native_per_head": lambda t, x, pad: t.nn.MultiheadAttention(
        8, 2, batch_first=True).eval()(x, x, x, average_attn_weights=False),
    "encoder_layer_fused": lambda t, x, pad: t.nn.TransformerEncoderLayer(
        8, 2, 16, batch_first=True).eval()(x, src_key_padding_mask=pad),
    "encoder_layer_fused_norm_first": lambda t, x, pad: t.nn.TransformerEncoderLayer(
        8, 2, 16, batch_first=True, norm_first=True, activation="gelu").eval()(x),
    "encoder_nested_norm": lambda t, x, pad: t.nn.TransformerEncoder(
        t.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 2,
        t.nn.LayerNorm(8)).eval()(x, src_key_padding_mask=pad),
    "transformer": lambda t, x, pad: t.nn.Transformer(8, 2, 1, 1, 16, batch_first=True).eval()(
        x, x[:, :3], src_key_padding_mask=pad, memory_key_padding_mask=pad),
}


@pytest.mark.parametrize("name", INFERENCE)
def test_inference(name):
    def program(t):
        t.manual_seed(0)
        pad = np.zeros((3, 5), dtype=bool)
        pad[0, 3:] = pad[2, 4] = True
        with t.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return INFERENCE[name](t, t.tensor(arr(3, 5, 8)), t.tensor(pad))
    assert_same(norm(program(torch)), norm(program(gg)), tol=TOL)


def test_sdpa_key_value_lengths_differ():
    """torch's fused kernel reads past a shorter value (undefined values); glassgrad takes the
    math path there and raises what torch's math path raises."""
    from torch.nn.attention import SDPBackend, sdpa_kernel

    def program(lib):
        q, k, v = (lib.tensor(arr(*s, seed=i)) for i, s in enumerate(
            ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 6, 8))))
        return err(lib.nn.functional.scaled_dot_product_attention, q, k, v)
    with sdpa_kernel(SDPBackend.MATH):
        expected = program(torch)
    assert_same(norm(expected), norm(program(gg)))
