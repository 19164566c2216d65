"""torch.compiler: reset, is_compiling; glassgrad.compile's engine is _capture.py (a captured
replay under one CompiledFunctionBackward node), its settings config.py (torch._dynamo.config)
and its exceptions exc.py (torch._dynamo.exc); ``traceable_reads`` marks a function whose
``.item()`` values a capture keeps symbolic (_sym.py: an optimizer's step counter)."""
from ._capture import CompiledFunction, fullgraph_break, is_compiling, reset  # noqa: F401
from ._sym import traceable_reads  # noqa: F401
from . import config, exc  # noqa: F401

_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")


def compile_function(fn, fullgraph=False, dynamic=None, backend="inductor", mode=None,
                     options=None, module=None):
    """torch.compile's checks of its arguments, then the compiled callable of ``fn``.
    mode/dynamic/options/backend name what torch's compiler does, not what it computes: the
    replay gives eager's values whatever they say (a callable backend, which would be handed
    torch's FX graph, is refused)."""
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be "
                           "specified at the same time.")
    if mode is not None and mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_MODES)}")
    if callable(backend):
        raise NotImplementedError("glassgrad.compile: a callable backend (it would be handed "
                                  "torch's FX graph, which glassgrad does not build)")
    while ON_FIRST_COMPILE:     # once, as torch's TorchPatcher.patch
        ON_FIRST_COMPILE.pop(0)()
    return CompiledFunction(fn, fullgraph, module)


# what torch changes process-wide the first time it compiles (torch._dynamo registers them:
# distributions' default validate_args turned off)
ON_FIRST_COMPILE = []
