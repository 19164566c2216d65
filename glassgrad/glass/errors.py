"""Errors that explain themselves.

Every autograd error is PyTorch's exception with PyTorch's exact text (``str(e)``), raised by
the core with the facts attached (the failing node, the saved tensor, the tensor written into:
``_autograd/explain_hook.py``). The explainer registered here at import turns the facts and the
user's frame into an explanation and adds it as a PEP 678 note, which tracebacks and Jupyter
show under the message:

    RuntimeError: one of the variables needed for gradient computation has been modified by ...
    glassgrad explains:
      PowBackward0, made at prog.py:4: `z = y**2`, saved y ...

``explanation(e)`` (and ``glassgrad.explain(e)``) gives the explanation, unindented. The
explanation names user code (file, line and the line's text, from the provenance recorded as the
program ran) and never glassgrad's internals. A warning has no notes: the non-leaf ``.grad``
warning's text carries its explanation after a blank line and the same header.
"""
import ast
import inspect
import linecache
import re

from .._autograd import explain_hook, provenance
from .._autograd.provenance import (describe, entry_name, line_text, node_source, leaf_source,
                                    where)
from .._autograd.saved import FREED_MESSAGE
from .history import MODULE_CALL, History, _shape
from .modules import ModuleNames, module_names
from .._tensor import Tensor

HEADER = "glassgrad explains:"
SEPARATOR = "\n\n" + HEADER + "\n"      # before a warning's explanation
INDENT = "  "


def note(lines):
    """The note that carries the explanation ``lines``: the header, then each line indented."""
    return HEADER + "\n" + "\n".join((INDENT + line).rstrip() for line in lines)


def explanation(e):
    """glassgrad's explanation of an error (its note) or of a warning (after its text),
    unindented; None when it has none."""
    notes = [n for n in getattr(e, "__notes__", ()) if isinstance(n, str)]
    blocks = [n[len(HEADER) + 1:] for n in notes if n.startswith(HEADER + "\n")]
    if not blocks and SEPARATOR in str(e):
        blocks = [str(e).split(SEPARATOR, 1)[1]]
    if not blocks:
        return None
    return "\n".join(line[len(INDENT):] for line in blocks[0].split("\n"))


# a note as a traceback prints it (right under the message), or a warning's explanation
_BLOCK = re.compile(r"\n\n?" + re.escape(HEADER) + r"\n(?:" + INDENT + r"[^\n]*(?:\n|$))*")


def strip_explanations(text):
    """``text`` (a program's printed output, a traceback) without glassgrad's explanations:
    what PyTorch would have printed."""
    return _BLOCK.sub(lambda m: "\n" if m.group(0).endswith("\n") else "", text)


def with_explanation(text, lines):
    """A warning's ``text`` followed by the explanation ``lines``."""
    if not lines:
        return text
    return text + SEPARATOR + "\n".join((INDENT + line).rstrip() for line in lines)


def extend(exc, lines):
    """Add the explanation ``lines`` to ``exc`` as a note (once; the same object)."""
    if lines and explanation(exc) is None:
        exc.add_note(note(lines))
    return exc


def safely(fn, e, *args):
    """Run the explainer ``fn(e, *args)``; never let an explanation hide the user's error."""
    try:
        fn(e, *args)
    except Exception as inner:      # noqa: BLE001
        extend(e, [f"(glassgrad could not explain this error: {type(inner).__name__}: {inner})"])


# -- the explainers the core calls through its hook -------------------------------------------
def explain_error(exc, kind, facts):
    """The core's explain hook for errors: ``kind`` says where user code called in."""
    if kind == "backward":
        safely(explain_call, exc, facts["fn"], facts["args"], facts["kwargs"])
    elif kind == "inplace_on_leaf":
        safely(_inplace_on_leaf, exc, facts["tensor"], facts["view"])


def explain_warning(text, kind, facts):
    """The core's explain hook for warnings: the warning's text with the explanation."""
    if kind == "non_leaf_grad":
        return non_leaf_grad_warning(text, facts["tensor"])
    return text


