"""glassgrad.func: composable function transforms in the style of torch.func.

grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian, linearize, functionalize and vmap act
on plain functions of tensors (stack_module_state, replace_all_batch_norm_modules_ and
debug_unwrap help with them). Each differentiating transform runs the function on fresh
leaves (or, where an input already requires grad and grad mode is on, on aliases that keep
its history), differentiates with reverse mode, and hands back results that carry history only
when they depend on a tensor from outside the transform, as torch's levels give. That makes the
transforms nest:
``jacfwd(jacrev(f))`` differentiates the graph the inner one built.

Forward mode is the double-vjp trick: u -> u^T J is linear in u, so differentiating it with
respect to u in the direction t gives J t. vmap runs the function once on BatchedTensors
(_batching.py: the op table's batch rules); jacrev and jacfwd are vmaps of the vjp / jvp over
the standard basis, as torch builds them. A body the rules cannot run (it reads a batched
tensor's values, draws random numbers under randomness='error'/'different', writes in place
where no rule does, or raises) runs again one example at a time, the results stacked
(_vmap_loop); while that loop runs, what torch's vmap refuses for a batched tensor (.item(),
data-dependent shapes, control flow on a tensor, in-place writes into an unbatched tensor) is
refused with torch's words (_Batching). Python side effects of the body before such a point
happen twice (once in the batched attempt).
"""
import functools
import itertools
import weakref

from . import autograd as _autograd
from ._autograd.grad_mode import enable_grad, is_grad_enabled, state
from ._autograd.node import reachable_leaves
from .backend import backend_of
from .utils._pytree import broadcast_to_and_flatten, tree_flatten, tree_unflatten
from ._creation import eye, zeros, zeros_like
from ._generator import default_generator
from ._tensor import Tensor
from .ops.registry import apply_inplace, broadcast_shapes
from .ops.shape import cat, stack
from . import _batching
from ._einops import rearrange

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "vmap",
           "functional_call", "linearize", "functionalize", "stack_module_state",
           "replace_all_batch_norm_modules_", "debug_unwrap", "rearrange"]

_JVP = "jvp(f, primals, tangents)"


def _tensor_type():
    return Tensor


def _is_tensor(x):
    return isinstance(x, _tensor_type())


# -- levels: fresh inputs in, results out ----------------------------------------------------

_levels = itertools.count()
_fresh = {}     # id -> (a weak reference to a leaf some transform made, that level's serial)


def _made_fresh(t, serial):
    key = id(t)     # (the callback runs as t dies, before its id can be reused)
    _fresh[key] = (weakref.ref(t, lambda _, key=key: _fresh.pop(key, None)), serial)


class _Level:
    """One transform's call: the leaves it made, and whether grad mode was on outside.

    A tensor is "outside" a level when it is no transform's fresh leaf, or the fresh leaf of a
    level that began earlier (an enclosing transform); leaves of inner levels are constants.
    """

    def __init__(self):
        self.outer = is_grad_enabled()
        self.serial = next(_levels)

    def wrap(self, x):
        if not _is_tensor(x):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
        batched = isinstance(state.vmap, _batching.Level)
        if batched:     # inside a batched vmap: every example gets its own input
            x = _batching.lift(x)
        if self.outer and x.requires_grad:
            leaf = x.view_as(x)     # differentiable here, and still connected to the outside
        else:
            leaf = x.detach().requires_grad_()
            for t in {leaf, _batching.physical(leaf)}:
                _made_fresh(t, self.serial)
        if not batched and state.vmap is not None and state.vmap.of((leaf,)):   # batched, and now wrapped too
            state.vmap.mark(leaf, state.vmap.of((leaf,)) | {_WRAPPED})
        return leaf

    def _outside(self, leaf):
        entry = _fresh.get(id(leaf))
        if entry is None or entry[0]() is not leaf:
            return True
        return entry[1] < self.serial

    def unwrap(self, x):
        """x without the history this level added; keeps the history that leads outside."""
        if not _is_tensor(x):
            raise RuntimeError(f"Expected tensors, got unsupported type {type(x)}")
        if x.requires_grad and self.outer and self._reaches_outside(x):
            return x
        return x.detach()

    def unwrap_tree(self, tree):
        leaves, spec = tree_flatten(tree)
        return tree_unflatten([self.unwrap(x) for x in leaves], spec)

    def reaches_outside(self, outputs):
        """Whether a gradient of ``outputs`` can be differentiated outside this level (one
        reaches a tensor of an enclosing level): else its graph would only be detached."""
        return any(o.requires_grad and self._reaches_outside(o) for o in outputs)

    def _reaches_outside(self, x):
        if x.grad_fn is None:
            return self._outside(x)
        return any(self._outside(v) for v in reachable_leaves([x.grad_fn]))


