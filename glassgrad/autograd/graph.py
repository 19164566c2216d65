"""The graph's pieces: Node, AccumulateGrad, SavedTensor, VersionCounter, hook handles.

No reference cycles: a node points back (to the nodes that made its inputs) and to the input
tensors it saved, never to its own outputs; an output it saves is kept as bare data and
re-wrapped on unpack. A graph is freed by reference counting as soon as its last user drops it.
"""
import itertools
import re
import sys

from .grad_mode import state

_refcount = sys.getrefcount
_TENSOR = []


def _tensor_cls():
    if not _TENSOR:
        from .._tensor import Tensor
        _TENSOR.append(Tensor)
    return _TENSOR[0]

_sequence = itertools.count()
_hook_ids = itertools.count()

# PyTorch's refusal to write into a tensor some of whose elements share one memory location
SELF_OVERLAP_MESSAGE = (
    "unsupported operation: more than one element of the written-to tensor refers to a single "
    "memory location. Please clone() the tensor before performing the operation.")
FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you "
    "call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward "
    "through the graph a second time or if you need to access saved tensors after calling "
    "backward.")


class VersionCounter:
    """Shared by a tensor, its views and its detach()es; bumped by every in-place op."""
    __slots__ = ("version",)

    def __init__(self):
        self.version = 0


class RemovableHandle:
    __slots__ = ("hooks", "id")

    def __init__(self, hooks):
        self.hooks = hooks
        self.id = next(_hook_ids)

    def remove(self):
        self.hooks.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def add_hook(hooks, fn):
    handle = RemovableHandle(hooks)
    hooks[handle.id] = fn
    return handle


def short_name(node):
    """The node name PyTorch's saved-tensor message uses: 'Add' for AddBackward0, 'Pow1' for
    PowBackward1 (only a trailing Backward0 goes whole)."""
    return re.sub(r"Backward(0?)(\d*)$", r"\2", node.name())


class SavedTensor:
    """A tensor kept for backward, with the version it had when saved."""
    __slots__ = ("tensor", "data", "counter", "version", "output_nr")

    def __init__(self, tensor, is_output, output_nr=0):
        self.counter = tensor._version_counter
        self.version = self.counter.version
        self.output_nr = output_nr
        if is_output:   # keep data only: the tensor's grad_fn is the saving node (no cycle)
            self.tensor, self.data = None, tensor._data
        else:
            self.tensor, self.data = tensor, None
        if tensor._inference:
            raise RuntimeError(
                "Inference tensors cannot be saved for backward. Please do not use Tensors "
                "created in inference mode in computation tracked by autograd. To work around "
                "this, you can make a clone to get a normal tensor and use it in autograd, or use "
                "`torch.no_grad()` instead of `torch.inference_mode()`.")

    def unpack(self, node):
        if self.counter.version != self.version:
            raise RuntimeError(self._modified_message(node))
        if self.tensor is not None:
            return self.tensor
        t = _tensor_cls()._make(self.data, True, node, self.counter)
        t._output_nr = self.output_nr
        return t

    def _modified_message(self, node):
        t = self.tensor
        if t is None:
            shape, type_name, which = self.data.shape, self._type_name(self.data), (
                f", which is output {self.output_nr} of {short_name(node)},")
        else:
            shape, type_name = t._data.shape, self._type_name(t._data)
            which = (f", which is output {t._output_nr} of {short_name(t.grad_fn)},"
                     if t.grad_fn is not None else "")
        return ("one of the variables needed for gradient computation has been modified by an "
                f"inplace operation: [torch.{type_name} [{', '.join(map(str, shape))}]]{which} "
                f"is at version {self.counter.version}; expected version {self.version} instead. "
                "Hint: enable anomaly detection to find the operation that failed to compute its "
                "gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).")

    @staticmethod
    def _type_name(data):
        from ..dtypes import from_numpy_dtype
        return from_numpy_dtype(data.dtype).tensor_type