explain_hook.register(explain_error, explain_warning)


def explain_call(e, fn, args, kwargs):
    """Explain the RuntimeError ``e`` raised by the autograd entry point ``fn`` (backward or
    grad) called with ``args``/``kwargs``; the caller's variables name the tensors."""
    b = inspect.signature(fn).bind(*args, **kwargs)
    frame = provenance.user_frame(1)
    names = _frame_names(frame)
    outputs = b.arguments.get("tensors", b.arguments.get("outputs"))
    outputs = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
    inputs = b.arguments.get("inputs")
    if inputs is not None and not isinstance(inputs, (list, tuple)):
        inputs = [inputs]
    msg = str(e)
    ctx = Context(e, names, frame, outputs, inputs)
    for prefix, explain_fn in _CASES:
        m = re.match(prefix, msg)
        if m:
            extend(e, explain_fn(ctx, m))
            return


class Context:
    """What an explanation can look at: the error, the caller's variables and frame, the
    outputs and inputs of the call."""

    def __init__(self, e, names, frame, outputs, inputs):
        self.e, self.names, self.frame = e, names, frame
        self.outputs, self.inputs = outputs, inputs
        self.by_id = {}
        for k, v in names.items():
            self.by_id.setdefault(id(v), k)
        found = module_names(_scopes(frame))
        self.modules = ModuleNames(found)    # the user's names for the models
        self.history_names = {**names, **{k: m for k, m in found.values()}}

    def history(self, roots):
        """The History of ``roots``, tensors and modules named by the caller's variables."""
        return History(roots, self.history_names)

    def name(self, t, fallback=None):
        return self.by_id.get(id(t), fallback)

    def failing_node(self):
        """The backward node that raised (the core attached it to the error)."""
        return explain_hook.facts(self.e).get("node")


def _scopes(frame):
    return (frame.f_locals, frame.f_globals) if frame is not None else ()


def _frame_names(frame):
    out = {}
    for scope in _scopes(frame):
        for k, v in list(scope.items()):
            if isinstance(v, Tensor) and not k.startswith("_") and k not in out:
                out[k] = v
    return out


def _made(src, what="made", modules=None):
    """'made at prog.py:3: `y = x + 1`', or 'made in `net.3` (Sigmoid()) at ...' for a site
    recorded inside a module (``modules``: the ModuleNames naming it)."""
    if src is None:
        return f"{what} at an unrecorded place"
    module = (modules or ModuleNames()).of_site(src)
    return f"{what} in {module} at {describe(src)}" if module else f"{what} at {describe(src)}"


def _tensor_words(t):
    return f"a {t.dtype.name} tensor of shape {_shape(t._data.shape)}"


# -- saved tensor modified in place -----------------------------------------------------------
def saved_modified(ctx, m):
    node = ctx.failing_node()
    if node is None:
        return []
    h = ctx.history([o for o in ctx.outputs if o.requires_grad])
    info = h.by_node.get(node)
    if info is None:
        return []
    lines = []
    for s in info.saved:
        if not s.modified:
            continue
        who = s.tensor
        created = _saved_origin(h, s, node)
        lines.append(f"{info.short}, {_made(node_source(node), modules=h.modules)}, saved "
                     f"`{s.name}` = {who}, a {s.dtype} tensor of shape {_shape(s.shape)}"
                     f"{created}.")
        math = _derivative(info, s, who)
        lines.append(f"It keeps {who} because {s.why}"
                     + (f" ({math})" if math else "")
                     + f": the gradient needs {who}'s value as it was in the forward pass.")
        lines.append(f"{who} was at version {s.saved_version} when saved; it is at version "
                     f"{s.version_now} now. In-place ops that moved it:")
        for version, text in h.bumps(s):
            lines.append(f"  version {version}: {text}")
        bumps = [b for b in provenance.version_history(s.counter)
                 if s.saved_version < b[0] <= s.version_now]
        missing = s.version_now - s.saved_version - len(bumps)
        if missing > 0:
            lines.append(f"  ({missing} more in-place op{'s' * (missing != 1)} not recorded"
                         " (provenance was off, or the op bumps the version itself))")
        lines += _fix_modified(ctx, h, s, who, bumps)
    return lines


