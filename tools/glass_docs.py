"""Generate docs/glass.md (and the SVGs it shows) from real runs:

    python tools/glass_docs.py [docs-folder]

Every output block in the page is what the code printed when the page was generated.
"""
import os
import pathlib
import subprocess
import sys
import tempfile
import textwrap
import traceback

import glassgrad
from glassgrad.glass import explain
from glassgrad.glass.graph import dot_available, graph



def _seed_head(stem, n):
    """The first ``n`` statements of the seed program ``stem`` (after its title comment)."""
    from glassgrad.seeds import PROGRAMS
    path = next(p for p in PROGRAMS if p.stem == stem)
    return "".join(path.read_text().splitlines(True)[1:n + 1])


SEED1 = _seed_head("qa1_detach_pow", 5)       # up to c.zero_()
SEED2 = _seed_head("qa2_detach_linear", 6)    # up to c.zero_()

VIEWS_HOOKS = """\
w = torch.ones(2, 3, requires_grad=True)
w.register_hook(lambda g: g * 2)
a = w * 2
v = a.view(6)
b = a.exp()
d = v.sum() + b.sum()
d.register_hook(print)
a.retain_grad()
"""

CLI_ERROR = """\
import torch

x = torch.tensor(3.0, requires_grad=True)
y = x + 1
z = y**2
y.detach().zero_()
z.backward()
"""

CLI_DIFFERS = """\
import torch

x = torch.ones(2, requires_grad=True)
print((x * 2).sum())
print(torch.__name__)
"""


# the explained errors: (title, program); each program raises, and the page shows its message
ERRORS = (
    ("A saved tensor modified in place (the first seed, run to its backward)",
     SEED1 + "z.backward()\n"),
    ("The same, through a view",
     "x = torch.ones(3, requires_grad=True)\nz = (x * 2).exp()\nv = z[1:]\nv.mul_(2)\n"
     "z.sum().backward()\n"),
    ("Backward through the graph a second time: a hidden state carried across iterations",
     "x = torch.ones(2, requires_grad=True)\nh = torch.zeros(2)\nfor step in range(2):\n"
     "    h = torch.tanh(x * h + 1)\n    loss = h.sum()\n    loss.backward()\n"),
    ("Does not require grad: made under no_grad",
     "w = torch.ones(2, requires_grad=True)\nwith torch.no_grad():\n    y = w * 2\n"
     "loss = y.sum()\nloss.backward()\n"),
    ("Does not require grad: a detach() on the way",
     "w = torch.ones(2, requires_grad=True)\ny = w.detach() * 2\ny.sum().backward()\n"),
    ("Does not require grad: a leaf created without requires_grad",
     "x = torch.ones(2)\nloss = (x * 2).sum()\nloss.backward()\n"),
    ("An input unused by the graph (autograd.grad)",
     "x = torch.ones(2, requires_grad=True)\nw = torch.ones(2, requires_grad=True)\n"
     "torch.autograd.grad((x * 2).sum(), [x, w])\n"),
    ("Backward of a non-scalar", "x = torch.ones(3, requires_grad=True)\ny = x * 2\n"
     "y.backward()\n"),
    ("A gradient of the wrong shape", "x = torch.ones(3, requires_grad=True)\ny = x * 2\n"
     "y.backward(torch.ones(2))\n"),
    ("In place on a leaf", "x = torch.ones(2, requires_grad=True)\nx.add_(1)\n"),
    ("In place on a view of a leaf",
     "x = torch.ones(2, requires_grad=True)\nv = x[:1]\nv.mul_(2)\n"),
)


def explained_errors_section():
    """The page's section on explained errors: each program and the message it raises."""
    import linecache
    saved = linecache.cache.get("prog.py")
    parts = [textwrap.dedent("""\
        ## Errors that explain themselves

        Every autograd error is PyTorch's exception with PyTorch's exact text (`str(e)`, so
        `except` clauses, `pytest.raises(match=...)` and printed errors are what PyTorch gives);
        glassgrad's explanation travels as a PEP 678 note, which tracebacks and Jupyter show
        under the message: the header `glassgrad explains:`, then each line indented by two
        spaces. `glassgrad.explain(e)` returns it. The explanation names
        the user's code (file:line and the line's text), from provenance recorded as the
        program ran: every node remembers where user code made it, every leaf that requires
        grad where it was created, and every storage its last in-place ops (op, line, and the
        alias written through). `glassgrad.glass.set_provenance(False)` turns the recording
        off (see docs/performance.md for its cost).

        """)]
    for title, code in ERRORS:
        try:
            _exec(code, {"torch": glassgrad})
        except RuntimeError as e:
            message = "".join(traceback.format_exception_only(e))    # as a traceback ends
        else:
            raise AssertionError(f"{title}: the program did not raise")
        finally:
            linecache.cache.pop("prog.py", None)
            if saved is not None:
                linecache.cache["prog.py"] = saved
        parts.append(f"### {title}\n\n`prog.py`:\n\n" + _block(code, "python") + "\n"
                     + _block(message) + "\n")
    return "".join(parts)


