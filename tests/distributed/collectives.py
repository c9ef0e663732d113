"""Run under `mpirun -np 2`: every check on every device, each rank writing a JSON report to argv[1].

tests/python/test_distributed.py launches it and turns each (check, device) into one pytest result. Each check
runs on all ranks in the same order (collectives must); a failing check records its traceback and the next
one still runs, because every check ends with all ranks in step.
"""
import copy
import datetime
import json
import os
import sys
import traceback

import numpy as np

import tandem
import tandem.distributed as dist
import tandem.nn as nn
from tandem.distributed.optim import ZeroRedundancyOptimizer
from tandem.utils.data import DataLoader, TensorDataset
from tandem.utils.data.distributed import DistributedSampler

CHECKS = []


def check(fn):
    CHECKS.append(fn)
    return fn


def rank_values(shape, dtype, rank, device):
    """Distinct values per rank: rank r holds r*100 + arange."""
    base = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape) % 7 + 1 + rank * 10
    return tandem.tensor(base, dtype=dtype, device=device), base


def expect_raises(kind, text, fn):
    try:
        fn()
    except kind as e:
        assert text in str(e), f"{kind.__name__} without {text!r}: {e}"
        return e
    raise AssertionError(f"expected {kind.__name__} containing {text!r}")


DTYPES = [tandem.float32, tandem.float64, tandem.float16, tandem.bfloat16, tandem.int64, tandem.int32,
          tandem.int8, tandem.uint8, tandem.int16, tandem.bool]


@check
def all_reduce_every_op_and_dtype(device, rank, world):
    ops = {dist.ReduceOp.SUM: np.sum, dist.ReduceOp.PRODUCT: np.prod, dist.ReduceOp.MIN: np.min,
           dist.ReduceOp.MAX: np.max}
    for dtype in DTYPES:
        for op, ref in ops.items():
            if dtype == tandem.bool:
                mine = tandem.tensor([True, False, rank == 0, True], device=device)
                per_rank = [np.array([True, False, r == 0, True]) for r in range(world)]
                dist.all_reduce(mine, op=op)
                reduce = np.any if op in (dist.ReduceOp.SUM, dist.ReduceOp.MAX) else np.all
                assert mine.cpu().tolist() == reduce(np.stack(per_rank), axis=0).tolist(), (dtype, op)
                continue
            mine, _ = rank_values((2, 3), dtype, rank, device)
            per_rank = [rank_values((2, 3), dtype, r, "cpu")[0].double().numpy() for r in range(world)]
            dist.all_reduce(mine, op=op)
            assert mine.dtype == dtype and mine.device == tandem.device(device)
            expected = tandem.tensor(ref(np.stack(per_rank), axis=0)).to(dtype)
            assert tandem.equal(mine.cpu(), expected), (dtype, op, mine, expected)
    for dtype in (tandem.float32, tandem.float64):
        t, _ = rank_values((5,), dtype, rank, device)
        per_rank = [rank_values((5,), dtype, r, "cpu")[0].numpy() for r in range(world)]
        dist.all_reduce(t, op=dist.ReduceOp.AVG)
        np.testing.assert_allclose(t.cpu().numpy(), np.mean(per_rank, axis=0), rtol=1e-6)
    for op, ref in ((dist.ReduceOp.BAND, np.bitwise_and.reduce), (dist.ReduceOp.BOR, np.bitwise_or.reduce),
                    (dist.ReduceOp.BXOR, np.bitwise_xor.reduce)):
        t = tandem.tensor([3 + rank, 12, 5 * rank], dtype=tandem.int32, device=device)
        dist.all_reduce(t, op=op)
        assert t.tolist() == ref(np.array([[3 + r, 12, 5 * r] for r in range(world)]), axis=0).tolist()


