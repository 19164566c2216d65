"""The breadth of torch's API beyond the other ops modules: small pointwise rows (deg2rad,
copysign, gcd, shifts, ...), comparisons of whole tensors (isclose, allclose, equal), set and
counting functions (unique, isin, searchsorted, bincount, histc, histogram), NaN-ignoring
reductions, statistics (cov, corrcoef), constructions (block_diag, cartesian_prod,
combinations, vander, tril_indices, logspace, range) and the window functions; composites are
written with the public ops, so their gradients are those ops'."""
import builtins
import functools
import itertools
import math

from .. import _runtime, dtypes
from .._autograd.grad_mode import no_grad, state
from .._autograd.node import Node, gradient_edge
from .._autograd.provenance import site
from .._formats import contiguous_format
from .._args import bind as _bind
from .._creation import arange, empty, full_like, linspace, ones_like, tensor, zeros
from .._tensor import Size, Tensor, _wrap_dim
from ..backend import kind as _kind, xp
from . import complex as _complex, linalg as _la, pointwise as _pw, reduce as _red, shape as _sh
from .complex import view_as_complex, view_as_real
from . import public, publish
from .registry import _C10_NAMES, apply_inplace, broadcast_shapes as _broadcast_shapes, defop

# the factories' keyword options in torch's signatures
_FACTORY_OPTIONS = ("ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
                    "bool? pin_memory=False, bool? requires_grad=False")

_FMI = ("function", "method", "inplace")
_LN2 = math.log(2.0)


def _wrap(array):
    return Tensor._make(xp.asarray(array))


# -- pointwise rows ------------------------------------------------------------------------------
_deg2rad = defop("deg2rad", lambda xp, self: self * (math.pi / 180),
                 grads={"self": lambda grad: grad * (math.pi / 180)}, dtype="float",
                 variants=_FMI + ("inplace_function",))
_rad2deg = defop("rad2deg", lambda xp, self: self * (180 / math.pi),
                 grads={"self": lambda grad: grad * (180 / math.pi)}, dtype="float",
                 variants=_FMI + ("inplace_function",))


def _logaddexp2_forward(xp, self, other):
    with xp.errstate(all="ignore"):
        return xp.logaddexp2(self, other)


_logaddexp2 = defop("logaddexp2", _logaddexp2_forward, ("self", "other"),
                    dtype=_pw._rule("logaddexp2_cpu", "f"), variants=("function", "method"),
                    grads={"self": lambda grad, self, other: grad / (1 + (other - self).exp2()),
                           "other": lambda grad, self, other: grad / (1 + (self - other).exp2())})


def _copysign_grad(grad, self, result):
    return grad * _pw.where(self == 0, 0.0, result / self)


_copysign = defop("CopysignBackward0", lambda xp, self, other: xp.copysign(self, other), ("self", "other"),
                  dtype="float", grads={"self": _copysign_grad,
                                        "other": lambda grad: _pw.zeros_like(grad)})
_copysign_scalar = defop("CopysignBackward1", lambda xp, self, other: xp.copysign(self, other),
                         dtype=_pw._rule("copysign", "f", to_float=True, attrs=("other",)),
                         grads={"self": _copysign_grad})


@public("function", "method", signatures=(
    "copysign(Tensor input, Tensor other, *, Tensor out=None)",
    "copysign(Tensor input, Scalar other, *, Tensor out=None)"))
def copysign(input, other):
    if isinstance(other, Tensor):
        return _copysign(input, other)
    return _copysign_scalar(input, other=other)


@public("method", method_signatures=("copysign_(Tensor self, Tensor other)",
                                     "copysign_(Tensor self, Scalar other)"))
def copysign_(self, other):
    if isinstance(other, Tensor):
        return apply_inplace(_copysign, self, (self, other), {})
    return apply_inplace(_copysign_scalar, self, (self,), {"other": other})


defop("nextafter", lambda xp, self, other: xp.nextafter(self, other), ("self", "other"),
      dtype=_pw._rule("nextafter_cpu", "f"), variants=_FMI,
      grads={"self": _pw._not_implemented(NotImplementedError,
                                          "the derivative for 'nextafter' is not implemented."),
             "other": _pw._not_implemented(NotImplementedError,
                                           "the derivative for 'nextafter' is not implemented.")})
_heaviside = defop(
    "NotImplemented", lambda xp, self, values: xp.where(
        self == 0, values, (self > 0).astype(self.dtype)).astype(self.dtype),
    ("self", "values"), dtype="same",
    grads=dict.fromkeys(("self", "values"), _pw._not_implemented(
        RuntimeError, "derivative for aten::heaviside is not implemented")))


def _check_heaviside(input, values):
    if input.dtype is not values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")


@public("function", "method", signatures=(
    "heaviside(Tensor input, Tensor values, *, Tensor out=None)",))
def heaviside(input, values):
    _check_heaviside(input, values)
    return _heaviside(input, values)


@public("method", method_signatures=("heaviside_(Tensor self, Tensor values)",))
def heaviside_(self, values):
    _check_heaviside(self, values)
    return apply_inplace(_heaviside, self, (self, values), {})


def _integer_row(name, forward, kernel):
    return defop(name, lambda xp, self, other: forward(xp, self, other), ("self", "other"),
                 dtype=_pw._rule(kernel, "iu"), variants=_FMI + ("inplace_function",))


_integer_row("gcd", lambda xp, a, b: xp.gcd(a, b), "gcd_cpu")
_integer_row("lcm", lambda xp, a, b: xp.lcm(a, b), "lcm_cpu")


def _shift(left):
    def forward(xp, self, other):
        bits = self.dtype.itemsize * 8
        big = (other < 0) | (other >= bits)
        safe = xp.where(big, 0, other).astype(self.dtype)
        if left:
            return xp.where(big, 0, xp.left_shift(self, safe)).astype(self.dtype)
        fill = xp.where(self < 0, -1, 0) if self.dtype.kind == "i" else 0
        return xp.where(big, fill, xp.right_shift(self, safe)).astype(self.dtype)
    return forward


_SHIFTS = {"bitwise_left_shift": defop("BitwiseLeftShiftBackward0", _shift(True),
                                       ("self", "other"), dtype=_pw._rule("lshift_cpu", "iu")),
           "bitwise_right_shift": defop("BitwiseRightShiftBackward0", _shift(False),
                                        ("self", "other"), dtype=_pw._rule("rshift_cpu", "iu"))}


def _shift_public(name, row):
    public("function", name=name, signatures=(
        f"{name}(Tensor input, Tensor other, *, Tensor out=None)",
        f"{name}(Scalar self, Tensor other)",
        f"{name}(Tensor input, Scalar other, *, Tensor out=None)"))(
        lambda input, other: row(input, other))
    public("method", name=name, method_signatures=(
        f"{name}(Tensor self, Tensor other)", f"{name}(Tensor self, Scalar other)"))(
        lambda self, other: row(self, other))
    public("method", name=name + "_", method_signatures=(
        f"{name}_(Tensor self, Tensor other)", f"{name}_(Tensor self, Scalar other)"))(
        lambda self, other: apply_inplace(row, self, (self, other), {}))


for _name, _row in _SHIFTS.items():
    _shift_public(_name, _row)
del _name, _row


def _ldexp_grad_other(grad, self, result):
    return grad * result * _LN2


_ldexp = defop("ldexp", lambda xp, self, other: self * xp.exp2(other), ("self", "other"),
               dtype="float", variants=_FMI + ("inplace_function",),
               grads={"self": lambda grad, other: grad * other.exp2(),
                      "other": _ldexp_grad_other})


def _frexp_forward(xp, self):
    mantissa, exponent = xp.frexp(self)
    return mantissa, exponent.astype(xp.int32)


_frexp = defop("FrexpBackward0", _frexp_forward, dtype=_pw._rule("frexp_cpu", "f"),
               outputs=("mantissa", "exponent"),
               grads={"self": lambda grad, exponent: grad / exponent.exp2()})

@public("function", "method", signatures=("frexp(Tensor input, *, TensorList[2] out=None)",))
def frexp(input):
    if not input.dtype.is_floating_point:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    return _red._return_type("frexp", ("mantissa", "exponent"))(*_frexp(input))


def _float_test(name, f):
    op = defop(name, lambda xp, a: f(xp, a), dtype="bool")
    return lambda input: op(input)


isposinf = public("function", "method", name="isposinf", signatures=(
    "isposinf(Tensor input, *, Tensor out=None)",))(_float_test(
        "isposinf", lambda xp, a: a == xp.inf if _kind(a.dtype) == "f" else xp.zeros(a.shape, bool)))
isneginf = public("function", "method", name="isneginf", signatures=(
    "isneginf(Tensor input, *, Tensor out=None)",))(_float_test(
        "isneginf", lambda xp, a: a == -xp.inf if _kind(a.dtype) == "f" else
        xp.zeros(a.shape, bool)))
signbit = public("function", "method", name="signbit", signatures=(
    "signbit(Tensor input, *, Tensor out=None)",))(_float_test(
        "signbit", lambda xp, a: xp.signbit(a) if _kind(a.dtype) in "fi" else
        xp.zeros(a.shape, bool)))


@public("function", "method", signatures=("isreal(Tensor input)",))
def isreal(input):
    return input.imag == 0 if input.dtype.is_complex else ones_like(input, dtype=dtypes.bool)


@public("function", "method", signatures=("positive(Tensor input)",))
def positive(input):
    if input.dtype is dtypes.bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


@public("function", "method", signatures=("is_nonzero(Tensor input)",))
def is_nonzero(input):
    n = input.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return builtins.bool(input.item())


@public("function", "method", signatures=("is_same_size(Tensor input, Tensor other)",))
def is_same_size(input, other):
    return input.shape == other.shape


