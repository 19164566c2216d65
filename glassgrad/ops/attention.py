"""Attention: scaled_dot_product_attention and multi_head_attention_forward (torch.nn.functional).

scaled_dot_product_attention takes the path PyTorch's CPU build takes. Where its fused CPU
kernel applies (4-D inputs of one batch size, equal head dims, heads equal or grouped, no
dropout, a 2-D or 4-D mask that needs no grad, ...) the result comes from one row whose node is
torch's ``ScaledDotProductFlashAttentionForCpuBackward0`` (saving query, key, value, output,
logsumexp, the float mask, dropout_p, is_causal and scale) and whose backward, like torch's, has
no derivative of its own. Otherwise it is ATen's math path composed from the same ops
(scale q and k by sqrt(scale), matmul, add the mask, a safe softmax, dropout, matmul), so its
nodes, gradients and dropout draws are torch's.
"""
import builtins
import math
import warnings

from .. import dtypes
from .._args import bind
from .._creation import ones, zeros, zeros_like
from .._tensor import Tensor
from ..backend import xp
from . import public, publish
from .linalg import baddbmm, bmm, matmul
from .nn import _functional_dropout, _softmax_forward, dropout, linear, pad, softmax
from .registry import _C10_NAMES, broadcast_shapes, defop
from .shape import cat

_FLOATS = ("float32", "float64", "float16", "bfloat16")


def _cname(dtype):
    return _C10_NAMES.get(dtype.name, "c10::BFloat16" if dtype.name == "bfloat16" else dtype.name)


