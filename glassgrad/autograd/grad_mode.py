"""torch.autograd.grad_mode: the grad-mode context managers (they live in the core), and the
multithreading and view-replay flags."""
import threading

from .._autograd.grad_mode import (_Mode, enable_grad, inference_mode,  # noqa: F401
                                   is_grad_enabled, is_inference_mode_enabled, no_grad,
                                   set_grad_enabled)

_threads = threading.local()


def is_multithreading_enabled():
    """Whether backward may run device work on the engine's device threads (torch's flag, per
    thread). glassgrad runs every backward on the calling thread, as torch does for CPU work,
    so the flag changes nothing here."""
    return getattr(_threads, "enabled", True)


class set_multithreading_enabled(_Mode):
    """Sets the flag at construction (usable as a plain call) and restores it on exit."""

    def __init__(self, mode):
        if not isinstance(mode, bool):
            raise TypeError(f"set_multithreading_enabled(): argument 'enabled' (position 1) "
                            f"must be bool, not {type(mode).__name__}")
        self.prev, self.mode = is_multithreading_enabled(), mode
        _threads.enabled = mode

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        _threads.enabled = self.prev

    def clone(self):
        return type(self)(self.mode)


def is_view_replay_enabled():
    """Whether views' grad_fns replay the view (torch's _force_original_view_tracking): never
    in glassgrad, as in torch by default (a view's regenerated grad_fn is AsStridedBackward0)."""
    return False
