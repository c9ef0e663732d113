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


def _hooked_ddp(device, hook, state=None, bucket_cap_mb=None):
    tandem.manual_seed(0)
    model = tandem.nn.Sequential(tandem.nn.Linear(6, 5), tandem.nn.Tanh(), tandem.nn.Linear(5, 2)).to(device)
    ddp = tandem.nn.parallel.DistributedDataParallel(model, bucket_cap_mb=bucket_cap_mb)
    ddp.register_comm_hook(state, hook)
    return model, ddp


def _batches(device, world):
    g = np.random.default_rng(3)
    return [tandem.tensor(g.standard_normal((2, 6)), dtype=tandem.float32, device=device) for _ in range(world)]


@check
def ddp_comm_hooks_average_like_plain_ddp(device, rank, world):
    from tandem.distributed.algorithms.ddp_comm_hooks import default_hooks
    batches = _batches(device, world)
    tandem.manual_seed(0)
    reference = tandem.nn.Sequential(tandem.nn.Linear(6, 5), tandem.nn.Tanh(), tandem.nn.Linear(5, 2)).to(device)
    # the same loss on the whole batch in one process: the mean over ranks of each rank's mean loss
    (sum(reference(b).pow(2).mean() for b in batches) / world).backward()
    expected = [p.grad.cpu().numpy() for p in reference.parameters()]
    for hook, tol in ((default_hooks.allreduce_hook, 1e-6), (default_hooks.fp16_compress_hook, 2e-3),
                      (default_hooks.bf16_compress_hook, 2e-2)):
        model, ddp = _hooked_ddp(device, hook, bucket_cap_mb=0.0001)  # several buckets
        assert len(ddp.reducer.bucket_indices()) > 1
        ddp(batches[rank]).pow(2).mean().backward()
        for p, e in zip(model.parameters(), expected):
            assert np.allclose(p.grad.cpu().numpy(), e, atol=tol), (hook.__name__, p.grad, e)
        assert ddp.reducer.reductions == 1


@check
def ddp_custom_comm_hook_sees_buckets(device, rank, world):
    seen = []

    def hook(state, bucket):
        state.append((bucket.index(), bucket.is_last(), [tuple(p.shape) for p in bucket.parameters()],
                      [tuple(g.shape) for g in bucket.gradients()], bucket.buffer().numel()))
        doubled = bucket.buffer() * 2  # a hook may reduce anything: here twice the sum over ranks
        return dist.all_reduce(doubled, async_op=True).get_future().then(lambda f: f.value()[0])

    model, ddp = _hooked_ddp(device, hook, state=seen, bucket_cap_mb=0.0001)
    x = _batches(device, world)[rank]
    ddp(x).sum().backward()
    grads = [p.grad.clone() for p in model.parameters()]
    assert [s[0] for s in seen] == list(range(len(ddp.reducer.bucket_indices())))
    assert [s[1] for s in seen] == [False] * (len(seen) - 1) + [True]
    assert all(s[2] == s[3] and s[4] == sum(int(np.prod(sh)) for sh in s[2]) for s in seen)
    # no_sync(): the hook is not called, gradients accumulate locally
    with ddp.no_sync():
        ddp(x).sum().backward()
    assert len(seen) == len(ddp.reducer.bucket_indices())
    local = [p.grad - g for p, g in zip(model.parameters(), grads)]
    gathered = [tandem.zeros_like(local[0]) for _ in range(world)]
    dist.all_gather(gathered, local[0])
    total = sum(gathered)
    assert np.allclose(grads[0].cpu().numpy(), 2 * total.cpu().numpy(), atol=1e-5)
    expect_raises(RuntimeError, "register_comm_hook or register_builtin_comm_hook can only be called once.",
                  lambda: ddp.register_comm_hook(None, hook))
    _, other = _hooked_ddp(device, lambda s, b: b.buffer())  # not a Future
    expect_raises(RuntimeError, "Communication hook: return annotation should be torch.futures.Future",
                  lambda: other(x).sum().backward())
    expect_raises(TypeError, "Communication hook must be callable",
                  lambda: tandem.nn.parallel.DistributedDataParallel(tandem.nn.Linear(2, 2).to(device))
                  .register_comm_hook(None, 3))


if __name__ == "__main__":
    main(CHECKS)
