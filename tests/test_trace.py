"""trace_backward against what torch 2.13 runs: the order of nodes and hooks, and the gradients
each node received and returned.

torch's side is recorded with hooks on the same program: every user hook appends (kind, name)
to a log, and a pre-hook registered last on every node of torch's graph appends
("node", name, incoming gradients), its post-hook filling in the outgoing ones (torch runs tensor
hooks, retain_grad, then pre-hooks in order, the node, the post-hooks; an AccumulateGrad's
post-accumulate-grad hooks after it accumulated). glassgrad's side is its trace alone.
"""
import math

import pytest
import torch

import glassgrad as gg


def info(g):
    return None if g is None else (tuple(g.shape), round(float(g.double().norm()), 4))


def make_hook(kind, name, log, fn=None):
    def hook(*args):
        log.append((kind, name))
        return fn(*args) if fn is not None else None
    hook.__qualname__ = hook.__name__ = name
    return hook


def nodes_of(root):
    seen, stack, out = set(), [root], []
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        out.append(node)
        stack.extend(n for n, _ in node.next_functions)
    return out


def torch_order(program):
    """What torch runs, in order: ('node', name, grads in, grads out) and (hook kind, name)."""
    log = []
    root, grad = program(torch, log)
    entries = {}
    for node in nodes_of(root.grad_fn):
        def pre(grad_outputs, node=node):
            entries[node] = len(log)
            log.append(["node", node.name(), tuple(map(info, grad_outputs)), None])

        def post(grad_inputs, grad_outputs, node=node):
            log[entries[node]][3] = tuple(map(info, grad_inputs))
        node.register_prehook(pre)
        if node.name() != "torch::autograd::AccumulateGrad":
            node.register_hook(post)
    root.backward(grad)
    for e in log:
        if e[0] == "node" and e[1] == "torch::autograd::AccumulateGrad":
            e[0] = "accumulate"
    return [tuple(e) for e in log]


def traced_order(program):
    """The same, read from glassgrad's trace (reductions and casts, which torch's hooks do not
    show, left out, and retain_grad, which torch runs unseen)."""
    log = []
    root, grad = program(gg, log)
    with gg.glass.trace_backward() as tr:
        root.backward(grad)
    out = []
    for s in tr.steps:
        if s.kind in ("node", "accumulate"):
            out.append((s.kind, s.node, tuple((g.shape, round(g.norm, 4)) if g else None
                                              for g in s.grads_in),
                        None if s.kind == "accumulate" else
                        tuple((g.shape, round(g.norm, 4)) if g else None for g in s.grads_out)))
        elif s.kind.endswith("hook"):
            out.append((s.kind, s.hook.split(" (")[0]))
    return out, log, tr


def diamond(lib, log, keep=None):
    w = lib.ones(2, 3, requires_grad=True)
    b = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w.register_hook(make_hook("tensor hook", "w_hook", log, lambda g: g * 2))
    b.register_post_accumulate_grad_hook(make_hook("post-accumulate-grad hook", "b_post", log))
    w.register_post_accumulate_grad_hook(make_hook("post-accumulate-grad hook", "w_post", log))
    a = w * b
    a.retain_grad()
    if keep is not None:      # a retained gradient needs its tensor alive
        keep.append(a)
    a.register_hook(make_hook("tensor hook", "a_hook1", log))
    a.register_hook(make_hook("tensor hook", "a_hook2", log, lambda g: g + 1))
    v = a.view(6)
    e = a.exp()
    e.grad_fn.register_prehook(make_hook("pre-hook", "exp_pre", log))
    e.grad_fn.register_hook(make_hook("post-hook", "exp_post", log))
    d = v.sum() + e.sum() + lib.ones(2, 3, dtype=lib.float64).sum()
    d.register_hook(make_hook("tensor hook", "d_hook", log))
    return d, None


def multi_output(lib, log):
    x = lib.tensor([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]], requires_grad=True)
    p, q = x.unbind(0)
    vals, idx = x.max(dim=1)
    q.register_hook(make_hook("tensor hook", "q_hook", log, lambda g: g * 3))
    p.register_hook(make_hook("tensor hook", "p_hook", log))
    vals.register_hook(make_hook("tensor hook", "vals_hook", log))
    vals.grad_fn.register_prehook(make_hook("pre-hook", "max_pre", log,
                                            lambda gs: tuple(g * 2 for g in gs)))
    vals.grad_fn.register_hook(make_hook("post-hook", "max_post", log))
    y = (p * q).sum() + vals.pow(2).sum()
    return y, None


