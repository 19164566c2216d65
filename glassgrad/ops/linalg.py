"""Matrix products: mm, mv, dot, bmm and matmul composed from them as ATen does."""
from ..backend import xp
from .registry import _C10_NAMES, _SCALAR_NAMES as _TYPE_NAMES, defop
from .shape import _squeeze_result, _unsafe_view_of, contiguous, expand, reshape, transpose

_mm = defop("MmBackward0", xp.matmul, ("self", "mat2"), dtype="same",
            grads={"self": lambda grad, mat2: grad.mm(mat2.t()),
                   "mat2": lambda grad, self: self.t().mm(grad)})
_mv = defop("MvBackward0", xp.matmul, ("self", "vec"), dtype="same",
            grads={"self": lambda grad, vec: grad.unsqueeze(1) * vec,
                   "vec": lambda grad, self: self.t().mv(grad)})
_dot = defop("DotBackward0", xp.dot, ("self", "tensor"), dtype="same",
             grads={"self": lambda grad, tensor: grad * tensor,
                    "tensor": lambda grad, self: grad * self})
_bmm = defop("BmmBackward0", xp.matmul, ("self", "mat2"), dtype="same",
             grads={"self": lambda grad, mat2: grad.bmm(mat2.transpose(1, 2)),
                    "mat2": lambda grad, self: self.transpose(1, 2).bmm(grad)})


def _same_dtype(a, b):
    if a.dtype is not b.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{_C10_NAMES[a.dtype.name]} != {_C10_NAMES[b.dtype.name]}")


def mm(input, mat2):
    if input.dim() != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.dim() != 2:
        raise RuntimeError("mat2 must be a matrix")
    if input.shape[1] != mat2.shape[0]:
        (a, b), (c, d) = input.shape, mat2.shape
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a}x{b} and {c}x{d})")
    _same_dtype(input, mat2)
    return _mm(input, mat2)


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
    return _mv(input, vec)


def dot(input, tensor):
    if input.dim() != 1 or tensor.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.dim()}D and {tensor.dim()}D "
                           "tensors")
    if input.dtype is not tensor.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found "
                           f"{_TYPE_NAMES[input.dtype.name]} and {_TYPE_NAMES[tensor.dtype.name]}")
    n, m = input.numel(), tensor.numel()
    if n != m:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to "
                           f"have the same number of elements, but got {n} and {m} elements "
                           "respectively")
    return _dot(input, tensor)


def bmm(input, mat2):
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


def matmul(input, other):
    d1, d2 = input.dim(), other.dim()
    if d1 == 0 or d2 == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                           f"{d1}D and {d2}D")
    if d1 == 1 and d2 == 1:
        return dot(input, other)
    if d1 == 2 and d2 == 1:
        return mv(input, other)
    if d1 == 1 and d2 == 2:     # ATen squeezes the fresh mm result in place: one version bump
        out = _squeeze_result(mm(input.unsqueeze(0), other), dim=0)
        out._version_counter.version += 1
        return out
    if d1 == 2 and d2 == 2:
        return mm(input, other)
    if _should_fold(input, other):
        flip = d2 > d1
        t1 = other.transpose(-1, -2) if flip else input
        t2 = (input.t() if d1 == 2 else input) if flip else other
        out_shape = list(t1.shape[:-1])
        folded = reshape(t1, -1, t1.shape[-1])
        if t2.dim() == 2:
            out_shape.append(t2.shape[1])
            out = _unsafe_view_of(mm(folded, t2), out_shape)
            return contiguous(out.transpose(-1, -2)) if flip else out
        return _unsafe_view_of(mv(folded, t2), out_shape)
    n = input.shape[-2] if d1 > 1 else 1
    m1 = input.shape[-1]
    m2 = other.shape[-2] if d2 > 1 else other.shape[0]
    p = other.shape[-1] if d2 > 1 else 1
    from .registry import broadcast_shapes
    batch = broadcast_shapes(tuple(input.shape[:-2]), tuple(other.shape[:-2]))
    nb = 1
    for s in batch:
        nb *= s
    a = reshape(expand(input, *batch, n, m1), nb, n, m1)
    b = reshape(expand(other, *batch, m2, p) if d2 > 1 else expand(other, *batch, m2), nb, m2, p)
    out_shape = list(batch) + ([n] if d1 > 1 else []) + ([p] if d2 > 1 else [])
    return _unsafe_view_of(bmm(a, b), out_shape)


__all__ = ["bmm", "dot", "matmul", "mm", "mv"]

METHODS = {"matmul": matmul, "mm": mm, "mv": mv, "dot": dot, "bmm": bmm,
           "__matmul__": matmul, "__rmatmul__": lambda self, other: matmul(other, self)}