def _autograd_grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False):
    """autograd.grad over the outputs that require grad; zeros for inputs they do not reach."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if pairs:
        result = _autograd.grad([o for o, _ in pairs], inputs, [g for _, g in pairs],
                                retain_graph=retain_graph, create_graph=create_graph,
                                allow_unused=True)
    else:
        result = (None,) * len(inputs)
    return tuple(zeros_like(x) if g is None else g for g, x in zip(result, inputs))


# -- argnums ---------------------------------------------------------------------------------

def _wrap_argnum(argnum, num_args):
    if not isinstance(argnum, int):
        raise RuntimeError(f"argnum must be int, got: {type(argnum)}")
    if 0 <= argnum < num_args:
        return argnum
    if -num_args <= argnum < 0:
        return argnum + num_args
    raise RuntimeError(f"Got argnum={argnum}, but only {num_args} positional inputs")


def _slice_argnums(args, argnums):
    """(the arguments argnums picks, argnums made non-negative)."""
    if not isinstance(argnums, (int, tuple)):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    if isinstance(argnums, int):
        argnums = _wrap_argnum(argnums, len(args))
        return args[argnums], argnums
    argnums = tuple(_wrap_argnum(a, len(args)) for a in argnums)
    if not argnums:
        raise RuntimeError("argnums must be non-empty")
    if len(set(argnums)) != len(argnums):
        raise RuntimeError(f"argnums elements must be unique, got {argnums}")
    return tuple(args[i] for i in argnums), argnums


def _replace_args(args, new, argnums):
    if isinstance(argnums, int):
        return tuple(new if i == argnums else a for i, a in enumerate(args))
    chosen = dict(zip(argnums, new))
    return tuple(chosen.get(i, a) for i, a in enumerate(args))


def _wrap_tree(level, tree):
    leaves, spec = tree_flatten(tree)
    fresh = [level.wrap(x) for x in leaves]
    return fresh, tree_unflatten(fresh, spec), spec


def _split_aux(output, has_aux, api):
    if not has_aux:
        return output, None
    if not (isinstance(output, tuple) and len(output) == 2):
        raise RuntimeError(f"{api}: output of function f should be a tuple: (output, aux) if "
                           "has_aux is True")
    return output


def _check_tensor_outputs(flat, api):
    if len(flat) == 0:
        raise RuntimeError(f"{api}: Expected f to be a function that has non-empty output (got "
                           f"output = {flat})")
    for o in flat:
        if not _is_tensor(o):
            raise RuntimeError(f"{api}: expected f(*primals) to return only tensors, got "
                               f"unsupported type {type(o)}")


# -- grad, vjp ---------------------------------------------------------------------------------

def grad_and_value(func, argnums=0, has_aux=False):
    """f -> (gradient of f's scalar output with respect to argnums, the output)."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        level = _Level()
        with enable_grad():
            diff, nums = _slice_argnums(args, argnums)
            flat, diff, spec = _wrap_tree(level, diff)
            output = func(*_replace_args(args, diff, nums), **kwargs)
            output, aux = _split_aux(output, has_aux, "grad_and_value(f)(*args)")
            if not _is_tensor(output):
                raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a "
                                   f"Tensor, got {type(output)}")
            if output.dim() != 0:
                raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a "
                                   f"scalar Tensor, got tensor with {output.dim()} dims. Maybe "
                                   "you wanted to use the vjp or jacrev APIs instead?")
            # a graph of the gradient only where something outside can differentiate it (the
            # output reaches a tensor of an enclosing level); else unwrap would detach it
            keep = level.outer and level.reaches_outside((output,))
            grads = _autograd_grad((output,), flat, create_graph=keep)
            grads = tree_unflatten([level.unwrap(g) for g in grads], spec)
            output = output if keep else output.detach()    # (level.unwrap(output))
            if has_aux:
                return grads, (output, level.unwrap_tree(aux))
            return grads, output
    return wrapper


def grad(func, argnums=0, has_aux=False):
    """f -> the gradient of f's scalar output with respect to the arguments argnums picks."""
    inner = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        grads, value = inner(*args, **kwargs)
        return (grads, value[1]) if has_aux else grads
    return wrapper


def _vjp(func, primals, has_aux, argnums=None):
    level = _Level()
    with enable_grad():
        if argnums is None:
            flat, new, spec = _wrap_tree(level, primals)
            args = new
        else:
            diff, nums = _slice_argnums(primals, argnums)
            flat, new, spec = _wrap_tree(level, diff)
            args = _replace_args(primals, new, nums)
        output = func(*args)
        output, aux = _split_aux(output, has_aux, "vjp(f, *primals)")
        if has_aux:
            aux = level.unwrap_tree(aux)
        flat_out, out_spec = tree_flatten(output)
        _check_tensor_outputs(flat_out, "vjp(f, *primals)")
        for o in flat_out:
            if not o.is_floating_point():
                raise RuntimeError("vjp(f, ...): All outputs of f must be floating-point or "
                                   f"complex Tensors, got Tensor with dtype {o.dtype}")
        results = tree_unflatten([level.unwrap(o) for o in flat_out], out_spec)

    def vjp_fn(cotangents, retain_graph=True, create_graph=None):
        if create_graph is None:
            create_graph = is_grad_enabled()
        flat_cot, cot_spec = tree_flatten(cotangents)
        if cot_spec != out_spec:
            raise RuntimeError("Expected pytree structure of cotangents to be the same as "
                               "pytree structure of outputs to the function. cotangents: "
                               f"{cot_spec.pprint()}, primal output: {out_spec.pprint()}")
        grads = _autograd_grad(flat_out, flat, flat_cot, retain_graph=retain_graph,
                               create_graph=create_graph)
        level.outer = create_graph
        return tree_unflatten([level.unwrap(g) for g in grads], spec)
    return results, vjp_fn, aux, flat_out, flat, level, out_spec


def vjp(func, *primals, has_aux=False):
    """(func(*primals), vjp_fn): vjp_fn(cotangents) gives the vector-Jacobian products, one per
    primal, as a tuple."""
    results, vjp_fn, aux, *_ = _vjp(func, primals, has_aux)
    return (results, vjp_fn, aux) if has_aux else (results, vjp_fn)


