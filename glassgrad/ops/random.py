"""Random ops drawing PyTorch's CPU stream (glassgrad/_generator.py; the samplers replay
ATen's, backend/kernels/random.py): after the same manual_seed, the same numbers as torch.
Sampling is not differentiable: the nodes pass zero gradients back, as PyTorch's do.
"""

import builtins

from .. import _device, dtypes
from .._creation import _check_from_to, _dtype, _new, _numel, _size, zeros, zeros_like
from .._generator import engine
from .._tensor import Tensor
from ..backend import finfo as _finfo, xp
from ..backend.kernels import random as sample
from . import public, publish
from .registry import _C10_NAMES, _SCALAR_NAMES, apply_inplace, broadcast_shapes, defop
from .reduce import topk
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
    """A forward that overwrites ``self`` with samples (for an in-place row): ``kind(engine,
    self, **attrs)`` gives them flat, in the order torch visits self's memory."""
    def forward(xp, self, generator, **kw):
        return sample.place(self, kind(engine(generator), self, **kw).astype(self.dtype))
    return forward


# -- in-place samplers -------------------------------------------------------------------------
def _contiguous(a):
    return a.flags.c_contiguous


_uniform_ = defop("UniformBackward0", _draw(
    lambda eng, self, low, high: sample.uniform(eng, self.size, self.dtype, low, high)),
    dtype="same", grads={"self": _zero_grad})
_normal_ = defop("NormalBackward0", _draw(
    lambda eng, self, mean, std: sample.normal(eng, self.size, self.dtype, mean, std,
                                               _contiguous(self))),
    dtype="same", grads={"self": _zero_grad})
_exponential_ = defop("ExponentialBackward0", _draw(
    lambda eng, self, lambd: sample.cast(sample.exponential(eng, self.size, lambd), self.dtype)),
    dtype="same", grads={"self": _zero_grad})
_geometric_ = defop("GeometricBackward0", _draw(
    lambda eng, self, p: sample.cast(sample.geometric(eng, self.size, p), self.dtype)),
    dtype="same", grads={"self": _zero_grad})
_log_normal_ = defop("LogNormalBackward0", _draw(
    lambda eng, self, mean, std: sample.cast(sample.log_normal(eng, self.size, mean, std),
                                             self.dtype)),
    dtype="same", grads={"self": _zero_grad})
_cauchy_ = defop("CauchyBackward0", _draw(
    lambda eng, self, median, sigma: sample.cast(sample.cauchy(eng, self.size, median, sigma),
                                                 self.dtype)),
    dtype="same", grads={"self": _zero_grad})
_random_bits_ = defop("RandomBackward2", _draw(
    lambda eng, self: sample.random_bits(eng, self.size, self.dtype)),
    dtype="same", grads={"self": _zero_grad})
_random_to_ = defop("RandomBackward1", _draw(
    lambda eng, self, span, base: sample.random_from_to(eng, self.size, self.dtype, span, base)),
    dtype="same", grads={"self": _zero_grad})
_FULL_RANGE = 1 << 64        # random_(int64 min, None) on int64, float and double


def _from_to(eng, self, span, base):
    if span == _FULL_RANGE:
        return sample.random_full_range(eng, self.size, self.dtype)
    return sample.random_from_to(eng, self.size, self.dtype, span, base)


_random_from_to_ = defop("RandomBackward0", _draw(_from_to), dtype="same",
                         grads={"self": _zero_grad})
_bernoulli_scalar_ = defop("BernoulliBackward2", _draw(
    lambda eng, self, p: sample.bernoulli_scalar(eng, self.size, p)), dtype="same",
    grads={"self": _zero_grad})


def _bernoulli_tensor_forward(xp, self, p, generator):
    drawn = sample.bernoulli_tensor(engine(generator), sample.in_visit_order(self, p))
    return sample.place(self, drawn.astype(self.dtype))


