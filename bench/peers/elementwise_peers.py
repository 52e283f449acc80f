"""The elementwise benchmarks of bench/elementwise_test.go in PyTorch and numpy.

Run with Debian's python3 (apt-get install python3-torch python3-numpy):
    /usr/bin/python3 bench/peers/elementwise_peers.py
Prints `go test -bench` style lines (ns/op) timed as the Go side is (`go
test -benchtime 10x -count 3`, the best of three means of ten calls): the
best mean of PEER_REPS batches of PEER_BATCH calls (3 and 10), one
thread: BenchmarkElementwise/torch/<op>/<size> and .../numpy/<op>/<size>,
each op allocating its result as the goaten benchmarks do, and
.../torch-out/... and .../numpy-out/... with a preallocated result, the
counterparts of BenchmarkElementwiseKernel. numpy has no vectorized erf,
so gelu and erf have no numpy line.
"""
import itertools
import os
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

np.seterr(all="ignore")
import torch  # noqa: E402

torch.set_num_threads(1)

N = 1 << 24
ROWS, COLS = 4096, 1024
REPS = int(os.environ.get("PEER_REPS", "3"))
BATCH = int(os.environ.get("PEER_BATCH", "10"))


def bench(impl, name, fn):
    fn()  # warm up
    best = float("inf")
    for _ in range(REPS):
        t0 = time.perf_counter_ns()
        for _ in range(BATCH):
            fn()
        best = min(best, (time.perf_counter_ns() - t0) / BATCH)
    print(f"BenchmarkElementwise/{impl}/{name}\t{BATCH}\t{best:.0f} ns/op", flush=True)