# -- jvp by the double-vjp trick ---------------------------------------------------------------

def _check_dual(p, t):
    for what, x in (("primal", p), ("tangent", t)):
        if not x.is_floating_point():
            raise ValueError(f"Expected {what} to be floating point or complex, but got: "
                             f"{x.dtype}")
    if p.shape != t.shape:
        raise RuntimeError("Trying to set a forward gradient that has a different size than that "
                           "of the original Tensor, this is not supported. Tensor is of size "
                           f"{list(p.shape)} while the given forward gradient is of size "
                           f"{list(t.shape)}.")


class _Linearized:
    """f's outputs at the primals and the first vjp with a symbolic cotangent u, from which
    any number of Jacobian-vector products can be read."""

    def __init__(self, level, flat_in, flat_out):
        self.level, self.flat_in, self.flat_out = level, flat_in, flat_out
        self.diff = [i for i, o in enumerate(flat_out) if o.requires_grad and
                     o.is_floating_point()]
        self.u = [zeros_like(flat_out[i]).requires_grad_() for i in self.diff]
        if self.diff:
            grads = _autograd.grad([flat_out[i] for i in self.diff], flat_in, self.u,
                                   retain_graph=True, create_graph=True, allow_unused=True)
        else:
            grads = (None,) * len(flat_in)
        self.g = [(g, k) for k, g in enumerate(grads) if g is not None and g.requires_grad]

    def jvp(self, tangents, create_graph):
        """J t for every output (t: one tangent per flat input)."""
        out = [zeros_like(o) for o in self.flat_out]
        if self.g:
            res = _autograd.grad([g for g, _ in self.g], self.u,
                                 [tangents[k] for _, k in self.g], retain_graph=True,
                                 create_graph=create_graph, allow_unused=True)
            for i, r in zip(self.diff, res):
                if r is not None:
                    out[i] = r
        return out


def _jvp_setup(func, primals, tangents, has_aux):
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{_JVP}: Expected primals to be a tuple. E.g. it should be valid to "
                           "call f(*primals).")
    flat_p, p_spec = tree_flatten(primals)
    flat_t, t_spec = tree_flatten(tangents)
    if p_spec != t_spec:
        raise RuntimeError(f"{_JVP}: Expected primals and tangents to have the same python "
                           "structure. For example, if primals is a tuple of 3 tensors, "
                           "tangents also must be. Got primals with structure "
                           f"{p_spec!r} and tangents with structure {t_spec!r}")
    for name, flat in (("primals", flat_p), ("tangents", flat_t)):
        if not flat:
            raise RuntimeError(f"{_JVP}: Expected {name} to contain at least one Tensor.")
        for x in flat:
            if not _is_tensor(x):
                raise RuntimeError(f"{_JVP}: Expected {name} to only contain Tensors, got "
                                   f"{type(x)}")
    for p, t in zip(flat_p, flat_t):
        _check_dual(p, t)
    level = _Level()
    with enable_grad():
        flat_in, args, _ = _wrap_tree(level, primals)
        output = func(*args)
        output, aux = _split_aux(output, has_aux, _JVP)
        if has_aux:
            aux = level.unwrap_tree(aux)
        flat_out, out_spec = tree_flatten(output)
        _check_tensor_outputs(flat_out, _JVP)
        lin = _Linearized(level, flat_in, flat_out)
    return lin, flat_t, out_spec, aux


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """(func(*primals), the Jacobian-vector product with tangents)."""
    lin, flat_t, out_spec, aux = _jvp_setup(func, primals, tangents, has_aux)
    level = lin.level
    with enable_grad():
        jvps = lin.jvp(flat_t, create_graph=level.outer)
    outs = tree_unflatten([level.unwrap(o) for o in lin.flat_out], out_spec)
    jvps = tree_unflatten([level.unwrap(t) for t in jvps], out_spec)
    return (outs, jvps, aux) if has_aux else (outs, jvps)


# -- Jacobians ----------------------------------------------------------------------------------

def _assemble(per_output, in_spec, out_spec, level):
    """per_output[i][k]: the Jacobian of output i with respect to input k, shaped
    out.shape + in.shape; nested as torch does (outputs outside, inputs inside)."""
    jac = [tree_unflatten([level.unwrap(j) for j in row], in_spec) for row in per_output]
    return tree_unflatten(jac, out_spec)


