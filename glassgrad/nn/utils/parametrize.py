"""Parametrizations: a module's tensor computed from stored ones by a chain of modules
(register_parametrization), as torch's: the module's class becomes Parametrized<Class> with a
property for each parametrized tensor, the stored tensors live in
module.parametrizations[name].original (or original0, original1, ...), and ``cached()``
computes each parametrized tensor once inside its block."""
import collections.abc
import contextlib
import copy
import copyreg

from ..._autograd.grad_mode import no_grad
from ..._tensor import Tensor
from ..modules.container import ModuleDict, ModuleList
from ..parameter import Parameter

__all__ = ["cached", "ParametrizationList", "register_parametrization", "is_parametrized",
           "remove_parametrizations", "type_before_parametrizations",
           "transfer_parametrizations_and_params"]

_cache_enabled = 0
_cache = {}


@contextlib.contextmanager
def cached():
    global _cache, _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache = {}


def _register_parameter_or_buffer(module, name, x):
    if isinstance(x, Parameter):
        module.register_parameter(name, x)
    else:
        module.register_buffer(name, x)


def _maybe_set(dest, src):
    """dest takes src's values and memory, keeping its identity (torch's set_)."""
    dest.data = src


def _check_same(what, kind, original, got, first, second):
    if original != got:
        raise ValueError(f"{what} may not change the {kind} of the tensor, unless `unsafe` flag "
                         f"is enabled.\n{first} {kind}: {original}\n{second} {kind}: {got}")


class ParametrizationList(ModuleList):
    def __init__(self, modules, original, unsafe=False):
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        shape, dtype = original.shape, original.dtype
        with no_grad():
            new = original
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, (Tensor, collections.abc.Sequence)):
            raise ValueError(f"'right_inverse' must return a Tensor or a Sequence of tensors "
                             f"(list, tuple...). Got {type(new).__name__}")
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError(f"When `right_inverse` outputs one tensor, it may not change the "
                                 f"dtype.\noriginal.dtype: {original.dtype}\n"
                                 f"right_inverse(original).dtype: {new.dtype}")
            with no_grad():
                _maybe_set(original, new)
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, part in enumerate(new):
                if not isinstance(part, Tensor):
                    raise ValueError(f"'right_inverse' must return a Tensor or a Sequence of "
                                     f"tensors (list, tuple...). Got element {i} of the sequence "
                                     f"with type {type(part).__name__}.")
                if isinstance(original, Parameter):
                    part = Parameter(part, original.requires_grad)
                part.requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", part)
        if not self.unsafe:
            z = self()
            if not isinstance(z, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got "
                                 f"{type(z).__name__}.")
            what = "Registering a parametrization"
            _check_same(what, "dtype", dtype, z.dtype, "unparametrized", "parametrized")
            _check_same(what, "shape", shape, z.shape, "unparametrized", "parametrized")

    def right_inverse(self, value):
        with no_grad():
            for module in reversed(self):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(f"parametrization {type(module).__name__} does not "
                                       f"implement right_inverse.")
                value = module.right_inverse(value)
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got "
                                     f"{type(value).__name__}")
                if value.dtype != self.original.dtype:
                    raise ValueError(f"The tensor returned by `right_inverse` has dtype "
                                     f"{value.dtype} while `original` has dtype "
                                     f"{self.original.dtype}")
                _maybe_set(self.original, value)
                return
            if not isinstance(value, collections.abc.Sequence):
                raise ValueError(f"'right_inverse' must return a sequence of tensors. Got "
                                 f"{type(value).__name__}.")
            if len(value) != self.ntensors:
                raise ValueError(f"'right_inverse' must return a sequence of tensors of length "
                                 f"{self.ntensors}. Got a sequence of length {len(value)}.")
            for i, tensor in enumerate(value):
                original_i = getattr(self, f"original{i}")
                if not isinstance(tensor, Tensor):
                    raise ValueError(f"'right_inverse' must return a sequence of tensors or "
                                     f"reference-type opaques. Got element {i} of type "
                                     f"{type(tensor).__name__}.")
                if original_i.dtype != tensor.dtype:
                    raise ValueError(f"Tensor {i} returned by `right_inverse` has dtype "
                                     f"{tensor.dtype} while `original{i}` has dtype "
                                     f"{original_i.dtype}")
                _maybe_set(original_i, tensor)

    def forward(self):
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in list(self)[1:]:
            x = module(x)
        return x


