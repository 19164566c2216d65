"""The graph's pieces: Node, AccumulateGrad, SavedTensor, VersionCounter, hook handles.

No reference cycles: a node points back (to the nodes that made its inputs) and to the input
tensors it saved, never to its own outputs; an output it saves is kept as bare data and
re-wrapped on unpack. A graph is freed by reference counting as soon as its last user drops it.
"""
import collections
import contextlib
import itertools
import re
import sys
import weakref

from ..backend import ndarray, xp
from .anomaly_mode import record as _record_anomaly
from .grad_mode import no_grad, state

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
_DETACHED_MESSAGE = (
    "Trying to use a saved tensor that has been detached in-place, i.e. with .detach_().This is "
    "not supported, please use out-of-place `.detach()` instead")


class VersionCounter:
    """Shared by a tensor, its views and its detach()es; bumped by every in-place op.
    ``history`` (set on the first recorded bump): the last in-place ops, see provenance.py."""
    __slots__ = ("version", "history")

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


_HINT = ("Hint: enable anomaly detection to find the operation that failed to compute its "
         "gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).")
_ANOMALY_HINT = ("Hint: the backtrace further above shows the operation that failed to compute "
                 "its gradient. The variable in question was changed in there or anywhere later. "
                 "Good luck!")


class SavedTensor:
    """A tensor kept for backward, with the version it had when saved.

    Under saved-tensor hooks (or after ``register_hooks``) only what the pack hook returned is
    kept (``hooks``: (unpack hook, packed)), with the graph metadata the unpacked tensor gets
    (``meta``: grad_fn, requires_grad, leaf accumulator, is output); versions are then not
    checked (``counter`` is a private one that never moves), as in PyTorch."""
    __slots__ = ("tensor", "data", "counter", "version", "output_nr", "hooks", "meta")

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
        self.hooks = None
        if state.saved_hooks is not None:       # the one check saving costs without hooks
            if state.saved_hooks_disabled is not None:
                raise RuntimeError(state.saved_hooks_disabled)
            self._pack(*state.saved_hooks, tensor, _graph_meta(tensor, is_output))

    def _pack(self, pack_hook, unpack_hook, tensor, meta):
        """Keep pack_hook(tensor) instead of the tensor (PyTorch's set_hooks_and_pack_data)."""
        version = tensor._version_counter.version
        with no_grad():
            packed = pack_hook(tensor)
        if tensor._version_counter.version != version:
            raise RuntimeError(
                "A saved tensor pack hook is modifying its input in place. Tensors provided as "
                "input to pack hook cannot be modified by in-place operations as this can lead "
                "to unexpected side-effects. Please open an issue if you need to perform "
                "in-place operations on the input to a pack hook.")
        self.hooks, self.meta = (unpack_hook, packed), meta
        self.tensor = self.data = None
        self.counter, self.version = VersionCounter(), 0

    def register_hooks(self, pack_hook, unpack_hook):
        """Pack now with these hooks (RawSavedTensor.register_hooks checks the call)."""
        if self.hooks is not None:
            raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have already "
                               "been set. Hint: only one pair of hooks is allowed at a time.")
        t = self.tensor
        if t is None:       # an output: its data, without history
            self._pack(pack_hook, unpack_hook,
                       _tensor_cls()._make(self.data, counter=self.counter), _graph_meta(None, True))
        else:               # like PyTorch, the pack hook sees a detached alias
            self._pack(pack_hook, unpack_hook, t.detach(), _graph_meta(t, False))

    def unpack(self, node):
        if self.hooks is not None:
            return self._unpack_hooked(node)
        if self.counter.version != self.version:
            raise RuntimeError(self._modified_message(node))
        if self.tensor is not None:
            return self.tensor
        t = _tensor_cls()._make(self.data, True, node, self.counter)
        t._output_nr = self.output_nr
        return t

    def unpack_data(self, node):
        """unpack()'s array, without wrapping it (formulas that run on arrays)."""
        if self.counter.version != self.version:
            raise RuntimeError(self._modified_message(node))
        if self.data is not None:
            return self.data
        if self.tensor is not None:
            return self.tensor._data
        return self.unpack(node)._data

    def _unpack_hooked(self, node):
        fn, requires_grad, acc, is_output = self.meta
        if is_output:
            if node is None:
                raise RuntimeError(_DETACHED_MESSAGE)
            fn = node
        unpack_hook, packed = self.hooks
        res = unpack_hook(packed)
        cls = _tensor_cls()
        if not isinstance(res, cls):
            raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got "
                            f"result of type {type(res).__name__}")
        # a new tensor on the returned data, with the saved tensor's place in the graph
        t = cls._make(res._data, requires_grad and fn is None, fn, res._version_counter)
        t._output_nr = self.output_nr
        if acc is not None:
            t._hooks().accumulator = weakref.ref(acc)
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
                + (_ANOMALY_HINT if state.anomaly else _HINT))

    @staticmethod
    def _type_name(data):
        from ..dtypes import from_numpy_dtype
        return from_numpy_dtype(data.dtype).tensor_type


