"""Sampling at coordinates: F.grid_sample (bilinear and nearest over 4-D and 5-D inputs, bicubic
over 4-D ones, every padding mode: GridSampler2DBackward0, GridSampler3DBackward0) and
F.affine_grid (AffineGridGeneratorBackward0).

grid_sample reads, for each output position, the input at a few taps (the corners of the cell
holding the coordinate, the nearest position, or bicubic's 4 x 4 neighbours) with weights from
ATen's coordinate rules (grid_sampler_compute_source_index: unnormalise, clip for border,
reflect for reflection; bicubic pads its taps' positions instead, and weighs them with the
cubic convolution coefficients, a = -0.75).
The taps are written once with glassgrad ops (gather, scatter_add, floor, ...), so the forward
is that composite run without a graph, and the formulas (the gradient of the input by
scatter_add, of the grid by each weight's derivative times the coordinate's) are composites
too: their own gradients exist."""
import builtins
import math
import warnings

from .._autograd.grad_mode import no_grad
from .._creation import tensor, zeros
from .._tensor import Tensor
from ..backend import xp
from . import public, publish
from .pool import _floats_and
from .registry import _SCALAR_NAMES, defop
from .shape import stack

_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
_PADDINGS = {"zeros": 0, "border": 1, "reflection": 2}


# -- coordinates -----------------------------------------------------------------------------
def _reflect(x, twice_low, twice_high):
    """reflect_coordinates, and the sign of its derivative."""
    if twice_low == twice_high:
        return x * 0, x.detach() * 0
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    shifted = x - low
    folded = shifted.abs()
    extra = folded.fmod(span)
    flips = (folded / span).floor().detach()
    even = flips.remainder(2) == 0
    out = (extra + low).where(even, span - extra + low)
    sign = shifted.detach().sign().where(shifted.detach() != 0, shifted.detach() * 0 + 1)
    return out, sign.where(even, -sign)


def _source(coord, size, padding_mode, align_corners):
    """grid_sampler_compute_source_index with its derivative (as ATen's *_set_grad)."""
    x, scale = _unnormalise(coord, size, align_corners)
    mult = x.detach() * 0 + scale
    if padding_mode == 2:
        x, sign = (_reflect(x, 0, 2 * (size - 1)) if align_corners else
                   _reflect(x, -1, 2 * size - 1))
        mult = mult * sign
    if padding_mode:
        inside = (x.detach() > 0) & (x.detach() < size - 1)
        mult = mult.where(inside, mult * 0)
        x = x.clamp(0, size - 1)
    return x, mult


def _unnormalise(coord, size, align_corners):
    """grid_sampler_unnormalize and its derivative."""
    if align_corners:
        return (coord + 1) / 2 * (size - 1), (size - 1) / 2
    return ((coord + 1) * size - 1) / 2, size / 2


def _bounded(index, size, padding_mode, align_corners):
    """compute_coordinates of an integer position (bicubic's taps): clipped for border,
    reflected then clipped for reflection, as it is for zeros."""
    if padding_mode == 2:
        index = (_reflect(index, 0, 2 * (size - 1)) if align_corners else
                 _reflect(index, -1, 2 * size - 1))[0]
    return index.clamp(0, size - 1) if padding_mode else index


_A = -0.75      # ATen's cubic convolution constant (get_cubic_upsample_coefficients)


def _near(x):       # |x| <= 1, and its derivative
    return ((_A + 2) * x - (_A + 3)) * x * x + 1, (3 * (_A + 2) * x - 2 * (_A + 3)) * x


def _far(x):        # 1 < |x| < 2
    return ((_A * x - 5 * _A) * x + 8 * _A) * x - 4 * _A, (3 * _A * x - 10 * _A) * x + 8 * _A


def _cubic_dim(coord, size, padding_mode, align_corners):
    """Bicubic along one dim: four taps around the unnormalised coordinate (padding applies
    to the taps' positions, not to the coordinate), with get_cubic_upsample_coefficients'
    weights and their derivatives in the grid component."""
    x, scale = _unnormalise(coord, size, align_corners)
    low = x.detach().floor()
    t = x - low
    parts = (_far(t + 1), _near(t), _near(1 - t), _far(2 - t))
    signs = (1, 1, -1, -1)
    return [(_bounded(low + (i - 1), size, padding_mode, align_corners), w, d * (sign * scale))
            for i, ((w, d), sign) in enumerate(zip(parts, signs))]


