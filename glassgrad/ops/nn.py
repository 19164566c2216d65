"""NN-style ops (softmax, log_softmax, dropout, linear, pad, ...) for glassgrad.nn.functional."""

__all__ = []        # names for the glassgrad namespace

METHODS = {}        # Tensor methods
FUNCTIONAL = {}    # names only in glassgrad.nn.functional (linear, pad, one_hot, ...)
