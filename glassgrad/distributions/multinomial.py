import math

from .. import _creation
from .._tensor import Size
from ..ops.pointwise import exp
from . import constraints
from .binomial import Binomial
from .categorical import Categorical
from .distribution import Distribution
from .utils import OverCategorical, broadcast_all

__all__ = ["Multinomial"]


class Multinomial(OverCategorical, Distribution):
    """Counts of each of the categories of ``probs`` (or ``logits``) in ``total_count``
    independent Categorical draws."""
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expand_over(Multinomial, batch_shape, _instance)
        new.total_count = self.total_count
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        return constraints.multinomial(self.total_count)

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=Size()):
        sample_shape = Size(sample_shape)
        draws = self._categorical.sample(Size((self.total_count,)) + sample_shape)
        draws = draws.permute(*range(1, draws.dim()), 0)    # the draws' dim last
        counts = _creation.zeros(self._extended_shape(sample_shape), dtype=draws.dtype)
        counts.scatter_add_(-1, draws, _creation.ones_like(draws))
        return counts.type_as(self.probs)

    def entropy(self):
        n = _creation.tensor(self.total_count)
        term1 = n * self._categorical.entropy() - (n + 1).lgamma()
        support = self._binomial.enumerate_support(expand=False)[1:]
        weights = (support + 1).lgamma()
        term2 = (exp(self._binomial.log_prob(support)) * weights).sum([0, -1])
        return term1 + term2

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        logits = logits.clone()
        log_factorial_n = (value.sum(-1) + 1).lgamma()
        log_factorial_xs = (value + 1).lgamma().sum(-1)
        logits[(value == 0) & (logits == -math.inf)] = 0
        return log_factorial_n - log_factorial_xs + (logits * value).sum(-1)
