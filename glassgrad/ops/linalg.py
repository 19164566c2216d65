"""Linear algebra: matrix products (mm, mv, dot, bmm; matmul, tensordot, einsum composed from
them as ATen does), diagonals and triangles, and glassgrad.linalg's factorizations and solvers.

Factorizations run on numpy.linalg; their outputs take LAPACK's column-major layout (torch's
strides) and their backward formulas are compositions of glassgrad ops, so they differentiate
again. The LU factors that det, slogdet and solve save are computed as LAPACK's getrf does
(backend/kernels/lapack.py).

Complex inputs: a holomorphic factorization's formulas (inv, det, solve, matrix products) are
its real derivatives, which the registry conjugates for complex nodes; the others (cholesky,
qr, svd, eigh, eig, slogdet, pinv, vdot) write torch's complex formulas (conjugate
transposes, wirtinger=False), including its refusals of phase-dependent losses. eig's
eigenvectors are geev's (NumPy's LAPACK); torch's MKL may return a real matrix's eigenvector
negated (a column of the same unit vector), which no LAPACK convention fixes.
"""
import math

from .. import _runtime, dtypes
from .._autograd.grad_mode import state
from .._tensor import Tensor, _wrap_dim
from .._creation import ones, zeros
from ..backend import backend_of, reduced_floats, xp
from ..backend.kernels.lapack import (_colmajor, _lapack_view, _lu_factor, _lu_info, _lu_solve,
                                      _perm_sign)
from . import _formula, public, publish
from .registry import _C10_NAMES, _SCALAR_NAMES as _TYPE_NAMES, _return_type, apply_inplace, \
    broadcast_shapes, defop
from .shape import (_squeeze_result, _t, _transpose, _unsafe_view_of, _unsqueeze, cat,
                    contiguous, expand, expanded_size, permute, reshape, view)

def _in_float(forward):
    """A product's forward as torch's CPU GEMMs run it: float16 and bfloat16 operands
    accumulate in float32, the result rounded once (NumPy's float16 matmul accumulates in
    half; ml_dtypes' bfloat16 matmul returns float32). ``forward``: a function (xp, *arrays,
    **attrs), or the name of the namespace's function (called without another frame)."""
    if isinstance(forward, str):
        name = forward

        def forward(xp, *arrays, **attrs):
            return getattr(xp, name)(*arrays, **attrs)
    else:
        name = None

    def run(xp, *arrays, **attrs):
        if arrays[0].dtype not in reduced_floats:
            return (getattr(xp, name)(*arrays, **attrs) if name is not None else
                    forward(xp, *arrays, **attrs))
        return _widened(forward, xp, arrays, attrs)
    return run


def _widened(forward, xp, arrays, attrs):
    """forward on float16/bfloat16 ``arrays`` computed in float32, rounded once to their
    dtype (see _in_float)."""
    return xp.asarray(forward(xp, *(a.astype(xp.float32) for a in arrays), **attrs)).astype(
        arrays[0].dtype)


# arrays=True: the formulas run on NumPy arrays too (grad mode off: see OpDef.call)
def _product(xp, self, mat2):
    """A matrix product. NumPy's stacked matmul runs one small product per matrix, so two
    kinds of stack (what vmap's per-sample gradients make) go another way: a stack of outer
    products (inner size 1) is one einsum (one product per element, summed from +0 as a GEMM's
    sum starts, so a -0 product comes out +0; in one pass, where a broadcast multiply and an
    added 0 take two), and a stack times one matrix repeated (a stride-0 stack) is one folded
    product, as ATen's matmul folds it."""
    if self.ndim >= 2 and mat2.ndim >= 2 and max(self.ndim, mat2.ndim) > 2:
        if self.shape[-1] == 1 == mat2.shape[-2]:
            return xp.einsum("...ik,...kj->...ij", self, mat2)
        if (self.ndim == mat2.ndim == 3 and mat2.strides[0] == 0
                and self.shape[0] == mat2.shape[0]):
            n, k = self.shape[1:]
            return xp.matmul(self.reshape(-1, k), mat2[0]).reshape(self.shape[0], n, -1)
        if _transposed_stack(self, mat2):
            mat2 = xp.ascontiguousarray(mat2)
    return xp.matmul(self, mat2)


def _transposed_stack(self, mat2):
    """Whether a stack of row-major matrices times a stack of transposed ones (q @ k.mT) is
    faster with the transposed ones copied row-major: OpenBLAS's GEMM of a row-major by a
    transposed 64x64 matrix runs ~1.5x as long as by a row-major one, which the copy repays
    for stacks of at least 32 rows times at most 64x64 (16 to 64 columns) real floats, with
    2**18 multiply-adds or more in all (measured on this machine: docs/performance.md, issue
    17's kernels; 8 stacks of 64x64: 0.78x float32, 0.87x float64; outside that window the
    copy costs more than it saves)."""
    m, k, n = self.shape[-2], mat2.shape[-2], mat2.shape[-1]
    size = mat2.itemsize
    return (m >= 32 and k <= 64 and 16 <= n <= 64 and self.size * n >= 1 << 18
            and mat2.dtype in _GEMM_COPIES
            and mat2.strides[-2] == size and mat2.strides[-1] == size * k
            and self.strides[-1] == self.itemsize and 0 not in mat2.strides[:-2])


_GEMM_COPIES = (xp.dtype(xp.float32), xp.dtype(xp.float64))


_matmul = _in_float("matmul")
_stacked_matmul = _in_float(_product)     # (bmm: the stacks vmap makes)
_mm = defop("MmBackward0", _matmul, ("self", "mat2"),
            dtype="same", arrays=True,
            grads={"self": lambda grad, mat2, self_sym_sizes: _mm.call(grad, _t.call(mat2)),
                   "mat2": lambda grad, self, mat2_sym_sizes: _mm.call(_t.call(self), grad)},
            explain="d({self} @ {mat2})/d{self} = grad @ {mat2}.T, d/d{mat2} = {self}.T @ grad")
_mv = defop("MvBackward0", _in_float("matmul"), ("self", "vec"),
            dtype="same", arrays=True,
            grads={"self": lambda grad, vec: _unsqueeze.call(grad, dim=1) * vec,
                   "vec": lambda grad, self: _mv.call(_t.call(self), grad)},
            explain="d({self} @ {vec})/d{self} = outer(grad, {vec}), d/d{vec} = {self}.T @ grad")
_dot = defop("DotBackward0", _in_float("dot"), ("self", "tensor"),
             dtype="same", arrays=True,
             grads={"self": lambda grad, tensor: grad * tensor,
                    "tensor": lambda grad, self: grad * self},
             explain="d(dot({self}, {tensor}))/d{self} = {tensor}, d/d{tensor} = {self}")
_bmm = defop("BmmBackward0", _stacked_matmul, ("self", "mat2"),
             dtype="same", arrays=True,
             grads={"self": lambda grad, mat2: _bmm.call(grad, _transpose.call(mat2, dim0=1,
                                                                               dim1=2)),
                    "mat2": lambda grad, self: _bmm.call(_transpose.call(self, dim0=1, dim1=2),
                                                         grad)},
             explain="d(bmm({self}, {mat2}))/d{self} = grad @ {mat2}.mT, "
                     "d/d{mat2} = {self}.mT @ grad")


def _same_dtype(a, b):
    if a.dtype is not b.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{_C10_NAMES[a.dtype.name]} != {_C10_NAMES[b.dtype.name]}")


def _no_bool(kernel, a):
    """torch's BLAS kernels have no bool version."""
    if a.dtype is dtypes.bool:
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


def _no_out_dtype(name, out_dtype):
    if out_dtype is not None:
        raise NotImplementedError(f"glassgrad: {name}(..., out_dtype) is not supported")


@public("function", "method", signatures=(
    "mm(Tensor input, Tensor mat2, *, Tensor out=None)",
    "mm(Tensor input, Tensor mat2, ScalarType out_dtype, *, Tensor out=None)"), method_signatures=(
    "mm(Tensor self, Tensor mat2)",))
def mm(input, mat2, out_dtype=None):
    _no_out_dtype("mm", out_dtype)
    if not (input._batched or mat2._batched):   # the usual case, read off the arrays
        a, b = input._data, mat2._data
        if (a.ndim == 2 and b.ndim == 2 and a.shape[1] == b.shape[0] and a.dtype is b.dtype
                and a.dtype.kind != "b"):
            return _mm(input, mat2)
    if input.dim() != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.dim() != 2:
        raise RuntimeError("mat2 must be a matrix")
    if input.shape[1] != mat2.shape[0]:
        (a, b), (c, d) = input.shape, mat2.shape
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a}x{b} and {c}x{d})")
    _same_dtype(input, mat2)
    _no_bool("addmm_impl_cpu_", input)
    return _mm(input, mat2)


