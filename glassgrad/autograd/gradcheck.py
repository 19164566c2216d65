"""gradcheck / gradgradcheck: compare backward's Jacobians with central finite differences.

Jacobians are NumPy arrays laid out like PyTorch's: (numel of the input, numel of the output).
Perturbations write straight into the input's array, so its version does not move (PyTorch
writes through ``.data``). Only the slow (full Jacobian) mode exists; fast_mode runs it too.
"""
import warnings

from .. import dtypes
from .._creation import rand, zeros, zeros_like
from .._tensor import Tensor
from ..backend import xp as np
from . import grad as _grad


class GradcheckError(RuntimeError):
    """Raised by gradcheck and gradgradcheck when a check fails."""


def _as_tuple(x):
    if isinstance(x, tuple):
        return x
    return tuple(x) if isinstance(x, list) else (x,)


def _is_tensor(x):
    return isinstance(x, Tensor)


def _diff_inputs(inputs):
    return [x for x in inputs if _is_tensor(x) and x.requires_grad]


def _show(array):
    return repr(Tensor._make(array))


def _check_inputs(inputs):
    found = False
    for i, x in enumerate(inputs):
        if not (_is_tensor(x) and x.requires_grad):
            continue
        if x.dtype.name != "float64":
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating "
                          "point or complex. This check will likely fail if all the inputs are "
                          "not of double precision floating point or complex. ", stacklevel=3)
        if not all(st > 0 or n <= 1 for st, n in zip(x.stride(), x.shape)):
            raise RuntimeError(f"The {i}th input has a dimension with stride 0. gradcheck only "
                               "supports inputs that are non-overlapping to be able to compute "
                               "the numerical gradients correctly. You should call .contiguous "
                               "on the input before passing it to gradcheck.")
        found = True
    if not found:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but "
                         "none of them have requires_grad=True.")


def _numerical(func, inputs, outputs, eps):
    """[input][output] -> (numel_in, numel_out) finite-difference Jacobians, every output."""
    def run():
        return [o._data.copy() for o in _as_tuple(func(*inputs)) if _is_tensor(o)]

    jacobians = []
    for x in _diff_inputs(inputs):
        data = x._data
        per_output = [np.zeros((data.size, o.numel())) for o in outputs if _is_tensor(o)]
        for k, idx in enumerate(np.ndindex(data.shape)):
            orig = data[idx].copy()
            data[idx] = orig - eps
            before = run()
            data[idx] = orig + eps
            after = run()
            data[idx] = orig
            for jac, a, b in zip(per_output, before, after):
                jac[k] = ((b - a) / (2 * eps)).reshape(-1)
        jacobians.append(per_output)
    return jacobians


def _analytical(inputs, output, nondet_tol):
    """[input] -> (numel_in, numel_out) Jacobians of one output, by one backward per element."""
    diff = _diff_inputs(inputs)

    def rows():
        jacs = [np.zeros((x.numel(), output.numel())) for x in diff]
        sizes_ok = True
        for j in range(output.numel()):
            grad_out = zeros(output.shape, dtype=output.dtype)   # (contiguous: a view to write)
            grad_out._data.reshape(-1)[j] = 1
            grads = _grad(output, diff, grad_out, retain_graph=True, allow_unused=True)
            for jac, g, x in zip(jacs, grads, diff):
                if g is None:
                    continue
                if g.shape != x.shape:
                    sizes_ok = False
                else:
                    jac[:, j] = g._data.reshape(-1)
        return jacs, sizes_ok

    first, sizes_ok = rows()
    second, _ = rows()
    if not sizes_ok:
        raise GradcheckError("Analytical gradient has incorrect size")
    if any(a.size and np.abs(a - b).max() > nondet_tol for a, b in zip(first, second)):
        raise GradcheckError(
            "Backward is not reentrant, i.e., running backward with same input and grad_output "
            "multiple times gives different values, although analytical gradient matches "
            f"numerical gradient.The tolerance for nondeterminism was {nondet_tol}.")
    return first


def _check_mul_by_grad_output(outputs, inputs):
    """Zero grad_outputs must give zero gradients of the inputs' type and size."""
    diff = _diff_inputs(inputs)
    grads = _grad(outputs, diff, [zeros_like(o) for o in outputs], allow_unused=True)
    for g, x in zip(grads, diff):
        if g is None:
            continue
        if np.any(g._data != 0):
            raise GradcheckError("backward not multiplied by grad_output")
        if g.dtype is not x.dtype:
            raise GradcheckError("grad is incorrect type")
        if g.shape != x.shape:
            raise GradcheckError("grad is incorrect size")


def _gradcheck(func, inputs, eps, atol, rtol, nondet_tol):
    inputs = _as_tuple(inputs)
    _check_inputs(inputs)
    func_out = _as_tuple(func(*inputs))
    outputs = tuple(o for o in func_out if o.requires_grad)
    numerical = _numerical(func, inputs, func_out, eps)
    if not outputs:
        if any(np.any(jac != 0) for per_input in numerical for jac in per_input):
            raise GradcheckError("Numerical gradient for function expected to be zero")
        return True
    keep = [i for i, o in enumerate(func_out) if o.requires_grad]
    for i, o in enumerate(outputs):
        analytical = _analytical(inputs, o, nondet_tol)
        for j, a in enumerate(analytical):
            n = numerical[j][keep[i]]
            if not np.all(np.abs(a - n) <= atol + rtol * np.abs(n)):
                raise GradcheckError(f"Jacobian mismatch for output {i} with respect to input "
                                     f"{j},\nnumerical:{_show(n)}\nanalytical:{_show(a)}\n")
    _check_mul_by_grad_output(outputs, inputs)
    return True


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False,
              check_forward_ad=False, check_backward_ad=True, fast_mode=False, masked=None):
    """Check backward's gradients of ``func`` at ``inputs`` against finite differences.

    Only backward-mode checks run: undefined-gradient, batched and forward-AD checks are not
    implemented and their flags are accepted and ignored."""
    try:
        return _gradcheck(func, inputs, eps, atol, rtol, nondet_tol)
    except GradcheckError:
        if raise_exception:
            raise
        return False


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False,
                  masked=False):
    """gradcheck of the map (inputs, grad_outputs) -> gradients, i.e. of double backward."""
    inputs = _as_tuple(inputs)
    if grad_outputs is None:    # random cotangents in [-1, 1), like torch.testing.make_tensor
        outs = [o for o in _as_tuple(func(*inputs)) if o.requires_grad]
        grad_outputs = tuple(
            (rand(o.shape, dtype=o.dtype if o.is_floating_point() else dtypes.float64) * 2 - 1)
            .detach().requires_grad_() for o in outs)
    grad_outputs = _as_tuple(grad_outputs)
    n_out = len(grad_outputs)
    diff_at = [i for i, x in enumerate(inputs) if _is_tensor(x) and x.requires_grad]

    def first_derivative(*args):
        ins, cotangents = args[:len(args) - n_out], args[len(args) - n_out:]
        outs = tuple(o for o in _as_tuple(func(*ins)) if o.requires_grad)
        grads = _grad(outs, [ins[i] for i in diff_at], cotangents, create_graph=True,
                      allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_derivative, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol)
