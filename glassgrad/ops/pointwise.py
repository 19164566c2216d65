"""Pointwise ops: arithmetic, unary math, comparisons, clamp, where, fill."""
from .. import dtypes
from .._creation import zeros_like
from ..backend import xp
from .registry import apply_inplace, defop


def _pow_dtype(values, attrs):
    return dtypes.result_type(*values, *attrs.values())

# -- arithmetic ------------------------------------------------------------------------------
_add = defop("AddBackward0", lambda self, other, alpha: xp.add(self, other) if alpha == 1
             else xp.add(self, xp.multiply(other, alpha)), ("self", "other"),
             grads={"self": lambda grad: grad,
                    "other": lambda grad, alpha: grad if alpha == 1 else grad * alpha})
_sub = defop("SubBackward0", lambda self, other, alpha: xp.subtract(self, other) if alpha == 1
             else xp.subtract(self, xp.multiply(other, alpha)), ("self", "other"),
             grads={"self": lambda grad: grad,
                    "other": lambda grad, alpha: -grad if alpha == 1 else -grad * alpha})
_rsub = defop("RsubBackward1", lambda self, other, alpha: xp.subtract(other, self) if alpha == 1
              else xp.subtract(other, xp.multiply(self, alpha)), ("self",),
              dtype=lambda values, attrs: dtypes.result_type(values[0], attrs["other"]),
              grads={"self": lambda grad, alpha: -grad if alpha == 1 else -grad * alpha})
_mul = defop("MulBackward0", xp.multiply, ("self", "other"),
             grads={"self": lambda grad, other: grad * other,
                    "other": lambda grad, self: grad * self})
_div = defop("DivBackward0", xp.true_divide, ("self", "other"), dtype="float",
             grads={"self": lambda grad, other: grad / other,
                    "other": lambda grad, self, other: -grad * ((self / other) / other)})


def _pow_forward(self, exponent):
    if isinstance(self, xp.ndarray) and self.dtype.kind in "iu" and \
            isinstance(exponent, int) and exponent < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    return xp.power(self, exponent)


def _pow_scalar_exponent_grad(grad, self, exponent):
    if exponent == 0:
        return zeros_like(grad)
    return grad * (exponent * self.pow(exponent - 1))


def _pow_tensor_self_grad(grad, self, exponent):
    return where(exponent == 0.0, 0.0, grad * (exponent * self.pow(exponent - 1)))


def _pow_tensor_exponent_grad(grad, self, exponent, result):
    zero_base = (self == 0) & (exponent >= 0)
    return grad * where(zero_base, 0.0, result * log(self))


def _pow_scalar_base_grad(grad, self, exponent, result):
    if self == 0:
        return grad * where(exponent >= 0, 0.0, result * xp.log(float(self)))
    return grad * (result * float(xp.log(float(self))))


_pow_scalar = defop("PowBackward0", lambda self, exponent: _pow_forward(self, exponent),
                    grads={"self": _pow_scalar_exponent_grad}, dtype=_pow_dtype)
_pow_tensor = defop("PowBackward1", _pow_forward, ("self", "exponent"),
                    grads={"self": _pow_tensor_self_grad, "exponent": _pow_tensor_exponent_grad})
_pow_scalar_base = defop("PowBackward2", lambda exponent, self: _pow_forward(self, exponent),
                         ("exponent",), grads={"exponent": _pow_scalar_base_grad},
                         dtype=_pow_dtype)


def add(input, other, *, alpha=1):
    return _add(input, other, alpha=alpha)


def sub(input, other, *, alpha=1):
    return _sub(input, other, alpha=alpha)


def rsub(input, other, *, alpha=1):
    from .._tensor import Tensor
    if isinstance(other, Tensor):
        return _sub(other, input, alpha=alpha)
    return _rsub(input, other=other, alpha=alpha)


def mul(input, other):
    return _mul(input, other)


def div(input, other):
    return _div(input, other)


def pow(input, exponent):
    from .._tensor import Tensor
    if not isinstance(exponent, Tensor):
        return _pow_scalar(input, exponent=exponent)
    if not isinstance(input, Tensor):
        return _pow_scalar_base(exponent, self=input)
    return _pow_tensor(input, exponent)


# -- unary math ------------------------------------------------------------------------------
def _unary(node_name, forward, grad, dtype="float"):
    op = defop(node_name, forward, grads={"self": grad}, dtype=dtype)
    return lambda input: op(input)


