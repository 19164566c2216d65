"""Tensor: an array plus autograd state. Math lives in ops/; the methods here delegate."""
import copy
import warnings
import weakref

from . import _overrides, dtypes
from ._device import CPU
from ._formats import strided
from ._storage import rebuild, storage_of, typed_storage_of
from ._autograd import explain_hook
from ._autograd.grad_mode import state
from ._autograd.hooks import add_hook
from ._autograd.provenance import leaf_created
from ._printing import tensor_repr
from .backend import bfloat16 as _np_bfloat16, data_ptr, ndarray, xp


class VersionCounter:
    """Shared by a tensor, its views and its detach()es; bumped by every in-place op.
    ``history`` (set on the first recorded bump): the last in-place ops, see provenance.py.
    A tensor makes its counter on first use (Tensor._version_counter)."""
    __slots__ = ("version", "history")

    def __init__(self):
        self.version = 0


class Size(tuple):
    """torch.Size: a tuple that prints as ``torch.Size([2, 3])``."""

    def __repr__(self):
        return f"torch.Size({list(self)})"

    __str__ = __repr__

    def __getitem__(self, index):
        item = tuple.__getitem__(self, index)
        return Size(item) if isinstance(index, slice) else item

    def __add__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple(self) + tuple(other))

    def __radd__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple(other) + tuple(self))

    def __mul__(self, n):
        return Size(tuple(self) * n)

    __rmul__ = __mul__

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n


# the C++ type names torch's messages use for a dtype's element type
_CPP_NAMES = dtypes.C10_NAMES


class _HookState:
    """Rarely used per-tensor autograd state, created on first use."""
    __slots__ = ("backward_hooks", "post_accumulate_grad_hooks", "accumulator", "retains_grad",
                 "source")

    def __init__(self):
        self.backward_hooks = self.post_accumulate_grad_hooks = self.accumulator = None
        self.source = None      # where the leaf started to require grad (provenance.py)
        self.retains_grad = False

    def leaf_hooked(self):
        """A hook was added to the leaf: its AccumulateGrad (if made) takes the engine's hook
        path (Node._plain)."""
        node = self.accumulator and self.accumulator()
        if node is not None:
            node._plain = False


_NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad field "
    "to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you "
    "access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See "
    "github.com/pytorch/pytorch/pull/30531 for more information.")


_CONJ = {}      # id -> weak reference of each tensor that carries torch's conjugate bit


def conj_bit(t):
    """Whether ``t`` carries torch's conjugate bit (ops/complex.py's conj sets it; glassgrad
    computes the conjugate, the bit is what torch's tensor would report)."""
    ref = _CONJ.get(id(t))
    return ref is not None and ref() is t


def set_conj_bit(t):
    key = id(t)
    _CONJ[key] = weakref.ref(t, lambda _, key=key: _CONJ.pop(key, None))


_NEG = {}       # id -> weak reference of each tensor that carries torch's negative bit


def neg_bit(t):
    """Whether ``t`` carries torch's negative bit (the imaginary part of a conjugate: the
    values are computed, the bit is what torch's tensor would report)."""
    ref = _NEG.get(id(t))
    return ref is not None and ref() is t


def set_neg_bit(t):
    key = id(t)
    _NEG[key] = weakref.ref(t, lambda _, key=key: _NEG.pop(key, None))


def carry_bits(src, t):
    """``t``, a view of ``src`` (or its detach()), carries src's conjugate and negative bits
    when its dtype is src's, as torch's views do (``.real``/``.imag`` of a conjugate are
    not conjugates)."""
    if t._data.dtype == src._data.dtype:
        if conj_bit(src):
            set_conj_bit(t)
        if neg_bit(src):
            set_neg_bit(t)


def _readonly(name, getter):
    """A metadata property that refuses assignment with torch's message."""
    def refuse(self, value):
        raise AttributeError(f"attribute '{name}' of 'torch._C.TensorBase' objects is not "
                             "writable")
    return property(getter, refuse)


