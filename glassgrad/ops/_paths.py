"""Each row's call path, generated from its table entry.

A call (run the forward through the dtype decision and the kernel, wrap the output arrays as
tensors, find which inputs need grad, make the node, save what its formulas use) is the same
steps for every row, but which steps apply is known when the row is defined: one output or
several, a view or not, the dtype rule (a lone tensor's cached decision, a 'same' row's arrays
as they are), a ufunc forward, which inputs can have an edge, what each saved name is (an
input kept only when its formula's edge is valid, an output, sizes, an attr), whether the row
has an exact or a conjugating node class. Interpreting that entry on every call cost calls and
a chain of tests per saved name; here each row's ``__call__`` (the whole call, one Python
frame) and, for the in-place paths, its ``needs``, ``edges`` and ``attach`` are written out
once as straight-line Python (``call_source``, ``needs_source``, ``edges_source``,
``attach_source`` show the text) and compiled. The templates below are the one call path; rows
differ only in which of their lines they get.
"""
from .._autograd.grad_mode import state
from .._autograd.anomaly import record as record_anomaly
from .._autograd.node import META, grad_accumulator, meta_of, sequence as node_sequence
from .._autograd.provenance import site_above
from .._autograd.saved import SavedTensor
from .._tensor import _CONJ, _NEG, Tensor, carry_bits
from .. import dtypes
from ..backend import array_out as array_out_of, ndarray, xp
from .dispatch import narrowed
from .views import view_meta

# how a formula's parameter is saved (OpDef._save_kind)
(SAVE_OUTPUT, SAVE_SIZES, SAVE_NUMEL, SAVE_INPUT, SAVE_ALL_INPUTS, SAVE_ARGS_SIZES,
 SAVE_ARGS_TYPES) = range(7)
NOT_SAVED = object()
NO_EDGE = (None, 0)
PLAIN = {int, float, bool, type(None), str, tuple}     # attrs that cannot change a dtype
ONE_NEEDED = (True,)
# the NumPy dtypes of differentiable results: floating (bfloat16 included) and complex
DIFFERENTIABLE = frozenset(d.np for d in dtypes.ALL if d.is_floating_point or d.is_complex)
_FROM_NP = dtypes._FROM_NP
# Tensor.requires_grad of a tensor ``{v}``, read from its slots: a leaf that requires grad,
# history, or a differentiable view of a tensor that requires grad
_REQUIRES_GRAD = ("({v}._requires_grad or {v}._grad_fn is not None or "
                  "({v}._view is not None and {v}._base.requires_grad))")


def _needs_lines(op):
    """Lines that set ``needs``: for each differentiable input, whether it requires grad;
    None when none does."""
    if op._single_diff is not None:
        v = f"(v := values[{op._single_diff}])"
        return [f"    needs = ONE_NEEDED if isinstance({v}, Tensor) and "
                f"{_REQUIRES_GRAD.format(v='v')} else None"]
    chosen = ("values" if op.variadic or op._diff_all else
              "[" + "".join(f"values[{i}], " for i in op.diff) + "]")
    generic = [f"    needs = [isinstance(v, Tensor) and {_REQUIRES_GRAD.format(v='v')} "
               f"for v in {chosen}]",
               "    if True not in needs:", "        needs = None"]
    if op.variadic or not op.diff:
        return generic
    # a fixed set of inputs: one test each, spelt out (all of a row's inputs only when the
    # call passed them all)
    names = [f"n{k}" for k in range(len(op.diff))]
    unrolled = [f"    {n} = type(v := values[{i}]) in TENSOR_TYPES and "
                f"{_REQUIRES_GRAD.format(v='v')}" for n, i in zip(names, op.diff)]
    unrolled.append(f"    needs = ({', '.join(names)}) if {' or '.join(names)} else None")
    if not op._diff_all or op._pair:
        return unrolled
    return [f"    if len(values) == {len(op.inputs)}:", *["    " + line for line in unrolled],
            "    else:", *["    " + line for line in generic]]


def needs_source(op):
    """The text of ``op``'s needs(values): for each differentiable input, does it require
    grad? None when none does."""
    return "\n".join(["def needs(values):", *_needs_lines(op), "    return needs"]) + "\n"


