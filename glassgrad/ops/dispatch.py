"""Cached dtype decisions: the speed machinery of an op call, kept apart from the rows.

torch.result_type depends only on each operand's dtype, whether a tensor is 0-d and which type
a Python number has (``dtypes.operand_key``); a row's dtype rule ('promote', 'float', 'bool', or
a callable that depends only on the operands' dtypes and the type of one attr, ``fast_attr``)
adds nothing else. So an op decides once per such key and keeps the decision:
(computation NumPy dtype, result dtype, whether Python ints are cast like torch casts them).
A ``fast_attr`` adds to the key the type of a Python number (pow's exponent) or, for a dtype
argument (sum's ``dtype=``), the dtype itself or None (``attr_key``).
``DtypeCache.prepare`` is the fast path (an OpDef's ``prepare``); the row's ``slow_prepare`` is
the reference rule it must agree with (tests/test_dispatch.py checks them against each other on
random operands), and what it falls back to for operands without a key.
Any Tensor subclass takes the fast path like a Tensor (dtypes.TENSOR_TYPES).
"""
from .. import dtypes
from ..backend import reduced_floats, xp

_TENSOR_TYPES = dtypes.TENSOR_TYPES
_operand_key = dtypes.operand_key
_float32 = xp.dtype(xp.float32)
_DTYPE = dtypes.dtype


def computing(dtype, opmath=reduced_floats):
    """The NumPy dtype an op whose result is ``dtype`` computes in: float16 and bfloat16 (those
    of them in the row's ``opmath``) in float32, rounded once at the end (torch's CPU kernels'
    opmath type; a Python number operand keeps its full value, as ATen's
    original_scalar_value), others their own."""
    return _float32 if dtype.np in opmath else dtype.np


def narrowing(op, want, npd):
    """How a Python number operand enters a float16/bfloat16 op computed in float32: rounded to
    the result dtype first (TensorIterator's cast to the common dtype), except in the rows whose
    ATen kernels read the original scalar in float (mul, div: ``op.opmath_scalars``); None
    where numbers go in as they are."""
    if npd is want.np or npd.kind != "f" or op.opmath_scalars:
        return None
    narrow = want.np.type
    return lambda v: _float32.type(narrow(v))


def narrowed(op, attrs, want):
    """attrs with op.narrow_attrs's Python floats rounded to ``want`` (float16, bfloat16), as
    the row's kernel reads them."""
    narrow = want.np.type
    return {k: _float32.type(narrow(v)) if k in op.narrow_attrs and type(v) is float else v
            for k, v in attrs.items()}


def attr_key(v):
    """What a row's fast_attr adds to its decision's key: a dtype (or None) as it is, anything
    else (a Python number) by its type."""
    return v if v is None or type(v) is _DTYPE else type(v)


def _trailing(a, b):
    """Whether one shape is the other's last dimensions (a bias's shape): they broadcast, no
    need to ask broadcast_shapes."""
    return a[len(a) - len(b):] == b if len(a) >= len(b) else b[len(b) - len(a):] == a


class DtypeCache:
    """One op's decisions, keyed by its operands' kinds (see the module docstring)."""
    __slots__ = ("op", "rule", "attr", "table", "broadcast")

    def __init__(self, op, attr, broadcast):
        self.op = op                # the row (its slow_prepare decides operands without a key)
        self.rule = op.dtype_rule
        self.attr = attr            # fast_attr: the attr the rule depends on (see attr_key)
        self.broadcast = broadcast  # broadcast_shapes: refuses operands that do not broadcast
        self.table = {}
        dtypes.CACHES.append(self.table)    # cleared when the default dtype changes

    def decide(self, key, values, attrs):
        """Decide for ``key`` by the rule, and keep the decision. Operands that do not
        broadcast are refused first, as torch's TensorIterator sizes before it types."""
        if len(values) > 1 and not self.op.variadic:
            shapes = [v._data.shape for v in values if type(v) in _TENSOR_TYPES]
            if any(s != shapes[0] for s in shapes):
                self.broadcast(*shapes)
        rule = self.rule
        want = rule(values, attrs) if callable(rule) else dtypes.result_type(*values)
        if rule == "float" and not want.is_floating_point and not want.is_complex:
            want = dtypes.get_default_dtype()
        npd = computing(want, self.op.opmath) if rule != "bool" else want.np
        if self.op.fname is not None and not self.op.opmath_scalars:
            npd = want.np   # one NumPy ufunc: its own half loop rounds once, as torch's
        hit = self.table[key] = (npd, dtypes.bool if rule == "bool" else want,
                                 want.np.kind in "iu", narrowing(self.op, want, npd))
        return hit

    def prepare(self, values, attrs):
        """(arrays for the forward, result dtype); operands without a key (an argument that is
        neither a tensor nor a Python number) go to the row's slow_prepare."""
        v = values[0]
        if len(values) == 1 and type(v) in _TENSOR_TYPES:     # one tensor: keyed by its dtype
            a = v._data
            key = a.dtype if self.attr is None else (a.dtype, attr_key(attrs.get(self.attr)))
            hit = self.table.get(key) or self.decide(key, values, attrs)
            npd = hit[0]
            return [a if a.dtype is npd else a.astype(npd)], hit[1]
        if len(values) == 2 and self.attr is None and type(v) in _TENSOR_TYPES:
            w = values[1]       # a tensor and a Python number: keyed by dtype and type
            tw = type(w)
            a = v._data
            if tw is float or tw is int:
                key = (a.dtype, tw)
                hit = self.table.get(key) or self.decide(key, values, attrs)
                npd = hit[0]
                if hit[2] and tw is int:
                    w = xp.asarray(w).astype(npd)
                elif hit[3] is not None:
                    w = hit[3](w)
                return [a if a.dtype is npd else a.astype(npd), w], hit[1]
            if tw in _TENSOR_TYPES and w._data.dtype is a.dtype:
                b = w._data     # two tensors of one dtype: one tensor's decision
                hit = self.table.get(a.dtype) or self.decide(a.dtype, values, attrs)
                npd = hit[0]
                if a.dtype is not npd:
                    a, b = a.astype(npd), b.astype(npd)
                if a.shape != b.shape and not _trailing(a.shape, b.shape):
                    self.broadcast(a.shape, b.shape)    # (refuses what does not broadcast)
                return [a, b], hit[1]
        key = _operand_key(values)
        if key is None:
            return self.op.slow_prepare(values, attrs)
        if self.attr is not None:
            key = (*key, attr_key(attrs.get(self.attr)))
        npd, result, cast_ints, narrow = self.table.get(key) or self.decide(key, values, attrs)
        arrays = []
        shape = mismatch = None
        for v in values:
            if type(v) in _TENSOR_TYPES:
                a = v._data
                if a.dtype is not npd:
                    a = a.astype(npd, copy=False)
                if shape is None:
                    shape = a.shape
                elif a.shape != shape:
                    mismatch = True
            elif cast_ints and type(v) is int:
                a = xp.asarray(v).astype(npd)
            elif narrow is not None and (type(v) is float or type(v) is int):
                a = narrow(v)
            else:
                a = v
            arrays.append(a)
        if mismatch:     # pointwise operands broadcast
            self.broadcast(*[a.shape for a in arrays if isinstance(a, xp.ndarray)])
        return arrays, result