def no_arguments(name, args, kwargs):
    """PyTorch's refusal of arguments to a method that takes none (CPython's text for a C
    method without parameters, called bound: keywords are looked at first)."""
    if kwargs:
        return TypeError(f"Tensor.{name}() takes no keyword arguments")
    return TypeError(f"Tensor.{name}() takes no arguments ({len(args)} given)")


class Tensor:
    # _vc: the version counter, None until first used (Tensor._version_counter)
    __slots__ = ("_data", "_grad", "_grad_fn", "_output_nr", "_vc", "_base",
                 "_requires_grad", "_inference", "_hook_state", "_view", "_fw", "__weakref__")
    __hash__ = object.__hash__
    __array_priority__ = 1000     # NumPy scalars defer to our reflected dunders, as torch's

    def __init_subclass__(cls, **kwargs):
        # a subclass takes the ops' fast dtype paths like Tensor itself; one that keeps the
        # __torch_function__ protocol (not nn.Parameter) gets its calls through dispatch
        super().__init_subclass__(**kwargs)
        dtypes.TENSOR_TYPES.add(cls)
        if _overrides.overrides(cls):
            _overrides.wrap_methods(cls)
        else:
            _overrides.add_plain(cls)

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        """torch's default: run ``func`` with the protocol off, its tensors made ``cls``."""
        if not all(issubclass(cls, t) for t in types):
            return NotImplemented
        with _overrides.DisableTorchFunctionSubclass():
            return _overrides.convert(func(*args, **(kwargs or {})), cls)

    @classmethod
    def _make(cls, data, requires_grad=False, grad_fn=None, counter=None):
        t = _new(cls)
        t._data = data
        t._grad = t._base = t._hook_state = t._view = None
        t._grad_fn = grad_fn
        t._output_nr = 0
        t._vc = counter
        t._requires_grad = requires_grad
        t._inference = state._inference
        return t

    @property
    def _version_counter(self):
        """The VersionCounter this tensor shares with its views and detach()es, made on first
        use: most results are never written in place, viewed or saved by an op that checks
        them, and a counter not made is an object the cyclic collector need not track."""
        vc = self._vc
        if vc is None:
            vc = self._vc = _VersionCounter()
        return vc

    @_version_counter.setter
    def _version_counter(self, counter):
        self._vc = counter

    # -- metadata ----------------------------------------------------------------------------
    @property
    def dtype(self):
        return dtypes._FROM_NP[self._data.dtype]

    @property
    def shape(self):
        return Size(self._data.shape)

    def size(self, dim=None):
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[_wrap_dim(dim, self._data.ndim, scalar=False)]

    def dim(self, *args, **kwargs):
        if args or kwargs:
            raise no_arguments("dim", args, kwargs)
        return self._data.ndim

    ndim = property(dim)

    def numel(self, *args, **kwargs):
        if args or kwargs:
            raise no_arguments("numel", args, kwargs)
        return self._data.size

    def nelement(self, *args, **kwargs):
        if args or kwargs:
            raise no_arguments("nelement", args, kwargs)
        return self._data.size

    def element_size(self, *args, **kwargs):
        if args or kwargs:
            raise no_arguments("element_size", args, kwargs)
        return self._data.itemsize

    def stride(self, dim=None):
        if self._data.size == 0 and not any(self._data.strides):
            # NumPy zeroes an empty array's strides; torch lays it out contiguously (size 0 as 1)
            s, n = [], 1
            for size in reversed(self._data.shape):
                s.append(n)
                n *= max(size, 1)
            s = tuple(reversed(s))
        else:
            s = tuple(st // self._data.itemsize for st in self._data.strides)
        return s if dim is None else s[_wrap_dim(dim, self._data.ndim)]

    def storage(self, *args, **kwargs):
        """The tensor's storage as a TypedStorage of its dtype (deprecated in torch)."""
        if args or kwargs:
            raise no_arguments("storage", args, kwargs)
        return typed_storage_of(self)

    def untyped_storage(self, *args, **kwargs):
        if args or kwargs:
            raise no_arguments("untyped_storage", args, kwargs)
        return storage_of(self._data)[0]

    def storage_offset(self, *args, **kwargs):
        if args or kwargs:
            raise no_arguments("storage_offset", args, kwargs)
        storage, low = storage_of(self._data)
        return (data_ptr(self._data) - low) // self._data.itemsize

    def data_ptr(self, *args, **kwargs):
        if args or kwargs:
            raise no_arguments("data_ptr", args, kwargs)
        if state.vmap is not None:
            state.vmap.refuse("data_ptr", self)
        storage, low = storage_of(self._data)
        # torch: the storage's address (0 for no bytes) plus the offset
        return data_ptr(self._data) - (low if storage.nbytes() == 0 else 0)

    def is_contiguous(self, memory_format=None):
        return self._data.flags.c_contiguous

    def is_floating_point(self, *args, **kwargs):
        if args or kwargs:
            raise no_arguments("is_floating_point", args, kwargs)
        return self.dtype.is_floating_point

    def is_inference(self, *args, **kwargs):
        if args or kwargs:
            raise no_arguments("is_inference", args, kwargs)
        return self._inference

    device = _readonly("device", lambda self: CPU)
    layout = _readonly("layout", lambda self: strided)
    is_cpu = _readonly("is_cpu", lambda self: True)
    is_cuda = _readonly("is_cuda", lambda self: False)
    is_meta = _readonly("is_meta", lambda self: False)
    # the layouts and backends a dense CPU tensor is not (code checks them before special paths)
    is_sparse = _readonly("is_sparse", lambda self: False)
    is_sparse_csr = _readonly("is_sparse_csr", lambda self: False)
    is_quantized = _readonly("is_quantized", lambda self: False)
    is_nested = _readonly("is_nested", lambda self: False)
    is_mkldnn = _readonly("is_mkldnn", lambda self: False)
    is_mps = _readonly("is_mps", lambda self: False)
    is_xla = _readonly("is_xla", lambda self: False)
    is_xpu = _readonly("is_xpu", lambda self: False)
    is_ipu = _readonly("is_ipu", lambda self: False)
    is_maia = _readonly("is_maia", lambda self: False)
    is_mtia = _readonly("is_mtia", lambda self: False)
    is_vulkan = _readonly("is_vulkan", lambda self: False)
    itemsize = _readonly("itemsize", lambda self: self._data.itemsize)
    nbytes = _readonly("nbytes", lambda self: self._data.size * self._data.itemsize)

    def get_device(self, *args, **kwargs):
        if args or kwargs:
            raise no_arguments("get_device", args, kwargs)
        return -1       # a CPU tensor's

    def is_pinned(self, device=None):
        return False

    def pin_memory(self, device=None):
        raise RuntimeError("Cannot access accelerator device when none is available.")

    @property
    def _version(self):
        if self._inference:
            raise RuntimeError("Inference tensors do not track version counter.")
        return self._version_counter.version

    def _is_view(self):
        return self._base is not None

    # -- autograd state ----------------------------------------------------------------------
    @property
    def grad_fn(self):
        if self._view is None:
            return self._grad_fn
        return self._view.grad_fn(self)     # regenerated after its base changed (ops/views.py)

    @grad_fn.setter
    def grad_fn(self, node):
        self._grad_fn = node

    @property
    def requires_grad(self):
        # PyTorch's DifferentiableViewMeta::requires_grad: a differentiable view requires grad
        # when its base does, even one made under no_grad (which has no grad_fn)
        return self._requires_grad or self._grad_fn is not None or (
            self._view is not None and self._base.requires_grad)

    @requires_grad.setter
    def requires_grad(self, flag):
        if self.grad_fn is not None and flag:   # unlike requires_grad_(True), an error
            raise RuntimeError("you can only change requires_grad flags of leaf variables.")
        if flag and not (self.dtype.is_floating_point or self.dtype.is_complex):    # the setter's text differs from the method's
            raise RuntimeError("only Tensors of floating point and complex dtype can require "
                               "gradients")
        self.requires_grad_(flag)

    def requires_grad_(self, requires_grad=True):
        if self.grad_fn is not None:
            if requires_grad:
                return self
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use a "
                "computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach().")
        if requires_grad and not (self.dtype.is_floating_point or self.dtype.is_complex):
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        if requires_grad and not self._requires_grad:
            leaf_created(self)
        self._requires_grad = bool(requires_grad)
        return self

    @property
    def is_leaf(self):
        return self.grad_fn is None

    @property
    def output_nr(self):
        return self._output_nr

    @property
    def grad(self):
        if self.grad_fn is not None and not self.retains_grad and self._grad is None:
            warnings.warn(explain_hook.warning_text(_NON_LEAF_GRAD_WARNING, "non_leaf_grad",
                                                    tensor=self), UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of "
                                f"type {type(value).__name__}")
            if value.dtype is not self.dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{_CPP_NAMES[value.dtype.name]}'"
                    f" to a tensor with grad_dtype '{self.dtype.tensor_type[:-6]}'. The gradient "
                    "must match the tensor's grad_dtype (defaults to the tensor's dtype). You can "
                    "set the tensor's grad_dtype attribute with a specific dtype, or None to "
                    "allow any dtype. Set grad_dtype with caution. Diverging the dtypes of a "
                    "tensor and its gradient may break downstream systems that assume they "
                    "match.")
            if value._data.shape != self._data.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value._data.shape)}' to a "
                    f"tensor of size '{list(self._data.shape)}'. Please ensure that the gradient "
                    "and the tensor are the same size")
        self._grad = value

    @grad.deleter
    def grad(self):
        self._grad = None

    @property
    def retains_grad(self):
        hs = self._hook_state
        return hs is not None and hs.retains_grad

    def _hooks(self):
        if self._hook_state is None:
            self._hook_state = _HookState()
        return self._hook_state

    def register_hook(self, hook):
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is None:
            hs = self._hooks()
            if hs.backward_hooks is None:
                hs.backward_hooks = {}
            hs.leaf_hooked()
            return add_hook(hs.backward_hooks, hook)
        return self.grad_fn._register_tensor_hook(self._output_nr, hook)

    def register_post_accumulate_grad_hook(self, hook):
        if self.grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf "
                               "tensors")
        hs = self._hooks()
        if hs.post_accumulate_grad_hooks is None:
            hs.post_accumulate_grad_hooks = {}
        hs.leaf_hooked()
        return add_hook(hs.post_accumulate_grad_hooks, hook)

    def retain_grad(self, *args, **kwargs):
        if args or kwargs:
            raise no_arguments("retain_grad", args, kwargs)
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is None or self.retains_grad:
            return
        self._hooks().retains_grad = True
        node = self.grad_fn
        if node._retain_grad_hooks is None:
            node._retain_grad_hooks = {}
            node._plain = False
        node._retain_grad_hooks[self._output_nr] = weakref.ref(self)

    def detach(self, *args, **kwargs):
        if args or kwargs:
            raise no_arguments("detach", args, kwargs)
        t = Tensor._make(self._data, counter=self._version_counter)
        t._inference = self._inference
        if _CONJ or _NEG:
            carry_bits(self, t)
        if state.vmap is not None:      # func.vmap: still batched
            state.vmap.mark(t, state.vmap.of((self,)))
        return t

    def detach_(self, *args, **kwargs):
        if args or kwargs:
            raise no_arguments("detach_", args, kwargs)
        if self._base is not None:
            raise RuntimeError("Can't detach views in-place. Use detach() instead. If you are "
                               "using DistributedDataParallel (DDP) for training, and "
                               "gradient_as_bucket_view is set as True, gradients are views of "
                               "DDP buckets, and hence detach_() cannot be called on these "
                               "gradients. To fix this error, please refer to the "
                               "Optimizer.zero_grad() function in torch/optim/optimizer.py as "
                               "the solution.")
        self._grad_fn = None
        self._requires_grad = False
        return self

    @property
    def data(self):
        if state.vmap is not None:      # func.vmap refuses it for a batched tensor, as torch
            state.vmap.refuse("data", self)
        return Tensor._make(self._data)

    @data.setter
    def data(self, value):
        self._data = value._data

    # -- conversions -------------------------------------------------------------------------
    def item(self, *args, **kwargs):
        if args or kwargs:
            raise no_arguments("item", args, kwargs)
        if state.vmap is not None:      # func.vmap refuses these for a batched tensor, as torch
            state.vmap.refuse("item", self)
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted "
                               "to Scalar")
        return self._data.item()

    def tolist(self, *args, **kwargs):
        if args or kwargs:
            raise no_arguments("tolist", args, kwargs)
        if state.vmap is not None:
            state.vmap.refuse("data_ptr", self)
        return self._data.tolist()

    def numpy(self, *, force=False):
        if state.vmap is not None:
            state.vmap.refuse("data_ptr", self)
        if self.requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        if self._data.dtype == _np_bfloat16:    # NumPy has no bfloat16 of its own
            raise TypeError("Got unsupported ScalarType BFloat16")
        if not force and conj_bit(self):
            raise RuntimeError("Can't call numpy() on Tensor that has conjugate bit set. Use "
                               "tensor.resolve_conj().numpy() instead.")
        if not force and neg_bit(self):
            raise RuntimeError("Can't call numpy() on Tensor that has negative bit set. Use "
                               "tensor.resolve_neg().numpy() instead.")
        return self._data

    def __dlpack__(self, *, stream=-1, max_version=None, dl_device=None, copy=None):
        """The DLPack producer protocol (torch.from_dlpack, numpy.from_dlpack take it)."""
        if self.requires_grad:
            raise BufferError("Can't export tensors that require gradient, use "
                              "tensor.detach()")
        return self._data.__dlpack__(max_version=max_version, copy=copy)

    def __dlpack_device__(self):
        return (1, 0)       # DLPack's kDLCPU, device 0

    def __array__(self, dtype=None, copy=None):
        arr = self.numpy()
        return arr if dtype is None else arr.astype(dtype, copy=False)

    def __bool__(self):
        if state.vmap is not None:
            state.vmap.refuse("bool", self)
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._data)

    def _scalar(self):
        if state.vmap is not None:
            state.vmap.refuse("item", self)
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self._data.item()

    def __float__(self):
        return float(self._scalar())

    def __int__(self):
        return int(self._scalar())

    def __index__(self):
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an "
                            "index")
        return int(self.item())

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __repr__(self, *, tensor_contents=None):
        return tensor_repr(self._data, self.dtype.name,
                           grad_fn_name=None if self.grad_fn is None else type(self.grad_fn).__name__,
                           requires_grad=self.requires_grad, is_leaf=self.grad_fn is None,
                           default_dtype_name=dtypes.get_default_dtype().name,
                           tensor_contents=tensor_contents, tangent=getattr(self, "_fw", None),
                           prefix="tensor(" if type(self) in PLAIN_REPR else
                           type(self).__name__ + "(")

    __str__ = __repr__

    def __format__(self, spec):
        if self._data.ndim == 0 and type(self) is Tensor:   # torch: plain 0-d tensors only
            return format(self.detach().item(), spec)
        return object.__format__(self, spec)

    # -- copy and pickle (torch.save is serialization.py) ------------------------------------
    def _layout(self):
        """(storage, offset, size, stride): where the elements lie, as torch describes it."""
        storage, low = storage_of(self._data)
        return storage, (data_ptr(self._data) - low) // self._data.itemsize, \
            tuple(self._data.shape), self.stride()

    def _warn_if_has_hooks(self):
        """torch's warning, when pickling or saving, for each backward hook (not kept)."""
        if self.grad_fn is None:
            hooks = (self._hook_state and self._hook_state.backward_hooks) or {}
        else:
            hooks = (self.grad_fn._tensor_hooks() or {}).get(self._output_nr, {})
        for hook in hooks.values():
            if not hasattr(hook, "__torch_unserializable__"):
                warnings.warn(f"backward hook {hook!r} on tensor will not be serialized.  If this "
                              "is expected, you can decorate the function with "
                              "@torch.utils.hooks.unserializable_hook to suppress this warning",
                              stacklevel=3)

    def __reduce_ex__(self, protocol):
        self._warn_if_has_hooks()
        # copy.copy shares the storage (as torch's); pickle writes the storage's bytes once per
        # tensor (torch's Tensor pickles a new storage wrapper each time: no sharing on loads)
        storage, offset, size, stride = self._layout()
        args = (type(self), _PickledStorage(storage), offset, size, stride, self.dtype.name,
                self.requires_grad)
        return (_rebuild, args, getattr(self, "__dict__", None) or None)

    def __deepcopy__(self, memo):
        if self.grad_fn is not None:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
                "protocol at the moment.  If you were attempting to deepcopy a module, this may "
                "be because of a torch.nn.utils.weight_norm usage, see "
                "https://github.com/pytorch/pytorch/pull/103001")
        if id(self) in memo:
            return memo[id(self)]
        storage, offset, size, stride = self._layout()
        new = rebuild(type(self), copy.deepcopy(storage, memo), offset, size, stride, self.dtype,
                      self.requires_grad)
        if self._grad is not None:
            new._grad = copy.deepcopy(self._grad, memo)
        if getattr(self, "__dict__", None):
            new.__dict__.update(copy.deepcopy(self.__dict__, memo))
        memo[id(self)] = new
        return new


