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
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = str(THREADS)

import torch  # noqa: E402

torch.set_num_threads(THREADS)
