"""SGD with momentum, dampening, Nesterov momentum, weight decay and maximize."""
from .._tensor import Tensor
from .optimizer import _Algorithm, _check_fused_flags, _check_fused_param, _get_value

__all__ = ["SGD"]


class SGD(_Algorithm):
    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False,
                 *, maximize=False, foreach=None, differentiable=False, fused=None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening,
                    "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize,
                    "foreach": foreach, "differentiable": differentiable, "fused": fused}
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        _check_fused_flags(fused, foreach, differentiable)

    def __setstate__(self, state):
        super().__setstate__(state)
        self._setstate_defaults(nesterov=False, maximize=False, foreach=None,
                                differentiable=False, fused=False)

    def _group_step(self, group):
        # SGD keeps no state without momentum (not even an empty entry per parameter)
        momentum = group["momentum"]
        for p in group["params"]:
            if p.grad is None:
                continue
            if group["fused"]:
                _check_fused_param(p)
            grad = p.grad if not group["maximize"] else -p.grad
            if group["weight_decay"] != 0:
                grad = _decay(grad, p, group["weight_decay"])
            if momentum != 0:
                state = self.state[p]
                buf = state.get("momentum_buffer")
                if buf is None:
                    buf = state["momentum_buffer"] = grad.detach().clone()
                else:
                    buf.mul_(momentum).add_(grad, alpha=1 - group["dampening"])
                grad = grad.add(buf, alpha=momentum) if group["nesterov"] else buf
            _descend(p, grad, group["lr"])


def _decay(grad, p, weight_decay):
    """grad + weight_decay * p (a weight decay tensor that requires grad stays in the graph)."""
    if isinstance(weight_decay, Tensor) and weight_decay.requires_grad:
        return grad.addcmul_(p.clone(), weight_decay)
    return grad.add(p, alpha=_get_value(weight_decay))


def _descend(p, grad, lr):
    """p -= lr * grad (an lr tensor that requires grad stays in the graph)."""
    if isinstance(lr, Tensor) and lr.requires_grad:
        p.addcmul_(grad, lr, value=-1)
    else:
        p.add_(grad, alpha=-_get_value(lr))
