"""glassgrad.nn.functional: torch.nn.functional's ops, the objects the ops modules declare
"functional" (glassgrad/ops/nn.py, conv.py, and the activations of pointwise.py)."""
from .._overrides import handle_torch_function  # noqa: F401  (torch.nn.functional's too)
from ..ops import functional_functions as _functions

globals().update(_functions())

del _functions
