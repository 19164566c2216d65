"""torch.nn.parallel: DistributedDataParallel on glassgrad.distributed (MPI processes);
DataParallel needs several devices in one process, which glassgrad does not have, so
constructing one raises NotImplementedError."""
from .distributed import DistributedDataParallel


class DataParallel:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError("torch.nn.parallel.DataParallel: glassgrad has no "
                                  "multi-device execution (use DistributedDataParallel)")


def data_parallel(*args, **kwargs):
    raise NotImplementedError("torch.nn.parallel.data_parallel: glassgrad has no multi-device "
                              "execution")


__all__ = ["DataParallel", "DistributedDataParallel", "data_parallel"]
