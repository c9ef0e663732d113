"""Run under `mpirun -np 2`: tandem.distributed.nn's differentiable collectives (values and gradients on every
rank, on every device), each rank writing a JSON report to argv[1] (the harness of collectives.py).

The expected gradients are worked out by hand from the collectives' definitions; PyTorch's torch.distributed.nn
gives the same (its gloo backend, checked with two processes).
"""
import os
import sys
import warnings

import tandem
import tandem.distributed.nn as dist_nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from collectives import main  # noqa: E402

CHECKS = []


def check(fn):
    CHECKS.append(fn)
    return fn


def leaf(rank, device):
    """[1, 2, 3] + 10 rank on each rank, requiring grad."""
    return (tandem.tensor([1.0, 2.0, 3.0], device=device) + 10 * rank).requires_grad_()


@check
def all_reduce_sums_values_and_gradients(device, rank, world):
    x = leaf(rank, device)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y = dist_nn.all_reduce(x * (rank + 1))
    assert [w.category for w in caught] == [FutureWarning]
    assert y.device == tandem.device(device) and y.grad_fn.name() == "_AllReduceBackward"
    # sum_r (r + 1) (base + 10 r)
    assert y.tolist() == [sum((r + 1) * (v + 10 * r) for r in range(world)) for v in (1.0, 2.0, 3.0)]
    (y * (rank + 1)).sum().backward()
    # dL/dx_r = (r + 1) * sum_s (s + 1): every rank's output depends on x_r
    assert x.grad.tolist() == [(rank + 1) * sum(s + 1 for s in range(world))] * 3


@check
def all_gather_returns_every_rank_and_sums_gradients(device, rank, world):
    x = leaf(rank, device)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        gathered = dist_nn.all_gather(x * 2)
    assert isinstance(gathered, tuple) and len(gathered) == world
    for r, g in enumerate(gathered):
        assert g.tolist() == [2 * (v + 10 * r) for v in (1.0, 2.0, 3.0)] and g.device == tandem.device(device)
    # each rank weights slot s by (rank + 1) (s + 1); x_r's gradient sums that over ranks for slot r, times 2
    sum(g * (rank + 1) * (s + 1) for s, g in enumerate(gathered)).sum().backward()
    assert x.grad.tolist() == [2 * (rank + 1) * sum(q + 1 for q in range(world))] * 3


@check
def broadcast_and_reduce_route_gradients_through_the_root(device, rank, world):
    x = leaf(rank, device)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        b = dist_nn.broadcast(x * 1, 1)
    assert b.tolist() == [v + 10 for v in (1.0, 2.0, 3.0)]
    (b * (rank + 1)).sum().backward()
    # only the source's input feeds the outputs: it gets sum_r (r + 1), the others 0
    assert x.grad.tolist() == [float(sum(r + 1 for r in range(world))) if rank == 1 else 0.0] * 3
    x.grad = None
    r = dist_nn.reduce(x * 3, 0)
    if rank == 0:
        assert r.tolist() == [sum(3 * (v + 10 * q) for q in range(world)) for v in (1.0, 2.0, 3.0)]
    (r * 5).sum().backward()
    # the result on rank 0 is the one that counts: its gradient (5) goes back to every rank, times 3
    assert x.grad.tolist() == [15.0] * 3


@check
def all_to_all_sends_gradients_back(device, rank, world):
    x = leaf(rank, device)
    outs = [tandem.empty(3, device=device) for _ in range(world)]
    received = dist_nn.all_to_all(outs, [x * (j + 1) for j in range(world)])
    for src, t in enumerate(received):
        assert t.tolist() == [(rank + 1) * (v + 10 * src) for v in (1.0, 2.0, 3.0)]
    sum(t * (src + 1) for src, t in enumerate(received)).sum().backward()
    # rank r sent x_r * (j + 1) to rank j, which weighs what it got from r by (r + 1)
    assert x.grad.tolist() == [float(sum((j + 1) * (rank + 1) for j in range(world)))] * 3


if __name__ == "__main__":
    main(CHECKS)
