"""The op table, grouped by kind. Each module lists its public functions in ``__all__`` (the
``glassgrad.*`` namespace) and its Tensor methods in ``METHODS``; methods() merges them."""
from . import linalg, pointwise, reduce, shape

MODULES = (pointwise, reduce, linalg, shape)


def methods():
    """name -> function (or property) for the Tensor class."""
    out = {}
    for module in MODULES:
        clash = out.keys() & module.METHODS.keys()
        assert not clash, f"{module.__name__} redefines {clash}"
        out.update(module.METHODS)
    return out
