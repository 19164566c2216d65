"""Spatial rearrangements: unfold/fold (im2col and col2im: Im2ColBackward0, Col2ImBackward0),
pixel_shuffle/pixel_unshuffle and channel_shuffle. Each is one row whose backward is the other
row of its pair, so gradients of any order exist."""
import builtins
import math

from ..backend.kernels.im2col import _col2im, _columns
from . import public, publish
from .pool import _floats_and
from .registry import defop


def _pair(value):
    return (value, value) if isinstance(value, builtins.int) else tuple(value)


# -- unfold / fold ---------------------------------------------------------------------------
def _blocks(size, kernel_size, dilation, padding, stride):
    return [(n + 2 * p - d * (k - 1) - 1) // s + 1 for n, k, d, p, s in
            zip(size, kernel_size, dilation, padding, stride)]


def _im2col(xp, self, kernel_size, dilation, padding, stride, **_):
    """(N, C, H, W) -> (N, C * kh * kw, L), or without N."""
    x = self.reshape(-1, *self.shape[-3:])
    cols, _ = _columns(x, kernel_size, stride, [(p, p) for p in padding], dilation, 1)
    return cols.reshape(*self.shape[:-3], cols.shape[2], cols.shape[3])


def _col2im_forward(xp, self, output_size, kernel_size, dilation, padding, stride):
    """(N, C * kh * kw, L) -> (N, C, *output_size), or without N."""
    *lead, ck, _ = self.shape
    c = ck // math.prod(kernel_size)
    out = _blocks(output_size, kernel_size, dilation, padding, stride)
    res = _col2im(self.reshape(-1, c, *kernel_size, *out), output_size, stride, padding,
                  dilation)
    return res.reshape(*lead, *res.shape[1:])


_GEOMETRY = ("kernel_size", "dilation", "padding", "stride")
_im2col_row = defop(
    "Im2ColBackward0", _im2col, dtype=_floats_and("im2col_out_cpu", "bool"),
    grads={"self": lambda grad, self_sym_argsize_minus_2, self_sym_argsize_minus_1,
           kernel_size, dilation, padding, stride: _col2im_row(
               grad, output_size=(self_sym_argsize_minus_2, self_sym_argsize_minus_1),
               kernel_size=kernel_size, dilation=dilation, padding=padding, stride=stride)})
_col2im_row = defop(
    "Col2ImBackward0", _col2im_forward, dtype=_floats_and("col2im_out_cpu", "bool"),
    grads={"self": lambda grad, kernel_size, dilation, padding, stride: _unfold_rows(
        grad, kernel_size, dilation, padding, stride)})


def _unfold_rows(input, kernel_size, dilation, padding, stride):
    h, w = input.shape[-2:]
    return _im2col_row(input, kernel_size=kernel_size, dilation=dilation, padding=padding,
                       stride=stride, self_sym_argsize_minus_2=h, self_sym_argsize_minus_1=w)


def _check_geometry(kernel_size, dilation, padding, stride):
    """ATen's col2im/im2col shape checks of the parameters, in their order."""
    for name, value in zip(_GEOMETRY, (kernel_size, dilation, padding, stride)):
        if len(value) != 2:
            raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(value)}")
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = kernel_size, dilation, padding, stride
    if kh <= 0 or kw <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kernel_height: "
                           f"{kh} kernel_width: {kw}")
    if sh <= 0 or sw <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got stride_height: {sh} "
                           f"stride_width: {sw}")
    if dh <= 0 or dw <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilation_height: "
                           f"{dh} dilation_width: {dw}")
    if ph < 0 or pw < 0:
        raise RuntimeError(f"padding should be non-negative, but got pad_height: {ph} "
                           f"pad_width: {pw}")


def _geometry(kernel_size, dilation, padding, stride):
    params = [_pair(v) for v in (kernel_size, dilation, padding, stride)]
    _check_geometry(*params)
    return dict(zip(_GEOMETRY, params))


def _sizes(values):
    return f"({', '.join(map(str, values))})"


@public("functional")
def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    g = _geometry(kernel_size, dilation, padding, stride)
    if input.dim() not in (3, 4) or 0 in input.shape[-3:]:
        input.size(2)       # a smaller input: torch's IndexError
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with possibly 0 batch size "
                           f"and other non-zero dimensions for input, but got: "
                           f"{list(input.shape)}")
    size = input.shape[-2:]
    blocks = _blocks(size, g["kernel_size"], g["dilation"], g["padding"], g["stride"])
    if builtins.any(b < 1 for b in blocks):
        raise RuntimeError(f"Given input with spatial size {_sizes(size)}, kernel_size="
                           f"{_sizes(g['kernel_size'])}, dilation={_sizes(g['dilation'])}, "
                           f"padding={_sizes(g['padding'])}, calculated shape of the array of "
                           f"sliding blocks as {_sizes(blocks)}, but its components must be at "
                           f"least one.")
    return _unfold_rows(input, **g)


