"""Random ops drawing from glassgrad's own generator (manual_seed makes runs repeatable).

The stream is NumPy's, not PyTorch's: the same seed gives the same numbers here every time, never
the numbers torch draws. Sampling is not differentiable: the nodes pass zero gradients back, as
PyTorch's do.
"""

from .. import _device, dtypes
from .._creation import _dtype, _new, _rng, _size, zeros, zeros_like
from .._tensor import Tensor
from ..backend import xp
from . import public, publish
from .registry import _C10_NAMES, _SCALAR_NAMES, apply_inplace, defop
from .shape import expand

_P_IN_RANGE = ("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error "
               "message be improved?  If so, please report an enhancement request to PyTorch.)")


def _name(d):
    return _SCALAR_NAMES[d.name]


def _float_kernel(dtype, kernel):
    if not dtype.is_floating_point:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_name(dtype)}\'')


def _zero_grad(grad):
    return zeros_like(grad)


def _draw(kind):
    """A forward that overwrites ``self`` with samples (for an in-place row)."""
    return lambda xp, self, generator, **kw: kind(_rng(generator), self, **kw).astype(self.dtype)


# -- in-place samplers -------------------------------------------------------------------------
def _uniform(rng, self, low, high):
    work = xp.float32 if self.dtype == xp.float32 else xp.float64
    out = (low + (high - low) * rng.random(self.shape, dtype=work)).astype(self.dtype)
    if high > low:      # rounding may reach ``high``; the range is [low, high)
        out = xp.minimum(out, xp.nextafter(self.dtype.type(high), self.dtype.type(low)))
    return out


_uniform_ = defop("UniformBackward0", _draw(_uniform), dtype="same", grads={"self": _zero_grad})
_normal_ = defop("NormalBackward0", _draw(
    lambda rng, self, mean, std: mean + std * rng.standard_normal(self.shape)), dtype="same",
    grads={"self": _zero_grad})
_exponential_ = defop("ExponentialBackward0", _draw(
    lambda rng, self, lambd: rng.exponential(1 / lambd, self.shape)), dtype="same",
    grads={"self": _zero_grad})
_bernoulli_scalar_ = defop("BernoulliBackward2", _draw(
    lambda rng, self, p: rng.random(self.shape) < p), dtype="same", grads={"self": _zero_grad})
_bernoulli_tensor_ = defop(
    "BernoulliBackward1", lambda xp, self, p, generator: (_rng(generator).random(self.shape) <
                                                      p).astype(self.dtype), ("self", "p"),
    dtype="same", grads={"self": _zero_grad,
                         "p": lambda grad, p_sym_sizes: zeros(p_sym_sizes, dtype=grad.dtype)})


def _bound_checks(self, low, high):
    info = xp.finfo(self.dtype.np)
    for name, v in (("from", low), ("to", high)):
        if not info.min <= v <= info.max:
            raise RuntimeError(f"{name} is out of bounds for {_C10_NAMES[self.dtype.name]}")


@public("method")
def uniform_(self, *args, generator=None, **kwargs):
    """uniform_(from=0, to=1, *, generator=None) (``from`` is a Python keyword)."""
    low, high = (list(args) + [kwargs.get("from", 0), kwargs.get("to", 1)][len(args):])[:2]
    _float_kernel(self.dtype, "check_uniform_bounds")
    _bound_checks(self, low, high)
    if low > high:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                           f"from={low:g} > to={high:g}")
    return apply_inplace(_uniform_, self, (self,), {"low": low, "high": high,
                                                    "generator": generator})


def _check_std(std):
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")


@public("method")
def normal_(self, mean=0, std=1, *, generator=None):
    _float_kernel(self.dtype, "normal_kernel_cpu")
    _check_std(std)
    return apply_inplace(_normal_, self, (self,), {"mean": mean, "std": std,
                                                   "generator": generator})


@public("method")
def exponential_(self, lambd=1, *, generator=None):
    if not self.dtype.is_floating_point:
        raise RuntimeError(f"Exponential distribution is a continuous probability distribution. "
                           f"dtype must be a floating point but you specified {_name(self.dtype)}")
    if lambd <= 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd:g}")
    return apply_inplace(_exponential_, self, (self,), {"lambd": lambd, "generator": generator})


def _check_p(p):
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p:g}")


@public("method")
def bernoulli_(self, p=0.5, *, generator=None):
    if isinstance(p, Tensor):
        expand(p.detach(), self.shape)      # PyTorch's error when p does not broadcast
        if p.numel() and not ((p._data >= 0) & (p._data <= 1)).all():
            raise RuntimeError(_P_IN_RANGE)
        return apply_inplace(_bernoulli_tensor_, self, (self, p), {"generator": generator})
    _check_p(p)
    return apply_inplace(_bernoulli_scalar_, self, (self,), {"p": p, "generator": generator})


# -- sampling functions ----------------------------------------------------------------------
def _bernoulli_not_implemented(grad):
    raise RuntimeError("derivative for aten::bernoulli is not implemented")


_bernoulli = defop("BernoulliBackward0", lambda xp, self, generator: (
    _rng(generator).random(self.shape) < self).astype(self.dtype), dtype="same",
    grads={"self": _zero_grad})
_bernoulli_p = defop("NotImplemented", _draw(lambda rng, self, p: rng.random(self.shape) < p),
                     dtype="same", grads={"self": _bernoulli_not_implemented})


@public("function", "method")
def bernoulli(input, p=None, *, generator=None):
    if p is not None:
        _check_p(p)
        return _bernoulli_p(input, p=p, generator=generator)
    _float_kernel(input.dtype, "bernoulli_tensor_cpu_p_")
    a = input._data
    if a.size and not ((a >= 0) & (a <= 1)).all():
        raise RuntimeError(_P_IN_RANGE)
    return _bernoulli(input, generator=generator)


