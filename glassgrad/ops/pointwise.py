"""Pointwise ops: arithmetic, unary math, activations, comparisons, clamp, where, fill."""
import builtins
import math

from .. import dtypes
from .._creation import zeros_like
from .._tensor import Tensor, _wrap_dim
from .._autograd.grad_mode import state
from ..backend import backend_of, data_ptr, kind as _kind, xp
from ..backend.kernels import vector
from ..backend.kernels.fma import fma
from ..backend.kernels.special import _erf_np, _erfc_np, _erfinv_np
from . import _formula
from . import public, publish
from .registry import _C10_NAMES, _SCALAR_NAMES, apply_inplace, broadcast_shapes, defop

_LN2, _LN10 = math.log(2.0), math.log(10.0)


def _keep(fn, bound, self):
    """fn(self, bound), self kept on a tie (torch's scalar op: see vector.keep_self)."""
    return vector.keep_self(fn, self, bound)


def _pow_dtype(values, attrs):
    return dtypes.result_type(*values, *attrs.values())

# -- arithmetic ------------------------------------------------------------------------------
def _axpy(xp, x, alpha, y):
    """y + alpha * x: for float32/float64, rounded once as torch's CPU kernels fuse it."""
    if alpha == 1:
        return xp.add(y, x)
    if y.dtype in _FUSED_DTYPES:
        return xp.asarray(fma(x, alpha, y, y.dtype))
    return xp.add(y, xp.multiply(x, alpha))


_FUSED_DTYPES = (xp.dtype("float32"), xp.dtype("float64"))

_add = defop("AddBackward0", lambda xp, self, other, alpha: _axpy(xp, other, alpha, self),
             ("self", "other"),
             grads={"self": lambda grad: grad,
                    "other": lambda grad, alpha: grad if alpha == 1 else grad * alpha},
             arrays=True)
_sub = defop("SubBackward0", lambda xp, self, other, alpha: xp.subtract(self, other) if alpha == 1
             else _axpy(xp, other, -alpha, self), ("self", "other"),
             grads={"self": lambda grad: grad,
                    "other": lambda grad, alpha: -grad if alpha == 1 else -grad * alpha},
             arrays=True)
_rsub_tensor = defop(
    "RsubBackward0", lambda xp, self, other, alpha: xp.subtract(other, self) if alpha == 1
    else _axpy(xp, self, -alpha, other), ("self", "other"),
    grads={"self": lambda grad, alpha: -grad if alpha == 1 else -grad * alpha,
           "other": lambda grad: grad}, arrays=True)
_rsub = defop("RsubBackward1", lambda xp, self, other, alpha: xp.subtract(other, self) if alpha == 1
              else xp.subtract(other, xp.multiply(self, alpha)), ("self",),
              dtype=lambda values, attrs: dtypes.result_type(values[0], attrs["other"]),
              grads={"self": lambda grad, alpha: -grad if alpha == 1 else -grad * alpha},
              arrays=True)
_mul = defop("MulBackward0", "multiply", ("self", "other"),
             grads={"self": lambda grad, other: grad * other,
                    "other": lambda grad, self: grad * self}, arrays=True,
             explain="d({self}*{other})/d{self} = {other}, d/d{other} = {self}")
_div = defop("DivBackward0", "true_divide",
             ("self", "other"), dtype="float",
             grads={"self": lambda grad, other: grad / other,
                    "other": lambda grad, self, other: -grad * ((self / other) / other)},
             arrays=True,
             explain="d({self}/{other})/d{self} = 1/{other}, d/d{other} = -{self}/{other}**2")

# ATen's tensor * Scalar and tensor / Scalar (mul.Scalar, div.Scalar), as the C++ composites
# call them: their own nodes (MulBackward1, DivBackward1), the number an attr
mul_scalar = defop("MulBackward1", lambda xp, self, other: xp.multiply(self, other), ("self",),
                   dtype=lambda values, attrs: dtypes.result_type(values[0], attrs["other"]),
                   grads={"self": lambda grad, other: grad * other}, arrays=True)


def _true_divide_dtype(values, attrs):
    d = dtypes.result_type(values[0], attrs["other"])
    return d if d.is_floating_point or d.is_complex else dtypes.get_default_dtype()


div_scalar = defop("DivBackward1", lambda xp, self, other: xp.true_divide(self, other),
                   ("self",), dtype=_true_divide_dtype,
                   grads={"self": lambda grad, other: grad / other}, arrays=True)


def _pow_forward(xp, self, exponent):
    if isinstance(self, xp.ndarray) and self.dtype.kind in "iub" and \
            isinstance(exponent, int) and exponent < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    if isinstance(exponent, xp.ndarray) and exponent.dtype.kind == "i" and (
            xp.asarray(self).dtype.kind in "iu") and (exponent < 0).any():
        return _int_pow_negative(xp, self, exponent)
    if type(exponent) in (int, float) and exponent == 1 and type(self) is xp.ndarray \
            and self.dtype.kind in "fc":
        return self.copy()      # NumPy's x ** 1 is positive(x): the same bits, 3x slower
    # the operator: NumPy then computes x ** 2 as square and x ** 0.5 as sqrt (as torch does),
    # several times faster than power
    return self ** exponent


def _int_pow_negative(xp, self, exponent):
    """Integers to a tensor of integer exponents, some negative: torch's integer power gives
    1 for a base of 1, -1 or 1 (odd or even exponent) for -1, and 0 for any other base (NumPy
    refuses)."""
    negative = exponent < 0
    out = self ** xp.where(negative, 0, exponent)
    signed_one = xp.where(exponent % 2 == 1, -1, 1)
    small = xp.where(self == 1, 1, xp.where(self == -1, signed_one, 0))
    return xp.where(negative, small, out).astype(out.dtype, copy=False)


def _pow_scalar_exponent_grad(grad, self, exponent):
    if exponent == 0:
        return _formula.zeros(grad)
    return grad * (exponent * _pow_scalar.call(self, exponent=exponent - 1))


def _pow_tensor_self_grad(grad, self, exponent):
    return where(exponent == 0.0, 0.0, grad * (exponent * self.pow(exponent - 1)))


def _pow_tensor_exponent_grad(grad, self, exponent, result):
    zero_base = (self == 0) & ((exponent.real if exponent.dtype.is_complex else exponent) >= 0)
    return grad * where(zero_base, 0.0, result * log(self))


def _pow_scalar_base_grad(grad, self, exponent, result):
    if self == 0:
        return grad * where(exponent >= 0, 0.0, result * xp.log(float(self)))
    return grad * (result * float(xp.log(float(self))))


_pow_scalar = defop("PowBackward0", lambda xp, self, exponent: _pow_forward(xp, self, exponent),
                    grads={"self": _pow_scalar_exponent_grad}, dtype=_pow_dtype, arrays=True,
                    fast_attr="exponent",
                    explain="d({self}**{exponent})/d{self} = {exponent}*{self}**({exponent} - 1)")
_pow_tensor = defop("PowBackward1", _pow_forward, ("self", "exponent"),
                    grads={"self": _pow_tensor_self_grad, "exponent": _pow_tensor_exponent_grad},
                    explain="d({self}**{exponent})/d{self} = {exponent}*{self}**({exponent} - 1), "
                            "d/d{exponent} = {self}**{exponent} * log({self})")
