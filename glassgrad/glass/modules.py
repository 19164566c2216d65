"""Module paths: the ``nn.Module`` calls provenance recorded, named as the user knows them.

Provenance keeps, with every node and in-place version bump, the innermost module call running
when it happened: ``(weakref(module), its class, outer call)``, a chain up to the root module
the user called (``_autograd/provenance.py``). ``ModuleNames`` turns a call into the module's
path from that root, found in the root's ``named_modules()`` (so ``encoder.layers.0.linear1``),
and prefixes the root's name: the variable the user gave the model (``net``) when it is known, else
its class name (``Sequential``). Each root's name table is built once per ``ModuleNames``
(that is, once per explanation or picture), never while the program runs.

A module called from a module that does not hold it (one made in ``forward``, or passed in), or
one no longer alive (modules are held weakly), has no name under the root: its path is its
caller's with ``<Class>`` appended.
"""
from .._autograd.provenance import module_call
from ..nn.modules.module import Module


def module_names(scopes):
    """{id(module): (variable name, module)} of the modules in ``scopes`` (dicts of variables;
    the first name of each module wins)."""
    out = {}
    for scope in scopes:
        for k, v in list(scope.items()):
            if isinstance(v, Module) and not k.startswith("_"):
                out.setdefault(id(v), (k, v))
    return out


def one_line(module):
    """A module as one line: 'ReLU(inplace=True)', 'Linear(in_features=4, ...)', 'Sequential'."""
    extra = module.extra_repr()
    return f"{module._get_name()}({extra})" if extra or not module._modules else \
        module._get_name()


class ModuleNames:
    """The paths of recorded module calls. ``names``: {id(module): (the user's variable name,
    module)}, as module_names() finds them."""

    def __init__(self, names=None):
        self.names = dict(names or {})
        self._tables = {}       # id(root) -> (root, {id(module): path below the root})

    @staticmethod
    def module(call):
        """The module of a call (None when it no longer exists, or for no call)."""
        return call[0]() if call is not None else None

    @staticmethod
    def root_call(call):
        """The outermost call of the chain ``call`` belongs to (the module the user called)."""
        while call is not None and call[2] is not None:
            call = call[2]
        return call

    def path_of(self, root):
        """The name of a root module: its variable's, else (when it lies inside a module a
        variable names) its path there ('model.encoder'), else its class name."""
        named = self.names.get(id(root))
        if named is not None:
            return named[0]
        for name, module in self.names.values():
            below = self._below(module).get(id(root))
            if below:
                return f"{name}.{below}"
        return root._get_name()

    def chain(self, call):
        """[(path, module, class)] from the root call to ``call``."""
        calls = []
        while call is not None:
            calls.append(call)
            call = call[2]
        return [(self.path(c), self.module(c), c[1]) for c in reversed(calls)]

    def path(self, call):
        """'net.3' for the module of ``call``; None outside modules. A module no longer alive,
        or not held by the root, is its class in angle brackets under its caller's path
        ('net.<Tanh>', '<Sequential>.<Linear>')."""
        if call is None:
            return None
        module = self.module(call)
        root = self.module(self.root_call(call))
        below = self._below(root).get(id(module)) if module is not None and root is not None \
            else None
        if below is not None:
            return f"{self.path_of(root)}.{below}" if below else self.path_of(root)
        outer = self.path(call[2])
        return f"{outer}.<{call[1].__name__}>" if outer else f"<{call[1].__name__}>"

    def _below(self, root):
        entry = self._tables.get(id(root))
        if entry is None or entry[0] is not root:
            table = {}
            for name, m in root.named_modules():
                table.setdefault(id(m), name)
            entry = self._tables[id(root)] = (root, table)
        return entry[1]

    def tensor_names(self, calls=()):
        """{id(tensor): (path, tensor)} of the parameters and buffers of the root modules of
        ``calls`` and of the modules the user's variables name: 'net.0.weight'."""
        out = {}
        for root in self._roots(calls):
            prefix = self.path_of(root)
            for name, t in [*root.named_parameters(prefix), *root.named_buffers(prefix)]:
                out.setdefault(id(t), (name, t))
        return out

    def label(self, call):
        """'net.3 (Sigmoid)': the path and class of a call's module; None outside modules."""
        if call is None:
            return None
        module = self.module(call)
        return f"{self.path(call)} ({module._get_name() if module else call[1].__name__})"

    def owners(self, calls=()):
        """{id(parameter or buffer): label of the module holding it} for the root modules of
        ``calls`` and the modules the user's variables name."""
        out = {}
        for root in self._roots(calls):
            prefix = self.path_of(root)
            for name, m in root.named_modules():
                label = f"{prefix}.{name} ({m._get_name()})" if name else \
                    f"{prefix} ({m._get_name()})"
                for t in [*m._parameters.values(), *m._buffers.values()]:
                    if t is not None:
                        out.setdefault(id(t), label)
        return out

    def _roots(self, calls):
        roots = {id(m): m for _, m in self.names.values()}
        for call in calls:
            root = self.module(self.root_call(call))
            if root is not None:
                roots.setdefault(id(root), root)
        return roots.values()

    def describe(self, call):
        """'`net.3` (Sigmoid())': the module a call ran, for sentences; None outside modules."""
        if call is None:
            return None
        module = self.module(call)
        if module is None:
            return f"a {call[1].__name__} module that no longer exists"
        return f"`{self.path(call)}` ({one_line(module)})"

    def of_site(self, src):
        """describe() of the module call a recorded site was made in."""
        return self.describe(module_call(src))