# -- the fused CPU kernel's row ----------------------------------------------------------------
def _scores(xp, query, key, mask, is_causal, scale):
    """scale * q k^T (+ mask, causal positions -inf), in the accumulation type; the key's
    heads repeated to the query's (grouped-query attention)."""
    acc = xp.float64 if query.dtype == xp.float64 else xp.float32
    q, k = query.astype(acc, copy=False), key.astype(acc, copy=False)
    k = xp.repeat(k, q.shape[1] // k.shape[1], axis=1)
    s = (q @ xp.swapaxes(k, -1, -2)) * acc(scale)
    if mask is not None:
        s = s + mask._data.astype(acc, copy=False)
    if is_causal:
        L, S = s.shape[-2:]
        s = xp.where(xp.tri(L, S, dtype=bool), s, -xp.inf)
    return s


def _softmax_scale(query, scale):
    return 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale


def _flash_forward(xp, query, key, value, attn_mask, dropout_p, is_causal, scale):
    s = _scores(xp, query, key, attn_mask, is_causal, _softmax_scale(query, scale))
    top = s.max(-1, keepdims=True)
    top = xp.where(top == -xp.inf, 0, top)          # a fully masked row: weights all 0
    p = xp.exp(s - top)
    total = p.sum(-1, keepdims=True)
    v = xp.repeat(value.astype(p.dtype, copy=False), query.shape[1] // value.shape[1], axis=1)
    with xp.errstate(divide="ignore", invalid="ignore"):
        out = xp.where(total == 0, 0, (p @ v) / total)
        lse = (top + xp.log(total))[..., 0]
    # torch's kernel writes logsumexp as (batch, seq, heads) and returns it transposed
    return out.astype(query.dtype), xp.ascontiguousarray(lse.transpose(0, 2, 1)).transpose(0, 2, 1)


def _flash_backward_forward(xp, grad_out, query, key, value, output, logsumexp, attn_mask,
                            is_causal, scale, which):
    """The gradient of one of query (0), key (1), value (2): with P the attention weights,
    dV = P^T dO, dS = P * (dO V^T - rowsum(dO * O)), dQ = scale dS K, dK = scale dS^T Q; a
    grouped key's or value's heads summed."""
    scale = _softmax_scale(query, scale)
    s = _scores(xp, query, key, attn_mask, is_causal, scale)
    acc = s.dtype
    lse = logsumexp.astype(acc, copy=False)[..., None]
    p = xp.where(lse == -xp.inf, 0, xp.exp(s - xp.where(lse == -xp.inf, 0, lse)))
    go = grad_out.astype(acc, copy=False)
    groups = query.shape[1] // key.shape[1]
    if which == 2:
        g = xp.swapaxes(p, -1, -2) @ go
    else:
        v = xp.repeat(value.astype(acc, copy=False), groups, axis=1)
        dp = go @ xp.swapaxes(v, -1, -2)
        ds = p * (dp - (go * output.astype(acc, copy=False)).sum(-1, keepdims=True))
        if which == 0:
            k = xp.repeat(key.astype(acc, copy=False), groups, axis=1)
            return ((ds @ k) * acc.type(scale)).astype(query.dtype)
        g = (xp.swapaxes(ds, -1, -2) @ query.astype(acc, copy=False)) * acc.type(scale)
    b, h, n, d = g.shape
    return g.reshape(b, h // groups, groups, n, d).sum(2).astype(query.dtype)


def _no_derivative(grad):
    raise RuntimeError("derivative for aten::_scaled_dot_product_flash_attention_for_cpu_backward "
                       "is not implemented")


_flash_backward = defop("NotImplemented", _flash_backward_forward,
                        ("grad_out", "query", "key", "value", "output", "logsumexp"),
                        dtype="same", grads=dict.fromkeys(("grad_out", "query", "key", "value"),
                                                          _no_derivative))


def _flash_grad(which):
    def formula(grad, query, key, value, output, logsumexp, attn_mask, dropout_p, is_causal,
                scale):
        return _flash_backward(grad, query, key, value, output, logsumexp, attn_mask=attn_mask,
                               is_causal=is_causal, scale=scale, which=which)
    return formula


def _flash_jvp(tangents, query, key, value, result, attn_mask, dropout_p, is_causal, scale):
    """The output's tangent (torch has no forward AD here): with P = softmax(S),
    dS = scale (dQ K^T + Q dK^T), dP = P * (dS - rowsum(P * dS)), dO = dP V + P dV; composed
    of ops, so backward through it works."""
    groups = query.shape[1] // key.shape[1]
    tq, tk, tv = (None if t is None else t if i == 0 else t.repeat_interleave(groups, 1)
                  for i, t in enumerate(tangents))
    key, value = key.repeat_interleave(groups, 1), value.repeat_interleave(groups, 1)
    s = _softmax_scale(query, scale)
    scores = matmul(query, key.mT) * s
    if attn_mask is not None:
        scores = scores + attn_mask
    if is_causal:
        L, S = scores.shape[-2:]
        scores = scores.masked_fill(ones((L, S), dtype=dtypes.bool).triu(1), -math.inf)
    p = _safe_softmax(scores, dim=3)
    out = None if tv is None else matmul(p, tv)
    if tq is not None or tk is not None:
        ds = (0 if tq is None else matmul(tq, key.mT)) + (0 if tk is None else
                                                          matmul(query, tk.mT))
        ds = ds * s
        dp = matmul(p * (ds - (p * ds).sum(-1, keepdim=True)), value)
        out = dp if out is None else out + dp
    return out


_flash = defop("ScaledDotProductFlashAttentionForCpuBackward0", _flash_forward,
               ("query", "key", "value"), dtype="same", outputs=("output", "logsumexp"),
               grads={name: _flash_grad(i) for i, name in enumerate(("query", "key", "value"))},
               jvp=_flash_jvp)


def _mask_fits(mask, query, key):
    """check_attn_mask_shape of torch's CPU kernel choice (a 1-D mask raises its IndexError)."""
    if mask.requires_grad:
        return False
    if mask.dim() < 2:
        raise IndexError(f"Dimension out of range (expected to be in range of [-1, 0], but got "
                         f"-2)")

    def fits(m, n):
        return m in (n, 1)
    if not (fits(mask.shape[-2], query.shape[2]) and fits(mask.shape[-1], key.shape[2])):
        return False
    return mask.dim() == 2 or (mask.dim() == 4 and fits(mask.shape[0], query.shape[0]) and
                               fits(mask.shape[1], query.shape[1]))


def _fused_applies(query, key, value, mask, dropout_p, enable_gqa):
    """torch's use_flash_attention_cpp, in its order."""
    if dropout_p > 0 or not query.dim() == key.dim() == value.dim() == 4:
        return False
    (b, h), (bk, hk), (bv, hv) = query.shape[:2], key.shape[:2], value.shape[:2]
    if not b == bk == bv:
        return False
    if not (hk == hv and h % hk == 0 if enable_gqa else h == hk == hv):
        return False
    if mask is not None and not _mask_fits(mask, query, key):
        return False
    if not query.shape[-1] == key.shape[-1] == value.shape[-1]:
        return False
    if key.shape[2] != value.shape[2]:      # torch's kernel reads past value: undefined there
        return False
    if query.shape[2] == 0 or key.shape[2] == 0:
        return False
    if builtins.any(t.stride(-1) != 1 for t in (query, key, value)):
        return False
    return query.dtype.name in _FLOATS


# -- ATen's math path --------------------------------------------------------------------------
def _safe_softmax_forward(xp, self, dim):
    out = _softmax_forward(self, dim, False)
    return xp.where((self == -xp.inf).all(dim, keepdims=True), 0, out).astype(self.dtype)


_safe_softmax = defop("SafeSoftmaxBackward0", _safe_softmax_forward, dtype="same",
                      row_major=True, grads={"self": lambda grad, result, dim: result * (
                          grad - (grad * result).sum(dim, keepdim=True))})


def _bool_to_float(mask, dtype):
    """convert_boolean_attn_mask: True takes part (0), False is -inf."""
    if mask is None or mask.dtype is not dtypes.bool:
        return mask
    return zeros_like(mask, dtype=dtype).masked_fill_(mask.logical_not(), -math.inf)


def _grouped(query, key, value, enable_gqa):
    """pre_process_group_query_attention_input: key and value heads repeated to the query's."""
    if not enable_gqa:
        return key, value
    h, hk, hv = query.shape[-3], key.shape[-3], value.shape[-3]
    if h % hk or h % hv:
        raise RuntimeError("Number of heads in key and value must divide the number of heads in ")
    return key.repeat_interleave(h // hk, -3), value.repeat_interleave(h // hv, -3)


def _math(query, key, value, mask, dropout_p, is_causal, scale, enable_gqa):
    origin = query.dtype
    if origin.name in ("float16", "bfloat16"):     # kept in float for accuracy
        query, key, value = query.float(), key.float(), value.float()
    negative = scale is not None and scale < 0
    factor = math.sqrt(abs(scale) if scale is not None else 1.0 / math.sqrt(query.shape[-1]))
    query = query * (-factor if negative else factor)
    if is_causal:
        if mask is not None:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be "
                               "set when is_causal=True")
        causal = ones((query.shape[-2], key.shape[-2]), dtype=dtypes.bool).tril()
        mask = _bool_to_float(causal, query.dtype)
    key, value = _grouped(query, key, value, enable_gqa)
    attn = matmul(query, key.transpose(-2, -1) * factor)
    if mask is not None:
        attn.add_(mask)
    attn = _safe_softmax(attn, dim=attn.dim() - 1)
    if dropout_p > 0.0:
        attn = dropout(attn, dropout_p, True)
    out = matmul(attn, value)
    return out if out.dtype is origin else out.to(origin)


def _check_inputs(query, key, value, mask):
    """validate_sdpa_input's checks."""
    if not query.dtype is key.dtype is value.dtype:
        raise RuntimeError(f"Expected query, key, and value to have the same dtype, but got "
                           f"query.dtype: {_cname(query.dtype)} key.dtype: {_cname(key.dtype)} "
                           f"and value.dtype: {_cname(value.dtype)} instead.")
    if builtins.min(query.dim(), key.dim(), value.dim()) < 2:
        raise RuntimeError(f"Expected query, key, and value to all be  at least 2 dimensional, "
                           f"but got query.dim: {query.dim()} key.dim: {key.dim()} and "
                           f"value.dim: {value.dim()} instead.")
    if mask is not None and mask.dtype is not dtypes.bool and mask.dtype is not query.dtype:
        raise RuntimeError(f"Expected attn_mask dtype to be bool or float or to match query "
                           f"dtype, but got attn_mask.dtype: {_cname(mask.dtype)} and  "
                           f"query.dtype: {_cname(query.dtype)} instead.")


def _sdpa(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
          enable_gqa=False):
    _check_inputs(query, key, value, attn_mask)
    if query.shape[-2] == 0 or key.shape[-2] == 0:      # torch's: zeros, in the graph of all
        batch = broadcast_shapes(query.shape[:-2], key.shape[:-2], value.shape[:-2])
        out = zeros((*batch, query.shape[-2], value.shape[-1]), dtype=query.dtype)
        return out + (query.sum() + key.sum() + value.sum()) * 0
    if _fused_applies(query, key, value, attn_mask, dropout_p, enable_gqa):
        if dropout_p != 0:
            raise RuntimeError("scaled_dot_product_attention_flash_attention: Currently do not "
                               "support dropout > 0")
        mask = _bool_to_float(attn_mask, query.dtype)
        return _flash(query, key, value, attn_mask=mask, dropout_p=builtins.float(dropout_p),
                      is_causal=is_causal, scale=scale)[0]
    if not query.is_floating_point():
        raise RuntimeError(f"expected scalar type "
                           f"{dtypes.SCALAR_NAMES[dtypes.get_default_dtype().name]} but found "
                           f"{dtypes.SCALAR_NAMES[query.dtype.name]}")
    return _math(query, key, value, _bool_to_float(attn_mask, query.dtype), dropout_p,
                 is_causal, scale, enable_gqa)


scaled_dot_product_attention = public("functional", name="scaled_dot_product_attention")(bind(
    _sdpa, ["scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, "
            "Tensor? attn_mask=None, double dropout_p=0.0, bool is_causal=False, *, "
            "double? scale=None, bool enable_gqa=False)"]))


# -- multi-head attention (torch.nn.functional's Python, op for op) ---------------------------
@public("functional", name="_mha_shape_check")
def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    """Whether the input is batched (3-D query), after torch's shape checks."""
    if query.dim() not in (2, 3):
        raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received "
                             f"{query.dim()}-D query tensor")
    batched = query.dim() == 3
    kind = "batched (3-D)" if batched else "unbatched (2-D)"
    if key.dim() != query.dim() or value.dim() != query.dim():
        raise AssertionError(f"For {kind} `query`, expected `key` and `value` to be "
                             f"{query.dim()}-D but found {key.dim()}-D and {value.dim()}-D "
                             f"tensors respectively")
    if key_padding_mask is not None and key_padding_mask.dim() != query.dim() - 1:
        raise AssertionError(f"For {kind} `query`, expected `key_padding_mask` to be `None` or "
                             f"{query.dim() - 1}-D but found {key_padding_mask.dim()}-D tensor "
                             f"instead")
    if attn_mask is not None:
        if attn_mask.dim() not in (2, 3):
            raise AssertionError(f"For {kind} `query`, expected `attn_mask` to be `None`, 2-D "
                                 f"or 3-D but found {attn_mask.dim()}-D tensor instead")
        expected = (num_heads, query.shape[0], key.shape[0])
        if not batched and attn_mask.dim() == 3 and attn_mask.shape != expected:
            raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got "
                                 f"{attn_mask.shape}")
    return batched


@public("functional", name="_canonical_mask")
def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """A bool mask as a float one of target_type (True: -inf); float masks as they are."""
    if mask is None:
        return None
    if mask.dtype is not dtypes.bool and not mask.is_floating_point():
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype is not other_type:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use "
                      f"same type for both instead.", stacklevel=3)
    if mask.is_floating_point():
        return mask
    return zeros_like(mask, dtype=target_type).masked_fill_(mask, -math.inf)


