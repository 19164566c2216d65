"""ASGD: averaged stochastic gradient descent (Polyak-Ruppert averaging in state['ax'])."""
from .._creation import as_tensor, ones, zeros, zeros_like
from .optimizer import _Algorithm, _check_lr, _check_nonneg, _scalar_dtype, _to_scalar, _get_value

__all__ = ["ASGD"]


class ASGD(_Algorithm):
    _capturable_what = "params, mus, etas, and state_steps"

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 foreach=None, maximize=False, differentiable=False, capturable=False):
        _check_lr(lr)
        _check_nonneg(weight_decay, "weight_decay value")
        defaults = {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0,
                    "weight_decay": weight_decay, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        self._setstate_defaults(foreach=None, maximize=False, differentiable=False,
                                capturable=False)

    def _init_state(self, group, p, state):
        dtype = _scalar_dtype()
        state["step"] = zeros((), dtype=dtype)
        state["eta"] = as_tensor(_get_value(_to_scalar(group["lr"])), dtype=dtype).clone().detach()
        state["mu"] = ones((), dtype=dtype)
        state["ax"] = zeros_like(p)

    def _update(self, group, p, grad, state):
        lr, lambd = _get_value(_to_scalar(group["lr"])), group["lambd"]
        mu, ax, eta, step_t = state["mu"], state["ax"], state["eta"], state["step"]
        step_t += 1
        if group["weight_decay"] != 0:
            grad = grad.add(p, alpha=group["weight_decay"])
        eta_value = eta.item()
        p.mul_(1 - lambd * eta_value)
        p.add_(grad, alpha=-eta_value)
        if mu.item() != 1:
            ax.add_(p.sub(ax).mul_(mu))
        else:
            ax.copy_(p)
        step = step_t.item()
        eta.copy_(as_tensor(lr / (1 + lambd * lr * step) ** group["alpha"]))
        mu.copy_(as_tensor(1 / max(1, step - group["t0"])))
