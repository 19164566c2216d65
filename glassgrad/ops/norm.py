"""Normalisation and lookup rows for nn.functional: layer_norm, group_norm, batch_norm (running
statistics updated as ATen does) and embedding, each one node with PyTorch's name
(NativeLayerNormBackward0, NativeGroupNormBackward0, NativeBatchNormBackward0,
EmbeddingBackward0). Their backward formulas are written in tensor ops, so they differentiate
again (double backward)."""
import builtins
import math
import warnings

from .. import dtypes
from .._autograd.grad_mode import no_grad
from .._creation import zeros_like
from .._runtime import get_num_threads
from .._tensor import Tensor, _wrap_dim
from ..backend import finfo as _finfo, reduced_floats, xp
from ..backend.kernels import batch_norm as bn_kernel
from . import public, publish
from .pointwise import where
from .registry import apply_inplace, defop


# -- shared: normalise over some dims --------------------------------------------------------
def _stats_np(a, axes, eps):
    """(mean, rstd) over ``axes`` of an array, accumulated in float32 at least."""
    acc = a.astype(xp.float32) if a.dtype in reduced_floats else a
    mean = acc.mean(axis=axes, keepdims=True)
    var = ((acc - mean) ** 2).mean(axis=axes, keepdims=True)
    return mean, 1 / xp.sqrt(var + eps)


def _xhat(x, dims, eps):
    """(x - mean) * rstd over ``dims``, on tensors (differentiable), and rstd."""
    mean = x.mean(dims, keepdim=True)
    centred = x - mean
    rstd = ((centred * centred).mean(dims, keepdim=True) + eps).rsqrt()
    return centred * rstd, rstd


def _normalised_grad(g, xhat, rstd, dims):
    """The gradient of x for xhat = normalise(x) over dims, given g = d/dxhat."""
    return rstd * (g - g.mean(dims, keepdim=True) - xhat * (g * xhat).mean(dims, keepdim=True))


def _keep_row(node):
    """grad_output as it is, with ``input`` kept in the graph: a parameter's gradient that
    torch computes in the same backward op as the input's, so it requires grad when the input
    does (its derivative in the input is zero)."""
    return defop(node, lambda xp, grad_output, input: grad_output, ("grad_output", "input"),
                 dtype="same", grads={"grad_output": lambda grad: grad,
                                      "input": lambda grad, input: zeros_like(input)})


# -- layer_norm ------------------------------------------------------------------------------
def _layer_norm_forward(xp, input, weight, bias, normalized_shape, eps):
    axes = tuple(range(input.ndim - len(normalized_shape), input.ndim))
    mean, rstd = _stats_np(input, axes, eps)
    out = (input - mean) * rstd
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out.astype(input.dtype, copy=False)


def _trailing(normalized_shape):
    return tuple(range(-len(normalized_shape), 0))


def _layer_norm_input_grad(grad, input, weight, normalized_shape, eps):
    dims = _trailing(normalized_shape)
    xhat, rstd = _xhat(input, dims, eps)
    return _normalised_grad(grad if weight is None else grad * weight, xhat, rstd, dims)


_layer_norm = defop("NativeLayerNormBackward0", _layer_norm_forward, ("input", "weight", "bias"),
                    dtype="same", grads={
    "input": _layer_norm_input_grad,
    "weight": lambda grad, input, normalized_shape, eps:
        grad * _xhat(input, _trailing(normalized_shape), eps)[0],
    "bias": lambda grad, input, bias: _layer_norm_keep(grad, input)})     # torch saves bias
_layer_norm_keep = _keep_row("NativeLayerNormBackwardBackward0")


def _check_normalized(input, normalized_shape, *params, sep=", "):
    """ATen's check of a layer/rms norm's normalized_shape, its parameters and input: the
    shape as a tuple (``sep``: what the message puts after its ``*``)."""
    shape = (normalized_shape,) if isinstance(normalized_shape, builtins.int) else \
        tuple(normalized_shape)
    k = len(shape)
    if k < 1:
        raise RuntimeError(f"Expected normalized_shape to be at least 1-dimensional, i.e., "
                           f"containing at least one element, but got normalized_shape = "
                           f"{list(shape)}")
    for name, t in params:
        if t is not None and tuple(t.shape) != shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but "
                               f"got {name} of shape {list(t.shape)} and normalized_shape = "
                               f"{list(shape)}")
    if input.dim() < k or tuple(input.shape[input.dim() - k:]) != shape:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*{sep}{', '.join(str(s) for s in shape)}], but got input of size"
                           f"{list(input.shape)}")
    return shape


@public("functional", name="layer_norm")
def _functional_layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):
    """F.layer_norm, Python in torch: torch.layer_norm's parser sees its arguments positionally."""
    return layer_norm(input, normalized_shape, weight, bias, eps)