@check
def all_reduce_errors(device, rank, world):
    t = tandem.ones(3, dtype=tandem.int64, device=device)
    expect_raises(RuntimeError, "result type Float can't be cast to the desired output type Long",
                  lambda: dist.all_reduce(t, op=dist.ReduceOp.AVG))
    expect_raises(TypeError, "ReduceOp.BAND needs an integer or bool tensor, got float32",
                  lambda: dist.all_reduce(tandem.ones(2, device=device), op=dist.ReduceOp.BAND))
    expect_raises(TypeError, "op must be a tandem.distributed.ReduceOp", lambda: dist.all_reduce(t, op="sum"))


@check
def all_reduce_non_contiguous_and_async(device, rank, world):
    base = tandem.arange(12, dtype=tandem.float32, device=device).reshape(3, 4) + rank
    view = base.t()  # non-contiguous: written back through the view
    work = dist.all_reduce(view, async_op=True)
    assert work.wait() is True and work.is_completed() and work.is_success()
    expected = sum(np.arange(12, dtype=np.float32).reshape(3, 4) + r for r in range(world))
    np.testing.assert_array_equal(base.cpu().numpy(), expected)
    works = [dist.all_reduce(tandem.full((4,), float(rank), device=device), async_op=True) for _ in range(5)]
    for w in works:
        w.wait()


@check
def work_futures_complete_with_the_outputs(device, rank, world):
    # The DDP communication-hook pattern: all_reduce(..., async_op=True).get_future().then(divide by world).
    t = tandem.full((3,), float(rank + 1), device=device)
    fut = dist.all_reduce(t, async_op=True).get_future()
    averaged = fut.then(lambda f: f.value()[0] / world)
    assert averaged.wait().tolist() == [sum(r + 1 for r in range(world)) / world] * 3
    assert fut.done() and fut.value()[0] is t
    parts = [tandem.empty(2, device=device) for _ in range(world)]
    gathered = dist.all_gather(parts, tandem.full((2,), float(rank), device=device), async_op=True).get_future()
    assert [p.tolist() for p in gathered.wait()[0]] == [[float(r)] * 2 for r in range(world)]
    b = tandem.full((2,), float(rank), device=device)
    assert dist.broadcast(b, src=1, async_op=True).get_future().wait()[0].tolist() == [1.0, 1.0]
    assert dist.barrier(async_op=True).get_future().wait() == []


@check
def broadcast_reduce(device, rank, world):
    for src in range(world):
        t, _ = rank_values((4, 2), tandem.float32, rank, device)
        dist.broadcast(t, src=src)
        assert tandem.equal(t.cpu(), rank_values((4, 2), tandem.float32, src, "cpu")[0])
    t, _ = rank_values((3,), tandem.int64, rank, device)
    dist.reduce(t, dst=1, op=dist.ReduceOp.SUM)
    mine = rank_values((3,), tandem.int64, rank, "cpu")[0]
    if rank == 1:
        assert t.cpu().tolist() == sum(rank_values((3,), tandem.int64, r, "cpu")[0] for r in range(world)).tolist()
    else:
        assert tandem.equal(t.cpu(), mine)  # only the destination receives the result
    expect_raises(RuntimeError, f"::broadcast: invalid root rank: {world}", lambda: dist.broadcast(t, src=world))


