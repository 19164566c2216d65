"""glassgrad.compile's engine: a function's op calls captured once per guard set, then replayed
as plain array calls under one autograd node, CompiledFunctionBackward.

Capture. The first call for a guard set runs the function eagerly with a _Capture in
``state.handler`` (the op interceptor slot): every OpDef call is run as it is and recorded (the
row, its operands as the row's prepare step gave them, its attrs, its results, the line of user
code). So are, as torch's compiler captures a training step: in-place ops that autograd does
not record and that do not write into a view (an optimizer's update, ``p -= lr * p.grad``
under no_grad), reads and writes of ``.grad``, ``.item()`` in a function marked
``_sym.traceable_reads`` (a symbolic float: Adam's step counter), and ``.backward()`` without
arguments, where torch breaks the graph and compiles both sides: the backward runs eagerly
between the captured regions (a _Trace). Reading a tensor's value in Python otherwise
(.item(), bool(), .tolist(), .numpy(), printing), an in-place op autograd records or one on a
view, a random draw, print(), or a tensor that the op table did not make (a factory,
``.data``, ``.detach()``: an optimizer's first step, which creates its state) breaks the
graph: the call finishes eagerly and the guard set is marked eager (later calls with it run
the function as it is). With fullgraph=True a break raises instead (torch._dynamo.exc's
Unsupported or UserError, with torch's first line where it is known: the backward break,
torch.optim's step; NotImplementedError for what glassgrad cannot capture although torch
can).

Replay. A _Graph holds the steps as (kind, kernel, operands, attrs, ...) tuples over slots of
one array list: the function's tensor arguments, the tensors it read from its globals,
closure, module or optimizer (externals), the gradients it read, then every op's outputs.
Each step calls the row's bound kernel (what OpDef.__call__ would call) on the arrays, so
results are bit for bit eager's; an in-place step copies the result into its target and
bumps the version counter (and the glass box's history) as apply_inplace does; a buffer is
dropped after its last use. Where an output requires grad, one CompiledFunctionBackward node
takes every output; its backward runs the captured rows' backward formulas (OpNode's own code:
_formulas on arrays for arrays=True rows, apply on tensors otherwise) in reverse order,
brings each gradient to its input's shape and dtype as the engine does, and sums gradients
in the engine's order. Saved arguments and outputs are SavedTensors (the version check and
PyTorch's message), intermediates bare arrays, all freed by release(). A region that writes
(in place, or ``.grad``) records no gradients (it would be refused), and the capture's own
call returns its eager result (its writes are done).

Guards: the key (grad mode, inference mode, default dtype, each tensor argument's type, shape,
dtype, strides and requires_grad, which arguments are the same tensor, every other argument by
value or identity) chooses the graphs; each graph then checks its externals' shape, dtype,
strides and requires_grad, the identity of the tensors and modules the function's globals and
closure name (and the values of their plain numbers), the modules' training flags and
parameters, an optimizer's param groups (hyper-parameters by value), state (tensors by
identity) and step hooks (none may be registered), and whether each gradient it reads first
is None or of the shape, dtype and strides it was; not, as torch's
(skip_nnmodule_hook_guards), the modules' hooks: a hook added after the capture is not run.
A gradient that differs once the replay has written something (after a backward, say) is an
error, not a miss. A miss compiles again, up to config.recompile_limit graphs, then runs
eagerly with torch's logged warning.
"""
import builtins
import functools
import logging
import math
import sys
import threading
import weakref

from .. import autograd, dtypes
from .._tensor import Size, Tensor
from .._autograd import provenance
from .._autograd.grad_mode import state
from .._autograd.node import AccumulateGrad, Node, grad_accumulator
from .._autograd.saved import SavedTensor, freed
from .._generator import default_generator
from ..backend import may_share_memory, ndarray, xp
from ..ops import _paths, registry
from ..utils._pytree import LeafSpec, tree_flatten, tree_unflatten
from . import _codegen, _sym, config, exc

_new = object.__new__
_TENSOR_TYPES = dtypes.TENSOR_TYPES
_PLAIN = (int, float, bool, str, type(None), complex, Size, dtypes.dtype)
_EXACT = {int, float, bool, str, type(None), complex}
_MISSING = object()
_CONTAINERS = frozenset((tuple, list, dict))   # what tree_flatten walks into
_log = logging.getLogger("glassgrad._dynamo")
_DOUBLE_BACKWARD = "torch.compile with aot_autograd does not currently support double backward"


class _Local(threading.local):
    capture = None      # the _Capture running in this thread


_local = _Local()
_compiled = weakref.WeakSet()       # every CompiledFunction (reset() empties their caches)


def is_compiling():
    """torch.compiler.is_compiling: True while a function is being captured."""
    return _local.capture is not None


def fullgraph_break(why):
    """A place where torch's compiler always breaks the graph (torch.optim's step calls
    torch._dynamo.graph_break() around its update): glassgrad's capture goes on through it,
    but fullgraph=True raises there as torch's does."""
    cap = _local.capture
    if cap is not None and cap.fullgraph:
        cap.stop(why, message=f"Call to `torch._dynamo.graph_break()`\n  Explanation: {why}")


# torch's first lines for a break that fullgraph=True turns into an error
_BACKWARD_BREAK = ("Unsupported Tensor.backward() call\n  Explanation: Dynamo currently does not "
                   "support tracing `Tensor.backward()` when trace_autograd_ops is off.")


def reset():
    """torch.compiler.reset / torch._dynamo.reset: forget every captured graph."""
    for f in list(_compiled):
        f.cache.clear()
        f.count = 0