@public("function", "method", signatures=(
    "mv(Tensor input, Tensor vec, *, Tensor out=None)",))
def mv(input, vec):
    if input.dim() != 2 or vec.dim() != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {input.dim()}, "
                           f"{vec.dim()}")
    if input.shape[1] != vec.shape[0]:
        (a, b), (c,) = input.shape, vec.shape
        raise RuntimeError(f"size mismatch, got input ({a}), mat ({a}x{b}), vec ({c})")
    if input.dtype is not vec.dtype:     # torch runs mv as addmv(out, self, vec)
        m, v = _TYPE_NAMES[input.dtype.name], _TYPE_NAMES[vec.dtype.name]
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {v}, {m}, and "
                           f"{v}")
    _no_bool("addmv_impl_cpu", input)
    return _mv(input, vec)


def _check_dot(input, other):
    """torch's checks for dot and vdot (the same texts)."""
    if input.dim() != 1 or other.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.dim()}D and {other.dim()}D "
                           "tensors")
    if input.dtype is not other.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found "
                           f"{_TYPE_NAMES[input.dtype.name]} and {_TYPE_NAMES[other.dtype.name]}")
    n, m = input.numel(), other.numel()
    if n != m:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to "
                           f"have the same number of elements, but got {n} and {m} elements "
                           "respectively")
    _no_bool("dot", input)


@public("function", "method", signatures=(
    "dot(Tensor input, Tensor tensor, *, Tensor out=None)",))
def dot(input, tensor):
    _check_dot(input, tensor)
    return _dot(input, tensor)


@public("function", "method", signatures=(
    "bmm(Tensor input, Tensor mat2, *, Tensor out=None)",
    "bmm(Tensor input, Tensor mat2, ScalarType out_dtype, *, Tensor out=None)"), method_signatures=(
    "bmm(Tensor self, Tensor mat2)",))
def bmm(input, mat2, out_dtype=None):
    _no_out_dtype("bmm", out_dtype)
    if input.dim() != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if mat2.dim() != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    b, n, k = input.shape
    if mat2.shape[:2] != (b, k):
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{b}, {k}] but got: [{mat2.shape[0]}, {mat2.shape[1]}].")
    if input.dtype is not mat2.dtype:
        raise RuntimeError(f"expected scalar type {_TYPE_NAMES[input.dtype.name]} but found "
                           f"{_TYPE_NAMES[mat2.dtype.name]}")
    _no_bool("bmm", input)
    return _bmm(input, mat2)


def _should_fold(t1, t2):
    """ATen's should_fold: fold the batch of the bigger operand into an mm/mv when it is free."""
    larger_first = t1.dim() >= t2.dim()
    big = t1 if larger_first else t2.transpose(-1, -2)
    small_dim = t2.dim() if larger_first else t1.dim()
    if not (big.dim() >= 3 and small_dim <= 2):
        return False
    if (t2 if larger_first else t1).requires_grad:
        return True
    if t1.dim() == 2:
        return False
    if big.numel() == 0:
        return True
    shape, strides = big.shape, big.stride()
    return all(strides[i] == strides[i + 1] * shape[i + 1] for i in range(big.dim() - 2))


@public("function", "method", "linalg", "__matmul__", signatures=(
    "matmul(Tensor input, Tensor other, *, Tensor out=None)",))
def matmul(input, other):
    d1, d2 = input.dim(), other.dim()
    if d1 == 0 or d2 == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                           f"{d1}D and {d2}D")
    if d1 == 1 and d2 == 1:
        return _dot_step(input, other)
    if d1 == 2 and d2 == 1:
        return _mv_step(input, other)
    if d1 == 1 and d2 == 2:     # ATen squeezes the fresh mm result in place: one version bump
        out = _squeeze_result(_mm_step(input.unsqueeze(0), other), dim=0)
        out._version_counter.version += 1
        return out
    if d1 == 2 and d2 == 2:
        return _mm_step(input, other)
    if _should_fold(input, other):
        flip = d2 > d1
        t1 = other.transpose(-1, -2) if flip else input
        t2 = (input.t() if d1 == 2 else input) if flip else other
        out_shape = list(t1.shape[:-1])
        folded = _reshape_step(t1, (-1, t1.shape[-1]))
        if t2.dim() == 2:
            out_shape.append(t2.shape[1])
            out = _unsafe_view_of(_mm_step(folded, t2), out_shape)
            return contiguous(out.transpose(-1, -2)) if flip else out
        return _unsafe_view_of(_mv_step(folded, t2), out_shape)
    n = input.shape[-2] if d1 > 1 else 1
    m1 = input.shape[-1]
    m2 = other.shape[-2] if d2 > 1 else other.shape[0]
    p = other.shape[-1] if d2 > 1 else 1
    batch = broadcast_shapes(tuple(input.shape[:-2]), tuple(other.shape[:-2]))
    nb = 1
    for s in batch:
        nb *= s
    a = _reshape_step(expand(input, (*batch, n, m1)), (nb, n, m1))
    b = _reshape_step(expand(other, (*batch, m2, p) if d2 > 1 else (*batch, m2)), (nb, m2, p))
    out_shape = list(batch) + ([n] if d1 > 1 else []) + ([p] if d2 > 1 else [])
    return _unsafe_view_of(_bmm_step(a, b), out_shape)



# -- products: outer, inner, tensordot, kron, einsum, vdot, addmm, addmv, baddbmm -------------
def _maybe_scale(grad, factor):
    return grad if factor == 1 else grad * factor


def _add_scaled(self, prod, beta, alpha):
    """beta * self + alpha * prod; beta == 0 ignores self (nan and inf included), as torch."""
    out = prod if alpha == 1 else prod * alpha
    return out if beta == 0 else out + (self if beta == 1 else self * beta)


_vdot = defop("VdotBackward0", _in_float("vdot"), ("self", "other"),
              dtype="same", wirtinger=False,     # (torch's complex formulas: conj(self) . other)
              grads={"self": lambda grad, other: grad.conj() * other,
                     "other": lambda grad, self: grad * self})


def _add_product(xp, self, a, b, beta, alpha):
    """addmm's, addmv's and baddbmm's forward: beta * self + alpha * (a @ b) (_add_scaled),
    in float32 for float16/bfloat16 operands (see _in_float)."""
    if self.dtype in reduced_floats:
        return _widened(_add_product, xp, (self, a, b), {"beta": beta, "alpha": alpha})
    return _add_scaled(self, xp.matmul(a, b), beta, alpha)


_addmm = defop(
    "AddmmBackward0", _add_product, ("self", "mat1", "mat2"),
    dtype="same",
    grads={"self": lambda grad, beta: _maybe_scale(grad, beta),
           "mat1": lambda grad, mat2, mat1_sym_sizes, alpha: _maybe_scale(grad.mm(mat2.t()),
                                                                           alpha),
           "mat2": lambda grad, mat1, mat2_sym_sizes, alpha: _maybe_scale(mat1.t().mm(grad),
                                                                           alpha)})
_addmv = defop(
    "AddmvBackward0", _add_product, ("self", "mat", "vec"), dtype="same",
    grads={"self": lambda grad, beta: _maybe_scale(grad, beta),
           "mat": lambda grad, vec, alpha: _maybe_scale(grad.unsqueeze(1) * vec, alpha),
           "vec": lambda grad, mat, alpha: _maybe_scale(mat.t().mv(grad), alpha)})
_baddbmm = defop(
    "BaddbmmBackward0", _add_product, ("self", "batch1", "batch2"),
    dtype="same",
    grads={"self": lambda grad, beta: _maybe_scale(grad, beta),
           "batch1": lambda grad, batch2, alpha: _maybe_scale(grad.bmm(batch2.transpose(1, 2)),
                                                              alpha),
           "batch2": lambda grad, batch1, alpha: _maybe_scale(batch1.transpose(1, 2).bmm(grad),
                                                              alpha)})


def _name(t):
    return _TYPE_NAMES[t.dtype.name]


def _broadcast_to(self, shape):
    """self must expand to ``shape`` (torch's expand error otherwise)."""
    expanded_size(self, shape)


def _addmm_checks(input, mat1, mat2):
    for name, m in (("mat1", mat1), ("mat2", mat2)):
        if m.dim() != 2:
            raise RuntimeError(f"{name} must be a matrix, got {m.dim()}-D tensor")
    if mat1.shape[1] != mat2.shape[0]:
        (a, b), (c, d) = mat1.shape, mat2.shape
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a}x{b} and {c}x{d})")
    if input.dtype is not mat2.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {_name(input)} and "
                           f"{_name(mat2)}")
    if mat1.dtype is not mat2.dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {_name(mat1)} and "
                           f"{_name(mat2)}")
    _broadcast_to(input, (mat1.shape[0], mat2.shape[1]))
    _no_bool("addmm_impl_cpu_", mat1)


