"""Forward-mode AD (torch.autograd.forward_ad): dual tensors carry a tangent, and every op of the
op table computes its output's tangent J·t from its inputs' tangents.

A tangent lives in the ``_fw`` slot of a Tensor (unset: no tangent) and is registered with the
level, which drops every tangent on exit. While a level is active its interceptor is installed
as ``state.handler``, and OpDef.__call__, apply_inplace and the in-place view ops hand their call
to it (the only cost forward AD adds when no level is active is that one check). func.vmap
installs an interceptor of its own; whichever was installed first is the other's ``inner``.

Tangent rules, one per row, all derived from the row itself (nothing is written twice):
  linear rows      (views, shape ops, sums, copies, add/sub...): J·t is the row applied to the
                   tangents (zeros where an input has none), so a view's tangent is the same view
                   of its input's tangent
  pointwise rows   (unary math, activations, mul/div/pow, where, clamp...): J is diagonal, hence
                   symmetric, so J·t = Jᵀ·t is the row's backward formulas applied to the tangent
  bilinear rows    (mm, bmm, mv, dot, vdot, cross): J·(ta, tb) = f(ta, b) + f(a, tb)
  every other row  the backward formulas are linear in ``grad``, so J·t is the gradient of
                   <formulas(u), t> with respect to u (the double-vjp trick, run by the engine)
  declared rules   a row whose backward formulas are not differentiable (cdist: as in torch,
                   _cdist_backward has no derivative) declares its own (defop's ``jvp``)
Tangent computations record reverse-mode history like any op while grad mode is on, so
backward through a tangent works.
"""
import weakref
from collections import namedtuple

from .._autograd.grad_mode import enable_grad, state
from .._creation import zeros, zeros_like
from .._tensor import Tensor
from ..backend import backend_of, kind as _kind, may_share_memory, xp
from ..ops import registry
from ..ops.reduce import sum_to
from ..ops.registry import apply_inplace
from ..ops.shape import _alias, _view
from ..ops.views import view_geometry

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual",
           "unpack_dual", "dual_level"]

_current_level = -1
_UNSET = object()
_duals = []         # weak references to the tensors given a tangent at the current level


class UnpackedDualTensor(namedtuple("UnpackedDualTensor", ["primal", "tangent"])):
    """What unpack_dual returns: the primal (a view of the tensor) and its tangent (or None)."""
    __slots__ = ()


def enter_dual_level():
    """Enter the (single) forward AD level; returns its number."""
    global _current_level
    if _current_level >= 0:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _current_level = 0
    _LEVEL.inner, state.handler = state.handler, _LEVEL
    return _current_level


def exit_dual_level(*, level=None):
    """Leave the level: every tangent made at it is deleted."""
    global _current_level
    if level is None:
        level = _current_level
    if level != _current_level:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that "
                           "was created. This is not supported.")
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    for ref in _duals:
        t = ref()
        if t is not None and hasattr(t, "_fw"):
            del t._fw
    _duals.clear()
    _current_level = level - 1
    state.handler = _LEVEL.inner


