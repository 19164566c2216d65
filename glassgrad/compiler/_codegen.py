"""Straight-line Python for a captured graph (_capture._Graph): the forward as one function of
the rows' kernels on arrays, the backward as one function of the rows' formulas, so that a
replay costs one call per op and nothing is interpreted.

forward(I, E) -> (outputs, saved): I the distinct tensor arguments, E the externals; locals
``s<slot>`` hold the arrays (``del``-ed after their last use); ``saved`` lists, in the order
the backward reads them, the intermediates its formulas use (bare arrays) and the arguments
and externals they use (SavedTensors: the version check).

backward(node, SV, G) -> one gradient per edge of the node: locals ``b<slot>`` are gradient
buffers, each released once its op's formulas ran; a row whose formulas take arrays and that
has one output is called formula by formula (OpNode._formulas' work, written out), any other
row through its OpNode (``generic``).

Where the captured operands allow it, a step calls something cheaper with the row's exact
results: the row's NumPy ufunc itself (ufunc_step; an in-place one with out=, ufunc_into),
a forward kernel or a backward formula without NumPy's Python-level helpers (cheaper_kernel,
_CHEAPER). Inside a training step every Python-level call costs several times what it costs
alone (most likely the step's arrays push the interpreter's data out of the caches), so
these pay more than their own time. Each checks its operands at run time and otherwise calls
the row's code; tests/test_compile_step.py compares each with the row bit for bit."""
from .._autograd.engine import _validate, expandable, sum_to_array
from .._autograd.node import flat_edges
from .._autograd.saved import SavedTensor
from .._tensor import Tensor
from ..backend import ndarray, reduced_floats, xp
from ..ops.registry import bump
from . import _sym

_new = object.__new__


def _fit(g, shape, npd, name, i):
    """engine._conform for one array gradient: summed to its input's shape, cast to its dtype."""
    if g.shape != shape:
        if not expandable(shape, g.shape):
            raise RuntimeError(f"Function {name} returned an invalid gradient at index {i} - "
                               f"got {list(g.shape)} but expected shape compatible with "
                               f"{list(shape)}")
        g = sum_to_array(g, shape)
    return g if g.dtype == npd else g.astype(npd)


def saved_plan(g):
    """Number the saved values: ``g.sv_plan`` (kind, slot) that forward returns (1: an array,
    2: an argument or external as a SavedTensor), then ``g.sv_late``: returned outputs (kind 3,
    saved once they are tensors); each gstep's recipe entry becomes ("sv", n) or ("c", value)
    (a list of them for a variadic row's tensors)."""
    g.sv_plan, g.sv_late, late = [], [], []

    def number(entry):
        kind, x, _ = entry
        if kind == 0:
            return ("c", x)
        if kind == 3:
            late.append(entry)
            return ("late", len(late) - 1)
        g.sv_plan.append((kind, x))
        return ("sv", len(g.sv_plan) - 1)
    g.recipes = [[[number(x) for x in e] if type(e) is list else number(e) for e in step[0]]
                 for step in g.gsteps]
    g.sv_late = [x for _, x, _ in late]
    n = len(g.sv_plan)
    fix = lambda e: ("sv", n + e[1]) if e[0] == "late" else e     # noqa: E731
    g.recipes = [[[fix(x) for x in e] if type(e) is list else fix(e) for e in r]
                 for r in g.recipes]


class Miss(Exception):
    """A gradient read before any effect of the replay is not what the capture saw: the
    entry's guards do not hold after all."""


def _changed(t):
    raise RuntimeError(f"glassgrad.compile: the .grad of a tensor of shape {list(t.shape)} is "
                       "not what it was when the function was captured, after the replay had "
                       "begun writing (a backward pass gave it another gradient); call "
                       "glassgrad.compiler.reset() or run the function eagerly")


