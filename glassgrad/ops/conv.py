"""Convolution and pooling: conv1d/conv2d/conv3d (one row for any number of spatial dims, ATen's
``convolution``: ConvolutionBackward0), max_pool2d (MaxPool2DWithIndicesBackward0) and
avg_pool2d (AvgPool2DBackward0).

The kernels work on windows: the (zero-)padded input as a strided view of its windows
(``sliding_window_view``, then stepped for stride and dilation; backend/kernels/im2col.py),
copied once into columns (N, groups, C/groups * kernel, output positions) so that a convolution
is one batched matmul.
The gradient of the weight is the same columns against the incoming gradient; the gradient of
the input is the weight's transpose against it, folded back onto the input by one strided add
per kernel offset (no ``add.at``). At stride 1 the input gradient, and the forward where the
columns outnumber the output, use columns over the flat padded planes instead (each kernel
offset's columns are one contiguous slice of a plane: long copies, and a fold of one long add
per offset; backend/kernels/im2col.py), bit for bit the same results.

Pooling runs over the kernel offsets instead: each offset is a strided view of the padded input
(one per output position), so a k x k pool is k*k whole-array NumPy operations; max pooling's
index is a small code per output (how many leading offsets miss the maximum) turned into input
positions by one table lookup.

Backward formulas are rows of their own (ConvolutionBackwardBackward0, ...) whose formulas are
again these rows, so gradients of any order exist. As in PyTorch, each backward row takes the
forward's (grad_output, input, weight) and returns no gradient (None) for an input its output
does not depend on: what requires grad after ``create_graph=True`` is what PyTorch says.
"""
import builtins
import functools
import math

from .. import _runtime
from .._creation import zeros_like
from .._autograd.grad_mode import state
from .._tensor import Tensor, _wrap_dim
from ..backend import kind as _kind, xp
from ..backend.kernels.im2col import (_col2im, _columns, _flat_columns, _flat_geometry,
                                      _fold_flat, _origins, _padded, _spread)
from . import public, publish, reduce as _reduce
from .pointwise import _same_dtype
from .registry import _C10_NAMES, _SCALAR_NAMES, defop


def _name(d):
    return _SCALAR_NAMES[d.name]


# -- kernels on arrays -----------------------------------------------------------------------
def _full(k, *params):
    """The row's stride/padding/dilation as given (a one-element list stands for every dim,
    as in ATen), one value per spatial dim."""
    return [v * k if len(v) == 1 else v for v in params]


