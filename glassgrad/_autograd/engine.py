"""run_backward: dependency counting, a ready queue ordered like PyTorch's, per-node input
buffers and central validation (shape reduction, dtype cast) of every gradient. No recursion.

A backward pass is a GraphTask (PyTorch's name): ``run`` pops a ready node and applies it
(``evaluate`` when it has hooks or autograd.grad captures its gradients), ``route`` hands its
gradients to the nodes they belong to and says which runs next. Without create_graph gradients
flow as NumPy arrays (array mode): the engine calls ``node.apply_arrays`` (rows whose formulas
work on arrays and leaves take them as they are; the base Node wraps them for ``apply``) and
``node.apply`` otherwise; every hook sees Tensors.
"""
import heapq

from .._tensor import Tensor
from ..backend import xp
from ..backend.kernels.sums import add_reduce
from ..dtypes import _FROM_NP
from . import explain_hook
from .anomaly import check_nan, warn_failure
from .grad_mode import state
from .node import wrap_arrays


def _graph(roots):
    """The number of edges that point at each node reachable from ``roots``."""
    deps = {}
    stack = list(roots)
    seen = set(stack)
    push = stack.append
    while stack:
        for nxt in stack.pop()._next[::2]:     # (Node._next: the edges flat)
            if nxt is None:
                continue
            if nxt in deps:
                deps[nxt] += 1
            else:
                deps[nxt] = 1
                if nxt not in seen:
                    push(nxt)
    return deps


def _graph_reaching(roots, targets):
    """``_graph``'s counts, and the nodes from which a target node can be reached by at least
    one edge (the nodes autograd.grad and backward(inputs=...) run), in one depth-first walk:
    a node is finished (whether it reaches a target known) before any node above it is."""
    deps, reach = {}, set()
    for root in roots:
        if root in deps:    # (reached from an earlier root: walked then)
            continue
        deps[root] = 0      # (a later root's walk that reaches it counts the edge, once)
        stack = [(root, iter(root._next[::2]))]
        while stack:
            node, edges = stack[-1]
            for nxt in edges:
                if nxt is None:
                    continue
                if nxt in deps:     # finished (a graph has no cycles): its answer is known
                    deps[nxt] += 1
                    if nxt in reach or nxt in targets:
                        reach.add(node)
                    continue
                deps[nxt] = 1
                stack.append((nxt, iter(nxt._next[::2])))
                break
            else:   # every edge of node seen: node is finished, tell the node above it
                stack.pop()
                if stack and (node in reach or node in targets):
                    reach.add(stack[-1][0])
    return deps, reach


def _validate(node, grads):
    """Check the count of ``grads`` and bring each to the shape and dtype its input had.
    A gradient is a Tensor, or in array mode (see run_backward) a NumPy array or scalar."""
    edges = node._next
    if 2 * len(grads) != len(edges):
        raise RuntimeError(f"function {node.name()} returned an incorrect number of gradients "
                           f"(expected {len(edges) // 2}, got {len(grads)})")
    it = iter(edges)
    for nxt, nr, g in zip(it, it, grads):   # (pairs of the flat edges)
        if g is None or nxt is None:
            continue
        shape, dtype = nxt._input_metadata[nr]
        if isinstance(g, Tensor):
            if g._batched:      # func.vmap's BatchedTensor: its per-example shape
                if g.shape != shape or g.dtype is not dtype:
                    return _conform(node, grads)
                continue
            g = g._data         # without building Size and dtype
        if g.shape != shape or _FROM_NP.get(g.dtype) is not dtype:
            return _conform(node, grads)
    return grads


