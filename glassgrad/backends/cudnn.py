"""torch.backends.cudnn: not available (no CUDA); its flags are kept."""
import sys

from ._flags import flag_module, flags_context


def is_available():
    return False


def version():
    return None


def is_acceptable(tensor):
    return False


def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False,
          allow_tf32=True, fp32_precision="none", depthwise_kernel="auto"):
    return flags_context(sys.modules[__name__], enabled=enabled, benchmark=benchmark,
                         deterministic=deterministic, allow_tf32=allow_tf32)


benchmark_limit = None
flag_module(__name__, enabled=(True, "set_enabled_cudnn"),
            benchmark=(False, "set_benchmark_cudnn"),
            deterministic=(False, "set_deterministic_cudnn"),
            allow_tf32=(True, "set_allow_tf32_cublas"))      # (torch's setter's name)