def _conv_forward(xp, input, weight, bias, stride, padding, dilation, groups, transposed=False,
                  output_padding=(0,), **_):
    if transposed:
        return _transposed_forward(input, weight, bias, stride, padding, dilation, groups,
                                   output_padding)
    o, cg, *kernel = weight.shape
    stride, padding, dilation = _full(len(kernel), stride, padding, dilation)
    pads = [(p, p) for p in padding]
    padded = [s + 2 * p for s, p in zip(input.shape[2:], padding)]
    out = [s - d * (k - 1) for s, d, k in zip(padded, dilation, kernel)]
    if builtins.any(s != 1 for s in stride) or not _flat_pays(cg * math.prod(kernel),
                                                               o // groups, padded, out):
        cols, out = _columns(input, kernel, stride, pads, dilation, groups)
        res = xp.matmul(weight.reshape(groups, o // groups, cols.shape[2]), cols)
        res = res.reshape(input.shape[0], o, *out).astype(input.dtype, copy=False)
        if bias is not None:
            res += bias.reshape(o, *(1,) * len(out))
        return res
    # stride 1: columns over the flat planes' window origins, the valid ones kept (one copy
    # into the result, in the dtype of the input: an empty one may differ from the weight)
    steps, span, _ = _flat_geometry(padded, kernel, dilation, out)
    cols = _flat_columns(_padded(input, pads, 0), kernel, dilation, steps, span)
    rows = cols.shape[1] // groups
    res = xp.matmul(weight.reshape(groups, o // groups, rows),
                    cols.reshape(input.shape[0], groups, rows, span))
    valid = _origins(res.reshape(input.shape[0], o, span), steps, out)
    result = xp.empty(valid.shape, input.dtype)
    if bias is None:
        result[...] = valid
    else:
        xp.add(valid, bias.reshape(o, *(1,) * len(out)), out=result)
    return result


def _flat_pays(rows, channels, padded, out):
    """Whether a stride-1 forward costs less over flat planes (see _conv_forward): the row
    layout copies each of its ``rows`` column rows (c*k) in runs of one output row, the flat
    layout in one run, but then copies the output (``channels`` rows) in runs of one output
    row, and multiplies the wide-row origins too. NumPy's cost per short run is about that of
    100 multiply-adds of a BLAS product on one core (this machine: ~4 ns against ~0.04)."""
    runs = math.prod(out[:-1])
    wide = builtins.sum((o - 1) * math.prod(padded[m + 1:]) for m, o in enumerate(out)) + 1 \
        - math.prod(out)
    return 100 * (rows - channels) * runs > channels * rows * wide


def _transposed_size(size, kernel, stride, padding, dilation, output_padding):
    """ATen's conv_output_size of a transposed convolution, per spatial dim."""
    stride, padding, dilation, output_padding = _full(len(kernel), stride, padding, dilation,
                                                      output_padding)
    return [(n - 1) * s - 2 * p + d * (k - 1) + op + 1 for n, k, s, p, d, op in
            zip(size, kernel, stride, padding, dilation, output_padding)]


def _transposed_forward(input, weight, bias, stride, padding, dilation, groups, output_padding):
    """A transposed convolution: the gradient of the input of the convolution whose weight is
    ``weight``, taken at ``input`` (the output size adds output_padding)."""
    size = _transposed_size(input.shape[2:], weight.shape[2:], stride, padding, dilation,
                            output_padding)
    res = _conv_input_grad(input, (input.shape[0], weight.shape[1] * groups, *size), weight,
                           stride, padding, dilation, groups).astype(input.dtype, copy=False)
    if bias is not None:
        res = res + bias.reshape(-1, *(1,) * len(size))
    return res


def _conv_input_grad(grad_output, input, weight, stride, padding, dilation, groups):
    """The gradient of the input (or of an input of shape ``input``, a tuple): the weight's
    transpose against grad_output, each kernel offset's columns added onto the positions they
    read."""
    shape = input if isinstance(input, tuple) else input.shape
    (n, c, *size), (o, cg, *kernel) = shape, weight.shape
    stride, padding, dilation = _full(len(kernel), stride, padding, dilation)
    out = grad_output.shape[2:]
    if builtins.any(s != 1 for s in stride) or not xp.isfinite(weight).all():
        w = weight.reshape(groups, o // groups, cg * math.prod(kernel)).swapaxes(1, 2)
        go = grad_output.reshape(n, groups, o // groups, math.prod(out))
        return _col2im(xp.matmul(w, go).reshape(n, c, *kernel, *out), size, stride, padding,
                       dilation)
    # stride 1: the columns of whole flat padded planes (zeros but at the window origins),
    # the weight's rows ordered (kernel offset, channel) so that each offset's columns are one
    # run over every channel's plane, folded by one long add per offset
    # (backend/kernels/im2col.py); what lands outside the origins' windows is a finite weight's
    # multiple of zero, and adds nothing (an inf or NaN weight takes the path above)
    padded = [s + 2 * p for s, p in zip(size, padding)]
    plane, k = math.prod(padded), math.prod(kernel)
    steps, _, starts = _flat_geometry(padded, kernel, dilation, out)
    go = _spread(grad_output, padded, steps, plane).reshape(n, groups, o // groups, plane)
    w = weight.reshape(groups, o // groups, cg, k).transpose(0, 3, 2, 1).reshape(
        groups, k * cg, o // groups)
    cols = xp.matmul(w, go).reshape(n, groups, k, cg * plane)
    grad = _fold_flat(cols, starts).reshape(n, c, *padded)
    if not builtins.any(padding):
        return grad
    return xp.ascontiguousarray(grad[(Ellipsis,) + tuple(builtins.slice(p, p + s)
                                                         for p, s in zip(padding, size))])


def _conv_weight_grad(grad_output, input, weight, stride, padding, dilation, groups):
    n, o = grad_output.shape[:2]
    kernel = weight.shape[2:]
    stride, padding, dilation = _full(len(kernel), stride, padding, dilation)
    cols, out = _columns(input, kernel, stride, [(p, p) for p in padding], dilation, groups)
    go = grad_output.reshape(n, groups, o // groups, math.prod(out))
    if not _weight_grad_by_transpose(go, cols):
        return xp.matmul(go, cols.swapaxes(2, 3)).sum(0).reshape(weight.shape)
    prods = xp.matmul(cols, xp.ascontiguousarray(go.swapaxes(2, 3)))
    return xp.ascontiguousarray(prods.sum(0).swapaxes(1, 2)).reshape(weight.shape)


def _weight_grad_by_transpose(go, cols):
    """Whether the weight gradient goes as each sample's product transposed, cols @ go.T
    with go.T copied row-major, transposed back once summed: for float32 with fewer output
    channels than column rows (go smaller than the columns), not small (W4's conv2).
    OpenBLAS's sgemm of row-major by transposed matrices (go @ cols.T) runs 1.4-3x slower per
    sample on such shapes; its dgemm does not, and below 32768 gradient elements the copies
    cost what the product saves (measured: docs/performance.md, issue 17's kernels)."""
    return cols.dtype == xp.float32 and go.shape[2] < cols.shape[2] and go.size >= 32768


# -- rows ------------------------------------------------------------------------------------
def _params(stride, padding, dilation, groups):
    return {"stride": stride, "padding": padding, "dilation": dilation, "groups": groups}


def _convolve(input, weight, bias, stride, padding, dilation, groups, output_padding=None,
              transposed=False):
    """The convolution row, with the attributes PyTorch's node shows."""
    if output_padding is None:
        output_padding = (0,) * (weight.dim() - 2)
    return _convolution(input, weight, bias, **_params(stride, padding, dilation, groups),
                        transposed=transposed, output_padding=output_padding,
                        bias_sym_sizes_opt=tuple(bias.shape) if bias is not None else (0,))


def _no_grad(grad):
    return None


_BACKWARD = "ConvolutionBackwardBackward0"
_INPUTS = ("grad_output", "input", "weight")
_conv_input_grad_row = defop(_BACKWARD, lambda xp, grad_output, input, weight,
                             **p: _conv_input_grad(
    grad_output, input, weight, **p), _INPUTS, dtype="same", grads={
    "grad_output": lambda grad, weight, stride, padding, dilation, groups: _convolve(
        grad, weight, None, stride, padding, dilation, groups),
    "input": _no_grad,
    "weight": lambda grad, grad_output, weight, stride, padding, dilation, groups:
        _conv_weight_grad_row(grad_output, grad, weight,
                              **_params(stride, padding, dilation, groups))})
_conv_weight_grad_row = defop(_BACKWARD, lambda xp, grad_output, input, weight,
                              **p: _conv_weight_grad(
    grad_output, input, weight, **p), _INPUTS, dtype="same", grads={
    "grad_output": lambda grad, input, stride, padding, dilation, groups: _convolve(
        input, grad, None, stride, padding, dilation, groups),
    "input": lambda grad, grad_output, input, stride, padding, dilation, groups:
        _conv_input_grad_row(grad_output, input, grad,
                             **_params(stride, padding, dilation, groups)),
    "weight": _no_grad})
_conv_bias_grad_row = defop(_BACKWARD, lambda xp, grad_output, input, weight, **_: grad_output.sum(
    axis=(0, *range(2, grad_output.ndim))), _INPUTS, dtype="same", grads={
    "grad_output": lambda grad, grad_output_sym_sizes: grad.reshape(
        -1, *(1,) * (len(grad_output_sym_sizes) - 2)).expand(grad_output_sym_sizes),
    "input": _no_grad, "weight": _no_grad})


def _formula(row, transposed_row):
    """ConvolutionBackward0's formula for one input: ``row`` of the gradient (of a transposed
    convolution: ``transposed_row``). Its parameters name everything PyTorch's node saves, so
    the node shows the same ``_saved_*``."""
    def formula(grad, input, weight, stride, padding, dilation, transposed, output_padding,
                groups, bias_sym_sizes_opt):
        params = _params(stride, padding, dilation, groups)
        if transposed:
            return transposed_row(grad, input, weight, output_padding=output_padding, **params)
        if any(output_padding):     # (torch.convolution's forward takes it; its backward not)
            raise RuntimeError(f"output_padding is not supported for non-transposed "
                               f"convolutions; got: {' '.join(map(str, output_padding))}")
        return row(grad, input, weight, **params)
    return formula


def _transposed_input_grad(grad, input, weight, output_padding, **params):
    """A transposed convolution's gradient of its input: the convolution of the gradient."""
    return _transposed_input_grad_row(grad, input, weight, output_padding=output_padding,
                                      **params)


_transposed_input_grad_row = defop(_BACKWARD, lambda xp, grad_output, input, weight,
                                   output_padding, **p: _conv_forward(
    xp, grad_output, weight, None, **p), _INPUTS, dtype="same", grads={
    "grad_output": lambda grad, weight, stride, padding, dilation, groups, output_padding:
        _convolve(grad, weight, None, stride, padding, dilation, groups, output_padding,
                  transposed=True),
    "input": _no_grad,
    "weight": lambda grad, grad_output, weight, stride, padding, dilation, groups:
        _conv_weight_grad_row(grad, grad_output, weight,
                              **_params(stride, padding, dilation, groups))})


def _transposed_weight_grad(grad, input, weight, output_padding, **params):
    """... of its weight: the convolution's weight gradient, the roles of input and gradient
    swapped."""
    return _conv_weight_grad_row(input, grad, weight, **params)


def _transposed_bias_grad(grad, input, weight, output_padding, **params):
    return _conv_bias_grad_row(grad, input, weight, **params)


_convolution = defop("ConvolutionBackward0", _conv_forward, ("input", "weight", "bias"),
                     dtype="same", grads={
                         "input": _formula(_conv_input_grad_row, _transposed_input_grad),
                         "weight": _formula(_conv_weight_grad_row, _transposed_weight_grad),
                         "bias": _formula(_conv_bias_grad_row, _transposed_bias_grad)})


# -- conv1d / conv2d / conv3d ----------------------------------------------------------------
def _expand(name, value, k):
    """PyTorch's expand_param_if_needed: an int or a one-element list for every dim."""
    v = (value,) if isinstance(value, builtins.int) else tuple(value)
    if len(v) == 1:
        v = v * k
    if len(v) != k:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {k} "
                           f"values to match the convolution dimensions, but got "
                           f"{name}={list(v)}")
    return v


def _check_conv(input, weight, bias, stride, padding, dilation, groups, output_padding=None):
    """ATen's checks of a convolution (check_shape_forward and the dtype checks); of a
    transposed one where output_padding is given."""
    if output_padding is not None:
        return _check_transposed(input, weight, bias, stride, padding, dilation, groups,
                                 output_padding)
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if builtins.any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if builtins.any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if builtins.any(d <= 0 for d in dilation):
        raise RuntimeError("non-positive dilation is not supported")
    ws = list(weight.shape)
    if ws[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at "
                           f"dimension 0, but got weight of size {ws} instead")
    if ws[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} "
                           f"at dimension 0, but got weight of size [{ws}] instead")
    if input.shape[1] != ws[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {ws}, expected input"
                           f"{list(input.shape)} to have {ws[1] * groups} channels, but got "
                           f"{input.shape[1]} channels instead")
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != ws[0]):
        raise RuntimeError(f"Given weight of size {ws}, expected bias to be 1-dimensional with "
                           f"{ws[0]} elements, but got bias of size {list(bias.shape)} instead")
    padded = [s + 2 * p for s, p in zip(input.shape[2:], padding)]
    span = [d * (k - 1) + 1 for k, d in zip(ws[2:], dilation)]
    if builtins.any(p < s for p, s in zip(padded, span)):
        raise RuntimeError(f"Calculated padded input size per channel: "
                           f"({' x '.join(map(str, padded))}). Kernel size: "
                           f"({' x '.join(map(str, span))}). Kernel size can't be greater than "
                           f"actual input size")
    if bias is not None and bias.dtype is not input.dtype:
        raise RuntimeError(f"Input type ({_C10_NAMES[input.dtype.name]}) and bias type "
                           f"({_C10_NAMES[bias.dtype.name]}) should be the same")
    if input.dtype is not weight.dtype and input.numel():
        if input.dtype.name == "float32":      # PyTorch's oneDNN path says it its own way
            raise RuntimeError(f"Input type (torch.{_name(input.dtype)}Tensor) and weight type "
                               f"(torch.{_name(weight.dtype)}Tensor) should be the same or "
                               f"input should be a MKLDNN tensor and weight is a dense tensor")
        raise RuntimeError(f"expected scalar type {_name(input.dtype)} but found "
                           f"{_name(weight.dtype)}")


def _check_transposed(input, weight, bias, stride, padding, dilation, groups, output_padding):
    ws = list(weight.shape)
    if ws[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} "
                           f"at dimension 0, but got weight of size [{ws}] instead")
    if input.shape[1] != ws[0]:
        raise RuntimeError(f"Given transposed=1, weight of size {ws}, expected input"
                           f"{list(input.shape)} to have {ws[0]} channels, but got "
                           f"{input.shape[1]} channels instead")
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != ws[1] * groups):
        raise RuntimeError(f"Given transposed=1, weight of size {ws}, expected bias to be "
                           f"1-dimensional with {ws[1] * groups} elements, but got bias of size "
                           f"{list(bias.shape)} instead")
    if builtins.any(op >= s and op >= d for op, s, d in zip(output_padding, stride, dilation)):
        names = ("depth", "height", "width")[3 - len(stride):]
        parts = [f"output_padding_{n}: {v}" for n, v in zip(names, output_padding)] + \
            [f"stride_{n}: {v}" for n, v in zip(names, stride)] + \
            [f"dilation_{n}: {v}" for n, v in zip(names, dilation)]
        raise RuntimeError("output padding must be smaller than either stride or dilation, but "
                           "got " + " ".join(parts))
    size = input.shape[2:]
    out = _transposed_size(size, ws[2:], stride, padding, dilation, output_padding)
    if builtins.any(o < 1 for o in out):
        raise RuntimeError(f"Given input size per channel: ({' x '.join(map(str, size))}). "
                           f"Calculated output size per channel: "
                           f"({' x '.join(map(str, out))}). Output size is too small")


def _same_padding(input, weight, stride, dilation):
    """padding='same': half the kernel span on each side; an odd total puts the extra element
    after, by padding the input (as PyTorch does, with its warning)."""
    if builtins.any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    lo, extra = [], []
    for d, size in zip(dilation, weight.shape[2:]):
        total = d * (size - 1)
        lo.append(total // 2)
        extra.append(total - 2 * (total // 2))
    if builtins.any(extra):
        _runtime.warn_once("conv same", "Using padding='same' with even kernel lengths and odd "
                           "dilation may require a zero-padded copy of the input be created "
                           "(Triggered internally at "
                           "/__w/pytorch/pytorch/aten/src/ATen/native/Convolution.cpp:1101.)")
        from .nn import pad
        input = pad(input, [p for e in reversed(extra) for p in (0, e)])
    return input, tuple(lo)


def _conv_nd(k, input, weight, bias, stride, padding, dilation, groups):
    if input.dim() not in (k + 1, k + 2):
        raise RuntimeError(f"Expected {k + 1}D (unbatched) or {k + 2}D (batched) input to "
                           f"conv{k}d, but got input of size: {list(input.shape)}")
    batched = input.dim() == k + 2
    if not batched:
        input = input.unsqueeze(0)
    stride, padding, dilation = ((v,) * k if isinstance(v, builtins.int) else v
                                 for v in (stride, padding, dilation))
    kw = weight.dim() - 2      # ATen takes the number of spatial dims from the weight
    full_stride, full_dilation = _expand("stride", stride, kw), _expand("dilation", dilation, kw)
    output_padding = None
    if isinstance(padding, str):
        if padding == "valid":      # ATen's convolution with padding and output_padding [0]
            padding = output_padding = (0,)
        elif padding == "same":
            input, padding = _same_padding(input, weight, full_stride, full_dilation)
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    _check_conv(input, weight, bias, full_stride, _expand("padding", padding, kw), full_dilation,
                groups)
    # the row keeps the parameters as given ('valid' is [0]), as PyTorch's node shows them
    out = _convolve(input, weight, bias, tuple(stride), tuple(padding), tuple(dilation), groups,
                    output_padding)
    return out if batched else out.squeeze(0)


def _conv_transpose_nd(k, input, weight, bias, stride, padding, output_padding, groups,
                       dilation):
    if input.dim() not in (k + 1, k + 2):
        raise RuntimeError(f"Expected {k + 1}D (unbatched) or {k + 2}D (batched) input to "
                           f"conv_transpose{k}d, but got input of size: {list(input.shape)}")
    batched = input.dim() == k + 2
    if not batched:
        input = input.unsqueeze(0)
    params = [(v,) * k if isinstance(v, builtins.int) else tuple(v)
              for v in (stride, padding, dilation, output_padding)]
    kw = weight.dim() - 2
    full = [_expand(n, v, kw) for n, v in
            zip(("stride", "padding", "dilation", "output_padding"), params)]
    _check_conv(input, weight, bias, full[0], full[1], full[2], groups, full[3])
    stride, padding, dilation, output_padding = params
    out = _convolve(input, weight, bias, stride, padding, dilation, groups, output_padding,
                    transposed=True)
    return out if batched else out.squeeze(0)


@public("function", signatures=(
    "convolution(Tensor input, Tensor weight, Tensor? bias, SymIntArrayRef stride, "
    "SymIntArrayRef padding, SymIntArrayRef dilation, bool transposed, "
    "SymIntArrayRef output_padding, SymInt groups)",))
def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                groups):
    """ATen's convolution: batched input only, every parameter a list (one value for all dims,
    or one per spatial dim); output_padding counts only where transposed."""
    if input.dim() != weight.dim():
        raise RuntimeError(f"Expected {weight.dim()}-dimensional input for {weight.dim()}-"
                           f"dimensional weight {list(weight.shape)}, but got {input.dim()}-"
                           f"dimensional input of size {list(input.shape)} instead")
    k = weight.dim() - 2
    stride, padding, dilation, output_padding = (
        _expand(n, v, k) for n, v in (("stride", stride), ("padding", padding),
                                      ("dilation", dilation), ("output_padding", output_padding)))
    _check_conv(input, weight, bias, stride, padding, dilation, groups,
                output_padding if transposed else None)
    return _convolve(input, weight, bias, stride, padding, dilation, groups, output_padding,
                     transposed=transposed)


@public("function", "functional", signatures=(
    "conv_transpose1d(Tensor input, Tensor weight, Tensor? bias=None, SymIntArrayRef[1] stride=1, "
    "SymIntArrayRef[1] padding=0, SymIntArrayRef[1] output_padding=0, SymInt groups=1, "
    "SymIntArrayRef[1] dilation=1)",))
def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    return _conv_transpose_nd(1, input, weight, bias, stride, padding, output_padding, groups,
                              dilation)


@public("function", "functional", signatures=(
    "conv_transpose2d(Tensor input, Tensor weight, Tensor? bias=None, SymIntArrayRef[2] stride=1, "
    "SymIntArrayRef[2] padding=0, SymIntArrayRef[2] output_padding=0, SymInt groups=1, "
    "SymIntArrayRef[2] dilation=1)",))
def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    return _conv_transpose_nd(2, input, weight, bias, stride, padding, output_padding, groups,
                              dilation)


@public("function", "functional", signatures=(
    "conv_transpose3d(Tensor input, Tensor weight, Tensor? bias=None, SymIntArrayRef[3] stride=1, "
    "SymIntArrayRef[3] padding=0, SymIntArrayRef[3] output_padding=0, SymInt groups=1, "
    "SymIntArrayRef[3] dilation=1)",))
def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    return _conv_transpose_nd(3, input, weight, bias, stride, padding, output_padding, groups,
                              dilation)


@public("function", "functional", signatures=(
    "conv1d(Tensor input, Tensor weight, Tensor? bias=None, SymIntArrayRef[1] stride=1, "
    "SymIntArrayRef[1] padding=0, SymIntArrayRef[1] dilation=1, SymInt groups=1)",
    "conv1d(Tensor input, Tensor weight, Tensor? bias=None, SymIntArrayRef[1] stride=1, "
    "c10::string_view padding=\"valid\", SymIntArrayRef[1] dilation=1, SymInt groups=1)"))
def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv_nd(1, input, weight, bias, stride, padding, dilation, groups)


@public("function", "functional", signatures=(
    "conv2d(Tensor input, Tensor weight, Tensor? bias=None, SymIntArrayRef[2] stride=1, "
    "SymIntArrayRef[2] padding=0, SymIntArrayRef[2] dilation=1, SymInt groups=1)",
    "conv2d(Tensor input, Tensor weight, Tensor? bias=None, SymIntArrayRef[2] stride=1, "
    "c10::string_view padding=\"valid\", SymIntArrayRef[2] dilation=1, SymInt groups=1)"))
def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv_nd(2, input, weight, bias, stride, padding, dilation, groups)


@public("function", "functional", signatures=(
    "conv3d(Tensor input, Tensor weight, Tensor? bias=None, SymIntArrayRef[3] stride=1, "
    "SymIntArrayRef[3] padding=0, SymIntArrayRef[3] dilation=1, SymInt groups=1)",
    "conv3d(Tensor input, Tensor weight, Tensor? bias=None, SymIntArrayRef[3] stride=1, "
    "c10::string_view padding=\"valid\", SymIntArrayRef[3] dilation=1, SymInt groups=1)"))
def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv_nd(3, input, weight, bias, stride, padding, dilation, groups)


# -- pooling ---------------------------------------------------------------------------------
def _pool_out(size, k, s, p, d, ceil_mode):
    """ATen's pooling_output_shape for one dim."""
    out = (size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= size + p:    # the last window must start inside
        out -= 1
    return out


def _pool_geometry(shape, kernel_size, stride, padding, dilation, ceil_mode):
    """Per spatial dim (kernel, stride, padding, dilation, output size) of a 2-d pooling."""
    kernel, stride, padding, dilation = _full(2, kernel_size, stride or kernel_size, padding,
                                              dilation)
    return [(k, s, p, d, _pool_out(n, k, s, p, d, ceil_mode))
            for n, k, s, p, d in zip(shape[-2:], kernel, stride, padding, dilation)]


def _pool_pads(shape, geometry):
    """(before, after) padding per spatial dim: ``padding`` each side, more after where
    ceil_mode's last window runs past the end."""
    return [(p, builtins.max(p, (o - 1) * s + d * (k - 1) + 1 - n - p))
            for n, (k, s, p, d, o) in zip(shape[-2:], geometry)]


def _pool_offsets(geometry):
    """For each kernel offset: the region of the padded input it reads for every output
    position (strided slices), and the unpadded input row and col it reads for the first."""
    (kh, sh, ph, dh, oh), (kw, sw, pw, dw, ow) = geometry
    for i in range(kh):
        for j in range(kw):
            yield ((Ellipsis, builtins.slice(i * dh, i * dh + sh * (oh - 1) + 1, sh),
                    builtins.slice(j * dw, j * dw + sw * (ow - 1) + 1, sw)),
                   i * dh - ph, j * dw - pw)


def _first_inside(out, s, p, d):
    """Per output position along a dim: the first input position its window reads that is not
    padding."""
    start = xp.arange(out) * s - p
    return start + -(-xp.maximum(-start, 0) // d) * d


def _first_max(views, values):
    """Per output position, which of ``views`` first holds ``values`` (a small unsigned code):
    the count of leading views that differ, one comparison and one add per view."""
    differs = views[0] != values
    code = differs.view(xp.uint8).astype(xp.min_scalar_type(len(views)))
    for view in views[1:-1]:
        differs &= view != values
        code += differs
    return code


@functools.lru_cache(maxsize=256)
def _max_pool_plan(size, kernel_size, stride, padding, dilation, ceil_mode):
    """What a max pooling of planes of ``size`` (h, w) reads and where its index points, the
    same for every call with these arguments (kept, read-only): the geometry, the padding,
    each kernel offset's region of the padded planes, offset (0, 0)'s input position per
    output, each offset's distance from it, and where padding is, the first position inside
    the input per output (else None)."""
    geometry = _pool_geometry(size, kernel_size, stride, padding, dilation, ceil_mode)
    w = size[-1]
    offsets = list(_pool_offsets(geometry))
    (_, sh, ph, dh, oh), (_, sw, pw, dw, ow) = geometry
    start = (xp.arange(oh) * sh)[:, None] * w + xp.arange(ow) * sw
    table = xp.array([row * w + col for _, row, col in offsets])
    first = (_first_inside(oh, sh, ph, dh)[:, None] * w + _first_inside(ow, sw, pw, dw)
             if ph or pw or ceil_mode else None)
    for a in (start, table, first):
        if a is not None:
            a.flags.writeable = False
    return (geometry, _pool_pads(size, geometry), tuple(region for region, _, _ in offsets),
            start, table, first)


def _max_pool_values(self, kernel_size, stride, padding, dilation, ceil_mode):
    """The maximum over the kernel offsets, each a strided view of the input padded with the
    lowest value (no window copies; NaN propagates); and what the index needs: the plan,
    the lowest value and the views."""
    plan = _max_pool_plan(self.shape[-2:], kernel_size, stride, padding, dilation, ceil_mode)
    lowest = -xp.inf if _kind(self.dtype) == "f" else xp.iinfo(self.dtype).min
    padded = _padded(self, plan[1], lowest)
    views = [padded[region] for region in plan[2]]
    values = views[0].copy()
    for view in views[1:]:
        xp.maximum(values, view, out=values)
    return values, (plan, lowest, views)


def _max_pool_forward(xp, self, kernel_size, stride, padding, dilation, ceil_mode):
    """The maximum (_max_pool_values), then the index PyTorch picks: the first position
    holding the maximum, the last NaN where there is one, the first position inside the input
    where only padding-valued positions exist. The pick is a code per output (which offset),
    turned into input positions by one lookup."""
    values, ((_, _, _, start, table, first), lowest, views) = _max_pool_values(
        self, kernel_size, stride, padding, dilation, ceil_mode)
    code = _first_max(views, values)
    if _kind(self.dtype) == "f" and xp.isnan(values).any():
        for k, view in enumerate(views):
            code[xp.isnan(view)] = k
    indices = xp.add(start, table.take(code))
    if first is not None:
        indices = xp.where(values == lowest, first, indices)
    return values, indices


def _avg_divisor(shape, geometry, count_include_pad, divisor_override):
    """What each output divides its window's sum by (ATen's avg_pool2d): the window's size
    clipped to the padded input, or only its positions inside the input, or the override."""
    if divisor_override is not None:
        return divisor_override
    counts = []
    for n, (k, s, p, _, o) in zip(shape[-2:], geometry):
        start = xp.arange(o) * s - p
        end = xp.minimum(start + k, n + p)
        counts.append(end - start if count_include_pad else
                      xp.minimum(end, n) - xp.maximum(start, 0))
    return counts[0][:, None] * counts[1]


def _divide(total, divisor):
    if _kind(total.dtype) == "f":
        return (total / divisor).astype(total.dtype, copy=False)
    return xp.sign(total) * (xp.abs(total) // divisor)     # C++ integer division truncates


def _avg_pool_forward(xp, self, kernel_size, stride, padding, ceil_mode, count_include_pad,
                      divisor_override):
    geometry = _pool_geometry(self.shape, kernel_size, stride, padding, (1,), ceil_mode)
    padded = _padded(self, _pool_pads(self.shape, geometry), 0)
    regions = [region for region, _, _ in _pool_offsets(geometry)]
    total = padded[regions[0]].copy()
    for region in regions[1:]:
        total += padded[region]
    return _divide(total, _avg_divisor(self.shape, geometry, count_include_pad,
                                       divisor_override))


def _avg_pool_backward(xp, grad_output, self, kernel_size, stride, padding, ceil_mode,
                       count_include_pad, divisor_override):
    """Each window position receives its output's gradient over the divisor."""
    geometry = _pool_geometry(self.shape, kernel_size, stride, padding, (1,), ceil_mode)
    pads = _pool_pads(self.shape, geometry)
    share = _divide(grad_output, _avg_divisor(self.shape, geometry, count_include_pad,
                                              divisor_override))
    out = xp.zeros(self.shape[:-2] + tuple(n + lo + hi for n, (lo, hi) in
                                           zip(self.shape[-2:], pads)), grad_output.dtype)
    for region, _, _ in _pool_offsets(geometry):
        out[region] += share
    (ph, _), (pw, _) = pads
    return out[..., ph:ph + self.shape[-2], pw:pw + self.shape[-1]]


def _max_pool_backward(xp, grad_output, self, indices, kernel_size, stride, padding, dilation,
                       ceil_mode):
    """Each output's gradient goes to the input position it took; where windows overlap a
    position may take several."""
    planes = grad_output.reshape(-1, grad_output.shape[-2] * grad_output.shape[-1])
    plane = self.shape[-2] * self.shape[-1]
    # flat positions in the whole result: one 1-D index (NumPy's fast path for it)
    where = (indices._data.reshape(planes.shape) +
             xp.arange(0, planes.shape[0] * plane, plane)[:, None]).ravel()
    out = xp.zeros(planes.shape[0] * plane, grad_output.dtype)
    geometry = _pool_geometry(self.shape, kernel_size, stride, padding, dilation, ceil_mode)
    if builtins.all(s >= d * (k - 1) + 1 for k, s, _, d, _ in geometry):
        out[where] = planes.ravel()
    else:
        xp.add.at(out, where, planes.ravel())
    return out.reshape(self.shape)


def _gather_at(grad, indices):
    """The gradient at the positions each output took (the backward's own backward)."""
    flat = grad.flatten(-2)
    return flat.gather(-1, indices.flatten(-2)).view(indices.shape)


_POOL = ("kernel_size", "stride", "padding", "dilation", "ceil_mode")
_max_pool_backward_row = defop(
    "MaxPool2DWithIndicesBackwardBackward0", _max_pool_backward, ("grad_output", "self"),
    dtype="same", grads={"grad_output": lambda grad, indices: _gather_at(grad, indices),
                         "self": lambda grad: zeros_like(grad)})
_max_pool = defop(
    "MaxPool2DWithIndicesBackward0", _max_pool_forward, outputs=("result", "result1"),
    dtype="same", grads={"self": lambda grad, self, result1, kernel_size, stride, padding,
                         dilation, ceil_mode: _max_pool_backward_row(
                             grad, self, indices=result1, **dict(zip(_POOL, (
                                 kernel_size, stride, padding, dilation, ceil_mode))))})


_POOL_PARAM_ERRORS = {
    "kernel_size": "kernel_size must either be a single int, or a tuple of two ints",
    "stride": "stride must either be omitted, a single int, or a tuple of two ints",
    "padding": "padding must either be a single int, or a tuple of two ints",
    "dilation": "dilation must be either a single int, or a tuple of two ints"}


def _pool_param(op, name, value):
    v = (value, value) if isinstance(value, builtins.int) else tuple(value)
    if len(v) not in ((0, 1, 2) if name == "stride" else (1, 2)):
        raise RuntimeError(f"{op}: {_POOL_PARAM_ERRORS[name]}")
    return v


def _trunc_div(a, b):
    return -(-a // b) if a < 0 else a // b


def _check_pool(input, geometry_args, ceil_mode):
    """ATen's pooling_output_shape and pool2d_shape_check, in their order."""
    kernel, stride, padding, dilation = _full(2, *geometry_args)
    for n, k, s, p, d in zip(input.shape[-2:], kernel, stride, padding, dilation):
        if s == 0:
            raise RuntimeError("stride should not be zero")
        if p < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {p}")
        if p > _trunc_div((k - 1) * d + 1, 2):
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={p}, kernel_size={k} and dilation={d}")
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = kernel, stride, padding, dilation
    if kh <= 0 or kw <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {kh} kW: {kw}")
    if sh <= 0 or sw <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dH: {sh} dW: {sw}")
    if dh <= 0 or dw <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: {dh} "
                           f"dilationW: {dw}")
    shape = input.shape
    if input.dim() not in (3, 4) or 0 in shape[-3:]:
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with optional 0 dim batch "
                           f"size for input, but got:{list(shape)}")
    if kw // 2 < pw or kh // 2 < ph:
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got "
                           f"padW = {pw}, padH = {ph}, kW = {kw}, kH = {kh}")
    oh, ow = (_pool_out(n, k, s, p, d, ceil_mode)
              for n, k, s, p, d in zip(shape[-2:], kernel, stride, padding, dilation))
    if oh < 1 or ow < 1:
        raise RuntimeError(f"Given input size: ({shape[-3]}x{shape[-2]}x{shape[-1]}). "
                           f"Calculated output size: ({shape[-3]}x{oh}x{ow}). Output size is "
                           f"too small")


def _max_pool_args(input, kernel_size, stride, padding, dilation, ceil_mode):
    """max_pool2d's arguments checked as ATen checks them, as the row's attrs."""
    op = "max_pool2d"
    kernel_size = _pool_param(op, "kernel_size", kernel_size)
    stride = _pool_param(op, "stride", () if stride is None else stride)
    padding, dilation = _pool_param(op, "padding", padding), _pool_param(op, "dilation", dilation)
    if input.dim() not in (3, 4):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    _check_pool(input, (kernel_size, stride or kernel_size, padding, dilation), ceil_mode)
    return {"kernel_size": kernel_size, "stride": stride, "padding": padding,
            "dilation": dilation, "ceil_mode": ceil_mode}


def _max_pool_values_only(input, attrs):
    """max_pool2d's maximum alone, where the call records no node and no interceptor (forward
    AD, vmap, compile's capture) sees it: then its indices, which only the node uses, could
    never be seen (the same values as the row's). None where the row must run."""
    if state.handler is None and not (state.grad and input.requires_grad):
        return Tensor._make(_max_pool_values(input._data, **attrs)[0])
    return None


@public("functional")
def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    return _max_pool(input, **_max_pool_args(input, kernel_size, stride, padding, dilation,
                                             ceil_mode))


@public("functional", name="max_pool2d")
def _functional_max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1,
                           ceil_mode=False, return_indices=False):
    attrs = _max_pool_args(input, kernel_size, stride, padding, dilation, ceil_mode)
    if not return_indices:
        out = _max_pool_values_only(input, attrs)
        if out is not None:
            return out
    out, indices = _max_pool(input, **attrs)
    return (out, indices) if return_indices else out


@public("function", signatures=(
    "max_pool2d(Tensor input, IntArrayRef[2] kernel_size, IntArrayRef[2] stride=None, "
    "IntArrayRef[2] padding=0, IntArrayRef[2] dilation=1, bool ceil_mode=False)",))
def max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return _functional_max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)


_AVG = ("kernel_size", "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override")


def _avg_pool_args(kernel_size, stride, padding, ceil_mode, count_include_pad,
                   divisor_override):
    return dict(zip(_AVG, (kernel_size, stride, padding, ceil_mode, count_include_pad,
                           divisor_override)))


_avg_pool_backward_row = defop(
    "AvgPool2DBackwardBackward0", _avg_pool_backward, ("grad_output", "self"), dtype="same",
    grads={"grad_output": lambda grad, kernel_size, stride, padding, ceil_mode,
           count_include_pad, divisor_override: _avg_pool(grad, **_avg_pool_args(
               kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)),
           "self": lambda grad: zeros_like(grad)})
_avg_pool = defop(
    "AvgPool2DBackward0", _avg_pool_forward, dtype="same",
    grads={"self": lambda grad, self, kernel_size, stride, padding, ceil_mode,
           count_include_pad, divisor_override: _avg_pool_backward_row(
               grad, self, **_avg_pool_args(kernel_size, stride, padding, ceil_mode,
                                            count_include_pad, divisor_override))})


@public("functional")
def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    op = "avg_pool2d"
    kernel_size = _pool_param(op, "kernel_size", kernel_size)
    stride = _pool_param(op, "stride", () if stride is None else stride)
    padding = _pool_param(op, "padding", padding)
    if divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    _wrap_dim(-3, input.dim())        # PyTorch reads the plane count first
    _check_pool(input, (kernel_size, stride or kernel_size, padding, (1,)), ceil_mode)
    return _avg_pool(input, **_avg_pool_args(kernel_size, stride, padding, ceil_mode,
                                             count_include_pad, divisor_override))


# -- 1-d pools: the 2-d pool of the input with a unit height (ATen's way: SqueezeBackward1) ---
def _one(value, fill):
    """A 1-d pool parameter as the 2-d pool's pair (fill for the unit height)."""
    v = (value,) if isinstance(value, builtins.int) else tuple(value)
    return (fill,) + v if len(v) == 1 else v


def _size_1d(value):
    return 1 if isinstance(value, builtins.int) else len(value)


def _check_1d(name, input, **params):
    """ATen's checks of a 1-d pool: a 2-d or 3-d input (checkDimRange), one int per parameter
    (check1d)."""
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional "
                           f"tensor for argument #1 'self' (while checking arguments for {name})")
    for argument, value in params.items():
        if _size_1d(value) != 1:
            raise RuntimeError(f"{name}() argument '{argument}' should contain one int (got "
                               f"{_size_1d(value)})")


def _no_stride(stride):
    return stride is None or not isinstance(stride, builtins.int) and not len(stride)


def _check_max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode):
    """ATen's check_max_pool1d (max_pool1d of a tensor that does not require grad)."""
    if input.dim() not in (2, 3):
        raise RuntimeError(f"max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 "
                           f"dim batch size for input, but got:{list(input.shape)}")
    lists = "an int, list of ints or tuple of ints of size 1 but got size"
    for argument, value, text in (
            ("kernel_size", kernel_size, lists), ("stride", () if stride is None else stride,
                                                  "None, " + lists.replace("ints or", "ints, or")),
            ("padding", padding, lists.replace("ints or", "ints, or")),
            ("dilation", dilation, lists)):
        n = _size_1d(value)
        if n != 1 and not (argument == "stride" and n == 0):
            raise RuntimeError(f"max_pool1d() {argument} must be {text} {n}")
    k, p, d = (v if isinstance(v, builtins.int) else v[0] for v in (kernel_size, padding, dilation))
    s = k if _no_stride(stride) else stride if isinstance(stride, builtins.int) else stride[0]
    for argument, value in (("kernel_size", k), ("stride", s)):
        if value <= 0:
            raise RuntimeError(f"max_pool1d() {argument} must be greater than zero, but got "
                               f"{value}")
    if p < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {p}")
    if p > k // 2:
        raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, but got "
                           f"padding={p} and kernel_size={k}")
    if d <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {d}")
    out = _pool_out(input.shape[-1], k, s, p, d, ceil_mode)
    if out <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {out}")


@public("function", "functional", signatures=(
    "max_pool1d_with_indices(Tensor input, IntArrayRef[1] kernel_size, IntArrayRef[1] "
    "stride=None, IntArrayRef[1] padding=0, IntArrayRef[1] dilation=1, bool ceil_mode=False)",))
def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    stride = kernel_size if _no_stride(stride) else stride
    _check_1d("max_pool1d", input, kernel_size=kernel_size, stride=stride, padding=padding,
              dilation=dilation)
    out, indices = max_pool2d_with_indices(input.unsqueeze(-2), _one(kernel_size, 1),
                                           _one(stride, 1), _one(padding, 0),
                                           _one(dilation, 1), ceil_mode)
    return out.squeeze(-2), indices.squeeze(-2)


@public("functional", name="max_pool1d")
def _functional_max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1,
                           ceil_mode=False, return_indices=False):
    if return_indices:
        return max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return max_pool1d(input, kernel_size, () if stride is None else stride, padding, dilation,
                      ceil_mode)


@public("function", signatures=(
    "max_pool1d(Tensor input, IntArrayRef[1] kernel_size, IntArrayRef[1] stride=None, "
    "IntArrayRef[1] padding=0, IntArrayRef[1] dilation=1, bool ceil_mode=False)",))
def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    if not input.requires_grad:     # (ATen's own kernel, with its own checks)
        _check_max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)
    return max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)[0]