@public("function", signatures=(
    "layer_norm(Tensor input, SymIntArrayRef normalized_shape, Tensor? weight=None, "
    "Tensor? bias=None, double eps=1e-05, bool cudnn_enable=True)",))
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05,
               cudnn_enable=True):
    shape = _check_normalized(input, normalized_shape, ("weight", weight), ("bias", bias))
    return _layer_norm(input, weight, bias, normalized_shape=shape, eps=eps)


# -- rms_norm --------------------------------------------------------------------------------
@public("function", "functional", signatures=(
    "rms_norm(Tensor input, SymIntArrayRef normalized_shape, Tensor? weight=None, "
    "double? eps=None)",))
def rms_norm(input, normalized_shape, weight=None, eps=None):
    """ATen's composite: x * rsqrt(mean(x^2) + eps) over the normalized dims (half and bfloat16
    computed in float), times weight; eps defaults to the machine epsilon of the computing
    dtype."""
    shape = _check_normalized(input, normalized_shape, ("weight", weight), sep="")
    x = input.to(dtypes.float32) if input.dtype.reduced else input
    if eps is None:
        eps = builtins.float(_finfo(x.dtype.np).eps)
    from .nn import _add_scalar
    dims = list(range(-len(shape), 0))
    out = x.mul(_add_scalar(x.pow(2).mean(dims, keepdim=True), other=eps).rsqrt())
    if weight is not None:
        out = out.mul(weight)
    return out.to(input.dtype) if out.dtype is not input.dtype else out


# -- group_norm ------------------------------------------------------------------------------
def _grouped(shape, group):
    return (shape[0], group, -1)


def _group_norm_forward(xp, input, weight, bias, N, C, HxW, group, eps):
    g = input.reshape(N, group, -1)
    mean, rstd = _stats_np(g, (2,), eps)
    out = ((g - mean) * rstd).reshape(input.shape)
    per_channel = (1, C) + (1,) * (input.ndim - 2)
    if weight is not None:
        out = out * weight.reshape(per_channel)
    if bias is not None:
        out = out + bias.reshape(per_channel)
    return out.astype(input.dtype, copy=False)


def _channel_view(t, input):
    return t.reshape((1, input.shape[1]) + (1,) * (input.dim() - 2))


def _channel_sum(t):
    return t.sum([d for d in range(t.dim()) if d != 1])


def _group_norm_input_grad(grad, input, weight, group, eps):
    g = grad if weight is None else grad * _channel_view(weight, input)
    xg = input.reshape(_grouped(input.shape, group))
    xhat, rstd = _xhat(xg, (2,), eps)
    return _normalised_grad(g.reshape(xg.shape), xhat, rstd, (2,)).reshape(input.shape)


def _group_norm_weight_grad(grad, input, group, eps):
    xhat = _xhat(input.reshape(_grouped(input.shape, group)), (2,), eps)[0]
    return _channel_sum(grad * xhat.reshape(input.shape))


_group_norm = defop("NativeGroupNormBackward0", _group_norm_forward, ("input", "weight", "bias"),
                    dtype="same", grads={
    "input": _group_norm_input_grad,
    "weight": _group_norm_weight_grad,
    "bias": lambda grad: _channel_sum(grad)})


@public("functional", name="group_norm")
def _functional_group_norm(input, num_groups, weight=None, bias=None, eps=1e-05):
    """F.group_norm, Python in torch: torch.group_norm's parser sees its arguments positionally."""
    return group_norm(input, num_groups, weight, bias, eps)


@public("function", signatures=(
    "group_norm(Tensor input, int64_t num_groups, Tensor? weight=None, Tensor? bias=None, "
    "double eps=1e-05, bool cudnn_enabled=True)",))
def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received "
                           f"{input.dim()}")
    n, c = input.shape[:2]
    if c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by "
                           f"num_groups, but got input of shape {list(input.shape)} and "
                           f"num_groups={num_groups}")
    size = [n * c // num_groups, num_groups, *input.shape[2:]]
    if math.prod([size[0], *size[2:]]) == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input "
                         f"size {size}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.dim() != 1 or t.numel() != c):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of "
                               f"channels in input, but got {name} of shape "
                               f"{list(t.shape)} and input of shape {list(input.shape)}")
    return _group_norm(input, weight, bias, N=n, C=c, HxW=math.prod(input.shape[2:]),
                       group=num_groups, eps=eps)


# -- batch_norm ------------------------------------------------------------------------------
def _batch_axes(ndim):
    return (0,) + tuple(range(2, ndim))


def _exact(input):
    """float32/float64: torch's CPU kernel's arithmetic in its order (backend/kernels/
    batch_norm.py); the half types keep a float32 computation."""
    return input.dtype in (xp.float32, xp.float64) and input.size > 0


