"""Autocast for the sparse products: PyTorch's mm, addmm, matmul and bmm are autocast-listed (lower precision on
CUDA and on the CPU) and cast sparse operands as they cast dense ones, so torch.sparse.mm(adj, x) in an autocast
region returns float16/bfloat16. tandem's sparse products are compositions of ops that are not listed
(index_select, index_add), so they cast here, on entry, by the same rule: floating operands other than float64
take the region's dtype for their device type."""
from .. import _C


def lower(*tensors):
    """The operands as an autocast-listed product sees them (themselves when autocast is off)."""
    if not _C._autocast_active():
        return tensors
    import tandem  # noqa: PLC0415  (tandem imports this package while it is being built)

    device_type = next((t.device.type for t in tensors if t is not None), "cpu")
    if not tandem.is_autocast_enabled(device_type):
        return tensors
    dtype = tandem.get_autocast_dtype(device_type)
    return tuple(t.to(dtype) if t is not None and t.is_floating_point() and t.dtype != _C.float64
                 and t.dtype != dtype else t for t in tensors)