_bernoulli_tensor_ = defop(
    "BernoulliBackward1", _bernoulli_tensor_forward, ("self", "p"),
    dtype="same", grads={"self": _zero_grad,
                         "p": lambda grad, p_sym_sizes: zeros(p_sym_sizes, dtype=grad.dtype)})


def _bound_checks(self, low, high):
    info = _finfo(self.dtype.np)
    for name, v in (("from", low), ("to", high)):
        if not info.min <= v <= info.max:
            raise RuntimeError(f"{name} is out of bounds for {_C10_NAMES[self.dtype.name]}")


@public("method", method_signatures=(
    "uniform_(Tensor self, double from=0, double to=1, *, Generator? generator=None)",))
def uniform_(self, low=0, high=1, *, generator=None):
    """(torch's ``from`` and ``to``: the argument layer renames them, ``from`` being a Python
    keyword)"""
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


@public("method", method_signatures=(
    "normal_(Tensor self, double mean=0, double std=1, *, Generator? generator=None)",))
def normal_(self, mean=0, std=1, *, generator=None):
    _float_kernel(self.dtype, "normal_kernel_cpu")
    _check_std(std)
    return apply_inplace(_normal_, self, (self,), {"mean": mean, "std": std,
                                                   "generator": generator})


@public("method", method_signatures=(
    "exponential_(Tensor self, double lambd=1, *, Generator? generator=None)",))
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


@public("method", method_signatures=(
    "bernoulli_(Tensor self, Tensor p, *, Generator? generator=None)",
    "bernoulli_(Tensor self, double p=0.5, *, Generator? generator=None)"))
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


_bernoulli = defop("BernoulliBackward0", lambda xp, self, generator: sample.bernoulli_tensor(
    engine(generator), self.ravel()).reshape(self.shape).astype(self.dtype), dtype="same",
    grads={"self": _zero_grad})
_bernoulli_p = defop("NotImplemented", lambda xp, self, p, generator: sample.bernoulli_scalar(
    engine(generator), self.size, p).reshape(self.shape).astype(self.dtype), dtype="same",
    grads={"self": _bernoulli_not_implemented})


@public("function", "method", signatures=(
    "bernoulli(Tensor input, *, Generator? generator=None, Tensor out=None)",
    "bernoulli(Tensor input, double p, *, Generator? generator=None)"))
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
    """ATen's normal_out_impl: standard normals over the output (with std folded in when std
    is a number), then times a std tensor, then plus mean, each rounded to the dtype."""
    shape = xp.broadcast_shapes(xp.shape(mean), xp.shape(std))
    std_t = isinstance(std, xp.ndarray)
    dtype = (mean if isinstance(mean, xp.ndarray) else std).dtype
    out = sample.normal(engine(generator), _numel(shape), dtype, 0.0, 1.0 if std_t else std)
    out = out.reshape(shape)
    if std_t:
        out = (out * std.astype(dtype)).astype(dtype)
    return xp.asarray(out + (mean.astype(dtype) if isinstance(mean, xp.ndarray) else mean),
                      dtype)


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


@public("function", signatures=(
    "normal(Tensor mean, Tensor std, *, Generator? generator=None, Tensor out=None)",
    "normal(Tensor mean, double std=1, *, Generator? generator=None, Tensor out=None)",
    "normal(double mean, Tensor std, *, Generator? generator=None, Tensor out=None)",
    "normal(double mean, double std, SymIntArrayRef size, *, Generator? generator=None, "
    "Tensor out=None, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
    "bool? pin_memory=False, bool? requires_grad=False)"))
def normal(mean, std=1.0, size=None, *, generator=None, dtype=None, layout=None, device=None,
           pin_memory=False, requires_grad=False):
    _device.check(device, "normal")
    _device.check_pin(pin_memory)
    m_t, s_t = isinstance(mean, Tensor), isinstance(std, Tensor)
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
    shape = _size((size,))
    data = sample.normal(engine(generator), _numel(shape), dtype.np, mean, std)
    return _new(data.reshape(shape), None, requires_grad)