def _conform(node, grads):
    """_validate's repairs: sum a broadcast gradient down to its input's shape, cast it to the
    input's dtype, or raise PyTorch's error for a shape that cannot be reduced."""
    out = list(grads)
    edges = node._next
    for i, (nxt, nr, g) in enumerate(zip(edges[::2], edges[1::2], out)):
        if g is None or nxt is None:
            continue
        shape, dtype = nxt._input_metadata[nr]
        is_tensor = isinstance(g, Tensor)
        d = _meta(g) if is_tensor else g
        if d.shape != shape:
            if not expandable(shape, d.shape):
                raise RuntimeError(f"Function {node.name()} returned an invalid gradient at index "
                                   f"{i} - got {list(d.shape)} but expected shape compatible "
                                   f"with {list(shape)}")
            reduced = _sum_to(g, shape)      # on a tensor, or on the array in array mode
            if state.tracer is not None:
                state.tracer.reduce(node, i, nxt, g, reduced)
            g = reduced
            d = _meta(g) if is_tensor else g
        if (d.dtype if is_tensor else _FROM_NP.get(d.dtype)) is not dtype:
            if (d.dtype.is_complex if is_tensor else d.dtype.kind == "c") and \
                    not dtype.is_complex:    # a real input: the real part
                g = g.real
            cast = g.to(dtype) if is_tensor else g.astype(dtype.np)
            if state.tracer is not None:
                state.tracer.cast(node, i, nxt, g, cast)
            g = cast
        out[i] = g
    return out


class _Meta:
    __slots__ = ("shape", "dtype")


def _meta(t):
    """A tensor's shape (a tuple) and dtype (torch's), for a BatchedTensor its per-example
    ones."""
    m = _Meta()
    m.shape, m.dtype = (tuple(t.shape), t.dtype) if t._batched else (t._data.shape, t.dtype)
    return m


def _sum_to(g, shape):
    """A gradient summed down to ``shape``: a Tensor through its (differentiable) sum_to_size,
    an array in array mode by ``sum_to_array``."""
    return g.sum_to_size(shape) if isinstance(g, Tensor) else sum_to_array(g, shape)


def sum_dims(shape, to):
    """The dimensions of ``shape`` that broadcasting ``to`` into it added or expanded."""
    lead = len(shape) - len(to)
    return tuple(range(lead)) + tuple(lead + i for i, n in enumerate(to)
                                      if n == 1 and shape[lead + i] != 1)


def sum_to_array(a, shape):
    """Sum the array ``a`` down to ``shape`` (the reverse of broadcasting): the reductions' sum
    (backend/kernels/sums.py), float16 accumulated in float32 as torch does."""
    dims = sum_dims(a.shape, shape)
    if dims:
        a = add_reduce(a, dims, dtype=xp.float32 if a.dtype == xp.float16 else None
                       ).astype(a.dtype, copy=False)
    return a if a.shape == shape else a.reshape(shape)


def expandable(shape, to):
    if len(shape) > len(to):
        return False
    return all(s == t or s == 1 for s, t in zip(reversed(shape), reversed(to)))


def _call_tensor_pre_hooks(node, grads):
    tr = state.tracer    # trace_backward: hooks run through tr.call, which records them
    hooks = node._tensor_hooks()
    if hooks:
        for nr, per_output in hooks.items():
            for hook in tuple(per_output.values()):
                if grads[nr] is not None:
                    new = (hook(grads[nr]) if tr is None else
                           tr.call("tensor hook", node, hook, (grads[nr],), nr))
                    if new is not None:
                        grads[nr] = new
    if node._retain_grad_hooks:
        for nr, ref in node._retain_grad_hooks.items():
            t, g = ref(), grads[nr]
            if t is not None and g is not None:
                if tr is not None:
                    tr.retain_grad(node, nr, g)
                t._grad = g.clone() if t._grad is None else t._grad + g
    return grads


def _call_function(node, grads, tensor_hooks_done=False):
    """A node with its hooks; every node comes here in anomaly mode and while tracing."""
    tr = state.tracer
    prev_node, state.node = state.node, node    # the parent of nodes made here (anomaly mode)
    try:
        if not tensor_hooks_done:
            grads = _call_tensor_pre_hooks(node, grads)
        if node._pre_hooks:
            for hook in tuple(node._pre_hooks.values()):
                new = (hook(tuple(grads)) if tr is None else
                       tr.call("pre-hook", node, hook, (tuple(grads),)))
                if new is not None:
                    grads = list(new)
        step = tr.node(node, grads) if tr is not None else None
        out = _validate(node, node.apply(grads))
        if step is not None:
            step.done(out)
        if node._hooks:
            for hook in tuple(node._hooks.values()):
                new = (hook(tuple(out), tuple(grads)) if tr is None else
                       tr.call("post-hook", node, hook, (tuple(out), tuple(grads))))
                if new is not None:
                    out = list(new)
        if state.anomaly and state.anomaly_check_nan:
            check_nan(node, out)
    finally:
        state.node = prev_node
    return out


