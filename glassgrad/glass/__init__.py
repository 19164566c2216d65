"""glassgrad.glass: see through autograd. graph(t) draws the history behind a tensor (text,
Graphviz DOT, SVG/PNG); explain(t) narrates it: what each node saved and why, which saved
tensors were modified since, and what is safe to modify in place now."""
from ..autograd.provenance import is_provenance_enabled, set_provenance
from .errors import torch_message
from .explain import explain
from .graph import Graph, GraphvizNotFound, graph

__all__ = ["Graph", "GraphvizNotFound", "explain", "graph", "is_provenance_enabled",
           "set_provenance", "torch_message"]