class dual_level:
    """Context manager (and decorator) entering a forward AD level for its body."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with dual_level():
                return fn(*args, **kwargs)
        return wrapper


def make_dual(tensor, tangent, *, level=None):
    """A new view of ``tensor`` whose tangent is ``tangent`` (as is when it has the primal's
    layout, else a copy laid out like the primal)."""
    if level is None:
        level = _current_level
    if level < 0:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, "
                           "make sure to enter_dual_level() first.")
    if tensor.is_complex() or tangent.is_complex():
        raise NotImplementedError("forward-mode AD of complex tensors: glassgrad has no complex "
                                  "tangent rules (reverse mode supports complex tensors)")
    if not tensor.is_floating_point():
        raise ValueError(f"Expected primal to be floating point or complex, but got: "
                         f"{tensor.dtype}")
    if not tangent.is_floating_point():
        raise ValueError(f"Expected tangent to be floating point or complex, but got: "
                         f"{tangent.dtype}")
    if level != _current_level:
        raise RuntimeError("Invalid level given to _make_dual")
    if tangent_of(tensor) is not None:
        raise RuntimeError(f"Making a dual Tensor based on a Tensor that already has a forward "
                           f"gradient at the same level {level} is not supported.")
    if tangent.shape != tensor.shape:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the "
            "original Tensor, this is not supported. Tensor is of size "
            f"{list(tensor.shape)} while the given forward gradient is of size "
            f"{list(tangent.shape)}.")
    dual = _plain(_view, (tensor,), {"size": tuple(tensor.shape)})
    _set(dual, tangent)
    return dual


def unpack_dual(tensor, *, level=None):
    """(primal, tangent): the primal is a view of ``tensor`` without a tangent."""
    if level is None:
        level = _current_level
    if level < 0:
        return UnpackedDualTensor(tensor, None)
    if not isinstance(tensor, Tensor):
        raise TypeError(f"_unpack_dual(): argument 'dual' (position 1) must be Tensor, not "
                        f"{type(tensor).__name__}")
    tangent = tangent_of(tensor) if state.handler else None    # (a Function's forward: paused)
    if level != _current_level and tangent is not None:
        raise RuntimeError("Invalid level given to _fw_primal")
    primal = _plain(_alias, (tensor,), {})
    primal._fw = None
    return UnpackedDualTensor(primal, tangent)


# -- tangent storage ---------------------------------------------------------------------------
def tangent_of(t):
    """``t``'s tangent, or None. A view made before its base got one gets the same view of the
    base's tangent (PyTorch's lazy view forward grad)."""
    fw = getattr(t, "_fw", _UNSET)
    if fw is _UNSET and t._base is not None and t._view is not None:
        base_fw = getattr(t._base, "_fw", None)
        if base_fw is not None:
            fw = _view_of_tangent(t, base_fw)
            if fw is not None:
                _set(t, fw)
    return None if fw is _UNSET else fw


def _view_of_tangent(view, base_fw):
    """The tangent of ``view``: the same region of its base's tangent, which is laid out like
    the base (None where it is not)."""
    base_shape, base_strides, shape, strides, offset = view_geometry(view)
    b = base_fw._data
    if offset < 0 or b.shape != base_shape or b.strides != view._base._data.strides:
        return None
    it = b.itemsize
    strided = backend_of(b).as_strided
    start = strided(b, (offset + 1,), (it,))[offset:]
    window = strided(start, shape, tuple(st * it for st in strides))
    t = Tensor._make(window, counter=base_fw._version_counter)
    t._base = base_fw if base_fw._base is None else base_fw._base
    return t


def _set(t, tangent):
    """Give ``t`` its tangent (registered with the level, which deletes it on exit)."""
    if tangent._data.strides != t._data.strides and tangent._data.size > 1:
        tangent = _laid_out_like(t, tangent)
    t._fw = tangent
    _duals.append(weakref.ref(t))


def _laid_out_like(t, tangent):
    """A copy of ``tangent`` with ``t``'s memory layout (so t's views apply to it)."""
    out = xp.empty_like(t._data, dtype=tangent._data.dtype)
    xp.copyto(out, tangent._data)
    return Tensor._make(out)


def _plain(op, values, attrs):
    """Run ``op`` without forward AD."""
    prev, state.handler = state.handler, None
    try:
        return op(*values, **attrs)
    finally:
        state.handler = prev


# -- propagation (called by OpDef.__call__, apply_inplace, the in-place view ops) ------------
class _Level:
    """The interceptor of the active level (``state.handler`` while it is the innermost)."""
    inner = None

    def handle_call(self, op, values, attrs):
        return call(op, values, attrs, self.inner)

    def handle_inplace(self, op, t, values, attrs, overlap):
        return inplace(op, t, values, attrs, overlap, self.inner)

    def handle_view_inplace(self, op, t, attrs):
        view_inplace(op, t, attrs)
        if self.inner is not None:
            self.inner.handle_view_inplace(op, t, attrs)


_LEVEL = _Level()


def call(op, values, attrs, inner):
    """OpDef.__call__ while a level is active: the op (through the ``inner`` interceptor, if
    any), then its outputs' tangents (computed without interception)."""
    prev = state.handler
    try:
        state.handler = inner
        out = op(*values, **attrs)
        state.handler = None
        tangents = _input_tangents(op, values)
        if tangents is not None:
            results = tuple(out) if op.multi else (out,)
            n = len(results) if op.outputs is None else op.diff_outputs
            if results and _kind(results[0]._data.dtype) in "fc":
                values = tuple(_primal(v) for v in values)
                new = _rule(op)(op, values, attrs, tangents, results, n)
                for r, t in zip(results[:n], new):
                    if t is not None:
                        _set_result(r, t, tangents, op.view)
        return out
    finally:
        state.handler = prev


