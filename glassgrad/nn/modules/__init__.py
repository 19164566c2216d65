"""torch.nn.modules: one file per family, as torch's; each file's __all__ is re-exported."""
from . import (activation, adaptive, attention, batchnorm, channelshuffle, container, conv,
               distance, dropout, flatten, fold, instancenorm, lazy, linear,
               linear_cross_entropy_options, loss, module,
               normalization, padding, pixelshuffle, pooling, rnn, sparse, transformer,
               upsampling)
from .activation import *  # noqa: F401,F403
from .adaptive import *  # noqa: F401,F403
from .attention import *  # noqa: F401,F403
from .batchnorm import *  # noqa: F401,F403
from .channelshuffle import *  # noqa: F401,F403
from .container import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .distance import *  # noqa: F401,F403
from .dropout import *  # noqa: F401,F403
from .flatten import *  # noqa: F401,F403
from .fold import *  # noqa: F401,F403
from .instancenorm import *  # noqa: F401,F403
from .lazy import *  # noqa: F401,F403
from .linear import *  # noqa: F401,F403
from .linear_cross_entropy_options import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .module import *  # noqa: F401,F403
from .normalization import *  # noqa: F401,F403
from .padding import *  # noqa: F401,F403
from .pixelshuffle import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .rnn import *  # noqa: F401,F403
from .sparse import *  # noqa: F401,F403
from .transformer import *  # noqa: F401,F403
from .upsampling import *  # noqa: F401,F403

__all__ = [name for m in (module, container, linear, flatten, conv, pooling, activation,
                          dropout, batchnorm, instancenorm, normalization, sparse, distance,
                          loss, lazy, adaptive, padding, pixelshuffle, channelshuffle, fold,
                          upsampling, rnn, attention, transformer,
                          linear_cross_entropy_options) for name in m.__all__]