_RANGE_NAMES = {"int8": "int8_t", "uint8": "uint8_t", "int16": "int16_t", "int32": "int"}


@public("function", signatures=(
    "randperm(SymInt n, *, Generator? generator, Tensor out=None, ScalarType? dtype=None, "
    "Layout? layout=None, Device? device=None, bool? pin_memory=False, "
    "bool? requires_grad=False)",
    "randperm(SymInt n, *, Tensor out=None, ScalarType? dtype=None, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=False, bool? requires_grad=False)"))
def randperm(n, *, generator=None, dtype=None, layout=None, device=None, requires_grad=False,
             pin_memory=False):
    _device.check(device, "randperm")
    dtype = dtypes.int64 if dtype is None else dtype
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    if dtype is dtypes.bool:
        raise NotImplementedError("\"randperm\" not implemented for 'Bool'")
    if dtype is dtypes.float16 and n > 2049:
        raise RuntimeError("n cannot be greater than 2049 for Half type.")
    if dtype.name in _RANGE_NAMES and n - 1 > xp.iinfo(dtype.np).max:
        raise RuntimeError(f"value cannot be converted to type {_RANGE_NAMES[dtype.name]} without "
                           f"overflow")
    return _new(sample.randperm(engine(generator), n).astype(dtype.np), None, requires_grad)


def _exponential_race(eng, input, num_samples):
    """ATen's multinomial without replacement (and for one sample): q ~ Exp(1) over the input,
    the categories of the largest input / q (argmax for one, topk for more)."""
    a = input._data
    q = sample.place(a, sample.cast(sample.exponential(eng, a.size, 1.0), a.dtype))
    keys = (a / q).astype(a.dtype)
    if num_samples == 1:
        return xp.argmax(keys, axis=-1, keepdims=True).astype(xp.int64)
    return topk(Tensor._make(keys), num_samples)[1]._data


@public("function", "method", signatures=(
    "multinomial(Tensor input, SymInt num_samples, bool replacement=False, *, "
    "Generator? generator=None, Tensor out=None)",))
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
    eng = engine(generator)
    if not replacement or num_samples == 1:
        out = _exponential_race(eng, input, num_samples)
    else:
        out = sample.multinomial_with_replacement(eng, rows, num_samples).reshape(
            *input.shape[:-1], num_samples)
    return _new(out, None, False)


# -- more in-place samplers --------------------------------------------------------------------
@public("method", method_signatures=(
    "geometric_(Tensor self, double p, *, Generator? generator=None)",))
def geometric_(self, p, *, generator=None):
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p:g}")
    return apply_inplace(_geometric_, self, (self,), {"p": p, "generator": generator})


@public("method", method_signatures=(
    "log_normal_(Tensor self, double mean=1, double std=2, *, Generator? generator=None)",))
def log_normal_(self, mean=1, std=2, *, generator=None):
    _float_kernel(self.dtype, "log_normal_cpu")
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std:g}")
    return apply_inplace(_log_normal_, self, (self,), {"mean": mean, "std": std,
                                                       "generator": generator})


@public("method", method_signatures=(
    "cauchy_(Tensor self, double median=0, double sigma=1, *, Generator? generator=None)",))
def cauchy_(self, median=0, sigma=1, *, generator=None):
    if not self.dtype.is_floating_point:
        raise RuntimeError(f"Cauchy distribution is a continuous probability distribution. dtype "
                           f"must be a floating point but you specified "
                           f"{_C10_NAMES[self.dtype.name]}")
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma:g}")
    return apply_inplace(_cauchy_, self, (self,), {"median": median, "sigma": sigma,
                                                   "generator": generator})


