"""Run under `mpirun -np 2`: the list forms of reduce_scatter/all_to_all, send/recv_object_list and the subgroup
helpers, on every device, each rank writing a JSON report to argv[1] (the same harness as collectives.py).

Expected values come from NumPy; error texts are PyTorch 2.15's (checked against torch's gloo backend) where
PyTorch has one, else tandem's own.
"""
import os
import sys

import numpy as np

import tandem
import tandem.distributed as dist

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from collectives import expect_raises, main  # noqa: E402

CHECKS = []


def check(fn):
    CHECKS.append(fn)
    return fn


def per_rank_inputs(rank, world, shape, dtype, device):
    """input_list[j] on rank r: distinct small values for every (r, j)."""
    arrays = [(np.arange(int(np.prod(shape))).reshape(shape) % 5 + 1 + 3 * rank + 7 * j).astype(np.float64)
              for j in range(world)]
    return [tandem.tensor(a, dtype=dtype, device=device) for a in arrays], arrays


@check
def reduce_scatter_list_ops_and_dtypes(device, rank, world):
    ops = {dist.ReduceOp.SUM: np.sum, dist.ReduceOp.MAX: np.max, dist.ReduceOp.MIN: np.min,
           dist.ReduceOp.PRODUCT: np.prod}
    for dtype in (tandem.float32, tandem.float64, tandem.int64, tandem.int32, tandem.float16):
        for op, ref in ops.items():
            inputs, _ = per_rank_inputs(rank, world, (2, 3), dtype, device)
            out = tandem.empty(2, 3, dtype=dtype, device=device)
            assert dist.reduce_scatter(out, inputs, op=op) is None
            expected = ref(np.stack([per_rank_inputs(r, world, (2, 3), tandem.float64, "cpu")[1][rank]
                                     for r in range(world)]), axis=0)
            assert out.dtype == dtype and out.device == tandem.device(device)
            assert tandem.equal(out.cpu(), tandem.tensor(expected).to(dtype)), (dtype, op, out)
    inputs, _ = per_rank_inputs(rank, world, (4,), tandem.float32, device)
    out = tandem.empty(4, device=device)
    dist.reduce_scatter(out, inputs, op=dist.ReduceOp.AVG)
    expected = np.mean([per_rank_inputs(r, world, (4,), tandem.float64, "cpu")[1][rank] for r in range(world)], 0)
    np.testing.assert_allclose(out.cpu().numpy(), expected, rtol=1e-6)
    inputs = [tandem.tensor([1 + 1j * rank, 2 - 1j * j], dtype=tandem.complex128, device=device)
              for j in range(world)]
    out = tandem.empty(2, dtype=tandem.complex128, device=device)
    dist.reduce_scatter(out, inputs)
    assert out.cpu().tolist() == [sum(1 + 1j * r for r in range(world)), world * (2 - 1j * rank)]


@check
def reduce_scatter_list_views_and_async(device, rank, world):
    base = tandem.zeros(3, 2, device=device)
    out = base.t()  # non-contiguous output: the result is written through the view
    inputs = [tandem.full((2, 3), float(rank + 1 + 10 * j), device=device) for j in range(world)]
    work = dist.reduce_scatter(out, inputs, async_op=True)
    assert work.wait() is True and work.is_completed()
    assert base.cpu().tolist() == [[float(sum(r + 1 + 10 * rank for r in range(world)))] * 2] * 3
    # inputs are only read
    assert all(t.cpu().tolist() == [[float(rank + 1 + 10 * j)] * 3] * 2 for j, t in enumerate(inputs))


