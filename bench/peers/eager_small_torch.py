"""Issue 25's small ops in PyTorch, for bench/README.md: the cases of
BenchmarkEagerSmall (bench/overhead_test.go) on 64x64 float32 tensors.

Run with Debian's python3 (apt-get install python3-torch):
    /usr/bin/python3 bench/peers/eager_small_torch.py [rounds]
Prints one line per case in `go test -bench` style: the best of `rounds`
(default 5) wall ns/op and the process CPU ns/op of that round.
"""
import sys
import time

import pinthreads  # noqa: F401,E402  (first: pins the thread pools to THREADS, default 1)
import torch

torch.manual_seed(0)
x, y = torch.rand(64, 64), torch.rand(64, 64)
w1, b1 = torch.rand(64, 64), torch.rand(64)
w2, b2 = torch.rand(10, 64), torch.rand(10)
F = torch.nn.functional


def mlp():
    h = F.linear(x, w1, b1).relu()
    return F.linear(h, w2, b2)


CASES = [
    ("add", lambda: torch.add(x, y)),
    ("mul", lambda: torch.mul(x, y)),
    ("relu", lambda: torch.relu(x)),
    ("sum", lambda: torch.sum(x)),
    ("matmul", lambda: torch.matmul(x, y)),
    ("mlp", mlp),
]


def bench(name, fn, rounds, n=50000):
    for _ in range(1000):
        fn()
    best, best_cpu = float("inf"), 0.0
    for _ in range(rounds):
        c0, t0 = time.process_time_ns(), time.perf_counter_ns()
        for _ in range(n):
            fn()
        t, c = (time.perf_counter_ns() - t0) / n, (time.process_time_ns() - c0) / n
        if t < best:
            best, best_cpu = t, c
    print(f"BenchmarkEagerSmall/torch/{name}/64x64\t{n}\t{best:.1f} ns/op\t{best_cpu:.1f} cpu-ns/op")


rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
for name, fn in CASES:
    bench(name, fn, rounds)