@public("function", "method", signatures=(
    "addmm(Scalar beta, Tensor input, Scalar alpha, Tensor mat1, Tensor mat2, *, "
    "Tensor out=None)|deprecated",
    "addmm(Scalar beta, Tensor input, Tensor mat1, Tensor mat2, *, Tensor out=None)|deprecated",
    "addmm(Tensor input, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1, "
    "Tensor out=None)",
    "addmm(Tensor input, Tensor mat1, Tensor mat2, ScalarType out_dtype, *, Scalar beta=1, "
    "Scalar alpha=1, Tensor out=None)"), method_signatures=(
    "addmm(Tensor self, Scalar beta, Scalar alpha, Tensor mat1, Tensor mat2)|deprecated",
    "addmm(Tensor self, Scalar beta, Tensor mat1, Tensor mat2)|deprecated",
    "addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1)"))
def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    _addmm_checks(input, mat1, mat2)
    return _addmm(input, mat1, mat2, beta=beta, alpha=alpha)


def _addmv_checks(input, mat, vec):
    if mat.dim() != 2 or vec.dim() != 1 or input.dim() > 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input.dim()}, {mat.dim()}, "
                           f"{vec.dim()}")
    n, m = mat.shape
    if vec.shape[0] != m or input.numel() not in (1, n):
        raise RuntimeError(f"size mismatch, got input ({input.shape[0] if input.dim() else 1}), "
                           f"mat ({n}x{m}), vec ({vec.shape[0]})")
    if not (input.dtype is mat.dtype is vec.dtype):
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got "
                           f"{_name(input)}, {_name(mat)}, and {_name(vec)}")


@public("function", "method", signatures=(
    "addmv(Scalar beta, Tensor input, Scalar alpha, Tensor mat, Tensor vec, *, "
    "Tensor out=None)|deprecated",
    "addmv(Scalar beta, Tensor input, Tensor mat, Tensor vec, *, Tensor out=None)|deprecated",
    "addmv(Tensor input, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1, "
    "Tensor out=None)"), method_signatures=(
    "addmv(Tensor self, Scalar beta, Scalar alpha, Tensor mat, Tensor vec)|deprecated",
    "addmv(Tensor self, Scalar beta, Tensor mat, Tensor vec)|deprecated",
    "addmv(Tensor self, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1)"))
def addmv(input, mat, vec, *, beta=1, alpha=1):
    _addmv_checks(input, mat, vec)
    return _addmv(input, mat, vec, beta=beta, alpha=alpha)


def _baddbmm_checks(input, batch1, batch2, inplace=False):
    _wrap_dim(2, batch2.dim())      # torch reads batch2.size(2) before its checks
    for name, b in (("batch1", batch1), ("batch2", batch2)):
        if b.dim() != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    bs, n, k = batch1.shape
    if batch2.shape[:2] != (bs, k):
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{bs}, {k}] but got: [{batch2.shape[0]}, {batch2.shape[1]}].")
    c10 = [_C10_NAMES[t.dtype.name] for t in (input, batch1, batch2)]
    if batch1.dtype is not input.dtype:
        raise RuntimeError(f"Input dtypes must be the same, got: input {c10[0]}, batch1: "
                           f"{c10[1]}, batch2: {c10[2]}")
    if batch2.dtype is not input.dtype:
        raise RuntimeError(f"Bad in-place call: input tensor dtype {c10[0]} and output tensor "
                           f"dtype {c10[2]} should match" if inplace else
                           f"expected scalar type {_name(input)} but found {_name(batch2)}")
    _broadcast_to(input, (bs, n, batch2.shape[2]))


@public("function", "method", signatures=(
    "baddbmm(Scalar beta, Tensor input, Scalar alpha, Tensor batch1, Tensor batch2, *, "
    "Tensor out=None)|deprecated",
    "baddbmm(Scalar beta, Tensor input, Tensor batch1, Tensor batch2, *, "
    "Tensor out=None)|deprecated",
    "baddbmm(Tensor input, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1, "
    "Tensor out=None)",
    "baddbmm(Tensor input, Tensor batch1, Tensor batch2, ScalarType out_dtype, *, Scalar beta=1, "
    "Scalar alpha=1, Tensor out=None)"), method_signatures=(
    "baddbmm(Tensor self, Scalar beta, Scalar alpha, Tensor batch1, Tensor batch2)|deprecated",
    "baddbmm(Tensor self, Scalar beta, Tensor batch1, Tensor batch2)|deprecated",
    "baddbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1)"))
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    _baddbmm_checks(input, batch1, batch2)
    return _baddbmm(input, batch1, batch2, beta=beta, alpha=alpha)


def _inplace(op, self, a, b, shape, beta, alpha):
    """x.addmm_(...) and the like, once the out-of-place checks passed: x must have the
    result's shape (no broadcasting into it)."""
    if tuple(self.shape) != shape:
        raise RuntimeError(f"Bad in-place call: input tensor size {list(self.shape)} and "
                           f"output tensor size {list(shape)} should match")
    return apply_inplace(op, self, (self, a, b), {"beta": beta, "alpha": alpha})


def _inplace_signatures(name, a, b):
    return (f"{name}(Tensor self, Scalar beta, Scalar alpha, Tensor {a}, Tensor {b})|deprecated",
            f"{name}(Tensor self, Scalar beta, Tensor {a}, Tensor {b})|deprecated",
            f"{name}(Tensor self, Tensor {a}, Tensor {b}, *, Scalar beta=1, Scalar alpha=1)")


@public("method", method_signatures=_inplace_signatures("addmm_", "mat1", "mat2"))
def addmm_(input, mat1, mat2, *, beta=1, alpha=1):
    _addmm_checks(input, mat1, mat2)
    return _inplace(_addmm, input, mat1, mat2, (mat1.shape[0], mat2.shape[1]), beta, alpha)


@public("function", "method", signatures=(
    "addmv_(Scalar beta, Tensor input, Scalar alpha, Tensor mat, Tensor vec)|deprecated",
    "addmv_(Scalar beta, Tensor input, Tensor mat, Tensor vec)|deprecated",
    "addmv_(Tensor input, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1)"),
    method_signatures=_inplace_signatures("addmv_", "mat", "vec"))
def addmv_(input, mat, vec, *, beta=1, alpha=1):
    _addmv_checks(input, mat, vec)
    return _inplace(_addmv, input, mat, vec, (mat.shape[0],), beta, alpha)


@public("method", method_signatures=_inplace_signatures("baddbmm_", "batch1", "batch2"))
def baddbmm_(input, batch1, batch2, *, beta=1, alpha=1):
    _baddbmm_checks(input, batch1, batch2, inplace=True)
    return _inplace(_baddbmm, input, batch1, batch2,
                    (batch1.shape[0], batch1.shape[1], batch2.shape[2]), beta, alpha)


@public("function", "method", signatures=(
    "vdot(Tensor input, Tensor other, *, Tensor out=None)",))
def vdot(input, other):
    _check_dot(input, other)
    return _vdot(input, other)


@public("function", "method", signatures=(
    "outer(Tensor input, Tensor vec2, *, Tensor out=None)",))
@public("method", name="ger", method_signatures=(
    "ger(Tensor self, Tensor vec2)",))
def outer(input, vec2):
    for name, v in (("self", input), ("vec2", vec2)):
        if v.dim() != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {v.dim()}-D")
    return reshape(input, (-1, 1)) * vec2      # ATen's composite: one MulBackward0


@public("function")
def tensordot(a, b, dims=2):
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        dims_a, dims_b = list(range(-dims, 0)), list(range(dims))
    else:
        dims_a, dims_b = ([d] if isinstance(d, int) else list(d) for d in dims)
    if len(dims_a) != len(dims_b):
        raise RuntimeError("both dimension lists should have same length")
    ca = [_wrap_dim(d, a.dim()) for d in dims_a]
    cb = [_wrap_dim(d, b.dim()) for d in dims_b]
    for da, db, i, j in zip(ca, cb, dims_a, dims_b):
        if a.shape[da] != b.shape[db]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size "
                               f"{a.shape[da]} in dim {i} and second has size {b.shape[db]} in "
                               f"dim {j}")
    free_a = [d for d in range(a.dim()) if d not in ca]
    free_b = [d for d in range(b.dim()) if d not in cb]
    csize = _prod(a.shape[d] for d in ca)
    if not free_a and not free_b:
        return view(dot(reshape(permute(a, ca), (csize,)), reshape(permute(b, cb), (csize,))), ())
    left = reshape(permute(a, free_a + ca), (_prod(a.shape[d] for d in free_a), csize))
    right = reshape(permute(b, cb + free_b), (csize, _prod(b.shape[d] for d in free_b)))
    return reshape(mm(left, right), [a.shape[d] for d in free_a] + [b.shape[d] for d in free_b])