@check
def reduce_scatter_list_errors(device, rank, world):
    out = tandem.empty(3, device=device)
    inputs = [tandem.ones(3, device=device) for _ in range(world)]
    expect_raises(RuntimeError, "invalid input tensor list size, must be world size",
                  lambda: dist.reduce_scatter(out, inputs[:1]))
    expect_raises(RuntimeError, "invalid input tensor list size, must be world size",
                  lambda: dist.reduce_scatter(out, inputs * 2))
    expect_raises(RuntimeError, "reduce_scatter: input_list[0] has shape [4], but output has shape [3]",
                  lambda: dist.reduce_scatter(out, [tandem.ones(4, device=device)] * world))
    e = expect_raises(ValueError, "Invalid usage of tensors with different dtypes",
                      lambda: dist.reduce_scatter(out, [tandem.ones(3, dtype=tandem.float64, device=device)] * world))
    assert "float32" in str(e) and "float64" in str(e)
    e = expect_raises(TypeError, "Invalid function argument. Expected parameter `input_list` of type "
                      "List[torch.Tensor]\n             but got <class 'tuple'> instead.",
                      lambda: dist.reduce_scatter(out, tuple(inputs)))
    expect_raises(TypeError, "Expected parameter `input_list` of type List[torch.Tensor]\n             but got "
                  "<class 'list'> with elements of type [<class 'int'>, <class 'int'>].",
                  lambda: dist.reduce_scatter(out, [1, 2]))
    expect_raises(TypeError, "Expected parameter `output` of type torch.Tensor\n             but got <class "
                  "'list'> instead.", lambda: dist.reduce_scatter([1], inputs))
    expect_raises(TypeError, "ReduceOp.BAND needs an integer or bool tensor",
                  lambda: dist.reduce_scatter(out, inputs, op=dist.ReduceOp.BAND))
    dist.reduce_scatter(out, inputs)  # still in step
    assert out.cpu().tolist() == [float(world)] * 3


@check
def list_collectives_on_subgroups(device, rank, world):
    only1 = dist.new_group([1])
    t = tandem.full((2,), float(rank + 5), device=device)
    out = tandem.zeros(2, device=device)
    outs = [tandem.zeros(2, device=device)]
    if rank == 1:  # a group of one: the result is this rank's own tensor
        dist.reduce_scatter(out, [t], group=only1)
        dist.all_to_all(outs, [t * 2], group=only1)
        assert out.cpu().tolist() == [6.0, 6.0] and outs[0].cpu().tolist() == [12.0, 12.0]
    else:  # not a member: nothing happens, as in PyTorch
        assert dist.reduce_scatter(out, [t], group=only1) is None
        assert dist.all_to_all(outs, [t], group=only1) is None
        assert out.cpu().tolist() == [0.0, 0.0] and outs[0].cpu().tolist() == [0.0, 0.0]


@check
def all_to_all_list_uneven(device, rank, world):
    # PyTorch's docstring example, generalised: rank r sends r + j + 1 elements to rank j.
    inputs = [tandem.arange(rank + j + 1, dtype=tandem.int64, device=device) + 100 * rank + 10 * j
              for j in range(world)]
    outputs = [tandem.full((j + rank + 1,), -1, dtype=tandem.int64, device=device) for j in range(world)]
    assert dist.all_to_all(outputs, inputs) is None
    for j, out in enumerate(outputs):
        expected = np.arange(j + rank + 1) + 100 * j + 10 * rank
        assert out.device == tandem.device(device) and out.dtype == tandem.int64
        assert out.cpu().tolist() == expected.tolist(), (j, out)
    # 2-D pieces of different row counts, float16, async, non-contiguous output
    inputs = [tandem.full((j + 1, 2), float(rank * 10 + j), dtype=tandem.float16, device=device)
              for j in range(world)]
    bases = [tandem.zeros(2, rank + 1, dtype=tandem.float16, device=device) for _ in range(world)]
    work = dist.all_to_all([b.t() for b in bases], inputs, async_op=True)
    work.wait()
    for j, b in enumerate(bases):
        assert b.cpu().tolist() == [[float(j * 10 + rank)] * (rank + 1)] * 2, (j, b)
    # complex pieces
    inputs = [tandem.tensor([1 + 1j * rank, 2 + 3j * j], dtype=tandem.complex64, device=device) for j in range(world)]
    outputs = [tandem.empty(2, dtype=tandem.complex64, device=device) for _ in range(world)]
    dist.all_to_all(outputs, inputs)
    assert [o.cpu().tolist() for o in outputs] == [[1 + 1j * j, 2 + 3j * rank] for j in range(world)]
    # zero-element pieces
    inputs = [tandem.ones(0 if j == rank else 2, device=device) for j in range(world)]
    outputs = [tandem.zeros(0 if j == rank else 2, device=device) for j in range(world)]
    dist.all_to_all(outputs, inputs)
    assert [o.cpu().tolist() for o in outputs] == [[] if j == rank else [1.0, 1.0] for j in range(world)]


