"""The glass box speaks in modules: every node and in-place bump records the nn.Module call it
was made in; explanations, graph pictures (one cluster per module) and glass.summary name
modules by their paths. The errors stay torch's word for word; summary's bytes are checked
against what torch's own nodes keep (grad_fn._saved_*)."""
import re
import shutil
import subprocess

import pytest
import torch as T

import glassgrad as torch
from glassgrad import nn
from glassgrad._autograd import provenance
from glassgrad.glass import graph, summary
from glassgrad.glass.history import History

needs_dot = pytest.mark.skipif(shutil.which("dot") is None,
                               reason="Graphviz's `dot` is not installed (run `make graphviz`)")


def classic(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(4, 4), lib.nn.ReLU(), lib.nn.Linear(4, 4),
                             lib.nn.Sigmoid(), lib.nn.ReLU(inplace=True))


def line_with(text, *parts):
    found = [line for line in text.splitlines() if all(p in line for p in parts)]
    assert found, f"no line with {parts} in:\n{text}"
    return found[0]


def modules_of(t, names):
    """{node name: module path} of the history of ``t``, for nodes made in a module."""
    out = {}
    for info in History(t, names).nodes:
        if info.module is not None:
            out.setdefault(info.label, info.module)
    return out


# -- recording ---------------------------------------------------------------------------------
class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear1 = nn.Linear(4, 4)
        self.act = nn.ReLU()

    def forward(self, x):
        return self.act(self.linear1(x)).tanh()     # tanh: Block's own forward code


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([Block(), Block()])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = Encoder()
        self.head = nn.Linear(4, 2)

    def forward(self, x):
        return self.head(self.encoder(x)).sum()


def test_every_node_records_its_module_path():
    model = Model()
    out = model(torch.ones(3, 4))
    paths = modules_of(out, {"model": model, "out": out})
    assert paths["AddmmBackward0#1"] == "model.encoder.layers.0.linear1"
    assert paths["ReluBackward0#1"] == "model.encoder.layers.0.act"
    assert paths["TanhBackward0#1"] == "model.encoder.layers.0"
    assert paths["AddmmBackward0#2"] == "model.encoder.layers.1.linear1"
    assert paths["AddmmBackward0#3"] == "model.head"
    assert paths["out = SumBackward0"] == "model"
    # the parameters are named by their paths
    labels = {info.label for info in History(out, {"model": model}).nodes}
    assert {"model.encoder.layers.0.linear1.weight", "model.head.bias"} <= labels


def test_the_root_is_named_by_its_class_without_a_variable():
    kept = Model()
    out = kept(torch.ones(3, 4))
    paths = modules_of(out, {})
    assert paths["AddmmBackward0#3"] == "Model.head"
    # a submodule called on its own: its path inside a model a variable names
    model = Model()
    y = model.encoder.layers[1](torch.ones(1, 4))
    assert modules_of(y, {"model": model})["TanhBackward0"] == "model.encoder.layers.1"


def test_ops_outside_modules_record_none_and_the_stack_unwinds():
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    assert provenance.module_call(y.grad_fn._source) is None
    assert provenance.module_calls.top is None

    class Boom(nn.Module):
        def forward(self, x):
            raise ValueError("boom")
    with pytest.raises(ValueError, match="boom"):
        nn.Sequential(Boom())(x)
    assert provenance.module_calls.top is None


def test_a_module_made_in_forward_is_named_under_its_caller():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(2, 2)

        def forward(self, x):
            return nn.Tanh()(self.fc(x))
    net = Net()
    y = net(torch.ones(1, 2))
    assert modules_of(y, {"net": net})["TanhBackward0"] == "net.<Tanh>"


def test_in_place_bumps_record_their_module():
    net = classic(torch)
    y = net(torch.ones(2, 4))
    sig = y.grad_fn.next_functions[0][0]      # ReLU(inplace=True) rewrote Sigmoid's output
    assert sig.name() == "SigmoidBackward0"
    bumps = [b for info in History(y, {"net": net}).nodes for s in info.saved
             for b in provenance.version_history(s.counter)]
    calls = {provenance.module_call(b[2]) for b in bumps} - {None}
    assert {call[0]() for call in calls} == {net[4]}


