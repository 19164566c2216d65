"""More pooling: max_pool3d and avg_pool3d (MaxPool3DWithIndicesBackward0, AvgPool3DBackward0),
adaptive_avg_pool3d, adaptive_max_pool1d/2d/3d (AdaptiveMaxPool2D/3DBackward0), max_unpool1d/2d/
3d (MaxUnpool2D/3DBackward0) and lp_pool1d/2d/3d (composites, as torch's).

The kernels work on N spatial dims at once: a window view of the padded input (sliding
windows, stepped for stride and dilation), reduced over its kernel axes; a gradient goes back
by one scatter-add of flat indices (max) or one strided add per kernel offset (average).
Adaptive windows have varying sizes: each dim gathers its longest window, the shorter ones
repeating their last position (harmless to a maximum)."""
import builtins
import math

from .._creation import rand, zeros_like
from ..backend import kind as _kind, xp
from ..backend.kernels.im2col import _col2im, _padded, _windows
from . import public, publish
from .conv import (_adaptive_matrix, _adaptive_size, _check_1d, _divide, _functional_max_pool1d,
                   _functional_max_pool2d, _pool_out, _trunc_div, avg_pool1d, avg_pool2d)
from .pointwise import _kernel_error
from .registry import _SCALAR_NAMES, defop


def _floats_and(kernel, *names):
    """A row's dtype rule: its input's dtype where torch's kernel has a version for it (the
    floating types and the dtypes ``names``), else torch's NotImplementedError."""
    def rule(values, attrs):
        d = values[0].dtype
        if not d.is_floating_point and d.name not in names:
            raise _kernel_error(kernel, d)
        return d
    return rule


# -- geometry --------------------------------------------------------------------------------
def _geometry(size, kernel, stride, padding, dilation, ceil_mode):
    """Per spatial dim: (kernel, stride, padding, dilation, output size, extra padding after)."""
    out = []
    for n, k, s, p, d in zip(size, kernel, stride, padding, dilation):
        o = _pool_out(n, k, s, p, d, ceil_mode)
        out.append((k, s, p, d, o, builtins.max(p, (o - 1) * s + d * (k - 1) + 1 - n - p)))
    return out


def _window_view(x, geometry, fill):
    """x (..., *size) padded with ``fill`` as a view (..., *out, *kernel) of its windows."""
    k = len(geometry)
    padded = _padded(x, [(p, hi) for _, _, p, _, _, hi in geometry], fill)
    win = _windows(padded, [g[0] for g in geometry], [g[1] for g in geometry],
                   [(0, 0)] * k, [g[3] for g in geometry])
    return win[(Ellipsis,) + tuple(builtins.slice(g[4]) for g in geometry) +
               (builtins.slice(None),) * k]