@public("function", "method", signatures=(
    "inner(Tensor input, Tensor other, *, Tensor out=None)",))
def inner(input, other):
    if input.dim() == 0 or other.dim() == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but "
                           f"got shapes {list(input.shape)} and {list(other.shape)}")
    if input.dtype is not other.dtype:
        raise RuntimeError("both inputs should have same dtype")
    return tensordot(input, other, ([-1], [-1]))


@public("function", "method", signatures=(
    "kron(Tensor input, Tensor other, *, Tensor out=None)",))
def kron(input, other):
    nd = max(input.dim(), other.dim())
    a_shape = (1,) * (nd - input.dim()) + tuple(input.shape)
    b_shape = (1,) * (nd - other.dim()) + tuple(other.shape)
    a = _unsafe_view_of(input, [s for n in a_shape for s in (n, 1)])   # as ATen: not views
    b = _unsafe_view_of(other, [s for n in b_shape for s in (1, n)])
    return _unsafe_view_of(a * b, [m * n for m, n in zip(a_shape, b_shape)])


def _prod(sizes):
    out = 1
    for s in sizes:
        out *= s
    return out


def _einsum_terms(equation, operands):
    lhs, arrow, rhs = equation.replace(" ", "").partition("->")
    terms = lhs.split(",")
    if len(terms) > len(operands):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the "
                           "equation")
    if len(terms) < len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the "
                           "equation")
    ell = max((op.dim() - len(t.replace("...", "")) for t, op in zip(terms, operands)
               if "..." in t), default=0)
    ell_labels = [chr(0x2460 + i) for i in range(ell)]     # one label per ellipsis dim
    out_terms = []
    for i, (t, op) in enumerate(zip(terms, operands)):
        if "..." in t:
            head, _, tail = t.partition("...")
            n = op.dim() - len(head) - len(tail)
            labels = list(head) + ell_labels[ell - n:] + list(tail)
        else:
            labels = list(t)
            if len(labels) != op.dim():
                raise RuntimeError(f"einsum(): the number of subscripts in the equation "
                                   f"({len(labels)}) does not match the number of dimensions "
                                   f"({op.dim()}) for operand {i} and no ellipsis was given")
        out_terms.append(labels)
    seen = [l for t in out_terms for l in t]
    if arrow:
        head, _, tail = rhs.partition("...")
        out = list(head) + (ell_labels if "..." in rhs else []) + list(tail)
        for l in out:
            if l not in seen:
                raise RuntimeError(f"einsum(): output subscript {l} does not appear in the "
                                   f"equation for any input operand")
    else:
        out = ell_labels + sorted(l for l in set(seen) if seen.count(l) == 1
                                  and l not in ell_labels)
    return out_terms, out