def _batch_norm_forward(xp, input, weight, bias, running_mean, running_var, training, eps):
    """(output, save_mean, save_invstd), as native_batch_norm returns them: the batch's mean
    and inverse standard deviation in training (in the parameters' dtype), empty in eval."""
    stats_dtype = next((t.dtype for t in (weight, bias, running_mean, running_var)
                        if t is not None), input.dtype)
    c = input.shape[1] if input.ndim > 1 else 1
    if input.size == 0:
        empty = xp.zeros(c if training else 0, stats_dtype)
        return input.copy(), empty, empty.copy()
    per_channel = (1, c) + (1,) * (input.ndim - 2)
    if _exact(input):
        if training:
            mean, var_sum = bn_kernel.batch_stats(input, get_num_threads())
            invstd = bn_kernel.invstd(var_sum, input.size // c, eps, input.dtype)
        else:
            mean, invstd = running_mean, bn_kernel.eval_invstd(running_var, eps)
        out = bn_kernel.normalise(input, mean, invstd, weight, bias)
    else:
        if training:
            mean, invstd = _stats_np(input, _batch_axes(input.ndim), eps)
        else:
            mean = running_mean.reshape(per_channel)
            invstd = 1 / xp.sqrt(running_var.reshape(per_channel) + eps)
        out = (input - mean) * invstd
        if weight is not None:
            out = out * weight.reshape(per_channel)
        if bias is not None:
            out = out + bias.reshape(per_channel)
        out = out.astype(input.dtype, copy=False)
    if not training:
        return out, xp.zeros(0, stats_dtype), xp.zeros(0, stats_dtype)
    return (out, xp.asarray(mean, stats_dtype).reshape(c),
            xp.asarray(invstd, stats_dtype).reshape(c))


def _batch_xhat(input, running_mean, running_var, training, eps):
    if training:
        return _xhat(input, _batch_axes(input.dim()), eps)
    rstd = _channel_view((running_var + eps).rsqrt(), input)
    return (input - _channel_view(running_mean, input)) * rstd, rstd


# The formulas take what torch's NativeBatchNormBackward0 saves (its one backward function
# takes them all: grad_fn._saved_input, _saved_weight, _saved_running_mean, _saved_running_var,
# _saved_result1 = save_mean, _saved_result2 = save_invstd, _saved_training, _saved_eps), so the
# node keeps the same tensors; the gradients are recomputed from the input (differentiable again).
def _batch_norm_input_grad(grad, input, weight, running_mean, running_var, result1, result2,
                           training, eps):
    g = grad if weight is None else grad * _channel_view(weight, input)
    xhat, rstd = _batch_xhat(input, running_mean, running_var, training, eps)
    if not training:
        return g * rstd
    return _normalised_grad(g, xhat, rstd, _batch_axes(input.dim()))


def _batch_norm_weight_grad(grad, input, weight, running_mean, running_var, result1, result2,
                            training, eps):
    return _channel_sum(grad * _batch_xhat(input, running_mean, running_var, training, eps)[0])


def _batch_norm_bias_grad(grad, input, weight, running_mean, running_var, result1, result2,
                          training, eps):
    return _channel_sum(_batch_norm_keep(grad, input))


_batch_norm = defop("NativeBatchNormBackward0", _batch_norm_forward,
                    ("input", "weight", "bias", "running_mean", "running_var"), dtype="same",
                    outputs=("result", "result1", "result2"), diff_outputs=1, grads={
    "input": _batch_norm_input_grad, "weight": _batch_norm_weight_grad,
    "bias": _batch_norm_bias_grad})
_batch_norm_keep = _keep_row("NativeBatchNormBackwardBackward0")


def _check_mixed(input, *params):
    """ATen's CPU rule: float32/float64 input takes parameters of its own dtype; a half input
    takes half or float32 ones, all alike."""
    given = {t.dtype for t in params if t is not None}
    allowed = {input.dtype} if input.dtype in (dtypes.float32, dtypes.float64) else \
        {input.dtype, dtypes.float32}
    if len(given) > 1 or not given <= allowed:
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")


def _update_running(input, running_mean, running_var, momentum):
    """ATen's update with the batch's statistics: the mean, and the unbiased variance."""
    if running_mean is None and running_var is None or input.numel() == 0:
        return      # torch leaves them as they are for an empty batch
    with no_grad():
        n = input.numel() // input.shape[1]
        if _exact(input._data):
            mean, var_sum = bn_kernel.batch_stats(input._data, get_num_threads())
            new = bn_kernel.running(mean, var_sum, n, _data_of(running_mean),
                                    _data_of(running_var), momentum)
            _store(running_mean, new[0])
            _store(running_var, new[1])
            return
        axes = list(_batch_axes(input.dim()))
        mean = input.mean(axes)
        if running_mean is not None:
            _store(running_mean, (mean * momentum + running_mean * (1 - momentum))._data)
        if running_var is not None:
            var = input.var(axes, unbiased=False) * (n / builtins.max(n - 1, 1))
            _store(running_var, (var * momentum + running_var * (1 - momentum))._data)


def _store(kept, value):
    """Write a running statistic in place as ATen's kernel does: its version is not bumped
    (so a node that saved it, in an eval-mode call, still unpacks it after a training call)."""
    if kept is not None:
        kept._data[...] = value


def _data_of(t):
    return None if t is None else t._data


@public("functional", name="batch_norm")
def _functional_batch_norm(input, running_mean, running_var, weight=None, bias=None,
                           training=False, momentum=0.1, eps=1e-05):
    if training:
        size = input.size()
        if size[0] * math.prod(size[2:]) == 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input "
                             f"size {size}")
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    if eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    c = input.shape[1] if input.dim() > 1 else 1
    for name, t in (("weight", weight), ("bias", bias), ("running_mean", running_mean),
                    ("running_var", running_var)):
        if t is not None and t.numel() != c:
            raise RuntimeError(f"{name} should contain {c} elements not {t.numel()}")
    _check_mixed(input, weight, bias, running_mean, running_var)
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError("running_mean and running_var must be defined in evaluation mode")
    if training:
        _update_running(input, running_mean, running_var, momentum)
    return _batch_norm(input, weight, bias, running_mean, running_var, training=training,
                       eps=eps)[0]


