"""Custom autograd Functions: ``class F(Function)`` with static forward/backward, ``F.apply``.

Every Function subclass gets a node class ``<Name>Backward``; one instance of it is both the
``ctx`` the user's forward/setup_context/backward see and the ``grad_fn`` of the outputs, as in
PyTorch. Outputs the user saves are kept as bare data (SavedTensor(is_output=True)), so the
node never references its own outputs.
"""
import functools
import inspect
import warnings

from .._autograd.node import Node, gradient_edge, move_retains_grad
from .._autograd.saved import RawSavedTensor, SavedTensor, freed
from ..ops.views import IN_CUSTOM_FUNCTION, MULTI_OUTPUT_NODE, view_meta
from .._autograd.grad_mode import no_grad, state
from .._autograd.provenance import bumped, site
from .._creation import zeros
from .._tensor import Tensor
from ..ops.registry import _check_view_inplace, _rebase_view

_FREED = object()

_LEGACY_MESSAGE = (
    "Legacy autograd function with non-static forward method is deprecated. Please use "
    "new-style autograd function with static forward method. (Example: "
    "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")
_DIRTY_NOT_RETURNED = (
    "Some elements marked as dirty during the forward method were not returned as output. The "
    "inputs that are modified inplace must all be outputs of the Function.")
_DIRTY_VIEW_MULTI = (
    "If your Function modifies inplace an input that is a view of another Tensor, your Function "
    "cannot return more than one Tensor. This is not supported by the current autograd engine. "
    "You should either make sure the input is not a view (using .clone() for example) or make "
    "your Function only return one Tensor (potentially splitting it into two Functions: one "
    "doing the inplace that returns a single Tensor and a second one that does the other "
    "operations). You can ask on the forum https://discuss.pytorch.org/ if you need help to do "
    "this change.")
_ONCE_MESSAGE = ("trying to differentiate twice a function that was marked with "
                 "@once_differentiable")


class FunctionCtx:
    """What forward/setup_context use to hand state to backward."""

    def save_for_backward(self, *tensors):
        self.to_save = tensors

    def save_for_forward(self, *tensors):
        """Tensors the jvp staticmethod reads back as ``ctx.saved_tensors``."""
        self.saved_for_forward = tensors

    def mark_dirty(self, *args):
        self.dirty_tensors = args

    def mark_non_differentiable(self, *args):
        self.non_differentiable = args

    def set_materialize_grads(self, value):
        self.materialize_grads = value


class BackwardCFunction(Node, FunctionCtx):
    """The node of one Function call; subclassed per Function as ``<Name>Backward``."""
    _forward_cls = None

    def __init__(self, next_functions):
        super().__init__(next_functions)
        self.to_save = self.dirty_tensors = self.non_differentiable = None
        self.materialize_grads = True
        self.needs_input_grad = ()
        self._saved = ()
        self._jvp_saved = None
        self._tensor_inputs = ()    # per forward argument: was it a tensor?

    @property
    def saved_tensors(self):
        if self._jvp_saved is not None:     # inside jvp: what save_for_forward saved
            return self._jvp_saved
        if self._saved is _FREED:
            raise freed(self)
        return tuple(None if s is None else s.unpack(self) for s in self._saved)

    @property
    def _raw_saved_tensors(self):
        if self._saved is _FREED:
            raise freed(self)
        return tuple(RawSavedTensor(lambda i=i: self._raw_get(i)) for i in range(len(self._saved)))

    def _raw_get(self, i):
        return RawSavedTensor.FREED if self._saved is _FREED else self._saved[i]

    def release(self):
        self._saved = _FREED

    def _user_backward(self):
        cls = self._forward_cls
        if cls.backward is not Function.backward and cls.vjp is not Function.vjp:
            raise RuntimeError("Implementing both 'backward' and 'vjp' for a custom Function is "
                               "not allowed. You should only implement one of them.")
        return cls.vjp if cls.vjp is not Function.vjp else cls.backward

    def apply(self, grads):
        if self.materialize_grads:   # outputs that got no gradient get zeros (not non-tensors)
            grads = [zeros(meta[0], dtype=meta[1]) if g is None and meta[0] is not None else g
                     for g, meta in zip(grads, self._input_metadata)]
        result = self._user_backward()(self, *grads)
        result = result if isinstance(result, tuple) else (result,)
        n = len(self._tensor_inputs)
        if len(result) > n and all(g is None for g in result[n:]):
            result = result[:n]     # surplus Nones are forgiven, as in PyTorch
        if len(result) != n:
            raise RuntimeError(f"function {self.name()} returned an incorrect number of gradients "
                               f"(expected {n}, got {len(result)})")
        out = []
        for i, (g, is_tensor) in enumerate(zip(result, self._tensor_inputs)):
            if g is not None and not isinstance(g, Tensor):
                raise RuntimeError(f"expected Variable or None (got {type(g).__name__})")
            if not is_tensor:
                if g is not None:
                    raise RuntimeError(f"function {self.name()} returned a gradient different "
                                       f"than None at position {i + 1}, but the corresponding "
                                       "forward input was not a Variable")
                continue
            out.append(g)
        return out


