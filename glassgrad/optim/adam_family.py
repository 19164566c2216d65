"""Adamax, NAdam and RAdam: Adam's moments with an infinity norm, Nesterov momentum, or a
rectified variance."""
from .._creation import tensor, zeros_like
from ..ops.pointwise import maximum
from ..ops.reduce import amax
from ..ops.shape import cat
from .optimizer import (_Algorithm, _check_betas, _check_lr, _check_nonneg, _scalar_dtype,
                        _to_scalar, _get_value)

__all__ = ["Adamax", "NAdam", "RAdam"]


def _check_adam_like(lr, betas, eps, weight_decay):
    _check_lr(lr)
    _check_nonneg(eps, "epsilon value")
    _check_betas(betas)
    _check_nonneg(weight_decay, "weight_decay value")


def _decay(group, p, grad, lr):
    """L2 penalty added to the gradient, or decoupled decay of the parameter itself."""
    wd = group["weight_decay"]
    if wd == 0:
        return grad
    if group.get("decoupled_weight_decay"):
        p.mul_(1 - lr * wd)
        return grad
    return grad.add(p, alpha=wd)


class Adamax(_Algorithm):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False):
        _check_adam_like(lr, betas, eps, weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        self._setstate_defaults(foreach=None, maximize=False, differentiable=False,
                                capturable=False)

    def _init_state(self, group, p, state):
        state["step"] = self._step_tensor()
        state["exp_avg"] = zeros_like(p)
        state["exp_inf"] = zeros_like(p)

    def _update(self, group, p, grad, state):
        beta1, beta2 = group["betas"]
        lr, eps = _to_scalar(group["lr"]), group["eps"]
        exp_avg, exp_inf, step_t = state["exp_avg"], state["exp_inf"], state["step"]
        step_t += 1
        grad = _decay(group, p, grad, lr)
        exp_avg.lerp_(grad, 1 - beta1)
        if group["differentiable"]:
            both = cat([exp_inf.mul_(beta2).unsqueeze(0), grad.abs().add_(eps).unsqueeze_(0)], 0)
            exp_inf.copy_(amax(both, 0, keepdim=False))
        else:
            exp_inf.copy_(maximum(exp_inf.mul_(beta2), grad.abs().add_(eps)))
        clr = lr / (1 - beta1 ** step_t.item())
        p.addcdiv_(exp_avg, exp_inf, value=-_get_value(clr))


class NAdam(_Algorithm):
    _capturable_what = "params, mu_products and state_steps"

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
        _check_adam_like(lr, betas, eps, weight_decay)
        _check_nonneg(momentum_decay, "momentum_decay value")
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay,
                    "decoupled_weight_decay": decoupled_weight_decay, "maximize": maximize,
                    "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        self._setstate_defaults(maximize=False, foreach=None, capturable=False,
                                differentiable=False, decoupled_weight_decay=False)
        for p_state in self.state.values():
            if "mu_product" in p_state and not hasattr(p_state["mu_product"], "item"):
                p_state["mu_product"] = tensor(p_state["mu_product"], dtype=_scalar_dtype())

    def _init_state(self, group, p, state):
        state["step"] = self._step_tensor()
        state["mu_product"] = tensor(1.0, dtype=_scalar_dtype())
        state["exp_avg"] = zeros_like(p)
        state["exp_avg_sq"] = zeros_like(p)

    def _update(self, group, p, grad, state):
        beta1, beta2 = group["betas"]
        lr, eps, decay = _to_scalar(group["lr"]), group["eps"], group["momentum_decay"]
        exp_avg, exp_avg_sq, mu_product = state["exp_avg"], state["exp_avg_sq"], state["mu_product"]
        step_t = state["step"]
        step_t += 1
        step = step_t.item()
        bias_correction2 = 1 - beta2 ** step
        grad = _decay(group, p, grad, lr)
        mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * decay))
        mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * decay))
        mu_product *= mu
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        denom = exp_avg_sq.div(bias_correction2).sqrt()
        if group["differentiable"]:
            denom = denom.add(eps)
            mu_product_next = mu_product * mu_next
            p.addcdiv_(grad * (-lr * (1.0 - mu) / (1.0 - mu_product)), denom)
            p.addcdiv_(exp_avg * (-lr * mu_next / (1.0 - mu_product_next)), denom)
            return
        mu_product_next = mu_product.item() * mu_next
        denom.add_(eps)
        p.addcdiv_(grad, denom, value=_get_value(-lr * (1.0 - mu) / (1.0 - mu_product.item())))
        p.addcdiv_(exp_avg, denom, value=_get_value(-lr * mu_next / (1.0 - mu_product_next)))


class RAdam(_Algorithm):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False,
                 capturable=False, differentiable=False):
        _check_adam_like(lr, betas, eps, weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "decoupled_weight_decay": decoupled_weight_decay,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        self._setstate_defaults(foreach=None, maximize=False, differentiable=False,
                                capturable=False, decoupled_weight_decay=False)

    def _init_state(self, group, p, state):
        state["step"] = self._step_tensor()
        state["exp_avg"] = zeros_like(p)
        state["exp_avg_sq"] = zeros_like(p)

    def _update(self, group, p, grad, state):
        beta1, beta2 = group["betas"]
        lr, eps = _to_scalar(group["lr"]), group["eps"]
        exp_avg, exp_avg_sq, step_t = state["exp_avg"], state["exp_avg_sq"], state["step"]
        step_t += 1
        step = step_t.item()
        grad = _decay(group, p, grad, lr)
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        corrected = exp_avg / bias_correction1
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * beta2 ** step / bias_correction2
        if rho_t > 5.0:
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf
                    / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            sq = exp_avg_sq.sqrt()
            sq = sq.add(eps) if group["differentiable"] else sq.add_(eps)
            adaptive_lr = bias_correction2 ** 0.5 / sq
            p.add_(corrected * lr * adaptive_lr * rect, alpha=-1.0)
        else:
            p.add_(corrected * lr, alpha=-1.0)