@check
def gather_family(device, rank, world):
    t, _ = rank_values((2, 3), tandem.float16, rank, device)
    outs = [tandem.empty(2, 3, dtype=tandem.float16, device=device) for _ in range(world)]
    dist.all_gather(outs, t)
    for r in range(world):
        assert tandem.equal(outs[r].cpu(), rank_values((2, 3), tandem.float16, r, "cpu")[0])
    big = tandem.empty(2 * world, 3, dtype=tandem.float16, device=device)
    dist.all_gather_into_tensor(big, t)
    assert tandem.equal(big.cpu(), tandem.cat([rank_values((2, 3), tandem.float16, r, "cpu")[0] for r in range(world)]))
    inp = tandem.arange(4 * world, dtype=tandem.float32, device=device) * (rank + 1)
    out = tandem.empty(4, device=device)
    dist.reduce_scatter_tensor(out, inp, op=dist.ReduceOp.SUM)
    total = sum(np.arange(4 * world, dtype=np.float32) * (r + 1) for r in range(world))
    np.testing.assert_array_equal(out.cpu().numpy(), total[4 * rank:4 * rank + 4])
    gl = [tandem.empty(2, 3, dtype=tandem.float16, device=device) for _ in range(world)] if rank == 0 else None
    dist.gather(t, gather_list=gl, dst=0)
    if rank == 0:
        for r in range(world):
            assert tandem.equal(gl[r].cpu(), rank_values((2, 3), tandem.float16, r, "cpu")[0])
    sl = [tandem.full((3,), float(r * 7), device=device) for r in range(world)] if rank == 1 else None
    out = tandem.empty(3, device=device)
    dist.scatter(out, scatter_list=sl, src=1)
    assert out.cpu().tolist() == [rank * 7.0] * 3
    expect_raises(ValueError, "Invalid usage of tensors with different dtypes",
                  lambda: dist.all_gather([tandem.empty(2, 3, device=device)] * world, t))
    expect_raises(RuntimeError, "::allgather: invalid output tensor list at index 0",
                  lambda: dist.all_gather([tandem.empty(2, 3, dtype=tandem.float16, device=device)] * (world + 1), t))


@check
def all_to_all(device, rank, world):
    inp = tandem.arange(world * 2, dtype=tandem.int64, device=device) + 100 * rank
    out = tandem.empty(world * 2, dtype=tandem.int64, device=device)
    dist.all_to_all_single(out, inp)
    expected = [100 * r + 2 * rank + k for r in range(world) for k in range(2)]
    assert out.cpu().tolist() == expected
    # uneven splits: rank r sends r+1 rows to every rank
    inp = tandem.full(((rank + 1) * world, 2), float(rank), device=device)
    out = tandem.empty(sum(r + 1 for r in range(world)), 2, device=device)
    dist.all_to_all_single(out, inp, output_split_sizes=[r + 1 for r in range(world)],
                           input_split_sizes=[rank + 1] * world)
    assert out[:, 0].cpu().tolist() == [float(r) for r in range(world) for _ in range(r + 1)]


@check
def point_to_point(device, rank, world):
    peer = (rank + 1) % world
    src = (rank - 1) % world
    send = tandem.arange(6, dtype=tandem.float64, device=device) + rank
    recv = tandem.empty(6, dtype=tandem.float64, device=device)
    # both ranks send first: posted messages never wait for each other
    sw = dist.isend(send, dst=peer)
    rw = dist.irecv(recv, src=src)
    sw.wait()
    rw.wait()
    assert recv.cpu().tolist() == (np.arange(6) + src).tolist()
    if rank == 0:
        dist.send(tandem.tensor([42], device=device), dst=1, tag=7)
    elif rank == 1:
        got = tandem.zeros(1, dtype=tandem.int64, device=device)
        sender = dist.recv(got, tag=7)  # any source
        assert sender == 0 and got.item() == 42
    ops = [dist.P2POp(dist.isend, send, peer), dist.P2POp(dist.irecv, recv, src)]
    for w in dist.batch_isend_irecv(ops):
        w.wait()
    expect_raises(ValueError, "Invalid destination rank", lambda: dist.send(send, dst=rank))


@check
def recv_of_another_size_or_dtype(device, rank, world):
    # A message that does not fit the tensor: recv raises on the receiving rank, naming both sizes.
    cases = [((5, tandem.float32), (3, tandem.float32),
              "tandem.distributed.recv: the message from rank 0 is larger than the tensor's 3 elements of "
              "float32 (12 bytes)"),
             ((3, tandem.float32), (5, tandem.float32),
              "tandem.distributed.recv: expected 5 elements from rank 0, the message had 3"),
             ((3, tandem.float32), (3, tandem.float64),
              "tandem.distributed.recv: expected 3 elements of float64 (24 bytes) from rank 0, the message had 12 "
              "bytes")]
    for (sent, sent_dtype), (size, dtype), message in cases:
        if rank == 0:
            dist.send(tandem.ones(sent, dtype=sent_dtype, device=device), dst=1, tag=11)
        elif rank == 1:
            got = tandem.zeros(size, dtype=dtype, device=device)
            expect_raises(RuntimeError, message, lambda: dist.recv(got, src=0, tag=11))
        dist.barrier()