def _wrap_lines(op, out):
    """Lines that wrap the output array ``out`` as a tensor ``r`` (a view's shares its
    source's storage and version counter)."""
    lines = ["    r = new(Tensor)",
             f"    r._data = {out}",
             "    r._grad = r._base = r._hook_state = r._grad_fn = r._view = None",
             "    r._output_nr = 0",
             "    r._requires_grad = False"]
    if not op.view:     # (its version counter is made on first use)
        return lines + ["    r._vc = None", "    r._inference = state._inference"]
    # a view is of its source's kind: of a normal tensor (in inference mode too) a view with
    # its base; of an inference tensor an inference tensor without one (torch's)
    return lines + [
        "    r._vc = src._version_counter",
        "    r._inference = src._inference",
        "    if CONJ or NEG:     # torch's conjugate and negative bits follow views",
        "        carry_bits(src, r)",
        "    if not src._inference:",
        "        r._base = src if src._base is None else src._base",
        f"        if {out}.dtype in DIFFERENTIABLE:   # a differentiable view: kept for in-place "
        "rebase",
        "            r._view = view_meta(src, src._version_counter.version, state.grad, "
        f"state._inference, {op.multi})"]


def _forward_lines(op):
    """Lines that run the forward of a call: the interceptor (forward AD, vmap, compile's
    capture) takes it whole; else the dtype decision, then the kernel bound for the first
    array's type, ``out`` its result (attrs passed only where there are some). A failing call first collects its inputs' edges, as
    PyTorch does before its kernel runs."""
    attrs = ("(_narrowed(op, attrs, want) if want is not None and want.reduced else attrs)"
             if op.narrow_attrs else "attrs")
    # a ufunc's 0-d result comes as a 0-d array, not a NumPy scalar to convert
    array_out = ", out=..." if op.fname is not None and array_out_of(op.fname) else ""
    prepare = default = ["        arrays, want = op.prepare(values, attrs)"]
    cache = op._dtype_cache
    if cache is not None and cache.attr is None:
        # one tensor: the cached decision for its dtype (DtypeCache.prepare's first case)
        prepare = ["        if len(values) == 1 and type(v := values[0]) in TENSOR_TYPES:",
                   "            a = v._data",
                   "            hit = cache.table.get(a.dtype) or cache.decide(a.dtype, values, attrs)",
                   "            npd = hit[0]",
                   "            arrays, want = [a if a.dtype is npd else a.astype(npd)], hit[1]"]
        if len(op.inputs) > 1 and not op.variadic:
            # two tensors of one dtype and one shape: the first tensor's decision for both
            # (DtypeCache.prepare's third case, without its broadcast check)
            prepare += [
                "        elif (len(values) == 2 and type(w := values[1]) in TENSOR_TYPES and "
                "type(v := values[0]) in TENSOR_TYPES",
                "                and (a := v._data).dtype is (b := w._data).dtype and "
                "a.shape == b.shape):",
                "            hit = cache.table.get(a.dtype) or cache.decide(a.dtype, values, attrs)",
                "            npd = hit[0]",
                "            arrays, want = ([a, b] if a.dtype is npd else "
                "[a.astype(npd), b.astype(npd)]), hit[1]"]
        prepare += ["        else:", "    " + default[0]]
    if op.dtype_rule == "same" and not op.variadic:
        # no promotion: each tensor's array, anything else as it is (slow_prepare's rule),
        # spelt out for the row's inputs
        n = len(op.inputs)
        prepare = [f"        if len(values) == {n}:",
                   "            arrays, want = [" + ", ".join(
                       f"v._data if type(v := values[{i}]) in TENSOR_TYPES else v"
                       for i in range(n)) + "], None",
                   "        else:", "    " + default[0]]
    return ["def __call__(op, /, *values, **attrs):     # '/': an attr may be called 'self'",
            "    if state.handler is not None:   # a forward AD level (tangents) or a vmap",
            "        return state.handler.handle_call(op, values, attrs)",
            "    try:",
            *prepare,
            "        kernel = op.kernels.get(type(arrays[0])) if arrays else None",
            "        if kernel is None:",
            "            kernel = op.kernel(arrays)",
            f"        out = kernel(*arrays, **{attrs}) if attrs else kernel(*arrays{array_out})",
            "    except Exception:",
            "        op._edges_first(values)",
            "        raise"]


def call_source(op):
    """The text of ``op``'s call (the row's ``__call__``; every op call comes here): run the
    forward, wrap the output array(s) as tensors (results in the dtype the rule decided),
    record a node when an input needs grad. One output: returns its tensor; several: a
    tuple for named outputs, else a list."""
    lines = _forward_lines(op)
    if op.view:
        lines.append("    src = values[0]")
    if op.multi:
        n = "len(out)" if op.outputs is None else str(op.diff_outputs)
        lines += ["    outs = out",
                  "    np_want = None if want is None else want.np",
                  f"    n = {n}",
                  "    results = []",
                  "    for i, out in enumerate(outs):",
                  "        out = asarray(out, dtype=np_want if i < n else None)",
                  *["    " + line for line in _wrap_lines(op, "out")],
                  "        results.append(r)"]
        first = "results and results[0]._data"
        value = "tuple(results)" if op.outputs is not None else "results"
    else:
        lines += ["    if type(out) is not ndarray or (want is not None and out.dtype is not "
                  "want.np and out.dtype != want.np):",
                  "        out = asarray(out, dtype=None if want is None else want.np)",
                  *_wrap_lines(op, "out")]
        first, value = "out", "r"
    if op.differentiable:
        lines += [f"    if state.grad and {first}.dtype in DIFFERENTIABLE:",
                  *["    " + line for line in _needs_lines(op)],
                  "        if needs is not None:",
                  *["        " + line for line in _attach_lines(op, True)]]
    lines.append(f"    return {value}")
    return "\n".join(lines) + "\n"


