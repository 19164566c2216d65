"""torch.backends.cuda: not built; cuBLAS's matmul flags are kept."""
from .. import _runtime


def is_built():
    return False


class cuBLASModule:
    """torch.backends.cuda.matmul: the flags torch keeps for cuBLAS matmuls."""
    _DEFAULTS = {"allow_tf32": False, "allow_fp16_reduced_precision_reduction": True,
                 "allow_bf16_reduced_precision_reduction": True}

    def __getattr__(self, name):
        if name == "allow_tf32":        # torch keeps it as the float32 matmul precision
            return _runtime.get_float32_matmul_precision() != "highest"
        if name in self._DEFAULTS:
            return self.__dict__.get("_" + name, self._DEFAULTS[name])
        raise AttributeError("Unknown attribute " + name)

    def __setattr__(self, name, value):
        if name == "allow_tf32" and not isinstance(value, bool):
            raise RuntimeError(f"set_allow_tf32_cublas expects a bool, but got "
                               f"{type(value).__name__}")
        if name not in self._DEFAULTS:
            raise AttributeError("Unknown attribute " + name)
        if not isinstance(value, bool):
            raise TypeError(f"{name} expects a bool or a tuple/list of bools, but got "
                            f"{type(value)!r}")
        if name == "allow_tf32":
            _runtime.set_float32_matmul_precision("high" if value else "highest")
        else:
            self.__dict__["_" + name] = value


matmul = cuBLASModule()


def flash_sdp_enabled():
    return True


def mem_efficient_sdp_enabled():
    return True


def math_sdp_enabled():
    return True
