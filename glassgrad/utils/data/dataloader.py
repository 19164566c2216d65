"""torch.utils.data.dataloader: DataLoader, in one process or with worker processes.

Random draws happen where torch's do: each iterator first draws base_seed from the loader's
generator (or the default one), then the sampler draws its order as it is first read; so the
same seed gives the same batches and the same worker seeds as torch."""
import atexit
import itertools
import math
import multiprocessing
import os
import queue
import typing
import warnings

from ... import accelerator, dtypes
from ..._creation import empty
from . import _utils
from ._utils.collate import default_collate, default_convert
from ._utils.worker import (ExceptionWrapper, MP_STATUS_CHECK_INTERVAL, _IterableDatasetStopIteration,
                            _ResumeIteration, _worker_loop, get_worker_info)
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "get_worker_info", "default_collate", "default_convert"]

_T_co = typing.TypeVar("_T_co", covariant=True)
_exiting = [False]      # set at interpreter exit: worker shutdown is then left to the daemons
atexit.register(lambda: _exiting.__setitem__(0, True))


class _DatasetKind:
    Map = 0
    Iterable = 1

    @staticmethod
    def create_fetcher(kind, dataset, auto_collation, collate_fn, drop_last):
        return _utils.fetch.create_fetcher(kind == _DatasetKind.Iterable, dataset,
                                           auto_collation, collate_fn, drop_last)


class _InfiniteConstantSampler(Sampler):
    """An IterableDataset's 'indices': None forever (the dataset decides when it ends)."""

    def __iter__(self):
        while True:
            yield None


def _check_counts(num_workers, timeout, prefetch_factor, persistent_workers):
    """The worker options' errors, in torch's order; the prefetch factor to use."""
    if num_workers < 0:
        raise ValueError("num_workers option should be non-negative; use num_workers=0 to "
                         "disable multiprocessing.")
    if timeout < 0:
        raise ValueError("timeout option should be non-negative")
    if num_workers == 0 and prefetch_factor is not None:
        raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                         "let num_workers > 0 to enable multiprocessing, otherwise set "
                         "prefetch_factor to None.")
    if num_workers > 0 and prefetch_factor is None:
        prefetch_factor = 2
    elif prefetch_factor is not None and prefetch_factor < 0:
        raise ValueError("prefetch_factor option should be non-negative")
    if persistent_workers and num_workers == 0:
        raise ValueError("persistent_workers option needs num_workers > 0")
    return prefetch_factor


def _check_iterable_options(shuffle, sampler, batch_sampler):
    if shuffle not in {False, None}:
        raise ValueError("DataLoader with IterableDataset: expected unspecified shuffle option, "
                         f"but got shuffle={shuffle}")
    if sampler is not None:
        raise ValueError("DataLoader with IterableDataset: expected unspecified sampler option, "
                         f"but got sampler={sampler}")
    if batch_sampler is not None:
        raise ValueError("DataLoader with IterableDataset: expected unspecified batch_sampler "
                         f"option, but got batch_sampler={batch_sampler}")


def _cpu_count():
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count()


