"""Pointwise ops: arithmetic, unary math, comparisons, clamp, where, fill."""
import builtins

from .. import dtypes
from .._creation import zeros_like
from .._tensor import Tensor
from ..backend import xp
from .registry import _C10_NAMES, _SCALAR_NAMES, apply_inplace, broadcast_shapes, defop


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
_rsub_tensor = defop(
    "RsubBackward0", lambda self, other, alpha: xp.subtract(other, self) if alpha == 1
    else xp.subtract(other, xp.multiply(self, alpha)), ("self", "other"),
    grads={"self": lambda grad, alpha: -grad if alpha == 1 else -grad * alpha,
           "other": lambda grad: grad})
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


def _check_alpha(input, other, alpha):
    if type(alpha) is int:
        return
    want = dtypes.result_type(input, other)
    if isinstance(alpha, builtins.bool) and want is not dtypes.bool:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if isinstance(alpha, builtins.float) and not want.is_floating_point:
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating "
                           "point number.")


def _is_bool(v):
    return v.dtype is dtypes.bool if isinstance(v, Tensor) else isinstance(v, builtins.bool)


def _check_sub(input, other):
    if _is_bool(input) and _is_bool(other):
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    if _is_bool(input) or _is_bool(other):
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")


def add(input, other, *, alpha=1):
    _check_alpha(input, other, alpha)
    return _add(input, other, alpha=alpha)


def sub(input, other, *, alpha=1):
    _check_sub(input, other)
    _check_alpha(input, other, alpha)
    return _sub(input, other, alpha=alpha)


def rsub(input, other, *, alpha=1):
    _check_sub(input, other)
    _check_alpha(input, other, alpha)
    if isinstance(other, Tensor):
        return _rsub_tensor(input, other, alpha=alpha)
    return _rsub(input, other=other, alpha=alpha)


def mul(input, other):
    return _mul(input, other)


def div(input, other):
    return _div(input, other)


def pow(input, exponent):
    if not isinstance(exponent, Tensor):
        return _pow_scalar(input, exponent=exponent)
    if _is_bool(input) and exponent.dtype is dtypes.bool:
        raise NotImplementedError('"pow" not implemented for \'Bool\'')
    if not isinstance(input, Tensor):
        return _pow_scalar_base(exponent, self=input)
    return _pow_tensor(input, exponent)


# -- unary math ------------------------------------------------------------------------------
def _unary(node_name, forward, grad, dtype="float"):
    op = defop(node_name, forward, grads={"self": grad}, dtype=dtype)
    return lambda input: op(input)


def _no_bool(forward, error, message):
    def checked(a):
        if a.dtype == xp.bool_:
            raise error(message)
        return forward(a)
    return checked


neg = _unary("NegBackward0", _no_bool(
    xp.negative, RuntimeError, "Negation, the `-` operator, on a bool tensor is not supported. "
    "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."),
    lambda grad: -grad, dtype="promote")
abs = _unary("AbsBackward0", _no_bool(xp.abs, NotImplementedError,
                                      '"abs_cpu" not implemented for \'Bool\''),
             lambda grad, self: grad * self.sign(), dtype="promote")
sign = _unary("SignBackward0", lambda a: a.copy() if a.dtype == xp.bool_ else xp.sign(a),
              lambda grad: zeros_like(grad), dtype="promote")
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
_threshold_backward = defop(
    "ThresholdBackwardBackward0",
    lambda grad_output, self, threshold: xp.where(self <= threshold, 0, grad_output),
    ("grad_output", "self"), grads={
        "grad_output": lambda grad, self, threshold: _threshold_backward(grad, self,
                                                                         threshold=threshold),
        "self": lambda grad: zeros_like(grad)})
relu = _unary("ReluBackward0", _no_bool(lambda a: xp.maximum(a, 0), RuntimeError,
                                        "Boolean inputs not supported for relu"),
              lambda grad, result: _threshold_backward(grad, result, threshold=0),
              dtype="promote")


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


def _clamp_dtype(values, attrs):
    return dtypes.result_type(*values, *(v for v in (attrs["min"], attrs["max"]) if v is not None))


_clamp = defop("ClampBackward1", _clamp_forward, grads={"self": _clamp_grad}, dtype=_clamp_dtype)


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
    return apply_inplace(_zero, self, (self,), {}, fills=True)


def fill_(self, value):
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError("fill_ only supports 0-dimension value tensor but got tensor "
                               f"with {value.dim()} dimensions.")
        return apply_inplace(_fill_tensor, self, (self, value), {}, fills=True)
    return apply_inplace(_fill, self, (self,), {"value": value}, fills=True)


def copy_(self, src, non_blocking=False):
    shape = broadcast_shapes(self.shape, src.shape)
    if shape != self.shape:
        raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the broadcast "
                           f"shape {list(shape)}")
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
    want = _clamp_dtype((self,), {"min": min, "max": max})
    if want.category > self.dtype.category:     # the Scalar overload names C++ types
        raise RuntimeError(f"result type {_SCALAR_NAMES[want.name]} can't be cast to the desired "
                           f"output type {_C10_NAMES[self.dtype.name]}")
    return apply_inplace(_clamp, self, (self,), {"min": min, "max": max})


def _r(fn):
    """The reflected form of a binary op (``2 ** x`` calls ``x.__rpow__(2)``)."""
    return lambda self, other: fn(other, self)


def _binary(fn):
    """A dunder: NotImplemented for operands that are not tensors or numbers."""
    from .._tensor import Tensor

    def method(self, other):
        if not isinstance(other, (Tensor, int, float)):
            return NotImplemented
        return fn(self, other)
    return method


__all__ = ["abs", "add", "clamp", "cos", "div", "eq", "exp", "ge", "gt", "le", "log",
           "logical_and", "logical_or", "lt", "mul", "ne", "neg", "pow", "reciprocal", "relu",
           "rsub", "sigmoid", "sign", "sin", "sqrt", "sub", "tanh", "where"]

METHODS = {
    "add": add, "sub": sub, "mul": mul, "div": div, "pow": pow, "neg": neg, "abs": abs,
    "sign": sign, "exp": exp, "log": log, "sqrt": sqrt, "sin": sin, "cos": cos, "tanh": tanh,
    "sigmoid": sigmoid, "relu": relu, "reciprocal": reciprocal, "clamp": clamp, "clip": clamp,
    "eq": eq, "ne": ne, "lt": lt, "le": le, "gt": gt, "ge": ge,
    "logical_and": logical_and, "logical_or": logical_or,
    "__add__": _binary(add), "__radd__": _binary(add),
    "__sub__": _binary(sub), "__rsub__": _binary(rsub),
    "__mul__": _binary(mul), "__rmul__": _binary(mul),
    "__truediv__": _binary(div), "__rtruediv__": _binary(lambda a, b: a.reciprocal() * b),
    "__pow__": _binary(pow), "__rpow__": _binary(_r(pow)),
    "__neg__": neg, "__abs__": abs, "__pos__": lambda self: self,
    "__eq__": _binary(eq), "__ne__": _binary(ne), "__lt__": _binary(lt),
    "__le__": _binary(le), "__gt__": _binary(gt), "__ge__": _binary(ge),
    "__and__": _binary(bitwise_and), "__or__": _binary(bitwise_or),
    # in-place
    "add_": add_, "sub_": sub_, "mul_": mul_, "div_": div_, "zero_": zero_, "fill_": fill_,
    "copy_": copy_, "clamp_": clamp_, "clip_": clamp_,
    "__iadd__": add_, "__isub__": sub_, "__imul__": mul_, "__itruediv__": div_,
}