# -- capture -----------------------------------------------------------------------------------
class _Capture:
    """The op interceptor while a function runs the first time for a guard set."""

    def __init__(self, fullgraph):
        self.fullgraph = fullgraph
        self.records = []
        self.reads = 0      # .item() values read symbolically
        self.saved = {}     # id(node) -> its saved values, kept before a backward pass
        self.broken = None
        self.done = False
        self.inner = state.handler

    def handle_call(self, op, values, attrs):
        values, attrs, syms = _sym.plain(values, attrs)
        state.handler = self.inner
        try:
            out = op(*values, **attrs)
        finally:
            if self.broken is None:
                state.handler = self
        arrays, want = op.prepare(values, attrs)
        self.records.append((op, values, attrs, arrays, want, out, provenance.site(2), syms))
        return out

    def handle_inplace(self, op, t, values, attrs, overlap):
        """An in-place op outside gradient recording (an optimizer's update, a grad zeroed)
        on a tensor that is not a view: run, and recorded to be replayed as a write."""
        values, attrs, syms = _sym.plain(values, attrs)
        if t._view is not None or t._base is not None:
            self.stop(f"an in-place op ({op.name}) on a view", NotImplementedError)
        elif state.grad and op.differentiable and (t.requires_grad or op.needs(values)):
            self.stop(f"an in-place op ({op.name}) recorded by autograd", NotImplementedError)
        if self.broken is not None:
            return registry.apply_inplace(op, t, values, attrs, overlap)
        state.handler = self.inner
        try:
            registry.apply_inplace(op, t, values, attrs, overlap)
        finally:
            if self.broken is None:
                state.handler = self
        arrays, want = op.prepare(values, attrs)
        self.records.append(("inplace", op, values, attrs, arrays, want, t,
                             provenance.site(2), syms))
        return t

    def handle_view_inplace(self, op, t, attrs):
        self.stop(f"an in-place view op ({op.name})", NotImplementedError)

    def note(self, record):
        """A Python-level effect or read (.grad read or written, .item(), a backward pass)."""
        if self.broken is None:
            self.records.append(record)

    def stop(self, reason, kind=exc.Unsupported, message=None):
        """A graph break: the rest of the call runs eagerly (fullgraph=True: raise, with
        ``message`` where torch's own is known)."""
        if self.broken is not None or self.done:    # (done: a value read symbolically that
            return                                  # outlived its capture)
        self.broken = reason
        if state.handler is self:
            state.handler = self.inner
        _local.capture = None
        if self.fullgraph and message is not None:
            raise kind(message)
        if self.fullgraph:
            raise kind(f"glassgrad.compile(fullgraph=True): graph break on {reason}" + (
                " (glassgrad captures no in-place ops recorded by autograd or on views, and no "
                "random draws; compile without fullgraph=True to run them eagerly)"
                if kind is NotImplementedError else ""))


def _escaping(name, fn, kind):
    """A Tensor method that hands a value to Python: a graph break while capturing."""
    @functools.wraps(fn)
    def method(self, *args, **kwargs):
        cap = _local.capture
        if cap is not None:
            cap.stop(f"Tensor.{name}() (a tensor's value read in Python)", kind)
        return fn(self, *args, **kwargs)
    return method


def _item(fn):
    """Tensor.item: inside a function registered with _sym.traceable_reads, a floating
    one-element tensor's value is read symbolically (see _sym.py); elsewhere a graph break."""
    @functools.wraps(fn)
    def item(self, *args, **kwargs):
        cap = _local.capture
        if cap is None:
            return fn(self, *args, **kwargs)
        value = fn(self, *args, **kwargs)
        if type(value) is float and _sym.traceable(sys._getframe(1).f_code):
            sym = _sym.Sym(value, ("read", cap.reads), cap.stop)
            cap.reads += 1
            cap.note(("item", self, sym))
            return sym
        cap.stop("Tensor.item() (a tensor's value read in Python)", NotImplementedError)
        return value
    return item


def _grad_property(prop):
    """Tensor.grad read or written while capturing: recorded (a replay reads the gradient
    then, checks it is what the capture saw, or writes it)."""
    def get(self):
        value = prop.fget(self)
        cap = _local.capture
        if cap is not None:
            cap.note(("grad_read", self, value))
        return value

    def set(self, value):
        prop.fset(self, value)
        cap = _local.capture
        if cap is not None:
            cap.note(("grad_write", self, value))

    def delete(self):
        cap = _local.capture
        if cap is not None:
            cap.stop("del Tensor.grad")
        prop.fdel(self)
    return property(get, set, delete, prop.__doc__)


def _backward_method(fn):
    """Tensor.backward while capturing: torch breaks the graph there and compiles the parts
    before and after; so does the capture (a "backward" record: the replay runs the eager
    backward between the parts), for ``loss.backward()`` without arguments."""
    @functools.wraps(fn)
    def backward(self, *args, **kwargs):
        cap = _local.capture
        if cap is None:
            return fn(self, *args, **kwargs)
        if args or kwargs:
            cap.stop("Tensor.backward() with arguments")
            return fn(self, *args, **kwargs)
        if cap.fullgraph:
            cap.stop("Tensor.backward()", message=_BACKWARD_BREAK)
        cap.note(("backward", self))
        for record in cap.records:
            out = record[5] if record[0] not in _NOTES else None
            for r in (out if type(out) in (tuple, list) else (out,)):
                node = getattr(r, "_grad_fn", None)
                if node is not None and id(node) not in cap.saved:
                    cap.saved[id(node)] = (node, node._saved)
        handler, state.handler, _local.capture = state.handler, cap.inner, None
        try:
            return fn(self)
        finally:
            state.handler, _local.capture = handler, cap
    return backward


# the exception fullgraph=True raises: torch's for a branch on a value (bool) and for what it
# refuses; NotImplementedError for a scalar read (torch traces .item() into its graph, glassgrad
# cannot, except symbolically in the functions _sym.traceable_reads marks)
_ESCAPES = {"_scalar": NotImplementedError, "__bool__": exc.UserError,
            "tolist": exc.Unsupported, "numpy": exc.Unsupported, "__array__": exc.Unsupported,
            "__repr__": exc.Unsupported, "__str__": exc.Unsupported,
            "__format__": exc.Unsupported, "data_ptr": exc.Unsupported,
            # what changes the graph around a captured tensor (a replay would not do it)
            "register_hook": exc.Unsupported, "retain_grad": exc.Unsupported,
            "requires_grad_": exc.Unsupported}
_installed = []
# Tensor attributes replaced only while a function is captured (in every thread: each looks
# at its own capture), so that eager code pays nothing and .grad's warning keeps its stack
# level: .grad read and written, .backward()
_CAPTURE_METHODS = {}


_EAGER_METHODS = {}
_capturing = [0]        # captures running now, in all threads
_capturing_lock = threading.Lock()


def _capture_methods(on):
    """The capture methods on Tensor while at least one capture runs (``on``: one begins;
    else one ends)."""
    with _capturing_lock:
        _capturing[0] += 1 if on else -1
        if _capturing[0] == (1 if on else 0):
            for name, method in (_CAPTURE_METHODS if on else _EAGER_METHODS).items():
                setattr(Tensor, name, method)


