"""The history behind a tensor as plain data: the nodes, what each saved and why, its hooks.

graph.py draws this (text, DOT) and explain.py narrates it; both read only what the graph keeps
(Node.next_functions and hooks, AccumulateGrad.variable, SavedTensor versions, OpNode's
``op.formulas`` / ``_attrs`` / ``_tensors``) and never change it. Tensors are named after the
variables that hold them (the caller's frame, or an explicit ``names`` mapping). Where user
code made each node (``NodeInfo.source``) and which in-place ops moved a saved tensor's version
(``History.bumps``) come from the provenance recorded as the program ran
(autograd/provenance.py), and so does the ``nn.Module`` each node was made in
(``NodeInfo.module``: its path, ``net.3``; modules.py). The parameters and buffers of the
modules the history ran through are named by their paths (``net.0.weight``) unless a variable
names them.
"""
import dataclasses
import sys

from .._autograd.node import AccumulateGrad, grad_accumulator
from .._autograd.saved import SavedTensor
from .._autograd.provenance import (describe as describe_site, entry_name, module_call,
                                   node_source, version_history)
from ..dtypes import _FROM_NP
from .._tensor import Tensor
from .modules import ModuleNames, module_names
from ..nn.modules.module import Module


@dataclasses.dataclass
class SavedInfo:
    """One tensor (or number) a node keeps for its backward."""
    name: str                 # the formula's parameter name: 'self', 'result', 'saved_tensors[0]'
    why: str                  # which backward formula(s) use it
    shape: tuple = None
    dtype: str = None
    tensor: str = None        # who it is: 'y', 'output 0 of AddBackward0', 'leaf x'
    saved_version: int = None
    version_now: int = None
    freed: bool = False       # released by a backward without retain_graph
    is_output: bool = False   # the node's own output (kept as bare data)
    value: object = None      # a Python number kept in a tensor slot
    view_of: str = None
    aliases: tuple = ()       # named tensors that share its version counter (detach()es, views)
    counter: object = dataclasses.field(default=None, repr=False)
    owner: tuple = dataclasses.field(default=None, repr=False)   # (node, output_nr) it came from
    obj: object = dataclasses.field(default=None, repr=False)    # the saved Tensor, if an input
    history: list = dataclasses.field(default_factory=list)      # (version, how) since saved

    @property
    def is_number(self):
        return self.counter is None and not self.freed

    @property
    def modified(self):
        return (self.counter is not None and not self.freed
                and self.version_now != self.saved_version)

    def versions(self):
        """'version 0 at save, 1 now' (+ MODIFIED), or why there is no version."""
        if self.freed:
            return "freed (backward ran without retain_graph=True)"
        if self.counter is None:
            return f"the number {self.value!r}, kept by value"
        text = f"version {self.saved_version} at save, {self.version_now} now"
        return text + " MODIFIED" if self.modified else text


@dataclasses.dataclass
class Edge:
    input: str                # the forward input this gradient flows to ('self', 'other', ...)
    node: "NodeInfo"
    output_nr: int


@dataclasses.dataclass
class NodeInfo:
    node: object = dataclasses.field(repr=False)
    name: str                 # node.name(): 'AddBackward0', 'torch::autograd::AccumulateGrad'
    label: str = ""           # unique in the graph: 'y = AddBackward0', 'MulBackward0#2', 'x'
    kind: str = "op"          # 'op' (a defop row), 'leaf', 'function' (custom Function), 'node'
    outputs: dict = dataclasses.field(default_factory=dict)   # output_nr -> tensor name
    edges: list = dataclasses.field(default_factory=list)
    saved: list = dataclasses.field(default_factory=list)
    attrs: dict = dataclasses.field(default_factory=dict)     # metadata kept by value
    formulas: list = dataclasses.field(default_factory=list)  # (input, 'fn(grad, self)')
    hooks: list = dataclasses.field(default_factory=list)
    view_op: bool = False     # a view op: its output shares storage with its input
    views: list = dataclasses.field(default_factory=list)     # 'z is a view of x'
    shape: tuple = None       # a leaf's shape
    dtype: str = None
    variable: object = dataclasses.field(default=None, repr=False)
    source: str = None        # where user code made it: 'prog.py:4: `z = y**2`' (or None)
    module: str = None        # the path of the nn.Module it was made in: 'net.3' (or None)
    module_call: tuple = dataclasses.field(default=None, repr=False)   # provenance's record

    @property
    def short(self):
        """The node's name without the 'torch::autograd::' prefix."""
        return self.name.rsplit("::", 1)[-1]

    @property
    def n_outputs(self):
        return len(getattr(self.node, "_input_metadata", ()) or ())


