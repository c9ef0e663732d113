"""torch.distributed in one process: calls before init_process_group (PyTorch's messages), invalid backends and
init arguments, ReduceOp misuse, and collectives at world size 1 (gloo in both libraries: tandem's runs over MPI
without mpirun) with mismatched list lengths, wrong dtypes, non-tensors and odd tensors. Every case that initialises
destroys its group again, so the cases stay independent."""
import os
import tempfile

from . import R, Case


def D(L):
    return L.distributed


def t(L, d, shape=(3,), dtype="float32"):
    return R(L, shape, d, dtype, 2.0)


def with_pg(L, fn, backend="gloo"):
    """fn() inside a fresh world-size-1 group (a file store of its own), destroyed afterwards whatever happens."""
    path = tempfile.mktemp(prefix="hostile9_pg_")
    D(L).init_process_group(backend, init_method=f"file://{path}", rank=0, world_size=1)
    try:
        return fn()
    finally:
        D(L).destroy_process_group()
        if os.path.exists(path):
            os.unlink(path)


def init_only(L, **kw):
    path = tempfile.mktemp(prefix="hostile9_pg_")
    kw.setdefault("init_method", f"file://{path}")
    try:
        D(L).init_process_group(**kw)
    finally:
        if D(L).is_initialized():
            D(L).destroy_process_group()
        if os.path.exists(path):
            os.unlink(path)


def inplace(L, d, op, *args, **kw):
    """A collective on a tensor, returning the tensor afterwards (collectives write in place)."""
    x = t(L, d)
    return with_pg(L, lambda: (getattr(D(L), op)(x, *args, **kw), x)[1])


