"""glassgrad.glass: see through autograd. graph(t) draws the history behind a tensor (text,
Graphviz DOT, SVG/PNG); explain(t) narrates it: what each node saved and why, which saved
tensors were modified since, and what is safe to modify in place now. Autograd errors explain
themselves after PyTorch's text (errors.py; torch_message(e) gives PyTorch's part), from the
provenance recorded as programs run (set_provenance(False) turns it off)."""
from ..autograd.provenance import is_provenance_enabled, set_provenance
from .errors import torch_message
from .explain import explain
from .graph import Graph, GraphvizNotFound, graph

__all__ = ["Graph", "GraphvizNotFound", "explain", "graph", "is_provenance_enabled",
           "set_provenance", "torch_message"]