def edge(v):
    """The gradient edge of an input that requires grad: its grad_fn, or its leaf accumulator."""
    fn = v._grad_fn if v._view is None else v.grad_fn
    return ((fn, v._output_nr) if fn is not None else
            (grad_accumulator(v), 0) if v._requires_grad else NO_EDGE)


def saves(users, edges):
    """Is an input that the formulas ``users`` use saved? PyTorch's guard
    (should_compute_output): an op with one differentiable input, or an input several formulas
    use, saves it always; otherwise only when its one formula's gradient edge is valid (not
    for an input that requires grad without an edge, a view made under no_grad)."""
    return len(edges) == 2 or len(users) != 1 or edges[2 * users[0]] is not None


def _saved_expr(op, n, kind, i, users, inplace):
    """The expression that saves ``n`` (like PyTorch: metadata and outputs always, an input
    only for formulas that run: ``saves``, its first two tests decided here, as a row has
    one edge per differentiable input)."""
    if kind is None:        # an attr of the call (not passed: not saved)
        return f"attrs.get({n!r}, NOT_SAVED)"
    if kind == SAVE_INPUT:
        v = f"values[{i}]"
        if n == "self" and inplace:   # an in-place op saves the copy of self's old value
            v = f"(values[{i}] if saved_self is None else saved_self)"
        save = f"(SavedTensor(v, False) if isinstance(v := {v}, Tensor) else v)"
        if len(users) == 1 and len(op.diff) > 1:
            return f"NOT_SAVED if edges[{2 * users[0]}] is None else {save}"
        return save
    if kind == SAVE_OUTPUT:     # (the row's call names its one result r)
        out = f"results[{i}]" if inplace or op.multi else "r"
        return f"SavedTensor({out}, {i < op.diff_outputs}, {i})"
    return {SAVE_SIZES: f"values[{i}]._data.shape", SAVE_NUMEL: f"values[{i}]._data.size",
            SAVE_ALL_INPUTS: "tuple([SavedTensor(v, False) for v in values])",
            SAVE_ARGS_SIZES: "tuple([v._data.shape for v in values])",
            SAVE_ARGS_TYPES: "tuple([v.dtype for v in values])"}[kind]


def _edges_expr(op):
    """The node's edges, flat as Node._next holds them: each needed input's gradient edge
    (``needs`` as needs() gives it)."""
    if op._single_diff is not None:
        return f"edge(values[{op._single_diff}])"
    if not op.variadic and op.diff:     # one edge per differentiable input, spelt out
        return " + ".join(f"(edge(values[{i}]) if needs[{k}] else NO_EDGE)"
                          for k, i in enumerate(op.diff))
    return ("tuple([x for v, need in zip(values, needs) "
            "for x in (edge(v) if need else NO_EDGE)])")


def edges_source(op):
    """The text of ``op``'s edges(values, needs)."""
    return f"def edges(values, needs):\n    return {_edges_expr(op)}\n"


def _node_lines():
    """Lines that make ``node``, a ``cls`` with ``edges`` and ``meta``: Node.__init__ written
    out (no call of the class)."""
    return ["    node = new(cls)",
            "    node._next = edges",
            "    node._input_metadata = meta",
            "    node._sequence_nr = next(SEQUENCE)",
            "    node._pre_hooks = node._hooks = node._tensor_pre_hooks = None",
            "    node._retain_grad_hooks = node._metadata = None",
            "    node._plain = True",
            "    if state.anomaly:       # the forward traceback (anomaly_mode)",
            "        record_anomaly(node)"]


