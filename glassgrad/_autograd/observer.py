"""The tracer protocol: what the engine tells an observer of a backward pass.

While ``state.tracer`` is set (``glass.trace_backward`` sets it to its Trace, a subclass), the
engine runs every node through its hook-aware path and calls these methods, in the order it
does the work. The base class does nothing and runs hooks as they are, so an observer overrides
only what it records. Gradients are Tensors; ``node`` is the backward node concerned.
"""


class Tracer:
    def begin(self, roots, root_grads):
        """A backward pass starts from ``roots`` ((node, nr) pairs) with ``root_grads``."""

    def end(self):
        """The pass that began last is over (finished or failed)."""

    def node(self, node, grads):
        """``node`` is about to run on ``grads`` (one per forward output). May return a step
        object whose ``done(out)`` the engine calls with the gradients ``node`` returned."""

    def call(self, kind, node, hook, args, output_nr=None):
        """Run ``hook(*args)`` for the engine and return its result: ``kind`` is "tensor hook",
        "pre-hook", "post-hook" or "post-accumulate-grad hook"."""
        return hook(*args)

    def retain_grad(self, node, output_nr, grad):
        """``grad`` goes into the .grad of the retained tensor ``node`` made as ``output_nr``."""

    def reduce(self, node, i, nxt, grad, reduced):
        """Gradient ``i`` of ``node`` was summed to its input's shape (for ``nxt``)."""

    def cast(self, node, i, nxt, grad, cast):
        """Gradient ``i`` of ``node`` was cast to its input's dtype (for ``nxt``)."""

    def capture(self, node, i, output_nr, grad):
        """autograd.grad took ``grad`` as the gradient of its ``inputs[i]``."""
