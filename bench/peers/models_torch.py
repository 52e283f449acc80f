"""PyTorch 1.13 on the models of bench/models_alt_test.go (TestModelsAlternating,
issue 24's model rows): the MLP 784-1024-1024-10 training step at batch 256,
BenchmarkGPT's decoder (forward and loss under no_grad, training step), the CNN
of conv3x3-BN-ReLU blocks (forward, training step) and the GPT-2-small-shaped
decoder generating one token with a fixed-size kv-cache of 64 positions
(the same formulation as the Go test: the new key and value selected into the
cache by a mask, the padding masked out of the scores).

Each model runs two ways, alternated call by call: eager, and traced with
torch.jit.trace under TorchScript's legacy CPU fuser (fuser0, the legacy
executor; pt2_tests.md E.3: the only compiled CPU peer of Debian's 1.13).
Prints, per variant, the minimum and median wall time per call and the minor
page faults per call (getrusage), in the Go test's line format.

Run with Debian's python3 (apt-get install python3-torch):
    /usr/bin/python3 bench/peers/models_torch.py
Settings: THREADS (default 1), REPS (rounds, default 5), MODELS=mlp,gpt,cnn,gen.
The thread pools (OpenMP, OpenBLAS, MKL) are pinned before torch is imported.
"""
import math
import os

THREADS = os.environ.get("THREADS", "1")
for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[v] = THREADS

import gc  # noqa: E402
import resource  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

torch.set_num_threads(int(THREADS))
REPS = int(os.environ.get("REPS", "5"))
WANT = [m for m in os.environ.get("MODELS", "").split(",") if m]
C = torch._C


def legacy_fuser():
    C._jit_set_profiling_executor(False)
    C._jit_set_profiling_mode(False)
    C._jit_override_can_fuse_on_cpu(True)
    if hasattr(C, "_jit_override_can_fuse_on_cpu_legacy"):
        C._jit_override_can_fuse_on_cpu_legacy(True)
    C._jit_set_texpr_fuser_enabled(False)


def faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def run_case(name, variants):
    """variants: (name, fn) pairs, alternated call by call."""
    for _, f in variants:
        for _ in range(3):  # warm: the trace's profiling runs, the fusion
            f()
    wall = [[] for _ in variants]
    flt = [0] * len(variants)
    for r in range(REPS):
        for k in range(len(variants)):
            i = (k + r) % len(variants)
            gc.collect()
            f0 = faults()
            t0 = time.perf_counter_ns()
            variants[i][1]()
            el = time.perf_counter_ns() - t0
            flt[i] += faults() - f0
            wall[i].append(el / 1e6)
    for i, (v, _) in enumerate(variants):
        w = sorted(wall[i])
        print(f"model {name:<14} torch-{v:<9} min {w[0]:9.2f} ms  median {w[len(w) // 2]:9.2f} ms  "
              f"faults {flt[i] / REPS:7.0f}", flush=True)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1, self.l2, self.l3 = nn.Linear(784, 1024), nn.Linear(1024, 1024), nn.Linear(1024, 10)

    def forward(self, x, labels):
        return F.cross_entropy(self.l3(F.relu(self.l2(F.relu(self.l1(x))))), labels)


V, T, L, H, D, HID = 512, 128, 4, 8, 256, 1024


