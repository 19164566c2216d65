"""The activation modules: each calls its nn.functional function with its settings."""
import warnings

from ... import _creation
from .. import functional as F, init
from ..parameter import Parameter
from .module import Module

__all__ = ["Threshold", "ReLU", "Hardtanh", "ReLU6", "Sigmoid", "Hardsigmoid", "Tanh", "SiLU",
           "Mish", "Hardswish", "ELU", "CELU", "SELU", "GLU", "GELU", "Hardshrink", "LeakyReLU",
           "LogSigmoid", "Softplus", "Softshrink", "PReLU", "Softsign", "Tanhshrink", "Softmin",
           "Softmax", "Softmax2d", "LogSoftmax", "RReLU"]


def _inplace_repr(inplace, lead=""):
    return (", inplace=True" if lead else "inplace=True") if inplace else ""


class _Inplace(Module):
    """An activation whose only setting is inplace=."""
    _fn = None

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return type(self)._fn(input, inplace=self.inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace)


class _Plain(Module):
    """An activation with no settings."""
    _fn = None

    def forward(self, input):
        return type(self)._fn(input)


class Threshold(Module):
    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        return f"threshold={self.threshold}, value={self.value}{_inplace_repr(self.inplace, 1)}"


class ReLU(_Inplace):
    _fn = F.relu


class SiLU(_Inplace):
    _fn = F.silu


class Mish(_Inplace):
    _fn = F.mish


class Hardsigmoid(_Inplace):
    _fn = F.hardsigmoid


class Hardswish(_Inplace):
    _fn = F.hardswish


class SELU(_Inplace):
    _fn = F.selu


class Hardtanh(Module):
    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False, min_value=None, max_value=None):
        super().__init__()
        if min_value is not None:
            warnings.warn("keyword argument `min_value` is deprecated and renamed to `min_val`",
                          FutureWarning, stacklevel=2)
            min_val = min_value
        if max_value is not None:
            warnings.warn("keyword argument `max_value` is deprecated and renamed to `max_val`",
                          FutureWarning, stacklevel=2)
            max_val = max_value
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace
        if self.max_val <= self.min_val:
            raise AssertionError(f"max_val ({self.max_val}) must be greater than min_val "
                                 f"({self.min_val})")

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}{_inplace_repr(self.inplace, 1)}"


class ReLU6(Hardtanh):
    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace)


class Sigmoid(_Plain):
    _fn = F.sigmoid


class Tanh(_Plain):
    _fn = F.tanh


class LogSigmoid(_Plain):
    _fn = F.logsigmoid


class Softsign(_Plain):
    _fn = F.softsign


class Tanhshrink(_Plain):
    _fn = F.tanhshrink


class _Alpha(Module):
    _fn = None

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input):
        return type(self)._fn(input, self.alpha, self.inplace)

    def extra_repr(self):
        return f"alpha={self.alpha}{_inplace_repr(self.inplace, 1)}"


class ELU(_Alpha):
    _fn = F.elu


class CELU(_Alpha):
    _fn = F.celu


class GLU(Module):
    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class GELU(Module):
    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class _Shrink(Module):
    _fn = None

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return type(self)._fn(input, self.lambd)

    def extra_repr(self):
        return f"{self.lambd}"


class Hardshrink(_Shrink):
    _fn = F.hardshrink


class Softshrink(_Shrink):
    _fn = F.softshrink


class LeakyReLU(Module):
    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__()
        self.negative_slope, self.inplace = negative_slope, inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        return f"negative_slope={self.negative_slope}{_inplace_repr(self.inplace, 1)}"


class Softplus(Module):
    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"


class PReLU(Module):
    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        self.num_parameters = num_parameters
        super().__init__()
        self.init = init
        self.weight = Parameter(_creation.empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self):
        init.constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class _Dim(Module):
    _fn = None

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "dim"):
            self.dim = None

    def forward(self, input):
        # torch's 5 names its _wrapped_call_impl; here the module call is a frame shorter
        # (Module.__call__ runs forward itself), so 4 names module.py's call line likewise
        return type(self)._fn(input, self.dim, _stacklevel=4)

    def extra_repr(self):
        return f"dim={self.dim}"


class Softmin(_Dim):
    _fn = F.softmin


class Softmax(_Dim):
    _fn = F.softmax


class LogSoftmax(_Dim):
    _fn = F.log_softmax


class Softmax2d(Module):
    def forward(self, input):
        if input.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D "
                             "instead")
        return F.softmax(input, -3, _stacklevel=5)


class RReLU(Module):
    __constants__ = ["lower", "upper", "inplace"]

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        return f"lower={self.lower}, upper={self.upper}{_inplace_repr(self.inplace, ',')}"