def _first_inside(o, s, p, d):
    start = xp.arange(o) * s - p
    return start + -(-xp.maximum(-start, 0) // d) * d


def _flat_index(coords, size):
    """Flat input positions from per-dim coordinates (broadcast against each other)."""
    index = 0
    for c, n in zip(coords, size):
        index = index * n + c
    return index


def _grid(vectors):
    """Per dim a vector, each shaped to broadcast over the other dims (an open mesh)."""
    k = len(vectors)
    return [v.reshape((1,) * i + (-1,) + (1,) * (k - 1 - i)) for i, v in enumerate(vectors)]


def _argmax(flat):
    """torch's pick in each window (last axis): the first maximum, or the last NaN."""
    arg = flat.argmax(-1)
    if _kind(flat.dtype) == "f":
        nan = xp.isnan(flat)
        if nan.any():
            last = flat.shape[-1] - 1 - nan[..., ::-1].argmax(-1)
            arg = xp.where(nan.any(-1), last, arg)
    return arg


# -- max pooling -----------------------------------------------------------------------------
def _max_pool_forward(xp, self, kernel_size, stride, padding, dilation, ceil_mode):
    k = len(kernel_size)
    size = self.shape[-k:]
    geometry = _geometry(size, kernel_size, stride, padding, dilation, ceil_mode)
    lowest = -xp.inf if _kind(self.dtype) == "f" else xp.iinfo(self.dtype).min
    win = _window_view(self, geometry, lowest)
    flat = win.reshape(*win.shape[:-k], -1)
    arg = _argmax(flat)
    values = xp.take_along_axis(flat, arg[..., None], -1)[..., 0]
    offsets = xp.unravel_index(arg, kernel_size)
    coords = [g * s - p + off * d for g, off, (_, s, p, d, _, _) in
              zip(_grid([xp.arange(g[4]) for g in geometry]), offsets, geometry)]
    indices = _flat_index(coords, size)
    first = _flat_index(_grid([_first_inside(o, s, p, d) for _, s, p, d, o, _ in geometry]),
                        size)
    indices = xp.where(values == lowest, first, indices)     # only padding-valued positions
    return values, indices.astype(xp.int64)


def _scatter(values, indices, shape, k):
    """values (..., *out) added onto an array of ``shape`` at flat spatial ``indices``."""
    lead = math.prod(shape[:-k])
    planes = values.reshape(lead, -1)
    out = xp.zeros((lead, math.prod(shape[-k:])), values.dtype)
    xp.add.at(out, (xp.arange(lead)[:, None], indices.reshape(lead, -1)), planes)
    return out.reshape(shape)


def _gather(grad, indices, k):
    """grad at the flat spatial positions of ``indices`` (the scatters' own backward)."""
    flat = grad.flatten(-k)
    return flat.gather(-1, indices.flatten(-k)).view(indices.shape)


_POOL = ("kernel_size", "stride", "padding", "dilation", "ceil_mode")
_max_pool3d_backward = defop(
    "MaxPool3DWithIndicesBackwardBackward0",
    lambda xp, grad_output, self, indices, **p: _scatter(grad_output, indices, self.shape, 3),
    ("grad_output", "self", "indices"), dtype="same",
    grads={"grad_output": lambda grad, indices: _gather(grad, indices, 3),
           "self": lambda grad: zeros_like(grad), "indices": lambda grad: None})
_max_pool3d = defop(
    "MaxPool3DWithIndicesBackward0", _max_pool_forward, outputs=("result", "result1"),
    dtype=_floats_and("max_pool3d", "int64", "int32", "int16", "int8", "uint8"),
    grads={"self": lambda grad, self, result1, kernel_size, stride, padding, dilation,
           ceil_mode: _max_pool3d_backward(grad, self, result1, **dict(zip(_POOL, (
               kernel_size, stride, padding, dilation, ceil_mode))))})


def _triple_param(op, name, value, allow_empty=False):
    v = (value,) * 3 if isinstance(value, builtins.int) else tuple(value)
    if len(v) not in ((0, 1, 3) if allow_empty else (1, 3)):
        what = {"kernel_size": "kernel_size must either be a single int, or a tuple of three ints",
                "stride": "stride must either be omitted, a single int, or a tuple of three ints",
                "padding": "padding must either be a single int, or a tuple of three ints",
                "dilation": "dilation must be either a single int, or a tuple of three ints"}
        raise RuntimeError(f"{op}: {what[name]}")
    return v * 3 if len(v) == 1 else v


def _check_pool3d(input, kernel, stride, padding, dilation, ceil_mode):
    """ATen's checks of a 3-d pooling (pooling_output_shape, pool3d_shape_check), in order."""
    if input.dim() not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    for k, s, p, d in zip(kernel, stride, padding, dilation):
        if s == 0:
            raise RuntimeError("stride should not be zero")
        if p < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {p}")
        if p > _trunc_div((k - 1) * d + 1, 2):
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={p}, kernel_size={k} and dilation={d}")
    if builtins.any(k <= 0 for k in kernel):
        raise RuntimeError(f"kernel size should be greater than zero, but got kT: {kernel[0]} "
                           f"kH: {kernel[1]} kW: {kernel[2]}")
    if builtins.any(s <= 0 for s in stride):
        raise RuntimeError(f"stride should be greater than zero, but got dT: {stride[0]} "
                           f"dH: {stride[1]} dW: {stride[2]}")
    if builtins.any(d <= 0 for d in dilation):
        raise RuntimeError(f"dilation should be greater than zero, but got dilationT: "
                           f"{dilation[0]} dilationH: {dilation[1]} dilationW: {dilation[2]}")
    if input.dim() not in (4, 5) or 0 in input.shape[-4:]:
        raise RuntimeError(f"Expected 4D or 5D (batch mode) tensor with optional 0 dim batch "
                           f"size for input, but got:{list(input.shape)}")
    for k, p, d in zip(kernel, padding, dilation):
        if p > _trunc_div((k - 1) * d + 1, 2) or k // 2 < p:
            raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but "
                               f"got kT: {kernel[0]} kW: {kernel[2]} kH: {kernel[1]} padT: "
                               f"{padding[0]} padW: {padding[2]} padH: {padding[1]}")
    size = input.shape[-3:]
    out = [_pool_out(n, k, s, p, d, ceil_mode) for n, k, s, p, d in
           zip(size, kernel, stride, padding, dilation)]
    if builtins.any(o < 1 for o in out):
        raise RuntimeError(f"Given input size: ({input.shape[-4]}x{size[0]}x{size[1]}x"
                           f"{size[2]}). Calculated output size: ({input.shape[-4]}x{out[0]}x"
                           f"{out[1]}x{out[2]}). Output size is too small")


