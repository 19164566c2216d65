"""Complex numbers: real/imag views, view_as_real/view_as_complex, conj (and torch's conjugate
bit), angle, polar, complex, is_complex; the negative bit's API (is_neg, resolve_neg: glassgrad
makes no negative views).

These rows write torch's complex formulas themselves (``wirtinger=False``): their derivatives
are not holomorphic, so the machinery's conjugation of real formulas (OpNode.apply) would be
wrong for them. The conjugate bit: glassgrad's conj() computes the conjugate (NumPy has no lazy
conjugate view) and remembers that the result carries torch's bit (is_conj, resolve_conj,
view_as_real's refusal; its views of the same dtype carry it too, as torch's). Writes into the result (or its views) reach its input, as through
torch's lazy view (_ConjAlias: its version counter writes the conjugate back when bumped); a
write into the input after conj() is not seen by the result (torch's would be), and the
result's storage is its own.
"""
import weakref

from .. import dtypes
from .._autograd.grad_mode import state
from .._tensor import VersionCounter, conj_bit as _has_bit, neg_bit as _has_neg_bit
from .._tensor import set_conj_bit as _set_bit, set_neg_bit as _set_neg_bit
from ..backend import backend_of, xp
from . import public, publish
from .registry import apply_inplace, defop
from .shape import clone, select

def _complex_only(self, name):
    if not self.dtype.is_complex:
        raise RuntimeError(f"{name} is only supported for complex tensors")


def _as_real(xp, a):
    """The float view of a complex array: its parts along a new last dimension of 2."""
    parts = a.real
    return backend_of(parts).as_strided(parts, a.shape + (2,), parts.strides + (parts.itemsize,))


def _as_complex(xp, a):
    ctype = xp.complex64 if a.dtype == xp.float32 else xp.complex128
    return a.view(ctype)[..., 0]


_view_as_real = defop("ViewAsRealBackward0", _as_real, dtype="same", view=True, wirtinger=False,
                      grads={"self": lambda grad: view_as_complex(grad.contiguous())})
_view_as_complex = defop("ViewAsComplexBackward0", _as_complex, dtype="same", view=True,
                         wirtinger=False, grads={"self": lambda grad: view_as_real(grad)})


@public("function", signatures=("view_as_real(Tensor input)",))
def view_as_real(input):
    if _has_bit(input):
        raise RuntimeError(
            "view_as_real doesn't work on unresolved conjugated tensors.  To resolve the "
            "conjugate tensor so you can view it as real, use self.resolve_conj(); however, be "
            "warned that the resulting tensor will NOT alias the original.")
    _complex_only(input, "view_as_real")
    return _view_as_real(input)


@public("function", signatures=("view_as_complex(Tensor input)",))
def view_as_complex(input):
    d = input._data
    if input.dtype is dtypes.float16:
        raise NotImplementedError("view_as_complex: glassgrad has no complex32 (torch.chalf)")
    if not input.dtype.is_floating_point:
        raise RuntimeError("view_as_complex is only supported for half, float and double "
                           "tensors, but got a tensor of scalar type: "
                           f"{dtypes.SCALAR_NAMES[input.dtype.name]}")
    if d.ndim == 0 or d.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    strides = input.stride()        # (torch's: NumPy's strides of an empty array may be 0)
    if strides[-1] != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(s % 2 for s, n in zip(strides[:-1], d.shape[:-1]) if n > 1):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    return _view_as_complex(input)


def _real(self):
    return select(view_as_real(resolve_conj(self)), -1, 0) if self.dtype.is_complex else self


def _imag(self):
    if not self.dtype.is_complex:
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    out = select(view_as_real(resolve_conj(self)), -1, 1)
    if _has_bit(self):      # torch's imaginary part of a conjugate: negative bit set
        _set_neg_bit(out)
    return out


public("function", name="real", signatures=("real(Tensor input)",))(_real)
public("function", name="imag", signatures=("imag(Tensor input)",))(_imag)
public("method", name="real")(property(_real))
public("method", name="imag")(property(_imag))


# -- conjugation -----------------------------------------------------------------------------
_conj = defop("ConjBackward0", "conj", dtype="same", wirtinger=False,
              grads={"self": lambda grad: conj_physical(grad)})
_conj_physical = defop("ConjPhysicalBackward0", "conj", dtype="same", wirtinger=False,
                       grads={"self": lambda grad: conj_physical(grad)})
_conj_physical_ = defop("ConjPhysicalBackward1", "conj", dtype="same", wirtinger=False,
                        grads={"self": lambda grad: conj_physical(grad)})


class _ConjAlias(VersionCounter):
    """The version counter of conj()'s result (shared with its views and detach()es): each
    in-place write into them bumps it, and the bump writes the conjugate back into the input's
    memory (bumping the input's counter too), as a write through torch's lazy conj view."""
    __slots__ = ("_v", "_data", "_base_data", "_base_counter", "_base")

    def __init__(self, view, base):
        self._v = 0
        self._data, self._base_data = view._data, base._data
        self._base_counter, self._base = base._version_counter, weakref.ref(base)

    @property
    def version(self):
        return self._v

    @version.setter
    def version(self, value):
        self._v = value
        base = self._base()
        if state.grad and base is not None and base.requires_grad:
            if base.grad_fn is None:
                raise RuntimeError("a view of a leaf Variable that requires grad is being used "
                                   "in an in-place operation.")
            raise NotImplementedError("in-place writes into conj() of a tensor that requires "
                                      "grad: glassgrad's conj() is no view, it cannot rebase "
                                      "its input's history")
        xp.conjugate(self._data, out=self._base_data)
        self._base_counter.version += 1