@public("function", "method", signatures=("is_signed(Tensor input)",))
def is_signed(input):
    return input.dtype.is_signed


# -- comparisons of whole tensors -------------------------------------------------------------
def _isclose_arrays(input, other, rtol, atol, equal_nan):
    if input.dtype is not other.dtype:
        raise RuntimeError(f"{dtypes.SCALAR_NAMES[input.dtype.name]} did not match "
                           f"{dtypes.SCALAR_NAMES[other.dtype.name]}")
    if equal_nan and input.dtype.is_complex:
        raise RuntimeError("isclose with equal_nan=True is not supported for complex inputs.")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol:g}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol:g}")
    a, b = input._data, other._data
    if a.dtype == xp.bool_:
        a, b = a.astype(xp.int8), b.astype(xp.int8)
    close = a == b
    if equal_nan:
        close = close | (xp.isnan(a) & xp.isnan(b)) if _kind(a.dtype) in "fc" else close
    if _kind(a.dtype) in "fc":
        with xp.errstate(all="ignore"):
            finite = xp.isfinite(a) & xp.isfinite(b)
            close = close | (finite & (xp.abs(a - b) <= atol + rtol * xp.abs(b)))
    else:
        diff = xp.abs(a.astype(xp.float64) - b.astype(xp.float64))
        close = close | (diff <= atol + rtol * xp.abs(b.astype(xp.float64)))
    return close


@public("function", "method", signatures=(
    "isclose(Tensor input, Tensor other, double rtol=1e-05, double atol=1e-08, "
    "bool equal_nan=False)",))
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return _wrap(_isclose_arrays(input, other, rtol, atol, equal_nan))


@public("function", "method", signatures=(
    "allclose(Tensor input, Tensor other, double rtol=1e-05, double atol=1e-08, "
    "bool equal_nan=False)",))
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    _broadcast_shapes(input.shape, other.shape)
    return builtins.bool(_isclose_arrays(input, other, rtol, atol, equal_nan).all())


@public("function", "method", signatures=("equal(Tensor input, Tensor other)",))
def equal(input, other):
    if input.shape != other.shape:
        return False
    want = dtypes.promote_types(input.dtype, other.dtype).np
    return builtins.bool(xp.array_equal(input._data.astype(want), other._data.astype(want)))


# -- sets, counts, searches ------------------------------------------------------------------
def _unique(input, return_inverse, return_counts, dim, consecutive):
    a = input._data
    if dim is None:
        flat = a.reshape(-1)
        if consecutive:
            keep = xp.ones(flat.shape, bool)
            keep[1:] = flat[1:] != flat[:-1]
            values = flat[keep]
            inverse = (xp.cumsum(keep) - 1).reshape(a.shape)
            counts = xp.diff(xp.append(xp.flatnonzero(keep), flat.size))
        else:
            values, inverse, counts = xp.unique(flat, return_inverse=True, return_counts=True)
            inverse = inverse.reshape(a.shape)
    else:
        dim = _wrap_dim(dim, a.ndim)
        moved = xp.moveaxis(a, dim, 0).reshape(a.shape[dim], -1)
        if consecutive:
            keep = xp.ones(moved.shape[0], bool)
            keep[1:] = (moved[1:] != moved[:-1]).any(1)
            rows = moved[keep]
            inverse = xp.cumsum(keep) - 1
            counts = xp.diff(xp.append(xp.flatnonzero(keep), moved.shape[0]))
        else:
            rows, inverse, counts = xp.unique(moved, axis=0, return_inverse=True,
                                              return_counts=True)
            inverse = inverse.reshape(-1)
        rest = xp.moveaxis(a, dim, 0).shape[1:]
        values = xp.moveaxis(rows.reshape((rows.shape[0],) + rest), 0, dim)
    out = [_wrap(xp.ascontiguousarray(values).astype(a.dtype))]
    if return_inverse:
        out.append(_wrap(inverse.astype(xp.int64)))
    if return_counts:
        out.append(_wrap(counts.astype(xp.int64)))
    return out[0] if len(out) == 1 else tuple(out)


@public("function", "method")
def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """Sorted whatever ``sorted`` says (torch's CPU kernel sorts too)."""
    return _unique(input, return_inverse, return_counts, dim, consecutive=False)


def _consecutive_return_inverse_and_counts(input, return_inverse=False, return_counts=False,
                                           dim=None):
    """torch.unique_consecutive (torch's Python function is named so in its errors)."""
    return _unique(input, return_inverse, return_counts, dim, consecutive=True)


unique_consecutive = public("function", name="unique_consecutive")(
    _consecutive_return_inverse_and_counts)


@public("method", name="unique_consecutive")
def _unique_consecutive_method(self, return_inverse=False, return_counts=False, dim=None):
    return _unique(self, return_inverse, return_counts, dim, consecutive=True)


_unique_consecutive_method.__qualname__ = "Tensor.unique_consecutive"


def _array(v):
    return v._data if isinstance(v, Tensor) else xp.asarray(v)


@public("function", signatures=(
    "isin(Tensor elements, Tensor test_elements, *, bool assume_unique=False, "
    "bool invert=False, Tensor out=None)",
    "isin(Scalar element, Tensor test_elements, *, bool assume_unique=False, "
    "bool invert=False, Tensor out=None)",
    "isin(Tensor elements, Scalar test_element, *, bool assume_unique=False, "
    "bool invert=False, Tensor out=None)"))
def isin(elements, test_elements, *, assume_unique=False, invert=False):
    return _wrap(xp.isin(_array(elements), _array(test_elements), invert=invert))


def _search(seq, values, right, out_int32, sorter=None):
    if sorter is not None:
        seq = xp.take_along_axis(seq, sorter, -1)
    if seq.ndim <= 1:
        out = xp.searchsorted(seq, values, side="right" if right else "left")
    else:   # count per row the boundaries below each value (vectorised over rows)
        below = seq[..., None, :] <= values[..., :, None] if right else \
            seq[..., None, :] < values[..., :, None]
        out = below.sum(-1)
    return _wrap(xp.asarray(out, dtype=xp.int32 if out_int32 else xp.int64))


@public("function", signatures=(
    "searchsorted(Tensor sorted_sequence, Tensor input, *, bool out_int32=False, "
    "bool right=False, c10::string_view? side=None, Tensor? sorter=None, Tensor out=None)",
    "searchsorted(Tensor sorted_sequence, Scalar self, *, bool out_int32=False, "
    "bool right=False, c10::string_view? side=None, Tensor? sorter=None, Tensor out=None)"))
def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
                 sorter=None):
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but "
                               f"got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, "
                               "got side of left while right was True")
        right = side == "right"
    seq = sorted_sequence._data
    scalar = not isinstance(input, Tensor)
    values = _array(input)
    if seq.ndim > 1 and not scalar and seq.shape[:-1] != values.shape[:-1]:
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
            "dimensions of boundaries tensor and input value tensor must match, but we got "
            f"boundaries tensor {list(seq.shape)} and input value tensor "
            f"{list(values.shape)}")
    return _search(seq, values, right, out_int32,
                   None if sorter is None else sorter._data)


@public("function", signatures=(
    "bucketize(Tensor input, Tensor boundaries, *, bool out_int32=False, bool right=False, "
    "Tensor out=None)",
    "bucketize(Scalar self, Tensor boundaries, *, bool out_int32=False, bool right=False)"))
def bucketize(input, boundaries, *, out_int32=False, right=False):
    if boundaries.dim() != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim("
                           f"{boundaries.dim()})")
    return _search(boundaries._data, _array(input), right, out_int32)


@public("function", "method", signatures=(
    "bincount(Tensor input, Tensor? weights=None, SymInt minlength=0)",))
def bincount(input, weights=None, minlength=0):
    a = input._data
    if a.ndim != 1 or a.dtype.kind not in "iu":
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if a.size and a.min() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is None:
        return _wrap(xp.bincount(a, minlength=minlength).astype(xp.int64))
    if weights.shape != input.shape:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    w = weights._data
    out = xp.bincount(a, weights=w.astype(xp.float64), minlength=minlength)
    return _wrap(out.astype(xp.float32 if w.dtype == xp.float32 else xp.float64))


@public("function", "method", signatures=(
    "histc(Tensor input, int64_t bins=100, Scalar min=0, Scalar max=0, *, Tensor out=None)",))
def histc(input, bins=100, min=0, max=0):
    a = input._data
    if _kind(a.dtype) != "f":
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for "
                                  f"'{dtypes.SCALAR_NAMES[input.dtype.name]}'")
    if bins <= 0:
        raise RuntimeError(f"torch.histc(): bins must be > 0, but got {bins} for dimension 0")
    lo, hi = a.dtype.type(min), a.dtype.type(max)
    if lo == hi and a.size:
        lo, hi = a.min(), a.max()
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError(f"torch.histc(): max must be larger than min, but got min {min} "
                           f"max {max}")
    inside = a[(a >= lo) & (a <= hi)]
    pos = ((inside - lo) * a.dtype.type(bins) / (hi - lo)).astype(xp.int64)
    pos = xp.minimum(pos, bins - 1)
    return _wrap(xp.bincount(pos, minlength=bins).astype(a.dtype))


@public("function", "method", signatures=(
    "histogram(Tensor input, Tensor bins, *, Tensor? weight=None, bool density=False, "
    "TensorList[2] out=None)",
    "histogram(Tensor input, int64_t bins=100, *, ArrayRef<double>? range=None, "
    "Tensor? weight=None, bool density=False, TensorList[2] out=None)"))