def _pool3d_params(op, kernel_size, stride, padding, dilation=1):
    kernel = _triple_param(op, "kernel_size", kernel_size)
    stride = _triple_param(op, "stride", () if stride is None else stride, True) or kernel
    return kernel, stride, _triple_param(op, "padding", padding), \
        _triple_param(op, "dilation", dilation)


@public("functional")
def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    kernel, stride, padding, dilation = _pool3d_params("max_pool3d", kernel_size, stride,
                                                       padding, dilation)
    _check_pool3d(input, kernel, stride, padding, dilation, ceil_mode)
    return _max_pool3d(input, kernel_size=kernel, stride=stride, padding=padding,
                       dilation=dilation, ceil_mode=ceil_mode)


@public("functional", name="max_pool3d")
def _functional_max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1,
                           ceil_mode=False, return_indices=False):
    out, indices = max_pool3d_with_indices(input, kernel_size, stride, padding, dilation,
                                           ceil_mode)
    return (out, indices) if return_indices else out


@public("function", signatures=(
    "max_pool3d(Tensor input, IntArrayRef[3] kernel_size, IntArrayRef[3] stride=None, "
    "IntArrayRef[3] padding=0, IntArrayRef[3] dilation=1, bool ceil_mode=False)",))
def max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)[0]


# -- average pooling -------------------------------------------------------------------------
def _counts(size, geometry, count_include_pad):
    """Per dim, what each output's window counts: clipped to the padded input, or to the
    input alone."""
    counts = []
    for n, (k, s, p, _, o, _) in zip(size, geometry):
        start = xp.arange(o) * s - p
        end = xp.minimum(start + k, n + p)
        counts.append(end - start if count_include_pad else
                      xp.minimum(end, n) - xp.maximum(start, 0))
    return counts


def _avg_divisor(size, geometry, count_include_pad, divisor_override):
    if divisor_override is not None:
        return divisor_override
    divisor = 1
    for c in _grid(_counts(size, geometry, count_include_pad)):
        divisor = divisor * c
    return divisor


def _avg_geometry(self, kernel_size, stride, padding, ceil_mode):
    k = len(kernel_size)
    size = self.shape[-k:]
    return size, _geometry(size, kernel_size, stride, padding, (1,) * k, ceil_mode)


def _avg_pool_forward(xp, self, kernel_size, stride, padding, ceil_mode, count_include_pad,
                      divisor_override):
    size, geometry = _avg_geometry(self, kernel_size, stride, padding, ceil_mode)
    k = len(size)
    total = _window_view(self, geometry, 0).sum(tuple(range(-k, 0)))
    return _divide(total, _avg_divisor(size, geometry, count_include_pad, divisor_override))


def _avg_pool_backward(xp, grad_output, self, kernel_size, stride, padding, ceil_mode,
                       count_include_pad, divisor_override):
    """Each window position receives its output's gradient over the divisor."""
    size, geometry = _avg_geometry(self, kernel_size, stride, padding, ceil_mode)
    k = len(size)
    share = _divide(grad_output, _avg_divisor(size, geometry, count_include_pad,
                                              divisor_override))
    lead = self.shape[:-k]
    cols = xp.broadcast_to(share.reshape(-1, 1, *(1,) * k, *share.shape[-k:]),
                           (share.size // math.prod(share.shape[-k:]), 1, *kernel_size,
                            *share.shape[-k:]))
    grown = [n + hi - p for n, (_, _, p, _, _, hi) in zip(size, geometry)]   # ceil_mode's
    out = _col2im(cols, grown, stride, padding, (1,) * k)
    return xp.ascontiguousarray(out[(Ellipsis,) + tuple(builtins.slice(n) for n in size)]
                                ).reshape(*lead, *size)


