"""The GEMM and convolution benchmarks of bench/gemm_test.go in PyTorch and numpy.

Run with Debian's python3 (apt-get install python3-torch python3-numpy):
    /usr/bin/python3 bench/peers/gemm_peers.py             # 1 and 2 threads
    /usr/bin/python3 bench/peers/gemm_peers.py --threads 1 # one thread count
    /usr/bin/python3 bench/peers/gemm_peers.py --small     # BenchmarkGemmSmall's cases
Prints `go test -bench` style lines (ns/op, best of several runs), the
thread count as the -P suffix go test's -cpu gives:
    BenchmarkGemm/torch/sgemm/1024-1    ...  (torch.mm, a fresh result)
    BenchmarkGemm/numpy/dgemm/1024-2    ...  (a @ b, a fresh result)
    BenchmarkConv2d/torch/conv2d/8x64x56x56-1 ...  (F.conv2d, no bias)
and comment lines starting with '#' naming the BLAS core.

OpenBLAS (which both numpy and Debian's torch.mm call) reads its thread count
once, when it is loaded, from OPENBLAS_NUM_THREADS; so without --threads the
script runs itself once per thread count in a subprocess with that variable
(and OMP_NUM_THREADS, which PyTorch's convolution uses) set.
"""
import argparse
import ctypes
import os
import subprocess
import sys
import time

SIZES = [64, 128, 256, 512, 1024, 2048]
CONV = (8, 64, 56, 56, 64, 3)  # N, C, H, W, K, R: as bench/gemm_test.go
CONV_NAME = "8x64x56x56"
THREADS = [1, 2]
SMALL_SIZES = [64, 96, 128, 256]  # as BenchmarkGemmSmall
BMM = (64, 128, 32, 128)  # batch, m, k, n: per-head attention scores


def best_ns(fn, min_time):
    """The best of several timed calls of fn, after one warm-up call; at least
    3 calls and about min_time seconds in all."""
    fn()
    best, total, runs = float("inf"), 0, 0
    while runs < 3 or (total < min_time * 1e9 and runs < 1000):
        t0 = time.perf_counter_ns()
        fn()
        dt = time.perf_counter_ns() - t0
        best, total, runs = min(best, dt), total + dt, runs + 1
    return best, runs


def openblas_info():
    """Core name, configuration and thread count of each OpenBLAS this process loaded."""
    seen = set()
    out = []
    for line in open("/proc/self/maps"):
        path = line.split()[-1]
        if "blas" not in path or path in seen or not path.startswith("/"):
            continue
        seen.add(path)
        try:
            lib = ctypes.CDLL(path)
            lib.openblas_get_corename.restype = ctypes.c_char_p
            lib.openblas_get_config.restype = ctypes.c_char_p
            out.append(f"{path}: core {lib.openblas_get_corename().decode()}, "
                       f"{lib.openblas_get_config().decode()}, {lib.openblas_get_num_threads()} threads")
        except (OSError, AttributeError):
            out.append(f"{path}: not OpenBLAS")
    return out


def run(threads, min_time, small=False):
    import numpy as np
    import torch
    import torch.nn.functional as F

    torch.set_num_threads(threads)
    print(f"# threads {threads}: numpy {np.__version__}, torch {torch.__version__} "
          f"(torch threads {torch.get_num_threads()}, mkldnn {torch.backends.mkldnn.is_available()})")
    for line in openblas_info():
        print(f"# threads {threads}: {line}")

    def emit(bench, impl, name, fn):
        ns, runs = best_ns(fn, min_time)
        print(f"Benchmark{bench}/{impl}/{name}-{threads}\t{runs}\t{ns:.0f} ns/op", flush=True)

    g = torch.Generator().manual_seed(1)
    if small:
        for n in SMALL_SIZES:
            a = torch.randn(n, n, generator=g)
            b = torch.randn(n, n, generator=g)
            emit("GemmSmall", "torch", f"sgemm/{n}", lambda: torch.mm(a, b))
            an, bn = a.numpy(), b.numpy()
            emit("GemmSmall", "numpy", f"sgemm/{n}", lambda: an @ bn)
        bs, m, k, n = BMM
        a = torch.randn(bs, m, k, generator=g)
        b = torch.randn(bs, k, n, generator=g)
        emit("GemmSmall", "torch", f"bmm/{bs}x{m}x{k}x{n}", lambda: torch.bmm(a, b))
        return
    for n in SIZES:
        for op, dt in (("sgemm", torch.float32), ("dgemm", torch.float64)):
            a = torch.randn(n, n, generator=g, dtype=dt)
            b = torch.randn(n, n, generator=g, dtype=dt)
            emit("Gemm", "torch", f"{op}/{n}", lambda: torch.mm(a, b))
            an, bn = a.numpy(), b.numpy()
            emit("Gemm", "numpy", f"{op}/{n}", lambda: an @ bn)

    n, c, h, w, k, r = CONV
    x = torch.randn(n, c, h, w, generator=g)
    wt = torch.randn(k, c, r, r, generator=g)
    with torch.no_grad():
        emit("Conv2d", "torch", f"conv2d/{CONV_NAME}", lambda: F.conv2d(x, wt, None, 1, 1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, help="one thread count, in this process (default: 1 and 2, each in a subprocess)")
    ap.add_argument("--min-time", type=float, default=float(os.environ.get("PEER_MIN_TIME", "0.5")),
                    help="seconds to spend on each case (default 0.5, or $PEER_MIN_TIME); at least 3 runs")
    ap.add_argument("--small", action="store_true", help="only BenchmarkGemmSmall's cases (sgemm 64-256, bmm)")
    args = ap.parse_args()
    if args.threads:
        if os.environ.get("OPENBLAS_NUM_THREADS") != str(args.threads):
            print(f"# warning: OPENBLAS_NUM_THREADS is {os.environ.get('OPENBLAS_NUM_THREADS')!r}, "
                  f"not {args.threads}: OpenBLAS runs with its own count", flush=True)
        run(args.threads, args.min_time, args.small)
        return 0
    for t in THREADS:
        env = dict(os.environ, OPENBLAS_NUM_THREADS=str(t), OMP_NUM_THREADS=str(t))
        subprocess.run([sys.executable, __file__, "--threads", str(t), "--min-time", str(args.min_time)]
                       + (["--small"] if args.small else []), env=env, check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
