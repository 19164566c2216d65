"""torch.utils.data: datasets, samplers and the DataLoader (worker processes included)."""
from .dataloader import (DataLoader, _DatasetKind, default_collate, default_convert,
                         get_worker_info)
from .dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset, Subset,
                      TensorDataset, random_split)
from .distributed import DistributedSampler
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler,
                      SubsetRandomSampler, WeightedRandomSampler)
from . import _utils, dataloader, dataset, distributed, sampler  # noqa: F401

__all__ = ["BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset",
           "DistributedSampler", "IterableDataset", "RandomSampler", "Sampler",
           "SequentialSampler", "StackDataset", "Subset", "SubsetRandomSampler", "TensorDataset",
           "WeightedRandomSampler", "_DatasetKind", "default_collate", "default_convert",
           "get_worker_info", "random_split"]
