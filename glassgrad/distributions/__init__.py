"""torch.distributions on glassgrad's public ops: parameters are tensors, so log_prob, entropy
and rsample are differentiable through the ordinary autograd; samplers draw with the same
calls in the same order as torch's, so after manual_seed the samples are torch's."""
from . import constraints, transforms
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .chi2 import Chi2
from .continuous_bernoulli import ContinuousBernoulli
from .constraint_registry import biject_to, transform_to
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .fishersnedecor import FisherSnedecor
from .gamma import Gamma
from .generalized_pareto import GeneralizedPareto
from .geometric import Geometric
from .gumbel import Gumbel
from .half_cauchy import HalfCauchy
from .half_normal import HalfNormal
from .independent import Independent
from .inverse_gamma import InverseGamma
from .kl import kl_divergence, register_kl
from .kumaraswamy import Kumaraswamy
from .laplace import Laplace
from .lkj_cholesky import LKJCholesky
from .log_normal import LogNormal
from .logistic_normal import LogisticNormal
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .mixture_same_family import MixtureSameFamily
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .negative_binomial import NegativeBinomial
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .pareto import Pareto
from .poisson import Poisson
from .relaxed_bernoulli import RelaxedBernoulli
from .relaxed_categorical import RelaxedOneHotCategorical
from .studentT import StudentT
from .transformed_distribution import TransformedDistribution
from .transforms import *  # noqa: F401,F403
from .uniform import Uniform
from .von_mises import VonMises
from .weibull import Weibull
from .wishart import Wishart

__all__ = ["Bernoulli", "Beta", "Binomial", "GeneralizedPareto", "InverseGamma", "Kumaraswamy",
           "LogisticNormal", "Multinomial", "LKJCholesky", "Wishart", "Chi2", "Dirichlet", "Gamma", "Poisson", "StudentT",
           "FisherSnedecor", "NegativeBinomial", "Weibull", "Categorical", "Cauchy", "ContinuousBernoulli", "Distribution", "Exponential",
           "ExponentialFamily", "Geometric", "Gumbel", "HalfCauchy", "HalfNormal",
           "Independent", "Laplace", "LogNormal", "LowRankMultivariateNormal", "MixtureSameFamily",
           "MultivariateNormal", "Normal", "OneHotCategorical",
           "OneHotCategoricalStraightThrough", "Pareto", "RelaxedBernoulli",
           "RelaxedOneHotCategorical", "TransformedDistribution", "Uniform", "VonMises",
           "biject_to", "kl_divergence", "register_kl", "transform_to"]
__all__.extend(transforms.__all__)