def histogram(input, bins=100, *, range=None, weight=None, density=False):
    a = input._data
    edges = bins._data if isinstance(bins, Tensor) else bins
    w = None if weight is None else weight._data
    if isinstance(bins, Tensor) and edges.size > 1 and (xp.diff(edges) < 0).any():
        hist = _unordered_bins_histogram(a, edges, w, density)
    else:
        hist, edges = xp.histogram(a, edges, range=range, weights=w, density=density)
    cls = _red._return_type("histogram", ("hist", "bin_edges"))
    return cls(_wrap(hist.astype(a.dtype)), _wrap(xp.asarray(edges, dtype=a.dtype)))


def _unordered_bins_histogram(a, edges, weight, density):
    """torch's histogram kernel for bin edges that do not increase (NumPy refuses them): an
    element between the first and the last edge goes to std::upper_bound(edges, x) - 1 (the
    last edge's bin for the last edge itself); the others are not counted."""
    x, n = a.ravel(), edges.size
    counted = (x >= edges[0]) & (x <= edges[-1])
    pos = xp.minimum(_upper_bound(x, edges) - 1, n - 2)
    w = None if weight is None else weight.ravel()[counted]
    hist = xp.bincount(pos[counted], weights=w, minlength=n - 1).astype(a.dtype)
    if density:
        hist = hist / (hist.sum() * xp.diff(edges))
    return hist


_HISTOGRAMDD_REST = ("ArrayRef<double>? range=None, Tensor? weight=None, "
                     "bool density=False)")


@public("function")
def histogramdd(input, bins, *args, **kwargs):
    """torch.histogramdd through torch's overloads: a list of tensors takes the TensorList one
    (the argument layer, given torch's order, would read its tensors as ints and raise)."""
    tensors = isinstance(bins, (list, tuple)) and bins and isinstance(bins[0], Tensor)
    return (_histogramdd_tensors if tensors else _histogramdd_counts)(input, bins, *args,
                                                                       **kwargs)


def _histogramdd(input, bins, range=None, weight=None, density=False):
    """The histogram of the points in input's innermost dim (torch.return_types.histogramdd:
    hist, bin_edges)."""
    if input.dim() < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    if not input.is_floating_point():
        raise NotImplementedError(f'"histogramdd" not implemented for '
                                  f"'{dtypes.SCALAR_NAMES[input.dtype.name]}'")
    d = input.shape[-1]
    points = input._data.reshape(-1, d)
    edges = _histogramdd_edges(input, points, bins, range)
    if weight is not None and tuple(weight.shape) != tuple(input.shape[:-1]):
        raise RuntimeError(f"torch.histogramdd: if weight tensor is provided it should have the "
                           f"same shape as the input tensor excluding its innermost dimension, "
                           f"but got input with shape {list(input.shape)} and weight with shape "
                           f"{list(weight.shape)}")
    counted = xp.ones(len(points), bool)
    position = xp.zeros(len(points), xp.int64)
    for k, e in enumerate(edges):
        x, n = points[:, k], len(e) - 1
        counted &= (x >= e[0]) & (x <= e[-1])
        if n > 0 and (xp.diff(e) < 0).any():
            idx = _upper_bound(x, e) - 1
        else:
            idx = xp.searchsorted(e, x, side="right") - 1
        position = position * builtins.max(n, 1) + xp.clip(idx, 0, builtins.max(n - 1, 0))
    shape = tuple(builtins.max(len(e) - 1, 0) for e in edges)
    w = None if weight is None else weight._data.reshape(-1)[counted]
    hist = xp.bincount(position[counted], weights=w, minlength=math.prod(shape))
    hist = hist[:math.prod(shape)].reshape(shape).astype(input._data.dtype)
    if density:
        widths = [xp.diff(e) for e in edges]
        volume = functools.reduce(xp.multiply.outer, widths) if widths else 1
        hist = (hist / (hist.sum() * volume)).astype(input._data.dtype)
    cls = _red._return_type("histogramdd", ("hist", "bin_edges"))
    return cls(_wrap(hist), tuple(_wrap(e) for e in edges))


_histogramdd_counts = _bind(_histogramdd, [
    "histogramdd(Tensor input, int64_t bins, " + _HISTOGRAMDD_REST,
    "histogramdd(Tensor input, IntArrayRef bins, " + _HISTOGRAMDD_REST])
_histogramdd_tensors = _bind(_histogramdd, [
    "histogramdd(Tensor input, TensorList bins, " + _HISTOGRAMDD_REST])


def _upper_bound(x, edges):
    """std::upper_bound(edges, x) for every element (edges in any order: the probes of a
    binary search, replayed at once)."""
    n = edges.size
    first, length = xp.zeros(x.shape, xp.int64), xp.full(x.shape, n, xp.int64)
    while length.any():
        half = length // 2
        mid = xp.minimum(first + half, n - 1)
        right = (length > 0) & ~(x < edges[mid])
        first = xp.where(right, first + half + 1, first)
        length = xp.where(right, length - half - 1, xp.where(length > 0, half, 0))
    return first


def _histogramdd_edges(input, points, bins, range):
    """Each dim's bin edges: the tensors given, or bins + 1 evenly spaced over the range (the
    data's, widened by 0.5 each side where it is one point)."""
    d, dtype = points.shape[1], input._data.dtype
    counts = bins if isinstance(bins, (list, tuple)) else [bins] * d
    if len(counts) != d:
        raise RuntimeError("histogramdd: The size of bins must be equal to the innermost "
                           "dimension of the input.")
    if isinstance(counts[0], Tensor):
        return [b._data.astype(dtype) for b in counts]
    if range is not None and len(range) != 2 * d:
        raise RuntimeError(f"torch.histogramdd: for a {d}-dimensional histogram range should "
                           f"have {2 * d} elements, but got {len(range)}")
    edges = []
    for k, n in enumerate(counts):
        if n <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {n} for dimension "
                               f"{k}")
        if range is not None:
            lo, hi = range[2 * k], range[2 * k + 1]
        elif len(points):
            lo, hi = points[:, k].min().item(), points[:, k].max().item()
        else:
            lo, hi = 0.0, 1.0
        if lo > hi:
            raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min "
                               f"{_number(lo)} max {_number(hi)} for dimension {k}")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges.append(linspace(lo, hi, n + 1, dtype=input.dtype)._data)
    return edges


def _number(v):
    return f"{v:g}"


# -- NaN-ignoring reductions ---------------------------------------------------------------------
def _no_nan(input):
    return _pw.where(input.isnan(), 0, input) if input.dtype.is_floating_point else input


def _nansum_forward(xp, self, dim, keepdim, dtype):
    if self.dtype.kind in "fc":
        self = xp.where(xp.isnan(self), 0, self)
    return _red._sum_forward(xp, self, dim, keepdim, dtype)


def _nansum_grad(grad, self, dim, keepdim):
    grad = _red._sum_backward(grad, tuple(self.shape), dim, keepdim)
    return _pw.where(self.isnan(), 0, grad)


_nansum = defop("NansumBackward0", _nansum_forward, dtype=_red._result_dtype,
                grads={"self": _nansum_grad})


@public("function", "method", signatures=(
    "nansum(Tensor input, IntArrayRef[1]? dim=None, bool keepdim=False, *, "
    "ScalarType? dtype=None, Tensor out=None)",))
def nansum(input, dim=None, keepdim=False, *, dtype=None):
    dims = _red._dims(() if dim is None else dim, input.dim())     # (none given: all)
    return _nansum(input, dim=dims, keepdim=keepdim, dtype=dtype)


@public("function", "method", signatures=(
    "nanmean(Tensor input, IntArrayRef[1]? dim=None, bool keepdim=False, *, "
    "ScalarType? dtype=None, Tensor out=None)",))
def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    if not input.dtype.is_floating_point and dtype is None:
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex "
                           f"dtype but got {dtypes.SCALAR_NAMES[input.dtype.name]}")
    count = (~input.isnan()).sum(dim, keepdim)
    return nansum(input, dim, keepdim, dtype=dtype) / count


_QUANTILE_SIGNATURES = tuple(
    f"{{name}}(Tensor input, {q} q, int64_t? dim=None, bool keepdim=False, *, "
    f"c10::string_view interpolation=\"linear\", Tensor out=None)" for q in ("Tensor", "double"))
_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(input, q, dim, keepdim, interpolation, ignore_nan):
    """ATen's quantile in its order of ops (so the graph and its grad_fn names are torch's):
    sort along the dim (moved last), ranks q * (n - 1) (a row with NaN: the last; nanquantile:
    of the non-NaN count), the values at the ranks below and above, lerp between them."""
    if not isinstance(q, Tensor):
        if not 0 <= q <= 1:
            raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {q}")
        q = tensor(q, dtype=input.dtype)
    d = 0 if dim is None else _wrap_dim(dim, input.dim())
    if input.numel() == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    if q.dim() > 1:
        raise RuntimeError("quantile() q must be a scalar or 1D tensor")
    if input.dtype not in (dtypes.float32, dtypes.float64):
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if q.dtype is not input.dtype:
        raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"quantile() interpolation must be one of linear, lower, higher, "
                           f"midpoint or nearest, but got {interpolation}")
    shape = list(input.shape)
    if dim is not None and input.dim() > 0:
        shape[d:d + 1] = [1] if keepdim else []
    else:
        shape = [1] * input.dim() if keepdim else []
    if not bool(((q >= 0) & (q <= 1)).all()):
        raise RuntimeError("quantile() q values must be in the range [0, 1]")
    if dim is None:
        ordered = _red.sort(input.flatten())[0]
    elif d == input.dim() - 1:
        ordered = _red.sort(input)[0]
    else:
        ordered = _red.sort(input.unsqueeze(-1).transpose(d, -1))[0]
    ordered = ordered.view(shape + [ordered.shape[-1]])
    if ignore_nan:
        ranks = q * ((~ordered.isnan()).sum(-1, True) - 1)
        ranks.masked_fill_(ranks < 0, 0)
    else:
        last = ordered.shape[-1] - 1
        ranks, has_nan = _sh.broadcast_tensors(q * last, ordered.isnan().any(-1, True))
        ranks = ranks.masked_fill(has_nan, last)
    if interpolation in ("lower", "higher", "nearest"):
        {"lower": ranks.floor_, "higher": ranks.ceil_, "nearest": ranks.round_}[interpolation]()
    below = ranks.long()
    values = ordered.gather(-1, below)
    if interpolation in ("linear", "midpoint"):
        weights = full_like(ranks, 0.5) if interpolation == "midpoint" else ranks - below
        values = values.lerp(ordered.gather(-1, ranks.ceil_().long()), weights)
    if q.dim() == 0:
        return values.squeeze_(-1)
    return values.unsqueeze_(0).transpose_(0, -1).squeeze_(-1)


