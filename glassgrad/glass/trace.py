"""trace_backward(): every step of a backward pass, in the order the engine ran it.

    with glassgrad.glass.trace_backward() as tr:
        loss.backward()
    print(tr)            # a table; tr.steps is the same as data (Step objects)

Steps: ``backward`` (a run starts: its roots and their gradients), ``node`` (a backward node ran:
the gradients it got, one per forward output, and those it returned, one per next function),
``accumulate`` (an AccumulateGrad added into a leaf's ``.grad``), ``reduce`` / ``cast`` (the
engine summed a returned gradient down to its input's shape, or cast it to its dtype), the hooks
(``tensor hook``, ``retain_grad``, ``pre-hook``, ``post-hook``, ``post-accumulate-grad hook``)
and ``capture`` (autograd.grad took an input's gradient). A trace keeps shapes and norms, never
the tensors or nodes, so it holds no memory alive. While a trace is active the engine runs every
node through its hook-aware path (_autograd/engine.py ``_call_function``), which records here.

Each step names the ``nn.Module`` its node was made in, as explanations do: ``module`` is
``'net.3 (Sigmoid)'`` (the root named after the caller's variable, see glass/modules.py); an
AccumulateGrad of a parameter or buffer names the module that holds it.
"""
import os
from collections import namedtuple

from .._autograd.node import AccumulateGrad
from .._autograd.observer import Tracer
from .._autograd.provenance import module_call, node_source, where
from .._autograd.grad_mode import state
from ..backend import kind as _kind, xp
from .history import caller_names
from .modules import ModuleNames, module_names

__all__ = ["GradInfo", "Step", "Trace", "trace_backward"]


class GradInfo(namedtuple("GradInfo", "shape dtype norm")):
    """A gradient as the trace keeps it: shape (tuple), dtype name and 2-norm."""
    __slots__ = ()

    def __str__(self):
        return f"{list(self.shape)} {self.norm:.4g}"


def _info(g):
    if g is None:
        return None
    d = g._data
    if d.dtype.kind != _kind(d.dtype):     # bfloat16: NumPy's norm wants a float of its own
        d = d.astype(xp.float32)
    norm = float(xp.linalg.norm(d.ravel())) if d.dtype.kind in "fiub" else float("nan")
    return GradInfo(tuple(d.shape), str(g.dtype).replace("torch.", ""), norm)


def _infos(grads):
    return tuple(_info(g) for g in grads)


def _hook_name(hook):
    code = getattr(hook, "__code__", None)
    name = getattr(hook, "__qualname__", None) or type(hook).__name__
    if code is None:
        return name
    return f"{name} ({os.path.basename(code.co_filename)}:{code.co_firstlineno})"


class Step:
    """One step of a traced backward.

    kind: see the module docstring; node: the node's name; source: its source line when the
    node records one; depth: 0 for the outer backward, 1 for one run inside it (a checkpoint's
    recomputation...); output_nr: which output of the node a tensor hook, retain_grad or capture
    concerns; hook: the hook's name and definition site; grads_in / grads_out: tuples of
    GradInfo (None where no gradient), what the step received and what it produced (a hook's
    grads_out is None when it returned nothing, i.e. left the gradients alone); note: the rest
    in words; module: the module the node was made in, 'net.3 (Sigmoid)' (None outside
    modules)."""
    __slots__ = ("kind", "node", "source", "depth", "output_nr", "hook", "grads_in", "grads_out",
                 "note", "module", "_leaf", "_outputs")

    def __init__(self, kind, node, depth, grads_in=None, grads_out=None, note="",
                 output_nr=None, hook=None):
        self.kind, self.depth, self.note = kind, depth, note
        named = isinstance(node, str)
        self.node = node if named else node.name()
        src = None if named else node_source(node)
        self.source = None if src is None else where(src)     # 'prog.py:3'
        self._outputs = 1 if named else len(node._input_metadata)
        self.grads_in, self.grads_out = grads_in, grads_out
        self.output_nr, self.hook, self._leaf = output_nr, hook, None
        self.module = None

    def done(self, out):
        """The engine's report that the node returned ``out`` (after shape/dtype checks)."""
        if self._leaf is not None:
            self.grads_out, self._leaf = (_info(self._leaf._grad),), None
        else:
            self.grads_out = _infos(out)

    def __repr__(self):
        return f"<Step {self.kind} {self.node}>"


def _grads_text(infos):
    if infos is None:
        return ""
    return "; ".join("None" if g is None else str(g) for g in infos)


