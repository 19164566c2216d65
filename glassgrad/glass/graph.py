"""graph(t): the history behind a tensor as an arrow picture, Graphviz DOT, SVG or PNG.

    >>> g = glassgrad.glass.graph(z)
    >>> print(g.text())          # x ---> y = AddBackward0 ---> z = PowBackward0, then the nodes
    >>> g.render("z.svg")        # through Graphviz's `dot`
    >>> glassgrad.glass.graph(loss, collapse=2).render("model.svg")   # modules as boxes

Tensors are named after the caller's variables (pass ``names={"x": x, ...}`` to choose).
Pictures group the nodes made in ``nn.Module`` calls in one cluster per module; ``collapse``
draws chosen modules as one box each (see Graph). DOT has no interactive folding: each
collapse setting is its own picture.
"""
import html
import pathlib
import shutil

from .history import History, caller_names, _shape
from .modules import ModuleNames, one_line

MAX_PATHS = 32
NEWLINE = "\\n"     # a centred line break in a DOT label
VIEW_NOTE = " (view op: its output shares its input's storage)"


class GraphvizNotFound(RuntimeError):
    """Graphviz's `dot` program is not on PATH."""


class Graph:
    """A drawing of the history of ``roots``; see text(), to_dot(), render().

    ``collapse`` (pictures only; the text form lists every node): None or 0, every module is a
    cluster of its nodes; an int N, every module N levels deep (the model the user called is
    level 1) is drawn as one box, hiding the nodes, saved tensors and parameter leaves of it
    and of its submodules; a collection of module paths ({"net.3", "model.encoder"}), those
    modules as boxes. A box is labelled with the module's path and class (``net.3: Sigmoid``)
    and the number of nodes it hides; the edges into and out of its nodes are its edges."""

    def __init__(self, roots, names=None, max_paths=MAX_PATHS, collapse=None):
        self.history = History(roots, names)
        self.max_paths = max_paths
        self.collapse = _check_collapse(collapse)
        if isinstance(self.collapse, frozenset):    # unknown paths refused now, not when drawn
            _collapsed(module_clusters(self.history), self.collapse)

    @property
    def nodes(self):
        return self.history.nodes

    # -- text -------------------------------------------------------------------------------
    def paths(self, root):
        """Every path from a leaf to ``root`` as [(NodeInfo, output_nr)], leaf first; at most
        ``max_paths`` of them (count_paths() says how many there are)."""
        out, stack = [], [[(root, 0)]]
        while stack and len(out) < self.max_paths:
            path = stack.pop()
            info = path[-1][0]
            if not info.edges:
                out.append(path[::-1])
                continue
            for e in reversed(info.edges):     # first input's paths first
                stack.append(path + [(e.node, e.output_nr)])
        return out

    def count_paths(self, root):
        count = {}
        for info in reversed(self.nodes):     # leaves first: inputs are older than their users
            count[info.node] = sum(count.get(e.node.node, 1) for e in info.edges) or 1
        return count.get(root.node, 1)

    def text(self):
        h = self.history
        if not h.root_infos:
            names = ", ".join(h.name_of(t) or "the tensor" for t in h.roots)
            return f"{names}: no history (requires_grad=False: no node records how it was made)\n"
        lines = []
        for root, nr in h.root_infos:
            total = self.count_paths(root)
            what = f"{root.label}" + (f" (output {nr})" if root.n_outputs > 1 else "")
            n = len(self.nodes)
            lines.append(f"history of {what}: {n} node{'s' * (n != 1)}, {total} "
                         f"path{'s' * (total != 1)} (leaf ---> ... ---> root, as the forward ran)")
            lines.append("")
            for path in self.paths(root):
                lines.append("  " + " ---> ".join(_token(info, k) for info, k in path))
            if total > self.max_paths:
                lines.append(f"  ... and {total - self.max_paths} more paths")
            lines.append("")
        lines.append("nodes, newest first:")
        for info in self.nodes:
            lines += ["  " + line for line in node_lines(info)]
        aliases = _outside_aliases(h)
        if aliases:
            lines.append("")
            lines.append("outside the graph, sharing storage and version counter:")
            lines += [f"  {a}" for a in aliases]
        unsaved = _unsaved(h)
        if unsaved:
            lines.append("")
            lines.append("nothing saved " + ", ".join(unsaved) + ": modifying "
                         + ("it" if len(unsaved) == 1 else "them")
                         + " in place (directly, or through a detach() or a view sharing the "
                         "storage) cannot break this backward")
        return "\n".join(lines) + "\n"

    __str__ = text

    def __repr__(self):
        return self.text()

    # -- Graphviz ---------------------------------------------------------------------------
    def to_dot(self):
        """Graphviz DOT source. Nodes made inside ``nn.Module`` calls lie in one
        ``subgraph cluster_k`` per module, nested as the modules ran (labelled ``net.0: Linear``;
        its full repr is the tooltip); a parameter's leaf lies in its module's cluster. A
        collapsed module (see ``collapse``) is one box, ``m_k``, instead of its cluster."""
        h = self.history
        ids = {info.node: f"n{k}" for k, info in enumerate(self.nodes)}
        roots = {info.node for info, _ in h.root_infos}
        top = module_clusters(h)
        for k, c in enumerate(_collapsed(top, self.collapse), 1):
            c.box = f"m{k}"
            for node in _subtree_nodes(c):
                ids[node] = c.box       # the box stands for each node it hides
        out = ["digraph glassgrad {",
               '  graph [rankdir=TB, fontname="Helvetica", fontsize=11];',
               '  node [shape=box, style="rounded,filled", fillcolor=white, '
               'fontname="Helvetica", fontsize=11];',
               '  edge [fontname="Helvetica", fontsize=9];']
        if not h.root_infos:
            out.append(f'  empty [label={_q(self.text().strip())}, shape=plaintext];')
        statements, edges = {}, []
        for info in self.nodes:
            if not ids[info.node].startswith("m"):
                statements[info.node] = self._dot_node(info, ids, roots, edges)
        for info in self.nodes:
            for e in info.edges:
                a, b = ids[e.node.node], ids[info.node]
                if a == b:          # inside one box
                    continue
                if a.startswith("m") or b.startswith("m"):
                    edges.append(f"{a} -> {b};")
                    continue
                label = e.input + (f" (output {e.output_nr})" if e.node.n_outputs > 1 else "")
                edges.append(f"{a} -> {b} [label={_q(label)}];")
        out += _emit(top, statements, "  ", roots=roots)
        out += ["  " + e for e in dict.fromkeys(edges)]     # a box's edges once each
        out.append("}")
        return "\n".join(out) + "\n"

    def _dot_node(self, info, ids, roots, edges):
        """The statements of one node (its box and its saved tensors' ellipses); the edges to
        its saved tensors go to ``edges``."""
        h = self.history
        nid = ids[info.node]
        head, *rest = node_lines(info)
        if info.kind == "leaf":
            var = info.variable
            head = "\n".join(([info.outputs[0]] if info.outputs else []) + [
                "AccumulateGrad", f"leaf {info.dtype} {_shape(info.shape)}"
                + (" requires_grad" if var._requires_grad else "")])
        head = head.replace(VIEW_NOTE, " (view op)")
        label = head.split("\n") + [line.strip() for line in rest if not line.strip()
                                      .startswith(("input ", "saved ", "module: "))]
        attrs = {"label": _q(_lines(label), raw=True)}
        if info.kind == "leaf":
            attrs["fillcolor"] = '"#cfe2ff"'
        elif info.view_op:
            attrs["fillcolor"] = '"#eeeeee"'
        if info.node in roots:
            attrs.update(penwidth="2", fillcolor='"#d4edda"')
        out = [f"{nid} [{', '.join(f'{k}={v}' for k, v in attrs.items())}];"]
        for k, s in enumerate(info.saved):
            sid = f"{nid}_s{k}"
            lines = [f"saved {s.name}" + (f": {s.tensor}" if s.tensor else "")]
            if s.shape is not None:
                lines.append(f"{s.dtype} {_shape(s.shape)}")
            lines.append(s.versions())
            if s.view_of:
                lines.append(f"view of {s.view_of}")
            if s.aliases:
                lines.append(f"aliases: {', '.join(s.aliases)}")
            color = '"#f8d7da", color="#c0392b"' if s.modified else \
                '"#eeeeee"' if s.is_number else '"#fff3cd"'
            out.append(f"{sid} [shape=ellipse, style=filled, fillcolor={color}, "
                       f"label={_q(_lines(lines, NEWLINE), raw=True)}];")
            edges.append(f'{sid} -> {nid} [style=dashed, arrowhead=odot, label="saved"];')
            maker = _maker(h, s)
            if maker is not None and maker is not info.node and maker in ids:
                edges.append(f"{ids[maker]} -> {sid} [style=dotted, arrowhead=none, "
                             'color="#888888"];')
        return out

    def render(self, path, format=None):
        """Write the picture to ``path`` through Graphviz's `dot`; the format comes from the
        extension (``.svg``, ``.png``, ``.pdf``...) unless given. Returns the path."""
        path = pathlib.Path(path)
        fmt = format or path.suffix.lstrip(".").lower()
        if not fmt:
            raise ValueError(f"render({str(path)!r}): no format: give the file an extension "
                             "(.svg, .png, .pdf) or pass format=")
        path.write_bytes(_run_dot(self.to_dot(), fmt))
        return path

    def svg(self):
        return _run_dot(self.to_dot(), "svg").decode()

    def _repr_svg_(self):
        return self.svg() if dot_available() else None

    def _repr_html_(self):
        if dot_available():
            svg = self.svg()
            return svg[svg.find("<svg"):]      # inline: without the XML prolog and DOCTYPE
        return f"<pre>{html.escape(self.text())}</pre>"