def _standard_basis(flat, chunk_size):
    """torch's chunked standard basis for the ``flat`` tensors: N = the sum of their numels
    basis vectors, chunk_size (default all) at a time; per chunk of n, one (n, *t.shape) tensor
    per t (the identity's rows, cut at t's columns)."""
    numels = [t.numel() for t in flat]
    total = sum(numels)
    step = total if chunk_size is None else chunk_size
    for start in range(0, total, max(step, 1)):
        n = min(step, total - start)
        rows = {}   # per dtype: rows start.. of the identity
        chunk, offset = [], 0
        for t, k in zip(flat, numels):
            if t.dtype not in rows:     # (the first chunk's rows are eye's, in one kernel)
                rows[t.dtype] = eye(n, total, dtype=t.dtype) if start == 0 else zeros(
                    (n, total), dtype=t.dtype)
                if start:
                    rows[t.dtype].diagonal(start).fill_(1)
            block = rows[t.dtype][:, offset:offset + k]
            chunk.append(block.reshape((n,) + tuple(t.shape)))
            offset += k
        yield chunk


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """The Jacobian of func with respect to argnums: vmap of the vjp over the outputs'
    standard basis (chunk_size rows at a time), as torch builds it."""
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    def wrapper(*args):
        _, _, aux, flat_out, flat_in, level, out_spec = _vjp(func, args, has_aux, argnums)
        in_spec = tree_flatten(_slice_argnums(args, argnums)[0])[1]
        outer = level.outer and level.reaches_outside(flat_out)     # (see grad_and_value)

        def vjp_rows(*cot):
            return _autograd_grad(flat_out, flat_in, cot, retain_graph=True, create_graph=outer)
        chunks = []
        with enable_grad():
            for basis in _standard_basis(flat_out, chunk_size):
                chunks.append(list(vmap(vjp_rows)(*basis)) if chunk_size != 1 else
                              [g.unsqueeze(0) for g in vjp_rows(*[b[0] for b in basis])])
        numels = [o.numel() for o in flat_out]
        per_output = [[] for _ in flat_out]
        for k, x in enumerate(flat_in):
            col = (cat([c[k] for c in chunks], 0) if len(chunks) > 1 else chunks[0][k]) \
                if chunks else zeros((0,) + tuple(x.shape), dtype=x.dtype)
            for i, (o, part) in enumerate(zip(flat_out, col.split(numels, 0))):
                per_output[i].append(part.reshape(tuple(o.shape) + tuple(x.shape)))
        result = _assemble(per_output, in_spec, out_spec, level)
        return (result, aux) if has_aux else result
    return wrapper


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian of func with respect to argnums: vmap of the Jacobian-vector product
    (double-vjp) over the inputs' standard basis, as torch builds it; the numbers jacrev
    gives."""
    _check_randomness(randomness)

    @functools.wraps(func)
    def wrapper(*args):
        diff, nums = _slice_argnums(args, argnums)
        flat_p, in_spec = tree_flatten(diff)
        for p in flat_p:
            if _is_tensor(p) and not p.is_floating_point():
                raise ValueError("Expected primal to be floating point or complex, but got: "
                                 f"{p.dtype}")

        def inner(*d):
            return func(*_replace_args(args, d if isinstance(nums, tuple) else d[0], nums))
        primals = diff if isinstance(nums, tuple) else (diff,)
        tangents = tree_unflatten([zeros_like(p) if _is_tensor(p) else p for p in flat_p],
                                  tree_flatten(primals)[1])
        lin, _, out_spec, aux = _jvp_setup(inner, primals, tangents, has_aux)
        level, flat_in, flat_out = lin.level, lin.flat_in, lin.flat_out
        outer = level.outer and level.reaches_outside(flat_out)     # (see grad_and_value)

        def jvp_rows(*basis):
            return tuple(lin.jvp(list(basis), create_graph=outer))
        numels = [x.numel() for x in flat_in]
        with enable_grad():
            basis = next(_standard_basis(flat_in, None), None)
            if basis is not None:
                cols = vmap(jvp_rows)(*basis)      # per output: (N, *out.shape)
            else:
                cols = [zeros((0,) + tuple(o.shape), dtype=o.dtype) for o in flat_out]
        per_output = []
        for o, col in zip(flat_out, cols):
            moved = col.movedim(0, -1) if col.dim() > 1 else col
            per_output.append([part.reshape(tuple(o.shape) + tuple(x.shape)) for x, part in
                               zip(flat_in, moved.split(numels, -1))])
        result = _assemble(per_output, in_spec, out_spec, level)
        return (result, aux) if has_aux else result
    return wrapper


def hessian(func, argnums=0):
    """The Hessian of a scalar func: jacfwd(jacrev(func))."""
    return jacfwd(jacrev(func, argnums), argnums)


# -- vmap ----------------------------------------------------------------------------------------

_RANDOM_ERROR = ("vmap: called random operation while in randomness error mode. Please either "
                 "use the 'same' or 'different' randomness flags on vmap or perform the "
                 "randomness operation out of vmap")


def _check_randomness(randomness):
    if randomness not in ("error", "different", "same"):
        raise RuntimeError("Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")


class _NoRandomness:
    """Stands in for the default generator's engine under randomness='error'."""

    def __getattr__(self, name):
        raise RuntimeError(_RANDOM_ERROR)


# What torch's vmap refuses to batch, and its words. The body runs once per example, so every op
# would "work"; these are refused while a vmap runs, for batched operands only, as torch does.
_DYNAMIC = ("vmap: We do not support batching operators that can output dynamic shape. Attempted "
            "to vmap over aten::{}. Please file an issue at "
            "https://github.com/pytorch/pytorch/issues if you need this feature.")
_INPLACE = ("vmap: {}(self, *extra_args) is not possible because there exists a Tensor `other` in "
            "extra_args that has more elements than `self`. This happened due to `other` being "
            "vmapped over but `self` not being vmapped over {}. Please try to use out-of-place "
            "operators instead of {}. If said operator is being called inside the PyTorch "
            "framework, please file a bug report instead.")
