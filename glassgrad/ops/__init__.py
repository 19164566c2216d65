"""The op table, grouped by kind. A public name is declared once, where the thing is defined,
in one vocabulary of *variants*:

- "function": ``glassgrad.<name>`` (listed in the module's ``__all__``)
- "method": ``Tensor.<name>``
- "inplace" (rows only): ``Tensor.<name>_``; "inplace_function" (rows only): ``glassgrad.<name>_``
- "linalg": ``glassgrad.linalg.<name>`` (the module's ``LINALG``)
- "functional": ``torch.nn.functional.<name>`` (the module's ``FUNCTIONAL``)
- "special": ``torch.special.<name>`` (the module's ``SPECIAL``; its parser is named as
  torch's, ``special_<name>``)
- "fft": ``torch.fft.<name>`` (the module's ``FFT``; its parser is named ``fft_<name>``)
- a dunder, "__add__", "__radd__", "__iadd__", ...: that Tensor method

A row declares them with ``defop(name, ..., variants=..., aliases=...)``; a Python function (a
wrapper with torch's argument checks, a composite, a dunder) with ``@public(*variants,
name=None, aliases=(), signatures=())``. aliases are further names for the function, method,
linalg and functional variants. The function and method variants take their arguments through
the argument layer (glassgrad/_args.py): a row's from its one tensor, ``name(Tensor input, *,
Tensor? out=None)``; a Python function's from its ``signatures`` (PyTorch's overloads), where
it declares them. ``publish(globals())`` at the bottom of each ops module names them all in
that module's namespace, ``__all__``, ``METHODS``, ``LINALG`` and ``FUNCTIONAL``; the merges
below check that no name is defined twice."""
import inspect
import sys

from .._args import bind as _bind
from . import registry as _registry

_PUBLISHED = set()      # the rows publish() has named
_DECLARED = []          # (module name, object, name, variants, aliases) from @public


def public(*variants, name=None, aliases=(), signatures=(), method_signatures=None,
           linalg_signatures=()):
    """Declare a Python object public under its ``__name__`` (or ``name``) in the variants
    given (see the module docstring): ``@public("function", "method", aliases=("clip",))``,
    or ``public("__add__")(obj)`` for an object made by a factory. Returns the object as it is:
    no call layer is added. ``signatures``: PyTorch's overloads of the function (as
    tools/torch_signatures.py prints them); the method takes those whose first parameter is a
    Tensor (its self) unless ``method_signatures`` gives torch's method overloads."""
    module = sys._getframe(1).f_globals["__name__"]

    def declare(obj):
        methods = (method_signatures if method_signatures is not None else
                   [s for s in signatures if s[s.index("(") + 1:].startswith("Tensor ")])
        _DECLARED.append((module, obj, name or obj.__name__, variants, aliases, signatures,
                          methods, linalg_signatures))
        return obj
    return declare


def _row_forms(op):
    """A row's public forms by variant, for one of its names: function and in-place function
    (torch.atan2, torch.sin_) and method and in-place method (Tensor.atan2, Tensor.atan2_)
    through the argument layer, with the signature its tensor inputs give (the first one is
    ``input``: ``atan2(Tensor input, Tensor other, *, Tensor? out=None)``); "functional" and
    the dunders call the row as Python calls it."""
    params = ", ".join(f"Tensor {'input' if i == 0 else n}" for i, n in enumerate(op.inputs))

    def plain(*values):
        return op(*values)

    def inplace(self, *others):
        return _registry.apply_inplace(op, self, (self, *others), {})

    def forms(name, variant):
        if variant == "function":
            return _bind(op, [f"{name}({params}, *, Tensor? out=None)"], positional=True)
        if variant == "method":
            return _bind(op, [f"{name}({params})"], method=True, positional=True)
        if variant == "inplace":
            return _bind(inplace, [f"{name}_({params})"], method=True, positional=True)
        if variant == "inplace_function":
            return _bind(inplace, [f"{name}_({params})"], positional=True)
        plain.__name__ = plain.__qualname__ = name
        return plain
    return forms


def _tables(namespace):
    return (namespace.setdefault("__all__", []), namespace.setdefault("METHODS", {}),
            namespace.setdefault("LINALG", {}), namespace.setdefault("FUNCTIONAL", {}),
            namespace.setdefault("SPECIAL", {}), namespace.setdefault("FFT", {}))