def _derivative(info, s, who):
    """'d(y**2)/dy = 2*y' for the saved tensor ``s`` of ``info``'s node: its row's ``explain``
    text (names in braces: the node's saved tensors, by the names user code gave them, and its
    attrs), or None for a node whose row has none."""
    text = getattr(getattr(info.node, "op", None), "explain", None)
    if text is None:
        return None
    names = {k: repr(v) if isinstance(v, str) else str(v) for k, v in info.attrs.items()}
    for other in info.saved:
        names[other.name] = (other.tensor if other.tensor and " " not in other.tensor else
                             str(other.value) if other.is_number else other.name)
    names[s.name] = who if " " not in who else s.name
    text = re.sub(r"\{(\w+)\}", lambda m: names.get(m.group(1), m.group(1)), text)
    return _simplified(text)


def _simplified(math):
    """A power rule with a number for the exponent, worked out: 'y**(2 - 1)' -> 'y',
    'y**(3 - 1)' -> 'y**2', 'y**(0.5 - 1)' -> 'y**-0.5'."""
    def power(m):
        e = float(m.group(1)) - 1
        e = int(e) if e.is_integer() else e
        return "" if e == 1 else f"**{e}"
    return re.sub(r"\*\*\((-?\d+(?:\.\d+)?) - 1\)", power, math)


def _saved_origin(h, s, node):
    """' made at prog.py:3: `y = x + 1`' for a saved tensor: its node's or its leaf's site
    (' (its own output)' for an output of ``node``, the node that saved it)."""
    if s.owner is not None:
        if s.owner[0] is node:
            return " (its own output)"
        return " " + _made(node_source(s.owner[0]), "made", h.modules)
    t = s.obj
    if t is not None and t.grad_fn is None:
        src = leaf_source(t)
        if src is not None:
            return " " + _made(src, "created", h.modules)
        return " (a tensor that does not require grad)" if not t.requires_grad else \
            " (a leaf)"
    return ""


def _fix_modified(ctx, h, s, who, bumps):
    ops = {entry_name(b[2]) for b in bumps} - {None, *MODULE_CALL}
    alias_names = [ctx.name(b[3]()) for b in bumps if b[3]() is not None]
    alias = next((a for a in alias_names if a and a != who), None)
    lines = ["Fix: leave the saved tensor as it is until backward has run:"]
    lines += _inplace_modules(h, bumps)
    if alias:
        lines.append(f"  - modify a copy: `{alias} = {who}.detach().clone()` has its own storage;")
    elif all(part.isidentifier() for part in who.split(".")):     # x, net.0.weight
        lines.append(f"  - modify a copy: `{who}.clone()` (or `.detach().clone()`) has its own "
                     "storage;")
    else:
        lines.append("  - modify a copy: a `.clone()` (or `.detach().clone()`) of it has its own "
                     "storage;")
    outs = [_out_of_place(op, alias or who) for op in sorted(ops)]
    outs = [o for o in outs if o]
    lines.append("  - or use the out-of-place op, which returns a new tensor"
                 + (f" ({'; '.join(outs)})" if outs else "") + ";")
    lines.append("  - or run the in-place op after backward.")
    return lines


def _inplace_modules(h, bumps):
    """The fix for modules built to work in place (``inplace=True``) that made the bumps."""
    lines = []
    for b in bumps:
        call = provenance.module_call(b[2])
        module = h.modules.module(call)
        if module is None or getattr(module, "inplace", None) is not True:
            continue
        path = h.modules.path(call)
        line = (f"  - {h.modules.describe(call)} writes its result into its input: build it "
                "without inplace=True (inplace=False is the default), "
                f"or set `{_expression(path)}.inplace = False` before the forward;")
        if line not in lines:
            lines.append(line)
    return lines


def _expression(path):
    """'net[4].act' for the module path 'net.4.act': how Python code reaches the module."""
    head, *parts = path.split(".")
    return head + "".join(f"[{p}]" if p.isdigit() else f".{p}" for p in parts)