def inplace(op, self, values, attrs, overlap, inner):
    """apply_inplace while a level is active: the tangent of ``self`` is updated in place
    (created, as a view of its base's tangent for a view, when it had none)."""
    tangents = _input_tangents(op, values)
    prev, state.handler = state.handler, inner
    try:
        if tangents is None:
            return apply_inplace(op, self, values, attrs, overlap)
        old = Tensor._make(self._data.copy())      # what the formulas see as ``self``
        apply_inplace(op, self, values, attrs, overlap)
        state.handler = None
        values = tuple(old if v is self else _primal(v) for v in values)
        new = _rule(op)(op, values, attrs, tangents, (self,), 1)[0]
        if new is not None:
            _write(self, new)
        return self
    finally:
        state.handler = prev


def view_inplace(op, self, attrs):
    """t_, transpose_, squeeze_, unsqueeze_: the tangent takes the same new geometry."""
    fw = getattr(self, "_fw", None)
    if fw is not None:
        fw._data = op.kernel((fw._data,))(fw._data, **attrs)
        fw._version_counter.version += 1


def function_jvp(cls, ctx, args, result):
    """A custom Function's outputs get the tangents its ``jvp`` staticmethod returns (given
    each tensor input's tangent, zeros for none, None for a non-tensor)."""
    saved, ctx.saved_for_forward = getattr(ctx, "saved_for_forward", None), None
    tangents = [tangent_of(a) if isinstance(a, Tensor) else None for a in args]
    if all(t is None for t in tangents):
        return
    grads = [t if t is not None else zeros_like(a) if isinstance(a, Tensor) else None
             for a, t in zip(args, tangents)]
    outs = result if isinstance(result, tuple) else (result,)
    prev, state.handler = state.handler, None
    ctx._jvp_saved = tuple(None if s is None else _primal(s, True) for s in saved or ())
    try:
        out_t = cls.jvp(ctx, *grads)
    finally:
        ctx._jvp_saved = None
        state.handler = prev
    out_t = out_t if isinstance(out_t, tuple) else (out_t,)
    if len(out_t) != len(outs):
        raise RuntimeError(f"Function's jvp returned an invalid number of forward gradients "
                           f"(expected {len(outs)} but got {len(out_t)})")
    for i, (o, t) in enumerate(zip(outs, out_t)):
        if t is not None and not isinstance(t, Tensor):
            raise RuntimeError(f"expected Variable or None (got {type(t).__name__}) for grad "
                               f"output {i}.")
        if t is not None and isinstance(o, Tensor) and o.is_floating_point():
            _set_result(o, t, [x for x in tangents if x is not None], False)


def _primal(v, always=False):
    """``v`` as formulas see it: without a tangent, now or later (a differentiable alias of it
    when its history records, so that backward through a tangent reaches it)."""
    if not always and getattr(v, "_fw", None) is None:
        return v
    if state.grad and v.requires_grad:
        p = _alias(v)
    else:
        p = v.detach()
    p._fw = None        # set, unlike a tensor's unset slot: never a view's lazy tangent
    return p


def _input_tangents(op, values):
    """The tangent of each differentiable input (None for none), or None when none has one."""
    if not op.differentiable or state.inference:    # inference mode: no forward AD either
        return None
    found = False
    tangents = []
    for i in (range(len(values)) if op.variadic else op.diff):
        v = values[i]
        t = tangent_of(v) if isinstance(v, Tensor) else None
        found = found or t is not None
        tangents.append(t)
    return tangents if found else None


def _set_result(r, t, tangents, view):
    """``t`` becomes the tangent of the output ``r``: in r's dtype and shape, and (but for a
    view, whose tangent is a view) sharing no memory with an input's tangent."""
    if t.dtype is not r.dtype:
        t = t.to(r.dtype)
    if t._data.shape != r._data.shape:
        t = t.expand(r.shape).clone()
    elif not view and any(x is not None and may_share_memory(t._data, x._data)
                          for x in tangents):
        t = t.clone()
    _set(r, t)