@public("function", "method", signatures=tuple(s.format(name="quantile")
                                                for s in _QUANTILE_SIGNATURES))
def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    return _quantile(input, q, dim, keepdim, interpolation, ignore_nan=False)


@public("function", "method", signatures=tuple(s.format(name="nanquantile")
                                                for s in _QUANTILE_SIGNATURES))
def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    return _quantile(input, q, dim, keepdim, interpolation, ignore_nan=True)


def _logcumsumexp_forward(xp, self, dim):
    if self.ndim == 0 or self.size == 0:
        return self.copy()
    with xp.errstate(all="ignore"):
        return xp.logaddexp.accumulate(self, axis=dim)


def _logcumsumexp_grad(grad, self, result, dim):
    """torch's logcumsumexp_backward: the positive and negative parts of grad, each a
    reversed logcumsumexp in log space (TensorFlow's formula)."""
    if grad.dim() == 0 or grad.numel() == 0:
        return grad
    lowest = float(xp.finfo(grad.dtype.np).min)
    log_abs = grad.abs().log()

    def part(mask):
        logs = _pw.where(mask, log_abs, lowest) - result
        return (logcumsumexp(logs.flip(dim), dim).flip(dim) + self).exp()
    return part(grad > 0) - part(grad < 0)


def _logcumsumexp_jvp(tangents, self, result, dim):
    """torch's logcumsumexp_jvp: the cumulative softmax-weighted tangent."""
    (tangent,) = tangents
    weights = (self - self.amax(dim, keepdim=True)).exp()
    total = weights.cumsum(dim)
    return _pw.where(total < 1e-13, 0.0, (weights * tangent).cumsum(dim)) / total


_logcumsumexp = defop("LogcumsumexpBackward0", _logcumsumexp_forward, dtype="same",
                      grads={"self": _logcumsumexp_grad}, jvp=_logcumsumexp_jvp)


@public("function", "method", signatures=(
    "logcumsumexp(Tensor input, int64_t dim, *, Tensor out=None)",))
def logcumsumexp(input, dim):
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"logcumsumexp_out_cpu" not implemented for '
                                  f"'{dtypes.SCALAR_NAMES[input.dtype.name]}'")
    return _logcumsumexp(input, dim=_wrap_dim(dim, builtins.max(input.dim(), 1)))


def _dist_grad(sign):
    def formula(grad, self, other, p, result):
        g = _red._vector_norm_backward(grad, self - other, p, result, None, False)
        return g if g is None or sign > 0 else -g
    return formula


_dist = defop("DistBackward0", lambda xp, self, other, p: _red._vector_norm_forward(
    xp, self - other, p, None, False, None), ("self", "other"),
    grads={"self": _dist_grad(1), "other": _dist_grad(-1)})


@public("function", "method", signatures=("dist(Tensor input, Tensor other, Scalar p=2)",))
def dist(input, other, p=2):
    dtype = dtypes.result_type(input, other)
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError("norm(): input dtype should be either floating point or complex. "
                           f"Got {dtypes.SCALAR_NAMES[dtype.name]} instead.")
    return _dist(input, other, p=p)


def _renorm_forward(xp, self, p, dim, maxnorm):
    others = tuple(d for d in builtins.range(self.ndim) if d != dim)
    norm = _red._vector_norm_forward(xp, self, p, others, True, None)
    factor = xp.where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0)
    return (self * factor).astype(self.dtype)


def _renorm_grad(grad, self, p, dim, maxnorm):
    """torch's renorm_backward: where a slice was scaled, the scale's own derivative too."""
    others = tuple(d for d in builtins.range(self.dim()) if d != dim)
    norm = _red.vector_norm(self, p, others, keepdim=True)
    nb = _red._vector_norm_backward((self * grad).sum(others, keepdim=True), self, p, norm,
                                    others, True)
    factor = (norm + 1e-7).reciprocal() * maxnorm
    return _pw.where(norm > maxnorm, factor * grad - factor * (norm + 1e-7).reciprocal() * nb,
                     grad)


_renorm = defop("RenormBackward0", _renorm_forward, dtype="same", grads={"self": _renorm_grad})


@public("function", "method", signatures=(
    "renorm(Tensor input, Scalar p, int64_t dim, Scalar maxnorm, *, Tensor out=None)",))
def renorm(input, p, dim, maxnorm):
    _renorm_checks(input, p, maxnorm)
    return _renorm(input, p=p, dim=_wrap_dim(dim, input.dim()), maxnorm=maxnorm)


def _renorm_checks(input, p, maxnorm):
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm:g}")
    if input.dim() <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.dim()} "
                           "dimensions")


@public("method", method_signatures=(
    "renorm_(Tensor self, Scalar p, int64_t dim, Scalar maxnorm)",))
def renorm_(input, p, dim, maxnorm):
    _renorm_checks(input, p, maxnorm)
    return apply_inplace(_renorm, input, (input,), {"p": p, "dim": _wrap_dim(dim, input.dim()),
                                                    "maxnorm": maxnorm})


# -- statistics --------------------------------------------------------------------------------
def _c10(d):
    return _C10_NAMES[d.name]


def _check_weights(w, kind, n):
    """ATen's checks of cov's fweights (integral counts) or aweights (float weights)."""
    if w.dim() > 1:
        raise RuntimeError(f"cov(): expected {kind} to have one or fewer dimensions but got "
                           f"{kind} with {w.dim()} dimensions")
    integral = kind == "fweights"
    if (w.dtype.is_floating_point or w.dtype.is_complex or w.dtype is dtypes.bool) == integral:
        what = "integral" if integral else "floating point"
        raise RuntimeError(f"cov(): expected {kind} to have {what} dtype but got {kind} with "
                           f"{_c10(w.dtype)} dtype")
    if w.numel() != n:
        raise RuntimeError(f"cov(): expected {kind} to have the same numel as there are "
                           f"observations in the input but got {w.numel()} != {n}")
    if n and not builtins.bool(w.min() >= 0):
        raise RuntimeError(f"cov(): {kind} cannot be negative")


@public("function", "method", signatures=(
    "cov(Tensor input, *, int64_t correction=1, Tensor? fweights=None, Tensor? aweights=None)",))
def cov(input, *, correction=1, fweights=None, aweights=None):
    """ATen's composite: the weighted mean removed, x w x^H over the normalisation factor."""
    if input.dim() > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an "
                           f"input with {input.dim()} dimensions")
    if input.dtype is dtypes.bool:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = input if input.dim() == 2 else input.view(1, -1)
    n = x.shape[1]
    w = None
    if fweights is not None:
        _check_weights(fweights, "fweights", n)
        w = fweights
    if aweights is not None:
        _check_weights(aweights, "aweights", n)
        w = aweights if w is None else w * aweights
    wsum = tensor(n, dtype=dtypes.int64) if w is None else w.sum()
    if w is not None and not builtins.bool(wsum != 0):
        raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    avg = (x if w is None else x * w).sum(1) / wsum
    if w is None:
        norm = tensor(n - correction, dtype=dtypes.int64)
    elif correction == 0:
        norm = wsum
    elif aweights is None:
        norm = wsum - correction
    elif fweights is None and n == 1 and correction == 1:
        norm = tensor(0, dtype=dtypes.int64)
    else:
        norm = wsum - _pw.mul_scalar((w * aweights).sum(), other=correction) / wsum
    if builtins.bool(norm <= 0):
        _runtime.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the number of observations. (Triggered internally at "
                      "/__w/pytorch/pytorch/aten/src/ATen/native/Correlation.cpp:129.)")
        norm.zero_()
    if n == 1 and (fweights is None) != (aweights is None):
        x.zero_()       # (torch writes the zeros into the input itself)
        if not (x.dtype.is_floating_point or x.dtype.is_complex):
            x = x.to(dtypes.float32)
    else:
        x = x - avg.unsqueeze(1)
    c = _la.mm(x, (x if w is None else x * w).t().conj())
    return (c / norm).squeeze()


@public("function", "method", signatures=("corrcoef(Tensor input)",))
def corrcoef(input):
    if input.dim() > 2:
        raise RuntimeError(f"corrcoef(): expected input to have two or fewer dimensions but got "
                           f"an input with {input.dim()} dimensions")
    c = cov(input)
    if c.dim() == 0:
        return c / c
    d = c.diagonal()
    stddev = (d.real if d.dtype.is_complex else d).sqrt()
    c = c / stddev.view(-1, 1)
    c = c / stddev.view(1, -1)
    if c.dtype.is_complex:
        return _complex.complex(c.real.clip(-1, 1), c.imag.clip(-1, 1))
    return c.clip(-1, 1)


