"""The graph's nodes: Node, AccumulateGrad, and the free functions PyTorch's autograd keeps
beside them (a tensor's gradient edge and leaf accumulator, retained gradients that follow a
tensor to a new grad_fn, the leaves a graph reaches).

No reference cycles: a node points back (to the nodes that made its inputs) and to the input
tensors it saved, never to its own outputs; an output it saves is kept as bare data and
re-wrapped on unpack. A graph is freed by reference counting as soon as its last user drops it.
"""
import itertools
import re
import sys
import threading
import weakref

from .._tensor import Tensor
from ..backend import ndarray, xp
from ..dtypes import _FROM_NP
from .anomaly import record as _record_anomaly
from .grad_mode import state
from .hooks import add_hook

_refcount = sys.getrefcount
_INF = float("inf")
sequence = itertools.count()    # nodes' sequence numbers (ops/_paths.py writes __init__ out)
# held around every read-modify-write of a leaf's .grad, as PyTorch's AccumulateGrad holds its
# mutex: backward passes in several threads into one leaf lose no update (NumPy releases the
# GIL during a large in-place add). One lock for all leaves: a leaf may have two accumulators
# made at once by two threads, and an uncontended lock costs a fraction of a microsecond.
_accumulating = threading.Lock()


META = {}       # (shape, NumPy dtype) -> a one-output node's input metadata, shared


def meta_of(d):
    """The input metadata of a node with one output array ``d`` (an op's node, a leaf's
    AccumulateGrad), shared between nodes: the exact-node test of ops/_paths.py compares it by
    identity. Shared only for NumPy's own dtypes: with ml_dtypes' bfloat16 a Python number is
    not weak (bfloat16 array * 0.5 is float32), so a bfloat16 node's gradients are always
    validated (cast back)."""
    meta = META.get((d.shape, d.dtype))
    if meta is None:
        meta = ((d.shape, _FROM_NP[d.dtype]),)
        if len(META) < 4096 and d.dtype.isbuiltin == 1:
            META[(d.shape, d.dtype)] = meta
    return meta


def flat_edges(edges):
    """Node._next of the edges ((node, input_nr), ...)."""
    return tuple(edges[0]) if len(edges) == 1 else tuple([x for e in edges for x in e])


def short_name(node):
    """The node name PyTorch's saved-tensor message uses: 'Add' for AddBackward0, 'Pow1' for
    PowBackward1 (only a trailing Backward0 goes whole)."""
    return re.sub(r"Backward(0?)(\d*)$", r"\2", node.name())


class Node:
    """A backward function. Subclasses are named like PyTorch's (MulBackward0, AccumulateGrad)."""
    # _source: where user code made the node (provenance.py); set by whoever makes the node
    # _plain: no hooks of its own (the four hook slots None) and, for a leaf's AccumulateGrad,
    # none on the leaf: the engine applies it without its hook path. Whoever adds a hook clears
    # it (it stays clear when hooks are removed: the hook path then finds none)
    # _next: the edges flat, (node0, input_nr0, node1, input_nr1, ...): one tuple per node, not
    # one per edge and one around them (fewer objects for the cyclic collector to track);
    # next_functions builds PyTorch's nested tuples from it on each access, as PyTorch does
    __slots__ = ("_next", "_sequence_nr", "_pre_hooks", "_hooks", "_tensor_pre_hooks",
                 "_retain_grad_hooks", "_plain", "_input_metadata", "_metadata", "_source",
                 "__weakref__")
    _exact = False      # True: the gradients it returns need no _validate (OpDef.attach)

    def __init__(self, next_functions=(), input_metadata=()):
        self._next = flat_edges(next_functions)
        self._input_metadata = input_metadata    # (shape, dtype) of each forward output
        self._sequence_nr = next(sequence)
        self._pre_hooks = self._hooks = self._tensor_pre_hooks = None
        self._retain_grad_hooks = self._metadata = None
        self._plain = True
        if state.anomaly:       # the forward traceback (anomaly_mode)
            _record_anomaly(self)

    def name(self):
        return type(self).__name__

    @property
    def next_functions(self):
        """((node, input_nr), ...): where each input's gradient goes, a new tuple on each
        access (as PyTorch's)."""
        e = self._next
        n = len(e)
        if n == 2:
            return ((e[0], e[1]),)
        if n == 4:
            return ((e[0], e[1]), (e[2], e[3]))
        it = iter(e)
        return tuple(zip(it, it))

    @next_functions.setter
    def next_functions(self, value):
        raise AttributeError(f"attribute 'next_functions' of '{type(self).__name__}' objects "
                             "is not writable")

    @property
    def requires_grad(self):
        return True

    @property
    def metadata(self):
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    def register_hook(self, fn):
        """fn(grad_inputs, grad_outputs) runs after the node; it may return new grad_inputs."""
        if self._hooks is None:
            self._hooks = {}
            self._plain = False
        return add_hook(self._hooks, fn)

    def register_prehook(self, fn):
        """fn(grad_outputs) runs before the node; it may return new grad_outputs."""
        if self._pre_hooks is None:
            self._pre_hooks = {}
            self._plain = False
        return add_hook(self._pre_hooks, fn)

    def _register_tensor_hook(self, output_nr, fn):
        if self._tensor_pre_hooks is None:
            self._tensor_pre_hooks = {}
            self._plain = False
        return add_hook(self._tensor_pre_hooks.setdefault(output_nr, {}), fn)

    def _tensor_hooks(self):
        """{output_nr: {id: hook}} of the tensors this node produced."""
        return self._tensor_pre_hooks

    def apply(self, grads):
        """grads: one gradient per forward output -> one per entry of next_functions."""
        raise NotImplementedError

    def apply_arrays(self, grads):
        """apply() in the engine's array mode (a backward without create_graph): gradients as
        NumPy arrays or scalars (or None), in and out. A node whose code works on arrays
        overrides it; this one hands apply() tensors."""
        return [None if g is None else g._data for g in self.apply(wrap_arrays(grads))]

    def release(self):
        """Free saved buffers (after a backward without retain_graph)."""

    def __repr__(self):
        return f"<{type(self).__name__} object at {hex(id(self))}>"


