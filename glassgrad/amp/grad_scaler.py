"""GradScaler: loss scaling with PyTorch's algorithm. A CUDA scaler disables itself (no CUDA),
as on PyTorch's CPU build; a disabled scaler passes everything through. An enabled CPU scaler
scales outputs by a float32 scale, unscales an optimizer's gradients (any object with torch's
``param_groups``), skips the step when a gradient is not finite, and grows or backs off the
scale in ``update()`` as torch._amp_update_scale_ does."""
import collections
import collections.abc
import enum
import warnings

from .. import _device, dtypes
from .._autograd.grad_mode import no_grad
from .._creation import full
from .._tensor import Tensor
from ..ops.pointwise import isfinite


class OptState(enum.Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _fresh_state():
    return {"stage": OptState.READY, "found_inf_per_device": {}}


_FIX = ("This may indicate your script did not use scaler.scale(loss or outputs) earlier in "
        "the iteration.")
_NEW_SCALE = ("new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
              "torch.FloatTensor with requires_grad=False.")


class GradScaler:
    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0,
                 backoff_factor=0.5, growth_interval=2000, enabled=True):
        self._device = device
        if enabled and device == "cuda":
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  "
                          "Disabling.", UserWarning, stacklevel=2)
            enabled = False
        self._enabled = enabled
        if not enabled:     # as torch's: a disabled scaler keeps none of its settings
            return
        if growth_factor <= 1.0:
            raise AssertionError("The growth factor must be > 1.0.")
        if backoff_factor >= 1.0:
            raise AssertionError("The backoff factor must be < 1.0.")
        self._init_scale, self._growth_factor = init_scale, growth_factor
        self._backoff_factor, self._growth_interval = backoff_factor, growth_interval
        self._init_growth_tracker = 0
        self._scale = self._growth_tracker = None      # made by the first scale()
        self._per_optimizer_states = collections.defaultdict(_fresh_state)

    def _checked(self, funcname):
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  " + _FIX)
        return self._scale, self._growth_tracker

    def _lazy_init(self):
        if self._scale is None:
            self._scale = full((), self._init_scale, dtype=dtypes.float32)
            self._growth_tracker = full((), self._init_growth_tracker, dtype=dtypes.int32)
        return self._scale

    def scale(self, outputs):
        """outputs (a tensor, or nested lists/tuples/iterables of them) times the scale."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            return outputs * self._lazy_init()
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(v) for v in outputs)
        if isinstance(outputs, collections.abc.Iterable):
            return map(self.scale, outputs)
        raise ValueError("outputs must be a Tensor or an iterable of Tensors")

    def _unscale_grads(self, optimizer, inv_scale, found_inf):
        """torch._amp_foreach_non_finite_check_and_unscale_ over the optimizer's gradients:
        each times inv_scale, in place; found_inf becomes 1 if any is not finite."""
        with no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    if not isinstance(param, Tensor):
                        raise AssertionError(f"expected param to be torch.Tensor, got "
                                             f"{type(param).__name__}")
                    if param.grad is None:
                        continue
                    if param.grad.dtype is dtypes.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    if not isfinite(param.grad).all().item():
                        found_inf.fill_(1.0)
                    param.grad.mul_(inv_scale)
        return {_device.CPU: found_inf}

    def unscale_(self, optimizer):
        if not self._enabled:
            return
        scale, _ = self._checked("unscale_")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the "
                               "last update().")
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv_scale = scale.double().reciprocal().float()
        found_inf = full((), 0.0, dtype=dtypes.float32)
        state["found_inf_per_device"] = self._unscale_grads(optimizer, inv_scale, found_inf)
        state["stage"] = OptState.UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """optimizer.step(*args, **kwargs) unless a gradient was not finite (then None)."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is "
                               "enabled.")
        self._checked("step")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if getattr(optimizer, "_step_supports_amp_scaling", False):
            raise NotImplementedError("GradScaler.step with an optimizer that unscales itself "
                                      "(_step_supports_amp_scaling) is not supported by "
                                      "glassgrad")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if not state["found_inf_per_device"]:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        retval = None
        if not sum(v.item() for v in state["found_inf_per_device"].values()):
            retval = optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        return retval

    def update(self, new_scale=None):
        if not self._enabled:
            return
        scale, tracker = self._checked("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                scale.fill_(new_scale)
            else:
                if new_scale.device.type != self._device or new_scale.numel() != 1 or \
                        new_scale.requires_grad:
                    raise AssertionError(_NEW_SCALE)
                scale.copy_(new_scale)
        else:
            found = [f for s in self._per_optimizer_states.values()
                     for f in s["found_inf_per_device"].values()]
            if not found:
                raise AssertionError("No inf checks were recorded prior to update.")
            self._update_scale(scale, tracker, sum(f.item() for f in found))
        self._per_optimizer_states = collections.defaultdict(_fresh_state)

    def _update_scale(self, scale, tracker, found_inf):
        """torch._amp_update_scale_: back off after an inf; grow after growth_interval
        finite steps in a row (unless the grown scale would not be finite)."""
        if found_inf:
            scale.mul_(self._backoff_factor)
            tracker.fill_(0)
            return
        successful = tracker.item() + 1
        if successful == self._growth_interval:
            grown = scale * self._growth_factor
            if isfinite(grown).item():
                scale.copy_(grown)
            successful = 0
        tracker.fill_(successful)

    def get_scale(self):
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else self._scale.item()

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = new_interval

    def _get_growth_tracker(self):
        if not self._enabled:
            return 0
        if self._growth_tracker is None:
            return self._init_growth_tracker
        return self._growth_tracker.item()

    def is_enabled(self):
        return self._enabled

    def state_dict(self):
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval,
                "_growth_tracker": self._get_growth_tracker()}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])
