"""torch.amp: autocast and GradScaler. glassgrad computes in the dtypes it is given: disabled
autocast regions and disabled scalers behave as torch's; CUDA ones disable themselves as on
PyTorch's CPU build; enabling lower-precision autocast or a CPU GradScaler raises
NotImplementedError."""
from .autocast_mode import (autocast, custom_bwd, custom_fwd, get_autocast_dtype,  # noqa: F401
                            is_autocast_available, is_autocast_enabled)
from .grad_scaler import GradScaler  # noqa: F401
