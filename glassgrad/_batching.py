"""vmap's batching rules: a function runs once on batched tensors.

A BatchedTensor is what user code sees inside ``vmap``: a tensor with the per-example (logical)
shape whose ``_value`` is the physical tensor, with this level's batch dimension in front (in
nested vmaps ``_value`` is the outer level's BatchedTensor, or a plain tensor). While a body
runs, its Level is the op interceptor (``state.handler``): an op with a batched operand runs its
row's batch rule on the physical tensors, one level down, and the result is wrapped again.
The rules are chosen by the row's category (pointwise rows pad and broadcast; rows with dim
arguments shift them; shape rows take the batch size in front; the matmul family goes through
matmul), never spelt per row where a category fits. A row with no rule runs once per example
and the results are stacked (torch's slow fallback): slow, but correct by construction, since it
is plain ops on plain tensors.

In-place pointwise ops (and fill_/copy_) into a batched tensor write its physical tensor.
Anything that would read a BatchedTensor's values outside the op table (``.item()``, printing,
NumPy conversion, a preamble reading ``_data``), another in-place op or one into an unbatched
tensor, a random row on a batched operand, a draw under randomness='error'/'different', or any
error, raises Fallback: func.vmap then reruns the whole call one example at a time (the loop,
which refuses what torch refuses with torch's words). So a body either runs batched, or as it
did before.

Autograd records on the physical tensors. A gradient taken inside the vmap (per-sample
gradients) is per example because every input of it is batched first (an unbatched one is
expanded: each example gets its own leaf); vjp functions made outside run the backward formulas
on batched gradients (the engine in tensor mode), through the same rules.
"""
from ._autograd.grad_mode import state
from ._overrides import _disabled_torch_function_impl
from .backend import may_share_memory
from ._tensor import Size, Tensor, _new, _wrap_dim

__all__ = ["Fallback", "BatchedTensor", "Level", "physical", "wrap", "level_of"]


class Fallback(BaseException):
    """Batched execution cannot go on: vmap reruns the call per example (a BaseException, so
    no ``except Exception`` of library code swallows it)."""


def _fallback(*_args, **_kwargs):
    note()
    raise Fallback


last_fallback = []      # the traceback of the last fallback (what tests and debugging read)


def note(error=None):
    import traceback
    last_fallback[:] = [traceback.format_exc() if error is not None else
                        "".join(traceback.format_stack(limit=12))]


class BatchedTensor(Tensor):
    """A tensor batched at vmap level ``_level``: ``_value`` holds the examples along dim 0."""
    __slots__ = ("_value", "_level", "_copy")   # _copy: a view a rule had to copy
    _batched = True
    # not a __torch_function__ override (torch's BatchedTensor is no Python subclass): calls
    # on it take the argument layer's fast path, and the ops hand them to the Level
    __torch_function__ = _disabled_torch_function_impl

    _data = property(_fallback)     # values are never read through the logical tensor
    grad = property(_fallback)
    data = property(_fallback)

    @property
    def dtype(self):
        return self._value.dtype

    @property
    def shape(self):
        return Size(self._value.shape[1:])

    def size(self, dim=None):
        shape = self._value.shape[1:]
        if dim is None:
            return Size(shape)
        return shape[_wrap_dim(dim, len(shape), scalar=False)]

    def dim(self):
        return self._value.dim() - 1

    ndim = property(dim)

    def numel(self):
        n = 1
        for s in self._value.shape[1:]:
            n *= s
        return n

    nelement = numel

    def element_size(self):
        return self._value.element_size()

    def is_floating_point(self):
        return self._value.is_floating_point()

    def is_complex(self):
        return self._value.is_complex()

    @property
    def requires_grad(self):
        return self._value.requires_grad

    @requires_grad.setter
    def requires_grad(self, flag):
        self._value.requires_grad = flag

    def requires_grad_(self, requires_grad=True):
        self._value.requires_grad_(requires_grad)
        return self

    @property
    def grad_fn(self):
        return self._value.grad_fn

    @property
    def is_leaf(self):
        return self._value.is_leaf

    @property
    def _version(self):
        return self._value._version

    def detach(self):
        return wrap(self._value.detach(), self._level)

    def contiguous(self, memory_format=None):
        return self     # the physical layout is the rules' business

    stride = is_contiguous = storage_offset = untyped_storage = _fallback
    item = tolist = numpy = __array__ = __bool__ = __float__ = __int__ = __index__ = _fallback
    __repr__ = __str__ = __format__ = __iter__ = __reduce_ex__ = __deepcopy__ = _fallback
    register_hook = retain_grad = backward = _fallback

    def __len__(self):
        if self.dim() == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._value.shape[1]