def _default_deepcopy(self, memo):
    found = memo.get(id(self))
    if found is not None:
        return found
    replica = self.__new__(self.__class__)
    memo[id(self)] = replica
    replica.__dict__ = copy.deepcopy(self.__dict__, memo)
    for slot in copyreg._slotnames(self.__class__):
        if hasattr(self, slot):
            setattr(replica, slot, copy.deepcopy(getattr(self, slot), memo))
    return replica


def _getstate(self):
    raise RuntimeError("Serialization of parametrized modules is only supported through "
                       "state_dict(). See:\nhttps://pytorch.org/tutorials/beginner/"
                       "saving_loading_models.html#saving-loading-a-general-checkpoint-for-"
                       "inference-and-or-resuming-training")


def _inject_new_class(module):
    cls = module.__class__
    namespace = {"__getstate__": _getstate}
    if not hasattr(cls, "__deepcopy__"):
        namespace["__deepcopy__"] = _default_deepcopy
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), namespace)


def _inject_property(module, tensor_name):
    if hasattr(module, tensor_name):
        raise AssertionError(f"Module already has an attribute named '{tensor_name}'")

    def get_parametrized(self):
        parametrization = self.parametrizations[tensor_name]
        if not _cache_enabled:
            return parametrization()
        key = (id(module), tensor_name)
        if _cache.get(key) is None:
            _cache[key] = parametrization()
        return _cache[key]

    def set_original(self, value):
        self.parametrizations[tensor_name].right_inverse(value)
    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def _check_added(module, tensor_name, parametrization):
    """The checks of a parametrization added to an already parametrized tensor."""
    y = getattr(module, tensor_name)
    x = parametrization(y)
    if not isinstance(x, Tensor):
        raise ValueError(f"A parametrization must return a tensor. Got {type(x).__name__}.")
    what = "Registering a parametrization"
    first, second = f"module.{tensor_name}", f"parametrization(module.{tensor_name})"
    if x.dtype != y.dtype:
        raise ValueError(f"{what} may not change the dtype of the tensor, unless the `unsafe` "
                         f"flag is enabled.\n{first}.dtype: {y.dtype}\n{second}.dtype: {x.dtype}")
    if x.shape != y.shape:
        raise ValueError(f"{what} may not change the shape of the tensor, unless the `unsafe` "
                         f"flag is enabled.\n{first}.shape: {y.shape}\n{second}.shape: {x.shape}")
    if hasattr(parametrization, "right_inverse"):
        try:
            z = parametrization.right_inverse(x)
        except NotImplementedError:
            return
        if not isinstance(z, Tensor):
            raise ValueError(f"parametrization.right_inverse must return a tensor. Got: "
                             f"{type(z).__name__}")
        for kind, a, b in (("dtype", z.dtype, y.dtype), ("shape", z.shape, y.shape)):
            if a != b:
                raise ValueError(f"The tensor returned by parametrization.right_inverse must "
                                 f"have the same {kind} as module.{tensor_name}, unless the "
                                 f"`unsafe` flag is enabled.\nmodule.{tensor_name}.{kind}: "
                                 f"{b}\nreturned {kind}: {a}")


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            _check_added(module, tensor_name, parametrization)
        module.parametrizations[tensor_name].append(parametrization)
        module.parametrizations[tensor_name].unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        parametrizations = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = parametrizations
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a "
                         f"parametrized element with name '{tensor_name}'")
    return module


def is_parametrized(module, tensor_name=None):
    parametrizations = getattr(module, "parametrizations", None)
    if parametrizations is None or not isinstance(parametrizations, ModuleDict):
        return False
    return len(parametrizations) > 0 if tensor_name is None else \
        tensor_name in parametrizations


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    parametrizations = module.parametrizations[tensor_name]
    if parametrizations.is_tensor:
        original = parametrizations.original
        if leave_parametrized:
            with no_grad():
                _maybe_set(original, getattr(module, tensor_name))
    elif leave_parametrized:
        t = getattr(module, tensor_name)
        original = Parameter(t) if t.requires_grad else t
    else:
        raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor that "
                         "is parametrized in terms of a sequence of tensors.")
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module):
    return module.__class__.__bases__[0] if is_parametrized(module) else type(module)


def transfer_parametrizations_and_params(from_module, to_module, tensor_name=None):
    if not is_parametrized(from_module):
        return to_module
    names = from_module.parametrizations if tensor_name is None else [tensor_name]
    for name in names:
        source = from_module.parametrizations[name]
        if not hasattr(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name)))
        for fn in source:
            register_parametrization(to_module, name, fn)
        target = to_module.parametrizations[name]
        if hasattr(source, "original"):
            target.original = source.original
        else:
            i = 0
            while hasattr(source, f"original{i}"):
                setattr(target, f"original{i}", getattr(source, f"original{i}"))
                i += 1
    return to_module
