"""Run under `mpirun -np 8`: the transcript of mesh_transcript.py (compared with PyTorch's by
tests/python/test_distributed_mesh.py), then collectives over the groups of meshes, split_group and new_group on
every device, with expected values from arithmetic on the ranks. Each rank writes
{"transcript": [...], "checks": {name: "ok" or traceback}} as JSON to argv[1]/rank<r>.json."""
import datetime
import json
import os
import sys
import traceback
import warnings

import tandem
import tandem.distributed as dist
import tandem.distributed.device_mesh as device_mesh

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from collectives import expect_raises  # noqa: E402
from mesh_transcript import WORLD, transcript  # noqa: E402

CHECKS = []  # run on every device
CUDA_CHECKS = ["cuda_mesh_picks_the_device"]  # run once, with CUDA devices only


def check(fn):
    CHECKS.append(fn)
    return fn


def summed_over(group, rank, device):
    t = tandem.tensor([float(rank)], device=device)
    dist.all_reduce(t, group=group)
    return t.item()


@check
def mesh_group_collectives(device, rank, world):
    mesh = dist.init_device_mesh("cpu" if device == "cpu" else "cuda", (2, 4), mesh_dim_names=("dp", "tp"))
    row, col = divmod(rank, 4)
    assert summed_over(mesh.get_group("tp"), rank, device) == sum(4 * row + c for c in range(4))
    assert summed_over(mesh["dp"].get_group(), rank, device) == col + (4 + col)
    gathered = tandem.zeros(4, device=device)
    dist.all_gather_into_tensor(gathered, tandem.tensor([float(rank)], device=device), group=mesh.get_group("tp"))
    assert gathered.tolist() == [4.0 * row + c for c in range(4)]
    # the group's own rank order: group rank 0 of a kept reversed order is the highest rank
    kept = dist.DeviceMesh(mesh.device_type, list(range(world - 1, -1, -1)), preserve_rank_order=True)
    t = tandem.tensor([float(rank)], device=device)
    dist.broadcast(t, group=kept.get_group(), group_src=0)
    assert t.item() == world - 1 and kept.get_local_rank() == world - 1 - rank
    # a flattened pair of non-adjacent dimensions of a 3-D mesh
    m3 = dist.init_device_mesh(mesh.device_type, (2, 2, 2), mesh_dim_names=("dp", "cp", "tp"))
    flat = m3["dp", "tp"]._flatten()
    members = [r for r in range(world) if (r // 2) % 2 == (rank // 2) % 2]
    assert dist.get_process_group_ranks(flat.get_group()) == members
    assert summed_over(flat.get_group(), rank, device) == sum(members)


@check
def split_and_new_group_collectives(device, rank, world):
    halves = dist.split_group(split_ranks=[[0, 1, 2, 3], [7, 6, 5, 4]])
    t = tandem.tensor([float(rank)], device=device)
    dist.broadcast(t, group=halves, group_src=0)
    assert t.item() == (0 if rank < 4 else 7)
    assert summed_over(halves, rank, device) == (6 if rank < 4 else 22)
    pair = dist.split_group(parent_pg=halves, split_ranks=[[3, 1]])  # parent ranks: global 3,1 or 4,6
    if rank in (3, 1, 4, 6):
        assert dist.get_process_group_ranks(pair) == ([3, 1] if rank < 4 else [4, 6])
        t = tandem.tensor([float(rank)], device=device)
        dist.broadcast(t, group=pair, group_src=0)
        assert t.item() == (3 if rank < 4 else 4)
    else:
        assert pair == dist.GroupMember.NON_GROUP_MEMBER
    ordered = dist.new_group([6, 2], sort_ranks=False)
    if rank in (6, 2):
        t = tandem.tensor([float(rank)], device=device)
        dist.broadcast(t, group=ordered, group_src=0)
        assert t.item() == 6 and ordered.rank() == (0 if rank == 6 else 1)


@check
def all_gather_and_reduce_scatter_single(device, rank, world):
    out = tandem.zeros(world * 2, device=device)
    dist.all_gather_single(out, tandem.tensor([rank, -rank], dtype=tandem.float32, device=device))
    assert out.tolist() == [v for r in range(world) for v in (r, -r)]
    scattered = tandem.zeros(2, device=device)
    dist.reduce_scatter_single(scattered, tandem.arange(2 * world, dtype=tandem.float32, device=device))
    assert scattered.tolist() == [world * 2.0 * rank, world * (2.0 * rank + 1)]
    expect_raises(TypeError, "Expected parameter `input_tensor` of type torch.Tensor",
                  lambda: dist.all_gather_single(out, [scattered]))


@check
def errors_raise_on_every_rank(device, rank, world):
    expect_raises(ValueError, "Rank 9 is out of range. Valid ranks are 0 to 7 (the parent group's size is 8)",
                  lambda: dist.split_group(split_ranks=[[0, 9]]))
    expect_raises(RuntimeError, "Each device mesh dimension should get only one process group, but got 1 in [1, 0]!",
                  lambda: dist.DeviceMesh("cpu", [[0, 1], [1, 0]]))
    expect_raises(TypeError, "Process group backend for '0' does not support shrinking operations.",
                  lambda: dist.shrink_group([1]))
    expect_raises(ValueError, "ranks_to_exclude cannot be empty", lambda: dist.shrink_group([]))
    expect_raises(TypeError, "ranks_to_exclude must be a list, but got tuple", lambda: dist.shrink_group((1,)))
    expect_raises(ValueError, "Invalid shrink_flags value: 7", lambda: dist.shrink_group([1], shrink_flags=7))
    expect_raises(ValueError, "Requested backend 'nccl' is not present in the parent process group",
                  lambda: dist.split_group(split_ranks=[[0]], backend="nccl"))
    pair = dist.new_group([0, 1])
    if rank > 1:
        expect_raises(ValueError, "Invalid process group specified", lambda: dist.shrink_group([1], group=pair))
    else:
        expect_raises(TypeError, f"Process group backend for '{pair.group_name}'", lambda: dist.shrink_group([0], pair))


@check
def set_timeout_applies_to_the_group(device, rank, world):
    group = dist.new_group(list(range(world)))
    dist.set_timeout(datetime.timedelta(seconds=45), group)
    assert group._timeout == datetime.timedelta(seconds=45)
    assert dist.distributed_c10d._timeout_ms(group) == 45_000
    assert summed_over(group, rank, device) == sum(range(world))  # a collective still runs under the new limit
    expect_raises(TypeError, "set_timeout(): incompatible function arguments", lambda: dist.set_timeout(5, group))
    before = dist.distributed_c10d._State.timeout
    dist.set_timeout(datetime.timedelta(seconds=50))
    assert dist.distributed_c10d._timeout_ms() == 50_000 and dist.distributed_c10d._timeout_ms(group) == 45_000
    dist.set_timeout(before)


def cuda_mesh_picks_the_device(device, rank, world):
    count = tandem.cuda.device_count()
    saved = os.environ.get("LOCAL_RANK")
    try:
        # as on machines of `count` GPUs each: torchrun's LOCAL_RANK picks the device
        os.environ["LOCAL_RANK"] = str(rank % count)
        tandem.cuda.set_device(0)
        tandem.cuda._device_selected = False
        dist.init_device_mesh("cuda", (world,))
        assert tandem.cuda.current_device() == rank % count
        # without LOCAL_RANK: rank modulo the devices per machine, with PyTorch's warning
        del os.environ["LOCAL_RANK"]
        tandem.cuda.set_device(0)
        tandem.cuda._device_selected = False
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            dist.init_device_mesh("cuda", (world,))
        assert tandem.cuda.current_device() == rank % count
        assert any("did not set/select the default device" in str(w.message) for w in caught)
        # a device the program chose is kept
        tandem.cuda.set_device(0)
        dist.init_device_mesh("cuda", (world,))
        assert tandem.cuda.current_device() == 0
    finally:
        if saved is not None:
            os.environ["LOCAL_RANK"] = saved
        tandem.cuda.set_device(rank % count)


def main():
    report_dir = sys.argv[1]
    dist.init_process_group(backend="gloo", timeout=datetime.timedelta(seconds=60))
    rank, world = dist.get_rank(), dist.get_world_size()
    assert world == WORLD
    report = {"transcript": transcript(dist, device_mesh, tandem), "checks": {}}
    devices = ["cpu"] + (["cuda:0"] if tandem.cuda.is_available() else [])
    for device in devices:
        if device != "cpu":
            tandem.cuda.set_device(rank % tandem.cuda.device_count())
            device = f"cuda:{rank % tandem.cuda.device_count()}"
        for fn in CHECKS + ([cuda_mesh_picks_the_device] if device != "cpu" else []):
            name = f"{fn.__name__}[{device.split(':')[0]}]"
            try:
                fn(device, rank, world)
                report["checks"][name] = "ok"
            except Exception:
                report["checks"][name] = traceback.format_exc()
            dist.barrier()
    with open(os.path.join(report_dir, f"rank{rank}.json"), "w") as f:
        json.dump(report, f)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