_AVG = ("kernel_size", "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override")


def _avg_args(*values):
    return dict(zip(_AVG, values))


_avg_pool3d_backward = defop(
    "AvgPool3DBackwardBackward0", _avg_pool_backward, ("grad_output", "self"), dtype="same",
    grads={"grad_output": lambda grad, kernel_size, stride, padding, ceil_mode,
           count_include_pad, divisor_override: _avg_pool3d(grad, **_avg_args(
               kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)),
           "self": lambda grad: zeros_like(grad)})
_avg_pool3d = defop(
    "AvgPool3DBackward0", _avg_pool_forward, dtype=_floats_and("avg_pool3d_out_frame", "int64"),
    grads={"self": lambda grad, self, kernel_size, stride, padding, ceil_mode,
           count_include_pad, divisor_override: _avg_pool3d_backward(
               grad, self, **_avg_args(kernel_size, stride, padding, ceil_mode,
                                       count_include_pad, divisor_override))})


@public("functional")
def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    kernel, stride, padding, _ = _pool3d_params("avg_pool3d", kernel_size, stride, padding)
    if divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    _check_pool3d(input, kernel, stride, padding, (1, 1, 1), ceil_mode)
    return _avg_pool3d(input, **_avg_args(kernel, stride, padding, ceil_mode,
                                          count_include_pad, divisor_override))


# -- adaptive pooling ------------------------------------------------------------------------
def _adaptive_avg3d_forward(xp, self, output_size):
    mats = [_adaptive_matrix(n, m, self.dtype) for n, m in zip(self.shape[-3:], output_size)]
    return xp.einsum("...dhw,ad,bh,cw->...abc", self, *mats).astype(self.dtype, copy=False)


def _adaptive_avg3d_backward(xp, grad_output, self):
    mats = [_adaptive_matrix(n, m, self.dtype) for n, m in
            zip(self.shape[-3:], grad_output.shape[-3:])]
    return xp.einsum("...abc,ad,bh,cw->...dhw", grad_output, *mats).astype(self.dtype,
                                                                           copy=False)


_adaptive_avg_pool3d_backward = defop(
    "AdaptiveAvgPool3DBackwardBackward0", _adaptive_avg3d_backward, ("grad_output", "self"),
    dtype="same", grads={"grad_output": lambda grad, grad_output: _adaptive_avg_pool3d(
        grad, output_size=tuple(grad_output.shape[-3:])),
        "self": lambda grad: zeros_like(grad)})
_adaptive_avg_pool3d = defop(
    "AdaptiveAvgPool3DBackward0", _adaptive_avg3d_forward,
    dtype=_floats_and("adaptive_avg_pool3d_cpu"),
    grads={"self": lambda grad, self: _adaptive_avg_pool3d_backward(grad, self)})


@public("functional")
def adaptive_avg_pool3d(input, output_size):
    if input.dim() not in (4, 5):
        raise RuntimeError(f"adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got "
                           f"{list(input.shape)}")
    size = _adaptive_size(output_size, input, 3)
    if size == (1, 1, 1):      # ATen takes the mean
        return input.mean((-1, -2, -3), keepdim=True)
    return _adaptive_avg_pool3d(input, output_size=size)


def _adaptive_windows(n, m):
    """(m, longest window) input positions of each adaptive window, the last one repeated."""
    i = xp.arange(m)
    start, end = (i * n) // m, -((-(i + 1) * n) // m)
    width = builtins.int((end - start).max())
    return xp.minimum(start[:, None] + xp.arange(width), end[:, None] - 1)