Tensor._batched = False


def wrap(value, level):
    t = _new(BatchedTensor)
    t._value, t._level, t._copy = value, level, False
    t._grad = t._base = t._hook_state = t._view = t._grad_fn = t._fw = None
    t._output_nr = 0
    t._requires_grad = False
    t._inference = state._inference
    t._version_counter = value._version_counter
    return t


def level_of(t):
    """The innermost vmap level ``t`` is batched at (0: none)."""
    return t._level if type(t) is BatchedTensor else 0


def physical(t):
    """The plain tensor under every level of ``t`` (batch dims in front, outermost first)."""
    while type(t) is BatchedTensor:
        t = t._value
    return t


def _is_tensor(v):
    return isinstance(v, Tensor)


def _at(v, level):
    return type(v) is BatchedTensor and v._level == level


# -- the rules -------------------------------------------------------------------------------
# A rule gets (level, op, values, attrs) with the operands batched at this level, runs ops on
# their physical tensors (batch dim 0, one level down) and returns physical results.

class _Ops:
    """The public functions the rules call (imported when a body first runs)."""

    def __init__(self):
        from .ops.linalg import _bmm, matmul
        from .ops.reduce import mean, sum
        from .ops.registry import apply_inplace
        from .ops.shape import _expand, reshape, stack
        self.matmul, self.mean, self.sum, self.reshape, self.stack = (
            matmul, mean, sum, reshape, stack)
        self.apply_inplace = apply_inplace
        self.bmm = _bmm     # the rows: their operands passed mm's checks, expand's (lift)
        self.expand = _expand


_OPS = []


def _ops():
    if not _OPS:
        _OPS.append(_Ops())
    return _OPS[0]


def _pad(v, level, ndim):
    """v's physical tensor with size-1 dims after the batch dim, to ``ndim`` logical dims."""
    p = v._value
    missing = ndim - (p.dim() - 1)
    if missing > 0:
        p = p.reshape((p.shape[0],) + (1,) * missing + tuple(p.shape[1:]))
    return p


def _materialize(v, level, size):
    """v as a physical tensor batched in front: its own, or an unbatched one expanded."""
    if _at(v, level):
        return v._value
    return v.unsqueeze(0).expand((size,) + tuple(v.shape))


def pointwise(level, op, values, attrs):
    tensors = [v for v in values if _is_tensor(v)]
    if len({v.dtype for v in tensors}) > 1 and any(
            _at(v, level.serial) and v.dim() == 0 for v in tensors):
        return _loop(level, op, values, attrs)   # a 0-d operand promotes as a 0-d one
    ndim = max(v.dim() for v in tensors)
    return op(*(_pad(v, level.serial, ndim) if _at(v, level.serial) else v for v in values),
              **attrs)


_DIM_KEYS = ("dim", "dims", "dim0", "dim1", "dim2", "source_dim")


def _shift(d):
    if d is None:
        return None
    if isinstance(d, (tuple, list)):
        return type(d)(x + 1 if x >= 0 else x for x in d)
    return d + 1 if d >= 0 else d


def dims(level, op, values, attrs):
    """Rows with dim arguments (reductions, softmax-like, views, cat/stack, gather/scatter):
    every tensor operand batched in front, the dims shifted by one."""
    for k in _DIM_KEYS:
        if k in attrs and attrs[k] is None:
            return _loop(level, op, values, attrs)     # a reduction of every element
    new = dict(attrs)
    for k in _DIM_KEYS:
        if k in new:
            new[k] = _shift(new[k])
    if op.name == "PermuteBackward0":       # a whole permutation: the batch dim stays first
        new["dims"] = (0,) + tuple(new["dims"])
    if len([v for v in values if _is_tensor(v)]) > 1:
        values = [_materialize(v, level.serial, level.size) if _is_tensor(v) else v
                  for v in values]
    else:
        values = [v._value if _at(v, level.serial) else v for v in values]
    return op(*values, **new)


def self_dims(level, op, values, attrs):
    """dims() for rows whose other tensor operands are per-call data, never batched
    (index_select's index)."""
    if any(_at(v, level.serial) for v in values[1:]):
        return _loop(level, op, values, attrs)
    return dims(level, op, (values[0],), attrs) if len(values) == 1 else op(
        values[0]._value, *values[1:], **{k: _shift(v) if k in _DIM_KEYS else v
                                          for k, v in attrs.items()})