def _exec(code, ns):
    """Run ``code`` as the file prog.py (its lines readable by the explanations)."""
    import linecache
    linecache.cache["prog.py"] = (len(code), None, code.splitlines(True), "prog.py")
    exec(compile(code, "prog.py", "exec"), ns)


def _run(code):
    ns = {"torch": glassgrad}
    _exec(code, ns)
    return {k: v for k, v in ns.items() if isinstance(v, glassgrad.Tensor)}


def _block(text, lang=""):
    return f"```{lang}\n{text.rstrip()}\n```\n"


def _env():
    """The environment of a subprocess that imports this glassgrad (not another install)."""
    pkg_parent = os.path.dirname(os.path.dirname(os.path.abspath(glassgrad.__file__)))
    return {**os.environ, "PYTHONPATH": pkg_parent, "PYTHONUNBUFFERED": "1"}


def _cli(args, cwd):
    proc = subprocess.run([sys.executable, "-m", "glassgrad", *args], capture_output=True,
                          text=True, cwd=cwd, timeout=600, env=_env())
    pkg = os.path.dirname(os.path.abspath(glassgrad.__file__))
    text = proc.stdout + proc.stderr
    text = text.replace(pkg + os.sep, "glassgrad/").replace(str(cwd) + os.sep, "")
    return text, proc.returncode


