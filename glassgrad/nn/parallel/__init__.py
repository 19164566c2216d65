"""torch.nn.parallel: DistributedDataParallel on glassgrad.distributed (MPI processes);
DataParallel as torch's build without accelerators has it (no devices to replicate onto:
the wrapped module runs as it is)."""
from ..modules.module import Module
from .distributed import DistributedDataParallel


class DataParallel(Module):
    """torch.nn.DataParallel where no accelerator is available: device_ids is [] and the
    wrapped module runs on its own (torch ignores device_ids and output_device then)."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.device_ids = []

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


def data_parallel(*args, **kwargs):
    raise NotImplementedError("torch.nn.parallel.data_parallel: glassgrad has no multi-device "
                              "execution")


__all__ = ["DataParallel", "DistributedDataParallel", "data_parallel"]