def sized(level, op, values, attrs):
    """view/reshape/expand: the batch size in front of the new shape (a view of a batched
    tensor is a reshape of its physical one, which may not be viewable)."""
    (v,) = values
    size = (level.size,) + tuple(attrs["size"])
    if op.name == "ExpandBackward0":     # new leading dims go after the batch dim
        return op(_pad(v, level.serial, len(size) - 1), size=size)
    return _ops().reshape(v._value, size)


def _reduce_all(op, v, attrs):
    ops = _ops()
    fn = {"SumBackward0": ops.sum, "MeanBackward0": ops.mean}[op.name]
    if v.dim() == 1:
        return fn(v.reshape(v.shape[0], 1), dim=1, dtype=attrs.get("dtype"))
    return fn(v, dim=tuple(range(1, v.dim())), dtype=attrs.get("dtype"))


def transpose_t(level, op, values, attrs):
    v = values[0]._value
    return v.transpose(1, 2) if v.dim() == 3 else v


def _phys(v, level):
    return v._value if _at(v, level.serial) else v


def matmul_rows(level, op, values, attrs):
    """mm, mv, dot, bmm, addmm: through matmul (NumPy's batched matmul), batch dims in
    front; a batched vector operand as a column."""
    ops = _ops()
    name = op.name
    if name == "AddmmBackward0":
        bias, a, b = values
        out = ops.matmul(_phys(a, level), _phys(b, level))
        if attrs.get("alpha", 1) != 1:
            out = out * attrs["alpha"]
        if attrs.get("beta", 1) == 0:
            return out
        bias = _pad(bias, level.serial, 2) if _at(bias, level.serial) else bias
        return out + (bias if attrs.get("beta", 1) == 1 else bias * attrs["beta"])
    a, b = values
    pa, pb = _phys(a, level), _phys(b, level)
    if name == "MmBackward0" and pa is not a and pb is not b:     # both batched: one bmm
        return ops.bmm(pa, pb)
    if name in ("MmBackward0", "BmmBackward0"):
        return ops.matmul(pa, pb)
    if name == "MvBackward0":
        if not _at(a, level.serial):    # one matrix, many vectors: one matrix product
            return ops.matmul(pb, pa.transpose(0, 1))
        return ops.matmul(pa, pb.unsqueeze(-1)).squeeze(-1)
    # dot: (1 x k) @ (k x 1)
    return ops.matmul(pa.unsqueeze(-2), pb.unsqueeze(-1)).squeeze(-1).squeeze(-1)


def nll_loss(level, op, values, attrs):
    """nll_loss of one example's 1-D scores: the 'none' reduction over the batch (the mean
    over one target weighing 1 is that target's loss; an ignored target, whose mean is 0/0
    with a zero gradient, runs per example)."""
    x, target, weight = values
    if x.dim() != 1 or weight is not None or _at(weight, level.serial) or (
            attrs["reduction"] == 1 and (physical(target)._data == attrs["ignore_index"]).any()):
        return _loop(level, op, values, attrs)
    px = _phys(x, level)
    pt = _materialize(target, level.serial, level.size)
    if px.dim() == 1:
        px = px.unsqueeze(0).expand((level.size,) + tuple(px.shape))
    return op(px, pt, None, reduction=0, ignore_index=attrs["ignore_index"])


def _loop(level, op, values, attrs):
    """torch's slow fallback: the row once per example, results stacked."""
    ops = _ops()
    results = []
    for b in range(level.size):
        results.append(op(*[_slice(v, level, b) for v in values],
                          **{k: _slice(v, level, b) for k, v in attrs.items()}))
    if isinstance(results[0], (tuple, list)):
        return type(results[0])(ops.stack([r[i] for r in results])
                                for i in range(len(results[0])))
    if not _is_tensor(results[0]):
        raise Fallback
    return ops.stack(results)


def _slice(v, level, b):
    if _at(v, level.serial):
        return v._value.select(0, b)
    if isinstance(v, (tuple, list)) and any(_at(x, level.serial) for x in v):
        return type(v)(_slice(x, level, b) for x in v)
    return v


# categories: the modules whose rows are elementwise with broadcasting, and the rows of other
# modules that are (the unary and binary math the registry makes)
_POINTWISE_MODULES = ("glassgrad.ops.pointwise", "glassgrad.ops.composite")
_NOT_POINTWISE = {"GluBackward0", "PreluKernelBackward0", "FillBackward2", "FillBackward3",
                  "CopyBackwards", "NotImplemented"}
