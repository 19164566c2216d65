"""Helpers shared by the distributions (torch.distributions.utils)."""
import numbers

from .. import _creation, dtypes
from .._autograd.grad_mode import enable_grad
from .._tensor import Size, Tensor
from ..dtypes import finfo
from ..ops.shape import broadcast_tensors
from ..ops.pointwise import log, log1p, sigmoid
from ..ops.nn import softmax

euler_constant = 0.57721566490153286060  # Euler-Mascheroni

__all__ = ["broadcast_all", "logits_to_probs", "clamp_probs", "probs_to_logits",
           "lazy_property", "tril_matrix_to_vec", "vec_to_tril_matrix"]


def broadcast_all(*values):
    """Broadcast tensors and numbers together; numbers become tensors of the first tensor's
    dtype (the default dtype when there is none)."""
    if not all(isinstance(v, (Tensor, numbers.Number)) for v in values):
        raise ValueError("Input arguments must all be instances of Number, torch.Tensor or "
                         "objects implementing __torch_function__.")
    first = next((v for v in values if isinstance(v, Tensor)), None)
    dtype = first.dtype if first is not None else dtypes.get_default_dtype()
    return broadcast_tensors(*[v if isinstance(v, Tensor) else _creation.tensor(v, dtype=dtype)
                               for v in values])


def _standard_normal(shape, dtype, device=None):
    return _creation.empty(shape, dtype=dtype).normal_()


def _empty(like, shape):
    """``like.new(shape)``: an uninitialised tensor of like's dtype to fill in place."""
    return _creation.empty(Size(shape), dtype=like.dtype)


def _sum_rightmost(value, dim):
    if dim == 0:
        return value
    return value.reshape(value.shape[:-dim] + (-1,)).sum(-1)


def logits_to_probs(logits, is_binary=False):
    return sigmoid(logits) if is_binary else softmax(logits, dim=-1)


def clamp_probs(probs):
    eps = finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    p = clamp_probs(probs)
    return log(p) - log1p(-p) if is_binary else log(p)


class lazy_property:
    """A non-data descriptor computing the value once (under enable_grad), then caching it
    as an instance attribute."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__
        self.__name__ = wrapped.__name__

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        with enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


def tril_matrix_to_vec(mat, diag=0):
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    idx = _creation.arange(n)
    return mat[..., idx < idx.view(-1, 1) + (diag + 1)]


def vec_to_tril_matrix(vec, diag=0):
    # vec has length n(n+1)/2 + diag*n for an n x n matrix
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * vec.shape[-1] + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    eps = finfo(vec.dtype).eps
    if round(n) - n > eps:
        raise ValueError(f"The size of last dimension is {vec.shape[-1]} which cannot be "
                         "expressed as the lower triangular part of a square D x D matrix.")
    n = round(n)
    mat = vec.new_zeros(vec.shape[:-1] + Size((n, n)))
    idx = _creation.arange(n)
    mat[..., idx < idx.view(-1, 1) + (diag + 1)] = vec
    return mat


def one_of(probs, logits):
    """torch's refusal unless exactly one of ``probs`` and ``logits`` is given."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")


class BinaryLogits:
    """A binary outcome's probability as ``probs`` or ``logits``, whichever was given; the
    other derived on first use."""

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)


class BinaryProbs(BinaryLogits):
    """BinaryLogits whose given parameter is kept as ``_param`` (its shape, new tensors like
    it, and expand: Bernoulli, Binomial, NegativeBinomial)."""

    def _expand_binary(self, cls, batch_shape, _instance, **shapes):
        given = {k: () for k in ("probs", "logits") if k in self.__dict__}
        new = self._expanded(cls, batch_shape, _instance, **shapes, **given)
        new._param = getattr(new, list(given)[-1])
        return new

    def _set_trials(self, total_count, probs, logits):
        """Binomial's and NegativeBinomial's parameters: ``total_count`` broadcast with the one
        of ``probs`` and ``logits`` given (returned)."""
        one_of(probs, logits)
        count, param = broadcast_all(total_count, probs if probs is not None else logits)
        self.total_count = count.type_as(param)
        setattr(self, "probs" if probs is not None else "logits", param)
        self._param = param
        return param

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    @property
    def param_shape(self):
        return self._param.size()


class OverCategorical:
    """A distribution built on the Categorical it holds (``_categorical``): that one's probs,
    logits, parameter shape and new tensors, and expand (OneHotCategorical, Multinomial,
    ExpRelaxedCategorical)."""

    def _expand_over(self, cls, batch_shape, _instance):
        return self._expanded(cls, batch_shape, _instance, _categorical=())

    def _new(self, *args, **kwargs):
        return self._categorical._new(*args, **kwargs)

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def param_shape(self):
        return self._categorical.param_shape