@public("function")
def einsum(equation, *operands):
    """ATen's plan: each operand's diagonals taken and permuted to one label order (outputs
    first), labels no one else needs summed, then pairwise products (mul, or bmm + view)."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    terms, out = _einsum_terms(equation, operands)
    order = out + [l for t in terms for l in dict.fromkeys(t) if l not in out]
    order = list(dict.fromkeys(order))
    sizes = {}
    for t, op in zip(terms, operands):
        for l, s in zip(t, op.shape):
            if sizes.get(l, 1) == 1:
                sizes[l] = s
    prepared = []
    for i, (t, op) in enumerate(zip(terms, operands)):
        t = list(t)
        while len(set(t)) < len(t):          # a repeated label: its diagonal
            l = next(l for l in t if t.count(l) > 1)
            p = t.index(l)
            q = t.index(l, p + 1)
            op = diagonal(op, 0, p, q)
            t = [x for k, x in enumerate(t) if k not in (p, q)] + [l]
        labels = sorted(t, key=order.index)
        op = permute(op, [t.index(l) for l in labels])
        others = {l for k, u in enumerate(terms) if k != i for l in u}
        gone = [d for d, l in enumerate(labels) if l not in out and l not in others]
        if gone:
            op = op.sum(gone)
            labels = [l for d, l in enumerate(labels) if d not in gone]
        if any(op.shape[d] != sizes[l] for d, l in enumerate(labels)):
            op = expand(op, [sizes[l] for l in labels])
        prepared.append((op, labels))
    cur, cl = prepared[0]
    for k, (nxt, nl) in enumerate(prepared[1:], 2):
        later = set(out) | {l for _, u in prepared[k:] for l in u}
        batch = [l for l in cl if l in nl and l in later]
        contr = [l for l in cl if l in nl and l not in later]
        a_only = [l for l in cl if l not in nl]
        b_only = [l for l in nl if l not in cl]
        if not contr:       # no sum: a broadcasting product in the common label order
            labels = sorted(set(cl) | set(nl), key=order.index)
            cur = _align(cur, cl, labels) * _align(nxt, nl, labels)
            cl = labels
            continue
        a_sizes = dict(zip(cl, cur.shape))
        b_sizes = dict(zip(nl, nxt.shape))
        nb, na, nc = (_prod(a_sizes[l] for l in g) for g in (batch, a_only, contr))
        nn = _prod(b_sizes[l] for l in b_only)
        left = reshape(permute(cur, [cl.index(l) for l in batch + a_only + contr]), (nb, na, nc))
        right = reshape(permute(nxt, [nl.index(l) for l in batch + contr + b_only]), (nb, nc, nn))
        kept = batch + a_only + b_only + contr      # summed labels stay, with size 1
        cur = view(bmm(left, right), [a_sizes.get(l, b_sizes.get(l)) for l in kept[:-len(contr)]]
                   + [1] * len(contr))
        cl = sorted(kept, key=order.index)
        cur = permute(cur, [kept.index(l) for l in cl])
    if cl != out:       # only summed size-1 labels are left beyond the output's
        cur = view(cur, [sizes[l] for l in out])
    return cur


def _align(t, labels, target):
    for d, l in enumerate(target):
        if l not in labels:
            t = t.unsqueeze(d)
    return t


# -- diagonals and triangles -----------------------------------------------------------------
def _diag_view(xp, a, offset, dim1, dim2):
    """The writable strided view of a's diagonal (moved to the last dim), like torch's."""
    dim1, dim2 = dim1 % a.ndim, dim2 % a.ndim
    if offset > 0:
        a = a[(slice(None),) * dim2 + (slice(offset, None),)]
    elif offset < 0:
        a = a[(slice(None),) * dim1 + (slice(-offset, None),)]
    n = min(a.shape[dim1], a.shape[dim2])
    keep = [d for d in range(a.ndim) if d not in (dim1, dim2)]
    return backend_of(a).as_strided(
        a, [a.shape[d] for d in keep] + [n],
        [a.strides[d] for d in keep] + [a.strides[dim1] + a.strides[dim2]])


def _diag_scatter(grad, sizes, offset, dim1, dim2):
    out = xp.zeros(sizes, grad.dtype)
    _diag_view(xp, out, offset, dim1, dim2)[...] = grad
    return out


def _diag_embed_forward(xp, self, offset, dim1, dim2):
    n = self.shape[-1] + abs(offset)
    shape = list(self.shape[:-1])
    dim1, dim2 = dim1 % (self.ndim + 1), dim2 % (self.ndim + 1)
    for d in sorted((dim1, dim2)):
        shape.insert(d, n)
    return _diag_scatter(self, shape, offset, dim1, dim2)


_diagonal_backward = defop(
    "DiagonalBackwardBackward0", lambda xp, grad_output, input_sizes, offset, dim1, dim2:
    _diag_scatter(grad_output, input_sizes, offset, dim1, dim2), ("grad_output",), dtype="same",
    grads={"grad_output": lambda grad, offset, dim1, dim2: diagonal(grad, offset, dim1, dim2)})


def _diagonal_grad(grad, self_sym_sizes, offset, dim1, dim2):
    return _diagonal_backward(grad, input_sizes=self_sym_sizes, offset=offset, dim1=dim1,
                              dim2=dim2)


_diagonal = defop("DiagonalBackward0", _diag_view, dtype="same", view=True,
                  grads={"self": _diagonal_grad})
_diagonal_copy = defop("DiagonalBackward0_copy", lambda xp, self, offset, dim1, dim2:
                       _diag_view(xp, self, offset, dim1, dim2).copy(), dtype="same",
                       grads={"self": _diagonal_grad})
_diag_embed = defop("DiagEmbedBackward0", _diag_embed_forward, dtype="same",
                    grads={"self": lambda grad, offset, dim1, dim2:
                           diagonal(grad, offset, dim1, dim2)})
_trace = defop("TraceBackward0", "trace", dtype=lambda v, a: (
    v[0].dtype if v[0].dtype.is_floating_point or v[0].dtype.is_complex else dtypes.int64),
    grads={"self": lambda grad, self_sym_sizes: _diagonal_backward(
        grad.expand(min(self_sym_sizes)), input_sizes=self_sym_sizes, offset=0, dim1=0,
        dim2=1)})
_tril = defop("TrilBackward0", lambda xp, self, diagonal: xp.tril(self, diagonal), dtype="same",
              grads={"self": lambda grad, diagonal: tril(grad, diagonal)})
_triu = defop("TriuBackward0", lambda xp, self, diagonal: xp.triu(self, diagonal), dtype="same",
              grads={"self": lambda grad, diagonal: triu(grad, diagonal)})


def _diag_dims(n, dim1, dim2):
    """Checked; kept as given (torch saves the dims unwrapped)."""
    if _wrap_dim(dim1, n) == _wrap_dim(dim2, n):
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")


@public("function", "method", signatures=(
    "diagonal(Tensor input, int64_t offset=0, int64_t dim1=0, int64_t dim2=1)",))
def diagonal(input, offset=0, dim1=0, dim2=1):
    _diag_dims(input.dim(), dim1, dim2)
    return _diagonal(input, offset=offset, dim1=dim1, dim2=dim2)


@public("function", "method", signatures=(
    "diag_embed(Tensor input, int64_t offset=0, int64_t dim1=-2, int64_t dim2=-1)",))
def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    _diag_dims(input.dim() + 1, dim1, dim2)
    return _diag_embed(input, offset=offset, dim1=dim1, dim2=dim2)


@public("function", "method", signatures=(
    "diag(Tensor input, int64_t diagonal=0, *, Tensor out=None)",))
def diag(input, diagonal=0):
    if input.dim() == 1:
        return _diag_embed(input, offset=diagonal, dim1=-2, dim2=-1)
    if input.dim() != 2:
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.dim()}D")
    return _diagonal_copy(input, offset=diagonal, dim1=0, dim2=1)


@public("function", "method", signatures=(
    "trace(Tensor input)",))
def trace(input):
    if input.dim() != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.dim()}")
    return _trace(input)


@public("function", "method", signatures=(
    "tril(Tensor input, SymInt diagonal=0, *, Tensor out=None)",))
def tril(input, diagonal=0):
    if input.dim() < 2:
        raise RuntimeError("tril: input tensor must have at least 2 dimensions")
    return _tril(input, diagonal=diagonal)


@public("function", "method", signatures=(
    "triu(Tensor input, SymInt diagonal=0, *, Tensor out=None)",))
def triu(input, diagonal=0):
    if input.dim() < 2:
        raise RuntimeError("triu: input tensor must have at least 2 dimensions")
    return _triu(input, diagonal=diagonal)


def _tri_(op):
    def inplace(self, diagonal=0):
        if self.dim() < 2:
            raise RuntimeError(f"{op.name[:4].lower()}: input tensor must have at least 2 "
                               "dimensions")
        return apply_inplace(op, self, (self,), {"diagonal": diagonal})
    return inplace


# -- cross -----------------------------------------------------------------------------------
_cross = defop("LinalgCrossBackward0", lambda xp, self, other, dim:
               xp.ascontiguousarray(xp.cross(self, other, axis=dim)),
               ("self", "other"), dtype="same",
               grads={"self": lambda grad, other, dim: _cross(other, grad, dim=dim),
                      "other": lambda grad, self, dim: _cross(grad, self, dim=dim)})


@public("linalg", name="cross")
def _linalg_cross(input, other, *, dim=-1):
    if input.dim() != other.dim():
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    if input.dtype is not other.dtype:
        raise RuntimeError(f"expected scalar type {_name(input)} but found {_name(other)}")
    d = _wrap_dim(dim, input.dim())
    if input.shape[d] != 3 or other.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{input.shape[d]} and {other.shape[d]}")
    broadcast_shapes(tuple(input.shape), tuple(other.shape))
    return _cross(input, other, dim=dim)


@public("function", "method", signatures=(
    "cross(Tensor input, Tensor other, int64_t? dim=None, *, Tensor out=None)",))
def cross(input, other, dim=None):
    if dim is None:     # deprecated default: the input's first dim of size 3
        _runtime.warn_once(
            "cross", "Using torch.cross without specifying the dim arg is deprecated.\nPlease "
            "either pass the dim explicitly or simply use torch.linalg.cross.\nThe default value "
            "of dim will change to agree with that of linalg.cross in a future release. "
            "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/Cross.cpp:63.)")
        dim = next((d for d, s in enumerate(input.shape) if s == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    return _linalg_cross(input, other, dim=dim)


# -- glassgrad.linalg: factorizations and solvers ---------------------------------------------
@public("linalg", name="LinAlgError")
class _LinAlgError(RuntimeError):
    """torch.linalg.LinAlgError: a matrix the factorization cannot handle (singular, not PD)."""


_LinAlgError.__module__ = "torch._C"


_QR = _return_type("linalg_qr", ("Q", "R"))
_SVD = _return_type("linalg_svd", ("U", "S", "Vh"))
_EIGH = _return_type("linalg_eigh", ("eigenvalues", "eigenvectors"))
_EIG = _return_type("linalg_eig", ("eigenvalues", "eigenvectors"))
_SLOGDET = _return_type("linalg_slogdet", ("sign", "logabsdet"))
_SLOGDET_OLD = _return_type("slogdet", ("sign", "logabsdet"))
_QR_OLD = _return_type("qr", ("Q", "R"))
_SVD_OLD = _return_type("svd", ("U", "S", "V"))


def _check(fn, A, square=True):
    if A.dim() < 2:
        raise RuntimeError(f"{fn}: The input tensor A must have at least 2 dimensions.")
    if A.dtype is dtypes.float16:
        raise RuntimeError(f"{fn}: Low precision dtypes not supported. Got Half")
    if not A.dtype.is_floating_point and not A.dtype.is_complex:
        raise RuntimeError(f"{fn}: Expected a floating point or complex tensor as input. Got "
                           f"{_name(A)}")
    if square and A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{fn}: A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")


def _batch_error(fn, batch, index, message):
    where = f"(Batch element {index}): " if batch else ""
    raise _LinAlgError(f"{fn}: {where}{message}")


def _check_singular(fn, A, message):
    """torch's error naming the first zero pivot of the first singular matrix."""
    lu, _ = _lu_factor(A)
    zero = xp.diagonal(lu, 0, -2, -1) == 0
    flat = zero.reshape(math.prod(zero.shape[:-1]), zero.shape[-1])   # (an empty A too)
    for b, row in enumerate(flat):
        if row.any():
            _batch_error(fn, A.ndim > 2, b, message.format(int(xp.argmax(row)) + 1))


def _inv_forward(xp, A, check_errors=True, fn="linalg.inv"):
    if check_errors:
        _check_singular(fn, A, "The diagonal element {} is zero, the inversion could "
                        "not be completed because the input matrix is singular.")
    lu, piv = _lu_factor(A)
    info = _lu_info(lu)
    if info.any():      # (inv_ex of a singular A: getrs's infinities, as LAPACK's)
        eye = xp.broadcast_to(xp.eye(A.shape[-1], dtype=A.dtype), A.shape)
        return _colmajor(_lu_solve(lu, piv, eye)), info
    return _colmajor(xp.linalg.inv(A)), info


_inv = defop("LinalgInvExBackward0", _inv_forward, ("A",), dtype="same",
             outputs=("inverse", "info"),
             grads={"A": lambda grad, inverse: -matmul(inverse.mT, matmul(grad, inverse.mT))})


@public("function", "method", name="inverse", signatures=(
    "inverse(Tensor input, *, Tensor out=None)",))
@public("linalg")
def inv(A):
    _check("linalg.inv", A)
    return _inv(A)[0]


def _det_forward(xp, A):
    lu, piv = _lu_factor(_lapack_view(A))
    det = xp.prod(xp.diagonal(lu, 0, -2, -1), -1) * _perm_sign(piv, A.dtype)
    return det, _colmajor(lu), piv


def _det_backward(grad, A, LU, pivots, result):
    """torch's: gA solves A^T gA = grad det(A) I. Without grad mode, through the saved LU with
    each zero pivot moved to eps (det is C^1, so a singular A takes its neighbour's value);
    with it (double backward), by solve, or for |det| < 100 eps by the adjugate from the SVD."""
    n = A.shape[-1]
    if A.numel() == 0:
        return zeros(A.shape, dtype=A.dtype)
    if n == 1:      # d det / dA = 1
        return grad.unsqueeze(-1).unsqueeze(-1).expand(A.shape)
    if not state.grad:
        lu = LU._data
        eps = xp.finfo(lu.dtype).eps
        lu = lu + _diag_array(xp.where(xp.diagonal(lu, 0, -2, -1) == 0, eps, 0).astype(lu.dtype))
        d = _diag_array(xp.broadcast_to((grad * result)._data[..., None], lu.shape[:-1]))
        # the LU is of A^T where LAPACK read a row-major A (_lapack_view)
        return Tensor._make(_lu_solve(lu, pivots._data, d, adjoint=not A._data.flags.c_contiguous))
    d = diag_embed((grad * result).unsqueeze(-1).expand(*grad.shape, n))
    singular = result.abs() < 100 * float(xp.finfo(A._data.dtype).eps)
    if not singular.any():
        return solve(A.mT, d)
    if singular.all():
        return _adjugate_grad(A, grad)
    out = zeros(A.shape, dtype=A.dtype)
    out[singular] = _adjugate_grad(A[singular], grad[singular])
    out[~singular] = solve(A[~singular].mT, d[~singular])
    return out