def _graph_meta(tensor, is_output):
    """What a tensor unpacked from hooks gets: (grad_fn, requires_grad, leaf accumulator,
    is output); an output's grad_fn is the node that unpacks it."""
    if is_output:
        return None, True, None, True
    fn = tensor.grad_fn
    return (fn, tensor.requires_grad,
            tensor._grad_accumulator() if fn is None and tensor._requires_grad else None, False)


class Node:
    """A backward function. Subclasses are named like PyTorch's (MulBackward0, AccumulateGrad)."""
    # _source: where user code made the node (provenance.py); set by whoever makes the node
    __slots__ = ("next_functions", "_sequence_nr", "_pre_hooks", "_hooks", "_tensor_pre_hooks",
                 "_retain_grad_hooks", "_input_metadata", "_metadata", "_source", "__weakref__")
    _arrays = False     # True: has apply_arrays (gradients as NumPy arrays, grad mode off)
    _exact = False      # True: apply_arrays' gradients need no _validate (OpDef.attach)

    def __init__(self, next_functions=(), input_metadata=()):
        self.next_functions = next_functions
        self._input_metadata = input_metadata    # (shape, dtype) of each forward output
        self._sequence_nr = next(_sequence)
        self._pre_hooks = self._hooks = self._tensor_pre_hooks = None
        self._retain_grad_hooks = self._metadata = None
        if state.anomaly:       # the forward traceback (anomaly_mode)
            _record_anomaly(self)

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
            tr = state.tracer
            for hook in tuple(hs.post_accumulate_grad_hooks.values()):
                if tr is None:
                    hook(var)
                else:
                    tr.call("post-accumulate-grad hook", self, hook, (var,))
        return ()

    def accumulate_array(self, grads):
        """apply() in array mode (the engine's fast path): ``grads[0]`` is a NumPy array or
        scalar; False (nothing done) when the leaf has hooks. The array becomes ``.grad`` as
        is when only the engine's buffer holds it (refcounts: the list, this frame,
        getrefcount's argument) and it owns its writable memory."""
        var, g = self.variable, grads[0]
        hs = var._hook_state
        if hs is not None and (hs.backward_hooks or hs.post_accumulate_grad_hooks):
            return False
        if var._grad is None:
            if not (type(g) is ndarray and _refcount(g) <= 3 and g.base is None
                    and g.flags.writeable):
                g = xp.array(g)
            var._grad = _tensor_cls()._make(g)
        else:
            var._grad._data += g
            var._grad._version_counter.version += 1
        return True

    def _tensor_hooks(self):
        hs = self.variable._hook_state
        return {0: hs.backward_hooks} if hs is not None and hs.backward_hooks else None