@public("functional", name="_none_or_dtype")
def _none_or_dtype(input):
    if input is None:
        return None
    if isinstance(input, Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


@public("functional", name="_in_projection_packed")
def _in_projection_packed(q, k, v, w, b=None):
    """q, k, v projected by the rows of w (q's, k's, v's): one linear where inputs coincide."""
    E = q.size(-1)
    if k is v and q is k:
        proj = linear(q, w, b).unflatten(-1, (3, E)).unsqueeze(0).transpose(0, -2)
        proj = proj.squeeze(-2).contiguous()
        return proj[0], proj[1], proj[2]
    if k is v:
        w_q, w_kv = w.split([E, E * 2])
        b_q, b_kv = (None, None) if b is None else b.split([E, E * 2])
        kv = linear(k, w_kv, b_kv).unflatten(-1, (2, E)).unsqueeze(0).transpose(0, -2)
        kv = kv.squeeze(-2).contiguous()
        return linear(q, w_q, b_q), kv[0], kv[1]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


@public("functional", name="_in_projection")
def _in_projection(q, k, v, w_q, w_k, w_v, b_q=None, b_k=None, b_v=None):
    Eq, Ek, Ev = q.size(-1), k.size(-1), v.size(-1)
    for what, w, shape in (("query", w_q, (Eq, Eq)), ("key", w_k, (Eq, Ek)),
                           ("value", w_v, (Eq, Ev))):
        if w.shape != shape:
            raise AssertionError(f"expecting {what} weights shape of {shape}, but got {w.shape}")
    for what, b in (("query", b_q), ("key", b_k), ("value", b_v)):
        if b is not None and b.shape != (Eq,):
            raise AssertionError(f"expecting {what} bias shape of {(Eq,)}, but got {b.shape}")
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _heads(t, static, what, n, head_dim):
    """(seq, batch, embed) as (batch * heads, seq, head_dim), or the static one checked."""
    if static is None:
        return t.view(t.shape[0], n, head_dim).transpose(0, 1)
    if static.size(0) != n:
        raise AssertionError(f"expecting static_{what}.size(0) of {n}, but got {static.size(0)}")
    if static.size(2) != head_dim:
        raise AssertionError(f"expecting static_{what}.size(2) of {head_dim}, but got "
                             f"{static.size(2)}")
    return static


def _mha_masks(query, key_padding_mask, attn_mask, is_causal, need_weights):
    """Both masks as float ones (torch's order of checks); whether attention stays causal."""
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask",
                                       _none_or_dtype(attn_mask), "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        return key_padding_mask, None, True     # scaled_dot_product_attention masks itself
    attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, False)
    return key_padding_mask, attn_mask, is_causal and key_padding_mask is None