def _out_of_place(op, t):
    """How to write the in-place op ``op`` on ``t`` out of place (None when unknown)."""
    special = {"zero_": f"`{t} = torch.zeros_like({t})` instead of `{t}.zero_()`",
               "fill_": f"`{t} = torch.full_like({t}, value)` instead of `{t}.fill_(value)`",
               "__setitem__": f"`{t} = {t}.clone()` before assigning into `{t}[...]`",
               "copy_": f"use the source tensor instead of copying it into {t}"}
    if op in special:
        return special[op]
    if op in _AUGMENTED:
        sym = _AUGMENTED[op]
        return f"`{t} = {t} {sym} other` instead of `{t} {sym}= other`"
    if op.endswith("_") and not op.startswith("_"):
        return f"`{t} = {t}.{op[:-1]}(...)` instead of `{t}.{op}(...)`"
    return None


_AUGMENTED = {"__iadd__": "+", "__isub__": "-", "__imul__": "*", "__itruediv__": "/",
              "__ipow__": "**", "__imatmul__": "@", "__ifloordiv__": "//"}


# -- backward through the graph a second time -------------------------------------------------
def freed(ctx, m):
    node = ctx.failing_node()
    lines = []
    if node is not None:
        made = _made(node_source(node), modules=ctx.modules)
        lines.append(f"This backward reached {node.name()}, {made}, whose "
                     "saved tensors an earlier backward already freed.")
    earlier = _which_backward(node) if node is not None else None
    if earlier is not None:
        lines.append(f"They were freed by the backward at {describe(earlier)}, which ran "
                     "without retain_graph=True.")
    else:
        recent = provenance.recent_backwards()
        if recent and recent[-1][0] is not None:
            lines.append("The most recent backward without retain_graph=True ran at "
                         f"{describe(recent[-1][0])}; a backward frees the saved tensors of "
                         "every node it runs through.")
    lines += [
        "The usual cause: a tensor computed in one iteration is used in the next one with its "
        "history attached (an RNN hidden state, a running total such as `total_loss += loss`, "
        "a moving average), so each iteration's backward reaches back into the previous, "
        "already freed graph. Cut it with `.detach()` where it carries over "
        "(`h = h.detach()`), or accumulate plain numbers (`total_loss += loss.item()`).",
        "Only if you do mean to backward through the same graph twice, pass "
        "retain_graph=True to every backward but the last."]
    return lines


def _which_backward(node):
    """The recorded backward (newest first) whose graph contains ``node``."""
    for site, refs in reversed(provenance.recent_backwards()):
        starts = [r() for r in refs if r() is not None]
        seen, stack = set(starts), list(starts)
        while stack:
            n = stack.pop()
            if n is node:
                return site
            for nxt, _ in n.next_functions:
                if nxt is not None and nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
    return None


# -- does not require grad ---------------------------------------------------------------------
def no_grad_output(ctx, m):
    t = ctx.outputs[int(m.group(1))]
    return _why_no_grad(ctx, t, "backward() starts from")


def no_grad_input(ctx, m):
    for i, t in enumerate(ctx.inputs or ()):
        if not t.requires_grad:
            return [f"inputs[{i}] does not require grad."] + \
                _why_no_grad(ctx, t, "autograd.grad() differentiates with respect to")
    return []


def unused_input(ctx, m):
    i = int(m.group(1))
    t = ctx.inputs[i]
    name = ctx.name(t, f"inputs[{i}]")
    roots = [o for o in ctx.outputs if o is not None and o.requires_grad]
    h = ctx.history(roots)
    leaves = [info.label for info in h.nodes if info.kind == "leaf"]
    lines = [f"{name} (inputs[{i}], {_tensor_words(t)}) is not in the history of the outputs: "
             "no path of backward's graph leads from them to it."]
    if leaves:
        lines.append(f"The outputs' history reaches these leaves: {', '.join(leaves[:8])}.")
    src = leaf_source(t) if t.grad_fn is None else node_source(t.grad_fn)
    if src is not None:
        lines.append(f"{name} was {_made(src, modules=ctx.modules)}.")
    lines.append("If the outputs were computed from a copy of it (a detach(), .data, "
                 "torch.tensor(...) of it) or before it existed, compute them from it; if it "
                 "is unused on purpose, pass allow_unused=True (its gradient is then None) or "
                 "materialize_grads=True (zeros).")
    return lines


