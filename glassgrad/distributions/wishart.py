import math
import numbers
import warnings

from .. import _creation, linalg
from .._tensor import Size
from ..ops.special import mvlgamma
from ..ops.composite import tril_indices
from ..ops.linalg import einsum
from ..ops.solvers import cholesky_solve
from ..ops.registry import broadcast_shapes
from . import constraints
from .chi2 import Chi2
from .exp_family import ExponentialFamily
from .multivariate_normal import _precision_to_scale_tril
from .utils import finfo, lazy_property

__all__ = ["Wishart"]

_LOG_2 = math.log(2)
_MATRICES = ("covariance_matrix", "precision_matrix", "scale_tril")


def _mvdigamma(x, p):
    if not x.gt((p - 1) / 2).all():
        raise AssertionError("Wrong domain for multivariate digamma function.")
    steps = _creation.arange(p, dtype=x.dtype).div(2).expand(x.shape + (-1,))
    return (x.unsqueeze(-1) - steps).digamma().sum(-1)


class Wishart(ExponentialFamily):
    """The Wishart distribution of ``df`` degrees of freedom over positive definite matrices,
    given one of ``covariance_matrix``, ``precision_matrix`` or ``scale_tril`` (sampled by
    Bartlett's decomposition, as torch's)."""
    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self):
        return {"covariance_matrix": constraints.positive_definite,
                "precision_matrix": constraints.positive_definite,
                "scale_tril": constraints.lower_cholesky,
                "df": constraints.greater_than(self.event_shape[-1] - 1)}

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        given = {k: v for k, v in zip(_MATRICES, (covariance_matrix, precision_matrix,
                                                  scale_tril)) if v is not None}
        if len(given) != 1:
            raise AssertionError("Exactly one of covariance_matrix or precision_matrix or "
                                 "scale_tril may be specified.")
        (name, param), = given.items()
        if param.dim() < 2:
            raise ValueError("scale_tril must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        if isinstance(df, numbers.Number):
            batch_shape = Size(param.shape[:-2])
            self.df = _creation.tensor(df, dtype=param.dtype)
        else:
            batch_shape = Size(broadcast_shapes(param.shape[:-2], df.shape))
            self.df = df.expand(batch_shape)
        event_shape = param.shape[-2:]
        if self.df.le(event_shape[-1] - 1).any():
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = "
                             f"{event_shape[-1] - 1}.")
        setattr(self, name, param.expand(batch_shape + (-1, -1)))
        if self.df.lt(event_shape[-1]).any():
            warnings.warn("Low df values detected. Singular samples are highly likely to "
                          "occur for ndim - 1 < df < ndim.", stacklevel=2)
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        self._batch_dims = [-(x + 1) for x in range(len(self._batch_shape))]
        self._unbroadcasted_scale_tril = (
            scale_tril if name == "scale_tril" else linalg.cholesky(covariance_matrix)
            if name == "covariance_matrix" else _precision_to_scale_tril(precision_matrix))
        self._dist_chi2 = self._chi2(batch_shape)

    def _chi2(self, batch_shape):
        steps = _creation.arange(self._event_shape[-1],
                                 dtype=self._unbroadcasted_scale_tril.dtype)
        return Chi2(df=self.df.unsqueeze(-1) - steps.expand(batch_shape + (-1,)))

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Wishart, _instance)
        batch_shape = Size(batch_shape)
        cov_shape = batch_shape + self.event_shape
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(cov_shape)
        new.df = self.df.expand(batch_shape)
        new._batch_dims = [-(x + 1) for x in range(len(batch_shape))]
        for name in _MATRICES:
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(cov_shape))
        new._event_shape = self._event_shape
        new._dist_chi2 = new._chi2(batch_shape)
        ExponentialFamily.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._batch_shape + self._event_shape)

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return (L @ L.transpose(-2, -1)).expand(self._batch_shape + self._event_shape)

    @lazy_property
    def precision_matrix(self):
        L = self._unbroadcasted_scale_tril
        identity = _creation.eye(self._event_shape[-1], dtype=L.dtype)
        return cholesky_solve(identity, L).expand(self._batch_shape + self._event_shape)

    def _df_matrix(self, df):
        return df.view(self._batch_shape + (1, 1))

    @property
    def mean(self):
        return self._df_matrix(self.df) * self.covariance_matrix

    @property
    def mode(self):
        factor = self.df - self.covariance_matrix.shape[-1] - 1
        factor[factor <= 0] = math.nan
        return self._df_matrix(factor) * self.covariance_matrix

    @property
    def variance(self):
        V = self.covariance_matrix
        diag = V.diagonal(dim1=-2, dim2=-1)
        return self._df_matrix(self.df) * (V.pow(2) + einsum("...i,...j->...ij", diag, diag))

    def _bartlett_sampling(self, sample_shape=Size()):
        p = self._event_shape[-1]
        chi = self._dist_chi2.rsample(sample_shape).sqrt()
        noise = chi.clamp(min=finfo(chi.dtype).eps).diag_embed(dim1=-2, dim2=-1)
        i, j = tril_indices(p, p, offset=-1)
        noise[..., i, j] = _creation.randn(Size(sample_shape) + self._batch_shape
                                           + (p * (p - 1) // 2,), dtype=noise.dtype)
        chol = self._unbroadcasted_scale_tril @ noise
        return chol @ chol.transpose(-2, -1)

    def _flagged(self, sample):
        """torch's flag for a redraw: the support check (true for a positive definite
        sample: torch redraws the valid ones, and warns), reduced over the batch dims."""
        flag = self.support.check(sample)
        return flag.amax(self._batch_dims) if self._batch_shape else flag

    def rsample(self, sample_shape=Size(), max_try_correction=None):
        if max_try_correction is None:
            max_try_correction = 10
        sample_shape = Size(sample_shape)
        sample = self._bartlett_sampling(sample_shape)
        flagged = self._flagged(sample)
        if flagged.any():
            warnings.warn("Singular sample detected.", stacklevel=2)
            for _ in range(max_try_correction):
                new = self._bartlett_sampling(flagged[flagged].shape)
                sample[flagged] = new
                again = ~self.support.check(new)
                if self._batch_shape:
                    again = again.amax(self._batch_dims)
                flagged[flagged.clone()] = again
                if not flagged.any():
                    break
        return sample

    def _scale_log_det_half(self, p):
        """p log(2) / 2 + log det of the scale's Cholesky factor."""
        return (p * _LOG_2 / 2 + self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1)
                .log().sum(-1))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        nu, p = self.df, self._event_shape[-1]
        return (-nu * self._scale_log_det_half(p) - mvlgamma(nu / 2, p=p)
                + (nu - p - 1) / 2 * linalg.slogdet(value).logabsdet
                - cholesky_solve(value, self._unbroadcasted_scale_tril)
                .diagonal(dim1=-2, dim2=-1).sum(dim=-1) / 2)

    def entropy(self):
        nu, p = self.df, self._event_shape[-1]
        return ((p + 1) * self._scale_log_det_half(p) + mvlgamma(nu / 2, p=p)
                - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p=p) + nu * p / 2)

    @property
    def _natural_params(self):
        nu, p = self.df, self._event_shape[-1]
        return -self.precision_matrix / 2, (nu - p - 1) / 2

    def _log_normalizer(self, x, y):
        p = self._event_shape[-1]
        return ((y + (p + 1) / 2) * (-linalg.slogdet(-2 * x).logabsdet + _LOG_2 * p)
                + mvlgamma(y + (p + 1) / 2, p=p))
