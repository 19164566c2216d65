"""torch.utils.tensorboard: TensorBoard event files written through the tensorboard package,
which importing this needs (torch's ImportError without it, or with one older than 1.15)."""
import tensorboard

if not hasattr(tensorboard, "__version__") or tuple(
        int(p) for p in tensorboard.__version__.split(".")[:2] if p.isdigit()) < (1, 15):
    raise ImportError("TensorBoard logging requires TensorBoard version 1.15 or above")
del tensorboard

from .writer import FileWriter, SummaryWriter  # noqa: E402,F401
from tensorboard.summary.writer.record_writer import RecordWriter  # noqa: E402,F401

__all__ = ["FileWriter", "RecordWriter", "SummaryWriter"]