# -- constructions -------------------------------------------------------------------------------
@public("function")
def cartesian_prod(*tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if len(tensors) == 1:
        return tensors[0]
    grids = _sh.meshgrid(*tensors, indexing="ij")
    return _sh.stack([g.reshape(-1) for g in grids], 1)


@public("function", signatures=(
    "combinations(Tensor input, int64_t r=2, bool with_replacement=False)",))
def combinations(input, r=2, with_replacement=False):
    """ATen's composite: r meshgrid copies of input, each masked to the index tuples in
    increasing (with_replacement: non-decreasing) order, stacked."""
    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return empty(0, dtype=input.dtype)
    grids = _sh.meshgrid(*([input] * r), indexing="ij")
    index = xp.indices((input.shape[0],) * r)
    ordered = index[:-1] <= index[1:] if with_replacement else index[:-1] < index[1:]
    mask = tensor(ordered.all(0) if r > 1 else xp.ones(index.shape[1:], bool))
    return _sh.stack([g.masked_select(mask) for g in grids], 1)


def _as_block(shape):
    """A block_diag input's (rows, columns): a 0-d tensor is 1 x 1, a vector one row."""
    return tuple(shape) if len(shape) == 2 else (1, math.prod(shape))


def _block_diag_forward(xp, *tensors):
    blocks = [_as_block(t.shape) for t in tensors]
    out = xp.zeros((builtins.sum(h for h, _ in blocks), builtins.sum(w for _, w in blocks)),
                   dtype=tensors[0].dtype)
    row = col = 0
    for t, (h, w) in zip(tensors, blocks):
        out[row:row + h, col:col + w] = t.reshape(h, w)
        row, col = row + h, col + w
    return out


def _block_diag_grad(grad, tensors_args_sizes):
    out, row, col = [], 0, 0
    for size in tensors_args_sizes:
        h, w = _as_block(size)
        out.append(grad[row:row + h, col:col + w].reshape(size))
        row, col = row + h, col + w
    return out


_block_diag = defop("BlockDiagBackward0", _block_diag_forward, inputs=("*tensors",),
                    grads={"tensors": _block_diag_grad})


@public("function")
def block_diag(*tensors):
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer "
                               f"dimensions. Input {i} has {t.dim()} dimensions")
    if not tensors:
        return empty(1, 0)
    return _block_diag(*tensors)


@public("function", "method", signatures=("diagflat(Tensor input, int64_t offset=0)",))
def diagflat(input, offset=0):
    return _la.diag(input.reshape(-1), offset)


def _spacing(y, x, dim, fn):
    """ATen's: x's differences along dim, x viewed to broadcast against y's slices."""
    if x.dtype is dtypes.bool or y.dtype is dtypes.bool:
        raise RuntimeError(f"{fn}: received a bool input for `x` or `y`, but bool is not "
                           "supported")
    if x.dim() == 1:
        if x.shape[0] != y.shape[dim]:
            raise RuntimeError(f"{fn}: There must be one `x` value for each sample point")
        x = x.view([x.shape[0] if d == dim else 1 for d in builtins.range(y.dim())])
    elif x.dim() < y.dim():
        x = x.view([1] * (y.dim() - x.dim()) + list(x.shape))
    left, right = _ends(x, dim)
    return right - left


def _scalar_dx(y, dx, fn):
    if y.dtype is dtypes.bool:
        raise RuntimeError(f"{fn}: received a bool input for `y`, but bool is not supported")
    if isinstance(dx, (builtins.bool, builtins.complex)):
        raise RuntimeError(f"{fn}: Currently, we only support dx as a real number.")
    return builtins.float(dx)


def _ends(y, dim):
    """y without its last and without its first sample along dim (ATen's slices)."""
    n = builtins.max(y.shape[dim] - 1, 0)
    return _sh.narrow(y, dim, 0, n), _sh.narrow(y, dim, builtins.min(1, y.shape[dim]), n)


def _trapezoid(y, x, dx, dim):
    """ATen's trapezoid: sum((y_i + y_i+1) dx_i) / 2, or for a constant dx
    (sum(y) - (y_0 + y_n) / 2) dx; no samples integrate to zeros."""
    dim = _wrap_dim(dim, y.dim())
    if y.shape[dim] == 0:
        return zeros([s for d, s in enumerate(y.shape) if d != dim], dtype=y.dtype)
    if x is None:
        dx = _scalar_dx(y, 1 if dx is None else dx, "trapezoid")
        ends = y.select(dim, 0) + y.select(dim, -1)
        return _pw.mul_scalar(y.sum(dim) - _pw.mul_scalar(ends, other=0.5), other=dx)
    left, right = _ends(y, dim)
    return _pw.div_scalar(((left + right) * _spacing(y, x, dim, "trapezoid")).sum(dim),
                          other=2.0)


# -- gradient -------------------------------------------------------------------------------------
def _gradient_checks(input, spacing_size, dims, edge_order):
    """ATen's pre_check_gradient (dims: the dim argument as a list, None where not given)."""
    if input.dtype is dtypes.uint8:
        raise RuntimeError("torch.gradient does not support uint8 input.")
    if spacing_size is not None and dims is None and spacing_size != input.dim():
        raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar, or a "
                           f"list of length equal to 'self.dim() = {input.dim()}', since dim "
                           f"argument was not given, but got a list of length {spacing_size}")
    if spacing_size is not None and dims is not None and spacing_size != len(dims):
        raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or it's "
                           f"spacing and dim arguments to have the same length, but got a "
                           f"spacing argument of length {spacing_size} and a dim argument of "
                           f"length {len(dims)}.")
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    if any(n < edge_order + 1 for n in input.shape):
        raise RuntimeError("torch.gradient expected each dimension size to be at least "
                           "edge_order+1")
    seen = set()
    for d in dims or ():
        d = _wrap_dim(d, input.dim())
        if d in seen:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        seen.add(d)


def _sl(t, dim, start, end=None):
    """at::slice(t, dim, start, end)."""
    return t[(builtins.slice(None),) * dim + (builtins.slice(start, end),)]


def _uniform_gradient(input, h, dim, edge_order):
    """ATen's gradient_helper_float along one dim: central differences inside, one-sided
    (first or second order) at the ends, joined by cat."""
    center = (_sl(input, dim, 2) - _sl(input, dim, 0, -2)) / h
    if edge_order == 1:
        first = (_sl(input, dim, 1, 2) - _sl(input, dim, 0, 1)) / h
        last = (_sl(input, dim, -1) - _sl(input, dim, -2, -1)) / h
    else:
        first = (-1.5 * _sl(input, dim, 0, 1) + 2 * _sl(input, dim, 1, 2)
                 - 0.5 * _sl(input, dim, 2, 3)) / h
        last = (0.5 * _sl(input, dim, -3, -2) - 2 * _sl(input, dim, -2, -1)
                + 1.5 * _sl(input, dim, -1)) / h
    return _sh.cat([first, center / 2, last], dim)


def _coordinate_gradient(input, coords, dim, edge_order):
    """ATen's gradient_helper along one dim: the second-order formula for uneven spacing."""
    if coords.dim() != 1:
        raise RuntimeError(f"torch.gradient expected each element of spacing to have one "
                           f"dimension, but got an element with {coords.dim()} dimensions!")
    shape = [1] * input.dim()
    shape[dim] = -1
    dx = coords.diff(1, 0)
    dx1, dx2 = dx[:-1], dx[1:]
    a = (-dx2 / (dx1 * (dx1 + dx2))).reshape(shape)
    b = ((dx2 - dx1) / (dx1 * dx2)).reshape(shape)
    c = (dx1 / (dx2 * (dx1 + dx2))).reshape(shape)
    center = a * _sl(input, dim, 0, -2) + b * _sl(input, dim, 1, -1) + c * _sl(input, dim, 2)
    if edge_order == 1:
        first = (_sl(input, dim, 1, 2) - _sl(input, dim, 0, 1)) / dx[0]
        last = (_sl(input, dim, -1) - _sl(input, dim, -2, -1)) / dx[-1]
    else:
        h0, h1, hl, hm = dx[0], dx[1], dx[-1], dx[-2]
        first = (-(2.0 * h0 + h1) / (h0 * (h0 + h1)) * _sl(input, dim, 0, 1)
                 + (h0 + h1) / (h0 * h1) * _sl(input, dim, 1, 2)
                 + (-h0) / (h1 * (h0 + h1)) * _sl(input, dim, 2, 3))
        last = (hl / (hm * (hl + hm)) * _sl(input, dim, -3, -2)
                - (hl + hm) / (hl * hm) * _sl(input, dim, -2, -1)
                + (2 * hl + hm) / (hl * (hl + hm)) * _sl(input, dim, -1))
    return _sh.cat([first, center, last], dim)


@public("function", signatures=(
    "gradient(Tensor input, *, IntArrayRef dim, int64_t edge_order=1)",
    "gradient(Tensor input, *, Scalar spacing, IntArrayRef dim, int64_t edge_order=1)",
    "gradient(Tensor input, *, Scalar? spacing=None, int64_t? dim=None, int64_t edge_order=1)",
    "gradient(Tensor input, *, ScalarList spacing, int64_t? dim=None, int64_t edge_order=1)",
    "gradient(Tensor input, *, ScalarList spacing, IntArrayRef dim, int64_t edge_order=1)",
    "gradient(Tensor input, *, TensorList spacing, int64_t? dim=None, int64_t edge_order=1)",
    "gradient(Tensor input, *, TensorList spacing, IntArrayRef dim, int64_t edge_order=1)"))