def graph(t, names=None, max_paths=MAX_PATHS, collapse=None):
    """The history behind tensor ``t`` (or a list of tensors). Tensors are named after the
    caller's variables unless ``names`` ({name: tensor}) is given. ``collapse``: the modules
    the pictures draw as one box each (a depth, or module paths; see Graph)."""
    if names is None:
        names = caller_names(2)
    return Graph(t, names, max_paths, collapse)


def _check_collapse(collapse):
    """``collapse`` as given: None, an int >= 0, or a frozenset of module paths."""
    if collapse is None or type(collapse) is int and collapse >= 0:
        return collapse or None
    if isinstance(collapse, str):
        return frozenset([collapse])
    if type(collapse) is not bool and hasattr(collapse, "__iter__"):
        paths = frozenset(collapse)
        if all(isinstance(p, str) for p in paths):
            return paths
    raise TypeError(f"graph(collapse=...): expected a depth (an int >= 0) or module paths "
                    f"(strings such as 'net.3'), but got {collapse!r}")


class Cluster:
    """A module's box in the picture: its path, the module, the nodes made in it directly and
    the clusters of the modules it called."""

    def __init__(self, path=None, module=None, cls=None):
        self.path, self.module, self.cls = path, module, cls
        self.nodes, self.children = [], []
        self.box = None         # the DOT id of its box when it is drawn collapsed


