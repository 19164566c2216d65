"""The op table, grouped by kind. Each module lists its public functions in ``__all__`` (the
``glassgrad.*`` namespace), its Tensor methods in ``METHODS`` and, where it has any, its
``glassgrad.linalg`` functions in ``LINALG``; the merges below check that no name is defined
twice."""
from . import conv, indexing, linalg, nn, pointwise, random, reduce, shape

MODULES = (pointwise, reduce, linalg, shape, indexing, nn, conv, random)


def _merged(attr):
    out = {}
    for module in MODULES:
        table = getattr(module, attr, {})
        clash = out.keys() & table.keys()
        assert not clash, f"{module.__name__} redefines {clash}"
        out.update(table)
    return out


def methods():
    """name -> function (or property) for the Tensor class."""
    return _merged("METHODS")


def linalg_functions():
    """name -> function for the glassgrad.linalg namespace."""
    return _merged("LINALG")
