"""glassgrad.nn.functional: torch.nn.functional's ops (rows in glassgrad/ops/nn.py and
glassgrad/ops/conv.py), and the activations of glassgrad/ops/pointwise.py under their functional
names."""
from ..ops import conv as _conv
from ..ops import nn as _nn
from ..ops import pointwise as _pointwise

# torch.nn.functional has no cdist (only torch.cdist)
globals().update({name: getattr(_nn, name) for name in _nn.__all__ if name != "cdist"})
globals().update(_nn.FUNCTIONAL)
globals().update({name: getattr(_conv, name) for name in _conv.__all__})
globals().update(_conv.FUNCTIONAL)

_ACTIVATIONS = ("relu", "relu6", "leaky_relu", "elu", "selu", "celu", "gelu", "silu", "mish",
                "softplus", "hardtanh", "hardsigmoid", "hardswish", "sigmoid", "tanh")
# whichever of them the pointwise module defines (others arrive as it grows)
globals().update({name: getattr(_pointwise, name) for name in _ACTIVATIONS
                  if hasattr(_pointwise, name)})
