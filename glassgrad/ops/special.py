"""Special functions (lgamma, digamma, polygamma, mvlgamma, igamma, i0, sinc, ...) and the
torch.special namespace: rows on SciPy's kernels (backend/kernels/special.py, SciPy imported
when first used) with derivatives.yaml's formulas; the namespace's other names are aliases of
rows elsewhere."""
import math

from ..backend.kernels import special as _k
from . import nn as _nn, pointwise as _pw, reduce as _reduce
from . import public, publish
from .registry import apply_inplace, defop

_FMI = ("function", "method", "inplace")
_SQRT_2PI = math.sqrt(2 * math.pi)
_SQRT_PI = math.sqrt(math.pi)


def _unary(name, node, kernel, grad=None, variants=()):
    """A unary row on ``kernel`` (float results, integers to the default float): the public
    ``name`` where it has variants, else a row named by its node (``name`` without one)."""
    return defop(name if variants else node or name, lambda xp, self: kernel(self),
                 grads=None if grad is None else {"self": grad}, dtype="float",
                 variants=variants, node=node if variants else None)


def _not_implemented(what):
    def formula(grad):
        raise NotImplementedError(f"the derivative for '{what}' is not implemented.")
    return formula


def _sig(name, *rest):
    return f"{name}(Tensor input{''.join(', ' + r for r in rest)}, *, Tensor out=None)"


# -- gamma family ----------------------------------------------------------------------------
_lgamma = _unary("lgamma", "LgammaBackward0", _k.lgamma,
                 lambda grad, self: grad * _digamma.call(self), _FMI)
_digamma = _unary("digamma", "DigammaBackward0", _k.scipy_unary("psi"),
                  lambda grad, self: grad * _polygamma.call(self, n=1), _FMI)
_polygamma = defop("PolygammaBackward0", lambda xp, self, n: _k.polygamma(n, self),
                   grads={"self": lambda grad, self, n: grad * _polygamma.call(self, n=n + 1)},
                   dtype="float")
_polygamma_inplace = defop("PolygammaBackward1", _polygamma.forward, grads={
    "self": lambda grad, self, n: grad * _polygamma.call(self, n=n + 1)}, dtype="float")


def _check_polygamma(n):
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")


@public("function", signatures=("polygamma(int64_t n, Tensor input, *, Tensor out=None)",))
@public("special", name="polygamma", signatures=(
    "polygamma(int64_t n, Tensor input, *, Tensor out=None)",))
def polygamma(n, input):
    _check_polygamma(n)
    return _polygamma(input, n=n)


@public("method", name="polygamma", method_signatures=("polygamma(Tensor self, int64_t n)",))
def _polygamma_method(self, n):
    _check_polygamma(n)
    return _polygamma(self, n=n)


@public("method", method_signatures=("polygamma_(Tensor self, int64_t n)",))
def polygamma_(self, n):
    _check_polygamma(n)
    return apply_inplace(_polygamma_inplace, self, (self,), {"n": n})


def _mvlgamma_forward(xp, self, p):
    offsets = -xp.arange(p, dtype=xp.float64) / 2
    terms = _k.lgamma(xp.asarray(self, dtype=xp.float64)[..., None] + offsets).sum(-1)
    return xp.asarray(terms + p * (p - 1) / 4 * math.log(math.pi), dtype=self.dtype)


def _mvlgamma_grad(grad, self, p):
    from .._creation import arange
    args = arange(-p / 2 + 0.5, 0.5, 0.5, dtype=self.dtype) + self.unsqueeze(-1)
    return grad * _digamma.call(args).sum(-1)


_mvlgamma = defop("MvlgammaBackward0", _mvlgamma_forward, grads={"self": _mvlgamma_grad},
                  dtype="float")


def _check_p(p):
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")


@public("function", "method", signatures=(_sig("mvlgamma", "int64_t p"),))
@public("special", name="multigammaln", signatures=("multigammaln(Tensor input, int64_t p, *, "
                                                    "Tensor out=None)",))
def mvlgamma(input, p):
    _check_p(p)
    return _mvlgamma(input, p=p)


@public("method", method_signatures=("mvlgamma_(Tensor self, int64_t p)",))
def mvlgamma_(self, p):
    _check_p(p)
    return apply_inplace(_mvlgamma, self, (self,), {"p": p})


def _igamma_grad(sign):
    def formula(grad, self, other):
        return grad * (sign * ((self - 1) * other.log() - other - _lgamma.call(self)).exp())
    return formula


