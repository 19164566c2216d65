"""torch.utils.data.dataset: map-style and iterable datasets, their combinations, random_split."""
import bisect
import collections.abc
import itertools
import math
import typing
import warnings

from ..._generator import default_generator
from ...ops.random import randperm

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset",
           "ChainDataset", "Subset", "random_split"]


_T_co = typing.TypeVar("_T_co", covariant=True)


class Dataset(typing.Generic[_T_co]):
    """A map-style dataset: ``__getitem__`` (and usually ``__len__``)."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset, collections.abc.Iterable):
    """A stream of samples: ``__iter__`` (abstract, as torch's). Under workers, each replica
    reads get_worker_info() to take its share."""

    def __add__(self, other):
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    def __init__(self, *tensors):
        if any(tensors[0].size(0) != t.size(0) for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)


def _sizes_agree(datasets):
    length = len(datasets[0])
    if any(length != len(d) for d in datasets):
        raise ValueError("Size mismatch between datasets")
    return length


def _column(dataset, indices):
    """dataset's samples at indices, through __getitems__ where it has one."""
    if not callable(getattr(dataset, "__getitems__", None)):
        return [dataset[i] for i in indices]
    items = dataset.__getitems__(indices)
    if len(items) != len(indices):
        raise ValueError(f"Nested dataset's output size mismatch. Expected {len(indices)}, "
                         f"got {len(items)}")
    return items


class StackDataset(Dataset):
    """Samples of several equal-length datasets side by side: tuples (args) or dicts (kwargs)."""

    def __init__(self, *args, **kwargs):
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via "
                             "``kwargs``) like input/output, but both types are given.")
        if not args and not kwargs:
            raise ValueError("At least one dataset should be passed")
        self.datasets = args or kwargs
        self._length = _sizes_agree(args or list(kwargs.values()))

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __getitems__(self, indices):
        if isinstance(self.datasets, dict):
            columns = {k: _column(d, indices) for k, d in self.datasets.items()}
            return [dict(zip(columns, row)) for row in zip(*columns.values())]
        return list(zip(*(_column(d, indices) for d in self.datasets)))

    def __len__(self):
        return self._length


class ConcatDataset(Dataset):
    @staticmethod
    def cumsum(sequence):
        return list(itertools.accumulate(len(e) for e in sequence))

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        if any(isinstance(d, IterableDataset) for d in self.datasets):
            raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][idx - start]

    @property
    def cummulative_sizes(self):
        warnings.warn("`cummulative_sizes` attribute is renamed to `cumulative_sizes`",
                      FutureWarning, stacklevel=2)
        return self.cumulative_sizes


def _iterable_only(datasets):
    for d in datasets:
        if not isinstance(d, IterableDataset):
            raise AssertionError("ChainDataset only supports IterableDataset")
        yield d


class ChainDataset(IterableDataset):
    def __init__(self, datasets):
        self.datasets = datasets

    def __iter__(self):
        for d in _iterable_only(self.datasets):
            yield from d

    def __len__(self):
        return sum(len(d) for d in _iterable_only(self.datasets))


class Subset(Dataset):
    def __init__(self, dataset, indices):
        self.dataset, self.indices = dataset, indices
        cls = type(self)
        if cls.__getitem__ is not Subset.__getitem__ and cls.__getitems__ is Subset.__getitems__:
            raise NotImplementedError(
                f"{cls.__name__} overrides __getitem__ but not __getitems__. When subclassing "
                "Subset and overriding __getitem__, you must also override __getitems__ to ensure "
                "DataLoader works correctly with your custom logic. A simple implementation:\n\n"
                "def __getitems__(self, indices):\n"
                "    return [self.__getitem__(idx) for idx in indices]")

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices):
        return _column(self.dataset, [self.indices[i] for i in indices])

    def __len__(self):
        return len(self.indices)


def _fraction_lengths(n, fractions):
    """Whole lengths for fractions summing to 1: floors, the remainder dealt round-robin."""
    lengths = []
    for i, frac in enumerate(fractions):
        if frac < 0 or frac > 1:
            raise ValueError(f"Fraction at index {i} is not between 0 and 1")
        lengths.append(math.floor(n * frac))
    for i in range(n - sum(lengths)):
        lengths[i % len(lengths)] += 1
    for i, length in enumerate(lengths):
        if length == 0:
            warnings.warn(f"Length of split at index {i} is 0. This might result in an empty "
                          "dataset.", stacklevel=3)
    return lengths


def random_split(dataset, lengths, generator=default_generator):
    """Non-overlapping Subsets of the given lengths (or fractions), from one randperm."""
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        lengths = _fraction_lengths(len(dataset), lengths)
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = randperm(sum(lengths), generator=generator).tolist()
    return [Subset(dataset, indices[end - length:end])
            for end, length in zip(itertools.accumulate(lengths), lengths)]