def _write(self, new):
    """Write ``new`` into the tangent of ``self`` (made first, zeros, when it has none)."""
    fw = tangent_of(self)
    if fw is None and self._base is not None and self._view is not None and \
            getattr(self._base, "_fw", None) is None:
        base = self._base
        _set(base, _zeros_like(base))
        fw = tangent_of(self)
    if fw is None:
        _set_result(self, new, (), False)
        return
    xp.copyto(fw._data, new._data, casting="unsafe")
    fw._version_counter.version += 1


def _zeros_like(t):
    return Tensor._make(xp.zeros_like(t._data))


# -- the rules ---------------------------------------------------------------------------------
# rows linear in their differentiable inputs (views are too): J·t is the row on the tangents
LINEAR = {
    "SumBackward0", "SumBackward1", "MeanBackward0", "MeanBackward1", "CloneBackward0",
    "UnsafeViewBackward0", "ToCopyBackward0", "SqueezeBackward4", "NegBackward0",
    "StackBackward0", "CatBackward0", "FlipBackward0", "RollBackward0", "Rot90Backward0",
    "RepeatBackward0", "IndexBackward0", "IndexPutBackward0", "GatherBackward0",
    "ScatterBackward0", "ScatterAddBackward0", "IndexSelectBackward0", "IndexAddBackward0",
    "IndexCopyBackward0", "MaskedSelectBackward0", "MaskedScatterBackward0", "TakeBackward0",
    "DiagonalBackward0_copy", "DiagEmbedBackward0", "TraceBackward0", "TrilBackward0",
    "TriuBackward0", "CumsumBackward0", "AddBackward0", "SubBackward0", "RsubBackward0",
    "ZeroBackward0", "CopyBackwards", "CopySlices", "SelectBackwardBackward0",
    "SliceBackwardBackward0", "DiagonalBackwardBackward0", "ReflectionPad1DBackward0",
    "ReflectionPad2DBackward0", "ReflectionPad3DBackward0", "ReplicationPad1DBackward0",
    "ReplicationPad2DBackward0", "ReplicationPad3DBackward0",
}
# elementwise rows: J is diagonal, so J·t is the backward formulas applied to the tangent
POINTWISE = {
    "AddBackward1", "RsubBackward1", "MulBackward0", "DivBackward0", "DivBackward2",
    "PowBackward0", "PowBackward1", "PowBackward2", "AbsBackward0", "SignBackward0",
    "ExpBackward0", "LogBackward0", "SqrtBackward0", "SinBackward0", "CosBackward0",
    "TanhBackward0", "SigmoidBackward0", "ReciprocalBackward0", "ReluBackward0",
    "RemainderBackward0", "RemainderBackward1", "FmodBackward0", "FmodBackward1",
    "Exp2Backward0", "Expm1Backward0", "Log2Backward0", "Log10Backward0", "Log1PBackward0",
    "RsqrtBackward0", "TanBackward0", "AsinBackward0", "AcosBackward0", "AtanBackward0",
    "SinhBackward0", "CoshBackward0", "AsinhBackward0", "AcoshBackward0", "AtanhBackward0",
    "AsinhBackward1", "AcoshBackward1", "AtanhBackward1", "ErfBackward0", "ErfcBackward0",
    "ErfinvBackward0", "FracBackward0", "SgnBackward0", "FloorBackward0", "CeilBackward0",
    "TruncBackward0", "RoundBackward0", "RoundBackward1", "LogitBackward0",
    "NanToNumBackward0", "Atan2Backward0", "MaximumBackward0", "MinimumBackward0",
    "FmaxBackward0", "FminBackward0", "HypotBackward0", "LogaddexpBackward0",
    "XlogyBackward0", "XlogyBackward1", "XlogyBackward2", "LerpBackward0", "LerpBackward1",
    "AddcmulBackward0", "AddcdivBackward0", "HardtanhBackward0", "LeakyReluBackward0",
    "LeakyReluBackward1", "EluBackward0", "EluBackward1", "CeluBackward0", "CeluBackward1",
    "GeluBackward0", "SoftplusBackward0", "SiluBackward0", "MishBackward0",
    "HardsigmoidBackward0", "HardswishBackward0", "WhereBackward0", "ClampBackward0",
    "ClampBackward1", "ClampMinBackward0", "ClampMinBackward1", "ClampMaxBackward0",
    "ClampMaxBackward1", "MaskedFillBackward0",
}
# rows bilinear in their two differentiable inputs
BILINEAR = {"MmBackward0", "MvBackward0", "DotBackward0", "BmmBackward0", "VdotBackward0",
            "LinalgCrossBackward0"}