class Node:
    """A backward function. Subclasses are named like PyTorch's (MulBackward0, AccumulateGrad)."""
    __slots__ = ("next_functions", "_sequence_nr", "_pre_hooks", "_hooks", "_tensor_pre_hooks",
                 "_retain_grad_hooks", "_input_metadata", "_metadata", "__weakref__")

    def __init__(self, next_functions=(), input_metadata=()):
        self.next_functions = next_functions
        self._input_metadata = input_metadata    # (shape, dtype) of each forward output
        self._sequence_nr = next(_sequence)
        self._pre_hooks = self._hooks = self._tensor_pre_hooks = None
        self._retain_grad_hooks = self._metadata = None

    def name(self):
        return type(self).__name__

    @property
    def requires_grad(self):
        return True

    @property
    def metadata(self):
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    def register_hook(self, fn):
        """fn(grad_inputs, grad_outputs) runs after the node; it may return new grad_inputs."""
        if self._hooks is None:
            self._hooks = {}
        return add_hook(self._hooks, fn)

    def register_prehook(self, fn):
        """fn(grad_outputs) runs before the node; it may return new grad_outputs."""
        if self._pre_hooks is None:
            self._pre_hooks = {}
        return add_hook(self._pre_hooks, fn)

    def _register_tensor_hook(self, output_nr, fn):
        if self._tensor_pre_hooks is None:
            self._tensor_pre_hooks = {}
        return add_hook(self._tensor_pre_hooks.setdefault(output_nr, {}), fn)

    def _tensor_hooks(self):
        """{output_nr: {id: hook}} of the tensors this node produced."""
        return self._tensor_pre_hooks

    def apply(self, grads):
        """grads: one gradient per forward output -> one per entry of next_functions."""
        raise NotImplementedError

    def release(self):
        """Free saved buffers (after a backward without retain_graph)."""

    def __repr__(self):
        return f"<{type(self).__name__} object at {hex(id(self))}>"


class AccumulateGrad(Node):
    """The sink of a leaf: adds incoming gradients into ``variable.grad``."""
    __slots__ = ("variable",)

    def __init__(self, variable):
        super().__init__((), ((variable.shape, variable.dtype),))
        self.variable = variable
        self._sequence_nr = float("inf")   # PyTorch runs accumulators as soon as they are ready

    def name(self):
        return "torch::autograd::AccumulateGrad"

    def apply(self, grads):
        var, grad = self.variable, grads[0]
        if var._grad is None:
            # the new .grad must not alias anything the user holds, unless it carries a graph;
            # a buffer only the engine holds (refcounts: this frame, grads, getrefcount's
            # argument; an owning, writable array nothing else refers to) is taken as is
            if state.grad:
                var._grad = grad
            elif (_refcount(grad) <= 3 and grad._hook_state is None and grad.grad_fn is None
                  and _refcount(grad._data) <= 2 and grad._data.base is None
                  and grad._data.flags.writeable):
                var._grad = grad
            else:
                var._grad = _tensor_cls()._make(grad._data.copy())
        elif state.grad:    # create_graph: out of place, so the sum stays differentiable
            var._grad = var._grad + grad
        else:
            var._grad._data += grad._data
            var._grad._version_counter.version += 1
        hs = var._hook_state
        if hs is not None and hs.post_accumulate_grad_hooks:
            for hook in tuple(hs.post_accumulate_grad_hooks.values()):
                hook(var)
        return ()

    def _tensor_hooks(self):
        hs = self.variable._hook_state
        return {0: hs.backward_hooks} if hs is not None and hs.backward_hooks else None


# -- views and in-place: CopySlices, regenerated view grad_fns -----------------------------------
# how a view was created (PyTorch's CreationMeta); a view of a view inherits a non-default one
DEFAULT, NO_GRAD_MODE, MULTI_OUTPUT_NODE, INFERENCE_MODE = range(4)


class ViewMeta:
    """What a differentiable view keeps: the version its grad_fn was made at, how it was made."""
    __slots__ = ("version", "creation")

    def __init__(self, version, creation):
        self.version = version
        self.creation = creation


def view_meta(src, version, grad, inference, multi=False):
    """The ViewMeta of a new view of ``src`` (PyTorch's as_view + propagate_creation_meta)."""
    creation = (INFERENCE_MODE if inference else
                (MULTI_OUTPUT_NODE if multi else DEFAULT) if grad else NO_GRAD_MODE)
    prev = src._view
    if prev is not None:
        if creation == DEFAULT or prev.creation == INFERENCE_MODE:
            creation = prev.creation
    return ViewMeta(version, creation)


