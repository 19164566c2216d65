"""NN-style ops (softmax, log_softmax, dropout, linear, pad, ...) for glassgrad.nn.functional.

Composites are built from the same ops ATen composes them from, so their nodes carry PyTorch's
names. The primitive rows they need that belong elsewhere (addmm, vector_norm/norm, clamp_min) come
from their own modules; add-a-scalar is private here.
"""
import builtins
import math
import warnings

from .. import dtypes
from .._formats import contiguous_format
from .._creation import empty, empty_like, ones_like, zeros, zeros_like
from .._args import type_name as _type_name
from .._tensor import Tensor, _wrap_dim
from .._autograd.grad_mode import no_grad, state
from ..backend import reduced_floats, xp
from ..backend.kernels.random import visit_order
from ..backend.kernels.sums import add_reduce
from . import linalg as _linalg, reduce as _reduce
from .linalg import matmul
from .pointwise import _exp, clamp_, clamp_min, where
from .random import bernoulli_
from . import public, publish
from .registry import _SCALAR_NAMES, apply_inplace, broadcast_shapes, defop
from .shape import _t, expand, expanded_size, reshape


def _name(d):
    return _SCALAR_NAMES[d.name]


def _sum_keep(t, dim):
    """t summed over dim, kept (a tensor, or an array with grad mode off)."""
    if t.ndim == 0:
        return t
    if isinstance(t, Tensor):
        return t.sum(dim, keepdim=True)
    return _reduce._sum_forward(xp, t, dim, True, None).astype(t.dtype, copy=False)


# -- softmax, log_softmax --------------------------------------------------------------------
def _softmax_forward(self, dim, log):
    a = self.reshape(1) if self.ndim == 0 else self
    a = a.astype(xp.float32) if a.dtype in reduced_floats else a   # accumulated in float
    shifted = a - a.max(axis=dim, keepdims=True, initial=-xp.inf)
    # in place on the fresh temporaries: fewer passes over memory
    e = xp.exp(shifted) if log else xp.exp(shifted, out=shifted)
    s = add_reduce(e, dim, True)
    if log:
        shifted -= xp.log(s)
        out = shifted
    else:
        e /= s
        out = e
    return out.reshape(self.shape).astype(self.dtype, copy=False)


# arrays=True: the formulas also run on NumPy arrays (grad mode off, see defop)
_softmax = defop("SoftmaxBackward0", lambda xp, self, dim: _softmax_forward(self, dim, False),
                 dtype="same", arrays=True, row_major=True, grads={"self": lambda grad, result, dim:
                                                   result * (grad - _sum_keep(grad * result, dim))})
_log_softmax = defop("LogSoftmaxBackward0", lambda xp, self, dim: _softmax_forward(self, dim, True),
                     dtype="same", arrays=True, row_major=True, grads={"self": lambda grad, result, dim:
                                                       grad - _exp.call(result) * _sum_keep(grad,
                                                           dim)})


def _implicit_dim(name, ndim, stacklevel):
    """torch's _get_softmax_dim: ``stacklevel`` counts from here, as the functional's
    ``_stacklevel`` argument does (3: its caller's line)."""
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to "
                  f"include dim=X as an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def _softmax_like(op, kernel, input, dim, dtype):
    if dtype is not None:
        input = input.to(dtype)
    dim = _wrap_dim(dim, input.dim())
    if not input.is_floating_point():
        where_ = "lastdim_" if dim == input.dim() - 1 else ""
        raise NotImplementedError(f'"{kernel}_{where_}kernel_impl" not implemented for '
                                  f"'{_name(input.dtype)}'")
    return op(input, dim=dim)


@public("function", "method", signatures=(
    "softmax(Tensor input, int64_t dim, ScalarType? dtype=None, *, Tensor out=None)",))
def softmax(input, dim, dtype=None):
    return _softmax_like(_softmax, "softmax", input, dim, dtype)


@public("function", "method", signatures=(
    "log_softmax(Tensor input, int64_t dim, ScalarType? dtype=None, *, Tensor out=None)",))
def log_softmax(input, dim, dtype=None):
    return _softmax_like(_log_softmax, "log_softmax", input, dim, dtype)


@public("functional", name="softmax")
def _functional_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _implicit_dim("softmax", input.dim(), _stacklevel)
    return softmax(input, dim, dtype)


@public("functional", name="log_softmax")
def _functional_log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _implicit_dim("log_softmax", input.dim(), _stacklevel)
    return log_softmax(input, dim, dtype)