def _mha_project(query, key, value, in_proj_weight, in_proj_bias, separate, q_proj_weight,
                 k_proj_weight, v_proj_weight):
    if not separate:
        if key.shape != value.shape:
            raise AssertionError(f"key shape {key.shape} does not match value shape "
                                 f"{value.shape}")
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        return _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    if key.shape[:2] != value.shape[:2]:
        raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match "
                             f"value's {value.shape[:2]}")
    for name, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
        if w is None:
            raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight is "
                                 f"None")
    biases = (None,) * 3 if in_proj_bias is None else in_proj_bias.chunk(3)
    return _in_projection(query, key, value, q_proj_weight, k_proj_weight, v_proj_weight,
                          *biases)


def _mha_attn_mask(attn_mask, tgt_len, src_len, n):
    """A 2-D mask as (1, L, S); a 3-D one checked to be (batch * heads, L, S)."""
    if attn_mask is None:
        return None
    if attn_mask.dim() == 2:
        if attn_mask.shape != (tgt_len, src_len):
            raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should "
                               f"be {(tgt_len, src_len)}.")
        return attn_mask.unsqueeze(0)
    if attn_mask.dim() == 3:
        if attn_mask.shape != (n, tgt_len, src_len):
            raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should "
                               f"be {(n, tgt_len, src_len)}.")
        return attn_mask
    raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")


