"""PyTorch 1.13 twin of examples/charlm: the same text (files of the Go
standard library under `go env GOROOT`/src), vocabulary, model (same module
order, so the same initial weights after torch.manual_seed), windows, AdamW
and sampling. Run with /usr/bin/python3 bench/peers/examples_charlm.py."""
import argparse, math, os, subprocess, time
import pinthreads  # noqa: F401,E402  (first: pins the thread pools to THREADS, default 1)
import torch
from torch import nn

ap = argparse.ArgumentParser()
ap.add_argument("--root", default=None)
ap.add_argument("--files", default="strings/strings.go,strings/builder.go,bytes/buffer.go,sort/sort.go,errors/wrap.go")
ap.add_argument("--block", type=int, default=64)
ap.add_argument("--layers", type=int, default=2)
ap.add_argument("--heads", type=int, default=4)
ap.add_argument("--d", type=int, default=64)
ap.add_argument("--epochs", type=int, default=4)
ap.add_argument("--steps", type=int, default=50)
ap.add_argument("--batch", type=int, default=16)
ap.add_argument("--lr", type=float, default=3e-3)
ap.add_argument("--seed", type=int, default=0)
ap.add_argument("--sample", type=int, default=300)
ap.add_argument("--prompt", default="func ")
a = ap.parse_args()
root = a.root or os.path.join(subprocess.check_output(["go", "env", "GOROOT"], text=True).strip(), "src")
text = b"".join(open(os.path.join(root, f), "rb").read() for f in a.files.split(","))
vocab = sorted(set(text))
idx = {b: i for i, b in enumerate(vocab)}
data = torch.tensor([idx[b] for b in text], dtype=torch.long)
n_val = len(data) // 10
train_data, val_data = data[:len(data) - n_val], data[len(data) - n_val:]
T = a.block


class Attention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)

    def forward(self, x, mask):
        b, t, d = x.shape
        hd = d // self.heads
        q, k, v = [u.reshape(b, t, self.heads, hd).transpose(1, 2) for u in self.qkv(x).split(d, 2)]
        att = (q @ k.transpose(2, 3) * (1 / math.sqrt(hd))).masked_fill(mask, float("-inf")).softmax(-1)
        return self.proj((att @ v).transpose(1, 2).reshape(b, t, d))


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attn = Attention(d, heads)
        self.ln2 = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 4 * d)
        self.gelu = nn.GELU()
        self.fc2 = nn.Linear(4 * d, d)

    def forward(self, x, mask):
        x = x + self.attn(self.ln1(x), mask)
        return x + self.fc2(self.gelu(self.fc1(self.ln2(x))))


class GPT(nn.Module):
    def __init__(self, vocab, block, layers, heads, d):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(block, d)
        self.blocks = nn.ModuleList([Block(d, heads) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab)

    def forward(self, tokens):
        t = tokens.shape[1]
        mask = torch.ones(t, t).triu(1).bool()
        x = self.tok(tokens) + self.pos(torch.arange(t))
        for b in self.blocks:
            x = b(x, mask)
        return self.head(self.ln_f(x))


torch.manual_seed(a.seed)
model = GPT(len(vocab), T, a.layers, a.heads, a.d)
opt = torch.optim.AdamW(model.parameters(), lr=a.lr)
offsets = torch.arange(T)


def windows(src, starts):
    i = (starts.unsqueeze(1) + offsets).reshape(-1)
    return src[i].reshape(-1, T), src[i + 1].reshape(-1, T)


def loss_of(x, y):
    return nn.functional.cross_entropy(model(x).reshape(-1, len(vocab)), y.reshape(-1))


print(f"charlm: {len(data)} characters of Go ({len(data) - n_val} train, {n_val} held out), vocabulary {len(vocab)}, "
      f"{sum(p.numel() for p in model.parameters())} parameters; torch {torch.__version__}, {torch.get_num_threads()} threads")
for epoch in range(a.epochs):
    torch.manual_seed(a.seed + 1 + epoch)
    model.train()
    t0 = time.perf_counter()
    total = 0.0
    for step in range(a.steps):
        x, y = windows(train_data, torch.randint(len(train_data) - T - 1, (a.batch,)))
        loss = loss_of(x, y)
        opt.zero_grad(); loss.backward(); opt.step()
        total += loss.item()
    dt = time.perf_counter() - t0
    with torch.no_grad():
        n = min(32, (n_val - 1) // T)
        val = loss_of(*windows(val_data, torch.arange(n) * T)).item()
    print(f"epoch {epoch + 1}: train loss {total / a.steps:.4f}, held-out loss {val:.4f}, {dt:.3f}s")

torch.manual_seed(a.seed)
model.eval()
ctx = [idx[b] for b in a.prompt.encode()]
out = bytearray(a.prompt.encode())
with torch.no_grad():
    for _ in range(a.sample):
        w = ctx[-T:]
        nxt = model(torch.tensor([w])).select(1, len(w) - 1).softmax(-1).multinomial(1)[0].item()
        ctx.append(nxt); out.append(vocab[nxt])
print("sample:\n" + out.decode(errors="replace"))
