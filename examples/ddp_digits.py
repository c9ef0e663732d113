"""Data-parallel training of the digits MLP: one process per rank, each on its own shard of every epoch,
gradients averaged by DistributedDataParallel during backward. Written as a PyTorch user writes it (the only
change is `import tandem as torch`). Run with

    mpirun -np 2 python examples/ddp_digits.py          # as root: mpirun --allow-run-as-root --oversubscribe ...
    python -m tandem.distributed.run --nproc-per-node=2 examples/ddp_digits.py     # torchrun's way

Rank 0 prints the loss per epoch, the test accuracy, and checks that every rank ended with the same weights.
"""
import time

import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

import tandem as torch
import tandem.distributed as dist
from tandem import nn
from tandem.nn.parallel import DistributedDataParallel as DDP
from tandem.utils.data import DataLoader, TensorDataset
from tandem.utils.data.distributed import DistributedSampler


def main():
    dist.init_process_group(backend="mpi")
    rank, world = dist.get_rank(), dist.get_world_size()
    device = f"cuda:{rank % torch.cuda.device_count()}" if torch.cuda.is_available() else "cpu"

    digits = load_digits()
    x = (digits.images / 16.0).astype(np.float32)
    x_train, x_test, y_train, y_test = train_test_split(x, digits.target, test_size=0.25, random_state=0)
    train_set = TensorDataset(torch.tensor(x_train), torch.tensor(y_train))
    sampler = DistributedSampler(train_set, shuffle=True, seed=0)
    loader = DataLoader(train_set, batch_size=32, sampler=sampler)

    torch.manual_seed(rank)  # different on purpose: DDP broadcasts rank 0's initial weights
    model = nn.Sequential(nn.Flatten(), nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                          nn.Linear(256, 10)).to(device)
    ddp = DDP(model)
    optimizer = torch.optim.Adam(ddp.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()

    start = time.perf_counter()
    samples = 0
    for epoch in range(15):
        sampler.set_epoch(epoch)
        total = torch.zeros(2, device=device)
        for xb, yb in loader:
            xb, yb = xb.to(device), yb.to(device)
            optimizer.zero_grad()
            loss = criterion(ddp(xb), yb)
            loss.backward()
            optimizer.step()
            total += torch.stack([loss.detach() * xb.size(0), torch.tensor(float(xb.size(0)), device=device)])
            samples += xb.size(0)
        dist.all_reduce(total)  # the epoch's mean loss over every rank's samples
        if rank == 0:
            print(f"epoch {epoch:2d}  loss {(total[0] / total[1]).item():.4f}")
    elapsed = time.perf_counter() - start

    with torch.no_grad():
        accuracy = (model(torch.tensor(x_test).to(device)).argmax(1).cpu() == torch.tensor(y_test)).float().mean()
    flat = torch.cat([p.detach().reshape(-1) for p in model.parameters()])
    everyone = [torch.empty_like(flat) for _ in range(world)]
    dist.all_gather(everyone, flat)
    same = all(torch.equal(everyone[0], other) for other in everyone)
    if rank == 0:
        print(f"{world} rank(s), {samples / elapsed:.0f} samples/s per rank, test accuracy {accuracy.item():.3f}, "
              f"weights identical on every rank: {same}")
    dist.destroy_process_group()
    if not same or accuracy.item() < 0.9:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
