"""torch.fft on NumPy's pocketfft (``xp.fft``), built as ATen builds it (SpectralOps.cpp):
three rows, _fft_c2c, _fft_r2c and _fft_c2r (torch's nodes FftC2CBackward0, FftR2CBackward0,
FftC2RBackward0), with a normalization code (0: none, 1: 1/sqrt(n), 2: 1/n) and a direction;
the public functions promote, pad or trim the input (constant_pad_nd / slice), pick the
normalization from ``norm`` and the direction, and conjugate where ATen does (ifft of a real
input, ihfft and hfft). The gradient formulas are torch's (the transforms are linear: each
row's gradient is another row), so every order of gradient exists.
"""
import builtins

from .. import dtypes
from .._creation import arange, zeros
from .._tensor import _wrap_dim
from . import public, publish
from .complex import conj, conj_physical
from .nn import pad
from .registry import defop
from .shape import cat, narrow, roll

_NONE, _BY_ROOT_N, _BY_N = range(3)
# NumPy's norm= giving the normalization code, for the forward (e**-) and backward transforms
_NUMPY_NORM = {True: ("backward", "ortho", "forward"), False: ("forward", "ortho", "backward")}


def _complex_of(a, xp):
    return xp.complex64 if a.dtype in (xp.float32, xp.complex64) else xp.complex128


def _c2c_forward(xp, self, dim, normalization, forward):
    fn = xp.fft.fftn if forward else xp.fft.ifftn
    return fn(self, axes=dim, norm=_NUMPY_NORM[forward][normalization]).astype(
        self.dtype, copy=False)


def _r2c_forward(xp, self, dim, normalization, onesided):
    fn = xp.fft.rfftn if onesided else xp.fft.fftn
    return fn(self, axes=dim, norm=_NUMPY_NORM[True][normalization]).astype(
        _complex_of(self, xp), copy=False)


def _c2r_forward(xp, self, dim, normalization, last_dim_size):
    sizes = [self.shape[d] for d in dim[:-1]] + [last_dim_size]
    real = xp.float32 if self.dtype == xp.complex64 else xp.float64
    return xp.fft.irfftn(self, s=sizes, axes=dim, norm=_NUMPY_NORM[False][normalization]).astype(
        real, copy=False)


def _r2c_grad(grad, self_sym_sizes, dim, normalization, onesided):
    """ATen's fft_r2c_backward: a one-sided gradient padded with zeros to the full length,
    then the inverse complex transform's real part."""
    if onesided:
        last = dim[-1]
        missing = self_sym_sizes[last] - grad.shape[last]
        if missing > 0:
            shape = list(grad.shape)
            shape[last] = missing
            grad = cat([grad, zeros(shape, dtype=grad.dtype)], last)
    return _c2c(grad, dim=dim, normalization=normalization, forward=False).real


def _c2r_grad(grad, dim, normalization, last_dim_size):
    """ATen's fft_c2r_backward: the one-sided forward transform, its elements that stand for
    two (conjugate) frequencies doubled."""
    out = _r2c(grad, dim=dim, normalization=normalization, onesided=True)
    last = dim[-1]
    double = grad.shape[last] - out.shape[last]
    if double > 0:
        weight = [1.0] + [2.0] * double + [1.0] * (out.shape[last] - 1 - double)
        shape = [1] * out.dim()
        shape[last] = len(weight)
        out = out * _weights(weight, shape, grad.dtype)
    return out


def _weights(values, shape, dtype):
    from .._creation import tensor
    return tensor(values, dtype=dtype).reshape(shape)


_c2c = defop("FftC2CBackward0", _c2c_forward, dtype="same", wirtinger=False,
             grads={"self": lambda grad, dim, normalization, forward: _c2c(
                 grad, dim=dim, normalization=normalization, forward=not forward)})
_r2c = defop("FftR2CBackward0", _r2c_forward, dtype="same", wirtinger=False,
             grads={"self": _r2c_grad})
_c2r = defop("FftC2RBackward0", _c2r_forward, dtype="same", wirtinger=False,
             grads={"self": _c2r_grad})


