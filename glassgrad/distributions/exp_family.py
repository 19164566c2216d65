"""ExponentialFamily: entropy from the log normalizer's gradient (a Bregman divergence)."""
from .. import autograd
from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """Densities exp(<t(x), theta> - F(theta) + k(x)); subclasses give the natural parameters
    theta, the log normalizer F and the mean carrier measure E[k(x)]."""

    @property
    def _natural_params(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        result = -self._mean_carrier_measure
        params = [p.detach().requires_grad_() for p in self._natural_params]
        normalizer = self._log_normalizer(*params)
        grads = autograd.grad(normalizer.sum(), params, create_graph=True)
        result += normalizer
        for p, g in zip(params, grads):
            result -= (p * g).reshape(self._batch_shape + (-1,)).sum(-1)
        return result
