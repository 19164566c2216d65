"""glassgrad.glass: see through autograd. graph(t) draws the history behind a tensor (text,
Graphviz DOT, SVG/PNG); explain(t) narrates it: what each node saved and why, which saved
tensors were modified since, and what is safe to modify in place now. trace_backward() records
every step of a backward pass (nodes, gradients, hooks, reductions) as a table. Every node
remembers the nn.Module it was made in: explanations and pictures name modules, and
summary(model, *inputs) tabulates what each module keeps for backward, in bytes. Autograd errors
explain themselves in a note under PyTorch's unchanged message (errors.py; explain(e) gives it),
from the provenance recorded as programs run (set_provenance(False) turns it off)."""
from .._autograd.provenance import is_provenance_enabled, set_provenance
from .explain import explain
from .graph import Graph, GraphvizNotFound, graph
from .summary import Summary, summary
from .trace import Trace, trace_backward

__all__ = ["Graph", "GraphvizNotFound", "Summary", "Trace", "explain", "graph",
           "is_provenance_enabled", "set_provenance", "summary", "trace_backward"]
