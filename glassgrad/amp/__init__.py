"""torch.amp: autocast, GradScaler, custom_fwd/custom_bwd. glassgrad computes in the dtypes it
is given: disabled autocast regions behave as torch's, CUDA autocast and CUDA scalers disable
themselves as on PyTorch's CPU build, enabling lower-precision autocast raises
NotImplementedError; a CPU GradScaler scales, unscales and skips steps as torch's."""
from .autocast_mode import (autocast, custom_bwd, custom_fwd, get_autocast_dtype,  # noqa: F401
                            is_autocast_available, is_autocast_enabled)
from .grad_scaler import GradScaler  # noqa: F401
