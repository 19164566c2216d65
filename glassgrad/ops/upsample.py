"""Upsampling: F.interpolate (nearest, nearest-exact, linear, bilinear, bicubic, trilinear and
area; bilinear, bicubic and lanczos antialiased) and its deprecated forms F.upsample, upsample_nearest,
upsample_bilinear.

Every mode but area is separable: along each spatial dim an output position reads a few input
positions with fixed weights, so each dim is one (output, input) matrix, built from ATen's
index and weight rules (UpSample.h: area_pixel_compute_scale, nearest_idx, the cubic
convolution coefficients, the same-size shortcuts) in the input's own precision, and applied
with a tensordot. Antialiasing (PIL's filters, as ATen's _compute_indices_min_size_weights_aa)
widens each output's window by the downscale factor and normalises its weights: rows
UpsampleBilinear2DAaBackward0, UpsampleBicubic2DAaBackward0 and UpsampleLanczos2DAaBackward0. The gradient applies the
transposed matrices; rows UpsampleNearest2DBackward0,
UpsampleBilinear2DBackward0, ... and their backward rows (each the other's gradient) give
gradients of any order. Area is adaptive average pooling, as in torch."""
import builtins
import math
import warnings

from ..backend import xp
from . import public, publish
from .conv import adaptive_avg_pool1d, adaptive_avg_pool2d
from .pool import _floats_and, _kernel_error, adaptive_avg_pool3d
from .registry import defop

_CUBIC_A = -0.75


def _scale_value(scale, n, m, dtype):
    """compute_scales_value: 1 / scale where one is given, else input over output size."""
    if scale is not None and scale > 0:
        return dtype(1.0 / scale)
    return dtype(n) / dtype(m)


def _area_scale(n, m, align_corners, scale, dtype):
    if align_corners:
        return dtype(n - 1) / dtype(m - 1) if m > 1 else dtype(0)
    return _scale_value(scale, n, m, dtype)


def _source(scale, m, align_corners, cubic, dtype):
    """area_pixel_compute_source_index for every output position."""
    dst = xp.arange(m).astype(dtype)
    if align_corners:
        return scale * dst
    src = scale * (dst + dtype(0.5)) - dtype(0.5)
    return src if cubic else xp.maximum(src, dtype(0))


def _nearest_index(n, m, scale, exact):
    if m == n and not exact:
        return xp.arange(m)
    if m == 2 * n and not exact:
        return xp.arange(m) >> 1
    s = _scale_value(scale, n, m, xp.float32)
    if exact:
        pos = ((xp.arange(m) + 0.5) * xp.float64(s)).astype(xp.float32)
    else:
        pos = xp.arange(m).astype(xp.float32) * s
    return xp.minimum(xp.floor(pos).astype(xp.int64), n - 1)


def _linear_taps(n, m, scale, align_corners, dtype):
    if m == n:
        idx = xp.arange(m)
        return [(idx, xp.ones(m, dtype))]
    src = _source(_area_scale(n, m, align_corners, scale, dtype), m, align_corners, False,
                  dtype)
    i0 = xp.minimum(src.astype(xp.int64), n - 1)
    i1 = i0 + (i0 < n - 1)
    l1 = xp.clip(src - i0.astype(dtype), dtype(0), dtype(1))
    return [(i0, dtype(1) - l1), (i1, l1)]


def _cubic_taps(n, m, scale, align_corners, dtype):
    src = _source(_area_scale(n, m, align_corners, scale, dtype), m, align_corners, True, dtype)
    base = xp.floor(src)
    t = src - base
    a = dtype(_CUBIC_A)

    def near(x):     # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):      # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    weights = (far(t + 1), near(t), near(1 - t), far(2 - t))
    base = base.astype(xp.int64)
    return [(xp.clip(base + j - 1, 0, n - 1), w) for j, w in enumerate(weights)]


def _aa_filter(x, kind, dtype):
    """PIL's filters at |x|: the triangle, Keys' cubic with a = -0.5, Lanczos-3."""
    x = abs(x)
    one = dtype(1)
    if kind == "linear":
        return xp.where(x < one, one - x, dtype(0))
    if kind == "lanczos":
        def sinc(v):
            v = v * dtype(math.pi)
            return xp.where(v == 0, one, xp.sin(v) / xp.where(v == 0, one, v))
        return xp.where(x < dtype(3), sinc(x) * sinc(x / dtype(3)), dtype(0))
    a = dtype(-0.5)
    near = ((a + 2) * x - (a + 3)) * x * x + one
    far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return xp.where(x < one, near, xp.where(x < dtype(2), far, dtype(0)))