def _install_escapes():
    """Wrap the value-reading Tensor methods once (each then costs one thread-local read)."""
    if _installed:
        return
    for name, kind in _ESCAPES.items():
        setattr(Tensor, name, _escaping(name, getattr(Tensor, name), kind))
    Tensor.item = _item(Tensor.item)
    _EAGER_METHODS.update(grad=Tensor.grad, backward=Tensor.backward)
    _CAPTURE_METHODS.update(grad=_grad_property(Tensor.grad),
                            backward=_backward_method(Tensor.backward))
    data = Tensor.data
    Tensor.data = property(_escaping("data", data.fget, exc.Unsupported), data.fset)
    run = autograd.run_backward     # a backward pass (.grad written, hooks run): a break

    @functools.wraps(run)
    def run_backward(*args, **kwargs):
        cap = _local.capture
        if cap is not None:
            cap.stop("a backward pass (.backward(), autograd.grad)")
        return run(*args, **kwargs)
    autograd.run_backward = run_backward
    _installed.append(True)


def _print(*args, **kwargs):
    cap = _local.capture
    if cap is not None:
        cap.stop("print() (a Python side effect)")
    return _builtin_print(*args, **kwargs)


_builtin_print = builtins.print


# -- what the function may read besides its arguments --------------------------------------------
class _Roots:
    """The tensors a function may read that outlive a call (its globals, closure, defaults and
    module: externals), and the guards that they are still those: (kind, holder, key, value)."""

    def __init__(self, fn, module=None):
        self.refuse = None      # why the function cannot be replayed although it captures
        self.ids = set()
        self.guards = []
        self.modules = set()
        self._code(getattr(fn, "__func__", fn), set())
        owner = getattr(fn, "__self__", None)
        if module is not None:
            self._value(module, None)
        if owner is not None:
            self._value(owner, None)
            forward = getattr(type(owner), "forward", None)
            if forward is not None:
                self._code(forward, set())
        for d in (getattr(fn, "__defaults__", None) or ()):
            self._value(d, None)

    def _code(self, fn, seen):
        code = getattr(fn, "__code__", None)
        if code is None or code in seen:
            return
        seen.add(code)
        g = getattr(fn, "__globals__", {})
        for c in [code]:
            stack = [c]
            while stack:
                c = stack.pop()
                for name in c.co_names:
                    v = g.get(name, _MISSING)
                    if v is not _MISSING:
                        self._value(v, ("global", g, name))
                stack.extend(k for k in c.co_consts if hasattr(k, "co_names"))
        for cell in getattr(fn, "__closure__", None) or ():
            try:
                v = cell.cell_contents
            except ValueError:
                continue
            self._value(v, ("cell", cell, None))

    def _value(self, v, where):
        t = type(v)
        if t in _TENSOR_TYPES or (isinstance(v, _PLAIN) and where is not None):
            if t in _TENSOR_TYPES:
                self.ids.add(id(v))
            if where is not None:
                self.guards.append((*where, v))
        elif t in (list, tuple) and where is not None:     # a list of parameters, ...
            self.guards.append((*where, v))
            for i, x in enumerate(v):
                if type(x) in _TENSOR_TYPES:
                    self.ids.add(id(x))
                    self.guards.append(("item", v, i, x))
        elif hasattr(v, "_parameters") and hasattr(v, "modules"):     # an nn.Module
            if where is not None:
                self.guards.append((*where, v))
            self._module(v)
        elif hasattr(v, "param_groups") and hasattr(v, "state"):    # an optimizer
            if where is not None:
                self.guards.append((*where, v))
            self._optimizer(v)

    def _optimizer(self, opt):
        """An optimizer's parameters, hyper-parameters (Python values, by value) and state
        (its tensors by identity: created on the first step, so that step runs eagerly and the
        next one compiles); its parameters' gradients are read as the capture reads them."""
        if id(opt) in self.modules:
            return
        self.modules.add(id(opt))
        self.guards.append(("attr", opt, "param_groups", opt.param_groups))
        # the step hooks its step wrapper runs (the optimizer's and, in that wrapper's module,
        # the global ones): a replay would not run their Python, so none may be registered
        wrapper_globals = getattr(getattr(type(opt), "step", None), "__globals__", {})
        for table in (getattr(opt, "_optimizer_step_pre_hooks", None),
                      getattr(opt, "_optimizer_step_post_hooks", None),
                      wrapper_globals.get("_global_optimizer_pre_hooks"),
                      wrapper_globals.get("_global_optimizer_post_hooks")):
            if table is not None:
                self.guards.append(("keys", table, None, tuple(table)))
                if table:
                    self.refuse = "optimizer step hooks (a replay would not run them)"
        for k, group in enumerate(opt.param_groups):
            self.guards.append(("item", opt.param_groups, k, group))
            for key, value in group.items():
                if key != "params" and any(type(v) not in _EXACT and type(v) not in _TENSOR_TYPES
                                           for v in (value if type(value) is tuple else (value,))):
                    # (a NumPy float's arithmetic with a value read symbolically takes its
                    # captured value)
                    self.refuse = f"an optimizer hyper-parameter ({key}) of a NumPy or other type"
                if key == "params" or type(value) in _TENSOR_TYPES or isinstance(
                        value, (*_PLAIN, tuple)):
                    self._value(value, ("global", group, key))
                else:
                    self.guards.append(("global", group, key, value))
            for p in group["params"]:
                st = opt.state.get(p, _MISSING)
                self.guards.append(("global", opt.state, p, st))
                if st is _MISSING:
                    continue
                self.guards.append(("keys", st, None, tuple(st)))
                for key, value in st.items():
                    self._value(value, ("global", st, key))

    def _module(self, module):
        if id(module) in self.modules:
            return
        for m in module.modules():
            self.modules.add(id(m))
            self.guards.append(("training", m, None, m.training))
            for d in (m._parameters, m._buffers):
                for name, p in d.items():
                    self.guards.append(("global", d, name, p))
                    if p is not None:
                        self.ids.add(id(p))
            for name, v in vars(m).items():
                if type(v) in _TENSOR_TYPES:
                    self.ids.add(id(v))
                    self.guards.append(("global", vars(m), name, v))


def _guards_hold(guards):
    for kind, holder, key, value in guards:
        if kind == "global":
            v = holder.get(key, _MISSING)
        elif kind == "item":
            v = holder[key] if key < len(holder) else _MISSING
        elif kind == "cell":
            try:
                v = holder.cell_contents
            except ValueError:
                return False
        elif kind == "attr":
            v = getattr(holder, key, _MISSING)
        elif kind == "keys":
            if tuple(holder) != value:
                return False
            continue
        else:
            if holder.training != value:
                return False
            continue
        if v is not value and (type(v) is not type(value) or not isinstance(v, _PLAIN)
                               or v != value):
            return False
    return True


