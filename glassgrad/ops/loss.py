"""Loss functions for nn.functional. The ones ATen computes in one kernel are rows with PyTorch's
node names (MseLossBackward0, SmoothL1LossBackward0, HuberLossBackward0,
BinaryCrossEntropyBackward0, BinaryCrossEntropyWithLogitsBackward0, NllLossBackward0,
NllLoss2DBackward0); the ones ATen composes (l1_loss, kl_div, cross_entropy with probabilities
or label smoothing) are composed of the same ops here. Backward formulas are tensor ops, so
they differentiate again."""
import math
import warnings

from .. import dtypes
from .._creation import ones_like, zeros_like
from .._tensor import Tensor
from ..backend import xp
from . import public, publish
from .pointwise import div_scalar
from .registry import _SCALAR_NAMES, defop

_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _enum(reduction):
    """torch's _Reduction.get_enum: the reduction's code, or its ValueError."""
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' "
                      "instead.", stacklevel=3)
        return 1
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _REDUCTIONS[reduction]


def _legacy(size_average, reduce, reduction):
    """The reduction the deprecated size_average/reduce arguments ask for (with torch's
    warning), else ``reduction``."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    out = "mean" if size_average and reduce else "sum" if reduce else "none"
    warnings.warn(f"size_average and reduce args will be deprecated, please use "
                  f"reduction='{out}' instead.", stacklevel=3)
    return out


def _reduce_np(loss, reduction):
    if reduction == 1:
        return loss.mean()
    return loss.sum() if reduction == 2 else loss


def _scale(grad, like, reduction):
    """The upstream gradient spread over the elements: expanded for mean and sum (divided by
    their count for mean), as it is for none."""
    if reduction == 0:
        return grad
    g = grad.expand(like.shape)
    return g / like.numel() if reduction == 1 else g


def _apply_reduction(loss, reduction):
    if reduction == 1:
        return loss.mean()
    return loss.sum() if reduction == 2 else loss


def _size_warning(input, target):
    if target.size() != input.size():
        warnings.warn(f"Using a target size ({target.size()}) that is different to the input "
                      f"size ({input.size()}). This will likely lead to incorrect results due to "
                      f"broadcasting. Please ensure they have the same size.", stacklevel=3)


def _broadcast(input, target):
    if input.shape == target.shape:
        return input, target
    from .shape import broadcast_tensors
    return broadcast_tensors(input, target)


# -- mse, smooth l1, huber -------------------------------------------------------------------
_mse_loss = defop("MseLossBackward0", lambda xp, self, target, reduction: _reduce_np(
    (self - target) ** 2, reduction), ("self", "target"), grads={
    "self": lambda grad, self, target, reduction: 2 * (self - target) * _scale(grad, self,
                                                                               reduction),
    "target": lambda grad, self, target, reduction: -2 * (self - target) * _scale(
        grad, self, reduction)})


def _smooth_l1_np(d, beta):
    a = xp.abs(d)
    return xp.where(a < beta, 0.5 * d * d / beta, a - 0.5 * beta)


def _smooth_l1_slope(d, beta):
    return (d / beta).clamp(-1, 1)


_smooth_l1_loss = defop("SmoothL1LossBackward0", lambda xp, self, target, reduction, beta:
                        _reduce_np(_smooth_l1_np(self - target, beta), reduction),
                        ("self", "target"), grads={
    "self": lambda grad, self, target, reduction, beta: _smooth_l1_slope(
        self - target, beta) * _scale(grad, self, reduction),
    "target": lambda grad, self, target, reduction, beta: -(_smooth_l1_slope(
        self - target, beta) * _scale(grad, self, reduction))})


def _huber_np(d, delta):
    a = xp.abs(d)
    return xp.where(a < delta, 0.5 * d * d, delta * (a - 0.5 * delta))


_huber_loss = defop("HuberLossBackward0", lambda xp, self, target, reduction, delta:
                    _reduce_np(_huber_np(self - target, delta), reduction), ("self", "target"),
                    grads={
    "self": lambda grad, self, target, reduction, delta: (self - target).clamp(
        -delta, delta) * _scale(grad, self, reduction),
    "target": lambda grad, self, target, reduction, delta: -((self - target).clamp(
        -delta, delta) * _scale(grad, self, reduction))})


def _weighted(loss, weight, reduction):
    """torch's weighted mse/l1: the weighted losses, their sum, or their sum over the weights'."""
    weighted = loss * weight
    if reduction == "none":
        return weighted
    if reduction == "sum":
        return weighted.sum()
    if reduction == "mean":
        return weighted.sum() / weight.sum()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', "
                     f"'sum'.")


def _check_weight_size(weight, input):
    if weight.size() != input.size():
        raise ValueError("Weights and input must have the same size.")


@public("functional")
def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    _size_warning(input, target)
    reduction = _legacy(size_average, reduce, reduction)
    a, b = _broadcast(input, target)
    if weight is not None:
        _check_weight_size(weight, input)
        return _weighted((a - b).pow(2), weight, reduction)
    return _mse_loss(a, b, reduction=_enum(reduction))


@public("functional")
def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    _size_warning(input, target)
    reduction = _legacy(size_average, reduce, reduction)
    a, b = _broadcast(input, target)
    if weight is not None:
        _check_weight_size(weight, input)
        return _weighted((a - b).abs(), weight, reduction)
    return _apply_reduction((a - b).abs(), _enum(reduction))


@public("functional")
def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    _size_warning(input, target)
    reduction = _legacy(size_average, reduce, reduction)
    a, b = _broadcast(input, target)
    if beta == 0.0:
        return _apply_reduction((a - b).abs(), _enum(reduction))
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    return _smooth_l1_loss(a, b, reduction=_enum(reduction), beta=beta)


@public("functional")
def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    _size_warning(input, target)
    a, b = _broadcast(input, target)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    if weight is None:
        return _huber_loss(a, b, reduction=_enum(reduction), delta=delta)
    _check_weight_size(weight, input)
    loss = _huber_loss(a, b, reduction=0, delta=delta) * weight
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    if reduction == "mean":
        return loss.mean()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', "
                     f"'sum'.")


# -- binary cross entropy ----------------------------------------------------------------------
def _bce_np(xp, self, target, weight, reduction):
    with xp.errstate(divide="ignore"):
        log_x = xp.maximum(xp.log(self), -100)
        log_1mx = xp.maximum(xp.log1p(-self), -100)
    loss = -(target * log_x + (1 - target) * log_1mx)
    if weight is not None:
        loss = loss * weight
    return _reduce_np(loss, reduction)


_BCE_EPS = 1e-12


def _scale_np(grad_output, like, reduction):
    g = xp.broadcast_to(grad_output, like.shape)
    return g / like.size if reduction == 1 else g


def _reduced(t, reduction):
    """A pointwise gradient summed back to the upstream gradient's shape (a scalar for mean
    and sum, divided by the count for mean)."""
    if reduction == 0:
        return t
    return t.sum() / t.numel() if reduction == 1 else t.sum()


def _weighted_by(t, weight):
    return t if weight is None else t * weight


def _bce_backward_np(xp, grad_output, self, target, weight, reduction):
    g = (self - target) / xp.maximum((1 - self) * self, _BCE_EPS) * \
        _scale_np(grad_output, self, reduction)
    return (g if weight is None else g * weight).astype(self.dtype, copy=False)


def _bce_ggo(grad, self, target, weight, reduction):
    """d/d grad_output of binary_cross_entropy_backward (torch's formula, its epsilons)."""
    ggo = (self - target) / ((self + _BCE_EPS) * (1 - self + _BCE_EPS)) * grad
    return _reduced(_weighted_by(ggo, weight), reduction)


def _bce_gi(grad, grad_output, self, target, weight, reduction):
    """d/d self of binary_cross_entropy_backward (torch's formula)."""
    gi = (self * self - 2 * self * target + target) / (
        (self + _BCE_EPS).pow(2) * (1 - self + _BCE_EPS).pow(2))
    gi = _weighted_by(gi * (grad * grad_output), weight)
    return gi / self.numel() if reduction == 1 else gi


def _bce_gt(grad, grad_output, self, target, weight, reduction):
    """d/d target of binary_cross_entropy_backward (torch's formula)."""
    res = _weighted_by(-grad * grad_output, weight) / (self * (1 - self)).clamp_min(_BCE_EPS)
    return res / self.numel() if reduction == 1 else res


_bce_backward = defop("BinaryCrossEntropyBackwardBackward0", _bce_backward_np,
                      ("grad_output", "self", "target", "weight"), dtype="same", grads={
    "grad_output": _bce_ggo, "self": _bce_gi, "target": _bce_gt})


def _bce_grad_self(grad, self, target, weight, reduction):
    return _bce_backward(grad, self, target, weight, reduction=reduction)


def _bce_grad_target(grad, self, target, weight, reduction):
    return _weighted_by(-self.logit() * _scale(grad, self, reduction), weight)


def _same_as_inputs(forward):
    """forward's result in the dtype self and target promote to (rows whose optional weights
    may be None take dtype='same', so they do not promote by themselves)."""
    def run(xp, self, target, *rest, **attrs):
        return forward(xp, self, target, *rest, **attrs).astype(xp.result_type(self, target),
                                                                 copy=False)
    return run


def _not_differentiable(name, **tensors):
    from .._autograd.grad_mode import is_grad_enabled
    for arg, t in tensors.items():
        if t is not None and t.requires_grad and is_grad_enabled():
            raise RuntimeError(f"The function '{name}' is not differentiable with respect to "
                               f"argument '{arg}'. This input cannot have requires_grad True.")


_binary_cross_entropy = defop("BinaryCrossEntropyBackward0", _same_as_inputs(_bce_np),
                              ("self", "target", "weight"), dtype="same", grads={
    "self": _bce_grad_self, "target": _bce_grad_target})


@public("functional")
def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    code = _enum(_legacy(size_average, reduce, reduction))
    if target.size() != input.size():
        raise ValueError(f"Using a target size ({target.size()}) that is different to the input "
                         f"size ({input.size()}) is deprecated. Please ensure they have the "
                         f"same size.")
    a = input._data
    if a.size and not ((a >= 0) & (a <= 1)).all():
        raise RuntimeError("all elements of input should be between 0 and 1")
    _not_differentiable("binary_cross_entropy", weight=weight)
    if weight is not None:
        from .registry import broadcast_shapes
        weight = weight.expand(broadcast_shapes(target.shape, weight.shape))
    return _binary_cross_entropy(input, target, weight, reduction=code)


def _bce_logits_np(xp, self, target, weight, pos_weight, reduction):
    softplus_neg = xp.log1p(xp.exp(-xp.abs(self))) + xp.maximum(-self, 0)   # -log(sigmoid(x))
    if pos_weight is not None:
        loss = (1 - target) * self + (1 + (pos_weight - 1) * target) * softplus_neg
    else:
        loss = (1 - target) * self + softplus_neg
    if weight is not None:
        loss = loss * weight
    return _reduce_np(loss, reduction)


def _bce_logits_grad_self(grad, self, target, weight, pos_weight, reduction):
    s = self.sigmoid()
    g = (s - target) if pos_weight is None else \
        s * (pos_weight * target + 1 - target) - pos_weight * target
    g = g * _scale(grad, self, reduction)
    return g if weight is None else g * weight


def _bce_logits_grad_target(grad, self, target, weight, pos_weight, reduction):
    g = -self if pos_weight is None else (pos_weight - 1) * _neg_log_sigmoid(self) - self
    g = g * _scale(grad, self, reduction)
    return g if weight is None else g * weight


def _neg_log_sigmoid(x):
    return (-x.abs()).exp().log1p() + (-x).clamp_min(0)


_binary_cross_entropy_with_logits = defop(
    "BinaryCrossEntropyWithLogitsBackward0", _same_as_inputs(_bce_logits_np),
    ("self", "target", "weight", "pos_weight"), dtype="same", grads={
        "self": _bce_logits_grad_self, "target": _bce_logits_grad_target})


@public("functional")
def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None,
                                     reduce=None, reduction="mean", pos_weight=None):
    code = _enum(_legacy(size_average, reduce, reduction))
    if target.size() != input.size():
        raise ValueError(f"Target size ({target.size()}) must be the same as input size "
                         f"({input.size()})")
    _not_differentiable("binary_cross_entropy_with_logits", weight=weight,
                        pos_weight=pos_weight)
    return _binary_cross_entropy_with_logits(input, target, weight, pos_weight,
                                             reduction=code)