def _check_in_range(dtype, low, high):
    """check_from_to_in_range for integer dtypes (floating ones only warn in torch)."""
    if dtype.is_floating_point:
        return
    lo, hi = (0, 1) if dtype is dtypes.bool else (int(xp.iinfo(dtype.np).min),
                                                  int(xp.iinfo(dtype.np).max))
    for name, v in (("from", low), ("to - 1", high - 1)):
        if not lo <= v <= hi:
            raise RuntimeError(f"{name} is out of bounds for {_C10_NAMES[dtype.name]}")


def _top(dtype):
    """The largest value random_(from) draws up to: 2**digits for floating types, max for
    integers, 1 for bool."""
    if dtype is dtypes.bool:
        return 1
    if dtype.is_floating_point:
        return 1 << {"float16": 11, "float32": 24, "float64": 53}[dtype.name]
    return int(xp.iinfo(dtype.np).max)


@public("method", method_signatures=(
    "random_(Tensor self, *, Generator? generator=None)",
    "random_(Tensor self, int64_t from, int64_t? to, *, Generator? generator=None)",
    "random_(Tensor self, int64_t to, *, Generator? generator=None)"))
def random_(self, low=None, to=None, *, generator=None):
    """random_() | random_(to) | random_(from, to) (to may be None: up to the dtype's top;
    the argument layer renames torch's ``from``, a Python keyword)"""
    if low is None and to is None:
        return apply_inplace(_random_bits_, self, (self,), {"generator": generator})
    if low is None:
        _check_from_to(0, to)
        _check_in_range(self.dtype, 0, to)
        return apply_inplace(_random_to_, self, (self,), {"span": to, "base": 0,
                                                          "generator": generator})
    if to is None and low == -(1 << 63):
        if self.dtype.name in ("bool", "float16"):
            raise NotImplementedError(f'"random_full_64_bits_range_kernel_cpu" not implemented '
                                      f"for '{_name(self.dtype)}'")
        if self.dtype.name not in ("int64", "float32", "float64"):
            raise RuntimeError("random_full_64_bits_range_kernel_cpu handles only int64, double, "
                               "float and bfloat16")
        span = _FULL_RANGE
    elif to is None:
        _check_in_range(self.dtype, low, _top(self.dtype) + 1)
        span = _top(self.dtype) - low + 1
    else:
        _check_from_to(low, int(to))
        _check_in_range(self.dtype, low, int(to))
        span = int(to) - low
    return apply_inplace(_random_from_to_, self, (self,), {"span": span, "base": low,
                                                           "generator": generator})


_poisson = defop("PoissonBackward0", lambda xp, self, generator: sample.cast(
    sample.poisson(engine(generator), self.ravel()), self.dtype).reshape(self.shape),
    dtype="same", grads={"self": _zero_grad})


@public("function", signatures=("poisson(Tensor input, Generator? generator=None)",))
def poisson(input, generator=None):
    _float_kernel(input.dtype, "poisson_cpu")
    if input.numel() and not (input._data >= 0).all():
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    return _poisson(input, generator=generator)


def _no_binomial_grad(grad):
    raise RuntimeError("derivative for aten::binomial is not implemented")


_binomial = defop("NotImplemented", lambda xp, count, prob, generator: sample.binomial(
    engine(generator), *(a.ravel() for a in xp.broadcast_arrays(count, prob))).reshape(
        xp.broadcast_shapes(count.shape, prob.shape)), ("count", "prob"), dtype="same",
    grads={"count": _no_binomial_grad, "prob": _no_binomial_grad})


@public("function")
def binomial(count, prob, generator=None):
    """Binomial(count, prob) samples: ATen's CPU sampler (BTRS, or inversion for small
    means) on torch's stream."""
    if not count.dtype.is_floating_point:
        raise ValueError(f"binomial only supports floating-point dtypes for count, got: "
                         f"{_SCALAR_NAMES[count.dtype.name]}")
    _float_kernel(count.dtype, "binomial_cpu")
    _same_dtypes(count, prob)
    broadcast_shapes(count.shape, prob.shape)
    return _binomial(count, prob, generator=generator)


