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
with no more rows than threads, one block holds them all (found by comparing with torch 2.13)."""
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


def batch_stats(x, threads):
    """(mean, var_sum) per channel of a float32/float64 array (N, C, *), as torch's CPU
    kernel computes them with ``threads`` threads."""
    n, c = x.shape[:2]
    size = x.size // (n * c)
    x = np.ascontiguousarray(x)
    if size > 1:
        return _contiguous(x, n, c, size)
    return _blocked(x, n, c, threads)


def invstd(var_sum, count, eps):
    """Normalization.cpp's InvStd of var_sum / count (divided in the dtype, then in double)."""
    var = (var_sum / var_sum.dtype.type(count)).astype(np.float64)
    with np.errstate(divide="ignore"):
        return (1 / np.sqrt(var + eps)).astype(var_sum.dtype)


def eval_invstd(running_var, eps):
    """1 / sqrt(running_var + eps) in the dtype (the inference path's)."""
    dt = running_var.dtype.type
    with np.errstate(divide="ignore"):
        return dt(1) / np.sqrt(running_var + dt(eps))


def normalise(x, mean, invstd, weight, bias):
    """The kernel's output: x * alpha + beta per channel, alpha = invstd * weight and
    beta = bias - mean * alpha, both fused (its loops contract to FMAs)."""
    dt = x.dtype.type
    alpha = invstd if weight is None else invstd * weight
    beta = fma(-mean, alpha, dt(0) if bias is None else bias, dt)
    per_channel = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    return fma(x, alpha.reshape(per_channel), beta.reshape(per_channel), dt)


def running(mean, var_sum, count, running_mean, running_var, momentum):
    """Normalization.cpp's update: the new (running_mean, running_var), each None where not
    kept; the unbiased variance is var_sum / (count - 1) in the dtype, the new running_var
    summed in double."""
    dt = mean.dtype.type
    m = dt(momentum)
    new_mean = None if running_mean is None else m * mean + (dt(1) - m) * running_mean
    new_var = None
    if running_var is not None:
        unbiased = (var_sum / dt(max(count - 1, 1))).astype(np.float64)
        kept = ((dt(1) - m) * running_var).astype(np.float64)
        new_var = (np.float64(m) * unbiased + kept).astype(dt)
    return new_mean, new_var