_AA_TAPS = {"linear": 2, "cubic": 4, "lanczos": 6}


def _aa_taps(n, m, scale, align_corners, dtype, kind):
    """ATen's antialiased window per output position (in the input's precision): centre
    scale * (i + 0.5), half-width (taps / 2) * scale when downscaling, the filter read at
    (j - centre + 0.5) / scale and the weights divided by their (ordered) sum."""
    s = _area_scale(n, m, align_corners, scale, dtype)
    half = dtype(_AA_TAPS[kind] * 0.5)
    support = half * s if s >= 1 else half
    width = int(math.ceil(support)) * 2 + 1
    inv = dtype(1.0 / xp.float64(s)) if s >= 1 else dtype(1)
    centre = (xp.float64(s) * (xp.arange(m) + 0.5)).astype(dtype)
    low = xp.maximum(((centre - support) + 0.5).astype(xp.int64), 0)
    high = xp.minimum((centre + support + 0.5).astype(xp.int64), n)
    size = xp.clip(high - low, 0, width)
    j = xp.arange(width)
    at = (((j + low[:, None]).astype(dtype) - centre[:, None]) + 0.5) * inv
    weight = xp.where(j < size[:, None], _aa_filter(at.astype(dtype), kind, dtype), dtype(0))
    total = xp.cumsum(weight, axis=1, dtype=dtype)[:, -1:]
    weight = xp.where(total != 0, weight / xp.where(total != 0, total, dtype(1)), weight)
    index = xp.minimum(low[:, None] + j, n - 1)
    return [(index[:, k], weight[:, k]) for k in range(width)]


def _matrix(mode, n, m, scale, align_corners, dtype):
    """(m, n): output position i = sum_j M[i, j] * input position j, along one dim."""
    if mode.endswith("_aa"):
        taps = _aa_taps(n, m, scale, align_corners, dtype, mode[:-3])
    elif mode in ("nearest", "nearest-exact"):
        taps = [(_nearest_index(n, m, scale, mode == "nearest-exact"), xp.ones(m, dtype))]
    elif mode == "cubic":
        taps = _cubic_taps(n, m, scale, align_corners, dtype)
    else:
        taps = _linear_taps(n, m, scale, align_corners, dtype)
    out = xp.zeros((m, n), dtype)
    rows = xp.arange(m)
    for index, weight in taps:
        xp.add.at(out, (rows, index), weight.astype(dtype))
    return out


def _resample(x, in_size, out_size, mode, align_corners, scales, transpose):
    """Each of the last len(in_size) dims of x mapped through its matrix (in_size to out_size)
    or, for a gradient, through its transpose (out_size back to in_size)."""
    k = len(in_size)
    for i, (n, m, s) in enumerate(zip(in_size, out_size, scales)):
        mat = _matrix(mode, n, m, s, align_corners, x.dtype.type)
        axis = x.ndim - k + i
        x = xp.moveaxis(xp.tensordot(x, mat if transpose else mat.T, axes=([axis], [0])), -1,
                        axis)
    return xp.ascontiguousarray(x)


_SCALES = {1: ("scales",), 2: ("scales_h", "scales_w"), 3: ("scales_d", "scales_h", "scales_w")}
_NAMES = {"nearest": "Nearest", "nearest-exact": "NearestExact", "linear": "Linear",
          "cubic": "Bicubic", "linear_aa": "Bilinear", "cubic_aa": "Bicubic",
          "lanczos_aa": "Lanczos"}
_LINEAR_NAMES = {1: "Linear", 2: "Bilinear", 3: "Trilinear"}


def _scales_of(attrs, k):
    return tuple(attrs.get(name) for name in _SCALES[k])


def _forward(mode, k):
    def forward(xp, self, output_size, align_corners=False, **scales):
        return _resample(self, self.shape[-k:], output_size, mode, align_corners,
                         _scales_of(scales, k), False)
    return forward


def _backward(xp, grad_output, input_size, output_size, mode, align_corners, scales):
    return _resample(grad_output, input_size[-len(output_size):], output_size, mode,
                     align_corners, scales, True)


