"""torch.utils.data.distributed: DistributedSampler, a rank's share of one epoch's order."""
import math

from ... import distributed as dist
from ..._generator import Generator
from ...ops.random import randperm
from .sampler import Sampler

__all__ = ["DistributedSampler"]


def _group_fact(value, name):
    if value is not None:
        return value
    if not dist.is_available():
        raise RuntimeError("Requires distributed package to be available")
    return getattr(dist, name)()


class DistributedSampler(Sampler):
    """Every num_replicas-th index from rank, of one order shared by all ranks (a randperm
    seeded seed + epoch when shuffle), padded by repeating it to a multiple of num_replicas,
    or cut to one when drop_last."""

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0,
                 drop_last=False):
        num_replicas = _group_fact(num_replicas, "get_world_size")
        rank = _group_fact(rank, "get_rank")
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval "
                             f"[0, {num_replicas - 1}]")
        self.dataset, self.num_replicas, self.rank = dataset, num_replicas, rank
        self.epoch, self.drop_last, self.shuffle, self.seed = 0, drop_last, shuffle, seed
        n = len(dataset)
        if drop_last and n % num_replicas:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas

    def __iter__(self):
        n = len(self.dataset)
        if self.shuffle:
            gen = Generator().manual_seed(self.seed + self.epoch)
            indices = randperm(n, generator=gen).tolist()
        else:
            indices = list(range(n))
        if self.drop_last:
            indices = indices[:self.total_size]
        else:
            padding = self.total_size - n
            indices += (indices * math.ceil(padding / n))[:padding] if padding else []
        return iter(indices[self.rank:self.total_size:self.num_replicas])

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        self.epoch = epoch
