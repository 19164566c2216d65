"""torch.cuda as PyTorch's CPU build has it: nothing is available, the queries that need a GPU
raise ``AssertionError: Torch not compiled with CUDA enabled``, and what torch answers without
one (counts, empty statistics, seeding, which is lazy there and never runs) is answered the
same way."""
import collections
import warnings

from .. import _device
from .._device import OutOfMemoryError  # noqa: F401  (torch.cuda's name for torch's)
from ..ops.legacy import CUDA_TYPES

globals().update(CUDA_TYPES)       # torch.cuda.FloatTensor, ...: constructing one raises

_NOT_COMPILED = "Torch not compiled with CUDA enabled"


def _refusing(name):
    def refuse(*args, **kwargs):
        raise AssertionError(_NOT_COMPILED)
    refuse.__name__ = refuse.__qualname__ = name
    return refuse


for _name in ("current_device", "synchronize", "init", "get_device_name",
              "get_device_capability", "get_device_properties", "get_rng_state", "initial_seed",
              "ipc_collect", "current_stream", "default_stream", "mem_get_info",
              "can_device_access_peer", "_lazy_init", "set_per_process_memory_fraction"):
    globals()[_name] = _refusing(_name)
del _name


def is_available():
    return False


def device_count():
    return 0


def is_initialized():
    return False


def _is_compiled():
    return False


def is_bf16_supported(including_emulation=True):
    return False


def is_tf32_supported():
    return False


def get_arch_list():
    return []


def get_gencode_flags():
    return ""


def empty_cache():
    pass    # no CUDA memory is ever cached


def memory_stats(device=None):
    return collections.OrderedDict()


def host_memory_stats():
    return collections.OrderedDict()


def _no_memory(device=None):
    return 0


memory_allocated = max_memory_allocated = memory_reserved = max_memory_reserved = _no_memory


def _missing_binding(name):
    def call(*args, **kwargs):
        # what torch's CPU build raises: the binding it calls is not compiled in
        raise AttributeError(f"module 'torch._C' has no attribute '{name}'")
    return call


reset_peak_memory_stats = _missing_binding("_cuda_resetPeakMemoryStats")


def reset_max_memory_allocated(device=None):
    warnings.warn("torch.cuda.reset_max_memory_allocated now calls "
                  "torch.cuda.reset_peak_memory_stats, which resets /all/ peak memory stats.",
                  FutureWarning, stacklevel=2)
    return reset_peak_memory_stats(device)


# seeding is queued until CUDA initialises, which never happens on a CPU build: no effect
def manual_seed(seed):
    pass


def manual_seed_all(seed):
    pass


def seed():
    pass


def seed_all():
    pass


def set_rng_state(new_state, device="cuda"):
    pass


def get_rng_state_all():
    return []


def _device_index(dev):
    """torch.cuda's _get_device_index(optional=True): an int, a cuda device or None."""
    if isinstance(dev, str):
        dev = _device.device(dev)
    if isinstance(dev, _device.device):
        if dev.type != "cuda":
            raise ValueError(f"Expected a cuda device, but got: {dev}")
        return -1 if dev.index is None else dev.index
    return dev


def set_device(device):
    index = _device_index(device)
    if index is not None and index >= 0:
        _missing_binding("_cuda_setDevice")()


class device:
    """Context manager selecting a CUDA device; entering one fails on a CPU build."""

    def __init__(self, device):
        self.idx = _device_index(device)
        self.prev_idx = -1

    def __enter__(self):
        if self.idx is not None and self.idx >= 0:
            raise RuntimeError("PyTorch was compiled without CUDA support")

    def __exit__(self, *exc):
        return False


class device_of(device):
    """The CUDA device of a tensor's data: none (-1) for glassgrad's CPU tensors."""

    def __init__(self, obj):
        super().__init__(obj.get_device() if obj.is_cuda else -1)


class Stream:
    def __init__(self, *args, **kwargs):
        raise RuntimeError("torch.cuda.Stream requires CUDA support")


class Event:
    def __init__(self, *args, **kwargs):
        raise RuntimeError("Tried to instantiate dummy base class Event")


from . import amp, nvtx  # noqa: E402,F401
