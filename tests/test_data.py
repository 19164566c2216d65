"""torch.utils.data (glassgrad/utils/data/) against torch: the same program runs under both
libraries and must give the same batches (orders for the same seed, collated types, dtypes,
shapes and values), the same default-generator state afterwards, the same worker facts (worker
info, seeds drawn inside workers) and the same errors and warnings."""
import collections
import os
import random
import re
import time
import warnings

import numpy as np
import pytest
import torch

import glassgrad as gg

LIBS = (torch, gg)
Point = collections.namedtuple("Point", "x y")


# ---------------------------------------------------------------- comparing the two libraries

def _plain(value):
    """value with tensors as (tag, dtype name, shape, values) so the two libraries compare."""
    if isinstance(value, (torch.Tensor, gg.Tensor)):
        return ("tensor", str(value.dtype), tuple(value.shape), value.tolist())
    if isinstance(value, np.ndarray):
        return ("ndarray", value.dtype.str, value.tolist())
    if isinstance(value, dict):
        return (type(value).__name__, {k: _plain(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [_plain(v) for v in value])
    return (type(value).__name__, value)


def _outcome(f, lib):
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = _plain(f(lib))
        return "value", value, [(w.category, str(w.message)) for w in caught]
    except Exception as e:  # noqa: BLE001 - whatever torch raises, glassgrad must too
        return "error", (type(e), str(e)), []


def same(f, seed=0):
    """f(lib) after manual_seed(seed) in each library: equal results (or errors), warnings and
    default-generator states. Returns torch's outcome."""
    results = []
    for lib in LIBS:
        lib.manual_seed(seed)
        results.append(_outcome(f, lib) + (lib.get_rng_state().tolist(),))
    assert results[1][:3] == results[0][:3]
    assert results[1][3] == results[0][3], "default generator state differs"
    return results[0]


def raises_same(f):
    kind = same(f)
    assert kind[0] == "error", "torch accepted this case"


# ---------------------------------------------------------------- datasets

class Squares:
    """A map-style dataset that is not a Dataset subclass (DataLoader accepts any)."""

    def __init__(self, n=10):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return i * i


def _ds(lib):
    return lib.utils.data


def test_tensor_dataset():
    def f(lib):
        ds = _ds(lib).TensorDataset(lib.arange(12.).reshape(6, 2), lib.arange(6))
        return len(ds), ds[2], ds[-1], ds[1:3]
    same(f)
    raises_same(lambda lib: _ds(lib).TensorDataset(lib.zeros(3), lib.zeros(4)))


def test_stack_dataset():
    def f(lib):
        d = _ds(lib)
        a, b = d.TensorDataset(lib.arange(4)), Squares(4)
        t, k = d.StackDataset(a, b), d.StackDataset(x=a, y=b)
        return len(t), t[1], k[2], t.__getitems__([0, 3]), k.__getitems__([3, 1])
    same(f)
    for bad in (lambda d: d.StackDataset(), lambda d: d.StackDataset(Squares(2), x=Squares(2)),
                lambda d: d.StackDataset(Squares(2), Squares(3)),
                lambda d: d.StackDataset(x=Squares(2), y=Squares(3))):
        raises_same(lambda lib: bad(_ds(lib)))


def test_concat_chain_subset():
    def f(lib):
        d = _ds(lib)
        cat = d.ConcatDataset([Squares(3), Squares(4), Squares(2)])
        plus = d.TensorDataset(lib.arange(2)) + d.TensorDataset(lib.arange(5, 8))
        sub = d.Subset(Squares(10), [7, 2, 5])
        return (len(cat), [cat[i] for i in range(-9, 9)], cat.cumulative_sizes, len(plus),
                [plus[i] for i in range(5)], len(sub), sub[1],
                sub.__getitems__([2, 0]), type(plus).__name__)
    same(f)
    raises_same(lambda lib: _ds(lib).ConcatDataset([]))
    raises_same(lambda lib: _ds(lib).ConcatDataset([Squares(2)])[-3])
    raises_same(lambda lib: _ds(lib).ConcatDataset([_range(lib, 3)]))
    raises_same(lambda lib: list(_ds(lib).ChainDataset([Squares(2)])))
    raises_same(lambda lib: len(_ds(lib).ChainDataset([_range(lib, 2), Squares(2)])))
    same(lambda lib: (list(_ds(lib).ChainDataset([_range(lib, 3), _range(lib, 2)])),
                      len(_ds(lib).ChainDataset([_range(lib, 3), _range(lib, 2)])),
                      type(_range(lib, 2) + _range(lib, 1)).__name__,
                      list(_range(lib, 2) + _range(lib, 1))))


def test_base_classes():
    raises_same(lambda lib: _ds(lib).IterableDataset())
    raises_same(lambda lib: _ds(lib).Dataset()[0])
    raises_same(lambda lib: len(_ds(lib).Dataset()))
    raises_same(lambda lib: iter(_ds(lib).Sampler()))
    raises_same(lambda lib: _ds(lib).Sampler(Squares()))

    def f(lib):
        d = _ds(lib)

        class Mine(d.Dataset[int]):
            def __getitem__(self, i):
                return i

        return (d._DatasetKind.Map, d._DatasetKind.Iterable, d.Dataset[int].__name__,
                d.Sampler[int].__name__, d.DataLoader[int].__name__, Mine()[3],
                [c.__name__ for c in d.TensorDataset.__mro__])
    same(f)


def test_subset_override_needs_getitems():
    def f(lib):
        class Mine(_ds(lib).Subset):
            def __getitem__(self, i):
                return 0
        return Mine(Squares(3), [0])
    raises_same(f)


def _range(lib, n):
    class Range(_ds(lib).IterableDataset):
        def __iter__(self):
            return iter(range(n))

        def __len__(self):
            return n
    return Range()


@pytest.mark.parametrize("lengths", [[3, 7], [5, 0, 5], [0.3, 0.7], [0.25, 0.25, 0.5],
                                     [0.33, 0.33, 0.34], [1 / 3] * 3, [0.05, 0.95], [4, 5],
                                     [0.5, 0.6], [-0.1, 1.1]])
@pytest.mark.parametrize("seeded", [False, True])
def test_random_split(lengths, seeded):
    def f(lib):
        gen = lib.Generator().manual_seed(7) if seeded else lib.default_generator
        parts = _ds(lib).random_split(Squares(10), lengths, generator=gen)
        return [(len(p), p.indices, [p[i] for i in range(len(p))]) for p in parts]
    same(f, seed=3)


# ---------------------------------------------------------------- samplers

@pytest.mark.parametrize("seed", [0, 1, 2 ** 40 + 3])
@pytest.mark.parametrize("kw", [{}, {"num_samples": 4}, {"num_samples": 23},
                                {"replacement": True}, {"replacement": True, "num_samples": 70},
                                {"replacement": True, "num_samples": 32}])
@pytest.mark.parametrize("seeded", [False, True])
def test_random_sampler(seed, kw, seeded):
    def f(lib):
        gen = lib.Generator().manual_seed(seed + 1) if seeded else None
        s = _ds(lib).RandomSampler(Squares(10), generator=gen, **kw)
        return len(s), list(s), list(s)
    same(f, seed)


def test_sampler_errors():
    d = _ds
    for bad in (lambda lib: d(lib).RandomSampler(Squares(3), replacement=1),
                lambda lib: d(lib).RandomSampler(Squares(3), num_samples=0),
                lambda lib: d(lib).RandomSampler(Squares(0)),
                lambda lib: d(lib).RandomSampler(Squares(3), num_samples=2.0),
                lambda lib: d(lib).WeightedRandomSampler([1, 2], 0),
                lambda lib: d(lib).WeightedRandomSampler([1, 2], True),
                lambda lib: d(lib).WeightedRandomSampler([1, 2], 2, replacement=None),
                lambda lib: d(lib).WeightedRandomSampler([[1, 2]], 2),
                lambda lib: list(d(lib).WeightedRandomSampler([1, 2], 3, replacement=False)),
                lambda lib: d(lib).BatchSampler(range(3), 0, False),
                lambda lib: d(lib).BatchSampler(range(3), True, False),
                lambda lib: d(lib).BatchSampler(range(3), 2, 0),
                lambda lib: d(lib).DistributedSampler(Squares(3), num_replicas=2, rank=2),
                lambda lib: d(lib).DistributedSampler(Squares(3), num_replicas=2, rank=-1)):
        raises_same(bad)


def test_subset_weighted_batch_samplers():
    def f(lib):
        d, gen = _ds(lib), lib.Generator().manual_seed(5)
        w = [0.1, 2.0, 0.0, 1.5, 3.0]
        return (list(d.SubsetRandomSampler([10, 20, 30, 40])),
                list(d.SubsetRandomSampler(range(5, 9), generator=gen)),
                list(d.WeightedRandomSampler(w, 12)),
                list(d.WeightedRandomSampler(lib.tensor(w), 4, replacement=False, generator=gen)),
                len(d.WeightedRandomSampler(w, 7)),
                [list(d.BatchSampler(range(10), 3, dl)) for dl in (False, True)],
                [len(d.BatchSampler(range(10), 3, dl)) for dl in (False, True)],
                list(d.BatchSampler(d.SequentialSampler(Squares(4)), 2, True)))
    same(f, seed=11)


@pytest.mark.parametrize("n,replicas", [(10, 3), (10, 2), (2, 5), (7, 7), (11, 4)])
@pytest.mark.parametrize("shuffle", [True, False])
@pytest.mark.parametrize("drop_last", [False, True])
def test_distributed_sampler(n, replicas, shuffle, drop_last):
    def f(lib):
        out = []
        for rank in range(replicas):
            s = _ds(lib).DistributedSampler(Squares(n), num_replicas=replicas, rank=rank,
                                            shuffle=shuffle, seed=3, drop_last=drop_last)
            out.append((len(s), s.total_size, list(s)))
            s.set_epoch(4)
            out.append(list(s))
        return out
    same(f)


# ---------------------------------------------------------------- collation

def _collate_cases(lib):
    a = np.arange(6, dtype=np.int16).reshape(2, 3)
    return {
        "tensors": [lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0])],
        "int_tensors": [lib.tensor(1), lib.tensor(2)],
        "ndarrays": [a, a + 1],
        "float32_arrays": [np.ones(2, np.float32), np.zeros(2, np.float32)],
        "numpy_scalars": [np.float32(1.5), np.float32(2)],
        "mixed_numpy_scalars": [np.int32(1), np.float32(2.5), np.int64(3)],
        "numpy_float64_scalars": [np.float64(1), np.float64(2)],
        "numpy_bool_scalars": [np.bool_(True), np.bool_(False)],
        "floats": [1.5, 2.0],
        "ints": [1, 2, 3],
        "bools": [True, False],
        "strings": ["a", "bc"],
        "bytes": [b"a", b"b"],
        "dicts": [{"x": 1, "y": lib.tensor([1.0])}, {"x": 2, "y": lib.tensor([2.0])}],
        "ordered": [collections.OrderedDict(b=1.0, a=2), collections.OrderedDict(b=3.0, a=4)],
        "tuples": [(1, "a", 2.5), (2, "b", 3.5)],
        "namedtuples": [Point(1, lib.tensor(2.0)), Point(3, lib.tensor(4.0))],
        "lists": [[1, 2], [3, 4]],
        "nested": [{"p": [Point(1, 2.0), (np.int64(3),)]}, {"p": [Point(4, 5.0), (np.int64(6),)]}],
        "ranges": [range(2), range(2)],
        "unequal_lists": [[1, 2], [3]],
        "unequal_tensors": [lib.zeros(2), lib.zeros(3)],
        "objects": [object, object],
        "none": [None, None],
        "string_arrays": [np.array(["a"]), np.array(["b"])],
        "object_arrays": [np.array([1], dtype=object), np.array([2], dtype=object)],
        "numpy_str_scalar": [np.str_("a"), np.str_("b")],
    }


