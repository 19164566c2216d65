"""Saved tensors: what a node keeps for backward, with the version it had when saved, and the
messages PyTorch gives when that version moved or the graph was freed."""
import weakref

from .._tensor import Tensor, VersionCounter
from ..dtypes import from_numpy_dtype
from . import explain_hook
from .grad_mode import no_grad, state
from .node import grad_accumulator, short_name

_new = object.__new__
FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you "
    "call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward "
    "through the graph a second time or if you need to access saved tensors after calling "
    "backward.")
_DETACHED_MESSAGE = (
    "Trying to use a saved tensor that has been detached in-place, i.e. with .detach_().This is "
    "not supported, please use out-of-place `.detach()` instead")
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
    # view_fn: for an output of an in-place op on a view, a weak reference to the view's
    # grad_fn after the op (PyTorch's weak_grad_fn_ for is_inplace_on_view): the error names it
    # _counter: None for a kept input whose tensor had made no version counter yet (never
    # written: version 0); its counter is then the tensor's own, read when checked (PyTorch
    # checks the saved variable's current version too), and none is made to save it
    __slots__ = ("tensor", "data", "_counter", "version", "output_nr", "hooks", "meta",
                 "view_fn")

    def __init__(self, tensor, is_output, output_nr=0):
        self.output_nr = output_nr
        self.view_fn = None
        counter = tensor._vc
        if is_output:   # keep data only: the tensor's grad_fn is the saving node (no cycle)
            self.tensor, self.data = None, tensor._data
            if counter is None:     # (Tensor._version_counter, without its calls)
                counter = tensor._vc = _new(VersionCounter)
                counter.version = 0
        else:
            self.tensor, self.data = tensor, None
        self._counter = counter
        self.version = 0 if counter is None else counter.version
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
        self._counter, self.version = VersionCounter(), 0

    def register_hooks(self, pack_hook, unpack_hook):
        """Pack now with these hooks (RawSavedTensor.register_hooks checks the call)."""
        if self.hooks is not None:
            raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have already "
                               "been set. Hint: only one pair of hooks is allowed at a time.")
        t = self.tensor
        if t is None:       # an output: its data, without history
            self._pack(pack_hook, unpack_hook,
                       Tensor._make(self.data, counter=self.counter), _graph_meta(None, True))
        else:               # like PyTorch, the pack hook sees a detached alias
            self._pack(pack_hook, unpack_hook, t.detach(), _graph_meta(t, False))

    @property
    def counter(self):
        """The version counter checked on unpack."""
        c = self._counter
        return c if c is not None else self.tensor._version_counter

    @counter.setter
    def counter(self, counter):
        self._counter = counter

    def unpack(self, node):
        if self.hooks is not None:
            return self._unpack_hooked(node)
        c = self._counter
        if c is None:
            c = self.tensor._vc     # (None: the tensor made no counter, it was never written)
        if c is not None and c.version != self.version:
            raise self._modified(node)
        if self.tensor is not None:
            return self.tensor
        t = Tensor._make(self.data, True, node, self._counter)
        t._output_nr = self.output_nr
        return t

    def unpack_data(self, node):
        """unpack()'s array, without wrapping it (formulas that run on arrays)."""
        c = self._counter
        if c is None:
            c = self.tensor._vc
        if c is not None and c.version != self.version:
            raise self._modified(node)
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
        cls = Tensor
        if not isinstance(res, cls):
            raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got "
                            f"result of type {type(res).__name__}")
        # a new tensor on the returned data, with the saved tensor's place in the graph
        t = cls._make(res._data, requires_grad and fn is None, fn, res._version_counter)
        t._output_nr = self.output_nr
        if acc is not None:
            t._hooks().accumulator = weakref.ref(acc)
        return t

    def _modified(self, node):
        """PyTorch's error for a saved tensor modified in place since it was saved, with the
        facts an explainer needs (the node unpacking it, this saved tensor)."""
        return explain_hook.attach(RuntimeError(self._modified_message(node)), node=node,
                                   saved=self)

    def _modified_message(self, node):
        t = self.tensor
        if t is None:
            fn = (self.view_fn and self.view_fn()) or node    # (the node once the view died)
            shape, type_name, which = self.data.shape, self._type_name(self.data), (
                f", which is output {self.output_nr} of {short_name(fn)},")
        else:
            shape, type_name = t._data.shape, self._type_name(t._data)
            which = (f", which is output {t._output_nr} of {short_name(t.grad_fn)},"
                     if t.grad_fn is not None else "")
        return ("one of the variables needed for gradient computation has been modified by an "
                f"inplace operation: [{type_name} [{', '.join(map(str, shape))}]]{which} "
                f"is at version {self.counter.version}; expected version {self.version} instead. "
                + (_ANOMALY_HINT if state.anomaly else _HINT))

    @staticmethod
    def _type_name(data):
        """torch's legacy type name (torch.FloatTensor); the dtypes without a legacy Python
        type (complex, bfloat16) by their dispatch name, as torch's (CPUComplexFloatType)."""
        name = from_numpy_dtype(data.dtype).tensor_type
        return f"CPU{name[:-6]}Type" if name.startswith(("Complex", "BFloat")) else f"torch.{name}"


def _graph_meta(tensor, is_output):
    """What a tensor unpacked from hooks gets: (grad_fn, requires_grad, leaf accumulator,
    is output); an output's grad_fn is the node that unpacks it."""
    if is_output:
        return None, True, None, True
    fn = tensor.grad_fn
    return (fn, tensor.requires_grad,
            grad_accumulator(tensor) if fn is None and tensor._requires_grad else None, False)


def freed(node):
    """PyTorch's error for a node whose saved tensors a backward already freed."""
    return explain_hook.attach(RuntimeError(FREED_MESSAGE), node=node)


class RawSavedTensor:
    """What ``grad_fn._raw_saved_<name>`` gives (torch._C._autograd.SavedTensor). ``get()`` finds
    the SavedTensor in its node each time: None when nothing was saved, FREED after a backward
    freed the graph."""
    __slots__ = ("get",)
    FREED = object()

    def __init__(self, get=None):
        if get is None:     # (torch.autograd.SavedTensor: made by nodes only)
            raise RuntimeError("Trying to create a SavedTensor object from Python is forbidden.")
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
        return s.tensor if s.tensor is not None else Tensor._make(s.data, counter=s.counter)

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


