"""Summary protocol buffers from tensors, as torch.utils.tensorboard.summary makes them:
scalars, text and histograms (TensorBoard's bucket logic)."""
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
from tensorboard.plugins.text.plugin_data_pb2 import TextPluginData

from ..._tensor import Tensor
from ...backend import ndarray, xp


def make_np(x):
    """An array of a tensor, an array or a Python number."""
    if isinstance(x, ndarray):
        return x
    if xp.isscalar(x):
        return xp.array([x])
    if isinstance(x, Tensor):
        return x.detach().numpy()
    raise NotImplementedError(f"Got {type(x)}, but numpy array or torch tensor are expected.")


def scalar(name, tensor, collections=None, new_style=False, double_precision=False):
    tensor = make_np(tensor).squeeze()
    if tensor.ndim != 0:
        raise AssertionError(f"Tensor should contain one element (0 dimensions).             Was "
                             f"given size: {tensor.size} and {tensor.ndim} dimensions.")
    value = float(tensor)
    if not new_style:
        return Summary(value=[Summary.Value(tag=name, simple_value=value)])
    proto = (TensorProto(double_val=[value], dtype="DT_DOUBLE") if double_precision else
             TensorProto(float_val=[value], dtype="DT_FLOAT"))
    metadata = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="scalars"))
    return Summary(value=[Summary.Value(tag=name, tensor=proto, metadata=metadata)])


def text(tag, text):
    plugin = SummaryMetadata.PluginData(plugin_name="text",
                                        content=TextPluginData(version=0).SerializeToString())
    proto = TensorProto(dtype="DT_STRING", string_val=[text.encode(encoding="utf_8")],
                        tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=1)]))
    return Summary(value=[Summary.Value(tag=tag + "/text_summary",
                                        metadata=SummaryMetadata(plugin_data=plugin),
                                        tensor=proto)])


def histogram(name, values, bins, max_bins=None):
    hist = make_histogram(make_np(values).astype(float), bins, max_bins)
    return Summary(value=[Summary.Value(tag=name, histo=hist)])


def make_histogram(values, bins, max_bins=None):
    """TensorBoard's histogram of values: counts per bin (merged down to max_bins), cut to the
    bins from the first to the last non-empty one, with an empty bin on the left."""
    if values.size == 0:
        raise ValueError("The input has no element.")
    values = values.reshape(-1)
    counts, limits = xp.histogram(values, bins=bins)
    if max_bins is not None and len(counts) > max_bins:
        counts, limits = _merge_bins(counts, limits, len(counts) // max_bins)
    filled = xp.cumsum(xp.greater(counts, 0))
    start, end = xp.searchsorted(filled, [0, filled[-1] - 1], side="right")
    start, end = int(start), int(end) + 1
    counts = counts[start - 1:end] if start > 0 else xp.concatenate([[0], counts[:end]])
    limits = limits[start:end + 1]
    if counts.size == 0 or limits.size == 0:
        raise ValueError("The histogram is empty, please file a bug report.")
    return HistogramProto(min=values.min(), max=values.max(), num=len(values), sum=values.sum(),
                          sum_squares=values.dot(values), bucket_limit=limits.tolist(),
                          bucket=counts.tolist())


def _merge_bins(counts, limits, every):
    """Sum every ``every`` bins into one (the last group padded with empty bins)."""
    short = len(counts) % every
    if short:
        counts = xp.pad(counts, [[0, every - short]], mode="constant", constant_values=0)
    counts = counts.reshape(-1, every).sum(axis=-1)
    merged = xp.empty((counts.size + 1,), limits.dtype)
    merged[:-1], merged[-1] = limits[:-1:every], limits[-1]
    return counts, merged