@public("functional")
def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    output_size = _pair(output_size)
    if len(output_size) != 2:
        raise RuntimeError(f"It is expected output_size equals to 2, but got size "
                           f"{len(output_size)}")
    g = _geometry(kernel_size, dilation, padding, stride)
    if input.dim() not in (2, 3) or 0 in input.shape[-2:]:
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 "
                           f"batch size and non-zero dimensions for input, but got: "
                           f"{list(input.shape)}")
    k = math.prod(g["kernel_size"])
    if input.shape[-2] % k:
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product "
                           f"of kernel_size, but got input.size(1)={input.shape[-2]} and "
                           f"kernel_size={_sizes(g['kernel_size'])}.")
    blocks = _blocks(output_size, g["kernel_size"], g["dilation"], g["padding"], g["stride"])
    if builtins.any(b < 1 for b in blocks):
        raise RuntimeError(f"Given output_size={_sizes(output_size)}, kernel_size="
                           f"{_sizes(g['kernel_size'])}, dilation={_sizes(g['dilation'])}, "
                           f"padding={_sizes(g['padding'])}, stride={_sizes(g['stride'])}, "
                           f"calculated shape of the array of sliding blocks as "
                           f"{_sizes(blocks)}, but its components must be at least one.")
    if input.shape[-1] != math.prod(blocks):
        raise RuntimeError(f"Given output_size={_sizes(output_size)}, kernel_size="
                           f"{_sizes(g['kernel_size'])}, dilation={_sizes(g['dilation'])}, "
                           f"padding={_sizes(g['padding'])}, stride={_sizes(g['stride'])}, "
                           f"expected size of input's dimension 2 to match the calculated number "
                           f"of sliding blocks {blocks[0]} * {blocks[1]} = {math.prod(blocks)}, "
                           f"but got input.size(2)={input.shape[-1]}.")
    return _col2im_row(input, output_size=output_size, **g)


# -- pixel and channel shuffles --------------------------------------------------------------
def _shuffle(xp, self, upscale_factor):
    *lead, c, h, w = self.shape
    r = upscale_factor
    x = self.reshape(*lead, c // (r * r), r, r, h, w)
    n = len(lead)
    x = x.transpose(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return x.reshape(*lead, c // (r * r), h * r, w * r)


def _unshuffle(xp, self, downscale_factor):
    *lead, c, h, w = self.shape
    r = downscale_factor
    x = self.reshape(*lead, c, h // r, r, w // r, r)
    n = len(lead)
    x = x.transpose(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return x.reshape(*lead, c * r * r, h // r, w // r)


_pixel_shuffle = defop("PixelShuffleBackward0", lambda xp, self, upscale_factor: _shuffle(
    xp, self, upscale_factor).copy(), dtype="same", grads={
    "self": lambda grad, upscale_factor: _pixel_unshuffle(grad, downscale_factor=upscale_factor)})
_pixel_unshuffle = defop("PixelUnshuffleBackward0", lambda xp, self, downscale_factor: _unshuffle(
    xp, self, downscale_factor).copy(), dtype="same", grads={
    "self": lambda grad, downscale_factor: _pixel_shuffle(grad, upscale_factor=downscale_factor)})


@public("function", "functional", signatures=(
    "pixel_shuffle(Tensor input, int64_t upscale_factor)",))
def pixel_shuffle(input, upscale_factor):
    if input.dim() < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got "
                           f"input with {input.dim()} dimension(s)")
    if upscale_factor <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got "
                           f"{upscale_factor}")
    c = input.shape[-3]
    if c % (upscale_factor * upscale_factor):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be "
                           f"divisible by the square of upscale_factor, but input.size(-3)={c} "
                           f"is not divisible by {upscale_factor * upscale_factor}")
    return _pixel_shuffle(input, upscale_factor=upscale_factor)


@public("function", "functional", signatures=(
    "pixel_unshuffle(Tensor input, int64_t downscale_factor)",))
def pixel_unshuffle(input, downscale_factor):
    if input.dim() < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but "
                           f"got input with {input.dim()} dimension(s)")
    if downscale_factor <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got "
                           f"{downscale_factor}")
    for name, d in (("height", -2), ("width", -1)):
        if input.shape[d] % downscale_factor:
            raise RuntimeError(f"pixel_unshuffle expects {name} to be divisible by "
                               f"downscale_factor, but input.size({d})={input.shape[d]} is not "
                               f"divisible by {downscale_factor}")
    return _pixel_unshuffle(input, downscale_factor=downscale_factor)


def _channel_shuffle_forward(xp, self, groups):
    n, c, *rest = self.shape
    x = self.reshape(n, groups, c // groups, *rest).swapaxes(1, 2)
    return x.reshape(self.shape).copy()


_channel_shuffle = defop("ChannelShuffleBackward0", _channel_shuffle_forward, dtype="same",
                         grads={"self": lambda grad, groups: _channel_shuffle(
                             grad, groups=grad.shape[1] // groups)})


@public("function", "functional", signatures=(
    "channel_shuffle(Tensor input, SymInt groups)",))
def channel_shuffle(input, groups):
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of "
                           f"groups:{groups}")
    if input.dim() <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with "
                           f"sizes {list(input.shape)}")
    c = input.shape[1]
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels "
                           f"and {groups} groups.")
    return _channel_shuffle(input, groups=groups)


# @public objects name themselves (glassgrad.ops.publish)
publish(globals())