@pytest.mark.parametrize("case", list(_collate_cases(torch)))
def test_default_collate(case):
    same(lambda lib: _ds(lib).default_collate(_collate_cases(lib)[case]))


@pytest.mark.parametrize("case", list(_collate_cases(torch)))
def test_default_convert(case):
    same(lambda lib: _ds(lib).default_convert(_collate_cases(lib)[case]))


def test_collate_module_paths():
    from glassgrad.utils.data._utils.collate import collate, default_collate_fn_map
    from torch.utils.data._utils.collate import collate as t_collate
    from torch.utils.data._utils.collate import default_collate_fn_map as t_map

    def f(lib):
        c, fmap = (t_collate, t_map) if lib is torch else (collate, default_collate_fn_map)
        fmap = {**fmap, Point: lambda batch, *, collate_fn_map: "points"}
        return c([[Point(1, 2), 1.0], [Point(3, 4), 2.0]], collate_fn_map=fmap)
    same(f)


# ---------------------------------------------------------------- DataLoader, one process

def _batches(loader):
    return [b for b in loader]


@pytest.mark.parametrize("kw", [{}, {"batch_size": 3}, {"batch_size": 3, "drop_last": True},
                                {"batch_size": 4, "shuffle": True}, {"shuffle": True},
                                {"batch_size": None}, {"batch_size": None, "shuffle": True},
                                {"batch_size": 20, "shuffle": True}])
