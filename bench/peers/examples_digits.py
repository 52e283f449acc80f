"""PyTorch 1.13 twin of examples/digits: the same split, initial weights,
batch order and SGD, so the losses and accuracies can be compared with
`go run ./examples/digits`. Run with /usr/bin/python3 bench/peers/examples_digits.py."""
import argparse, gzip, os, time
import numpy as np
import pinthreads  # noqa: F401,E402  (first: pins the thread pools to THREADS, default 1)
import torch
from torch import nn

here = os.path.dirname(os.path.abspath(__file__))
ap = argparse.ArgumentParser()
ap.add_argument("--data", default=os.path.join(here, "..", "..", "examples", "data", "digits.csv.gz"))
ap.add_argument("--epochs", type=int, default=10)
ap.add_argument("--batch", type=int, default=32)
ap.add_argument("--hidden", type=int, default=64)
ap.add_argument("--lr", type=float, default=0.05)
ap.add_argument("--seed", type=int, default=0)
a = ap.parse_args()

raw = np.loadtxt(gzip.open(a.data, "rt"), delimiter=",", dtype=np.float32)
x, y = torch.from_numpy(raw[:, :-1]) / 16, torch.from_numpy(raw[:, -1]).long()
n = x.shape[0]; n_test = n // 5
torch.manual_seed(a.seed)
perm = torch.randperm(n)
x_test, y_test = x[perm[:n_test]], y[perm[:n_test]]
x_train, y_train = x[perm[n_test:]], y[perm[n_test:]]
model = nn.Sequential(nn.Linear(x.shape[1], a.hidden), nn.ReLU(), nn.Linear(a.hidden, 10))
opt = torch.optim.SGD(model.parameters(), lr=a.lr, momentum=0.9)
loss_fn = nn.CrossEntropyLoss()
print(f"digits: {n - n_test} train, {n_test} test samples; torch {torch.__version__}, {torch.get_num_threads()} threads")
for epoch in range(a.epochs):
    torch.manual_seed(a.seed + 1 + epoch)
    order = torch.randperm(n - n_test)
    xe, ye = x_train[order], y_train[order]
    t0 = time.perf_counter()
    model.train()
    total, batches = 0.0, 0
    for i in range(0, xe.shape[0], a.batch):
        loss = loss_fn(model(xe[i:i + a.batch]), ye[i:i + a.batch])
        opt.zero_grad(); loss.backward(); opt.step()
        total += loss.item(); batches += 1
    dt = time.perf_counter() - t0
    with torch.no_grad():
        acc = (model(x_test).argmax(1) == y_test).float().mean().item()
    print(f"epoch {epoch + 1}: train loss {total / batches:.4f}, test accuracy {100 * acc:.2f}%, {dt:.3f}s")