_pow_scalar_base = defop("PowBackward2", lambda xp, exponent, self: _pow_forward(xp, self,
                         exponent),
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


@public("function", "method", signatures=(
    "add(Tensor input, Scalar alpha, Tensor other, *, Tensor out=None)|deprecated",
    "add(Tensor input, Tensor other, *, Scalar alpha=1, Tensor out=None)"))
def add(input, other, *, alpha=1):
    _check_alpha(input, other, alpha)
    return _add(input, other, alpha=alpha)


@public("function", "method", signatures=(
    "sub(Tensor input, Scalar alpha, Tensor other, *, Tensor out=None)|deprecated",
    "sub(Tensor input, Tensor other, *, Scalar alpha=1, Tensor out=None)"))
@public("function", "method", name="subtract", signatures=(
    "subtract(Tensor input, Tensor other, *, Scalar alpha=1, Tensor out=None)",
    "subtract(Tensor input, Scalar other, Scalar alpha=1)"))
def sub(input, other, *, alpha=1):
    _check_sub(input, other)
    _check_alpha(input, other, alpha)
    return _sub(input, other, alpha=alpha)


@public("function", signatures=(
    "rsub(Tensor input, Tensor other, *, Scalar alpha=1)",
    "rsub(Tensor input, Scalar other, Scalar alpha=1)"))
def rsub(input, other, *, alpha=1):
    _check_sub(input, other)
    _check_alpha(input, other, alpha)
    if isinstance(other, Tensor):
        return _rsub_tensor(input, other, alpha=alpha)
    return _rsub(input, other=other, alpha=alpha)


@public("function", "method", signatures=(
    "mul(Tensor input, Tensor other, *, Tensor out=None)",))
@public("function", "method", name="multiply", signatures=(
    "multiply(Tensor input, Tensor other, *, Tensor out=None)",
    "multiply(Tensor input, Scalar other)"))
def mul(input, other):
    return _mul(input, other)


@public("function", "method", signatures=(
    "pow(Tensor input, Tensor exponent, *, Tensor out=None)",
    "pow(Scalar self, Tensor exponent, *, Tensor out=None)",
    "pow(Tensor input, Scalar exponent, *, Tensor out=None)"))
def pow(input, exponent):
    if not isinstance(exponent, Tensor):
        return _pow_scalar(input, exponent=exponent)
    if _is_bool(input) and exponent.dtype is dtypes.bool:
        raise NotImplementedError('"pow" not implemented for \'Bool\'')
    if not isinstance(input, Tensor):
        return _pow_scalar_base(exponent, self=input)
    return _pow_tensor(input, exponent)


# -- unary math ------------------------------------------------------------------------------
_FMI = ("function", "method", "inplace")    # defop's variants: glassgrad.x, Tensor.x, .x_
_FMII = _FMI + ("inplace_function",)        # and glassgrad.x_


def _math(name, forward, grad, dtype="float", arrays=False, explain=None, variants=_FMII,
          aliases=()):
    """A unary math row: the op ``name`` (by default function, method and in-place method)."""
    return defop(name, forward, grads={"self": grad}, dtype=dtype, arrays=arrays,
                 explain=explain, variants=variants, aliases=aliases)


def _unary(op):
    """A unary row's function and in-place method."""
    return (lambda input: op(input)), _inplace(op)


def _inplace(op, **fixed):
    """``x.op_(...)``: the row ``op`` writing into x (fixed: attrs the method does not take)."""
    return lambda self: apply_inplace(op, self, (self,), dict(fixed))


def _no_bool(name, error, message):
    """The namespace's unary function ``name``, refusing bool inputs with ``message``."""
    def checked(xp, a):
        if a.dtype == xp.bool_:
            raise error(message)
        return getattr(xp, name)(a)
    return checked


def _relu_forward(xp, a):
    """max(a, 0) keeping a on a tie (relu(-0.0) is -0.0, as torch's clamp_min)."""
    if a.dtype == xp.bool_:
        raise RuntimeError("Boolean inputs not supported for relu")
    return vector.keep_self(xp.maximum, a, 0)


_math("neg", _no_bool(
    "negative", RuntimeError,
    "Negation, the `-` operator, on a bool tensor is not supported. "
    "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."),
    lambda grad: -grad, dtype="promote", arrays=True, variants=_FMII + ("__neg__",),
    aliases=("negative",))
_math("abs", _no_bool("abs", NotImplementedError,
                      '"abs_cpu" not implemented for \'Bool\''),
      lambda grad, self: grad * self.sgn(), dtype="same", variants=_FMII + ("__abs__",),
      aliases=("absolute",))


def _sign(xp, a):
    if a.dtype == xp.bool_ or a.dtype.kind == "c" and a.size == 0:
        return a.copy()
    return xp.where(xp.isnan(a), 0, xp.sign(a)) if _kind(a.dtype) == "f" else xp.sign(a)


def _real_sign(xp, a):
    if a.dtype.kind == "c":
        raise NotImplementedError("Unlike NumPy, torch.sign is not intended to support complex "
                                  "numbers. Please use torch.sgn instead.")
    return _sign(xp, a)


_math("sign", _real_sign, lambda grad: zeros_like(grad), dtype="promote", variants=_FMI)
# arrays=True: these formulas also run on NumPy arrays (grad mode off, see defop)
_exp = _math("exp", "exp", lambda grad, result: grad * result,
             arrays=True, variants=_FMII,
             explain="the derivative of exp is exp itself: the output {result}")
_math("log", "log", lambda grad, self: grad / self, arrays=True,
      variants=_FMII, explain="d(log({self}))/d{self} = 1/{self}")
_math("sqrt", "sqrt", lambda grad, result: grad / (2 * result),
      arrays=True, variants=_FMII,
      explain="d(sqrt(x))/dx = 1/(2*{result}), from the output {result}")
_sin = _math("sin", "sin", lambda grad, self: grad * _cos.call(self),
             arrays=True, variants=_FMII, explain="d(sin({self}))/d{self} = cos({self})")
_cos = _math("cos", "cos", lambda grad, self: grad * -_sin.call(self),
             arrays=True, variants=_FMII, explain="d(cos({self}))/d{self} = -sin({self})")
# tanh_backward and sigmoid_backward: PyTorch's fused backward ops, with derivatives.yaml's
# formulas for their own grads
_tanh_backward = defop(
    "TanhBackwardBackward0", lambda xp, grad_output, output: grad_output * (1 - output * output),
    ("grad_output", "output"), grads={
        "grad_output": lambda grad, output: _tanh_backward.call(grad, output),
        "output": lambda grad, grad_output, output: grad * (-2 * output * grad_output)},
    arrays=True)
_sigmoid_backward = defop(
    "SigmoidBackwardBackward0", lambda xp, grad_output, output: grad_output * (1 - output) * output,
    ("grad_output", "output"), grads={
        "grad_output": lambda grad, output: _sigmoid_backward.call(grad, output),
        "output": lambda grad, grad_output, output: grad * grad_output * (-2 * output + 1)},
    arrays=True, opmath=("bfloat16",))    # (torch's float16 loop computes in float16)
_math("tanh", "tanh",
      lambda grad, result: _tanh_backward.call(grad, result), arrays=True,
      variants=_FMII + ("functional",),
      explain="d(tanh(x))/dx = 1 - {result}**2, from the output {result}")
_math("sigmoid", lambda xp, a: 1 / (1 + xp.exp(-a)),
      lambda grad, result: _sigmoid_backward.call(grad, result), arrays=True,
      variants=_FMII + ("functional",),
      explain="d(sigmoid(x))/dx = {result}*(1 - {result}), from the output {result}")
_math("reciprocal", lambda xp, a: 1 / a, lambda grad, result: -grad * (result * result),
      arrays=True, variants=_FMII,
      explain="d(1/x)/dx = -{result}**2, from the output {result}")


def _threshold_backward_forward(xp, grad_output, self, threshold):
    """``self <= threshold ? 0 : grad_output``. A float gradient keeps or clears each element's
    bits (AND with an all-ones or all-zeros word): where()'s result bit for bit, NaN and inf
    gradients included (a multiply by the mask would turn them into NaN), in about half of
    where()'s time on float32."""
    if (type(grad_output) is xp.ndarray and _kind(grad_output.dtype) == "f"
            and type(self) is xp.ndarray):
        bk = backend_of(grad_output)
        keep = xp.asarray(self <= threshold).astype(bk.word(grad_output.dtype))
        keep -= 1       # 1 -> 0, 0 -> ~0 (in place: a third less time than a mixed subtract)
        out = keep if keep.shape == grad_output.shape else None
        return bk.from_bits(xp.bitwise_and(bk.bits(grad_output), keep, out=out),
                            grad_output.dtype)
    return xp.where(self <= threshold, 0, grad_output)


_threshold_backward = defop(
    "ThresholdBackwardBackward0", _threshold_backward_forward,
    ("grad_output", "self"), grads={
        "grad_output": lambda grad, self, threshold: _threshold_backward.call(
            grad, self, threshold=threshold),
        "self": lambda grad: zeros_like(grad)})
_relu_row = _math(
    "ReluBackward0", _relu_forward,
    lambda grad, result: _threshold_backward.call(grad, result, threshold=0),
    dtype="promote", arrays=True, variants=(),
    explain="d(relu(x))/dx = 1 where the output {result} > 0, else 0")
_relu, relu_ = _unary(_relu_row)

public("method", name="relu", method_signatures=("relu(Tensor self)",))(_relu)
public("function", "method", "functional", name="relu_", signatures=("relu_(Tensor input)",))(
    relu_)


@public("function", "functional", signatures=(
    "relu(Tensor input)",))
def relu(input, inplace=False):
    """torch.relu, and F.relu's signature (inplace: relu_)."""
    return relu_(input) if inplace else _relu_row(input)


# -- dtype rules and argument checks ----------------------------------------------------------
def _kernel_error(kernel, d):
    return NotImplementedError(f'"{kernel}" not implemented for \'{_SCALAR_NAMES[d.name]}\'')


def _rule(kernel, kinds="fiu", to_float=False, attrs=()):
    """dtype rule: promote inputs (and the named attrs), integers to the default float if
    to_float, and refuse what torch's kernel has no version for (kinds: NumPy kinds allowed)."""
    def rule(values, attrs_):
        want = dtypes.result_type(*values, *(attrs_[a] for a in attrs if attrs_[a] is not None))
        if to_float and not want.is_floating_point:
            want = dtypes.get_default_dtype()
        if want.kind not in kinds:
            raise _kernel_error(kernel, want)
        return want
    return rule


def _need_tensors(name, *args, first=1):
    for pos, (arg, v) in enumerate(args, first):
        if not isinstance(v, Tensor):
            raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be Tensor, not "
                            f"{type(v).__name__}")


def _not_implemented(error, message):
    def formula(grad):
        raise error(message)
    return formula


def _like(a, b):
    """b, a Python int beside an integer array a, cast (wrapping) to a's dtype as torch does."""
    if type(b) is int and isinstance(a, xp.ndarray) and a.dtype.kind in "iu":
        return xp.asarray(b).astype(a.dtype)
    return b


def _divisor(a, b):
    """b for an integer-or-float division of a; integer division by zero is an error."""
    b = _like(a, b)
    arrays = [x for x in (a, b) if isinstance(x, xp.ndarray)]
    if arrays and arrays[0].dtype.kind in "iu" and xp.any(xp.asarray(b) == 0):
        raise RuntimeError("ZeroDivisionError")
    return b


# -- division and modulo ---------------------------------------------------------------------
def _div_trunc(xp, self, other):
    other = _divisor(self, other)
    if _kind(xp.result_type(self, other)) == "f":
        with xp.errstate(all="ignore"):
            return xp.trunc(xp.true_divide(self, other))
    q = xp.floor_divide(self, other)
    return q + ((xp.remainder(self, other) != 0) & ((self < 0) != (xp.asarray(other) < 0)))


def _div_floor(xp, self, other):
    other = _divisor(self, other)
    with xp.errstate(all="ignore"):
        return xp.floor_divide(self, other)


def _remainder_forward(xp, self, other):
    other = _divisor(self, other)
    with xp.errstate(all="ignore"):
        return xp.remainder(self, other)


def _fmod_forward(xp, self, other):
    other = _divisor(self, other)
    with xp.errstate(all="ignore"):
        return xp.fmod(self, other)


_ZERO = lambda grad: zeros_like(grad)   # noqa: E731 - the derivative of a step function
_div_mode = {
    mode: defop("DivBackward2", lambda xp, self, other, rounding_mode, f=f: f(xp, self, other),
                ("self", "other"), dtype=_rule(f"div_{mode}_cpu"),
                grads={"self": lambda grad, other, rounding_mode: zeros_like(grad),
                       "other": lambda grad, self, other, rounding_mode: zeros_like(grad)})
    for mode, f in (("trunc", _div_trunc), ("floor", _div_floor))}
_floor_divide = defop(
    "NotImplemented", _div_floor, ("self", "other"), dtype=_rule("div_floor_cpu"),
    grads=dict.fromkeys(("self", "other"), _not_implemented(
        RuntimeError, "derivative for aten::floor_divide is not implemented")))
_remainder = defop("RemainderBackward1", _remainder_forward, ("self", "other"),
                   dtype=_rule("remainder_cpu"),
                   grads={"self": lambda grad: grad,
                          "other": lambda grad, self, other:
                          -grad * self.div(other, rounding_mode="floor")})
_remainder_scalar = defop("RemainderBackward0", _remainder_forward, dtype=_rule(
    "remainder_cpu", attrs=("other",)), grads={"self": lambda grad: grad})
_remainder_scalar_self = defop(
    "NotImplemented", _remainder_forward, ("self", "other"), dtype=_rule("remainder_cpu"),
    grads={"other": _not_implemented(RuntimeError,
                                     "derivative for aten::remainder is not implemented")})
_fmod = defop("FmodBackward1", _fmod_forward, ("self", "other"), dtype=_rule("fmod_cpu"),
              grads={"self": lambda grad: grad,
                     "other": lambda grad, self, other:
                     -grad * self.div(other, rounding_mode="trunc")})
_fmod_scalar = defop("FmodBackward0", _fmod_forward, dtype=_rule("fmod_cpu", attrs=("other",)),
                     grads={"self": lambda grad: grad})