# -- argument handling as ATen's -------------------------------------------------------------
def _normalization(norm, forward):
    if norm is None or norm == "backward":
        return _NONE if forward else _BY_N
    if norm == "forward":
        return _BY_N if forward else _NONE
    if norm == "ortho":
        return _BY_ROOT_N
    raise RuntimeError(f'Invalid normalization mode: "{norm}"')


def _promote(input, require_complex=False):
    d = input.dtype
    if d is dtypes.float16:
        raise RuntimeError("Unsupported dtype Half")
    if not (d.is_floating_point or d.is_complex):
        d = dtypes.get_default_dtype()
    if require_complex:
        d = d.to_complex()
    return input if d is input.dtype else input.to(d)


def _check_points(n):
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")


def _resize(input, dims, sizes):
    """ATen's resize_fft_input: each dim zero-padded at its end or trimmed to its size."""
    padding = [0] * (2 * input.dim())
    for d, n in zip(dims, sizes):
        if input.shape[d] > n:
            input = narrow(input, d, 0, n)
        elif input.shape[d] < n:
            padding[2 * (input.dim() - 1 - d) + 1] = n - input.shape[d]
    return pad(input, padding) if any(padding) else input


def _one_dim(input, n, dim):
    dim = _wrap_dim(dim, input.dim(), scalar=False)
    n = input.shape[dim] if n is None else n
    _check_points(n)
    return dim, n


def _nd(input, s, dim):
    """ATen's canonicalize_fft_shape_and_dim_args: (dims, sizes)."""
    ndim = input.dim()
    if dim is not None:
        dim = [dim] if isinstance(dim, builtins.int) else list(dim)
        dims = [_wrap_dim(d, ndim, scalar=False) for d in dim]
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    if s is not None:
        s = list(s)
        if dim is not None and len(dim) != len(s):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        if len(s) > ndim:
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has "
                               f"{ndim} dimensions.")
        if dim is None:
            dims = list(range(ndim - len(s), ndim))
        sizes = [input.shape[d] if n == -1 else n for d, n in zip(dims, s)]
        for n in sizes:
            _check_points(n)
    else:
        if dim is None:
            dims = list(range(ndim))
        sizes = [input.shape[d] for d in dims]
    return dims, sizes


def _c2c_public(input, dims, sizes, norm, forward):
    x = _resize(_promote(input, require_complex=True), dims, sizes)
    return _c2c(x, dim=tuple(dims), normalization=_normalization(norm, forward), forward=forward)


def _r2c_public(name, input, dims, sizes, norm, forward, onesided):
    if input.dtype.is_complex:
        raise RuntimeError(f"{name} expects a real input tensor, but got "
                           f"{dtypes.SCALAR_NAMES[input.dtype.name]}")
    x = _resize(_promote(input), dims, sizes)
    out = _r2c(x, dim=tuple(dims), normalization=_normalization(norm, forward),
               onesided=onesided)
    return out if forward else conj(out)