def gradient(input, *, spacing=None, dim=None, edge_order=1):
    """Estimates of the derivative along each dim (numpy.gradient's scheme, ATen's order of
    operations): one tensor per dim."""
    listed = isinstance(spacing, (list, tuple))
    dims = None if dim is None else [dim] if isinstance(dim, builtins.int) else list(dim)
    todo = dims if dims is not None else list(builtins.range(input.dim()))
    if listed:
        size = len(spacing)
    elif spacing is not None and not isinstance(dim, builtins.int):
        size = len(todo)
        spacing = [spacing] * size
    else:       # one unit size for the dim given, or for every dim
        size = None if spacing is None else len(todo)
        spacing = [1.0 if spacing is None else spacing] * len(todo)
    _gradient_checks(input, size, dims, edge_order)
    return tuple(
        _coordinate_gradient(input, h, _wrap_dim(d, input.dim()), edge_order)
        if isinstance(h, Tensor) else
        _uniform_gradient(input, h, _wrap_dim(d, input.dim()), edge_order)
        for d, h in zip(todo, spacing))


def _trapezoid_dx(y, dx, dim):
    n = y.shape[dim]
    if n == 0:
        return y.sum(dim) * 0
    return (y.sum(dim) - (y.select(dim, 0) + y.select(dim, n - 1)) * 0.5) * dx


@public("function", signatures=("trapezoid(Tensor y, Tensor x, *, int64_t dim=-1)",
                                "trapezoid(Tensor y, *, Scalar dx=1, int64_t dim=-1)"))
def trapezoid(y, x=None, *, dx=None, dim=-1):
    return _trapezoid(y, x, dx, dim)


@public("function", signatures=("trapz(Tensor y, *, double dx=1, int64_t dim=-1)",
                                "trapz(Tensor y, Tensor x, *, int64_t dim=-1)"))
def trapz(y, x=None, *, dx=None, dim=-1):
    return _trapezoid(y, x, dx, dim)


@public("function", signatures=(
    "cumulative_trapezoid(Tensor y, Tensor x, *, int64_t dim=-1)",
    "cumulative_trapezoid(Tensor y, *, Scalar dx=1, int64_t dim=-1)"))
def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """ATen's: the running sums of the trapezoids."""
    dim = _wrap_dim(dim, y.dim())
    left, right = _ends(y, dim)
    if x is None:
        dx = _scalar_dx(y, 1 if dx is None else dx, "cumulative_trapezoid")
        return _pw.mul_scalar(left + right, other=dx / 2.0).cumsum(dim)
    spacing = _spacing(y, x, dim, "cumulative_trapezoid")
    return _pw.div_scalar(((left + right) * spacing).cumsum(dim), other=2.0)


@public("function", signatures=("vander(Tensor x, int64_t? N=None, bool increasing=False)",))
def vander(x, N=None, increasing=False):
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    if n == 0:
        return empty(x.shape[0], 0, dtype=dtypes.promote_types(x.dtype, dtypes.int64))
    ones = ones_like(x, dtype=dtypes.promote_types(x.dtype, dtypes.int64)).unsqueeze(1)
    cols = [ones]
    if n > 1:
        cols.append(x.unsqueeze(1).expand(-1, n - 1).cumprod(1).to(ones.dtype))
    out = _sh.cat(cols, 1)
    return out if increasing else out.flip(1)


def _tri_indices(lower, row, col, offset, dtype):
    rows, cols = (xp.tril_indices if lower else xp.triu_indices)(row, offset, col)
    return _wrap(xp.stack([rows, cols]).astype((dtype or dtypes.int64).np).reshape(2, -1))


@public("function", signatures=(
    f"tril_indices(int64_t row, int64_t col, int64_t offset=0, *, {_FACTORY_OPTIONS})",))
def tril_indices(row, col, offset=0, *, dtype=None, layout=None, device=None,
                 pin_memory=False, requires_grad=False):
    return _tri_indices(True, row, col, offset, dtype)


@public("function", signatures=(
    f"triu_indices(int64_t row, int64_t col, int64_t offset=0, *, {_FACTORY_OPTIONS})",))
def triu_indices(row, col, offset=0, *, dtype=None, layout=None, device=None,
                 pin_memory=False, requires_grad=False):
    return _tri_indices(False, row, col, offset, dtype)


@public("function", signatures=tuple(
    f"logspace({a} start, {b} end, int64_t steps, double base=10.0, *, Tensor out=None, "
    f"{_FACTORY_OPTIONS})" for a, b in (("Tensor", "Tensor"), ("Scalar", "Tensor"),
                                        ("Tensor", "Scalar"), ("Scalar", "Scalar"))))
def logspace(start, end, steps, base=10.0, *, dtype=None, layout=None, device=None,
             pin_memory=False, requires_grad=False):
    want = dtype or dtypes.get_default_dtype()
    exps = linspace(float(start), float(end), steps, dtype=dtypes.float64)._data
    out = _wrap(xp.power(float(base), exps).astype(want.np))
    return out.requires_grad_() if requires_grad else out


@public("function", name="range", signatures=(
    "range(Scalar start, Scalar end, Scalar step=1, *, Tensor out=None, ScalarType? dtype=None, "
    "Layout? layout=None, Device? device=None, bool? pin_memory=False, "
    "bool? requires_grad=False)",))
def range_(start, end, step=1, *, dtype=None, layout=None, device=None,
           pin_memory=False, requires_grad=False):
    _runtime.warn("torch.range is deprecated and will be removed in a future release because "
                  "its behavior is inconsistent with Python's range builtin. Instead, use "
                  "torch.arange, which produces values in [start, end).")
    want = dtype or dtypes.get_default_dtype()
    n = builtins.int(math.floor((end - start) / step)) + 1
    out = _wrap((start + xp.arange(builtins.max(n, 0), dtype=xp.float64) * step).astype(want.np))
    return out.requires_grad_() if requires_grad else out


@public("function")
def broadcast_shapes(*shapes):
    """torch's Python loop: each shape checked against the result so far, from the right."""
    shapes = [(s,) if isinstance(s, int) else tuple(s) for s in shapes]
    result = [1] * builtins.max((len(s) for s in shapes), default=0)
    for k, shape in enumerate(shapes):
        for i in builtins.range(-1, -1 - len(shape), -1):
            if shape[i] < 0:
                raise RuntimeError(f"Trying to create tensor with negative dimension "
                                   f"({shape[i]}): ({shape[i]})")
            if shape[i] == 1 or shape[i] == result[i]:
                continue
            if result[i] != 1:
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {shape[i]} at {i}! "
                    f"Mismatching argument at index {k} had {shape}; but expected shape "
                    f"should be broadcastable to {result}")
            result[i] = shape[i]
    return Size(result)


@public("function", signatures=("column_stack(TensorList tensors, *, Tensor out=None)",))
def column_stack(tensors):
    return _sh.hstack([t.reshape(-1, 1) if t.dim() <= 1 else t for t in tensors])


@public("function", signatures=("row_stack(TensorList tensors, *, Tensor out=None)",))
def row_stack(tensors):
    return _sh.vstack(tensors)


def _directional_split(name, dim, min_dims):
    def split(input, indices_or_sections):
        if input.dim() < min_dims:
            raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dims} "
                               f"dimension, but got a tensor with {input.dim()} dimensions!")
        d = 0 if name == "hsplit" and input.dim() == 1 else dim
        if isinstance(indices_or_sections, int) and input.shape[d] % indices_or_sections:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {d}, but the "
                               f"size of the dimension {input.shape[d]} is not divisible by "
                               f"the split_size {indices_or_sections}!")
        return _sh.tensor_split(input, indices_or_sections, d)
    split.__name__ = name
    return public("function", "method", signatures=(f"{name}(Tensor input, int64_t sections)",
                                                    f"{name}(Tensor input, IntArrayRef indices)"))(
        split)


hsplit = _directional_split("hsplit", 1, 1)
vsplit = _directional_split("vsplit", 0, 2)
dsplit = _directional_split("dsplit", 2, 3)


@public("function", "method", signatures=("msort(Tensor input, *, Tensor out=None)",))
def msort(input):
    return _red.sort(input, 0)[0]


@public("function", signatures=(
    "scalar_tensor(Scalar s, *, ScalarType? dtype=None, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=False, bool? requires_grad=False)",))
def scalar_tensor(s, *, dtype=None, layout=None, device=None, pin_memory=False,
                  requires_grad=False):
    return tensor(s, dtype=dtype or dtypes.get_default_dtype(), requires_grad=requires_grad)


