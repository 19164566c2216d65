"""RMSprop, Adagrad and Adadelta: per-coordinate step sizes from running squared gradients."""
from .._creation import full_like, zeros_like
from .optimizer import (_Algorithm, _check_fused_flags, _check_lr, _check_nonneg, _to_scalar,
                        _get_value)

__all__ = ["RMSprop", "Adagrad", "Adadelta"]


def _l2(grad, p, weight_decay):
    return grad if weight_decay == 0 else grad.add(p, alpha=weight_decay)


class RMSprop(_Algorithm):
    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        _check_lr(lr)
        _check_nonneg(eps, "epsilon value")
        _check_nonneg(momentum, "momentum value")
        _check_nonneg(weight_decay, "weight_decay value")
        _check_nonneg(alpha, "alpha value")
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps,
                    "centered": centered, "weight_decay": weight_decay,
                    "capturable": capturable, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        self._setstate_defaults(momentum=0, centered=False, foreach=None, maximize=False,
                                differentiable=False, capturable=False)

    def _init_state(self, group, p, state):
        state["step"] = self._step_tensor()
        state["square_avg"] = zeros_like(p)
        if group["momentum"] > 0:
            state["momentum_buffer"] = zeros_like(p)
        if group["centered"]:
            state["grad_avg"] = zeros_like(p)

    def _update(self, group, p, grad, state):
        alpha, lr, momentum = group["alpha"], _to_scalar(group["lr"]), group["momentum"]
        state["step"] += 1
        grad = _l2(grad, p, group["weight_decay"])
        square_avg = state["square_avg"]
        square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
        if group["centered"]:
            grad_avg = state["grad_avg"]
            grad_avg.lerp_(grad, 1 - alpha)
            avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
        else:
            avg = square_avg.sqrt()
        avg = avg.add(group["eps"]) if group["differentiable"] else avg.add_(group["eps"])
        if momentum > 0:
            buf = state["momentum_buffer"]
            buf.mul_(momentum).addcdiv_(grad, avg)
            p.add_(buf, alpha=-_get_value(lr))
        else:
            p.addcdiv_(grad, avg, value=-_get_value(lr))


class Adagrad(_Algorithm):
    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0,
                 eps=1e-10, foreach=None, *, maximize=False, differentiable=False, fused=None):
        _check_lr(lr)
        _check_nonneg(lr_decay, "lr_decay value")
        _check_nonneg(weight_decay, "weight_decay value")
        _check_nonneg(initial_accumulator_value, "initial_accumulator_value value")
        _check_nonneg(eps, "epsilon value")
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value,
                    "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)
        _check_fused_flags(fused, foreach, differentiable)
        for group in self.param_groups:      # Adagrad's state exists from the start
            for p in group["params"]:
                self._init_state(group, p, self.state[p])

    def __setstate__(self, state):
        super().__setstate__(state)
        self._setstate_defaults(foreach=None, maximize=False, differentiable=False, fused=None)

    def share_memory(self):
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p]["sum"].share_memory_()

    def _init_state(self, group, p, state):
        state["step"] = self._step_tensor(group)
        state["sum"] = full_like(p, self.defaults["initial_accumulator_value"])

    def _update(self, group, p, grad, state):
        lr = _to_scalar(group["lr"])
        step_t = state["step"]
        step_t += 1
        step = step_t.item()
        grad = _l2(grad, p, group["weight_decay"])
        clr = lr / (1 + (step - 1) * group["lr_decay"])
        state_sum = state["sum"]
        state_sum.addcmul_(grad, grad, value=1)
        if group["differentiable"]:
            std = state_sum.sqrt() + group["eps"]
        else:
            std = state_sum.sqrt().add_(group["eps"])
        p.addcdiv_(grad, std, value=-_get_value(clr))


class Adadelta(_Algorithm):
    _capturable_devices = _Algorithm._capturable_devices[:-1]     # PyTorch leaves out xla

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False):
        _check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        _check_nonneg(eps, "epsilon value")
        _check_nonneg(weight_decay, "weight_decay value")
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "capturable": capturable, "foreach": foreach,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        self._setstate_defaults(foreach=None, maximize=False, differentiable=False,
                                capturable=False)

    def _init_state(self, group, p, state):
        state["step"] = self._step_tensor()
        state["square_avg"] = zeros_like(p)
        state["acc_delta"] = zeros_like(p)

    def _update(self, group, p, grad, state):
        rho, eps = group["rho"], group["eps"]
        square_avg, acc_delta = state["square_avg"], state["acc_delta"]
        state["step"] += 1
        grad = _l2(grad, p, group["weight_decay"])
        square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
        std = square_avg.add(eps).sqrt_()
        delta = acc_delta.add(eps).sqrt_()
        if group["differentiable"]:
            delta = delta.clone()
        delta.div_(std).mul_(grad)
        acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
        p.add_(delta, alpha=-_get_value(_to_scalar(group["lr"])))