def _why_no_grad(ctx, t, role):
    """Walk back from ``t`` to the first place where the history broke."""
    name = ctx.name(t)
    lines = [f"{role} {name or 'a tensor'} ({_tensor_words(t)}), which has no grad_fn and does "
             "not require grad: no node records how it was made, so there is nothing to "
             "differentiate."]
    if not t.dtype.is_floating_point:
        lines.append(f"It is an integer/bool tensor ({t.dtype.name}): only floating-point "
                     "tensors can require grad. Compute in floating point (e.g. `.float()` "
                     "before the ops), or differentiate a float tensor it was made from.")
        return lines
    if t._inference:
        lines.append("It was made in inference mode (`torch.inference_mode()`), which records "
                     "no history: compute it outside that block.")
    if t._base is not None and t._base.requires_grad:
        lines.append(f"It is a view of {ctx.name(t._base, 'a tensor that requires grad')} made "
                     "under no_grad: compute the view with grad mode on.")
    if ctx.frame is not None:
        if name is not None:
            lines += _source_walk(ctx, name, set(), 0)
        else:       # a temporary: start from the tensors the failing statement reads
            sources = [n for n in _statement_names(ctx.frame)
                       if isinstance(ctx.names.get(n), Tensor)]
            if sources:
                lines += _walk_sources(ctx, "it", describe(provenance.frame_site(ctx.frame)),
                                       sources, set(), 0)
    lines.append("Fix: make the inputs leaves with requires_grad=True (or "
                 "`x.requires_grad_()`) and compute the output from them with grad mode on, "
                 "without detach(), .data, .numpy() or torch.tensor(...) in between.")
    return lines


_BREAKS = ((r"\.detach\(\)", "detach() returns a tensor that shares the storage but has no "
            "history"),
           (r"\.data\b", ".data returns a tensor that shares the storage but has no history"),
           (r"\.numpy\(\)|\.tolist\(\)|\.item\(\)", "leaving for NumPy/Python drops the history"),
           (r"\b(tensor|as_tensor|from_numpy)\(", "torch.tensor(...)/from_numpy(...) make a new "
            "leaf from the values, without history"))
_NO_GRAD_BLOCK = re.compile(r"no_grad|inference_mode|set_grad_enabled\(\s*False")


def _source_walk(ctx, name, seen, depth):
    """Explain, from the caller's source, how variable ``name`` came to have no history."""
    if name in seen or depth > 6:
        return []
    seen.add(name)
    found = _assignment(ctx.frame, name)
    if found is None:
        return []
    line, rhs_names, block = found
    src = provenance.line_site(ctx.frame.f_code, line)
    text = line_text(src)
    lines = []
    if block is not None:
        at = provenance.line_site(ctx.frame.f_code, block)
        lines.append(f"{name} was computed at {describe(src)} inside the block at "
                     f"{where(at)}: `{line_text(at)}`"
                     ": ops run with grad mode off record no history. That is the break; "
                     "compute it outside the block.")
        return lines
    sources = [n for n in rhs_names if isinstance(ctx.names.get(n), Tensor) and n != name]
    if not sources:
        t = ctx.names.get(name)
        if isinstance(t, Tensor) and t.dtype.is_floating_point and t.grad_fn is None:
            return [f"{name} is a leaf created without requires_grad=True at {describe(src)}: "
                    f"pass requires_grad=True there (or call `{name}.requires_grad_()`)."]
        return [f"{name} was made at {describe(src)} from no tensor that requires grad."]
    for pattern, why in _BREAKS:
        if re.search(pattern, text):
            lines.append(f"{name} was made at {describe(src)}: {why}. That is the break.")
            return lines
    return lines + _walk_sources(ctx, name, describe(src), sources, seen, depth)


