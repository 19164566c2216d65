"""glassgrad.glass: graph(t) (text, DOT, SVG/PNG) and explain(t) show the facts of a history:
node names, what each node saved and its versions, views, hooks, leaves."""
import re
import shutil

import pytest

import glassgrad as torch
from glassgrad.glass import Graph, GraphvizNotFound, explain, graph

needs_dot = pytest.mark.skipif(shutil.which("dot") is None,
                               reason="Graphviz's `dot` is not installed (run `make graphviz`)")


def seed1():
    """The first seed block, up to the in-place op that breaks its backward."""
    x = torch.tensor(3.0, requires_grad=True)
    y = x + 1
    z = y**2
    c = y.detach()
    c.zero_()
    return dict(x=x, y=y, z=z, c=c)


def seed2():
    x = torch.tensor(3.0, requires_grad=True)
    y1 = x + 1
    y2 = x**2
    z = 3*y1 + 4*y2
    c = y2.detach()
    c.zero_()
    return dict(x=x, y1=y1, y2=y2, z=z, c=c)


def line_with(text, *parts):
    """The one line of ``text`` that contains every part."""
    found = [line for line in text.splitlines() if all(p in line for p in parts)]
    assert found, f"no line with {parts} in:\n{text}"
    return found[0]


# -- the first seed ----------------------------------------------------------------------------
def test_seed1_text_path_and_modified_saved_tensor():
    ns = seed1()
    text = graph(ns["z"], names=ns).text()
    assert "x ---> y = AddBackward0 ---> z = PowBackward0" in text
    assert "3 nodes, 1 path" in text
    saved = line_with(text, "saved self: y")
    assert "float32 []" in saved and "version 0 at save, 1 now MODIFIED" in saved
    assert "shares its version counter with c" in saved
    assert line_with(text, "x = AccumulateGrad", "leaf float32 []")
    assert "kept: exponent=2" in text
    assert line_with(text, "c = a detach() alias of y")


def test_seed1_before_the_in_place_op_is_not_modified():
    x = torch.tensor(3.0, requires_grad=True)
    y = x + 1
    z = y**2
    text = graph(z).text()      # names come from this frame
    assert "version 0 at save, 0 now" in line_with(text, "saved self: y")
    assert "MODIFIED" not in text


def test_seed1_dot():
    ns = seed1()
    dot = graph(ns["z"], names=ns).to_dot()
    assert dot.startswith("digraph") and dot.rstrip().endswith("}")
    assert "PowBackward0" in dot and "AddBackward0" in dot and "AccumulateGrad" in dot
    saved = line_with(dot, "saved self: y")
    assert "MODIFIED" in saved and "aliases: c" in saved and "#f8d7da" in saved
    # edges run forward: leaf -> AddBackward0 -> PowBackward0, and the saved tensor -> its node
    ids = {m.group(2).split("\\")[0]: m.group(1)
           for m in re.finditer(r'^  (n\d+) \[label="([^"]*)"', dot, re.M)}
    assert f'{ids["x"]} -> {ids["y = AddBackward0"]}' in dot
    assert f'{ids["y = AddBackward0"]} -> {ids["z = PowBackward0"]}' in dot
    assert re.search(rf'{ids["z = PowBackward0"]}_s0 -> {ids["z = PowBackward0"]} ', dot)


def test_seed1_explain():
    ns = seed1()
    text = explain(ns["z"], names=ns)
    assert "PowBackward0 keeps `self` because its backward formula for `self` uses it" in text
    assert "version 0 at save, 1 now MODIFIED" in text
    assert "AddBackward0 saved no tensors" in text
    assert "_pow_scalar_exponent_grad(grad, self, exponent)" in text or \
        re.search(r"backward formula for `self`: .*\(grad, self, exponent\)", text)
    safe, unsafe = text.split("safe to modify in place now")[1].split("not safe to modify")
    assert re.search(r"^  z$", safe, re.M) and re.search(r"^  x ", safe, re.M)
    assert "y: z = PowBackward0 saved it as `self` (already MODIFIED" in unsafe
    assert "c: z = PowBackward0 saved it as `self`" in unsafe


