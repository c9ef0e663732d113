"""The tensor-list forms of reduce_scatter and all_to_all, built on the flat collectives of the C++ process
groups (reduce_scatter_tensor, all_to_all_single): the list is packed into one flat tensor, and the flat result
is copied back into the caller's tensors."""
import zlib

import tandem
from tandem.distributed import distributed_c10d as c10d

__all__ = ["all_to_all", "reduce_scatter"]


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