for _row in (_mul, _div, *_div_mode.values(), _floor_divide):
    _row.opmath_scalars = True      # ATen's reduced-float kernels read the scalar in float
del _row
for _row, _names in ((_add, ("alpha",)), (_sub, ("alpha",)), (_rsub_tensor, ("alpha",)),
                     (_rsub, ("other", "alpha")), (_pow_scalar, ("exponent",)),
                     (_fmod_scalar, ("other",)), (_remainder_scalar, ("other",))):
    _row.narrow_attrs = _names      # rounded to the reduced float dtype first, as ATen does
del _row, _names


def _check_rounding_mode(rounding_mode):
    if rounding_mode not in (None, "trunc", "floor"):
        raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                           f"but found '{rounding_mode}'")


@public("function", "method", signatures=(
    "div(Tensor input, Tensor other, *, Tensor out=None)",
    "div(Tensor input, Tensor other, *, c10::string_view? rounding_mode, Tensor out=None)",
    "div(Tensor input, Scalar other, *, c10::string_view? rounding_mode)"))
@public("function", "method", name="divide", signatures=(
    "divide(Tensor input, Tensor other, *, Tensor out=None)",
    "divide(Tensor input, Tensor other, *, c10::string_view? rounding_mode, Tensor out=None)",
    "divide(Tensor input, Scalar other)",
    "divide(Tensor input, Scalar other, *, c10::string_view? rounding_mode)"))
def div(input, other, *, rounding_mode=None):
    _check_rounding_mode(rounding_mode)
    if rounding_mode is None:
        return _div(input, other)
    return _div_mode[rounding_mode](input, other, rounding_mode=rounding_mode)


@public("method", "__itruediv__", method_signatures=(
    "div_(Tensor self, Tensor other)",
    "div_(Tensor self, Tensor other, *, c10::string_view? rounding_mode)",
    "div_(Tensor self, Scalar other, *, c10::string_view? rounding_mode)"))
def div_(self, other, *, rounding_mode=None):
    _check_rounding_mode(rounding_mode)
    if rounding_mode is None:
        return apply_inplace(_div, self, (self, other), {})
    return apply_inplace(_div_mode[rounding_mode], self, (self, other),
                         {"rounding_mode": rounding_mode})


@public("function", "method", signatures=(
    "true_divide(Tensor input, Tensor other, *, Tensor out=None)",
    "true_divide(Tensor input, Scalar other)"))
def true_divide(input, other):
    return _div(input, other)


@public("function", "method", signatures=(
    "floor_divide(Tensor input, Tensor other, *, Tensor out=None)",
    "floor_divide(Tensor input, Scalar other)"))
def floor_divide(input, other):
    return _floor_divide(input, other)


@public("function", "method", signatures=(
    "remainder(Tensor input, Tensor other, *, Tensor out=None)",
    "remainder(Scalar self, Tensor other)",
    "remainder(Tensor input, Scalar other, *, Tensor out=None)"))
def remainder(input, other):
    if not isinstance(input, Tensor):
        return _remainder_scalar_self(input, other)
    if not isinstance(other, Tensor):
        return _remainder_scalar(input, other=other)
    return _remainder(input, other)


@public("function", "method", signatures=(
    "fmod(Tensor input, Tensor other, *, Tensor out=None)",
    "fmod(Tensor input, Scalar other, *, Tensor out=None)"))
def fmod(input, other):
    if not isinstance(other, Tensor):
        return _fmod_scalar(input, other=other)
    return _fmod(input, other)


def _binary_inplace(tensor_op, scalar_op=None):
    def method(self, other):
        if scalar_op is not None and not isinstance(other, Tensor):
            return apply_inplace(scalar_op, self, (self,), {"other": other})
        return apply_inplace(tensor_op, self, (self, other), {})
    return method


floor_divide_ = public("method", "__ifloordiv__", name="floor_divide_", method_signatures=(
        "floor_divide_(Tensor self, Tensor other)", "floor_divide_(Tensor self, Scalar other)"))(
    _binary_inplace(_floor_divide))
remainder_ = public("method", "__imod__", name="remainder_", method_signatures=(
        "remainder_(Tensor self, Tensor other)", "remainder_(Tensor self, Scalar other)"))(
    _binary_inplace(_remainder, _remainder_scalar))
fmod_ = public("method", name="fmod_", method_signatures=(
        "fmod_(Tensor self, Tensor other)", "fmod_(Tensor self, Scalar other)"))(
    _binary_inplace(_fmod, _fmod_scalar))
true_divide_ = public("method", name="true_divide_", method_signatures=(
        "true_divide_(Tensor self, Tensor other)", "true_divide_(Tensor self, Scalar other)"))(
    _binary_inplace(_div))


@public("function", "method", signatures=(
    "float_power(Tensor input, Tensor exponent, *, Tensor out=None)",
    "float_power(Scalar self, Tensor exponent, *, Tensor out=None)",
    "float_power(Tensor input, Scalar exponent, *, Tensor out=None)"))
def float_power(input, exponent):
    """pow computed in float64 (composite: the same nodes as pow on double operands)."""
    base = input.double() if isinstance(input, Tensor) else builtins.float(input)
    exp_ = exponent.double() if isinstance(exponent, Tensor) else builtins.float(exponent)
    return pow(base, exp_)


@public("method", "__ipow__", method_signatures=(
    "pow_(Tensor self, Tensor exponent)",
    "pow_(Tensor self, Scalar exponent)"))
def pow_(self, exponent):
    if isinstance(exponent, Tensor):
        return apply_inplace(_pow_tensor, self, (self, exponent), {})
    return apply_inplace(_pow_scalar, self, (self,), {"exponent": exponent})


@public("method", method_signatures=(
    "float_power_(Tensor self, Tensor exponent)",
    "float_power_(Tensor self, Scalar exponent)"))
def float_power_(self, exponent):
    if self.dtype is not dtypes.float64:
        raise RuntimeError(f"the base given to float_power_ has dtype "
                           f"{_SCALAR_NAMES[self.dtype.name]} but the operation's result "
                           "requires dtype Double")
    return pow_(self, exponent.double() if isinstance(exponent, Tensor)
                else builtins.float(exponent))


@public("function", "method", signatures=(
    "square(Tensor input, *, Tensor out=None)",))
def square(input):
    return pow(input, 2)


@public("method", method_signatures=(
    "square_(Tensor self)",))
def square_(self):
    return pow_(self, 2)


# -- unary math ------------------------------------------------------------------------------
def _quiet(f):
    def forward(xp, *arrays, **attrs):
        with xp.errstate(all="ignore"):
            return f(xp, *arrays, **attrs)
    return forward


_SQRT_PI = math.sqrt(math.pi)
_math("exp2", "exp2", lambda grad, result: grad * result * _LN2)
_math("expm1", "expm1", lambda grad, result: grad * (result + 1))
_math("log2", _quiet(lambda xp, a: xp.log2(a)), lambda grad, self: grad / (self * _LN2))
_math("log10", _quiet(lambda xp, a: xp.log10(a)), lambda grad, self: grad / (self * _LN10))
_math("log1p", _quiet(lambda xp, a: xp.log1p(a)), lambda grad, self: grad / (self + 1))
_math("rsqrt", _quiet(lambda xp, a: 1 / xp.sqrt(a)),
      lambda grad, result: -0.5 * grad * result.pow(3))
_math("tan", "tan", lambda grad, result: grad * (1 + result.pow(2)))
_math("asin", _quiet(lambda xp, a: xp.arcsin(a)),
      lambda grad, self: grad * (-self * self + 1).rsqrt(), aliases=("arcsin",))
_math("acos", _quiet(lambda xp, a: xp.arccos(a)),
      lambda grad, self: grad * -((-self * self + 1).rsqrt()), aliases=("arccos",))
_math("atan", "arctan", lambda grad, self: grad / (self * self + 1),
      aliases=("arctan",))
_math("sinh", "sinh", lambda grad, self: grad * self.cosh())
_math("cosh", "cosh", lambda grad, self: grad * self.sinh())
# torch has no derivative for these three in place: their in-place nodes (Backward1) refuse
# backward
_FM = ("function", "method")
_math("asinh", "arcsinh",
      lambda grad, self: grad * (self.pow(2) + 1).rsqrt(), variants=_FM, aliases=("arcsinh",))
_math("acosh", _quiet(lambda xp, a: xp.arccosh(a)),
      lambda grad, self: grad * (self * self - 1).rsqrt(), variants=_FM, aliases=("arccosh",))
_math("atanh", _quiet(lambda xp, a: xp.arctanh(a)), lambda grad, self: grad / (1 - self.pow(2)),
      variants=_FM, aliases=("arctanh",))
for _name, _f in (("asinh", "arcsinh"), ("acosh", "arccosh"), ("atanh", "arctanh")):
    public("method", "function", name=_name + "_", aliases=(_f + "_",),
           signatures=(f"{_name}_(Tensor input)",))(_unary(_math(
        f"{_name.capitalize()}Backward1", _quiet(lambda xp, a, f=_f: getattr(xp, f)(a)),
        _not_implemented(NotImplementedError, f"the derivative for 'inplace version of "
                                              f"{_name}' is not implemented."),
        variants=()))[1])
del _name, _f
_math("erf", lambda xp, a: _erf_np(a),
      lambda grad, self: 2.0 / _SQRT_PI * (-(self.pow(2))).exp() * grad)
_math("erfc", lambda xp, a: _erfc_np(a),
      lambda grad, self: -2.0 / _SQRT_PI * (-(self.pow(2))).exp() * grad)
_math("erfinv", lambda xp, a: _erfinv_np(a),
      lambda grad, self: 0.5 * _SQRT_PI * self.erfinv().pow(2).exp() * grad, variants=_FMI)
_math("frac", lambda xp, a: a - xp.trunc(a), lambda grad: grad,
      dtype=_rule("frac_cpu", kinds="f"))
def _sgn_grad(grad, self, result):
    """torch's sgn_backward: zero for real inputs; for complex z, (grad - sgn * Re(conj(grad) *
    sgn)) / |z| (zero where z is 0)."""
    if not self.dtype.is_complex:
        return zeros_like(grad)
    magnitude = self.abs()
    out = (grad - result * (grad.conj_physical() * result).real) / magnitude
    return out.masked_fill(magnitude == 0, 0.0)


defop("sgn", lambda xp, a: _sign(xp, a), grads={"self": _sgn_grad}, dtype="promote",
      variants=_FMI, wirtinger=False)


def _rounding(name, forward, variants=_FMII, aliases=()):
    """floor/ceil/trunc/round: integers pass through as a copy, bool has no kernel."""
    def f(xp, a):
        return a.copy() if a.dtype.kind in "iu" else getattr(xp, forward)(a)
    return _math(name if variants else f"{name.capitalize()}Backward0", f, _ZERO,
                 dtype=_rule(f"{name}_vml_cpu", kinds="fiu"), variants=variants,
                 aliases=aliases)


