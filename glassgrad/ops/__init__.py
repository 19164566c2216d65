"""The op table, grouped by kind; methods() gives the Tensor its op methods and dunders."""
from . import linalg, pointwise, reduce, shape  # noqa: F401


def _r(fn):
    """The reflected form of a binary op (``2 * x`` calls ``x.__rmul__(2)``)."""
    return lambda self, other: fn(other, self)


def _binary(fn):
    from .._tensor import Tensor

    def method(self, other):
        if not isinstance(other, (Tensor, int, float)):
            return NotImplemented
        return fn(self, other)
    return method


def methods():
    """name -> function for the Tensor class."""
    p, r, s, la = pointwise, reduce, shape, linalg
    return {
        # arithmetic
        "add": p.add, "sub": p.sub, "mul": p.mul, "div": p.div, "pow": p.pow, "neg": p.neg,
        "abs": p.abs, "sign": p.sign, "exp": p.exp, "log": p.log, "sqrt": p.sqrt, "sin": p.sin,
        "cos": p.cos, "tanh": p.tanh, "sigmoid": p.sigmoid, "relu": p.relu,
        "reciprocal": p.reciprocal, "clamp": p.clamp, "clip": p.clamp,
        "eq": p.eq, "ne": p.ne, "lt": p.lt, "le": p.le, "gt": p.gt, "ge": p.ge,
        "logical_and": p.logical_and, "logical_or": p.logical_or,
        "__add__": _binary(p.add), "__radd__": _binary(p.add),
        "__sub__": _binary(p.sub), "__rsub__": _binary(p.rsub),
        "__mul__": _binary(p.mul), "__rmul__": _binary(p.mul),
        "__truediv__": _binary(p.div), "__rtruediv__": _binary(lambda a, b: a.reciprocal() * b),
        "__pow__": _binary(p.pow), "__rpow__": _binary(_r(p.pow)),
        "__matmul__": la.matmul, "__rmatmul__": _r(la.matmul),
        "__neg__": p.neg, "__abs__": p.abs, "__pos__": lambda self: self,
        "__eq__": _binary(p.eq), "__ne__": _binary(p.ne), "__lt__": _binary(p.lt),
        "__le__": _binary(p.le), "__gt__": _binary(p.gt), "__ge__": _binary(p.ge),
        "__and__": _binary(p.bitwise_and), "__or__": _binary(p.bitwise_or),
        # in-place
        "add_": p.add_, "sub_": p.sub_, "mul_": p.mul_, "div_": p.div_, "zero_": p.zero_,
        "fill_": p.fill_, "copy_": p.copy_, "clamp_": p.clamp_, "clip_": p.clamp_,
        "__iadd__": p.add_, "__isub__": p.sub_, "__imul__": p.mul_, "__itruediv__": p.div_,
        # reductions and products
        "sum": r.sum, "mean": r.mean, "matmul": la.matmul, "mm": la.mm, "mv": la.mv,
        "dot": la.dot, "bmm": la.bmm,
        # shape
        "view": s.view, "reshape": s.reshape, "view_as": lambda self, o: s.view(self, o.shape),
        "reshape_as": lambda self, o: s.reshape(self, o.shape), "t": s.t,
        "transpose": s.transpose, "permute": s.permute, "unsqueeze": s.unsqueeze,
        "squeeze": s.squeeze, "expand": s.expand, "expand_as": s.expand_as, "select": s.select,
        "unbind": s.unbind, "clone": s.clone, "contiguous": s.contiguous,
        "__getitem__": s.getitem,
        "T": property(lambda self: s.permute(self, tuple(reversed(range(self.dim()))))),
        "mT": property(lambda self: s.transpose(self, -2, -1)),
    }