class DataLoader(typing.Generic[_T_co]):
    """Batches of a dataset's samples, in the sampler's order, collated by collate_fn; loaded in
    this process (num_workers=0) or by num_workers worker processes, returned in order."""

    _DataLoader__initialized = False

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False, pin_memory_device="",
                 in_order=True):
        self.prefetch_factor = _check_counts(num_workers, timeout, prefetch_factor,
                                             persistent_workers)
        self.dataset, self.num_workers = dataset, num_workers
        self.pin_memory, self.pin_memory_device = pin_memory, pin_memory_device
        self.timeout, self.worker_init_fn = timeout, worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order
        self._iterable = isinstance(dataset, IterableDataset)
        self._dataset_kind = _DatasetKind.Iterable if self._iterable else _DatasetKind.Map
        if self._iterable:
            _check_iterable_options(shuffle, sampler, batch_sampler)
        else:
            shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")
        if sampler is None:
            sampler = (_InfiniteConstantSampler() if self._iterable else
                       RandomSampler(dataset, generator=generator) if shuffle else
                       SequentialSampler(dataset))
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size, self.drop_last = batch_size, drop_last
        self.sampler, self.batch_sampler, self.generator = sampler, batch_sampler, generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn, self.persistent_workers = collate_fn, persistent_workers
        self.__initialized = True
        self._IterableDataset_len_called = None
        self._iterator = None
        self.check_worker_number_rationality()

    @property
    def multiprocessing_context(self):
        return self.__multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, context):
        if context is not None and self.num_workers <= 0:
            raise ValueError("multiprocessing_context can only be used with multi-process "
                             f"loading (num_workers > 0), but got num_workers={self.num_workers}")
        if isinstance(context, str):
            methods = multiprocessing.get_all_start_methods()
            if context not in methods:
                raise ValueError("multiprocessing_context option should specify a valid start "
                                 f"method in {methods!r}, but got "
                                 f"multiprocessing_context={context!r}")
            context = multiprocessing.get_context(context)
        if context is not None and not isinstance(context, multiprocessing.context.BaseContext):
            raise TypeError("multiprocessing_context option should be a valid context object or "
                            "a string specifying the start method, but got "
                            f"multiprocessing_context={context}")
        self.__multiprocessing_context = context

    def __setattr__(self, attr, val):
        if self.__initialized and attr in ("batch_size", "batch_sampler", "sampler",
                                           "drop_last", "dataset", "persistent_workers"):
            raise ValueError(f"{attr} attribute should not be set after "
                             f"{self.__class__.__name__} is initialized")
        super().__setattr__(attr, val)

    def _get_iterator(self):
        if self.num_workers == 0:
            return _SingleProcessDataLoaderIter(self)
        self.check_worker_number_rationality()
        return _MultiProcessingDataLoaderIter(self)

    def __iter__(self):
        if not (self.persistent_workers and self.num_workers > 0):
            return self._get_iterator()
        if self._iterator is None:
            self._iterator = self._get_iterator()
        else:
            self._iterator._reset(self)
        return self._iterator

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __len__(self):
        if not self._iterable:
            return len(self._index_sampler)
        length = self._IterableDataset_len_called = len(self.dataset)
        if self.batch_size is not None:
            length = (length // self.batch_size if self.drop_last else
                      math.ceil(length / self.batch_size))
        return length

    def check_worker_number_rationality(self):
        if not self.num_workers:
            return
        suggest = _cpu_count()
        if suggest is None or self.num_workers > suggest:
            detail = ("DataLoader is not able to compute a suggested max number of worker in "
                      "current system." if suggest is None else
                      f"Our suggested max number of worker in current system is {suggest}"
                      + ("" if hasattr(os, "sched_getaffinity") else
                         " (`cpuset` is not taken into account)")
                      + ", which is smaller than what this DataLoader is going to create.")
            warnings.warn(f"This DataLoader will create {self.num_workers} worker processes in "
                          f"total. {detail} Please be aware that excessive worker creation might "
                          "get DataLoader running slow or even freeze, lower the worker number to "
                          "avoid potential slowness/freeze if necessary.", stacklevel=2)