@public("function", signatures=(
    "batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
    "Tensor? running_var, bool training, double momentum, double eps, bool cudnn_enabled)",))
def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
               cudnn_enabled):
    return _functional_batch_norm(input, running_mean, running_var, weight, bias, training,
                                  momentum, eps)


# -- instance_norm: batch_norm over (1, N*C, ...) ----------------------------------------------
def _repeated(t, n):
    return None if t is None else t.repeat(n)


@public("function", signatures=(
    "instance_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
    "Tensor? running_var, bool use_input_stats, double momentum, double eps, "
    "bool cudnn_enabled)",))
def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum,
                  eps, cudnn_enabled):
    """ATen's: each (sample, channel) a channel of one batch; the running statistics updated
    with the mean over the samples."""
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError("Expected running_mean and running_var to be defined when "
                           "use_input_stats is false")
    n, c = input.shape[:2]
    flat = input.contiguous().view(1, n * c, *input.shape[2:])
    mean, var = _repeated(running_mean, n), _repeated(running_var, n)
    out = _functional_batch_norm(flat, mean, var, _repeated(weight, n), _repeated(bias, n),
                                 use_input_stats, momentum, eps)
    with no_grad():
        if running_mean is not None:
            running_mean.copy_(mean.view(n, c).mean(0))
        if running_var is not None:
            running_var.copy_(var.view(n, c).mean(0))
    return out.view(input.shape)


@public("functional", name="instance_norm")
def _functional_instance_norm(input, running_mean=None, running_var=None, weight=None,
                              bias=None, use_input_stats=True, momentum=0.1, eps=1e-05):
    if use_input_stats and math.prod(input.shape[2:]) == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size "
                         f"{input.size()}")
    return instance_norm(input, weight, bias, running_mean, running_var, use_input_stats,
                         momentum, eps, False)


# -- embedding_bag: the rows of each bag of indices summed, averaged or maxed ------------------
_BAG_MODES = {0: "sum", 1: "mean", 2: "max"}


def _bags(indices, offsets, include_last_offset, padding_idx):
    """(the bag of each position, which positions count: in a bag and not padding_idx, the
    number of bags)."""
    n = indices.shape[0]
    starts = offsets[:-1] if include_last_offset else offsets     # the last bag runs to n
    bag = xp.searchsorted(starts, xp.arange(n), side="right") - 1
    valid = (indices != padding_idx) & (bag >= 0)
    return bag, valid, len(starts)


def _embedding_bag_arrays(weight, indices, offsets, per_sample_weights, mode,
                          include_last_offset, padding_idx):
    """ATen's embedding_bag on arrays: (output, offset2bag, bag_size, max_indices)."""
    bag, valid, nb = _bags(indices, offsets, include_last_offset, padding_idx)
    rows, where = weight[indices[valid]], bag[valid]
    counts = xp.bincount(where, minlength=nb)
    out = xp.zeros((nb, weight.shape[1]), weight.dtype)
    max_indices = counts.copy()
    if mode == 2:
        out = xp.full(out.shape, -xp.inf, weight.dtype)
        xp.maximum.at(out, where, rows)
        out[counts == 0] = 0
        first = xp.full(out.shape, len(rows))        # the first row reaching the maximum
        hit = rows == out[where]
        xp.minimum.at(first, where, xp.where(hit, xp.arange(len(rows))[:, None], len(rows)))
        max_indices = xp.where(counts[:, None] > 0,
                               indices[valid][xp.minimum(first, max(len(rows) - 1, 0))]
                               if len(rows) else 0, 0)
    else:
        if per_sample_weights is not None:
            rows = rows * per_sample_weights[valid][:, None]
        xp.add.at(out, where, rows)
        if mode == 1:
            out = out / xp.maximum(counts, 1)[:, None].astype(weight.dtype)
    if mode == 0:       # ATen leaves them zeros, one per offset
        bag_size = max_indices = xp.zeros(len(offsets), xp.int64)
    else:
        bag_size = counts
    return out.astype(weight.dtype, copy=False), bag, bag_size, max_indices