class History:
    """Every node reachable from the roots, root first, leaves last."""

    def __init__(self, roots, names=None):
        if isinstance(roots, Tensor):
            roots = [roots]
        self.roots = list(roots)
        self.names = _name_table(names or {})
        self.by_name = {name: t for name, t in self.names.values()}
        self.modules = ModuleNames(module_names([names or {}]))
        self.nodes = []
        self.by_node = {}
        self.root_infos = []
        starts = []
        for t in self.roots:
            node = t.grad_fn
            if node is None and t.requires_grad:
                node = grad_accumulator(t)
            if node is not None:
                starts.append(node)
        self._walk(starts)
        for t in self.roots:
            node = t.grad_fn if t.grad_fn is not None else (
                grad_accumulator(t) if t.requires_grad else None)
            if node is not None:
                self.root_infos.append((self.by_node[node], t._output_nr))

    # -- naming -----------------------------------------------------------------------------
    def name_of(self, t):
        return self.names.get(id(t), (None, None))[0]

    def describe(self, t):
        """A tensor as the reader knows it: its variable name, else where it came from."""
        name = self.name_of(t)
        if name is not None:
            return name
        if t.grad_fn is not None:
            info = self.by_node.get(t.grad_fn)
            where = info.label if info is not None else t.grad_fn.name()
            return f"output {t._output_nr} of {where}"
        return f"a tensor {_shape(t._data.shape)}" if not t.requires_grad else \
            f"leaf {_shape(t._data.shape)}"

    def aliases_of(self, counter, tensor=None, owner=None):
        """Named tensors other than ``tensor`` (or the output ``owner`` = (node, nr)) sharing
        ``counter``: an in-place op through any of them bumps it."""
        return tuple(name for name, t in self.names.values()
                     if t._version_counter is counter and t is not tensor
                     and (owner is None or (t.grad_fn, t._output_nr) != owner))

    def bumps(self, s):
        """[(version, 'how')] of the recorded in-place ops that moved the saved tensor ``s``
        since it was saved: the op, its source line, and the alias it went through."""
        out = []
        for version, op, site, ref, kind in version_history(s.counter):
            if s.saved_version < version <= s.version_now:
                module = self.modules.of_site(site)
                out.append((version, f"{op_words(op, site)}"
                            + (f" in {module}" if module else "")
                            + f" at {describe_site(site)}{self._through(s, ref(), kind)}"))
        return out

    def _through(self, s, alias, kind):
        """', through c, a detach() of y ...': the tensor an in-place op wrote through."""
        who = s.tensor
        if alias is not None and alias is s.obj or kind == "history" and s.obj is None:
            return f", on {who} itself"
        name = self.name_of(alias) if alias is not None else None
        if kind == "view":
            base = alias._base if alias is not None else None
            base_name = (self.name_of(base) if base is not None else None) or "its base"
            return (f", through {name or 'a view'}, a view of {base_name} (a view shares its "
                    "base's storage and version counter)")
        if kind == "plain" and (s.obj is None or s.obj.requires_grad):
            return (f", through {name or 'a temporary'}, a detach() of {who} that shares its "
                    "storage and version counter (detach() makes no copy)")
        return f", on {name or who} itself"

    def _name_module_tensors(self, calls):
        """Name the parameters and buffers of the root modules of ``calls`` (and of the modules
        named by variables) by their paths, unless a variable names them already."""
        for key, (name, t) in self.modules.tensor_names(calls).items():
            if key not in self.names and name not in self.by_name:
                self.names[key] = (name, t)
                self.by_name[name] = t

    # -- the walk ---------------------------------------------------------------------------
    def _walk(self, starts):
        seen, stack, found = set(), list(starts), []
        while stack:        # no recursion: graphs can be thousands of nodes deep
            node = stack.pop()
            if node in seen:
                continue
            seen.add(node)
            found.append(node)
            for nxt, _ in node.next_functions:
                if nxt is not None and nxt not in seen:
                    stack.append(nxt)
        # creation order, newest first; leaves (sequence_nr = inf) last
        found.sort(key=lambda n: (isinstance(n, AccumulateGrad), -n._sequence_nr))
        for node in found:
            src = node_source(node)
            call = module_call(src)
            info = NodeInfo(node=node, name=node.name(),
                            source=describe_site(src) if src is not None else None,
                            module=self.modules.path(call), module_call=call)
            self.by_node[node] = info
            self.nodes.append(info)
        self._name_module_tensors(info.module_call for info in self.nodes)
        outputs = {}
        for name, t in self.names.values():
            if t.grad_fn is not None and t.grad_fn in self.by_node:
                outputs.setdefault(t.grad_fn, {}).setdefault(t._output_nr, name)
        for info in self.nodes:
            info.outputs = outputs.get(info.node, {})
            self._describe_node(info)
        _label(self.nodes)
        for info in self.nodes:     # needs labels: saved tensors name the node that made them
            self._saved(info)
            if info.kind != "leaf":
                info.views += [f"{name} is a view of {self.describe(t._base)}"
                               for name in info.outputs.values()
                               for t in [self.by_name[name]] if t._base is not None]

    def _describe_node(self, info):
        node = info.node
        if isinstance(node, AccumulateGrad):
            var = node.variable
            info.kind, info.variable = "leaf", var
            info.shape, info.dtype = tuple(var._data.shape), _dtype(var._data)
            name = self.name_of(var)
            if name is not None:
                info.outputs = {0: name}
            if var._base is not None:
                info.views.append(f"{self.describe(var)} is a view of {self.describe(var._base)}")
        op = getattr(type(node), "op", None)
        if op is not None and hasattr(op, "formulas"):
            info.kind, info.view_op = "op", bool(op.view)
            inputs = _edge_names(op)
            info.attrs = dict(getattr(node, "_attrs", None) or {})
            info.formulas = [(op.inputs[0] if op.variadic else inputs[k],
                              _formula(fn, ("grad",) + names))
                             for k, (fn, names) in enumerate(op.formulas)]
        elif hasattr(node, "_forward_cls"):
            info.kind = "function"
            inputs = [f"input {k}" for k in range(len(node.next_functions))]
        else:
            if info.kind != "leaf":
                info.kind = "node"
            inputs = [f"input {k}" for k in range(len(node.next_functions))]
        for k, (nxt, nr) in enumerate(node.next_functions):
            if nxt is not None:
                name = inputs[k] if k < len(inputs) else f"input {k}"
                info.edges.append(Edge(name, self.by_node[nxt], nr))
        info.hooks = _hooks(node)

    def _saved(self, info):
        node = info.node
        op = getattr(type(node), "op", None)
        if info.kind == "op":
            tensors = getattr(node, "_tensors", None) or {}
            for name, v in tensors.items():
                why = _why(op, name)
                if type(v) is tuple:
                    for k, st in enumerate(v):
                        info.saved.append(self._saved_info(f"{name}[{k}]", why, st, node))
                else:
                    info.saved.append(self._saved_info(name, why, v, node))
        elif info.kind == "function":
            saved = getattr(node, "_saved", ())
            cls = node._forward_cls.__name__
            why = f"{cls}'s forward saved it with ctx.save_for_backward for its backward"
            if isinstance(saved, tuple):
                for k, st in enumerate(saved):
                    if st is not None:
                        info.saved.append(self._saved_info(f"saved_tensors[{k}]", why, st, node))
            else:
                info.saved.append(SavedInfo("saved_tensors", why, freed=True))

    def _saved_info(self, name, why, v, node):
        if not isinstance(v, SavedTensor):
            value = getattr(v, "value", None)
            if hasattr(v, "value"):    # a Python number in a tensor slot (registry._Scalar)
                return SavedInfo(name, why, value=value)
            return SavedInfo(name, why, freed=True)     # registry's _FREED marker
        t = v.tensor
        if t is None:       # the node's own output, kept as data (no reference cycle)
            data, owner = v.data, (node, v.output_nr)
            label = self.by_node[node].outputs.get(v.output_nr) or self._holder(v) or \
                f"output {v.output_nr} of {self.by_node[node].label}"
        else:
            data = t._data
            owner = (t.grad_fn, t._output_nr) if t.grad_fn is not None else None
            label = self.describe(t)
        info = SavedInfo(
            name, why, shape=tuple(data.shape), dtype=_dtype(data), tensor=label,
            saved_version=v.version, version_now=v.counter.version, is_output=t is None,
            view_of=self.describe(t._base) if t is not None and t._base is not None else None,
            aliases=self.aliases_of(v.counter, t, owner if t is None else None),
            counter=v.counter, owner=owner, obj=t)
        if info.modified:
            info.history = self.bumps(info)
        return info

    def _holder(self, v):
        """The named tensor that is a saved output itself, though an in-place op has since
        given it a new grad_fn (``h = w.exp(); h.add_(1)``)."""
        for name, t in self.names.values():
            if t._data is v.data and t._version_counter is v.counter and t.requires_grad:
                return name
        return None

    # -- questions --------------------------------------------------------------------------
    def saved(self):
        """(NodeInfo, SavedInfo) for every tensor some node holds for backward."""
        return [(info, s) for info in self.nodes for s in info.saved if s.counter is not None
                and not s.freed]

    def in_place_safety(self):
        """[(tensor description, [reasons it is unsafe])] for every tensor of the history:
        the node outputs, the leaves and the named tensors that share storage with them."""
        saved = self.saved()
        rows, done = [], set()

        def reasons(counter=None, owner=None, obj=None):
            out = []
            for info, s in saved:
                hit = (counter is not None and s.counter is counter) or \
                      (owner is not None and s.owner == owner) or (obj is not None and s.obj is obj)
                if hit:
                    out.append(f"{info.label} saved it as `{s.name}`"
                               + (" (already MODIFIED: backward will fail)" if s.modified else ""))
            return out

        named = {}      # (node, nr) or leaf id -> the named tensor
        for name, t in self.names.values():
            named.setdefault((t.grad_fn, t._output_nr) if t.grad_fn is not None else id(t),
                             (name, t))
        for info in self.nodes:
            if info.kind == "leaf":
                var = info.variable
                label = self.describe(var)
                rows.append((label, reasons(var._version_counter, None, var), "leaf"))
                done.add(id(var))
                continue
            for nr in range(max(info.n_outputs, 1)):
                key = (info.node, nr)
                name, t = named.get(key, (None, None))
                label = name or f"output {nr} of {info.label}"
                counter = t._version_counter if t is not None else None
                rows.append((label, reasons(counter, key, t), "output"))
                if t is not None:
                    done.add(id(t))
        for name, t in self.names.values():     # aliases: detach()es and views of the above
            if id(t) in done:
                continue
            r = reasons(t._version_counter)
            related = any(t._version_counter is s.counter for _, s in saved) or (
                t.grad_fn is not None and t.grad_fn in self.by_node)
            if related:
                rows.append((name, r, "alias"))
                done.add(id(t))
        return rows