neg = _unary("NegBackward0", xp.negative, lambda grad: -grad, dtype="promote")
abs = _unary("AbsBackward0", xp.abs, lambda grad, self: grad * self.sign(), dtype="promote")
sign = _unary("SignBackward0", xp.sign, lambda grad: zeros_like(grad), dtype="promote")
exp = _unary("ExpBackward0", xp.exp, lambda grad, result: grad * result)
log = _unary("LogBackward0", xp.log, lambda grad, self: grad / self)
sqrt = _unary("SqrtBackward0", xp.sqrt, lambda grad, result: grad / (2 * result))
sin = _unary("SinBackward0", xp.sin, lambda grad, self: grad * self.cos())
cos = _unary("CosBackward0", xp.cos, lambda grad, self: grad * -self.sin())
tanh = _unary("TanhBackward0", xp.tanh, lambda grad, result: grad * (1 - result * result))
sigmoid = _unary("SigmoidBackward0", lambda a: 1 / (1 + xp.exp(-a)),
                 lambda grad, result: grad * (1 - result) * result)
reciprocal = _unary("ReciprocalBackward0", lambda a: 1 / a,
                    lambda grad, result: -grad * (result * result))
relu = _unary("ReluBackward0", lambda a: xp.maximum(a, 0),
              lambda grad, result: where(result <= 0, 0, grad), dtype="promote")


# -- comparisons, where, clamp ---------------------------------------------------------------
def _compare(name, forward, dtype="bool"):
    op = defop(name, forward, ("self", "other"), dtype=dtype)   # no grads: not differentiable
    return lambda input, other: op(input, other)


eq = _compare("eq", xp.equal)
ne = _compare("ne", xp.not_equal)
lt = _compare("lt", xp.less)
le = _compare("le", xp.less_equal)
gt = _compare("gt", xp.greater)
ge = _compare("ge", xp.greater_equal)
logical_and = _compare("logical_and", xp.logical_and)
logical_or = _compare("logical_or", xp.logical_or)
bitwise_and = _compare("bitwise_and", xp.bitwise_and, dtype="promote")
bitwise_or = _compare("bitwise_or", xp.bitwise_or, dtype="promote")

_where = defop("WhereBackward0", xp.where, ("condition", "self", "other"), promote=(1, 2),
               grads={"self": lambda grad, condition: where(condition, grad, 0),
                      "other": lambda grad, condition: where(condition, 0, grad)})


def where(condition, input, other):
    return _where(condition, input, other)


def _clamp_forward(self, min, max):
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if min is not None:
        self = xp.maximum(self, min)
    return self if max is None else xp.minimum(self, max)


def _clamp_grad(grad, self, min, max):
    if min is None:
        inside = self <= max
    elif max is None:
        inside = self >= min
    else:
        inside = (self >= min) & (self <= max)
    return where(inside, grad, 0)


_clamp = defop("ClampBackward1", _clamp_forward, grads={"self": _clamp_grad})


def clamp(input, min=None, max=None):
    return _clamp(input, min=min, max=max)


# -- in-place --------------------------------------------------------------------------------
_zero = defop("ZeroBackward0", xp.zeros_like, dtype="same", grads={"self": lambda grad: zeros_like(grad)})
_fill = defop("FillBackward2", lambda self, value: xp.full_like(self, value), dtype="same",
              grads={"self": lambda grad: zeros_like(grad)})
_fill_tensor = defop("FillBackward3", lambda self, value: xp.full_like(self, value),
                     ("self", "value"), dtype="same",
                     grads={"self": lambda grad: zeros_like(grad), "value": lambda grad: grad.sum()})
_copy = defop("CopyBackwards", lambda self, src: xp.broadcast_to(src, self.shape),
              ("self", "src"), dtype="same",
              grads={"self": lambda grad: zeros_like(grad), "src": lambda grad: grad})


def zero_(self):
    return apply_inplace(_zero, self, (self,), {})


def fill_(self, value):
    from .._tensor import Tensor
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError("fill_ only supports 0-dimension value tensor but got tensor "
                               f"with {value.dim()} dimensions.")
        return apply_inplace(_fill_tensor, self, (self, value), {})
    return apply_inplace(_fill, self, (self,), {"value": value})


def copy_(self, src, non_blocking=False):
    return apply_inplace(_copy, self, (self, src), {})


def add_(self, other, *, alpha=1):
    return apply_inplace(_add, self, (self, other), {"alpha": alpha})


def sub_(self, other, *, alpha=1):
    return apply_inplace(_sub, self, (self, other), {"alpha": alpha})


def mul_(self, other):
    return apply_inplace(_mul, self, (self, other), {})


def div_(self, other):
    return apply_inplace(_div, self, (self, other), {})


def clamp_(self, min=None, max=None):
    return apply_inplace(_clamp, self, (self,), {"min": min, "max": max})
