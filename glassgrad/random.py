"""torch.random: the default generator's seed and state, and fork_rng."""
import contextlib

from ._generator import (default_generator, get_rng_state, initial_seed, manual_seed, seed,
                         set_rng_state)

__all__ = ["manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state", "fork_rng",
           "default_generator", "thread_safe_generator"]


def thread_safe_generator():
    """The generator of the running DataLoader thread worker, None elsewhere (glassgrad's
    DataLoader runs its workers as processes, as torch's default: always None there)."""
    from .utils.data import get_worker_info
    info = get_worker_info()
    if info is not None and info.worker_method == "thread" and getattr(info, "rng", None):
        return info.rng.torch_generator
    return None


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices",
             device_type="cuda"):
    """Run the body with the CPU generator's state saved and restored afterwards (glassgrad
    has no accelerator generators to fork)."""
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)
