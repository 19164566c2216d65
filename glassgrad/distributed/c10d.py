"""torch.distributed's process groups and collectives on MPI (mpi4py).

A ProcessGroup is an MPI communicator and the global ranks it holds. Tensors travel as their
arrays' buffers (a reduction in the array's own MPI type; everything else as bytes), never
pickled; the object collectives pickle to a byte tensor and move that, as torch does. Every
collective is MPI's non-blocking call and a Work that waits for it; a wait gives up after the
group's timeout with a RuntimeError, so a rank that died or called another collective makes
the others fail rather than hang. An uncaught exception on one rank aborts the whole job
(MPI_Abort), so mpirun ends the others at once.
"""
import datetime
import enum
import importlib.util
import io
import os
import pickle
import sys
import time
import traceback
import warnings

from .._creation import tensor as _tensor, zeros, zeros_like
from .._tensor import Tensor
from ..backend import xp
from ..dtypes import SCALAR_NAMES, int64, uint8
from ..ops.shape import cat

_NOT_INIT = ("Default process group has not been initialized, please make sure to call "
             "init_process_group.")
default_pg_timeout = datetime.timedelta(minutes=30)   # torch's default for CPU backends
_DEFAULT_FIRST_BUCKET_BYTES = 1024 * 1024


def _mpi():
    """mpi4py's MPI (importing it starts MPI; so glassgrad imports it only on first use)."""
    try:
        from mpi4py import MPI
    except ImportError:
        raise RuntimeError("Distributed package doesn't have MPI built in: glassgrad's "
                           "torch.distributed runs on mpi4py and OpenMPI (pip install "
                           "'glassgrad[distributed]' once OpenMPI is installed; `make mpi`)"
                           ) from None
    return MPI


def is_available():
    """Whether mpi4py, the distributed package's engine, is installed (MPI starts only when
    init_process_group runs)."""
    return importlib.util.find_spec("mpi4py") is not None


def is_mpi_available():
    return is_available()


def is_gloo_available():
    return is_available()      # 'gloo' is served by MPI on CPU


def is_nccl_available():
    return False


def is_torchelastic_launched():
    return os.getenv("TORCHELASTIC_RUN_ID") is not None


class ReduceOp:
    """The reductions: ReduceOp.SUM ... (each a ReduceOp.RedOpType, as torch's)."""

    class RedOpType(enum.Enum):
        SUM = 0
        AVG = 1
        PRODUCT = 2
        MIN = 3
        MAX = 4
        BAND = 5
        BOR = 6
        BXOR = 7
        PREMUL_SUM = 8
        UNUSED = 9


for _op in ReduceOp.RedOpType:
    setattr(ReduceOp, _op.name, _op)


class Backend(str):
    """A backend's name: Backend('GLOO') is 'gloo' (a str, as torch's); Backend.MPI, ..."""
    UNDEFINED, GLOO, NCCL, UCC, MPI = "undefined", "gloo", "nccl", "ucc", "mpi"

    def __new__(cls, name):
        if not isinstance(name, str):
            raise ValueError(f"Backend constructor parameter must be string-ish, but got: "
                             f"{type(name)}")
        value = getattr(Backend, name.upper(), Backend.UNDEFINED)
        return name.lower() if value == Backend.UNDEFINED else value


_SERVED = ("mpi", "gloo")       # the backends glassgrad serves (both by MPI)


class ProcessGroup:
    """A group of ranks: an MPI communicator, its members' global ranks, its timeout."""

    def __init__(self, comm, ranks, backend, timeout):
        self.comm, self.ranks, self.backend, self.timeout = comm, list(ranks), backend, timeout
        self.seq = 0        # collectives run so far (the debug check's sequence number)

    def rank(self):
        return self.comm.Get_rank()

    def size(self):
        return len(self.ranks)

    def name(self):
        return "ProcessGroupGloo" if self.backend == "gloo" else "ProcessGroupMPI"

    def _get_backend_name(self):
        return self.backend

    def group_rank(self, global_rank):
        """The rank in this group of a global rank (torch's ranks are global)."""
        try:
            return self.ranks.index(global_rank)
        except ValueError:
            raise ValueError(f"Global rank {global_rank} is not part of group {self}") from None

    def __repr__(self):
        return f"<glassgrad.distributed.ProcessGroup {self.backend} ranks={self.ranks}>"