# -- views and in-place: CopySlices, regenerated view grad_fns -----------------------------------
# how a view was created (PyTorch's CreationMeta); a view of a view inherits a non-default one
DEFAULT, NO_GRAD_MODE, MULTI_OUTPUT_NODE, INFERENCE_MODE, IN_CUSTOM_FUNCTION = range(5)


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
    elif creation == IN_CUSTOM_FUNCTION:
        msg += (" This view was created inside a custom Function (or because an input was "
                "returned as-is) and the autograd logic to handle view+inplace would override the "
                "custom backward associated with the custom Function, leading to incorrect "
                "gradients. This behavior is forbidden. You can fix this by cloning the output of "
                "the custom Function.")
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
    old_nr = t._output_nr
    t._grad_fn = node
    t._output_nr = 0
    meta.version = version
    if t._hook_state is not None:
        move_retains_grad(t, fn, old_nr)
    return node


def move_retains_grad(t, old_fn, old_nr):
    """After ``t`` got a new grad_fn (an in-place op, a regenerated view grad_fn), a retained
    gradient comes from the new one, as PyTorch's update_tensor_hooks_on_new_gradfn does (hooks
    registered before stay on the old node)."""
    hooks = old_fn._retain_grad_hooks if old_fn is not None else None
    if hooks and t._hook_state.retains_grad and old_nr in hooks:
        new = t._grad_fn
        if new._retain_grad_hooks is None:
            new._retain_grad_hooks = {}
        new._retain_grad_hooks[t._output_nr] = hooks.pop(old_nr)


def _dtype_of(data):
    from ..dtypes import _FROM_NP
    return _FROM_NP[data.dtype]


class AsStridedBackward0(Node):
    """A view's regenerated grad_fn: the gradient lands in the view's region of the base."""
    __slots__ = ("_geom",)

    # the view's geometry, as torch exposes it (its offset is the base's storage offset 0 plus
    # the view's, in elements)
    _saved_size = property(lambda self: self._geom[2])
    _saved_stride = property(lambda self: self._geom[3])
    _saved_storage_offset = property(lambda self: self._geom[4])

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

    def name(self):
        return "torch::autograd::CopySlices"

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


# -- saved-tensor hooks --------------------------------------------------------------------------
class RawSavedTensor:
    """What ``grad_fn._raw_saved_<name>`` gives (torch._C._autograd.SavedTensor). ``get()`` finds
    the SavedTensor in its node each time: None when nothing was saved, FREED after a backward
    freed the graph."""
    __slots__ = ("get",)
    FREED = object()

    def __init__(self, get):
        self.get = get

    def _saved(self):
        s = self.get()
        if s is RawSavedTensor.FREED:
            raise RuntimeError(FREED_MESSAGE)
        return s

    @property
    def data(self):
        s = self.get()
        if s is None or s is RawSavedTensor.FREED:
            return None
        if s.hooks is not None:
            return s.hooks[1]
        return s.tensor if s.tensor is not None else _tensor_cls()._make(s.data, counter=s.counter)

    @property
    def unpack_hook(self):
        s = self.get()
        return None if s is None or s is RawSavedTensor.FREED or s.hooks is None else s.hooks[0]

    def unpack(self):
        s = self._saved()
        if s is None:
            return None
        if s.hooks is None and s.tensor is None:    # an output needs the node that saved it
            raise RuntimeError(_DETACHED_MESSAGE)
        return s.unpack(None)

    def register_hooks(self, *hooks):
        if len(hooks) != 2 or not all(callable(h) for h in hooks):
            raise TypeError("register_hooks(): incompatible function arguments. The following "
                            "argument types are supported:")
        s = self.get()
        if s is RawSavedTensor.FREED:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor after it has been freed. Saved "
                "intermediate values of the graph are freed when you call .backward() or "
                "autograd.grad(). Specify retain_graph=True if you need to backward through the "
                "graph a second time or if you need to access saved variables after calling "
                "backward.")
        if s is None:
            raise RuntimeError("Calling register_hooks on a saved tensor with value None is "
                               "forbidden")
        s.register_hooks(*hooks)

    def __repr__(self):
        return f"<torch._C._autograd.SavedTensor object at {hex(id(self))}>"


