"""Run under `mpirun -np 2`: the coalesced collectives, gather into one tensor, get_backend_config and DDP
communication hooks, on every device, each rank writing a JSON report to argv[1] (the harness of
collectives.py). Expected values come from NumPy or from single-process arithmetic."""
import os
import sys
import warnings

import numpy as np

import tandem
import tandem.distributed as dist

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from collectives import expect_raises, main  # noqa: E402

CHECKS = []


def check(fn):
    CHECKS.append(fn)
    return fn


@check
def all_reduce_coalesced_values(device, rank, world):
    a = tandem.full((2, 3), float(rank + 1), device=device)
    b = tandem.arange(4, dtype=tandem.float32, device=device) * (rank + 1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert dist.all_reduce_coalesced([a, b]) is None
    assert any(w.category is FutureWarning and "all_reduce_coalesced` will be deprecated" in str(w.message)
               for w in caught)
    total = sum(r + 1 for r in range(world))
    assert np.array_equal(a.cpu().numpy(), np.full((2, 3), total, np.float32))
    assert np.array_equal(b.cpu().numpy(), np.arange(4, dtype=np.float32) * total)
    # complex SUM (as real pairs), MAX on one tensor, and async_op=True giving a Future of the tensors
    c = tandem.tensor([1 + 2j, 3 - 1j], device=device) * (rank + 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        fut = dist.all_reduce_coalesced([c], async_op=True)
        assert isinstance(fut, tandem.futures.Future) and fut.wait()[0] is c
        m = tandem.tensor([rank, -rank], dtype=tandem.int64, device=device)
        dist.all_reduce_coalesced(m, op=dist.ReduceOp.MAX)
        expect_raises(ValueError, "all_reduce does not support RedOpType.MAX on complex tensors",
                      lambda: dist.all_reduce_coalesced([c], op=dist.ReduceOp.MAX))
        expect_raises(ValueError, "Invalid usage of tensors with different dtypes",
                      lambda: dist.all_reduce_coalesced([a, m]))
    assert np.allclose(c.cpu().numpy(), np.array([1 + 2j, 3 - 1j]) * total)
    assert m.tolist() == [world - 1, 0]


@check
def all_gather_coalesced_values(device, rank, world):
    inputs = [tandem.full((2,), float(rank), device=device), tandem.arange(3, device=device) + 10 * rank]
    outputs = [[tandem.zeros(2, device=device), tandem.zeros(3, dtype=tandem.int64, device=device)]
               for _ in range(world)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        expect_raises(ValueError, "Invalid usage of tensors with different dtypes",
                      lambda: dist.all_gather_coalesced(outputs, inputs))
        inputs[1] = inputs[1].float()
        outputs = [[tandem.zeros(2, device=device), tandem.zeros(3, device=device)] for _ in range(world)]
        fut = dist.all_gather_coalesced(outputs, inputs, async_op=True)
        fut.wait()
        for r in range(world):
            assert outputs[r][0].tolist() == [r, r] and outputs[r][1].tolist() == [10 * r, 10 * r + 1, 10 * r + 2]
        expect_raises(RuntimeError, f"all_gather_coalesced: output lists should be equal to world size ({world})",
                      lambda: dist.all_gather_coalesced(outputs[:1], inputs))
        bad = [[tandem.zeros(2, device=device), tandem.zeros(4, device=device)] for _ in range(world)]
        expect_raises(RuntimeError, "all_gather_coalesced: invalid size of output tensor at index 1 (expected 3 "
                      "elements, got 4)", lambda: dist.all_gather_coalesced(bad, inputs))


@check
def gather_single_into_one_tensor(device, rank, world):
    x = tandem.arange(3, dtype=tandem.float64, device=device) + 100 * rank
    expected = np.stack([np.arange(3) + 100 * r for r in range(world)])
    for dst in range(world):
        stacked = tandem.zeros(world, 3, dtype=tandem.float64, device=device) if rank == dst else None
        dist.gather_single(x, stacked, dst=dst)
        if rank == dst:
            assert np.array_equal(stacked.cpu().numpy(), expected)
    flat = tandem.zeros(world * 3, dtype=tandem.float64, device=device) if rank == 0 else None
    work = dist.gather_into_tensor(x, flat, async_op=True)
    work.wait()
    if rank == 0:
        assert np.array_equal(flat.cpu().numpy(), expected.reshape(-1))
        expect_raises(ValueError, "gather_tensor must be specified on the destination rank",
                      lambda: dist.gather_single(x))
        expect_raises(RuntimeError, "gather_single: gather_tensor has 5 elements, expected world_size * "
                      f"tensor.numel() = {world} * 3", lambda: dist.gather_single(x, tandem.zeros(5, device=device,
                                                                                             dtype=tandem.float64)))
        expect_raises(RuntimeError, "gather_single: gather_tensor must be contiguous",
                      lambda: dist.gather_single(x, tandem.zeros(3, world, device=device, dtype=tandem.float64).t()))


@check
def backend_config(device, rank, world):
    assert dist.get_backend_config() == "cpu:mpi,cuda:mpi"  # no NCCL communicator on emulated devices
    sub = dist.new_group([1])
    if rank == 1:
        assert dist.get_backend_config(sub) == "cpu:mpi,cuda:mpi"
    else:
        expect_raises(ValueError, "Invalid process group specified", lambda: dist.get_backend_config(sub))


if __name__ == "__main__":
    main(CHECKS)
