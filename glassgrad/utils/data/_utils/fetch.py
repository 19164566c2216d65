"""torch.utils.data._utils.fetch: turning an index (or a batch of them) into data."""


class _BaseDatasetFetcher:
    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.dataset, self.auto_collation = dataset, auto_collation
        self.collate_fn, self.drop_last = collate_fn, drop_last

    def fetch(self, possibly_batched_index):
        raise NotImplementedError


class _IterableDatasetFetcher(_BaseDatasetFetcher):
    """Takes the next len(index) samples from the dataset's iterator (one when not batching)."""

    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        super().__init__(dataset, auto_collation, collate_fn, drop_last)
        self.dataset_iter, self.ended = iter(dataset), False

    def fetch(self, possibly_batched_index):
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.dataset_iter))
        data = []
        for _ in possibly_batched_index:
            try:
                data.append(next(self.dataset_iter))
            except StopIteration:
                self.ended = True
                break
        if not data or (self.drop_last and len(data) < len(possibly_batched_index)):
            raise StopIteration
        return self.collate_fn(data)


class _MapDatasetFetcher(_BaseDatasetFetcher):
    def fetch(self, possibly_batched_index):
        if not self.auto_collation:
            return self.collate_fn(self.dataset[possibly_batched_index])
        if getattr(self.dataset, "__getitems__", None):
            data = self.dataset.__getitems__(possibly_batched_index)
        else:
            data = [self.dataset[i] for i in possibly_batched_index]
        return self.collate_fn(data)


def create_fetcher(iterable, dataset, auto_collation, collate_fn, drop_last):
    kind = _IterableDatasetFetcher if iterable else _MapDatasetFetcher
    return kind(dataset, auto_collation, collate_fn, drop_last)