def shared_leaf(lib, log):
    x = lib.tensor([0.5, 1.5], requires_grad=True)
    s = lib.tensor(2.0, requires_grad=True)
    x.register_hook(make_hook("tensor hook", "x_hook", log))
    s.register_post_accumulate_grad_hook(make_hook("post-accumulate-grad hook", "s_post", log))
    h = x
    for _ in range(3):
        h = (h * s).sin() + x
    h = h.unsqueeze(0).expand(4, 2)
    return h, lib.ones(4, 2)


PROGRAMS = {"diamond": diamond, "multi_output": multi_output, "shared_leaf": shared_leaf}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_trace_runs_nodes_and_hooks_in_torchs_order(name):
    expected = torch_order(PROGRAMS[name])
    got, log, tr = traced_order(PROGRAMS[name])
    assert [e[:2] for e in got] == [e[:2] for e in expected]
    assert got == expected      # and the gradients each node got and gave, shapes and norms
    # the user's hooks ran once each, in the order the trace lists them
    assert log == [e for e in got if e[0].endswith("hook")]


def test_steps_as_data():
    log, keep = [], []
    root, _ = diamond(gg, log, keep)
    with gg.glass.trace_backward() as tr:
        root.backward()
    kinds = [s.kind for s in tr]
    assert kinds[0] == "backward" and tr[0].grads_out[0].shape == () and len(tr) == len(kinds)
    (reduce,) = [s for s in tr if s.kind == "reduce"]
    assert (reduce.node, reduce.grads_in[0].shape, reduce.grads_out[0].shape) == (
        "MulBackward0", (2, 3), (3,))
    (cast,) = [s for s in tr if s.kind == "cast"]
    assert (cast.grads_in[0].dtype, cast.grads_out[0].dtype) == ("float64", "float32")
    # the retained gradient and the leaves' gradients are what the trace reports
    (retain,) = [s for s in tr if s.kind == "retain_grad"]
    a_grad = [s for s in tr if s.hook and s.hook.startswith("a_hook2")][0].grads_out[0]
    assert retain.grads_in[0] == a_grad
    assert retain.grads_in[0].norm == pytest.approx(float(keep[0].grad.norm()))
    acc = [s for s in tr if s.kind == "accumulate"]
    assert [s.note.split(":")[0] for s in acc] == ["leaf [2, 3] float32", "leaf [3] float32"]
    w_hook = [s for s in tr if s.hook and s.hook.startswith("w_hook")][0]
    assert w_hook.note == "replaced the gradient" and w_hook.grads_out == acc[0].grads_in
    assert all(s.depth == 0 for s in tr)


def test_reduced_and_accumulated_gradients_match_torch():
    def program(lib):
        w = lib.ones(2, 3, requires_grad=True)
        b = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        c = lib.tensor(4.0, requires_grad=True)
        (w * b * c).pow(2).sum().backward()
        return w.grad, b.grad, c.grad
    with gg.glass.trace_backward() as tr:
        grads = program(gg)
    expected = program(torch)
    reduces = [s for s in tr if s.kind == "reduce"]
    assert sorted(s.grads_out[0].shape for s in reduces) == [(), (3,)]
    acc = {s.grads_out[0].shape: s.grads_out[0].norm for s in tr if s.kind == "accumulate"}
    for g, e in zip(grads, expected):
        assert acc[tuple(g.shape)] == pytest.approx(float(e.norm()), rel=1e-6)


def test_accumulating_into_an_existing_grad():
    x = gg.tensor([1.0, 2.0], requires_grad=True)
    (x * 2).sum().backward()
    with gg.glass.trace_backward() as tr:
        (x * 3).sum().backward()
    (acc,) = [s for s in tr if s.kind == "accumulate"]
    assert acc.note.endswith(".grad += gradient")
    assert acc.grads_in[0].norm == pytest.approx(math.hypot(3, 3))
    assert acc.grads_out[0].norm == pytest.approx(math.hypot(5, 5))