def _collapsed(top, collapse):
    """The clusters drawn as boxes: those ``collapse`` names (see Graph), outermost first (a
    module inside a collapsed one is hidden with it)."""
    if not collapse:
        return []
    out, found, stack = [], set(), [(c, 1) for c in reversed(top.children)]
    while stack:
        c, depth = stack.pop()
        found.add(c.path)
        if depth == collapse if type(collapse) is int else c.path in collapse:
            out.append(c)
            continue
        stack += [(child, depth + 1) for child in reversed(c.children)]
    if type(collapse) is not int:
        every = _all_paths(top)
        missing = sorted(collapse - every)
        if missing:
            raise ValueError(f"graph(collapse=...): no module {', '.join(map(repr, missing))} "
                             f"made nodes of this history; its modules: "
                             f"{', '.join(sorted(every)) or '(none)'}")
    return out


def _all_paths(cluster):
    return {p for c in cluster.children for p in (c.path, *_all_paths(c))}


def _subtree_nodes(cluster):
    return [*cluster.nodes, *(n for c in cluster.children for n in _subtree_nodes(c))]


def module_clusters(h):
    """The module clusters of a history: the top (no module) with the root modules' clusters
    as children. A node lies in the cluster of the module it was made in, a parameter's or
    buffer's leaf in its module's (when that module made nodes of the history)."""
    top, by_path = Cluster(), {}
    for info in h.nodes:
        if info.module_call is None:
            continue
        parent = top
        for path, module, cls in h.modules.chain(info.module_call):
            c = by_path.get(path)
            if c is None:
                c = by_path[path] = Cluster(path, module, cls)
                parent.children.append(c)
            parent = c
        parent.nodes.append(info.node)
    placed = {n for c in by_path.values() for n in c.nodes}
    for info in h.nodes:
        if info.node in placed:
            continue
        owner = by_path.get(info.label.rpartition(".")[0]) if info.kind == "leaf" else None
        (owner or top).nodes.append(info.node)
    return top