def test_modules_are_held_weakly():
    import gc
    import weakref
    net = nn.Sequential(nn.Linear(2, 2))
    y = net(torch.ones(1, 2))
    ref = weakref.ref(net)
    del net
    gc.collect()
    assert ref() is None and y.grad_fn is not None
    assert modules_of(y, {})["AddmmBackward0"] == "<Sequential>.<Linear>"
    assert "module: <Sequential>.<Linear> (Linear)" in graph(y).text()
    assert 'label="<Sequential>: Sequential"' in graph(y).to_dot()


# -- explanations ------------------------------------------------------------------------------
def run_classic(lib):
    net = classic(lib)
    x = lib.ones(2, 4)
    with pytest.raises(RuntimeError) as info:
        net(x).sum().backward()
    return info.value


def test_the_classic_error_names_both_modules_and_the_fix():
    mine, theirs = run_classic(torch), run_classic(T)
    assert str(mine) == str(theirs)
    note = torch.explain(mine)
    assert note.startswith("SigmoidBackward0, made in `net.3` (Sigmoid()) at ")
    assert "saved `result` = output 0 of SigmoidBackward0, a float32 tensor of shape [2, 4] " \
           "(its own output)." in note
    bump = line_with(note, "version 1:")
    assert "in `net.4` (ReLU(inplace=True))" in bump
    fix = line_with(note, "inplace=False")
    assert "`net.4` (ReLU(inplace=True)) writes its result into its input" in fix
    assert "`net[4].inplace = False`" in fix
    # the fix works
    net = classic(torch)
    net[4].inplace = False
    net(torch.ones(2, 4)).sum().backward()


def test_the_classic_error_without_a_variable_names_the_class():
    kept = [classic(torch)]     # alive, but no variable names it
    with pytest.raises(RuntimeError) as info:
        kept[0](torch.ones(2, 4)).sum().backward()
    note = torch.explain(info.value)
    assert "made in `Sequential.3` (Sigmoid())" in note
    assert "`Sequential[4].inplace = False`" in note


def test_a_model_gone_is_named_by_its_class():
    with pytest.raises(RuntimeError) as info:
        classic(torch)(torch.ones(2, 4)).sum().backward()
    note = torch.explain(info.value)
    assert "SigmoidBackward0, made in a Sigmoid module that no longer exists at " in note
    assert "in a ReLU module that no longer exists at " in line_with(note, "version 1:")


def test_freed_graph_names_the_module():
    net = nn.Sequential(nn.Linear(2, 2), nn.Tanh())
    loss = net(torch.ones(1, 2)).sum()
    loss.backward()
    with pytest.raises(RuntimeError) as info:
        loss.backward()
    with pytest.raises(RuntimeError) as theirs:
        tl = T.nn.Sequential(T.nn.Linear(2, 2), T.nn.Tanh())(T.ones(1, 2)).sum()
        tl.backward()
        tl.backward()
    assert str(info.value) == str(theirs.value)
    assert "This backward reached TanhBackward0, made in `net.1` (Tanh()) at " in \
        torch.explain(info.value)


