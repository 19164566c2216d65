"""torch.utils.data._utils.worker: what runs inside a DataLoader worker process.

A worker seeds Python's `random`, glassgrad's default generator (base_seed + worker_id, so
torch.initial_seed() there is torch's) and NumPy's global RandomState (from torch's 128-bit mix of
base_seed and worker_id), sets get_worker_info(), runs worker_init_fn, then answers
(task index, indices) from its index queue with (task index, data) on the result queue.
An exception travels back as an ExceptionWrapper carrying its traceback text.
"""
import dataclasses
import os
import queue
import random
import sys
import traceback

from .... import _generator, _runtime
from ....backend import xp
from . import fetch

MP_STATUS_CHECK_INTERVAL = 5.0      # seconds between checks that the other side is alive
_MASK32 = 0xFFFFFFFF


@dataclasses.dataclass(frozen=True, slots=True)
class WorkerInfo:
    id: int
    num_workers: int
    seed: int
    dataset: object
    rng: object = None
    worker_method: str = "multiprocessing"


_worker_info = None


def get_worker_info():
    """This worker's WorkerInfo inside a DataLoader worker process; None in the main process."""
    return _worker_info


@dataclasses.dataclass(frozen=True)
class _IterableDatasetStopIteration:
    worker_id: int


@dataclasses.dataclass(frozen=True)
class _ResumeIteration:
    seed: object = None


class KeyErrorMessage(str):
    """A KeyError's text shown as written (KeyError reprs its argument)."""

    def __repr__(self):
        return self


class ExceptionWrapper:
    """An exception with its formatted traceback, raised again in another process."""

    def __init__(self, exc_info=None, where="in background"):
        exc_info = exc_info or sys.exc_info()
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = KeyErrorMessage(msg)
        elif getattr(self.exc_type, "message", None):
            raise self.exc_type(message=msg)
        try:
            exception = self.exc_type(msg)
        except Exception:
            raise RuntimeError(msg) from None
        raise exception


def _generate_state(base_seed, worker_id):
    """NumPy's seed for a worker: torch's SeedSequence-like hash of (worker_id, base_seed) to
    four 32-bit words."""
    mult_a = [0x43B0D7E5]           # the running multiplier of the first hash

    def hash_a(value):
        value = (value ^ mult_a[0]) & _MASK32
        mult_a[0] = (mult_a[0] * 0x931E8875) & _MASK32
        value = (value * mult_a[0]) & _MASK32
        return value ^ (value >> 16)

    def mix(x, y):
        value = ((0xCA01F9DD * x) - (0x4973F715 * y)) & _MASK32
        return value ^ (value >> 16)

    pool = [hash_a(v) for v in (worker_id, base_seed & _MASK32, base_seed >> 32, 0)]
    for src in range(4):
        for dst in range(4):
            if src != dst:
                pool[dst] = mix(pool[dst], hash_a(pool[src]))
    mult_b, state = 0x8B51F9DD, []
    for value in pool:
        value ^= mult_b
        mult_b = (mult_b * 0x58F38DED) & _MASK32
        value = (value * mult_b) & _MASK32
        state.append(value ^ (value >> 16))
    return state


def _seed_worker(base_seed, worker_id):
    seed = base_seed + worker_id
    random.seed(seed)
    _generator.manual_seed(seed)
    xp.random.seed(_generate_state(base_seed, worker_id))
    return seed


class _ManagerWatchdog:
    """Whether the process that started this worker still lives (this worker's parent)."""

    def __init__(self):
        self.manager_pid = os.getppid()

    def is_alive(self):
        return os.getppid() == self.manager_pid


def _start(iterable, dataset, auto_collation, collate_fn, drop_last, init_fn, worker_id):
    """(fetcher, None), or (None, the wrapped exception of worker_init_fn or the fetcher)."""
    try:
        if init_fn is not None:
            init_fn(worker_id)
        return fetch.create_fetcher(iterable, dataset, auto_collation, collate_fn, drop_last), None
    except Exception:
        return None, ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")


def _worker_loop(iterable, dataset, index_queue, data_queue, done_event, auto_collation,
                 collate_fn, drop_last, base_seed, init_fn, worker_id, num_workers):
    global _worker_info
    try:
        _runtime.set_num_threads(1)
        seed = _seed_worker(base_seed, worker_id)
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed,
                                  dataset=dataset)
        start = (iterable, dataset, auto_collation, collate_fn, drop_last, init_fn, worker_id)
        fetcher, failure = _start(*start)
        iteration_end = False
        watchdog = _ManagerWatchdog()
        while watchdog.is_alive():
            try:
                task = index_queue.get(timeout=MP_STATUS_CHECK_INTERVAL)
            except queue.Empty:
                continue
            if isinstance(task, _ResumeIteration):       # a persistent worker's next epoch
                data_queue.put((task, None))
                iteration_end = False
                fetcher = fetch.create_fetcher(iterable, dataset, auto_collation, collate_fn,
                                               drop_last)
                continue
            if task is None:
                break
            if done_event.is_set() or iteration_end:
                continue
            idx, index = task
            if failure is not None:
                data, failure = failure, None
            else:
                try:
                    data = fetcher.fetch(index)
                except StopIteration if iterable else ():
                    data, iteration_end = _IterableDatasetStopIteration(worker_id), True
                except Exception:
                    data = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
            data_queue.put((idx, data))
            del data, idx, index, task
    except KeyboardInterrupt:
        pass
    if done_event.is_set():
        data_queue.cancel_join_thread()
        data_queue.close()