def _walk_sources(ctx, name, made, sources, seen, depth):
    """``name`` was made from ``sources``: the first of them that broke the history."""
    needing = [n for n in sources if ctx.names[n].requires_grad]
    if needing:
        return [f"{name} was made at {made} from {', '.join(needing)}, which require(s) grad: "
                "that line is where the history broke."]
    lines = [f"{name} was made at {made} from {', '.join(sources)}; none of them requires "
             "grad:"]
    for n in sources:
        t = ctx.names[n]
        if t.grad_fn is None and not t.requires_grad:
            lines += _source_walk(ctx, n, seen, depth + 1)
    return lines


def _statement_names(frame):
    """The variables read by the statement the frame is executing."""
    text = line_text(provenance.frame_site(frame))
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    return list(dict.fromkeys(n.id for n in ast.walk(tree) if isinstance(n, ast.Name)))


def _assignment(frame, name):
    """(line, names read on the right-hand side, line of an enclosing no_grad-like `with` or
    None) of the last assignment to ``name`` before the frame's current line, in the frame's
    function (or module)."""
    filename = frame.f_code.co_filename
    source = "".join(linecache.getlines(filename))
    if not source:
        return None
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    first = frame.f_code.co_firstlineno
    scope = tree
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                (node.lineno == first or any(d.lineno == first for d in node.decorator_list)):
            scope = node
            break
    best = None
    stack = [(scope, None)]
    while stack:
        node, block = stack.pop()
        if isinstance(node, (ast.With, ast.AsyncWith)):
            text = " ".join(ast.get_source_segment(source, item.context_expr) or ""
                            for item in node.items)
            if _NO_GRAD_BLOCK.search(text):
                block = node.lineno
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and \
                node.lineno < frame.f_lineno:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(n, ast.Name) and n.id == name
                   for tgt in targets for n in ast.walk(tgt)):
                if best is None or node.lineno > best[0]:
                    value = node.value
                    rhs = [n.id for n in ast.walk(value) if isinstance(n, ast.Name)] \
                        if value is not None else []
                    if isinstance(node, ast.AugAssign):
                        rhs.append(name)
                    best = (node.lineno, list(dict.fromkeys(rhs)), block)
        for child in ast.iter_child_nodes(node):
            if node is not scope and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                       ast.ClassDef, ast.Lambda)):
                continue
            stack.append((child, block))
    return best


# -- non-scalar backward, shape mismatch -------------------------------------------------------
def non_scalar(ctx, m):
    lines = []
    for o in ctx.outputs:
        if o is not None and o.requires_grad and o.numel() != 1:
            name = ctx.name(o)
            made = _made(node_source(o.grad_fn), modules=ctx.modules) \
                if o.grad_fn is not None else "a leaf"
            lines.append(f"{name or 'The output'} has shape {_shape(o._data.shape)} ({o.numel()} elements), "
                         f"{made}.")
            lines.append("backward() with no gradient argument needs a single number to start "
                         "from (d loss / d loss = 1).")
            name = name or "out"
            lines.append(f"Fix: reduce it to a scalar first (`{name}.sum().backward()` or "
                         f"`.mean()`), or pass one gradient per element: "
                         f"`{name}.backward(gradient=torch.ones_like({name}))` (the vector of a "
                         "vector-Jacobian product).")
            break
    return lines


def shape_mismatch(ctx, m):
    i = int(m.group(1))
    o = ctx.outputs[i]
    name = ctx.name(o, f"output[{i}]")
    made = _made(node_source(o.grad_fn), modules=ctx.modules) if o.grad_fn is not None else \
        "a leaf"
    return [f"{name} has shape {_shape(o._data.shape)} ({made}), but the gradient given for "
            f"it (grad_output[{i}]) has shape {m.group(2)}.",
            "The gradient passed to backward()/grad() holds d(something)/d(output) for each of "
            "the output's elements, so it must have exactly the output's shape (no "
            "broadcasting).",
            f"Fix: pass a gradient of shape {_shape(o._data.shape)} "
            f"(e.g. `torch.ones_like({name})`), or pass it for the tensor it was meant for."]


