from .._autograd.grad_mode import no_grad
from .._tensor import Size
from ..ops.pointwise import exp, logsigmoid, sigmoid
from ..ops.random import poisson
from . import constraints
from .distribution import Distribution
from .gamma import Gamma
from .utils import BinaryProbs, lazy_property

__all__ = ["NegativeBinomial"]


class NegativeBinomial(BinaryProbs, Distribution):
    """The number of successes before ``total_count`` failures of Bernoulli(``probs``)
    trials."""
    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        param = self._set_trials(total_count, probs, logits)
        super().__init__(param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_binary(NegativeBinomial, batch_shape, _instance, total_count=())

    @property
    def mean(self):
        return self.total_count * exp(self.logits)

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / sigmoid(-self.logits)

    @lazy_property
    def _gamma(self):
        return Gamma(concentration=self.total_count, rate=exp(-self.logits), validate_args=False)

    def sample(self, sample_shape=Size()):
        with no_grad():
            return poisson(self._gamma.sample(sample_shape=sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        unnormalized = (self.total_count * logsigmoid(-self.logits)
                        + value * logsigmoid(self.logits))
        normalization = (-(self.total_count + value).lgamma() + (1.0 + value).lgamma()
                         + self.total_count.lgamma())
        normalization = normalization.masked_fill(self.total_count + value == 0.0, 0.0)
        return unnormalized - normalization