def test_in_place_on_a_parameter_inside_forward_names_it():
    class Bad(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(2, 2)

        def forward(self, x):
            self.lin.weight.add_(1)
            return self.lin(x)
    model = nn.Sequential(Bad())
    with pytest.raises(RuntimeError) as info:
        model(torch.ones(1, 2))
    assert str(info.value) == "a leaf Variable that requires grad is being used in an in-place " \
        "operation."
    note = torch.explain(info.value)
    assert note.startswith("self.lin.weight is a leaf that requires grad")
    # (the explanation looks at forward's frame, where `self` is the Bad module and no
    # variable holds the Sequential)
    assert "The in-place op ran in `Sequential.0` (Bad), called at " in note


# -- graph pictures ----------------------------------------------------------------------------
def test_text_form_shows_the_module_of_each_node():
    net = classic(torch)
    out = net(torch.ones(2, 4)).sum()
    text = graph(out).text()
    assert "module: net.3 (Sigmoid)" in text and "module: net.0 (Linear)" in text
    assert "net.0.weight ---> TBackward0#1 ---> AddmmBackward0#1" in text
    assert "an in-place op (ReluBackward0) in `net.4` (ReLU(inplace=True))" in text


def clusters(dot):
    """{label: (depth, [node ids declared directly inside])} of the DOT's clusters."""
    out, stack = {}, []
    for line in dot.splitlines():
        if line.strip().startswith("subgraph cluster_"):
            stack.append(None)
        elif stack and stack[-1] is None and line.strip().startswith("label="):
            label = re.match(r'\s*label="([^"]*)"', line).group(1)
            stack[-1] = label
            out[label] = (len(stack), [])
        elif line.strip() == "}" and stack:
            stack.pop()
        elif stack and re.match(r"\s*n\d+ \[", line):
            out[stack[-1]][1].append(re.match(r"\s*(n\d+) ", line).group(1))
    return out


def test_dot_groups_nodes_in_nested_module_clusters():
    model = Model()
    out = model(torch.ones(3, 4))
    dot = graph(out).to_dot()
    found = clusters(dot)
    assert found["model: Model"][0] == 1
    assert found["model.encoder: Encoder"][0] == 2
    assert found["model.encoder.layers.0: Block"][0] == 3
    assert found["model.encoder.layers.0.linear1: Linear"][0] == 4
    assert found["model.head: Linear"][0] == 2
    ids = {m.group(2).split("\\")[0]: m.group(1)
           for m in re.finditer(r'^\s*(n\d+) \[label="([^"]*)"', dot, re.M)}
    linear1 = found["model.encoder.layers.0.linear1: Linear"][1]
    assert ids["AddmmBackward0#1"] in linear1
    assert ids["model.encoder.layers.0.linear1.weight"] in linear1     # its parameter's leaf
    assert ids["TanhBackward0#1"] in found["model.encoder.layers.0: Block"][1]
    assert ids["out = SumBackward0"] in found["model: Model"][1]
    assert 'tooltip="Linear(in_features=4, out_features=4, bias=True)"' in dot
    assert dot.count("{") == dot.count("}")


def test_dot_without_modules_has_no_clusters():
    x = torch.ones(2, requires_grad=True)
    y = (x * 2).sum()
    assert "subgraph" not in graph(y).to_dot()


@needs_dot
def test_dot_renders_with_graphviz(tmp_path):
    model = Model()
    out = model(torch.ones(3, 4))
    svg = graph(out).render(tmp_path / "model.svg").read_text()
    assert "cluster_" in svg and "model.encoder.layers.0.linear1: Linear" in svg
    proc = subprocess.run(["dot", "-Tplain"], input=graph(out).to_dot().encode(),
                          capture_output=True)
    assert proc.returncode == 0, proc.stderr


def boxes(dot):
    """{label's first line: DOT id} of the collapsed modules' boxes."""
    return {m.group(2): m.group(1) for m in re.finditer(
        r'^\s*(m\d+) \[label="([^"\\]*)\\n', dot, re.M)}


def edges(dot):
    return set(re.findall(r"^\s*(\w+) -> (\w+)", dot, re.M))


def test_collapse_a_depth_draws_each_module_as_one_box():
    net = classic(torch)
    out = net(torch.ones(2, 4)).sum()
    full, dot = graph(out), graph(out, collapse=2).to_dot()
    found = boxes(dot)
    assert set(found) == {f"net.{k}: {c}" for k, c in
                          enumerate(["Linear", "ReLU", "Linear", "Sigmoid", "ReLU"])}
    assert list(clusters(dot)) == ["net: Sequential"]      # the level above stays a cluster
    assert "SigmoidBackward0" not in dot and "saved" not in dot     # hidden with their nodes
    b = {k: found[f"net.{k}: {c}"] for k, c in
         enumerate(["Linear", "ReLU", "Linear", "Sigmoid", "ReLU"])}
    root = re.search(r'^\s*(n\d+) \[label="out = SumBackward0', dot, re.M).group(1)
    assert edges(dot) == {(b[0], b[1]), (b[1], b[2]), (b[2], b[3]), (b[3], b[4]),
                          (b[4], root)}
    assert "4 nodes inside" in dot and "1 node inside" in dot and 'tooltip="ReLU(inplace=True)"' in dot
    assert graph(out, collapse=2).text() == full.text()      # the text form lists every node
    assert graph(out, collapse=0).to_dot() == full.to_dot()
    one = graph(out, collapse=1).to_dot()
    assert list(boxes(one)) == ["net: Sequential"] and "subgraph" not in one
    nodes = len(History(out, {"out": out, "net": net}).nodes) - 1      # all but the sum
    assert f"{nodes} nodes inside" in one


def test_collapse_module_paths_keeps_the_rest_as_clusters():
    model = Model()
    out = model(torch.ones(3, 4))
    dot = graph(out, collapse={"model.encoder.layers.0", "model.head"}).to_dot()
    found = boxes(dot)
    assert set(found) == {"model.encoder.layers.0: Block", "model.head: Linear"}
    kept = clusters(dot)
    assert "model.encoder.layers.1: Block" in kept and "model.head: Linear" not in kept
    assert "model.encoder.layers.0.linear1: Linear" not in kept
    ids = {m.group(2).split("\\")[0]: m.group(1)
           for m in re.finditer(r'^\s*(n\d+) \[label="([^"]*)"', dot, re.M)}
    head, block0 = found["model.head: Linear"], found["model.encoder.layers.0: Block"]
    assert (ids["TanhBackward0#2"], head) in edges(dot)
    assert (head, ids["out = SumBackward0"]) in edges(dot)
    assert (block0, ids["AddmmBackward0#2"]) in edges(dot)      # into layers.1's linear
    assert "model.head.weight" not in dot and "model.encoder.layers.1.linear1.weight" in dot
    # layers.1's Linear saved layers.0's output: a dotted line from the box that made it
    assert re.search(rf"^\s*{block0} -> n\d+_s\d+ \[style=dotted", dot, re.M)
    assert graph(out, collapse="model.head").to_dot().count("shape=box3d") == 1


def test_collapse_refuses_what_it_cannot_draw():
    net = classic(torch)
    out = net(torch.ones(2, 4)).sum()
    with pytest.raises(ValueError, match=r"no module 'net\.9' made nodes of this history; "
                                         r"its modules: net, net\.0, net\.1, net\.2"):
        graph(out, collapse={"net.9"})
    for bad in (1.5, -1, True, [3]):
        with pytest.raises(TypeError, match="expected a depth"):
            graph(out, collapse=bad)


@needs_dot
def test_collapsed_picture_renders_with_graphviz(tmp_path):
    model = Model()
    out = model(torch.ones(3, 4))
    g = graph(out, collapse=3)
    svg = g.render(tmp_path / "model.svg").read_text()
    assert "model.encoder.layers.0: Block" in svg and "model.head: Linear" in svg
    proc = subprocess.run(["dot", "-Tplain"], input=g.to_dot().encode(), capture_output=True)
    assert proc.returncode == 0, proc.stderr


# -- summary -----------------------------------------------------------------------------------
def reach(t):
    """The nodes of torch's graph behind ``t``."""
    out, stack = set(), [t.grad_fn] if t.grad_fn is not None else []
    while stack:
        n = stack.pop()
        if n not in out:
            out.add(n)
            stack += [m for m, _ in n.next_functions if m is not None]
    return out


def torch_owners(model, x):
    """Run a torch model: ({node: path of the innermost module whose call made it (a
    parameter's AccumulateGrad: the module that used it)}, {path: output shape}, output)."""
    owner, shapes = {}, {}
    names = {m: name for name, m in model.named_modules()}

    def hook(module, args, out):
        shapes[names[module]] = list(out.shape)
        for n in reach(out) - set().union(*(reach(a) for a in args)):
            owner.setdefault(n, names[module])      # inner modules' hooks run first
    handles = [m.register_forward_hook(hook) for m in names]
    y = model(x)
    for h in handles:
        h.remove()
    return owner, shapes, y


def torch_ledger(model, x):
    """What torch's own nodes keep, per module path, by summary's rule: saved tensors
    (grad_fn._saved_*) by storage, each counted once for the module of the first node (in
    creation order) that saved it, without the parameters' and the input's storages; and
    each module's output shape."""
    owner, shapes, y = torch_owners(model, x)
    held = {t.untyped_storage().data_ptr() for t in [x, *model.parameters(), *model.buffers()]}
    ledger = {}
    for node in sorted(reach(y), key=lambda n: n._sequence_nr()):
        for attr in dir(node):
            if not attr.startswith("_saved_"):
                continue
            v = getattr(node, attr)
            for t in v if isinstance(v, (tuple, list)) else [v]:
                if isinstance(t, T.Tensor):
                    ptr = t.untyped_storage().data_ptr()
                    if ptr not in held:
                        held.add(ptr)
                        path = owner[node]
                        ledger[path] = ledger.get(path, 0) + t.untyped_storage().nbytes()
    return ledger, shapes, y


def build_mlp(lib):
    class Gate(lib.nn.Module):
        """A module whose own forward code saves a tensor (sigmoid) around a child's."""
        def __init__(self):
            super().__init__()
            self.fc = lib.nn.Linear(8, 8)

        def forward(self, x):
            return self.fc(x) * lib.sigmoid(x)
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(5, 8), lib.nn.ReLU(), Gate(), lib.nn.Tanh(),
                             lib.nn.Linear(8, 3))