class Function(FunctionCtx):
    """Base class of custom differentiable operations; call them with ``F.apply(...)``."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._backward_cls = type(cls.__name__ + "Backward", (BackwardCFunction,),
                                 {"_forward_cls": cls})

    def __init__(self, *args, **kwargs):
        warnings.warn(f"{self.__class__} should not be instantiated. Methods on autograd "
                      "functions are all static, so you should invoke them on the class itself. "
                      "Instantiating an autograd function will raise an error in a future "
                      "version of PyTorch.", DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError(_LEGACY_MESSAGE)

    @staticmethod
    def forward(*args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward mode "
                                  "AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError("You must implement the jvp function for custom autograd."
                                  "Function to use it with forward mode AD.")

    @classmethod
    def apply(cls, *args, **kwargs):
        separate_setup = cls.setup_context is not Function.setup_context
        if separate_setup:      # setup_context sees every argument, defaults filled in
            bound = inspect.signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = bound.args, bound.kwargs
        is_tensor = tuple(isinstance(a, Tensor) for a in args)
        needs = tuple(t and a.requires_grad for t, a in zip(is_tensor, args))
        record = state.grad and any(needs)
        ctx = cls._backward_cls(tuple(
            gradient_edge(a) if need and record else (None, 0)
            for a, t, need in zip(args, is_tensor, needs) if t))
        ctx.needs_input_grad = needs
        ctx._tensor_inputs = is_tensor
        ctx._source = site() if record else None
        handler, state.handler = state.handler, None      # the forward sees no tangents
        try:
            with no_grad():
                if separate_setup:
                    output = cls.forward(*args, **kwargs)
                    cls.setup_context(ctx, args, output)
                else:
                    output = cls.forward(ctx, *args, **kwargs)
        finally:
            state.handler = handler
        result = _wrap_outputs(ctx, args, output, record)
        if handler is not None:     # a forward AD level may be active: tangents from jvp
            from .forward_ad import function_jvp
            function_jvp(cls, ctx, args, result)
        return result


def _alias(t):
    """A new tensor sharing ``t``'s data and version (PyTorch's view_as(self), made without
    grad): a view of ``t``."""
    a = Tensor._make(t._data, counter=t._version_counter)
    a._base = t if t._base is None else t._base
    a._inference = t._inference
    if t.dtype.is_floating_point or t.dtype.is_complex:
        a._view = view_meta(t, t._version_counter.version, False, t._inference)
    return a


def _wrap_outputs(ctx, args, output, record):
    """Give the outputs their history (or none) and save what the forward asked to save."""
    is_tuple = isinstance(output, tuple)
    outs = list(output if is_tuple else (output,))
    inputs = {id(a) for a in args if isinstance(a, Tensor)}
    dirty = {id(t) for t in ctx.dirty_tensors or ()}
    non_diff = {id(t) for t in ctx.non_differentiable or ()}
    for t in ctx.dirty_tensors or ():
        t._version_counter.version += 1     # PyTorch bumps marked tensors once more
        bumped(t, ctx.name())
    if sum(1 for o in outs if id(o) in dirty) < len(dirty):
        raise RuntimeError(_DIRTY_NOT_RETURNED)
    meta = []
    n_diff = 0      # differentiable outputs
    for i, var in enumerate(outs):
        if not isinstance(var, Tensor):
            meta.append((None, None))
            continue
        meta.append((var.shape, var.dtype))
        is_input, modified = id(var) in inputs, id(var) in dirty
        if not (record and id(var) not in non_diff and var.is_floating_point()):
            if not var.requires_grad:
                if is_input and not modified:
                    outs[i] = _alias(var)
            elif is_input:
                outs[i] = var.detach()
            elif var._base is None:
                var.detach_()
            continue
        n_diff += 1
        if modified:
            if var._grad_fn is None and var.requires_grad:
                raise RuntimeError("a leaf Variable that requires grad has been used in an "
                                   "in-place operation.")
            if var._view is not None and len(outs) > 1:
                raise RuntimeError(_DIRTY_VIEW_MULTI)
            var._grad = None
            hs, old = var._hook_state, (var._grad_fn, var._output_nr)
            if hs is not None:      # the old history's hooks and accumulator go with it
                hs.backward_hooks = hs.accumulator = None
            if var._view is not None:   # like an in-place op on a view: the base is rebased
                _check_view_inplace(var, True)
                _rebase_view(var, ctx, *old)
                continue
            var.grad_fn, var._output_nr = ctx, i
            if hs is not None:      # a retained gradient now comes from ctx
                move_retains_grad(var, *old)
            continue
        elif is_input:
            var = outs[i] = _alias(var)
        var.grad_fn, var._output_nr = ctx, i
    # views among the outputs (made inside forward, or inputs returned as-is) refuse in-place
    # ops later, as PyTorch's CreationMeta IN_CUSTOM_FUNCTION / MULTI_OUTPUT_NODE make them
    for i, var in enumerate(outs):
        if isinstance(var, Tensor) and var._view is not None and not (
                id(var) in dirty and id(var) in inputs):
            var._view.creation = MULTI_OUTPUT_NODE if n_diff > 1 else IN_CUSTOM_FUNCTION
    ctx._input_metadata = tuple(meta)
    if record:
        ctx._saved = tuple(_save(ctx, t, i, outs) for i, t in enumerate(ctx.to_save or ()))
    # drop the forward's lists: a dirty output's grad_fn is ctx, so keeping them makes a cycle
    ctx.to_save = ctx.dirty_tensors = ctx.non_differentiable = None
    if state.handler is None:       # (function_jvp reads them, then drops them)
        ctx.saved_for_forward = None
    return tuple(outs) if is_tuple else outs[0]


def _save(ctx, t, i, outs):
    if t is None:
        return None
    if not isinstance(t, Tensor):
        raise TypeError(f"save_for_backward can only save variables, but argument {i} is of "
                        f"type {type(t).__name__}")
    if t.grad_fn is ctx:    # one of our own outputs: data only, no cycle
        return SavedTensor(t, True, t._output_nr)
    return SavedTensor(t, False)


class Error(Node):
    """A node that raises when backward reaches it (PyTorch's DelayedError)."""
    __slots__ = ("message",)

    def __init__(self, message, next_functions, input_metadata):
        super().__init__(next_functions, input_metadata)
        self.message = message

    def name(self):
        return "torch::autograd::Error"

    def apply(self, grads):
        raise RuntimeError(self.message)


def once_differentiable(fn):
    """Run a backward without recording; its results refuse to be differentiated again."""
    @functools.wraps(fn)
    def wrapper(ctx, *args, **kwargs):
        with no_grad():
            outputs = fn(ctx, *args, **kwargs)
        if not state.grad_enabled:
            return outputs
        if not any(isinstance(a, Tensor) and a.requires_grad for a in args):
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        # each result hangs off an Error node whose inputs are fresh leaves requiring grad
        leaves = []
        for v in outs:
            if v is not None:
                v = v.detach()
                v.requires_grad = True
            leaves.append(v)
        node = Error(_ONCE_MESSAGE,
                     tuple(gradient_edge(v) if v is not None else (None, 0) for v in leaves),
                     tuple((v.shape, v.dtype) if v is not None else (None, None)
                           for v in leaves))
        wrapped = []
        for i, v in enumerate(leaves):
            if v is not None:
                v = Tensor._make(v._data, False, node)
                v._output_nr = i
            wrapped.append(v)
        return wrapped[0] if single else tuple(wrapped)
    return wrapper