def view_geometry(view):
    """(base shape, base strides, view shape, view strides, view offset), in elements, the
    offset relative to the base's first element."""
    base, d = view._base._data, view._data
    it = d.itemsize
    off = (d.__array_interface__["data"][0] - base.__array_interface__["data"][0])
    return (base.shape, tuple(s // it for s in base.strides), d.shape,
            tuple(s // it for s in d.strides), off // it)


def view_rebase_error(t, indirect):
    """PyTorch's handle_view_on_rebase message for a view made with a non-default CreationMeta."""
    creation, fn = t._view.creation, t._grad_fn
    modified = "its base or another view of its base has been" if indirect else "is being"
    if creation in (INFERENCE_MODE, NO_GRAD_MODE) or fn is None:
        prefix = (f"Output {t._output_nr} of {short_name(fn)} is a view of a view which was "
                  "created in" if fn is not None else "A view was created in")
        if creation == INFERENCE_MODE:
            msg = f"{prefix} inference mode and {modified} modified inplace in normal mode."
        else:
            msg = f"{prefix} no_grad mode and {modified} modified inplace with grad mode enabled."
    else:
        msg = f"Output {t._output_nr} of {short_name(fn)} is a view and {modified} modified inplace."
    if creation == MULTI_OUTPUT_NODE:
        msg += (" This view is the output of a function that returns multiple views. Such "
                "functions do not allow the output views to be modified inplace. You should "
                "replace the inplace operation by an out-of-place one.")
    elif creation == NO_GRAD_MODE:
        msg += (" Given that this use case is ambiguous and error-prone, it is forbidden. You can "
                "clarify your code by moving both the view and the inplace either both inside the "
                "no_grad block (if you don't want the inplace to be tracked) or both outside (if "
                "you want the inplace to be tracked).")
    elif creation == INFERENCE_MODE:
        msg += (" Given that this use case is ambiguous and error-prone, it is forbidden. You can "
                "clarify your code by moving both the view and the inplace either both inside the "
                "inference_mode block (if you don't want the inplace to be tracked) or both "
                "outside (if you want the inplace to be tracked).")
    return RuntimeError(msg)


def _base_edge(base):
    return base._gradient_edge() if base.requires_grad else (None, 0)


def view_grad_fn(t):
    """A differentiable view's grad_fn: after its base or another view of it was modified in
    place (its version moved), an AsStridedBackward0 from the base's current history."""
    meta = t._view
    version = t._version_counter.version
    fn = t._grad_fn
    if meta.version == version:
        return fn
    base = t._base
    if fn is None and not base.requires_grad:
        return None
    if meta.creation != DEFAULT:
        raise view_rebase_error(t, True)
    node = AsStridedBackward0((_base_edge(base),),
                              ((t._data.shape, _dtype_of(t._data)),))
    node._geom = view_geometry(t)
    t._grad_fn = node
    t._output_nr = 0
    meta.version = version
    return node


def _dtype_of(data):
    from ..dtypes import _FROM_NP
    return _FROM_NP[data.dtype]


class AsStridedBackward0(Node):
    """A view's regenerated grad_fn: the gradient lands in the view's region of the base."""
    __slots__ = ("_geom",)

    def apply(self, grads):
        g = grads[0]
        if g is None or self.next_functions[0][0] is None:
            return [None]
        from ..ops.shape import as_strided_scatter
        return [as_strided_scatter(g, geom=self._geom)]


class CopySlices(Node):
    """The base's grad_fn after an in-place op on one of its views: the base's gradient with the
    view's region replaced by what the in-place op's node ``fn`` gives for it."""
    __slots__ = ("_geom", "fn")

    def name(self):
        return "torch::autograd::CopySlices"

    def __init__(self, base, geom, fn):
        super().__init__((_base_edge(base), *fn.next_functions[1:]),
                         ((base._data.shape, _dtype_of(base._data)),))
        self._geom = geom
        self.fn = fn

    def apply(self, grads):
        g = grads[0]
        if g is None:
            return [None] * len(self.next_functions)
        fn = self.fn
        if fn is None:
            raise RuntimeError(FREED_MESSAGE)
        from ..ops.shape import as_strided_gather, as_strided_scatter, as_strided_zero
        geom = self._geom
        res = list(fn.apply([as_strided_gather(g, geom=geom)]))
        if self.next_functions[0][0] is not None:
            r0 = res[0]
            if r0 is not None and any(st == 0 and n > 1 for n, st in zip(geom[2], geom[3])):
                # PyTorch copies the view's gradient into its region of the base's: refused
                # when the view overlaps itself (an expand that zero_/fill_ wrote through)
                raise RuntimeError(SELF_OVERLAP_MESSAGE)
            res[0] = as_strided_zero(g, geom=geom)
            if r0 is not None:
                if r0.shape != geom[2] or r0.dtype is not g.dtype:
                    r0 = r0.expand(*geom[2]).to(g.dtype)
                res[0] = res[0] + as_strided_scatter(r0, geom=geom)
        else:
            res[0] = None
        return res

    def release(self):
        if self.fn is not None:
            self.fn.release()
            self.fn = None


def reachable_leaves(roots):
    """The leaf tensors (AccumulateGrad variables) the nodes ``roots`` lead to, each once."""
    seen, stack = set(roots), list(roots)
    while stack:
        node = stack.pop()
        if isinstance(node, AccumulateGrad):
            yield node.variable
            continue
        for nxt, _ in node.next_functions:
            if nxt is not None and nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