@public("function", "functional", signatures=(
    "avg_pool1d(Tensor input, IntArrayRef[1] kernel_size, IntArrayRef[1] stride=None, "
    "IntArrayRef[1] padding=0, bool ceil_mode=False, bool count_include_pad=True)",))
def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    stride = kernel_size if _no_stride(stride) else stride
    _check_1d("avg_pool1d", input, kernel_size=kernel_size, stride=stride, padding=padding)
    return avg_pool2d(input.unsqueeze(-2), _one(kernel_size, 1), _one(stride, 1),
                      _one(padding, 0), ceil_mode, count_include_pad).squeeze(-2)


# -- adaptive average pooling ------------------------------------------------------------------
def _adaptive_matrix(n, m, dtype):
    """(m, n): row i averages input positions floor(i n / m) .. ceil((i + 1) n / m) - 1."""
    i = xp.arange(m)
    start, end = (i * n) // m, -((-(i + 1) * n) // m)
    j = xp.arange(n)
    inside = (j >= start[:, None]) & (j < end[:, None])
    return (inside / (end - start)[:, None]).astype(dtype)


def _adaptive_forward(xp, self, output_size):
    (h, w), (oh, ow) = self.shape[-2:], output_size
    ph, pw = _adaptive_matrix(h, oh, self.dtype), _adaptive_matrix(w, ow, self.dtype)
    return (ph @ self @ pw.T).astype(self.dtype, copy=False)