def test_explain_is_reexported_and_names_the_callers_variables():
    x = torch.tensor(3.0, requires_grad=True)
    y = x + 1
    z = y**2
    assert torch.explain is explain
    text = torch.explain(z)
    assert text.startswith("z: float32 [], output 0 of PowBackward0")


# -- the second seed ---------------------------------------------------------------------------
def test_seed2_text_nothing_saved_y2():
    ns = seed2()
    text = graph(ns["z"], names=ns).text()
    assert "6 nodes, 2 paths" in text
    assert "x ---> y1 = AddBackward0 ---> MulBackward0#1 ---> z = AddBackward0" in text
    assert "x ---> y2 = PowBackward0 ---> MulBackward0#2 ---> z = AddBackward0" in text
    saves = [line.strip() for line in text.splitlines() if line.strip().startswith("saved ")]
    assert not any("y2" in s for s in saves), saves       # no node saved y2...
    assert "MODIFIED" not in text                        # ...so zero_() broke nothing
    assert "version 0 at save, 0 now" in line_with(text, "saved self: x")   # x**2 saved x
    assert "saved other: the number 4, kept by value" in text


def test_seed2_explain_safe_list():
    ns = seed2()
    text = explain(ns["z"], names=ns)
    safe, unsafe = text.split("safe to modify in place now")[1].split("not safe to modify")
    for name in ("y1", "y2", "z"):
        assert re.search(rf"^  {name}$", safe, re.M), (name, safe)
    assert "x: y2 = PowBackward0 saved it as `self`" in unsafe
    assert "y2" not in unsafe.replace("y2 = PowBackward0", "")
    assert "MulBackward0 keeps `other` = 4 (a Python number in a tensor slot)" in text


def test_seed2_backward_still_works_after_glass_looked():
    ns = seed2()
    graph(ns["z"], names=ns).text()
    explain(ns["z"], names=ns)
    ns["z"].backward()
    assert ns["x"].grad.item() == 27.0


# -- small graphs ------------------------------------------------------------------------------
def test_diamond_counts_paths_and_shares_the_leaf():
    a = torch.ones(3, requires_grad=True)
    b = a * 2
    c = a.exp()
    d = b + c
    g = graph(d)
    text = g.text()
    assert "4 nodes, 2 paths" in text
    assert "a ---> b = MulBackward0 ---> d = AddBackward0" in text
    assert "a ---> c = ExpBackward0 ---> d = AddBackward0" in text
    assert text.count("AccumulateGrad") == 1              # one leaf node, two edges into it
    assert "c, float32 [3], version 0 at save, 0 now" in line_with(text, "saved result")
    dot = g.to_dot()
    assert len(re.findall(r"-> n\d+ \[label=", dot)) == 4  # four forward edges


def test_wide_graph_caps_the_listed_paths():
    x = torch.ones(2, requires_grad=True)
    y = x
    for _ in range(8):      # 2**8 paths through a chain of diamonds
        y = y * 2 + y.exp()
    text = Graph(y, {}, max_paths=5).text()
    assert "256 paths" in text and "... and 251 more paths" in text
    paths = [line for line in text.splitlines() if line.startswith("  AccumulateGrad [2] ---> ")]
    assert len(paths) == 5 and all(line.count(" ---> ") == 16 for line in paths)


def test_views_show_their_base():
    w = torch.ones(2, 3, requires_grad=True)
    a = w * 2
    v = a.view(6)
    s = v.sum()
    text = graph(s).text()
    assert "v = ViewBackward0 (view op" in text
    assert "view: v is a view of a" in text
    assert "kept: self_sym_sizes=(2, 3)" in text
    assert "(view op)" in graph(s).to_dot()
    assert "v is a view of a" in explain(s)


