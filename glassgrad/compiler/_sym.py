"""A tensor's value read in Python while a function is captured, kept symbolic (torch's
unspecialized floats, in small): ``Tensor.item()`` called from a function registered with
``traceable_reads`` (an optimizer's update, reading its step counter) returns a _Sym, a float
that remembers how it was computed. Its arithmetic (+ - * / ** and unary minus with Python
numbers and other _Syms) gives new _Syms, each holding the value eager Python computes and the
expression; anything else that would turn it into a plain value (comparisons, bool(), int(),
float(), round(), hashing, formatting) breaks the graph, so a replay never uses a stale value.
The captured ops get the plain value; the replay recomputes the expression from the tensor
it reads (the same float operations in the same order: eager's value bit for bit)."""
import operator

_TRACEABLE = set()      # the code objects whose .item() calls are read symbolically
_NUMBERS = (int, float)


def traceable_reads(fn):
    """Mark ``fn`` as computing only arithmetic from the values it reads with .item()."""
    _TRACEABLE.add(fn.__code__)
    return fn


def traceable(code):
    return code in _TRACEABLE


class Sym(float):
    """A float with its expression: ("read", n) or (operator, operand, ...)."""
    __slots__ = ("expr", "on_escape")

    def __new__(cls, value, expr, on_escape):
        s = float.__new__(cls, value)
        s.expr, s.on_escape = expr, on_escape
        return s

    @property
    def value(self):
        return float.__float__(self)

    def item(self):     # (the argument parser's Scalar conversion of a float subclass)
        return self


def _plain(x):
    return x.value if type(x) is Sym else x


def _arith(fn, reflected=False):
    def method(self, other):
        if type(other) is bool or not isinstance(other, _NUMBERS):
            return NotImplemented
        a, b = (other, self) if reflected else (self, other)
        return Sym(fn(_plain(a), _plain(b)), (fn, a, b), self.on_escape)
    return method


def _unary(fn):
    def method(self):
        return Sym(fn(self.value), (fn, self), self.on_escape)
    return method


for _name, _fn in (("add", operator.add), ("sub", operator.sub), ("mul", operator.mul),
                   ("truediv", operator.truediv), ("pow", operator.pow)):
    setattr(Sym, f"__{_name}__", _arith(_fn))
    setattr(Sym, f"__r{_name}__", _arith(_fn, reflected=True))
Sym.__neg__, Sym.__pos__, Sym.__abs__ = (_unary(operator.neg), _unary(operator.pos),
                                         _unary(operator.abs))


def _escape(name):
    def method(self, *args):
        self.on_escape(f"a Python {name} of a tensor's value read with .item()")
        return getattr(float, name)(self.value, *args)
    return method


for _name in ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__bool__",
              "__int__", "__float__", "__index__", "__round__", "__trunc__", "__floor__",
              "__ceil__", "__hash__", "__format__", "__repr__", "__str__", "__floordiv__",
              "__rfloordiv__", "__mod__", "__rmod__", "__divmod__", "__rdivmod__",
              "is_integer", "as_integer_ratio", "hex", "conjugate"):
    if hasattr(float, _name):
        setattr(Sym, _name, _escape(_name))


def plain(values, attrs):
    """(values, attrs) with every top-level Sym replaced by its value, and the Syms by
    position: ({index: Sym}, {name: Sym}), or None where there are none."""
    if not any(type(v) is Sym for v in values) and not any(type(v) is Sym
                                                           for v in attrs.values()):
        for v in (*values, *attrs.values()):
            if type(v) in (list, tuple):
                for x in v:
                    if type(x) is Sym:      # (a replay would pass the captured value)
                        x.on_escape("a value read with .item() inside a list argument")
        return values, attrs, None
    syms = ({i: v for i, v in enumerate(values) if type(v) is Sym},
            {k: v for k, v in attrs.items() if type(v) is Sym})
    return (tuple(_plain(v) for v in values), {k: _plain(v) for k, v in attrs.items()}, syms)


def source(ns, s):
    """The Python expression that recomputes ``s`` in generated code (reads are ``y<n>``)."""
    if type(s) is not Sym:
        name = f"N{len(ns)}"
        ns[name] = s
        return name
    fn, *args = s.expr
    if fn == "read":
        return f"y{args[0]}"
    name = f"OP_{fn.__name__}"
    ns[name] = fn
    return f"{name}({', '.join(source(ns, a) for a in args)})"
