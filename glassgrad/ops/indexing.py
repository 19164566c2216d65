"""Indexing ops: advanced __getitem__/__setitem__, gather/scatter, index_*, masked_*, take, nonzero."""

__all__ = []        # names for the glassgrad namespace

METHODS = {}        # Tensor methods