def _windowed_max(x, windows):
    """The maximum of x (..., *size) over windows given per spatial dim as positions (planes or
    1, m, w) (planes: one set per plane of x): values and flat input indices (..., *m)."""
    k = len(windows)
    size, lead = x.shape[-k:], x.shape[:-k]
    planes = x.reshape(-1, *size)
    p = planes.shape[0]
    index = (xp.arange(p).reshape((-1,) + (1,) * 2 * k),) + tuple(
        w.reshape((w.shape[0],) + (1,) * 2 * i + w.shape[1:] + (1,) * 2 * (k - 1 - i))
        for i, w in enumerate(windows))
    win = planes[index]                          # (P, m0, w0, m1, w1, ...)
    win = win.transpose(0, *range(1, 2 * k + 1, 2), *range(2, 2 * k + 1, 2))
    flat = win.reshape(*win.shape[:k + 1], -1)
    arg = _argmax(flat)
    values = xp.take_along_axis(flat, arg[..., None], -1)[..., 0]
    offsets = xp.unravel_index(arg, [w.shape[2] for w in windows])
    out = [xp.arange(w.shape[1]).reshape((1,) * (i + 1) + (-1,) + (1,) * (k - 1 - i))
           for i, w in enumerate(windows)]
    coords = [w[xp.arange(p).reshape((-1,) + (1,) * k) if w.shape[0] > 1 else 0, o, off]
              for w, o, off in zip(windows, out, offsets)]
    m = values.shape[1:]
    return values.reshape(*lead, *m), _flat_index(coords, size).astype(xp.int64).reshape(
        *lead, *m)


def _adaptive_max_forward(xp, self, output_size):
    k = len(output_size)
    return _windowed_max(self, [_adaptive_windows(n, m)[None] for n, m in
                                zip(self.shape[-k:], output_size)])


def _adaptive_max_rows(k):
    back = defop(
        f"AdaptiveMaxPool{k}DBackwardBackward0",
        lambda xp, grad_output, self, indices: _scatter(grad_output, indices, self.shape, k),
        ("grad_output", "self", "indices"), dtype="same",
        grads={"grad_output": lambda grad, indices: _gather(grad, indices, k),
               "self": lambda grad: zeros_like(grad), "indices": lambda grad: None})
    return defop(f"AdaptiveMaxPool{k}DBackward0", _adaptive_max_forward,
                 outputs=("result", "result1"),
                 dtype=_floats_and("adaptive_max_pool2d" if k == 2 else "adaptive_max_pool3d_cpu"),
                 grads={"self": lambda grad, self, result1: back(grad, self, result1)})


_ADAPTIVE_MAX = {k: _adaptive_max_rows(k) for k in (2, 3)}


def _adaptive_max(input, output_size, k):
    name = f"adaptive_max_pool{k}d"
    if input.dim() not in (k + 1, k + 2):
        raise RuntimeError(f"{name}(): Expected {k + 1}D or {k + 2}D tensor, but got: "
                           f"{list(input.shape)}")
    for d in range(1, input.dim()):
        if input.shape[d] == 0:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {list(input.shape)} with "
                               f"dimension {d} being empty")
    size = _adaptive_size(output_size, input, k)
    if len(size) != k:
        raise RuntimeError(f"{name}(): internal error: output_size.size() must be {k}")
    return _ADAPTIVE_MAX[k](input, output_size=size)


@public("functional")
def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    return _adaptive_max(input, output_size, 2)


@public("functional")
def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    return _adaptive_max(input, output_size, 3)


@public("functional")
def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    # torch.adaptive_max_pool1d, bound to torch's parser below (publish names it so here)
    return adaptive_max_pool1d(input, output_size)


def _adaptive_max_pool1d(input, output_size):
    _check_1d("adaptive_max_pool1d", input, output_size=output_size)
    size = _adaptive_size(output_size, input, 1)
    out, indices = _adaptive_max(input.unsqueeze(-2), (1,) + size, 2)
    return out.squeeze(-2), indices.squeeze(-2)


def _returning(fn):
    def pool(input, output_size, return_indices=False):
        out, indices = fn(input, output_size)
        return (out, indices) if return_indices else out
    return pool


adaptive_max_pool1d = public("functional", name="adaptive_max_pool1d")(
    _returning(adaptive_max_pool1d_with_indices))
adaptive_max_pool2d = public("functional", name="adaptive_max_pool2d")(
    _returning(adaptive_max_pool2d_with_indices))
adaptive_max_pool3d = public("functional", name="adaptive_max_pool3d")(
    _returning(adaptive_max_pool3d_with_indices))
public("function", name="adaptive_max_pool1d", signatures=(
    "adaptive_max_pool1d(Tensor input, IntArrayRef[1] output_size)",))(_adaptive_max_pool1d)


