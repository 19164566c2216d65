"""BatchNorm's batch statistics in the order torch's CPU kernels add (aten/src/ATen/native/cpu/
batch_norm_kernel.cpp, collect_stats), so the mean and the variance agree to the last bit.

A contiguous input with more than one element per (sample, channel) plane is reduced channel by
channel, sample after sample, in the accumulate type (double, also for float32): the sum, the
mean rounded to the dtype, then the sum of squared deviations (the deviation and its square in
the dtype). For float64 the compiler pairs the inner loop's elements two by two and contracts
the odd last element of each plane into a fused multiply-add. NumPy's cumsum adds in order, so
each run of plain additions is one cumsum (no per-element Python loop).

An input with one element per plane ((N, C), (N, C, 1, ...)) takes the channels-last kernel:
with more rows than threads, each of torch's threads sums its block of rows into a buffer in the
dtype (vector adds, the squared deviations fused: ``y + d * d`` is one FMA), and the thread
buffers are added in double. The blocks are at::parallel_for's, ceil(rows / threads) rows each;
with no more rows than threads, one block holds them all (found by comparing with torch 2.13).
A channels-last input (4-d or 5-d, the channels fastest in memory) takes the same kernel, its rows
the (sample, position) pairs in memory order.

Any other layout (a permutation that is neither, a slice) takes Normalization.cpp's strided
path: the mean is torch.mean's (here NumPy's mean: its summation order is not torch's, so the
mean may differ from torch's in the last bit), the squared deviations are computed and summed in
double in memory order, and the inverse standard deviation and the running statistics are taken
from that double sum, unrounded; the output is ((x - mean) * invstd) * weight + bias, unfused."""
import numpy as np

from .fma import fma


def _ordered_sum(a, axis, start=None):
    """Sum along ``axis`` adding one element after the other (from ``start``)."""
    if start is not None:
        a = np.concatenate([np.expand_dims(start, axis), a], axis)
    return np.take(np.cumsum(a, axis=axis), -1, axis=axis)


def _planes(x, n, c, size):
    """(C, N, size): each channel's elements in the order the contiguous kernel reads them."""
    return x.reshape(n, c, size).transpose(1, 0, 2)


def _contiguous(x, n, c, size):
    dt = x.dtype.type
    planes = _planes(x, n, c, size)
    total = _ordered_sum(planes.reshape(c, -1).astype(np.float64), 1)
    mean = (total / (n * size)).astype(dt)
    dev = planes - mean[:, None, None]
    sq = dev * dev
    if dt is np.float32 or size % 2 == 0:
        return mean, _ordered_sum(sq.reshape(c, -1).astype(np.float64), 1).astype(dt)
    acc = np.zeros(c)
    for i in range(n):      # per sample: its plane's pairs in order, then the fused last one
        acc = _ordered_sum(sq[:, i, :-1], 1, acc)
        acc = fma(dev[:, i, -1], dev[:, i, -1], acc, np.float64)
    return mean, acc