@check
def all_to_all_list_errors(device, rank, world):
    ins = [tandem.ones(2, device=device) for _ in range(world)]
    outs = [tandem.empty(2, device=device) for _ in range(world)]
    expect_raises(RuntimeError, f"all_to_all: output tensor list size 1 does not match world size {world}",
                  lambda: dist.all_to_all(outs[:1], ins))
    expect_raises(RuntimeError, f"all_to_all: input tensor list size 1 does not match world size {world}",
                  lambda: dist.all_to_all(outs, ins[:1]))
    expect_raises(ValueError, "Invalid usage of tensors with different dtypes",
                  lambda: dist.all_to_all(outs, [t.double() for t in ins]))
    expect_raises(TypeError, "Expected parameter `output_tensor_list` of type List[torch.Tensor]\n"
                  "             but got <class 'tuple'> instead.", lambda: dist.all_to_all(tuple(outs), ins))
    # sizes that disagree between ranks raise on every rank, before any data moves
    bad = [tandem.empty(3 if rank == 1 else 2, device=device) for _ in range(world)]
    e = expect_raises(RuntimeError, "all_to_all: group rank 0 sends 2 element(s) to group rank 1, but rank 1's "
                      "output_tensor_list[0] holds 3", lambda: dist.all_to_all(bad, ins))
    assert "hint: output_tensor_list[j] must have as many elements" in str(e)
    dtype = tandem.float32 if rank == 0 else tandem.float64
    expect_raises(RuntimeError, "all_to_all: the ranks passed tensors of different dtypes",
                  lambda: dist.all_to_all([t.to(dtype) for t in outs], [t.to(dtype) for t in ins]))
    dist.all_to_all(outs, [t * (rank + 1) for t in ins])  # still in step
    assert [o.cpu().tolist() for o in outs] == [[float(j + 1)] * 2 for j in range(world)]


OBJECTS = ["foo", 12, {1: 2, "nested": [1.5, None]}, (3, "x" * 300), None]


@check
def send_recv_object_list(device, rank, world):
    for src in range(world):
        if rank == src:
            assert dist.send_object_list(OBJECTS, dst=(src + 1) % world) is None
            assert OBJECTS[0] == "foo"  # the sender's list is unchanged
        elif rank == (src + 1) % world:
            got = [None] * len(OBJECTS)
            assert dist.recv_object_list(got, src=src) == src
            assert got == OBJECTS
    # explicit device for the byte tensors; group ranks on a subgroup
    pair = dist.new_group([0, 1])
    if rank == 0:
        dist.send_object_list([{"w": 3}], group=pair, group_dst=1, device=device)
    else:
        got = [None]
        assert dist.recv_object_list(got, group=pair, group_src=0, device=device) == 0 and got == [{"w": 3}]
    # weights_only: saved with tandem.save, loaded with weights_only=True (tensors keep dtype and values)
    if rank == 1:
        dist.send_object_list([{"t": tandem.arange(3, dtype=tandem.int16)}, [1, 2]], dst=0, weights_only=True)
    else:
        got = [None, None]
        assert dist.recv_object_list(got, src=1, weights_only=True) == 1
        assert got[0]["t"].dtype == tandem.int16 and got[0]["t"].tolist() == [0, 1, 2] and got[1] == [1, 2]
    # a rank outside the group does nothing and gets -1
    only1 = dist.new_group([1])
    if rank == 0:
        assert dist.recv_object_list([None], src=1, group=only1) == -1
        assert dist.send_object_list([1], dst=1, group=only1) is None


@check
def send_recv_object_list_errors(device, rank, world):
    peer = (rank + 1) % world
    expect_raises(ValueError, "Invalid destination rank: destination rank should not be the same as the rank of "
                  "the current process.", lambda: dist.send_object_list([1], dst=rank))
    expect_raises(ValueError, "Invalid source rank: source rank should not be the same as the rank of the current "
                  "process.", lambda: dist.recv_object_list([None], src=rank))
    expect_raises(ValueError, "Must specify global_rank or group_rank", lambda: dist.send_object_list([1]))
    expect_raises(ValueError, "Must specify global_rank or group_rank", lambda: dist.recv_object_list([None]))
    expect_raises(ValueError, "Can't specify both group_rank and global_rank",
                  lambda: dist.send_object_list([1], dst=peer, group_dst=peer))
    expect_raises(ValueError, "Can't specify both group_rank and global_rank",
                  lambda: dist.recv_object_list([None], src=peer, group_src=peer))
    expect_raises(ValueError, f"send_object_list: rank {world + 3} is not part of the group",
                  lambda: dist.send_object_list([1], dst=world + 3))
    expect_raises(ValueError, "recv_object_list: rank -1 is not part of the group",
                  lambda: dist.recv_object_list([None], src=-1))
    expect_raises(ValueError, "send: dst rank 5 is out of range", lambda: dist.send_object_list([1], group_dst=5))
    expect_raises(ValueError, "not enough values to unpack (expected 2, got 0)",
                  lambda: dist.send_object_list([], dst=peer))
    expect_raises(ValueError, "not enough values to unpack (expected 2, got 0)",
                  lambda: dist.recv_object_list([], src=peer))
    # a receiver whose list has the wrong length takes the whole message, then raises: the ranks stay in step
    for sent, expected in ((3, 2), (1, 2)):
        if rank == 0:
            dist.send_object_list(list(range(sent)), dst=1)
        else:
            got = [None] * expected
            expect_raises(RuntimeError, f"recv_object_list: rank 0 sent {sent} object(s), but object_list has "
                          f"{expected} entries", lambda: dist.recv_object_list(got, src=0))
            assert got == [None] * expected
    if rank == 0:
        dist.send_object_list(["after"], dst=1)
    else:
        got = [None]
        assert dist.recv_object_list(got, src=0) == 0 and got == ["after"]