def generate(out_dir):
    out_dir = pathlib.Path(out_dir)
    parts = [textwrap.dedent("""\
        # Seeing through autograd: `glassgrad.glass`

        Generated by `python tools/glass_docs.py` (every output below is real). The tools:

        - `glassgrad.glass.graph(t)`: the history behind a tensor, as an arrow picture (`.text()`),
          Graphviz DOT (`.to_dot()`), SVG/PNG (`.render("z.svg")`, through Graphviz's `dot`) and
          inline in notebooks (`_repr_svg_`, `_repr_html_`).
        - `glassgrad.explain(t)`: the same history in words: what each node saved, its version at
          save and now, *why* (the backward formula whose parameters name it) and which tensors are
          safe to modify in place.
        - `glassgrad run script.py` / `glassgrad compare script.py`: run an unmodified PyTorch
          script on glassgrad (with explanations after autograd errors), or diff its output against
          PyTorch's.
        - `glassgrad.glass.summary(model, *inputs)`: one forward pass, and a table of each
          module's output shapes, parameters and the bytes it keeps for backward (see Modules).

        Tensors are named after the variables that hold them (the caller's frame, or
        `names={"x": x}`). Each node shows the source line that made it (`source:`) and the
        `nn.Module` it was made in (`module:`, see Modules), and a saved tensor modified since it
        was saved lists the in-place ops that moved its version.

        The picture reads like the forward pass: `leaf ---> ... ---> root`, one line per path.
        Paths run through the nodes' `next_functions`; `y = AddBackward0` means the variable `y`
        holds that node's output; `#1`, `#2` tell apart nodes of the same name (oldest first).

        """)]
    for title, code, stem, note in (
            ("The first seed: `z = y**2` keeps `y`", SEED1, "glass_seed1",
             "`PowBackward0` saved `y` at version 0; `c = y.detach()` shares `y`'s storage and "
             "version counter, so `c.zero_()` moved it to version 1: the graph marks it "
             "MODIFIED, and `z.backward()` will raise."),
            ("The second seed: `z = 3*y1 + 4*y2` keeps no `y2`", SEED2, "glass_seed2",
             "No node saved `y2` (the gradient of `4*y2` is the number 4, kept by value), so "
             "`c.zero_()` invalidates nothing and backward prints 27. `PowBackward0` saved `x`, "
             "which is why `x` is the one tensor not safe to modify.")):
        ns = _run(code)
        g = graph(ns["z"], names=ns)
        parts.append(f"## {title}\n\n{_block(code, 'python')}\n{note}\n\n")
        parts.append("`print(glassgrad.glass.graph(z).text())`:\n\n" + _block(g.text()) + "\n")
        if dot_available():
            g.render(out_dir / f"{stem}.svg")
            parts.append(f"`graph(z).render(\"{stem}.svg\")`:\n\n![{stem}]({stem}.svg)\n\n")
        parts.append("`print(glassgrad.explain(z))`:\n\n" + _block(explain(ns["z"], names=ns))
                     + "\n")
    parts.append(explained_errors_section())
    ns = _run(VIEWS_HOOKS)
    g = graph(ns["d"], names=ns)
    parts.append("## Views, hooks and a diamond\n\n" + _block(VIEWS_HOOKS, "python") + "\n"
                 + _block(g.text()) + "\n")
    if dot_available():
        g.render(out_dir / "glass_views_hooks.svg")
        parts.append("![views and hooks](glass_views_hooks.svg)\n\n")
    ns = _run(SEED1)
    parts.append("## DOT source\n\n`graph(z).to_dot()` for the first seed (feed it to any "
                 "Graphviz tool):\n\n" + _block(graph(ns["z"], names=ns).to_dot(), "dot") + "\n")
    parts.append(modules_section(out_dir))
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp).resolve()
        (tmp / "seed1.py").write_text(CLI_ERROR)
        (tmp / "differs.py").write_text(CLI_DIFFERS)
        (tmp / "seed2.py").write_text("import torch\n\n" + SEED2 +
                                      "z.backward(retain_graph=True)\nprint(x.grad)\n")
        parts.append(textwrap.dedent("""\
            ## The command line

            `glassgrad run script.py [args]` runs an unmodified PyTorch script with `torch` and
            every `torch.*` module resolved to glassgrad (an import hook; a module glassgrad lacks
            is a clear `ModuleNotFoundError`). After an autograd error it explains the tensors
            involved:

            """) + _block(CLI_ERROR, "python") + "\n")
        text, code = _cli(["run", "seed1.py"], tmp)
        parts.append(f"`glassgrad run seed1.py` (exit code {code}):\n\n" + _block(text) + "\n")
        parts.append("`glassgrad compare script.py` runs the script under PyTorch and under "
                     "glassgrad and diffs stdout and stderr (memory addresses normalised); exit "
                     "code 0 when identical, 1 otherwise.\n\n")
        text, code = _cli(["compare", "seed2.py"], tmp)
        parts.append(f"The second seed, `glassgrad compare seed2.py` (exit code {code}):\n\n"
                     + _block(text) + "\n")
        text, code = _cli(["compare", "differs.py"], tmp)
        parts.append(_block(CLI_DIFFERS, "python") + "\n"
                     f"`glassgrad compare differs.py` (exit code {code}):\n\n"
                     + _block(text, "diff"))
    parts.append(_trace_section())
    parts.append(_anomaly_section())
    (out_dir / "glass.md").write_text("".join(parts))
    return out_dir / "glass.md"


MODULES_ERROR = """\
from glassgrad import nn

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 4), nn.Sigmoid(),
                    nn.ReLU(inplace=True))
x = torch.randn(2, 4)
net(x).sum().backward()
"""

MODULES_GRAPH = """\
from glassgrad import nn

class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(3, 3)
        self.act = nn.Tanh()

    def forward(self, x):
        return self.act(self.linear(x)) + x

torch.manual_seed(0)
model = nn.Sequential(Block(), nn.Linear(3, 1))
loss = model(torch.ones(2, 3)).sum()
g = torch.glass.graph(loss)
print(g.text())
"""

MODULES_TRACE = """\
from glassgrad import nn

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(3, 3), nn.Tanh(), nn.Linear(3, 1))
loss = net(torch.ones(2, 3)).sum()
with torch.glass.trace_backward() as tr:
    loss.backward()
print(tr)
"""

MODULES_SUMMARY = """\
from glassgrad import nn

torch.manual_seed(0)
cnn = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                    nn.Flatten(), nn.Linear(4 * 4 * 4, 10))
result = torch.glass.summary(cnn, torch.randn(8, 1, 8, 8))
"""


def _printed(code):
    """What ``code`` (run as prog.py, torch bound to glassgrad) prints, and its namespace."""
    import contextlib
    import io
    import linecache
    out, ns = io.StringIO(), {"torch": glassgrad}
    try:
        with contextlib.redirect_stdout(out):
            _exec(code, ns)
    finally:
        linecache.cache.pop("prog.py", None)
    return out.getvalue(), ns