# -- negative log likelihood -------------------------------------------------------------------
def _nll_parts(self, target, weight, ignore_index):
    """(per-position weights w (0 where ignored), the class index read) as arrays, the class
    dim of self being its dim 1 (or 0 for one sample)."""
    t = target._data if isinstance(target, Tensor) else target
    valid = t != ignore_index
    safe = xp.where(valid, t, 0)
    w = xp.ones(t.shape, self.dtype) if weight is None else \
        (weight._data if isinstance(weight, Tensor) else weight)[safe].astype(self.dtype)
    return w * valid, safe


def _class_dim(self):
    return 0 if self.ndim == 1 else 1


def _nll_forward(xp, self, target, weight, reduction, ignore_index):
    w, safe = _nll_parts(self, target, weight, ignore_index)
    cd = _class_dim(self)
    picked = xp.take_along_axis(self, xp.expand_dims(safe, cd), cd).squeeze(cd)
    loss = -picked * w
    if reduction == 0:
        return loss.astype(self.dtype)
    if reduction == 2:
        return loss.sum().astype(self.dtype)
    with xp.errstate(invalid="ignore", divide="ignore"):
        return (loss.sum() / w.sum()).astype(self.dtype)


def _nll_coefficients(self, target, weight, reduction, ignore_index):
    """d loss / d self for a unit upstream gradient: -w at each read class, divided by the
    total weight for mean (a constant tensor shaped like self)."""
    s = self._data
    w, safe = _nll_parts(s, target, weight, ignore_index)
    if reduction == 1:      # ignored positions get 0, as ATen's (0/0 where all are ignored)
        t = target._data if isinstance(target, Tensor) else target
        with xp.errstate(invalid="ignore", divide="ignore"):
            w = xp.where(t != ignore_index, w / w.sum(), 0).astype(w.dtype, copy=False)
    coef = xp.zeros(s.shape, s.dtype)
    cd = _class_dim(s)
    xp.put_along_axis(coef, xp.expand_dims(safe, cd), xp.expand_dims(-w, cd).astype(s.dtype),
                      cd)
    return Tensor._make(coef)