# -- dropout ---------------------------------------------------------------------------------
def _empty_in_layout(input):
    """empty_like as ATen makes it: laid out in memory like ``input`` (a transposed input gives
    a transposed tensor), so the samples drawn into it land where torch's do."""
    order = visit_order(input._data)
    if order == list(range(input.dim())):
        return empty_like(input)
    inverse = sorted(range(len(order)), key=order.__getitem__)
    return empty([input.shape[d] for d in order], dtype=input.dtype).permute(inverse)


def _dropout(input, p, train, inplace):
    """ATen's _dropout: input times a Bernoulli(1 - p) mask scaled by 1 / (1 - p)."""
    if p == 0 or not train or input.numel() == 0:
        return input
    if p == 1:
        noise = zeros((), dtype=input.dtype)
    else:
        noise = bernoulli_(_empty_in_layout(input), 1 - p)
        noise.div_(1 - p)
    return input.mul_(noise) if inplace else input * noise


@public("function", signatures=(
    "dropout(Tensor input, double p, bool train)",))
def dropout(input, p, train):
    if not 0 <= p <= 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p:g}")
    return _dropout(input, p, train, False)


@public("function", "functional", signatures=(
    "dropout_(Tensor input, double p, bool train)",))
def dropout_(input, p, train):
    if not 0 <= p <= 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p:g}")
    return _dropout(input, p, train, True)


@public("functional", name="dropout")
def _functional_dropout(input, p=0.5, training=True, inplace=False):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    return _dropout(input, p, training, inplace)


@public("functional")
def softmin(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _implicit_dim("softmin", input.dim(), _stacklevel)
    return softmax(-input, dim, dtype)


# -- channel-wise (feature) dropout ------------------------------------------------------------
def _feature_dropout(input, p, train, inplace):
    """ATen's feature dropout: one Bernoulli(1 - p) draw per (sample, channel), scaled by
    1 / (1 - p), broadcast over the remaining dims."""
    if p == 0 or not train or input.numel() == 0:
        return input
    if p == 1:
        noise = zeros((), dtype=input.dtype)
    else:
        noise = bernoulli_(empty(list(input.shape[:2]) + [1] * (input.dim() - 2),
                                 dtype=input.dtype), 1 - p)
        noise.div_(1 - p)
    return input.mul_(noise) if inplace else input * noise


def _feature_dropout_checks(input, p):
    if not 0 <= p <= 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p:g}")
    if input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")


@public("function", signatures=("feature_dropout(Tensor input, double p, bool train)",))
def feature_dropout(input, p, train):
    _feature_dropout_checks(input, p)
    return _feature_dropout(input, p, train, False)


@public("function", signatures=("feature_dropout_(Tensor input, double p, bool train)",))
def feature_dropout_(input, p, train):
    _feature_dropout_checks(input, p)
    return _feature_dropout(input, p, train, True)


