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
from .._args import bind as _bind
from .._creation import arange, ones, zeros
from .._runtime import warn_once
from .._tensor import _wrap_dim
from . import public, publish
from .complex import conj, conj_physical, resolve_conj, view_as_complex, view_as_real
from .nn import constant_pad_nd, pad
from .registry import defop
from .shape import _unfold_backward, cat, narrow, roll

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


# -- stft / istft ------------------------------------------------------------------------------
def _fmt(v):
    return "None" if v is None else str(builtins.int(v)) if isinstance(v, builtins.bool) else v


def _stft_repr(self, n_fft, hop, win, window, normalized, onesided, return_complex, align):
    shown = "None" if window is None else f"{window.type()}{{{list(window.shape)}}}"
    return (f"stft({self.type()}{list(self.shape)}, n_fft={n_fft}, hop_length={hop}, "
            f"win_length={win}, window={shown}, normalized={_fmt(normalized)}, "
            f"onesided={_fmt(onesided)}, return_complex={_fmt(return_complex)}, "
            f"align_to_window={_fmt(align)}) ")


_NO_WINDOW = ("A window was not provided. A rectangular window will be applied,which is known to "
              "cause spectral leakage. Other windows such as torch.hann_window or "
              "torch.hamming_window are recommended to reduce spectral leakage.To suppress this "
              "warning and use a rectangular window, explicitly set `window=torch.ones(n_fft, "
              "device=<device>)`. (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/"
              "native/SpectralOps.cpp:835.)")
_REAL_STFT = ("stft with return_complex=False is deprecated. In a future pytorch release, stft "
              "will return complex tensors for all inputs, and return_complex=False will raise "
              "an error.\nNote: you can still call torch.view_as_real on the complex output to "
              "recover the old return format. (Triggered internally at /__w/pytorch/pytorch/"
              "aten/src/ATen/native/SpectralOps.cpp:874.)")


