"""torch.nn.Module: the registry of parameters, buffers and submodules, its traversals, the
call with forward hooks, dtype conversion, state dicts, repr, copy and pickle."""
import functools
import itertools
import warnings
import weakref
from collections import OrderedDict, namedtuple
from collections.abc import Mapping
from typing import Any, Dict, TypeVar

from ... import dtypes
from ..._autograd.grad_mode import no_grad
from ..._autograd.provenance import module_calls as _calls
from ..._creation import empty_like
from ..._tensor import Tensor
from ..parameter import Buffer, Parameter, _buffer_persistent
from ._hooks import BackwardHook

__all__ = ["register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_full_backward_pre_hook", "register_module_backward_hook",
           "register_module_full_backward_hook", "register_module_buffer_registration_hook",
           "register_module_module_registration_hook",
           "register_module_parameter_registration_hook", "Module"]

_EXTRA_STATE_KEY_SUFFIX = "_extra_state"
_ref = weakref.ref
_hook_ids = itertools.count()


def typename(obj):
    """torch.typename: 'torch.FloatTensor' for a tensor, else module.qualname ('int' for a
    builtin)."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    qualname = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    if qualname is None:            # an instance: its class's names
        module, qualname = type(obj).__module__ or "", type(obj).__qualname__
    if module in ("", "builtins"):
        return qualname
    if module.split(".")[0] == "glassgrad":     # glassgrad's classes stand for torch's
        module = "torch" + module[len("glassgrad"):]
    return f"{module}.{qualname}"


class RemovableHandle:
    """What register_*_hook returns: ``remove()`` takes the hook out of its dict and of the
    extra dicts that mark how it is called (with_kwargs, always_call)."""

    def __init__(self, hooks, *, extra_dict=None):
        self.hooks_dict_ref = hooks
        self.id = next(_hook_ids)
        self.extra_dicts = () if extra_dict is None else \
            tuple(extra_dict) if isinstance(extra_dict, list) else (extra_dict,)

    def remove(self):
        for d in (self.hooks_dict_ref, *self.extra_dicts):
            d.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _addindent(s, spaces):
    first, *rest = s.split("\n")
    if not rest:
        return s
    return "\n".join([first] + [" " * spaces + line for line in rest])


def _forward_unimplemented(self, *input):
    raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" '
                              'function')


# -- global hooks: every module's, run before each module's own -----------------------------------
_global_buffer_registration_hooks = OrderedDict()
_global_module_registration_hooks = OrderedDict()
_global_parameter_registration_hooks = OrderedDict()
_global_backward_pre_hooks = OrderedDict()
_global_backward_hooks = OrderedDict()
_global_is_full_backward_hook = None
_global_forward_pre_hooks = OrderedDict()
_global_forward_hooks = OrderedDict()
_global_forward_hooks_always_called = OrderedDict()
_global_forward_hooks_with_kwargs = OrderedDict()


def _global_hook(hooks, hook, extra_dict=None):
    handle = RemovableHandle(hooks, extra_dict=extra_dict)
    hooks[handle.id] = hook
    return handle


def register_module_buffer_registration_hook(hook):
    return _global_hook(_global_buffer_registration_hooks, hook)


def register_module_module_registration_hook(hook):
    return _global_hook(_global_module_registration_hooks, hook)


def register_module_parameter_registration_hook(hook):
    return _global_hook(_global_parameter_registration_hooks, hook)


def register_module_forward_pre_hook(hook):
    return _global_hook(_global_forward_pre_hooks, hook)


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
    # as torch's, the handle forgets the with_kwargs mark (it removes always_call's only)
    handle = _global_hook(_global_forward_hooks, hook, _global_forward_hooks_always_called)
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle


def register_module_backward_hook(hook):
    raise NotImplementedError("torch.nn.modules.module.register_module_backward_hook (the "
                              "deprecated non-full hook): glassgrad has "
                              "register_module_full_backward_hook only")


def register_module_full_backward_pre_hook(hook):
    return _global_hook(_global_backward_pre_hooks, hook)


def register_module_full_backward_hook(hook):
    global _global_is_full_backward_hook
    if _global_is_full_backward_hook is False:
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks as a "
                           "global Module hook. Please use only one of them.")
    _global_is_full_backward_hook = True
    return _global_hook(_global_backward_hooks, hook)


def _registered(hooks, module, name, value):
    """value after the global registration hooks (each may return a replacement)."""
    for hook in hooks.values():
        out = hook(module, name, value)
        if out is not None:
            value = out
    return value


_HOOK_DICTS = ("_backward_pre_hooks", "_backward_hooks", "_forward_hooks",
               "_forward_hooks_with_kwargs", "_forward_hooks_always_called",
               "_forward_pre_hooks", "_forward_pre_hooks_with_kwargs", "_state_dict_hooks",
               "_state_dict_pre_hooks", "_load_state_dict_pre_hooks",
               "_load_state_dict_post_hooks")


T_destination = TypeVar("T_destination", bound=Dict[str, Any])


class Module:
    T_destination = T_destination
    dump_patches = False
    _version = 1
    call_super_init = False
    _compiled_call_impl = None

    def __init__(self, *args, **kwargs):
        if not self.call_super_init and kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword "
                            f"argument '{next(iter(kwargs))}'")
        if not self.call_super_init and args:
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but "
                            f"{len(args) + 1} were given")
        put = super().__setattr__
        put("training", True)
        put("_parameters", {})
        put("_buffers", {})
        put("_non_persistent_buffers_set", set())
        for name in _HOOK_DICTS:
            put(name, OrderedDict())
        put("_is_full_backward_hook", None)
        put("_modules", {})
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    forward = _forward_unimplemented

    # -- registration --------------------------------------------------------------------------
    def _check_name(self, kind, name, table):
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain "."')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if hasattr(self, name) and name not in table:
            raise KeyError(f"attribute '{name}' already exists")

    def register_buffer(self, name, tensor, persistent=True):
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        self._check_name("buffer", name, self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        self._buffers[name] = _registered(_global_buffer_registration_hooks, self, name, tensor)
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name, param):
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        self._check_name("parameter", name, self._parameters)
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{typename(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        if param is not None and param.grad_fn is not None:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model "
                             f"parameters must be created explicitly. To express '{name}' as a "
                             "function of another Tensor, compute the value in the forward() "
                             "method.")
        if param is not None:
            param = _registered(_global_parameter_registration_hooks, self, name, param)
        self._parameters[name] = param

    def add_module(self, name, module):
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = _registered(_global_module_registration_hooks, self, name, module)

    def register_module(self, name, module):
        self.add_module(name, module)

    def __getattr__(self, name):
        d = self.__dict__
        try:
            return d["_parameters"][name]      # first: forward reads its parameters most
        except KeyError:
            pass
        for table in ("_buffers", "_modules"):
            if table in d and name in d[table]:
                return d[table][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        def remove_from(*tables):
            for t in tables:
                if name in t:
                    if isinstance(t, dict):
                        del t[name]
                    else:
                        t.discard(name)

        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(self.__dict__, self._buffers, self._modules,
                        self._non_persistent_buffers_set)
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
            return
        modules = self.__dict__.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            remove_from(self.__dict__, self._parameters, self._buffers,
                        self._non_persistent_buffers_set)
            modules[name] = _registered(_global_module_registration_hooks, self, name, value)
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{typename(value)}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            modules[name] = _registered(_global_module_registration_hooks, self, name, value)
            return
        buffers = self.__dict__.get("_buffers")
        if isinstance(value, Buffer) or (buffers is not None and name in buffers):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{typename(value)}' as buffer '{name}' "
                                "(torch.nn.Buffer, torch.Tensor or None expected)")
            marked = None if value is None else _buffer_persistent(value)
            persistent = marked if marked is not None else \
                name not in self._non_persistent_buffers_set
            self.register_buffer(name, value, persistent)
            return
        super().__setattr__(name, value)

    def __delattr__(self, name):
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            super().__delattr__(name)

    def __dir__(self):
        keys = [*dir(type(self)), *self.__dict__, *self._parameters, *self._modules,
                *self._buffers]
        return sorted(k for k in keys if not k[0].isdigit())

    def _get_name(self):
        return type(self).__name__

    # -- lookups -------------------------------------------------------------------------------
    def get_submodule(self, target):
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def set_submodule(self, target, module, strict=False):
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        path, _, name = target.rpartition(".")
        parent = self.get_submodule(path)
        if strict and not hasattr(parent, name):
            raise AttributeError(parent._get_name() + " has no attribute `" + name + "`")
        if hasattr(parent, name) and not isinstance(getattr(parent, name), Module):
            raise AttributeError("`" + name + "` is not an nn.Module")
        setattr(parent, name, module)

    def _get_leaf(self, target):
        path, _, name = target.rpartition(".")
        mod = self.get_submodule(path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        return mod, name

    def get_parameter(self, target):
        mod, name = self._get_leaf(target)
        param = getattr(mod, name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target):
        mod, name = self._get_leaf(target)
        buffer = getattr(mod, name)
        if name not in mod._buffers:
            raise AttributeError("`" + name + "` is not a buffer")
        return buffer

    def get_extra_state(self):
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never be "
                           "called. Please file an issue at "
                           "https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml "
                           "to report this bug.")

    def set_extra_state(self, state):
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never be "
                           "called. Please file an issue at "
                           "https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml "
                           "to report this bug.")

    # -- traversals ----------------------------------------------------------------------------
    def _named_members(self, get_members, prefix="", recurse=True, remove_duplicate=True):
        memo = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) \
            if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for k, v in get_members(module):
                if v is None or id(v) in memo:
                    continue
                if remove_duplicate:
                    memo.add(id(v))
                yield (module_prefix + ("." if module_prefix else "") + k, v)

    def parameters(self, recurse=True):
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members(lambda m: m._parameters.items(), prefix=prefix,
                                       recurse=recurse, remove_duplicate=remove_duplicate)

    def buffers(self, recurse=True):
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members(lambda m: m._buffers.items(), prefix=prefix,
                                       recurse=recurse, remove_duplicate=remove_duplicate)

    def children(self):
        for _, module in self.named_children():
            yield module

    def named_children(self):
        memo = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in memo:
                memo.add(id(module))
                yield name, module

    def modules(self):
        for _, module in self.named_modules():
            yield module

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub, remove_duplicate)

    # -- modes and gradients -------------------------------------------------------------------
    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                if p.grad.grad_fn is not None:
                    p.grad.detach_()
                else:
                    p.grad.requires_grad_(False)
                p.grad.zero_()

    def apply(self, fn):
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # -- conversions ---------------------------------------------------------------------------
    def _apply(self, fn, recurse=True):
        """fn applied to every parameter (in place through .data, so a Parameter keeps its
        identity, as torch's default), its grad, and every buffer (replaced)."""
        if recurse:
            for module in self.children():
                module._apply(fn)
        for param in self._parameters.values():
            if param is None:
                continue
            with no_grad():
                param.data = fn(param)
            if param.grad is not None:
                with no_grad():
                    param.grad.data = fn(param.grad)
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def _cast_floating(self, dtype):
        return self._apply(lambda t: t.to(dtype) if t.is_floating_point() else t)

    def float(self):
        return self._cast_floating(dtypes.float32)

    def double(self):
        return self._cast_floating(dtypes.float64)

    def half(self):
        return self._cast_floating(dtypes.float16)

    def bfloat16(self):
        if not hasattr(dtypes, "bfloat16"):
            raise NotImplementedError("nn.Module.bfloat16: glassgrad has no bfloat16 dtype")
        return self._cast_floating(dtypes.bfloat16)

    def type(self, dst_type):
        return self._apply(lambda t: t.type(dst_type))

    def cpu(self):
        return self._apply(lambda t: t.cpu())

    def cuda(self, device=None):
        return self._apply(lambda t: t.cuda(device))

    def _no_backend(self, name):
        raise NotImplementedError(f"nn.Module.{name}: glassgrad runs on the CPU only")

    def ipu(self, device=None):
        self._no_backend("ipu")

    def xpu(self, device=None):
        self._no_backend("xpu")

    def mtia(self, device=None):
        self._no_backend("mtia")

    def to_empty(self, *, device, recurse=True):
        return self._apply(lambda t: empty_like(t, device=device), recurse=recurse)

    def to(self, *args, **kwargs):
        device, dtype, non_blocking = _parse_to(args, kwargs)
        if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
            raise TypeError("nn.Module.to only accepts floating point or complex dtypes, but got "
                            f"desired dtype={dtype}")

        def convert(t):
            keep = dtype if t.is_floating_point() or t.dtype.is_complex else None
            kw = {} if device is None else {"device": device}
            return t.to(dtype=keep, non_blocking=non_blocking, **kw) if keep is not None else \
                t.to(non_blocking=non_blocking, **kw) if kw else t
        return self._apply(convert)

    def share_memory(self):
        return self

    # -- the call ------------------------------------------------------------------------------
    def _call_impl(self, *args, **kwargs):
        # the module call provenance records with every node and in-place op made inside
        # (glassgrad's glass box names modules from it); the outer call comes back after
        outer = _calls.top
        _calls.top = (_ref(self), type(self), outer)
        try:
            if not (self._forward_hooks or self._forward_pre_hooks or self._backward_hooks
                    or self._backward_pre_hooks or _global_forward_hooks
                    or _global_forward_pre_hooks or _global_backward_hooks
                    or _global_backward_pre_hooks):
                return self.forward(*args, **kwargs)
            return self._call_with_hooks(args, kwargs)
        finally:
            _calls.top = outer

    def _call_with_hooks(self, args, kwargs):
        result, called = None, set()
        try:
            full_hooks = [*(_global_backward_hooks.values() if _global_is_full_backward_hook
                            else ()),
                          *(self._backward_hooks.values() if self._is_full_backward_hook
                            else ())]
            pre_hooks = [*_global_backward_pre_hooks.values(), *self._backward_pre_hooks.values()]
            args, kwargs = self._run_pre_hooks(args, kwargs)
            bw_hook = None
            if full_hooks or pre_hooks:
                bw_hook = BackwardHook(self, full_hooks, pre_hooks)
                args = bw_hook.setup_input_hook(args)
            result = self.forward(*args, **kwargs)
            for hook_id, hook in [*_global_forward_hooks.items(), *self._forward_hooks.items()]:
                if hook_id in self._forward_hooks_always_called or \
                        hook_id in _global_forward_hooks_always_called:
                    called.add(hook_id)
                with_kwargs = hook_id in self._forward_hooks_with_kwargs or \
                    hook_id in _global_forward_hooks_with_kwargs
                out = hook(self, args, kwargs, result) if with_kwargs else \
                    hook(self, args, result)
                if out is not None:
                    result = out
            if bw_hook is not None:
                if not isinstance(result, (Tensor, tuple)):
                    warnings.warn("For backward hooks to be called, module output should be a "
                                  f"Tensor or a tuple of Tensors but received {type(result)}",
                                  stacklevel=2)
                result = bw_hook.setup_output_hook(result)
            return result
        except Exception:
            self._run_always_called(args, kwargs, result, called)
            raise

    def _run_pre_hooks(self, args, kwargs):
        for hook_id, hook in [*_global_forward_pre_hooks.items(),
                              *self._forward_pre_hooks.items()]:
            if hook_id in self._forward_pre_hooks_with_kwargs:
                out = hook(self, args, kwargs)
                if out is not None:
                    if not (isinstance(out, tuple) and len(out) == 2):
                        raise RuntimeError("forward pre-hook must return None or a tuple of "
                                           f"(new_args, new_kwargs), but got {out}.")
                    args, kwargs = out
            else:
                out = hook(self, args)
                if out is not None:
                    args = out if isinstance(out, tuple) else (out,)
        return args, kwargs

    def _run_always_called(self, args, kwargs, result, called):
        """After forward raised: the always_call forward hooks not yet run, the global ones
        first (an exception of theirs is silenced with torch's warning)."""
        for hook_id, hook in list(_global_forward_hooks.items()):
            if hook_id not in _global_forward_hooks_always_called or hook_id in called:
                continue
            try:
                out = hook(self, args, result)
                if out is not None:
                    result = out
            except Exception as e:
                warnings.warn("global module forward hook with ``always_call=True`` raised an "
                              "exception that was silenced as another error was raised in "
                              f"forward: {e}", stacklevel=2)
        for hook_id, hook in list(self._forward_hooks.items()):
            if hook_id not in self._forward_hooks_always_called or hook_id in called:
                continue
            try:
                out = hook(self, args, kwargs, result) \
                    if hook_id in self._forward_hooks_with_kwargs else hook(self, args, result)
                if out is not None:
                    result = out
            except Exception as e:
                warnings.warn("module forward hook with ``always_call=True`` raised an exception "
                              "that was silenced as another error was raised in forward: "
                              f"{e}", stacklevel=2)

    def _wrapped_call_impl(self, *args, **kwargs):
        """``module(...)``: after ``self.compile()`` the compiled call, else _call_impl; the
        usual call (no hook of any kind, _call_impl not replaced) runs _call_impl's fast path
        here, a frame less for every module call and for the provenance walks of the ops it
        records. (Its hook test is _call_impl's: a new kind of hook goes into both.)"""
        if self._compiled_call_impl is not None:    # after self.compile()
            return self._compiled_call_impl(*args, **kwargs)
        if (self._forward_hooks or self._forward_pre_hooks or self._backward_hooks
                or self._backward_pre_hooks or _global_forward_hooks
                or _global_forward_pre_hooks or _global_backward_hooks
                or _global_backward_pre_hooks or type(self)._call_impl is not _CALL_IMPL):
            return self._call_impl(*args, **kwargs)
        outer = _calls.top
        _calls.top = (_ref(self), type(self), outer)
        try:
            return self.forward(*args, **kwargs)
        finally:
            _calls.top = outer

    def compile(self, *args, **kwargs):
        """Compile this module's calls in place (glassgrad.compile's arguments; returns None)."""
        from ...compiler import compile_function
        self._compiled_call_impl = compile_function(self._call_impl, *args, module=self,
                                                    **kwargs)

    __call__ = _wrapped_call_impl

    @staticmethod
    def _add_hook(hooks, hook, prepend, extras=()):
        handle = RemovableHandle(hooks, extra_dict=[d for d, _ in extras])
        hooks[handle.id] = hook
        for d, flag in extras:
            if flag:
                d[handle.id] = True
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        return self._add_hook(self._forward_pre_hooks, hook, prepend,
                              [(self._forward_pre_hooks_with_kwargs, with_kwargs)])

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False,
                              always_call=False):
        return self._add_hook(self._forward_hooks, hook, prepend,
                              [(self._forward_hooks_with_kwargs, with_kwargs),
                               (self._forward_hooks_always_called, always_call)])

    def register_full_backward_pre_hook(self, hook, prepend=False):
        return self._add_hook(self._backward_pre_hooks, hook, prepend)

    def register_full_backward_hook(self, hook, prepend=False):
        if self._is_full_backward_hook is False:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks "
                               "on a single Module. Please use only one of them.")
        self._is_full_backward_hook = True
        return self._add_hook(self._backward_hooks, hook, prepend)

    def register_backward_hook(self, hook):
        raise NotImplementedError("nn.Module.register_backward_hook (the deprecated non-full "
                                  "hook): glassgrad has register_full_backward_hook only")

    # -- state dicts ---------------------------------------------------------------------------
    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        if type(self).get_extra_state is not Module.get_extra_state:
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        if args:
            warnings.warn("Positional args are being deprecated, use kwargs instead. Refer to "
                          "https://pytorch.org/docs/main/generated/torch.nn.Module.html"
                          "#torch.nn.Module.state_dict for details.", FutureWarning, stacklevel=2)
            destination = args[0] if destination is None else destination
            prefix = args[1] if len(args) > 1 and prefix == "" else prefix
            keep_vars = args[2] if len(args) > 2 and keep_vars is False else keep_vars
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = {"version": self._version}
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".",
                                  keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            out = hook(self, destination, prefix, local_metadata)
            if not getattr(hook, "_from_public_api", False):
                destination = destination if out is None else out
            elif out is not None:
                raise RuntimeError("state_dict post-hook must return None")
        return destination

    def register_state_dict_pre_hook(self, hook):
        return self._add_hook(self._state_dict_pre_hooks, hook, False)

    def register_state_dict_post_hook(self, hook):
        hook._from_public_api = True     # torch's mark: such a hook must return None
        return self._add_hook(self._state_dict_hooks, hook, False)

    def _register_state_dict_hook(self, hook):
        if getattr(hook, "_from_public_api", False):
            raise RuntimeError("Cannot register the same function as the state dict post hook "
                               "that was previously registered via "
                               "register_state_dict_post_hook")
        return self._add_hook(self._state_dict_hooks, hook, False)

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        return self._add_hook(self._load_state_dict_pre_hooks, functools.partial(
            _call_with_module, hook, self) if with_module else hook, False)

    def register_load_state_dict_pre_hook(self, hook):
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def register_load_state_dict_post_hook(self, hook):
        return self._add_hook(self._load_state_dict_post_hooks, hook, False)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                 error_msgs)
        local_state = {k: v for k, v in itertools.chain(
            self._parameters.items(),
            ((k, v) for k, v in self._buffers.items()
             if k not in self._non_persistent_buffers_set)) if v is not None}
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):
                error_msgs.append(f'While copying the parameter named "{key}", expected '
                                  "torch.Tensor or Tensor-like object from checkpoint but "
                                  f"received {type(value)}")
                continue
            if param.dim() == 0 and value.dim() == 1 and value.shape[0] == 1:
                value = value[0]
            if value.shape != param.shape:
                error_msgs.append(f"size mismatch for {key}: copying a param with shape "
                                  f"{value.shape} from checkpoint, the shape in current model is "
                                  f"{param.shape}.")
                continue
            try:
                with no_grad():
                    if assign:
                        if isinstance(param, Parameter):
                            if isinstance(value, Parameter):
                                value.requires_grad_(param.requires_grad)
                            else:
                                value = Parameter(value, requires_grad=param.requires_grad)
                        setattr(self, name, value)
                    else:
                        param.copy_(value)
            except Exception as ex:
                error_msgs.append(f'While copying the parameter named "{key}", whose dimensions '
                                  f"in the model are {param.size()} and whose dimensions in the "
                                  f"checkpoint are {value.size()}, an exception occurred : "
                                  f"{ex.args}.")
        extra_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if type(self).set_extra_state is not Module.set_extra_state:
            if extra_key in state_dict:
                self.set_extra_state(state_dict[extra_key])
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)
        if strict:
            for key in state_dict:
                if key.startswith(prefix) and key != extra_key:
                    head = key[len(prefix):].split(".", 1)
                    if (head[0] not in self._modules) if len(head) > 1 else \
                            (head[0] not in local_state):
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing, unexpected, errors = [], [], []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata

        def load(module, local, prefix=""):
            local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            module._load_from_state_dict(local, prefix, local_metadata, True, missing,
                                         unexpected, errors)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    load(child, {k: v for k, v in local.items() if k.startswith(child_prefix)},
                         child_prefix)
            keys = _IncompatibleKeys(missing, unexpected)
            for hook in module._load_state_dict_post_hooks.values():
                if hook(module, keys) is not None:
                    raise AssertionError(
                        "Hooks registered with ``register_load_state_dict_post_hook`` are not "
                        "expected to return new values, if incompatible_keys need to be "
                        "modified, it should be done inplace.")

        load(self, state_dict)
        load = None     # (it refers to itself: a reference cycle until the collector runs)
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected)))
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing)))
        if errors:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                type(self).__name__, "\n\t".join(errors)))
        return _IncompatibleKeys(missing, unexpected)

    # -- repr, copy, pickle --------------------------------------------------------------------
    def extra_repr(self):
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = ["(" + key + "): " + _addindent(repr(module), 2)
                       for key, module in self._modules.items()]
        lines = extra_lines + child_lines
        body = ""
        if lines:
            body = extra_lines[0] if len(extra_lines) == 1 and not child_lines else \
                "\n  " + "\n  ".join(lines) + "\n"
        return self._get_name() + "(" + body + ")"

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("_compiled_call_impl", None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        for name in _HOOK_DICTS:
            if name not in self.__dict__:
                super().__setattr__(name, OrderedDict())
        if "_non_persistent_buffers_set" not in self.__dict__:
            super().__setattr__("_non_persistent_buffers_set", set())

    def _replicate_for_data_parallel(self):
        raise NotImplementedError("nn.Module._replicate_for_data_parallel: glassgrad has no "
                                  "multi-device execution")


_CALL_IMPL = Module._call_impl     # (Module.__call__ runs it inline unless a class replaces it)


def _call_with_module(hook, module, *args):
    return hook(module, *args)


def _parse_to(args, kwargs):
    """(device, dtype, non_blocking) from Module.to's overloads: to(device, dtype,
    non_blocking), to(dtype, non_blocking), to(tensor, non_blocking)."""
    kwargs = dict(kwargs)
    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    non_blocking = kwargs.pop("non_blocking", False)
    kwargs.pop("memory_format", None)
    kwargs.pop("copy", None)
    if kwargs:
        raise TypeError(f"to() received an invalid combination of arguments - got unexpected "
                        f"keyword argument '{next(iter(kwargs))}'")
    for a in args:
        if isinstance(a, dtypes.dtype):
            dtype = a
        elif isinstance(a, Tensor):
            dtype, device = a.dtype, a.device
        elif isinstance(a, bool):
            non_blocking = a
        elif a is not None:
            device = a
    return device, dtype, non_blocking