def test_loader_orders(kw):
    same(lambda lib: (len(lib.utils.data.DataLoader(Squares(), **kw)),
                      _batches(lib.utils.data.DataLoader(Squares(), **kw)),
                      _batches(lib.utils.data.DataLoader(Squares(), **kw))), seed=4)


def test_loader_samplers_and_generator():
    def f(lib):
        d = _ds(lib)
        gen = lib.Generator().manual_seed(9)
        ds = d.TensorDataset(lib.arange(10.).reshape(5, 2), lib.arange(5))
        sampler = d.RandomSampler(ds, replacement=True, num_samples=7)
        batches = d.BatchSampler(d.SequentialSampler(ds), 2, False)
        return (_batches(d.DataLoader(ds, batch_size=2, shuffle=True, generator=gen)),
                _batches(d.DataLoader(ds, batch_size=3, sampler=sampler)),
                _batches(d.DataLoader(ds, batch_sampler=batches)),
                len(d.DataLoader(ds, batch_sampler=batches)),
                _batches(d.DataLoader(ds, batch_size=2, collate_fn=lambda b: len(b))),
                _batches(d.DataLoader(ds, batch_size=2, pin_memory=False)))
    same(f, seed=2)


def test_loader_iterable_dataset():
    def f(lib):
        d = _ds(lib)
        return (_batches(d.DataLoader(_range(lib, 7), batch_size=3)),
                _batches(d.DataLoader(_range(lib, 7), batch_size=3, drop_last=True)),
                _batches(d.DataLoader(_range(lib, 3), batch_size=None)),
                len(d.DataLoader(_range(lib, 7), batch_size=3)),
                len(d.DataLoader(_range(lib, 7), batch_size=3, drop_last=True)))
    same(f)