def _diag_array(v):
    """diag_embed on an array (a batch of diagonal matrices)."""
    n = v.shape[-1]
    return v[..., None, :] * xp.eye(n, dtype=v.dtype)


def _adjugate_grad(A, grad):
    """grad times the transposed adjugate of A, from A = U diag(S) Vh: U diag(grad det(U)
    det(Vh) prod_{j != i} S_j) Vh (differentiable, for a singular A too)."""
    U, S, Vh = linalg_svd(A)
    alpha = det(U) * det(Vh) * grad
    return matmul(U * _prod_others(alpha.unsqueeze(-1), S).unsqueeze(-2), Vh)


def _prod_others(grad, s):
    """grad times the product of every other element along the last dim (no division, so
    zeros are safe): exclusive cumulative products from both ends."""
    one = ones(*s.shape[:-1], 1, dtype=s.dtype)
    before = cat([one, s[..., :-1]], -1).cumprod(-1)
    after = cat([one, s[..., 1:].flip(-1)], -1).cumprod(-1).flip(-1)
    return grad * (before * after)


_det = defop("LinalgDetBackward0", _det_forward, ("A",), dtype="same",
             outputs=("result", "LU", "pivots"), grads={"A": _det_backward})


@public("function", "method", "linalg", signatures=(
    "det(Tensor input)",))
def det(A):
    _check("linalg.det", A)
    return _det(A)[0]


def _slogdet_forward(xp, A):
    lu, piv = _lu_factor(_lapack_view(A))
    d = xp.diagonal(lu, 0, -2, -1)
    with xp.errstate(divide="ignore"):
        logabs = xp.sum(xp.log(abs(d)), -1)
    sign = xp.prod(xp.sign(d), -1) * _perm_sign(piv, A.dtype)
    return sign, logabs, _colmajor(lu), piv


def _slogdet_backward(grads, A, LU, pivots, sign):
    """torch's: gA solves A^T gA = g_logabsdet I; without grad mode through the saved LU as
    it is (a singular A gives infinities, as LAPACK's solve), with it by solve (which refuses
    a singular A)."""
    gsign, g = grads
    if A.dtype.is_complex:      # torch's complex formula: gA = A^-H diag(g - i Im(gsign* sign))
        if gsign is None and g is None:
            return None
        g = 0 if g is None else g
        if gsign is not None:
            g = g - 1j * (gsign.conj_physical() * sign).imag
        g = g.to(A.dtype)
        return solve(A.mH, diag_embed(g.unsqueeze(-1).expand(*g.shape, A.shape[-1])))
    if g is None:
        return None
    if not state.grad:
        lu = LU._data
        d = _diag_array(xp.broadcast_to(g._data[..., None], lu.shape[:-1]).astype(lu.dtype))
        return Tensor._make(_lu_solve(lu, pivots._data, d, adjoint=not A._data.flags.c_contiguous))
    return solve(A.mT, diag_embed(g.unsqueeze(-1).expand(*g.shape, A.shape[-1])))


_slogdet = defop("LinalgSlogdetBackward0", _slogdet_forward, ("A",), dtype="same",
                 outputs=("sign", "logabsdet", "LU", "pivots"), diff_outputs=2,
                 grads={"A": _slogdet_backward}, undefined_grads=True, wirtinger=False)


@public("linalg", name="slogdet")
def linalg_slogdet(A):
    _check("linalg.slogdet", A)
    return _SLOGDET(*_slogdet(A)[:2])


@public("function", "method", signatures=(
    "logdet(Tensor input)",))
def logdet(input):
    """torch.logdet: slogdet's logabsdet, NaN where the determinant is negative."""
    fn = "logdet"
    if input.dim() < 2:
        raise RuntimeError(f"{fn}: The input tensor A must have at least 2 dimensions.")
    if input.shape[-1] != input.shape[-2]:
        raise RuntimeError(f"{fn}: A must be batches of square matrices, but they are "
                           f"{input.shape[-2]} by {input.shape[-1]} matrices")
    _check(fn, input)
    sign, logabsdet = _slogdet(input)[:2]
    if input.dtype.is_complex:      # log(det): log(sign) + logabsdet, as torch's
        return sign.log() + logabsdet
    return _formula.where(sign == -1, float("nan"), logabsdet)


def _vector_rhs(A, B):
    return B.ndim == 1 or (B.ndim == A.ndim - 1 and B.shape == A.shape[:-1])


def _solve_forward(xp, A, B, left, check_errors=True, fn="torch.linalg.solve"):
    vector = _vector_rhs(A, B)
    Bm = B[..., None] if vector else B
    if check_errors:
        _check_singular(fn, A, "The solver failed because the input matrix is "
                        "singular.")
    lu, piv = _lu_factor(A)
    info = _lu_info(lu)
    if not left:
        A, Bm = xp.swapaxes(A, -1, -2), xp.swapaxes(Bm, -1, -2)
    if info.any():      # (solve_ex of a singular A: getrs's infinities, as LAPACK's)
        batch = xp.broadcast_shapes(lu.shape[:-2], Bm.shape[:-2])
        X = _lu_solve(xp.broadcast_to(lu, batch + lu.shape[-2:]),
                      xp.broadcast_to(piv, batch + piv.shape[-1:]),
                      xp.broadcast_to(Bm, batch + Bm.shape[-2:]), adjoint=not left)
    else:
        X = xp.linalg.solve(A, Bm)
    if vector:
        X = xp.asfortranarray(X[..., 0])
    else:
        X = xp.swapaxes(X, -1, -2) if not left else X
        X = X.copy() if not left else _colmajor(X)
    return X, _colmajor(lu), piv, info


def _solve_grads(grad, A, LU, pivots, left, result):
    """(gA, gB): gB solves the adjoint system, gA = -gB X^T (or -X^T gB)."""
    vector = _vector_rhs(A, result)
    g = grad.unsqueeze(-1) if vector else grad
    gB = solve(A.mT, g, left=left)
    X = result.unsqueeze(-1) if vector else result
    gA = -matmul(gB, X.mT) if left else -matmul(X.mT, gB)
    return gA, (gB.squeeze(-1) if vector else gB)


_solve = defop(
    "LinalgSolveExBackward0", _solve_forward, ("A", "B"), dtype="same",
    outputs=("result", "LU", "pivots", "info"),
    grads={"A": lambda grad, A, LU, pivots, left, result:
           _solve_grads(grad, A, LU, pivots, left, result)[0],
           "B": lambda grad, A, LU, pivots, left, result:
           _solve_grads(grad, A, LU, pivots, left, result)[1]})


def _solve_checks(A, B, left):
    _check("linalg.solve", A)
    if not B.dtype.is_floating_point and not B.dtype.is_complex:
        _check("linalg.solve", B, square=False)
    if A.dtype is not B.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found A "
                           f"of type {_name(A)} and B of type {_name(B)} instead")
    vector = _vector_rhs(A._data, B._data)
    Bm = B.shape + (1,) if vector else B.shape
    n = A.shape[-1]
    if (Bm[-2] if left else Bm[-1]) != n:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation {eq} "
                           f"({n}x{n} and {Bm[-2]}x{Bm[-1]})")
    broadcast_shapes(tuple(A.shape[:-2]), tuple(Bm[:-2]))


@public("linalg")
def solve(A, B, *, left=True):
    _solve_checks(A, B, left)
    return _solve(A, B, left=left)[0]


def _cholesky_forward(xp, A, upper, check_errors=True, fn="linalg.cholesky"):
    try:
        L = xp.linalg.cholesky(A)
        info = xp.zeros(A.shape[:-2], xp.int32)
    except xp.linalg.LinAlgError:
        L, info = _potf2(A)
        if check_errors:
            flat = info.reshape(-1)
            b = int(xp.argmax(flat > 0))
            _batch_error(fn, A.ndim > 2, b,
                         "The factorization could not be completed because the input is not "
                         f"positive-definite (the leading minor of order {flat[b]} is not "
                         "positive-definite).")
    L = xp.conj(xp.swapaxes(L, -1, -2)) if upper else L      # (U = L^H)
    return _colmajor(L), info