_igamma = defop("igamma", lambda xp, self, other: _k.gammainc(self, other), ("self", "other"),
                dtype=_pw._rule("igamma_cpu", "f"), variants=_FMI,
                grads={"self": _not_implemented("igamma: input"), "other": _igamma_grad(1)})
_igammac = defop("igammac", lambda xp, self, other: _k.gammainc(self, other, upper=True),
                 ("self", "other"), dtype=_pw._rule("igammac_cpu", "f"),
                 variants=_FMI, grads={"self": _not_implemented("igammac: input"),
                                       "other": _igamma_grad(-1)})

# -- Bessel functions of the first kind (modified), their scaled forms, sinc --------------------
_i0 = _unary("i0", "I0Backward0", _k.scipy_unary("i0"),
             lambda grad, self: grad * _i1.call(self), _FMI + ("inplace_function",))
_i0e = _unary("special_i0e", "SpecialI0EBackward0", _k.scipy_unary("i0e"),
              lambda grad, self, result: grad * (_i1e.call(self) - self.sgn() * result))
_i1 = _unary("special_i1", "SpecialI1Backward0", _k.scipy_unary("i1"),
             lambda grad, self, result: grad * _pw.where(
                 self == 0, 0.5, _i0.call(self) - result / self))
_i1e = _unary("special_i1e", "SpecialI1EBackward0", _k.scipy_unary("i1e"),
              lambda grad, self, result: grad * _pw.where(
                  self == 0, 0.5, _i0e.call(self) - result * (self.sgn() + 1 / self)))


def _sinc_forward(xp, self):
    with xp.errstate(all="ignore"):
        x = xp.pi * self
        return xp.where(self == 0, 1.0, xp.sin(x) / x).astype(x.dtype)


def _sinc_grad(grad, self):
    x = self * math.pi
    return grad * _pw.where(self == 0, 0.0, (x * x.cos() - x.sin()) / (x * self))


_sinc = defop("sinc", _sinc_forward, grads={"self": _sinc_grad}, dtype="float",
              variants=_FMI + ("inplace_function",))

# -- the normal distribution, erfcx, entr --------------------------------------------------------
_ndtri = _unary("special_ndtri", "SpecialNdtriBackward0", _k.scipy_unary("ndtri"),
                lambda grad, result: grad * (_SQRT_2PI * (result * result / 2).exp()))
_log_ndtr = _unary("special_log_ndtr", "SpecialLogNdtrBackward0", _k.scipy_unary("log_ndtr"),
                   lambda grad, self, result: grad / _SQRT_2PI * (
                       -(result + self * self / 2)).exp())
_erfcx = _unary("special_erfcx", "SpecialErfcxBackward0", _k.scipy_unary("erfcx"),
                lambda grad, self, result: grad * (2 * self * result - 2 / _SQRT_PI))
_entr = _unary("special_entr", "SpecialEntrBackward0", _k.scipy_unary("entr"),
               lambda grad, self: grad * -(1 + self.log()))
_xlog1py = defop(
    "SpecialXlog1PyBackward0", lambda xp, self, other: _k.scipy_binary("xlog1py", self, other),
    ("self", "other"), dtype=_pw._rule("xlog1py", "f", to_float=True),
    grads={"self": lambda grad, self, other: _pw.where(
        (self == 0) & (other <= -1), 0.0, _xlog1py.call(grad, other)),
           "other": lambda grad, self, other: grad * self / (other + 1)})
_zeta = defop("SpecialZetaBackward0", lambda xp, self, other: _k.zeta(self, other),
              ("self", "other"), dtype=_pw._rule("zeta", "f", to_float=True),
              grads={"self": _not_implemented("zeta"),
                     "other": lambda grad, self, other: grad * -self * _zeta.call(self + 1, other)})


def _binary_special(name, row, arg_names=("input", "other")):
    a, b = arg_names
    sigs = (f"{name}(Tensor {a}, Tensor {b}, *, Tensor out=None)",
            f"{name}(Scalar {'self' if a == 'input' else a}, Tensor {b}, *, Tensor out=None)",
            f"{name}(Tensor {a}, Scalar {b}, *, Tensor out=None)")

    def f(x, y):
        return row(x, y)
    f.__name__ = name
    return sigs, f


# the Bessel functions and the orthogonal polynomials have no derivative in torch: their results
# require no grad
_BESSEL = {"bessel_j0": "j0", "bessel_j1": "j1", "bessel_y0": "y0", "bessel_y1": "y1",
           "modified_bessel_i0": "i0", "modified_bessel_i1": "i1", "modified_bessel_k0": "k0",
           "modified_bessel_k1": "k1", "scaled_modified_bessel_k0": "k0e",
           "scaled_modified_bessel_k1": "k1e"}