def forward_source(g, bare=False):
    """Steps: ("op", kernel, operands, attrs, want, n_diff or None, outs, attr Syms, free);
    ("inplace", kernel, operands, attrs, -, -, (), (attr Syms, target slot, its tensor's name
    or None for an intermediate, row name, site, the ufunc that writes into the target or
    None: see ufunc_into), free): the kernel's result copied into the target, whose version
    is bumped; ("grad_read", -, -, -, -, -, outs, (owner's name,
    expected: None, ("same", name) or ("new", slot, (shape, dtype, strides)), after an
    effect), free); ("grad_write", ..., (owner's name, value's name or None)); ("item", -,
    ((slot, -, -),), ..., n): ``y<n> = s<slot>.item()``. bare: the arguments and externals
    the backward reads are returned as their arrays, not as SavedTensors (for a region whose
    backward runs inside the same call, where nothing can write them in between)."""
    ns = {"ndarray": ndarray, "asarray": xp.asarray, "ST": SavedTensor, "copyto": xp.copyto,
          "bump": bump, "Miss": Miss, "changed": _changed}
    lines = ["def forward(I, E):"]
    lines += [f" s{s} = I[{k}]._data" for k, s in enumerate(g.arg_slots)]
    lines += [f" s{s} = E[{k}]._data" for k, (s, _, _) in enumerate(g.externals)]
    for i, (kind, kernel, operands, attrs, want, ndiff, outs, extra, free) in enumerate(g.steps):
        if kind == "grad_read":
            lines += _grad_read(ns, i, *extra)
        elif kind == "grad_write":
            lines.append(f" {extra[0]}._grad = {extra[1]}")
        elif kind == "item":
            lines.append(f" y{extra} = s{operands[0][0]}.item()")
        elif kind == "inplace" and extra[5] is not None:     # the ufunc into the target
            _, target, name, op_name, site, ufunc = extra
            ns[f"U{i}"], ns[f"X{i}"] = ufunc, (op_name, site)
            lines.append(f" U{i}({', '.join(f's{x}' for x, _, _ in operands)}, out=s{target})")
            if name is not None:
                lines.append(f" bump({name}, *X{i})")
        else:
            lines += _kernel_call(ns, i, kernel, operands, attrs, extra if kind == "op" else
                                  extra[0])
            if kind == "inplace":
                _, target, name, op_name, site, _ = extra
                lines.append(f" copyto(s{target}, o, casting='unsafe')")
                if name is not None:
                    ns[f"X{i}"] = (op_name, site)
                    lines.append(f" bump({name}, *X{i})")
            elif ndiff is None:
                check = "" if want is None else f" or o.dtype != W{i}"
                ns[f"W{i}"] = want
                lines.append(f" if type(o) is not ndarray{check}: o = asarray(o, dtype=W{i})")
                lines.append(f" s{outs[0]} = o")
            else:
                ns[f"W{i}"] = want
                lines += [f" s{s} = asarray(o[{j}], dtype={f'W{i}' if j < ndiff else 'None'})"
                          for j, s in enumerate(outs)]
        lines += [f" del s{s}" for s in free]
    saved = []
    for kind, x in g.sv_plan:
        if kind == 1 or bare:
            saved.append(f"s{x}")
        else:
            k = g.input_index[x]
            saved.append(f"ST(I[{k}], False)" if k >= 0 else f"ST(E[{-k - 1}], False)")
    outs = "".join(f"s{s}, " for s in g.result_slots)
    lines.append(f" return ({outs}), [{', '.join(saved)}]")
    return _define("forward", lines, ns, "bare forward" if bare else "forward")


# rows whose kernel, on float32/float64 arrays and these attrs, is one NumPy ufunc of the
# operands: row name -> (ufunc's name, the attrs, the attr that is the ufunc's last operand, a
# constant first operand); tests/test_compile_step.py compares each form with the row's kernel
_UFUNC_ROWS = {"AddBackward0": ("add", {"alpha": 1}, None, ()),
               "SubBackward0": ("subtract", {"alpha": 1}, None, ()),
               "MulBackward0": ("multiply", {}, None, ()),
               "MulBackward1": ("multiply", None, "other", ()),    # tensor * a Python number
               "ReluBackward0": ("maximum", {}, None, (0,)),       # keep_self's maximum(0, a)
               "NegBackward0": ("negative", {}, None, ()),
               "MmBackward0": ("matmul", {}, None, ())}             # (_in_float's own call)
_UFUNC_DTYPES = (xp.dtype("float32"), xp.dtype("float64"))


def ufunc_step(op, kernel, operands, arrays, attrs):
    """(ufunc, operands, attrs) of a step whose row's kernel is one NumPy ufunc on these
    float32/float64 arrays (see _UFUNC_ROWS: the same loop on the same operands without the
    kernel's Python frames), or None. ``kernel`` must be the row's forward bound to NumPy."""
    form = _UFUNC_ROWS.get(op.name)
    if form is None or not arrays or any(type(a) is not ndarray or a.dtype not in _UFUNC_DTYPES
                                         for a in arrays):
        return None
    if not (kernel is getattr(xp, op.fname or "", None)
            or getattr(kernel, "func", None) is op.forward and kernel.args == (xp,)):
        return None
    name, want, attr, first = form
    if attr is not None:
        value = attrs.get(attr)
        if len(attrs) != 1 or type(value) not in (int, float):
            return None
        operands = [*operands, (None, value, None)]
    elif attrs != want:
        return None
    return getattr(xp, name), [*((None, c, None) for c in first), *operands], {}


