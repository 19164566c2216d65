"""torch.optim.Optimizer: parameter groups, per-parameter state, hooks and state dicts.

The built-in algorithms subclass ``_Algorithm`` (below): it runs ``step`` the way PyTorch's
single-tensor (``foreach=False``) implementations do, one parameter at a time, under
``no_grad`` (``differentiable=True``: with grad enabled) and leaves the arithmetic of one
parameter's update to the subclass (``_init_state``, ``_update``).
"""
import functools
import warnings
from collections import OrderedDict, defaultdict
from collections.abc import Iterable
from copy import deepcopy
from itertools import chain

from .._autograd.grad_mode import enable_grad, is_grad_enabled, set_grad_enabled
from .._autograd.hooks import RemovableHandle
from .._tensor import Tensor
from ..compiler import fullgraph_break
from ..dtypes import float32, float64, get_default_dtype
from ..ops.composite import typename

__all__ = ["Optimizer", "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook"]

_global_optimizer_pre_hooks = OrderedDict()
_global_optimizer_post_hooks = OrderedDict()

# the device lists PyTorch names in its errors (a CPU build answers them the same)
_CAPTURABLE_DEVICES = ["cuda", "xpu", "hpu", "privateuseone"]
_FUSED_DEVICES = ["mps", "cuda", "xpu", "hpu", "cpu", "mtia", "privateuseone"]


