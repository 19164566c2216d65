"""View machinery (PyTorch's ViewMeta, CreationMeta and rebase_history): what a differentiable
view keeps, its regenerated grad_fn (AsStridedBackward0) after its base or another view of it
was modified in place, and CopySlices, the base's grad_fn after an in-place op on a view."""
from .. import dtypes
from .._autograd.node import Node, gradient_edge, move_retains_grad, short_name
from .._autograd.saved import freed
from ..backend import data_ptr

# PyTorch's refusal to write into a tensor some of whose elements share one memory location
SELF_OVERLAP_MESSAGE = (
    "unsupported operation: more than one element of the written-to tensor refers to a single "
    "memory location. Please clone() the tensor before performing the operation.")

# how a view was created (PyTorch's CreationMeta); a view of a view inherits a non-default one
DEFAULT, NO_GRAD_MODE, MULTI_OUTPUT_NODE, INFERENCE_MODE, IN_CUSTOM_FUNCTION = range(5)


class ViewMeta:
    """What a differentiable view keeps: the version its grad_fn was made at, how it was made."""
    __slots__ = ("version", "creation")

    def __init__(self, version, creation):
        self.version = version
        self.creation = creation

    def grad_fn(self, t):
        """The grad_fn of ``t``, the view this meta belongs to (Tensor.grad_fn asks)."""
        return view_grad_fn(t)


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
    off = data_ptr(d) - data_ptr(base)
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
    return gradient_edge(base) if base.requires_grad else (None, 0)


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
    if t._data.dtype != base._data.dtype:   # (an element-unit geometry would misplace it)
        raise NotImplementedError(
            "glassgrad cannot regenerate the grad_fn of a view whose dtype differs from its "
            "base's (view_as_real, real/imag of a complex tensor, view(dtype)) after the base "
            "or a view of it was modified in place")
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


def _dtype_of(data):
    return dtypes._FROM_NP[data.dtype]


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
        from .shape import as_strided_scatter
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
            raise freed(self)
        from .shape import as_strided_gather, as_strided_scatter, as_strided_zero
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