def _formula(call, k, aligned):
    """The forward row's formula, its parameters named as torch's node saves them: ``call(grad,
    self_sym_sizes, output_size, align_corners, scales)``."""
    if k == 1:
        if aligned:
            return lambda grad, self_sym_sizes, output_size, align_corners, scales: call(
                grad, self_sym_sizes, output_size, align_corners, (scales,))
        return lambda grad, self_sym_sizes, output_size, scales: call(
            grad, self_sym_sizes, output_size, False, (scales,))
    if k == 2:
        if aligned:
            return lambda grad, self_sym_sizes, output_size, align_corners, scales_h, \
                scales_w: call(grad, self_sym_sizes, output_size, align_corners,
                               (scales_h, scales_w))
        return lambda grad, self_sym_sizes, output_size, scales_h, scales_w: call(
            grad, self_sym_sizes, output_size, False, (scales_h, scales_w))
    if aligned:
        return lambda grad, self_sym_sizes, output_size, align_corners, scales_d, scales_h, \
            scales_w: call(grad, self_sym_sizes, output_size, align_corners,
                           (scales_d, scales_h, scales_w))
    return lambda grad, self_sym_sizes, output_size, scales_d, scales_h, scales_w: call(
        grad, self_sym_sizes, output_size, False, (scales_d, scales_h, scales_w))


def _dtype_rule(mode, k):
    """torch's kernels: floating types, and uint8 for nearest (the name of the kernel that
    refuses the rest, as torch's error says it)."""
    if mode in ("nearest", "nearest-exact"):
        kernel = "upsample_nearest2d_channels_last" if k == 2 else \
            "compute_indices_weights_nearest"
        return _floats_and(kernel, "uint8")
    if mode == "linear":
        return _floats_and("upsample_bilinear2d_channels_last" if k == 2 else
                           "compute_indices_weights_linear")
    if mode.endswith("_aa"):
        return _float32_64("compute_index_ranges_weights")
    return _floats_and("compute_indices_weights_cubic")


def _float32_64(kernel):
    """float32/float64 only (the antialiased kernels' dispatch)."""
    def rule(values, attrs):
        d = values[0].dtype
        if d.name not in ("float32", "float64"):
            raise _kernel_error(kernel, d)
        return d
    return rule


def _rows(mode, k):
    """The forward row of a mode and dim count (its backward row is its gradient, and the
    other way round)."""
    name = f"Upsample{_LINEAR_NAMES[k] if mode == 'linear' else _NAMES[mode]}{k}D"
    name += "Aa" if mode.endswith("_aa") else ""
    aligned = mode != "nearest" and mode != "nearest-exact"

    def run(input, output_size, align_corners, scales):
        extra = {"align_corners": align_corners} if aligned else {}
        return forward_row(input, output_size=tuple(output_size), **extra,
                           **dict(zip(_SCALES[k], scales)))

    backward_row = defop(
        f"{name}BackwardBackward0", _backward, ("grad_output",), dtype="same",
        grads={"grad_output": lambda grad, output_size, align_corners, scales: run(
            grad, output_size, align_corners, scales)})
    forward_row = defop(f"{name}Backward0", _forward(mode, k), dtype=_dtype_rule(mode, k), grads={
        "self": _formula(lambda grad, sizes, output_size, align_corners, scales: backward_row(
            grad, input_size=tuple(sizes), output_size=tuple(output_size), mode=mode,
            align_corners=align_corners, scales=scales), k, aligned)})
    return run


_MODES = {"nearest": (1, 2, 3), "nearest-exact": (1, 2, 3), "linear": (1, 2, 3),
          "cubic": (2,), "linear_aa": (2,), "cubic_aa": (2,), "lanczos_aa": (2,)}
_ROWS = {(mode, k): _rows(mode, k) for mode, ks in _MODES.items() for k in ks}
_INTERPOLATING = {"linear": 1, "bilinear": 2, "trilinear": 3, "bicubic": 2}


def _integer(value):
    return isinstance(value, builtins.int) or (hasattr(value, "dim") and value.dim() == 0 and
                                               not value.dtype.is_floating_point)