class _RequiredParameter:
    """The default of a hyper-parameter a param group must give."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


def register_optimizer_step_pre_hook(hook):
    """A hook every optimizer calls before its step: hook(optimizer, args, kwargs)."""
    handle = RemovableHandle(_global_optimizer_pre_hooks)
    _global_optimizer_pre_hooks[handle.id] = hook
    return handle


def register_optimizer_step_post_hook(hook):
    """A hook every optimizer calls after its step: hook(optimizer, args, kwargs)."""
    handle = RemovableHandle(_global_optimizer_post_hooks)
    _global_optimizer_post_hooks[handle.id] = hook
    return handle


def _use_grad_for_differentiable(func):
    """Run an optimizer's step with grad enabled exactly when it is differentiable (custom
    optimizers written for torch import this from torch.optim.optimizer)."""
    @functools.wraps(func)
    def _use_grad(self, *args, **kwargs):
        previous = is_grad_enabled()
        try:
            set_grad_enabled(self.defaults.get("differentiable", False))
            fullgraph_break("torch.optim's step breaks the graph around its update")
            return func(self, *args, **kwargs)
        finally:
            set_grad_enabled(previous)
    return _use_grad


def _get_value(x):
    return x.item() if isinstance(x, Tensor) else x


def _default_to_fused_or_foreach(params, differentiable, use_fused=False):
    """(fused, foreach) as PyTorch picks them: foreach kernels exist only on accelerators, so
    on the CPU foreach is False; fused when asked for and every parameter is a floating
    Tensor (or Parameter)."""
    if differentiable:
        return False, False
    fused = use_fused and all(
        p is None or (type(p).__name__ in ("Tensor", "Parameter") and p.is_floating_point())
        for p in params)
    return fused, False


def _hooked_step(step):
    """Wrap a step method so it runs the global and per-optimizer step hooks around it."""
    @functools.wraps(step)
    def wrapper(*args, **kwargs):
        self = args[0]
        for pre_hook in chain(_global_optimizer_pre_hooks.values(),
                              self._optimizer_step_pre_hooks.values()):
            result = pre_hook(self, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError(f"{step} must return None or a tuple of "
                                       f"(new_args, new_kwargs), but got {result}.")
                args, kwargs = result
        out = step(*args, **kwargs)
        for post_hook in chain(self._optimizer_step_post_hooks.values(),
                               _global_optimizer_post_hooks.values()):
            post_hook(self, args, kwargs)
        return out
    wrapper.hooked = True
    return wrapper


def _add_hook(hooks, hook, prepend=False):
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


_HOOK_TABLES = ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks",
                "_optimizer_state_dict_pre_hooks", "_optimizer_state_dict_post_hooks",
                "_optimizer_load_state_dict_pre_hooks", "_optimizer_load_state_dict_post_hooks")


class Optimizer:
    """Base class for all optimizers (torch.optim.Optimizer)."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if step is not None and not getattr(step, "hooked", False):
            cls.step = _hooked_step(step)

    def __init__(self, params, defaults):
        self.defaults = defaults
        for table in _HOOK_TABLES:
            setattr(self, table, OrderedDict())
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            "Tensors or dicts, but got " + typename(params))
        self.state = defaultdict(dict)
        self.param_groups = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state,
                "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        for table in _HOOK_TABLES:
            if table not in self.__dict__:
                setattr(self, table, OrderedDict())
        self.defaults.setdefault("differentiable", False)

    def __repr__(self):
        text = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"

    # ---- hooks
    def register_step_pre_hook(self, hook):
        return _add_hook(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook):
        return _add_hook(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook, prepend=False):
        return _add_hook(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend=False):
        return _add_hook(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend=False):
        return _add_hook(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend=False):
        return _add_hook(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # ---- state dicts
    def state_dict(self):
        """{'state': {param index: state}, 'param_groups': [group with 'params' as indices]}."""
        for pre_hook in self._optimizer_state_dict_pre_hooks.values():
            pre_hook(self)
        index = {}

        def pack(group):
            packed = {k: v for k, v in group.items() if k != "params"}
            for p in group["params"]:
                index.setdefault(id(p), len(index))
            packed["params"] = [index[id(p)] for p in group["params"]]
            return packed

        param_groups = [pack(g) for g in self.param_groups]
        packed_state = {(index[id(k)] if isinstance(k, Tensor) else k): v
                        for k, v in self.state.items()}
        state_dict = {"state": packed_state, "param_groups": param_groups}
        for post_hook in self._optimizer_state_dict_post_hooks.values():
            result = post_hook(self, state_dict)
            if result is not None:
                state_dict = result
        return state_dict

    @staticmethod
    def _process_value_according_to_param_policy(param, value, param_id, param_groups,
                                                 key=None):
        """A loaded state tensor: 'step' kept (float32 for fused/capturable groups), the
        others in the parameter's dtype when it is floating point."""
        group = next((g for g in param_groups if param_id in g["params"]), {})
        if key == "step":
            if group.get("fused", False) or group.get("capturable", False):
                return value.to(dtype=float32, device=param.device)
            return value
        if param.is_floating_point():
            return value.to(dtype=param.dtype, device=param.device)
        return value.to(device=param.device)

    def load_state_dict(self, state_dict):
        state_dict = state_dict.copy()
        for pre_hook in self._optimizer_load_state_dict_pre_hooks.values():
            result = pre_hook(self, state_dict)
            if result is not None:
                state_dict = result
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))
        saved_param_groups = state_dict["param_groups"]

        def cast(param, value, param_id, key=None):
            if isinstance(value, Tensor):
                return Optimizer._process_value_according_to_param_policy(
                    param, value, param_id, saved_param_groups, key)
            if isinstance(value, dict):
                return {k: cast(param, v, param_id, key=k) for k, v in value.items()}
            if isinstance(value, Iterable) and not isinstance(value, str):
                return type(value)(cast(param, v, param_id) for v in value)
            return value

        state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                state[id_map[k]] = cast(id_map[k], v, k)
            else:
                state[k] = v
        cast = None     # (it refers to itself: a reference cycle until the collector runs)
        for group, new_group in zip(groups, saved_groups):
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
        self.__setstate__({"state": state, "param_groups": saved_groups})
        for post_hook in self._optimizer_load_state_dict_post_hooks.values():
            post_hook(self)

    # ---- gradients and groups
    def zero_grad(self, set_to_none=True):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                    continue
                if p.grad.grad_fn is not None:
                    p.grad.detach_()
                else:
                    p.grad.requires_grad_(False)
                p.grad.zero_()

    def step(self, closure=None):
        raise NotImplementedError

    def _accelerator_graph_capture_health_check(self):
        """Nothing to check: graph capture needs an accelerator, and glassgrad has none."""

    def _cuda_graph_capture_health_check(self):
        warnings.warn("Use _accelerator_graph_capture_health_check instead",
                      DeprecationWarning, stacklevel=2)
        self._accelerator_graph_capture_health_check()

    def add_param_group(self, param_group):
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs. "
                            "Please use a list instead.")
        else:
            params = list(params)
        names = [p[0] for p in params if isinstance(p, tuple)]
        param_group["params"] = [p[1] if isinstance(p, tuple) else p for p in params]
        if names:
            if len(names) != len(params):
                raise ValueError("all optimizer params should be with/without names. "
                                 "Some param names are missing")
            param_group["param_names"] = names
        self._check_params(param_group["params"])
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
            param_group.setdefault(name, default)
        params = param_group["params"]
        if len(params) != len(set(params)):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; "
                          "in future, this will cause an error; see "
                          "github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        seen = set()
        for group in self.param_groups:
            seen.update(group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {which} to the optimizer")
        if not seen.isdisjoint(params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def _check_params(self, params):
        for param in params:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + typename(param))
            if not self.defaults.get("differentiable", None) and not (
                    param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")


# ---- what the built-in algorithms share

def _scalar_dtype(fused=False):
    """The dtype of 'step' and other scalar state: float32, or float64 under a float64
    default dtype (fused kernels keep float32)."""
    if fused:
        return float32
    return float64 if get_default_dtype() == float64 else float32


def _to_scalar(x):
    """A one-element tensor hyper-parameter as a 0-d tensor."""
    if isinstance(x, Tensor) and x.dim() != 0:
        return x.squeeze()
    return x


def _check_lr(lr):
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")


def _check_nonneg(value, what):
    if not 0.0 <= value:
        raise ValueError(f"Invalid {what}: {value}")


def _check_betas(betas):
    for i in (0, 1):
        if not 0.0 <= betas[i] < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {betas[i]}")


def _check_fused_flags(fused, foreach, differentiable):
    if fused:
        if differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        if foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


def _check_fused_param(p):
    if not p.is_floating_point():
        raise RuntimeError("`fused=True` requires all the params to be floating point Tensors "
                           f"of supported devices: {_FUSED_DEVICES} but {p.dtype} and "
                           f"{p.device.type}")


class _Algorithm(Optimizer):
    """A built-in optimizer: step() visits each parameter with a gradient, creates its state on
    first sight (``_init_state``) and updates it (``_update(group, p, grad, state)``).

    ``foreach=True`` and ``fused=True`` (where PyTorch has a CPU kernel) run the same
    single-tensor arithmetic: the same algorithm, within rounding of PyTorch's kernels.
    """

    _capturable_devices = _CAPTURABLE_DEVICES + ["xla"]
    _capturable_what = "params and state_steps"

    @_use_grad_for_differentiable
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        for group in self.param_groups:
            self._group_step(group)
        return loss

    def _group_step(self, group):
        for p in group["params"]:
            if p.grad is None:
                continue
            if group.get("fused"):
                _check_fused_param(p)
            state = self.state[p]
            if len(state) == 0:
                self._init_state(group, p, state)
            if group.get("capturable"):
                raise AssertionError(f"If capturable=True, {self._capturable_what} must be on "
                                     f"supported devices: {self._capturable_devices}.")
            grad = p.grad if not group["maximize"] else -p.grad
            self._update(group, p, grad, state)

    def _step_tensor(self, group=None):
        """A fresh 'step' counter: a 0-d float tensor on the CPU."""
        from .._creation import tensor
        return tensor(0.0, dtype=_scalar_dtype(group is not None and group.get("fused")))

    def _init_state(self, group, p, state):
        raise NotImplementedError

    def _update(self, group, p, grad, state):
        raise NotImplementedError

    def _setstate_defaults(self, **defaults):
        for group in self.param_groups:
            for key, value in defaults.items():
                group.setdefault(key, value)
        self._steps_as_tensors()

    def _steps_as_tensors(self):
        """Old state dicts kept 'step' as a number: make it the 0-d tensor it is now."""
        from .._creation import tensor
        for group in self.param_groups:
            for p in group["params"]:
                p_state = self.state.get(p, {})
                if "step" in p_state and not isinstance(p_state["step"], Tensor):
                    p_state["step"] = tensor(float(p_state["step"]),
                                             dtype=_scalar_dtype(group.get("fused")))