@public("function", "method", signatures=("conj(Tensor input)",))
def conj(input):
    """torch's conj: the tensor itself for a real dtype; for a complex one, the conjugate with
    torch's conjugate bit flipped (computed, writes reaching the input: see the module
    docstring)."""
    if not input.dtype.is_complex:
        return input
    out = _conj(input)
    if not _has_bit(input):
        _set_bit(out)
    out._version_counter = _ConjAlias(out, input)
    return out


@public("function", "method", signatures=("conj_physical(Tensor input, *, Tensor out=None)",))
def conj_physical(input):
    return _conj_physical(input) if input.dtype.is_complex else input


@public("function", "method", signatures=("conj_physical_(Tensor input)",))
def conj_physical_(input):
    return apply_inplace(_conj_physical_, input, (input,), {})


@public("function", "method", signatures=("is_neg(Tensor input)",))
def is_neg(input):
    return _has_neg_bit(input)


@public("function", "method", signatures=("resolve_neg(Tensor input)",))
def resolve_neg(input):
    """A tensor without the negative bit: a clone (CloneBackward0) of one that has it."""
    return clone(input) if _has_neg_bit(input) else input


@public("function", "method", signatures=("is_conj(Tensor input)",))
def is_conj(input):
    return _has_bit(input)


@public("function", "method", signatures=("resolve_conj(Tensor input)",))
def resolve_conj(input):
    """A tensor without the conjugate bit: a clone (CloneBackward0) of one that has it."""
    return clone(input) if _has_bit(input) else input


@public("function", "method", signatures=("is_complex(Tensor input)",))
def is_complex(input):
    return input.dtype.is_complex


def _adjoint(self):
    return conj(self.transpose(-2, -1))


def _hermitian(self):
    if self.dim() not in (0, 2):
        raise RuntimeError("tensor.H is only supported on matrices (2-D tensors). Got "
                           f"{self.dim()}-D tensor.")
    return conj(self.t()) if self.dim() == 2 else conj(self)


public("method", name="adjoint")(_adjoint)
public("function", name="adjoint", signatures=("adjoint(Tensor input)",))(_adjoint)
public("method", name="mH")(property(_adjoint))
public("method", name="H")(property(_hermitian))


# -- angle, polar, complex -------------------------------------------------------------------
def _angle_forward(xp, self):
    if self.dtype.kind in "biu":
        self = self.astype(dtypes.get_default_dtype().np)
    return xp.angle(self)


def _angle_grad(grad, self):
    if not self.dtype.is_complex:
        return grad * 0.0
    return (grad * self / self.abs().pow(2) * 1j).masked_fill(self == 0, 0.0)


_angle = defop("angle", _angle_forward, dtype="same", variants=("function", "method"),
               wirtinger=False, grads={"self": _angle_grad})


def _polar_forward(xp, abs, angle):
    out = xp.empty(abs.shape if abs.ndim >= angle.ndim else angle.shape,
                   xp.complex64 if abs.dtype == xp.float32 else xp.complex128)
    out.real, out.imag = abs * xp.cos(angle), abs * xp.sin(angle)
    return out


def _polar_abs_grad(grad, result):
    return (grad.conj_physical() * result.sgn()).real


def _polar_angle_grad(grad, result):
    return (grad.conj_physical() * (result * 1j)).real


_polar = defop("PolarBackward0", _polar_forward, ("abs", "angle"), dtype="same", wirtinger=False,
               grads={"abs": _polar_abs_grad, "angle": _polar_angle_grad})


def _complex_forward(xp, real, imag):
    out = xp.empty(xp.broadcast_shapes(real.shape, imag.shape),
                   xp.complex64 if real.dtype == xp.float32 else xp.complex128)
    out.real, out.imag = real, imag
    return out


_complex = defop("ComplexBackward0", _complex_forward, ("real", "imag"), dtype="same",
                 wirtinger=False, grads={"real": lambda grad, real: _real(grad),   # torch's
                                         "imag": lambda grad, imag: _imag(grad)})  # saves



def _check_parts(a, b, what):
    if a.dtype not in (dtypes.float32, dtypes.float64) or b.dtype not in (
            dtypes.float32, dtypes.float64):
        if a.dtype is dtypes.float16 and b.dtype is dtypes.float16:
            raise NotImplementedError(f"{what}: glassgrad has no complex32 (torch.chalf)")
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got "
                           f"{dtypes.SCALAR_NAMES[a.dtype.name]} and "
                           f"{dtypes.SCALAR_NAMES[b.dtype.name]}")
    if a.dtype is not b.dtype:
        raise RuntimeError(f"Expected object of scalar type {dtypes.SCALAR_NAMES[a.dtype.name]} "
                           f"but got scalar type {dtypes.SCALAR_NAMES[b.dtype.name]} for second "
                           "argument")


@public("function", signatures=("polar(Tensor abs, Tensor angle, *, Tensor out=None)",))
def polar(abs, angle):
    _check_parts(abs, angle, "polar")
    return _polar(abs, angle)


@public("function", signatures=("complex(Tensor real, Tensor imag, *, Tensor out=None)",))
def complex(real, imag):   # noqa: A001 - torch's name
    _check_parts(real, imag, "complex")
    return _complex(real, imag)


publish(globals())