_REFUSALS = {
    "item": "vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over "
            "calling .item() on a Tensor, please try to rewrite what you're doing with other "
            "operations. If error is occurring somewhere inside PyTorch internals, please file a "
            "bug report.",
    "wrapped": "vmap: It looks like you're either (1) calling .item() on a Tensor or (2) "
               "attempting to use a Tensor in some data-dependent control flow or (3) "
               "encountering this error in PyTorch internals. For (1): we don't support vmap "
               "over calling .item() on a Tensor, please try to rewrite what you're doing with "
               "other operations. For (2): we don't support data-dependent control flow in vmap "
               "yet, please file an issue at https://github.com/pytorch/pytorch/issues . For (3): "
               "please file an issue.",
    "bool": "vmap: It looks like you're attempting to use a Tensor in some data-dependent control "
            "flow. We don't support that yet, please file an issue at "
            "https://github.com/pytorch/pytorch/issues .",
    "data_ptr": "Cannot access data pointer of Tensor that doesn't have storage",
    "data": "accessing `data` under vmap transform is not allowed",
    "mask": "vmap: We do not support batching operators that can support dynamic shape. "
            "Attempting to batch over indexing with a boolean mask.",
    "masked_select": "vmap: Attempted to vmap over `mask` in torch.masked_select(self, mask) We "
                     "cannot support this because for each batch this would return a differently "
                     "shaped Tensor. Please file an issue at "
                     "https://github.com/pytorch/pytorch/issues if you need this feature.",
    "nonzero": _DYNAMIC.format("nonzero"),
    "where": _DYNAMIC.format("where"),
    "nonzero_numpy": "Batching rule not implemented for aten::nonzero_numpy. We could not "
                     "generate a fallback.",
}
# the name torch's in-place refusal gives each in-place row (by node name): a plain name is
# "in a vmap", an aten:: name "at level N"; any other row is "inplace arithmetic"
_INPLACE_NAMES = {
    "FillBackward3": "fill_", "IndexAddBackward0": "index_add_",
    "ScatterAddBackward0": "scatter_add_", "IndexPutBackward0": "index_put_",
    "PowBackward1": "aten::pow_", "ClampBackward0": "aten::clamp_",
    "AddcmulBackward0": "aten::addcmul_", "AddcdivBackward0": "aten::addcdiv_",
    "LerpBackward0": "aten::lerp_", "LerpBackward1": "aten::lerp_",
    "IndexCopyBackward0": "aten::index_copy_", "ScatterBackward0": "aten::scatter_",
    "MaskedScatterBackward0": "aten::masked_scatter_", "AddmmBackward0": "aten::addmm_",
    "MaskedFillBackward1": "aten::masked_fill_",
}


_WRAPPED = 0   # a level that marks a batched tensor a grad transform inside the vmap wrapped


def _tensors_in(values):
    """The tensors among an op's operands and attrs (one level of tuples and lists)."""
    for v in values:
        if _is_tensor(v):
            yield v
        elif isinstance(v, (tuple, list)):
            yield from (t for t in v if _is_tensor(t))


class _Batching:
    """``state.vmap`` while a vmap body runs: which tensors are batched, at which vmap levels.

    torch knows a tensor is batched by its type (BatchedTensor). Here vmap marks the examples it
    passes in and every op's results inherit their operands' levels: while a vmap runs it is
    installed as the op interceptor (``state.handler``), so ops hand their calls to
    ``handle_call`` / ``handle_inplace``; the hot path pays one check. Of the tensors made
    outside the op table, detach() and the *_like factories keep their source's levels; others
    (factories, nonzero, a custom Function's results, rand_like under randomness="different")
    start unbatched: an approximation under which torch refuses more than glassgrad."""

    def __init__(self):
        self.inner = state.handler      # forward AD's interceptor, when a level was active
        self.sizes = []     # the batch size of each level (1, 2, ...)
        self.marks = {}     # id(tensor) -> (a weak reference to it, the frozenset of its levels)

    def of(self, tensors):
        found = frozenset()
        for t in tensors:
            entry = self.marks.get(id(t))
            if entry is not None:
                found |= entry[1]
        return found

    def mark(self, t, levels):
        key = id(t)
        if not levels - {_WRAPPED}:
            self.marks.pop(key, None)
            return
        entry = self.marks.get(key)
        ref = entry[0] if entry is not None else weakref.ref(
            t, lambda _, marks=self.marks, key=key: marks.pop(key, None))
        self.marks[key] = (ref, levels)

    def handle_call(self, op, values, attrs):
        state.handler = self.inner
        try:
            out = op(*values, **attrs)
        finally:
            state.handler = self
        self.propagate(values, attrs, out)
        return out

    def handle_inplace(self, op, t, values, attrs, overlap):
        self.mark(t, self.inplace(op, t, values, attrs))   # refuses batched into unbatched
        state.handler = self.inner
        try:
            return apply_inplace(op, t, values, attrs, overlap)
        finally:
            state.handler = self

    def handle_view_inplace(self, op, t, attrs):
        if self.inner is not None:
            self.inner.handle_view_inplace(op, t, attrs)

    def propagate(self, values, attrs, out):
        levels = self.of(_tensors_in(values + tuple(attrs.values())))
        if levels:
            for r in (out if isinstance(out, (tuple, list)) else (out,)):
                if _is_tensor(r):
                    self.mark(r, levels)

    def inplace(self, op, self_, values, attrs):
        """Refuse writing a batched operand into a tensor not batched at its level (torch
        cannot grow ``self``); else ``self_`` is now batched where its operands are."""
        mine = self.of((self_,))
        others = self.of(_tensors_in(tuple(v for v in values if v is not self_) +
                                     tuple(attrs.values())))
        extra = others - mine - {_WRAPPED}
        if extra:
            level = max(extra)
            if op.name == "AddBackward0":
                try:
                    shape = broadcast_shapes(*(v._data.shape for v in values if _is_tensor(v)))
                except RuntimeError:
                    shape = None    # the op's own error says so
                if shape is not None:
                    raise RuntimeError(f"output with shape {list(self_.shape)} doesn't match "
                                       f"the broadcast shape {[self.sizes[level - 1], *shape]}")
            name = _INPLACE_NAMES.get(op.name, "inplace arithmetic")
            if op.name == "MaskedFillBackward1" and self.of(values[1:2]):
                name = "inplace arithmetic"      # a batched mask: torch's where-based path
            where = f"at level {level}" if name.startswith("aten::") else "in a vmap"
            raise RuntimeError(_INPLACE.format(name, where, name))
        return mine | others

    def refuse(self, what, *tensors):
        """torch's refusal ``what`` when one of ``tensors`` is batched (.item() and bool() of
        one a grad transform inside the vmap wrapped reach torch's fallback: its own words)."""
        levels = self.of(tensors)
        if levels:
            raise RuntimeError(_REFUSALS["wrapped" if _WRAPPED in levels and what in (
                "item", "bool") else what])