# -- the graph -------------------------------------------------------------------------------------
def _tensors_hold(externals, grad_guards):
    """Are the externals' shape, dtype, strides and requires_grad, and the gradients read
    first, what the capture saw?"""
    for _, t, meta in externals:
        d = t._data
        if (d.shape, d.dtype, d.strides, t.requires_grad) != meta:
            return False
    for t, meta in grad_guards:
        grad = t._grad
        if grad is None or meta is None:
            if grad is not meta:
                return False
        elif (grad._data.shape, grad._data.dtype, grad._data.strides) != meta:
            return False
    return True


class _Target:
    """What a captured node's edge points at for engine._validate: the input's shape, dtype."""
    __slots__ = ("_input_metadata",)

    def __init__(self, meta):
        self._input_metadata = (meta,)


class _Eager:
    """A guard set whose capture broke: the function runs as it is."""
    def __init__(self, reason, guards=()):
        self.reason = reason
        self.guards = guards

    def holds(self):
        return _guards_hold(self.guards)


class _Graph:
    """One captured region: forward steps over array slots, and the backward steps."""

    def __init__(self):
        self.steps = []         # (kind, kernel, operands, attrs, want, n_diff, outs, extra, free):
        # see _codegen.forward_source
        self.arg_slots = []     # the slot of each distinct tensor argument
        self.externals = []     # (slot, tensor, (shape, dtype, strides, requires_grad))
        self.guards = []
        self.gsteps = []        # backward: see _build_backward
        self.ops = []           # (row name, site) of each step, for the glass box
        self.written = set()    # the slots written in place
        self.grad_guards = []   # (external, None or its .grad's (shape, dtype, strides))
        self.fused = None       # the bare forward of run_fused, where a backward follows

    def holds(self):
        return _tensors_hold(self.externals, self.grad_guards) and _guards_hold(self.guards)

    def run(self, tensors):
        """This call's outputs: the generated forward (see _codegen.py), then the outputs as
        tensors under one CompiledFunctionBackward node when one requires grad."""
        arrays, saved = self.forward(tensors, self.ext)
        made = dict(zip(self.result_slots, arrays))
        node = None
        if self.diff_slots:
            edges = tuple(_paths.edge(self._input(s, tensors)) for s in self.edge_slots)
            node = CompiledFunctionBackward(edges, self.diff_meta)
            node._source = provenance.site(2)
            node._graph = self
        for k, s in enumerate(self.diff_slots):
            t = made[s] = Tensor._make(made[s], grad_fn=node)
            t._output_nr = k
        leaves = self._leaves(made)
        if node is not None:
            for s in self.sv_late:      # returned outputs the backward reads: an alias on the
                t = made[s]     # version counter (torch's message names no node for them)
                saved.append(SavedTensor(Tensor._make(t._data, counter=t._version_counter),
                                         False))
            node._values = saved
        return _unflatten(leaves, self.out_spec, self.out_kind)

    def _leaves(self, made):
        """The output leaves: ``made``'s arrays (slot -> array or tensor) as tensors, each
        slot's once, and the plain values."""
        leaves = []
        for s, c in self.out_leaves:
            if s is None:
                leaves.append(c)
                continue
            t = made[s]
            if type(t) is ndarray:
                t = made[s] = Tensor._make(t)
            leaves.append(t)
        return leaves

    def run_fused(self, tensors):
        """run() and the backward pass from its one differentiable output, in one go: the
        forward, the region's backward on the saved arrays, then each leaf's AccumulateGrad;
        the output comes back as a tensor under a CompiledFunctionBackward node already
        released, as a backward pass leaves it. Inside one call nothing can write the saved
        arguments between forward and backward, so no SavedTensor or version check is made.
        None (nothing done; run() and the pass take over) unless, as _direct_backward asks,
        every edge goes to a leaf whose AccumulateGrad has no hooks and no anomaly mode,
        trace, enclosing pass or vmap is on."""
        if (state.anomaly or state.tracer is not None or state.graph_task is not None
                or state.vmap is not None):
            return None
        sinks, ext = [], self.ext
        for k in self.edge_index:
            v = tensors[k] if k >= 0 else ext[-k - 1]
            if v._grad_fn is not None or v._view is not None or not v._requires_grad:
                return None
            fn = grad_accumulator(v)
            if not fn._plain:
                return None
            sinks.append((fn, 0))
        arrays, saved = self.fused(tensors, ext)
        made = dict(zip(self.result_slots, arrays))
        saved += [made[s] for s in self.sv_late]
        root = made[self.diff_slots[0]]
        prev, state.grad_enabled = state.grad_enabled, False
        try:
            grads = self.backward(None, saved, [self.one.copy()])
        finally:
            state.grad_enabled = prev
        del saved
        node = CompiledFunctionBackward(tuple(sinks), self.diff_meta)
        node._source = provenance.site(2)
        node._graph, node._values = self, None
        t = made[self.diff_slots[0]] = Tensor._make(root, grad_fn=node)
        del root
        for fn, _ in reversed(sinks):
            box = [grads.pop()]     # the only reference: AccumulateGrad may keep the array
            if box[0] is not None:
                fn.apply_arrays(box)
        provenance.backward_ran(t, False)
        return _unflatten(self._leaves(made), self.out_spec, self.out_kind)

    def _input(self, s, tensors):
        k = self.input_index[s]
        return tensors[k] if k >= 0 else self.externals[-k - 1][1]


class CompiledFunctionBackward(Node):
    """The one node of a compiled region (torch's name). ``covers``: the ops it replays, with
    the line of user code that called each."""
    __slots__ = ("_graph", "_values")
    _exact = True
    # the glass box reads it as an autograd.Function's node: the forward of torch's compiled
    # region is an autograd.Function of that name, saving with ctx.save_for_backward
    _forward_cls = type("CompiledFunction", (), {})

    def apply_arrays(self, grads):
        if self._values is None:
            raise freed(self)
        return self._graph.backward(self, self._values, grads)

    @property
    def _saved(self):
        """The SavedTensors among the saved values (None for bare intermediates), as the glass
        box reads a Function's; None once freed."""
        values = self._values
        return None if values is None else tuple(
            v if type(v) is SavedTensor else None for v in values)

    def apply(self, grads):
        prev, state.grad_enabled = state.grad_enabled, False
        try:
            out = self.apply_arrays([None if g is None else g._data for g in grads])
        finally:
            state.grad_enabled = prev
        out = [None if g is None else xp.asarray(g) for g in out]
        fn = None
        if state.grad:      # (create_graph) a node that refuses to run, as torch's
            fn = CompiledFunctionBackwardBackward((), tuple(
                (g.shape, dtypes._FROM_NP[g.dtype]) for g in out if g is not None))
        made, k = [], 0
        for g in out:
            made.append(None if g is None else Tensor._make(g, grad_fn=fn))
            if g is not None:
                made[-1]._output_nr, k = k, k + 1
        return made

    def release(self):
        self._values = None

    @property
    def covers(self):
        """[(op's node name, 'file:line: `source`')] of every op the region replays."""
        return [(name, provenance.describe(site)) for name, site in self._graph.ops]

    def __repr__(self):
        return f"<torch.autograd.function.CompiledFunctionBackward object at {hex(id(self))}>"