class GroupMember:
    """WORLD: the default group (None before init_process_group); NON_GROUP_MEMBER: what
    new_group returns to a rank outside the new group."""
    NON_GROUP_MEMBER = object()

    class _World:
        def __get__(self, obj, cls):
            return _state.world

    WORLD = _World()


group = GroupMember


class _State:
    world = None
    excepthook = None


_state = _State()


class Work:
    """The handle of a collective: wait() (True; RuntimeError after the group's timeout),
    is_completed(), result() (the output tensors)."""

    def __init__(self, requests, pg, what, finish=None, outputs=()):
        self._requests, self._pg, self._what = list(requests), pg, what
        self._finish, self._outputs, self._done = finish, list(outputs), False
        self._statuses = None

    def is_completed(self):
        if not self._done and _mpi().Request.Testall(self._requests, self._statuses):
            self._complete()
        return self._done

    def wait(self, timeout=None):
        if self._done:
            return True
        limit = self._pg.timeout if timeout is None else timeout
        limit = limit.total_seconds() if isinstance(limit, datetime.timedelta) else limit
        deadline, pause = time.monotonic() + limit, 0.0
        Testall = _mpi().Request.Testall
        while not Testall(self._requests, self._statuses):
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"{self._pg.name()}::{self._what}: timed out after {limit:g} s waiting for "
                    f"the other ranks of the group (rank {get_rank()} of "
                    f"{self._pg.size()}): a rank may have died, raised, or called a different "
                    "collective")
            time.sleep(pause)
            pause = min(pause + 2e-5, 1e-3)
        self._complete()
        return True

    def _complete(self):
        self._done = True
        if self._finish is not None:
            self._finish()

    def result(self):
        return self._outputs

    def exception(self):
        return None


# -- setup -------------------------------------------------------------------------------------

def _env_rendezvous():
    """RANK and WORLD_SIZE from the environment (torch's env:// rendezvous), checked against
    the ranks MPI started."""
    for name in ("RANK", "WORLD_SIZE"):
        if name not in os.environ:
            raise ValueError("Error initializing torch.distributed using env:// rendezvous: "
                             f"environment variable {name} expected, but not set")
    return int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1,
                       store=None, group_name="", pg_options=None, device_id=None):
    """Join the default group: every process MPI started (mpirun, or the launcher
    glassgrad.distributed.run). Under mpirun the ranks are MPI's; RANK/WORLD_SIZE (env://) or
    rank=/world_size=, where given, must agree with them."""
    if _state.world is not None:
        raise ValueError("trying to initialize the default process group twice!")
    if store is None and init_method in (None, "env://") and (rank == -1 or world_size == -1):
        env_rank, env_size = _env_rendezvous() if not _under_mpirun() else (-1, -1)
        rank, world_size = (env_rank if rank == -1 else rank,
                            env_size if world_size == -1 else world_size)
    backend = Backend(backend or "gloo")
    if backend.split(":")[0] not in _SERVED:
        if backend in (Backend.NCCL, Backend.UCC):
            raise RuntimeError(f"Distributed package doesn't have {backend.upper()} built in")
        raise AssertionError(f"Unknown backend type {backend}")
    MPI = _mpi()
    comm = MPI.COMM_WORLD.Dup()
    if world_size not in (-1, comm.Get_size()) or rank not in (-1, comm.Get_rank()):
        comm.Free()
        raise RuntimeError(
            f"glassgrad.distributed runs on MPI: this process is rank {MPI.COMM_WORLD.Get_rank()}"
            f" of {MPI.COMM_WORLD.Get_size()} that MPI started, but rank {rank} of world size "
            f"{world_size} was asked for; start the processes with `mpirun -n N python ...` or "
            "`python -m glassgrad.distributed.run --nproc-per-node N ...`")
    _state.world = ProcessGroup(comm, range(comm.Get_size()), backend,
                                default_pg_timeout if timeout is None else timeout)
    if _state.excepthook is None:
        _state.excepthook = sys.excepthook
        sys.excepthook = _abort_on_exception


def _under_mpirun():
    return any(k in os.environ for k in ("OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"))


def _abort_on_exception(kind, value, tb):
    """An uncaught exception on a rank in a group: print it, then end every rank (the others
    would wait for this one until their timeout)."""
    (_state.excepthook or sys.__excepthook__)(kind, value, tb)
    if _state.world is not None and _state.world.size() > 1:
        if sys.stderr is not sys.__stderr__:    # a hook around this one captures stderr
            traceback.print_exception(kind, value, tb, file=sys.__stderr__)
    abort_job()


