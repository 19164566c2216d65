"""glassgrad: a PyTorch-compatible reverse-mode autograd engine on NumPy that you can see through.

Use it as ``import glassgrad as torch``.
"""
from . import dtypes as _dtypes
from ._overrides import DisableTorchFunction, DisableTorchFunctionSubclass  # noqa: F401
from ._tensor import Size, Tensor
from ._printing import get_printoptions, set_printoptions
from ._device import device as _device_type
from ._device import (AcceleratorError, OutOfMemoryError, device, get_default_device,  # noqa: F401
                      set_default_device)
from ._formats import (channels_last, channels_last_3d, contiguous_format, jagged, layout,  # noqa: F401
                       legacy_contiguous_format, memory_format, preserve_format, sparse_bsc,
                       sparse_bsr, sparse_coo, sparse_csc, sparse_csr, strided)
from ._runtime import (are_deterministic_algorithms_enabled, get_deterministic_debug_mode,  # noqa: F401
                       get_float32_matmul_precision, get_num_interop_threads, get_num_threads,
                       init_num_threads, is_deterministic_algorithms_warn_only_enabled,
                       is_warn_always_enabled, set_deterministic_debug_mode,
                       set_float32_matmul_precision, set_flush_denormal, set_num_interop_threads,
                       set_num_threads, set_warn_always, use_deterministic_algorithms)
from .dtypes import (bfloat16, bool, cdouble, cfloat, complex64, complex128, double, dtype,  # noqa: A004
                     finfo, float, float16, float32, float64, get_default_dtype, half, iinfo, int,
                     int8, int16, int32, int64, long, set_default_dtype, short, uint8)
from ._creation import (arange, as_tensor, asarray, empty, empty_like, empty_permuted,
                        empty_strided, eye, from_dlpack, from_file, from_numpy, frombuffer, full,
                        full_like, linspace, ones, ones_like, rand, rand_like, randint,
                        randint_like, randn, randn_like, tensor, to_dlpack, zeros, zeros_like)
from ._generator import (Generator, default_generator, get_rng_state, initial_seed, manual_seed,
                         seed, set_rng_state)
from .random import thread_safe_generator  # noqa: F401
from ._autograd.grad_mode import (enable_grad, inference_mode, is_grad_enabled,
                                  is_inference_mode_enabled, no_grad, set_grad_enabled)
from ._autograd.anomaly import (is_anomaly_check_nan_enabled, is_anomaly_enabled,
                                set_anomaly_enabled)
from . import ops as _ops
from .ops.pointwise import *  # noqa: F401,F403  (each ops module's __all__)
from .ops.reduce import *  # noqa: F401,F403
from .ops.linalg import *  # noqa: F401,F403
from .ops.shape import *  # noqa: F401,F403
from .ops.indexing import *  # noqa: F401,F403
from .ops.nn import *  # noqa: F401,F403
from .ops.conv import *  # noqa: F401,F403
from .ops.pool import *  # noqa: F401,F403
from .ops.spatial import *  # noqa: F401,F403
from .ops.sampling import *  # noqa: F401,F403
from .ops.norm import *  # noqa: F401,F403
from .ops.loss import *  # noqa: F401,F403
from .ops.random import *  # noqa: F401,F403
from .ops.special import *  # noqa: F401,F403
from .ops.composite import *  # noqa: F401,F403
from .ops.legacy import *  # noqa: F401,F403  (FloatTensor, ..., set_default_tensor_type)
from .ops.solvers import *  # noqa: F401,F403
from .ops.lowrank import *  # noqa: F401,F403
from .ops.complex import *  # noqa: F401,F403
from .ops.fft import *  # noqa: F401,F403  (torch.stft, torch.istft)
from ._lobpcg import lobpcg  # noqa: F401
from . import autograd, fft, linalg, nn, random, special  # noqa: E402
from . import accelerator, amp, backends, cpu, cuda, distributed, jit, onnx  # noqa: E402,F401
from .amp import GradScaler, autocast, get_autocast_dtype, is_autocast_enabled  # noqa: E402,F401
from .amp.autocast_mode import (autocast_decrement_nesting, autocast_increment_nesting,  # noqa: E402,F401
                                clear_autocast_cache, get_autocast_cpu_dtype,
                                get_autocast_gpu_dtype, is_autocast_cache_enabled,
                                is_autocast_cpu_enabled, set_autocast_cache_enabled,
                                set_autocast_cpu_dtype, set_autocast_cpu_enabled,
                                set_autocast_dtype, set_autocast_enabled, set_autocast_gpu_dtype)
from . import overrides, serialization  # noqa: E402,F401
from . import optim  # noqa: E402,F401
from .serialization import load, save  # noqa: E402
from ._storage import (LEGACY as _LEGACY_STORAGES, StorageBase, TypedStorage,  # noqa: E402,F401
                       UntypedStorage, is_storage)
globals().update(_LEGACY_STORAGES)     # torch.FloatStorage, ...: TypedStorage constructors
Storage = FloatStorage  # noqa: F821  (torch.Storage is torch.FloatStorage)

for _name, _fn in _ops.methods().items():      # the Tensor methods, from the op table
    setattr(Tensor, _name, _fn)
del _name, _fn



def is_tensor(obj):
    return isinstance(obj, Tensor)


def numel(input):
    return input.numel()


def get_device(input):
    return input.get_device()


def get_device_module(device=None):
    """The module of a device type (torch.cpu, torch.cuda); glassgrad has no module for the
    other accelerators torch names (mps, xpu, mtia): NotImplementedError."""
    if device is None:
        kind = "cpu"
    elif isinstance(device, (str, _device_type)):
        kind = _device_type(device).type
    else:
        raise RuntimeError(f"Invalid value of device '{device}', expect torch.device, str, or "
                           "None")
    module = {"cpu": cpu, "cuda": cuda}.get(kind)
    if module is None:
        if kind in ("mps", "xpu", "mtia"):
            raise NotImplementedError(f"torch.get_device_module('{kind}'): glassgrad has no "
                                      f"torch.{kind} module")
        raise RuntimeError(f"Device '{kind}' does not have a corresponding module registered as "
                           f"'torch.{kind}'.")
    return module


__version__ = "0.1.0"
from . import func, utils  # noqa: E402,F401
from .nn.modules.rnn import FUNCTIONS as _RNN_FUNCTIONS  # noqa: E402
globals().update(_RNN_FUNCTIONS)       # torch.lstm, gru, rnn_tanh, rnn_relu and their cells
from .func import vmap  # noqa: E402,F401
from ._higher_order_ops import cond, while_loop  # noqa: E402,F401
from . import compiler, _dynamo  # noqa: E402,F401
from ._dynamo.eval_frame import compile  # noqa: E402,F401,A004
from . import distributions  # noqa: E402,F401

# the glass box plugs into the core's explain hook at import
from .glass import explain  # noqa: E402  (glassgrad.explain(t or e): the history, in words)