class _BaseDataLoaderIter:
    def __init__(self, loader):
        self._dataset, self._iterable = loader.dataset, loader._iterable
        self._IterableDataset_len_called = loader._IterableDataset_len_called
        self._auto_collation, self._drop_last = loader._auto_collation, loader.drop_last
        self._index_sampler, self._num_workers = loader._index_sampler, loader.num_workers
        if loader.pin_memory and loader.pin_memory_device:
            warnings.warn("pin_memory_device is deprecated, the current accelerator will be used "
                          f"as the device,ignore pin_memory_device='{loader.pin_memory_device}'.",
                          stacklevel=3)
        if loader.pin_memory and not accelerator.is_available():
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, then "
                          "device pinned memory won't be used.", stacklevel=3)
        self._timeout, self._collate_fn = loader.timeout, loader.collate_fn
        self._sampler_iter = iter(self._index_sampler)
        self._base_seed = empty((), dtype=dtypes.int64).random_(generator=loader.generator).item()
        self._persistent_workers = loader.persistent_workers
        self._num_yielded = 0

    def __iter__(self):
        return self

    def _reset(self, loader, first_iter=False):
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._IterableDataset_len_called = loader._IterableDataset_len_called

    def _next_index(self):
        return next(self._sampler_iter)

    def _next_data(self):
        raise NotImplementedError

    def __next__(self):
        data = self._next_data()
        self._num_yielded += 1
        reported = self._IterableDataset_len_called
        if self._iterable and reported is not None and self._num_yielded > reported:
            msg = (f"Length of IterableDataset {self._dataset} was reported to be {reported}"
                   f"(when accessing len(dataloader)), but {self._num_yielded} samples have been "
                   "fetched. ")
            if self._num_workers > 0:
                msg += ("For multiprocessing data-loading, this could be caused by not properly "
                        "configuring the IterableDataset replica at each worker. Please see "
                        "https://pytorch.org/docs/stable/data.html#torch.utils.data.IterableDataset "
                        "for examples.")
            warnings.warn(msg, stacklevel=2)
        return data

    def __len__(self):
        return len(self._index_sampler)

    def __getstate__(self):
        raise NotImplementedError("{} cannot be pickled", self.__class__.__name__)


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    def __init__(self, loader):
        super().__init__(loader)
        self._dataset_fetcher = _utils.fetch.create_fetcher(
            self._iterable, self._dataset, self._auto_collation, self._collate_fn,
            self._drop_last)

    def _next_data(self):
        return self._dataset_fetcher.fetch(self._next_index())


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    """num_workers processes, each with its own index queue and one shared result queue.
    Up to prefetch_factor * num_workers tasks are out at once, dealt round-robin; results are
    held until their turn (in_order) and worker exceptions re-raised here."""

    def __init__(self, loader):
        super().__init__(loader)
        self._prefetch_factor, self._in_order = loader.prefetch_factor, loader.in_order
        if self._prefetch_factor <= 0:
            raise AssertionError("prefetch_factor must be greater than 0 for "
                                 "MultiProcessingDataLoaderIter")
        context = loader.multiprocessing_context or multiprocessing
        self._worker_result_queue = context.Queue()
        self._workers_done_event = context.Event()
        self._shutdown, self._index_queues, self._workers = False, [], []
        self._owner = os.getpid()   # a forked worker may hold (and collect) a copy of this
        for worker_id in range(self._num_workers):
            index_queue = context.Queue()
            index_queue.cancel_join_thread()
            worker = context.Process(target=_worker_loop, daemon=True, args=(
                self._iterable, self._dataset, index_queue, self._worker_result_queue,
                self._workers_done_event, self._auto_collation, self._collate_fn,
                self._drop_last, self._base_seed, loader.worker_init_fn, worker_id,
                self._num_workers))
            worker.start()
            self._index_queues.append(index_queue)
            self._workers.append(worker)
        self._reset(loader, first_iter=True)

    def _reset(self, loader, first_iter=False):
        super()._reset(loader, first_iter)
        self._send_idx = self._rcvd_idx = self._tasks_outstanding = 0
        self._task_info = {}        # task index -> (worker id,) or (worker id, data) if early
        self._workers_status = [True] * self._num_workers
        self._workers_num_tasks = [0] * self._num_workers
        self._worker_queue_idx_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:          # persistent workers: start them on a fresh epoch
            for index_queue in self._index_queues:
                index_queue.put(_ResumeIteration())
            resumed = 0
            while resumed < self._num_workers:
                resumed += isinstance(self._get_data()[0], _ResumeIteration)
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _try_get_data(self, timeout=MP_STATUS_CHECK_INTERVAL):
        try:
            return True, self._worker_result_queue.get(timeout=timeout)
        except Exception as e:
            failed = [w for i, w in enumerate(self._workers)
                      if self._workers_status[i] and not w.is_alive()]
            for i, w in enumerate(self._workers):
                if w in failed:
                    self._mark_worker_as_unavailable(i)
            if failed:
                pids = ", ".join(str(w.pid) for w in failed)
                raise RuntimeError(f"DataLoader worker (pid(s) {pids}) exited unexpectedly") from e
            if isinstance(e, queue.Empty):
                return False, None
            raise

    def _get_data(self):
        if self._timeout > 0:
            success, data = self._try_get_data(self._timeout)
            if not success:
                raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")
            return data
        while True:
            success, data = self._try_get_data()
            if success:
                return data

    def _skip_lost_tasks(self):
        """Advance _rcvd_idx past tasks of workers that have ended; False when none is left."""
        while self._rcvd_idx < self._send_idx:
            info = self._task_info.get(self._rcvd_idx)
            if info and (len(info) == 2 or self._workers_status[info[0]]):
                return True
            self._task_info.pop(self._rcvd_idx, None)
            self._rcvd_idx += 1
        return False

    def _next_data(self):
        while True:
            if not self._skip_lost_tasks():
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration
            if len(self._task_info[self._rcvd_idx]) == 2:      # it came early
                worker_id, data = self._task_info.pop(self._rcvd_idx)
                self._rcvd_idx += 1
                return self._process_data(data, worker_id)
            idx, data = self._get_data()
            self._tasks_outstanding -= 1
            if isinstance(data, _IterableDatasetStopIteration):
                if self._persistent_workers:
                    self._workers_status[data.worker_id] = False
                else:
                    self._mark_worker_as_unavailable(data.worker_id)
                self._try_put_index()
                continue
            if idx == self._rcvd_idx or not self._in_order:
                worker_id = self._task_info.pop(idx)[0]
                self._rcvd_idx += idx == self._rcvd_idx
                return self._process_data(data, worker_id)
            self._task_info[idx] += (data,)

    def _next_worker(self):
        """The next live worker round-robin (out of order: one with room), or None."""
        room = self._prefetch_factor * self._num_workers // max(sum(self._workers_status), 1)
        for _ in range(self._num_workers):
            worker_id = next(self._worker_queue_idx_cycle)
            if self._workers_status[worker_id] and (
                    self._in_order or self._workers_num_tasks[worker_id] < room):
                return worker_id
        return None

    def _try_put_index(self):
        try:
            index = self._next_index()
        except StopIteration:
            return
        worker_id = self._next_worker()
        if worker_id is None:
            return
        self._index_queues[worker_id].put((self._send_idx, index))
        self._task_info[self._send_idx] = (worker_id,)
        self._workers_num_tasks[worker_id] += 1
        self._tasks_outstanding += 1
        self._send_idx += 1

    def _process_data(self, data, worker_id):
        self._workers_num_tasks[worker_id] -= 1
        self._try_put_index()
        if isinstance(data, ExceptionWrapper):
            data.reraise()
        return data

    def _mark_worker_as_unavailable(self, worker_id):
        self._index_queues[worker_id].put(None)
        self._workers_status[worker_id] = False

    def _shutdown_workers(self):
        if _exiting[0] or self._shutdown or os.getpid() != self._owner:
            return
        self._shutdown = True
        try:
            self._workers_done_event.set()
            for worker_id in range(len(self._workers)):
                if self._persistent_workers or self._workers_status[worker_id]:
                    self._mark_worker_as_unavailable(worker_id)
            for w in self._workers:
                w.join(timeout=MP_STATUS_CHECK_INTERVAL)
            for q in self._index_queues:
                q.cancel_join_thread()
                q.close()
        finally:
            for w in self._workers:
                if w.is_alive():
                    w.terminate()
                    w.join(timeout=MP_STATUS_CHECK_INTERVAL)

    def __del__(self):
        if hasattr(self, "_workers"):
            self._shutdown_workers()
