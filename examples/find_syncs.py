"""Find the line that makes a training loop wait for the device, then fix it.

A `.item()` per batch copies the loss to the host and waits for the device every step. The transfer profiler
points at that line; the fixed loop accumulates the loss on the device and moves it once per epoch, so the
host queues a whole epoch of work ahead (on a busy device the remaining wait moves to that one `.item()`).
Runs on a real GPU when there is one, otherwise on an emulated cuda device:
    PYTHONPATH=python python examples/find_syncs.py
"""
import os

os.environ.setdefault("TANDEM_EMULATE_CUDA", "1")  # read at import; a real GPU is used when present

import tandem  # noqa: E402
from tandem import nn  # noqa: E402

EPOCHS, BATCHES, BATCH = 3, 20, 32
device = "cuda" if tandem.cuda.is_available() else "cpu"


def make_model():
    tandem.manual_seed(0)
    return nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 1)).to(device)


def batches():
    tandem.manual_seed(1)
    w = tandem.randn(16, 1, device=device)
    for _ in range(BATCHES):
        x = tandem.randn(BATCH, 16, device=device)
        yield x, x @ w


def step(model, opt, x, y):
    loss = ((model(x) - y) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss


def train_with_item_per_batch():
    model = make_model()
    opt = tandem.optim.SGD(model.parameters(), lr=0.01)
    for epoch in range(EPOCHS):
        total = 0.0
        for x, y in batches():
            loss = step(model, opt, x, y)
            total += loss.item()  # waits for the device every batch
        print(f"  epoch {epoch}: mean loss {total / BATCHES:.4f}")


def train_with_one_transfer_per_epoch():
    model = make_model()
    opt = tandem.optim.SGD(model.parameters(), lr=0.01)
    for epoch in range(EPOCHS):
        total = tandem.zeros((), device=device)
        for x, y in batches():
            total += step(model, opt, x, y).detach()  # stays on the device
        print(f"  epoch {epoch}: mean loss {total.item() / BATCHES:.4f}")  # one transfer per epoch


def profile(title, train):
    print(title)
    with tandem.profiler.transfers() as prof:
        train()
    print(prof.summary())
    return len(prof.events)


if __name__ == "__main__":
    print(f"device: {device} ({tandem.cuda.get_device_name() if device == 'cuda' else 'no cuda'})")
    before = profile("\n.item() per batch:", train_with_item_per_batch)
    after = profile("\nmoved once per epoch:", train_with_one_transfer_per_epoch)
    print(f"\ncrossings: {before} -> {after}")