def modules_section(out_dir=None):
    """The page's section on modules: the classic error, a graph grouped by module (its SVG
    written to ``out_dir``), and summary."""
    import linecache
    try:
        _exec(MODULES_ERROR, {"torch": glassgrad})
    except RuntimeError as e:
        message = "".join(traceback.format_exception_only(e))
    else:
        raise AssertionError("the modules example did not raise")
    finally:
        linecache.cache.pop("prog.py", None)
    graph_text, ns = _printed(MODULES_GRAPH)
    summary_text, _ = _printed(MODULES_SUMMARY)
    parts = [textwrap.dedent("""\
        ## Modules

        Every node remembers the `nn.Module` call it was made in (and every in-place version
        bump the module it happened in): `nn.Module.__call__` keeps a per-thread chain of the
        running module calls, which provenance records with the source site. A module's path
        (`encoder.layers.0.linear1`) is found from the root module's `named_modules()` only when
        explaining, and the root is named by the variable that holds the model (else its class).
        Modules are held weakly: a graph never keeps a model alive (a module gone is named by its
        class, `<Sequential>.<Linear>`).

        The classic error: `nn.ReLU(inplace=True)` overwrites the output `nn.Sigmoid()` saved.
        The message is PyTorch's; the explanation names both modules and the fix:

        """), _block(MODULES_ERROR, "python"), "\n", _block(message), "\n",
        textwrap.dedent("""\
        Graph pictures group nodes by module: the text form shows each node's module, the DOT
        source puts the nodes of each module in a `subgraph cluster_k` labelled with its path and
        class (nested as the modules ran; the module's repr is the tooltip), a parameter's leaf
        in its module's cluster, and parameters are named by their paths (`model.0.linear.weight`):

        """), _block(MODULES_GRAPH, "python"), "\n", _block(graph_text), "\n"]
    if out_dir is not None and dot_available():
        ns["g"].render(pathlib.Path(out_dir) / "glass_modules.svg")
        parts.append('`g.render("glass_modules.svg")`:\n\n![modules](glass_modules.svg)\n\n')
    parts.append(textwrap.dedent("""\
        `collapse=` draws modules as one box each, labelled with the module's path and class
        and the number of nodes it hides (its nodes, saved tensors, parameter leaves and
        submodules); the edges into and out of its nodes become the box's edges. Give a depth
        (`collapse=2`: every module two levels deep, the model itself being level 1;
        `collapse=1`: the whole model as one box) or module paths
        (`collapse={"model.0"}`; a path that made no node of the history is refused with the
        list of those that did). DOT has no interactive folding, so each setting is its own
        picture; the text form always lists every node:

        """))
    parts.append(_block('torch.glass.graph(loss, collapse={"model.0"}).render('
                        '"glass_modules_collapsed.svg")', "python") + "\n")
    if out_dir is not None and dot_available():
        glassgrad.glass.graph(ns["loss"], names=ns, collapse={"model.0"}).render(
            pathlib.Path(out_dir) / "glass_modules_collapsed.svg")
        parts.append("![modules collapsed](glass_modules_collapsed.svg)\n\n")
    trace_text, _ = _printed(MODULES_TRACE)
    parts.append(textwrap.dedent("""\
        `trace_backward()` names modules too: each step's `module` (a column of the table) is
        the module its node was made in, with its class; an `AccumulateGrad` names the module
        holding the parameter:

        """) + _block(MODULES_TRACE, "python") + "\n" + _block(trace_text) + "\n")
    parts += [textwrap.dedent("""\
        `glassgrad.glass.summary(model, *inputs, **kwargs)` runs the model once and prints (and
        returns: `.rows`, `.output`, `str()`) a table of each module's output shape(s), its own
        parameters (all, and those that require grad) and the **bytes it keeps for backward**:
        the tensors its nodes saved (torch's `grad_fn._saved_*`), counted by storage (each once,
        whole), charged to the module whose node saved it first, leaving out the parameters,
        buffers and the inputs, which are held anyway. A module's figures are its own (its
        submodules have their rows), so each column adds up to the total:

        """), _block(MODULES_SUMMARY, "python"), "\n", _block(summary_text), "\n",
        "Conv2d keeps its input and weight (both held anyway); ReLU keeps its output, which "
        "MaxPool2d keeps too (charged once, to ReLU) with its int64 indices; the Linear keeps "
        "the pooled activations (a view of MaxPool2d's output, through Flatten).\n\n"]
    return "".join(parts)


