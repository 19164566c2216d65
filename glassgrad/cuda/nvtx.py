"""torch.cuda.nvtx: NVTX ranges need a CUDA build."""
import contextlib

_NOT_INSTALLED = "NVTX functions not installed. Are you sure you have a CUDA build?"


def range_push(msg):
    raise RuntimeError(_NOT_INSTALLED)


def range_pop():
    raise RuntimeError(_NOT_INSTALLED)


def mark(msg):
    raise RuntimeError(_NOT_INSTALLED)


@contextlib.contextmanager
def range(msg, *args, **kwargs):     # noqa: A001 - torch's name
    range_push(msg.format(*args, **kwargs))
    try:
        yield
    finally:
        range_pop()
