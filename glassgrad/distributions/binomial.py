from .. import _creation
from .._autograd.grad_mode import no_grad
from .._tensor import Size
from ..ops.pointwise import exp, log1p
from ..ops.random import binomial
from . import constraints
from .distribution import Distribution
from .utils import BinaryProbs

__all__ = ["Binomial"]


class Binomial(BinaryProbs, Distribution):
    """The number of successes in ``total_count`` Bernoulli(``probs``) trials."""
    arg_constraints = {"total_count": constraints.nonnegative_integer,
                       "probs": constraints.unit_interval, "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        param = self._set_trials(total_count, probs, logits)
        super().__init__(param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_binary(Binomial, batch_shape, _instance, total_count=())

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        n, logits = self.total_count, self.logits
        # max(logits, 0) written so that its gradient at 0 is 1/2, as torch's _clamp_by_zero
        positive = (logits.clamp(min=0) + logits - logits.clamp(max=0)) / 2
        normalize = (n * positive + n * log1p(exp(-logits.abs()))
                     - (n + 1).lgamma())
        return value * self.logits - (value + 1).lgamma() - (n - value + 1).lgamma() - normalize

    def _homogeneous_count(self, what):
        total = int(self.total_count.max())
        if not self.total_count.min() == total:
            raise NotImplementedError(f"Inhomogeneous total count not supported by `{what}`.")
        return total

    def entropy(self):
        self._homogeneous_count("entropy")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(exp(log_prob) * log_prob).sum(0)

    def enumerate_support(self, expand=True):
        total = self._homogeneous_count("enumerate_support")
        values = _creation.arange(1 + total, dtype=self._param.dtype)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + self._batch_shape) if expand else values
