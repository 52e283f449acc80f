"""PyTorch 1.13 on BenchmarkGPT's decoder (bench/gpt_test.go: examples/models'
GPT, 4 pre-LayerNorm blocks of width 256, 8 heads, MLP 1024 with erf GELU,
block 128, vocabulary 512, batch 8x128 tokens), one thread: the forward pass
with the language-model loss (under no_grad), and a training step (gradients
set to None, forward, backward).

Run with Debian's python3 (apt-get install python3-torch):
    /usr/bin/python3 bench/peers/gpt_torch.py
THREADS=2 runs it on two threads. Prints lines in `go test -bench` style (ns/op, best of 3 rounds of 5).
"""
import math
import os
import time

import pinthreads  # noqa: F401,E402  (first: pins the thread pools to THREADS, default 1)
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
V, T, L, H, D, HID = 512, 128, 4, 8, 256, 1024


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(D), nn.LayerNorm(D)
        self.attn, self.proj = nn.Linear(D, 3 * D), nn.Linear(D, D)
        self.fc, self.out = nn.Linear(D, HID), nn.Linear(HID, D)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.attn(self.ln1(x)).split(D, -1)
        heads = lambda z: z.view(b, t, H, D // H).transpose(1, 2)
        q, k, v = heads(q), heads(k), heads(v)
        scores = q @ k.transpose(-2, -1) / math.sqrt(D // H)
        scores = scores.masked_fill(torch.ones(t, t, dtype=torch.bool).triu(1), float("-inf"))
        a = (scores.softmax(-1) @ v).transpose(1, 2).reshape(b, t, d)
        x = x + self.proj(a)
        return x + self.out(F.gelu(self.fc(self.ln2(x))))


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte = nn.Parameter(torch.randn(V, D) * 0.02)
        self.wpe = nn.Parameter(torch.randn(T, D) * 0.02)
        self.blocks = nn.ModuleList([Block() for _ in range(L)])
        self.lnf = nn.LayerNorm(D)

    def forward(self, tok):
        x = F.embedding(tok, self.wte) + self.wpe[: tok.shape[1]]
        for blk in self.blocks:
            x = blk(x)
        return F.linear(self.lnf(x), self.wte)


model = GPT()
tok = torch.randint(0, V, (8, T))


def loss():
    return F.cross_entropy(model(tok).reshape(-1, V), tok.reshape(-1))


def forward():
    with torch.no_grad():
        loss()


def train():
    model.zero_grad(set_to_none=True)
    loss().backward()


for name, f in (("forward", forward), ("train", train)):
    f()
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter_ns()
        for _ in range(5):
            f()
        best = min(best, (time.perf_counter_ns() - t0) / 5)
    print(f"BenchmarkGPT/torch/{name}\t5\t{best:.0f} ns/op")