def build_cnn(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Conv2d(2, 4, 3, padding=1), lib.nn.ReLU(),
                             lib.nn.MaxPool2d(2), lib.nn.Conv2d(4, 6, 3), lib.nn.GELU(),
                             lib.nn.Flatten(), lib.nn.Linear(6 * 2 * 2, 5))


def build_bn_cnn(lib, training=True):
    """BatchNorm's node keeps torch's tensors: the batch's mean and inverse standard
    deviation (result1, result2; empty in eval mode) besides the input, weight and buffers."""
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Conv2d(2, 4, 3, padding=1), lib.nn.BatchNorm2d(4),
                             lib.nn.ReLU(), lib.nn.Conv2d(4, 3, 3), lib.nn.BatchNorm2d(3),
                             lib.nn.Flatten(), lib.nn.Linear(3 * 6 * 6, 5),
                             lib.nn.BatchNorm1d(5)).train(training)


@pytest.mark.parametrize("build, shape", [
    (build_mlp, (4, 5)), (build_cnn, (3, 2, 8, 8)), (build_bn_cnn, (3, 2, 8, 8)),
    (lambda lib: build_bn_cnn(lib, training=False), (3, 2, 8, 8))],
    ids=["mlp", "cnn", "cnn-batchnorm", "cnn-batchnorm-eval"])
