"""torch.nn.parallel.DistributedDataParallel on glassgrad.distributed (MPI).

At construction the parameters and buffers are broadcast from rank 0. The parameters are cut
into buckets (one dtype each) as torch's Reducer does: the first iteration one bucket of all
(or, with find_unused_parameters, buckets of 1 MB and then 25 MB in parameter order, the last
parameters' bucket first); after it, buckets rebuilt in the order the gradients became ready.
Each parameter's post-accumulate-grad hook marks it ready; a full bucket's gradients, divided
by the world size, start a non-blocking all-reduce (Iallreduce) at once, while backward goes
on; a callback at the end of backward (the engine's queue_callback) waits for them and writes
the averages into ``.grad``.
"""
import contextlib
import sys
import time

from ... import distributed as dist
from ..._autograd.engine import queue_callback
from ..._autograd.grad_mode import is_grad_enabled
from ..._autograd.node import AccumulateGrad
from ..._tensor import Tensor
from ...backend import xp
from ...distributed import c10d
from ..modules.module import Module

_MB = 1024 * 1024


def _assign_buckets(params, limits, order):
    """Bucket the parameter indices ``order`` by dtype: a bucket closes once it holds
    limits[0] bytes (then limits[1], ...: the last limit for the rest), as torch's
    compute_bucket_assignment_by_size."""
    open_, done = {}, []
    for i in order:
        p = params[i]
        key = p.dtype
        bucket, size, k = open_.get(key, ([], 0, 0))
        bucket.append(i)
        size += p.numel() * p.element_size()
        if size >= limits[min(k, len(limits) - 1)]:
            done.append(bucket)
            bucket, size, k = [], 0, k + 1
        open_[key] = (bucket, size, k)
    done += [b for b, _, _ in open_.values() if b]
    return done


def _tensors_in(obj):
    if isinstance(obj, Tensor):
        yield obj
    elif isinstance(obj, (list, tuple)):
        for o in obj:
            yield from _tensors_in(o)
    elif isinstance(obj, dict):
        for o in obj.values():
            yield from _tensors_in(o)


def _reached_leaves(outputs):
    """The leaf tensors the graph of ``outputs`` accumulates into."""
    seen, leaves = set(), set()
    stack = [t.grad_fn for t in _tensors_in(outputs) if t.grad_fn is not None]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        if type(node) is AccumulateGrad:
            leaves.add(id(node.variable))
        stack.extend(n for n, _ in node.next_functions if n is not None)
    return leaves


def _broadcast_coalesced(tensors, pg, src=0):
    """Every tensor <- rank src's, one broadcast per dtype."""
    by_dtype = {}
    for t in tensors:
        by_dtype.setdefault(t.dtype, []).append(t)
    for group in by_dtype.values():
        flat = Tensor._make(xp.concatenate([t._data.reshape(-1) for t in group]))
        dist.broadcast(flat, pg.ranks[src], pg)
        start = 0
        for t in group:
            t._data[...] = flat._data[start:start + t.numel()].reshape(t._data.shape)
            start += t.numel()