def _emit(cluster, statements, indent, counter=None, roots=()):
    """DOT lines for ``cluster``: its nodes' statements, then its children as nested
    ``subgraph cluster_k`` blocks (a collapsed child: its box)."""
    counter = counter if counter is not None else [0]
    out = [indent + line for node in cluster.nodes for line in statements[node]]
    for child in cluster.children:
        if child.box is not None:
            out.append(indent + _box(child, roots))
            continue
        counter[0] += 1
        out.append(f"{indent}subgraph cluster_{counter[0]} {{")
        out.append(f"{indent}  label={_q(child.path + ': ' + child.cls.__name__)}; "
                   f"tooltip={_q(one_line(child.module) if child.module is not None else '?')}; "
                   'style="rounded,dashed"; color="#7f8c8d"; fontcolor="#34495e";')
        out += _emit(child, statements, indent + "  ", counter, roots)
        out.append(f"{indent}}}")
    return out


def _box(cluster, roots):
    """The DOT statement of a collapsed module: one box named by its path and class."""
    hidden = _subtree_nodes(cluster)
    n = len(hidden)
    label = [f"{cluster.path}: {cluster.cls.__name__}", f"{n} node{'s' * (n != 1)} inside"]
    tooltip = one_line(cluster.module) if cluster.module is not None else "?"
    attrs = (f'label={_q(_lines(label, NEWLINE), raw=True)}, tooltip={_q(tooltip)}, '
             'shape=box3d, style=filled, fillcolor="#e8eaf6", color="#7f8c8d"')
    if any(node in roots for node in hidden):
        attrs += ", penwidth=2"
    return f"{cluster.box} [{attrs}];"


def _class(module, call=None):
    """A module's class name (for a module no longer alive: its call's record of it)."""
    return module._get_name() if module is not None else \
        call[1].__name__ if call is not None else "?"


