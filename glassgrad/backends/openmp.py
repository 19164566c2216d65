"""torch.backends.openmp: glassgrad's CPU threads are NumPy's BLAS pool, not OpenMP."""


def is_available():
    return False