def _c2r_sizes(input, dims, sizes, s):
    last = sizes[-1] if s is not None and s[-1] != -1 else 2 * (input.shape[dims[-1]] - 1)
    _check_points(last)
    return sizes[:-1] + [last // 2 + 1], last


# -- the public functions --------------------------------------------------------------------
def _sig(name, head, rest="c10::string_view? norm=None, *, Tensor out=None"):
    return (f"{name}(Tensor input, {head}, {rest})",)


_1D = "SymInt? n=None, int64_t dim=-1"
_2D = "SymIntArrayRef[1]? s=None, IntArrayRef[1] dim=[-2,-1]"
_ND = "SymIntArrayRef[1]? s=None, IntArrayRef[1]? dim=None"


@public("fft", signatures=_sig("fft", _1D))
def fft(input, n=None, dim=-1, norm=None):
    dim, n = _one_dim(input, n, dim)
    if input.dtype.is_complex:
        return _c2c_public(input, [dim], [n], norm, True)
    return _r2c_public("fft", input, [dim], [n], norm, True, False)


@public("fft", signatures=_sig("ifft", _1D))
def ifft(input, n=None, dim=-1, norm=None):
    dim, n = _one_dim(input, n, dim)
    if input.dtype.is_complex:
        return _c2c_public(input, [dim], [n], norm, False)
    return _r2c_public("ifft", input, [dim], [n], norm, False, False)


@public("fft", signatures=_sig("rfft", _1D))
def rfft(input, n=None, dim=-1, norm=None):
    dim, n = _one_dim(input, n, dim)
    return _r2c_public("rfft", input, [dim], [n], norm, True, True)


@public("fft", signatures=_sig("ihfft", _1D))
def ihfft(input, n=None, dim=-1, norm=None):
    dim, n = _one_dim(input, n, dim)
    return _r2c_public("ihfft", input, [dim], [n], norm, False, True)


def _c2r_1d(input, n, dim, norm, forward):
    dim = _wrap_dim(dim, input.dim(), scalar=False)
    n = 2 * (input.shape[dim] - 1) if n is None else n
    _check_points(n)
    x = _resize(_promote(input, require_complex=True), [dim], [n // 2 + 1])
    if forward:
        x = conj(x)
    return _c2r(x, dim=(dim,), normalization=_normalization(norm, forward), last_dim_size=n)


@public("fft", signatures=_sig("irfft", _1D))
def irfft(input, n=None, dim=-1, norm=None):
    return _c2r_1d(input, n, dim, norm, False)


@public("fft", signatures=_sig("hfft", _1D))
def hfft(input, n=None, dim=-1, norm=None):
    return _c2r_1d(input, n, dim, norm, True)


def _fftn(input, s, dim, norm, forward):
    dims, sizes = _nd(input, s, dim)
    return _c2c_public(input, dims, sizes, norm, forward)


def _rfftn(name, input, s, dim, norm):
    if input.dtype.is_complex:
        raise RuntimeError(f"{name} expects a real-valued input tensor, but got "
                           f"{dtypes.SCALAR_NAMES[input.dtype.name]}")
    dims, sizes = _nd(input, s, dim)
    _check_dims(dims, name)
    return _r2c_public(name, input, dims, sizes, norm, True, True)


def _check_dims(dims, name):
    if not dims:
        raise RuntimeError(f"{name} must transform at least one axis")


def _irfftn(input, s, dim, norm):
    dims, sizes = _nd(input, s, dim)
    _check_dims(dims, "irfftn")
    sizes, last = _c2r_sizes(input, dims, sizes, s)
    x = _resize(_promote(input, require_complex=True), dims, sizes)
    return _c2r(x, dim=tuple(dims), normalization=_normalization(norm, False),
                last_dim_size=last)


def _hfftn(input, s, dim, norm):
    """ATen's fft_hfftn: complex transforms over all but the last dim, then the conjugate's
    one-sided inverse over the last (both with the forward normalization)."""
    dims, sizes = _nd(input, s, dim)
    _check_dims(dims, "hfftn")
    sizes, last = _c2r_sizes(input, dims, sizes, s)
    x = _resize(_promote(input, require_complex=True), dims, sizes)
    code = _normalization(norm, True)
    if len(dims) > 1:
        x = _c2c(x, dim=tuple(dims[:-1]), normalization=code, forward=True)
    return _c2r(conj(x), dim=(dims[-1],), normalization=code, last_dim_size=last)


def _ihfftn(input, s, dim, norm):
    """ATen's fft_ihfftn: the one-sided transform over the last dim, conjugated, then complex
    transforms over the others (with the backward normalization)."""
    if input.dtype.is_complex:
        raise RuntimeError(f"ihfftn expects a real-valued input tensor, but got "
                           f"{dtypes.SCALAR_NAMES[input.dtype.name]}")
    dims, sizes = _nd(input, s, dim)
    _check_dims(dims, "ihfftn")
    x = _resize(_promote(input), dims, sizes)
    code = _normalization(norm, False)
    out = _r2c(x, dim=(dims[-1],), normalization=code, onesided=True)
    if len(dims) == 1:
        return conj(out)
    return _c2c(conj_physical(out), dim=tuple(dims[:-1]), normalization=code, forward=False)


@public("fft", signatures=_sig("fft2", _2D))
def fft2(input, s=None, dim=[-2, -1], norm=None):
    return _fftn(input, s, dim, norm, True)


@public("fft", signatures=_sig("ifft2", _2D))
def ifft2(input, s=None, dim=[-2, -1], norm=None):
    return _fftn(input, s, dim, norm, False)


@public("fft", signatures=_sig("fftn", _ND))
def fftn(input, s=None, dim=None, norm=None):
    return _fftn(input, s, dim, norm, True)


@public("fft", signatures=_sig("ifftn", _ND))
def ifftn(input, s=None, dim=None, norm=None):
    return _fftn(input, s, dim, norm, False)


@public("fft", signatures=_sig("rfft2", _2D))
def rfft2(input, s=None, dim=[-2, -1], norm=None):
    return _rfftn("rfftn", input, s, dim, norm)


@public("fft", signatures=_sig("rfftn", _ND))
def rfftn(input, s=None, dim=None, norm=None):
    return _rfftn("rfftn", input, s, dim, norm)


@public("fft", signatures=_sig("irfft2", _2D))
def irfft2(input, s=None, dim=[-2, -1], norm=None):
    return _irfftn(input, s, dim, norm)


@public("fft", signatures=_sig("irfftn", _ND))
def irfftn(input, s=None, dim=None, norm=None):
    return _irfftn(input, s, dim, norm)


@public("fft", signatures=_sig("hfft2", _2D))
def hfft2(input, s=None, dim=[-2, -1], norm=None):
    return _hfftn(input, s, dim, norm)


@public("fft", signatures=_sig("hfftn", _ND))
def hfftn(input, s=None, dim=None, norm=None):
    return _hfftn(input, s, dim, norm)


@public("fft", signatures=_sig("ihfft2", _2D))
def ihfft2(input, s=None, dim=[-2, -1], norm=None):
    return _ihfftn(input, s, dim, norm)


@public("fft", signatures=_sig("ihfftn", _ND))
def ihfftn(input, s=None, dim=None, norm=None):
    return _ihfftn(input, s, dim, norm)


# -- frequencies and shifts ------------------------------------------------------------------
_FREQ = ("*, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
         "bool? pin_memory=False, bool? requires_grad=False")


def _frequencies(count, n, d, dtype, requires_grad, negative=True):
    """ATen's fftfreq: integers (fftfreq's upper half negative), times 1 / (n * d) in the
    dtype."""
    out = arange(count, dtype=dtype)
    if negative and count > (n + 1) // 2:
        out = cat([out[:(n + 1) // 2], arange(-(n // 2), 0, dtype=out.dtype)])
    out = out * (1.0 / (n * d) if n * d else builtins.float("inf"))     # (C++'s 1.0 / 0)
    return out.requires_grad_(requires_grad) if requires_grad else out


@public("fft", signatures=(f"fftfreq(int64_t n, double d=1.0, {_FREQ})",))
def fftfreq(n, d=1.0, *, dtype=None, layout=None, device=None, pin_memory=False,
            requires_grad=False):
    return _frequencies(n, n, d, dtype, requires_grad)


@public("fft", signatures=(f"rfftfreq(int64_t n, double d=1.0, {_FREQ})",))
def rfftfreq(n, d=1.0, *, dtype=None, layout=None, device=None, pin_memory=False,
             requires_grad=False):
    return _frequencies(n // 2 + 1, n, d, dtype, requires_grad, negative=False)


def _shift(input, dim, inverse):
    if dim is None:
        dims = list(range(input.dim()))
    else:
        dims = [dim] if isinstance(dim, builtins.int) else list(dim)
        dims = [_wrap_dim(d, input.dim()) for d in dims]
    shifts = [(input.shape[d] + 1) // 2 if inverse else input.shape[d] // 2 for d in dims]
    return roll(input, shifts, dims)


@public("fft", signatures=("fftshift(Tensor input, IntArrayRef[1]? dim=None)",))
def fftshift(input, dim=None):
    return _shift(input, dim, False)


@public("fft", signatures=("ifftshift(Tensor input, IntArrayRef[1]? dim=None)",))
def ifftshift(input, dim=None):
    return _shift(input, dim, True)


publish(globals())
