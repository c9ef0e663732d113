"""The tensor-list forms of reduce_scatter and all_to_all, the (deprecated) coalesced all_reduce/all_gather and
gather into one tensor, built on the flat collectives of the C++ process groups: the list is packed into one flat
tensor, and the flat result is copied back into the caller's tensors."""
import warnings
import zlib

import tandem
from tandem.distributed import distributed_c10d as c10d

__all__ = ["all_gather_coalesced", "all_reduce_coalesced", "all_to_all", "gather_into_tensor", "gather_single",
           "reduce_scatter"]


def _check_tensor_list(param, param_name):
    if not isinstance(param, list):
        raise TypeError(f"Invalid function argument. Expected parameter `{param_name}` of type "
                        f"List[torch.Tensor]\n             but got {type(param)} instead.")
    if not all(isinstance(p, tandem.Tensor) for p in param):
        raise TypeError(f"Invalid function argument. Expected parameter `{param_name}` of type "
                        f"List[torch.Tensor]\n             but got {type(param)} with elements of type "
                        f"{[type(p) for p in param]}.")


def _flat(tensors):
    return tandem.cat([t.reshape(-1) for t in tensors])


def reduce_scatter(output, input_list, op=c10d.ReduceOp.SUM, group=None, async_op=False):
    """Reduces input_list[i] over the group into rank i's ``output`` (every input has output's shape)."""
    c10d._check_tensor(output, "reduce_scatter", "output")
    _check_tensor_list(input_list, "input_list")
    c10d._check_same_dtypes([output, *input_list])
    pg, member = c10d._resolve(group)
    if not member:
        return None
    if len(input_list) != pg.size():
        raise RuntimeError("invalid input tensor list size, must be world size")
    for i, t in enumerate(input_list):
        if t.shape != output.shape:
            raise RuntimeError(f"reduce_scatter: input_list[{i}] has shape {list(t.shape)}, but output has shape "
                               f"{list(output.shape)}\nhint: every tensor in input_list must have output's shape")
    flat = _flat(input_list)
    return c10d._finish([pg._impl_for(flat).reduce_scatter_tensor(output, flat, c10d._op_code(op))], async_op,
                        pg=pg)


def _sizes_agree(pg, group, output_tensor_list, input_tensor_list):
    """Every rank learns what every rank sends and expects (one small all_gather), so a mismatch raises the same
    error on all of them instead of a truncated message on some and a hang on the others."""
    n = pg.size()
    dtype = input_tensor_list[0].dtype
    dtype_code = zlib.crc32(str(dtype).encode())  # the same number in every process, unlike hash()
    mine = tandem.tensor([t.numel() for t in input_tensor_list] + [t.numel() for t in output_tensor_list]
                         + [dtype_code], dtype=tandem.int64)
    table = [tandem.empty(2 * n + 1, dtype=tandem.int64) for _ in range(n)]
    c10d.all_gather(table, mine, group=group)
    rows = [t.tolist() for t in table]
    if len({row[2 * n] for row in rows}) > 1:
        raise RuntimeError(f"all_to_all: the ranks passed tensors of different dtypes (this rank: {dtype})")
    for src in range(n):
        for dst in range(n):
            sent, expected = rows[src][dst], rows[dst][n + src]
            if sent != expected:
                raise RuntimeError(f"all_to_all: group rank {src} sends {sent} element(s) to group rank {dst}, "
                                   f"but rank {dst}'s output_tensor_list[{src}] holds {expected}\nhint: "
                                   "output_tensor_list[j] must have as many elements as rank j's "
                                   "input_tensor_list[this rank]")


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    """Sends input_tensor_list[j] to rank j and receives rank j's tensor for this rank into
    output_tensor_list[j]; the tensors may differ in size from peer to peer."""
    _check_tensor_list(output_tensor_list, "output_tensor_list")
    _check_tensor_list(input_tensor_list, "input_tensor_list")
    if output_tensor_list or input_tensor_list:
        c10d._check_same_dtypes([*output_tensor_list, *input_tensor_list])
    pg, member = c10d._resolve(group)
    if not member:
        return None
    for name, tensors in (("output", output_tensor_list), ("input", input_tensor_list)):
        if len(tensors) != pg.size():
            raise RuntimeError(f"all_to_all: {name} tensor list size {len(tensors)} does not match world size "
                               f"{pg.size()}")
    _sizes_agree(pg, group, output_tensor_list, input_tensor_list)
    flat_in = _flat(input_tensor_list)
    out_sizes = [t.numel() for t in output_tensor_list]
    flat_out = tandem.empty(sum(out_sizes), dtype=flat_in.dtype, device=flat_in.device)
    work = pg._impl_for(flat_in).all_to_all_single(flat_out, flat_in, out_sizes,
                                                  [t.numel() for t in input_tensor_list])

    def unpack():
        at = 0
        for t, size in zip(output_tensor_list, out_sizes):
            t.copy_(flat_out[at:at + size].view(t.shape))
            at += size

    return c10d._finish([work], async_op, on_done=unpack, pg=pg)


# ---- PyTorch's deprecated coalesced forms, and gather into one tensor ----

def _warn_coalesced(name):
    warnings.warn(f"`torch.distributed.{name}` will be deprecated. If you must use it, please revisit our "
                  "documentation later at https://pytorch.org/docs/main/distributed.html#collective-functions",
                  FutureWarning, stacklevel=3)