def node_lines(info):
    """A node as lines: its label, then its inputs, saved tensors, kept values, hooks, views."""
    if info.kind == "leaf":
        var = info.variable
        head = (f"{info.label} = AccumulateGrad: leaf {info.dtype} {_shape(info.shape)}"
                if info.outputs else f"{info.label}: leaf {info.dtype}")
        lines = [head + (", requires_grad" if var._requires_grad else "")]
    else:
        kind = {"function": " (custom Function)", "node": ""}.get(info.kind, "")
        lines = [info.label + kind + (VIEW_NOTE if info.view_op else "")]
    if info.source is not None:
        lines.append(f"    source: {info.source}")
    if info.module is not None:
        cls = _class(ModuleNames.module(info.module_call), info.module_call)
        lines.append(f"    module: {info.module} ({cls})")
    for e in info.edges:
        nr = f" (output {e.output_nr})" if e.node.n_outputs > 1 else ""
        lines.append(f"    input {e.input} <--- {e.node.label}{nr}")
    for s in info.saved:
        lines.append("    " + saved_line(s))
        lines += [f"      version {version}: {how}" for version, how in s.history]
    if info.attrs:
        lines.append("    kept: " + ", ".join(f"{k}={v!r}" for k, v in info.attrs.items()))
    for h in info.hooks:
        lines.append(f"    hook: {h}")
    for v in info.views:
        lines.append(f"    view: {v}")
    return lines


def saved_line(s):
    if s.is_number:
        return f"saved {s.name}: {s.versions()}"
    if s.freed:
        return f"saved {s.name}: {s.versions()}"
    text = f"saved {s.name}: {s.tensor}, {s.dtype} {_shape(s.shape)}, {s.versions()}"
    if s.view_of:
        text += f", a view of {s.view_of}"
    if s.aliases:
        text += f" (shares its version counter with {', '.join(s.aliases)})"
    return text


def _token(info, nr):
    return info.label + (f" (output {nr})" if info.n_outputs > 1 else "")


def _outside_aliases(h):
    """Named tensors that are not in the graph but share a saved tensor's version counter."""
    in_graph = set()
    for info in h.nodes:
        in_graph.update(info.outputs.values())
    out = []
    for info, s in h.saved():
        for a in s.aliases:
            if a not in in_graph:
                t = h.by_name[a]
                how = "a view" if t._base is not None else "a detach() alias"
                out.append(f"{a} = {how} of {s.tensor} (version now {t._version}; saved by "
                           f"{info.label} as `{s.name}`)")
    return list(dict.fromkeys(out))


def _unsaved(h):
    """The named tensors of the history (node outputs and leaves) that no node saved."""
    out = []
    for label, reasons, kind in reversed(h.in_place_safety()):     # oldest first
        if reasons or kind == "alias" or label not in h.by_name:
            continue
        t = h.by_name[label]
        others = [name for name, u in h.names.values() if u is not t and
                  u._version_counter is t._version_counter and u.grad_fn is None]
        out.append(label + (f" (nor {', '.join(others)}, sharing its storage)" if others else ""))
    return out


def _maker(h, s):
    """The node whose output (or leaf) a saved tensor is, if it is in the graph."""
    if s.owner is not None:
        return s.owner[0]
    if s.obj is not None and s.obj.grad_fn is None:
        for info in h.nodes:
            if info.kind == "leaf" and info.variable is s.obj:
                return info.node
    return None


def dot_available():
    return shutil.which("dot") is not None


def _run_dot(source, fmt):
    import subprocess
    exe = shutil.which("dot")
    if exe is None:
        raise GraphvizNotFound(
            "Graphviz's `dot` program was not found on PATH, so the graph cannot be rendered. "
            "Install Graphviz (`make graphviz`, `apt-get install graphviz`, `brew install "
            "graphviz`) or use .text() / .to_dot() instead.")
    proc = subprocess.run([exe, f"-T{fmt}"], input=source.encode(), capture_output=True)
    if proc.returncode != 0:
        raise RuntimeError(f"dot -T{fmt} failed: {proc.stderr.decode(errors='replace').strip()}")
    return proc.stdout


def _lines(lines, end="\\l"):
    """Lines as one DOT label, each ended by ``end`` (\\l: left-justified, \\n: centred)."""
    return "".join(_dot_escape(x) + end for x in lines)


def _dot_escape(s):
    return s.replace("\\", "\\\\").replace('"', '\\"')


def _q(s, raw=False):
    """A DOT string literal; raw: already escaped (keeps its \\n line breaks)."""
    return f'"{s if raw else _dot_escape(s)}"'