def _attach_lines(op, inline):
    """Lines that make the node for the results (``r``: one, ``results``: several) and save
    what the needed formulas use. inline: in the row's call (the edges are collected here,
    nothing was written in place); else attach's body (an in-place op passes ``saved_self``
    and the ``edges`` it collected)."""
    one = op.outputs is not None and op.diff_outputs == 1
    lines = [f"    edges = {_edges_expr(op)}"] if inline else [
        "    if edges is None:", f"        edges = {_edges_expr(op)}"]
    if one:
        lines += [*([] if inline and not op.multi else ["    r = results[0]"]),
                  "    d = r._data",
                  "    meta = META.get((d.shape, d.dtype)) or meta_of(d)"]
    else:
        ndiff = "len(results)" if op.outputs is None else str(op.diff_outputs)
        lines.append(f"    meta = tuple([(r._data.shape, FROM_NP[r._data.dtype]) "
                     f"for r in results[:{ndiff}]])")
    lines.append("    cls = node_cls")
    if op._exact_cls is not None:
        # one tensor operand, the others Python numbers, plain attrs, and the output's shape
        # and dtype those of the input's edge (the same shared metadata as the node that made
        # it): the formulas' arithmetic on the gradient and same-typed saved arrays, with
        # NumPy's weak Python scalars, gives a gradient that already fits, so the engine's
        # _validate could never change or refuse it (the attrs no formula sees cannot matter)
        plain = "".join(f" and type(attrs.get({n!r})) in PLAIN" for n in op._formula_attrs)
        fresh = "" if inline else " and saved_self is None"
        # a row of two differentiable inputs: the second may be a tensor of the same kind
        # (an edge with the same shared metadata: x * w, a + b of one shape and dtype)
        second = ("(type(values[1]) in PLAIN or edges[2] is not None and "
                  "edges[2]._input_metadata is meta)" if op._pair else
                  "type(values[1]) in PLAIN")
        lines += ["    if (edges[0] is not None and edges[0]._input_metadata is meta"
                  f"{fresh}",
                  f"            and (len(values) == 1 or len(values) == 2 and {second}){plain}):",
                  "        cls = exact_cls"]
    if op._wirtinger_cls is not None:
        test = ("meta[0][1].is_complex" if one else
                "any([dtype.is_complex for _, dtype in meta])")
        lines += [f"    if {test}:", "        cls = wirtinger_cls"]
    # where user code made the node: the row's call, or attach's caller (apply_inplace, an
    # in-place view op), is called by glassgrad's own code, so the walk starts above it
    lines += [*_node_lines(), f"    node._source = site_above({1 if inline else 3})"]
    if one:     # before saving: a pack hook sees grad_fn
        lines += ["    r._grad_fn = node", "    r._output_nr = 0"]
    else:
        lines += [f"    for i, r in enumerate(results[:{ndiff}]):",
                  "        r._grad_fn = node", "        r._output_nr = i"]
    saves = [_saved_expr(op, *entry, inplace=not inline) for entry in op._save_plan]
    return lines + ["    node._saved = (", *[f"        {s}," for s in saves], "    )"]


def attach_source(op):
    """The text of ``op``'s attach(results, values, attrs, needs, saved_self=None,
    edges=None), for the in-place paths (the row's call records its own node): make a node
    for ``results`` and save what the needed formulas use (an in-place op passes
    ``saved_self``, the copy of self's old value its formulas see, and ``edges``, collected
    before it bumped the version)."""
    return "\n".join(["def attach(results, values, attrs, needs, saved_self=None, edges=None):",
                      *_attach_lines(op, False), "    return node"]) + "\n"


def path_functions(op):
    """``op``'s (__call__, needs, edges, attach), compiled from their sources."""
    scope = {"op": op, "node_cls": op.node_cls, "exact_cls": op._exact_cls,
             "wirtinger_cls": op._wirtinger_cls, "edge": edge, "NO_EDGE": NO_EDGE,
             "META": META, "meta_of": meta_of, "FROM_NP": _FROM_NP, "PLAIN": PLAIN,
             "NOT_SAVED": NOT_SAVED, "SavedTensor": SavedTensor, "Tensor": Tensor,
             "site_above": site_above, "state": state, "new": object.__new__,
             "view_meta": view_meta,
             "CONJ": _CONJ, "NEG": _NEG, "carry_bits": carry_bits,
             "DIFFERENTIABLE": DIFFERENTIABLE, "ONE_NEEDED": ONE_NEEDED,
             "TENSOR_TYPES": dtypes.TENSOR_TYPES, "ndarray": ndarray, "asarray": xp.asarray,
             "_narrowed": narrowed, "cache": op._dtype_cache, "SEQUENCE": node_sequence,
             "record_anomaly": record_anomaly}
    source = "\n".join([attach_source(op), call_source(op), needs_source(op),
                        edges_source(op)])
    exec(compile(source, __file__, "exec"), scope)   # (tracebacks count it as glassgrad's)
    return scope["__call__"], scope["needs"], scope["edges"], scope["attach"]