def _potf2(A):
    """LAPACK's unblocked Cholesky (potf2, lower) with its state where it stops: the columns
    before the failing one factored, its diagonal the non-positive Schur value, the rest of
    the lower triangle A's; info the order of the first leading minor that is not positive
    definite (0 where none)."""
    L = xp.tril(A).astype(A.dtype, copy=True)
    info = xp.zeros(A.shape[:-2], xp.int32)
    with xp.errstate(invalid="ignore", divide="ignore"):
        for j in range(A.shape[-1]):
            live = info == 0
            d = L[..., j, j] - xp.sum(L[..., j, :j] ** 2, -1)
            bad = live & ~(d > 0)
            info[bad] = j + 1
            L[..., j, j] = xp.where(live, xp.where(bad, d, xp.sqrt(xp.where(bad, 1, d))),
                                    L[..., j, j])
            ok = (live & ~bad)[..., None]
            col = (L[..., j + 1:, j] - xp.matmul(L[..., j + 1:, :j], L[..., j, :j, None])[..., 0]
                   ) / L[..., j, j, None]
            L[..., j + 1:, j] = xp.where(ok, col, L[..., j + 1:, j])
    return L, info


def _cholesky_backward(grad, L, upper):
    """torch's (conjugate transposes: its complex formula, the real one for real L):
    gA = herm(L^-H phi L^-1), phi = tril(L^H gL) with its diagonal halved."""
    if upper:
        L, grad = L.mH, grad.mH
    phi = tril(matmul(L.mH, grad))
    phi = phi - diag_embed(diagonal(phi, 0, -2, -1) * 0.5)
    Linv = inv(L)
    gA = matmul(matmul(Linv.mH, phi), Linv)
    return (gA + gA.mH) * 0.5


_cholesky = defop("LinalgCholeskyExBackward0", _cholesky_forward, ("A",), dtype="same",
                  outputs=("L", "info"), grads={"A": _cholesky_backward}, wirtinger=False)


@public("linalg")
def cholesky(A, *, upper=False):
    _check("linalg.cholesky", A)
    return _cholesky(A, upper=upper)[0]


def _qr_forward(xp, A, mode):
    Q, R = xp.linalg.qr(A, mode="reduced" if mode == "reduced" else "complete")
    if mode == "r":
        Q = xp.zeros((0,), A.dtype)
    return (Q if mode == "r" else _colmajor(Q)), _colmajor(R)


def _qr_backward(grads, Q, R, mode):
    gQ, gR = grads
    if mode == "r":
        raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when "
                           "mode='r'. Please use linalg.qr(A, mode='reduced') if you are going to "
                           "differentiate through linalg.qr.")
    m, n = Q.shape[-2], R.shape[-1]
    if mode == "complete" and m > n:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and "
                           "nrows > ncols.")
    gA = matmul(gR, R.mH) - matmul(Q.mH, gQ)
    if m >= n:      # (torch's complex formula: conjugate transposes, real diagonals)
        sym = triu(gA)
        sym = sym + sym.mH
        sym = sym - diag_embed(diagonal(sym, 0, -2, -1).real * 0.5)
        return solve(R.mH, matmul(Q, sym) + gQ, left=False)
    skew = tril(-gA + gA.mH)
    if skew.dtype.is_complex:
        skew = skew - diag_embed(diagonal(skew, 0, -2, -1).imag * 0.5j)
    gA = solve(R[..., :m].mH, matmul(Q, skew), left=False)
    gA = cat([gA, zeros(*gA.shape[:-1], n - m, dtype=gA.dtype)], -1)
    return gA + matmul(Q, gR)


_qr = defop("LinalgQrBackward0", _qr_forward, ("A",), dtype="same", outputs=("Q", "R"),
            diff_outputs=2, grads={"A": _qr_backward}, wirtinger=False)


@public("linalg", name="qr")
def linalg_qr(A, mode="reduced"):
    if mode not in ("reduced", "r", "complete"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           "'reduced' (default), 'r', or 'complete'")
    _check("linalg.qr", A, square=False)
    return _QR(*_qr(A, mode=mode))


def _svd_forward(xp, A, full_matrices, S_sym_argsize_minus_1):
    U, S, Vh = xp.linalg.svd(A, full_matrices=full_matrices)
    return _colmajor(U), S, _colmajor(Vh)


def _svd_backward(grads, U, S, Vh, full_matrices, S_sym_argsize_minus_1):
    """torch's svd_backward: only the terms of the outputs a gradient reached (grads: None
    for the others), so singular values alone (svdvals) differentiate at repeated values."""
    gU, gS, gVh = grads
    k = S_sym_argsize_minus_1
    if full_matrices:
        U, Vh = U[..., :k], Vh[..., :k, :]
        gU = None if gU is None else gU[..., :k]
        gVh = None if gVh is None else gVh[..., :k, :]
    m, n = U.shape[-2], Vh.shape[-1]
    if gU is None and gVh is None:
        if gS is None:
            return None
        return matmul(U, gS.unsqueeze(-1) * Vh) if m >= n else matmul(U * gS.unsqueeze(-2), Vh)
    if gU is None:      # the formulas below with a zero gradient, as torch fills one in
        gU = zeros(U.shape, dtype=U.dtype)
    if gVh is None:
        gVh = zeros(Vh.shape, dtype=Vh.dtype)
    UhgU = matmul(U.mH, gU)
    VhgV = matmul(Vh, gVh.mH)
    UhgU, VhgV = UhgU - UhgU.mH, VhgV - VhgV.mH
    complex_ = U.dtype.is_complex
    if complex_ and not xp.allclose(diagonal(UhgU, 0, -2, -1)._data.imag,
                                    -diagonal(VhgV, 0, -2, -1)._data.imag, rtol=1e-2, atol=1e-2):
        raise RuntimeError("svd_backward: The singular vectors in the complex case are specified "
                           "up to multiplication by e^{i phi}. The specified loss function "
                           "depends on this phase term, making it ill-defined.")
    S2 = S * S
    E = S2.unsqueeze(-2) - S2.unsqueeze(-1) + diag_embed(ones(*S.shape, dtype=S.dtype))
    gA = (UhgU * S.unsqueeze(-2) + S.unsqueeze(-1) * VhgV) / E
    if gS is not None:
        gA = gA + diag_embed(gS)
    if complex_:
        gA = gA + diag_embed(diagonal(UhgU, 0, -2, -1) / (2 * S))
    if m > n:
        gA = matmul(U, gA)
        gUSinv = gU / S.unsqueeze(-2)
        return matmul(gA + gUSinv - matmul(U, matmul(U.mH, gUSinv)), Vh)
    if m < n:
        gA = matmul(gA, Vh)
        SinvgVh = gVh / S.unsqueeze(-1)
        return matmul(U, gA + SinvgVh - matmul(matmul(SinvgVh, Vh.mH), Vh))
    return matmul(U, matmul(gA, Vh))


_svd = defop("LinalgSvdBackward0", _svd_forward, ("A",), dtype="same", outputs=("U", "S", "Vh"),
             diff_outputs=3, grads={"A": _svd_backward}, undefined_grads=True, wirtinger=False)


@public("linalg", name="svd")
def linalg_svd(A, full_matrices=True, *, driver=None):
    _check("linalg.svd", A, square=False)
    return _SVD(*_svd(A, full_matrices=full_matrices, S_sym_argsize_minus_1=min(A.shape[-2:])))


@public("linalg")
def svdvals(A, *, driver=None):
    _check("linalg.svdvals", A, square=False)
    return linalg_svd(A, full_matrices=False)[1]


def _eigh_forward(xp, A, UPLO):
    L, V = xp.linalg.eigh(A, UPLO=UPLO)
    return L, _colmajor(V)


def _eigh_backward(grads, eigenvalues, eigenvectors):
    """torch's linalg_eig_backward (Hermitian): eigenvalues alone (eigvalsh) take the
    shortcut V diag(gL) V^T, so repeated eigenvalues differentiate."""
    gL, gV = grads
    L, V = eigenvalues, eigenvectors
    if gV is None:
        return None if gL is None else matmul(V * gL.unsqueeze(-2), V.mH)
    VhgV = matmul(V.mH, gV)
    if V.dtype.is_complex and not xp.allclose(diagonal(VhgV, 0, -2, -1)._data.imag, 0,
                                              rtol=1e-2, atol=1e-2):
        raise RuntimeError("linalg_eigh_backward: The eigenvectors in the complex case are "
                           "specified up to multiplication by e^{i phi}. The specified loss "
                           "function depends on this quantity, so it is ill-defined.")
    VhgV = (VhgV - VhgV.mH) * 0.5
    eye = diag_embed(ones(*L.shape, dtype=L.dtype))
    gA = VhgV / (L.unsqueeze(-2) - L.unsqueeze(-1) + eye)
    gA = gA * (1 - eye)     # (torch keeps VhgV's diagonal where gL is undefined: ~0)
    if gL is not None:
        gA = gA + diag_embed(gL)
    return matmul(V, matmul(gA, V.mH))