def _nll_backward_np(xp, grad_output, self, target, weight, reduction, ignore_index):
    coef = _nll_coefficients(Tensor._make(self), target, weight, reduction, ignore_index)._data
    g = xp.expand_dims(grad_output, _class_dim(self)) if reduction == 0 and self.ndim > 0 \
        else grad_output
    return (coef * g).astype(self.dtype, copy=False)


def _nll_ggo(grad, self, target, weight, reduction, ignore_index):
    """d/d grad_output of nll_loss_backward: the loss of grad (torch's nll_loss(grad, ...))."""
    coef = _nll_coefficients(self, target, weight, reduction, ignore_index)
    terms = coef * grad
    if reduction == 0:
        return terms.sum(_class_dim(self._data)) if self.dim() > 0 else terms
    return terms.sum()


def _nll_backward_rows():
    """nll_loss_backward and nll_loss2d_backward: their derivative in self is zero, but self
    stays in the graph, as torch's."""
    rows = []
    for name in ("NllLossBackwardBackward0", "NllLoss2DBackwardBackward0"):
        rows.append(defop(name, _nll_backward_np, ("grad_output", "self", "target", "weight"),
                          dtype="same", grads={"grad_output": _nll_ggo,
                                               "self": lambda grad: zeros_like(grad)}))
    return rows


_nll_backward, _nll2d_backward = _nll_backward_rows()


def _nll_grad(backward):
    def formula(grad, self, target, weight, reduction, ignore_index):
        return backward(grad, self, target, weight, reduction=reduction,
                        ignore_index=ignore_index)
    return formula


_nll_loss = defop("NllLossBackward0", _nll_forward, ("self", "target", "weight"),
                  dtype="same", grads={"self": _nll_grad(_nll_backward)})
_nll_loss2d = defop("NllLoss2DBackward0", _nll_forward, ("self", "target", "weight"),
                    dtype="same", grads={"self": _nll_grad(_nll2d_backward)})


def _name(d):
    return _SCALAR_NAMES[d.name]


def _check_nll(input, target, weight, ignore_index):
    if input.dim() < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.dim()})")
    if input.dim() != 1 and input.shape[0] != target.shape[0]:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target "
                         f"batch_size ({target.shape[0]}).")
    if target.dtype not in (dtypes.int64, dtypes.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got "
                           f"{_name(target.dtype)}")
    if input.dim() <= 2 and target.dim() > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    c = input.shape[_class_dim(input)]
    if weight is not None and (weight.dim() != 1 or weight.numel() != c):
        raise RuntimeError(f"weight tensor should be defined either for all {c} classes or no "
                           f"classes but got weight tensor of shape: {list(weight.shape)}")
    while target._batched:      # func.vmap: the targets of every example, checked at once
        target = target._value
    t = target._data
    bad = (t != ignore_index) & ((t < 0) | (t >= c))
    if bad.any():
        raise IndexError(f"Target {int(t[bad].flat[0])} is out of bounds.")


def _nll_nd(input, target, weight, reduction, ignore_index):
    """ATen's nll_loss_nd: one sample or a batch of rows (NllLoss), a batch of images
    (NllLoss2d), other K-dim inputs viewed as images of one row."""
    _check_nll(input, target, weight, ignore_index)
    attrs = {"reduction": reduction, "ignore_index": ignore_index}
    if input.dim() <= 2:
        return _nll_loss(input, target, weight, **attrs)
    if input.dim() == 4:
        return _nll_loss2d(input, target, weight, **attrs)
    n, c, *rest = input.shape
    if tuple(target.shape[1:]) != tuple(rest):
        raise RuntimeError(f"Expected target size {[n, *rest]}, got {list(target.shape)}")
    flat_in = input.contiguous().view(n, c, 1, -1)
    flat_t = target.contiguous().view(n, 1, -1)
    out = _nll_loss2d(flat_in, flat_t, weight, **attrs)
    return out.view(n, *rest) if reduction == 0 else out