class _Reducer:
    """The gradient buckets of one DistributedDataParallel and their all-reduces."""

    def __init__(self, params, buckets, pg, find_unused, bucket_cap):
        self.params, self.pg, self.find_unused = params, pg, find_unused
        self.bucket_cap = bucket_cap
        self.set_buckets(buckets)
        self.armed = False      # a forward with grad sync ran: the hooks reduce
        self.rebuilt = False
        self.unfinished = None  # the parameter indices the last backward never made ready
        self.waited = 0.0       # seconds the ends of backward waited for all-reduces
        for i, p in enumerate(params):
            p.register_post_accumulate_grad_hook(lambda p, i=i: self.ready(i))

    def set_buckets(self, buckets):
        self.buckets = buckets
        self.bucket_of = {i: b for b, idx in enumerate(buckets) for i in idx}

    def prepare_for_forward(self):
        if self.unfinished:
            raise RuntimeError(_unfinished_message(self.unfinished, self.find_unused,
                                                   c10d.get_rank()))

    def prepare_for_backward(self, outputs):
        self.armed, self.started = True, False
        self.pending = [len(b) for b in self.buckets]
        self.works = [None] * len(self.buckets)
        self.ready_order, self.used = [], [0] * len(self.params)
        self.unused = []
        if self.find_unused:
            reached = _reached_leaves(outputs)
            self.unused = [i for i, p in enumerate(self.params) if id(p) not in reached]

    def ready(self, index, used=True):
        if not self.armed:
            return          # no_sync(), or a backward without a DDP forward
        if not self.started:
            self.started = True
            queue_callback(self.finalize)
            for i in self.unused:       # marked ready at the first hook, as torch's
                self.ready(i, used=False)
        self.used[index] = int(used)
        self.ready_order.append(index)
        b = self.bucket_of[index]
        self.pending[b] -= 1
        if self.pending[b] == 0:
            self.launch(b)
        for w in self.works:    # OpenMPI moves the started transfers on only when called
            if w is not None:
                w[0].is_completed()

    def launch(self, b):
        """Start the all-reduce of bucket b: its gradients (zeros for those without), divided
        by the world size, in one array (float32 for 2-byte floats: MPI cannot sum those)."""
        params = [self.params[i] for i in self.buckets[b]]
        flat = xp.concatenate([(p.grad._data if p.grad is not None else
                                xp.zeros(p.shape, p._data.dtype)).reshape(-1) for p in params])
        if flat.dtype.itemsize == 2 and params[0].dtype.is_floating_point:
            flat = flat.astype(xp.float32)
        flat /= self.pg.size()
        self.works[b] = (dist.all_reduce(Tensor._make(flat), group=self.pg, async_op=True),
                         flat)

    def finalize(self):
        """End of backward: wait for the buckets' all-reduces, write the averages to .grad."""
        self.armed = False
        missing = [i for b, n in enumerate(self.pending) if n for i in self.buckets[b]
                   if i not in self.ready_order]
        self.unfinished = missing or None
        if missing:
            return      # torch's reducer too leaves it to the next forward to complain
        used = None
        if self.find_unused:
            used = Tensor._make(xp.array(self.used, xp.int32))
            dist.all_reduce(used, dist.ReduceOp.MAX, group=self.pg)
            used = used.tolist()
        start = time.perf_counter()
        for work, _ in self.works:
            work.wait()
        self.waited += time.perf_counter() - start
        for b, (work, flat) in enumerate(self.works):
            start = 0
            for i in self.buckets[b]:
                p = self.params[i]
                n = p.numel()
                piece = flat[start:start + n].reshape(p._data.shape)
                start += n
                if used is not None and not used[i]:
                    continue
                if p.grad is None:
                    p.grad = Tensor._make(piece.astype(p._data.dtype))
                else:
                    p.grad._data[...] = piece
        if not self.rebuilt and not self.find_unused:
            self.rebuild()

    def rebuild(self):
        """Buckets in the order rank 0's gradients became ready (1 MB, then the cap each), as
        torch's reducer rebuilds them after the first iteration."""
        self.rebuilt = True
        order = Tensor._make(xp.array(self.ready_order, xp.int64))
        dist.broadcast(order, self.pg.ranks[0], self.pg)
        limits = [c10d._DEFAULT_FIRST_BUCKET_BYTES, self.bucket_cap]
        self.set_buckets(_assign_buckets(self.params, limits, order.tolist()))


