"""torch.backends.mps: Apple's Metal backend, not built into glassgrad."""


def is_built():
    return False


def is_available():
    return False