@public("functional")
def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    reduction = _legacy(size_average, reduce, reduction)
    return _nll_nd(input, target, weight, _enum(reduction), ignore_index)


# -- cross entropy -----------------------------------------------------------------------------
def _class_weight_view(weight, input):
    if input.dim() <= 1:
        return weight
    return weight.view([1, weight.shape[0]] + [1] * (input.dim() - 2))




def _cross_entropy_probs(input, target, weight, reduction, label_smoothing):
    cd = 0 if input.dim() == 1 else 1
    c = input.shape[cd]
    if weight is not None and (weight.dim() != 1 or weight.numel() != c):
        raise RuntimeError(f"cross_entropy: weight tensor should be defined either for all {c} "
                           f"classes or no classes but got weight tensor of shape: "
                           f"{list(weight.shape)}")
    logp = input.log_softmax(cd)
    if label_smoothing > 0.0:
        target = target * (1 - label_smoothing) + label_smoothing / c
    terms = logp * target if weight is None else logp * target * _class_weight_view(weight,
                                                                                    input)
    if reduction == 1:
        total = -terms.sum()
        return total.fill_(float("nan")) if input.numel() == 0 else \
            div_scalar(total, other=input.numel() // c)
    return -terms.sum() if reduction == 2 else -terms.sum(cd)


def _cross_entropy_smoothed(input, target, weight, reduction, ignore_index, label_smoothing):
    cd = 0 if input.dim() == 1 else 1
    logp = input.log_softmax(cd)
    nll = _nll_nd(logp, target, weight, reduction, ignore_index)
    c = logp.shape[cd]
    smooth = -(logp if weight is None else logp * _class_weight_view(weight, logp)).sum(cd)
    ignored = target == ignore_index
    smooth.masked_fill_(ignored, 0.0)
    if reduction == 1:
        if weight is not None:
            total = smooth.sum() / weight.gather(0, target.masked_select(~ignored).flatten()).sum()
        else:
            total = smooth.sum() / (~ignored).sum()
    else:
        total = smooth.sum() if reduction == 2 else smooth
    return (1 - label_smoothing) * nll + total * (label_smoothing / c)


@public("functional")
def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,
                  reduce=None, reduction="mean", label_smoothing=0.0):
    code = _enum(_legacy(size_average, reduce, reduction))
    if input.shape == target.shape:
        if not target.is_floating_point():
            raise RuntimeError(f"Expected floating point type for target with class "
                               f"probabilities, got {_name(target.dtype)}")
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        return _cross_entropy_probs(input, target, weight, code, label_smoothing)
    if label_smoothing > 0.0:
        if label_smoothing > 1.0:
            raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: "
                               f"{label_smoothing:g}")
        return _cross_entropy_smoothed(input, target, weight, code, ignore_index,
                                       label_smoothing)
    return _nll_nd(input.log_softmax(0 if input.dim() == 1 else 1), target, weight, code,
                   ignore_index)


@public("functional")
def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None,
                         reduction="mean", ignore_index=None, label_smoothing=0.0,
                         options=None):
    """torch's reference path: cross_entropy(linear(input, linear_weight, linear_bias),
    target), the logits shaped (*batch, C, *out_features) for a weight (C, *out_features,
    in_features). torch's chunked path (``options``, a LinearCrossEntropyOptions, where it
    applies) is not implemented: it raises NotImplementedError rather than run another
    computation under that name."""
    from .nn import linear
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got "
                           f"{linear_weight.dim()}")
    batch, in_features = tuple(input.shape[:-1]), input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError(f"expected equal input and linear_weight last dimensions "
                           f"(in_features), got {input.shape[-1]} and "
                           f"{linear_weight.shape[-1]}, respectively")
    classes, out_features = linear_weight.shape[0], tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(classes, *out_features)}, got "
                           f"{tuple(linear_bias.shape)}")
    if out_features and not batch:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape "
                           f"{tuple(linear_weight.shape)} requires batched input, "
                           f"(N, {in_features}), got unbatched input with shape "
                           f"{tuple(input.shape)}")
    logits_shape = (*batch, classes, *out_features)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains "
                           "probabilities")
    ignore_index = -100 if ignore_index is None else ignore_index
    if options is not None:
        _linear_cross_entropy_options(options, target, reduction, label_smoothing,
                                      out_features, linear_bias)
    if out_features:
        flat = math.prod(out_features) * classes
        linear_weight = linear_weight.reshape((flat, in_features))
        if linear_bias is not None:
            linear_bias = linear_bias.reshape(flat)
    logits = linear(input, linear_weight, linear_bias).reshape(logits_shape)
    return cross_entropy(logits, target, weight=weight, reduction=reduction,
                         ignore_index=ignore_index, label_smoothing=label_smoothing)


def _linear_cross_entropy_options(options, target, reduction, label_smoothing, out_features,
                                  linear_bias):
    """torch's choice for a call with ``options``: its warning where the chunked path does not
    apply (the reference path runs), else the chunked path, which glassgrad does not have."""
    if (out_features or reduction not in {"mean", "sum", "none"} or label_smoothing != 0.0
            or target.dtype != dtypes.int64):
        warnings.warn(
            "linear_cross_entropy: ``options`` ignored; chunked path needs reduction in "
            "{'mean','sum','none'}, label_smoothing == 0, target.dtype == int64, "
            f"out_features == (). Got reduction={reduction!r}, "
            f"label_smoothing={label_smoothing}, target.dtype={target.dtype}, "
            f"out_features={tuple(out_features)}, tracing=False, linear_bias.shape="
            f"{tuple(linear_bias.shape) if linear_bias is not None else None}.",
            stacklevel=3)
        return
    raise NotImplementedError(
        f"linear_cross_entropy(options={options!r}): glassgrad has no chunked "
        "implementation (torch's _linear_cross_entropy_batch_chunked); pass options=None for "
        "the reference path, cross_entropy(linear(input, linear_weight, linear_bias), target)")


