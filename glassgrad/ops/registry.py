"""defop(): the one place that runs an op, records its node, saves what its formulas need,
shares storage for views and rewires history for in-place variants.

An op is one row: a forward on arrays (handed the array namespace first), and for each
differentiable input a backward formula written with glassgrad ops. A formula's parameter
names are its save list:
  grad            the incoming gradient
  result          the op's output (saved without its grad_fn: no reference cycle)
  <input name>    an input tensor (a Python number in a tensor slot is kept as is)
  <input>_sym_sizes, <input>_sym_numel, <attr>   metadata kept by value (never freed)
  <output name>   another output of a multi-output op (e.g. ``indices`` of max)
Only formulas of inputs that need grad are consulted, so only their names are saved (but
outputs, as in PyTorch, whenever any formula of the op uses them; and like PyTorch's
should_compute_output guard, an input one formula of several uses is saved only when that
formula's edge is valid: see _paths.saves).

Multi-output ops name their outputs (``outputs=("result", "indices")``, the first
``diff_outputs`` of them differentiable) or return a list (``outputs=None``: any number, all
differentiable); their formulas take ``grads`` (one per differentiable output, zeros where none
arrived) instead of ``grad``. A variadic op takes ``inputs=("*tensors",)``: its one formula
returns a gradient per tensor, and ``tensors_args_sizes`` saves their shapes.
"""
import inspect
import re
import weakref
from collections import namedtuple
from functools import partial

from .. import dtypes
from .._tensor import Tensor
from .._autograd.grad_mode import state
from .._autograd.provenance import bumped as _bumped, site_above as _site_above
from .._autograd import explain_hook
from .._autograd.node import Node, move_retains_grad
from .._autograd.saved import RawSavedTensor, SavedTensor, freed
from .._creation import tensor, zeros
from ..backend import namespace_of as _namespace_of, data_ptr, may_share_memory, ndarray, \
    reduced_floats, xp, xp_of as _xp_of
from .dispatch import DtypeCache, computing, narrowing
from ._paths import (NOT_SAVED as _NOT_SAVED, SAVE_ALL_INPUTS as _SAVE_ALL_INPUTS,
                     SAVE_ARGS_SIZES as _SAVE_ARGS_SIZES, SAVE_ARGS_TYPES as _SAVE_ARGS_TYPES,
                     SAVE_INPUT as _SAVE_INPUT, SAVE_NUMEL as _SAVE_NUMEL,
                     SAVE_OUTPUT as _SAVE_OUTPUT, SAVE_SIZES as _SAVE_SIZES, path_functions,
                     saves)
from .views import DEFAULT, SELF_OVERLAP_MESSAGE, CopySlices, view_geometry, view_rebase_error

_FREED = object()
_FREED_ONE = (_FREED,)
_FROM_NP = dtypes._FROM_NP
_ARRAY_TYPES = (ndarray, xp.generic)     # what array-mode formulas hand OpDef.call
TABLE = []          # every OpDef, in definition order (docs/ops.md is generated from it)