_rules = {}


def _rule(op):
    rule = _rules.get(op)
    if rule is None:
        rule = _rules[op] = (_declared if op.jvp is not None else
                             _linear if op.view or op.name in LINEAR else
                             _pointwise if op.name in POINTWISE else
                             _bilinear if op.name in BILINEAR else generic)
    return rule


def _declared(op, values, attrs, tangents, results, n):
    """A row's own rule (defop's ``jvp``)."""
    return [op.jvp(tangents, *values, _primal(results[0], True), **attrs)]


def _linear(op, values, attrs, tangents, results, n):
    args = list(values)
    for i, t in zip(range(len(values)) if op.variadic else op.diff, tangents):
        v = values[i]
        args[i] = t if t is not None else zeros_like(v) if hasattr(v, "_data") else 0
    out = op(*args, **attrs)
    return list(out)[:n] if op.multi else [out]


def _pointwise(op, values, attrs, tangents, results, n):
    shape = results[0].shape
    total = None
    for (formula, names), t in zip(op.formulas, tangents):
        if t is not None:
            term = formula(t if t.shape == shape else t.expand(shape),
                           *_saved(op, names, values, attrs, results))
            total = term if total is None else total + term
    return [total]


def _bilinear(op, values, attrs, tangents, results, n):
    total = None
    for i, t in zip(op.diff, tangents):
        if t is not None:
            args = list(values)
            args[i] = t
            term = op(*args, **attrs)
            total = term if total is None else total + term
    return [total]


def generic(op, values, attrs, tangents, results, n):
    """J·t for any row from its backward formulas: they are linear in ``grad`` (u), so the
    gradient of <formulas(u), t> with respect to u is J·t."""
    from .. import autograd
    create = state.grad
    if not create:      # nothing records: the formulas need not see the primals' history
        values = tuple(v.detach() if hasattr(v, "_data") else v for v in values)
        results = tuple(r.detach() for r in results)
    with enable_grad():
        us = [zeros(r.shape, dtype=r.dtype, requires_grad=True) for r in results[:n]]
        grad = us if op.multi_grads else us[0]
        if op.variadic:
            formula, names = op.formulas[0]
            grads = formula(grad, *_saved(op, names, values, attrs, results))
            pairs = zip(grads, values, tangents)
        else:
            pairs = [(formula(grad, *_saved(op, names, values, attrs, results)), values[i], t)
                     for (formula, names), i, t in zip(op.formulas, op.diff, tangents)
                     if t is not None]
        total = None
        for g, v, t in pairs:
            if g is not None and t is not None:
                term = (sum_to(g, v.shape) * t).sum()
                total = term if total is None else total + term
        if total is None or not total.requires_grad:
            return [zeros(r.shape, dtype=r.dtype) for r in results[:n]]
        jts = autograd.grad(total, us, allow_unused=True, create_graph=create)
    return [jt if jt is not None else zeros(r.shape, dtype=r.dtype)
            for jt, r in zip(jts, results)]


def _saved(op, names, values, attrs, results):
    """The arguments a row's formula takes (its save list), from the call itself."""
    args = []
    for name in names:
        if name in attrs:
            args.append(attrs[name])
            continue
        kind, i = op._save_kind(name)
        args.append(_primal(results[i], True) if kind == registry._SAVE_OUTPUT else
                    values[i]._data.shape if kind == registry._SAVE_SIZES else
                    values[i]._data.size if kind == registry._SAVE_NUMEL else
                    values[i] if kind == registry._SAVE_INPUT else
                    tuple(values) if kind == registry._SAVE_ALL_INPUTS else
                    tuple(v._data.shape for v in values) if kind == registry._SAVE_ARGS_SIZES else
                    tuple(v.dtype for v in values) if kind == registry._SAVE_ARGS_TYPES else
                    attrs[name])
    return args
