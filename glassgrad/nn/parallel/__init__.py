"""torch.nn.parallel: importable; the wrappers need several devices or process groups, which
glassgrad does not have, so constructing one raises NotImplementedError."""


class _Unavailable:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError(f"torch.nn.parallel.{type(self).__name__}: glassgrad has no "
                                  "multi-device execution or process groups yet")


class DistributedDataParallel(_Unavailable):
    pass


class DataParallel(_Unavailable):
    pass


def data_parallel(*args, **kwargs):
    raise NotImplementedError("torch.nn.parallel.data_parallel: glassgrad has no multi-device "
                              "execution")