# -- helpers --------------------------------------------------------------------------------
def caller_names(depth=2):
    """{name: tensor or module} of the tensors and nn.Modules visible in the caller's frame
    (its locals, then globals)."""
    frame = sys._getframe(depth)
    out = {}
    for scope in (frame.f_locals, frame.f_globals):
        for k, v in list(scope.items()):
            if isinstance(v, (Tensor, Module)) and not k.startswith("_") and k not in out:
                out[k] = v
    return out


def _name_table(names):
    """{id(tensor): (name, tensor)}, the first name of each tensor winning."""
    table = {}
    for name, t in names.items():
        if hasattr(t, "_version_counter"):
            table.setdefault(id(t), (name, t))
    return table


def _label(nodes):
    """Give each node a unique label: 'y = AddBackward0' when a variable holds its output,
    'x' for a named leaf, else its name, numbered '#1', '#2' when the name repeats."""
    base = {}
    for info in nodes:
        if info.kind == "leaf":
            info.label = info.outputs.get(0) or f"AccumulateGrad {_shape(info.shape)}"
        elif info.outputs:
            info.label = ", ".join(info.outputs[k] for k in sorted(info.outputs)) + \
                f" = {info.short}"
        else:
            info.label = info.short
        base.setdefault(info.label, []).append(info)
    for label, group in base.items():
        if len(group) > 1:
            for k, info in enumerate(reversed(group), 1):     # oldest first
                info.label = f"{label}#{k}"