_BESSEL_ROWS = {name: _unary(f"special_{name}", None, _k.scipy_unary(f)) for name, f in
                _BESSEL.items()}
_BESSEL_ROWS["airy_ai"] = _unary("special_airy_ai", None, _k.airy_ai)
_BESSEL_ROWS["spherical_bessel_j0"] = _unary("special_spherical_bessel_j0", None,
                                             _k.spherical_bessel_j0)
for _name, _row in _BESSEL_ROWS.items():
    public("special", name=_name, signatures=(
        f"{_name}(Tensor input, *, Tensor out=None)",))(lambda input, _row=_row: _row(input))


def _polynomial_row(name):
    return defop(f"special_{name}", lambda xp, x, n: _k.polynomial(name, x, n),
                 ("x", "n"), dtype=_pw._rule(name, "f", to_float=True))


for _name in _k.POLYNOMIALS:
    _row = _polynomial_row(_name)

    def _poly(x, n, _row=_row):
        return _row(x, n)
    public("special", name=_name, signatures=(
        f"{_name}(Tensor x, Tensor n, *, Tensor out=None)",
        f"{_name}(Scalar x, Tensor n, *, Tensor out=None)",
        f"{_name}(Tensor x, Scalar n, *, Tensor out=None)"))(_poly)
del _name, _row


# -- the torch.special namespace: the rows above and aliases of rows elsewhere ------------------
def _unary_public(name, row, aliases=()):
    public("special", name=name, aliases=aliases, signatures=(_sig(name),))(
        lambda input: row(input))


for _name, _row, _aliases in (
        ("gammaln", _lgamma, ()), ("digamma", _digamma, ("psi",)), ("i0", _i0, ()),
        ("i0e", _i0e, ()), ("i1", _i1, ()), ("i1e", _i1e, ()), ("ndtri", _ndtri, ()),
        ("log_ndtr", _log_ndtr, ()), ("erfcx", _erfcx, ()), ("entr", _entr, ()),
        ("sinc", _sinc, ())):
    _unary_public(_name, _row, _aliases)
del _name, _row, _aliases

for _name, _row in (("gammainc", _igamma), ("gammaincc", _igammac)):
    public("special", name=_name, signatures=(_sig(_name, "Tensor other"),))(
        lambda input, other, _row=_row: _row(input, other))
del _name, _row
for _name, _row in (("xlog1py", _xlog1py), ("zeta", _zeta)):
    _sigs, _f = _binary_special(_name, _row)
    public("special", name=_name, signatures=_sigs)(_f)
del _name, _row, _sigs, _f


@public("special", signatures=(_sig("ndtr"),))
def ndtr(input):
    """torch's composite: (1 + erf(x / sqrt 2)) / 2."""
    return (1 + _pw.erf(input * (1 / math.sqrt(2)))) * 0.5


for _name, _target in (("expit", _pw.sigmoid), ("erf", _pw.erf), ("erfc", _pw.erfc),
                       ("erfinv", _pw.erfinv), ("exp2", _pw.exp2), ("expm1", _pw.expm1),
                       ("log1p", _pw.log1p)):
    public("special", name=_name, signatures=(_sig(_name),))(
        lambda input, _target=_target: _target(input))
del _name, _target


@public("special", signatures=("logit(Tensor input, double? eps=None, *, Tensor out=None)",))
def logit(input, eps=None):
    return _pw.logit(input, eps)


@public("special", signatures=(_sig("round", "*, int64_t decimals=0"),))
def round(input, *, decimals=0):
    return _pw.round(input, decimals=decimals)


@public("special", signatures=_binary_special("xlogy", None)[0])
def xlogy(input, other):
    return _pw.xlogy(input, other)


@public("special", signatures=(
    "logsumexp(Tensor input, IntArrayRef[1] dim, bool keepdim=False, *, Tensor out=None)",))
def logsumexp(input, dim, keepdim=False):
    return _reduce.logsumexp(input, dim, keepdim)


@public("special", signatures=(
    "softmax(Tensor input, int64_t dim, ScalarType? dtype=None)",))
def softmax(input, dim, dtype=None):
    return _nn.softmax(input, dim, dtype=dtype)


@public("special", signatures=(
    "log_softmax(Tensor input, int64_t dim, *, ScalarType? dtype=None)",))
def log_softmax(input, dim, *, dtype=None):
    return _nn.log_softmax(input, dim, dtype=dtype)


publish(globals())