_POINTWISE_NAMES = {
    "AsinhBackward0", "Atan2Backward0", "AtanBackward0", "CosBackward0", "CoshBackward0",
    "DivBackward0", "Exp2Backward0", "ExpBackward0", "Expm1Backward0", "FmaxBackward0",
    "FminBackward0", "HypotBackward0", "LogBackward0", "MulBackward0", "SinBackward0",
    "SinhBackward0", "SqrtBackward0", "TanBackward0", "TanhBackward0", "ToCopyBackward0",
    "CloneBackward0", "AliasBackward0", "AddBackward1", "DivBackward1", "ZeroBackward0"}
_INPLACE_POINTWISE = {"FillBackward2", "FillBackward3", "CopyBackwards"}
_SIZED = {"ViewBackward0", "ReshapeAliasBackward0", "UnsafeViewBackward0", "ExpandBackward0"}
_SELF_DIMS = {"IndexSelectBackward0", "IndexFillBackward0"}
_MATMUL = {"MmBackward0", "MvBackward0", "DotBackward0", "BmmBackward0", "AddmmBackward0"}
_DIM_ROWS = {"GatherBackward0", "ScatterBackward0", "ScatterAddBackward0", "CatBackward0",
             "StackBackward0", "LinalgCrossBackward0"}


def _module(op):
    f = op.forward
    return getattr(f, "__module__", None) if callable(f) else "glassgrad.ops.pointwise"


def rule_for(op, attrs):
    name = op.name
    if name in _MATMUL:
        return matmul_rows
    if name in _SIZED:
        return sized
    if name in ("SumBackward0", "MeanBackward0"):
        return _full
    if name == "TBackward0":
        return transpose_t
    if name == "NllLossBackward0":
        return nll_loss
    if name in _SELF_DIMS:
        return self_dims
    if _module(op) == "glassgrad.ops.random":
        return _fallback
    if name in _NOT_POINTWISE:
        return _loop
    if any(k in attrs for k in _DIM_KEYS):
        if name in _DIM_ROWS or op.inputs == ("self",):
            return dims
        return _loop
    if name in _POINTWISE_NAMES or _module(op) in _POINTWISE_MODULES:
        return pointwise
    return _loop


def _full(level, op, values, attrs):
    return _reduce_all(op, values[0]._value, attrs)


_RULES = {}     # (op, its attrs' names) -> rule