def main():
    g = torch.Generator().manual_seed(1)
    x = torch.randn(N, generator=g)
    y = torch.randn(N, generator=g)
    pos = x.abs()
    m = torch.randn(ROWS, COLS, generator=g)
    w = torch.randn(COLS, generator=g)
    b = torch.randn(COLS, generator=g)
    dy = torch.randn(ROWS, COLS, generator=g)
    _, ln_mean, ln_rstd = torch.ops.aten.native_layer_norm(m, [COLS], w, b, 1e-5)
    F = torch.nn.functional
    # sum_cold: four 64 MB copies summed in turn, the input from DRAM (as
    # BenchmarkElementwise's sum_cold).
    cold = itertools.cycle([x] + [x.clone() for _ in range(3)])

    torch_ops = [
        ("add/16M", lambda: torch.add(x, y)),
        ("mul/16M", lambda: torch.mul(x, y)),
        ("exp/16M", lambda: torch.exp(x)),
        ("log/16M", lambda: torch.log(pos)),
        ("tanh/16M", lambda: torch.tanh(x)),
        ("sigmoid/16M", lambda: torch.sigmoid(x)),
        ("silu/16M", lambda: F.silu(x)),
        ("gelu/16M", lambda: F.gelu(x)),
        ("gelu_tanh/16M", lambda: F.gelu(x, approximate="tanh")),
        ("erf/16M", lambda: torch.erf(x)),
        ("relu/16M", lambda: torch.relu(x)),
        ("abs/16M", lambda: torch.abs(x)),
        ("neg/16M", lambda: torch.neg(x)),
        ("sqrt/16M", lambda: torch.sqrt(pos)),
        ("rsqrt/16M", lambda: torch.rsqrt(pos)),
        ("reciprocal/16M", lambda: torch.reciprocal(x)),
        ("sin/16M", lambda: torch.sin(x)),
        ("cos/16M", lambda: torch.cos(x)),
        ("sum/16M", lambda: torch.sum(x)),
        ("sum_cold/16M", lambda: torch.sum(next(cold))),
        ("softmax/4096x1024", lambda: torch.softmax(m, -1)),
        ("log_softmax/4096x1024", lambda: torch.log_softmax(m, -1)),
        ("layer_norm/4096x1024", lambda: F.layer_norm(m, (COLS,), w, b, 1e-5)),
        ("layer_norm_backward/4096x1024",
         lambda: torch.ops.aten.native_layer_norm_backward(dy, m, [COLS], ln_mean, ln_rstd, w, b, [True, True, True])),
    ]
    for name, fn in torch_ops:
        bench("torch", name, fn)

    # out= variants: preallocated results, the kernels alone.
    o = torch.empty(N)
    o0 = torch.empty(())
    aten = torch.ops.aten
    out_ops = [
        ("add/16M", lambda: torch.add(x, y, out=o)),
        ("mul/16M", lambda: torch.mul(x, y, out=o)),
        ("exp/16M", lambda: torch.exp(x, out=o)),
        ("log/16M", lambda: torch.log(pos, out=o)),
        ("tanh/16M", lambda: torch.tanh(x, out=o)),
        ("sigmoid/16M", lambda: torch.sigmoid(x, out=o)),
        ("silu/16M", lambda: aten.silu.out(x, out=o)),
        ("gelu/16M", lambda: aten.gelu.out(x, out=o)),
        ("gelu_tanh/16M", lambda: aten.gelu.out(x, approximate="tanh", out=o)),
        ("erf/16M", lambda: torch.erf(x, out=o)),
        ("relu/16M", lambda: torch.clamp_min(x, 0, out=o)),
        ("abs/16M", lambda: torch.abs(x, out=o)),
        ("neg/16M", lambda: torch.neg(x, out=o)),
        ("sqrt/16M", lambda: torch.sqrt(pos, out=o)),
        ("rsqrt/16M", lambda: torch.rsqrt(pos, out=o)),
        ("reciprocal/16M", lambda: torch.reciprocal(x, out=o)),
        ("sin/16M", lambda: torch.sin(x, out=o)),
        ("cos/16M", lambda: torch.cos(x, out=o)),
        ("sum/16M", lambda: torch.sum(x, 0, out=o0)),
    ]
    for name, fn in out_ops:
        bench("torch-out", name, fn)

    xn, yn, posn = x.numpy(), y.numpy(), pos.numpy()
    mn, wn, bn = m.numpy(), w.numpy(), b.numpy()

    def softmax(a):
        e = np.exp(a - a.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)

    def log_softmax(a):
        s = a - a.max(axis=-1, keepdims=True)
        return s - np.log(np.exp(s).sum(axis=-1, keepdims=True))

    def layer_norm(a):
        mu = a.mean(axis=-1, keepdims=True)
        var = a.var(axis=-1, keepdims=True)
        return (a - mu) / np.sqrt(var + 1e-5) * wn + bn

    numpy_ops = [
        ("add/16M", lambda: np.add(xn, yn)),
        ("mul/16M", lambda: np.multiply(xn, yn)),
        ("exp/16M", lambda: np.exp(xn)),
        ("log/16M", lambda: np.log(posn)),
        ("tanh/16M", lambda: np.tanh(xn)),
        ("sigmoid/16M", lambda: 1 / (1 + np.exp(-xn))),
        ("silu/16M", lambda: xn / (1 + np.exp(-xn))),
        ("relu/16M", lambda: np.maximum(xn, np.float32(0))),
        ("abs/16M", lambda: np.abs(xn)),
        ("neg/16M", lambda: np.negative(xn)),
        ("sqrt/16M", lambda: np.sqrt(posn)),
        ("rsqrt/16M", lambda: 1 / np.sqrt(posn)),
        ("reciprocal/16M", lambda: np.reciprocal(xn)),
        ("sin/16M", lambda: np.sin(xn)),
        ("cos/16M", lambda: np.cos(xn)),
        ("sum/16M", lambda: np.sum(xn)),
        ("softmax/4096x1024", lambda: softmax(mn)),
        ("log_softmax/4096x1024", lambda: log_softmax(mn)),
        ("layer_norm/4096x1024", lambda: layer_norm(mn)),
    ]
    for name, fn in numpy_ops:
        bench("numpy", name, fn)

    on = np.empty(N, dtype=np.float32)
    numpy_out = [
        ("add/16M", lambda: np.add(xn, yn, out=on)),
        ("mul/16M", lambda: np.multiply(xn, yn, out=on)),
        ("exp/16M", lambda: np.exp(xn, out=on)),
        ("log/16M", lambda: np.log(posn, out=on)),
        ("tanh/16M", lambda: np.tanh(xn, out=on)),
        ("relu/16M", lambda: np.maximum(xn, np.float32(0), out=on)),
        ("abs/16M", lambda: np.abs(xn, out=on)),
        ("neg/16M", lambda: np.negative(xn, out=on)),
        ("sqrt/16M", lambda: np.sqrt(posn, out=on)),
        ("reciprocal/16M", lambda: np.reciprocal(xn, out=on)),
        ("sin/16M", lambda: np.sin(xn, out=on)),
        ("cos/16M", lambda: np.cos(xn, out=on)),
    ]
    for name, fn in numpy_out:
        bench("numpy-out", name, fn)


if __name__ == "__main__":
    sys.exit(main())
