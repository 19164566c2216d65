"""torch.accelerator: glassgrad has none (its device is the CPU)."""
_NONE = "Cannot access accelerator device when none is available."


def is_available():
    return False


def current_accelerator(check_available=False):
    return None


def device_count():
    return 0


def _refusing(name):
    def refuse(*args, **kwargs):
        raise RuntimeError(_NONE)
    refuse.__name__ = refuse.__qualname__ = name
    return refuse


for _name in ("current_device_index", "set_device_index", "synchronize", "current_stream",
              "set_stream", "empty_cache"):
    globals()[_name] = _refusing(_name)
del _name
