"""Gradient clipping: get_total_norm, clip_grads_with_norm_, clip_grad_norm_ (and its
deprecated alias clip_grad_norm), clip_grad_value_. On CPU torch takes its foreach path; the
values are those of the per-tensor path, which is what runs here for either choice."""
import functools
import types
import warnings

from ... import _creation, linalg
from ..._autograd.grad_mode import no_grad
from ..._tensor import Tensor
from ...ops.shape import stack

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "get_total_norm",
           "clip_grads_with_norm_"]


def _no_grad(func):
    @functools.wraps(func)
    def run(*args, **kwargs):
        with no_grad():
            return func(*args, **kwargs)
    return run


def _by_dtype(tensors):
    """The tensors grouped by dtype, the groups in the order their dtypes first appear (torch
    groups by device and dtype)."""
    groups = {}
    for t in tensors:
        groups.setdefault(t.dtype, []).append(t)
    return list(groups.values())


@_no_grad
def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return _creation.tensor(0.0)
    norms = [linalg.vector_norm(t, norm_type) for group in _by_dtype(tensors) for t in group]
    total = linalg.vector_norm(stack(norms), norm_type)
    if error_if_nonfinite and bool(total.isnan() | total.isinf()):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from "
                           "`parameters` is non-finite, so it cannot be clipped. To disable "
                           "this error and scale the gradients by the non-finite norm anyway, "
                           "set `error_if_nonfinite=False`")
    return total


@_no_grad
def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    parameters = [parameters] if isinstance(parameters, Tensor) else parameters
    grads = [p.grad for p in parameters if p.grad is not None]
    max_norm = float(max_norm)
    if not grads:
        return
    coef = (max_norm / (total_norm + 1e-6)).clamp(max=1.0)
    for g in grads:
        g.mul_(coef)


@_no_grad
def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                    foreach=None):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if is_generator and not parameters:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will "
                          "occur.", stacklevel=3)
    grads = [p.grad for p in parameters if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                   foreach=None):
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


@_no_grad
def clip_grad_value_(parameters, clip_value, foreach=None):
    parameters = [parameters] if isinstance(parameters, Tensor) else parameters
    clip_value = float(clip_value)
    for g in [p.grad for p in parameters if p.grad is not None]:
        g.clamp_(min=-clip_value, max=clip_value)