# -- index arithmetic and dtype facts --------------------------------------------------------------
@public("function")
def unravel_index(indices, shape):
    """The coordinates in ``shape`` of flat (row-major) ``indices``: a tuple of tensors, one
    per dim (torch's: floor division by the strides, modulo the sizes)."""
    if indices.dtype.is_floating_point or indices.dtype.is_complex or \
            indices.dtype is dtypes.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    if isinstance(shape, builtins.int) and not isinstance(shape, builtins.bool):
        shape = (shape,)
    elif not isinstance(shape, (list, tuple)):
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    for size in shape:
        if not isinstance(size, builtins.int):
            raise TypeError(f"expected 'shape' sequence to only contain ints, but got "
                            f"{type(size)}")
    if not all(size >= 0 for size in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {tuple(shape)}")
    strides = list(itertools.accumulate(reversed(tuple(shape[1:]) + (1,)), lambda a, b: a * b))
    coords = indices.unsqueeze(-1).floor_divide(
        tensor(strides[::-1], dtype=dtypes.int64)) % tensor(list(shape), dtype=dtypes.int64)
    return coords.unbind(-1)


@public("function")
def can_cast(from_, to):
    """Whether torch's casting rules allow from_ -> to in type promotion: never float to an
    integer, complex to real, or a number to bool."""
    for position, (name, value) in enumerate((("from_", from_), ("to", to)), 1):
        if not isinstance(value, dtypes.dtype):
            raise TypeError(f"can_cast(): argument '{name}' (position {position}) must be "
                            f"torch.dtype, not {type(value).__name__}")
    if from_.is_complex and not to.is_complex:
        return False
    if from_.is_floating_point and not (to.is_floating_point or to.is_complex):
        return False
    return from_ is dtypes.bool or to is not dtypes.bool


@public("function")
def typename(obj):
    """A tensor's type() (torch.FloatTensor, ...), else the object's module and qualified
    name (the builtins' bare)."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


# -- window functions ----------------------------------------------------------------------------
def _window(name, window_length, periodic, dtype, requires_grad, make):
    want = dtype or dtypes.get_default_dtype()
    if not want.is_floating_point:
        raise RuntimeError(
            f"{name} expects floating point dtypes, got: TensorOptions(dtype="
            f"{_C10_NAMES[want.name]}, device=cpu, layout=Strided (default), requires_grad="
            f"false (default), pinned_memory=false, memory_format=(nullopt))")
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got "
                           f"window_length={window_length}")
    if window_length == 0:
        out = empty(0, dtype=want)
    elif window_length == 1:
        out = tensor([1.0], dtype=want)
    else:
        n = window_length + 1 if periodic else window_length
        out = make(n, want)
        if periodic:
            out = out[:-1].clone()
    return out.requires_grad_() if requires_grad else out


def _cosine_sum(*coefficients):
    def make(n, want):
        k = arange(n, dtype=want)
        alpha, beta = coefficients
        return (k * (math.pi * 2.0 / (n - 1))).cos() * -beta + alpha
    return make


def _window_signatures(name, *extra):
    """torch's overloads of a window function: the length, then periodic, then each of the
    extra parameters in turn."""
    params = ["int64_t window_length", "bool periodic", *extra]
    return [f"{name}({', '.join(params[:n])}, *, {_FACTORY_OPTIONS})"
            for n in builtins.range(1, len(params) + 1)]


@public("function", signatures=_window_signatures("hann_window"))
def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                pin_memory=False, requires_grad=False):
    return _window("hann_window", window_length, periodic, dtype, requires_grad,
                   _cosine_sum(0.5, 0.5))


@public("function", signatures=_window_signatures("hamming_window", "double alpha",
                                                  "double beta"))
def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None,
                   layout=None, device=None, pin_memory=False, requires_grad=False):
    return _window("hamming_window", window_length, periodic, dtype, requires_grad,
                   _cosine_sum(alpha, beta))


def _blackman(n, want):
    """ATen's order: w = k * pi/(n-1); 0.08 cos(4w) - 0.5 cos(2w) + 0.42."""
    w = arange(n, dtype=want) * (math.pi / (n - 1))
    return (w * 4).cos() * 0.08 - (w * 2).cos() * 0.5 + 0.42


@public("function", signatures=_window_signatures("blackman_window"))
def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    return _window("blackman_window", window_length, periodic, dtype, requires_grad, _blackman)


def _bartlett(n, want):
    """ATen's: k * 2/(n-1), the second half (from index (n-1)//2 + 1) as 2 - that."""
    k = arange(n, dtype=want) * (2.0 / (n - 1))
    half = (n - 1) // 2 + 1
    return _sh.cat([k[:half], 2 - k[half:]])


@public("function", signatures=_window_signatures("bartlett_window"))
def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    return _window("bartlett_window", window_length, periodic, dtype, requires_grad, _bartlett)


def _kaiser(beta):
    def make(n, want):
        k = arange(n, dtype=want)
        alpha = (n - 1) / 2.0
        ratio = (k - alpha) / alpha
        from .special import _i0
        return _i0(beta * (1 - ratio.pow(2)).sqrt()) / _i0(tensor(beta, dtype=want))
    return make


@public("function", signatures=_window_signatures("kaiser_window", "double beta"))
def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None,
                  device=None, pin_memory=False, requires_grad=False):
    return _window("kaiser_window", window_length, periodic, dtype, requires_grad,
                   _kaiser(beta))


# -- tensor facts and dtype rules as functions ------------------------------------------------
@public("function", signatures=("detach(Tensor input)",))
def detach(input):
    return input.detach()


@public("function", signatures=("detach_(Tensor input)",))
def detach_(input):
    return input.detach_()


@public("function", signatures=("is_inference(Tensor input)",))
def is_inference(input):
    return input.is_inference()


@public("function", signatures=("is_distributed(Tensor input)",))
def is_distributed(input):
    return False


@public("function", signatures=("is_floating_point(Tensor input)",))
def is_floating_point(input):
    return input.is_floating_point()


@public("function", signatures=("result_type(Tensor tensor, Tensor other)",
                                "result_type(Scalar scalar, Tensor tensor)",
                                "result_type(Tensor tensor, Scalar other)",
                                "result_type(Scalar scalar1, Scalar scalar2)"))
def result_type(first, second):
    return dtypes.result_type(first, second)


@public("function", signatures=("promote_types(ScalarType type1, ScalarType type2)",))
def promote_types(type1, type2):
    return dtypes.promote_types(type1, type2)


# -- aliases of existing methods: Tensor.subtract_/multiply_/divide_/ndimension, and the torch.*_
# functions of in-place methods (torch.clamp_, torch.fill_, ...)
public("method", name="subtract_", method_signatures=(
    "subtract_(Tensor self, Tensor other, *, Scalar alpha=1)",
    "subtract_(Tensor self, Scalar other, Scalar alpha=1)"))(_pw.sub_)
public("method", name="multiply_", method_signatures=(
    "multiply_(Tensor self, Tensor other)", "multiply_(Tensor self, Scalar other)"))(_pw.mul_)
public("method", name="divide_", method_signatures=(
    "divide_(Tensor self, Tensor other)",
    "divide_(Tensor self, Tensor other, *, c10::string_view? rounding_mode)",
    "divide_(Tensor self, Scalar other)",
    "divide_(Tensor self, Scalar other, *, c10::string_view? rounding_mode)"))(_pw.div_)
public("method", name="ndimension", method_signatures=("ndimension(Tensor self)",))(
    lambda self: self.dim())


@public("function", signatures=("fill_(Tensor input, Tensor value)",
                                "fill_(Tensor input, Scalar value)"))
def fill_(input, value):
    return input.fill_(value)


@public("function", signatures=("zero_(Tensor input)",))
def zero_(input):
    return input.zero_()


@public("function", aliases=("clip_",), signatures=(
    "clamp_(Tensor input, Tensor? min=None, Tensor? max=None)",
    "clamp_(Tensor input, Scalar? min=None, Scalar? max=None)"))
def clamp_(input, min=None, max=None):
    return input.clamp_(min, max)


@public("function", signatures=("square_(Tensor input)",))
def square_(input):
    return input.square_()


@public("function", signatures=("round_(Tensor input)",
                                "round_(Tensor input, *, int64_t decimals)"))
def round_(input, *, decimals=None):
    return input.round_() if decimals is None else input.round_(decimals=decimals)


@public("function", signatures=("xlogy_(Tensor input, Tensor other)",
                                "xlogy_(Tensor input, Scalar other)"))
def xlogy_(input, other):
    return input.xlogy_(other)


@public("function", signatures=("logit_(Tensor input, double? eps=None)",))
def logit_(input, eps=None):
    return input.logit_(eps)


@public("function", signatures=(
    "nan_to_num_(Tensor input, double? nan=None, double? posinf=None, double? neginf=None)",))
def nan_to_num_(input, nan=None, posinf=None, neginf=None):
    return input.nan_to_num_(nan, posinf, neginf)


# -- scatters into a copy, splits, and the view-copy functions ------------------------------------
def _scatter_forward(view):
    """The forward of torch's X_scatter: a copy of self with ``view(copy)`` set to src."""
    def forward(xp, self, src, **attrs):
        out = self.copy()
        target = view(out, **attrs)
        if target.shape != src.shape:
            raise RuntimeError("expected src to have a size equal to the slice of self. src "
                               f"size = {list(src.shape)}, slice size = {list(target.shape)}")
        target[...] = src
        return out
    return forward


def _select_view(a, dim, index):
    return a[(slice(None),) * dim + (index,)]


def _slice_view(a, dim, start, end, step):
    return a[(slice(None),) * dim + (slice(start, end, step),)]


def _diagonal_view(a, offset, dim1, dim2):
    """A writable view of a's diagonal (NumPy's diagonal() is read-only; a is the fresh
    C-contiguous copy the forward writes into)."""
    d = a.diagonal(offset, dim1, dim2)
    if d.size == 0:
        return xp.empty(d.shape, a.dtype)
    start = d.__array_interface__["data"][0] - a.__array_interface__["data"][0]
    return xp.ndarray(d.shape, a.dtype, buffer=a, offset=start, strides=d.strides)


_select_scatter = defop("SelectScatterBackward0", _scatter_forward(_select_view),
                        ("self", "src"), dtype="same", grads={
                            "self": lambda grad, dim, index: grad.select_scatter(
                                _pw.zeros_like(grad.select(dim, index)), dim, index),
                            "src": lambda grad, dim, index: grad.select(dim, index)})
_slice_scatter = defop("SliceScatterBackward0", _scatter_forward(_slice_view),
                       ("self", "src"), dtype="same", grads={
                           "self": lambda grad, dim, start, end, step: grad.slice_scatter(
                               _pw.zeros_like(_slice_view(grad, dim, start, end, step)), dim,
                               start, end, step),
                           "src": lambda grad, dim, start, end, step: _slice_view(
                               grad, dim, start, end, step)})
_diagonal_scatter = defop("DiagonalScatterBackward0", _scatter_forward(_diagonal_view),
                          ("self", "src"), dtype="same", grads={
                              "self": lambda grad, offset, dim1, dim2: grad.diagonal_scatter(
                                  _pw.zeros_like(grad.diagonal(offset, dim1, dim2)), offset,
                                  dim1, dim2),
                              "src": lambda grad, offset, dim1, dim2: grad.diagonal(
                                  offset, dim1, dim2)})