def _unfinished_message(indices, find_unused, rank):
    if find_unused:
        advice = ("Since `find_unused_parameters=True` is enabled, this likely  means that not "
                  "all `forward` outputs participate in computing loss. You can fix this by ")
    else:
        advice = ("You can enable unused parameter detection by passing the keyword argument "
                  "`find_unused_parameters=True` to `torch.nn.parallel.DistributedDataParallel`"
                  ", and by \n")
    return ("Expected to have finished reduction in the prior iteration before starting a new "
            "one. This error indicates that your module has parameters that were not used in "
            "producing loss. " + advice + "making sure all `forward` function outputs "
            "participate in calculating loss. \nIf you already have done the above, then the "
            "distributed data parallel module wasn't able to locate the output tensors in the "
            "return value of your module's `forward` function. Please include the loss function "
            "and the structure of the return value of `forward` of your module when reporting "
            "this issue (e.g. list, dict, iterable).\nParameter indices which did not receive "
            f"grad for rank {rank}: {' '.join(str(i) for i in sorted(indices))}\n In addition, "
            "you can set the environment variable TORCH_DISTRIBUTED_DEBUG to either INFO or "
            "DETAIL to print out information about which particular parameters did not receive "
            "gradient on this rank as part of this error")


class DistributedDataParallel(Module):
    """``module`` replicated on every rank of the group; its gradients averaged over the ranks
    during backward (see the module's docstring)."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0,
                 broadcast_buffers=True, init_sync=True, process_group=None, bucket_cap_mb=None,
                 find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False,
                 delay_all_reduce_named_params=None, param_to_hook_all_reduce=None,
                 mixed_precision=None, device_mesh=None):
        super().__init__()
        for name, value in (("delay_all_reduce_named_params", delay_all_reduce_named_params),
                            ("param_to_hook_all_reduce", param_to_hook_all_reduce),
                            ("mixed_precision", mixed_precision), ("device_mesh", device_mesh)):
            if value is not None:
                raise NotImplementedError(f"DistributedDataParallel: glassgrad does not "
                                          f"support {name}")
        pg = c10d._group(process_group)
        params = [p for p in module.parameters() if p.requires_grad]
        if not params:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't "
                               "have any parameter that requires a gradient.")
        if device_ids:
            devices = ", ".join(sorted({repr(p.device) for p in module.parameters()}))
            raise ValueError("DistributedDataParallel device_ids and output_device arguments "
                             "only work with single-device/multiple-device GPU modules or CPU "
                             f"modules, but got device_ids {device_ids}, output_device "
                             f"{output_device}, and module parameters {{{devices}}}.")
        self.module = module
        self.process_group = pg
        self.device_ids = self.output_device = None
        self.dim = dim
        self.broadcast_buffers = True if broadcast_buffers is None else broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view, self.static_graph = gradient_as_bucket_view, static_graph
        self.require_backward_grad_sync = self.require_forward_param_sync = True
        self.bucket_bytes_cap = int((25 if bucket_cap_mb is None else bucket_cap_mb) * _MB)
        if init_sync:
            _broadcast_coalesced(list(module.parameters()) + list(module.buffers()), pg)
        if find_unused_parameters and not static_graph:
            limits = [c10d._DEFAULT_FIRST_BUCKET_BYTES, self.bucket_bytes_cap]
            buckets = _assign_buckets(params, limits, range(len(params)))[::-1]
        else:
            buckets = _assign_buckets(params, [sys.maxsize], range(len(params)))
        self.reducer = _Reducer(params, buckets, pg, find_unused_parameters,
                                self.bucket_bytes_cap)

    def forward(self, *inputs, **kwargs):
        syncing = is_grad_enabled() and self.require_backward_grad_sync
        if syncing:
            self.reducer.prepare_for_forward()
        if self.broadcast_buffers and self.require_forward_param_sync:
            buffers = list(self.module.buffers())
            if buffers:
                _broadcast_coalesced(buffers, self.process_group)
        out = self.module(*inputs, **kwargs)
        if syncing:
            self.require_forward_param_sync = True
            self.reducer.prepare_for_backward(out)
        else:
            self.require_forward_param_sync = self.reducer.armed = False
        return out

    @contextlib.contextmanager
    def no_sync(self):
        """Backward inside accumulates gradients locally; the first backward after it
        all-reduces the sum."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old