def _sizes(input, size, scale_factor, recompute_scale_factor, mode):
    """F.interpolate's checks: (output size, scale factors or Nones) per spatial dim."""
    dim = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    f"Input and output must have the same number of spatial dimensions, but got "
                    f"input with spatial dimensions of {list(input.shape[2:])} and output size "
                    f"of {size}. Please provide input tensor in (N, C, d1, d2, ...,dK) format "
                    f"and output size in (o1, o2, ...,oK) format.")
            if not builtins.all(_integer(v) for v in size):
                raise TypeError(f"expected size to be one of int or Tuple[int] or Tuple[int, "
                                f"int] or Tuple[int, int, int], but got size with types "
                                f"{[type(v) for v in size]}")
            output_size = list(size)
        else:
            output_size = [size] * dim
        if recompute_scale_factor:
            raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
        return [builtins.int(v) for v in output_size], [None] * dim
    if scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    if isinstance(scale_factor, (list, tuple)):
        if len(scale_factor) != dim:
            raise ValueError(
                f"Input and scale_factor must have the same number of spatial dimensions, but "
                f"got input with spatial dimensions of {list(input.shape[2:])} and scale_factor "
                f"of shape {scale_factor}. Please provide input tensor in (N, C, d1, d2, ...,dK) "
                f"format and scale_factor in (s1, s2, ...,sK) format.")
        scales = list(scale_factor)
    else:
        scales = [scale_factor] * dim
    output_size = [builtins.int(n * s) for n, s in zip(input.shape[2:], scales)]
    if recompute_scale_factor or mode == "area":
        return output_size, [None] * dim
    return output_size, [float(s) for s in scales]


def _check_sizes(input, output_size):
    """ATen's upsample_*_shape_check of the sizes."""
    size = list(input.shape[2:])
    if builtins.all(v > 0 for v in size + output_size):
        return
    names = "DHW"[3 - len(size):]

    def show(values):
        return ", ".join(f"{n}: {v}" for n, v in zip(names, values))
    joint = " and" if len(size) == 1 else ""
    raise RuntimeError(f"Input and output sizes should be greater than 0, but got input "
                       f"({show(size)}){joint} output ({show(output_size)})")


@public("functional")
def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating "
                             "modes: linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    output_size, scales = _sizes(input, size, scale_factor, recompute_scale_factor, mode)
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.dim() == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos "
                         "modes and requires a 4-D tensor as input")
    if 1 <= dim <= 3 and mode != "area":
        _check_sizes(input, output_size)
    if 1 <= dim <= 3 and mode in ("nearest", "nearest-exact"):
        return _ROWS[mode, dim](input, output_size, False, scales)
    if 1 <= dim <= 3 and mode == "area":
        return (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d)[dim - 1](
            input, output_size)
    if mode in _INTERPOLATING and _INTERPOLATING[mode] == dim:
        if dim == 2 and input.dtype.name == "uint8":
            raise NotImplementedError(f"F.interpolate: glassgrad has no uint8 {mode} resampling "
                                      f"(torch rounds it through its own integer kernel)")
        row = ("cubic" if mode == "bicubic" else "linear") + ("_aa" if antialias else "")
        return _ROWS[row, dim](input, output_size, align_corners, scales)
    if mode == "lanczos" and dim == 2:
        if align_corners:
            raise ValueError("Lanczos mode does not support align_corners=True")
        if not antialias:
            raise ValueError("Lanczos mode requires antialias=True")
        if input.dtype.name == "uint8":
            raise NotImplementedError("F.interpolate: glassgrad has no uint8 lanczos resampling "
                                      "(torch rounds it through its own integer kernel)")
        return _ROWS["lanczos_aa", dim](input, output_size, False, scales)
    if mode in ("linear", "bilinear", "trilinear") and 1 <= dim <= 3:
        need = _INTERPOLATING[mode]
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs "
                                  f"{need + 2}D input")
    raise NotImplementedError(
        f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for the "
        f"modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | "
        f"nearest-exact (got {mode})")


def _deprecated(name):
    warnings.warn(f"`nn.functional.{name}` is deprecated. Use `nn.functional.interpolate` "
                  f"instead.", stacklevel=3)


@public("functional")
def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    _deprecated("upsample")
    return interpolate(input, size, scale_factor, mode, align_corners)


@public("functional")
def upsample_nearest(input, size=None, scale_factor=None):
    _deprecated("upsample_nearest")
    return interpolate(input, size, scale_factor, mode="nearest")


@public("functional")
def upsample_bilinear(input, size=None, scale_factor=None):
    _deprecated("upsample_bilinear")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# @public objects name themselves (glassgrad.ops.publish)
publish(globals())
