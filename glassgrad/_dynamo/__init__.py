"""torch._dynamo as programs use it: reset, config, exc, is_compiling (glassgrad.compiler's)."""
from ..compiler import config, exc, is_compiling, reset  # noqa: F401
from . import eval_frame  # noqa: F401
from .eval_frame import OptimizedModule  # noqa: F401
