"""torch.nn.utils.rnn: PackedSequence and the functions that pack, pad and unpad sequences.

A packed sequence holds the time steps of a batch of sequences sorted by length (longest
first) one after the other: step t holds the first ``batch_sizes[t]`` sequences' elements."""
from collections.abc import Iterable
from typing import NamedTuple

from ... import _creation, dtypes
from ..._tensor import Tensor
from ...autograd.function import Function
from ...ops.reduce import sort
from ...ops.shape import cat

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence",
           "pad_packed_sequence", "pad_sequence", "unpad_sequence", "pack_sequence",
           "unpack_sequence"]


class PackedSequence_(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


def _bind(optional, fn):
    return None if optional is None else fn(optional)


class PackedSequence(PackedSequence_):
    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            if not (isinstance(data, (list, tuple)) and len(data) == 2):
                raise AssertionError("Expected data to be a list or tuple of length 2")
            data, batch_sizes = data
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        if "copy" in kwargs:
            raise RuntimeError(".to() does not accept copy argument")
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        move = lambda t: t.to(data.device)  # noqa: E731
        return type(self)(data, self.batch_sizes, _bind(self.sorted_indices, move),
                          _bind(self.unsorted_indices, move))

    def cpu(self, *args, **kwargs):
        return self.to(*args, **kwargs)

    def double(self):
        return self.to(dtype=dtypes.float64)

    def float(self):
        return self.to(dtype=dtypes.float32)

    def half(self):
        return self.to(dtype=dtypes.float16)

    def long(self):
        return self.to(dtype=dtypes.int64)

    def int(self):
        return self.to(dtype=dtypes.int32)

    def short(self):
        return self.to(dtype=dtypes.int16)

    def char(self):
        return self.to(dtype=dtypes.int8)

    def byte(self):
        return self.to(dtype=dtypes.uint8)

    @property
    def is_cuda(self):
        return self.data.is_cuda

    def is_pinned(self):
        return self.data.is_pinned()


def invert_permutation(permutation):
    if permutation is None:
        return None
    output = _creation.empty_like(permutation)
    output.scatter_(0, permutation, _creation.arange(permutation.numel()))
    return output


def _steps_mask(lengths, steps):
    """(steps, batch) bool: where sequence b has an element at step t."""
    return _creation.arange(steps).unsqueeze(1) < lengths.unsqueeze(0)


class _PackPadded(Function):
    """ATen's _pack_padded_sequence: the time-major rows of the steps each sequence has."""

    @staticmethod
    def forward(ctx, input, lengths, batch_first):
        """lengths: a list (the node has one edge, the input's, as torch's)."""
        padded = input.transpose(0, 1) if batch_first else input
        ctx.shape, ctx.batch_first = padded.shape, batch_first
        ctx.mask = _steps_mask(_creation.as_tensor(lengths), padded.size(0))
        return padded[ctx.mask]

    @staticmethod
    def backward(ctx, grad):
        padded = _creation.zeros(ctx.shape, dtype=grad.dtype)
        padded[ctx.mask] = grad
        return padded.transpose(0, 1) if ctx.batch_first else padded, None, None


_PackPadded._backward_cls.__name__ = "PackPaddedSequenceBackward0"   # torch's node name


def _check_lengths(input, lengths, batch_first):
    if lengths.dim() != 1:
        raise RuntimeError("'lengths' argument should be a 1D CPU int64 tensor, but got "
                           f"{lengths.dim()}D cpu Long tensor")
    batch_size = input.size(0 if batch_first else 1)
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    if lengths.size(0) != batch_size:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got "
                           f"{lengths.size(0)} (batch_size={batch_size})")
    if lengths[-1].item() <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    if (lengths[1:] > lengths[:-1]).any().item():
        raise RuntimeError(
            "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
            "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence "
            "to sidestep this requirement if you do not need ONNX exportability.")


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    if isinstance(lengths, Tensor):
        lengths = lengths.to(dtype=dtypes.int64)
    else:
        lengths = _creation.as_tensor(lengths, dtype=dtypes.int64)
    sorted_indices = None
    if not enforce_sorted:
        lengths, sorted_indices = sort(lengths, descending=True)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    _check_lengths(input, lengths, batch_first)
    batch_sizes = _steps_mask(lengths, int(lengths[0])).sum(1)
    return PackedSequence(_PackPadded.apply(input, lengths.tolist(), batch_first), batch_sizes,
                          sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    max_seq_length = sequence.batch_sizes.size(0)
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError("Expected total_length to be at least the length of the longest "
                             f"sequence in input, but got total_length={total_length} and max "
                             f"sequence length being {max_seq_length}")
        max_seq_length = total_length
    data, batch_sizes = sequence.data, sequence.batch_sizes.tolist()
    output = _creation.full((max_seq_length, batch_sizes[0], *data.shape[1:]), padding_value,
                            dtype=data.dtype)
    offset = start = 0
    for t in range(1, len(batch_sizes) + 1):   # one copy per run of equal batch sizes
        if t == len(batch_sizes) or batch_sizes[t] != batch_sizes[start]:
            width, rows = batch_sizes[start], batch_sizes[start] * (t - start)
            output[start:t, :width].copy_(
                data[offset:offset + rows].view(t - start, width, *data.shape[1:]))
            offset, start = offset + rows, t
    lengths = (sequence.batch_sizes.unsqueeze(1) >
               _creation.arange(batch_sizes[0]).unsqueeze(0)).sum(0)
    if batch_first:
        output = output.transpose(0, 1)
    if sequence.unsorted_indices is not None:
        return (output.index_select(0 if batch_first else 1, sequence.unsorted_indices),
                lengths[sequence.unsorted_indices])
    return output, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    if not isinstance(sequences, Iterable):
        raise RuntimeError("pad_sequence: Expected iterable for input sequences, but got arg "
                           f"of type: {type(sequences)}".replace("glassgrad.", "torch."))
    sequences = tuple(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError("Expected padding_side to be one of left or right, but got "
                           f"{padding_side}.")
    if sequences[0].dim() == 0:
        raise RuntimeError("ArrayRef: invalid slice, N = 1; size = 0")
    max_len = max(s.size(0) for s in sequences)
    dims = (len(sequences), max_len) if batch_first else (max_len, len(sequences))
    out = _creation.full((*dims, *sequences[0].shape[1:]), padding_value,
                         dtype=sequences[0].dtype)
    for i, seq in enumerate(sequences):
        start = max_len - seq.size(0) if padding_side == "left" else 0
        rows = out[i] if batch_first else out[:, i]
        rows[start:start + seq.size(0)].copy_(seq)
    return out


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    if not batch_first:
        padded_sequences.transpose_(0, 1)
    steps = _creation.arange(padded_sequences.shape[1])
    return [seq[steps < length] for seq, length in zip(padded_sequences, lengths, strict=True)]


def pack_sequence(sequences, enforce_sorted=True):
    lengths = _creation.as_tensor([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    padded_sequences, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded_sequences, lengths, batch_first=True)
