"""torch.utils.tensorboard: importing it needs the tensorboard package, as in PyTorch (whose
ImportError this raises without it). glassgrad has no SummaryWriter of its own yet."""
import tensorboard  # (ModuleNotFoundError: No module named 'tensorboard', as torch)

if tuple(int(p) for p in getattr(tensorboard, "__version__", "0").split(".")[:2]
         if p.isdigit()) < (1, 15):
    raise ImportError("TensorBoard logging requires TensorBoard version 1.15 or above")
del tensorboard


class SummaryWriter:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError("torch.utils.tensorboard.SummaryWriter: glassgrad does not "
                                  "write TensorBoard event files yet")
