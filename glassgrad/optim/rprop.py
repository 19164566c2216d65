"""Rprop: resilient backpropagation (per-coordinate step sizes driven by gradient signs)."""
from .._creation import full_like, zeros_like
from .optimizer import _Algorithm, _check_lr, _to_scalar, _get_value

__all__ = ["Rprop"]


class Rprop(_Algorithm):
    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        _check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {"lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        self._setstate_defaults(foreach=None, maximize=False, differentiable=False,
                                capturable=False)

    def _init_state(self, group, p, state):
        state["step"] = self._step_tensor()
        state["prev"] = zeros_like(p)
        state["step_size"] = full_like(p.grad, _get_value(_to_scalar(group["lr"])))

    def _update(self, group, p, grad, state):
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        prev, step_size = state["prev"], state["step_size"]
        state["step"] += 1
        sign = grad.mul(prev.clone() if group["differentiable"] else prev).sign()
        sign[sign.gt(0)] = etaplus
        sign[sign.lt(0)] = etaminus
        sign[sign.eq(0)] = 1
        step_size.mul_(sign).clamp_(step_size_min, step_size_max)
        grad = grad.clone()
        grad[sign.eq(etaminus)] = 0
        p.addcmul_(grad.sign(), step_size, value=-1)
        prev.copy_(grad)