def test_hooks_are_listed():
    def double(g):
        return g * 2

    w = torch.ones(2, requires_grad=True)
    w.register_hook(double)
    w.register_post_accumulate_grad_hook(lambda t: None)
    a = w * 3
    a.retain_grad()
    out = a.sum()
    out.register_hook(print)
    out.grad_fn.register_prehook(lambda grads: None)
    text = graph(out).text()
    assert "hook: tensor hook: test_hooks_are_listed.<locals>.double" in \
        line_with(text, "tensor hook: ", "double")
    assert line_with(text, "post-accumulate-grad hook")
    assert line_with(text, "retain_grad on output 0")
    assert line_with(text, "tensor hook on output 0: print")
    assert line_with(text, "node pre-hook")
    assert "hook: tensor hook on output 0: print" in graph(out).to_dot()


def test_a_leaf_and_a_tensor_without_history():
    x = torch.ones(2, 2, requires_grad=True)
    text = graph(x).text()
    assert "1 node, 1 path" in text
    assert "x = AccumulateGrad: leaf float32 [2, 2], requires_grad" in text
    assert "a leaf that requires grad" in explain(x)
    t = torch.ones(3)
    assert "no history" in graph(t).text()
    assert "requires_grad=False" in explain(t)
    assert graph(t).to_dot().startswith("digraph")


def test_multi_output_and_variadic_nodes():
    x = torch.tensor([1.0, 5.0, 2.0], requires_grad=True)
    m, i = x.max(0)
    text = graph(m).text()
    assert line_with(text, "saved indices: i", "int64 []", "version 0 at save, 0 now")
    w = torch.ones(2, requires_grad=True)
    p = torch.cat([w, w * 3]).sum()
    text = graph(p).text()
    assert "input tensors[0] <--- w" in text and "input tensors[1] <--- MulBackward0" in text


def test_after_backward_saved_tensors_are_freed():
    x = torch.tensor(2.0, requires_grad=True)
    y = x.exp()
    y.backward()
    text = graph(y).text()
    assert "saved result: freed (backward ran without retain_graph=True)" in text
    assert "(none)" in explain(y).split("not safe to modify")[1]


def test_custom_function_saved_tensors():
    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return 2 * a * g

    x = torch.ones(2, requires_grad=True)
    y = Square.apply(x)
    text = graph(y).text()
    assert "y = SquareBackward (custom Function)" in text
    assert line_with(text, "saved saved_tensors[0]: x", "version 0 at save, 0 now")
    assert "ctx.save_for_backward" in explain(y)


def test_names_can_be_given():
    a = torch.ones(2, requires_grad=True)
    b = a.exp()
    text = graph(b, names={"input": a, "out": b}).text()
    assert "input ---> out = ExpBackward0" in text
    assert "AccumulateGrad [2] ---> ExpBackward0" in graph(b, names={}).text()


def test_repr_html_falls_back_to_text_without_dot(monkeypatch):
    x = torch.tensor(3.0, requires_grad=True)
    y = x * 2
    monkeypatch.setattr(shutil, "which", lambda name: None)
    g = graph(y)
    assert g._repr_svg_() is None
    assert g._repr_html_().startswith("<pre>") and "MulBackward0" in g._repr_html_()
    with pytest.raises(GraphvizNotFound, match="Graphviz's `dot` program was not found"):
        g.render("out.svg")


def test_render_needs_a_format(tmp_path):
    x = torch.tensor(3.0, requires_grad=True)
    with pytest.raises(ValueError, match="no format"):
        graph(x * 2).render(tmp_path / "picture")


# -- rendering through Graphviz ----------------------------------------------------------------
@needs_dot
def test_render_svg_and_png(tmp_path):
    ns = seed1()
    g = graph(ns["z"], names=ns)
    svg = g.render(tmp_path / "z.svg")
    text = svg.read_text()
    assert "<svg" in text and "PowBackward0" in text and "MODIFIED" in text
    png = g.render(tmp_path / "z.png")
    assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    other = g.render(tmp_path / "z.picture", format="svg")
    assert "<svg" in other.read_text()
    assert "<svg" in g._repr_svg_() and "<svg" in g._repr_html_()