def test_loader_iterable_length_warning():
    def f(lib):
        class Liar(_ds(lib).IterableDataset):
            def __iter__(self):
                return iter(range(4))

            def __len__(self):
                return 2

            def __repr__(self):
                return "Liar"
        loader = _ds(lib).DataLoader(Liar(), batch_size=None)
        return len(loader), _batches(loader)
    same(f)


def test_pin_memory_warning():
    same(lambda lib: _batches(_ds(lib).DataLoader(Squares(3), pin_memory=True)))
    same(lambda lib: _batches(_ds(lib).DataLoader(Squares(3), pin_memory=True,
                                                  pin_memory_device="cpu")))


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # torch's __del__
def test_loader_errors():
    d = _ds
    for bad in (
            lambda lib: d(lib).DataLoader(Squares(), num_workers=-1),
            lambda lib: d(lib).DataLoader(Squares(), timeout=-1),
            lambda lib: d(lib).DataLoader(Squares(), prefetch_factor=2),
            lambda lib: d(lib).DataLoader(Squares(), num_workers=1, prefetch_factor=-1),
            lambda lib: d(lib).DataLoader(Squares(), persistent_workers=True),
            lambda lib: d(lib).DataLoader(Squares(), sampler=range(3), shuffle=True),
            lambda lib: d(lib).DataLoader(Squares(), batch_sampler=[[0]], batch_size=2),
            lambda lib: d(lib).DataLoader(Squares(), batch_sampler=[[0]], shuffle=True),
            lambda lib: d(lib).DataLoader(Squares(), batch_sampler=[[0]], drop_last=True),
            lambda lib: d(lib).DataLoader(Squares(), batch_sampler=[[0]], sampler=[0]),
            lambda lib: d(lib).DataLoader(Squares(), batch_size=None, drop_last=True),
            lambda lib: d(lib).DataLoader(Squares(), batch_size=0),
            lambda lib: d(lib).DataLoader(_range(lib, 3), shuffle=True),
            lambda lib: d(lib).DataLoader(_range(lib, 3), sampler=[0]),
            lambda lib: d(lib).DataLoader(_range(lib, 3), batch_sampler=[[0]]),
            lambda lib: d(lib).DataLoader(Squares(), multiprocessing_context="spawn"),
            lambda lib: d(lib).DataLoader(Squares(), num_workers=1,
                                          multiprocessing_context="nope"),
            lambda lib: d(lib).DataLoader(Squares(), num_workers=1, multiprocessing_context=3),
            lambda lib: setattr(d(lib).DataLoader(Squares()), "batch_size", 3),
            lambda lib: _batches(d(lib).DataLoader(Squares(), num_workers=1, prefetch_factor=0)),
            lambda lib: _batches(d(lib).DataLoader([[1], [1, 2]], batch_size=2)),
            lambda lib: _batches(d(lib).DataLoader([object()] * 2, batch_size=2))):
        raises_same(bad)