@check
def subgroups_and_objects(device, rank, world):
    g = dist.new_group([1])
    if rank == 1:
        assert dist.get_rank(g) == 0 and dist.get_world_size(g) == 1
        t = tandem.ones(2, device=device)
        dist.all_reduce(t, group=g)
        assert t.tolist() == [1.0, 1.0]
        assert dist.get_process_group_ranks(g) == [1]
    else:
        assert g == dist.GroupMember.NON_GROUP_MEMBER and dist.get_rank(g) == -1
    pair = dist.new_group([0, 1])
    t = tandem.full((2,), float(rank + 1), device=device)
    dist.all_reduce(t, group=pair)
    assert t.tolist() == [3.0, 3.0]
    objs = [None] * world
    dist.all_gather_object(objs, {"rank": rank, "text": "x" * (rank * 50)})
    assert objs == [{"rank": r, "text": "x" * (r * 50)} for r in range(world)]
    lst = [("a", 1), [2.5], None] if rank == 0 else [None, None, None]
    dist.broadcast_object_list(lst, src=0)
    assert lst == [("a", 1), [2.5], None]
    out = [None]
    dist.scatter_object_list(out, [f"for {r}" for r in range(world)] if rank == 0 else None, src=0)
    assert out == [f"for {rank}"]
    dist.barrier()


@check
def mismatched_arguments_raise_on_every_rank(device, rank, world):
    t = tandem.zeros(3 + rank, device=device)
    e = expect_raises(RuntimeError, "the ranks passed different arguments", lambda: dist.all_reduce(t))
    assert "rank 0: all_reduce of float32 [3]" in str(e) and "rank 1: all_reduce of float32 [4]" in str(e), str(e)
    t = tandem.zeros(3, dtype=tandem.float32 if rank == 0 else tandem.float64, device=device)
    expect_raises(RuntimeError, "the ranks passed different arguments", lambda: dist.broadcast(t, src=0))
    e = expect_raises(RuntimeError, "the ranks passed different arguments",
                      lambda: dist.all_reduce(tandem.zeros(2, device=device)) if rank == 0 else dist.barrier())
    assert "barrier" in str(e)
    dist.all_reduce(tandem.zeros(2, device=device))  # still in step afterwards


def make_model(device):
    tandem.manual_seed(1234)
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4)).to(device)


def params_equal_on_all_ranks(model, world):
    flat = tandem.cat([p.detach().reshape(-1) for p in model.parameters()])
    outs = [tandem.empty_like(flat) for _ in range(world)]
    dist.all_gather(outs, flat)
    return all(tandem.equal(outs[0].cpu(), o.cpu()) for o in outs)


def train_side_by_side(ddp, opt, reference, ref_opt, x_all, y_all, rank, steps):
    """`steps` steps of the DDP model on this rank's 4 rows and of the reference on all of them."""
    mine = slice(4 * rank, 4 * rank + 4)
    for _ in range(steps):
        opt.zero_grad()
        nn.functional.mse_loss(ddp(x_all[mine]), y_all[mine]).backward()
        opt.step()
        ref_opt.zero_grad()
        nn.functional.mse_loss(reference(x_all), y_all).backward()
        ref_opt.step()


def assert_same_params(model, reference):
    for p, q in zip(model.parameters(), reference.parameters()):
        np.testing.assert_allclose(p.detach().cpu().numpy(), q.detach().cpu().numpy(), rtol=1e-5, atol=1e-6)