CASES = {
    # ---- before init_process_group
    "uninit/is_initialized": lambda L, d: D(L).is_initialized(),
    "uninit/is_available": lambda L, d: D(L).is_available(),
    "uninit/get_rank": lambda L, d: D(L).get_rank(),
    "uninit/get_world_size": lambda L, d: D(L).get_world_size(),
    "uninit/get_backend": lambda L, d: D(L).get_backend(),
    "uninit/all_reduce": lambda L, d: D(L).all_reduce(t(L, d)),
    "uninit/broadcast": lambda L, d: D(L).broadcast(t(L, d), 0),
    "uninit/barrier": lambda L, d: D(L).barrier(),
    "uninit/all_gather": lambda L, d: D(L).all_gather([t(L, d)], t(L, d)),
    "uninit/new_group": lambda L, d: D(L).new_group([0]),
    "uninit/destroy": lambda L, d: D(L).destroy_process_group(),
    "uninit/get_process_group_ranks": lambda L, d: D(L).get_process_group_ranks(None),
    "uninit/send": lambda L, d: D(L).send(t(L, d), 0),
    "uninit/all_gather_object": lambda L, d: D(L).all_gather_object([None], 1),
    # ---- init arguments
    "init/bad_backend": lambda L, d: init_only(L, backend="carrier-pigeon", rank=0, world_size=1),
    "init/backend_not_str": lambda L, d: init_only(L, backend=5, rank=0, world_size=1),
    "init/rank_past_world": lambda L, d: init_only(L, backend="gloo", rank=1, world_size=1),
    "init/negative_world": lambda L, d: init_only(L, backend="gloo", rank=0, world_size=-2),
    "init/bad_init_method": lambda L, d: init_only(L, backend="gloo", rank=0, world_size=1,
                                                   init_method="carrier://nowhere"),
    "init/store_and_init_method": lambda L, d: init_only(L, backend="gloo", rank=0, world_size=1,
                                                         store=D(L).HashStore()),
    "init/twice": lambda L, d: with_pg(L, lambda: init_only(L, backend="gloo", rank=0, world_size=1)),
    "init/timeout_not_timedelta": lambda L, d: init_only(L, backend="gloo", rank=0, world_size=1, timeout=5),
    "init/ok_state": lambda L, d: with_pg(L, lambda: (D(L).is_initialized(), D(L).get_rank(),
                                                      D(L).get_world_size())),
    "init/destroy_twice": lambda L, d: (with_pg(L, lambda: None), D(L).destroy_process_group()),
    "backend/names": lambda L, d: (D(L).Backend.GLOO, D(L).Backend("GLOO"), D(L).Backend.NCCL),
    "backend/unknown_name": lambda L, d: D(L).Backend("carrier-pigeon"),
    "backend/not_str": lambda L, d: D(L).Backend(5),
    # ---- ReduceOp
    "reduce_op/members": lambda L, d: [str(op) for op in (D(L).ReduceOp.SUM, D(L).ReduceOp.MAX, D(L).ReduceOp.MIN,
                                                         D(L).ReduceOp.PRODUCT)],
    "reduce_op/equal": lambda L, d: (D(L).ReduceOp.SUM == D(L).ReduceOp.SUM, D(L).ReduceOp.SUM == D(L).ReduceOp.MAX),
    "reduce_op/unknown_member": lambda L, d: D(L).ReduceOp.MEDIAN,
    "reduce_op/string_op": lambda L, d: inplace(L, d, "all_reduce", op="sum"),
    "reduce_op/int_op": lambda L, d: inplace(L, d, "all_reduce", op=0),
    "reduce_op/max": lambda L, d: inplace(L, d, "all_reduce", op=D(L).ReduceOp.MAX),
    "reduce_op/product_int": lambda L, d: with_pg(L, lambda: _reduce_int(L, d, D(L).ReduceOp.PRODUCT)),
    "reduce_op/avg_gloo": lambda L, d: inplace(L, d, "all_reduce", op=D(L).ReduceOp.AVG),
    "reduce_op/band_float": lambda L, d: inplace(L, d, "all_reduce", op=D(L).ReduceOp.BAND),
    "reduce_op/band_int": lambda L, d: with_pg(L, lambda: _reduce_int(L, d, D(L).ReduceOp.BAND)),
    # ---- collectives at world size 1
    "all_reduce/ok": lambda L, d: inplace(L, "cpu", "all_reduce"),
    "all_reduce/non_tensor": lambda L, d: with_pg(L, lambda: D(L).all_reduce([1.0, 2.0])),
    "all_reduce/int": lambda L, d: with_pg(L, lambda: _reduce_int(L, "cpu", D(L).ReduceOp.SUM)),
    "all_reduce/bool": lambda L, d: with_pg(L, lambda: _reduce_bool(L)),
    "all_reduce/complex": lambda L, d: with_pg(L, lambda: _reduce_complex(L)),
    "all_reduce/half": lambda L, d: with_pg(L, lambda: _reduce_dtype(L, "float16")),
    "all_reduce/empty": lambda L, d: with_pg(L, lambda: _reduce_empty(L)),
    "all_reduce/noncontiguous": lambda L, d: with_pg(L, lambda: _reduce_noncontig(L)),
    "all_reduce/async_op": lambda L, d: with_pg(L, lambda: _reduce_async(L)),
    "all_reduce/requires_grad_leaf": lambda L, d: with_pg(L, lambda: D(L).all_reduce(t(L, "cpu").requires_grad_())),
    "broadcast/src_out_of_range": lambda L, d: with_pg(L, lambda: D(L).broadcast(t(L, "cpu"), 3)),
    "broadcast/src_negative": lambda L, d: with_pg(L, lambda: D(L).broadcast(t(L, "cpu"), -1)),
    "broadcast/ok": lambda L, d: inplace(L, "cpu", "broadcast", 0),
    "reduce/dst_out_of_range": lambda L, d: with_pg(L, lambda: D(L).reduce(t(L, "cpu"), 2)),
    "all_gather/ok": lambda L, d: with_pg(L, lambda: _gather(L, 1)),
    "all_gather/list_too_long": lambda L, d: with_pg(L, lambda: _gather(L, 2)),
    "all_gather/list_empty": lambda L, d: with_pg(L, lambda: _gather(L, 0)),
    "all_gather/shape_mismatch": lambda L, d: with_pg(L, lambda: _gather(L, 1, (4,))),
    "all_gather/dtype_mismatch": lambda L, d: with_pg(L, lambda: _gather(L, 1, dtype="float64")),
    "all_gather/not_a_list": lambda L, d: with_pg(L, lambda: D(L).all_gather(t(L, "cpu"), t(L, "cpu"))),
    "all_gather_into_tensor/ok": lambda L, d: with_pg(L, lambda: _gather_into(L, (3,))),
    "all_gather_into_tensor/wrong_size": lambda L, d: with_pg(L, lambda: _gather_into(L, (4,))),
    "all_gather_into_tensor/wrong_dtype": lambda L, d: with_pg(L, lambda: _gather_into(L, (3,), "float64")),
    "reduce_scatter/list_too_long": lambda L, d: with_pg(L, lambda: D(L).reduce_scatter(
        t(L, "cpu"), [t(L, "cpu"), t(L, "cpu")])),
    "scatter/ok": lambda L, d: with_pg(L, lambda: _scatter(L, 1)),
    "scatter/list_too_long": lambda L, d: with_pg(L, lambda: _scatter(L, 2)),
    "scatter/none_list_on_src": lambda L, d: with_pg(L, lambda: D(L).scatter(t(L, "cpu"), None, src=0)),
    "gather/ok": lambda L, d: with_pg(L, lambda: _gather_to(L, 1)),
    "gather/list_too_long": lambda L, d: with_pg(L, lambda: _gather_to(L, 3)),
    "all_to_all_single/ok": lambda L, d: with_pg(L, lambda: _all_to_all_single(L, (3,))),
    "all_to_all_single/bad_split": lambda L, d: with_pg(L, lambda: _all_to_all_single(L, (3,), [1, 2])),
    "broadcast_object_list/ok": lambda L, d: with_pg(L, lambda: _bcast_objects(L)),
    "broadcast_object_list/src_out_of_range": lambda L, d: with_pg(L, lambda: D(L).broadcast_object_list([1], 5)),
    "all_gather_object/ok": lambda L, d: with_pg(L, lambda: _gather_objects(L, 1)),
    "all_gather_object/list_too_short": lambda L, d: with_pg(L, lambda: _gather_objects(L, 0)),
    "send/to_self": Case(lambda L, d: with_pg(L, lambda: D(L).send(t(L, "cpu"), 0)), "any-message"),
    "new_group/ok": lambda L, d: with_pg(L, lambda: D(L).get_world_size(D(L).new_group([0]))),
    "new_group/rank_out_of_range": lambda L, d: with_pg(L, lambda: D(L).new_group([0, 1])),
    "new_group/duplicate_ranks": lambda L, d: with_pg(L, lambda: D(L).new_group([0, 0])),
    "get_rank/of_group": lambda L, d: with_pg(L, lambda: D(L).get_rank(D(L).group.WORLD)),
    "get_global_rank/out_of_range": lambda L, d: with_pg(L, lambda: D(L).get_global_rank(D(L).group.WORLD, 4)),
    "get_group_rank/out_of_range": lambda L, d: with_pg(L, lambda: D(L).get_group_rank(D(L).group.WORLD, 4)),
    "barrier/ok": lambda L, d: with_pg(L, lambda: D(L).barrier()),
    "monitored_barrier/gloo": lambda L, d: with_pg(L, lambda: D(L).monitored_barrier()),
    "get_backend/after_init": lambda L, d: with_pg(L, lambda: str(D(L).get_backend())),
}