_rounding("floor", "floor")
_rounding("ceil", "ceil")
_rounding("trunc", "trunc", aliases=("fix",))
_round, _round_ = _unary(_rounding("round", "rint", variants=()))
_round_decimals = defop("RoundBackward1", lambda xp, self, decimals: xp.round(self, decimals),
                        grads={"self": _ZERO}, dtype=_rule("round_vml_cpu", kinds="f"))


def _check_round_decimals(input, decimals):
    if input.dtype.kind != "f" and decimals != 0:
        raise _kernel_error("round_cpu", input.dtype)


@public("function", "method", signatures=(
    "round(Tensor input, *, Tensor out=None)",
    "round(Tensor input, *, int64_t decimals, Tensor out=None)"))
def round(input, *, decimals=None):
    if decimals is None:
        return _round(input)
    _check_round_decimals(input, decimals)
    return _round_decimals(input, decimals=decimals)


@public("method", method_signatures=(
    "round_(Tensor self)",
    "round_(Tensor self, *, int64_t decimals)"))
def round_(self, *, decimals=None):
    if decimals is None:
        return _round_(self)
    _check_round_decimals(self, decimals)
    return apply_inplace(_round_decimals, self, (self,), {"decimals": decimals})


def _logit_forward(xp, self, eps):
    if eps is not None:
        self = xp.clip(self, eps, 1 - eps)
    with xp.errstate(all="ignore"):
        return xp.log(self / (1 - self))


def _logit_grad(grad, self, eps):
    lo, hi, outside = (0.0, 1.0, float("nan")) if eps is None else (eps, 1.0 - eps, 0.0)
    return where((self >= lo) & (self <= hi), grad / (self * (1.0 - self)), outside)


_logit = defop("LogitBackward0", _logit_forward, grads={"self": _logit_grad}, dtype="float")


@public("function", "method", signatures=(
    "logit(Tensor input, double? eps=None, *, Tensor out=None)",))
def logit(input, eps=None):
    return _logit(input, eps=eps)


@public("method", method_signatures=(
    "logit_(Tensor self, double? eps=None)",))
def logit_(self, eps=None):
    return apply_inplace(_logit, self, (self,), {"eps": eps})


_nan_to_num = defop(
    "NanToNumBackward0", lambda xp, self, nan, posinf, neginf: xp.nan_to_num(
        self, nan=nan, posinf=posinf, neginf=neginf) if _kind(self.dtype) == "f" else self.copy(),
    grads={"self": lambda grad, self: grad * isfinite(self)}, dtype="same")


@public("function", "method", signatures=(
    "nan_to_num(Tensor input, double? nan=None, double? posinf=None, double? neginf=None, *, "
    "Tensor out=None)",))
def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    return _nan_to_num(input, nan=0.0 if nan is None else nan, posinf=posinf, neginf=neginf)


@public("method", method_signatures=(
    "nan_to_num_(Tensor self, double? nan=None, double? posinf=None, double? neginf=None)",))
def nan_to_num_(self, nan=0.0, posinf=None, neginf=None):
    return apply_inplace(_nan_to_num, self, (self,), {"nan": 0.0 if nan is None else nan,
                                                      "posinf": posinf, "neginf": neginf})


def _float_test(f, ints):
    op = defop(f.__name__, lambda xp, a: f(a) if _kind(a.dtype) == "f" else xp.full(a.shape, ints),
               dtype="bool")
    return lambda input: op(input)


isnan = public("function", "method", name="isnan", signatures=("isnan(Tensor input)",))(_float_test(xp.isnan, False))
isinf = public("function", "method", name="isinf", signatures=("isinf(Tensor input)",))(_float_test(xp.isinf, False))
isfinite = public("function", "method", name="isfinite", signatures=("isfinite(Tensor input)",))(_float_test(xp.isfinite, True))


# -- binary math -----------------------------------------------------------------------------
def _atan2_grad(which):
    """torch's atan2_backward: 1/(self² + other²) taken as 0 where the sum is 0, so the
    gradient at (0, 0) is 0 (its double backward stays NaN there, as torch's)."""
    def formula(grad, self, other):
        denom = self * self + other * other
        recip = where(denom == 0, 0.0, denom.reciprocal())
        return grad * other * recip if which == "self" else grad * -self * recip
    return formula


def _extremum_grads(wins):
    """maximum/minimum: the larger (smaller) side gets the gradient, ties share it."""
    def self_grad(grad, self, other):
        return where(wins(other, self), 0.0, where(self == other, grad / 2, grad))

    def other_grad(grad, self, other):
        return where(wins(self, other), 0.0, where(self == other, grad / 2, grad))
    return {"self": self_grad, "other": other_grad}


def _fextremum_grads(keeps):
    """fmax/fmin: self's gradient where it is kept (or other is NaN), other's elsewhere."""
    return {"self": lambda grad, self, other: where(keeps(self, other) | isnan(other), grad, 0.0),
            "other": lambda grad, self, other: where(keeps(self, other) | isnan(other), 0.0,
                                                     grad)}


def _logaddexp_forward(xp, self, other):
    with xp.errstate(all="ignore"):
        return xp.logaddexp(self, other)


_atan2 = defop("atan2", "arctan2", ("self", "other"), dtype="float",
               grads={"self": _atan2_grad("self"), "other": _atan2_grad("other")},
               variants=_FMI, aliases=("arctan2",))
_maximum = defop("maximum", lambda xp, self, other: vector.extremum(xp.maximum, self, other),
                 ("self", "other"),
                 grads=_extremum_grads(lambda a, b: a > b), variants=_FM)
_minimum = defop("minimum", lambda xp, self, other: vector.extremum(xp.minimum, self, other),
                 ("self", "other"),
                 grads=_extremum_grads(lambda a, b: a < b), variants=_FM)
_fmax = defop("fmax", "fmax", ("self", "other"),
              grads=_fextremum_grads(lambda a, b: a >= b), variants=_FM)
_fmin = defop("fmin", "fmin", ("self", "other"),
              grads=_fextremum_grads(lambda a, b: a <= b), variants=_FM)
_hypot = defop("hypot", "hypot", ("self", "other"), dtype=_rule("hypot_cpu", "f"),
               grads={"self": lambda grad, self, result: grad * self / result,
                      "other": lambda grad, other, result: grad * other / result},
               variants=_FMI)
_logaddexp = defop("logaddexp", _logaddexp_forward, ("self", "other"),
                   dtype=_rule("logaddexp_cpu", "f"),
                   grads={"self": lambda grad, self, other: grad / (1 + (other - self).exp()),
                          "other": lambda grad, self, other: grad / (1 + (self - other).exp())},
                   variants=_FM)


def _xlogy_forward(xp, self, other):
    with xp.errstate(all="ignore"):
        out = xp.where(self == 0, 0.0, self * xp.log(other))
    return xp.where(xp.isnan(other), xp.nan, out)


_xlogy = defop("XlogyBackward0", _xlogy_forward, ("self", "other"), dtype="float",
               grads={"self": lambda grad, self, other: where(
                   (self == 0.0) & (other <= 0.0), 0.0, xlogy(grad, other)),
                      "other": lambda grad, self, other: grad * self / other})
_xlogy_scalar_self = defop(
    "XlogyBackward1", lambda xp, other, self: _xlogy_forward(xp, self, other), ("other",),
    dtype=_rule("xlogy", to_float=True, attrs=("self",)),
    grads={"other": lambda grad, self, other: grad * self / other})
_xlogy_scalar_other = defop(
    "XlogyBackward2", _xlogy_forward, dtype=_rule("xlogy", to_float=True, attrs=("other",)),
    grads={"self": lambda grad, self, other: where(
        (self == 0.0) & (other <= 0.0), 0.0, xlogy(grad, other))})


@public("function", "method", signatures=(
    "xlogy(Tensor input, Tensor other, *, Tensor out=None)",
    "xlogy(Scalar self, Tensor other, *, Tensor out=None)",
    "xlogy(Tensor input, Scalar other, *, Tensor out=None)"))
def xlogy(input, other):
    if not isinstance(input, Tensor):
        return _xlogy_scalar_self(other, self=input)
    if not isinstance(other, Tensor):
        return _xlogy_scalar_other(input, other=other)
    return _xlogy(input, other)


@public("method", method_signatures=(
    "xlogy_(Tensor self, Tensor other)",
    "xlogy_(Tensor self, Scalar other)"))
def xlogy_(self, other):
    if not isinstance(other, Tensor):
        return apply_inplace(_xlogy_scalar_other, self, (self,), {"other": other})
    return apply_inplace(_xlogy, self, (self, other), {})


# -- lerp, addcmul, addcdiv ------------------------------------------------------------------
def _lerp_forward(xp, self, end, weight):
    with xp.errstate(all="ignore"):
        if self.dtype in _FUSED_DTYPES:
            # torch's kernel: base + coeff * (end - self), fused, from whichever end is nearer
            small = xp.abs(weight) < 0.5
            weight = xp.asarray(weight, dtype=self.dtype)
            return xp.asarray(fma(xp.where(small, weight, weight - 1), end - self,
                                  xp.where(small, self, end), self.dtype))
        return xp.where(xp.abs(weight) < 0.5, self + weight * (end - self),
                        end - (end - self) * (1 - weight))


def _lerp_rule(kernel):
    def rule(values, attrs):
        want = values[0].dtype
        for name, v in zip(("end", "weight"), values[1:]):
            if v.dtype is not want:
                raise RuntimeError(f"expected dtype {_C10_NAMES[want.name]} for `{name}` but "
                                   f"got dtype {_C10_NAMES[v.dtype.name]}")
        if not want.is_floating_point:
            raise _kernel_error(kernel, want)
        return want
    return rule


_lerp_scalar = defop("LerpBackward0", _lerp_forward, ("self", "end"),
                     dtype=_lerp_rule("lerp_kernel_scalar"),
                     grads={"self": lambda grad, weight: grad * (1 - weight),
                            "end": lambda grad, weight: grad * weight})
# weight is listed for weight's own formula too: PyTorch saves it whichever input needs grad
_lerp_tensor = defop("LerpBackward1", _lerp_forward, ("self", "end", "weight"),
                     dtype=_lerp_rule("lerp_kernel_tensor"),
                     grads={"self": lambda grad, weight: grad * (1 - weight),
                            "end": lambda grad, weight: grad * weight,
                            "weight": lambda grad, self, end, weight: grad * (end - self)})


def _lerp_args(input, end, weight):
    if isinstance(weight, Tensor):
        return _lerp_tensor, (input, end, weight), {}
    return _lerp_scalar, (input, end), {"weight": weight}