def test_worker_count_warning():
    import os
    many = len(os.sched_getaffinity(0)) + 1
    same(lambda lib: len(_ds(lib).DataLoader(Squares(), num_workers=many)))


def test_iterator_not_picklable():
    import pickle
    raises_same(lambda lib: pickle.dumps(iter(_ds(lib).DataLoader(Squares()))))


# ---------------------------------------------------------------- worker processes

class Facts:
    """Each sample says where and with which random state it was made."""

    def __init__(self, lib, n=6):
        self.lib, self.n = lib, n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        info = self.lib.utils.data.get_worker_info()
        return {"i": i, "worker": info.id, "workers": info.num_workers, "seed": info.seed,
                "initial_seed": self.lib.initial_seed(), "rand": self.lib.rand(2),
                "np": float(np.random.rand()), "py": random.random(),
                "same_dataset": info.dataset is self, "threads": self.lib.get_num_threads()}


def _init_fn(lib, seen):
    def init(worker_id):
        info = lib.utils.data.get_worker_info()
        assert info.id == worker_id and info.num_workers == 2
        lib.manual_seed(lib.initial_seed() + 100)     # visible in the samples
    return init


@pytest.mark.parametrize("kw", [{"batch_size": 2, "shuffle": True},
                                {"batch_size": None},
                                {"batch_size": 1, "prefetch_factor": 1},
                                {"batch_size": 2, "in_order": False, "shuffle": True}])
def test_workers_facts_and_order(kw):
    def f(lib):
        loader = _ds(lib).DataLoader(Facts(lib), num_workers=2, **kw)
        out = _batches(loader)
        if not kw.get("in_order", True):       # out of order: compare as a set of batches
            out = sorted(out, key=lambda b: str(b["i"]))
        return out, lib.utils.data.get_worker_info()
    same(f, seed=6)


def test_workers_init_fn_and_generator():
    def f(lib):
        gen = lib.Generator().manual_seed(21)
        loader = _ds(lib).DataLoader(Facts(lib, 4), batch_size=2, num_workers=2, shuffle=True,
                                     worker_init_fn=_init_fn(lib, None), generator=gen)
        return _batches(loader), gen.get_state().tolist()
    same(f, seed=1)