def _as_real(t):
    return tandem.view_as_real(t) if t.is_complex() else t


def _coalesced_result(work, async_op):
    if async_op:
        return work.get_future()  # PyTorch returns the Future here, not the Work
    work.wait()
    return None


def all_reduce_coalesced(tensors, op=c10d.ReduceOp.SUM, group=None, async_op=False):
    """all_reduce of every tensor in ``tensors`` (one dtype) as one flat all-reduce. Deprecated in PyTorch
    (FutureWarning); with async_op=True it returns a Future."""
    _warn_coalesced("all_reduce_coalesced")
    if isinstance(tensors, tandem.Tensor):
        tensors = [tensors]
    _check_tensor_list(tensors, "tensor")
    c10d._check_same_dtypes(tensors)
    pg, member = c10d._resolve(group)
    if not member:
        return None
    code = c10d._op_code(op)
    if any(t.is_complex() for t in tensors) and code not in (c10d.ReduceOp.SUM, c10d.ReduceOp.AVG):
        raise ValueError(f"all_reduce does not support {c10d.ReduceOp.RedOpType(code)} on complex tensors")
    real = [_as_real(t) for t in tensors]
    flat = _flat(real)
    work = pg._impl_for(flat).all_reduce(flat, code)

    def unpack():
        at = 0
        for t in real:
            t.copy_(flat[at:at + t.numel()].view(t.shape))
            at += t.numel()

    return _coalesced_result(c10d._finish([work], True, unpack, pg=pg, outputs=list(tensors)), async_op)


def all_gather_coalesced(output_tensor_lists, input_tensor_list, group=None, async_op=False):
    """output_tensor_lists[r][i] receives rank r's input_tensor_list[i], in one flat all-gather. Deprecated in
    PyTorch (FutureWarning); with async_op=True it returns a Future."""
    _warn_coalesced("all_gather_coalesced")
    pg, member = c10d._resolve(group)
    if not member:
        return None
    _check_tensor_list(input_tensor_list, "input_tensor_list")
    c10d._check_same_dtypes(input_tensor_list)
    if not isinstance(output_tensor_lists, list):
        raise TypeError("Invalid function argument: output_tensor_lists should be a list")
    for output_list in output_tensor_lists:
        _check_tensor_list(output_list, "output_tensor_lists")
        c10d._check_same_dtypes(output_list)
    if len(output_tensor_lists) != pg.size():
        raise RuntimeError(f"all_gather_coalesced: output lists should be equal to world size ({pg.size()}), got "
                           f"{len(output_tensor_lists)}")
    sizes = [_as_real(t).numel() for t in input_tensor_list]
    for output_list in output_tensor_lists:
        if len(output_list) != len(input_tensor_list):
            raise RuntimeError(f"all_gather_coalesced: invalid output size: (expected length "
                               f"{len(input_tensor_list)}, got {len(output_list)})")
        for i, (t, n) in enumerate(zip(output_list, sizes)):
            if _as_real(t).numel() != n:
                raise RuntimeError(f"all_gather_coalesced: invalid size of output tensor at index {i} (expected "
                                   f"{n} elements, got {_as_real(t).numel()})")
    flat_in = _flat([_as_real(t) for t in input_tensor_list])
    flat_out = tandem.empty(flat_in.numel() * pg.size(), dtype=flat_in.dtype, device=flat_in.device)
    work = pg._impl_for(flat_in).all_gather_into_tensor(flat_out, flat_in)

    def unpack():
        at = 0
        for output_list in output_tensor_lists:
            for t in output_list:
                real = _as_real(t)
                real.copy_(flat_out[at:at + real.numel()].view(real.shape))
                at += real.numel()

    return _coalesced_result(c10d._finish([work], True, unpack, pg=pg, outputs=[output_tensor_lists]), async_op)


def gather_single(tensor, gather_tensor=None, dst=None, group=None, async_op=False, group_dst=None):
    """gather into one tensor on the destination: rank r's ``tensor`` lands in row r of ``gather_tensor``
    (contiguous, ``world_size * tensor.numel()`` elements: flat or stacked)."""
    c10d._check_tensor(tensor, "gather_single")
    pg, member = c10d._resolve(group)
    if not member:
        return None
    root = group_dst if group_dst is not None else c10d._group_rank(pg, 0 if dst is None else dst, "gather_single")
    rows = []
    if pg.rank() == root:
        if gather_tensor is None:
            raise ValueError("gather_tensor must be specified on the destination rank")
        c10d._check_tensor(gather_tensor, "gather_single", "gather_tensor")
        c10d._check_same_dtypes([tensor, gather_tensor])
        if not gather_tensor.is_contiguous():
            raise RuntimeError("gather_single: gather_tensor must be contiguous\nhint: pass a contiguous tensor "
                               "(e.g. tensor.new_empty(world_size, *tensor.shape))")
        if gather_tensor.numel() != pg.size() * tensor.numel():
            raise RuntimeError(f"gather_single: gather_tensor has {gather_tensor.numel()} elements, expected "
                               f"world_size * tensor.numel() = {pg.size()} * {tensor.numel()}")
        rows = list(gather_tensor.view(pg.size(), -1).unbind(0))
    work = pg._impl_for(tensor).gather(tensor.reshape(-1), rows, root)
    return c10d._finish([work], async_op, pg=pg, outputs=[gather_tensor] if gather_tensor is not None else [])


gather_into_tensor = gather_single  # PyTorch keeps the old name as an alias
