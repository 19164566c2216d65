import math
import numbers

from .. import _creation
from .._tensor import Size
from ..ops.composite import isclose
from ..ops.pointwise import where
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    """The generalised Pareto of ``loc``, ``scale`` and ``concentration`` (the shape xi;
    xi = 0 is the exponential tail, as TensorFlow Probability's)."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive,
                       "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        scalars = all(isinstance(v, numbers.Number) for v in (loc, scale, concentration))
        super().__init__(Size() if scalars else self.loc.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(GeneralizedPareto, batch_shape, _instance, loc=(), scale=(),
                              concentration=())

    def rsample(self, sample_shape=Size()):
        u = _creation.rand(self._extended_shape(sample_shape), dtype=self.loc.dtype)
        return self.icdf(u)

    def _safe_concentration(self):
        """(xi == 0 within isclose's tolerance, xi with those entries set to 1)."""
        zero = isclose(self.concentration, _creation.tensor(0.0))
        return zero, where(zero, _creation.ones_like(self.concentration), self.concentration)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        zero, xi = self._safe_concentration()
        y = 1 / xi + _creation.ones_like(z)
        nonzero = where(y == 0, y, y * (xi * z).log1p())
        return -self.scale.log() - where(zero, z, nonzero)

    def log_survival_function(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        zero, xi = self._safe_concentration()
        return where(zero, -z, -(xi * z).log1p() / xi)

    def log_cdf(self, value):
        return (-self.log_survival_function(value).exp()).log1p()

    def cdf(self, value):
        return self.log_cdf(value).exp()

    def icdf(self, value):
        zero = isclose(self.concentration, _creation.zeros_like(self.concentration))
        xi = where(zero, _creation.ones_like(self.concentration), self.concentration)
        logu = (-value).log1p()
        return where(zero, self.loc - self.scale * logu,
                     self.loc + self.scale / xi * (-xi * logu).expm1())

    def _z(self, x):
        return (x - self.loc) / self.scale

    @property
    def mean(self):
        valid = self.concentration < 1
        xi = where(valid, self.concentration, 0.5)
        return where(valid, self.loc + self.scale / (1 - xi), math.nan)

    @property
    def variance(self):
        valid = self.concentration < 0.5
        xi = where(valid, self.concentration, 0.25)
        return where(valid, self.scale ** 2 / ((1 - xi) ** 2 * (1 - 2 * xi)), math.nan)

    def entropy(self):
        return (self.scale.log() + self.concentration + 1).broadcast_to(self._batch_shape)

    @property
    def mode(self):
        return self.loc

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        upper = where(self.concentration < 0, self.loc - self.scale / self.concentration,
                      math.inf)
        return constraints.interval(self.loc, upper)