TRACE = """\
w = torch.ones(2, 3, requires_grad=True)
b = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
w.register_hook(lambda g: g * 2)
b.register_post_accumulate_grad_hook(lambda p: None)
a = w * b
a.retain_grad()
e = a.exp()
e.grad_fn.register_prehook(lambda grads: None)
loss = e.sum() + a.view(6).sum()
with torch.glass.trace_backward() as tr:
    loss.backward()
print(tr)
"""

TRACE_DATA = """\
r = next(s for s in tr.steps if s.kind == "reduce")
print(r.node, r.grads_in, r.grads_out, sep="\\n")
"""


def _trace_section():
    import contextlib
    import io
    out = io.StringIO()
    ns = {"torch": glassgrad}
    with contextlib.redirect_stdout(out):
        exec(compile(TRACE, "prog.py", "exec"), ns)
    table = out.getvalue()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(TRACE_DATA, "prog.py", "exec"), ns)
    return ("\n" + textwrap.dedent("""\
        ## Traced backward

        `glassgrad.glass.trace_backward()` records every step of the backward passes run inside
        it, in the order the engine ran them: each node with the gradients it got (one per forward
        output) and returned (one per input; shape and norm), the hooks that fired (tensor hooks,
        `retain_grad`, node pre- and post-hooks, post-accumulate-grad hooks; `replaced the
        gradient` when one returned a new one), the engine's broadcast reductions (`reduce`) and
        dtype casts (`cast`) of returned gradients, and the accumulations into leaves. Its order is
        PyTorch's (the tests compare it with the order torch runs the same program's hooks in).

        """) + _block(TRACE, "python") + "\n" + _block(table) + "\n"
        "The steps are data too (`tr.steps`, each a `Step` with `kind`, `node`, `source`, "
        "`grads_in`, `grads_out` as `GradInfo(shape, dtype, norm)`, `hook`, `note`, `depth`):\n\n"
        + _block(TRACE_DATA, "python") + "\n" + _block(out.getvalue()))


ANOMALY = """\
import glassgrad as torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
with torch.autograd.detect_anomaly():
    y = x * 2
    z = y ** 2
    y.add_(1)
    try:
        z.sum().backward()
    except RuntimeError as e:
        print("RuntimeError:", e)

x = torch.tensor([0.0, 1.0], requires_grad=True)
with torch.autograd.set_detect_anomaly(True):   # check_nan=True by default
    y = x.sqrt()
    try:
        (y * 0).sum().backward()
    except RuntimeError as e:
        print("RuntimeError:", e)
print(sorted(y.grad_fn.metadata))
"""


def _anomaly_section():
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp).resolve()
        (tmp / "prog.py").write_text(ANOMALY)
        proc = subprocess.run([sys.executable, "prog.py"], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, cwd=tmp, env=_env(), timeout=600)
    text = proc.stdout.replace(str(tmp) + os.sep, "")
    return ("\n" + textwrap.dedent("""\
        ## Anomaly mode

        As PyTorch's: `torch.autograd.detect_anomaly(check_nan=True)` (a context manager that
        warns on entry) and `torch.autograd.set_detect_anomaly(mode, check_nan=True)` (a context
        manager or a plain call), with `torch.is_anomaly_enabled()`,
        `torch.is_anomaly_check_nan_enabled()` and `torch.set_anomaly_enabled`. While it is on,
        every node keeps the traceback of the forward call that made it
        (`node.metadata["traceback_"]`, the user's frames; a node made by a `create_graph=True`
        backward also keeps the node whose backward made it, `metadata["parent_"]`). When a node
        fails in backward the engine warns `Error detected in <node>. Traceback of forward call
        that caused the error:` (then `Previous calculation was induced by ...` for each parent)
        and re-raises the error; the saved-tensor error's hint points at that traceback; with
        `check_nan`, a node returning NaN fails with PyTorch's message. The texts are PyTorch's
        (the tests compare them with torch's, frame by frame).

        """) + _block(ANOMALY, "python") + f"\n`python prog.py` (exit code {proc.returncode}):\n\n"
        + _block(text))


if __name__ == "__main__":
    default = pathlib.Path(__file__).resolve().parents[1] / "docs"
    print(generate(sys.argv[1] if len(sys.argv) > 1 else default))