_eigh = defop("LinalgEighBackward0", _eigh_forward, ("A",), dtype="same",
              outputs=("eigenvalues", "eigenvectors"), diff_outputs=2, wirtinger=False,
              grads={"A": _eigh_backward}, undefined_grads=True)


@public("linalg")
def eigh(A, UPLO="L"):
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    if not A.dtype.is_floating_point and not A.dtype.is_complex and A.dim() >= 2:
        raise NotImplementedError(f'"linalg_eigh_cpu" not implemented for \'{_name(A)}\'')
    _check("linalg.eigh", A)
    return _EIGH(*_eigh(A, UPLO=UPLO))


@public("linalg")
def eigvalsh(A, UPLO="L"):
    return eigh(A, UPLO)[0]


def _eig_forward(xp, A, vectors=True, fn="torch.linalg.eig"):
    """geev (numpy.linalg.eig calls the same LAPACK routine as torch): eigenvalues and unit
    eigenvectors in LAPACK's order and phase, as complex arrays; vectors=False: the eigenvalues
    alone (geev without vectors, linalg.eigvals without grad)."""
    if not xp.isfinite(A).all():
        raise RuntimeError(f"{fn}: input tensor should not contain infs or NaNs.")
    ctype = xp.result_type(A.dtype, xp.complex64)
    if not vectors:
        return xp.linalg.eigvals(A).astype(ctype)
    L, V = xp.linalg.eig(A)
    return L.astype(ctype), _colmajor(V.astype(ctype))


def _eig_backward(grads, eigenvalues, eigenvectors):
    """torch's linalg_eig_backward: gA = V^-H (diag(gL) + (V^H gV - V^H V Re diag(V^H gV)) /
    conj(E)) V^H with E_ij = L_j - L_i; eigenvalues alone (eigvals) take V^-H diag(gL) V^H.
    A loss that depends on the eigenvectors' phases is refused, as torch's."""
    gL, gV = grads
    L, V = eigenvalues, eigenvectors
    Vh = V.mH
    if gV is None:
        return None if gL is None else solve(Vh, gL.unsqueeze(-1) * Vh)
    VhgV = matmul(Vh, gV)
    d = diagonal(VhgV, 0, -2, -1)
    if not xp.allclose(d._data.imag, 0, rtol=1e-2, atol=1e-2):
        raise RuntimeError("linalg_eig_backward: The eigenvectors in the complex case are "
                           "specified up to multiplication by e^{i phi}. The specified loss "
                           "function depends on this quantity, so it is ill-defined.")
    VhgV = VhgV - matmul(Vh, V * d.real.unsqueeze(-2))
    Lc = L.conj_physical()
    eye = diag_embed(ones(*L.shape, dtype=L.dtype))
    gA = VhgV / (Lc.unsqueeze(-2) - Lc.unsqueeze(-1) + eye)
    if gL is not None:      # the diagonal is gL's (else what the division left there)
        gA = gA * (1 - eye) + diag_embed(gL)
    return solve(Vh, matmul(gA, Vh))


def _eig_jvp(tangents, A, eigenvalues):
    raise NotImplementedError("forward-mode AD of linalg.eig: its tangents are complex, and "
                              "glassgrad has no complex tangent rules (reverse mode supports "
                              "complex tensors)")


_eig = defop("LinalgEigBackward0", _eig_forward, ("A",), dtype="same",
             outputs=("eigenvalues", "eigenvectors"), diff_outputs=2, wirtinger=False,
             grads={"A": _eig_backward}, undefined_grads=True, jvp=_eig_jvp)
_eigvals = defop("LinalgEigvals", _eig_forward, ("A",), dtype="same")   # (no gradient)


def _eig_checks(fn, A):
    if A.dtype.is_complex or A.dtype.is_floating_point:
        if A.dtype in (dtypes.float16, dtypes.bfloat16):
            raise NotImplementedError(f'"linalg_eig_out_cpu" not implemented for \'{_name(A)}\'')
    else:
        raise RuntimeError(f"Unknown Complex ScalarType for {_name(A)}")
    _check(fn, A)


@public("linalg")
def eig(A):
    _eig_checks("linalg.eig", A)
    return _EIG(*_eig(A))


@public("linalg")
def eigvals(A):
    """torch's: through linalg.eig where a gradient may be asked for (LinalgEigBackward0),
    else geev without eigenvectors."""
    _eig_checks("linalg.eigvals", A)
    if state.grad and A.requires_grad:
        return _eig(A)[0]
    return _eigvals(A, vectors=False, fn="torch.linalg.eigvals")


def _pinv_forward(xp, self, atol, rtol, hermitian):
    U, S, Vh = xp.linalg.svd(self, full_matrices=False)
    smax = S.max(-1, keepdims=True, initial=0)
    if rtol is None:
        rtol = 0 if atol else xp.finfo(self.dtype).eps * max(self.shape[-2:])
    cut = xp.maximum(atol or 0, rtol * smax)
    with xp.errstate(divide="ignore"):
        Sinv = xp.where(S > cut, 1 / S, 0).astype(self.dtype)
    return xp.matmul(xp.conj(xp.swapaxes(Vh, -1, -2)) * Sinv[..., None, :],
                     xp.conj(xp.swapaxes(U, -1, -2)))


def _pinv_backward(grad, self, result):
    """torch's pinv_backward (conjugate transposes: its complex formula)."""
    m, n = self.shape[-2], self.shape[-1]
    P, Ph, gh = result, result.mH, grad.mH
    if m <= n:
        K = matmul(gh, P)
        KPh = matmul(K, Ph)
        return -matmul(P, K).mH + KPh - matmul(matmul(self, P), KPh) + \
            matmul(matmul(Ph, P), gh - matmul(K, self))
    K = matmul(P, gh)
    PhK = matmul(Ph, K)
    return -matmul(K, P).mH + matmul(matmul(gh - matmul(self, K), P), Ph) + PhK - \
        matmul(matmul(PhK, P), self)


_pinv = defop("LinalgPinvBackward0", _pinv_forward, dtype="same", wirtinger=False,
              grads={"self": _pinv_backward})


@public("linalg")
def pinv(A, *, atol=None, rtol=None, hermitian=False):
    if A.dim() < 2 or not (A.dtype.is_floating_point or A.dtype.is_complex) or \
            A.dtype is dtypes.float16:
        raise RuntimeError(f"linalg.pinv({_name(A)}{{{list(A.shape)}}}): expected a tensor with "
                           "2 or more dimensions of float, double, cfloat or cdouble types")
    return _pinv(A, atol=atol, rtol=rtol, hermitian=hermitian)


@public("function", "method", signatures=(
    "pinverse(Tensor input, double rcond=1e-15)",))
def pinverse(input, rcond=1e-15):
    return pinv(input, rtol=rcond)


# -- the older top-level spellings ----------------------------------------------------------
@public("function", "method", signatures=(
    "qr(Tensor input, bool some=True, *, TensorList[2] out=None)",))
def qr(input, some=True):
    return _QR_OLD(*linalg_qr(input, "reduced" if some else "complete"))


@public("function", "method", signatures=(
    "svd(Tensor input, bool some=True, bool compute_uv=True, *, TensorList[3] out=None)",))
def svd(input, some=True, compute_uv=True):
    """torch.svd: V rather than Vh; without compute_uv, zero-filled square U and V."""
    if not compute_uv:
        m, n = input.shape[-2:]
        return _SVD_OLD(zeros(*input.shape[:-2], m, m, dtype=input.dtype), svdvals(input),
                        zeros(*input.shape[:-2], n, n, dtype=input.dtype))
    U, S, Vh = linalg_svd(input, full_matrices=not some)
    return _SVD_OLD(U, S, Vh.mT)


@public("function", "method", signatures=(
    "slogdet(Tensor input, *, TensorList[2] out=None)",))
def slogdet(input):
    return _SLOGDET_OLD(*linalg_slogdet(input))


public("method", name="tril_", method_signatures=("tril_(Tensor self, SymInt diagonal=0)",))(
    _tri_(_tril))
public("method", name="triu_", method_signatures=("triu_(Tensor self, SymInt diagonal=0)",))(
    _tri_(_triu))
public("__rmatmul__")(lambda self, other: matmul(other, self))

# rows and @public objects name themselves (glassgrad.ops.publish)
# matmul's steps call the implementations, not their public forms: its operands are tensors
# already, the argument layer has nothing to decide
_dot_step, _mv_step, _mm_step, _bmm_step = dot, mv, mm, bmm
_reshape_step = reshape.__wrapped__
publish(globals())