def _pad_masks(masks):
    """The masks (None or tensors) with one more key position, not masked."""
    return [None if m is None else pad(m, (0, 1)) for m in masks]


def _heads(t, static, what, n, head_dim):
    """(seq, batch, embed) as (batch * heads, seq, head_dim), or the static one checked."""
    if static is None:
        return t.view(t.shape[0], n, head_dim).transpose(0, 1)
    if static.size(0) != n:
        raise AssertionError(f"expecting static_{what}.size(0) of {n}, but got {static.size(0)}")
    if static.size(2) != head_dim:
        raise AssertionError(f"expecting static_{what}.size(2) of {head_dim}, but got "
                             f"{static.size(2)}")
    return static


def _mha_keys(k, v, masks, bias_k, bias_v, static_k, static_v, add_zero_attn, bsz, n,
              head_dim):
    """k and v in heads, with bias_k/bias_v and a zero position appended (masks padded)."""
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k, v = cat([k, bias_k.repeat(1, bsz, 1)]), cat([v, bias_v.repeat(1, bsz, 1)])
        masks = _pad_masks(masks)
    elif bias_k is not None or bias_v is not None:
        raise AssertionError("bias_k is set but bias_v is None" if bias_v is None else
                             "bias_v is set but bias_k is None")
    k, v = _heads(k, static_k, "k", n, head_dim), _heads(v, static_v, "v", n, head_dim)
    if add_zero_attn:
        k = cat([k, zeros((n, 1, head_dim), dtype=k.dtype)], dim=1)
        v = cat([v, zeros((n, 1, head_dim), dtype=v.dtype)], dim=1)
        masks = _pad_masks(masks)
    return k, v, masks