# -- fractional max pooling ------------------------------------------------------------------
def _intervals(samples, n, m, pool):
    """ATen's generate_intervals for each plane: the start of each of m windows of size pool
    over n positions, from the plane's sample u in [0, 1) (in the input's precision)."""
    dtype = samples.dtype.type
    starts = xp.empty((samples.shape[0], m), xp.int64)
    if m > 1:
        alpha = dtype(n - pool) / dtype(m - 1)
        i = xp.arange(m - 1).astype(dtype)
        starts[:, :-1] = (((i + samples[:, None]) * alpha).astype(xp.int64) -
                          (samples * alpha).astype(xp.int64)[:, None])
    starts[:, -1] = n - pool
    return starts


def _fractional_forward(xp, self, random_samples, kernel_size, output_size):
    k = len(kernel_size)
    samples = random_samples.reshape(-1, k)
    order = (1, 0) if k == 2 else (0, 1, 2)        # which sample drives which dim, as ATen's
    return _windowed_max(self, [
        _intervals(samples[:, j], n, m, p)[:, :, None] + xp.arange(p)
        for j, n, m, p in zip(order, self.shape[-k:], output_size, kernel_size)])


def _fractional_rows(k):
    back = defop(
        f"FractionalMaxPool{k}DBackwardBackward0",
        lambda xp, grad_output, self, indices: _scatter(grad_output, indices, self.shape, k),
        ("grad_output", "self", "indices"), dtype="same",
        grads={"grad_output": lambda grad, indices: _gather(grad, indices, k),
               "self": lambda grad: zeros_like(grad), "indices": lambda grad: None})
    return defop(f"FractionalMaxPool{k}DBackward0", _fractional_forward,
                 ("self", "random_samples"), outputs=("result", "result1"), dtype="same",
                 grads={"self": lambda grad, self, result1: back(grad, self, result1),
                        "random_samples": lambda grad: None})


_FRACTIONAL = {k: _fractional_rows(k) for k in (2, 3)}


def _fractional(k, input, kernel_size, output_size, output_ratio, random_samples):
    """F.fractional_max_poolkd_with_indices: torch's Python checks, its draw of the samples
    (torch.rand(N, C, k): the same numbers after manual_seed), then ATen's checks."""
    name = f"fractional_max_pool{k}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an "
                         f"output_ratio")
    if output_size is None:
        if k == 2 and len(output_ratio) > 2:        # (torch's: a bare number is a TypeError)
            raise ValueError("fractional_max_pool2d requires output_ratio to either be a "
                             "single Int or tuple of Ints.")
        ratio = _tuple(output_ratio, k)
        output_size = [builtins.int(input.size(d - k) * r) for d, r in enumerate(ratio)]
    if random_samples is None:
        n_batch = 1 if input.dim() == k + 1 else input.size(0)
        random_samples = rand(n_batch, input.size(-k - 1), k, dtype=input.dtype)
    kernel, output_size = _tuple(kernel_size, k), _tuple(output_size, k)
    if input.dim() not in (k + 1, k + 2):
        raise RuntimeError(f"{name}(): Expected {k + 1}D or {k + 2}D tensor, but got: "
                           f"{list(input.shape)}")
    if random_samples.shape[1] != input.shape[-k - 1]:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if random_samples.shape[2] != k:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {k}; got "
                           f"{random_samples.shape[2]}.")
    where = f"{name}()" if k == 2 else f"{name}_out()"
    names = ("height", "width") if k == 2 else ("time", "height", "width")
    for n, m, p, what in zip(input.shape[-k:], output_size, kernel, names):
        if m + p - 1 > n:
            raise RuntimeError(f"{where}: pool {what} {p} too large relative to input {what} "
                               f"{n}")
    return _FRACTIONAL[k](input, random_samples, kernel_size=kernel, output_size=output_size)


@public("functional")
def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    return _fractional(2, input, kernel_size, output_size, output_ratio, _random_samples)


@public("functional")
def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    return _fractional(3, input, kernel_size, output_size, output_ratio, _random_samples)


def _fractional_returning(fn, name):
    def pool(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
             _random_samples=None):
        out, indices = fn(input, kernel_size, output_size, output_ratio,
                          _random_samples=_random_samples)
        return (out, indices) if return_indices else out
    pool.__name__ = pool.__qualname__ = name
    return public("functional", name=name)(pool)


_fractional_returning(fractional_max_pool2d_with_indices, "fractional_max_pool2d")
_fractional_returning(fractional_max_pool3d_with_indices, "fractional_max_pool3d")