def run_backward(roots, root_grads, keep_graph, create_graph, targets=None, accumulate=True):
    """Propagate ``root_grads`` from ``roots`` ((node, nr) pairs).

    targets: (node, nr) edges of ``inputs``. With accumulate=False their gradients are captured
    and returned instead of accumulated (autograd.grad); with accumulate=True only they receive.
    """
    task = GraphTask(roots, root_grads, keep_graph, create_graph, targets, accumulate)
    tr = state.tracer
    if tr is not None:
        tr.begin(roots, root_grads)
    prev = state.grad_enabled
    state.grad_enabled = create_graph
    outer, state.graph_task = state.graph_task, task    # (a hook may start another pass)
    try:
        task.run()
        task.run_callbacks()
    except Exception as e:
        node = task.node
        if node is not None:
            explain_hook.attach(e, node=node)       # the node that failed, for the glass box
            if state.anomaly:
                warn_failure(node)   # the failing node's forward traceback, then the error
        raise
    finally:
        state.graph_task = outer
        state.grad_enabled = prev
        if tr is not None:
            tr.end()
    return task.captured


def queue_callback(callback):
    """Run ``callback()`` when the backward pass this thread runs now has evaluated its last
    node (torch's Variable._execution_engine.queue_callback; DistributedDataParallel waits for
    its gradient all-reduces there)."""
    if state.graph_task is None:
        raise RuntimeError("Final callbacks can only be installed during backward pass.")
    state.graph_task.callbacks.append(callback)


