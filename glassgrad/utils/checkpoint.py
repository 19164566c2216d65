"""Activation checkpointing: run a function without keeping its intermediates, and run it again
in backward to get them.

Both variants are custom autograd Functions that save only the inputs. Backward restores the
random state the forward saw, recomputes with grad enabled on detached copies of the inputs, and
differentiates that graph:

* ``use_reentrant=True`` (torch's default, with a warning when the argument is left out) calls
  ``autograd.backward`` inside backward, as torch does, so tensors the function captures (a
  closure's parameters) get their ``.grad`` too; it refuses ``autograd.grad`` and
  ``backward(inputs=...)``.
* ``use_reentrant=False`` takes any structure of arguments (keywords too) and outputs and works
  under ``autograd.grad`` and ``create_graph=True``. Its forward runs once with grad enabled on
  detached inputs, only to learn which outside leaves the function reaches (they become inputs
  of the node); that graph is dropped before checkpoint returns.
"""
import contextlib
import warnings

from .. import autograd
from ..autograd.function import Function
from .._autograd.node import reachable_leaves
from .._autograd.grad_mode import enable_grad, no_grad, state
from ._pytree import tree_flatten, tree_unflatten
from .._generator import default_generator
from .._tensor import Tensor

__all__ = ["checkpoint", "checkpoint_sequential", "detach_variable", "check_backward_validity",
           "noop_context_fn"]

_DEFAULT_DETERMINISM_MODE = "default"


def noop_context_fn():
    return contextlib.nullcontext(), contextlib.nullcontext()


def _is_tensor(x):
    return isinstance(x, Tensor)


def detach_variable(inputs):
    if not isinstance(inputs, tuple):
        raise RuntimeError("Only tuple of tensors is supported. Got Unsupported input type: "
                           f"{type(inputs).__name__}")
    out = []
    for inp in inputs:
        if _is_tensor(inp):
            x = inp.detach()
            x.requires_grad = inp.requires_grad
            inp = x
        out.append(inp)
    return tuple(out)


def check_backward_validity(inputs):
    if not any(inp.requires_grad for inp in inputs if _is_tensor(inp)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None",
                      stacklevel=2)


def _rng_state():
    return default_generator.get_state()


@contextlib.contextmanager
def _forked_rng(state_to_use, enabled):
    """Run the body with the default generator at ``state_to_use``; restore it afterwards."""
    if not enabled:
        yield
        return
    outside = _rng_state()
    default_generator.set_state(state_to_use)
    try:
        yield
    finally:
        default_generator.set_state(outside)