class CompiledFunctionBackwardBackward(Node):
    """The gradient of a compiled region's backward (torch does not support double backward)."""
    __slots__ = ()

    def apply(self, grads):
        raise RuntimeError(_DOUBLE_BACKWARD)

    def __repr__(self):
        return (f"<torch.autograd.function.CompiledFunctionBackwardBackward object at "
                f"{hex(id(self))}>")


# -- building a graph from a capture ------------------------------------------------------------
class _Unsupported(Exception):
    pass


def _build(cap, leaves, roots):
    """What replays a finished capture: one _Graph, or a _Trace of graphs around the eager
    backward passes the function ran; raise _Unsupported(reason) where neither can."""
    parts = [[]]
    for record in cap.records:
        if record[0] == "backward":
            parts.append(record)
            parts.append([])
        else:
            parts[-1].append(record)
    if len(parts) == 1:
        return _build_graph(cap.records, cap.result, leaves, roots, cap.saved)
    return _Trace(parts, cap.result, leaves, roots, cap.saved)


def _build_graph(records, result, leaves, roots, saved, later=False):
    """The _Graph of one captured region (later: it runs after an effect of the same call, so
    a gradient that is not what the capture saw is an error, not a guard miss; saved: the
    nodes' saved values as they were before a backward pass of the capture freed them)."""
    b = _Builder(roots, leaves, later)
    for record in _live(records, result):
        kind = record[0]
        if kind == "grad_read":
            b.grad_read(*record[1:])
        elif kind == "grad_write":
            b.grad_write(*record[1:])
        elif kind == "item":
            g = b.g
            g.steps.append(("item", None, ((b.slot(record[1]), None, None),), None, None, None,
                            (), record[2].expr[1]))
        else:
            b.op(record)
    g = b.g
    g.n_slots, g.texpr, g.effects = len(b.slots), b.texpr, b.effects
    _outputs(g, result, b.slots, b.data_slots, b.keep[:len(g.arg_slots)])
    if g.diff_slots and g.written:
        raise _Unsupported("an in-place op in a region that records gradients")
    if any(s in g.out_slots and s not in b.texpr for s in g.written):
        raise _Unsupported("an output written in place")
    _build_backward(g, b.grads, b.slots, saved)
    _lifetimes(g)
    g.guards = roots.guards
    _codegen.saved_plan(g)
    g.forward = _codegen.forward_source(g)
    g.backward = _codegen.backward_source(g)
    return g


class _Builder:
    """A _Graph's forward steps from the records: slots for the tensors (arguments, then
    externals and op results as they come), and ``texpr``, the generated code's name of the
    tensors it has (arguments ``I[k]``, externals ``E[k]``, gradients read ``r<slot>``)."""

    def __init__(self, roots, leaves, later):
        self.g = g = _Graph()
        self.roots = roots
        self.slots = {}         # id(tensor) -> slot
        self.keep = []          # (the tensors whose ids are keys)
        self.texpr = {}
        self.data_slots = {}    # slot -> the op result it holds
        self.grads = []         # (step, op, node, values, results) of each recording op
        self.effects = self.later = later   # whether a step so far wrote something
        self.grad_seen = set()  # the owners whose .grad was read or written already
        g.input_index = {}
        for leaf in leaves:
            if type(leaf) in _TENSOR_TYPES and id(leaf) not in self.slots:
                s = self.new_slot(leaf)
                g.input_index[s] = len(g.arg_slots)
                self.texpr[s] = f"I[{len(g.arg_slots)}]"
                g.arg_slots.append(s)

    def new_slot(self, t):
        s = self.slots[id(t)] = len(self.slots)
        self.keep.append(t)
        return s

    def slot(self, t):
        s = self.slots.get(id(t))
        if s is None:
            if id(t) not in self.roots.ids:
                raise _Unsupported("a tensor the op table did not make (a factory, .data, "
                                   ".detach() or a Python-level result)")
            g = self.g
            s = self.new_slot(t)
            d = t._data
            g.externals.append((s, t, (d.shape, d.dtype, d.strides, t.requires_grad)))
            g.input_index[s] = -len(g.externals)
            self.texpr[s] = f"E[{len(g.externals) - 1}]"
        return s

    def grad_read(self, owner, value):
        """A check that owner.grad is what the capture read (and its slot, when new); an
        external's first read, before any write of it, is a guard of the graph too."""
        g, texpr = self.g, self.texpr
        s = self.slot(owner)
        if s not in texpr:
            raise _Unsupported("the .grad of an intermediate tensor")
        if value is None:
            expect, outs = None, ()
        elif id(value) in self.slots:
            if self.slots[id(value)] not in texpr:
                raise _Unsupported("a .grad set to an intermediate tensor")
            expect, outs = ("same", texpr[self.slots[id(value)]]), ()
        else:
            v = self.new_slot(value)
            texpr[v] = f"r{v}"
            d = value._data
            expect, outs = ("new", v, (d.shape, d.dtype, d.strides)), (v,)
        g.steps.append(("grad_read", None, (), None, None, None, outs,
                        (texpr[s], expect, self.effects)))
        if (not self.later and g.input_index[s] < 0 and s not in self.grad_seen
                and (expect is None or expect[0] == "new")):
            g.grad_guards.append((owner, expect if expect is None else expect[2]))
        self.grad_seen.add(s)

    def grad_write(self, owner, value):
        s = self.slot(owner)
        v = None if value is None else self.texpr.get(self.slots.get(id(value)))
        if s not in self.texpr or (value is not None and v is None):
            raise _Unsupported("a .grad written on or to an intermediate tensor")
        self.g.steps.append(("grad_write", None, (), None, None, None, (),
                             (self.texpr[s], v)))
        self.grad_seen.add(s)
        self.effects = True

    def op(self, record):
        """An op's step: its kernel on its operands' slots (an in-place one's result copied
        into its target, whose version it bumps)."""
        g = self.g
        inplace = record[0] == "inplace"
        if inplace:
            _, op, values, attrs, arrays, want, target, site, syms = record
            self.effects = True
        else:
            op, values, attrs, arrays, want, out, site, syms = record
        operands = _operands(op, values, arrays, self.slot, syms)
        for v in attrs.values():
            if isinstance(v, (Tensor, ndarray)) or (type(v) in (list, tuple) and any(
                    isinstance(x, (Tensor, ndarray)) for x in v)):
                raise _Unsupported(f"{op.name} with an array attribute")
        kernel = (op.kernels.get(type(arrays[0])) if arrays else None) or op.kernel(arrays)
        g.ops.append((op.name, site))
        if inplace:
            s = self.slot(target)
            into = None if syms else _codegen.ufunc_into(op, kernel, attrs, arrays, target._data)
            g.steps.append(("inplace", kernel, tuple(operands), dict(attrs), None, None, (),
                            (syms and syms[1], s, self.texpr.get(s), op.name, site, into)))
            g.written.add(s)
            return
        results = list(out) if op.multi else [out]
        if not op.multi:
            cheap = None if syms else _codegen.ufunc_step(op, kernel, operands, arrays, attrs)
            if cheap is not None:
                kernel, operands, attrs = cheap
            else:
                kernel = _codegen.cheaper_kernel(op, kernel, arrays, attrs, out._data) or kernel
        outs = tuple(self.new_slot(r) for r in results)
        self.data_slots.update(zip(outs, results))
        ndiff = None if not op.multi else (len(results) if op.outputs is None else op.diff_outputs)
        g.steps.append(("op", kernel, tuple(operands), dict(attrs),
                        None if want is None else want.np, ndiff, outs, syms and syms[1]))
        node = results[0]._grad_fn
        if node is not None and getattr(type(node), "op", None) is op:
            self.grads.append((len(g.steps) - 1, op, node, values, results))


