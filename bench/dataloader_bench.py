"""DataLoader throughput, tandem vs PyTorch side by side: a map-style dataset whose __getitem__ costs about 1 ms of
Python work (then returns a 3x32x32 float tensor and a label), batch 64, num_workers 0 and 2.

    PYTHONPATH=python python bench/dataloader_bench.py [--batches N]

Prints batches/s per library and setting and the tandem/PyTorch ratio (>1: tandem faster)."""
import argparse
import time

import tandem
import torch


def make_dataset(lib):
    class Costly(lib.utils.data.Dataset):
        def __len__(self):
            return 1 << 20

        def __getitem__(self, i):
            deadline = time.perf_counter() + 1e-3  # ~1 ms of Python work (decoding, augmenting...)
            x = 0
            while time.perf_counter() < deadline:
                x += 1
            return lib.full((3, 32, 32), float(i % 7)), i % 10
    return Costly()


def batches_per_second(lib, workers, batches):
    loader = lib.utils.data.DataLoader(make_dataset(lib), batch_size=64, num_workers=workers)
    it = iter(loader)
    next(it)  # workers started and warm
    start = time.perf_counter()
    for _ in range(batches):
        next(it)
    rate = batches / (time.perf_counter() - start)
    del it
    return rate


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batches", type=int, default=10)
    args = parser.parse_args()
    print(f"{'workers':>8} {'tandem b/s':>11} {'torch b/s':>10} {'ratio':>6}")
    for workers in (0, 2):
        ours = batches_per_second(tandem, workers, args.batches)
        theirs = batches_per_second(torch, workers, args.batches)
        print(f"{workers:>8} {ours:>11.2f} {theirs:>10.2f} {ours / theirs:>6.2f}")


if __name__ == "__main__":
    main()
