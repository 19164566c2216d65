"""SparseAdam and Muon, which glassgrad can only refuse. SparseAdam is Adam for sparse
gradients (nn.Embedding(sparse=True)); glassgrad has no sparse tensors, so every gradient is
dense, and step() refuses it as PyTorch does a dense one. Muon needs bfloat16."""
from .._autograd.grad_mode import enable_grad, no_grad
from .optimizer import Optimizer, _check_betas

__all__ = ["SparseAdam", "Muon"]


class SparseAdam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        if hasattr(lr, "numel") and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        _check_betas(betas)
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "maximize": maximize})

    def step(self, closure=None):
        with no_grad():
            loss = None
            if closure is not None:
                with enable_grad():
                    loss = closure()
            for group in self.param_groups:
                if any(p.grad is not None for p in group["params"]):
                    raise RuntimeError("SparseAdam does not support dense gradients, please "
                                       "consider Adam instead")
            return loss


class Muon(Optimizer):
    """torch.optim.Muon orthogonalises each update with a Newton-Schulz iteration in
    bfloat16, a dtype glassgrad does not have: refused rather than run with other numbers."""

    def __init__(self, params, *args, **kwargs):
        raise NotImplementedError("glassgrad.optim.Muon: Muon's Newton-Schulz iteration runs in "
                                  "bfloat16, which glassgrad does not support")