def _operands(op, values, arrays, slot, syms):
    """Each operand of a recorded op: (slot, None, cast) for a tensor, (None, constant, None)
    for anything else, (None, Sym, None) for a value read symbolically."""
    operands = []
    for j, (v, a) in enumerate(zip(values, arrays)):
        if type(v) in _TENSOR_TYPES:
            d = v._data
            if a is d:
                cast = None
            elif type(a) is ndarray and a.shape == d.shape and a.dtype != d.dtype:
                cast = a.dtype
            else:
                raise _Unsupported(f"{op.name}'s prepared operand")
            operands.append((slot(v), None, cast))
        elif syms and j in syms[0]:
            if a is not v:
                raise _Unsupported(f"{op.name}'s prepared symbolic operand")
            operands.append((None, syms[0][j], None))
        else:
            operands.append((None, a, None))
    return operands


class _Trace:
    """A function that ran backward passes: its captured regions (graphs) and the passes
    between them, replayed in order. ``env``: the arguments, then each region's outputs that
    a later part reads (the tensor a backward starts from, the function's result)."""

    def __init__(self, parts, result, leaves, roots, saved):
        env = _distinct(leaves)
        self.steps = []
        regions = parts[0::2]
        for k, records in enumerate(regions):
            later_ids = _ids_read(parts[2 * k + 1:], result)
            made = [r for rec in records if rec[0] not in _NOTES
                    for r in (list(rec[5]) if rec[0].multi else [rec[5]])]
            outs = [t for t in dict.fromkeys(made) if id(t) in later_ids]
            g = _build_graph(records, outs, env, roots, saved, later=k > 0)
            self.steps.append((g, len(env)))
            env = env + outs
            if 2 * k + 1 < len(parts):
                t = parts[2 * k + 1][1]
                index = [i for i, x in enumerate(env) if x is t]
                if not index:
                    raise _Unsupported("a backward pass from a tensor the region did not make")
                self.steps.append((None, index[0]))
                if index[0] >= len(env) - len(outs):
                    _fusable(g, g.out_leaves[index[0] - len(env) + len(outs)][0])
        leaves, self.out_spec = tree_flatten(result)
        self.out_kind = _spec_kind(self.out_spec)
        self.out_leaves = []
        for leaf in leaves:
            if type(leaf) in _TENSOR_TYPES:
                index = [i for i, x in enumerate(env) if x is leaf]
                if not index:
                    raise _Unsupported("an output that is not an op's result")
                self.out_leaves.append((index[0], None))
            else:
                self.out_leaves.append(_plain_out(leaf))
        self.graphs = [g for g, _ in self.steps if g is not None]
        self.effects = True
        # each external once (the regions read the same parameters), every first gradient read
        seen = {}
        for g in self.graphs:
            for e in g.externals:
                seen.setdefault((id(e[1]), e[2]), e)
        self.externals = list(seen.values())
        self.grad_guards = [x for g in self.graphs for x in g.grad_guards]

    def holds(self):        # (the graphs share the function's guards)
        return (_tensors_hold(self.externals, self.grad_guards)
                and _guards_hold(self.graphs[0].guards))

    def run(self, tensors):
        env = list(tensors)
        fused = None
        for g, n in self.steps:
            if g is None:
                if fused is None and not _direct_backward(env[n]):
                    env[n].backward()
                continue
            fused = g.run_fused(env[:n]) if g.fused is not None else None
            env += g.run(env[:n]) if fused is None else fused
        return _unflatten([c if i is None else env[i] for i, c in self.out_leaves],
                          self.out_spec, self.out_kind)


def _fusable(g, root):
    """Give ``g`` its fused replay (``g.fused``, a forward that returns the saved arguments
    as arrays; see _Graph.run_fused) when the backward pass that follows it starts from its
    only output that requires grad, a one-element floating tensor."""
    if g.diff_slots == [root] and len(g.diff_meta) == 1:
        shape, dtype = g.diff_meta[0]
        if dtype.is_floating_point and math.prod(shape) == 1:
            g.fused = _codegen.forward_source(g, bare=True)
            g.edge_index = [g.input_index[s] for s in g.edge_slots]
            g.one = xp.ones(shape, dtype.np)    # (the seed gradient, copied for each pass)