@public("function", "method", signatures=(
    "lerp(Tensor input, Tensor end, Tensor weight, *, Tensor out=None)",
    "lerp(Tensor input, Tensor end, Scalar weight, *, Tensor out=None)"))
def lerp(input, end, weight):
    op, values, attrs = _lerp_args(input, end, weight)
    return op(*values, **attrs)


@public("method", method_signatures=(
    "lerp_(Tensor self, Tensor end, Tensor weight)",
    "lerp_(Tensor self, Tensor end, Scalar weight)"))
def lerp_(self, end, weight):
    op, values, attrs = _lerp_args(self, end, weight)
    return apply_inplace(op, self, values, attrs)


def _addc_forward(combine):
    def forward(xp, self, tensor1, tensor2, value):
        if _kind(self.dtype) != "f":
            value = builtins.int(value)
        with xp.errstate(all="ignore"):
            scaled = xp.multiply(tensor1, value)     # torch: (value * tensor1) op tensor2
            if combine == "multiply" and self.dtype in _FUSED_DTYPES:
                return xp.asarray(fma(scaled, tensor2, self, self.dtype))
            return self + getattr(xp, combine)(scaled, tensor2)
    return forward


def _addcdiv_check(tensor1, tensor2):
    if tensor1.dtype.np.kind in "biu" and tensor2.dtype.np.kind in "biu":
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future  release "
            "addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv "
            "behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2))"
            ".to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) "
            "for float inputs. The future addcdiv behavior is just the latter implementation: "
            "(input + value * tensor1 / tensor2), for all dtypes.")


_addcmul = defop("AddcmulBackward0", _addc_forward("multiply"),
                 ("self", "tensor1", "tensor2"),
                 grads={"self": lambda grad: grad,
                        "tensor1": lambda grad, tensor2, value: grad * (tensor2 * value),
                        "tensor2": lambda grad, tensor1, value: grad * (tensor1 * value)})
_addcdiv = defop("AddcdivBackward0", _addc_forward("true_divide"),
                 ("self", "tensor1", "tensor2"),
                 grads={"self": lambda grad: grad,
                        "tensor1": lambda grad, tensor2, value: grad * (value / tensor2),
                        "tensor2": lambda grad, tensor1, tensor2, value:
                        -grad * (value * tensor1 / (tensor2 * tensor2))})


@public("function", "method", signatures=(
    "addcmul(Tensor input, Scalar value, Tensor tensor1, Tensor tensor2, *, "
    "Tensor out=None)|deprecated",
    "addcmul(Tensor input, Tensor tensor1, Tensor tensor2, *, Scalar value=1, Tensor out=None)"))
def addcmul(input, tensor1, tensor2, *, value=1):
    return _addcmul(input, tensor1, tensor2, value=value)


@public("function", "method", signatures=(
    "addcdiv(Tensor input, Scalar value, Tensor tensor1, Tensor tensor2, *, "
    "Tensor out=None)|deprecated",
    "addcdiv(Tensor input, Tensor tensor1, Tensor tensor2, *, Scalar value=1, Tensor out=None)"))
def addcdiv(input, tensor1, tensor2, *, value=1):
    _addcdiv_check(tensor1, tensor2)
    return _addcdiv(input, tensor1, tensor2, value=value)


@public("method", method_signatures=(
    "addcmul_(Tensor self, Scalar value, Tensor tensor1, Tensor tensor2)|deprecated",
    "addcmul_(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1)"))
def addcmul_(self, tensor1, tensor2, *, value=1):
    return apply_inplace(_addcmul, self, (self, tensor1, tensor2), {"value": value})


@public("method", method_signatures=(
    "addcdiv_(Tensor self, Scalar value, Tensor tensor1, Tensor tensor2)|deprecated",
    "addcdiv_(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1)"))
def addcdiv_(self, tensor1, tensor2, *, value=1):
    _addcdiv_check(tensor1, tensor2)
    return apply_inplace(_addcdiv, self, (self, tensor1, tensor2), {"value": value})


# -- activations -----------------------------------------------------------------------------
# The backward ops of piecewise-linear activations: their own derivative in self is zero, but
# like torch's they keep self in the graph (so a double backward reaches self and gives zeros).
_hardtanh_backward = defop(
    "HardtanhBackwardBackward0", lambda xp, grad_output, self, min_val, max_val: xp.where(
        (self <= min_val) | (self >= max_val), 0, grad_output), ("grad_output", "self"),
    grads={"grad_output": lambda grad, self, min_val, max_val: _hardtanh_backward(
        grad, self, min_val=min_val, max_val=max_val), "self": _ZERO})
_leaky_relu_backward = defop(
    "LeakyReluBackwardBackward0", lambda xp, grad_output, self, negative_slope: xp.where(
        self > 0, grad_output, grad_output * negative_slope), ("grad_output", "self"),
    grads={"grad_output": lambda grad, self, negative_slope: _leaky_relu_backward(
        grad, self, negative_slope=negative_slope), "self": _ZERO})
_ONE_SIXTH = builtins.float(xp.float32(1 / 6))    # torch's kernel uses the float constant
# torch has no derivative for hardsigmoid's backward: a double backward through it refuses
_hardsigmoid_backward = defop(
    "NotImplemented", lambda xp, grad_output, self: xp.where(
        (self > -3) & (self < 3), grad_output * _ONE_SIXTH, 0), ("grad_output", "self"),
    grads=dict.fromkeys(("grad_output", "self"), _not_implemented(
        RuntimeError, "derivative for aten::hardsigmoid_backward is not implemented")))


def _same_dtype(kernel, kinds="f"):
    def rule(values, attrs):
        d = values[0].dtype
        if d.kind not in kinds:
            raise _kernel_error(kernel, d)
        return d
    return rule


def _apply(op, input, inplace, **attrs):
    return apply_inplace(op, input, (input,), attrs) if inplace else op(input, **attrs)


_hardtanh = defop("HardtanhBackward0", lambda xp, self, min_val, max_val: xp.clip(
    self, min_val, max_val), grads={"self": lambda grad, self, min_val, max_val:
                                    _hardtanh_backward(grad, self, min_val=min_val,
                                                       max_val=max_val)},
    dtype=_same_dtype("hardtanh_cpu", "fiu"))


def _check_hardtanh(input, min_val, max_val):
    if input.dtype is dtypes.bool:
        raise RuntimeError("Bool inputs not supported for hardtanh")
    if input.dtype is dtypes.uint8 and (min_val < 0 or max_val < 0):
        raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")


@public("functional")
def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    _check_hardtanh(input, min_val, max_val)
    return _apply(_hardtanh, input, inplace, min_val=min_val, max_val=max_val)


@public("functional")
def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return hardtanh(input, min_val, max_val, True)


@public("functional")
def relu6(input, inplace=False):
    _check_hardtanh(input, 0, 6)
    return _apply(_hardtanh, input, inplace, min_val=0, max_val=6)


_leaky_relu = defop("LeakyReluBackward0", lambda xp, self, negative_slope: xp.where(
    self > 0, self, self * negative_slope), dtype=_same_dtype("leaky_relu_cpu"),
    grads={"self": lambda grad, self, negative_slope: _leaky_relu_backward(
        grad, self, negative_slope=negative_slope)})
_leaky_relu_result = defop("LeakyReluBackward1", _leaky_relu.forward,
                           dtype=_same_dtype("leaky_relu_cpu"),
                           grads={"self": lambda grad, result, negative_slope:
                                  _leaky_relu_backward(grad, result,
                                                       negative_slope=negative_slope)})


@public("functional")
def leaky_relu(input, negative_slope=0.01, inplace=False):
    return _apply(_leaky_relu_result if inplace else _leaky_relu, input, inplace,
                  negative_slope=negative_slope)


@public("functional")
def leaky_relu_(input, negative_slope=0.01):
    return leaky_relu(input, negative_slope, True)


def _elu_forward(xp, self, alpha, scale, input_scale):
    return xp.where(self > 0, self * scale,
                    xp.expm1(_keep(xp.minimum, 0, self) * input_scale) * (alpha * scale))


# At 0 torch takes the negative side's slope but not its curvature: a constant there.
def _elu_grad(grad, self, alpha, scale, input_scale):
    at_zero = where(self > 0, grad * scale, grad * (input_scale * alpha * scale))
    return where(self < 0, grad * (input_scale * alpha * scale) * (self * input_scale).exp(),
                 at_zero)


def _elu_result_grad(grad, result, alpha, scale, input_scale):
    at_zero = where(result > 0, grad * scale, grad * (input_scale * alpha * scale))
    return where(result < 0, grad * input_scale * (result + alpha * scale), at_zero)


_elu = defop("EluBackward0", _quiet(_elu_forward), dtype=_same_dtype("elu_cpu"),
             grads={"self": _elu_grad})
_elu_result = defop("EluBackward1", _quiet(_elu_forward), dtype=_same_dtype("elu_cpu"),
                    grads={"self": _elu_result_grad})
_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


@public("functional")
def elu(input, alpha=1.0, inplace=False):
    return _apply(_elu_result if inplace else _elu, input, inplace, alpha=alpha, scale=1,
                  input_scale=1)


@public("functional")
def elu_(input, alpha=1.0):
    return elu(input, alpha, True)


@public("function", "functional", signatures=(
    "selu(Tensor input)",))
def selu(input, inplace=False):
    return _apply(_elu_result if inplace else _elu, input, inplace, alpha=_SELU_ALPHA,
                  scale=_SELU_SCALE, input_scale=1)


_celu = defop("CeluBackward0", _quiet(
    lambda xp, self, alpha: _elu_forward(xp, self, alpha, 1, 1 / alpha)),
              dtype=_same_dtype("elu_cpu"),
              grads={"self": lambda grad, self, alpha: _elu_grad(grad, self, alpha, 1, 1 / alpha)})
_celu_result = defop("CeluBackward1", _celu.forward, dtype=_same_dtype("elu_cpu"),
                     grads={"self": lambda grad, result, alpha: _elu_result_grad(
                         grad, result, alpha, 1, 1 / alpha)})


@public("function", "functional", signatures=(
    "celu(Tensor input, Scalar alpha=1.0)",))
def celu(input, alpha=1.0, inplace=False):
    return _apply(_celu_result if inplace else _celu, input, inplace, alpha=alpha)


@public("function", "functional", signatures=(
    "selu_(Tensor input)",))
def selu_(input):
    return _apply(_elu_result, input, True, alpha=_SELU_ALPHA, scale=_SELU_SCALE, input_scale=1)


@public("function", "functional", signatures=(
    "celu_(Tensor input, Scalar alpha=1.0)",))
def celu_(input, alpha=1.0):
    return _apply(_celu_result, input, True, alpha=alpha)


_GELU_BETA, _GELU_KAPPA = math.sqrt(2.0) * (2.0 / _SQRT_PI) * 0.5, 0.044715