def _merge_padding(attn_mask, key_padding_mask, bsz, num_heads, src_len):
    if key_padding_mask is None:
        return attn_mask
    if key_padding_mask.shape[0] != bsz:
        raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                             f"{key_padding_mask.shape[0]}")
    if key_padding_mask.shape[1] != src_len:
        raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                             f"{key_padding_mask.shape[1]}")
    padding = key_padding_mask.view(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1).reshape(
        bsz * num_heads, 1, src_len)
    return padding if attn_mask is None else attn_mask + padding


def _attend_with_weights(q, k, v, attn_mask, dropout_p, is_causal):
    """softmax(q k^T / sqrt(E) + mask), dropped out, times v: (output, weights)."""
    if is_causal and attn_mask is None:
        raise AssertionError("FIXME: is_causal not implemented for need_weights")
    q_scaled = q * math.sqrt(1.0 / builtins.float(q.shape[-1]))
    weights = (bmm(q_scaled, k.transpose(-2, -1)) if attn_mask is None else
               baddbmm(attn_mask, q_scaled, k.transpose(-2, -1)))
    weights = softmax(weights, -1)
    if dropout_p > 0.0:
        weights = _functional_dropout(weights, dropout_p)
    return bmm(weights, v), weights


@public("functional")
def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn,
                                 dropout_p, out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False):
    batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    key_padding_mask, attn_mask, is_causal = _mha_masks(query, key_padding_mask, attn_mask,
                                                        is_causal, need_weights)
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but "
                             f"got {embed_dim}")
    head_dim, n = embed_dim // num_heads, bsz * num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    q, k, v = _mha_project(query, key, value, in_proj_weight, in_proj_bias,
                           use_separate_proj_weight, q_proj_weight, k_proj_weight, v_proj_weight)
    attn_mask = _mha_attn_mask(attn_mask, tgt_len, key.shape[0], n)
    q = q.view(tgt_len, n, head_dim).transpose(0, 1)
    k, v, (attn_mask, key_padding_mask) = _mha_keys(
        k, v, (attn_mask, key_padding_mask), bias_k, bias_v, static_k, static_v, add_zero_attn,
        bsz, n, head_dim)
    src_len = k.size(1)
    attn_mask = _merge_padding(attn_mask, key_padding_mask, bsz, num_heads, src_len)
    dropout_p = dropout_p if training else 0.0
    if need_weights:
        out, weights = _attend_with_weights(q, k, v, attn_mask, dropout_p, is_causal)
        out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        weights = weights.mean(dim=1) if average_attn_weights else weights
    else:
        if attn_mask is not None:
            attn_mask = (attn_mask.unsqueeze(0) if attn_mask.size(0) == 1 and
                         attn_mask.dim() == 3 else attn_mask.view(bsz, num_heads, -1, src_len))
        out = _sdpa(q.view(bsz, num_heads, tgt_len, head_dim),
                    k.view(bsz, num_heads, src_len, head_dim),
                    v.view(bsz, num_heads, src_len, head_dim), attn_mask, dropout_p, is_causal)
        out, weights = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim), None
    out = linear(out, out_proj_weight, out_proj_bias).view(tgt_len, bsz, -1)
    if not batched:
        out = out.squeeze(1)
        weights = None if weights is None else weights.squeeze(0)
    return out, weights


# @public objects name themselves (glassgrad.ops.publish)
publish(globals())