def _normal_forward(xp, mean, std, generator):
    shape = xp.broadcast_shapes(xp.shape(mean), xp.shape(std))
    dtype = (mean if isinstance(mean, xp.ndarray) else std).dtype
    return (mean + std * _rng(generator).standard_normal(shape)).astype(dtype)


def _zeros_of(name):
    return {"mean": lambda grad, mean_sym_sizes: zeros(mean_sym_sizes, dtype=grad.dtype),
            "std": lambda grad, std_sym_sizes: zeros(std_sym_sizes, dtype=grad.dtype)}[name]


_normal_mean = defop("NormalBackward1", _normal_forward, ("mean",), dtype="same",
                     grads={"mean": _zeros_of("mean")})
_normal_std = defop("NormalBackward2", lambda xp, std, mean, generator:
                    _normal_forward(xp, mean, std, generator), ("std",), dtype="same",
                    grads={"std": _zeros_of("std")})
_normal_both = defop("NormalBackward3", _normal_forward, ("mean", "std"),
                     dtype=lambda values, attrs: values[0].dtype,
                     grads={"mean": _zeros_of("mean"), "std": _zeros_of("std")})


def _std_tensor(std):
    if std.numel() and not (std._data >= 0).all():
        raise RuntimeError("normal expects all elements of std >= 0.0")


@public("function")
def normal(mean, std=1.0, size=None, *, generator=None, dtype=None, device=None,
           requires_grad=False):
    """normal(Tensor mean, Tensor std) | (Tensor mean, float std=1) | (float mean, Tensor std)
    | (float mean, float std, size, *, dtype, requires_grad)."""
    _device.check(device, "normal")
    m_t, s_t = isinstance(mean, Tensor), isinstance(std, Tensor)
    if (m_t or s_t) == (size is not None) or \
            (size is not None and not isinstance(size, (tuple, list))):
        got = ", ".join("Tensor" if isinstance(a, Tensor) else type(a).__name__
                        for a in (mean, std, size) if a is not None)
        raise TypeError(f"normal() received an invalid combination of arguments - got ({got}), "
                        f"but expected one of:")
    if m_t and s_t:
        _float_kernel(mean.dtype, "normal_kernel_cpu")
        _std_tensor(std)
        return _normal_both(mean, std, generator=generator)
    if m_t:
        _float_kernel(mean.dtype, "normal_kernel_cpu")
        _check_std(std)
        return _normal_mean(mean, std=std, generator=generator)
    if s_t:
        _float_kernel(std.dtype, "normal_kernel_cpu")
        _std_tensor(std)
        return _normal_std(std, mean=mean, generator=generator)
    dtype = _dtype(dtype)
    _float_kernel(dtype, "normal_kernel_cpu")
    _check_std(std)
    data = mean + std * _rng(generator).standard_normal(_size((size,)))
    return _new(xp.asarray(data, dtype.np), None, requires_grad)


_RANGE_NAMES = {"int8": "int8_t", "uint8": "uint8_t", "int16": "int16_t", "int32": "int"}


@public("function")
def randperm(n, *, generator=None, dtype=dtypes.int64, layout=None, device=None,
             requires_grad=False, pin_memory=False):
    _device.check(device, "randperm")
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    if dtype is dtypes.bool:
        raise NotImplementedError("\"randperm\" not implemented for 'Bool'")
    if dtype is dtypes.float16 and n > 2049:
        raise RuntimeError("n cannot be greater than 2049 for Half type.")
    if dtype.name in _RANGE_NAMES and n - 1 > xp.iinfo(dtype.np).max:
        raise RuntimeError(f"value cannot be converted to type {_RANGE_NAMES[dtype.name]} without "
                           f"overflow")
    return _new(_rng(generator).permutation(n).astype(dtype.np), None, requires_grad)


def _multinomial_row(rng, p, num_samples, replacement):
    if replacement:
        cdf = xp.cumsum(p.astype(xp.float64))
        return xp.minimum(xp.searchsorted(cdf, rng.random(num_samples) * cdf[-1], side="right"),
                          len(p) - 1)
    # the exponential race: each category's first arrival time; earliest win, zeros never first
    with xp.errstate(divide="ignore"):
        keys = rng.exponential(size=len(p)) / p.astype(xp.float64)
    return xp.argsort(keys, kind="stable")[:num_samples]


@public("function", "method")
def multinomial(input, num_samples, replacement=False, *, generator=None):
    if not 1 <= input.dim() <= 2:
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not input.is_floating_point():
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{_name(input.dtype)}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > input.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    rows = input._data.reshape(-1, input.shape[-1])
    if rows.size:
        if not replacement or num_samples == 1:
            if not (rows.max() < xp.inf and rows.min() >= 0):
                raise RuntimeError("probability tensor contains either `inf`, `nan` or "
                                   "element < 0")
        else:
            if not (rows >= 0).all():
                raise RuntimeError("invalid multinomial distribution (encountering probability "
                                   "entry < 0)")
            if not xp.isfinite(rows).all():
                raise RuntimeError("invalid multinomial distribution (encountering probability "
                                   "entry = infinity or NaN)")
        if (rows.sum(-1) == 0).any():
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    rng = _rng(generator)
    out = xp.array([_multinomial_row(rng, r, num_samples, replacement) for r in rows],
                   dtype=xp.int64).reshape(*input.shape[:-1], num_samples)
    return _new(out, None, False)


# @public objects name themselves (glassgrad.ops.publish)
publish(globals())