def _name(func):
    if hasattr(func, "__name__"):
        return func.__name__
    if isinstance(func, functools.partial):
        return f"functools.partial({_name(func.func)}, ...)"
    return repr(func)


def _check_out_dims(out_dims, func):
    if isinstance(out_dims, int):
        return
    for d in tree_flatten(out_dims)[0]:
        if d is not None and not isinstance(d, int):
            raise ValueError(f"vmap({_name(func)}, ..., out_dims={out_dims}): `out_dims` must "
                             "be an int, None or a python collection of ints representing where "
                             "in the outputs the vmapped dimension should appear.")


def _batched_inputs(in_dims, args, func):
    name = _name(func)
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` "
                         "to be int or a (potentially nested) tuple matching the structure of "
                         f"inputs, got: {type(in_dims)}.")
    if len(args) == 0:
        raise ValueError(f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add "
                         "inputs, or you are trying to vmap over a function with no inputs. The "
                         "latter is unsupported.")
    flat_args, spec = tree_flatten(args)
    flat_dims = broadcast_to_and_flatten(in_dims, spec)
    if flat_dims is None:
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not "
                         "compatible with the structure of `inputs`. in_dims has structure "
                         f"{tree_flatten(in_dims)[1]!r} but inputs has structure {spec!r}.")
    for i, (arg, d) in enumerate(zip(flat_args, flat_dims)):
        if not isinstance(d, int) and d is not None:
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} "
                             "for an input but in_dim must be either an integer dimension or "
                             "None.")
        if isinstance(d, int) and not _is_tensor(arg):
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} "
                             f"for an input but the input is of type {type(arg)}. We cannot "
                             "vmap over non-Tensor arguments, please use None as the respective "
                             "in_dim")
        if d is not None and not -arg.dim() <= d < arg.dim():
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} "
                             "for some input, but that input is a Tensor of dimensionality "
                             f"{arg.dim()} so expected in_dim to satisfy -{arg.dim()} <= in_dim "
                             f"< {arg.dim()}.")
        if d is not None and d < 0:
            flat_dims[i] = d % arg.dim()
    sizes = [arg.shape[d] for arg, d in zip(flat_args, flat_dims) if d is not None]
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    return sizes[0], flat_dims, flat_args, spec


def _same_everywhere(values):
    """Whether per-element results are one unbatched value (out_dims=None)."""
    first = values[0]
    if not _is_tensor(first):
        return True
    xp = backend_of(first._data).xp
    return all(_is_tensor(v) and v.shape == first.shape and
               xp.array_equal(v._data, first._data, equal_nan=True)
               for v in values[1:])


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """Map func over a dimension of its inputs: per batch element, then stacked at out_dims."""
    _check_randomness(randomness)
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        _check_out_dims(out_dims, func)
        size, flat_dims, flat_args, spec = _batched_inputs(in_dims, args, func)
        outer = state.vmap
        if size and (outer is None or isinstance(outer, _batching.Level)):
            rng = default_generator._rng
            snapshot = rng.snapshot() if randomness == "same" and outer is None else None
            try:
                return _vmap_batched(func, flat_args, flat_dims, spec, size, kwargs, out_dims,
                                     chunk_size, "same" if snapshot and chunk_size is None
                                     else "error")
            except _batching.Fallback:
                if outer is not None:
                    raise       # the outermost batched vmap reruns the whole call
                if snapshot is not None:
                    rng.restore(snapshot)   # draws of the attempt are drawn again
        return _vmap_loop(func, flat_args, flat_dims, spec, size, kwargs, out_dims, randomness)
    return wrapper


def _out_dims_for(first, out_dims, name):
    """out_dims flattened to match the outputs' structure (torch's ValueError if it cannot)."""
    out_spec = tree_flatten(first)[1]
    if _is_tensor(first):
        if isinstance(out_dims, int) or out_dims is None:
            return [out_dims], out_spec
        if isinstance(out_dims, tuple) and len(out_dims) == 1:
            return list(out_dims), out_spec
        flat_out_dims = None
    else:
        flat_out_dims = broadcast_to_and_flatten(out_dims, out_spec)
    if flat_out_dims is None:
        raise ValueError(
            f"vmap({name}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible "
            f"with the structure of `outputs`. out_dims has structure "
            f"{tree_flatten(out_dims)[1]!r} but outputs has structure {out_spec!r}.")
    return flat_out_dims, out_spec


_serials = itertools.count(1)


class _FallbackRandomness:
    """The default generator's engine while a batched body runs: a random op reruns the call
    per example (where randomness= decides what it draws)."""

    def __getattr__(self, name):
        raise _batching.Fallback


def _vmap_batched(func, flat_args, flat_dims, spec, size, kwargs, out_dims, chunk_size,
                  randomness):
    """vmap by batching rules: func runs once (per chunk) on BatchedTensors."""
    if chunk_size is not None and chunk_size < size:
        parts = []
        for start in range(0, size, chunk_size):
            n = min(chunk_size, size - start)
            chunk = [a if d is None else a.narrow(d, start, n) for a, d in zip(flat_args, flat_dims)]
            parts.append(_vmap_batched(func, chunk, flat_dims, spec, n, kwargs, out_dims, None,
                                       randomness))
        return _concat_chunks(parts, out_dims, _name(func))
    name = _name(func)
    level = _batching.Level(next(_serials), size)
    elems = [a if d is None else _batching.wrap(a if d == 0 else a.movedim(d, 0), level.serial)
             for a, d in zip(flat_args, flat_dims)]
    gen = default_generator
    saved_rng = gen._rng
    state.handler = state.vmap = level
    if randomness != "same":    # 'same': one draw for all (random rows on batched operands
        gen._rng = _FallbackRandomness()    # fall back); else the loop draws as it did
    try:
        output = func(*tree_unflatten(elems, spec), **kwargs)
    except Exception as e:
        _batching.note(e)
        raise _batching.Fallback from None     # the per-example loop raises torch's error
    finally:
        state.handler, state.vmap = level.inner, level.outer_vmap
        gen._rng = saved_rng
    flat_out_dims, out_spec = _out_dims_for(output, out_dims, name)
    results = []
    for out, d in zip(tree_flatten(output)[0], flat_out_dims):
        batched = type(out) is _batching.BatchedTensor and out._level == level.serial
        if d is None:
            if batched:
                raise ValueError(f"vmap({name}, ...): `{name}` can not return a "
                                 "BatchedTensor when out_dim is None")
            results.append(out)
        elif not _is_tensor(out):
            raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type "
                             f"{type(out)}. Did you mean to set out_dims= to None for output?")
        elif batched:
            results.append(out._value if d == 0 else out._value.movedim(0, d))
        else:   # the same for every example: torch's expanded view
            shape = list(out.shape)
            shape.insert(d % (out.dim() + 1) if -out.dim() - 1 <= d <= out.dim() else d, size)
            results.append(out.unsqueeze(d).expand(shape))
    return tree_unflatten(results, out_spec)


def _concat_chunks(parts, out_dims, name):
    flat_parts = [tree_flatten(p)[0] for p in parts]
    flat_out_dims, out_spec = _out_dims_for(parts[0], out_dims, name)
    results = []
    for column, d in zip(zip(*flat_parts), flat_out_dims):
        results.append(column[0] if d is None else cat(list(column), d))
    return tree_unflatten(results, out_spec)


def _vmap_loop(func, flat_args, flat_dims, spec, size, kwargs, out_dims, randomness):
    """vmap one example at a time (what a body the rules cannot run falls back to)."""
    name = _name(func)
    gen = default_generator
    saved_rng = gen._rng
    same_state = saved_rng.snapshot() if randomness == "same" and \
        not isinstance(saved_rng, _NoRandomness) else None
    per_element = []
    batching = state.vmap
    if batching is None:
        batching = state.vmap = state.handler = _Batching()
    batching.sizes.append(size)
    level = len(batching.sizes)
    try:
        if randomness == "error":
            gen._rng = _NoRandomness()
        for b in range(max(size, 1)):
            if size == 0:   # nothing to map: one zero example gives the outputs' shapes
                elems = [a if d is None else zeros(
                    tuple(s for i, s in enumerate(a.shape) if i != d), dtype=a.dtype)
                    for a, d in zip(flat_args, flat_dims)]
            else:
                elems = [a if d is None else a.select(d, b)
                         for a, d in zip(flat_args, flat_dims)]
            for a, d in zip(elems, flat_dims):
                if d is not None:
                    batching.mark(a, batching.of((a,)) | {level})
            if same_state is not None:
                gen._rng.restore(same_state)
            per_element.append(func(*tree_unflatten(elems, spec), **kwargs))
    finally:
        if randomness == "error":
            gen._rng = saved_rng
        batching.sizes.pop()
        if not batching.sizes:
            state.vmap, state.handler = None, batching.inner
    flat_out_dims, out_spec = _out_dims_for(per_element[0], out_dims, name)
    columns = list(zip(*[tree_flatten(o)[0] for o in per_element]))
    results = []
    for column, d in zip(columns, flat_out_dims):
        if d is None:
            if size and not _same_everywhere(column):
                raise ValueError(f"vmap({name}, ...): `{name}` can not return a "
                                 "BatchedTensor when out_dim is None")
            results.append(column[0])
            continue
        for v in column:
            if not _is_tensor(v):
                raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, "
                                 f"got type {type(v)}. Did you mean to set out_dims= to "
                                 "None for output?")
        results.append(_stack(column, d, size))
    if state.vmap is not None:      # a nested vmap: batched at the outer levels only
        for r in results:
            if _is_tensor(r):
                batching.mark(r, batching.of((r,)) - {level})
    return tree_unflatten(results, out_spec)


def _stack(column, dim, size):
    if size:
        return stack(list(column), dim)
    out = stack([column[0]], dim)      # validates dim like torch; then keep none of it
    return out.narrow(dim, 0, 0)


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """module called with the given tensors in place of its parameters and buffers (one dict,
    or a list/tuple of dicts whose keys do not repeat)."""
    from .nn.utils.stateless import _functional_call
    dicts = parameter_and_buffer_dicts
    if isinstance(dicts, dict):
        tensors = dicts
    elif isinstance(dicts, (list, tuple)):
        if not all(isinstance(d, dict) for d in dicts):
            raise ValueError("Expected all elements of parameter_and_buffer_dicts to be "
                             "dictionaries")
        keys = [k for d in dicts for k in d]
        repeated = [k for k in dict.fromkeys(keys) if keys.count(k) > 1]
        if repeated:
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of "
                             f"functional call is ambiguous")
        tensors = {k: v for d in dicts for k, v in d.items()}
    else:
        raise ValueError(f"Expected parameter_and_buffer_dicts to be a dict, or a list/tuple "
                         f"of dicts, but got {type(dicts)}")
    return _functional_call(module, tensors, args, kwargs, tie_weights=tie_weights,
                            strict=strict)


# -- linearize, functionalize, ensembling helpers, debug_unwrap ---------------------------------
def linearize(func, *primals):
    """(func(*primals), jvp_fn): jvp_fn(*tangents) is the Jacobian-vector product at primals,
    read from one linearization (the first vjp with a symbolic cotangent, see _Linearized)."""
    output = func(*primals)
    flat_p, p_spec = tree_flatten(primals)
    facts = [(p.shape, p.device, p.dtype) for p in flat_p]
    level = _Level()
    with enable_grad():
        flat_in, args, _ = _wrap_tree(level, primals)
        flat_out, out_spec = tree_flatten(func(*args))
        lin = _Linearized(level, flat_in, flat_out)

    def jvp_fn(*tangents):
        flat_t, t_spec = tree_flatten(tangents)
        if t_spec != p_spec:
            raise RuntimeError(f"Expected the tangents {t_spec} to have the same argspec as the "
                               f"primals {p_spec}")
        for idx, (t, fact) in enumerate(zip(flat_t, facts)):
            for what, mine, want in zip(("shape", "device", "dtype"),
                                        (t.shape, t.device, t.dtype), fact):
                if mine != want:
                    raise RuntimeError(f"tangent:{idx} with {what} {mine} in flattened pytree "
                                       f"doesn't match the {what} {want} of the corresponding "
                                       "primal.")
        with enable_grad():
            jvps = lin.jvp(flat_t, create_graph=level.outer)
        return tree_unflatten([level.unwrap(t) for t in jvps], out_spec)
    return output, jvp_fn


_REMOVE_HELP = (
    "functionalize(f, remove='mutations'): received invalid argument for remove={}. Valid "
    "options are:\n     remove='mutations': all inplace and out= operators will be removed "
    "from the program, and replaced with their out-of-place equivalents.\n     "
    "remove='mutations_and_views': In addition to the above, all aliasing operators {{view}} "
    "will be replaced with their non-aliasing counterparts, {{view}}_copy.\n")


def functionalize(func, *, remove="mutations"):
    """func with torch's eager semantics of functionalization: the same values, mutations of
    the inputs applied to them, and outputs that do not alias the inputs (an output sharing an
    input's memory is handed back as a copy). glassgrad runs the ops as written: there is no
    graph of out-of-place ops to trace (make_fx)."""
    if remove not in ("mutations", "mutations_and_views"):
        raise RuntimeError(_REMOVE_HELP.format(remove))

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        inputs = [x for x in tree_flatten((args, kwargs))[0] if _is_tensor(x)]
        flat, spec = tree_flatten(func(*args, **kwargs))
        return tree_unflatten([x.clone() if _is_tensor(x) and any(
            backend_of(x._data).may_share_memory(x._data, i._data) for i in inputs) else x
            for x in flat], spec)
    return wrapped


def _stacked_leaf(tensors, name):
    grads = {t.requires_grad for t in tensors}
    if len(grads) > 1:
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    result = stack(list(tensors))
    return result.detach().requires_grad_() if grads == {True} else result


def stack_module_state(models):
    """(params, buffers): each name's tensors of the models stacked, as new leaves (for
    ensembling with vmap and functional_call)."""
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same "
                           "training/eval mode.")
    if not all(type(m) is type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    out = []
    for named in ("named_parameters", "named_buffers"):
        per_model = [dict(getattr(m, named)()) for m in models]
        out.append({k: _stacked_leaf(tuple(d[k] for d in per_model), k) for k in per_model[0]})
    return tuple(out)


def replace_all_batch_norm_modules_(root):
    """root, its batch norms (root's own included) made to use batch statistics only: no
    running_mean/running_var, track_running_stats False."""
    from .nn.modules.batchnorm import _BatchNorm
    for m in (root, *root.modules()):
        if isinstance(m, _BatchNorm) and m.track_running_stats:
            m.running_mean = m.running_var = m.num_batches_tracked = None
            m.track_running_stats = False
    return root


def debug_unwrap(tensor, *, recurse=True):
    """A vmap BatchedTensor's physical tensor (all levels down with recurse); any other tensor
    as it is (glassgrad's grad transforms run on plain tensors)."""
    if not _is_tensor(tensor) or not tensor._batched:
        return tensor
    inner = tensor._value
    return debug_unwrap(inner) if recurse else inner