# -- kl divergence -----------------------------------------------------------------------------
@public("functional")
def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    if size_average is not None or reduce is not None:
        code = _enum(_legacy(size_average, reduce, reduction))
    else:
        if reduction == "mean":
            warnings.warn("reduction: 'mean' divides the total loss by both the batch size and "
                          "the support size.'batchmean' divides only by the batch size, and "
                          "aligns with the KL div math definition.'mean' will be changed to "
                          "behave the same as 'batchmean' in the next major release.",
                          stacklevel=2)
        code = _enum("sum" if reduction == "batchmean" else reduction)
    out = _kl_div(input, target, code, log_target)
    if reduction == "batchmean" and input.dim() != 0:
        out = out / input.size()[0]
    return out


def _kl_div(input, target, code, log_target):
    """ATen's kl_div (torch.kl_div): the pointwise terms, reduced by the reduction's code."""
    if not input.is_floating_point() or not target.is_floating_point():
        raise RuntimeError("kl_div: Integral inputs not supported.")
    from .pointwise import xlogy
    out = target.exp() * (target - input) if log_target else xlogy(target, target) - \
        target * input
    return _apply_reduction(out, code)


# -- margin, embedding and likelihood losses (ATen composes them; so does this) ----------------
def _code(size_average, reduce, reduction):
    return _enum(_legacy(size_average, reduce, reduction))


@public("functional")
def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                        reduction="mean"):
    code = _code(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension "
                           f"but got sizes: input1: {input1.size()}, input2: {input2.size()}, "
                           f"target: {target.size()} ")
    return _apply_reduction((-target * (input1 - input2) + margin).clamp_min_(0), code)


@public("functional")
def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):
    code = _code(size_average, reduce, reduction)
    from .pointwise import where
    zeros = zeros_like(input)
    margin_clamp = (margin - input).clamp_min_(0)
    out = where(target != 1, margin_clamp, zeros) + where(target != -1, input, zeros)
    return _apply_reduction(out, code)


_EPSILON = 1e-12


@public("functional")
def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                          reduction="mean"):
    code = _code(size_average, reduce, reduction)
    d = target.dim()
    if d not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if d == 1 and input1.dim() != 2:
        raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with "
                           f"sizes {list(input1.shape)} and {list(input2.shape)}.")
    if d == 0 and input1.dim() != 1:
        raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with "
                           f"sizes {list(input1.shape)} and {list(input2.shape)}.")
    from .pointwise import where
    prod_sum = (input1 * input2).sum(d)
    mag1 = (input1 * input1).sum(d) + _EPSILON
    mag2 = (input2 * input2).sum(d) + _EPSILON
    cos = prod_sum / (mag1 * mag2).sqrt_()
    zeros = zeros_like(cos)
    out = where(target == 1, 1 - cos, zeros) + where(target == -1, (cos - margin).clamp_min_(0),
                                                      zeros)
    return _apply_reduction(out, code)


@public("functional")
def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    code = _code(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    dims = (anchor.dim(), positive.dim(), negative.dim())
    if len(set(dims)) != 1:
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have "
                           f"the same number of dimensions, but got: anchor {dims[0]}D, "
                           f"positive {dims[1]}D, and negative {dims[2]}D inputs")
    from .nn import pairwise_distance
    from .pointwise import minimum
    dist_pos = pairwise_distance(anchor, positive, p, eps)
    dist_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_neg = minimum(dist_neg, pairwise_distance(positive, negative, p, eps))
    return _apply_reduction((margin + dist_pos - dist_neg).clamp_min(0), code)


@public("functional")
def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-08,
                     reduce=None, reduction="mean"):
    reduction = _legacy(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not a valid value for reduction")
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        stirling = target * target.log() - target + 0.5 * (2 * math.pi * target).log()
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _apply_reduction(loss, _enum(reduction))


def _soft_margin_grad(grad, self, target, reduction):
    z = (-target * self).exp()
    g = -target * z / (1 + z)
    return g * _scale(grad, self, reduction)


_soft_margin_loss = defop("SoftMarginLossBackward0", lambda xp, self, target, reduction:
                          _reduce_np(xp.log1p(xp.exp(-self * target)), reduction),
                          ("self", "target"), grads={"self": _soft_margin_grad})


@public("functional")
def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    return _soft_margin_loss(input, target, reduction=_code(size_average, reduce, reduction))


@public("functional")
def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    reduction = _legacy(size_average, reduce, reduction)
    from .pointwise import logsigmoid
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(dim=class_dim) / input.size(class_dim)
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(reduction + " is not valid")


@public("functional")
def gaussian_nll_loss(input, target, var, full=False, eps=1e-06, reduction="mean"):
    from .._autograd.grad_mode import no_grad
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * ones_like(input)
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if var.size() != input.size():
        if input.size()[:-1] == var.size():
            var = var.unsqueeze(-1)
        elif input.dim() != var.dim() or sum(y for x, y in zip(input.size(), var.size())
                                             if x != y) != 1:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss += 0.5 * math.log(2 * math.pi)
    return loss.mean() if reduction == "mean" else loss.sum() if reduction == "sum" else loss


# -- multi-class margin losses (ATen kernels: MultiMarginLossBackward0,
# MultilabelMarginLossBackward0; torch has no derivative of their backward) -----------------
def _rows2d(a):
    return a.reshape(1, -1) if a.ndim < 2 else a


def _reduce_rows(loss, reduction, ndim):
    out = _reduce_np(loss, reduction)
    return out.reshape(()) if reduction == 0 and ndim < 2 else out


def _multi_margin_terms(self, target, weight, p, margin):
    """(per-class terms max(0, margin - x[y] + x[j])^p * w[y] / C with j == y left out, the
    hinge's slope factor (1 or 2z) * w[y] / C) for the rows of self."""
    x = _rows2d(self)
    y = target.reshape(-1)
    c = x.shape[1]
    z = margin - xp.take_along_axis(x, y[:, None], 1) + x
    active = (z > 0) & (xp.arange(c) != y[:, None])
    w = 1.0 if weight is None else weight[y][:, None]
    terms = xp.where(active, z if p == 1 else z * z, 0) * w / c
    slope = xp.where(active, 1 if p == 1 else 2 * z, 0) * w / c
    return terms.astype(x.dtype, copy=False), slope.astype(x.dtype, copy=False)


def _multi_margin_forward(xp, self, target, weight, p, margin, reduction):
    terms, _ = _multi_margin_terms(self, target, weight, p, margin)
    return _reduce_rows(terms.sum(1), reduction, self.ndim)


def _multi_margin_backward_np(xp, grad_output, self, target, weight, p, margin, reduction):
    _, slope = _multi_margin_terms(self, target, weight, p, margin)
    g = slope * _row_scale(grad_output, slope.shape[0], reduction)
    xp.put_along_axis(g, target.reshape(-1, 1), -g.sum(1, keepdims=True), 1)
    return g.reshape(self.shape).astype(self.dtype, copy=False)


def _row_scale(grad_output, n, reduction):
    g = xp.asarray(grad_output).reshape(-1, 1)
    return g / n if reduction == 1 else g


def _not_implemented(name):
    """The formula of a backward op torch has no derivative for: it raises torch's error."""
    def formula(grad):
        raise RuntimeError(f"derivative for aten::{name} is not implemented")
    return formula


_NO_MARGIN_DERIVATIVE = {name: _not_implemented(name) for name in (
    "multi_margin_loss_backward", "multilabel_margin_loss_backward")}


_multi_margin_backward = defop(
    "NotImplemented", _multi_margin_backward_np, ("grad_output", "self", "target", "weight"),
    dtype="same", grads=dict.fromkeys(("grad_output", "self"),
                                      _NO_MARGIN_DERIVATIVE["multi_margin_loss_backward"]))
_multi_margin_loss = defop(
    "MultiMarginLossBackward0", _multi_margin_forward, ("self", "target", "weight"),
    dtype="same", grads={"self": lambda grad, self, target, weight, p, margin, reduction:
                         _multi_margin_backward(grad, self, target, weight, p=p, margin=margin,
                                                reduction=reduction)})


def _check_margin_input(input):
    n = input.dim()
    if not ((n == 2 and input.shape[1] != 0) or (n == 1 and input.shape[0] != 0) or n == 0):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch "
                           f"size, but got: {list(input.shape)}")