def _embedding_bag_forward(xp, weight, indices, offsets, per_sample_weights, max_indices,
                           num_weights, mode, include_last_offset, padding_idx,
                           scale_grad_by_freq):
    return _embedding_bag_arrays(weight, indices, offsets, per_sample_weights, mode,
                                 include_last_offset, padding_idx)[0]


def _bag_coefficients(indices, offsets, per_sample_weights, mode, include_last_offset,
                      padding_idx, scale_grad_by_freq, num_weights):
    """(the bag of each position, each position's share of its bag's gradient: 0 where it
    does not count, 1 / bag size for mean, divided by its index's frequency if asked)."""
    bag, valid, nb = _bags(indices, offsets, include_last_offset, padding_idx)
    coef = valid.astype(xp.float64)
    if mode == 1:
        coef = coef / xp.maximum(xp.bincount(bag[valid], minlength=nb), 1)[
            xp.clip(bag, 0, nb - 1)]
    if scale_grad_by_freq:
        # ATen divides the k-th distinct row's gradient by the count of the k-th smallest
        # index (not the row's own count, a slip torch keeps): the same where rows repeat
        # evenly
        rows = xp.unique(indices)
        divisor = xp.ones(num_weights)
        divisor[rows] = xp.bincount(indices, minlength=num_weights)[xp.sort(indices)[
            :len(rows)]]
        coef = coef / divisor[indices]
    return xp.clip(bag, 0, max(nb - 1, 0)), coef


def _bag_weight_backward_np(xp, grad, indices, offsets, per_sample_weights, max_indices,
                            num_weights, mode, include_last_offset, padding_idx,
                            scale_grad_by_freq):
    """The dense gradient of the weight: each counted position's share of its bag's gradient
    added into its row (max: each bag's gradient into the rows that gave its maxima)."""
    out = xp.zeros((num_weights, grad.shape[1]), grad.dtype)
    if mode == 2:
        bag, valid, nb = _bags(indices, offsets, include_last_offset, padding_idx)
        filled = xp.bincount(bag[valid], minlength=nb) > 0
        cols = xp.broadcast_to(xp.arange(grad.shape[1]), max_indices.shape)
        keep = xp.broadcast_to(filled[:, None], max_indices.shape)
        xp.add.at(out, (max_indices[keep], cols[keep]), grad[keep])
        return out
    bag, coef = _bag_coefficients(indices, offsets, per_sample_weights, mode,
                                  include_last_offset, padding_idx, scale_grad_by_freq,
                                  num_weights)
    rows = grad[bag] * coef.astype(grad.dtype)[:, None]
    if per_sample_weights is not None:
        rows = rows * per_sample_weights[:, None]
    xp.add.at(out, indices, rows)
    return out


def _bag_psw_backward_np(xp, grad, weight, indices, offsets, mode, include_last_offset,
                         padding_idx):
    """The gradient of each position's weight: its bag's gradient dotted with its row."""
    bag, valid, nb = _bags(indices, offsets, include_last_offset, padding_idx)
    dots = (grad[xp.clip(bag, 0, max(nb - 1, 0))] * weight[indices]).sum(1)
    return (dots * valid).astype(grad.dtype, copy=False)


def _no_derivative(error, message):
    def formula(grad):
        raise error(message)
    return formula


# torch has no derivative of either backward: a double backward refuses with its errors
_bag_weight_backward = defop(
    "EmbeddingBagBackwardBackward0", _bag_weight_backward_np,
    ("grad", "indices", "offsets", "per_sample_weights", "max_indices"), dtype="same",
    grads=dict.fromkeys(("grad", "per_sample_weights"), _no_derivative(
        NotImplementedError, "the derivative for '_embedding_bag_backward' is not "
                             "implemented.")))
_bag_psw_backward = defop(
    "NotImplemented", _bag_psw_backward_np, ("grad", "weight", "indices", "offsets"),
    dtype="same", grads=dict.fromkeys(("grad", "weight"), _no_derivative(
        RuntimeError, "derivative for aten::_embedding_bag_per_sample_weights_backward is "
                      "not implemented")))


def _embedding_bag_weight_grad(grad, indices, offsets, per_sample_weights, max_indices,
                               num_weights, mode, include_last_offset, padding_idx,
                               scale_grad_by_freq):
    return _bag_weight_backward(grad, indices, offsets, per_sample_weights, max_indices,
                                num_weights=num_weights, mode=mode,
                                include_last_offset=include_last_offset,
                                padding_idx=padding_idx, scale_grad_by_freq=scale_grad_by_freq)


def _embedding_bag_psw_grad(grad, weight, indices, offsets, mode, include_last_offset,
                            padding_idx):
    return _bag_psw_backward(grad, weight, indices, offsets, mode=mode,
                             include_last_offset=include_last_offset, padding_idx=padding_idx)