def abort_job(code=1):
    """End every rank of the job at once (MPI_Abort) when this process is in a group of
    several: a rank that failed, whose traceback is printed (`glassgrad run` calls it too)."""
    if _state.world is not None and _state.world.size() > 1:
        sys.stdout.flush()
        sys.stderr.flush()
        time.sleep(0.5)     # mpirun forwards the traceback before it ends the job
        _mpi().COMM_WORLD.Abort(code)


def destroy_process_group(group=None):
    pg = _state.world if group is None or group is GroupMember.WORLD else group
    if pg is None:
        raise AssertionError("Process group cannot be None")
    if pg is GroupMember.NON_GROUP_MEMBER:
        return
    pg.comm.Free()
    if pg is _state.world:
        _state.world = None
        sys.excepthook, _state.excepthook = _state.excepthook, None


def is_initialized():
    return _state.world is not None


def is_backend_available(backend):
    return Backend(backend) in _SERVED and is_available()


def _group(group):
    if _state.world is None:
        raise ValueError(_NOT_INIT)
    return _state.world if group is None else group


def _outside(group, what):
    """Whether this rank is outside ``group`` (then the collective is skipped, as torch's)."""
    if group is GroupMember.NON_GROUP_MEMBER:
        warnings.warn(f"Running {what} on global rank {get_rank()} which does not belong to "
                      "the given group.")
        return True
    return False


def get_rank(group=None):
    pg = _group(group)
    if pg is GroupMember.NON_GROUP_MEMBER:
        return -1
    return pg.ranks[pg.rank()] if group is None else pg.rank()


def get_world_size(group=None):
    pg = _group(group)
    return -1 if pg is GroupMember.NON_GROUP_MEMBER else pg.size()


def get_backend(group=None):
    pg = _group(group)
    if pg is GroupMember.NON_GROUP_MEMBER:
        raise ValueError("Invalid process group specified")
    return str(pg.backend)


def get_global_rank(group, group_rank):
    return group.ranks[group_rank]


def get_process_group_ranks(group):
    return list(_group(group).ranks)


def new_group(ranks=None, timeout=None, backend=None, pg_options=None,
              use_local_synchronization=False, group_desc=None, device_id=None):
    """A group of ``ranks`` (every rank of the world must call it, as torch's); a rank outside
    it gets GroupMember.NON_GROUP_MEMBER."""
    world = _group(None)
    ranks = sorted(world.ranks if ranks is None else ranks)
    if len(ranks) > world.size():
        raise ValueError("the new group's world size should be less or equal to the world size "
                         "set by init_process_group")
    for r in ranks:
        if r < 0 or r >= world.size():
            raise ValueError("The new group's rank should be within the world_size set by "
                             "init_process_group")
    me = world.rank()
    MPI = _mpi()
    comm = world.comm.Split(0 if me in ranks else MPI.UNDEFINED, ranks.index(me) if me in ranks
                            else 0)
    if comm == MPI.COMM_NULL:
        return GroupMember.NON_GROUP_MEMBER
    return ProcessGroup(comm, ranks, Backend(backend) if backend else world.backend,
                        world.timeout if timeout is None else timeout)


def barrier(group=None, async_op=False, device_ids=None):
    pg = _group(group)
    if _outside(pg, "barrier"):
        return None
    return _run(pg, "barrier", [pg.comm.Ibarrier()], async_op)


def monitored_barrier(group=None, timeout=None, wait_all_ranks=False):
    pg = _group(group)
    Work([pg.comm.Ibarrier()], pg, "monitoredBarrier").wait(timeout)


# -- buffers -----------------------------------------------------------------------------------

def _check_tensor(t, name="tensor"):
    if not isinstance(t, Tensor):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type "
                        f"torch.Tensor\n             but got {type(t)} instead.")


def _check_list(ts, name):
    if not isinstance(ts, list) or not all(isinstance(t, Tensor) for t in ts):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type "
                        f"List[torch.Tensor]\n             but got {type(ts)} instead.")


def _array(t):
    """``t``'s array, C-contiguous (a copy where it is not; _store writes it back)."""
    a = t._data
    return a if a.flags.c_contiguous else xp.ascontiguousarray(a)


def _store(t, a):
    if a is not t._data:
        t._data[...] = a


def _bytes(a):
    return a.reshape(-1).view(xp.uint8)


def _shape(t):
    return "(" + ", ".join(str(n) for n in t.shape) + ")"


