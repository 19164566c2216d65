"""GradScaler: a disabled scaler passes everything through as torch's does; a CUDA scaler
disables itself (no CUDA), as on PyTorch's CPU build."""
import warnings


class GradScaler:
    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0,
                 backoff_factor=0.5, growth_interval=2000, enabled=True):
        self._device = device
        if enabled and device == "cuda":
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  "
                          "Disabling.", UserWarning, stacklevel=2)
            enabled = False
        if enabled:
            raise NotImplementedError(
                f"torch.amp.GradScaler('{device}', enabled=True): glassgrad has no loss scaling "
                "yet (it needs torch.optim); pass enabled=False")
        self._enabled = False

    # the disabled scaler of torch: the growth/backoff getters are absent there too
    def scale(self, outputs):
        return outputs

    def unscale_(self, optimizer):
        pass

    def step(self, optimizer, *args, **kwargs):
        return optimizer.step(*args, **kwargs)

    def update(self, new_scale=None):
        pass

    def get_scale(self):
        return 1.0

    def is_enabled(self):
        return self._enabled

    def state_dict(self):
        return {}

    def load_state_dict(self, state_dict):
        pass

    def get_growth_factor(self):
        return self._growth_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def get_growth_interval(self):
        return self._growth_interval