# max_indices (the rows giving each maximum, which the forward finds) comes in as an input:
# the weight's gradient does not save the weight, as torch's does not
_embedding_bag = defop(
    "EmbeddingBagBackward0", _embedding_bag_forward,
    ("weight", "indices", "offsets", "per_sample_weights", "max_indices"), dtype="same", grads={
        "weight": lambda grad, indices, offsets, per_sample_weights, max_indices, num_weights,
        mode, include_last_offset, padding_idx, scale_grad_by_freq: _embedding_bag_weight_grad(
            grad, indices, offsets, per_sample_weights, max_indices, num_weights, mode,
            include_last_offset, padding_idx, scale_grad_by_freq),
        "per_sample_weights": lambda grad, weight, indices, offsets, mode,
        include_last_offset, padding_idx: _embedding_bag_psw_grad(
            grad, weight, indices, offsets, mode, include_last_offset, padding_idx)})


def _check_index_dtype(t, arg, name):
    if t.dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError(f"Expected tensor for argument #{arg} '{name}' to have one of the "
                           f"following scalar types: Long, Int; but got {t.type()} instead "
                           f"(while checking arguments for embedding_bag)")


@public("function", signatures=(
    "embedding_bag(Tensor weight, Tensor indices, Tensor offsets, bool scale_grad_by_freq, "
    "int64_t mode, bool sparse, Tensor? per_sample_weights, bool include_last_offset, "
    "int64_t? padding_idx)",
    "embedding_bag(Tensor weight, Tensor indices, Tensor offsets, "
    "bool scale_grad_by_freq=False, int64_t mode=0, bool sparse=False, "
    "Tensor? per_sample_weights=None, bool include_last_offset=False)"))
def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                  per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """ATen's embedding_bag: (output, offset2bag, bag_size, max_indices); the output is the
    sum, mean or max of each bag's rows, an empty bag's zeros, padding_idx's rows left out."""
    _check_index_dtype(indices, 1, "indices")
    _check_index_dtype(offsets, 1, "offsets")
    if sparse:
        raise NotImplementedError("embedding_bag(sparse=True): glassgrad has no sparse tensors")
    n_rows = weight.shape[0]
    if padding_idx is None:
        padding_idx = -1
    elif not -n_rows <= padding_idx < n_rows:
        raise RuntimeError(f"padding_idx must be within the number of embeddings, -{n_rows} "
                           f"through {n_rows - 1}, but got {padding_idx}")
    elif padding_idx < 0:
        padding_idx += n_rows
    if per_sample_weights is not None and per_sample_weights.dtype is not weight.dtype:
        raise RuntimeError(f"Expected tensor for argument #1 'weight' to have the same type as "
                           f"tensor for argument #1 'per_sample_weights'; but type "
                           f"{weight.type()} does not equal {per_sample_weights.type()} (while "
                           f"checking arguments for embedding_bag)")
    idx, offs = indices._data.astype(xp.int64), offsets._data.astype(xp.int64)
    if offs.size and offs[0] != 0:
        raise RuntimeError(f"offsets[0] has to be 0, i.e., the first sequence in the "
                           f"mini-batch has to start from position 0. However, got {offs[0]}\n"
                           f"[ {offsets.type()}{{}} ]")
    if offs.size and offs[-1] > idx.size:
        raise RuntimeError(f"offsets[-1] can not be greater than input's length {idx.size} but "
                           f"got offsets[-1] of {offs[-1]}")
    bad = (idx < 0) | (idx >= n_rows)
    if bad.any():
        k = int(xp.argmax(bad))
        raise RuntimeError(f"Index {k} of input takes value {idx[k]} which is not in the valid "
                           f"range [0, {n_rows})")
    attrs = {"mode": mode, "include_last_offset": include_last_offset,
             "padding_idx": padding_idx}
    _, bag, bag_size, max_indices = _embedding_bag_arrays(
        weight._data, idx, offs, None if per_sample_weights is None else
        per_sample_weights._data, mode, include_last_offset, padding_idx)
    out = _embedding_bag(weight, Tensor._make(idx), Tensor._make(offs), per_sample_weights,
                         Tensor._make(max_indices), num_weights=n_rows,
                         scale_grad_by_freq=scale_grad_by_freq, **attrs)
    kind = indices._data.dtype
    return out, *(Tensor._make(a.astype(kind)) for a in (bag, bag_size, max_indices))


@public("functional", name="embedding_bag")
def _functional_embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2,
                              scale_grad_by_freq=False, mode="mean", sparse=False,
                              per_sample_weights=None, include_last_offset=False,
                              padding_idx=None):
    if weight.dtype is dtypes.int64 and input.is_floating_point():
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage "
                      "`embedding_bag(weight, input, ...)` is deprecated, and should now be "
                      "`embedding_bag(input, weight, ...)`.", stacklevel=2)
        weight, input = input, weight
    if per_sample_weights is not None and input.size() != per_sample_weights.size():
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is "
                         f"not None, then it must have the same shape as the input "
                         f"({input.shape})")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                         f"{weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError(f"if input is 2D, then offsets has to be None, as input is treated "
                             f"is a mini-batch of fixed length sequences. However, found "
                             f"offsets of type {_type_str(offsets)}")
        offsets = Tensor._make(xp.arange(0, input.numel(), input.shape[1]).astype(
            input._data.dtype))
        include_last_offset = False
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input.dim()}")
    modes = {"sum": 0, "mean": 1, "max": 2}
    if mode not in modes:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    if max_norm is not None:
        with no_grad():
            embedding_renorm_(weight, input, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. "
                                  f"per_sample_weights is only supported for mode='sum' (got "
                                  f"mode='{mode}'). Please open a feature request on GitHub.")
    return embedding_bag(weight, input, offsets, scale_grad_by_freq, modes[mode], sparse,
                         per_sample_weights, include_last_offset, padding_idx)[0]


