import numbers

from .._autograd.grad_mode import no_grad
from .._creation import zeros_like
from .._tensor import Size
from ..nn.functional import binary_cross_entropy_with_logits
from . import constraints
from .distribution import Distribution
from .utils import BinaryLogits, broadcast_all, _empty, finfo, one_of

__all__ = ["Geometric"]


class Geometric(BinaryLogits, Distribution):
    """The number of failures before the first success of Bernoulli(``probs``) trials."""
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        one_of(probs, logits)
        given = probs if probs is not None else logits
        (param,) = broadcast_all(given)
        setattr(self, "probs" if probs is not None else "logits", param)
        batch_shape = Size() if isinstance(given, numbers.Number) else given.size()
        super().__init__(batch_shape, validate_args=validate_args)
        if self._validate_args and probs is not None:
            value = self.probs
            valid = value > 0
            if not valid.all():
                raise ValueError(
                    f"Expected parameter probs ({type(value).__name__} of shape "
                    f"{tuple(value.shape)}) of distribution {self!r} to be positive but found "
                    f"invalid values:\n{value.data[~valid]}")

    def expand(self, batch_shape, _instance=None):
        given = {k: () for k in ("probs", "logits") if k in self.__dict__}
        return self._expanded(Geometric, batch_shape, _instance, **given)

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return zeros_like(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape=Size()):
        tiny = finfo(self.probs.dtype).tiny
        with no_grad():
            u = _empty(self.probs, self._extended_shape(sample_shape)).uniform_(tiny, 1)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        probs = probs.clone()
        probs[(probs == 1) & (value == 0)] = 0
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        return (binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")
                / self.probs)