def test_summary_matches_what_torch_nodes_keep(build, shape, capsys):
    model, tmodel = build(torch), build(T)
    ledger, shapes, ty = torch_ledger(tmodel, T.ones(shape))
    result = summary(model, torch.ones(shape))
    printed = capsys.readouterr().out
    assert printed == str(result)
    assert result.rows[0].path == "model" and result.rows[0].depth == 0
    for row in result.rows:
        path = row.path.partition(".")[2]
        tm = tmodel.get_submodule(path)
        assert row.cls == type(tm).__name__
        assert row.output_shapes == [shapes[path]]
        assert row.params == sum(p.numel() for p in tm.parameters(recurse=False))
        assert row.trainable == row.params
        assert row.saved_bytes == ledger.get(path, 0), (row.path, ledger)
    assert result.saved_bytes == sum(ledger.values()) > 0
    assert result.total_params == sum(p.numel() for p in tmodel.parameters())
    assert list(result.output.shape) == list(ty.shape)
    total = line_with(printed, "total")
    assert f"{result.total_params:,}" in total and f"{result.saved_bytes:,}" in total
    assert "model.2" in printed and "kept for backward:" in printed


def test_summary_counts_frozen_parameters_and_repeated_calls(capsys):
    class Twice(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 3)

        def forward(self, x):
            return self.fc(self.fc(x))
    net = Twice()
    net.fc.bias.requires_grad_(False)
    result = summary(net, torch.ones(2, 3))
    fc = result.rows[1]
    assert (fc.path, fc.calls, fc.params, fc.trainable) == ("net.fc", 2, 12, 9)
    assert "[2, 3] (x2)" in str(result)
    # the first call's output is saved by the second addmm (mat1): 2*3 float32
    assert fc.saved_bytes == 24 and result.rows[0].saved_bytes == 0
    capsys.readouterr()