def _gelu_forward(xp, self, approximate):
    if approximate == "tanh":
        return 0.5 * self * (1 + xp.tanh(_GELU_BETA * (self + _GELU_KAPPA * self ** 3)))
    return self * 0.5 * (1 + _erf_np(self / math.sqrt(2.0)))


def _gelu_grad(grad, self, approximate):
    if approximate == "tanh":
        inner = (self + _GELU_KAPPA * self.pow(3)) * _GELU_BETA
        t = inner.tanh()
        slope = (1 - t * t) * _GELU_BETA * (1 + 3 * _GELU_KAPPA * self.pow(2))
        return grad * (0.5 * (1 + t) + 0.5 * self * slope)
    cdf = 0.5 * (1 + (self * (1 / math.sqrt(2.0))).erf())
    pdf = (-0.5 * self * self).exp() * (1 / math.sqrt(2 * math.pi))
    return grad * (cdf + self * pdf)


_gelu = defop("GeluBackward0", _gelu_forward, dtype=_same_dtype("GeluKernelImpl"),
              grads={"self": _gelu_grad})


@public("functional")
def gelu(input, approximate="none"):
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return _gelu(input, approximate=approximate)


def _softplus_forward(xp, self, beta, threshold):
    return xp.where(self * beta > threshold, self, xp.log1p(xp.exp(self * beta)) / beta)


def _softplus_grad(grad, self, beta, threshold):
    # on the threshold torch takes the smooth side's slope but not its curvature
    z = self * beta
    edge = where(z > threshold, grad, grad * (1 / (1 + math.exp(-threshold))))
    return where(z < threshold, grad * z.sigmoid(), edge)


_softplus = defop("SoftplusBackward0", _quiet(_softplus_forward),
                  dtype=_same_dtype("softplus_cpu"), grads={"self": _softplus_grad})


@public("functional")
def softplus(input, beta=1, threshold=20):
    return _softplus(input, beta=beta, threshold=threshold)


def _sigmoid_np(xp, a):
    return 1 / (1 + xp.exp(-a))


_silu = defop("SiluBackward0", _quiet(lambda xp, self: self * _sigmoid_np(xp, self)),
              dtype=_same_dtype("silu_cpu"), grads={"self": lambda grad, self: (
                  lambda s: grad * s * (1.0 + self * (1.0 - s)))(self.sigmoid())})


def _mish_grad(grad, self):
    s, t = self.sigmoid(), softplus(self).tanh()
    return grad * (t + self * s * (1.0 - t * t))


_mish = defop("MishBackward0", _quiet(
    lambda xp, self: self * xp.tanh(_softplus_forward(xp, self, 1, 20))),
              dtype=_same_dtype("mish_cpu"), grads={"self": _mish_grad})
_hardsigmoid = defop("HardsigmoidBackward0", lambda xp, self: xp.clip(self + 3, 0, 6) / 6,
                     dtype=_same_dtype("hardsigmoid_cpu"),
                     grads={"self": lambda grad, self: _hardsigmoid_backward(grad, self)})
_hardswish = defop("HardswishBackward0", lambda xp, self: self * xp.clip(self + 3, 0, 6) / 6,
                   dtype=_same_dtype("hardswish_cpu"),
                   grads={"self": lambda grad, self: where(
                       self <= -3, 0.0, where(self < 3, grad * (self / 3 + 0.5), grad))})


@public("functional")
def silu(input, inplace=False):
    return _apply(_silu, input, inplace)


@public("functional")
def mish(input, inplace=False):
    return _apply(_mish, input, inplace)


@public("functional")
def hardsigmoid(input, inplace=False):
    return _apply(_hardsigmoid, input, inplace)


@public("functional")
def hardswish(input, inplace=False):
    return _apply(_hardswish, input, inplace)


def _step_backward(node, keep):
    """The backward row of a piecewise activation whose slope is 1 where ``keep(self, bound)``
    and 0 elsewhere (hardshrink, softshrink; threshold's is relu's): like torch's, its derivative in self
    is zero but self stays in the graph."""
    row = defop(node, lambda xp, grad_output, self, bound: xp.where(keep(self, bound),
                                                                     grad_output, 0),
                ("grad_output", "self"),
                grads={"grad_output": lambda grad, self, bound: row(grad, self, bound=bound),
                       "self": _ZERO})
    return row


_threshold = defop("ThresholdBackward0", lambda xp, self, threshold, value: xp.where(
    self > threshold, self, value), dtype=_same_dtype("threshold_cpu", "fiu"),
    grads={"self": lambda grad, self, threshold: _threshold_backward(grad, self,
                                                                    threshold=threshold)})
# in place, torch saves a copy of self as it was: ``dest`` is the tensor written into
_threshold_inplace = defop(
    "ThresholdBackward1", lambda xp, dest, self, threshold, value: xp.where(
        self > threshold, self, value), ("dest", "self"),
    dtype=_same_dtype("threshold_cpu", "fiu"),
    grads={"dest": lambda grad, self, threshold: _threshold_backward(grad, self,
                                                                    threshold=threshold)})


def _threshold_in_place(input, threshold, value):
    return apply_inplace(_threshold_inplace, input, (input, input.detach().clone()),
                         {"threshold": threshold, "value": value})


@public("functional", name="threshold")
def _functional_threshold(input, threshold, value, inplace=False):
    if inplace:
        return _threshold_in_place(input, threshold, value)
    return _threshold(input, threshold=threshold, value=value)


@public("function", "functional", signatures=(
    "threshold_(Tensor input, Scalar threshold, Scalar value)",))
def threshold_(input, threshold, value):
    return _threshold_in_place(input, threshold, value)


@public("function", signatures=(
    "threshold(Tensor input, Scalar threshold, Scalar value, *, Tensor out=None)",))
def threshold(input, threshold, value):
    return _threshold(input, threshold=threshold, value=value)


_shrink_backward = {name: _step_backward(f"{name}BackwardBackward0",
                                         lambda a, lambd: (a < -lambd) | (a > lambd))
                    for name in ("Hardshrink", "Softshrink")}
_hardshrink = defop("HardshrinkBackward0", lambda xp, self, lambd: xp.where(
    (self >= -lambd) & (self <= lambd), 0, self), dtype=_same_dtype("hardshrink_cpu"),
    grads={"self": lambda grad, self, lambd: _shrink_backward["Hardshrink"](grad, self,
                                                                           bound=lambd)})
_softshrink = defop("SoftshrinkBackward0", lambda xp, self, lambd: xp.where(
    self > lambd, self - lambd, xp.where(self < -lambd, self + lambd, 0)),
    dtype=_same_dtype("softshrink_cpu"),
    grads={"self": lambda grad, self, lambd: _shrink_backward["Softshrink"](grad, self,
                                                                           bound=lambd)})


@public("function", "method", "functional", signatures=(
    "hardshrink(Tensor input, Scalar lambd=0.5, *, Tensor out=None)",))
def hardshrink(input, lambd=0.5):
    return _hardshrink(input, lambd=lambd)


@public("functional")
def softshrink(input, lambd=0.5):
    if lambd < 0:
        raise RuntimeError(f"lambda must be greater or equal to 0, but found to be {lambd:g}.")
    return _softshrink(input, lambd=lambd)


# log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)): no overflow on either side
_logsigmoid = defop("LogSigmoidBackward0", _quiet(
    lambda xp, self: xp.minimum(self, 0) - xp.log1p(xp.exp(-xp.abs(self)))),
    dtype=_same_dtype("log_sigmoid_cpu"),
    grads={"self": lambda grad, self: grad * (-self).sigmoid()})


@public("functional")
def logsigmoid(input):
    return _logsigmoid(input)


def _glu_halves(xp, self, dim):
    n = self.shape[dim] // 2
    return xp.take(self, xp.arange(n), axis=dim), xp.take(self, xp.arange(n, 2 * n), axis=dim)


def _glu_grad(grad, self, dim):
    from .shape import cat
    a, b = self.chunk(2, dim)
    s = b.sigmoid()
    return cat([grad * s, grad * a * s * (1 - s)], dim)


_glu = defop("GluBackward0", _quiet(lambda xp, self, dim: (lambda a, b: a * _sigmoid_np(xp, b))(
    *_glu_halves(xp, self, dim))), dtype=_same_dtype("glu_cpu"), grads={"self": _glu_grad})


@public("functional")
def glu(input, dim=-1):
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    dim = _wrap_dim(dim, input.dim())
    if input.shape[dim] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim} is size "
                           f"{input.shape[dim]}")
    return _glu(input, dim=dim)


_prelu_kernel = defop("PreluKernelBackward0", lambda xp, self, weight: xp.where(
    self > 0, self, self * weight), ("self", "weight"), dtype=_same_dtype("prelu_cpu"),
    grads={"self": lambda grad, self, weight: where(self > 0, grad, weight * grad),
           "weight": lambda grad, self: where(self > 0, 0.0, self * grad)})


@public("function", "method", "functional", signatures=("prelu(Tensor input, Tensor weight)",))
def prelu(input, weight):
    """ATen's prelu: a weight of n > 1 elements is laid along input's dim 1."""
    n = weight.numel()
    if weight.dim() > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {weight.dim()}")
    if input.dim() == 0 and n != 1:
        raise RuntimeError("Not allow zero-dim input tensor.")
    channels = input.shape[1] if input.dim() >= 2 else 1
    if n != 1 and n != channels:
        raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found "
                           f"parameter numbers = {n} and channel size = {channels}.")
    if input.dim() >= 2 and weight.dim() != input.dim():
        weight = weight.reshape([1, n] + [1] * (input.dim() - 2))
    return _prelu_kernel(input, weight)


@public("functional")
def softsign(input):
    return input / (input.abs() + 1)


@public("functional")
def tanhshrink(input):
    return input - input.tanh()


# -- comparisons and logical/bitwise ops -----------------------------------------------------
def _FROM_NP_NAME(np_dtype):
    return dtypes._FROM_NP[np_dtype].name


def _compare(name, forward, alias=None):
    """A comparison, declared public under ``name`` (and ``alias``) as a function and method and
    in place: bool out of place; in place (``x.eq_(y)``) it writes 0/1 in x's dtype and records
    a node with zero gradients, like torch (Backward0 for a number, 1 for a tensor)."""
    node = name.capitalize()

    def compare(xp, self, other):
        if name not in ("eq", "ne") and xp.asarray(self).dtype.kind == "c":
            raise NotImplementedError(f'"{name}_cpu" not implemented for '
                                      f"'{_SCALAR_NAMES[_FROM_NP_NAME(self.dtype)]}'")
        return getattr(xp, forward)(self, other)
    scalar = defop(f"{node}Backward0", lambda xp, self, other: compare(xp, self,
        _like(self, other)),
                   dtype="bool",
                   grads={"self": _ZERO})
    tensor = defop(f"{node}Backward1", compare,
                   ("self", "other"), dtype="bool",
                   grads={"self": _ZERO, "other": _ZERO})
    aliases = () if alias is None else (alias,)
    function = public("function", "method", name=name, aliases=aliases, signatures=(
        f"{name}(Tensor input, Tensor other, *, Tensor out=None)",
        f"{name}(Tensor input, Scalar other, *, Tensor out=None)"))(
        lambda input, other: tensor(input, other))
    inplace = public("method", name=name + "_", aliases=tuple(a + "_" for a in aliases),
                     method_signatures=(f"{name}_(Tensor self, Tensor other)",
                                        f"{name}_(Tensor self, Scalar other)"))(
        _binary_inplace(tensor, scalar))
    return function, inplace


