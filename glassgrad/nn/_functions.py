"""torch.nn._functions: the autograd Functions behind legacy modules (CrossMapLRN2d)."""
from ..autograd import Function
from ..backend import xp


def _window_sums(a, lo, hi):
    """sum of a[:, j] for j in [lo[c], hi[c]] (clipped to the channels) for each channel c."""
    c = a.shape[1]
    prefix = xp.concatenate([xp.zeros_like(a[:, :1]), xp.cumsum(a, axis=1)], axis=1)
    lo, hi = xp.clip(lo, 0, c), xp.clip(hi + 1, 0, c)
    return prefix[:, xp.maximum(hi, lo)] - prefix[:, lo]


class CrossMapLRN2d(Function):
    """torch's legacy CrossMapLRN2d (nn/_functions.py), its running window as it runs: each
    channel's sum of squares over channels c - pre_pad + 1 .. c + pre_pad - 1, channel 0
    always kept in (the running sum never subtracts it), its backward over the window
    channels c - (size - (size - 1) // 2) .. c + (size - 1) // 2."""

    @staticmethod
    def forward(ctx, input, size, alpha, beta, k):
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D "
                             f"instead.")
        a = input.detach().numpy()
        channels = a.shape[1]
        pre_pad = int((size - 1) / 2 + 1)
        c = xp.arange(channels)
        sq = a * a
        sums = sq[:, :1] + _window_sums(sq, xp.maximum(c - pre_pad + 1, 1),
                                        xp.minimum(c + pre_pad - 1, channels - 1))
        scale = sums * (alpha / size) + k
        out = scale ** -beta * a
        ctx.args = (a, out, scale, size, alpha, beta)
        return input.new_tensor(out)

    @staticmethod
    def backward(ctx, grad_output):
        a, out, scale, size, alpha, beta = ctx.args
        g = grad_output.detach().numpy()
        before = int(size - (size - 1) / 2)
        c = xp.arange(a.shape[1])
        accum = _window_sums(g * out / scale, c - before, c + size - 1 - before)
        grad = scale ** -beta * g - (2 * alpha * beta / size) * a * accum
        return grad_output.new_tensor(grad.astype(a.dtype)), None, None, None, None
