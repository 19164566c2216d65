"""torch.nn.modules: one file per family, as torch's; each file's __all__ is re-exported."""
from . import container, module
from .container import *  # noqa: F401,F403
from .module import *  # noqa: F401,F403

__all__ = [*module.__all__, *container.__all__]
