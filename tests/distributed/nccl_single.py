"""The NCCL process group with world size 1 on a real GPU (scripts/gpu-check.sh runs it; one H200 is all the
GPU check has). Exits 0 after checking each collective's result, 2 when this build has no NCCL."""
import sys

import tandem
import tandem.distributed as dist

if not (dist.is_available() and dist.is_nccl_available()):
    print("skipped: this build has no MPI/NCCL process group")
    sys.exit(2)
tandem.cuda.set_device(0)
dist.init_process_group(backend="nccl")
assert dist.get_world_size() == 1 and dist.get_backend() == "nccl"
x = tandem.arange(8, dtype=tandem.float32, device="cuda")
for op in (dist.ReduceOp.SUM, dist.ReduceOp.MAX, dist.ReduceOp.AVG):
    y = x.clone()
    dist.all_reduce(y, op=op)
    assert tandem.equal(y, x), (op, y)
work = dist.all_reduce(x.half(), async_op=True)
work.wait()
dist.broadcast(x, src=0)
out = tandem.empty(8, device="cuda")
dist.all_gather_into_tensor(out, x)
assert tandem.equal(out, x)
dist.reduce_scatter_tensor(out, x)
assert tandem.equal(out, x)
outs = [tandem.empty(8, device="cuda")]
dist.all_gather(outs, x)
assert tandem.equal(outs[0], x)
dist.reduce_scatter(out, [x])  # the list forms go through the flat NCCL collectives
assert tandem.equal(out, x)
outs = [tandem.empty(8, device="cuda")]
dist.all_to_all(outs, [x])
assert tandem.equal(outs[0], x)
dist.barrier()
model = tandem.nn.Linear(4, 2).cuda()
ddp = tandem.nn.parallel.DistributedDataParallel(model, device_ids=[0])
ddp(tandem.randn(3, 4, device="cuda")).sum().backward()
assert ddp.reducer.reductions == 1 and model.weight.grad is not None
tandem.cuda.synchronize()
print("nccl world size 1: all_reduce/broadcast/all_gather/reduce_scatter/all_to_all/barrier/DDP ok")
dist.destroy_process_group()
