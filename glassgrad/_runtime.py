"""Runtime settings. Threads: torch's intra-op pool is NumPy's BLAS pool here (threadpoolctl
limits it); glassgrad runs no inter-op pool, so its size is only remembered. The float32 matmul
precision is kept (glassgrad always computes float32 matmuls in float32)."""
import builtins
import os
import sys
import warnings

from .backend import NUMPY

_interop = [os.cpu_count() or 1]


def _positive(n, fn):
    if not isinstance(n, builtins.int) or isinstance(n, builtins.bool):
        raise RuntimeError(f"{fn} expects an int, but got {type(n).__name__}")
    if n <= 0:
        raise RuntimeError(f"{fn} expects a positive integer")


def set_num_threads(int):     # noqa: A002 - torch's parameter name
    _positive(int, "set_num_threads")
    NUMPY.set_num_threads(int)


def get_num_threads():
    return NUMPY.get_num_threads()


def set_num_interop_threads(int):     # noqa: A002
    _positive(int, "set_num_interop_threads")
    _interop[0] = int


def get_num_interop_threads():
    return _interop[0]


# float32 matmul precision: a permission to compute float32 matmuls in lower precision (TF32,
# bfloat16) that glassgrad never uses; it is kept, and torch.backends.cuda.matmul.allow_tf32
# reads and writes it as in torch
_matmul_precision = ["highest"]


def set_float32_matmul_precision(precision):
    if not isinstance(precision, str):
        raise RuntimeError(f"set_float32_matmul_precision expects a str, but got "
                           f"{type(precision).__name__}")
    if precision not in ("highest", "high", "medium"):
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      "setFloat32MatmulPrecision call has no effect. (Triggered internally at "
                      "/__w/pytorch/pytorch/aten/src/ATen/Context.cpp:458.)", UserWarning,
                      stacklevel=2)
        return
    _matmul_precision[0] = precision


def get_float32_matmul_precision():
    return _matmul_precision[0]


# -- deterministic algorithms, warn-always, denormals -------------------------------------------
# torch.use_deterministic_algorithms: glassgrad's kernels are deterministic; the flag makes the
# ops torch's CPU build alerts on (put_ without accumulate) raise or warn as torch's, and the
# uninitialized memory of empty tensors be filled (NaN, or the integer maximum) as torch's
_deterministic = {"mode": False, "warn_only": False}
_warn_always = [False]


def use_deterministic_algorithms(mode, *, warn_only=False):
    for name, value in (("'mode' (position 1)", mode), ("'warn_only'", warn_only)):
        if not isinstance(value, builtins.bool):
            raise TypeError(f"_set_deterministic_algorithms(): argument {name} must be bool, "
                            f"not {type(value).__name__}")
    _deterministic["mode"], _deterministic["warn_only"] = mode, warn_only and mode


def are_deterministic_algorithms_enabled():
    return _deterministic["mode"]


def is_deterministic_algorithms_warn_only_enabled():
    return _deterministic["warn_only"]


_DEBUG_MODES = ("default", "warn", "error")


def set_deterministic_debug_mode(debug_mode):
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, `warn`, "
                               f"`error`, but got {debug_mode}")
        debug_mode = _DEBUG_MODES.index(debug_mode)
    elif not isinstance(debug_mode, builtins.int):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got "
                           f"{debug_mode}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode():
    if not _deterministic["mode"]:
        return 0
    return 1 if _deterministic["warn_only"] else 2


def alert_not_deterministic(op):
    """What torch does when ``op``, which has no deterministic implementation, runs while
    deterministic algorithms are on: a RuntimeError, or a UserWarning with warn_only."""
    if not _deterministic["mode"]:
        return
    head = f"{op} does not have a deterministic implementation, but you set "
    tail = ("You can also file an issue at https://github.com/pytorch/pytorch/issues to help "
            "us prioritize adding deterministic support for this operation.")
    if _deterministic["warn_only"]:
        warnings.warn(head + "'torch.use_deterministic_algorithms(True, warn_only=True)'. "
                      + tail.replace("You can also file", "You can file") + " (Triggered "
                      "internally at /__w/pytorch/pytorch/aten/src/ATen/Context.cpp:186.)",
                      UserWarning, stacklevel=3)
    else:
        raise RuntimeError(head + "'torch.use_deterministic_algorithms(True)'. You can turn "
                           "off determinism just for this operation, or you can use the "
                           "'warn_only=True' option, if that's acceptable for your "
                           "application. " + tail)


def fills_uninitialized():
    """Whether new memory is filled (torch.utils.deterministic.fill_uninitialized_memory, which
    torch applies while deterministic algorithms are on)."""
    return _deterministic["mode"] and fill_uninitialized_memory[0]


fill_uninitialized_memory = [True]


_WARNED = set()
_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep
# glassgrad's folders whose code is Python in torch too (its modules, optimizers, utilities):
# torch's C++ warnings point at the Python frame that called into C++, which can be one of these
_PYTHON_LAYERS = tuple(_PACKAGE + os.path.join(*d.split("/")) + os.sep for d in (
    "nn/modules", "nn/utils", "optim", "utils", "distributions"))


def warn(text, category=UserWarning):
    """TORCH_WARN: the warning reported where torch reports the warnings its C++ core raises,
    at the nearest Python frame that calls into the core (the user's line, or a module's
    forward), however many frames of glassgrad's core, the argument binders' included, lie
    between."""
    frame, level = sys._getframe(1), 2     # stacklevel 2: warn's caller
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE) \
            and not frame.f_code.co_filename.startswith(_PYTHON_LAYERS):
        frame, level = frame.f_back, level + 1
    warnings.warn(text, category, stacklevel=level)


def warn_once(key, text):
    """TORCH_WARN_ONCE: warn() once per process (each time while torch.set_warn_always(True))."""
    if key not in _WARNED or _warn_always[0]:
        _WARNED.add(key)
        warn(text)


def set_warn_always(b, /):
    if not isinstance(b, builtins.bool):
        raise RuntimeError(f"setWarnOnlyOnce expects a bool, but got {type(b).__name__}")
    _warn_always[0] = b


def is_warn_always_enabled():
    return _warn_always[0]


def set_flush_denormal(mode):
    """torch.set_flush_denormal: glassgrad cannot make NumPy flush denormals to zero; turning
    it on is refused rather than ignored (torch returns True on x86 CPUs)."""
    if not isinstance(mode, builtins.bool):
        raise RuntimeError(f"flush_denormal expects a bool, but got {type(mode).__name__}")
    if mode:
        raise NotImplementedError("torch.set_flush_denormal(True): glassgrad computes with "
                                  "NumPy, which keeps denormal numbers; it cannot flush them")
    return True


def init_num_threads(*args):
    """torch.init_num_threads: the BLAS pool is set up by NumPy; nothing to do."""
    if args:
        raise TypeError("init_num_threads(): incompatible function arguments. The following "
                        "argument types are supported:\n    1. () -> None\n\nInvoked with: "
                        + ", ".join(map(repr, args)))
