import math
import numbers

from .. import _creation
from .._autograd.grad_mode import no_grad
from .._creation import ones_like, zeros_like
from .._tensor import Size
from ..nn.functional import binary_cross_entropy_with_logits
from ..ops.pointwise import expm1, log, log1p, where
from . import constraints
from .exp_family import ExponentialFamily
from .utils import (broadcast_all, clamp_probs, lazy_property,
                    logits_to_probs, one_of, probs_to_logits)

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(ExponentialFamily):
    """The continuous Bernoulli on [0, 1]; near probs = 0.5 (``lims``) its normaliser and
    moments switch to Taylor expansions, as torch's do."""
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        one_of(probs, logits)
        given = probs if probs is not None else logits
        (param,) = broadcast_all(given)
        if probs is not None:
            if validate_args is not None and not self.arg_constraints["probs"].check(param).all():
                raise ValueError("The parameter probs has invalid values")
            self.probs = param = clamp_probs(param)
        else:
            self.logits = param
        self._param = param
        batch_shape = Size() if isinstance(given, numbers.Number) else param.size()
        self._lims = lims
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        given = {k: () for k in ("probs", "logits") if k in self.__dict__}
        new = self._expanded(ContinuousBernoulli, batch_shape, _instance, **given)
        new._lims = self._lims
        new._param = getattr(new, list(given)[-1])
        return new

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    def _outside_unstable_region(self):
        return self.probs.le(self._lims[0]) | self.probs.gt(self._lims[1])

    def _cut_probs(self):
        return where(self._outside_unstable_region(), self.probs,
                     self._lims[0] * ones_like(self.probs))

    def _cont_bern_log_norm(self):
        cut = self._cut_probs()
        below = where(cut.le(0.5), cut, zeros_like(cut))
        above = where(cut.ge(0.5), cut, ones_like(cut))
        log_norm = (log((log1p(-cut) - log(cut)).abs())
                    - where(cut.le(0.5), log1p(-2.0 * below), log(2.0 * above - 1.0)))
        x = (self.probs - 0.5).pow(2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self):
        cut = self._cut_probs()
        mus = cut / (2.0 * cut - 1.0) + 1.0 / (log1p(-cut) - log(cut))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x.pow(2)) * x
        return where(self._outside_unstable_region(), mus, taylor)

    @property
    def stddev(self):
        return self.variance.sqrt()

    @property
    def variance(self):
        cut = self._cut_probs()
        vs = (cut * (cut - 1.0) / (1.0 - 2.0 * cut).pow(2)
              + 1.0 / (log1p(-cut) - log(cut)).pow(2))
        x = (self.probs - 0.5).pow(2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return where(self._outside_unstable_region(), vs, taylor)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self):
        return self._param.size()

    def sample(self, sample_shape=Size()):
        u = _creation.rand(self._extended_shape(sample_shape), dtype=self.probs.dtype)
        with no_grad():
            return self.icdf(u)

    def rsample(self, sample_shape=Size()):
        return self.icdf(_creation.rand(self._extended_shape(sample_shape),
                                        dtype=self.probs.dtype))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return (-binary_cross_entropy_with_logits(logits, value, reduction="none")
                + self._cont_bern_log_norm())

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        cut = self._cut_probs()
        cdfs = (cut.pow(value) * (1.0 - cut).pow(1.0 - value) + cut - 1.0) / (2.0 * cut - 1.0)
        unbounded = where(self._outside_unstable_region(), cdfs, value)
        return where(value.le(0.0), zeros_like(value),
                     where(value.ge(1.0), ones_like(value), unbounded))

    def icdf(self, value):
        cut = self._cut_probs()
        inside = ((log1p(-cut + value * (2.0 * cut - 1.0)) - log1p(-cut))
                  / (log(cut) - log1p(-cut)))
        return where(self._outside_unstable_region(), inside, value)

    def entropy(self):
        log_probs0, log_probs1 = log1p(-self.probs), log(self.probs)
        return self.mean * (log_probs0 - log_probs1) - self._cont_bern_log_norm() - log_probs0

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        outside = x.le(self._lims[0] - 0.5) | x.gt(self._lims[1] - 0.5)
        cut = where(outside, x, (self._lims[0] - 0.5) * ones_like(x))
        log_norm = log(expm1(cut).abs()) - log(cut.abs())
        taylor = 0.5 * x + x.pow(2) / 24.0 - x.pow(4) / 2880.0
        return where(outside, log_norm, taylor)