# -- provenance ---------------------------------------------------------------------------------
def test_nodes_and_leaves_record_where_user_code_made_them():
    x = torch.tensor(3.0, requires_grad=True); line_x = _line()
    y = x + 1; line_y = _line()
    text = graph(y).text()
    assert f"source: {_here()}:{line_y}: `y = x + 1; line_y = _line()`" in text
    assert f"source: {_here()}:{line_x}: `x = torch.tensor(3.0, requires_grad=True); " \
           "line_x = _line()`" in text


def test_version_history_is_bounded_and_records_op_site_and_alias():
    from glassgrad._autograd.provenance import HISTORY, entry_name, lineno, version_history
    w = torch.ones(3, requires_grad=True)
    for _ in range(3 * HISTORY):
        with torch.no_grad():
            w.mul_(0.5)
    v = w.detach()[1:]
    v.zero_(); line = _line()
    history = version_history(w._version_counter)
    assert len(history) == HISTORY
    version, op, site, ref, kind = history[-1]
    assert version == w._version == 3 * HISTORY + 1
    assert lineno(site) == line and entry_name(site) == "zero_" and ref() is v and kind == "view"
    assert entry_name(history[-2][2]) == "mul_" and history[-2][4] == "history"


def test_provenance_can_be_switched_off():
    prev = torch.glass.set_provenance(False)
    try:
        assert torch.glass.is_provenance_enabled() is False
        x = torch.ones(2, requires_grad=True)
        y = x * 2
        y.detach().zero_()
        assert getattr(y.grad_fn, "_source", None) is None
        assert not getattr(y._version_counter, "history", None)
        assert "source:" not in graph(y).text()
    finally:
        torch.glass.set_provenance(prev)
    assert torch.glass.is_provenance_enabled() is True


def _line():
    import sys
    return sys._getframe(1).f_lineno


def _here():
    from glassgrad._autograd.provenance import display_path
    return display_path(__file__)


# -- explained errors ---------------------------------------------------------------------------
def explained(tmp_path, source, error=RuntimeError):
    """Run ``source`` (a file prog.py) with torch = glassgrad and with the real torch; both
    raise ``error`` with the same first line. Returns glassgrad's explanation."""
    import real_torch
    from glassgrad.glass.errors import explanation
    path = tmp_path / "prog.py"
    path.write_text(source)
    code = compile(source, str(path), "exec")
    with pytest.raises(error) as mine:
        exec(code, {"torch": torch})
    with pytest.raises(error) as theirs:
        exec(code, {"torch": real_torch})
    assert str(mine.value) == str(theirs.value)     # the explanation is a note, not the text
    text = explanation(mine.value)
    assert text, str(mine.value)
    # user code only: no glassgrad paths, modules or formula functions
    assert "glassgrad/" not in text and "registry" not in text
    assert not re.search(r"(?<![\w.])_\w+\(", text), text    # e.g. _pow_scalar_exponent_grad(
    return text.replace(str(path), "prog.py")


@pytest.fixture(autouse=True)
def _real_torch_module(monkeypatch):
    import sys
    import torch as real
    monkeypatch.setitem(sys.modules, "real_torch", real)


def test_explained_saved_tensor_modified_through_a_view(tmp_path):
    text = explained(tmp_path, (
        "x = torch.ones(3, requires_grad=True)\n"
        "z = (x * 2).exp()\n"
        "v = z[1:]\n"
        "v.mul_(2)\n"
        "z.sum().backward()\n"))
    assert "ExpBackward0, made at prog.py:2: `z = (x * 2).exp()`, saved `result` = z" in text
    assert "uses it (" in text      # the formula
    assert "version 1: `mul_` at prog.py:4: `v.mul_(2)`, through v, a view of z" in text
    assert "`v = z.detach().clone()`" in text or "clone()" in text
    assert "`v = v.mul(...)` instead of `v.mul_(...)`" in text


