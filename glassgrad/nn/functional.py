"""glassgrad.nn.functional: torch.nn.functional's ops (rows in glassgrad/ops/nn.py)."""
from ..ops.nn import *  # noqa: F401,F403
from ..ops.nn import FUNCTIONAL as _FUNCTIONAL

globals().update(_FUNCTIONAL)