def test_autograd_grad_captures_the_inputs_gradients():
    x = gg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    z = (y ** 2).sum()
    with gg.glass.trace_backward() as tr:
        gy, gx = gg.autograd.grad(z, (y, x))
    caps = {s.note: s for s in tr if s.kind == "capture"}
    assert caps["the gradient of inputs[0]"].grads_in[0].norm == pytest.approx(
        float(gy.norm()))
    assert caps["the gradient of inputs[1]"].grads_in[0].norm == pytest.approx(
        float(gx.norm()))
    assert not [s for s in tr if s.kind == "accumulate"]    # grad() accumulates nothing
    assert x.grad is None


def test_a_nested_backward_is_one_level_deeper():
    from glassgrad.utils.checkpoint import checkpoint
    x = gg.tensor([1.0, 2.0], requires_grad=True)
    y = checkpoint(lambda t: (t * 3).sin(), x, use_reentrant=True)
    with gg.glass.trace_backward() as tr:
        y.sum().backward()
    depths = [s.depth for s in tr]
    assert depths[0] == 0 and max(depths) == 1
    inner = [s for s in tr if s.depth == 1]
    assert inner[0].kind == "backward" and {"SinBackward0", "MulBackward0"} <= {
        s.node for s in inner}
    assert "    " in tr.table()     # nested runs are indented


def test_a_failing_step_is_the_last_one_recorded():
    x = gg.tensor([1.0], requires_grad=True)
    y = x * 2

    def bad(g):
        raise KeyError("bad")
    y.register_hook(bad)
    with gg.glass.trace_backward() as tr:
        with pytest.raises(KeyError):
            y.sum().backward()
    assert tr[-1].kind == "tensor hook" and tr[-1].hook.startswith("test_a_failing_step")
    assert gg._autograd.grad_mode.state.tracer is None


def test_the_table():
    log = []
    root, _ = diamond(gg, log)
    with gg.glass.trace_backward() as tr:
        root.backward()
    lines = str(tr).splitlines()
    assert lines[0].split() == ["#", "step", "node", "source", "grad", "in", "grad", "out", "note"]
    assert len(lines) == len(tr) + 1
    assert [line.split()[:3] for line in lines[1:3]] == [["1", "backward", "AddBackward0"],
                                                         ["2", "tensor", "hook"]]
    assert "exp_pre (test_trace.py:" in str(tr)
    assert "summed to its input's shape" in tr.table()
    assert repr(tr) == f"<Trace of {len(tr)} backward steps>"


def test_tracing_changes_no_values_and_stops_at_exit():
    def program(lib):
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        y = (x.exp() * x).sum(0)
        y.retain_grad()
        y.pow(2).sum().backward()
        return x.grad.tolist(), y.grad.tolist()
    with gg.glass.trace_backward() as tr:
        got = program(gg)
    expected = program(torch)
    for g, e in zip(got, expected):
        assert g == pytest.approx(e) if not isinstance(g[0], list) else [
            pytest.approx(r) for r in e] == g
    n = len(tr)
    program(gg)
    assert len(tr) == n


def test_each_step_shows_where_its_node_was_made():
    import inspect
    import os
    x = gg.tensor([1.0], requires_grad=True)
    y = x * 2; line = inspect.currentframe().f_lineno  # noqa: E702 - the line y is made at
    with gg.glass.trace_backward() as tr:
        y.sum().backward()
    (step,) = [s for s in tr if s.node == "MulBackward0"]
    here = os.path.relpath(__file__) if not os.path.relpath(__file__).startswith("..") \
        else __file__
    assert step.source == f"{here}:{line}"
    header = tr.table().splitlines()[0]
    assert "source" in header
    row = tr.table().splitlines()[1 + tr.steps.index(step)]
    assert row[header.index("source"):].startswith(f"{here}:{line}")


def test_the_committed_docs_show_the_current_trace():
    import pathlib
    from tools.glass_docs import _trace_section
    page = (pathlib.Path(__file__).parent.parent / "docs" / "glass.md").read_text()
    section = _trace_section()
    assert "post-accumulate-grad hook" in section and "replaced the gradient" in section
    assert section in page, "docs/glass.md is stale: run `make docs`"