def ufunc_into(op, kernel, attrs, arrays, target):
    """The ufunc of an in-place op on ``target`` (its prepared ``arrays``, the first the
    target's own) that can write into the target with out= (a binary elementwise _UFUNC_ROWS
    form on arrays of the target's dtype), or None."""
    step = ufunc_step(op, kernel, [None] * len(arrays), arrays, attrs)
    if (step is None or len(step[1]) != 2 or len(arrays) != 2 or arrays[0] is not target
            or step[0] is xp.matmul
            or any(a.dtype != target.dtype for a in arrays)):
        return None
    return step[0]


def _kernel_call(ns, i, kernel, operands, attrs, syms):
    """``o = K<i>(operands..., **attrs)``, values read symbolically recomputed."""
    ns[f"K{i}"] = kernel
    args = []
    for j, (s, c, cast) in enumerate(operands):
        if s is None and type(c) is _sym.Sym:
            args.append(_sym.source(ns, c))
        elif s is None:
            ns[f"C{i}_{j}"] = c
            args.append(f"C{i}_{j}")
        elif cast is None:
            args.append(f"s{s}")
        else:
            ns[f"T{i}_{j}"] = cast
            args.append(f"s{s}.astype(T{i}_{j}, copy=False)")
    if attrs:
        ns[f"A{i}"] = attrs
        if syms:
            items = ", ".join(f"{k!r}: {_sym.source(ns, v)}" for k, v in syms.items())
            args.append(f"**{{**A{i}, {items}}}")
        else:
            args.append(f"**A{i}")
    return [f" o = K{i}({', '.join(args)})"]


def _grad_read(ns, i, owner, expect, after):
    """A gradient read: checked against what the capture saw (a Miss before any effect of
    the replay, an error after one)."""
    fail = f"changed({owner})" if after else "raise Miss"
    if expect is None:
        return [f" if {owner}._grad is not None: {fail}"]
    if expect[0] == "same":
        return [f" if {owner}._grad is not {expect[1]}: {fail}"]
    _, s, meta = expect
    ns[f"M{i}"] = meta
    return [f" r{s} = {owner}._grad",
            f" if r{s} is None: {fail}",
            f" s{s} = r{s}._data",
            f" if (s{s}.shape, s{s}.dtype, s{s}.strides) != M{i}: {fail}"]


def backward_source(g):
    ns = {"fit": _fit, "ST": SavedTensor}
    lines = ["def backward(node, SV, G):"]
    slots = set(g.diff_slots) | {s for step in g.gsteps for s in step[3] if s is not None}
    lines += [f" b{s} = None" for s in sorted(slots - set(g.diff_slots))]
    lines += [f" b{s} = G[{k}]" for k, s in enumerate(g.diff_slots)]
    for i in reversed(range(len(g.gsteps))):
        recipe, cls, edges, eslots, meta, arrays, outs = g.gsteps[i]
        op = cls.op
        if arrays and len(outs) == 1:
            body = _formulas(ns, i, g.recipes[i], cls, edges, eslots)
            lines.append(f" g = b{outs[0]}")
            lines.append(" if g is not None:")
            lines += ["  " + line for line in body]
            lines.append(f"  b{outs[0]} = None")
        else:
            ns[f"GEN{i}"] = _generic(g.recipes[i], cls, edges, meta, op)
            gs = "".join(f"b{s}, " for s in outs)
            lines.append(f" gs = [{gs}]")
            lines.append(" if any(x is not None for x in gs):")
            lines.append(f"  r = GEN{i}(node, SV, gs)")
            for k, s in enumerate(eslots):
                if s is not None:
                    lines.append(f"  if r[{k}] is not None: b{s} = r[{k}] if b{s} is None "
                                 f"else b{s} + r[{k}]")
            lines += [f"  b{s} = None" for s in outs]
    lines.append(f" return [{', '.join(f'b{s}' for s in g.edge_slots)}]")
    return _define("backward", lines, ns)