class CheckpointFunction(Function):
    """The reentrant variant: forward(run_function, preserve_rng_state, *args)."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.preserve_rng_state = preserve_rng_state
        if preserve_rng_state:
            ctx.fwd_rng_state = _rng_state()
        ctx.inputs = [None if _is_tensor(a) else a for a in args]
        ctx.tensor_indices = [i for i, a in enumerate(args) if _is_tensor(a)]
        ctx.save_for_backward(*(a for a in args if _is_tensor(a)))
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        if not autograd._is_checkpoint_valid():
            raise RuntimeError(
                "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or "
                "passing an `inputs` parameter to .backward(). To resolve this error, you can "
                "either set use_reentrant=False, or call .backward() without passing the "
                "`inputs` argument.")
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t
        with _forked_rng(getattr(ctx, "fwd_rng_state", None), ctx.preserve_rng_state):
            detached = detach_variable(tuple(inputs))
            with enable_grad():
                outputs = ctx.run_function(*detached)
        if _is_tensor(outputs):
            outputs = (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grads) if _is_tensor(o) and o.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not "
                               "necessary")
        autograd.backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(x.grad if _is_tensor(x) else None for x in detached)


def _captured_leaves(outputs, own):
    """Leaves requiring grad that the recomputed graph reaches besides ``own`` (a closure's
    parameters, say)."""
    own = {id(t) for t in own}
    roots = [o.grad_fn for o in outputs if o.grad_fn is not None]
    return [v for v in reachable_leaves(roots) if id(v) not in own]


class _NonReentrantCheckpoint(Function):
    """forward(run_function, preserve_rng_state, box, *leaves, *captured): leaves of (args,
    kwargs), then the outside leaves the function reaches; box carries the forward's values."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, box, *inputs):
        ctx.run_function, ctx.box = run_function, box
        ctx.others = [None if _is_tensor(a) else a for a in inputs]
        ctx.save_for_backward(*(a for a in inputs if _is_tensor(a)))
        values = box.pop("values")
        ctx.mark_non_differentiable(*(v for v, d in zip(values, box["differentiable"])
                                      if _is_tensor(v) and not d))
        return tuple(values)

    @staticmethod
    def backward(ctx, *grads):
        box = ctx.box
        saved = iter(ctx.saved_tensors)
        inputs = [next(saved) if a is None else a for a in ctx.others]
        leaves, captured = inputs[:box["n"]], inputs[box["n"]:]
        create_graph = state.grad_enabled    # double backward: recompute on the real inputs
        with _forked_rng(box["rng_state"], box["rng_state"] is not None):
            if not create_graph:
                leaves = list(detach_variable(tuple(leaves)))
            args, kwargs = tree_unflatten(leaves, box["in_spec"])
            with enable_grad():
                outputs = tree_flatten(ctx.run_function(*args, **kwargs))[0]
        pairs = [(o, g) for o, g in zip(outputs, grads)
                 if _is_tensor(o) and o.requires_grad and g is not None]
        wanted = [x for x in leaves + captured if _is_tensor(x) and x.requires_grad]
        found = {}
        if pairs and wanted:
            result = autograd.grad([o for o, _ in pairs], wanted, [g for _, g in pairs],
                                   retain_graph=True, create_graph=create_graph,
                                   allow_unused=True)
            found = {id(x): g for x, g in zip(wanted, result)}
        return (None, None, None) + tuple(found.get(id(x)) for x in leaves + captured)


def _checkpoint_without_reentrant(function, preserve, context_fn, args, kwargs):
    forward_ctx, _ = context_fn()
    if not state.grad:
        with forward_ctx:
            return function(*args, **kwargs)
    leaves, in_spec = tree_flatten((args, kwargs))
    rng_state = _rng_state() if preserve else None
    # run once with grad on detached inputs to learn which outputs are differentiable and which
    # outside leaves (a closure's parameters) the function reaches; then drop that graph, so
    # only the inputs outlive the forward
    detached = detach_variable(tuple(leaves))
    a, k = tree_unflatten(list(detached), in_spec)
    with forward_ctx:
        flat, out_spec = tree_flatten(function(*a, **k))
    differentiable = [_is_tensor(o) and o.requires_grad for o in flat]
    captured = _captured_leaves([o for o, d in zip(flat, differentiable) if d], detached)
    values = [o.detach() if _is_tensor(o) else o for o in flat]
    del a, k, flat, detached
    if not any(differentiable):
        return tree_unflatten(values, out_spec)
    box = {"in_spec": in_spec, "n": len(leaves), "values": values, "rng_state": rng_state,
           "differentiable": differentiable}
    out = _NonReentrantCheckpoint.apply(function, preserve, box, *leaves, *captured)
    return tree_unflatten(list(out), out_spec)


def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn,
               determinism_check=_DEFAULT_DETERMINISM_MODE, debug=False, early_stop=True,
               **kwargs):
    """function(*args, **kwargs), keeping only the inputs for backward, which recomputes."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
            "Starting in PyTorch 2.9, calling checkpoint without use_reentrant will raise an "
            "exception. use_reentrant=False is recommended, but if you need to preserve the "
            "current default behavior, you can pass use_reentrant=True. Refer to docs for more "
            "details on the differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when "
                             "use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve, *args)
    return _checkpoint_without_reentrant(function, preserve, context_fn, args, kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run ``functions`` in order, checkpointing all but the last of ``segments`` chunks."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be "
            "passed explicitly. In version 2.9 we will raise an exception if use_reentrant is "
            "not passed. use_reentrant=False is recommended, but if you need to preserve the "
            "current default behavior, you can pass use_reentrant=True. Refer to docs for more "
            "details on the differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))

    def run_function(start, end, functions):
        def forward(x):
            for j in range(start, end + 1):
                x = functions[j](x)
            return x
        return forward

    functions = list(functions)
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end, functions), input,
                           use_reentrant=use_reentrant, preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1, functions)(input)