def _type_str(obj):
    cls = type(obj)
    module = "torch" if cls.__module__.startswith("glassgrad") else cls.__module__
    return f"<class '{module}.{cls.__qualname__}'>"


# -- weight norm: w = g * v / ||v|| over every dim but one ---------------------------------------
def _other_dims(ndim, dim):
    return [d for d in range(ndim) if d != dim]


def _weight_norm_forward(xp, v, g, dim):
    norms = xp.sqrt((v * v).sum(axis=tuple(_other_dims(v.ndim, dim)), keepdims=True))
    return (v * (g / norms)).astype(v.dtype, copy=False)


def _weight_norm_grads(grad, v, g, dim):
    """torch's _weight_norm_differentiable_backward: (grad of v, grad of g). The norms are the
    forward's second output, whose gradient torch's formula drops: constants here."""
    dims = _other_dims(v.dim(), dim)
    norms = (v * v).sum(dims, keepdim=True).sqrt().detach()
    dot = (grad * v).sum(dims, keepdim=True)
    return (g / norms) * (grad - v * (dot / (norms * norms))), (dot / norms).view(g.shape)


_weight_norm_interface = defop(
    "WeightNormInterfaceBackward0", _weight_norm_forward, ("v", "g"), dtype="same", grads={
        "v": lambda grad, v, g, dim: _weight_norm_grads(grad, v, g, dim)[0],
        "g": lambda grad, v, g, dim: _weight_norm_grads(grad, v, g, dim)[1]})


@public("function", signatures=("norm_except_dim(Tensor v, int64_t pow=2, int64_t dim=0)",))
def norm_except_dim(v, pow=2, dim=0):
    """ATen's: the p-norm of v over every dim but ``dim`` (all dims for -1), shaped to
    broadcast against v."""
    from .reduce import norm_p      # at::norm(v, p, dim): NormBackward1
    if dim == -1:
        return v.norm(pow)
    if dim == 0:
        return norm_p(v.contiguous().view(v.shape[0], -1), p=builtins.float(pow), dim=(1,),
                      keepdim=False).view([v.shape[0]] + [1] * (v.dim() - 1))
    if dim == v.dim() - 1:
        return norm_p(v.contiguous().view(-1, v.shape[-1]), p=builtins.float(pow), dim=(0,),
                      keepdim=False).view([1] * (v.dim() - 1) + [v.shape[-1]])
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


@public("function", signatures=("_weight_norm(Tensor v, Tensor g, int64_t dim=0)",))
def _weight_norm(v, g, dim=0):
    dim = _wrap_dim(dim, v.dim()) if dim != -1 else dim
    v, g = v.contiguous(), g.contiguous()
    if v.dtype is not dtypes.float16 and g.dtype is not dtypes.float16 and \
            dim in (0, v.dim() - 1):
        return _weight_norm_interface(v, g, dim=dim)
    return v * (g / norm_except_dim(v, 2, dim))


# -- embedding -------------------------------------------------------------------------------
def _embedding_backward_forward(xp, grad_output, indices, num_weights, padding_idx,
                                scale_grad_by_freq):
    """The dense gradient of the weight: each looked-up row's gradient added into its row (none
    into padding_idx's), divided by how often the row was looked up if asked."""
    dim = grad_output.shape[-1]
    idx = indices._data.reshape(-1) if hasattr(indices, "_data") else indices.reshape(-1)
    g = grad_output.reshape(-1, dim)
    keep = idx != padding_idx
    if scale_grad_by_freq:
        g = g / xp.bincount(idx, minlength=num_weights)[idx][:, None].astype(g.dtype)
    out = xp.zeros((num_weights, dim), grad_output.dtype)
    xp.add.at(out, idx[keep], g[keep])
    return out


def _embedding_double_backward(grad, indices, padding_idx):
    """torch's embedding_dense_double_backward: the rows looked up, padding_idx's zeroed (the
    frequency scaling is not applied, as in torch)."""
    idx = indices.reshape(-1)
    rows = grad.index_select(0, idx)
    if padding_idx >= 0:
        rows = rows * (idx != padding_idx).unsqueeze(1).to(rows.dtype)
    return rows.view(*indices.shape, grad.shape[-1])


_embedding_dense_backward = defop(
    "EmbeddingDenseBackwardBackward0", _embedding_backward_forward, ("grad_output", "indices"),
    dtype="same", grads={"grad_output": lambda grad, indices, padding_idx:
                         _embedding_double_backward(grad, indices, padding_idx)})
