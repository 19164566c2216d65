"""run_backward: dependency counting, a ready queue ordered like PyTorch's, per-node input
buffers and central validation (shape reduction, dtype cast) of every gradient. No recursion."""
import heapq

from ..dtypes import _FROM_NP
from .anomaly_mode import check_nan, warn_failure
from .graph import _TENSOR as _Tensor, _tensor_cls, AccumulateGrad
from .grad_mode import state


def _graph(roots):
    """Every node reachable from ``roots``, with the number of edges that point at it."""
    deps = {}
    stack = list(roots)
    seen = set(stack)
    while stack:
        node = stack.pop()
        for nxt, _ in node.next_functions:
            if nxt is None:
                continue
            deps[nxt] = deps.get(nxt, 0) + 1
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return deps, seen


def _reaching(roots, deps, targets):
    """Nodes from which a target node can be reached by at least one edge."""
    remaining = dict(deps)
    order, stack = [], [n for n in roots if not remaining.get(n)]
    while stack:     # Kahn's topological order, children after parents
        node = stack.pop()
        order.append(node)
        for nxt, _ in node.next_functions:
            if nxt is not None:
                remaining[nxt] -= 1
                if remaining[nxt] == 0:
                    stack.append(nxt)
    reach = set()
    for node in reversed(order):
        if any(n in targets or n in reach for n, _ in node.next_functions if n is not None):
            reach.add(node)
    return reach


def _validate(node, grads):
    """Check the count of ``grads`` and bring each to the shape and dtype its input had."""
    edges = node.next_functions
    if len(grads) != len(edges):
        raise RuntimeError(f"function {node.name()} returned an incorrect number of gradients "
                           f"(expected {len(edges)}, got {len(grads)})")
    out = list(grads)
    for i, ((nxt, nr), g) in enumerate(zip(edges, out)):
        if g is None or nxt is None:
            continue
        shape, dtype = nxt._input_metadata[nr]
        if type(g) is _Tensor[0]:     # the common case, without building Size and dtype
            d = g._data
            if d.shape == shape and _FROM_NP.get(d.dtype) is dtype:
                continue
        if g.shape != shape:
            if not _expandable(shape, g.shape):
                raise RuntimeError(f"Function {node.name()} returned an invalid gradient at index "
                                   f"{i} - got {list(g.shape)} but expected shape compatible "
                                   f"with {list(shape)}")
            from ..ops.reduce import sum_to
            reduced = sum_to(g, shape)
            if state.tracer is not None:
                state.tracer.reduce(node, i, nxt, g, reduced)
            g = reduced
        if g.dtype is not dtype:
            cast = g.to(dtype)
            if state.tracer is not None:
                state.tracer.cast(node, i, nxt, g, cast)
            g = cast
        out[i] = g
    return out


def _expandable(shape, to):
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
    root_nodes = list(dict.fromkeys(n for n, _ in roots))   # one node may hold several roots
    deps, _ = _graph(root_nodes)
    needed = captures = None
    if targets is not None:
        target_nodes = {n for n, _ in targets}
        needed = _reaching(root_nodes, deps, target_nodes)
        if accumulate:
            needed |= target_nodes
        else:
            captures = {}
            for i, (n, nr) in enumerate(targets):
                captures.setdefault(n, []).append((i, nr))
    buffers = {}
    for (node, nr), g in zip(roots, root_grads):
        buf = buffers.setdefault(node, [None] * len(node._input_metadata))
        buf[nr] = g if buf[nr] is None else buf[nr] + g
    heap, tick = [], 0
    for node in buffers:
        if not deps.get(node):
            heapq.heappush(heap, (-node._sequence_nr, tick, node))
            tick += 1
    captured = [None] * len(targets) if captures is not None else None
    tr = state.tracer
    slow = state.anomaly or tr is not None     # every node through _call_function
    if tr is not None:
        tr.begin(roots, root_grads)
    prev = state.grad_enabled
    state.grad_enabled = create_graph
    heappush, heappop = heapq.heappush, heapq.heappop
    _tensor_cls()
    node = None
    try:
        while True:
            if node is None:
                if not heap:
                    break
                node = heappop(heap)[2]
            grads = buffers.pop(node)
            hooks_done = False
            if captures is not None and node in captures:
                grads, hooks_done = _call_tensor_pre_hooks(node, grads), True
                for i, nr in captures[node]:
                    captured[i] = grads[nr]
                    if tr is not None:
                        tr.capture(node, i, nr, grads[nr])
            if needed is not None and node not in needed:
                node = None
                continue
            if (not slow and node._pre_hooks is None and node._hooks is None
                    and node._tensor_pre_hooks is None and node._retain_grad_hooks is None
                    and type(node) is not AccumulateGrad):
                out = _validate(node, node.apply(grads))       # no hooks: the common case
            else:
                out = _call_function(node, grads, hooks_done)
            grads = None
            if not keep_graph:
                node.release()
            ready = None
            for (nxt, nr), g in zip(node.next_functions, out):
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
                    if ready is None:
                        ready = nxt
                    else:
                        if ready is not True:
                            heappush(heap, (-ready._sequence_nr, tick, ready))
                            tick += 1
                            ready = True
                        heappush(heap, (-nxt._sequence_nr, tick, nxt))
                        tick += 1
            out = g = None    # drop references: an AccumulateGrad may then take the buffer
            if ready is None or ready is True:
                node = None
            elif heap:        # order by sequence number among everything ready
                heappush(heap, (-ready._sequence_nr, tick, ready))
                tick += 1
                node = None
            else:             # the only ready node (a chain): no queue round trip
                node = ready
    except Exception:
        if state.anomaly and node is not None:
            warn_failure(node)   # the failing node's forward traceback, then the error
        raise
    finally:
        state.grad_enabled = prev
        if tr is not None:
            tr.end()
    return captured