_new = object.__new__
PLAIN_REPR = {Tensor}   # the classes torch prints as "tensor(" (nn.Parameter adds itself)
_VersionCounter = VersionCounter
dtypes.TENSOR_TYPES.add(Tensor)
_overrides.add_plain(Tensor)
_overrides._Tensor.append(Tensor)


class _PickledStorage:
    """A tensor's storage as its __reduce_ex__ hands it on: copy.copy passes it through (the copy
    shares memory); pickling it writes the storage's bytes."""
    __slots__ = ("storage",)

    def __init__(self, storage):
        self.storage = storage

    def __reduce__(self):
        return self.storage.__reduce__()


def _rebuild(cls, storage, offset, size, stride, dtype_name, requires_grad):
    """Unpickling and copy.copy: a tensor of class cls on the storage."""
    if isinstance(storage, _PickledStorage):
        storage = storage.storage
    return rebuild(cls, storage, offset, size, stride, getattr(dtypes, dtype_name),
                   requires_grad)


def _wrap_dim(dim, ndim, scalar=True):
    """A dim in [-ndim, ndim) made non-negative, with PyTorch's error otherwise (a 0-d tensor
    takes dim 0 and -1 unless ``scalar`` is False)."""
    if not scalar and ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {dim})")
    return dim % n


def _wrap_dims(dims, ndim):
    """Each of ``dims`` wrapped (see _wrap_dim), with PyTorch's error for one given twice."""
    out = tuple(_wrap_dim(d, ndim) for d in dims)
    for i, d in enumerate(out):
        if d in out[:i]:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return out


def _to_array(data):
    if isinstance(data, Tensor):
        return data._data
    if isinstance(data, ndarray):
        return data
    return xp.asarray(data)
