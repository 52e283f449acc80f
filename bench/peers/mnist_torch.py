"""PyTorch 1.13 on bench/mnist_test.go's cases, one thread: a training step of
examples/mnist's CNN at batch 32 (forward, cross entropy, zero_grad, backward,
SGD with momentum), and convolutions alone, forward (with a bias) and backward
(input, weight and bias gradients): the model's two (conv1's input gradient not
asked for, as in the model) and the op survey's 3×3 and depthwise cases.

Run with Debian's python3 (apt-get install python3-torch):
    /usr/bin/python3 bench/peers/mnist_torch.py
THREADS=2 runs it on two threads. Prints lines in `go test -bench` style: the
best of 5 rounds, wall time (ns/op) and the process's CPU time (cpu-ns/op).
"""
import os
import time

import pinthreads  # noqa: F401,E402  (first: pins the thread pools to THREADS, default 1)
import torch
from torch import nn

torch.manual_seed(0)
B = 32
model = nn.Sequential(
    nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Flatten(), nn.Linear(16 * 7 * 7, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
loss_fn = nn.CrossEntropyLoss()
x = torch.rand(B, 1, 28, 28)
y = torch.randint(0, 10, (B,))


def step():
    loss = loss_fn(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()


def bench(name, fn, n):
    for _ in range(3):
        fn()
    best, best_cpu = float("inf"), float("inf")
    for _ in range(5):
        t0, c0 = time.perf_counter_ns(), time.process_time_ns()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter_ns() - t0) / n)
        best_cpu = min(best_cpu, (time.process_time_ns() - c0) / n)
    print(f"BenchmarkMNISTStep/torch/{name}\t{n}\t{best:.0f} ns/op\t{best_cpu:.0f} cpu-ns/op", flush=True)


bench("step", step, 50)
for name, n, cin, cout, hw, k, g, grad_input in [
        ("conv1", B, 1, 8, 28, 3, 1, False), ("conv2", B, 8, 16, 14, 3, 1, True),
        ("conv3x3_8x64x56x56", 8, 64, 64, 56, 3, 1, True),
        ("depthwise_8x256x14x14", 8, 256, 256, 14, 3, 256, True)]:
    xi = torch.rand(n, cin, hw, hw)
    w = torch.rand(cout, cin // g, k, k)
    b = torch.rand(cout)
    gy = torch.rand(n, cout, hw, hw)
    pad = [k // 2, k // 2]
    mask = [grad_input, True, True]
    reps = 5 if hw == 56 else 100
    with torch.no_grad():
        bench(name + "/forward", lambda: torch.nn.functional.conv2d(xi, w, b, padding=pad, groups=g), reps)
    bench(name + "/backward", lambda: torch.ops.aten.convolution_backward(
        gy, xi, w, [cout], [1, 1], pad, [1, 1], False, [0, 0], g, mask), reps)