def _same_dtypes(first, *others):
    """TensorIterator's check that every operand has the first's dtype."""
    for t in others:
        if t.dtype != first.dtype:
            raise RuntimeError(f"Found dtype {_name(t.dtype)} but expected {_name(first.dtype)}")


def _no_grad_of(name):
    def formula(grad):
        raise NotImplementedError(f"the derivative for '{name}' is not implemented.")
    return formula


_standard_gamma_grad_row = defop(
    "StandardGammaGradBackward0",
    lambda xp, self, output: sample.standard_gamma_grad(self, output).reshape(
        xp.broadcast_shapes(self.shape, output.shape)),
    ("self", "output"), dtype="same", grads={"self": _no_grad_of("_standard_gamma_grad")})


@public("function")
def _standard_gamma_grad(input, output):
    """d sample / d alpha of gamma samples (ATen's standard_gamma_grad_one)."""
    _same_dtypes(input, output)
    _float_kernel(input.dtype, "_standard_gamma_grad_cpu")
    return _standard_gamma_grad_row(input, output)


def _no_dirichlet_grad_grad(grad):
    raise RuntimeError("derivative for aten::_dirichlet_grad is not implemented")


_dirichlet_grad_row = defop(
    "NotImplemented", lambda xp, x, alpha, total: sample.dirichlet_grad(x, alpha, total),
    ("x", "alpha", "total"), dtype="same",
    grads={name: _no_dirichlet_grad_grad for name in ("x", "alpha", "total")})


@public("function")
def _dirichlet_grad(x, alpha, total):
    """The reparameterised gradient of Dirichlet samples (ATen's dirichlet_grad_one)."""
    _same_dtypes(x, alpha, total)
    _float_kernel(x.dtype, "_dirichlet_grad_cpu")
    return _dirichlet_grad_row(x, alpha, total)


_standard_gamma_row = defop("StandardGammaBackward0", lambda xp, self, generator: sample.standard_gamma(
    engine(generator), self.ravel(), self.dtype).reshape(self.shape),
    dtype="same", grads={"self": lambda grad, self, result: grad * _standard_gamma_grad_row(
        self, result)})
def _no_dirichlet_grad(grad):
    raise RuntimeError("derivative for aten::_sample_dirichlet is not implemented")


_dirichlet_row = defop("NotImplemented", lambda xp, self, generator: sample.dirichlet(
    engine(generator), self).reshape(self.shape), dtype="same",
    grads={"self": _no_dirichlet_grad})


@public("function")
def _standard_gamma(input, generator=None):
    """Gamma(input, 1) samples: ATen's CPU Marsaglia-Tsang sampler on torch's stream."""
    _float_kernel(input.dtype, "gamma_cpu")
    return _standard_gamma_row(input, generator=generator)


@public("function")
def _sample_dirichlet(input, generator=None):
    """Dirichlet(input) samples over the last dim (normalised gamma draws), as ATen's CPU."""
    _float_kernel(input.dtype, "dirichlet")
    return _dirichlet_row(input, generator=generator)


# @public objects name themselves (glassgrad.ops.publish)
# -- rrelu: a leaky relu whose slopes, in training, are drawn for each non-positive element ----
def _rrelu_noise(input, lower, upper, generator):
    """ATen's _rrelu_with_noise_train: a uniform_real_distribution<double>(lower, upper) draw
    (the bounds rounded to the computing type first: float for float and half) for each
    element <= 0, in memory order, as the computing type; 1 for the others."""
    a = input._data.ravel()
    negative = a <= 0
    work = xp.float64 if a.dtype == xp.float64 else xp.float32
    noise = xp.ones(a.shape, work)
    lo, hi = (builtins.float(work(b)) for b in (lower, upper))    # the bounds as opmath
    drawn = sample.uniform_double(engine(generator), int(negative.sum()))
    noise[negative] = (drawn * (hi - lo) + lo).astype(work)     # not fused here
    return Tensor._make(noise.reshape(input.shape))


