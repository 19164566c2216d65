"""im2col for convolution and pooling: an input's windows as a strided view, then columns.

``numpy.lib.stride_tricks.sliding_window_view`` gives every window of the padded input without
copying (a view with repeated strides); stepping it by stride and dilation and reshaping copies
each window once into the columns a convolution multiplies as one batched matmul, which is
how conv1d/2d/3d and their gradients stay whole-array NumPy work. _col2im is its adjoint
(columns summed back onto the positions they read: fold, a convolution's input gradient). The pooling kernels pad with
_padded too.

Flat planes (stride 1): with every spatial dim of the padded input flattened into one, a window
origin is one flat position q, and kernel offset k reads position q + start[k] -- so all of one
offset's columns are one contiguous slice of the plane. Columns over the flat origins 0..span-1
(the valid ones and, between them, the "wide row" origins that run past a row's end) make
col2im one contiguous add per offset (_fold_flat) instead of one short add per row; the wide
origins carry zeros (_spread), so they add nothing. A CuPy backend would provide the same
functions.
"""
import builtins
import math

import numpy as xp


# every window of an array as a view (repeated strides, no copy)
_windows_view = xp.lib.stride_tricks.sliding_window_view


def _padded(x, pads, fill):
    """x with its last len(pads) dims padded by (before, after) ``fill`` values (numpy.pad's
    constant mode, written as a fill and one copy: numpy.pad's bookkeeping costs more than
    the copy for the small inputs where call overhead matters)."""
    if not builtins.any(lo or hi for lo, hi in pads):
        return x
    k = len(pads)
    size = x.shape[x.ndim - k:]
    out = xp.full(x.shape[:x.ndim - k] + tuple(s + lo + hi for s, (lo, hi) in zip(size, pads)),
                  fill, dtype=x.dtype)
    out[(Ellipsis,) + tuple(builtins.slice(lo, lo + s) for s, (lo, _) in zip(size, pads))] = x
    return out


def _windows(x, kernel, stride, padding, dilation):
    """x (..., *spatial) zero-padded (``padding``: (lo, hi) per spatial dim) as a view
    (..., *out, *kernel) of its windows."""
    k = len(kernel)
    x = _padded(x, padding, 0)
    span = tuple(d * (kk - 1) + 1 for kk, d in zip(kernel, dilation))
    win = _windows_view(x, span, axis=tuple(range(x.ndim - k, x.ndim)))
    steps = tuple(builtins.slice(None, None, s) for s in stride) + \
        tuple(builtins.slice(None, None, d) for d in dilation)
    return win[(Ellipsis,) + steps]


def _columns(x, kernel, stride, padding, dilation, groups):
    """(N, groups, C/groups * prod(kernel), L) columns of x (N, C, *spatial), and the output
    spatial shape."""
    k = len(kernel)
    win = _windows(x, kernel, stride, padding, dilation)      # (N, C, *out, *kernel)
    out = win.shape[2:2 + k]
    win = win.transpose(0, 1, *range(2 + k, 2 + 2 * k), *range(2, 2 + k))
    n, c = x.shape[:2]
    return win.reshape(n, groups, c // groups * math.prod(kernel), math.prod(out)), out


def _col2im(cols, size, stride, padding, dilation):
    """cols (N, C, *kernel, *out) summed onto an (N, C, *size) array: each kernel offset's
    columns added onto the positions they read (one strided add per offset)."""
    k = len(size)
    n, c, kernel, out = cols.shape[0], cols.shape[1], cols.shape[2:2 + k], cols.shape[2 + k:]
    padded = xp.zeros((n, c, *(s + 2 * p for s, p in zip(size, padding))), cols.dtype)
    whole = (builtins.slice(None),) * 2
    for at in xp.ndindex(*kernel):
        region = tuple(builtins.slice(i * d, i * d + s * (m - 1) + 1, s)
                       for i, d, s, m in zip(at, dilation, stride, out))
        padded[whole + region] += cols[whole + at]
    return xp.ascontiguousarray(padded[whole + tuple(builtins.slice(p, p + s)
                                                     for p, s in zip(padding, size))])


def _flat_geometry(padded, kernel, dilation, out):
    """Stride-1 windows on planes of spatial size ``padded`` flattened: each dim's step in the
    flat plane, the span of window origins covering the ``out`` valid ones, and each kernel
    offset's start."""
    steps = [math.prod(padded[m + 1:]) for m in range(len(padded))]
    span = builtins.sum((o - 1) * s for o, s in zip(out, steps)) + 1
    starts = [0]
    for k, d, s in zip(kernel, dilation, steps):    # row-major over the kernel offsets
        starts = [a + i * d * s for a in starts for i in range(k)]
    return steps, span, starts


def _strided(x, shape, steps):
    """A view of C-contiguous x: ``shape`` with ``steps`` (in elements; the ndarray
    constructor over x's buffer, which checks the bounds: less call overhead than
    as_strided)."""
    return xp.ndarray(shape, x.dtype, x, strides=tuple(s * x.itemsize for s in steps))


def _flat_columns(x, kernel, dilation, steps, span):
    """(N, C * prod(kernel), span) columns of x (N, C, *padded), C-contiguous: row (c, k) is
    the plane's contiguous slice from starts[k] (one copy of a view whose last axis is
    contiguous)."""
    x = xp.ascontiguousarray(x)
    (n, c), plane = x.shape[:2], math.prod(x.shape[2:])
    view = _strided(x, (n, c, *kernel, span),
                    (c * plane, plane, *(d * s for d, s in zip(dilation, steps)), 1))
    return view.reshape(n, c * math.prod(kernel), span)


def _origins(flat, steps, out):
    """The valid window origins of C-contiguous flat planes (..., span) as a view
    (..., *out)."""
    lead = flat.shape[:-1]
    return _strided(flat, lead + tuple(out),
                    tuple(math.prod(lead[m + 1:]) * flat.shape[-1] for m in range(len(lead)))
                    + tuple(steps))


def _spread(values, padded, steps, length):
    """values (..., *out) at their window origins in flat planes of the padded size, zeros
    elsewhere: a (..., length) array (length at least the last origin's position + 1)."""
    out = values.shape[values.ndim - len(padded):]
    lead = values.shape[:values.ndim - len(padded)]
    flat = xp.zeros(lead + (length,), values.dtype)
    flat[..., :out[0] * steps[0]].reshape(lead + (out[0],) + tuple(padded[1:]))[
        (Ellipsis,) + tuple(builtins.slice(o) for o in out[1:])] = values
    return flat


def _fold_flat(cols, starts):
    """cols (N, G, K, L) of whole flat planes (L: the G-th of the channels times the plane
    size) summed onto zeroed planes: offset k's columns added from flat position starts[k]
    on, one long contiguous add per offset and sample group. What runs past a plane's end
    into the next (or the slack after the last) must be zeros. Returns (N, G * L)."""
    n, g, _, length = cols.shape
    size = n * g * length
    out = xp.zeros(size + builtins.max(starts), cols.dtype)
    for k, start in enumerate(starts):
        out[start:start + size].reshape(n, g, length)[...] += cols[:, :, k]
    return out[:size].reshape(n, g * length)