def test_explained_saved_tensor_modified_itself(tmp_path):
    text = explained(tmp_path, (
        "x = torch.ones(3, requires_grad=True)\n"
        "y = x.sigmoid()\n"
        "y *= 2\n"
        "y.sum().backward()\n"))
    assert "SigmoidBackward0, made at prog.py:2: `y = x.sigmoid()`, saved `result` = y" in text
    assert "version 1: `mul_` at prog.py:3: `y *= 2`, on y itself" in text


def test_explained_backward_a_second_time(tmp_path):
    text = explained(tmp_path, (
        "x = torch.ones(2, requires_grad=True)\n"
        "h = torch.zeros(2)\n"
        "for step in range(2):\n"
        "    h = torch.tanh(x * h + 1)\n"
        "    loss = h.sum()\n"
        "    loss.backward()\n"))
    assert "TanhBackward0, made at prog.py:4: `h = torch.tanh(x * h + 1)`" in text
    assert "prog.py:6: `loss.backward()`" in text
    assert "hidden state" in text and "`h = h.detach()`" in text and "retain_graph=True" in text


def test_explained_output_made_under_no_grad(tmp_path):
    text = explained(tmp_path, (
        "w = torch.ones(2, requires_grad=True)\n"
        "with torch.no_grad():\n"
        "    y = w * 2\n"
        "loss = y.sum()\n"
        "loss.backward()\n"))
    assert "backward() starts from loss (a float32 tensor of shape [])" in text
    assert "loss was made at prog.py:4: `loss = y.sum()` from y; none of them requires grad" \
        in text
    assert "y was computed at prog.py:3: `y = w * 2` inside the block at prog.py:2: " \
           "`with torch.no_grad():`" in text


def test_explained_output_made_from_a_detach(tmp_path):
    text = explained(tmp_path, (
        "w = torch.ones(2, requires_grad=True)\n"
        "y = w.detach() * 2\n"
        "y.sum().backward()\n"))
    assert "y was made at prog.py:2: `y = w.detach() * 2`: detach() returns a tensor" in text


def test_explained_integer_output_and_leaf_without_requires_grad(tmp_path):
    text = explained(tmp_path, "a = torch.arange(3)\nloss = a.sum()\nloss.backward()\n")
    assert "integer/bool tensor (int64)" in text
    text = explained(tmp_path, "x = torch.ones(2)\nloss = (x * 2).sum()\nloss.backward()\n")
    assert "x is a leaf created without requires_grad=True" in text


def test_explained_grad_inputs(tmp_path):
    text = explained(tmp_path, (
        "x = torch.ones(2, requires_grad=True)\n"
        "b = torch.ones(2)\n"
        "torch.autograd.grad((x * b).sum(), [x, b])\n"))
    assert "inputs[1] does not require grad" in text
    assert "b is a leaf created without requires_grad=True at prog.py:2: `b = torch.ones(2)`" \
        in text
    text = explained(tmp_path, (
        "x = torch.ones(2, requires_grad=True)\n"
        "w = torch.ones(2, requires_grad=True)\n"
        "torch.autograd.grad((x * 2).sum(), [x, w])\n"))
    assert "w (inputs[1], a float32 tensor of shape [2]) is not in the history" in text
    assert "reaches these leaves: x" in text and "allow_unused=True" in text
    assert "w was made at prog.py:2" in text


def test_explained_non_scalar_and_shape_mismatch(tmp_path):
    text = explained(tmp_path, "x = torch.ones(3, requires_grad=True)\ny = x * 2\ny.backward()\n")
    assert "y has shape [3] (3 elements), made at prog.py:2: `y = x * 2`" in text
    assert "`y.sum().backward()`" in text and "torch.ones_like(y)" in text
    text = explained(tmp_path, "x = torch.ones(3, requires_grad=True)\ny = x * 2\n"
                               "y.backward(torch.ones(2))\n")
    assert "y has shape [3] (made at prog.py:2: `y = x * 2`), but the gradient given for it " \
           "(grad_output[0]) has shape [2]" in text


