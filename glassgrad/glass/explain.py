"""explain(t): the history behind a tensor in words.

For each node: what it is, the backward formulas it runs, what it saved (shape, version at save,
version now) and why (the formula parameters that name it: PyTorch's derivatives.yaml rule, "a
formula's parameter names are its save list"), what it keeps by value, its hooks. Then which
tensors of the history are safe to modify in place now: those no node saved.

Each node block is built from fields (NodeInfo), with the source line where user code made the
node and, for a saved tensor modified since, the in-place ops that moved its version.
"""
import os

from .._autograd import explain_hook
from .._tensor import Tensor
from .errors import explanation
from .graph import saved_line
from .history import History, caller_names, _shape, _why


def explain(t, names=None):
    """The history behind tensor ``t`` (or a list of tensors) as text. Tensors are named after
    the caller's variables unless ``names`` ({name: tensor}) is given. For an exception ``t``:
    glassgrad's explanation of it (the note under its message), or None."""
    if isinstance(t, BaseException):
        return explanation(t)
    if names is None:
        names = caller_names(2)
    return Explanation(History(t, names)).text()


class Explanation:
    def __init__(self, history):
        self.history = history

    def text(self):
        h = self.history
        lines = []
        for t in h.roots:
            lines.append(_headline(h, t))
        if not h.root_infos:
            return "\n".join(lines) + "\n"
        for info in h.nodes:
            lines.append("")
            lines += node_block(h, info)
        lines.append("")
        lines += safety_lines(h)
        return "\n".join(lines) + "\n"


def _headline(h, t):
    name = h.name_of(t) or "the tensor"
    what = f"{name}: {_dtype_shape(t)}"
    if t.grad_fn is not None:
        info = h.by_node[t.grad_fn]
        return (f"{what}, output {t._output_nr} of {info.short}; {len(h.nodes)} "
                f"node{'s' * (len(h.nodes) != 1)} in its history (newest first):")
    if t.requires_grad:
        return (f"{what}, a leaf that requires grad: backward accumulates into {name}.grad "
                "(its node is AccumulateGrad); it has no history of its own.")
    return f"{what}, requires_grad=False: no node records how it was made, so there is nothing " \
           "to explain."


def node_block(h, info):
    """The lines that explain one node."""
    if info.kind == "leaf":
        var = info.variable
        name = info.outputs.get(0) or "the leaf"
        lines = [f"{info.label}: AccumulateGrad, a leaf {info.dtype} {_shape(info.shape)}"
                 + (" that requires grad" if var._requires_grad else "")
                 + f"; gradients arriving here are added into {name}.grad"]
    else:
        kind = " (a custom autograd.Function)" if info.kind == "function" else ""
        lines = [f"{info.label}{kind}"]
    module = h.modules.describe(info.module_call)
    if info.source is not None:
        lines.append(f"  made {f'in {module} ' if module else ''}at {info.source}")
    elif module:
        lines.append(f"  made in {module}")
    if info.view_op:
        lines.append("  a view op: its output shares storage and version counter with its input")
    for v in info.views:
        lines.append(f"  {v}")
    for inp, formula in info.formulas:
        lines.append(f"  backward formula for `{inp}`: {formula}")
    if info.kind in ("op", "function"):
        if not info.saved:
            lines.append(f"  {info.short} saved no tensors: nothing an in-place op could "
                         "invalidate")
        for s in info.saved:
            lines += _saved_lines(h, info, s)
        op = getattr(info.node, "op", None)
        for k, v in info.attrs.items():
            lines.append(f"  {info.short} keeps {k}={v!r} by value because "
                         f"{_why(op, k) if op is not None else 'its backward uses it'}"
                         " (values never go stale)")
    for e in info.edges:
        nr = f" (output {e.output_nr})" if e.node.n_outputs > 1 else ""
        lines.append(f"  the gradient for `{e.input}` flows on to {e.node.label}{nr}")
    for hook in info.hooks:
        lines.append(f"  hook: {hook}")
    return lines


def _saved_lines(h, info, s):
    if s.freed:
        return [f"  {info.short} kept `{s.name}`, but it was freed: backward already ran through "
                "this node without retain_graph=True"]
    if s.is_number:
        return [f"  {info.short} keeps `{s.name}` = {s.value!r} (a Python number in a tensor "
                f"slot) because {s.why}"]
    what = "its own output" if s.is_output else "it"
    lines = [f"  {info.short} keeps `{s.name}` because {s.why.replace('uses it', f'uses {what}')}:",
             "    " + saved_line(s).split(": ", 1)[1]]
    if s.modified:
        lines.append(f"    it changed in place after it was saved (version {s.saved_version} -> "
                     f"{s.version_now}), so backward through {info.short} will raise "
                     "\"one of the variables needed for gradient computation has been modified "
                     "by an inplace operation\"")
        for version, how in s.history:
            lines.append(f"      version {version}: {how}")
        if s.aliases:
            lines.append(f"    it shares its storage and version counter with "
                         f"{', '.join(s.aliases)}: an in-place op on any of them bumps it")
    return lines


def safety_lines(h):
    safe, unsafe = [], []
    for label, reasons, kind in h.in_place_safety():
        if reasons:
            unsafe.append(f"  {label}: " + "; ".join(reasons))
        else:
            note = (" (a leaf that requires grad: only under torch.no_grad() or through "
                    ".detach())" if kind == "leaf" else "")
            safe.append(f"  {label}{note}")
    lines = ["safe to modify in place now (no node saved them):"]
    lines += safe or ["  (none)"]
    lines.append("not safe to modify in place (a node saved them for backward):")
    lines += unsafe or ["  (none)"]
    return lines


def _dtype_shape(t):
    return f"{t.dtype.name} {_shape(t._data.shape)}"


def explain_error(exc, names=None):
    """Context for an autograd error: the node backward stopped at and the history of the
    tensors the failing glassgrad call was given. None when the traceback shows none."""
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        if _in_glassgrad(tb.tb_frame):
            frames.append(tb.tb_frame)
        tb = tb.tb_next
    if not frames:
        return None
    roots = []     # the tensors the outermost call (the one the user made) was given
    for value in frames[0].f_locals.values():
        for v in value if isinstance(value, (tuple, list)) else (value,):
            if isinstance(v, Tensor) and v.requires_grad and all(v is not r for r in roots):
                roots.append(v)
    failing = explain_hook.facts(exc).get("node")     # the core attached the node that failed
    if not roots:
        return None
    h = History(roots, names or {})
    lines = []
    info = h.by_node.get(failing)
    if info is not None:
        bad = [s for s in info.saved if s.modified]
        lines.append(f"backward stopped at {info.label}" + (":" if bad else "."))
        for s in bad:
            lines += _saved_lines(h, info, s)
        lines.append("")
    lines.append(Explanation(h).text().rstrip("\n"))
    return "\n".join(lines) + "\n"


def _in_glassgrad(frame):
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return os.path.abspath(frame.f_code.co_filename).startswith(here + os.sep) and \
        os.sep + "glass" + os.sep not in frame.f_code.co_filename and \
        not frame.f_code.co_filename.endswith(("cli.py", "__main__.py"))