def _edge_names(op):
    """The forward input each of the node's next_functions belongs to."""
    if op.variadic:
        return _Numbered(op.inputs[0])
    return [op.inputs[i] for i in op.diff]


class _Numbered:
    """tensors[0], tensors[1], ...: the inputs of a variadic op."""

    def __init__(self, name):
        self.name = name

    def __getitem__(self, k):
        return f"{self.name}[{k}]"

    def __len__(self):
        return sys.maxsize


def _why(op, name):
    """'its backward formula for `self` uses it' (the parameter names are the save list)."""
    users = [("all inputs" if op.variadic else f"`{op.inputs[i]}`")
             for (fn, names), i in zip(op.formulas, op.diff if not op.variadic else (0,))
             if name in names]
    if not users:
        return "its backward formulas use it"
    if len(users) == 1:
        return f"its backward formula for {users[0]} uses it"
    return f"its backward formulas for {' and '.join(users)} use it"


# the entry of a site where user code called a module (nn.Module.__call__): op_words names the op
MODULE_CALL = {"_wrapped_call_impl", "_call_impl"}


def op_words(op, site):
    """'`zero_`' (the glassgrad function user code called), else the in-place op's node."""
    entry = entry_name(site)
    if entry and not entry.startswith("<") and entry not in MODULE_CALL:
        return f"`{entry}`"
    return f"an in-place op ({op})"


