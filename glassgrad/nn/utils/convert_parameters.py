"""parameters_to_vector, vector_to_parameters: parameters as one flat vector and back."""
from ..modules.module import typename
from ..._tensor import Tensor
from ...ops.shape import cat

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters):
    return cat([p.view(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {typename(vec)}")
    pointer = 0
    for param in parameters:
        n = param.numel()
        param.data = vec[pointer:pointer + n].view_as(param).data
        pointer += n
