"""PyTorch 1.13 on the benchmark MLP 784-1024-1024-10 at batch 256, one thread,
for bench/README.md: the forward pass with the mean cross-entropy loss, and the
training step (forward, backward, SGD).

Run with Debian's python3 (apt-get install python3-torch):
    /usr/bin/python3 bench/peers/mlp_torch.py
THREADS=2 runs it on two threads. Prints lines in `go test -bench` style (ns/op, best of 5 rounds).
"""
import os
import time

import pinthreads  # noqa: F401,E402  (first: pins the thread pools to THREADS, default 1)
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(784, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 10))
x = torch.randn(256, 784)
labels = torch.randint(0, 10, (256,))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
# Matrix-product flops: forward; the step adds one weight gradient per layer and
# an input gradient for every layer but the first.
flops = {"forward": 2 * 256 * (784 * 1024 + 1024 * 1024 + 1024 * 10)}
flops["train"] = 3 * flops["forward"] - 2 * 256 * 784 * 1024


def forward():
    with torch.no_grad():
        F.cross_entropy(model(x), labels)


def train():
    opt.zero_grad()
    F.cross_entropy(model(x), labels).backward()
    opt.step()


def bench(name, fn, n):
    for _ in range(5):
        fn()
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter_ns()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter_ns() - t0) / n)
    print(f"BenchmarkMLP/torch/{name}\t{n}\t{best:.0f} ns/op\t{flops[name] / best:.2f} GFLOP/s")


bench("forward", forward, 50)
bench("train", train, 20)
