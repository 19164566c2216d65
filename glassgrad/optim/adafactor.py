"""Adafactor: Adam-like steps with a factored (row and column) second moment for matrices."""
from .._creation import zeros_like
from ..dtypes import finfo
from ..ops.reduce import norm
from .optimizer import _Algorithm, _to_scalar

__all__ = ["Adafactor"]



class Adafactor(_Algorithm):
    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0,
                 weight_decay=0.0, *, foreach=None, maximize=False):
        if hasattr(lr, "numel") and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = {"lr": lr, "beta2_decay": beta2_decay, "eps": eps, "d": d,
                    "weight_decay": weight_decay, "foreach": foreach, "maximize": maximize}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        self._setstate_defaults(foreach=None)

    def _group_step(self, group):
        # eps1 left as None is the machine epsilon of the first parameter stepped
        self._eps1 = group["eps"][0]
        super()._group_step(group)

    def _init_state(self, group, p, state):
        state["step"] = self._step_tensor()
        grad = p.grad
        if grad.dim() > 1:
            state["row_var"] = grad.new_zeros(list(grad.shape[:-1]) + [1])
            state["col_var"] = grad.new_zeros(list(grad.shape[:-2]) + [1, grad.shape[-1]])
        else:
            state["variance"] = zeros_like(grad)

    def _update(self, group, p, grad, state):
        if self._eps1 is None:
            self._eps1 = finfo(p.dtype).eps
        eps1, eps2 = self._eps1, group["eps"][1]
        lr = _to_scalar(group["lr"])
        step_t = state["step"]
        step_t += 1
        step = step_t.item()
        one_minus_beta2_t = step ** group["beta2_decay"]
        rho_t = min(lr, 1 / step ** 0.5)
        alpha = max(eps2, p.norm(2).item() / p.numel() ** 0.5) * rho_t
        if group["weight_decay"] != 0:
            p.mul_(1 - lr * group["weight_decay"])
        if grad.dim() > 1:
            row_var, col_var = state["row_var"], state["col_var"]
            row_var.lerp_(norm(grad, dim=-1, keepdim=True).square_().div_(grad.size(-1)),
                          one_minus_beta2_t)
            col_var.lerp_(norm(grad, dim=-2, keepdim=True).square_().div_(grad.size(-2)),
                          one_minus_beta2_t)
            var_estimate = row_var @ col_var
            var_estimate.div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=eps1))
        else:
            state["variance"].lerp_(grad * grad, one_minus_beta2_t)
            var_estimate = state["variance"].clone()
        update = var_estimate.clamp_(min=eps1 * eps1).rsqrt_()
        update.mul_(grad)
        denom = max(1.0, update.norm(2).item() / (update.numel() ** 0.5 * group["d"]))
        p.add_(update, alpha=-alpha / denom)
