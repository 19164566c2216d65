"""torch.autograd.graph: the graph's Node, and saved-tensor hooks (saved_tensors_hooks,
save_on_cpu, disable_saved_tensors_hooks, allow_mutation_on_saved_tensors)."""
import collections
import contextlib
import weakref

from .._autograd.grad_mode import state
from .._autograd.node import Node  # noqa: F401  (torch.autograd.graph.Node)
from ..backend import data_ptr


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
    return data_ptr(t._data)


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

