"""torch.cond and torch.while_loop with torch's eager semantics.

torch runs them through torch.compile, which traces both branches (or the loop body) and
refuses bodies whose outputs differ in metadata from the other branch or the carried inputs,
or alias them; glassgrad runs the branch or the loop as Python, so what it checks is what
torch checks before compiling (the predicate, the callables, the operands), what its dense
kernels check while running (the loop condition's type, the body's outputs) and the aliasing
(an output that is an input or a view of one); branches of different output metadata are
not refused (the branch not taken is not run). The result's
history is one node, as torch's: CondAutogradOpBackward / WhileLoopAutogradOpBackward, whose
backward runs the region again with grad and differentiates it.
"""
from ._autograd.grad_mode import enable_grad
from ._tensor import Tensor
from . import autograd as _autograd
from .backend import may_share_memory
from .compiler.exc import UncapturedHigherOrderOpError
from .utils._pytree import tree_flatten, tree_unflatten


class _Region(_autograd.Function):
    """The outputs of ``run(*tensors)`` under one node (the run takes and gives flat tensors)."""

    @staticmethod
    def forward(ctx, run, *tensors):
        ctx.run = run
        ctx.save_for_backward(*tensors)
        return tuple(run(*tensors))

    @staticmethod
    def backward(ctx, *grads):
        inputs = [t.detach().requires_grad_(t.requires_grad) for t in ctx.saved_tensors]
        with enable_grad():
            outs = ctx.run(*inputs)
        pairs = [(o, g) for o, g in zip(outs, grads)
                 if isinstance(o, Tensor) and o.requires_grad and g is not None]
        wrt = [t for t in inputs if t.requires_grad]
        found = iter(_autograd.grad([o for o, _ in pairs], wrt, [g for _, g in pairs],
                                    allow_unused=True) if pairs and wrt else [None] * len(wrt))
        return (None, *(next(found) if t.requires_grad else None for t in inputs))


class CondAutogradOp(_Region):
    pass


class WhileLoopAutogradOp(_Region):
    pass


def _no_aliasing(name, inputs, outputs):
    """torch's capture refuses a body whose output is one of its inputs or a view of one."""
    for o in tree_flatten(outputs)[0]:
        if isinstance(o, Tensor) and any(isinstance(i, Tensor) and may_share_memory(
                o._data, i._data) for i in tree_flatten(inputs)[0]):
            raise UncapturedHigherOrderOpError(
                "This higher order operator doesn't work unless it is captured completely with "
                "torch.compile. Got graph break/error:\nEncountered aliasing during higher "
                f"order op tracing\n  Higher Order Operator: torch.{name}\n  Explanation: "
                "Higher order ops do not support aliasing.\n  Hint: Replace `return input` "
                "with `return input.clone()` to avoid aliasing.")
    return outputs


def _in_region(op, fn, inputs):
    """fn(*inputs) (a pytree of tensors and ints) through op's single node."""
    flat, spec = tree_flatten(inputs)
    slots = [i for i, x in enumerate(flat) if isinstance(x, Tensor)]
    shapes = {}

    def run(*tensors):
        values = list(flat)
        for i, t in zip(slots, tensors):
            values[i] = t
        out, shapes["out"] = tree_flatten(fn(tree_unflatten(values, spec)))
        shapes["others"] = [(i, x) for i, x in enumerate(out) if not isinstance(x, Tensor)]
        return [x for x in out if isinstance(x, Tensor)]
    tensors = op.apply(run, *(flat[i] for i in slots))
    out = list(tensors if isinstance(tensors, tuple) else (tensors,))
    for i, x in shapes["others"]:
        out.insert(i, x)
    return tree_unflatten(out, shapes["out"])


def cond(pred, true_fn, false_fn, operands=()):
    """true_fn(*operands) if pred else false_fn(*operands); a tensor pred puts the result under
    one CondAutogradOpBackward node."""
    if isinstance(pred, (bool, int, float)):
        return true_fn(*operands) if pred else false_fn(*operands)
    if not isinstance(pred, Tensor):
        raise RuntimeError(f"Expected pred to be bool or tensor, but got {pred}.")
    if pred.numel() != 1:
        raise RuntimeError(f"Expected pred to be bool or single-element tensor, but got {pred}.")
    if not callable(true_fn) or not callable(false_fn):
        raise RuntimeError("Expect both branches to be callable.")
    if not isinstance(operands, (tuple, list)) or not all(
            isinstance(t, Tensor) for t in tree_flatten(operands)[0]):
        raise RuntimeError("Expect operands to be a tuple of possibly nested dict/list/tuple "
                           f"that only consists of tensor leaves, but got {operands}.")
    branch = true_fn if pred.item() else false_fn
    return _in_region(CondAutogradOp,
                      lambda ops: _no_aliasing("cond", ops, branch(*ops)), operands)


def _loop(cond_fn, body_fn, carried):
    def check(pred):
        if not (isinstance(pred, bool) or (isinstance(pred, Tensor) and pred.shape == () and
                                           pred.dtype.name == "bool")):
            raise RuntimeError(f"cond_fn must return a boolean scalar tensor or a boolean but "
                               f"got {pred}")
        return pred
    if not check(_no_aliasing("while_loop", carried, cond_fn(*carried))):
        return tuple(v.clone() if isinstance(v, Tensor) else v for v in carried)
    while True:
        out = _no_aliasing("while_loop", carried, body_fn(*carried))
        if not isinstance(out, tuple):
            raise AssertionError(f"body_fn should return a tuple but got {type(out)}")
        if len(out) != len(carried):
            raise AssertionError(f"body_fn should return the same number of elements as "
                                 f"carried_inputs, got {len(out)} vs {len(carried)}")
        carried = out
        if not check(_no_aliasing("while_loop", carried, cond_fn(*carried))):
            return carried


def while_loop(cond_fn, body_fn, carried_inputs):
    """Runs body_fn on the carried values while cond_fn holds; the tensors it gives back hang
    from one WhileLoopAutogradOpBackward node."""
    if not callable(cond_fn) or not callable(body_fn):
        raise RuntimeError("Expect cond_fn and body_fn to be callable.")
    flat = tree_flatten(carried_inputs)[0]
    if not all(isinstance(t, (Tensor, int)) for t in flat):
        raise AssertionError(f"{flat} can only be of (<class 'torch.Tensor'>, <class 'int'>, "
                             f"<class 'torch.SymInt'>) but got {tuple(type(t) for t in flat)}")
    if not isinstance(carried_inputs, (tuple, list)):
        raise RuntimeError(f"carried_inputs must be a tuple or list but got "
                           f"{type(carried_inputs)}")
    return _in_region(WhileLoopAutogradOp, lambda c: tuple(_loop(cond_fn, body_fn, tuple(c))),
                      tuple(carried_inputs))
