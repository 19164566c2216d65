"""torch.backends: the flags and availability queries of the backends PyTorch has. glassgrad
computes with NumPy on the CPU and none of these backends exists here: every is_available()
answers False, and the flags are kept (glassgrad's results never depend on them: its kernels
are deterministic and have no cuDNN, TF32 or oneDNN paths)."""
from . import cuda, cudnn, mkl, mkldnn, mps, openmp  # noqa: E402,F401