def _formulas(ns, i, recipe, cls, edges, eslots):
    """The lines of one arrays=True row's backward: its saved tensors unpacked (and checked)
    before any formula runs, as OpNode._formulas does, then each needed input's formula, the
    engine's fit to the input, and the sum into the input's buffer (in the engine's order)."""
    op = cls.op
    body, names = [], []
    for k, e in enumerate(recipe):
        if e[0] == "c":
            ns[f"Q{i}_{k}"] = e[1]
            names.append(f"Q{i}_{k}")
        else:
            body.append(f"v{k} = SV[{e[1]}]")
            names.append(f"v{k}")
    for k in op.slots:      # SavedTensors (arguments, externals, outputs): the version check
        if recipe[k][0] == "sv":
            body.append(f"if type(v{k}) is ST: v{k} = v{k}.unpack_data(node)")
    for k, ((formula, index), (target, _), s) in enumerate(zip(op.formula_index, edges, eslots)):
        if s is None:
            continue
        ns[f"F{i}_{k}"] = _fused(cls, k, [recipe[j] for j in index], target) or formula
        body.append(f"r = F{i}_{k}(g, {', '.join(names[j] for j in index)})")
        if not cls._exact:
            shape, dtype = target._input_metadata[0]
            ns[f"S{i}_{k}"], ns[f"D{i}_{k}"] = shape, dtype.np
            body.append(f"if r.shape != S{i}_{k} or r.dtype != D{i}_{k}: "
                        f"r = fit(r, S{i}_{k}, D{i}_{k}, {cls.__name__!r}, {k})")
        body.append(f"b{s} = r if b{s} is None else b{s} + r")
    return body


def _fused(cls, k, args, target):
    """A cheaper formula with the row's exact results where the captured shapes allow one
    (None: the row's own): one of _CHEAPER's, keyed by the node's name and the input's index,
    given the row's formula, the recipe of its saved arguments and the input's edge target.
    Each checks at run time that it has the arrays it was written for and otherwise calls the
    row's formula; tests/test_compile_step.py compares each with the row's formula (and the
    engine's fit) bit for bit."""
    make = _CHEAPER.get((cls.__name__, k))
    return None if make is None else make(cls.op.formula_index[k][0], args, target)


def _gather_column(own, args, target):
    """GatherBackward0 of a matrix gathered along its last dim by a one-column index (the
    picked log-probabilities of a cross-entropy written with log_softmax and gather): the
    row's scatter_add into zeros adds each row's one value to a zero, which a one-hot write
    does without scatter's coordinates and ufunc.at."""
    dim = args[1]       # (self, dim, index, sparse_grad): a constant
    if len(target._input_metadata[0][0]) != 2 or dim[0] != "c" or dim[1] not in (1, -1):
        return None

    def gather_column_backward(grad, self, dim, index, sparse_grad):
        if index.ndim != 2 or index.shape[1] != 1 or grad.shape != index.shape:
            return own(grad, self, dim, index, sparse_grad)
        out = xp.zeros(self.shape, grad.dtype)
        out[xp.arange(index.shape[0]), index[:, 0]] += grad[:, 0]     # 0 + value, as scatter_add
        return out
    return gather_column_backward


def _bias(own, args, target):
    """AddBackward0's gradient of a 1-D float32/float64 ``other`` added with alpha=1 to a
    matrix (a bias): the row returns grad, which the engine's fit sums over the rows
    (sum_to_array: add.reduce over dim 0); summed here directly."""
    shape, dtype = target._input_metadata[0]
    npd = dtype.np
    if len(shape) != 1 or args[0] != ("c", 1) or npd not in _UFUNC_DTYPES:
        return None
    reduce = xp.add.reduce

    def add_backward_bias(grad, alpha):
        if type(grad) is not ndarray or grad.ndim != 2 or grad.shape[1:] != shape \
                or grad.dtype != npd:
            return own(grad, alpha)
        return reduce(grad, axis=0)
    return add_backward_bias


def _mm_self(own, args, target):
    """MmBackward0's grad @ mat2.T: the row's _mm.call(grad, _t.call(mat2)) is NumPy's matmul
    of grad and mat2's transposed view (.T, _t's kernel) wherever grad is no reduced float
    (_in_float's float32 detour), without the two rows' calls."""
    matmul = xp.matmul

    def mm_backward_self(grad, mat2, self_sym_sizes):
        if type(grad) is not ndarray or type(mat2) is not ndarray or grad.dtype in reduced_floats:
            return own(grad, mat2, self_sym_sizes)
        return matmul(grad, mat2.T)
    return mm_backward_self


