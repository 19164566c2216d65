"""torch.utils.data.sampler: index orders. The random ones draw as torch's do (the same
generator calls in the same order), so the same seed gives the same order."""
import itertools
import typing

from ... import dtypes
from ..._creation import as_tensor, empty, randint
from ..._generator import Generator
from ...ops.random import multinomial, randperm

__all__ = ["BatchSampler", "RandomSampler", "Sampler", "SequentialSampler",
           "SubsetRandomSampler", "WeightedRandomSampler"]


def _is_count(value):
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


_T_co = typing.TypeVar("_T_co", covariant=True)


class Sampler(typing.Generic[_T_co]):
    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


def fresh_generator():
    """A generator seeded from the default one (one random_ draw), as torch's samplers make."""
    seed = int(empty((), dtype=dtypes.int64).random_().item())
    return Generator().manual_seed(seed)


class RandomSampler(Sampler):
    """Without replacement: whole randperms (the last one cut); with: randint in chunks of 32."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source, self.replacement = data_source, replacement
        self._num_samples, self.generator = num_samples, generator
        if not isinstance(replacement, bool):
            raise TypeError("replacement should be a boolean value, but got "
                            f"replacement={replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n, count = len(self.data_source), self.num_samples
        gen = self.generator if self.generator is not None else fresh_generator()
        if self.replacement:
            for size in [32] * (count // 32) + [count % 32]:
                yield from randint(high=n, size=(size,), dtype=dtypes.int64,
                                   generator=gen).tolist()
        else:
            for _ in range(count // n):
                yield from randperm(n, generator=gen).tolist()
            yield from randperm(n, generator=gen).tolist()[:count % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    def __init__(self, indices, generator=None):
        self.indices, self.generator = indices, generator

    def __iter__(self):
        for i in randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if not _is_count(num_samples):
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError("replacement should be a boolean value, but got "
                             f"replacement={replacement}")
        weights = as_tensor(weights, dtype=dtypes.float64)
        if weights.dim() != 1:
            raise ValueError("weights should be a 1d sequence but given weights have shape "
                             f"{tuple(weights.shape)}")
        self.weights, self.num_samples = weights, num_samples
        self.replacement, self.generator = replacement, generator

    def __iter__(self):
        drawn = multinomial(self.weights, self.num_samples, self.replacement,
                            generator=self.generator)
        yield from drawn.tolist()

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Lists of batch_size indices from sampler; the short last one kept unless drop_last."""

    def __init__(self, sampler, batch_size, drop_last):
        if not _is_count(batch_size):
            raise ValueError("batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self):
        indices = iter(self.sampler)
        while batch := list(itertools.islice(indices, self.batch_size)):
            if self.drop_last and len(batch) < self.batch_size:
                return
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
