"""Kernels that reproduce torch's exact numerics or memory layout on one backend (NumPy):
select.py (libstdc++ introsort/introselect and TH quickselect replays: tie-breaking of sort,
topk, mode, kthvalue, median), lapack.py (getrf's LU and LAPACK's column-major layout),
special.py (erf, erfc, erfinv), im2col.py (convolution windows as strided views), sums.py
(sums over many short rows by einsum: the reductions' and the engine's)."""