eq, eq_ = _compare("eq", "equal")       # (torch.equal is another function)
ne, ne_ = _compare("ne", "not_equal", "not_equal")
lt, lt_ = _compare("lt", "less", "less")
le, le_ = _compare("le", "less_equal", "less_equal")
gt, gt_ = _compare("gt", "greater", "greater")
ge, ge_ = _compare("ge", "greater_equal", "greater_equal")


def _logical(name, forward, inputs=("self", "other")):
    """A logical op (tensors only, no gradient); in place it writes 0/1 in self's dtype."""
    op = defop(name, lambda xp, *arrays: getattr(xp, forward)(*arrays), inputs,
               dtype="bool")     # no grads: not differentiable
    if len(inputs) == 1:
        return (lambda input: op(input)), (lambda self: apply_inplace(op, self, (self,), {}))

    def function(input, other):
        _need_tensors(name, ("input", input), ("other", other))
        return op(input, other)

    def method(self, other):
        _need_tensors(name + "_", ("other", other))
        return apply_inplace(op, self, (self, other), {})
    return function, method


logical_and, logical_and_ = _logical("logical_and", "logical_and")
public("function", "method", name="logical_and", signatures=(
    "logical_and(Tensor input, Tensor other, *, Tensor out=None)",))(logical_and)
public("method", name="logical_and_", method_signatures=("logical_and_(Tensor self, Tensor other)",))(logical_and_)
logical_or, logical_or_ = _logical("logical_or", "logical_or")
public("function", "method", name="logical_or", signatures=(
    "logical_or(Tensor input, Tensor other, *, Tensor out=None)",))(logical_or)
public("method", name="logical_or_", method_signatures=("logical_or_(Tensor self, Tensor other)",))(logical_or_)
logical_xor, logical_xor_ = _logical("logical_xor", "logical_xor")
public("function", "method", name="logical_xor", signatures=(
    "logical_xor(Tensor input, Tensor other, *, Tensor out=None)",))(logical_xor)
public("method", name="logical_xor_", method_signatures=("logical_xor_(Tensor self, Tensor other)",))(logical_xor_)
logical_not, logical_not_ = _logical("logical_not", "logical_not", ("self",))
public("function", "method", name="logical_not", signatures=(
    "logical_not(Tensor input, *, Tensor out=None)",))(logical_not)
public("method", name="logical_not_", method_signatures=("logical_not_(Tensor self)",))(logical_not_)


def _check_cast(self, *others, to_float=False):
    """In place, torch checks that the result type fits self before looking for a kernel."""
    want = dtypes.result_type(self, *others)
    if to_float and not want.is_floating_point:
        want = dtypes.get_default_dtype()
    if want.category > self.dtype.category:
        raise RuntimeError(f"result type {_SCALAR_NAMES[want.name]} can't be cast to the "
                           f"desired output type {_SCALAR_NAMES[self.dtype.name]}")


def _bitwise(name, forward, inputs=("self", "other")):
    op = defop(name, lambda xp, *arrays: getattr(xp, forward)(*arrays), inputs,
               dtype=_rule(f"{name}_cpu", kinds="biu"))
    if len(inputs) == 1:
        return (lambda input: op(input)), (lambda self: apply_inplace(op, self, (self,), {}))

    def method(self, other):
        _check_cast(self, other)
        return apply_inplace(op, self, (self, other), {})
    return (lambda input, other: op(input, other)), method


bitwise_and, bitwise_and_ = _bitwise("bitwise_and", "bitwise_and")
public("function", "method", name="bitwise_and", signatures=(
    "bitwise_and(Tensor input, Tensor other, *, Tensor out=None)",
    "bitwise_and(Scalar self, Tensor other)",
    "bitwise_and(Tensor input, Scalar other, *, Tensor out=None)"))(bitwise_and)
public("method", name="bitwise_and_", method_signatures=(
    "bitwise_and_(Tensor self, Tensor other)", "bitwise_and_(Tensor self, Scalar other)"))(bitwise_and_)
public("__iand__")(bitwise_and_)
bitwise_or, bitwise_or_ = _bitwise("bitwise_or", "bitwise_or")
public("function", "method", name="bitwise_or", signatures=(
    "bitwise_or(Tensor input, Tensor other, *, Tensor out=None)",
    "bitwise_or(Scalar self, Tensor other)",
    "bitwise_or(Tensor input, Scalar other, *, Tensor out=None)"))(bitwise_or)
public("method", name="bitwise_or_", method_signatures=(
    "bitwise_or_(Tensor self, Tensor other)", "bitwise_or_(Tensor self, Scalar other)"))(bitwise_or_)
public("__ior__")(bitwise_or_)
bitwise_xor, bitwise_xor_ = _bitwise("bitwise_xor", "bitwise_xor")
public("function", "method", name="bitwise_xor", signatures=(
    "bitwise_xor(Tensor input, Tensor other, *, Tensor out=None)",
    "bitwise_xor(Scalar self, Tensor other)",
    "bitwise_xor(Tensor input, Scalar other, *, Tensor out=None)"))(bitwise_xor)
public("method", name="bitwise_xor_", method_signatures=(
    "bitwise_xor_(Tensor self, Tensor other)", "bitwise_xor_(Tensor self, Scalar other)"))(bitwise_xor_)
public("__ixor__")(bitwise_xor_)
bitwise_not, bitwise_not_ = _bitwise("bitwise_not", "invert", ("self",))
public("function", "method", name="bitwise_not", signatures=(
    "bitwise_not(Tensor input, *, Tensor out=None)",))(bitwise_not)
public("method", name="bitwise_not_", method_signatures=("bitwise_not_(Tensor self)",))(bitwise_not_)


@public("__invert__")
def _invert(self):
    if self.is_floating_point():
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type "
                        "tensors")
    return bitwise_not(self)


# -- where, clamp ----------------------------------------------------------------------------
_where = defop("WhereBackward0", lambda xp, condition, self, other: xp.where(condition, self,
               other), ("condition", "self", "other"), promote=(1, 2),
               grads={"self": lambda grad, condition: where(condition, grad, 0),
                      "other": lambda grad, condition: where(condition, 0, grad)})


@public("function", signatures=(
    "where(Tensor condition)",
    "where(Tensor condition, Tensor input, Tensor other, *, Tensor out=None)",
    "where(Tensor condition, Scalar self, Tensor other)",
    "where(Tensor condition, Tensor input, Scalar other)",
    "where(Tensor condition, Scalar self, Scalar other)"))
def where(condition, input=None, other=None):
    if input is None and other is None:
        from .indexing import nonzero
        if state.vmap is not None:      # func.vmap: a data-dependent shape
            state.vmap.refuse("where", condition)
        return nonzero(condition, as_tuple=True)
    return _where(condition, input, other)


def _clamp_forward(xp, self, min, max):
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if min is not None:
        self = _keep(xp.maximum, min, self)
    return self if max is None else _keep(xp.minimum, max, self)


def _clamp_tensors(xp, self, min, max):
    """clamp with tensor bounds: one walk over the three (signed-zero ties: see vector.py)."""
    bounds = [b for b in (min, max) if b is not None]
    lanes = vector.lanes(xp.broadcast_shapes(self.shape, *(b.shape for b in bounds)),
                         self.dtype, self, *bounds)
    if min is not None:
        self = vector.extremum(xp.maximum, self, min, lanes)
    return self if max is None else vector.extremum(xp.minimum, self, max, lanes)


def _clamp_grad(grad, self, min, max):
    if min is None:
        inside = self <= max
    elif max is None:
        inside = self >= min
    else:
        inside = (self >= min) & (self <= max)
    return where(inside, grad, 0)


def _clamp_min_grad(grad, self, min, max):
    below = self < min if max is None else (self < min) & (min < max)
    return where(below, grad, 0)


def _clamp_max_grad(grad, self, min, max):
    above = self > max if min is None else (self > max) | (max < min)
    return where(above, grad, 0)


def _clamp_dtype(values, attrs):
    return dtypes.result_type(*values, *(v for v in (attrs["min"], attrs["max"]) if v is not None))


_clamp = defop("ClampBackward1", _clamp_forward, grads={"self": _clamp_grad}, dtype=_clamp_dtype)
# min/max tensors may be None: no promotion in the registry, the forward casts to ``dtype``
_clamp_tensor = defop(
    "ClampBackward0", lambda xp, self, min, max, dtype: _clamp_tensors(xp, self, min, max).astype(
        dtype.np, copy=False), ("self", "min", "max"), dtype="same",
    grads={"self": _clamp_grad, "min": _clamp_min_grad, "max": _clamp_max_grad})


def _clamp_type_error(args, method):
    got = ", ".join(("Tensor" if isinstance(a, Tensor) else type(a).__name__)
                    for a in args[method:])
    return TypeError(f"clamp() received an invalid combination of arguments - got ({got}), but "
                     "expected one of:")


def _clamp_args(input, min, max, method=False):
    """(row, values, attrs) for clamp's Scalar or Tensor overload."""
    tensors = [isinstance(v, Tensor) for v in (min, max) if v is not None]
    if any(tensors) and not all(tensors):
        raise _clamp_type_error([a for a in (input, min, max) if a is not None], method)
    if not any(tensors):
        return _clamp, (input,), {"min": min, "max": max}
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    present = [v for v in (input, min, max) if v is not None]
    broadcast_shapes(*(v.shape for v in present))
    return _clamp_tensor, (input, min, max), {"dtype": dtypes.result_type(*present)}


@public("function", "method", aliases=("clip",), signatures=(
    "clamp(Tensor input, Tensor? min=None, Tensor? max=None, *, Tensor out=None)",
    "clamp(Tensor input, Scalar? min=None, Scalar? max=None, *, Tensor out=None)"))
def clamp(input, min=None, max=None):
    op, values, attrs = _clamp_args(input, min, max)
    return op(*values, **attrs)


@public("method", aliases=("clip_",), method_signatures=(
    "clamp_(Tensor self, Tensor? min=None, Tensor? max=None)",
    "clamp_(Tensor self, Scalar? min=None, Scalar? max=None)"))