class Level:
    """One running batched vmap: its serial, its batch size, and the interceptors it wraps.
    It is ``state.handler`` and ``state.vmap`` while its body runs."""

    def __init__(self, serial, size):
        self.serial, self.size = serial, size
        self.inner = state.handler
        self.outer_vmap = state.vmap

    def batched(self, values, attrs):
        serial = self.serial
        for v in values:   # (_at, inline: every op call in the body comes here)
            if type(v) is BatchedTensor:
                if v._level == serial:
                    return True
            elif isinstance(v, (tuple, list)) and any(_at(x, serial) for x in v):
                return True
        return any(_at(v, serial) for v in attrs.values()) if attrs else False

    def handle_call(self, op, values, attrs):
        state.handler = self.inner
        try:
            if not self.batched(values, attrs):
                return op(*values, **attrs)
            key = (op, tuple(attrs))
            rule = _RULES.get(key)
            if rule is None:
                rule = _RULES[key] = rule_for(op, attrs)
            if op.variadic and rule is not _loop:
                values = tuple(values)
            out = rule(self, op, values, attrs)
        finally:
            state.handler = self
        outs = out if isinstance(out, (tuple, list)) else (out,)
        outs = [wrap(o, self.serial) if _is_tensor(o) else o for o in outs]
        if op.view:     # a view the rule could only copy: writing into it reruns per example
            src = values[0]
            for o in outs:
                o._copy = _at(src, self.serial) and (src._copy or not may_share_memory(
                    physical(o)._data, physical(src)._data))
        return type(out)(outs) if isinstance(out, (tuple, list)) else outs[0]

    def handle_inplace(self, op, t, values, attrs, overlap):
        """An in-place op: pass-through when nothing is batched here; a pointwise one into a
        batched ``t`` writes its physical tensor; anything else (an unbatched ``t`` that torch
        refuses to grow, other rows) reruns the call per example."""
        apply_inplace = _ops().apply_inplace
        state.handler = self.inner
        try:
            if not self.batched(values, attrs):
                return apply_inplace(op, t, values, attrs, overlap)
            if not _at(t, self.serial) or t._copy or (
                    op.name not in _INPLACE_POINTWISE and rule_for(op, attrs) is not pointwise):
                raise Fallback
            ndim = t.dim()
            if any(_is_tensor(v) and v.dim() > ndim for v in values) or (
                    op.name.startswith("Fill") and _at(values[-1], self.serial)):
                raise Fallback
            phys = [v if not _at(v, self.serial) else _pad(v, self.serial, ndim)
                    for v in values]
            apply_inplace(op, phys[0], phys, attrs, overlap)
        finally:
            state.handler = self
        return t

    def handle_view_inplace(self, op, t, attrs):
        raise Fallback

    # what the core asks state.vmap (see func._Batching)
    def of(self, tensors):
        return frozenset(t._level for t in tensors if type(t) is BatchedTensor)

    def mark(self, t, levels):
        if levels:
            raise Fallback

    def grad(self, outputs, inputs, grads, retain_graph, create_graph):
        """autograd.grad of batched outputs. The graph is physical at the levels its inputs
        were lifted to (the vmaps around the grad transform), whose examples are independent,
        so gradients there are per example; gradients batched at inner levels too (a vjp
        function called in a vmap inside) stay batched there, over physical tensors of the
        outer ones, and run through those levels' rules. None where an input is not reached."""
        from .autograd import grad
        levels = active_levels()
        outer = _levels_of(inputs[0])
        n = len(outer)
        if any(_levels_of(x) != outer for x in inputs) or outer != [
                lv.serial for lv in levels[:n]] or any(
                set(_levels_of(o)) - set(outer) for o in outputs):
            raise Fallback
        inner, extra = levels[:n], levels[n:]
        pairs = [(physical(lift(o, inner)), self._split(g, levels, n))
                 for o, g in zip(outputs, grads) if g is not None]
        prev, state.handler = state.handler, self if extra else levels[0].inner
        # gradients batched at inner levels run the formulas on tensors (through the rules),
        # recording only with create_graph (OpNode.apply)
        try:
            result = grad([o for o, _ in pairs], [physical(x) for x in inputs],
                          [g for _, g in pairs], create_graph=create_graph, allow_unused=True,
                          retain_graph=create_graph if retain_graph is None else retain_graph)
            return [None if g is None else self._join(g, levels, n) for g in result]
        finally:
            state.handler = prev

    @staticmethod
    def _split(g, levels, n):
        """g as BatchedTensors of the inner levels over the physical tensor of the outer n."""
        p = physical(lift(g, levels))
        if n == len(levels):
            return p
        prev, state.handler = state.handler, levels[0].inner
        try:
            p = p.movedim(tuple(range(n, len(levels))), tuple(range(len(levels) - n)))
        finally:
            state.handler = prev
        return rewrap(p, levels[n:])

    @staticmethod
    def _join(g, levels, n):
        """_split's inverse: batched at every level, nested as usual."""
        if n < len(levels):
            p = physical(lift(g, levels[n:]))
            prev, state.handler = state.handler, levels[0].inner
            try:
                g = p.movedim(tuple(range(len(levels) - n)), tuple(range(n, len(levels))))
            finally:
                state.handler = prev
        return rewrap(g, levels)

    def like(self, input, t):
        """The plain tensor t, made like input's physical tensor, batched as input is."""
        levels = []
        while type(input) is BatchedTensor:
            levels.append(input._level)
            input = input._value
        for lv in reversed(levels):
            t = wrap(t, lv)
        return t

    def refuse(self, what, *tensors):
        if self.of(tensors):
            raise Fallback



def active_levels():
    """The running batched vmaps, outermost first."""
    levels, lv = [], state.vmap
    while isinstance(lv, Level):
        levels.append(lv)
        lv = lv.outer_vmap
    return levels[::-1]


def lift(x, levels=None):
    """x batched at every running level (an unbatched one expanded: per example a view of
    it), so that a gradient taken inside the vmap is per example."""
    levels = active_levels() if levels is None else levels
    if not levels:
        return x
    top = levels[-1]
    prev, state.handler = state.handler, top.inner
    try:
        if _at(x, top.serial):
            inner = lift(x._value, levels[:-1])
        else:
            base = lift(x, levels[:-1])
            inner = _ops().expand(base, size=(top.size,) + tuple(base.shape))
    finally:
        state.handler = prev
    return wrap(inner, top.serial)


def _levels_of(t):
    """The serials t is batched at, outermost first."""
    out = []
    while type(t) is BatchedTensor:
        out.append(t._level)
        t = t._value
    return out[::-1]


def rewrap(p, levels):
    """The plain tensor p (batch dims in front) batched at ``levels`` (outermost first)."""
    for lv in levels:
        p = wrap(p, lv.serial)
    return p