@check
def ddp_matches_single_process_training(device, rank, world):
    tandem.manual_seed(0)
    x_all = tandem.randn(4 * world, 8).to(device)
    y_all = tandem.randn(4 * world, 4).to(device)
    reference = make_model(device)
    model = make_model(device)
    if rank == 1:  # DDP must broadcast rank 0's parameters
        with tandem.no_grad():
            for p in model.parameters():
                p.add_(1.0)
    ddp = nn.parallel.DistributedDataParallel(model, bucket_cap_mb=0.0002)  # several buckets
    assert len(ddp._bucket_indices()) > 1
    opt = tandem.optim.SGD(ddp.parameters(), lr=0.1)
    ref_opt = tandem.optim.SGD(reference.parameters(), lr=0.1)
    train_side_by_side(ddp, opt, reference, ref_opt, x_all, y_all, rank, 5)
    assert ddp.reducer.reductions == 5
    assert params_equal_on_all_ranks(model, world)
    assert_same_params(model, reference)
    assert list(ddp.state_dict())[0].startswith("module.")


@check
def ddp_no_sync_accumulates(device, rank, world):
    tandem.manual_seed(1)
    x = tandem.randn(8, 8).to(device) + rank
    y = tandem.randn(8, 4).to(device)
    ddp = nn.parallel.DistributedDataParallel(make_model(device))
    with ddp.no_sync():
        nn.functional.mse_loss(ddp(x[:4]), y[:4]).backward()
    nn.functional.mse_loss(ddp(x[4:]), y[4:]).backward()
    accumulated = [p.grad.clone() for p in ddp.parameters()]
    one = nn.parallel.DistributedDataParallel(make_model(device))
    (nn.functional.mse_loss(one(x[:4]), y[:4]) + nn.functional.mse_loss(one(x[4:]), y[4:])).backward()
    for a, b in zip(accumulated, one.parameters()):
        np.testing.assert_allclose(a.cpu().numpy(), b.grad.cpu().numpy(), rtol=1e-5, atol=1e-6)


def zero_training(device, rank, world, steps, bucket_view=False, state=None):
    """(ZeRO model, ZeRO optimizer, reference model, reference Adam) after `steps` DDP steps on rank-split data
    against one process on all of it; `state` (a full optimizer state dict) loaded into both first."""
    tandem.manual_seed(0)
    x_all = tandem.randn(4 * world, 8).to(device)
    y_all = tandem.randn(4 * world, 4).to(device)
    reference, model = make_model(device), make_model(device)
    ddp = nn.parallel.DistributedDataParallel(model)
    opt = ZeroRedundancyOptimizer(ddp.parameters(), optimizer_class=tandem.optim.Adam,
                                  parameters_as_bucket_view=bucket_view, lr=0.05, betas=(0.8, 0.9))
    ref_opt = tandem.optim.Adam(reference.parameters(), lr=0.05, betas=(0.8, 0.9))
    if state is not None:
        opt.load_state_dict(state)
        # a copy: load_state_dict keeps the loaded step tensors (PyTorch's rule), so two optimizers loaded from one
        # dict would count their steps in the same tensors
        ref_opt.load_state_dict(copy.deepcopy(state))
    train_side_by_side(ddp, opt, reference, ref_opt, x_all, y_all, rank, steps)
    return model, opt, reference, ref_opt


@check
def zero_redundancy_optimizer_matches_adam(device, rank, world):
    for bucket_view in (False, True):
        model, opt, reference, _ = zero_training(device, rank, world, 4, bucket_view)
        assert params_equal_on_all_ranks(model, world)
        assert_same_params(model, reference)
    # each parameter's state lives on its owner only: sorted-greedy by size, largest first (PyTorch's partition)
    # (sizes 128, 64, 16, 4: rank 0 takes 128, rank 1 the rest, having the fewer elements at each choice)
    owned = {tuple(p.shape) for p in opt.optim.state}
    assert owned == ({(16, 8)} if rank == 0 else {(4, 16), (16,), (4,)}), owned
    assert opt.param_groups[0]["betas"] == (0.8, 0.9) and opt.param_groups[0]["amsgrad"] is False