class Trace(Tracer):
    """What ``trace_backward`` recorded: ``steps`` (a list of Step), printable as a table. The
    engine calls the tracer protocol's methods (_autograd/observer.py)."""

    def __init__(self, modules=None):
        self.steps = []
        self._depth = -1
        self._prev = None
        self._modules = modules or ModuleNames()
        self._owners = None     # {id(parameter or buffer): holder's label}, during a backward
        self._calls = []        # module calls of this backward's nodes (their roots own leaves)

    def __enter__(self):
        self._prev, state.tracer = state.tracer, self
        return self

    def __exit__(self, *exc):
        state.tracer = self._prev
        self._modules = ModuleNames()       # the steps have their names: hold no model

    def __iter__(self):
        return iter(self.steps)

    def __len__(self):
        return len(self.steps)

    def __getitem__(self, i):
        return self.steps[i]

    # -- called by the engine ---------------------------------------------------------------
    def _add(self, *args, **kwargs):
        step = Step(*args, **kwargs)
        if not isinstance(args[1], str):
            step.module = self._module(args[1])
        self.steps.append(step)
        return step

    def begin(self, roots, root_grads):
        self._depth += 1
        names = ", ".join(dict.fromkeys(n.name() for n, _ in roots))
        self._add("backward", names, self._depth, grads_out=_infos(root_grads),
                  note="roots" if len(roots) > 1 else "root")

    def end(self):
        self._depth -= 1
        if self._depth < 0:
            self._owners, self._calls = None, []

    def _module(self, node):
        """'net.3 (Sigmoid)': the module ``node`` was made in; for an AccumulateGrad, the module
        holding its leaf."""
        if type(node) is AccumulateGrad:
            if self._owners is None:
                self._owners = self._modules.owners(self._calls)
            return self._owners.get(id(node.variable))
        call = module_call(node_source(node))
        if call is not None:
            self._calls.append(call)
        return self._modules.label(call)

    def node(self, node, grads):
        if type(node) is AccumulateGrad:
            var = node.variable
            step = self._add("accumulate", node, self._depth, _infos(grads),
                             note=f"leaf {list(var.shape)} {str(var.dtype)[6:]}: "
                                  + (".grad = gradient" if var._grad is None else
                                     ".grad += gradient"))
            step._leaf = var
            return step
        return self._add("node", node, self._depth, _infos(grads))

    def call(self, kind, node, hook, args, output_nr=None):
        """Run ``hook(*args)`` and record it (before the call, so a failing hook shows last)."""
        first = args[0]
        if type(first) is tuple:
            grads_in = _infos(first)
        elif kind == "post-accumulate-grad hook":       # it gets the leaf
            grads_in = (_info(first._grad),)
        else:
            grads_in = (_info(first),)
        step = self._add(kind, node, self._depth, grads_in, output_nr=output_nr,
                         hook=_hook_name(hook))
        new = hook(*args)
        if new is not None and kind != "post-accumulate-grad hook":
            step.grads_out = _infos(new) if isinstance(new, (tuple, list)) else (_info(new),)
            step.note = "replaced the gradient" + ("s" if type(first) is tuple else "")
        return new

    def retain_grad(self, node, output_nr, grad):
        self._add("retain_grad", node, self._depth, (_info(grad),), output_nr=output_nr,
                  note="into the retained tensor's .grad")

    def reduce(self, node, i, nxt, grad, reduced):
        self._add("reduce", node, self._depth, (_info(grad),), (_info(reduced),),
                  note=f"gradient {i} summed to its input's shape (for {nxt.name()})")

    def cast(self, node, i, nxt, grad, cast):
        self._add("cast", node, self._depth, (_info(grad),), (_info(cast),),
                  note=f"gradient {i} cast {str(grad.dtype)[6:]} -> {str(cast.dtype)[6:]} "
                       f"(for {nxt.name()})")

    def capture(self, node, i, output_nr, grad):
        self._add("capture", node, self._depth, (_info(grad),), output_nr=output_nr,
                  note=f"the gradient of inputs[{i}]")

    # -- reading ------------------------------------------------------------------------------
    def table(self):
        """The steps as a text table, one row per step."""
        with_source = any(s.source for s in self.steps)
        with_module = any(s.module for s in self.steps)
        head = ["#", "step", "node"] + (["module"] if with_module else []) + (
            ["source"] if with_source else []) + ["grad in", "grad out", "note"]
        rows = []
        for i, s in enumerate(self.steps, 1):
            node = "  " * s.depth + s.node + ("" if s.output_nr is None or s._outputs == 1 else
                                              f" [output {s.output_nr}]")
            note = " ".join(x for x in (s.hook, s.note) if x)
            rows.append([str(i), s.kind, node] + ([s.module or ""] if with_module else [])
                        + ([str(s.source or "")] if with_source else [])
                        + [_grads_text(s.grads_in), _grads_text(s.grads_out), note])
        widths = [max(len(r[c]) for r in [head] + rows) for c in range(len(head))]
        lines = ["  ".join(x.ljust(w) for x, w in zip(r, widths)).rstrip()
                 for r in [head] + rows]
        return "\n".join(lines)

    def __str__(self):
        return self.table()

    def __repr__(self):
        return f"<Trace of {len(self.steps)} backward steps>"


def trace_backward(names=None):
    """Context manager: ``with trace_backward() as tr: loss.backward()`` records every step of
    the backward passes run inside it (see Trace, Step). Models are named after the caller's
    variables unless ``names`` ({name: module}) is given."""
    if names is None:
        names = caller_names(2)
    return Trace(ModuleNames(module_names([names])))
