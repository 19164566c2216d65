"""torch.compile (glassgrad.compile) and the OptimizedModule it makes of a module."""
from ..compiler import ON_FIRST_COMPILE, compile_function
from ..distributions import Distribution
from ..nn.modules.module import Module

# torch's first compile turns distributions' argument validation off by default
# (TorchPatcher.patch: Distribution.set_default_validate_args(False))
ON_FIRST_COMPILE.append(lambda: Distribution.set_default_validate_args(False))


class OptimizedModule(Module):
    """A compiled module: calls run the compiled ``_orig_mod`` (its hooks and forward); its
    state_dict keys carry the ``_orig_mod.`` prefix, as torch's; other attributes are the
    original module's."""

    def __init__(self, mod, compiled):
        super().__init__()
        self._orig_mod = mod
        self._compiled = compiled

    def forward(self, *args, **kwargs):
        return self._compiled(*args, **kwargs)

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            if name == "_orig_mod":
                raise
            return getattr(self._modules["_orig_mod"], name)


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None,  # noqa: A001
            options=None, disable=False):
    """torch.compile: a function or module whose calls replay a captured graph (see
    glassgrad/compiler/_capture.py); without ``model``, a decorator."""
    if model is None:
        return lambda fn: compile(fn, fullgraph=fullgraph, dynamic=dynamic, backend=backend,
                                  mode=mode, options=options, disable=disable)
    if disable:
        return model
    if isinstance(model, Module):
        compiled = compile_function(model._call_impl, fullgraph, dynamic, backend, mode,
                                    options, module=model)
        return OptimizedModule(model, compiled)
    return compile_function(model, fullgraph, dynamic, backend, mode, options)