class _Scalar:
    """A Python number that sat in a tensor slot (PyTorch wraps it as a 0-d tensor), as
    OpNode._tensors shows it to the glass box (a node keeps the number itself)."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def _batched(grads):
    """Whether a gradient OpNode.apply got is batched (func.vmap's BatchedTensor)."""
    for g in grads:
        if g is not None and g._batched:
            return True
    return False


class OpNode(Node):
    """Backward node of a defop row; one subclass per row, named like PyTorch's.

    ``_saved``: one value per name of ``op.saved_order`` (_NOT_SAVED: an input whose formula
    does not run): a SavedTensor, a Python number that sat in a tensor slot, a tuple of
    SavedTensors (variadic), or metadata and attrs as they are. release() replaces the tensor
    slots (``op.slots``) by _FREED."""
    __slots__ = ("_saved",)
    op = None

    def apply(self, grads):
        """The formulas on tensors. Without a graph to record, a row whose formulas take arrays
        runs them on arrays, unless a gradient is batched (func.vmap's BatchedTensor, whose
        values only its rules read): then on tensors, with grad mode as the engine set it
        (create_graph), so nothing is recorded that no one asked for."""
        op = self.op
        if op.arrays and not state.grad and not _batched(grads):
            return [None if g is None else Tensor._make(xp.asarray(g)) for g in
                    self._formulas([None if g is None else g._data for g in grads])]
        if op.multi_grads:      # formulas see every output's gradient, zeros where none came
            grad = grads if op.undefined_grads else [
                g if g is not None else _zeros(shape, dtype)
                for g, (shape, dtype) in zip(grads, self._input_metadata)]
        else:
            grad = grads[0]
        if op.variadic:
            formula, names = op.formulas[0]
            out = list(formula(grad, *[self._value(n) for n in names]))
            return [g if edge is not None else None
                    for g, edge in zip(out, self._next[::2])]
        return self._formulas((grad,), False)

    def _formulas(self, grads, arrays=True):
        """The formulas on NumPy arrays for gradients and saved tensors: a row whose formulas
        take arrays (OpDef.arrays) has this as its apply_arrays: no Tensor is built, no op
        recorded. (arrays=False: the same with tensors, apply()'s one-output case.)"""
        grad = grads[0]
        op = self.op
        values = self._saved
        plan = op.unpack_plan
        if plan is not None:    # one formula, one saved tensor slot: no copy, no loops
            formula, k, other, first = plan
            v = values[k]
            if type(v) is SavedTensor:  # unpacked (and checked) even when no edge needs it
                v = v.unpack_data(self) if arrays else v.unpack(self)
            elif v is _FREED:
                raise freed(self)
            if self._next[0] is None:
                return [None]
            if other is None:
                return [formula(grad, v)]
            return [formula(grad, v, values[other]) if first else formula(grad, values[other], v)]
        if op.slots:
            values = list(values)
            for k in op.slots:      # like PyTorch, unpack (and check) each saved tensor once,
                v = values[k]       # before any formula runs
                if type(v) is SavedTensor:
                    values[k] = v.unpack_data(self) if arrays else v.unpack(self)
                elif v is _FREED:
                    raise freed(self)
        out = []
        for (formula, index), edge in zip(op.formula_index, self._next[::2]):
            if edge is None:     # this input needs no gradient
                out.append(None)
            elif len(index) == 1:   # (the common arities without building a list)
                out.append(formula(grad, values[index[0]]))
            elif len(index) == 2:
                out.append(formula(grad, values[index[0]], values[index[1]]))
            else:
                out.append(formula(grad, *[values[k] for k in index]))
        return out

    def _value(self, name):
        k = self.op.saved_index[name]
        v = self._saved[k]
        if v is _FREED:
            raise freed(self)
        if type(v) is tuple and k in self.op.slots:     # a variadic op's saved inputs
            return tuple(x.unpack(self) for x in v)
        return v.unpack(self) if type(v) is SavedTensor else v

    def release(self):
        slots = self.op.slots
        if slots:
            saved = self._saved
            if len(saved) == 1:     # the one saved value is the one slot (sin's self)
                if saved[0] is not _NOT_SAVED:
                    self._saved = _FREED_ONE
                return
            saved = list(saved)
            for k in slots:
                if saved[k] is not _NOT_SAVED:
                    saved[k] = _FREED
            self._saved = tuple(saved)

    @property
    def _attrs(self):
        """The saved metadata and attrs by name (for the glass box)."""
        op = self.op
        return {n: v for k, (n, v) in enumerate(zip(op.saved_order, self._saved))
                if k not in op.slots}

    @property
    def _tensors(self):
        """The saved tensor slots by name (for the glass box): SavedTensor, a tuple of them,
        _FREED, or a _Scalar for a Python number."""
        op = self.op
        out = {}
        for k in op.slots:
            v = self._saved[k]
            if v is not _NOT_SAVED:
                out[op.saved_order[k]] = (v if v is _FREED or type(v) in (SavedTensor, tuple)
                                          else _Scalar(v))
        return out

    def __dir__(self):
        raw = (n for n, kind, _, _ in self.op._save_plan
               if kind in (_SAVE_INPUT, _SAVE_OUTPUT, _SAVE_ALL_INPUTS))
        return sorted({*super().__dir__(), *("_saved_" + n for n in self.op.saved_names),
                       *("_raw_saved_" + n for n in raw)})

    def __getattr__(self, name):
        if name.startswith("_raw_saved_"):
            return self._raw_saved(name)
        key = name[7:] if name.startswith("_saved_") else None
        op = self.op
        if key not in op.saved_names:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        k = op.saved_index[key]
        v = self._saved[k]
        if v is _NOT_SAVED:
            return None
        if k not in op.slots or v is None:
            return v
        if v is _FREED:
            raise freed(self)
        if type(v) not in (SavedTensor, tuple):   # a number in a tensor slot: torch wraps it as a
            # 0-d tensor (floats as float64)
            return tensor(v, dtype=dtypes.float64 if isinstance(v, float) else None)
        return self._value(key)

    def _raw_saved(self, name):
        """grad_fn._raw_saved_<name>: the saved tensor itself (torch exposes tensors only)."""
        key = name[11:]
        if key in self._attrs or not any(
                n == key and kind in (_SAVE_INPUT, _SAVE_OUTPUT, _SAVE_ALL_INPUTS)
                for n, kind, _, _ in self.op._save_plan):
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        v = self._tensors.get(key)
        if type(v) is _Scalar:      # a wrapped number: its 0-d tensor
            wrapped = SavedTensor(getattr(self, "_saved_" + key), False)
            return RawSavedTensor(lambda: wrapped)
        if type(v) is tuple:
            return [RawSavedTensor(lambda i=i: self._raw_get(key, i)) for i in range(len(v))]
        return RawSavedTensor(lambda: self._raw_get(key))

    def _raw_get(self, key, i=None):
        v = self._tensors.get(key)
        return RawSavedTensor.FREED if v is _FREED else v if i is None else v[i]


# A row's formulas are written as the real derivative (grad * f'(x)). A node with complex
# outputs (so complex gradients) is made of the row's conjugating class: torch's convention, the
# conjugate Wirtinger derivative grad * conj(f'(z)), is conj(formula(conj(grad))) (rows with
# wirtinger=False write torch's complex formulas themselves). Real nodes pay nothing for it.
def _conj_formulas(self, grads):
    return _conj_all(OpNode._formulas(self, _conj_all(grads)))


def _conj_apply(self, grads):
    return _conj_all(OpNode.apply(self, _conj_all(grads)))


def _conj_all(grads):
    """Each gradient conjugated (a differentiable conj_physical for tensors)."""
    return [g if g is None else g.conj_physical() if isinstance(g, Tensor) else xp.conj(g)
            for g in grads]


def _formula_names(fn):
    names = tuple(inspect.signature(fn).parameters)
    assert names[0] in ("grad", "grads"), fn
    return names[1:]


class OpDef:
    """One row of the op table."""
    # float16/bfloat16 rows whose ATen kernel reads a Python number operand in float32
    # unrounded (mul, div: original_scalar_value), see dispatch.narrowing
    opmath_scalars = False
    # float16/bfloat16 operands computed in float32 (``opmath`` and the kernel's own type
    # rule, see DtypeCache.decide); set with the first kernel (see call)
    in_float32 = False
    # attrs such a row's kernel rounds to the float16/bfloat16 dtype first (add's alpha,
    # pow's exponent): the forward sees them rounded, the formulas as given
    narrow_attrs = ()

    def __init__(self, node_name, forward, inputs, grads, dtype_rule, view, promote, outputs,
                 diff_outputs, arrays, fast_attr, jvp=None, explain=None, public=None,
                 variants=(), aliases=(), undefined_grads=False, wirtinger=True):
        self.name = node_name
        self.wirtinger = wirtinger  # formulas are real derivatives: conjugated for complex
        self.explain = explain    # the derivative in words, for the glass box (see defop)
        self.public = public        # the op's public name, where the row declares variants
        self.variants = variants    # where glassgrad.ops.publish puts it (see defop)
        self.aliases = aliases
        self.jvp = jvp
        self.promote = promote
        # forward: a function (xp, *arrays, **attrs), or the name of the namespace function
        # that is the forward ("multiply"); kernels: the forward bound to an array type's
        # namespace (a ufunc itself for a name: no Python frame per call)
        self.fname = forward if isinstance(forward, str) else None
        self.forward = (forward if self.fname is None else
                        lambda xp, *arrays, **attrs: getattr(xp, self.fname)(*arrays, **attrs))
        self.kernels = {}
        self.variadic = inputs[0].startswith("*")
        self.inputs = (inputs[0][1:],) if self.variadic else inputs
        self.dtype_rule = dtype_rule
        self.view = view
        self.outputs = outputs           # None: a list of any length, all differentiable
        self.diff_outputs = diff_outputs
        self.multi = outputs is None or len(outputs) > 1
        self.multi_grads = outputs is None or diff_outputs > 1
        self.undefined_grads = undefined_grads  # formulas see None, not zeros (see defop)
        grads = grads or {}
        # inputs without a formula (e.g. where's condition) get no edge, as in PyTorch
        self.diff = tuple(i for i, name in enumerate(self.inputs) if name in grads)
        self.formulas = tuple((grads[self.inputs[i]], _formula_names(grads[self.inputs[i]]))
                              for i in self.diff)
        self.differentiable = bool(grads)
        self.saved_names = {n for _, names in self.formulas for n in names}
        # the formulas also run on NumPy arrays when grad mode is off (a backward without
        # create_graph): the engine then skips Tensors and op dispatch (OpNode.apply_arrays)
        self.arrays = arrays and not self.multi_grads and not self.variadic
        self.node_cls = type(node_name, (OpNode,), {
            "__slots__": (), "op": self,
            "apply_arrays": OpNode._formulas if self.arrays else Node.apply_arrays})
        self._wirtinger_cls = (type(node_name, (self.node_cls,), {
            "__slots__": (), "apply": _conj_apply,
            "apply_arrays": _conj_formulas if self.arrays else Node.apply_arrays})
            if wirtinger else None)
        # the same node for a call whose gradient provably keeps its input's shape and dtype
        # (see attach): the engine skips _validate for it
        self._exact_cls = (type(node_name, (self.node_cls,), {"__slots__": (), "_exact": True})
                           if self.arrays and not self.multi else None)
        # the fast path: dtype decisions cached per operand kinds (ops/dispatch.py); fast_attr:
        # a callable dtype rule that depends only on the operands' dtypes and the type of this
        # attr, a Python number (pow's exponent), or its value, a dtype or None (sum's dtype)
        self._dtype_cache = (DtypeCache(self, fast_attr, broadcast_shapes) if (
            not self.variadic and promote is None and (
                fast_attr is not None or dtype_rule in ("promote", "float", "bool"))) else None)
        self.prepare = (self.slow_prepare if self._dtype_cache is None else
                        self._dtype_cache.prepare)
        self._single_diff = self.diff[0] if len(self.diff) == 1 and not self.variadic else None
        self._diff_all = self.diff == tuple(range(len(self.inputs)))
        self._pair = self.diff == (0, 1) and len(self.inputs) == 2 and not self.variadic
        self._plan_saves()
        TABLE.append(self)

    def __getattr__(self, name):
        """The row's call path, generated from this entry (ops/_paths.py) when the row is
        first used: its ``__call__`` (every op call: the forward, its outputs wrapped as
        tensors, the node recorded) on a class of its own, and as the instance's attributes
        needs(values), which differentiable inputs require grad (None: none); edges(values,
        needs), the node's next_functions (each needed input's gradient edge); and
        attach(results, values, attrs, needs, saved_self=None, edges=None), which makes the
        node and saves what its formulas use."""
        if name not in ("needs", "edges", "attach"):
            raise AttributeError(f"'OpDef' object has no attribute '{name}'")
        self._generate()
        return getattr(self, name)

    def _generate(self):
        call, self.needs, self.edges, self.attach = path_functions(self)
        self.__class__ = type("OpDef", (OpDef,), {"__call__": call, "__slots__": (),
                                                  "__module__": __name__})

    def _plan_saves(self):
        """The node's saved values: (name, kind, index, the formulas that use it), in PyTorch's
        save order (inputs by name, then outputs by name: what saved-tensor pack hooks see);
        which of them are tensor slots (freed by release()), each formula's indices into them."""
        users = {}
        for j, (_, names) in enumerate(self.formulas):
            for n in names:
                users.setdefault(n, []).append(j)
        self._save_plan = tuple(sorted(
            ((n, *self._save_kind(n), tuple(js)) for n, js in users.items()),
            key=lambda e: (e[1] is _SAVE_OUTPUT, e[0])))
        self.saved_order = tuple(n for n, _, _, _ in self._save_plan)
        self.saved_index = {n: k for k, n in enumerate(self.saved_order)}
        self.formula_index = tuple((fn, tuple(self.saved_index[n] for n in names))
                                   for fn, names in self.formulas)
        self.slots = tuple(k for k, (_, kind, _, _) in enumerate(self._save_plan)
                           if kind in (_SAVE_OUTPUT, _SAVE_INPUT, _SAVE_ALL_INPUTS))
        self._formula_attrs = tuple(n for n, kind, _, _ in self._save_plan if kind is None)
        # _formulas' plan for a row with one formula whose arguments are one tensor slot
        # and at most one other saved value (sin's self; pow's self and exponent):
        # (formula, the slot, the other's index or None, whether the slot comes first)
        self.unpack_plan = None
        if len(self.formulas) == 1 and not self.variadic and len(self.slots) == 1:
            fn, index = self.formula_index[0]
            k = self.slots[0]
            if index == (k,):
                self.unpack_plan = (fn, k, None, True)
            elif len(index) == 2 and k in index:
                self.unpack_plan = (fn, k, index[1 - index.index(k)], index[0] == k)

    def _save_kind(self, n):
        if self.outputs is not None and n in self.outputs:
            return _SAVE_OUTPUT, self.outputs.index(n)
        if self.variadic:
            kinds = {"": _SAVE_ALL_INPUTS, "_args_sizes": _SAVE_ARGS_SIZES,
                     "_args_scalartypes": _SAVE_ARGS_TYPES}
            suffix = n[len(self.inputs[0]):] if n.startswith(self.inputs[0]) else None
            if suffix in kinds:
                return kinds[suffix], None
        if n.endswith("_sym_sizes") and n[:-10] in self.inputs:
            return _SAVE_SIZES, self.inputs.index(n[:-10])
        if n.endswith("_sym_numel") and n[:-10] in self.inputs:
            return _SAVE_NUMEL, self.inputs.index(n[:-10])
        if n in self.inputs:
            return _SAVE_INPUT, self.inputs.index(n)
        return None, None      # only ever an attr of the call (a KeyError-like miss otherwise)

    # -- forward -----------------------------------------------------------------------------
    # prepare(values, attrs): arrays (or Python numbers) for the forward, and the result dtype;
    # the row's DtypeCache.prepare (set in __init__), or slow_prepare for rows without one

    def slow_prepare(self, values, attrs):
        """prepare() by the dtype rule itself, every call: the reference the cache agrees with."""
        rule = self.dtype_rule
        if rule == "same":
            return [v._data if isinstance(v, Tensor) else v for v in values], None
        _check_operands(self.name, values)
        if len(values) > 1 and not self.variadic:     # sized before typed, as in torch
            shapes = [getattr(v, "_data", v).shape for v in values
                      if isinstance(v, (Tensor, ndarray))]
            if any(s != shapes[0] for s in shapes):
                broadcast_shapes(*shapes)
        if callable(rule):
            want = rule(values, attrs)
        else:
            want = dtypes.result_type(
                *(values if self.promote is None else [values[i] for i in self.promote]))
        if rule == "float" and not want.is_floating_point and not want.is_complex:
            want = dtypes.get_default_dtype()
        npd = computing(want, self.opmath) if rule != "bool" else want.np
        if self.fname is not None and not self.opmath_scalars:
            npd = want.np   # one NumPy ufunc: its own half loop rounds once, as torch's
        narrow = narrowing(self, want, npd)
        arrays = [_operand(v, npd, narrow) if self.promote is None or i in self.promote
                  else getattr(v, "_data", v) for i, v in enumerate(values)]
        return arrays, (dtypes.bool if rule == "bool" else want)

    def __call__(self, /, *values, **attrs):     # '/': an attr may be called 'self'
        """The row's first call: from then on the row's class has its generated call path
        (see __getattr__)."""
        self._generate()
        return self(*values, **attrs)

    def kernel(self, arrays):
        """The forward bound to the namespace of ``arrays`` (see _xp_of), kept in
        ``kernels`` by the first array's type when that type alone decides it."""
        # (decided here, before ``call`` can find a kernel: the class attrs are set by now)
        self.in_float32 = bool(self.opmath) and self.dtype_rule != "bool" and (
            self.fname is None or self.opmath_scalars)
        ns = _xp_of(arrays)
        kernel = partial(self.forward, ns) if self.fname is None else getattr(ns, self.fname)
        if arrays and _namespace_of(arrays[0]) is not None:     # (a NumPy scalar's too)
            self.kernels[type(arrays[0])] = kernel
        return kernel

    def call(self, /, *values, **attrs):
        """The row as a backward formula calls it, in either of the engine's modes: on NumPy
        arrays or scalars (OpNode.apply_arrays: grad mode off) its forward alone, on tensors
        the op. float16 and bfloat16 arrays of a row that computes them in float32 (opmath)
        go through the op, so that both modes round alike."""
        v = values[0]
        kernel = self.kernels.get(type(v))
        if kernel is None:
            if isinstance(v, Tensor):
                return self(*values, **attrs)
            kernel = self.kernel(values)
            if self.in_float32 and getattr(v, "dtype", None) in self.opmath:
                return self._through_op(values, attrs)
        elif self.in_float32 and v.dtype in self.opmath:    # (a kernel's type has a dtype)
            return self._through_op(values, attrs)
        return kernel(*values, **attrs)

    def _through_op(self, values, attrs):
        """call() on arrays as the op computes them (on tensors; grad mode is off)."""
        out = self(*[Tensor._make(xp.asarray(a)) if isinstance(a, _ARRAY_TYPES) else a
                     for a in values], **attrs)
        return [t._data for t in out] if isinstance(out, (tuple, list)) else out._data

    # -- graph -------------------------------------------------------------------------------
    def _edges_first(self, values):
        """The op failed: PyTorch collects its inputs' edges before its kernel runs, so a view
        whose grad_fn cannot be regenerated (made under no_grad, its base since modified)
        refuses first."""
        if state.grad and self.differentiable:
            needs = self.needs(values)
            if needs is not None:
                self.edges(values, needs)


def defop(name, forward, inputs=("self",), grads=None, dtype="promote", view=False,
          promote=None, outputs=("result",), diff_outputs=1, arrays=False, fast_attr=None,
          jvp=None, explain=None, node=None, variants=(), aliases=(), undefined_grads=False,
          row_major=False, opmath=True, wirtinger=True):
    """Declare an op row. name: the op's public name where it declares ``variants`` (then its
    node is ``node``, by default PyTorch's regular name: log1p -> Log1PBackward0), else the
    node's name. variants, as native_functions.yaml's: "function" (glassgrad.<name>), "method"
    (Tensor.<name>), "inplace" (Tensor.<name>_), "inplace_function" (glassgrad.<name>_);
    aliases: other names with the same variants (arcsin for asin). forward(xp, *arrays,
    **attrs): the array namespace (handed by the registry, see _xp_of), then the inputs' arrays;
    or, for a forward that is one namespace function of the inputs alone, its name ("sin").
    dtype: 'promote' (torch.result_type), 'float' (promote, then the default float for
    integers), 'bool' (comparisons), 'same' (no promotion), or a function (values, attrs) ->
    dtype; promote: the indices of the inputs that take part in promotion (default: all).
    arrays: the formulas also work on NumPy arrays (grad, saved tensors) whenever grad mode is
    off: they use operators and call rows through OpDef.call, never Tensor-only methods.
    fast_attr: a callable dtype depends only on the operands' dtypes and this attr's type (a
    Python number) or value (a dtype, or None): decisions are then cached like the named
    rules'. jvp: the row's own forward-mode rule, for a row whose tangent forward_ad cannot
    derive from it:
    jvp(tangents, *inputs, result, **attrs) -> the result's tangent (tangents: one per
    differentiable input, None where it has none). explain: the derivative in the forward's
    terms, for explanations of a saved tensor (names in braces are the row's inputs, attrs and
    outputs:
    ``"d({self}**{exponent})/d{self} = {exponent}*{self}**({exponent} - 1)"``).
    undefined_grads: a multi-output row's formulas get None (torch's undefined gradient) for
    an output no gradient reached, instead of zeros (svd, eigh: torch skips those terms).
    row_major: the outputs are laid out row-major whatever the inputs' layout, as torch's
    reductions are (NumPy's follow the input's memory order); otherwise the forward's layout
    is kept (pointwise ops follow their inputs', as torch's TensorIterator does).
    opmath: float16 and bfloat16 operands reach the forward in float32 and the result is
    rounded once (torch's pointwise kernels); False: in their own dtype (reductions, which
    choose their accumulators themselves); a tuple of dtype names: only those in float32 (a
    kernel whose float16 loop computes in float16, as sigmoid_backward's). wirtinger: the
    formulas are real derivatives (grad * f'(x)), which the machinery turns into torch's
    convention for complex gradients (see OpNode.apply); False: the formulas are torch's own
    for complex numbers (conj, abs, angle, view_as_real, ...)."""
    if row_major:
        forward = _row_major_forward(forward)
    if variants:
        op = OpDef(node or _node_name(name), forward, inputs, grads, dtype, view, promote,
                   outputs, diff_outputs, arrays, fast_attr, jvp, explain, name, variants,
                   aliases, undefined_grads, wirtinger)
    else:
        op = OpDef(name, forward, inputs, grads, dtype, view, promote, outputs, diff_outputs,
                   arrays, fast_attr, jvp, explain, undefined_grads=undefined_grads,
                   wirtinger=wirtinger)
    # the NumPy dtypes the forward sees as float32
    op.opmath = frozenset(reduced_floats if opmath is True else
                          [getattr(dtypes, n).np for n in opmath or ()])
    return op


def _row_major_forward(forward):
    """A forward (a function or a namespace function's name) whose outputs are row-major."""
    name = forward if isinstance(forward, str) else None

    def run(xp, *arrays, **attrs):
        out = (getattr(xp, name)(*arrays, **attrs) if name is not None else
               forward(xp, *arrays, **attrs))
        if type(out) is ndarray and out.flags.c_contiguous and 1 not in out.shape:
            return out      # (_row_major's common case, without the call)
        if isinstance(out, (tuple, list)):
            return type(out)(_row_major(o) for o in out)
        return _row_major(out)
    return run


def _row_major(a):
    """``a``, or a row-major copy: NumPy calls an array with a size-1 axis contiguous whatever
    that axis's stride, torch's fresh results have the canonical one."""
    if not isinstance(a, ndarray) or a.ndim < 2:
        return a
    if a.flags.c_contiguous and 1 not in a.shape:
        return a
    step, n = [], a.itemsize
    for size in reversed(a.shape):
        step.append(n)
        n *= max(size, 1)
    return a if a.strides == tuple(reversed(step)) else a.copy()


def _node_name(public):
    """PyTorch's backward node name for a regular op: CamelCase (a letter after a digit
    upper-cased, as in Log1P), then Backward0."""
    camel = "".join(part[:1].upper() + part[1:] for part in public.split("_"))
    return re.sub(r"(?<=[0-9])[a-z]", lambda m: m.group(0).upper(), camel) + "Backward0"


_SCALAR_NAMES = dtypes.SCALAR_NAMES
_C10_NAMES = dtypes.C10_NAMES


def check_inplace(self):
    """PyTorch's refusals for writing into ``self`` while grad mode records."""
    if not state.grad:
        return
    if self._view is not None:      # views: checked once the op is known to record
        return
    if self._grad_fn is None and self._requires_grad:
        raise _leaf_error(RuntimeError("a leaf Variable that requires grad is being used in an "
                                       "in-place operation."), self)
    base = self._base
    if base is not None and base.grad_fn is None and base._requires_grad:
        raise _leaf_error(RuntimeError("a view of a leaf Variable that requires grad is being "
                                       "used in an in-place operation."), self, True)


def bump(t, op_name, where):
    """Move ``t``'s version after an in-place write and record who wrote (provenance's
    ``bumped``). An inference tensor outside inference mode has no version to move: as in
    torch, the write has happened and the bump refuses."""
    if t._inference and not state.inference:
        raise RuntimeError("Inplace update to inference tensor outside InferenceMode is not "
                           "allowed.You can make a clone to get a normal tensor before doing "
                           "inplace update.See https://github.com/pytorch/rfcs/pull/17 for "
                           "more details.")
    t._version_counter.version += 1
    _bumped(t, op_name, where)


def _leaf_error(exc, t, view=False):
    """The refusal, handed to the explain hook (which leaf, where it was made, the fix)."""
    return explain_hook.explain(exc, "inplace_on_leaf", tensor=t, view=view)


def _check_view_inplace(self, needs):
    """PyTorch's check_inplace for a differentiable view: refusals by how the view was made,
    then a view that requires grad of a leaf base, then a view that is itself a leaf: both
    read the stored grad_fn, so a view whose base gained history after it was made and whose
    grad_fn was not read since (not yet regenerated) counts as a leaf. ``needs``: the op
    records."""
    base = self._base
    requires_grad = self.requires_grad
    if not needs and not requires_grad:
        return
    if (base._data.dtype.kind == "c") != (self._data.dtype.kind == "c"):
        raise NotImplementedError(
            "glassgrad cannot rebase the history of a real view of a complex tensor (or a "
            "complex view of a real one: view_as_real, .real, .imag, view_as_complex) written "
            "in place while gradients are recorded")
    if self._view.creation != DEFAULT:
        raise view_rebase_error(self, False)
    if requires_grad and base._grad_fn is None:
        raise _leaf_error(RuntimeError("a view of a leaf Variable that requires grad is being "
                                       "used in an in-place operation."), self, True)
    if requires_grad and self._grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")


def apply_inplace(op, self, values, attrs, overlap="all"):
    """Run ``op`` writing into ``self`` (== values[0]): version bump, then new history.
    overlap: what PyTorch refuses before writing. "all" (its TensorIterator: self overlapping
    itself (an expand), an input overlapping self in part), "self" (only the first: fill_ with
    a tensor copies a clone of it), None (nothing: the fills of one value zero_, fill_,
    masked_fill_, index_fill_, and copy_ from self's own memory)."""
    if state.handler is not None:   # a forward AD level (self's tangent too) or a vmap
        return state.handler.handle_inplace(op, self, values, attrs, overlap)
    check_inplace(self)
    needs = edges = None
    view = self._view is not None and state.grad
    if state.grad and op.differentiable:
        needs = op.needs(values)
    if view:
        _check_view_inplace(self, needs)
    if needs:
        edges = op.edges(values, needs)     # like PyTorch: before its kernel's checks
    if overlap and 0 in self._data.strides and self._data.size and any(
            st == 0 and n > 1 for st, n in zip(self._data.strides, self._data.shape)):
        raise RuntimeError(SELF_OVERLAP_MESSAGE)
    if overlap == "all":
        for v in values:
            if isinstance(v, Tensor) and v is not self and _partial_overlap(self._data, v._data):
                raise RuntimeError("unsupported operation: some elements of the input tensor and "
                                   "the written-to tensor refer to a single memory location. "
                                   "Please clone() the tensor before performing the operation.")
    try:
        arrays, want = op.prepare(values, attrs)
    except Exception:   # like torch, the common dtype must fit self before a kernel is looked for
        _check_common_fits(op, self, values)
        raise
    if callable(op.dtype_rule):     # (a named rule's result is the common dtype)
        _check_common_fits(op, self, values)
    if want is not None and want.np is not self._data.dtype:     # (self's own dtype fits)
        _check_fits(self, want)
    saved_self = None
    if needs and "self" in op.saved_index and saves(
            op._save_plan[op.saved_index["self"]][3], edges):
        from .shape import clone     # the formula needs self's old value: keep a copy
        saved_self = clone(self)
    if state.on_mutate is not None:     # allow_mutation_on_saved_tensors
        state.on_mutate(self)
    _write(op, self._data, arrays, attrs, want)
    bump(self, op.name, _site_above(1))     # (the caller is glassgrad's: the walk starts above)
    if needs:
        old = self._grad_fn, self._output_nr
        node = op.attach((self,), values, attrs, needs, saved_self, edges)
        _saved_before_write(node, self._version_counter)
        if view:
            _rebase_view(self, node, *old)
            _saved_through_view(node, self)
        elif self._hook_state is not None:
            move_retains_grad(self, *old)
    return self


def _write(op, data, arrays, attrs, want):
    """apply_inplace's write of the op's result into self's array ``data``: an elementwise
    ufunc's straight into it where _writes_into allows, else the result computed, checked
    as PyTorch checks it (a complex op's real result, the shape) and copied in."""
    kernel = op.kernels.get(type(arrays[0])) or op.kernel(arrays)
    if type(kernel) is xp.ufunc and not attrs and _writes_into(data, arrays, want):
        kernel(*arrays, out=data)       # (the same loop as out of place: no copy after)
        return
    out = kernel(*arrays, **attrs)
    if data.dtype.kind == "c" and op.dtype_rule == "same" and xp.asarray(
            out).dtype.kind != "c":     # a real result of a complex input (abs)
        raise RuntimeError(f"In-place {op.public or op.name} is not supported for complex "
                           "tensors.")
    out_shape = out.shape if type(out) is ndarray else xp.shape(out)
    if out_shape != data.shape:   # self's shape first: PyTorch names it tensor a
        shape = broadcast_shapes(data.shape, out_shape)
        if shape != data.shape:
            raise RuntimeError(f"output with shape {list(data.shape)} doesn't match the "
                               f"broadcast shape {list(shape)}")
    xp.copyto(data, out, casting="unsafe")


def _writes_into(out, arrays, want):
    """Whether an elementwise ufunc's result on ``arrays`` can be written straight into
    ``out`` (self's array) with the very values the out-of-place call and the copy into self
    give: the result dtype is self's, every array operand has self's dtype (so the ufunc
    runs the same loop) and self's shape (or none), the others are Python numbers (weak:
    they do not change the loop), and self is writable. Overlap was refused before (an input
    overlapping self in part); NumPy reads an input that is self before it writes."""
    d = out.dtype
    if want is None or want.np is not d or not out.flags.writeable:
        return False
    shape = out.shape
    for a in arrays:
        if type(a) is ndarray:
            if a.dtype is not d or (a.shape != shape and a.ndim):
                return False
        elif type(a) not in (int, float, bool):
            return False
    return True


def _check_common_fits(op, self, values):
    """The common dtype of an in-place op's operands (its dtype rule's promotion) must fit
    self."""
    if op.dtype_rule in ("same", "bool") or not all(isinstance(v, (Tensor, int, float))
                                                    for v in values):
        return
    common = dtypes.result_type(*(values if op.promote is None else
                                  [values[i] for i in op.promote]))
    if op.dtype_rule == "float" and not common.is_floating_point and not common.is_complex:
        common = dtypes.get_default_dtype()
    _check_fits(self, common)


def _check_fits(self, want):
    """An in-place op's result dtype must be one self can hold (no float into an int)."""
    if want.category > self.dtype.category:
        raise RuntimeError(f"result type {_SCALAR_NAMES[want.name]} can't be cast to the "
                           f"desired output type {_SCALAR_NAMES[self.dtype.name]}")


def _dense(a):
    """PyTorch's is_non_overlapping_and_dense: the strides, smallest first, step over every
    element once (size-1 dimensions do not count)."""
    expected = a.itemsize
    for n, st in sorted(zip(a.shape, a.strides), key=lambda p: p[1]):
        if n != 1:
            if st != expected:
                return False
            expected *= n
    return True


def _partial_overlap(out, a):
    """PyTorch's get_overlap_status(out, a) == Partial: both dense, their memory ranges meet,
    and not with the same range and strides. When either is not dense PyTorch does not look
    (its result then depends on the order its kernels write; ours reads every input first)."""
    if out.base is None and a.base is None:     # each owns its memory: apart, or one array
        return False
    if not (out.size and a.size and may_share_memory(out, a) and _dense(out) and _dense(a)):
        return False
    o0, a0 = data_ptr(out), data_ptr(a)
    o1, a1 = o0 + out.nbytes, a0 + a.nbytes
    if o0 == a0 and o1 == a1:
        return out.strides != a.strides
    return o0 < a1 and a0 < o1


def _saved_before_write(node, counter):
    """PyTorch saves an in-place op's inputs before it writes: an input sharing self's version
    counter (x.mul_(x), a view or detach() of self) keeps the version it had then, so backward
    refuses it as modified."""
    saved = node._saved
    for k in node.op.slots:     # the tensor slots themselves, not the glass box's _tensors view
        v = saved[k]
        for s in v if type(v) is tuple else (v,):
            if type(s) is SavedTensor and s.tensor is not None and s.counter is counter:
                s.version -= 1


def _saved_through_view(node, view):
    """An in-place op on a view that saved its output: PyTorch's saved variable then refers to
    the view's grad_fn after the op (is_inplace_on_view), which its version error names."""
    for k in node.op.slots:
        s = node._saved[k]
        if type(s) is SavedTensor and s.tensor is None and s.data is not None:
            s.view_fn = weakref.ref(view._grad_fn)


def _rebase_view(self, node, old_fn, old_nr):
    """In-place on a view: the base's history becomes CopySlices(node); the view's grad_fn is
    then regenerated from the base (PyTorch's rebase_history). old_fn, old_nr: the view's
    gradient edge before the op (a retained gradient moves from it)."""
    base = self._base
    cs = CopySlices(base, view_geometry(self), node)
    base_old = base._grad_fn, base._output_nr
    base._grad_fn = cs
    base._output_nr = 0
    if base._hook_state is not None:
        move_retains_grad(base, *base_old)
    self._grad_fn, self._output_nr = old_fn, old_nr
    self._view.version = -1      # stale: the next read of grad_fn regenerates it
    self.grad_fn


def _zeros(shape, dtype):
    return zeros(shape, dtype=dtype)


def _operand(v, npd, narrow=None):
    """An operand in the computation dtype. A Python int is cast like torch casts it, wrapping
    around (a uint8 tensor < -1 compares with 255); narrow: see dispatch.narrowing."""
    if isinstance(v, Tensor):
        return v._data.astype(npd, copy=False)
    if type(v) is int and npd.kind in "iu":
        return xp.asarray(v).astype(npd)
    if narrow is not None and type(v) in (int, float):
        return narrow(v)
    return v


def _check_operands(name, values):
    for i, v in enumerate(values):
        if not isinstance(v, (Tensor, int, float, complex)):
            raise TypeError(f"{name}: expected a Tensor or a number as argument {i}, "
                            f"got {type(v).__name__}")


def broadcast_shapes(*shapes):
    """The broadcast shape, with PyTorch's error when shapes do not match (infer_size: shapes
    folded pairwise, each pair checked from the last dimension back)."""
    out = tuple(shapes[0]) if shapes else ()
    if shapes.count(out) == len(shapes):      # (shapes are tuples: one of them repeated)
        return out
    for s in shapes[1:]:
        ndim = max(len(out), len(s))
        a_full = (1,) * (ndim - len(out)) + tuple(out)
        b_full = (1,) * (ndim - len(s)) + tuple(s)
        new = [1] * ndim
        for i in range(ndim - 1, -1, -1):
            a, b = a_full[i], b_full[i]
            if a != b and a != 1 and b != 1:
                raise RuntimeError(
                    f"The size of tensor a ({a}) must match the size of tensor b ({b}) at "
                    f"non-singleton dimension {i}")
            new[i] = b if a == 1 else a
        out = new
    return tuple(out)


_RETURN_TYPES = {}


def _return_type(name, fields=("values", "indices")):
    """torch.return_types.<name>: a named tuple of ``fields``, printed like torch's."""
    cls = _RETURN_TYPES.get(name)
    if cls is None:
        def __repr__(self):
            body = ",\n".join(f"{f}={v!r}" for f, v in zip(fields, self))
            return f"torch.return_types.{name}(\n{body})"
        cls = type(name, (namedtuple(name, fields),), {"__slots__": (), "__repr__": __repr__,
                                                       "__module__": "torch.return_types"})
        _RETURN_TYPES[name] = cls
    return cls
