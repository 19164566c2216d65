"""Adam and AdamW (amsgrad, maximize, L2 or decoupled weight decay)."""
from .._creation import zeros_like
from .._tensor import Tensor
from ..compiler import traceable_reads
from ..ops.pointwise import maximum
from .optimizer import (_Algorithm, _check_betas, _check_fused_flags, _check_lr, _check_nonneg,
                        _to_scalar, _get_value)

__all__ = ["Adam", "AdamW"]


def _check_tensor_hyper(value, name, foreach, capturable):
    if not isinstance(value, Tensor):
        return
    if foreach and not capturable:
        raise ValueError(f"{name} as a Tensor is not supported for capturable=False and "
                         "foreach=True")
    if value.numel() != 1:
        raise ValueError(f"Tensor {name} must be 1-element")


class Adam(_Algorithm):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        if isinstance(lr, Tensor):
            if foreach and not capturable:
                raise ValueError("lr as a Tensor is not supported for capturable=False and "
                                 "foreach=True")
        _check_lr(lr)
        _check_nonneg(eps, "epsilon value")
        _check_betas(betas)
        _check_nonneg(weight_decay, "weight_decay value")
        floats = isinstance(betas[0], float) and isinstance(betas[1], float)
        if not (floats or (isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor))):
            raise ValueError("betas must be either both floats or both Tensors")
        _check_tensor_hyper(betas[0], "betas[0]", foreach, capturable)
        _check_tensor_hyper(betas[1], "betas[1]", foreach, capturable)
        defaults = {"lr": lr, "betas": tuple(map(_to_scalar, betas)), "eps": eps,
                    "weight_decay": weight_decay, "amsgrad": amsgrad, "maximize": maximize,
                    "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable, "fused": fused,
                    "decoupled_weight_decay": decoupled_weight_decay}
        super().__init__(params, defaults)
        _check_fused_flags(fused, foreach, differentiable)

    def __setstate__(self, state):
        super().__setstate__(state)
        self._setstate_defaults(amsgrad=False, maximize=False, foreach=None, capturable=False,
                                differentiable=False, decoupled_weight_decay=False, fused=None)

    def _init_state(self, group, p, state):
        state["step"] = self._step_tensor(group)
        state["exp_avg"] = zeros_like(p)
        state["exp_avg_sq"] = zeros_like(p)
        if group["amsgrad"]:
            state["max_exp_avg_sq"] = zeros_like(p)

    @traceable_reads     # glassgrad.compile: step_t.item() read symbolically (compiler/_sym.py)
    def _update(self, group, p, grad, state):
        beta1, beta2 = (_to_scalar(b) for b in group["betas"])
        lr, wd, eps = _to_scalar(group["lr"]), group["weight_decay"], group["eps"]
        differentiable = group["differentiable"]
        exp_avg, exp_avg_sq, step_t = state["exp_avg"], state["exp_avg_sq"], state["step"]
        step_t += 1
        if wd != 0:
            if group["decoupled_weight_decay"]:
                p.mul_(1 - lr * wd)
            elif differentiable and isinstance(wd, Tensor) and wd.requires_grad:
                grad = grad.addcmul_(p.clone(), wd)
            else:
                grad = grad.add(p, alpha=_get_value(wd))
        exp_avg.lerp_(grad, 1 - beta1)
        if differentiable and isinstance(beta2, Tensor) and beta2.requires_grad:
            exp_avg_sq.lerp_(grad.square(), weight=1 - beta2)
        else:
            exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=_get_value(1 - beta2))
        if differentiable:
            self._differentiable_descent(group, p, state, step_t, lr, beta1, beta2, eps)
            return
        step = step_t.item()
        bias_correction1 = 1 - beta1 ** step
        bias_correction2_sqrt = (1 - beta2 ** step) ** 0.5
        step_size = lr / bias_correction1
        second = exp_avg_sq
        if group["amsgrad"]:
            second = state["max_exp_avg_sq"]
            second.copy_(maximum(second, exp_avg_sq))
        denom = (second.sqrt() / _get_value(bias_correction2_sqrt)).add_(eps)
        p.addcdiv_(exp_avg, denom, value=-_get_value(step_size))

    @staticmethod
    def _differentiable_descent(group, p, state, step, lr, beta1, beta2, eps):
        """The update as PyTorch's differentiable path writes it: bias corrections from the
        step tensor, so autograd sees every factor."""
        bias_correction1 = 1 - beta1 ** (step.clone() if _needs_grad(beta1) else step)
        bias_correction2 = 1 - beta2 ** (step.clone() if _needs_grad(beta2) else step)
        step_size_neg = (lr / bias_correction1).neg()
        bias_correction2_sqrt = bias_correction2.sqrt()
        second = state["exp_avg_sq"]
        if group["amsgrad"]:
            previous = state["max_exp_avg_sq"].clone()
            state["max_exp_avg_sq"].copy_(maximum(previous, second))
            second = state["max_exp_avg_sq"]
        denom = (second.sqrt() / (bias_correction2_sqrt * step_size_neg)).add_(
            eps / step_size_neg)
        p.addcdiv_(state["exp_avg"].clone(), denom)


def _needs_grad(x):
    return isinstance(x, Tensor) and x.requires_grad


class AdamW(Adam):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
