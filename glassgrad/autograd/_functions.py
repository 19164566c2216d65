"""torch.autograd._functions: the legacy Functions behind Tensor.resize and Tensor.resize_as
(installed on Tensor by autograd/__init__.py)."""
import functools
import operator
import warnings

from .function import Function


class Resize(Function):
    """A view of the tensor in another shape of as many elements (ResizeBackward)."""

    @staticmethod
    def forward(ctx, tensor, sizes):
        ctx.sizes = sizes
        ctx.numel = functools.reduce(operator.mul, sizes, 1)
        if tensor.numel() != ctx.numel:
            raise RuntimeError(
                "requested resize to {} ({} elements in total), but the given tensor has a size "
                "of {} ({} elements). autograd's resize can only change the shape of a given "
                "tensor, while preserving the number of elements. ".format(
                    "x".join(map(str, sizes)), ctx.numel, "x".join(map(str, tensor.size())),
                    tensor.numel()))
        ctx.input_sizes = tensor.size()
        return tensor.contiguous().view(*sizes)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.contiguous().view(ctx.input_sizes), None


def resize(self, *sizes):
    """Tensor.resize (deprecated): Resize of the tensor."""
    warnings.warn("non-inplace resize is deprecated", stacklevel=2)
    return Resize.apply(self, sizes)


def resize_as(self, tensor):
    """Tensor.resize_as (deprecated): Resize to the other tensor's size."""
    warnings.warn("non-inplace resize_as is deprecated", stacklevel=2)
    return Resize.apply(self, tensor.size())