class saved_tensors_hooks:
    """Within the context, every tensor saved for backward is kept as ``pack_hook(tensor)`` and
    given back to backward (or ``grad_fn._saved_*``) as ``unpack_hook(packed)``; the innermost
    pair applies."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        if state.saved_hooks_disabled is not None:
            raise RuntimeError(state.saved_hooks_disabled)
        self.prev = state.saved_hooks
        state.saved_hooks = (self.pack_hook, self.unpack_hook)

    def __exit__(self, *exc):
        state.saved_hooks = self.prev


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors go to the CPU and come back to their device; every tensor here is on the
    CPU, so as in PyTorch only pin_memory=True packs a copy (into a new buffer)."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack_to_cpu(tensor):
            if not pin_memory:
                return tensor.device, tensor.cpu()
            return tensor.device, tensor.detach().clone()

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device)

        super().__init__(pack_to_cpu, unpack_from_cpu)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message):
    """Within the context, setting saved-tensor hooks (or saving under ones already set) raises
    RuntimeError(error_message)."""
    prev = state.saved_hooks_disabled
    try:
        state.saved_hooks_disabled = error_message
        yield
    finally:
        state.saved_hooks_disabled = prev


# allow_mutation_on_saved_tensors: saved tensors are packed as handles; an in-place op on a
# tensor whose (data address, version) matches a saved one first clones the saved original, so
# backward sees the value as it was saved (PyTorch's _swap_with_cloned + _CloneArgBeforeMutateMode)
_allow_mutation_enabled = False
_OUTSIDE_MESSAGE = ("Trying to backward outside of the 'allow_mutation_on_saved_tensors' context"
                    "in which the graph was originally recorded.")


class _Handle:
    pass


def _data_ptr(t):
    return t._data.__array_interface__["data"][0]


class _AllowMutationOnSavedContext:
    def __init__(self):
        self.cloned = weakref.WeakKeyDictionary()          # handle -> clone of the original
        self.original = weakref.WeakKeyDictionary()        # handle -> the tensor saved
        self.tid_to_weakhandle = weakref.WeakValueDictionary()
        self.sid_to_tid = collections.defaultdict(set)     # (address, version) -> tids

    def clear(self):
        self.cloned.clear()
        self.original.clear()
        self.tid_to_weakhandle.clear()
        self.sid_to_tid.clear()

    def pack(self, tensor):
        tid = (id(tensor), _data_ptr(tensor), tensor._version)
        self.sid_to_tid[tid[1:]].add(tid)
        handle = self.tid_to_weakhandle.get(tid)
        if handle is None:      # the same tensor at the same version shares one handle
            handle = self.tid_to_weakhandle[tid] = _Handle()
            self.original[handle] = tensor
        return handle

    def unpack(self, handle):
        if not _allow_mutation_enabled:
            raise AssertionError(_OUTSIDE_MESSAGE)
        if handle in self.cloned:
            return self.cloned[handle]
        if handle not in self.original:
            raise AssertionError(_OUTSIDE_MESSAGE)
        return self.original[handle]

    def before_mutation(self, tensor):
        """Called by every in-place op on ``tensor`` before it writes."""
        for tid in self.sid_to_tid.get((_data_ptr(tensor), tensor._version), ()):
            handle = self.tid_to_weakhandle.get(tid)
            if handle is None or handle in self.cloned:    # freed by a backward, or done
                continue
            self.cloned[handle] = self.original.pop(handle).clone()


@contextlib.contextmanager
def allow_mutation_on_saved_tensors():
    """Within the context, a tensor saved for backward may be modified in place: the saved value
    is cloned first. Forward and backward must both run inside the same context."""
    global _allow_mutation_enabled
    ctx = _AllowMutationOnSavedContext()
    prev_mutate = state.on_mutate
    with saved_tensors_hooks(ctx.pack, ctx.unpack):
        state.on_mutate = ctx.before_mutation
        try:
            if _allow_mutation_enabled:
                raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
            _allow_mutation_enabled = True
            yield ctx
        finally:
            state.on_mutate = prev_mutate
            ctx.clear()
            _allow_mutation_enabled = False
