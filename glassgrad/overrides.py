"""torch.overrides: the __torch_function__ protocol's public helpers (the machinery is
glassgrad/_overrides.py)."""
from ._overrides import handle_torch_function, has_torch_function, is_tensor_like

__all__ = ["has_torch_function", "has_torch_function_unary", "has_torch_function_variadic",
           "handle_torch_function", "is_tensor_like"]


def has_torch_function_unary(arg):
    return has_torch_function((arg,))


def has_torch_function_variadic(*args):
    return has_torch_function(args)
