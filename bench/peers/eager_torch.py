"""Eager per-op overhead of PyTorch on this machine, for bench/README.md.

Run with Debian's python3 (apt-get install python3-torch):
    /usr/bin/python3 bench/peers/eager_torch.py
Prints one line per case in `go test -bench` style (ns/op).
"""
import time

import pinthreads  # noqa: F401,E402  (first: pins the thread pools to THREADS, default 1)
import torch



def bench(name, fn, n=200000):
    for _ in range(1000):
        fn()
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter_ns()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter_ns() - t0) / n)
    print(f"BenchmarkEager/torch/{name}\t{n}\t{best:.1f} ns/op")


for label, shape in (("1", (1,)), ("64x64", (64, 64))):
    x = torch.ones(shape)
    y = torch.ones(shape)
    bench(f"add/{label}", lambda: torch.add(x, y))
    bench(f"add_/{label}", lambda: x.add_(y))
