"""PyTorch 1.13 twin of examples/mnist: the same split, initial weights,
batch order and SGD, so the losses and accuracies can be compared with
`go run ./examples/mnist`. Run with /usr/bin/python3 bench/peers/examples_digits.py."""
import argparse, gzip, os, time
import numpy as np
import pinthreads  # noqa: F401,E402  (first: pins the thread pools to THREADS, default 1)
import torch
from torch import nn

here = os.path.dirname(os.path.abspath(__file__))
ap = argparse.ArgumentParser()
ap.add_argument("--data", default=os.path.join(here, "..", "..", "examples", "data", "mnist10k-images-idx3-ubyte.gz"))
ap.add_argument("--epochs", type=int, default=2)
ap.add_argument("--batch", type=int, default=32)
ap.add_argument("--train", type=int, default=0)
ap.add_argument("--lr", type=float, default=0.05)
ap.add_argument("--seed", type=int, default=0)
a = ap.parse_args()

images = np.frombuffer(gzip.open(a.data).read()[16:], dtype=np.uint8)
labels = np.frombuffer(gzip.open(a.data.replace("images-idx3", "labels-idx1")).read()[8:], dtype=np.uint8)
n = labels.shape[0]; n_test = n // 5
x = torch.from_numpy(images.copy()).float().div(255).reshape(n, 1, 28, 28)
y = torch.from_numpy(labels.astype(np.int64))
torch.manual_seed(a.seed)
perm = torch.randperm(n)
x_test, y_test = x[perm[:n_test]], y[perm[:n_test]]
n_train = n - n_test if a.train <= 0 else min(a.train, n - n_test)
x_train, y_train = x[perm[n_test:n_test + n_train]], y[perm[n_test:n_test + n_train]]
model = nn.Sequential(
    nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Flatten(), nn.Linear(16 * 7 * 7, 10))
opt = torch.optim.SGD(model.parameters(), lr=a.lr, momentum=0.9)
loss_fn = nn.CrossEntropyLoss()
print(f"mnist: {n_train} train, {n_test} test samples; torch {torch.__version__}, {torch.get_num_threads()} threads")
for epoch in range(a.epochs):
    torch.manual_seed(a.seed + 1 + epoch)
    order = torch.randperm(n_train)
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
        acc = sum((model(x_test[i:i + 500]).argmax(1) == y_test[i:i + 500]).sum().item()
                  for i in range(0, n_test, 500)) / n_test
    print(f"epoch {epoch + 1}: train loss {total / batches:.4f}, test accuracy {100 * acc:.2f}%, {dt:.3f}s")