def _taps(grid, size, mode, padding_mode, align_corners):
    """For each tap: (flat input index (N, P), weight (N, P), [d weight / d grid component]
    per spatial dim). Out-of-bounds taps weigh 0 (zeros padding)."""
    k = len(size)
    n = grid.shape[0]
    coords = grid.reshape(n, -1, k)
    per_dim = []        # per spatial dim: [(index, weight, d weight / d coordinate)]
    for d in range(k):
        if mode == 2:
            per_dim.append(_cubic_dim(coords[..., k - 1 - d], size[d], padding_mode,
                                      align_corners))
            continue
        x, mult = _source(coords[..., k - 1 - d], size[d], padding_mode, align_corners)
        if mode == 1:
            per_dim.append([(x.detach().round(), x * 0 + 1, mult * 0)])
            continue
        lo = x.detach().floor()
        frac = x - lo
        per_dim.append([(lo, 1 - frac, -mult), (lo + 1, frac, mult)])
    taps = []
    for choice in _corners([len(p) for p in per_dim]):
        picked = [per_dim[d][c] for d, c in enumerate(choice)]
        inside, flat = None, 0
        for (index, _, _), s in zip(picked, size):
            ok = (index >= 0) & (index <= s - 1)
            inside = ok if inside is None else inside & ok
            flat = flat * s + index.clamp(0, s - 1)
        weight = _product([w for _, w, _ in picked]) * inside
        grads = [_product([dw if e == d else w for e, (_, w, dw) in enumerate(picked)]) * inside
                 for d in range(k)]
        taps.append((flat.long(), weight, grads))
    return taps


def _corners(counts):
    out = [()]
    for c in counts:
        out = [o + (i,) for o in out for i in range(c)]
    return out


def _product(factors):
    out = factors[0]
    for f in factors[1:]:
        out = out * f
    return out


def _read(input, index):
    """input (N, C, *size) at flat spatial positions index (N, P): (N, C, P)."""
    n, c = input.shape[:2]
    flat = input.reshape(n, c, -1)
    return flat.gather(2, index.unsqueeze(1).expand(n, c, index.shape[1]))


# -- the composites --------------------------------------------------------------------------
def _sample(input, grid, interpolation_mode, padding_mode, align_corners):
    size = tuple(input.shape[2:])
    out = 0
    for index, weight, _ in _taps(grid, size, interpolation_mode, padding_mode, align_corners):
        out = out + _read(input, index) * weight.unsqueeze(1)
    return out.reshape(*input.shape[:2], *grid.shape[1:-1])


def _input_grad(grad, input, grid, interpolation_mode, padding_mode, align_corners):
    n, c = input.shape[:2]
    g = grad.reshape(n, c, -1)
    out = zeros((n, c, math.prod(input.shape[2:])), dtype=grad.dtype)
    for index, weight, _ in _taps(grid, tuple(input.shape[2:]), interpolation_mode,
                                  padding_mode, align_corners):
        out = out.scatter_add(2, index.unsqueeze(1).expand(n, c, index.shape[1]),
                              g * weight.unsqueeze(1))
    return out.reshape(input.shape)


def _grid_grad(grad, input, grid, interpolation_mode, padding_mode, align_corners):
    if interpolation_mode == 1:     # nearest: the output is flat in the grid
        return grid.masked_fill(tensor(True), 0)
    n, c = input.shape[:2]
    k = input.dim() - 2
    g = grad.reshape(n, c, -1)
    parts = [0] * k
    for index, _, grads in _taps(grid, tuple(input.shape[2:]), interpolation_mode,
                                 padding_mode, align_corners):
        seen = (_read(input, index) * g).sum(1)
        parts = [p + seen * dw for p, dw in zip(parts, grads)]
    # the grid's last dim is (x, y[, z]): the spatial dims reversed
    return stack(parts[::-1], -1).reshape(grid.shape)


def _forward(xp, input, grid, interpolation_mode, padding_mode, align_corners):
    with no_grad():
        return _sample(Tensor._make(input), Tensor._make(grid), interpolation_mode,
                       padding_mode, align_corners)._data


def _grid_rows(k):
    return defop(f"GridSampler{k}DBackward0", _forward, ("input", "grid"), dtype="same",
                 grads={"input": _input_grad, "grid": _grid_grad})


_GRID_SAMPLER = {2: _grid_rows(2), 3: _grid_rows(3)}