# -- max unpooling ---------------------------------------------------------------------------
def _unpool_forward(xp, self, indices, output_size):
    k = len(output_size)
    lead = self.shape[:-k] if self.ndim > k else ()
    n = math.prod(output_size)
    if indices.size and (indices.min() < 0 or indices.max() >= n):
        bad = indices[(indices < 0) | (indices >= n)].flat[0]
        raise RuntimeError(f"Found an invalid max index: {bad} (output volumes are of size "
                           f"{'x'.join(map(str, output_size))})")
    out = xp.zeros((math.prod(lead), n), self.dtype)
    xp.put_along_axis(out, indices.reshape(out.shape[0], -1), self.reshape(out.shape[0], -1),
                      axis=1)
    return out.reshape(*lead, *output_size)


def _unpool_row(k):
    return defop(f"MaxUnpool{k}DBackward0", _unpool_forward, ("self", "indices"), dtype="same",
                 grads={"self": lambda grad, indices: _gather(grad, indices, k),
                        "indices": lambda grad: None})


_UNPOOL = {k: _unpool_row(k) for k in (2, 3)}


def _unpool_size(input, kernel, stride, padding, output_size):
    """F._unpool_output_size: the default size, or output_size checked against it."""
    k = len(kernel)
    default = [(input.shape[input.dim() - k + d] - 1) * stride[d] + kernel[d] - 2 * padding[d]
               for d in range(k)]
    if output_size is None:
        return default
    if len(output_size) == k + 2:
        output_size = output_size[2:]
    if len(output_size) != k:
        raise ValueError(f"output_size should be a sequence containing {k} or {k + 2} "
                         f"elements, but it has a length of '{len(output_size)}'")
    for d in range(k):
        lo, hi = default[d] - stride[d], default[d] + stride[d]
        if not lo < output_size[d] < hi:
            raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between '
                             f'{lo} and {hi})')
    return output_size


def _tuple(value, k):
    return (value,) * k if isinstance(value, (builtins.int, builtins.float)) else tuple(value)


def _max_unpool(k, input, indices, kernel_size, stride, padding, output_size):
    kernel = _tuple(kernel_size, k)
    stride = kernel if stride is None else _tuple(stride, k)
    size = _unpool_size(input, kernel, stride, _tuple(padding, k), output_size)
    if indices.dtype.name != "int64":
        raise RuntimeError(f"elements in indices should be type int64 but got: "
                           f"{_SCALAR_NAMES[indices.dtype.name]}")
    if input.shape != indices.shape:
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor "
                           f"({list(input.shape)}) but got indices tensor with shape: "
                           f"{list(indices.shape)}")
    return _UNPOOL[builtins.max(k, 2)](input, indices, output_size=tuple(size))


@public("functional")
def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    kernel = _tuple(kernel_size, 1)
    stride = kernel if stride is None else _tuple(stride, 1)
    size = _unpool_size(input, kernel, stride, _tuple(padding, 1), output_size)
    return _max_unpool(2, input.unsqueeze(-1), indices.unsqueeze(-1), (kernel[0], 1),
                       (stride[0], 1), (_tuple(padding, 1)[0], 0),
                       (*size, 1)).squeeze(-1)


@public("functional")
def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(2, input, indices, kernel_size, stride, padding, output_size)


@public("functional")
def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(3, input, indices, kernel_size, stride, padding, output_size)


# -- power-average pooling (torch's composites) ----------------------------------------------
def _lp_pool(k, pool, max_pool, input, norm_type, kernel_size, stride, ceil_mode):
    if norm_type == float("inf"):
        return max_pool(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if norm_type == -float("inf"):
        return -max_pool(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if stride is not None:
        out = pool(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = pool(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return (out.sign() * out.abs().relu()).mul(math.prod(_tuple(kernel_size, k))).pow(
        1.0 / norm_type)


@public("functional")
def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(1, avg_pool1d, _functional_max_pool1d, input, norm_type, kernel_size,
                    stride, ceil_mode)


@public("functional")
def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(2, avg_pool2d, _functional_max_pool2d, input, norm_type, kernel_size,
                    stride, ceil_mode)


@public("functional")
def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(3, avg_pool3d, _functional_max_pool3d, input, norm_type, kernel_size,
                    stride, ceil_mode)


# @public objects name themselves (glassgrad.ops.publish)
publish(globals())