def _direct_backward(t):
    """``t.backward()`` for a one-element output of a compiled region whose node sends every
    gradient straight to leaves without hooks: the region's backward, then each leaf's own
    AccumulateGrad, with what Tensor.backward and the engine do around them (grad mode off,
    the node released, the pass recorded for the glass box) but no queue. False (nothing
    done: the caller runs t.backward()) for anything else: hooks, retain_grad, anomaly mode,
    a trace, a pass inside another, an edge to a non-leaf, an error (the engine then raises
    and explains it)."""
    node = t._grad_fn
    if (type(node) is not CompiledFunctionBackward or state.anomaly or state.tracer is not None
            or state.graph_task is not None or state.vmap is not None or not node._plain
            or t._data.size != 1 or t._data.dtype.kind != "f" or t._output_nr != 0
            or len(node._input_metadata) != 1):
        return False
    sinks = []
    for fn, _ in node.next_functions:
        if fn is not None and (type(fn) is not AccumulateGrad or not fn._plain):
            return False
        sinks.append(fn)
    prev, state.grad_enabled = state.grad_enabled, False
    try:
        grads = node.apply_arrays([xp.ones(t._data.shape, t._data.dtype)])
    except Exception:   # noqa: BLE001 - the engine raises it again, explained
        return False
    finally:
        state.grad_enabled = prev
    node.release()
    for fn in reversed(sinks):
        box = [grads.pop()]     # the only reference: AccumulateGrad may keep the array
        if fn is not None and box[0] is not None:
            fn.apply_arrays(box)
    provenance.backward_ran(t, False)
    return True


_NOTES = ("grad_read", "grad_write", "item", "inplace", "backward")


def _ids_read(parts, result):
    """The ids of the tensors that the later parts of a trace (records, and backward records)
    or its result read."""
    ids = {id(t) for t in tree_flatten(result)[0] if type(t) in _TENSOR_TYPES}
    for part in parts:
        for rec in ([part] if part and part[0] == "backward" else part):
            kind = rec[0]
            if kind == "backward" or kind == "item":
                ids.add(id(rec[1]))
            elif kind in ("grad_read", "grad_write"):
                ids.update((id(rec[1]), id(rec[2])))
            else:
                values = rec[2] if kind == "inplace" else rec[1]
                ids.update(id(v) for v in values)
    return ids


def _live(records, result):
    """The records the outputs or an effect depend on (an op whose result nothing uses, such
    as a check on a detached tensor, is left out: ops write nothing in a captured graph);
    effects (in-place ops, .grad written), .grad reads and .item() reads are all kept."""
    live = {id(t) for t in tree_flatten(result)[0] if type(t) in _TENSOR_TYPES}
    out = []
    for record in reversed(records):
        kind = record[0]
        if kind in _NOTES:
            out.append(record)
            if kind == "inplace":
                live.update(id(v) for v in record[2] if type(v) in _TENSOR_TYPES)
            elif kind == "item":
                live.add(id(record[1]))
            elif kind == "grad_write":
                live.add(id(record[2]))
            continue
        op, values, results = record[0], record[1], record[5]
        if any(id(r) in live for r in (results if op.multi else (results,))):
            out.append(record)
            live.update(id(v) for v in values if type(v) in _TENSOR_TYPES)
    return out[::-1]


def _spec_kind(spec):
    """"leaf" for a result that is one value, "list" for a list of values, else None (the
    cases _unflatten builds without tree_unflatten's walk)."""
    if type(spec) is LeafSpec:
        return "leaf"
    if spec.type is list and all(type(c) is LeafSpec for c in spec.children):
        return "list"
    return None


def _unflatten(leaves, spec, kind):
    """tree_unflatten(leaves, spec), ``kind`` that of _spec_kind(spec)."""
    if kind == "leaf":
        return leaves[0]
    return leaves if kind == "list" else tree_unflatten(leaves, spec)


def _plain_out(leaf):
    """An output leaf that is no tensor: (None, the value) for a plain Python value, which a
    replay returns as it is; refused otherwise."""
    if type(leaf) is _sym.Sym:
        raise _Unsupported("a value read with .item() returned")
    if not isinstance(leaf, _PLAIN):
        raise _Unsupported(f"an output of type {type(leaf).__name__}")
    return None, leaf


def _outputs(g, result, slots, data_slots, args):
    leaves, g.out_spec = tree_flatten(result)
    g.out_kind = _spec_kind(g.out_spec)
    g.ext = [t for _, t, _ in g.externals]
    g.out_leaves = []
    inputs = [t._data for s, t, _ in g.externals] + [t._data for t in args]
    for leaf in leaves:
        if type(leaf) in _TENSOR_TYPES:
            s = slots.get(id(leaf))
            if s is None or s not in data_slots:
                raise _Unsupported("an output that is not an op's result (an argument or a "
                                   "tensor made outside the op table)")
            if any(may_share_memory(leaf._data, d) for d in inputs):
                raise _Unsupported("an output that is a view of an input")
            g.out_leaves.append((s, None))
        else:
            g.out_leaves.append(_plain_out(leaf))
    g.out_slots = [s for s, _ in g.out_leaves if s is not None]
    g.result_slots = list(dict.fromkeys(g.out_slots))
    g.diff_slots = list(dict.fromkeys(s for s in g.out_slots if data_slots[s].requires_grad))
    g.diff_meta = tuple((data_slots[s]._data.shape, data_slots[s].dtype) for s in g.diff_slots)
    g.data_slots = data_slots


def _build_backward(g, grads, slots, saved):
    """The backward steps that reach a differentiable output: (saved recipe, node class, edge
    targets, each edge's slot, output metadata, arrays mode, gradient slots)."""
    needed = set(g.diff_slots)
    returned = {s: k for k, s in enumerate(g.diff_slots)}
    edge_slots = {}
    for index, op, node, values, results in reversed(grads):
        ndiff = len(node._input_metadata)
        outs = g.steps[index][6][:ndiff]
        if not needed.intersection(outs):
            continue
        inputs = values if op.variadic else [values[i] for i in op.diff]
        edges, eslots = [], []
        for (fn, _), v in zip(node.next_functions, inputs):
            if fn is None:
                edges.append((None, 0))
                eslots.append(None)
                continue
            s = slots[id(v)]
            needed.add(s)
            edges.append((_Target((v._data.shape, v.dtype)), 0))
            eslots.append(s)
            if s in g.input_index:
                edge_slots[s] = True

        def ref(t):
            s = slots[id(t)]
            if s in g.input_index:
                return (2, s, 0)
            if s in returned and s in g.out_slots:
                return (3, s, 0)
            return (1, s, 0)
        recipe = []
        for k, (name, kind, i, _) in enumerate(op._save_plan):
            v = saved.get(id(node), (None, node._saved))[1][k]
            if kind is registry._SAVE_INPUT and type(v) is SavedTensor:
                recipe.append(ref(values[i]))
            elif kind is registry._SAVE_OUTPUT and type(v) is SavedTensor:
                recipe.append(ref(results[i]))
            elif kind is registry._SAVE_ALL_INPUTS and type(v) is tuple:
                recipe.append([ref(x) for x in values])
            else:
                recipe.append((0, v, 0))
        g.gsteps.append((recipe, type(node), tuple(edges), tuple(eslots), node._input_metadata,
                         op.arrays, outs))
    g.gsteps.reverse()
    g.edge_slots = [s for s in sorted(edge_slots, key=lambda s: s)]
    if g.diff_slots and not g.edge_slots:
        raise _Unsupported("an output that requires grad without an input that does")


