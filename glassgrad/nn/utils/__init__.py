"""torch.nn.utils: gradient clipping, parameters as one vector, weight and spectral
normalisation, parametrizations, functional calls, conv/linear-batchnorm fusion, skip_init."""
from . import (clip_grad, convert_parameters, fusion, init, parametrizations,  # noqa: F401
               parametrize, rnn, spectral_norm, stateless, weight_norm)
from .clip_grad import (clip_grad_norm, clip_grad_norm_, clip_grad_value_,  # noqa: F401
                        clip_grads_with_norm_, get_total_norm)
from .convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401
from .fusion import (fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval,  # noqa: F401
                     fuse_linear_bn_weights)
from .init import skip_init  # noqa: F401
from .spectral_norm import remove_spectral_norm, spectral_norm  # noqa: F401
from .weight_norm import remove_weight_norm, weight_norm  # noqa: F401
