"""glassgrad.autograd: backward() and grad() on top of the engine."""
import functools
import inspect
import threading
import warnings

from .._autograd import explain_hook
from .._autograd.engine import run_backward
from .._autograd.grad_mode import state
from .._autograd.node import gradient_edge
from .._autograd.provenance import backward_ran
from .._creation import ones_like, zeros_like
from .._tensor import Tensor
from ..backend import xp
from ..ops.shape import stack
from . import _functions, anomaly_mode, forward_ad, function, graph, grad_mode  # noqa: F401
from .anomaly_mode import detect_anomaly, set_detect_anomaly  # noqa: F401
from .function import Function  # noqa: F401
from .variable import Variable  # noqa: F401
from .grad_mode import (enable_grad, inference_mode, is_grad_enabled,  # noqa: F401
                        is_multithreading_enabled, is_view_replay_enabled, no_grad,
                        set_grad_enabled, set_multithreading_enabled)
from .._autograd.saved import RawSavedTensor as SavedTensor  # noqa: F401
from .._overrides import handle_torch_function, is_tensor_like  # noqa: F401


def kineto_available():
    """Whether torch's Kineto profiler is built in: glassgrad has no profiler, so False."""
    return False


def _as_tuple(x):
    if x is None:
        return None
    return tuple(x) if isinstance(x, (list, tuple)) else (x,)


def _ones_like(o):
    """The implicit gradient of a one-element output: ones_like(o), made directly for a plain
    tensor outside vmap (what ones_like makes then: a fresh one-element array)."""
    if type(o) is not Tensor or state.vmap is not None:
        return ones_like(o)
    d = o._data
    a = xp.empty(d.shape, d.dtype)
    a.fill(1)
    return Tensor._make(a)


def _make_grads(outputs, grads, is_grads_batched=False):
    if grads is None:
        grads = (None,) * len(outputs)
    grads = _as_tuple(grads)
    out = []
    for i, (o, g) in enumerate(zip(outputs, grads)):
        if isinstance(g, Tensor):
            first = g[0] if is_grads_batched else g     # torch indexes too (same IndexErrors)
            if first.shape != o.shape:
                if is_grads_batched:
                    # torch reports the shape of grad[0] less its first dimension
                    raise RuntimeError(
                        "If `is_grads_batched=True`, we interpret the first dimension of each "
                        "grad_output as the batch dimension. The sizes of the remaining "
                        "dimensions are expected to match the shape of corresponding output, but "
                        f"a mismatch was detected: grad_output[{i}] has a shape of "
                        f"{first.shape[1:]} and output[{i}] has a shape of {o.shape}. If you "
                        "only want some tensors in `grad_output` to be considered batched, "
                        "consider using vmap.")
                raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of "
                                   f"{g.shape} and output[{i}] has a shape of {o.shape}.")
            out.append(g if g.dtype is o.dtype else g.to(o.dtype))
        elif g is None:
            if o.requires_grad:
                if o.numel() != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if not o.is_floating_point():
                    raise RuntimeError(f"grad can be implicitly created only for real scalar "
                                       f"outputs but got {o.dtype}")
                out.append(_ones_like(o))
            else:
                out.append(None)
        else:
            raise TypeError(f"gradients can be either Tensors or None, but got "
                            f"{type(g).__name__}")
    if len(out) != len(outputs):    # extra gradients are ignored, as torch's zip does
        raise RuntimeError(f"got {len(outputs)} tensors and {len(out)} gradients")
    return out


def _explained(fn):
    """backward() and grad() hand the RuntimeErrors they raise to the explain hook (the glass
    box adds its explanation as a note) and note the backward passes that free a graph."""
    params = list(inspect.signature(fn).parameters)
    at_retain = params.index("retain_graph")

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            result = fn(*args, **kwargs)
        except RuntimeError as e:
            explain_hook.explain(e, "backward", fn=fn, args=args, kwargs=kwargs)
            raise
        retain = args[at_retain] if len(args) > at_retain else kwargs.get("retain_graph")
        if retain is None:
            retain = args[at_retain + 1] if len(args) > at_retain + 1 else \
                kwargs.get("create_graph", False)
        backward_ran(args[0] if args else kwargs[params[0]], retain)
        return result
    return wrapper


def _roots(outputs):
    roots = []
    for i, o in enumerate(outputs):
        if not o.requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have "
                               "a grad_fn")
        roots.append(gradient_edge(o))
    return roots


_CYCLE_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the parameter "
    "and its gradient which can cause a memory leak. We recommend using autograd.grad when "
    "creating the graph to avoid this. If you have to use this function, make sure to reset the "
    ".grad fields of your parameters to None after use to break the cycle and avoid the leak.")