@check
def zero_redundancy_optimizer_state_dict_round_trip(device, rank, world):
    _, opt, _, ref_opt = zero_training(device, rank, world, 3)
    if rank == 1:
        expect_raises(RuntimeError, "Optimizer state has not been consolidated on this rank. Please call "
                      "`consolidate_state_dict(to=1)` on all ranks beforehand", opt.state_dict)
    opt.consolidate_state_dict(to=0)
    full = [None]
    if rank == 0:
        full[0] = opt.state_dict()
        ref = ref_opt.state_dict()
        assert list(full[0]["state"]) == [0, 1, 2, 3] and full[0]["param_groups"][0]["params"] == [0, 1, 2, 3]
        for i in range(4):
            assert full[0]["state"][i]["exp_avg"].device == tandem.device("cpu")
            for name in ("step", "exp_avg", "exp_avg_sq"):
                np.testing.assert_allclose(full[0]["state"][i][name].numpy(), ref["state"][i][name].cpu().numpy(),
                                           rtol=1e-5, atol=1e-7)
    dist.broadcast_object_list(full, src=0)
    # training on from the consolidated state matches a plain Adam loaded with it
    model, opt2, reference, _ = zero_training(device, rank, world, 2, state=full[0])
    assert str(next(iter(opt2.optim.state.values()))["exp_avg"].device) == device
    assert_same_params(model, reference)
    expect_raises(ValueError, "loaded state dict has a different number of parameter groups",
                  lambda: opt2.load_state_dict({"state": {}, "param_groups": []}))


@check
def zero_redundancy_optimizer_param_groups_and_errors(device, rank, world):
    model = make_model(device)
    first, second = list(model[0].parameters()), list(model[2].parameters())
    opt = ZeroRedundancyOptimizer(first, tandem.optim.SGD, lr=0.1)
    opt.add_param_group({"params": second, "lr": 0.01})
    assert [len(g) for g in opt._partition_parameters()] == [2, 2]
    assert [g["lr"] for g in opt.optim.param_groups] == [0.1, 0.01]
    opt.param_groups[1]["lr"] = 0.5  # a scheduler's change reaches the local optimizer at the next step
    for p in model.parameters():
        p.grad = tandem.ones_like(p)
    before = [p.detach().clone() for p in model.parameters()]
    opt.step()
    for p, b, lr in zip(model.parameters(), before, (0.1, 0.1, 0.5, 0.5)):
        np.testing.assert_allclose((b - p.detach()).cpu().numpy(), np.full(tuple(p.shape), lr), rtol=1e-6)
    expect_raises(ValueError, "ZeroRedundancyOptimizer got an empty parameter list",
                  lambda: ZeroRedundancyOptimizer([], tandem.optim.SGD, lr=0.1))
    expect_raises(TypeError, "`params` argument should be an iterable of Tensors, but got",
                  lambda: ZeroRedundancyOptimizer(first[0], tandem.optim.SGD, lr=0.1))
    expect_raises(TypeError, "`params` argument should be an iterable of Tensors or dicts",
                  lambda: ZeroRedundancyOptimizer([first[0], {"params": second}], tandem.optim.SGD, lr=0.1))
    expect_raises(ValueError, "only supports using the same dense type for all parameters",
                  lambda: ZeroRedundancyOptimizer([first[0], first[1].double()], tandem.optim.SGD, lr=0.1))
    expect_raises(NotImplementedError, "overlap_with_ddp=True",
                  lambda: ZeroRedundancyOptimizer(first, tandem.optim.SGD, overlap_with_ddp=True, lr=0.1))


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 4)
        self.used = nn.Linear(4, 1)
        self.unused = nn.Linear(4, 1)

    def forward(self, x, which="used"):
        return getattr(self, which)(self.body(x))