def _mm_mat2(own, args, target):
    """MmBackward0's self.T @ grad (see _mm_self)."""
    matmul = xp.matmul

    def mm_backward_mat2(grad, self, mat2_sym_sizes):
        if type(self) is not ndarray or type(grad) is not ndarray or self.dtype in reduced_floats:
            return own(grad, self, mat2_sym_sizes)
        return matmul(self.T, grad)
    return mm_backward_mat2


_CHEAPER = {("GatherBackward0", 0): _gather_column, ("AddBackward0", 1): _bias,
            ("MmBackward0", 0): _mm_self, ("MmBackward0", 1): _mm_mat2}


def cheaper_kernel(op, kernel, arrays, attrs, out):
    """A forward kernel with the row's exact results for the captured operands (their shapes,
    dtypes and strides are the replay's: guarded, or made by the same kernels from guarded
    ones), or None: one of _CHEAPER_KERNELS', given the kernel, the operands and attrs as the
    capture prepared them, and the capture's result array ``out``. Each checks the operands'
    layout it was written for at run time and otherwise calls the kernel."""
    make = _CHEAPER_KERNELS.get(op.name)
    return None if make is None or type(out) is not ndarray else make(kernel, arrays, attrs, out)


def _unsqueeze_view(kernel, arrays, attrs, out):
    """unsqueeze of a C-contiguous array: _unsqueezed's view (expand_dims, its new dim's stride
    set by as_strided) is the reshape to the new shape wherever the capture's reshape had the
    kernel's strides (the same for the replay's operand of the same layout)."""
    a = arrays[0]
    if type(a) is not ndarray or not a.flags.c_contiguous:
        return None
    shape = out.shape
    if a.reshape(shape).strides != out.strides:
        return None

    def unsqueeze(a, dim):
        return a.reshape(shape) if a.flags.c_contiguous else kernel(a, dim)
    return unsqueeze


def _gather_column_forward(kernel, arrays, attrs, out):
    """gather along the last dim of a matrix by a one-column index (a cross-entropy's picked
    log-probabilities): take_along_axis' own fancy index (the row numbers against the index
    column), built once, where the capture's result had the kernel's strides."""
    self, index = arrays
    if (type(self) is not ndarray or type(index) is not ndarray or self.ndim != 2
            or attrs.get("dim") not in (1, -1) or index.ndim != 2 or index.shape[1] != 1
            or index.shape[0] > self.shape[0] or index.dtype != xp.int64):
        return None
    rows = xp.arange(index.shape[0])[:, None]
    if self[rows, index].strides != out.strides:
        return None

    def gather_column(self, index, dim, sparse_grad):
        if index.shape != rows.shape or index.dtype != xp.int64 or self.ndim != 2:
            return kernel(self, index, dim=dim, sparse_grad=sparse_grad)
        return self[rows, index]
    return gather_column


_CHEAPER_KERNELS = {"UnsqueezeBackward0": _unsqueeze_view,
                    "GatherBackward0": _gather_column_forward}


def _generic(recipe, cls, edges, meta, op):
    """Any other row: its OpNode on the saved values, run as the engine runs it (apply_arrays
    for rows on arrays, apply on tensors otherwise), its gradients fitted by engine._validate."""
    edges = flat_edges(edges)
    def saved(SV, e):
        if type(e) is list:
            return tuple(saved(SV, x) for x in e)
        if e[0] == "c":
            return e[1]
        v = SV[e[1]]
        return v if op.arrays or type(v) is not ndarray else _held(v)

    def run(node, SV, gs):
        n = _new(cls)
        n._next, n._input_metadata = edges, meta
        n._saved = tuple(saved(SV, e) for e in recipe)
        if op.arrays:
            out = n._formulas(gs)
        else:
            out = [None if r is None else r._data
                   for r in n.apply([None if x is None else Tensor._make(xp.asarray(x))
                                     for x in gs])]
        return out if cls._exact else _validate(n, out)
    return run


def _held(v):
    """A bare saved array as a SavedTensor (for rows whose formulas take tensors)."""
    s = _new(SavedTensor)
    s.tensor = Tensor._make(v)
    s.data = s.hooks = s.meta = s.view_fn = None
    s.counter, s.version, s.output_nr = s.tensor._version_counter, 0, 0
    return s


def _define(name, lines, ns, label=None):
    source = "\n".join(lines)
    exec(compile(source, f"<glassgrad.compile {label or name}>", "exec"), ns)
    fn = ns[name]
    fn.source = source
    return fn