@check
def new_subgroups_splits_the_world(device, rank, world):
    before = dist.get_pg_count()
    cur, groups = dist.new_subgroups(1)
    assert dist.get_pg_count() == before + world
    assert len(groups) == world and dist.get_process_group_ranks(cur) == [rank]
    assert [g == dist.GroupMember.NON_GROUP_MEMBER for g in groups] == [r != rank for r in range(world)]
    t = tandem.full((2,), float(rank + 1), device=device)
    dist.all_reduce(t, group=cur)
    assert t.cpu().tolist() == [float(rank + 1)] * 2
    cur, groups = dist.new_subgroups(world)
    assert len(groups) == 1 and groups[0] is cur and dist.get_process_group_ranks(cur) == list(range(world))
    dist.all_reduce(t, group=cur)
    assert t.cpu().tolist() == [float(sum(r + 1 for r in range(world)))] * 2
    if tandem.cuda.is_available():  # the default size is the number of CUDA devices per machine
        if world % tandem.cuda.device_count() == 0 and tandem.cuda.device_count() <= world:
            cur, groups = dist.new_subgroups()
            assert dist.get_world_size(cur) == tandem.cuda.device_count()
    else:
        expect_raises(ValueError, "Default group size only takes effect when CUDA/XPU is available.If your "
                      "subgroup using a backend that does not depend on CUDA/XPU,please pass in 'group_size' "
                      "correctly.", dist.new_subgroups)
    pair = dist.new_group([0, 1])
    cur, groups = dist.new_subgroups(1, group=pair)
    assert dist.get_process_group_ranks(cur) == [rank] and len(groups) == 2


@check
def new_subgroups_by_enumeration_and_errors(device, rank, world):
    cur, groups = dist.new_subgroups_by_enumeration([[1]])
    if rank == 1:
        assert groups == [cur] and dist.get_process_group_ranks(cur) == [1]
    else:
        assert cur is None and groups == [dist.GroupMember.NON_GROUP_MEMBER]
    cur, groups = dist.new_subgroups_by_enumeration([[1], [0]])
    assert dist.get_process_group_ranks(cur) == [rank] and len(groups) == 2
    before = dist.get_pg_count()
    expect_raises(ValueError, "Rank 1 has appeared in both subgroup [0, 1] and [1]",
                  lambda: dist.new_subgroups_by_enumeration([[0, 1], [1]]))
    assert dist.get_pg_count() == before + 2  # as in PyTorch, the groups were made before the check
    expect_raises(ValueError, "The arg 'ranks_per_subgroup_list' cannot be empty",
                  lambda: dist.new_subgroups_by_enumeration([]))
    expect_raises(ValueError, "The arg 'ranks_per_subgroup_list' cannot be empty",
                  lambda: dist.new_subgroups_by_enumeration(None))
    expect_raises(ValueError, "The arg 'group_size' (0) must be positive", lambda: dist.new_subgroups(0))
    expect_raises(ValueError, f"The arg 'group_size' ({world + 1}) must not exceed the world size ({world})",
                  lambda: dist.new_subgroups(world + 1))
    # the local rank comes from Open MPI's variables (what torchrun's LOCAL_RANK would be)
    assert dist.get_node_local_rank() == int(os.environ["OMPI_COMM_WORLD_LOCAL_RANK"]) == rank


if __name__ == "__main__":
    main(CHECKS)
