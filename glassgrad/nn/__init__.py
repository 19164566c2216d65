"""glassgrad.nn: Module and Parameter, the containers, layers and losses (nn/modules/), init and
the functional ops, and nn.utils."""
from . import functional, parallel  # noqa: F401
from .modules import *  # noqa: F401,F403
from . import init, utils  # noqa: F401
from .parameter import (Buffer, Parameter, UninitializedBuffer,  # noqa: F401
                        UninitializedParameter)
from .parallel import DataParallel  # noqa: F401