def _same_dtype(tensors):
    dts = {t.dtype for t in tensors}
    if len(dts) > 1:
        a, b = list(dict.fromkeys(t.dtype for t in tensors))[:2]
        raise ValueError(f"Invalid usage of tensors with different dtypesFound {a} and  {b}")


def _run(pg, what, requests, async_op, finish=None, outputs=()):
    pg.seq += 1
    work = Work(requests, pg, what, finish, outputs)
    if async_op:
        return work
    work.wait()
    return None


def _root_or_first(pg, rank, group_rank, what):
    """The root of a collective given by global ``rank`` or ``group_rank`` (rank 0 when neither
    is), as _root checks it."""
    if rank is None and group_rank is None:
        rank = 0
    return _root(pg, rank if group_rank is None else pg.ranks[group_rank], what)


def _root(pg, rank, what, role="root rank"):
    if pg is _state.world:
        if not 0 <= rank < pg.size():
            raise RuntimeError(f"{pg.name()}::{what}: invalid {role}: {rank}")
        return rank
    return pg.group_rank(rank)


def _deprecated(fn, old, new):
    def call(*args, **kwargs):
        warnings.warn(f"`torch.distributed.{old}` is deprecated. Please use "
                      f"`torch.distributed.{new}` instead.", FutureWarning, stacklevel=2)
        return fn(*args, **kwargs)
    call.__name__ = call.__qualname__ = old
    call.__doc__ = fn.__doc__
    return call


# -- reductions --------------------------------------------------------------------------------

_WIDEN = {"float16": "float32", "bfloat16": "float32"}      # MPI has no half-float reductions


def _reduction(t, op, what):
    """The array to reduce (its MPI type's), the MPI op, and how to bring the result back."""
    if not isinstance(op, ReduceOp.RedOpType) or op in (ReduceOp.PREMUL_SUM, ReduceOp.UNUSED):
        raise ValueError(f"{what} does not support {op}")
    if t.is_complex() and op not in (ReduceOp.SUM, ReduceOp.AVG, ReduceOp.PRODUCT):
        raise ValueError(f"{what} does not support {op} on complex tensors")
    MPI = _mpi()
    a = _array(t)
    name = str(a.dtype)
    if t.dtype.is_floating_point and name in _WIDEN:
        a = a.astype(_WIDEN[name])
    elif name == "bool":
        a = a.view(xp.uint8)
        op = {ReduceOp.SUM: ReduceOp.MAX, ReduceOp.PRODUCT: ReduceOp.MIN}.get(op, op)
    mpi_op = {ReduceOp.SUM: MPI.SUM, ReduceOp.AVG: MPI.SUM, ReduceOp.PRODUCT: MPI.PROD,
              ReduceOp.MIN: MPI.MIN, ReduceOp.MAX: MPI.MAX, ReduceOp.BAND: MPI.BAND,
              ReduceOp.BOR: MPI.BOR, ReduceOp.BXOR: MPI.BXOR}[op]
    return a, mpi_op


def _back(t, a, op, size):
    """Write the reduced ``a`` into ``t`` (AVG: the sum over ``size``)."""
    if op is ReduceOp.AVG:
        a = a / size
    if a.dtype != t._data.dtype:
        a = a.view(t._data.dtype) if a.dtype == xp.uint8 else a.astype(t._data.dtype)
    _store(t, a)


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``tensor`` over the group, in place on every rank."""
    _check_tensor(tensor)
    pg = _group(group)
    if _outside(pg, "all_reduce"):
        return None
    if op is ReduceOp.AVG and not (tensor.is_floating_point() or tensor.is_complex()):
        all_reduce(tensor, ReduceOp.SUM, group)     # torch's sums, then fails to divide
        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{SCALAR_NAMES[str(tensor.dtype).split('.')[1]]}")
    a, mpi_op = _reduction(tensor, op, "all_reduce")
    _debug_check(pg, "ALLREDUCE", [tensor])
    req = pg.comm.Iallreduce(_mpi().IN_PLACE, a, mpi_op)
    return _run(pg, "allreduce", [req], async_op,
                lambda: _back(tensor, a, op, pg.size()), [tensor])


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    _check_tensor(tensor)
    pg = _group(group)
    if _outside(pg, "reduce"):
        return None
    root = _root(pg, dst if group_dst is None else pg.ranks[group_dst], "reduce")
    a, mpi_op = _reduction(tensor, op, "reduce")
    _debug_check(pg, "REDUCE", [tensor])
    mine = pg.rank() == root
    req = pg.comm.Ireduce(_mpi().IN_PLACE if mine else a, a if mine else None, mpi_op, root)
    finish = (lambda: _back(tensor, a, op, pg.size())) if mine else None
    return _run(pg, "reduce", [req], async_op, finish, [tensor])


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """output <- the reduction over ranks of each rank's input_list[this rank]."""
    _check_tensor(output, "output")
    _check_list(input_list, "input_list")
    pg = _group(group)
    if _outside(pg, "reduce_scatter"):
        return None
    if len(input_list) != pg.size():
        raise RuntimeError(f"{pg.name()}::reduce_scatter: invalid input tensor list size, must "
                           f"be {pg.size()}, got {len(input_list)}")
    for i, t in enumerate(input_list):
        if t.shape != output.shape:
            raise RuntimeError(f"{pg.name()}::reduce_scatter: invalid tensor size at index {i} "
                               f"(expected {_shape(output)}, got {_shape(t)})")
    _same_dtype([output] + input_list)
    flat = cat([t.reshape(-1) for t in input_list])
    return _reduce_scatter(pg, output, flat, op, async_op, "reduce_scatter")