def test_summary_without_grad_keeps_nothing(capsys):
    net = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    with torch.no_grad():
        result = summary(net, torch.ones(1, 2))
    assert result.saved_bytes == 0 and result.total_params == 6
    capsys.readouterr()


# -- trace_backward ----------------------------------------------------------------------------
@pytest.mark.parametrize("build, shape", [(build_mlp, (4, 5)), (build_bn_cnn, (3, 2, 8, 8))])
def test_trace_names_the_module_of_each_node(build, shape):
    """Each traced step names the module its node was made in (an AccumulateGrad: the module
    holding the parameter), as torch's forward hooks attribute torch's nodes."""
    model, tmodel = build(torch), build(T)
    owner, _, ty = torch_owners(tmodel, T.ones(shape))

    def label(path):
        cls = type(tmodel.get_submodule(path)).__name__
        return (f"model.{path}" if path else "model") + f" ({cls})"
    expected = sorted((n.name(), label(path)) for n, path in owner.items())
    out = model(torch.ones(shape)).sum()
    with torch.glass.trace_backward() as tr:
        out.backward()
    got = sorted((s.node, s.module) for s in tr if s.kind in ("node", "accumulate")
                 and s.module is not None)
    assert got == expected
    assert [s.module for s in tr if s.node == "SumBackward0"] == [None, None]  # outside
    header, *rows = tr.table().splitlines()
    assert header.split()[:4] == ["#", "step", "node", "module"]
    step = next(k for k, s in enumerate(tr) if s.module == label("0"))
    assert rows[step][header.index("module"):].startswith(label("0"))


def test_trace_names_a_model_by_the_names_given():
    net = nn.Sequential(nn.Linear(2, 2), nn.Tanh())
    out = net(torch.ones(1, 2)).sum()
    with torch.glass.trace_backward(names={"encoder": net}) as tr:
        out.backward()
    assert [s.module for s in tr if s.node == "TanhBackward0"] == ["encoder.1 (Tanh)"]
    import gc
    import weakref
    gone = weakref.ref(net)
    del net, out
    gc.collect()
    assert gone() is None       # the trace keeps names, not the model
    x = torch.ones(2, requires_grad=True)
    with torch.glass.trace_backward() as tr:
        (x * 2).sum().backward()
    assert all(s.module is None for s in tr) and "module" not in tr.table().splitlines()[0]


def test_committed_docs_show_the_modules_section_as_generated():
    import pathlib
    from tools.glass_docs import modules_section
    page = (pathlib.Path(__file__).parent.parent / "docs" / "glass.md").read_text()
    assert modules_section() in page.replace(
        '`g.render("glass_modules.svg")`:\n\n![modules](glass_modules.svg)\n\n', "").replace(
        "![modules collapsed](glass_modules_collapsed.svg)\n\n", ""), \
        "docs/glass.md is stale: run `make docs`"


def test_explain_names_the_module_of_each_node():
    net = classic(torch)
    out = net(torch.ones(2, 4)).sum()
    text = torch.explain(out)
    assert line_with(text, "made in `net.3` (Sigmoid()) at ", "`out = net(torch.ones(2, 4))")
    assert "made in `net.0` (Linear(in_features=4, out_features=4, bias=True)) at " in text
    assert "ReluBackward0#2\n  made in `net.4` (ReLU(inplace=True)) at " in text


def test_each_thread_has_its_own_module_chain():
    import threading
    made = {}

    class Spawn(nn.Module):
        def forward(self, x):
            def other():
                made["other"] = (x * 3).grad_fn      # no module runs in this thread
            t = threading.Thread(target=other)
            t.start()
            t.join()
            return x * 2
    net = Spawn()
    y = net(torch.ones(2, requires_grad=True))
    assert provenance.module_call(made["other"]._source) is None
    assert provenance.module_call(y.grad_fn._source)[0]() is net