_embedding = defop("EmbeddingBackward0", lambda xp, weight, indices, **_: weight[indices],
                   ("weight", "indices"), dtype="same", grads={
    "weight": lambda grad, indices, weight_sym_argsize_0, padding_idx, scale_grad_by_freq:
        _embedding_dense_backward(grad, indices, num_weights=weight_sym_argsize_0,
                                  padding_idx=padding_idx,
                                  scale_grad_by_freq=scale_grad_by_freq)})


def _renorm_rows(weight, input, max_norm, norm_type):
    """embedding's max_norm: the looked-up rows whose norm exceeds max_norm scaled by
    max_norm / (norm + 1e-7), in place, as ATen's embedding_renorm_ (no graph)."""
    with no_grad():
        rows = Tensor._make(xp.unique(input._data.reshape(-1)))
        picked = weight.index_select(0, rows)
        norms = picked.norm(norm_type, 1)
        scale = where(norms > max_norm, max_norm / (norms + 1e-7), 1.0).to(weight.dtype)
        weight.index_copy_(0, rows, picked * scale.unsqueeze(1))


def _renorm_forward(xp, self, indices, max_norm, norm_type):
    out = self.copy()
    rows = xp.unique(indices.reshape(-1))
    picked = xp.abs(out[rows].astype(xp.float64 if out.dtype == xp.float64 else xp.float32))
    if norm_type == math.inf:
        norms = picked.max(1, initial=0)
    elif norm_type == 2:
        norms = xp.sqrt((picked * picked).sum(1))
    else:
        norms = (picked ** picked.dtype.type(norm_type)).sum(1) ** picked.dtype.type(
            1.0 / norm_type)
    norms = norms.astype(xp.float64)            # the norm's item(), scaled in double
    scale = xp.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0).astype(picked.dtype)
    out[rows] = out[rows] * scale[:, None]
    return out


def _no_renorm_derivative(grad):
    raise NotImplementedError("the derivative for 'embedding_renorm' is not implemented.")


_embedding_renorm = defop("EmbeddingRenormBackward0", _renorm_forward, ("self", "indices"),
                          dtype="same", grads={"self": _no_renorm_derivative})


@public("function", signatures=(
    "embedding_renorm_(Tensor input, Tensor indices, double max_norm, double norm_type)",))
def embedding_renorm_(input, indices, max_norm, norm_type):
    """The rows of ``input`` that ``indices`` name scaled in place to a norm of at most
    max_norm (by max_norm / (norm + 1e-7)), as ATen's."""
    if indices.dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError(f"Expected tensor for argument #2 'indices' to have one of the "
                           f"following scalar types: Long, Int; but got {indices.type()} "
                           f"instead (while checking arguments for embedding_renorm_)")
    a = indices._data
    bad = (a < -input.shape[0]) | (a >= input.shape[0])
    if bad.any():
        raise IndexError(f"select(): index {int(a[bad].flat[0])} out of range for tensor of "
                         f"size {list(input.shape)} at dimension 0")
    idx = Tensor._make(a % input.shape[0])
    return apply_inplace(_embedding_renorm, input, (input, idx),
                         {"max_norm": max_norm, "norm_type": norm_type})


@public("function", name="embedding", signatures=(
    "embedding(Tensor weight, Tensor indices, SymInt padding_idx=-1, "
    "bool scale_grad_by_freq=False, bool sparse=False)",))
def _aten_embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """ATen's embedding: weight first, padding_idx -1 for none (no max_norm)."""
    _embedding_checks(indices, weight, sparse)
    return _embedding(weight, indices, weight_sym_argsize_0=weight.shape[0],
                      padding_idx=padding_idx, scale_grad_by_freq=scale_grad_by_freq,
                      sparse=sparse)


def _embedding_checks(input, weight, sparse):
    if sparse:
        raise NotImplementedError("embedding(sparse=True): glassgrad has no sparse tensors")
    if input.dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the "
                           f"following scalar types: Long, Int; but got {input.type()} instead "
                           f"(while checking arguments for embedding)")
    if weight.dim() != 2:
        raise RuntimeError("'weight' must be 2-D")
    a = input._data
    if a.size and (a.min() < 0 or a.max() >= weight.shape[0]):
        raise IndexError("index out of range in self")


@public("functional")
def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    if padding_idx is not None:
        if padding_idx > 0 and padding_idx >= weight.size(0):
            raise AssertionError("Padding_idx must be within num_embeddings")
        if padding_idx < 0:
            if padding_idx < -weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    _embedding_checks(input, weight, sparse)
    if max_norm is not None:
        _renorm_rows(weight, input.contiguous(), max_norm, norm_type)
    return _embedding(weight, input, weight_sym_argsize_0=weight.shape[0],
                      padding_idx=padding_idx, scale_grad_by_freq=scale_grad_by_freq,
                      sparse=sparse)


publish(globals())