def _check_long(target):
    if target.dtype is not dtypes.int64:
        raise RuntimeError(f"expected scalar type Long but found {_name(target.dtype)}")


@public("functional")
def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean"):
    code = _code(size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    _check_margin_input(input)
    _check_long(target)
    n = input.shape[0] if input.dim() == 2 else 1
    c = input.shape[-1] if input.dim() else 1
    if target.dim() > 1 or target.numel() != n:
        raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal to "
                           f"the number of input samples (batch size). Expected target size "
                           f"[{n}], but got {list(target.shape)}. Input has shape "
                           f"{list(input.shape)}.")
    if weight is not None and weight.numel() != c:
        raise RuntimeError(f"inconsistent weight size, expected {c} but got "
                           f"{list(weight.shape)}")
    t = target._data
    if t.size and (t.min() < 0 or t.max() >= c):
        raise RuntimeError("target out of range")
    return _multi_margin_loss(input, target, weight, p=p, margin=margin, reduction=code)


def _multilabel_terms(self, target):
    """(hinge terms max(0, 1 - x[t_k] + x[i]) / C for each listed target t_k (the list ends at
    the first -1) and each class i not a target, shape (N, K, C); the list's mask; the safe
    target indices)."""
    x, t = _rows2d(self), _rows2d(target)
    listed = xp.cumprod(t != -1, axis=1).astype(bool)
    safe = xp.where(listed, t, 0)
    is_target = xp.zeros(x.shape, bool)
    rows = xp.broadcast_to(xp.arange(x.shape[0])[:, None], safe.shape)
    is_target[rows[listed], safe[listed]] = True
    z = 1 - xp.take_along_axis(x, safe, 1)[:, :, None] + x[:, None, :]
    active = listed[:, :, None] & ~is_target[:, None, :] & (z > 0)
    return xp.where(active, z, 0) / x.shape[1], active, safe


def _multilabel_forward(xp, self, target, reduction):
    terms, _, _ = _multilabel_terms(self, target)
    return _reduce_rows(terms.sum((1, 2)), reduction, self.ndim).astype(self.dtype, copy=False)


def _multilabel_backward_np(xp, grad_output, self, target, reduction):
    _, active, safe = _multilabel_terms(self, target)
    x = _rows2d(self)
    h = active * (_row_scale(grad_output, x.shape[0], reduction)[:, :, None] / x.shape[1])
    g = h.sum(1)
    rows = xp.broadcast_to(xp.arange(x.shape[0])[:, None], safe.shape)
    xp.subtract.at(g, (rows, safe), h.sum(2))
    return g.reshape(self.shape).astype(self.dtype, copy=False)


_multilabel_backward = defop(
    "NotImplemented", _multilabel_backward_np, ("grad_output", "self", "target"),
    dtype="same", grads=dict.fromkeys(("grad_output", "self"),
                                      _NO_MARGIN_DERIVATIVE["multilabel_margin_loss_backward"]))
_multilabel_margin_loss = defop(
    "MultilabelMarginLossBackward0", _multilabel_forward, ("self", "target"), dtype="same",
    grads={"self": lambda grad, self, target, reduction: _multilabel_backward(
        grad, self, target, reduction=reduction)})


@public("functional")
def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    code = _code(size_average, reduce, reduction)
    _check_margin_input(input)
    _check_long(target)
    if input.dim() <= 1:
        c = input.shape[0] if input.dim() else 1
        ok = target.dim() <= 1 and target.numel() == c
    else:
        c = input.shape[1]
        ok = target.dim() == 2 and tuple(target.shape) == tuple(input.shape)
    if not ok:
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of "
                           f"size: {list(input.shape)}")
    t = target._data
    if t.size and (t.min() < -1 or t.max() >= c):
        raise RuntimeError("argument #2 'target' is out of range")
    return _multilabel_margin_loss(input, target, reduction=code)