def _scaled(a, slopes):
    """a * slopes in the computing type (float for half; a Python slope as that type),
    rounded back."""
    work = a.astype(xp.float32) if a.dtype == xp.float16 else a
    if isinstance(slopes, builtins.float):
        slopes = work.dtype.type(slopes)
    return (work * slopes).astype(a.dtype, copy=False)


def _rrelu_forward(xp, self, noise, lower, upper, training):
    if training:
        return _scaled(self, noise)
    return xp.where(self > 0, self, _scaled(self, (lower + upper) / 2))


def _rrelu_backward_forward(xp, grad_output, self, noise, lower, upper, training):
    """rrelu_with_noise_backward: the drawn slopes in training, else leaky relu's."""
    if training and upper - lower > 1e-6:
        return _scaled(grad_output, noise)
    return xp.where(self > 0, grad_output, _scaled(grad_output, (lower + upper) / 2))


# its derivative in self is zero, but self stays in the graph, as torch's
_rrelu_backward = defop("RreluWithNoiseBackwardBackward0", _rrelu_backward_forward,
                        ("grad_output", "self", "noise"), dtype="same", grads={
    "grad_output": lambda grad, self, noise, lower, upper, training: _rrelu_backward(
        grad, self, noise, lower=lower, upper=upper, training=training),
    "self": _zero_grad})


def _rrelu_grad(grad, x, noise, lower, upper, training):
    return _rrelu_backward(grad, x, noise, lower=lower, upper=upper, training=training)


_rrelu = defop("RreluWithNoiseBackward0", _rrelu_forward, ("self", "noise"), dtype="same",
               grads={"self": lambda grad, self, noise, lower, upper, training: _rrelu_grad(
                   grad, self, noise, lower, upper, training)})
_rrelu_result = defop("RreluWithNoiseBackward1", _rrelu_forward, ("self", "noise"),
                      dtype="same", grads={"self": lambda grad, result, noise, lower, upper,
                                           training: _rrelu_grad(grad, result, noise, lower,
                                                                 upper, training)})


def _rrelu_apply(input, lower, upper, training, generator, inplace):
    if not input.is_floating_point() and not training:      # eval is leaky_relu's kernel
        raise NotImplementedError(f"\"leaky_relu_cpu\" not implemented for "
                                  f"'{_name(input.dtype)}'")
    if training and input.dtype not in (dtypes.float32, dtypes.float64):
        raise NotImplementedError(f'"rrelu_with_noise_out_cpu" not implemented for '
                                  f"'{_name(input.dtype)}'")
    if training and upper < lower:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    noise = _rrelu_noise(input.contiguous(), lower, upper, generator) if training else \
        zeros_like(input)
    attrs = {"lower": lower, "upper": upper, "training": training}
    if inplace:
        return apply_inplace(_rrelu_result, input, (input, noise), attrs)
    return _rrelu(input, noise, **attrs)


_RRELU_DEFAULTS = "Scalar lower=0.125, Scalar upper=0.3333333333333333, bool training=False, " \
                  "Generator? generator=None"


@public("function", signatures=(f"rrelu(Tensor input, {_RRELU_DEFAULTS})",))
def rrelu(input, lower=0.125, upper=0.3333333333333333, training=False, generator=None):
    return _rrelu_apply(input, lower, upper, training, generator, False)


@public("function", "functional", signatures=(f"rrelu_(Tensor input, {_RRELU_DEFAULTS})",))
def rrelu_(input, lower=0.125, upper=0.3333333333333333, training=False, generator=None):
    return _rrelu_apply(input, lower, upper, training, generator, True)


@public("functional", name="rrelu")
def _functional_rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    return _rrelu_apply(input, lower, upper, training, None, inplace)


publish(globals())