def wrap_arrays(grads):
    """Array-mode gradients as Tensors (for hooks and nodes that take tensors)."""
    make = Tensor._make
    return [None if g is None else make(xp.asarray(g)) for g in grads]


def _refuse_hook_result(out):
    """torch's errors for a post-accumulate-grad hook that returns something."""
    if isinstance(out, Tensor):
        raise RuntimeError("Tensor post accumulate grad hooks should return None.")
    raise TypeError(f"expected Variable, but hook returned '{type(out).__name__}'")


class AccumulateGrad(Node):
    """The sink of a leaf: adds incoming gradients into ``variable.grad``."""
    __slots__ = ("variable",)
    _exact = True       # no outputs to validate

    def __init__(self, variable, hook_state):
        Node.__init__(self, (), meta_of(variable._data))
        self.variable = variable
        self._sequence_nr = _INF    # PyTorch runs accumulators as soon as they are ready
        self._plain = not (hook_state.backward_hooks or hook_state.post_accumulate_grad_hooks)

    def name(self):
        return "torch::autograd::AccumulateGrad"

    def apply(self, grads):
        var, grad = self.variable, grads[0]
        with _accumulating:
            if var._grad is None:
                # the new .grad must not alias anything the user holds, unless it carries a
                # graph; a buffer only the engine holds (refcounts: this frame, grads,
                # getrefcount's argument; an owning, writable array nothing else refers to) is
                # taken as is
                if state.grad:
                    var._grad = grad
                elif (_refcount(grad) <= 3 and grad._hook_state is None and grad.grad_fn is None
                      and _refcount(grad._data) <= 2 and grad._data.base is None
                      and grad._data.flags.writeable):
                    var._grad = grad
                else:
                    var._grad = Tensor._make(grad._data.copy())
            elif state.grad:    # create_graph: out of place, so the sum stays differentiable
                var._grad = var._grad + grad
            else:
                var._grad._data += grad._data
                var._grad._version_counter.version += 1
        hs = var._hook_state
        if hs is not None and hs.post_accumulate_grad_hooks:
            tr = state.tracer
            for hook in tuple(hs.post_accumulate_grad_hooks.values()):
                if tr is None:
                    out = hook(var)
                else:
                    out = tr.call("post-accumulate-grad hook", self, hook, (var,))
                if out is not None:
                    _refuse_hook_result(out)
        return ()

    def apply_arrays(self, grads):
        """apply() in array mode, for a leaf without hooks: ``grads[0]`` is a NumPy array or
        scalar. The array becomes ``.grad`` as is when only the engine's buffer holds it
        (refcounts: the list, this frame, getrefcount's argument) and it owns its writable
        memory."""
        var, g = self.variable, grads[0]
        with _accumulating:
            if var._grad is None:
                if not (type(g) is ndarray and _refcount(g) <= 3 and g.base is None
                        and g.flags.writeable):
                    g = xp.array(g)
                var._grad = Tensor._make(g)
            else:
                var._grad._data += g
                var._grad._version_counter.version += 1
        return ()

    def _tensor_hooks(self):
        hs = self.variable._hook_state
        return {0: hs.backward_hooks} if hs is not None and hs.backward_hooks else None


def grad_accumulator(t):
    """The leaf's AccumulateGrad node, shared by every op that uses the leaf (PyTorch's
    impl::grad_accumulator)."""
    hs = t._hook_state or t._hooks()
    ref = hs.accumulator
    node = ref and ref()
    if node is None:
        node = AccumulateGrad(t, hs)
        hs.accumulator = weakref.ref(node)
    return node


def gradient_edge(t):
    """(node, input_nr) that a gradient of ``t`` flows into: its grad_fn, or its leaf
    accumulator (PyTorch's impl::gradient_edge); (None, 0) for a tensor that only requires
    grad through its base (a no_grad view)."""
    fn = t.grad_fn
    if fn is not None:
        return (fn, t._output_nr)
    return (grad_accumulator(t), 0) if t._requires_grad else (None, 0)


def move_retains_grad(t, old_fn, old_nr):
    """After ``t`` got a new grad_fn (an in-place op, a regenerated view grad_fn), a retained
    gradient comes from the new one, as PyTorch's update_tensor_hooks_on_new_gradfn does (hooks
    registered before stay on the old node)."""
    hooks = old_fn._retain_grad_hooks if old_fn is not None else None
    if hooks and t._hook_state.retains_grad and old_nr in hooks:
        new = t._grad_fn
        if new._retain_grad_hooks is None:
            new._retain_grad_hooks = {}
            new._plain = False
        new._retain_grad_hooks[t._output_nr] = hooks.pop(old_nr)


def reachable_leaves(roots):
    """The leaf tensors (AccumulateGrad variables) the nodes ``roots`` lead to, each once."""
    seen, stack = set(roots), list(roots)
    while stack:
        node = stack.pop()
        if isinstance(node, AccumulateGrad):
            yield node.variable
            continue
        for nxt in node._next[::2]:
            if nxt is not None and nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)