def test_persistent_workers():
    def f(lib):
        loader = _ds(lib).DataLoader(Facts(lib, 5), batch_size=2, num_workers=2, shuffle=True,
                                     persistent_workers=True)
        return _batches(loader), _batches(loader), len(loader)
    same(f, seed=8)


def _sharded(lib):
    class Sharded(_ds(lib).IterableDataset):
        def __iter__(self):
            info = _ds(lib).get_worker_info()
            start, step = (0, 1) if info is None else (info.id, info.num_workers)
            return iter(range(start, 7, step))
    return Sharded()


def test_iterable_dataset_sharding():
    same(lambda lib: (_batches(_ds(lib).DataLoader(_sharded(lib), batch_size=2, num_workers=2)),
                      _batches(_ds(lib).DataLoader(_sharded(lib), batch_size=None,
                                                   num_workers=2)),
                      _batches(_ds(lib).DataLoader(_sharded(lib), batch_size=3, num_workers=2,
                                                   drop_last=True))))


class Failing:
    def __init__(self, error):
        self.error = error

    def __len__(self):
        return 4

    def __getitem__(self, i):
        if i == 2:
            raise self.error
        return i


def _worker_error(error, **kw):
    """(type, the first line, the traceback's last line) of iterating a failing loader."""
    def f(lib):
        try:
            _batches(_ds(lib).DataLoader(Failing(error), num_workers=2, **kw))
        except Exception as e:  # noqa: BLE001
            text = str(e).splitlines()
            return type(e).__name__, text[0], text[1], text[-1]
    return f


@pytest.mark.parametrize("error", [ValueError("boom"), KeyError("k"), IndexError(3),
                                   TypeError("bad", "two")])
def test_worker_exception(error):
    same(_worker_error(error))


def test_worker_init_fn_exception():
    def init(worker_id):
        raise RuntimeError(f"init failed in {worker_id}")

    def f(lib):
        try:
            _batches(_ds(lib).DataLoader(Squares(4), num_workers=2, worker_init_fn=init))
        except Exception as e:  # noqa: BLE001
            text = str(e).splitlines()
            return type(e).__name__, text[0], text[-1]
    same(f)


class Slow:
    def __len__(self):
        return 2

    def __getitem__(self, i):
        time.sleep(1.0)
        return i


def test_worker_timeout():
    raises_same(lambda lib: _batches(_ds(lib).DataLoader(Slow(), num_workers=1, timeout=0.1)))


class Dying:
    def __len__(self):
        return 2

    def __getitem__(self, i):
        if i == 0:
            os._exit(3)
        return i


def test_worker_exits_unexpectedly():
    def f(lib):
        try:
            _batches(_ds(lib).DataLoader(Dying(), num_workers=2, timeout=1))
        except RuntimeError as e:
            return re.sub(r"\(pid\(s\) \d+\)", "(pid(s) N)", str(e))
    assert same(f)[1] == ("str", "DataLoader worker (pid(s) N) exited unexpectedly")


def test_worker_generate_state_matches_torch():
    from glassgrad.utils.data._utils.worker import _generate_state
    from torch.utils.data._utils.worker import _generate_state as t_generate_state
    for base in (0, 1, 2 ** 32 - 1, 2 ** 32, 2 ** 63 - 1, 123456789012345):
        for worker_id in (0, 1, 7):
            assert _generate_state(base, worker_id) == t_generate_state(base, worker_id)


def test_docs_example():
    """docs/data.md's example: the same split and batches under both libraries."""
    def f(lib):
        d = _ds(lib)
        data = d.TensorDataset(lib.randn(100, 3), lib.randint(0, 2, (100,)))
        train, test = d.random_split(data, [0.8, 0.2])
        return train.indices, test.indices, _batches(d.DataLoader(train, batch_size=16,
                                                                  shuffle=True, num_workers=2))
    same(f, seed=0)
