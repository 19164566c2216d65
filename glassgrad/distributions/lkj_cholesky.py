import math

from .. import _creation
from .._tensor import Size
from ..ops.special import mvlgamma
from ..ops.shape import cat
from . import constraints
from .beta import Beta
from .distribution import Distribution
from .utils import broadcast_all, finfo

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """The LKJ distribution of the Cholesky factors of correlation matrices (the onion
    method of Lewandowski, Kurowicka and Joe 2009, as torch samples it)."""
    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError("Expected dim to be an integer greater than or equal to 2. "
                             f"Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        marginal = self.concentration + 0.5 * (self.dim - 2)
        offset = _creation.arange(self.dim - 1, dtype=self.concentration.dtype)
        offset = cat([offset.new_zeros((1,)), offset])
        self._beta = Beta(offset + 0.5, marginal.unsqueeze(-1) - 0.5 * offset)
        super().__init__(self.concentration.size(), Size((dim, dim)), validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch_shape)
        new._beta = self._beta.expand(batch_shape + (self.dim,))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=Size()):
        y = self._beta.sample(sample_shape).unsqueeze(-1)
        u = _creation.randn(self._extended_shape(sample_shape), dtype=y.dtype).tril(-1)
        u = u / u.norm(dim=-1, keepdim=True)
        u[..., 0, :].fill_(0.0)
        w = y.sqrt() * u
        diag = (1 - (w ** 2).sum(dim=-1)).clamp(min=finfo(w.dtype).tiny).sqrt()
        w += diag.diag_embed()
        return w

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diag = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = _creation.arange(2, self.dim + 1)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized = (order * diag.log()).sum(dim=-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        normalize = (0.5 * dm1 * math.log(math.pi) + mvlgamma(alpha - 0.5, dm1)
                     - alpha.lgamma() * dm1)
        return unnormalized - normalize