_warned_cycle = []


@_explained
def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
             grad_variables=None, inputs=None):
    if state.vmap is not None:
        raise RuntimeError("backward() called inside a functorch transform. This is not "
                           "supported, please use functorch.grad or functorch.vjp instead or "
                           "call backward() outside of functorch transforms.")
    tensors = _as_tuple(tensors)
    grads = _make_grads(tensors, grad_tensors if grad_variables is None else grad_variables)
    if retain_graph is None:
        retain_graph = create_graph
    if create_graph and not _warned_cycle:    # torch warns once per process
        _warned_cycle.append(True)
        warnings.warn(_CYCLE_WARNING, UserWarning, stacklevel=2)
    targets = None
    if inputs is not None:
        inputs = _as_tuple(inputs)
        if not inputs:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
        for t in inputs:
            if t.grad_fn is not None:
                t.retain_grad()
        targets = [gradient_edge(t) for t in inputs]
    roots = _roots(tensors)
    token = _checkpoint_state.enter(inputs is None)
    try:
        run_backward(roots, grads, retain_graph, create_graph, targets, accumulate=True)
    finally:
        _checkpoint_state.leave(token)


class _CheckpointState(threading.local):
    """Whether the innermost backward pass accumulates into every leaf (backward() without
    ``inputs``): the reentrant checkpoint needs one (torch's _is_checkpoint_valid)."""
    valid = True

    def enter(self, valid):
        prev, self.valid = self.valid, valid
        return prev

    def leave(self, prev):
        self.valid = prev


_checkpoint_state = _CheckpointState()


def _is_checkpoint_valid():
    return _checkpoint_state.valid


def _batched_backward(roots, grads, retain_graph, create_graph, targets):
    """One backward per slice of the grad_outputs' first dimension, results stacked (torch runs
    the backward once under vmap; a loop gives the same values)."""
    sizes = []
    for g in grads:
        if g is None:
            continue
        if g.dim() == 0:
            raise ValueError("vmap(vjp, in_dims=0, ...)(<inputs>): Got in_dim=0 for some input, "
                             "but that input is a Tensor of dimensionality 0 so expected in_dim "
                             "to satisfy 0 <= in_dim < 0.")
        sizes.append(g.shape[0])
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(n != sizes[0] for n in sizes):
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    per_input = [[] for _ in targets]
    for b in range(sizes[0]):
        last = b == sizes[0] - 1
        row = run_backward(roots, [None if g is None else g[b] for g in grads],
                           retain_graph or not last, create_graph, targets, accumulate=False)
        for acc, g in zip(per_input, row):
            acc.append(g)
    # an input no slice reached stays None (torch's allow_none_pass_through)
    return [None if any(g is None for g in acc) else stack(acc) for acc in per_input]


@_explained
def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads="
                         "True, but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    outputs, inputs = _as_tuple(outputs), _as_tuple(inputs)
    if not inputs:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    grads = _make_grads(outputs, grad_outputs, is_grads_batched)
    if retain_graph is None:
        retain_graph = create_graph
    batched = state.vmap is not None and any(o._batched for o in outputs)
    roots = None if batched else _roots(outputs)    # (outputs checked first, as torch's engine)
    for t in inputs:
        if not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    if batched:
        result = state.vmap.grad(outputs, inputs, grads, retain_graph, create_graph)
    else:
        result = _grad(roots, inputs, grads, retain_graph, create_graph, is_grads_batched)
    for i, g in enumerate(result):
        if g is None:
            if materialize_grads:
                result[i] = zeros_like(inputs[i])
            elif not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have "
                                   "been used in the graph. Set allow_unused=True if this is the "
                                   "desired behavior.")
    return tuple(result)


def _grad(roots, inputs, grads, retain_graph, create_graph, is_grads_batched):
    targets = [gradient_edge(t) for t in inputs]
    token = _checkpoint_state.enter(False)
    try:
        if is_grads_batched:
            return _batched_backward(roots, grads, retain_graph, create_graph, targets)
        return run_backward(roots, grads, retain_graph, create_graph, targets, accumulate=False)
    finally:
        _checkpoint_state.leave(token)


def _tensor_backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    backward(self, gradient, retain_graph, create_graph, inputs=inputs)


Tensor.backward = _tensor_backward
Tensor.resize, Tensor.resize_as = _functions.resize, _functions.resize_as


# after backward/grad: these modules call them (torch binds gradcheck the function over the module)
from . import functional  # noqa: E402,F401
from .gradcheck import gradcheck, gradgradcheck  # noqa: E402,F401