def reduce_scatter_single(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """output <- this rank's block of the reduction over ranks of input."""
    _check_tensor(output, "output")
    _check_tensor(input, "input")
    pg = _group(group)
    if _outside(pg, "reduce_scatter_single"):
        return None
    if output.numel() * pg.size() != input.numel():
        raise RuntimeError(f"{pg.name()}::reduce_scatter_tensor: input tensor size "
                           f"{input.numel()} must be the world size {pg.size()} times the "
                           f"output tensor size {output.numel()}")
    _same_dtype([output, input])
    return _reduce_scatter(pg, output, input, op, async_op, "reduce_scatter_tensor")


reduce_scatter_tensor = _deprecated(reduce_scatter_single, "reduce_scatter_tensor",
                                    "reduce_scatter_single")


def _reduce_scatter(pg, output, input, op, async_op, what):
    a, mpi_op = _reduction(input, op, what)
    _debug_check(pg, "REDUCE_SCATTER", [input])
    out = xp.empty(output.numel(), a.dtype)
    req = pg.comm.Ireduce_scatter_block(a.reshape(-1), out, mpi_op)
    return _run(pg, what, [req], async_op,
                lambda: _back(output, out.reshape(output.shape), op, pg.size()), [output])


# -- data movement (bytes) ---------------------------------------------------------------------

def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    """``tensor`` <- rank src's tensor, on every rank."""
    _check_tensor(tensor)
    pg = _group(group)
    if _outside(pg, "broadcast"):
        return None
    root = _root(pg, src if group_src is None else pg.ranks[group_src], "broadcast")
    _debug_check(pg, "BROADCAST", [tensor])
    a = _array(tensor)
    req = pg.comm.Ibcast(_bytes(a), root)
    return _run(pg, "broadcast", [req], async_op, lambda: _store(tensor, a), [tensor])


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """tensor_list[r] <- rank r's tensor."""
    _check_list(tensor_list, "tensor_list")
    _check_tensor(tensor)
    pg = _group(group)
    if _outside(pg, "all_gather"):
        return None
    _same_dtype(tensor_list + [tensor])
    if len(tensor_list) != pg.size():
        raise RuntimeError(f"{pg.name()}::allgather: invalid output tensor list at index 0 "
                           f"(expected length {pg.size()}, got {len(tensor_list)})")
    for i, t in enumerate(tensor_list):
        if t.shape != tensor.shape:
            raise RuntimeError(f"{pg.name()}::allgather: invalid tensor size at index {i} "
                               f"(expected {_shape(tensor)}, got {_shape(t)})")
    _debug_check(pg, "ALLGATHER", [tensor])
    a = _array(tensor)
    out = xp.empty((pg.size(),) + a.shape, a.dtype)
    req = pg.comm.Iallgather(_bytes(a), _bytes(out))

    def finish():
        for t, piece in zip(tensor_list, out):
            _store(t, piece)
    return _run(pg, "allgather", [req], async_op, finish, tensor_list)


def all_gather_single(output_tensor, input_tensor, group=None, async_op=False):
    """output_tensor <- the ranks' input tensors, concatenated along dim 0."""
    _check_tensor(output_tensor, "output_tensor")
    _check_tensor(input_tensor, "input_tensor")
    pg = _group(group)
    if _outside(pg, "all_gather_single"):
        return None
    _same_dtype([output_tensor, input_tensor])
    n = pg.size()
    rows = output_tensor.shape[0] if output_tensor.dim() else 1
    chunk = output_tensor.shape[1:] and (-(-rows // n),) + tuple(output_tensor.shape[1:]) \
        or (-(-rows // n),)
    if chunk != tuple(input_tensor.shape) or rows % n:
        chunk = "(" + ", ".join(str(k) for k in chunk) + ")"
        raise RuntimeError(f"{pg.name()}::allgather: invalid tensor size at index 0 (expected "
                           f"{_shape(input_tensor)}, got {chunk})")
    _debug_check(pg, "ALLGATHER", [input_tensor])
    a, out = _array(input_tensor), _array(output_tensor)
    req = pg.comm.Iallgather(_bytes(a), _bytes(out))
    return _run(pg, "allgather", [req], async_op, lambda: _store(output_tensor, out),
                [output_tensor])


all_gather_into_tensor = _deprecated(all_gather_single, "all_gather_into_tensor",
                                     "all_gather_single")


def _rooted(pg, rank, group_rank, what, tensor, tensors, list_name, role, io):
    """gather's and scatter's root (rank, or group_rank within the group; 0 by default) and
    whether this rank is it, after torch's checks of the list, which only the root passes."""
    root = _root_or_first(pg, rank, group_rank, what)
    mine = pg.rank() == root
    if mine:
        if not tensors:
            raise ValueError(f"Argument ``{list_name}`` must be specified on {role} rank.")
        _check_list(tensors, list_name)
        if len(tensors) != pg.size():
            raise RuntimeError(f"{pg.name()}::{what}: Incorrect {io} list size {len(tensors)}. "
                               f"{io.capitalize()} list size should be {pg.size()}, same as "
                               "size of the process group.")
        _same_dtype(tensors + [tensor])
    elif tensors:
        raise ValueError(f"Argument ``{list_name}`` must NOT be specified on non-{role} ranks.")
    return root, mine


def gather(tensor, gather_list=None, dst=None, group=None, async_op=False, group_dst=None):
    """On rank dst, gather_list[r] <- rank r's tensor."""
    _check_tensor(tensor)
    pg = _group(group)
    if _outside(pg, "gather"):
        return None
    root, mine = _rooted(pg, dst, group_dst, "gather", tensor, gather_list, "gather_list",
                         "destination", "output")
    _debug_check(pg, "GATHER", [tensor])
    a = _array(tensor)
    out = xp.empty((pg.size(),) + a.shape, a.dtype) if mine else None
    req = pg.comm.Igather(_bytes(a), _bytes(out) if mine else None, root)

    def finish():
        for t, piece in zip(gather_list, out):
            _store(t, piece)
    return _run(pg, "gather", [req], async_op, finish if mine else None, gather_list or [])


def scatter(tensor, scatter_list=None, src=None, group=None, async_op=False, group_src=None):
    """tensor <- rank src's scatter_list[this rank]."""
    _check_tensor(tensor)
    pg = _group(group)
    if _outside(pg, "scatter"):
        return None
    root, mine = _rooted(pg, src, group_src, "scatter", tensor, scatter_list, "scatter_list",
                         "source", "input")
    _debug_check(pg, "SCATTER", [tensor])
    a = _array(tensor)
    src_buf = xp.stack([_array(t).reshape(a.shape) for t in scatter_list]) if mine else None
    req = pg.comm.Iscatter(_bytes(src_buf) if mine else None, _bytes(a), root)
    return _run(pg, "scatter", [req], async_op, lambda: _store(tensor, a), [tensor])


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    """output_tensor_list[r] <- rank r's input_tensor_list[this rank] (sizes may differ)."""
    _check_list(output_tensor_list, "output_tensor_list")
    _check_list(input_tensor_list, "input_tensor_list")
    pg = _group(group)
    if _outside(pg, "all_to_all"):
        return None
    for name, ts in (("output", output_tensor_list), ("input", input_tensor_list)):
        if len(ts) != pg.size():
            raise RuntimeError(f"{pg.name()}::alltoall: {name} tensor list size {len(ts)} does "
                               f"not match world size {pg.size()}")
    _same_dtype(output_tensor_list + input_tensor_list)
    _debug_check(pg, "ALLTOALL", input_tensor_list)
    ins = xp.concatenate([_bytes(_array(t)) for t in input_tensor_list])
    outs = [_array(t) for t in output_tensor_list]
    out = xp.empty(sum(o.nbytes for o in outs), xp.uint8)
    counts_in = [_array(t).nbytes for t in input_tensor_list]
    counts_out = [o.nbytes for o in outs]
    req = pg.comm.Ialltoallv([ins, (counts_in, _offsets(counts_in))],
                             [out, (counts_out, _offsets(counts_out))])

    def finish():
        for t, o, start, n in zip(output_tensor_list, outs, _offsets(counts_out), counts_out):
            _bytes(o)[...] = out[start:start + n]
            _store(t, o)
    return _run(pg, "alltoall", [req], async_op, finish, output_tensor_list)


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None,
                      group=None, async_op=False):
    pg = _group(group)
    n = pg.size()
    outs = list(output.split(output_split_sizes or output.shape[0] // n))
    ins = list(input.split(input_split_sizes or input.shape[0] // n))
    work = all_to_all([o.clone() for o in outs], ins, group, True)

    def copy_back():
        for o, r in zip(outs, work.result()):
            o._data[...] = r._data
    work._finish = (lambda f=work._finish: (f(), copy_back()))
    if async_op:
        return work
    work.wait()
    return None


def _offsets(counts):
    out, total = [], 0
    for c in counts:
        out.append(total)
        total += c
    return out


# -- point to point ----------------------------------------------------------------------------

def _peer(pg, rank, what):
    if rank == get_rank():
        raise ValueError(f"Invalid {what} rank: {what} rank should not be the same as the rank "
                         "of the current process.")
    return _root(pg, rank, what.replace("destination", "send").replace("source", "recv"),
                 f"{what} rank")


def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    _check_tensor(tensor)
    pg = _group(group)
    if _outside(pg, "isend"):
        return None
    peer = _peer(pg, dst if group_dst is None else pg.ranks[group_dst], "destination")
    a = _array(tensor)
    return Work([pg.comm.Isend(_bytes(a), peer, tag)], pg, "send", outputs=[tensor])


def send(tensor, dst=None, group=None, tag=0, group_dst=None):
    work = isend(tensor, dst, group, tag, group_dst)
    if work is not None:
        work.wait()


class _RecvWork(Work):
    def _source_rank(self):
        """The global rank the message came from (once complete)."""
        return self._pg.ranks[self._statuses[0].Get_source()]


def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    _check_tensor(tensor)
    pg = _group(group)
    if _outside(pg, "irecv"):
        return None
    MPI = _mpi()
    if src is None and group_src is None:
        peer = MPI.ANY_SOURCE
    else:
        peer = _peer(pg, src if group_src is None else pg.ranks[group_src], "source")
    a = _array(tensor)
    req = pg.comm.Irecv(_bytes(a), peer, tag)
    work = _RecvWork([req], pg, "recv", lambda: _store(tensor, a), [tensor])
    work._statuses = [MPI.Status()]
    return work


def recv(tensor, src=None, group=None, tag=0, group_src=None):
    """Receive into ``tensor``; the sender's rank."""
    work = irecv(tensor, src, group, tag, group_src)
    if work is None:
        return -1
    work.wait()
    return work._source_rank()


class P2POp:
    def __init__(self, op, tensor, peer=None, group=None, tag=0, group_peer=None):
        self.op, self.tensor, self.peer, self.group, self.tag = op, tensor, peer, group, tag


def batch_isend_irecv(p2p_op_list):
    return [op.op(op.tensor, op.peer, op.group, op.tag) for op in p2p_op_list]


# -- objects (pickled into byte tensors, as torch's) -------------------------------------------

def _to_bytes(obj):
    """``obj`` pickled, as a uint8 tensor, and its length (an int64 tensor)."""
    buf = io.BytesIO()
    pickle.Pickler(buf).dump(obj)
    data = xp.frombuffer(buf.getvalue(), xp.uint8)
    t = zeros(data.size, dtype=uint8)
    t._data[...] = data
    return t, _tensor([data.size], dtype=int64)


def _from_bytes(t, size):
    return pickle.loads(_array(t).reshape(-1)[:size].tobytes())


def _padded_bytes(pg, obj, group):
    """``obj`` pickled into a uint8 tensor as long as the longest of the group's ranks', and
    every rank's length."""
    t, size = _to_bytes(obj)
    sizes = [zeros(1, dtype=int64) for _ in range(pg.size())]
    all_gather(sizes, size, group)
    sizes = [int(s.item()) for s in sizes]
    padded = zeros(max(sizes), dtype=uint8)
    padded[:t.numel()] = t
    return padded, sizes


def _unpickle_into(object_list, outs, sizes):
    """object_list[r] <- the object rank r pickled into outs[r] (its first sizes[r] bytes)."""
    for i, (o, n) in enumerate(zip(outs, sizes)):
        object_list[i] = _from_bytes(o, n)


def all_gather_object(object_list, obj, group=None):
    """object_list[r] <- rank r's obj."""
    pg = _group(group)
    if _outside(pg, "all_gather_object"):
        return None
    padded, sizes = _padded_bytes(pg, obj, group)
    outs = [zeros_like(padded) for _ in range(pg.size())]
    all_gather(outs, padded, group)
    _unpickle_into(object_list, outs, sizes)


def gather_object(obj, object_gather_list=None, dst=None, group=None, group_dst=None):
    """On rank dst, object_gather_list[r] <- rank r's obj."""
    pg = _group(group)
    if _outside(pg, "gather_object"):
        return None
    root = _root_or_first(pg, dst, group_dst, "gather")
    mine = pg.rank() == root
    if mine and object_gather_list is None:
        raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
    padded, sizes = _padded_bytes(pg, obj, group)
    outs = [zeros_like(padded) for _ in range(pg.size())] if mine else None
    gather(padded, outs, pg.ranks[root], group)
    if mine:
        _unpickle_into(object_gather_list, outs, sizes)


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    """object_list <- rank src's object_list (in place)."""
    pg = _group(group)
    if _outside(pg, "broadcast_object_list"):
        return None
    root = _root_or_first(pg, src, group_src, "broadcast")
    mine = pg.rank() == root
    pairs = [_to_bytes(o) for o in object_list] if mine else []
    sizes = zeros(len(object_list), dtype=int64)
    if mine:
        sizes._data[...] = [int(s.item()) for _, s in pairs]
    broadcast(sizes, pg.ranks[root], group)
    n = [int(s) for s in sizes.tolist()]
    if mine:
        flat = cat([t for t, _ in pairs]) if pairs else zeros(0, dtype=uint8)
    else:
        flat = zeros(sum(n), dtype=uint8)
    broadcast(flat, pg.ranks[root], group)
    if not mine:
        for i, start in enumerate(_offsets(n)):
            object_list[i] = _from_bytes(flat[start:start + n[i]], n[i])


def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None, src=None,
                        group=None, group_src=None):
    pg = _group(group)
    if _outside(pg, "scatter_object_list"):
        return None
    root = _root_or_first(pg, src, group_src, "scatter")
    objects = [scatter_object_input_list if pg.rank() == root else None]
    broadcast_object_list(objects, group=group, group_src=root)
    scatter_object_output_list[0] = objects[0][pg.rank()]


# -- the collective-order check (TORCH_DISTRIBUTED_DEBUG=DETAIL, as torch's) -------------------

def _debug_check(pg, op, tensors):
    """Under TORCH_DISTRIBUTED_DEBUG=DETAIL: every rank's collective, compared before it runs;
    a rank running another (or other shapes or dtypes) raises on every rank."""
    if os.environ.get("TORCH_DISTRIBUTED_DEBUG", "").upper() != "DETAIL":
        return
    print_ = _fingerprint(pg.seq, op, tensors)
    data = pickle.dumps(print_)
    sizes = xp.empty(pg.size(), xp.int64)
    Work([pg.comm.Iallgather(xp.array([len(data)], xp.int64), sizes)], pg, op).wait()
    width = int(sizes.max())
    mine = xp.zeros(width, xp.uint8)
    mine[:len(data)] = xp.frombuffer(data, xp.uint8)
    every = xp.empty((pg.size(), width), xp.uint8)
    Work([pg.comm.Iallgather(mine, every)], pg, op).wait()
    prints = [pickle.loads(every[r, :sizes[r]].tobytes()) for r in range(pg.size())]
    for r, other in enumerate(prints):
        if other != print_:
            raise RuntimeError(
                f"Detected mismatch between collectives on ranks. Rank {pg.rank()} is running "
                f"collective: {print_}, but Rank {r} is running collective: {other}.")


def _fingerprint(seq, op, tensors):
    shapes = ", ".join("[" + ", ".join(str(n) for n in t.shape) + "]" for t in tensors)
    dts = ", ".join(SCALAR_NAMES[str(t.dtype).split(".")[1]] for t in tensors)
    return (f"CollectiveFingerPrint(SequenceNumber={seq}, OpType={op}, TensorShape=[{shapes}], "
            f"TensorDtypes={dts}, TensorDeviceTypes=[cpu])")