@public("functional")
def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    dims = (anchor.dim(), positive.dim(), negative.dim())
    if len(set(dims)) != 1:
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have "
                           f"the same number of dimensions, but got: anchor {dims[0]}D, "
                           f"positive {dims[1]}D, and negative {dims[2]}D inputs")
    from .nn import pairwise_distance
    from .pointwise import minimum
    distance = pairwise_distance if distance_function is None else distance_function
    dist_pos = distance(anchor, positive)
    dist_neg = distance(anchor, negative)
    if swap:
        dist_neg = minimum(dist_neg, distance(positive, negative))
    return _apply_reduction((margin + dist_pos - dist_neg).clamp_min(0), _REDUCTIONS[reduction])


# -- ctc: the alpha-beta recursion of ATen's CPU kernel, over the batch at once ----------------
def _logsumexp(*terms):
    """log(sum(exp(t))) elementwise, ATen's way: shifted by the largest, -inf kept."""
    top = xp.maximum.reduce(terms)
    shift = xp.where(top == -xp.inf, 0, top)
    with xp.errstate(divide="ignore"):
        return xp.log(sum(xp.exp(t - shift) for t in terms)) + shift


def _extended(targets, target_lengths, blank):
    """Each sample's target with blanks around and between its labels, padded with blanks:
    (N, 2 * max_length + 1), and where a label may be skipped to (it differs from the one two
    places back)."""
    n, s = len(target_lengths), max(target_lengths, default=0)
    labels = xp.full((n, s), blank, xp.int64)
    for b, row in enumerate(targets):
        labels[b, :len(row)] = row
    ext = xp.full((n, 2 * s + 1), blank, xp.int64)
    ext[:, 1::2] = labels
    skip = xp.zeros(ext.shape, bool)
    skip[:, 2:] = (ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])
    return ext, skip


def _ctc_targets(targets, target_lengths):
    """The label rows of a padded (N, S) or concatenated 1-d targets array."""
    if targets.ndim == 2:
        return [targets[b, :k] for b, k in enumerate(target_lengths)]
    ends = xp.cumsum(target_lengths)
    return [targets[e - k:e] for e, k in zip(ends, target_lengths)]


def _ctc_alpha(lp, ext, skip, input_lengths):
    """log alpha (T, N, L): the forward recursion, time by time."""
    t_max, n, _ = lp.shape
    emit = xp.take_along_axis(lp, xp.broadcast_to(ext, (t_max,) + ext.shape), 2)
    alpha = xp.full(emit.shape, -xp.inf)
    alpha[0, :, :2] = emit[0, :, :2]
    if ext.shape[1] == 1:
        alpha[0, :, 1:] = -xp.inf
    for t in range(1, t_max):
        prev = alpha[t - 1]
        one = xp.concatenate([xp.full((n, 1), -xp.inf), prev[:, :-1]], 1)
        two = xp.concatenate([xp.full((n, 2), -xp.inf), prev[:, :-2]], 1)
        alpha[t] = _logsumexp(prev, one, xp.where(skip, two, -xp.inf)) + emit[t]
    return alpha, emit


def _ctc_nll(alpha, input_lengths, target_lengths):
    rows = xp.arange(alpha.shape[1])
    last = alpha[xp.asarray(input_lengths) - 1, rows]
    ends = 2 * xp.asarray(target_lengths)
    before = xp.where(ends > 0, last[rows, xp.maximum(ends - 1, 0)], -xp.inf)
    return -_logsumexp(last[rows, ends], before)