@public("function", "method")      # (Python functions in torch, over the native stft)
def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
         pad_mode="reflect", normalized=False, onesided=None, return_complex=None,
         align_to_window=None):
    """The short-time Fourier transform, as torch.functional.stft and ATen's stft compute it:
    center pads the signal (F.pad's pad_mode), frames of n_fft every hop_length, the window
    (centred, zero-padded to n_fft), a real-to-complex (one-sided) or complex transform; the
    result (batch, frequency, frame)."""
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    if align_to_window:
        raise NotImplementedError("stft(align_to_window=True): glassgrad frames from the start "
                                  "of the signal only")
    if center:
        dims = input.dim()
        pad_by = builtins.int(n_fft // 2)
        input = pad(input.view([1] * (3 - dims) + list(input.shape)), [pad_by, pad_by],
                    pad_mode)
        input = input.view(input.shape[-dims:])
    return _native_stft(input, n_fft, hop_length, win_length, window, normalized, onesided,
                        return_complex, align_to_window)


def _stft(self, n_fft, hop_length=None, win_length=None, window=None, normalized=False,
          onesided=None, return_complex=None, align_to_window=None):
    if window is None:
        warn_once("stft window", _NO_WINDOW)
    hop = n_fft >> 2 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    complex_out = return_complex if return_complex is not None else (
        self.dtype.is_complex or (window is not None and window.dtype.is_complex))
    if not complex_out:
        if return_complex is None:
            raise RuntimeError("stft requires the return_complex parameter be given for real "
                               "inputs, and will further require that return_complex=True in "
                               "a future PyTorch release.")
        warn_once("stft real", _REAL_STFT)
    head = _stft_repr(self, n_fft, hop, win, window, normalized, onesided, return_complex,
                      align_to_window)
    if not (self.dtype.is_floating_point or self.dtype.is_complex):
        raise RuntimeError(head + ": expected a tensor of floating point or complex values")
    if not 1 <= self.dim() <= 2:
        raise RuntimeError(head + ": expected a 1D or 2D tensor")
    input = self.unsqueeze(0) if self.dim() == 1 else self
    length = input.shape[1]
    if n_fft <= 0 or n_fft > length:
        raise RuntimeError(head + f": expected 0 < n_fft < {length}, but got n_fft={win}")
    if hop <= 0:
        raise RuntimeError(head + f": expected hop_length > 0, but got hop_length={hop}")
    if win <= 0 or win > n_fft:
        raise RuntimeError(head + f": expected 0 < win_length <= n_fft, but got win_length={win}")
    if window is not None and (window.dim() != 1 or window.shape[0] != win):
        raise RuntimeError(head + f": expected a 1D window tensor of size equal to win_length="
                           f"{win}, but got window with size {list(window.shape)}")
    if win < n_fft:
        left = (n_fft - win) // 2
        padded = zeros(n_fft, dtype=(window if window is not None else self).dtype)
        padded.narrow(0, left, win).copy_(window) if window is not None else \
            padded.narrow(0, left, win).fill_(1)
        window = padded
    frames = 1 + (length - n_fft) // hop
    stride = input.stride()
    input = input.as_strided((input.shape[0], frames, n_fft),
                             (stride[0], hop * stride[1], stride[1]))
    if window is not None:
        input = input.mul(window)
    norm = _BY_ROOT_N if normalized else _NONE
    if input.dtype.is_complex:
        if onesided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        out = _c2c(input, dim=(2,), normalization=norm, forward=True)
    else:
        out = _r2c(input, dim=(2,), normalization=norm,
                   onesided=True if onesided is None else onesided)
    out.transpose_(1, 2)
    if self.dim() == 1:
        out.squeeze_(0)
    return out if complex_out else view_as_real(out)


_native_stft = _bind(_stft, [
    "stft(Tensor input, int64_t n_fft, int64_t? hop_length=None, int64_t? win_length=None, "
    "Tensor? window=None, bool normalized=False, bool? onesided=None, "
    "bool? return_complex=None, bool? align_to_window=None)"], positional=True)


def _istft_repr(self, n_fft, hop, win, window, center, normalized, onesided, length,
                return_complex):
    shown = "None" if window is None else f"{window.type()}{{{list(window.shape)}}}"
    kind = {"complex64": "CPUComplexFloatType", "complex128": "CPUComplexDoubleType"}.get(
        self.dtype.name) or self.type()
    return (f"istft({kind}{list(self.shape)}, n_fft={n_fft}, hop_length={hop}, "
            f"win_length={win}, window={shown}, center={_fmt(center)}, normalized="
            f"{_fmt(normalized)}, onesided={_fmt(onesided)}, length={_fmt(length)}, "
            f"return_complex={_fmt(return_complex)}) ")


_NO_INVERSE_WINDOW = (
    "A window was not provided. A rectangular window will be applied.Please provide the same "
    "window used by stft to make the inversion lossless.To suppress this warning and use a "
    "rectangular window, explicitly set `window=torch.ones(n_fft, device=<device>)`. "
    "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/SpectralOps.cpp:1035.)")


@public("function", signatures=(
    "istft(Tensor input, int64_t n_fft, int64_t? hop_length=None, int64_t? win_length=None, "
    "Tensor? window=None, bool center=True, bool normalized=False, bool? onesided=None, "
    "int64_t? length=None, bool return_complex=False)",))
def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
          normalized=False, onesided=None, length=None, return_complex=False):
    """The inverse of stft (ATen's istft): the frames' inverse transforms, windowed,
    overlap-added (unfold's backward) and divided by the window's overlap-added square."""
    if window is None:
        warn_once("istft window", _NO_INVERSE_WINDOW)
    hop = n_fft >> 2 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    head = _istft_repr(input, n_fft, hop, win, window, center, normalized, onesided, length,
                       return_complex)
    real, sided = _istft_checks(input, head, n_fft, hop, win, window, onesided)
    dims, frames = real.dim(), real.size(-2)
    expected = n_fft + hop * (frames - 1)
    window_ = window if window is not None else ones(win, dtype=real.dtype)
    if win != n_fft:
        left = (n_fft - win) // 2
        window_ = constant_pad_nd(window_, (left, n_fft - win - left), 0)
    if dims == 3:
        real = real.unsqueeze(0)
    spectra = _as_complex(real.transpose(1, 2))
    norm = _BY_ROOT_N if normalized else _BY_N
    if return_complex:
        if sided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        frames_ = _c2c(spectra, dim=(2,), normalization=norm, forward=False)
    else:
        if window is not None and window.dtype.is_complex:
            raise RuntimeError("Complex windows are incompatible with return_complex=False")
        if not sided:
            spectra = spectra[..., :n_fft // 2 + 1]
        frames_ = _c2r(spectra, dim=(2,), normalization=norm, last_dim_size=n_fft)
    y = _overlap_add(frames_ * window_.view(1, 1, n_fft), expected, n_fft, hop)
    envelope = _overlap_add(window_.pow(2).expand(1, frames, n_fft), expected, n_fft, hop)
    start = n_fft // 2 if center else 0
    end = start + length if length is not None else -(n_fft // 2) if center else expected
    y, envelope = y[:, start:end], envelope[:, start:end]
    if envelope.abs().min().lt(1e-11).item():
        raise RuntimeError(head + "window overlap add min: 1")
    y = y / envelope
    if dims == 3:
        y = y.squeeze(0)
    if end > expected:
        warn_once("istft length", "The length of signal is shorter than the length parameter. "
                  "Result is being padded with zeros in the tail. Please check your center and "
                  "hop_length settings. (Triggered internally at "
                  "/__w/pytorch/pytorch/aten/src/ATen/native/SpectralOps.cpp:1199.)")
        y = constant_pad_nd(y, (0, end - expected), 0)
    return y


@public("method", name="istft")
def _istft_method(self, n_fft, hop_length=None, win_length=None, window=None, center=True,
                  normalized=False, onesided=None, length=None, return_complex=False):
    """Tensor.istft: torch's Python method, over torch.istft."""
    return istft(self, n_fft, hop_length, win_length, window, center, normalized, onesided,
                 length, return_complex)


def _overlap_add(frames, length, n_fft, hop):
    """The frames (batch, frame, n_fft) added at every hop into (batch, length)."""
    return _unfold_backward(frames, input_sizes=(frames.shape[0], length), dimension=1,
                            size=n_fft, step=hop)


def _istft_checks(input, head, n_fft, hop, win, window, onesided):
    """ATen's istft checks, in its order: (the input as real pairs, whether one-sided)."""
    if not input.dtype.is_complex:
        raise RuntimeError("istft requires a complex-valued input tensor matching the output "
                           "from stft with return_complex=True.")
    real = view_as_real(resolve_conj(input))
    dims, fft_size = real.dim(), real.size(-3)
    if real.numel() == 0:
        raise RuntimeError(head + ": input tensor cannot be empty.")
    if dims not in (3, 4):
        raise RuntimeError(head + f": expected a tensor with 3 or 4 dimensions, but got {dims}")
    sided = onesided if onesided is not None else fft_size != n_fft
    if sided and n_fft // 2 + 1 != fft_size:
        raise RuntimeError(head + ": expected the frequency dimension (3rd to the last) of the "
                           "input tensor to match n_fft / 2 + 1 when onesided=True, but got "
                           f"{fft_size}")
    if not sided and n_fft != fft_size:
        raise RuntimeError(head + ": expected the frequency dimension (3rd to the last) of the "
                           "input tensor to match n_fft when onesided=False, but got "
                           f"{fft_size}")
    if not 0 < hop <= win:
        raise RuntimeError(head + ": expected 0 < hop_length <= win_length")
    if not 0 < win <= n_fft:
        raise RuntimeError(head + ": expected 0 < win_length <= n_fft")
    if window is not None and (window.dim() != 1 or window.shape[0] != win):
        raise RuntimeError(head + ": Invalid window shape. window has to be 1D and length of "
                           "`win_length`")
    return real, sided


def _as_complex(real):
    """ATen's as_complex: a view where the strides allow it, else of a contiguous copy."""
    strides = real.stride()
    viewable = all(st % 2 == 0 for st in strides[:-1]) and strides[-1] == 1 and \
        real.storage_offset() % 2 == 0
    return view_as_complex(real if viewable else real.contiguous())


publish(globals())