def _hooks(node):
    out = []
    per_output = node._tensor_hooks() if hasattr(node, "_tensor_hooks") else None
    for nr, hooks in sorted((per_output or {}).items()):
        for fn in hooks.values():
            where = "" if isinstance(node, AccumulateGrad) else f" on output {nr}"
            out.append(f"tensor hook{where}: {_fn_name(fn)}")
    for attr, kind in (("_pre_hooks", "node pre-hook"), ("_hooks", "node hook")):
        for fn in (getattr(node, attr, None) or {}).values():
            out.append(f"{kind}: {_fn_name(fn)}")
    for nr in sorted(getattr(node, "_retain_grad_hooks", None) or {}):
        out.append(f"retain_grad on output {nr}")
    if isinstance(node, AccumulateGrad):
        hs = node.variable._hook_state
        for fn in ((hs.post_accumulate_grad_hooks if hs is not None else None) or {}).values():
            out.append(f"post-accumulate-grad hook: {_fn_name(fn)}")
    return out


def _formula(fn, params):
    """'pow_grad(grad, self, exponent)', or 'lambda grad, alpha: ...' for a lambda."""
    name = getattr(fn, "__name__", "formula")
    if name == "<lambda>":
        return f"lambda {', '.join(params)}: ..."
    return f"{name}({', '.join(params)})"


def _fn_name(fn):
    return getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)


def _dtype(data):
    d = _FROM_NP.get(data.dtype)
    return d.name if d is not None else str(data.dtype)


def _shape(shape):
    return "[" + ", ".join(map(str, shape)) + "]"