def publish(namespace):
    """Name every row and every @public object of this module declared since the last call by
    its variants, in ``namespace`` (an ops module's globals), its ``__all__``, ``METHODS``,
    ``LINALG`` and ``FUNCTIONAL`` (made here if not yet there). Rows with variants take
    tensors (``self`` first) and no attrs."""
    names, methods, linalg, functional, special, fft = _tables(namespace)
    for op in _registry.TABLE:
        if not op.variants or op in _PUBLISHED:
            continue
        _PUBLISHED.add(op)
        forms = _row_forms(op)
        for name in (op.public, *op.aliases):
            if "function" in op.variants:
                namespace[name] = forms(name, "function")
                names.append(name)
            if "method" in op.variants:
                methods[name] = forms(name, "method")
            if "functional" in op.variants:
                functional[name] = forms(name, "functional")
            if "inplace" in op.variants:
                methods[name + "_"] = forms(name, "inplace")
            if "inplace_function" in op.variants:
                namespace[name + "_"] = forms(name, "inplace_function")
                names.append(name + "_")
        for dunder in (v for v in op.variants if v.startswith("__")):
            methods[dunder] = forms(dunder, "__dunder__")
    module = namespace["__name__"]
    for entry in [e for e in _DECLARED if e[0] == module]:
        _DECLARED.remove(entry)
        _, obj, name, variants, aliases, signatures, method_signatures, linalg_sigs = entry
        for variant in variants:
            if variant.startswith("__"):
                methods[variant] = obj
                continue
            for alias in (name, *aliases):
                if variant == "function":
                    namespace[alias] = (_bind(obj, [alias + s[s.index("("):] for s in signatures])
                                        if signatures else obj)
                    names.append(alias)
                elif variant == "method":
                    methods[alias] = (_bind(obj, [alias + s[s.index("("):]
                                                  for s in method_signatures], method=True)
                                      if method_signatures else obj)
                elif variant == "linalg":
                    linalg[alias] = _bind(obj, linalg_sigs) if linalg_sigs else obj
                elif variant == "functional":
                    functional[alias] = _functional_form(obj, namespace.get(alias, obj), alias)
                elif variant == "fft":     # torch.fft.<name>, parsed as torch's fft_<name>
                    fft[alias] = _bind(obj, ["fft_" + alias + s[s.index("("):]
                                             for s in signatures])
                elif variant == "special":
                    special[alias] = (_bind(obj, ["special_" + alias + s[s.index("("):]
                                                  for s in signatures]) if signatures else obj)
                else:
                    raise ValueError(f"{name}: unknown variant {variant!r}")


def _functional_form(obj, function, name):
    """nn.functional's object for ``obj`` declared public as a function too: the function's
    bound form where it takes the very parameters (F.conv2d is torch.conv2d), else ``obj``
    itself (F.relu takes ``inplace``, torch.relu does not), which pickle then finds in
    glassgrad.nn.functional."""
    if function is obj:
        return obj
    params = inspect.signature(obj).parameters
    parser = getattr(function, "parser", None)
    if parser is not None and any(_same_parameters(s, params) for s in parser.signatures):
        return function
    obj.__module__, obj.__qualname__ = "glassgrad.nn.functional", name
    return obj


def _same_parameters(signature, params):
    """The signature's parameters are the function's, names and defaults (F.ctc_loss's
    reduction='mean' is not torch.ctc_loss's int)."""
    mine = [p for p in signature.params if p.name != "out"]
    return [p.name for p in mine] == list(params) and all(
        params[p.name].default in (inspect.Parameter.empty, None, p.default, p.default_text)
        for p in mine if p.optional)


from . import (attention, complex, composite, conv, fft, indexing, legacy, linalg,  # noqa: E402
               loss, lowrank, nn, norm, pointwise, pool, random, reduce, sampling, shape, solvers,
               spatial, special, upsample)

MODULES = (pointwise, reduce, linalg, shape, indexing, nn, conv, pool, spatial, upsample,
           sampling, norm, loss, random, legacy, attention, special, composite, solvers,
           lowrank, complex, fft)


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


def special_functions():
    """name -> function for the glassgrad.special namespace."""
    return _merged("SPECIAL")


def fft_functions():
    """name -> function for the glassgrad.fft namespace."""
    return _merged("FFT")


def functional_functions():
    """name -> function for the glassgrad.nn.functional namespace."""
    return _merged("FUNCTIONAL")
