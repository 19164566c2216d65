"""summary(model, *inputs): one forward pass, and a table of what each module made and keeps.

For every module of the model (``named_modules()`` order, the root first): its path, class,
output shape(s), its own parameters (all, and those that require grad) and the bytes it keeps
for backward. Figures are each module's *own*: parameters registered on the module itself
(``recurse=False``), and saved tensors of the nodes made while it was the innermost module
running (its own ``forward`` code, not its submodules'), so each column adds up to the total.

**Bytes kept for backward** (``saved``): after the forward, every autograd node reachable from
the model's outputs keeps its saved tensors (what torch shows as ``grad_fn._saved_*``) until
backward frees them. They are counted by storage: each storage counts once, with all its bytes
(a view that was saved keeps its whole storage alive), charged to the module in which the
*first* node (in the order nodes were made) that saved it was made. Not counted: storages of
the model's parameters and buffers and of the tensors given to ``summary`` (they are held
anyway), Python numbers and sizes nodes keep by value, and saved tensors packed by
saved-tensor hooks. What nodes made outside the model's modules keep (a module it calls that
it does not hold) is charged to the root.
"""
import dataclasses

from .._autograd.provenance import module_call, node_source
from .._autograd.saved import SavedTensor
from .._storage import storage_of
from .._tensor import Tensor
from .history import caller_names
from .modules import ModuleNames, module_names


@dataclasses.dataclass
class Row:
    """One module's line of the table."""
    path: str                 # 'net.0' (the root: the model's variable name or class name)
    depth: int                # how deep in the module tree (the root: 0)
    cls: str                  # 'Linear'
    output_shapes: list       # [[2, 4], ...] of its last call's output tensors; None: not called
    calls: int                # how many times it ran in the forward pass
    params: int               # elements of its own parameters
    trainable: int            # ... of those that require grad
    saved_bytes: int          # bytes it keeps for backward (see the module's docstring)
    saved_storages: int       # how many storages those bytes are


class Summary:
    """The table summary() prints: ``rows`` (Row), the totals, and ``str()`` the text."""

    def __init__(self, rows, output):
        self.rows, self.output = rows, output

    @property
    def total_params(self):
        return sum(r.params for r in self.rows)

    @property
    def trainable_params(self):
        return sum(r.trainable for r in self.rows)

    @property
    def saved_bytes(self):
        return sum(r.saved_bytes for r in self.rows)

    def __str__(self):
        head = ("module", "class", "output shape", "params", "trainable", "saved bytes")
        body = [("  " * r.depth + r.path, r.cls, _shapes(r), f"{r.params:,}",
                 f"{r.trainable:,}", f"{r.saved_bytes:,}") for r in self.rows]
        total = ("total", "", "", f"{self.total_params:,}", f"{self.trainable_params:,}",
                 f"{self.saved_bytes:,}")
        widths = [max(len(row[k]) for row in (head, *body, total)) for k in range(len(head))]

        def line(row):
            cells = [c.ljust(w) if k < 3 else c.rjust(w)
                     for k, (c, w) in enumerate(zip(row, widths))]
            return "  ".join(cells).rstrip()
        rule = "-" * len(line(head))
        storages = sum(r.saved_storages for r in self.rows)
        return "\n".join([line(head), rule, *map(line, body), rule, line(total),
                          f"kept for backward: {_size(self.saved_bytes)} in {storages} "
                          f"storage{'s' * (storages != 1)} (parameters, buffers and the "
                          "inputs not counted)"]) + "\n"

    __repr__ = __str__