class Block(nn.Module):
    def __init__(self, d, h, hid):
        super().__init__()
        self.d, self.h = d, h
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc, self.out = nn.Linear(d, hid), nn.Linear(hid, d)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.attn(self.ln1(x)).split(self.d, -1)
        q = q.view(b, t, self.h, d // self.h).transpose(1, 2)
        k = k.view(b, t, self.h, d // self.h).transpose(1, 2)
        v = v.view(b, t, self.h, d // self.h).transpose(1, 2)
        scores = q @ k.transpose(-2, -1) / math.sqrt(d // self.h)
        scores = scores.masked_fill(torch.ones(t, t, dtype=torch.bool).triu(1), float("-inf"))
        a = (scores.softmax(-1) @ v).transpose(1, 2).reshape(b, t, d)
        x = x + self.proj(a)
        return x + self.out(F.gelu(self.fc(self.ln2(x))))


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte = nn.Parameter(torch.randn(V, D) * 0.02)
        self.wpe = nn.Parameter(torch.randn(T, D) * 0.02)
        self.blocks = nn.ModuleList([Block(D, H, HID) for _ in range(L)])
        self.lnf = nn.LayerNorm(D)

    def forward(self, tok):
        x = F.embedding(tok, self.wte) + self.wpe[: tok.shape[1]]
        for blk in self.blocks:
            x = blk(x)
        logits = F.linear(self.lnf(x), self.wte)
        return F.cross_entropy(logits.reshape(-1, V), tok.reshape(-1))


class CNN(nn.Module):
    def __init__(self, ch=(3, 32, 32, 32)):
        super().__init__()
        self.convs = nn.ModuleList([nn.Conv2d(ch[i], ch[i + 1], 3, padding=1, bias=False) for i in range(len(ch) - 1)])
        self.bns = nn.ModuleList([nn.BatchNorm2d(c, track_running_stats=False) for c in ch[1:]])
        self.fc = nn.Linear(ch[-1], 10)

    def forward(self, x, labels):
        for conv, bn in zip(self.convs, self.bns):
            x = F.relu(bn(conv(x)))
        return F.cross_entropy(self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1)), labels)


class Gen(nn.Module):
    """GPT-2-small-shaped decoder, one token over a fixed-size kv-cache."""

    def __init__(self, layers=12, d=768, h=12, vocab=50257):
        super().__init__()
        self.h, self.d = h, d
        self.wte = nn.Parameter(torch.randn(vocab, d) * 0.02)
        self.blocks = nn.ModuleList([Block(d, h, 4 * d) for _ in range(layers)])
        self.lnf = nn.LayerNorm(d)

    def forward(self, x, add, sel, caches):
        d, h = self.d, self.h
        hd = d // h
        outs = []
        for i, blk in enumerate(self.blocks):
            q, k, v = blk.attn(blk.ln1(x)).split(d, -1)
            q = q.view(1, 1, h, hd).transpose(1, 2)
            k = k.view(1, 1, h, hd).transpose(1, 2)
            v = v.view(1, 1, h, hd).transpose(1, 2)
            kall = torch.where(sel, k, caches[2 * i])
            vall = torch.where(sel, v, caches[2 * i + 1])
            s = q @ kall.transpose(-2, -1) / math.sqrt(hd) + add
            o = (s.softmax(-1) @ vall).transpose(1, 2).reshape(1, 1, d)
            x = x + blk.proj(o)
            x = x + blk.out(F.gelu(blk.fc(blk.ln2(x))))
            outs.append(k)
            outs.append(v)
        return F.linear(self.lnf(x), self.wte), outs


def traced(m, inputs):
    legacy_fuser()
    with warnings.catch_warnings():
        # The scale 1/sqrt(hd) and the list of new keys and values are
        # constant structure: the tracer's warnings about them do not apply.
        warnings.simplefilter("ignore", torch.jit.TracerWarning)
        return torch.jit.trace(m, inputs, check_trace=False)


def main():
    torch.ones(2, 2) @ torch.ones(2, 2)  # loads the BLAS
    blas = sorted({ln.split()[-1] for ln in open("/proc/self/maps") if "blas" in ln.lower() and ".so" in ln})
    print(f"# torch {torch.__version__}, threads {torch.get_num_threads()}, {REPS} rounds, "
          f"load average {' '.join(open('/proc/loadavg').read().split()[:3])}", flush=True)
    print(f"# BLAS: {', '.join(blas) or 'none mapped'}", flush=True)
    on = lambda m: not WANT or m in WANT  # noqa: E731
    if on("mlp"):
        torch.manual_seed(0)
        x, labels = torch.randn(256, 784), torch.randint(0, 10, (256,))
        variants = []
        for v in ("eager", "ts-fuser0"):
            m = MLP()
            opt = torch.optim.SGD(m.parameters(), lr=0.01)
            f = m if v == "eager" else traced(m, (x, labels))

            def step(f=f, opt=opt):
                opt.zero_grad()
                f(x, labels).backward()
                opt.step()
            variants.append((v, step))
        run_case("mlp/train", variants)
    if on("gpt"):
        torch.manual_seed(0)
        tok = torch.randint(0, V, (8, T))
        fwd, train = [], []
        for v in ("eager", "ts-fuser0"):
            m = GPT()
            f = m if v == "eager" else traced(m, (tok,))

            def forward(f=f):
                with torch.no_grad():
                    f(tok)

            def step(f=f, m=m):
                m.zero_grad(set_to_none=True)
                f(tok).backward()
            fwd.append((v, forward))
            train.append((v, step))
        run_case("gpt/forward", fwd)
        run_case("gpt/train", train)
    if on("cnn"):
        torch.manual_seed(2)
        x, labels = torch.randn(16, 3, 32, 32), torch.randint(0, 10, (16,))
        fwd, train = [], []
        for v in ("eager", "ts-fuser0"):
            m = CNN()
            opt = torch.optim.SGD(m.parameters(), lr=0.01)
            f = m if v == "eager" else traced(m, (x, labels))

            def forward(f=f):
                with torch.no_grad():
                    f(x, labels)

            def step(f=f, opt=opt):
                opt.zero_grad()
                f(x, labels).backward()
                opt.step()
            fwd.append((v, forward))
            train.append((v, step))
        run_case("cnn/forward", fwd)
        run_case("cnn/train", train)
    if on("gen"):
        torch.manual_seed(3)
        ctx, d, h = 64, 768, 12
        with torch.no_grad():
            m = Gen()
            for p in m.parameters():
                if p.dim() == 2:
                    p.normal_(0, 0.02)
        m.requires_grad_(False)
        xs = [torch.randn(1, 1, d) for _ in range(ctx)]
        adds, sels = [], []
        for p in range(ctx):
            a = torch.zeros(1, 1, 1, ctx)
            a[..., p + 1:] = float("-inf")
            s = torch.zeros(ctx, 1, dtype=torch.bool)
            s[p] = True
            adds.append(a)
            sels.append(s)
        variants = []
        for v in ("eager", "ts-fuser0"):
            caches = [torch.zeros(1, h, ctx, d // h) for _ in range(24)]
            with torch.no_grad():
                f = m if v == "eager" else traced(m, (xs[0], adds[0], sels[0], caches))
            pos = [0]

            def token(f=f, caches=caches, pos=pos):
                p = pos[0]
                with torch.no_grad():
                    _, kv = f(xs[p], adds[p], sels[p], caches)
                    for c, n in zip(caches, kv):
                        c[:, :, p:p + 1].copy_(n)
                pos[0] = (p + 1) % ctx
            variants.append((v, token))
        run_case("gpt2-gen/token", variants)
    print(f"# load average after: {' '.join(open('/proc/loadavg').read().split()[:3])}", flush=True)


main()