def _reduce_int(L, d, op):
    x = L.tensor([2, 3, 4], device=d)
    D(L).all_reduce(x, op=op)
    return x


def _reduce_bool(L):
    x = L.tensor([True, False])
    D(L).all_reduce(x)
    return x


def _reduce_complex(L):
    x = L.tensor([1 + 2j, 3 - 1j])
    D(L).all_reduce(x)
    return x


def _reduce_dtype(L, dtype):
    x = t(L, "cpu", dtype=dtype)
    D(L).all_reduce(x)
    return x


def _reduce_empty(L):
    x = L.zeros(0)
    D(L).all_reduce(x)
    return x


def _reduce_noncontig(L):
    x = t(L, "cpu", (3, 4)).t()
    D(L).all_reduce(x, op=D(L).ReduceOp.MAX)
    return x


def _reduce_async(L):
    x = t(L, "cpu")
    work = D(L).all_reduce(x, async_op=True)
    work.wait()
    return x, work.is_completed()


def _gather(L, n, shape=(3,), dtype="float32"):
    out = [L.zeros(shape, dtype=getattr(L, dtype)) for _ in range(n)]
    D(L).all_gather(out, t(L, "cpu"))
    return out


def _gather_into(L, shape, dtype="float32"):
    out = L.zeros(shape, dtype=getattr(L, dtype))
    D(L).all_gather_into_tensor(out, t(L, "cpu"))
    return out


def _scatter(L, n):
    out = L.zeros(3)
    D(L).scatter(out, [t(L, "cpu") * (i + 1) for i in range(n)], src=0)
    return out


def _gather_to(L, n):
    out = [L.zeros(3) for _ in range(n)]
    D(L).gather(t(L, "cpu"), out, dst=0)
    return out


def _all_to_all_single(L, shape, splits=None):
    out = L.zeros(shape)
    D(L).all_to_all_single(out, t(L, "cpu"), output_split_sizes=splits, input_split_sizes=splits)
    return out


def _bcast_objects(L):
    objs = [{"a": 1}, "x", 3.5]
    D(L).broadcast_object_list(objs, 0)
    return objs


def _gather_objects(L, n):
    out = [None] * n
    D(L).all_gather_object(out, {"k": [1, 2]})
    return out


KNOWN = {
    "reduce_op/unknown_member": "wording: PyTorch's ReduceOp is a C++ class (torch._C._distributed_c10d.ReduceOp)",
    "all_gather/shape_mismatch": "wording: a RuntimeError in both (since session 35); PyTorch's names its gloo "
                                 "backend (ProcessGroupGloo::allgather: invalid tensor size ...)",
    "all_gather_into_tensor/wrong_size": "wording: a RuntimeError in both (since session 35); PyTorch's names its "
                                         "backend",
    "all_gather_into_tensor/wrong_dtype": "wording: a RuntimeError in both (since session 35); PyTorch's says "
                                          "invalid tensor type",
    "init/negative_world": "wording: PyTorch's gloo fails an internal enforce (rank < size); tandem says MPI started "
                           "one process (both RuntimeError)",
    "init/rank_past_world": "wording: PyTorch's gloo fails an internal enforce (rank < size); tandem names the rank "
                            "MPI gave (both RuntimeError)",
}