class GraphTask:
    """One backward pass: dependency counts, input buffers, the ready queue, the captures."""
    __slots__ = ("deps", "keep_graph", "needed", "captures", "captured", "arrays", "slow",
                 "buffers", "heap", "tick", "node", "callbacks")

    def __init__(self, roots, root_grads, keep_graph, create_graph, targets, accumulate):
        # (a node may hold several roots)
        root_nodes = [roots[0][0]] if len(roots) == 1 else list(dict.fromkeys(
            [n for n, _ in roots]))
        self.keep_graph = keep_graph
        self.needed = self.captures = self.captured = None
        if targets is None:
            self.deps = deps = _graph(root_nodes)
        else:
            target_nodes = {n for n, _ in targets}
            self.deps, self.needed = deps, needed = _graph_reaching(root_nodes, target_nodes)
            if accumulate:
                needed |= target_nodes
            else:
                self.captures = captures = {}
                for i, (n, nr) in enumerate(targets):
                    captures.setdefault(n, []).append((i, nr))
                self.captured = [None] * len(targets)
        # array mode, unless func.vmap's batched gradients run the formulas through its rules
        self.arrays = arrays = (not create_graph or state.inference) and not any(
            [g is not None and g._batched for g in root_grads])
        # every node through the hook-aware path: anomaly mode, or a trace_backward running
        self.slow = state.anomaly or state.tracer is not None
        self.buffers = buffers = {}
        for (node, nr), g in zip(roots, root_grads):
            if arrays and g is not None:
                g = g._data
            buf = buffers.get(node)
            if buf is None:
                buf = buffers[node] = [None] * len(node._input_metadata)
            buf[nr] = g if buf[nr] is None else buf[nr] + g
        self.heap, self.tick = [], 0
        for node in buffers:
            if not deps.get(node):
                self.push(node)
        self.node = None    # the node that failed, when one fails (run sets it)
        self.callbacks = []     # queue_callback's, run in order after the last node

    def run_callbacks(self):
        """The final callbacks, in the order queued (one may queue another)."""
        self.node = None
        i = 0
        while i < len(self.callbacks):
            self.callbacks[i]()
            i += 1

    def push(self, node):
        heapq.heappush(self.heap, (-node._sequence_nr, self.tick, node))
        self.tick += 1

    def run(self):
        """Pop a ready node, evaluate it, hand its gradients on. A chain link's next node, or
        the only node made ready, runs without a queue round trip. The node that fails is
        kept in ``self.node``."""
        heap, buffers, deps, heappop = self.heap, self.buffers, self.deps, heapq.heappop
        fast, needed, captures = not self.slow, self.needed, self.captures
        arrays, release = self.arrays, not self.keep_graph
        node = grads = None
        try:
            while True:
                if node is None:
                    if not heap:
                        return
                    node = heappop(heap)[2]
                    grads = buffers.pop(node)
                if fast and node._plain and (needed is None or node in needed and (
                        captures is None or node not in captures)):
                    out = node.apply_arrays(grads) if arrays else node.apply(grads)
                    if not node._exact:
                        out = _validate(node, out)
                else:
                    out = self.evaluate(node, grads)
                    if out is None:     # a node no target needs: not run, nor freed (PyTorch's)
                        node = grads = None
                        continue
                grads = None    # only the node held them: an AccumulateGrad may have taken one
                if release:
                    node.release()
                edges = node._next
                # a chain link (one edge, or a second one to nothing, as for ``x + 0.5``): the
                # next node runs now, without a buffer
                if not heap and (len(edges) == 2 or len(edges) == 4 and edges[2] is None):
                    nxt, nr = edges[0], edges[1]
                    if (nxt is not None and out[0] is not None and deps[nxt] == 1
                            and nxt not in buffers):
                        deps[nxt] = 0
                        grads = [None] * len(nxt._input_metadata)
                        grads[nr] = out[0]
                        node = nxt
                        out = None  # only grads holds the gradient: an AccumulateGrad may take it
                        continue
                node = self.route(edges, out)
                out = None
                if node is not None:
                    grads = buffers.pop(node)
        except BaseException:
            self.node = node
            raise

    def evaluate(self, node, grads):
        """Run ``node`` on ``grads`` with its hooks and the captures of autograd.grad (run()
        applies a node without any itself): its gradients, one per next function (() for a
        leaf's AccumulateGrad), or None for a node no target needs."""
        hooks_done = False
        if self.captures is not None and node in self.captures:
            if self.arrays:
                grads = wrap_arrays(grads)
            grads, hooks_done = _call_tensor_pre_hooks(node, grads), True
            self.capture(node, grads)
        if self.needed is not None and node not in self.needed:
            return None
        if self.slow or hooks_done or not node._plain:
            return self.evaluate_hooked(node, grads, hooks_done)
        out = node.apply_arrays(grads) if self.arrays else node.apply(grads)
        return out if node._exact else _validate(node, out)

    def evaluate_hooked(self, node, grads, hooks_done):
        """evaluate() for a node with hooks (or every node, in anomaly mode and while
        tracing): hooks see tensors, also in array mode."""
        if not self.arrays:
            return _call_function(node, grads, hooks_done)
        if not hooks_done:
            grads = wrap_arrays(grads)   # rebound: an AccumulateGrad may take the buffer
        return [None if g is None else g._data
                for g in _call_function(node, grads, hooks_done)]

    def capture(self, node, grads):
        tr = state.tracer
        for i, nr in self.captures[node]:
            self.captured[i] = grads[nr]
            if tr is not None:
                tr.capture(node, i, nr, grads[nr])

    def route(self, edges, out):
        """Add ``out`` into the input buffers of the next functions ``edges`` (Node._next);
        returns the only node this made ready when nothing else is queued (it runs next), else
        queues the ready ones by sequence number and returns None."""
        deps, buffers = self.deps, self.buffers
        ready = None
        it = iter(edges)
        for nxt, nr, g in zip(it, it, out):    # (pairs of the flat edges)
            if nxt is None:
                continue
            if g is not None:
                buf = buffers.get(nxt)
                if buf is None:
                    buf = buffers[nxt] = [None] * len(nxt._input_metadata)
                buf[nr] = g if buf[nr] is None else buf[nr] + g
            left = deps[nxt] - 1
            deps[nxt] = left
            if left == 0 and nxt in buffers:
                if ready is not None:   # (queued in edge order, as the heap's ties want)
                    self.push(ready)
                ready = nxt
        if ready is None or not self.heap:
            return ready
        self.push(ready)
        return None
