"""torch.cpu: the one device glassgrad computes on. Streams and events are not modelled."""


def is_available():
    return True


def is_initialized():
    return True


def device_count():
    return 1


def current_device():
    return "cpu"


def synchronize(device=None):
    pass        # NumPy runs synchronously


def set_device(device):
    pass        # there is one CPU device, as in torch


from . import amp  # noqa: E402,F401
