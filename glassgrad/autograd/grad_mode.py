"""torch.autograd.grad_mode: the grad-mode context managers (they live in the core)."""
from .._autograd.grad_mode import (enable_grad, inference_mode, is_grad_enabled,  # noqa: F401
                                   is_inference_mode_enabled, no_grad, set_grad_enabled)
