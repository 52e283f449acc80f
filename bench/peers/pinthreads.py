"""Pins PyTorch's thread pools to THREADS (default 1) before torch is loaded.

Debian's PyTorch runs its matrix products on OpenBLAS, whose own thread pool
takes every core whatever torch.set_num_threads says (with 2 cores a "1
thread" charlm epoch used 1.7 s of CPU per second). OpenBLAS, OpenMP and MKL
read their pool sizes once, when loaded, so this module sets them and must be
imported before torch:

    import pinthreads  # noqa: F401  (first: pins the thread pools)
    import torch
"""
import os

THREADS = int(os.environ.get("THREADS", "1"))
# BLAS_THREADS (default THREADS) sizes OpenBLAS's pool alone: THREADS=1
# BLAS_THREADS=2 is how Debian's PyTorch runs when nothing is set, and its
# fastest two-core setting here (THREADS=2 makes OpenMP's and OpenBLAS's
# threads wait on each other).
BLAS_THREADS = int(os.environ.get("BLAS_THREADS", str(THREADS)))
os.environ["OMP_NUM_THREADS"] = str(THREADS)
os.environ["MKL_NUM_THREADS"] = str(THREADS)
os.environ["OPENBLAS_NUM_THREADS"] = str(BLAS_THREADS)

import torch  # noqa: E402

torch.set_num_threads(THREADS)