@public("functional")
def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """Samples of the Gumbel-softmax distribution (torch's composite: the Gumbel noise drawn as
    -log of exponential draws, so the stream is torch's); hard=True: one-hot samples whose
    gradient is the soft sample's (straight-through)."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    gumbels = -empty_like(logits, memory_format=contiguous_format).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = zeros_like(logits, memory_format=contiguous_format).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _unbatched_feature_dropout(input, p, training, inplace, batched):
    if batched:
        return _feature_dropout(input, p, training, inplace)
    input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    out = _feature_dropout(input, p, training, inplace)
    return out.squeeze_(0) if inplace else out.squeeze(0)


@public("functional")
def dropout1d(input, p=0.5, training=True, inplace=False):
    _check_p(p)
    n = input.dim()
    if n not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {n}D input. "
                           "Note that dropout1d exists to provide channel-wise dropout on inputs "
                           "with 1 spatial dimension, a channel dimension, and an optional batch "
                           "dimension (i.e. 2D or 3D inputs).")
    return _unbatched_feature_dropout(input, p, training, inplace, n == 3)


_FEATURE_WARNING = ("{name}: Received a {n}-D input to {name}, which is deprecated and will "
                    "result in an error in a future release. To retain the behavior and silence "
                    "this warning, please use dropout instead. Note that {name} exists to "
                    "provide channel-wise dropout on inputs with {k} spatial dimensions, a "
                    "channel dimension, and an optional batch dimension (i.e. {lo}D or {hi}D "
                    "inputs).")


@public("functional")
def dropout2d(input, p=0.5, training=True, inplace=False):
    _check_p(p)
    n = input.dim()
    if n not in (3, 4):
        warnings.warn(_FEATURE_WARNING.format(name="dropout2d", n=n, k=2, lo=3, hi=4),
                      stacklevel=2)
    if n == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise "
                      "1D dropout behavior is desired - input is interpreted as shape (N, C, L), "
                      "where C is the channel dim. This behavior will change in a future release "
                      "to interpret the input as one without a batch dimension, i.e. shape (C, H, "
                      "W). To maintain the 1D channel-wise dropout behavior, please switch to "
                      "using dropout1d instead.", stacklevel=2)
    return _feature_dropout(input, p, training, inplace)


@public("functional")
def dropout3d(input, p=0.5, training=True, inplace=False):
    _check_p(p)
    n = input.dim()
    if n not in (4, 5):
        warnings.warn(_FEATURE_WARNING.format(name="dropout3d", n=n, k=3, lo=4, hi=5),
                      stacklevel=2)
    return _unbatched_feature_dropout(input, p, training, inplace, n == 5)


# -- alpha dropout (SELU's): ATen's _dropout_impl with alpha ------------------------------------
_SELU_ALPHA_PRIME = 1.7580993408473766       # -scale * alpha of SELU


def _alpha_dropout(input, p, train, inplace, feature):
    """Kept elements scaled by a, dropped ones set to the value that keeps SELU's mean and
    variance: input * noise * a + (noise - 1) * alpha' * a + alpha' * a * p, one Bernoulli draw
    per element (per (sample, channel) for the feature form)."""
    if not 0 <= p <= 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p:g}")
    if p == 0 or not train or input.numel() == 0:
        return input
    if p == 1:
        zero = zeros((), dtype=input.dtype)
        return input.mul_(zero) if inplace else input * zero
    shape = list(input.shape[:2]) + [1] * (input.dim() - 2)
    noise = bernoulli_(empty(shape, dtype=input.dtype) if feature else
                       _empty_in_layout(input), 1 - p)
    a = 1.0 / math.sqrt((_SELU_ALPHA_PRIME ** 2 * p + 1) * (1 - p))
    b = noise.add(-1).mul_(_SELU_ALPHA_PRIME * a).add_(_SELU_ALPHA_PRIME * a * p)
    noise.mul_(a)
    return (input.mul_(noise) if inplace else input * noise).add_(b)


def _alpha_forms(name, feature):
    def function(input, p, train):
        return _alpha_dropout(input, p, train, False, feature)

    def inplace_function(input, p, train):
        return _alpha_dropout(input, p, train, True, feature)

    def functional(input, p=0.5, training=False, inplace=False):
        _check_p(p)
        return _alpha_dropout(input, p, training, inplace, feature)
    for fn, variants, public_name in ((function, ("function",), name),
                                      (inplace_function, ("function",), name + "_"),
                                      (functional, ("functional",), name)):
        fn.__name__ = fn.__qualname__ = public_name
        sig = (f"{public_name}(Tensor input, double p, bool train)",) \
            if variants == ("function",) else ()
        public(*variants, signatures=sig)(fn)


_alpha_forms("alpha_dropout", False)
_alpha_forms("feature_alpha_dropout", True)


# -- bilinear ----------------------------------------------------------------------------------
@public("function", "functional", signatures=(
    "bilinear(Tensor input1, Tensor input2, Tensor weight, Tensor? bias=None)",))
def bilinear(input1, input2, weight, bias=None):
    """x1^T W x2 + b over the last dim, the leading dims flattened and restored (as ATen)."""
    if input1.dim() != input2.dim():
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.dim()} and "
                           f"{input2.dim()}")
    if tuple(input1.shape[:-1]) != tuple(input2.shape[:-1]):
        raise RuntimeError(f"bilinear(): input batch dimensions do not match: got "
                           f"{list(input1.shape[:-1])} and {list(input2.shape[:-1])}")
    if weight.dim() != 3 or input1.shape[-1] != weight.shape[1]:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got "
                           f"{input1.shape[-1]} but expected {weight.shape[1]}")
    if input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got "
                           f"{input2.shape[-1]} but expected {weight.shape[2]}")
    lead = list(input1.shape[:-1])
    x1 = reshape(input1, (-1, input1.shape[-1]))
    x2 = reshape(input2, (-1, input2.shape[-1]))
    out = _linalg.einsum("bi,oij,bj->bo", x1, weight, x2).view(*lead, weight.shape[0])
    return out if bias is None else out + bias


# -- linear ----------------------------------------------------------------------------------
def _addmm_checked(bias, mat1, mat2):
    if not (bias._batched or mat1._batched or mat2._batched):   # (vmap's: by their shapes)
        a1, a2, b = mat1._data, mat2._data, bias._data
        (s1, s2), d = (a1.shape, a2.shape), a2.dtype
        if (len(s1) == 2 and len(s2) == 2 and s1[1] == s2[0] and a1.dtype is d
                and b.dtype is d and d.kind != "b"
                and (b.shape == (s2[1],) or b.shape == (s1[0], s2[1]))):   # (the usual case)
            return _linalg._addmm(bias, mat1, mat2, beta=1, alpha=1)
    for name, m in (("mat1", mat1), ("mat2", mat2)):
        if m.dim() != 2:
            raise RuntimeError(f"{name} must be a matrix, got {m.dim()}-D tensor")
    for name, a in (("self", bias), ("mat1", mat1)):
        if a.dtype is not mat2.dtype:
            raise RuntimeError(f"{name} and mat2 must have the same dtype, but got "
                               f"{_name(a.dtype)} and {_name(mat2.dtype)}")
    (n, k), (k2, m) = mat1.shape, mat2.shape
    if k != k2:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({n}x{k} and {k2}x{m})")
    expanded_size(bias, (n, m))        # PyTorch's error when bias does not broadcast
    _linalg._no_bool("addmm_impl_cpu_", mat1)
    return _linalg._addmm(bias, mat1, mat2, beta=1, alpha=1)     # (checked: addmm's row)


def _transposed(weight, input, bias):
    """weight.t() without the argument layer (the method's error for more than 2 dims). Where
    no node will be recorded and no interceptor (forward AD, vmap, compile's capture) sees the
    op calls, a plain tensor over the transposed array: the t() op's view, node and version
    counter could never be seen, and the product is the same NumPy call on the same array."""
    if weight.dim() != 2:
        return weight.t() if weight.dim() > 2 else _t(weight)
    if state.handler is None and not (state.grad and (
            weight.requires_grad or input.requires_grad or
            bias is not None and bias.requires_grad)):
        return Tensor._make(weight._data.T)
    return _t(weight)


@public("functional")
def linear(input, weight, bias=None):
    """ATen's linear: addmm for 2-D input (or flattened contiguous input) with a vector-like
    bias, else matmul and an in-place add of the bias."""
    if not (isinstance(input, Tensor) and isinstance(weight, Tensor) and
            (bias is None or isinstance(bias, Tensor))):
        _linear_types(input, weight, bias)
    n = input.dim()
    if n == 0 or weight.dim() == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are "
                           f"{n}D and {weight.dim()}D")
    if bias is not None and n == 2:
        return _addmm_checked(bias, input, _transposed(weight, input, bias))
    vector_like = bias is not None and (bias.dim() == 1 or
                                        builtins.sum(s != 1 for s in bias.shape) == 1)
    if vector_like and bias.is_contiguous() and input.is_contiguous():
        *lead, k = input.shape
        out = _addmm_checked(bias, reshape(input, (math.prod(lead), k)),
                             _transposed(weight, input, bias))
        return out.view(*lead, out.shape[1])
    out = matmul(input, _transposed(weight, input, bias))
    return out if bias is None else out.add_(bias)


def _linear_types(input, weight, bias):
    """PyTorch's argument parser's refusal of a non-tensor argument to linear."""
    for pos, (name, v, optional) in enumerate((("input", input, False),
                                               ("weight", weight, False),
                                               ("bias", bias, True)), 1):
        if not (isinstance(v, Tensor) or optional and v is None):
            raise TypeError(f"linear(): argument '{name}' (position {pos}) must be Tensor, not "
                            f"{_type_name(v)}")


# -- one_hot ---------------------------------------------------------------------------------
@public("functional")
def one_hot(tensor, num_classes=-1):
    if tensor.dtype is not dtypes.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    a = tensor._data
    if a.size == 0:
        if num_classes == -1:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
    else:
        if a.min() < 0:
            raise RuntimeError("Class values must be non-negative.")
        if num_classes == -1:
            num_classes = int(a.max()) + 1
        elif a.max() >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    return Tensor._make((a[..., None] == xp.arange(num_classes)).astype(xp.int64))


# -- pad -------------------------------------------------------------------------------------
def _pairs(pad, ndim):
    """(dim, before, after) for each padded dim: the pad list runs from the last dim back."""
    return [(ndim - 1 - k, pad[2 * k], pad[2 * k + 1]) for k in range(len(pad) // 2)]


def _constant_pad_forward(xp, self, pad, value):
    crop = [builtins.slice(None)] * self.ndim
    widths = [(0, 0)] * self.ndim
    for d, lo, hi in _pairs(pad, self.ndim):
        crop[d] = builtins.slice(max(-lo, 0), self.shape[d] - max(-hi, 0))
        widths[d] = (max(lo, 0), max(hi, 0))
    out = self[tuple(crop)]
    return xp.pad(out, widths, constant_values=value) if out.ndim else out.copy()


_constant_pad = defop("ConstantPadNdBackward0", _constant_pad_forward, dtype="same",
                      grads={"self": lambda grad, pad: _constant_pad(
                          grad, pad=tuple(-p for p in pad), value=0)})


def _pad_index(size, lo, hi, mode):
    """For each output position along a dim, the input position it reads."""
    i = xp.arange(-lo, size + hi)
    if mode == "reflect":
        return (size - 1) - xp.abs((size - 1) - xp.abs(i))
    return xp.clip(i, 0, size - 1)


def _index_pad(self, padding, mode):
    for d, lo, hi in _pairs(padding, self.ndim):
        self = xp.take(self, _pad_index(self.shape[d], lo, hi, mode), axis=d)
    return self


def _index_pad_backward(grad_output, shape, padding, mode):
    """Each input position receives the sum of the output positions that read it."""
    for d, lo, hi in reversed(_pairs(padding, len(shape))):
        out = xp.zeros(grad_output.shape[:d] + (shape[d],) + grad_output.shape[d + 1:],
                       grad_output.dtype)
        xp.add.at(out, (builtins.slice(None),) * d + (_pad_index(shape[d], lo, hi, mode),),
                  grad_output)
        grad_output = out
    return grad_output


def _index_pad_rows(mode, name, k):
    back = defop(f"{name}{k}DBackwardBackward0", lambda xp, grad_output, self, padding:
                 _index_pad_backward(grad_output, self.shape, padding, mode),
                 ("grad_output", "self"), dtype="same",
                 grads={"grad_output": lambda grad, padding: forward(grad, padding=padding),
                        "self": lambda grad: zeros_like(grad)})
    forward = defop(f"{name}{k}DBackward0", lambda xp, self, padding: _index_pad(self, padding,
        mode),
                    dtype="same", grads={"self": lambda grad, self, padding:
                                         back(grad, self, padding=padding)})
    return forward


_INDEX_PADS = {(mode, k): _index_pad_rows(mode, name, k)
               for mode, name in (("reflect", "ReflectionPad"), ("replicate", "ReplicationPad"))
               for k in (1, 2, 3)}


def _copy_slices_forward(xp, self, src, region):
    out = self.copy()
    out[region] = src
    return out


def _outside(grad, region):
    """grad with ``region`` zeroed: what the overwritten tensor's history receives."""
    keep = xp.ones(grad.shape, dtype=grad.dtype.np)
    keep[region] = 0
    return grad * Tensor._make(keep)


# out[region].copy_(src) written into out: PyTorch's CopySlices node (its slice-copy backward)
_copy_slices = defop("CopySlices", _copy_slices_forward, ("self", "src"), dtype="same",
                     grads={"self": lambda grad, region: _outside(grad, region),
                            "src": lambda grad, region: grad[region]})


def _circular_pad(input, pad):
    """ATen's _pad_circular: copy the input into the middle of a new tensor, then wrap each
    padded dim (left side, then right side) by copying slices of the result into itself."""
    pairs, shape = _pairs(pad, input.dim()), list(input.shape)
    for d, lo, hi in pairs:
        if lo > input.shape[d] or hi > input.shape[d]:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        shape[d] += lo + hi
        if shape[d] < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
    out = zeros(shape, dtype=input.dtype)

    def region(d, start, stop, base=None):
        r = list(base or [builtins.slice(None)] * input.dim())
        r[d] = builtins.slice(start, stop)
        return tuple(r)

    out_region = in_region = None
    for d, lo, hi in pairs:
        out_region = region(d, max(lo, 0), shape[d] - max(hi, 0), out_region)
        in_region = region(d, max(-lo, 0), input.shape[d] - max(-hi, 0), in_region)
    apply_inplace(_copy_slices, out, (out, input[in_region]), {"region": out_region})
    for d, lo, hi in pairs:     # src and region are apart: no overlap to refuse
        if lo > 0:
            src = out[region(d, shape[d] - lo - max(hi, 0), shape[d] - max(hi, 0))]
            apply_inplace(_copy_slices, out, (out, src), {"region": region(d, 0, lo)},
                          overlap=None)
        if hi > 0:
            src = out[region(d, max(lo, 0), max(lo, 0) + hi)]
            apply_inplace(_copy_slices, out, (out, src),
                          {"region": region(d, shape[d] - hi, shape[d])}, overlap=None)
    return out


def _check_crop(shape, pad):
    """Negative padding crops: torch's narrow() refuses a crop past the dim's size."""
    for d, lo, hi in _pairs(pad, len(shape)):
        if shape[d] + min(lo, 0) < 0 or shape[d] + min(lo, 0) + hi < 0:
            raise RuntimeError("narrow(): length must be non-negative.")


@public("function", signatures=(
    "constant_pad_nd(Tensor input, SymIntArrayRef pad, Scalar value=0)",))
def constant_pad_nd(input, pad, value=0):
    """ATen's constant_pad_nd: pad (negative entries crop), from the last dim back."""
    pad, n = tuple(builtins.int(p) for p in pad), input.dim()
    if len(pad) % 2:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
    if len(pad) > 2 * n:
        raise RuntimeError(f"Length of pad should be no more than twice the number of dimensions "
                           f"of the input. Pad length is {len(pad)}while the input has {n}"
                           "dimensions.")
    _check_crop(input.shape, pad)
    return _constant_pad(input, pad=pad, value=value)


@public("functional")
def pad(input, pad, mode="constant", value=None):
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    pad, n = tuple(builtins.int(p) for p in pad), input.dim()
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) > 2 * n:
        raise RuntimeError(f"Padding length should be less than or equal to two times the input "
                           f"dimension but got padding length {len(pad)} and input of dimension "
                           f"{n}")
    if mode == "constant":
        _check_crop(input.shape, pad)
        return _constant_pad(input, pad=pad, value=0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    k = len(pad) // 2
    if not 1 <= k <= 3 or n not in (k + 1, k + 2):
        raise NotImplementedError(f"Padding size {len(pad)} is not supported for {n}D input "
                                  f"tensor.")
    if mode == "circular":
        return _circular_pad(input, pad)
    if 0 in input.shape[n - k - 1:]:
        raise RuntimeError(f"Expected {k + 1}D or {k + 2}D (batch mode) tensor with possibly 0 "
                           f"batch size and other non-zero dimensions for input, but got: "
                           f"{list(input.shape)}")
    if mode == "reflect":
        for j, (d, lo, hi) in enumerate(_pairs(pad, n)):
            if lo >= input.shape[d] or hi >= input.shape[d]:
                raise RuntimeError(f"Argument #{4 + 2 * j}: Padding size should be less than the "
                                   f"corresponding input dimension, but got: padding ({lo}, "
                                   f"{hi}) at dimension {d} of input {list(input.shape)}")
    return _INDEX_PADS[mode, k](input, padding=pad)


# -- norms and distances ---------------------------------------------------------------------
_add_scalar = defop("AddBackward1", lambda xp, self, other: xp.add(self, other),
                    dtype=lambda values, attrs: dtypes.result_type(values[0], attrs["other"]),
                    grads={"self": lambda grad: grad})


def _norm_dims(input, dim):
    return (_wrap_dim(dim, input.dim()),) if isinstance(dim, builtins.int) else \
        tuple(_wrap_dim(d, input.dim()) for d in dim)


def _vector_norm_of(input, ord, dim, keepdim):
    if not input.is_floating_point():
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {_name(input.dtype)}")
    return _reduce.vector_norm(input, builtins.float(ord), _norm_dims(input, dim), keepdim)


@public("functional")
def normalize(input, p=2.0, dim=1, eps=1e-12):
    denom = clamp_min(_vector_norm_of(input, p, dim, True), eps)
    return input / expand(denom, input.shape)


@public("function", "functional", signatures=(
    "cosine_similarity(Tensor x1, Tensor x2, int64_t dim=1, double eps=1e-08)",))
def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """ATen's: each input divided by its (clamped) norm, then the dot product along dim."""
    common = dtypes.result_type(x1, x2)
    if not common.is_floating_point:
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is "
                           f"{_name(common)}")
    x1 = x1 if x1.is_floating_point() else x1.to(common)
    x2 = x2 if x2.is_floating_point() else x2.to(common)
    if x1.shape != x2.shape:
        shape = broadcast_shapes(x1.shape, x2.shape)
        x1, x2 = expand(x1, shape), expand(x2, shape)
    n1 = _vector_norm_of(x1, 2, dim, True).clone()
    n2 = _vector_norm_of(x2, 2, dim, True).clone()
    with no_grad():
        clamp_(n1, min=eps)
        clamp_(n2, min=eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


@public("function", "functional", signatures=(
    "pairwise_distance(Tensor x1, Tensor x2, double p=2, double eps=1e-06, bool keepdim=False)",))
def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    diff = _add_scalar(x1 - x2, other=eps)
    dim = builtins.max(x1.dim(), x2.dim()) - 1
    return _reduce.norm_p(diff, p=builtins.float(p), dim=_norm_dims(diff, dim), keepdim=keepdim)


def _cdist_forward(xp, x1, x2, p):
    diff = xp.abs(x1[..., :, None, :] - x2[..., None, :, :])
    if p == 0:
        return (diff != 0).sum(-1).astype(x1.dtype)
    if p == 1:
        return diff.sum(-1)
    if p == 2:
        return xp.sqrt((diff * diff).sum(-1))
    if p == math.inf:
        return diff.max(-1, initial=0)
    return (diff ** p).sum(-1) ** (1 / p)


def _cdist_backward_forward(xp, grad_output, x1, x2, cdist, p):
    """The gradient for x1 of sum(grad_output * cdist(x1, x2)), batch dims broadcast."""
    diff = x1[..., :, None, :] - x2[..., None, :, :]
    dist = cdist[..., None]
    with xp.errstate(divide="ignore", invalid="ignore"):
        if p == 0:
            g = xp.zeros_like(diff)
        elif p == 1:
            g = xp.sign(diff)
        elif p < 2:
            g = xp.where((dist == 0) | ((diff == 0) & (p < 1)), 0,
                         xp.sign(diff) * xp.abs(diff) ** (p - 1) / dist ** (p - 1))
        elif p == 2:
            g = xp.where(dist == 0, 0, diff / dist)
        elif p == math.inf:
            g = xp.sign(diff) * (xp.abs(diff) == dist)
        else:
            g = xp.where(dist == 0, 0, diff * xp.abs(diff) ** (p - 2) / dist ** (p - 1))
    return (grad_output[..., None] * g).sum(-2).astype(x1.dtype)


def _no_double_backward(grad):
    raise NotImplementedError("the derivative for '_cdist_backward' is not implemented.")


_cdist_backward = defop("CdistBackwardBackward0", _cdist_backward_forward,
                        ("grad_output", "x1", "x2", "cdist"), dtype="same",
                        grads=dict.fromkeys(("grad_output", "x1", "x2", "cdist"),
                                            _no_double_backward))


def _cdist_jvp(tangents, x1, x2, result, p):
    """The tangent of cdist: each distance's weights on the coordinates of x1_i - x2_j are the
    backward's (_cdist_backward run on every pair (i, j) as a batch of one-row inputs, so its
    conventions at zero distances and ties hold here too), applied to t1_i - t2_j. Backward
    through it reaches the tangents; the primals, as cdist's double backward, refuse."""
    t1, t2 = tangents
    weights = _cdist_backward(ones_like(result)[..., None, None], x1[..., :, None, None, :],
                              x2[..., None, :, None, :], result[..., None, None], p=p)
    dt = t2[..., None, :, :].neg() if t1 is None else t1[..., :, None, :] if t2 is None else \
        t1[..., :, None, :] - t2[..., None, :, :]
    return (weights.squeeze(-2) * dt).sum(-1)


_cdist = defop("CdistBackward0", _cdist_forward, ("x1", "x2"), dtype="same", grads={
    "x1": lambda grad, x1, x2, p, result: _cdist_backward(grad, x1, x2, result, p=p),
    "x2": lambda grad, x1, x2, p, result: _cdist_backward(grad.mT, x2, x1, result.mT, p=p)},
    jvp=_cdist_jvp)


def _euclidean_dist_forward(xp, x1, x2):
    """ATen's matrix-product form: |a|^2 - 2 a.b + |b|^2, clamped at 0, square-rooted."""
    n1 = (x1 * x1).sum(-1, keepdims=True)
    n2 = (x2 * x2).sum(-1, keepdims=True)
    a = xp.concatenate([-2 * x1, n1, xp.ones_like(n1)], -1)
    b = xp.concatenate([x2, xp.ones_like(n2), n2], -1)
    return xp.sqrt(xp.maximum(a @ xp.swapaxes(b, -1, -2), 0))


def _euclidean_ratio(grad, result):
    return where(result == 0, 0.0, grad / result)


_euclidean_dist = defop("EuclideanDistBackward0", _euclidean_dist_forward, ("x1", "x2"),
                        dtype="same", grads={
    "x1": lambda grad, x1, x2, result: (lambda r: x1 * r.sum(-1, keepdim=True) - r.matmul(x2))(
        _euclidean_ratio(grad, result)),
    "x2": lambda grad, x1, x2, result: (lambda r: x2 * r.sum(-2).unsqueeze(-1) -
                                        r.mT.matmul(x1))(_euclidean_ratio(grad, result))})

_CDIST_MODES = {"use_mm_for_euclid_dist_if_necessary": 0, "use_mm_for_euclid_dist": 1,
                "donot_use_mm_for_euclid_dist": 2}


@public("function")
def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    if compute_mode not in _CDIST_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    mode = _CDIST_MODES[compute_mode]
    for name, x in (("X1", x1), ("X2", x2)):
        if x.dim() < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {x.dim()}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: "
                           f"{x1.shape[-1]} X2: {x2.shape[-1]}")
    for name, x in (("X1", x1), ("X2", x2)):
        if not x.is_floating_point():
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: "
                               f"{_name(x.dtype)}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    batch = broadcast_shapes(x1.shape[:-2], x2.shape[:-2])
    (r1, c), r2 = x1.shape[-2:], x2.shape[-2]
    if x1.dtype is not x2.dtype:
        raise RuntimeError(f"expected scalar type {_name(x1.dtype)} but found {_name(x2.dtype)}")
    if x1.numel() and x2.numel() and p == 2 and (mode == 1 or (mode == 0 and
                                                               (r1 > 25 or r2 > 25))):
        nb = math.prod(batch)
        if nb != 1:
            x1 = reshape(expand(x1, (*batch, r1, c)).contiguous(), (nb, r1, c))
            x2 = reshape(expand(x2, (*batch, r2, c)).contiguous(), (nb, r2, c))
        return _euclidean_dist(x1, x2).view(*batch, r1, r2)
    if x1.dtype is dtypes.float16 and x1.numel() and x2.numel():   # torch's kernel has none
        raise NotImplementedError('"cdist" not implemented for \'Half\'')
    return _cdist(x1, x2, p=builtins.float(p))


# -- pdist: the distances of a matrix's row pairs i < j -----------------------------------------
def _pairs_of(n):
    return xp.triu_indices(n, 1)


def _pdist_forward(xp, self, p):
    i, j = _pairs_of(self.shape[0])
    return _cdist_forward(xp, self[i][:, None, :], self[j][:, None, :], p)[:, 0, 0]


def _pdist_backward_forward(xp, grad, self, pdist, p):
    """Each pair's gradient (cdist's backward on the pair) added into row i, subtracted from
    row j."""
    i, j = _pairs_of(self.shape[0])
    g = _cdist_backward_forward(xp, grad[:, None, None], self[i][:, None, :],
                                self[j][:, None, :], pdist[:, None, None], p)[:, 0, :]
    out = xp.zeros_like(self)
    xp.add.at(out, i, g)
    xp.add.at(out, j, -g)
    return out


def _no_pdist_double_backward(grad):
    raise NotImplementedError("the derivative for '_pdist_backward' is not implemented.")


_pdist_backward = defop("PdistBackwardBackward0", _pdist_backward_forward,
                        ("grad", "self", "pdist"), dtype="same",
                        grads=dict.fromkeys(("grad", "self", "pdist"),
                                            _no_pdist_double_backward))
_pdist = defop("PdistBackward0", _pdist_forward, dtype="same", grads={
    "self": lambda grad, self, p, result: _pdist_backward(grad, self, result, p=p)})


@public("function", "functional", signatures=("pdist(Tensor input, double p=2)",))
def pdist(input, p=2):
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if not input.is_floating_point():
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    return _pdist(input.contiguous(), p=builtins.float(p))


# @public objects name themselves (glassgrad.ops.publish)
publish(globals())