def _check_grid(input, grid, mode, k=None):
    """ATen's grid_sampler checks (check_grid_sampler_common, then the 2-d or 3-d one: ``k``,
    the input's dims, where the caller names the kernel), in their order."""
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, "
                           f"but got input with sizes {list(input.shape)} and grid with sizes "
                           f"{list(grid.shape)}")
    if grid.shape[-1] != input.dim() - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {input.dim() - 2} in "
                           f"last dimension, but got grid with sizes {list(grid.shape)}")
    for d in range(2, input.dim()):
        if input.shape[d] == 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial "
                               f"dimensions, but input has sizes {list(input.shape)} with "
                               f"dimension {d} being empty")
    k = k or (4 if input.dim() == 4 else 5)
    if input.dim() != k or grid.dim() != k:
        raise RuntimeError(f"grid_sampler(): expected {k}D input and grid with same number of "
                           f"dimensions, but got input with sizes {list(input.shape)} and grid "
                           f"with sizes {list(grid.shape)}")
    if mode == 2 and k == 5:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if input.dtype is not grid.dtype:
        raise RuntimeError(f"expected scalar type {_SCALAR_NAMES[input.dtype.name]} but found "
                           f"{_SCALAR_NAMES[grid.dtype.name]}")
    kernel = "grid_sampler_2d_cpu_kernel_impl" if k == 4 else "grid_sampler3d_cpu"
    _floats_and(kernel)([input], None)      # raises where torch's kernel has no version


def _align_corners_default(align_corners):
    if align_corners is None:
        warnings.warn("Default grid_sample and affine_grid behavior has changed to "
                      "align_corners=False since 1.3.0. Please specify align_corners=True if "
                      "the old behavior is desired. See the documentation of grid_sample for "
                      "details.", stacklevel=3)
        return False
    return align_corners


@public("functional")
def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    if mode not in _MODES:
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in _PADDINGS:
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    align_corners = _align_corners_default(align_corners)
    _check_grid(input, grid, _MODES[mode])
    return _GRID_SAMPLER[input.dim() - 2](
        input, grid, interpolation_mode=_MODES[mode], padding_mode=_PADDINGS[padding_mode],
        align_corners=builtins.bool(align_corners))


def _grid_sampler(k):
    def grid_sampler_nd(input, grid, interpolation_mode, padding_mode, align_corners):
        if interpolation_mode not in (0, 1, 2) or padding_mode not in (0, 1, 2):
            raise NotImplementedError(f"grid_sampler: interpolation mode "
                                      f"{interpolation_mode} / padding mode {padding_mode}: "
                                      "torch's codes are 0, 1 and 2")
        _check_grid(input, grid, interpolation_mode, k)
        return _GRID_SAMPLER[input.dim() - 2](
            input, grid, interpolation_mode=interpolation_mode, padding_mode=padding_mode,
            align_corners=align_corners)
    return grid_sampler_nd


for _name, _k in (("grid_sampler", None), ("grid_sampler_2d", 4), ("grid_sampler_3d", 5)):
    public("function", name=_name, signatures=(
        f"{_name}(Tensor input, Tensor grid, int64_t interpolation_mode, "
        "int64_t padding_mode, bool align_corners)",))(_grid_sampler(_k))
del _name, _k


# -- affine_grid -----------------------------------------------------------------------------
def _base_grid(size, align_corners, dtype):
    """(prod(spatial), k + 1): each output position's normalised (x, y[, z], 1)."""
    axes = []
    for n in size[2:]:
        if n <= 1:
            axes.append(xp.zeros(builtins.max(n, 1), dtype)[:n])
            continue
        line = xp.linspace(-1, 1, n, dtype=dtype)
        axes.append(line if align_corners else line * ((n - 1) / n))
    mesh = xp.meshgrid(*axes, indexing="ij")
    cols = [m.reshape(-1) for m in mesh[::-1]] + [xp.ones(math.prod(size[2:]), dtype)]
    return xp.stack(cols, -1).astype(dtype)


def _affine_forward(xp, theta, size, align_corners):
    base = _base_grid(size, align_corners, theta.dtype)
    out = xp.matmul(base, theta.swapaxes(1, 2))            # (N, P, k)
    return out.reshape(size[0], *size[2:], len(size) - 2)


def _affine_grad(grad, size, align_corners):
    base = tensor(_base_grid(size, align_corners, xp.float64), dtype=grad.dtype)
    n, k = size[0], len(size) - 2
    return grad.reshape(n, -1, k).transpose(1, 2).matmul(base)


_affine_grid = defop("AffineGridGeneratorBackward0", _affine_forward, ("theta",), dtype="same",
                     grads={"theta": _affine_grad})


@public("functional")
def affine_grid(theta, size, align_corners=None):
    align_corners = _align_corners_default(align_corners)
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size "
                             f"{size}. Got {theta.shape}.")
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size "
                             f"{size}. Got {theta.shape}.")
    else:
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {size}.")
    if align_corners and builtins.min(size[2:]) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size "
                      "grids when align_corners=True. This is not an intended use case of "
                      "affine_grid. See the documentation of affine_grid for details.",
                      stacklevel=2)
    elif builtins.min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    return _affine_grid(theta, size=tuple(size), align_corners=builtins.bool(align_corners))


# @public objects name themselves (glassgrad.ops.publish)
publish(globals())
