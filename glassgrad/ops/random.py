"""Random ops drawing from glassgrad's own generator (manual_seed makes runs repeatable)."""

__all__ = []        # names for the glassgrad namespace

METHODS = {}        # Tensor methods