def _adaptive_backward(xp, grad_output, self):
    (h, w), (oh, ow) = self.shape[-2:], grad_output.shape[-2:]
    ph, pw = _adaptive_matrix(h, oh, self.dtype), _adaptive_matrix(w, ow, self.dtype)
    return (ph.T @ grad_output @ pw).astype(self.dtype, copy=False)


_adaptive_avg_pool_backward = defop(
    "AdaptiveAvgPool2DBackwardBackward0", _adaptive_backward, ("grad_output", "self"),
    dtype="same", grads={"grad_output": lambda grad, grad_output: _adaptive_avg_pool(
        grad, output_size=tuple(grad_output.shape[-2:])),
        "self": lambda grad: zeros_like(grad)})
_adaptive_avg_pool = defop(
    "AdaptiveAvgPool2DBackward0", _adaptive_forward,
    dtype=_same_dtype("adaptive_avg_pool2d"),
    grads={"self": lambda grad, self: _adaptive_avg_pool_backward(grad, self)})


def _adaptive_size(output_size, input, k):
    size = (output_size,) * k if isinstance(output_size, builtins.int) else tuple(output_size)
    return tuple(input.shape[input.dim() - k + i] if s is None else s
                 for i, s in enumerate(size))


@public("function", "functional")
def adaptive_avg_pool2d(input, output_size):
    if input.dim() not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got "
                           f"{list(input.shape)}")
    size = _adaptive_size(output_size, input, 2)
    if size == (1, 1):     # ATen takes the mean (its C++ call: no argument layer)
        return _reduce.mean(input, (-1, -2), keepdim=True)
    return _adaptive_avg_pool(input, output_size=size)


@public("function", "functional", signatures=(
    "adaptive_avg_pool1d(Tensor input, IntArrayRef[1] output_size)",))
def adaptive_avg_pool1d(input, output_size):
    _check_1d("adaptive_avg_pool1d", input, output_size=output_size)
    size = _adaptive_size(output_size, input, 1)
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1,) + size).squeeze(-2)


# -- local response norm: the squares averaged over a window of channels -----------------------
@public("functional")
def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """torch's composite: input / (k + alpha * mean of the squares over ``size`` channels,
    zero-padded)^beta. Inputs above 3-D take avg_pool2d over (channels, flattened positions),
    the values torch's avg_pool3d with a (size, 1, 1) window gives."""
    from .nn import pad
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          "
                         f"input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    div = input.mul(input)
    sizes = input.size()
    div = div.unsqueeze(1) if dim == 3 else div.view(sizes[0], 1, sizes[1], -1)
    div = pad(div, (0, 0, size // 2, (size - 1) // 2))
    div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    if dim > 3:
        div = div.view(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div


# @public objects name themselves (glassgrad.ops.publish)
publish(globals())