@public("function", "method", signatures=(
    "select_scatter(Tensor input, Tensor src, int64_t dim, SymInt index)",))
def select_scatter(input, src, dim, index):
    dim = _wrap_dim(dim, input.dim())
    size = input.shape[dim]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(input.shape)} at dimension {dim}")
    return _select_scatter(input, src, dim=dim, index=index % size)


@public("function", "method", signatures=(
    "slice_scatter(Tensor input, Tensor src, int64_t dim=0, SymInt? start=None, "
    "SymInt? end=None, SymInt step=1)",))
def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    return _slice_scatter(input, src, dim=_wrap_dim(dim, input.dim()), start=start, end=end,
                          step=step)


@public("function", "method", signatures=(
    "diagonal_scatter(Tensor input, Tensor src, int64_t offset=0, int64_t dim1=0, "
    "int64_t dim2=1)",))
def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    return _diagonal_scatter(input, src, offset=offset, dim1=_wrap_dim(dim1, input.dim()),
                             dim2=_wrap_dim(dim2, input.dim()))


def _as_strided_scatter_forward(xp, self, src, geom):
    buf, at = _sh._geom_buffer(geom, self.dtype, self)
    _sh._strided(buf, at + geom[4], geom[2], geom[3])[...] = src
    return _sh._strided(buf, at, geom[0], geom[1]).copy(order="K")


def _as_strided_scatter_self_grad(grad, geom):
    # torch's as_strided_scatter_backward: the gradient's slice laid into zeros (the slice, not
    # its complement, is what torch 2.13 hands back for self)
    return as_strided_scatter(zeros(geom[0], dtype=grad.dtype), _grad_slice(grad, geom),
                              geom[2], geom[3], geom[4])


def _grad_slice(grad, geom):
    return grad.clone(memory_format=contiguous_format).as_strided(geom[2], geom[3], geom[4])


_as_strided_scatter = defop(
    "AsStridedScatterBackward0", _as_strided_scatter_forward, ("self", "src"), dtype="same",
    grads={"self": _as_strided_scatter_self_grad, "src": lambda grad, geom:
           _grad_slice(grad, geom)})


@public("function", "method", signatures=(
    "as_strided_scatter(Tensor input, Tensor src, SymIntArrayRef size, SymIntArrayRef stride, "
    "SymInt? storage_offset=None)",))
def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """A copy of input (its layout kept, as clone's) whose elements at
    ``copy.as_strided(size, stride, storage_offset)`` hold src."""
    size, stride, offset = tuple(size), tuple(stride), storage_offset or 0
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(st < 0 for st in stride):
        raise RuntimeError("as_strided: Negative strides are not supported at the moment, got "
                           f"strides: {list(stride)}")
    itemsize, nbytes = input.element_size(), input.numel() * input.element_size()
    need = 0 if 0 in size else itemsize * (offset + 1 + builtins.sum(
        st * (n - 1) for n, st in zip(size, stride)))
    if need > nbytes:
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, "
            f"and itemsize {itemsize} requiring a storage size of {need} are out of bounds for "
            f"storage of size {nbytes}")
    if _sh._may_overlap(size, stride):
        raise RuntimeError("unsupported operation: more than one element of the written-to "
                           "tensor refers to a single memory location. Please clone() the "
                           "tensor before performing the operation.")
    if tuple(src.shape) != size:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{list(src.shape)}, slice size = {list(size)}")
    if input.requires_grad and not input.is_contiguous():
        raise RuntimeError(
            "!self.requires_grad() || self.is_contiguous() INTERNAL ASSERT FAILED at "
            "\"/__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp\":4754, please report a "
            "bug to PyTorch. as_strided_scatter is currently only supported for contiguous inputs")
    layout = xp.empty_like(input._data)     # clone's layout (preserve_format)
    geom = (tuple(input.shape), tuple(st // itemsize for st in layout.strides), size, stride,
            offset)
    return _as_strided_scatter(input, src.to(input.dtype), geom=geom)


@public("function", "method", signatures=(
    "unsafe_split(Tensor input, SymInt split_size, int64_t dim=0)",))
def unsafe_split(input, split_size, dim=0):
    return _sh.split_parts(input, split_size, dim)


@public("function", "method", signatures=(
    "unsafe_split_with_sizes(Tensor input, SymIntArrayRef split_sizes, int64_t dim=0)",))
def unsafe_split_with_sizes(input, split_sizes, dim=0):
    return _sh.split_parts(input, list(split_sizes), dim)


@public("function", "method", signatures=(
    "unsafe_chunk(Tensor input, int64_t chunks, int64_t dim=0)",))
def unsafe_chunk(input, chunks, dim=0):
    return _sh.chunk(input, chunks, dim)


# torch's signatures of the view-copy functions, less the leading "Tensor input, "
_VIEW_COPIES = {
    "expand": ("SymIntArrayRef size, *, bool implicit=False",),
    "permute": ("IntArrayRef dims",), "select": ("int64_t dim, SymInt index",),
    "squeeze": ("", "int64_t dim", "IntArrayRef dim"), "unsqueeze": ("int64_t dim",),
    "t": ("",), "transpose": ("int64_t dim0, int64_t dim1",),
    "view": ("ScalarType dtype", "SymIntArrayRef size"),
    "diagonal": ("int64_t offset=0, int64_t dim1=0, int64_t dim2=1",),
    "unbind": ("int64_t dim=0",), "split": ("SymInt split_size, int64_t dim=0",),
    "split_with_sizes": ("SymIntArrayRef split_sizes, int64_t dim=0",), "detach": ("",),
    "narrow": ("int64_t dim, SymInt start, SymInt length",)}


# the views that are no Tensor method: alias, slice, view_as_real, view_as_complex
_VIEW_COPIES.update({
    "alias": ("",), "as_strided": ("SymIntArrayRef size, SymIntArrayRef stride, "
                                   "SymInt? storage_offset=None",),
    "slice": ("int64_t dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1",),
    "unfold": ("int64_t dimension, int64_t size, int64_t step",), "view_as_real": ("",),
    "view_as_complex": ("",)})


def _slice(input, dim=0, start=None, end=None, step=1):
    dim = _wrap_dim(dim, input.dim())
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    return input[(builtins.slice(None),) * dim + (builtins.slice(start, end, step),)]


_VIEWS = {"alias": lambda input: input, "slice": _slice,
          "view_as_real": view_as_real, "view_as_complex": view_as_complex}


class _ViewCopyBackward(Node):
    """torch's node of a view-copy function (SliceBackward0_copy): the view's own backward,
    ``fn``, under the view node's name with ``_copy`` (one class per name, so reprs say it)."""
    __slots__ = ("fn",)
    _classes = {}

    def __init__(self, fn, input_metadata):
        super().__init__(fn.next_functions, input_metadata)
        self.fn = fn

    def apply(self, grads):
        return self.fn.apply(grads)

    def apply_arrays(self, grads):
        return self.fn.apply_arrays(grads)

    @classmethod
    def of(cls, fn, input_metadata, name=None):
        name = name or fn.name() + "_copy"
        kind = cls._classes.get(name)
        if kind is None:
            kind = cls._classes[name] = type(name, (cls,), {"__slots__": ()})
        node = kind(fn, input_metadata)
        node._source = site(3)
        return node


class _AliasBackward0(Node):
    """alias()'s node (glassgrad's alias is the tensor itself): the gradient as it comes."""
    __slots__ = ()

    def name(self):
        return "AliasBackward0"

    def apply(self, grads):
        return list(grads)

    apply_arrays = apply


def _copies(input, out, name=None):
    """The view outputs ``out`` (a tensor or a tuple) as new contiguous tensors; where the view
    records a node, the copies hang on one node of torch's view-copy kind (``name``, else the
    view node's name with _copy) instead of a clone each (while no vmap or forward-AD level
    runs: then they are clones)."""
    views = out if isinstance(out, tuple) else (out,)
    fn = views[0].grad_fn
    if views[0] is input and input.requires_grad and state.grad:     # alias
        fn = _AliasBackward0((gradient_edge(input),), ((input._data.shape, input.dtype),))
    if fn is None or state.handler is not None:
        copies = [o.clone(memory_format=contiguous_format) for o in views]
    else:
        with no_grad():
            copies = [o.clone(memory_format=contiguous_format) for o in views]
        node = _ViewCopyBackward.of(fn, tuple((c._data.shape, c.dtype) for c in copies), name)
        for c, o in zip(copies, views):
            c._grad_fn, c._output_nr = node, o._output_nr
    return tuple(copies) if isinstance(out, tuple) else copies[0]


def _view_copy(name, params):
    """torch.<name>_copy: the view ``name`` as a new contiguous tensor (its own memory),
    parsed as torch's (the values go on to the view, positionally while they can)."""
    view = _VIEWS.get(name, lambda input, *args, **kwargs: getattr(input, name)(*args, **kwargs))

    def copy(input, *args, **kwargs):
        return _copies(input, view(input, *args, **kwargs),
                       "NarrowCopyBackward0" if name == "narrow" else None)
    many = name in ("unbind", "split", "split_with_sizes")
    out = "TensorList out=None" if many else "Tensor out=None"
    signatures = []
    for p in params:
        parts = ["Tensor input", *([p] if p else []), *([] if "*" in p else ["*"]), out]
        signatures.append(f"{name}_copy({', '.join(parts)})")
    return public("function", name=name + "_copy")(_bind(copy, signatures, positional=True))


for _name, _params in _VIEW_COPIES.items():
    globals()[_name + "_copy"] = _view_copy(_name, _params)
del _name, _params

publish(globals())