def invalid_gradient(ctx, m):
    node = ctx.failing_node()
    lines = [f"The backward of {m.group(1)} returned a gradient of shape {m.group(3)} for its "
             f"input {m.group(2)}, whose shape was {m.group(4)} in the forward pass."]
    if node is not None and node_source(node) is not None:
        lines.append(f"{m.group(1)} was {_made(node_source(node), modules=ctx.modules)}.")
    lines.append("Each gradient a backward returns must have its input's shape (or one that "
                 "sums down to it by broadcasting rules). Fix the backward method so that it "
                 "returns, for every forward input, a gradient shaped like that input.")
    return lines


_CASES = (
    (r"one of the variables needed for gradient computation has been modified by an inplace",
     saved_modified),
    (re.escape(FREED_MESSAGE[:50]), freed),
    (r"element (\d+) of tensors does not require grad and does not have a grad_fn",
     no_grad_output),
    (r"One of the differentiated Tensors does not require grad", no_grad_input),
    (r"The differentiated Tensor at index (\d+) appears to not have been used", unused_input),
    (r"grad can be implicitly created only for scalar outputs", non_scalar),
    (r"Mismatch in shape: grad_output\[(\d+)\] has a shape of torch\.Size\((\[[^\]]*\])\)",
     shape_mismatch),
    (r"Function (\w+) returned an invalid gradient at index (\d+) - got (\[[^\]]*\]) but "
     r"expected shape compatible with (\[[^\]]*\])", invalid_gradient),
)


# -- raised outside backward: in-place on a leaf, reading a non-leaf's .grad -------------------
def _inplace_on_leaf(exc, t, view):
    leaf = t._base if view else t
    frame = provenance.user_frame(1)
    names = _frame_names(frame)
    by_id = {id(v): k for k, v in reversed(list(names.items()))}
    modules = ModuleNames(module_names(_scopes(frame)))
    call = provenance.module_calls.top      # the module running the in-place op, if any
    owned = modules.tensor_names([call] if call is not None else ())
    name = by_id.get(id(leaf)) or owned.get(id(leaf), ("the leaf",))[0]
    src = leaf_source(leaf)
    lines = [f"{name} is a leaf that requires grad ({_tensor_words(leaf)}), "
             f"{_made(src, 'created') if src is not None else 'created without a recorded site'}."]
    if call is not None:
        lines.append(f"The in-place op ran in {modules.describe(call)}, called at "
                     f"{describe(provenance.frame_site(frame))}.")
    if view:
        lines.append(f"The tensor written into, {by_id.get(id(t), 'a view')}, is a view of it: "
                     "writing into the view writes into the leaf.")
    lines += [f"autograd needs {name}'s value as it is: backward accumulates into {name}.grad, "
              "and an in-place op would change the leaf the gradient belongs to.",
              f"Fix: to update a parameter (an optimizer step, an initialisation), do it under "
              f"`with torch.no_grad():`; to compute with a changed value, use the out-of-place op "
              f"(`{name} = {name} + 1`, not `{name} += 1`), or modify a clone "
              f"(`{name}.clone()`)."]
    extend(exc, lines)


def non_leaf_grad_warning(text, t):
    """The warning for reading a non-leaf's .grad, with glassgrad's explanation after it."""
    try:
        frame = provenance.user_frame(1)
        names = _frame_names(frame)
        name = next((k for k, v in names.items() if v is t), "this tensor")
        src = node_source(t.grad_fn)
        modules = ModuleNames(module_names(_scopes(frame)))
        return with_explanation(text, [
            f"{name} is not a leaf: it is the output of {t.grad_fn.name()}, "
            f"{_made(src, modules=modules)}; backward passes its gradient on to the leaves and "
            "does not keep it.",
            f"Fix: call `{name}.retain_grad()` before backward to keep it in {name}.grad, or "
            "read the .grad of the leaf (a tensor created with requires_grad=True) instead."])
    except Exception:       # noqa: BLE001  (a warning never fails)
        return text
