"""torch.nn.parallel: DataParallel as torch's build without accelerators has it (no devices
to replicate onto: the wrapped module runs as it is); DistributedDataParallel needs process
groups, which glassgrad does not have, so constructing one raises NotImplementedError."""
from ..modules.module import Module


class DistributedDataParallel:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError("torch.nn.parallel.DistributedDataParallel: glassgrad has no "
                                  "multi-device execution or process groups yet")


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