@check
def ddp_unused_parameters(device, rank, world):
    tandem.manual_seed(2)
    x = tandem.randn(3, 4).to(device)
    ddp = nn.parallel.DistributedDataParallel(TwoHeads().to(device))
    ddp(x).sum().backward()
    e = expect_raises(RuntimeError, "Expected to have finished reduction in the prior iteration",
                      lambda: ddp(x))
    assert "unused.weight" in str(e) and "find_unused_parameters=True" in str(e)
    ddp = nn.parallel.DistributedDataParallel(TwoHeads().to(device), find_unused_parameters=True)
    for _ in range(2):
        ddp.zero_grad()
        ddp(x).sum().backward()
    assert ddp.module.unused.weight.grad is None  # no rank used it
    ddp.zero_grad()
    ddp(x, which="unused" if rank == 1 else "used").sum().backward()  # used on one rank only
    assert ddp.module.unused.weight.grad is not None and ddp.module.used.weight.grad is not None
    assert params_equal_on_all_ranks(ddp.module, world)


@check
def ddp_refuses_sparse_gradients(device, rank, world):
    # nn.Embedding(sparse=True) accumulates its gradient outside the engine's AccumulateGrad, which the reducer
    # hooks: refused rather than left unaveraged
    model = nn.Sequential(nn.Embedding(10, 4, sparse=True), nn.Linear(4, 1)).to(device)
    expect_raises(NotImplementedError, "DistributedDataParallel does not average sparse gradients in tandem yet: 0 "
                  "uses sparse=True", lambda: nn.parallel.DistributedDataParallel(model))
    bag = nn.EmbeddingBag(10, 4, sparse=True).to(device)
    expect_raises(NotImplementedError, "EmbeddingBag uses sparse=True", lambda: nn.parallel.DistributedDataParallel(bag))
    model[0].weight.requires_grad_(False)  # a frozen sparse table has no gradient to average
    nn.parallel.DistributedDataParallel(model)


@check
def distributed_sampler_shards(device, rank, world):
    data = TensorDataset(tandem.arange(11))
    seen = []
    for shuffle in (False, True):
        sampler = DistributedSampler(data, shuffle=shuffle, seed=3)
        sampler.set_epoch(1)
        mine = [int(b[0]) for b in DataLoader(data, batch_size=1, sampler=sampler)]
        everyone = [None] * world
        dist.all_gather_object(everyone, mine)
        flat = sum(everyone, [])
        assert len(mine) == 6 and sorted(set(flat)) == list(range(11)), everyone  # padded to 12
        seen.append(everyone)
    sampler = DistributedSampler(data, drop_last=True, shuffle=False)
    assert len(sampler) == 5 and list(sampler) == list(range(rank, 10, world))
    expect_raises(ValueError, "Invalid rank 5, rank should be in the interval [0, 1]",
                  lambda: DistributedSampler(data, num_replicas=2, rank=5))


def main(checks=CHECKS):
    report_dir = sys.argv[1]
    dist.init_process_group(backend="mpi", timeout=datetime.timedelta(seconds=60))
    rank, world = dist.get_rank(), dist.get_world_size()
    assert dist.is_initialized() and dist.get_backend() == "mpi"
    # what torchrun would set, exported from mpirun's variables for PyTorch scripts that read them
    assert (os.environ["RANK"], os.environ["WORLD_SIZE"], os.environ["LOCAL_RANK"]) == (str(rank), str(world), str(rank))
    devices = ["cpu"] + (["cuda:0"] if tandem.cuda.is_available() else [])
    results = {}
    for device in devices:
        for fn in checks:
            name = f"{fn.__name__}[{device}]"
            try:
                fn(device, rank, world)
                results[name] = "ok"
            except Exception:
                results[name] = traceback.format_exc()
            dist.barrier()
    with open(os.path.join(report_dir, f"rank{rank}.json"), "w") as f:
        json.dump(results, f)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