def test_explained_in_place_on_a_leaf_and_a_view_of_a_leaf(tmp_path):
    text = explained(tmp_path, "x = torch.ones(2, requires_grad=True)\nx.add_(1)\n")
    assert "x is a leaf that requires grad (a float32 tensor of shape [2]), created at " \
           "prog.py:1: `x = torch.ones(2, requires_grad=True)`" in text
    assert "`with torch.no_grad():`" in text and "`x = x + 1`" in text
    text = explained(tmp_path, "x = torch.ones(2, requires_grad=True)\nv = x[:1]\nv.mul_(2)\n")
    assert "x is a leaf that requires grad" in text and "v, is a view of it" in text


def test_non_leaf_grad_warning_is_explained():
    import warnings
    x = torch.ones(2, requires_grad=True)
    y = x * 2; line = _line()
    y.sum().backward()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert y.grad is None
    text = str(w[0].message)
    assert text.startswith("The .grad attribute of a Tensor that is not a leaf Tensor")
    from glassgrad.glass.errors import explanation
    assert f"y is not a leaf: it is the output of MulBackward0, made at {_here()}:{line}" \
        in explanation(text)
    assert "`y.retain_grad()`" in explanation(text)


def test_explained_invalid_gradient_of_a_custom_function(tmp_path):
    text = explained(tmp_path, (
        "class Twice(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, x):\n"
        "        return x * 2\n"
        "    @staticmethod\n"
        "    def backward(ctx, grad):\n"
        "        return torch.ones(3)\n"
        "x = torch.ones(2, requires_grad=True)\n"
        "y = Twice.apply(x)\n"
        "y.sum().backward()\n"))
    assert "The backward of TwiceBackward returned a gradient of shape [3] for its input 0, " \
           "whose shape was [2]" in text
    assert "TwiceBackward was made at prog.py:9: `y = Twice.apply(x)`" in text


# -- errors are torch's exactly; the explanation is a note ------------------------------------
@pytest.mark.parametrize("program", [
    "x = torch.ones(2, requires_grad=True)\n"
    "unused = torch.ones(2, requires_grad=True)\n"
    "y = (x * 2).sum()\n"
    "torch.autograd.grad(y, [x, unused])\n",
    "x = torch.ones(3, requires_grad=True)\n"
    "torch.autograd.grad((x * 3), x)\n",
])
def test_grad_errors_print_what_torch_prints(tmp_path, program):
    text = explained(tmp_path, program)     # str(e) equal to torch's, the note separate
    assert "glassgrad explains" not in text


def test_the_explanation_is_a_note_under_the_message():
    import traceback
    x = torch.tensor(3.0, requires_grad=True)
    y = x + 1
    z = y ** 2
    y.detach().zero_()
    with pytest.raises(RuntimeError) as info:
        z.backward()
    e = info.value
    assert "glassgrad explains" not in str(e)
    assert torch.explain(e) == torch.glass.errors.explanation(e) and torch.explain(e)
    shown = "".join(traceback.format_exception_only(e))
    assert shown.startswith("RuntimeError: " + str(e) + "\nglassgrad explains:\n  PowBackward0")


def test_a_freed_graph_is_explained_by_this_threads_backward():
    import threading
    x = torch.ones(2, requires_grad=True)
    y = x.exp()
    loss = y.sum()
    loss.backward(); line = _line()
    busy = threading.Thread(target=lambda: [(torch.ones(1, requires_grad=True) * 2).sum()
                                            .backward() for _ in range(20)])
    busy.start()
    busy.join()
    with pytest.raises(RuntimeError) as info:
        y.sum().backward()
    assert f"freed by the backward at {_here()}:{line}" in explain(info.value)