def _lifetimes(g):
    """Drop each intermediate array after the last step that reads it (unless backward saves
    it or the function returns it)."""
    keep = set(g.out_slots) | set(g.input_index)
    for step in g.gsteps:
        for e in step[0]:
            for kind, s, _ in (e if type(e) is list else [e]):
                if kind:
                    keep.add(s)
    last = {}
    for i, step in enumerate(g.steps):
        for s, _, _ in step[2]:
            if s is not None:
                last[s] = i
        for s in step[6] or ():
            last.setdefault(s, i)       # an output nothing reads: dropped at once
    free = {}
    for s, i in last.items():
        if s not in keep:
            free.setdefault(i, []).append(s)
    g.steps = [(*step, tuple(free.get(i, ()))) for i, step in enumerate(g.steps)]


# -- the compiled callable --------------------------------------------------------------------
class CompiledFunction:
    """What glassgrad.compile returns for a function (and nn.Module.compile installs)."""

    def __init__(self, fn, fullgraph=False, module=None):
        self.fn = fn
        self.fullgraph = fullgraph
        self.module = module
        self.cache = {}
        self.count = 0
        self.limited = False
        _compiled.add(self)
        self.__wrapped__ = fn
        for name in ("__name__", "__qualname__", "__doc__", "__module__"):
            try:
                setattr(self, name, getattr(fn, name))
            except AttributeError:
                pass

    def __get__(self, obj, objtype=None):
        return self if obj is None else _Bound(self, obj)

    def __call__(self, *args, **kwargs):
        if (state.handler is not None or _local.capture is not None or state.anomaly
                or state.saved_hooks is not None or state.on_mutate is not None):
            return self.fn(*args, **kwargs)      # inside a capture, forward AD or vmap: eager
        if kwargs or not _CONTAINERS.isdisjoint(map(type, args)):
            leaves, spec = tree_flatten((args, kwargs))
        else:       # (the same key as a spec: a call like this one always comes here)
            leaves, spec = list(args), len(args)
        key = _key(leaves, spec)
        try:
            entries = self.cache.get(key)
        except TypeError:       # an argument that cannot be keyed
            return self.fn(*args, **kwargs)
        if entries:
            for entry in entries:
                if entry.holds():
                    if type(entry) is _Eager:
                        return self.fn(*args, **kwargs)
                    try:
                        return entry.run(_distinct(leaves))
                    except _codegen.Miss:   # a gradient read before any effect: a guard
                        continue

        if self.count >= config.recompile_limit:
            if not self.limited:
                self.limited = True
                code = getattr(self.fn, "__code__", None)
                _log.warning("torch._dynamo hit config.recompile_limit (%d)\n   function: %r (%s:%s)",
                             config.recompile_limit, getattr(self.fn, "__name__", "?"),
                             code and code.co_filename, code and code.co_firstlineno)
            return self.fn(*args, **kwargs)
        return self._capture(args, kwargs, leaves, key)

    def _capture(self, args, kwargs, leaves, key):
        _install_escapes()
        roots = _Roots(self.fn, self.module)
        cap = _Capture(self.fullgraph)
        rng = default_generator._rng.to_bytes()
        _local.capture = cap
        state.handler = cap
        builtins.print = _print
        _capture_methods(True)
        grad_mode = state.grad_enabled
        try:
            cap.result = result = self.fn(*args, **kwargs)
            if state.grad_enabled != grad_mode:     # (a replay would not set it)
                cap.stop("a grad mode left changed")
        finally:
            builtins.print = _builtin_print
            _capture_methods(False)
            _local.capture = None
            cap.done = True
            if state.handler is cap:
                state.handler = cap.inner
        reason = cap.broken
        if reason is None and (default_generator._rng.to_bytes() != rng).any():
            reason = "a random draw"
            if self.fullgraph:
                raise NotImplementedError("glassgrad.compile(fullgraph=True): graph break on a "
                                          "random draw (glassgrad captures none)")
        entry = None
        if reason is None and roots.refuse is not None:
            reason = roots.refuse
            if self.fullgraph:
                raise exc.Unsupported(f"glassgrad.compile(fullgraph=True): {reason}")
        if reason is None:
            try:
                entry = _build(cap, leaves, roots)
            except _Unsupported as e:
                reason = str(e)
                if self.fullgraph:
                    raise exc.Unsupported(f"glassgrad.compile(fullgraph=True): {reason}") from None
        cap.records = cap.result = None
        self.cache.setdefault(key, []).append(entry or _Eager(reason, roots.guards))
        self.count += 1
        if entry is None or entry.effects:     # (the capture's run wrote what it writes)
            return result
        del result      # the eager run's graph goes; this call's result is the replay's, as
        return entry.run(_distinct(leaves))     # every later call's (one node, torch's)


class _Bound:
    """A compiled function read as a method: called with the instance first."""
    def __init__(self, fn, obj):
        self.fn, self.obj = fn, obj

    def __call__(self, *args, **kwargs):
        return self.fn(self.obj, *args, **kwargs)


def _key(leaves, spec):
    """The guard key of a call's arguments (unhashable where an argument is)."""
    parts = [state.grad, state._inference, dtypes.get_default_dtype(), spec]
    seen = {}
    for i, leaf in enumerate(leaves):
        t = type(leaf)
        if t in _TENSOR_TYPES:
            d = leaf._data
            parts.append((t, d.shape, d.dtype, d.strides, leaf.requires_grad,
                          seen.setdefault(id(leaf), i)))
        elif isinstance(leaf, _PLAIN):
            parts.append((t, leaf))
        else:
            parts.append((t, id(leaf)))
    return tuple(parts)


def _distinct(leaves):
    """The tensor arguments, each once (in the order of first appearance)."""
    out, seen = [], set()
    for leaf in leaves:
        if type(leaf) in _TENSOR_TYPES and id(leaf) not in seen:
            seen.add(id(leaf))
            out.append(leaf)
    return out