def clamp_(self, min=None, max=None):
    op, values, attrs = _clamp_args(self, min, max, method=True)
    if op is _clamp_tensor:
        want = attrs["dtype"]
        if want.category > self.dtype.category:
            raise RuntimeError(f"result type {_SCALAR_NAMES[want.name]} can't be cast to the "
                               f"desired output type {_SCALAR_NAMES[self.dtype.name]}")
        attrs["dtype"] = self.dtype
        return apply_inplace(op, self, values, attrs)
    want = _clamp_dtype((self,), {"min": min, "max": max})
    if want.category > self.dtype.category:     # the Scalar overload names C++ types
        raise RuntimeError(f"result type {_SCALAR_NAMES[want.name]} can't be cast to the desired "
                           f"output type {_C10_NAMES[self.dtype.name]}")
    return apply_inplace(_clamp, self, (self,), {"min": min, "max": max})



def _bound_dtype(name):
    def rule(values, attrs):
        want = dtypes.result_type(values[0], attrs[name])
        if want is dtypes.bool:
            raise _kernel_error(f"clamp_{name}_scalar_cpu", want)
        return want
    return rule


# clamp_min / clamp_max: the Scalar overload (...Backward0) and the Tensor one (...Backward1)
_clamp_min = defop("ClampMinBackward0", lambda xp, self, min: _keep(xp.maximum, _like(self, min), self),
                   dtype=_bound_dtype("min"),
                   grads={"self": lambda grad, self, min: where(self >= min, grad, 0)})
_clamp_min_tensor = defop(
    "ClampMinBackward1", lambda xp, self, min: vector.extremum(xp.maximum, self, min),
    ("self", "min"),
    grads={"self": lambda grad, self, min: where(self >= min, grad, 0),
           "min": lambda grad, self, min: where(self < min, grad, 0)})
_clamp_max = defop("ClampMaxBackward0", lambda xp, self, max: _keep(xp.minimum, _like(self, max), self),
                   dtype=_bound_dtype("max"),
                   grads={"self": lambda grad, self, max: where(self <= max, grad, 0)})
_clamp_max_tensor = defop(
    "ClampMaxBackward1", lambda xp, self, max: vector.extremum(xp.minimum, self, max),
    ("self", "max"),
    grads={"self": lambda grad, self, max: where(self <= max, grad, 0),
           "max": lambda grad, self, max: where(self > max, grad, 0)})


def _bound_args(scalar_op, tensor_op, name, input, bound):
    if isinstance(bound, Tensor):
        return tensor_op, (input, bound), {}
    return scalar_op, (input,), {name: bound}


@public("function", "method", signatures=(
    "clamp_min(Tensor input, Tensor min, *, Tensor out=None)",
    "clamp_min(Tensor input, Scalar min, *, Tensor out=None)"))
def clamp_min(input, min):
    op, values, attrs = _bound_args(_clamp_min, _clamp_min_tensor, "min", input, min)
    return op(*values, **attrs)


@public("function", "method", signatures=(
    "clamp_max(Tensor input, Tensor max, *, Tensor out=None)",
    "clamp_max(Tensor input, Scalar max, *, Tensor out=None)"))
def clamp_max(input, max):
    op, values, attrs = _bound_args(_clamp_max, _clamp_max_tensor, "max", input, max)
    return op(*values, **attrs)


def _bound_inplace(op, tensor_op, name, self, bound):
    op, values, attrs = _bound_args(op, tensor_op, name, self, bound)
    if op is not tensor_op:     # the Scalar overload names C++ types
        want = op.dtype_rule(values, attrs)
        if want.category > self.dtype.category:
            raise RuntimeError(f"result type {_SCALAR_NAMES[want.name]} can't be cast to the "
                               f"desired output type {_C10_NAMES[self.dtype.name]}")
    return apply_inplace(op, self, values, attrs)


@public("function", "method", signatures=(
    "clamp_min_(Tensor input, Tensor min)",
    "clamp_min_(Tensor input, Scalar min)"))
def clamp_min_(self, min):
    return _bound_inplace(_clamp_min, _clamp_min_tensor, "min", self, min)


@public("function", "method", signatures=(
    "clamp_max_(Tensor input, Tensor max)",
    "clamp_max_(Tensor input, Scalar max)"))
def clamp_max_(self, max):
    return _bound_inplace(_clamp_max, _clamp_max_tensor, "max", self, max)

# -- in-place --------------------------------------------------------------------------------
_zero = defop("ZeroBackward0", "zeros_like", dtype="same",
              grads={"self": _ZERO})
_fill = defop("FillBackward2", lambda xp, self, value: xp.full_like(self, value), dtype="same",
              grads={"self": lambda grad: zeros_like(grad)})
_fill_tensor = defop("FillBackward3", lambda xp, self, value: xp.full_like(self, value),
                     ("self", "value"), dtype="same",
                     grads={"self": _ZERO, "value": lambda grad: grad.sum()})
_copy = defop("CopyBackwards", lambda xp, self, src: src,     # apply_inplace broadcasts it
              ("self", "src"), dtype="same",
              grads={"self": lambda grad: zeros_like(grad), "src": lambda grad: grad})
_copy.node_cls.name = lambda self: "torch::autograd::CopyBackwards"   # hand-written in torch


@public("method", method_signatures=(
    "zero_(Tensor self)",))
def zero_(self):
    return apply_inplace(_zero, self, (self,), {}, overlap=None)


@public("method", method_signatures=(
    "fill_(Tensor self, Tensor value)",
    "fill_(Tensor self, Scalar value)"))
def fill_(self, value):
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError("fill_ only supports 0-dimension value tensor but got tensor "
                               f"with {value.dim()} dimensions.")
        return apply_inplace(_fill_tensor, self, (self, value), {}, overlap="self")
    return apply_inplace(_fill, self, (self,), {"value": value}, overlap=None)


_fill_copy = defop("FillBackward0", lambda xp, self, value: xp.full_like(self, value),
                   dtype="same", grads={"self": lambda grad: zeros_like(grad)})
_fill_copy_tensor = defop("FillBackward1", lambda xp, self, value: xp.full_like(self, value),
                          ("self", "value"), dtype="same",
                          grads={"self": _ZERO, "value": lambda grad: grad.sum()})


@public("function", signatures=("fill(Tensor input, Tensor value)",
                                "fill(Tensor input, Scalar value)"))
def fill(input, value):
    """torch.fill: a new tensor like input holding value everywhere."""
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError("fill_ only supports 0-dimension value tensor but got tensor "
                               f"with {value.dim()} dimensions.")
        return _fill_copy_tensor(input, value)
    return _fill_copy(input, value=value)


@public("method", method_signatures=(
    "copy_(Tensor self, Tensor other, bool non_blocking=False)",
    "copy_(Tensor self, Tensor other, bool async=False)|deprecated"))
def copy_(self, src, non_blocking=False):
    # from self's own memory (same place, strides, dtype) PyTorch returns at once, unchecked
    if self._batched or getattr(src, "_batched", False):   # func.vmap: its rules write
        return apply_inplace(_copy, self, (self, src), {})
    a, b = self._data, getattr(src, "_data", None)
    same = (b is not None and a.dtype == b.dtype and a.shape == b.shape and
            a.strides == b.strides and
            data_ptr(a) == data_ptr(b))
    return apply_inplace(_copy, self, (self, src), {}, overlap=None if same else "all")


@public("method", "__iadd__", method_signatures=(
    "add_(Tensor self, Scalar alpha, Tensor other)|deprecated",
    "add_(Tensor self, Tensor other, *, Scalar alpha=1)"))
def add_(self, other, *, alpha=1):
    return apply_inplace(_add, self, (self, other), {"alpha": alpha})


@public("method", "__isub__", method_signatures=(
    "sub_(Tensor self, Scalar alpha, Tensor other)|deprecated",
    "sub_(Tensor self, Tensor other, *, Scalar alpha=1)"))
def sub_(self, other, *, alpha=1):
    return apply_inplace(_sub, self, (self, other), {"alpha": alpha})


@public("method", "__imul__", method_signatures=(
    "mul_(Tensor self, Tensor other)",))
def mul_(self, other):
    return apply_inplace(_mul, self, (self, other), {})


def _r(fn):
    """The reflected form of a binary op (``2 ** x`` calls ``x.__rpow__(2)``)."""
    return lambda self, other: fn(other, self)


def _binary(fn, **attrs):
    """A dunder: NotImplemented for operands that are not tensors or numbers (a NumPy scalar
    counts as the Python number it holds, a NumPy bool as an int, as in torch). With attrs,
        ``fn`` is an op row called
    directly (the function's checks cannot fail for a dunder)."""

    def method(self, other):
        if not isinstance(other, (Tensor, int, float, complex)):
            if isinstance(other, xp.number):
                other = other.item()
            elif isinstance(other, xp.bool_):   # torch takes it as the integer it is
                other = int(other)
            else:
                return NotImplemented
        return fn(self, other, **attrs) if attrs else fn(self, other)
    return method




def _rdiv(self, other):
    return self.reciprocal() * other


# the operators: one dunder each
for _dunder, _fn in (
        ("__add__", _binary(_add, alpha=1)), ("__radd__", _binary(_add, alpha=1)),
        ("__sub__", _binary(sub)), ("__rsub__", _binary(rsub)),
        ("__mul__", _binary(_mul)), ("__rmul__", _binary(_mul)),
        ("__truediv__", _binary(div)), ("__rtruediv__", _binary(_rdiv)),
        ("__floordiv__", _binary(floor_divide)), ("__rfloordiv__", _binary(_r(floor_divide))),
        ("__mod__", _binary(remainder)), ("__rmod__", _binary(_r(remainder))),
        ("__pow__", _binary(pow)), ("__rpow__", _binary(_r(pow))),
        ("__pos__", lambda self: self),
        ("__eq__", _binary(eq)), ("__ne__", _binary(ne)), ("__lt__", _binary(lt)),
        ("__le__", _binary(le)), ("__gt__", _binary(gt)), ("__ge__", _binary(ge)),
        ("__and__", _binary(bitwise_and)), ("__or__", _binary(bitwise_or)),
        ("__xor__", _binary(bitwise_xor)), ("__rand__", _binary(bitwise_and)),
        ("__ror__", _binary(bitwise_or)), ("__rxor__", _binary(bitwise_xor))):
    public(_dunder)(_fn)
del _dunder, _fn
public("method", name="where", method_signatures=(
    "where(Tensor self, Tensor condition, Tensor other)",
    "where(Tensor self, Tensor condition, Scalar other)"))(
    lambda self, condition, other: where(condition, self, other))


# rows and @public objects name themselves (glassgrad.ops.publish)
publish(globals())
# abs's alias names every variant but one that torch lacks: torch.absolute_
del absolute_
__all__.remove("absolute_")