def _ctc_forward(xp, log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
    lp = log_probs.astype(xp.float64)
    ext, skip = _extended(_ctc_targets(targets, target_lengths), target_lengths, blank)
    alpha, _ = _ctc_alpha(lp, ext, skip, input_lengths)
    return _ctc_nll(alpha, input_lengths, target_lengths).astype(log_probs.dtype)


def _ctc_backward_np(xp, grad, log_probs, targets, nll, input_lengths, target_lengths, blank,
                     zero_infinity):
    """ATen's ctc_loss_backward_cpu: exp(lp) - exp(log(sum of alpha * beta over the positions
    of each label) + nll - lp), times the sample's upstream gradient, 0 past its input length
    (and for an infinite loss with zero_infinity)."""
    lp = log_probs.astype(xp.float64)
    t_max, n, c = lp.shape
    ext, skip = _extended(_ctc_targets(targets, target_lengths), target_lengths, blank)
    alpha, emit = _ctc_alpha(lp, ext, skip, input_lengths)
    nll = nll.astype(xp.float64)        # the forward's result, as torch saves it
    lengths, ends = xp.asarray(input_lengths), 2 * xp.asarray(target_lengths)
    width = ext.shape[1]
    beta = xp.full(emit.shape, -xp.inf)
    pos = xp.arange(width)
    two_ahead = xp.zeros(ext.shape, bool)
    two_ahead[:, :-2] = skip[:, 2:]
    for t in range(t_max - 1, -1, -1):
        start = (pos == ends[:, None]) | ((pos == ends[:, None] - 1) & (ends[:, None] > 0))
        init = xp.where(start, emit[t], -xp.inf)
        if t < t_max - 1:
            nxt = beta[t + 1]
            one = xp.concatenate([nxt[:, 1:], xp.full((n, 1), -xp.inf)], 1)
            two = xp.concatenate([nxt[:, 2:], xp.full((n, 2), -xp.inf)], 1)
            step = _logsumexp(nxt, one, xp.where(two_ahead, two, -xp.inf)) + emit[t]
        else:
            step = init
        inside = pos[None, :] <= ends[:, None]
        beta[t] = xp.where((t == lengths - 1)[:, None], init,
                           xp.where((t < lengths - 1)[:, None] & inside, step, -xp.inf))
    acc = xp.full((t_max, n, c), -xp.inf)
    ti, ni, si = xp.meshgrid(xp.arange(t_max), xp.arange(n), pos, indexing="ij")
    xp.logaddexp.at(acc, (ti, ni, ext[ni, si]), alpha + beta)
    g = xp.exp(lp) - xp.exp(acc + nll[None, :, None] - lp)
    g = g * xp.asarray(grad, xp.float64).reshape(1, -1, 1)
    g[xp.arange(t_max)[:, None] >= lengths[None, :]] = 0
    if zero_infinity:
        g[:, nll == xp.inf] = 0
    return g.astype(log_probs.dtype)


_ctc_backward = defop("NotImplemented", _ctc_backward_np,
                      ("grad", "log_probs", "targets", "nll"),
                      dtype="same", grads=dict.fromkeys(("grad", "log_probs"), _not_implemented(
                          "_ctc_loss_backward")))
_ctc = defop("CtcLossBackward0", _ctc_forward, ("log_probs", "targets"), dtype="same", grads={
    "log_probs": lambda grad, log_probs, targets, result, input_lengths, target_lengths, blank,
    zero_infinity: _ctc_backward(grad, log_probs, targets, result, input_lengths=input_lengths,
                                 target_lengths=target_lengths, blank=blank,
                                 zero_infinity=zero_infinity)})


def _lengths(value, name):
    if isinstance(value, Tensor):
        if value.is_floating_point() or value.dtype is dtypes.bool:
            raise RuntimeError(f"{name} must be integral")
        return tuple(int(v) for v in value._data.reshape(-1))
    return tuple(int(v) for v in value)


@public("function", signatures=(
    "ctc_loss(Tensor log_probs, Tensor targets, IntArrayRef input_lengths, "
    "IntArrayRef target_lengths, int64_t blank=0, int64_t reduction=at::Reduction::Mean, "
    "bool zero_infinity=False)",
    "ctc_loss(Tensor log_probs, Tensor targets, Tensor input_lengths, Tensor target_lengths, "
    "int64_t blank=0, int64_t reduction=at::Reduction::Mean, bool zero_infinity=False)"))
def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=0,
             zero_infinity=False):
    """ATen's ctc_loss: _ctc_loss's negative log likelihoods (CtcLossBackward0), infinite ones
    zeroed if asked, divided by the target lengths and averaged (mean) or summed."""
    batched = log_probs.dim() == 3
    lp = log_probs if batched else log_probs.unsqueeze(1)
    tg = targets if batched else targets.unsqueeze(0)
    il, tl = _lengths(input_lengths, "input_lengths"), _lengths(target_lengths,
                                                                 "target_lengths")
    t_max, n, c = lp.shape
    if not 0 <= blank < c:
        raise RuntimeError("blank must be in label range")
    if len(il) != n:
        raise RuntimeError("input_lengths must be of size batch_size")
    if len(tl) != n:
        raise RuntimeError("target_lengths must be of size batch_size")
    for b in range(n):
        if il[b] > t_max:
            raise RuntimeError(f"Expected input_lengths to have value at most {t_max}, but got "
                               f"value {il[b]} (while checking arguments for "
                               f"ctc_loss_allocate_outputs)")
    res = _ctc(lp, tg.to(dtypes.int64), input_lengths=il, target_lengths=tl, blank=blank,
               zero_infinity=zero_infinity)
    if zero_infinity:
        from .pointwise import where
        from .._creation import zeros
        res = where(res == float("inf"), zeros((), dtype=res.dtype), res)
    if reduction == 1:
        from .._creation import tensor
        return (res / tensor(tl, dtype=res.dtype).clamp_min(1)).mean()
    if reduction == 2:
        return res.sum()
    return res if batched else res.squeeze(0)


@public("functional", name="ctc_loss")
def _functional_ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0,
                         reduction="mean", zero_infinity=False):
    return ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                    _enum(reduction), zero_infinity)


# -- the torch.* forms: ATen's signatures, the reduction as its code ---------------------------
_NAMES = {code: name for name, code in _REDUCTIONS.items()}
_R = "int64_t reduction=at::Reduction::Mean"
# publish() names the torch forms by the functional forms' names: keep those at hand
_F = {f.__name__: f for f in (binary_cross_entropy_with_logits, margin_ranking_loss,
                              hinge_embedding_loss, cosine_embedding_loss, triplet_margin_loss,
                              poisson_nll_loss)}


@public("function", name="binary_cross_entropy_with_logits", signatures=(
    f"f(Tensor input, Tensor target, Tensor? weight=None, Tensor? pos_weight=None, {_R})",))
def _bce_with_logits(input, target, weight=None, pos_weight=None, reduction=0):
    return _F["binary_cross_entropy_with_logits"](input, target, weight,
                                                  reduction=_NAMES[reduction],
                                                  pos_weight=pos_weight)


@public("function", name="margin_ranking_loss", signatures=(
    f"f(Tensor input1, Tensor input2, Tensor target, double margin=0.0, {_R})",))
def _margin_ranking(input1, input2, target, margin=0.0, reduction=0):
    return _F["margin_ranking_loss"](input1, input2, target, margin, reduction=_NAMES[reduction])


@public("function", name="hinge_embedding_loss", signatures=(
    f"f(Tensor input, Tensor target, double margin=1.0, {_R})",))
def _hinge_embedding(input, target, margin=1.0, reduction=0):
    return _F["hinge_embedding_loss"](input, target, margin, reduction=_NAMES[reduction])


@public("function", name="cosine_embedding_loss", signatures=(
    f"f(Tensor input1, Tensor input2, Tensor target, double margin=0.0, {_R})",))
def _cosine_embedding(input1, input2, target, margin=0.0, reduction=0):
    return _F["cosine_embedding_loss"](input1, input2, target, margin, reduction=_NAMES[reduction])


@public("function", name="triplet_margin_loss", signatures=(
    f"f(Tensor anchor, Tensor positive, Tensor negative, double margin=1.0, double p=2, "
    f"double eps=1e-06, bool swap=False, {_R})",))
def _triplet_margin(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False,
                    reduction=0):
    return _F["triplet_margin_loss"](anchor, positive, negative, margin, p, eps, swap,
                               reduction=_NAMES[reduction])


@public("function", name="poisson_nll_loss", signatures=(
    "f(Tensor input, Tensor target, bool log_input, bool full, double eps, "
    "int64_t reduction)",))
def _poisson_nll(input, target, log_input, full, eps, reduction):
    return _F["poisson_nll_loss"](input, target, log_input, full, eps=eps,
                            reduction=_NAMES[reduction])


@public("function", name="kl_div", signatures=(
    f"f(Tensor input, Tensor target, {_R}, *, bool log_target=False)",))
def _kl_div_function(input, target, reduction=0, log_target=False):
    return _kl_div(input, target, reduction, log_target)


publish(globals())