def _blocked(x, rows, c, threads):
    dt = x.dtype.type
    per = -(-rows // threads) if rows > threads else rows
    blocks = -(-rows // per)
    padded = np.zeros((blocks * per, c), dt)
    padded[:rows] = x.reshape(rows, c)
    padded = padded.reshape(blocks, per, c)
    mean = (_ordered_sum(_ordered_sum(padded, 1).astype(np.float64), 0) / rows).astype(dt)
    dev = padded - mean
    dev[-1, rows - (blocks - 1) * per:] = 0       # padding rows add nothing
    buf = np.zeros((blocks, c), dt)
    for k in range(per):    # a thread's rows one after the other, all threads at once
        buf = fma(dev[:, k], dev[:, k], buf, dt)
    return mean, _ordered_sum(buf.astype(np.float64), 0).astype(dt)


def layout(x):
    """Which of torch's CPU kernels an (N, C, *) array takes: 'contiguous', 'channels_last'
    (4-d or 5-d with the channels fastest, as is_contiguous(memory_format=channels_last)
    says) or 'strided' (any other layout)."""
    if x.flags.c_contiguous:
        return "contiguous"
    if x.ndim in (4, 5) and _channels_last(x).flags.c_contiguous:
        return "channels_last"
    return "strided"


def _channels_last(x):
    """The (N, *spatial, C) view of an (N, C, *spatial) array."""
    return x.transpose(0, *range(2, x.ndim), 1)


def _memory_order(x):
    """(C, elements): each channel's elements in the order a TensorIterator visits them
    (the dims sorted by stride, the smallest innermost)."""
    planes = np.moveaxis(x, 1, 0)
    order = sorted(range(1, planes.ndim), key=lambda d: -planes.strides[d])
    return planes.transpose(0, *order).reshape(planes.shape[0], -1)


def strided_var_sum(x, mean):
    """Normalization.cpp's strided path: the sum of the squared deviations from ``mean``, each
    in double, added in memory order; float64, not rounded to the dtype."""
    dev = _memory_order(x).astype(np.float64) - mean.astype(np.float64)[:, None]
    return _ordered_sum(dev * dev, 1)


def _strided(x):
    """The strided path's (mean, var_sum): the mean as torch.mean's up to summation order."""
    mean = _memory_order(x).mean(axis=1, dtype=x.dtype)
    return mean, strided_var_sum(x, mean)


def batch_stats(x, threads):
    """(mean, var_sum) per channel of a float32/float64 array (N, C, *), as torch's CPU
    kernel for its layout computes them with ``threads`` threads. var_sum is in the dtype,
    except for the strided path's: float64, unrounded."""
    n, c = x.shape[:2]
    size = x.size // (n * c)
    kind = layout(x)
    if kind == "channels_last":
        return _blocked(np.ascontiguousarray(_channels_last(x)), n * size, c, threads)
    if kind == "strided":
        return _strided(x)
    if size > 1:
        return _contiguous(x, n, c, size)
    return _blocked(x, n, c, threads)


def invstd(var_sum, count, eps, dtype):
    """Normalization.cpp's InvStd of var_sum / count (divided in var_sum's dtype, then in
    double), in ``dtype``."""
    var = (var_sum / var_sum.dtype.type(count)).astype(np.float64)
    with np.errstate(divide="ignore"):
        return (1 / np.sqrt(var + eps)).astype(dtype)


def eval_invstd(running_var, eps):
    """1 / sqrt(running_var + eps) in the dtype (the inference path's)."""
    dt = running_var.dtype.type
    with np.errstate(divide="ignore"):
        return dt(1) / np.sqrt(running_var + dt(eps))


def normalise(x, mean, invstd, weight, bias):
    """The kernel's output, laid out as torch's. Contiguous and channels-last inputs: x * alpha
    + beta per channel, alpha = invstd * weight and beta = bias - mean * alpha, both fused (its
    loops contract to FMAs); the strided path: ((x - mean) * invstd) * weight + bias, unfused,
    into a contiguous array."""
    dt = x.dtype.type
    per_channel = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    kind = layout(x)
    if kind == "strided":
        out = (np.ascontiguousarray(x) - mean.reshape(per_channel)) * invstd.reshape(per_channel)
        if weight is not None:
            out *= weight.reshape(per_channel)
        if bias is not None:
            out += bias.reshape(per_channel)
        return out
    alpha = invstd if weight is None else invstd * weight
    beta = fma(-mean, alpha, dt(0) if bias is None else bias, dt)
    if kind == "channels_last":     # computed in memory order, kept channels-last
        out = fma(_channels_last(x), alpha, beta, dt)
        return np.moveaxis(np.ascontiguousarray(out), -1, 1)
    return fma(x, alpha.reshape(per_channel), beta.reshape(per_channel), dt)


def running(mean, var_sum, count, running_mean, running_var, momentum):
    """Normalization.cpp's update: the new (running_mean, running_var), each None where not
    kept. After the contiguous kernels (var_sum in the dtype): the mean's update in the dtype,
    the unbiased variance var_sum / (count - 1) in the dtype, the new running_var summed in
    double. After the strided path (a float64 var_sum): both updates in double."""
    dt = mean.dtype.type
    strided = var_sum.dtype != mean.dtype
    m = np.float64(momentum) if strided else dt(momentum)
    new_mean = None if running_mean is None else (
        m * mean.astype(m.dtype) + (1 - m) * running_mean.astype(m.dtype)).astype(dt)
    new_var = None
    if running_var is not None:
        unbiased = (var_sum / var_sum.dtype.type(max(count - 1, 1))).astype(np.float64)
        kept = ((1 - m) * running_var.astype(m.dtype)).astype(np.float64)
        new_var = (np.float64(m) * unbiased + kept).astype(dt)
    return new_mean, new_var