def summary(model, *inputs, **kwargs):
    """Run ``model(*inputs, **kwargs)`` once and print (and return) a per-module table: path,
    class, output shape(s), own parameter count (all and trainable) and the bytes each module
    keeps for backward (see this module's docstring for the exact rule), with totals. The
    forward's output is ``.output`` of the result."""
    names = ModuleNames(module_names([caller_names(2)]))
    outputs, hooks = {}, []

    def record(module, args, output):
        outputs.setdefault(id(module), []).append(output)
    modules = list(model.named_modules())
    for _, m in modules:
        hooks.append(m.register_forward_hook(record))
    try:
        output = model(*inputs, **kwargs)
    finally:
        for h in hooks:
            h.remove()
    held = {}       # id(storage) -> storage (kept, so that no id is reused while counting)
    for t in [*_tensors((inputs, kwargs)), *model.parameters(), *model.buffers()]:
        storage = storage_of(t._data)[0]
        held[id(storage)] = storage
    saved = _saved_by_module(_tensors(output), held)
    root = names.path_of(model)
    ids = {id(m) for _, m in modules}
    for key in [k for k in saved if k not in ids]:     # nodes of no module of the model
        nbytes, count = saved.pop(key)
        own = saved.get(id(model), (0, 0))
        saved[id(model)] = (own[0] + nbytes, own[1] + count)
    rows = []
    for path, m in modules:
        outs = outputs.get(id(m), [])
        nbytes, count = saved.get(id(m), (0, 0))
        rows.append(Row(
            path=f"{root}.{path}" if path else root, depth=path.count(".") + 1 if path else 0,
            cls=m._get_name(),
            output_shapes=[list(t.shape) for t in _tensors(outs[-1])] if outs else None,
            calls=len(outs),
            params=sum(p.numel() for p in m.parameters(recurse=False)),
            trainable=sum(p.numel() for p in m.parameters(recurse=False) if p.requires_grad),
            saved_bytes=nbytes, saved_storages=count))
    result = Summary(rows, output)
    print(result, end="")
    return result


def _saved_by_module(outputs, held):
    """{id(module): (bytes, storages)} kept by the nodes reachable from ``outputs``, each
    storage charged to the module of the first node that saved it (``held``: {id: storage} of
    the storages not to count)."""
    nodes, seen = [], set()
    stack = [t.grad_fn for t in outputs if t.grad_fn is not None]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        nodes.append(node)
        stack += [n for n, _ in node.next_functions if n is not None and n not in seen]
    nodes.sort(key=lambda n: n._sequence_nr)
    charged, out = dict(held), {}
    for node in nodes:
        module = ModuleNames.module(module_call(node_source(node)))
        for array in _saved_arrays(node):
            storage = storage_of(array)[0]
            if id(storage) in charged:
                continue
            charged[id(storage)] = storage
            nbytes, count = out.get(id(module), (0, 0))
            out[id(module)] = (nbytes + storage.nbytes(), count + 1)
    return out


def _saved_arrays(node):
    """The arrays of the tensors ``node`` keeps for backward (packed ones left out)."""
    slots = getattr(node, "_tensors", None)     # an op's node; a custom Function's: _saved
    if slots is not None:
        values = slots.values()
    else:
        values = getattr(node, "_saved", None)
        values = values if type(values) is tuple else ()
    for v in values:
        for s in (v if type(v) is tuple else (v,)):
            if type(s) is SavedTensor and s.hooks is None:
                yield s.data if s.tensor is None else s.tensor._data


def _tensors(obj):
    """The tensors in a nested structure of tuples, lists and dicts."""
    if isinstance(obj, Tensor):
        return [obj]
    if isinstance(obj, dict):
        obj = list(obj.values())
    if isinstance(obj, (tuple, list)):
        return [t for item in obj for t in _tensors(item)]
    return []


def _shapes(row):
    if row.output_shapes is None:
        return "-"
    text = ", ".join("[" + ", ".join(map(str, s)) + "]" for s in row.output_shapes) or "(none)"
    return text if row.calls == 1 else f"{text} (x{row.calls})"


def _size(n):
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:,} {unit}" if unit == "bytes" else f"{n:,.1f} {unit}"
        n /= 1024
