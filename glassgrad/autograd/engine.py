"""run_backward: dependency counting, a ready queue ordered like PyTorch's, per-node input
buffers and central validation (shape reduction, dtype cast) of every gradient. No recursion."""
import heapq

from ..backend import xp
from ..dtypes import _FROM_NP
from .anomaly_mode import check_nan, warn_failure
from .graph import _TENSOR as _Tensor, _tensor_cls, AccumulateGrad
from .grad_mode import state


def _graph(roots):
    """The number of edges that point at each node reachable from ``roots``."""
    deps = {}
    stack = list(roots)
    seen = set(stack)
    push = stack.append
    while stack:
        for nxt, _ in stack.pop().next_functions:
            if nxt is None:
                continue
            if nxt in deps:
                deps[nxt] += 1
            else:
                deps[nxt] = 1
                if nxt not in seen:
                    push(nxt)
    return deps


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
    """Check the count of ``grads`` and bring each to the shape and dtype its input had.
    A gradient is a Tensor, or in array mode (see run_backward) a NumPy array or scalar."""
    edges = node.next_functions
    if len(grads) != len(edges):
        raise RuntimeError(f"function {node.name()} returned an incorrect number of gradients "
                           f"(expected {len(edges)}, got {len(grads)})")
    Tensor = _Tensor[0]
    for (nxt, nr), g in zip(edges, grads):
        if g is None or nxt is None:
            continue
        shape, dtype = nxt._input_metadata[nr]
        d = g._data if isinstance(g, Tensor) else g     # without building Size and dtype
        if d.shape != shape or _FROM_NP.get(d.dtype) is not dtype:
            return _conform(node, grads)
    return grads


def _conform(node, grads):
    """_validate's repairs: sum a broadcast gradient down to its input's shape, cast it to the
    input's dtype, or raise PyTorch's error for a shape that cannot be reduced."""
    out = list(grads)
    Tensor = _Tensor[0]
    for i, ((nxt, nr), g) in enumerate(zip(node.next_functions, out)):
        if g is None or nxt is None:
            continue
        shape, dtype = nxt._input_metadata[nr]
        is_tensor = isinstance(g, Tensor)
        d = g._data if is_tensor else g
        if d.shape != shape:
            if not _expandable(shape, d.shape):
                raise RuntimeError(f"Function {node.name()} returned an invalid gradient at index "
                                   f"{i} - got {list(d.shape)} but expected shape compatible "
                                   f"with {list(shape)}")
            reduced = _sum_to(g, shape)      # on a tensor, or on the array in array mode
            if state.tracer is not None:
                state.tracer.reduce(node, i, nxt, g, reduced)
            g = reduced
            d = g._data if is_tensor else g
        if _FROM_NP.get(d.dtype) is not dtype:
            cast = g.to(dtype) if is_tensor else d.astype(dtype.np)
            if state.tracer is not None:
                state.tracer.cast(node, i, nxt, g, cast)
            g = cast
        out[i] = g
    return out


def _sum_to(g, shape):
    global _sum_to
    from ..ops.reduce import sum_to as _sum_to      # (ops import the engine)
    return _sum_to(g, shape)


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


def _wrap(grads):
    """Array mode: gradients as Tensors, for hooks and nodes without apply_arrays."""
    make = _Tensor[0]._make
    return [None if g is None else make(xp.asarray(g)) for g in grads]


def run_backward(roots, root_grads, keep_graph, create_graph, targets=None, accumulate=True):
    """Propagate ``root_grads`` from ``roots`` ((node, nr) pairs).

    targets: (node, nr) edges of ``inputs``. With accumulate=False their gradients are captured
    and returned instead of accumulated (autograd.grad); with accumulate=True only they receive.
    """
    root_nodes = list(dict.fromkeys(n for n, _ in roots))   # one node may hold several roots
    deps = _graph(root_nodes)
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
    # array mode: without create_graph, gradients flow as NumPy arrays; nodes with
    # apply_arrays take them as they are, every other node (and every hook) sees Tensors
    arrays = not create_graph or state.inference
    buffers = {}
    for (node, nr), g in zip(roots, root_grads):
        if arrays and g is not None:
            g = g._data
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
                if arrays:
                    grads = _wrap(grads)
                grads, hooks_done = _call_tensor_pre_hooks(node, grads), True
                for i, nr in captures[node]:
                    captured[i] = grads[nr]
                    if tr is not None:
                        tr.capture(node, i, nr, grads[nr])
            if needed is not None and node not in needed:
                node = None
                continue
            if (slow or hooks_done or node._pre_hooks is not None or node._hooks is not None
                    or node._tensor_pre_hooks is not None or node._retain_grad_hooks is not None):
                plain = False
            elif type(node) is AccumulateGrad:    # a leaf: no outputs, nothing to validate
                plain = arrays and node.accumulate_array(grads)   # False: the leaf has hooks
                out = ()
            else:       # no hooks: the common case
                plain = True
                if not arrays:
                    out = _validate(node, node.apply(grads))
                elif node._arrays and not state.grad:   # (a hook may have enabled grad)
                    # _exact: the gradient provably fits already (OpDef.attach)
                    out = (node.apply_arrays(grads) if node._exact else
                           _validate(node, node.apply_arrays(grads)))
                else:
                    grads = _wrap(grads)
                    out = [None if g is None else g._data
                           for g in _validate(node, node.apply(grads))]
            if plain:
                pass
            elif arrays:
                if not hooks_done:
                    grads = _wrap(grads)   # rebound: an AccumulateGrad may take the buffer
                out = [None if g is None else g._data
                       for g in _call_function(node, grads, hooks_done)]
            else:
                out = _call_function(node, grads, hooks_done)
            grads = None
            if not keep_graph:
                node.release()
            edges = node.next_functions
            # a chain link (one edge, or a second one to nothing, as for ``x + 0.5``): nxt
            # runs next, no buffer
            if not heap and (len(edges) == 1 or len(edges) == 2 and edges[1][0] is None):
                nxt, nr = edges[0]
                g = out[0]
                if nxt is not None and g is not None and deps[nxt] == 1 and nxt not in buffers:
                    deps[nxt] = 0
                    grads = [None] * len(nxt._input_metadata)
                    grads[nr] = g
                    node = nxt
                    out = g = None   # only grads holds it: an AccumulateGrad may take it
                    continue
            ready = None
            for (nxt, nr), g in zip(edges, out):
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
            else:             # the only ready node: no queue round trip
                node = ready
                grads = buffers.pop(node)
    except Exception:
        if state.anomaly and node is not None:
            warn_failure(node)   # the failing node's forward traceback, then the error
        raise
    finally:
        state.grad_enabled = prev
        if tr is not None:
            tr.end()
    return captured
