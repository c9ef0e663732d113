"""F.grouped_mm (PyTorch 2.15): one matrix product per group, the groups cut from a 2D operand by `offs`, as in
Mixture-of-Experts layers. tandem computes what PyTorch's fallback path computes (a loop of mm over slices), with
PyTorch's argument checks, as a composition of mm, slicing and cat, so it runs and differentiates on every device.

Where PyTorch leaves output rows or columns that no group writes (past offs[-1]) uninitialised, tandem writes
zeros. The output is contiguous (PyTorch pads its row stride to 16 bytes when the last dim is not a multiple)."""
from .. import _C

__all__ = ["grouped_mm"]

_GEMM_DTYPES = (_C.float32, _C.bfloat16, _C.float16)


def _check_tensor(value, label, position=None):
    if value is not None and not isinstance(value, _C.Tensor):
        where = f" (position {position})" if position else ""
        raise TypeError(f"_grouped_mm(): argument '{label}'{where} must be Tensor, not {type(value).__name__}")


def _check_layout(mat):
    """PyTorch's grouped-GEMM layout rule: each matrix row-major or column-major, its leading stride a multiple of
    16 bytes (what the CUDA kernels' TMA loads need; PyTorch checks it on every device)."""
    sizes, strides = mat.shape, mat.stride()
    alignment = 16 // mat.element_size()
    if strides[-2] == 1 and strides[-1] >= max(1, sizes[-2]):
        leading = strides[-1]
    elif strides[-1] == 1 and strides[-2] >= max(1, sizes[-1]):
        leading = strides[-2]
    else:
        raise RuntimeError(f"Invalid strides/sizes, got {list(strides)} for strides and {list(sizes)} for sizes")
    if leading % alignment:
        raise RuntimeError("strides should be multiple of 16 bytes")


def _validate(mat_a, mat_b, offs, bias, out_dtype):
    """PyTorch's checks, in its order (so the first error is the same one)."""
    for mat, name in ((mat_a, "mat_a"), (mat_b, "mat_b")):
        if mat.dtype not in _GEMM_DTYPES:
            raise RuntimeError(f"Expected {name} to be Float32, BFloat16 or Float16 matrix, got "
                               f"{mat.dtype._scalar_type_name}")
    if mat_a.dtype != mat_b.dtype:
        raise RuntimeError(f"Expected mat_a and mat_b to have the same dtype, got {mat_a.dtype._scalar_type_name} "
                           f"and {mat_b.dtype._scalar_type_name}")
    for mat, name in ((mat_a, "mat_a"), (mat_b, "mat_b")):
        if mat.dim() not in (2, 3):
            raise RuntimeError(f"{name} has to be 2 or 3d")
    if (mat_a.dim() == 3 or mat_b.dim() == 3) and mat_a.shape[-1] != mat_b.shape[-2]:
        raise RuntimeError("contraction dimension of mat_a and mat_b must match")
    _check_layout(mat_a)
    _check_layout(mat_b)
    if (offs is not None) != (mat_a.dim() == 2 or mat_b.dim() == 2):
        raise RuntimeError("Have to provide offsets if there is a 2d matrix, or no offset if both matrices are 3d")
    if offs is not None:
        if offs.dim() != 1:
            raise RuntimeError("offs has to be 1D")
        if offs.dtype != _C.int32:
            raise RuntimeError("Offsets have to be int32")
    if bias is not None:
        raise RuntimeError("Bias not supported yet")
    if out_dtype is not None and out_dtype != mat_a.dtype:
        raise RuntimeError("Grouped gemm output dtype must match `mat_a` dtype")


def _group_slices(ends, size):
    """Group g covers [end of g-1, end of g) of a dim of `size`, cut with slicing's rules (negative ends count from
    the back, out-of-range ends are clamped, a backwards range is empty), as PyTorch's loop of slices does. A later
    group overwrites an earlier one where they overlap, so each position belongs to the last group covering it;
    returns runs (start, stop, group) in order, group None for positions no group covers."""
    owner = [None] * size
    start = 0
    for group, end in enumerate(ends):
        for i in range(size)[start:end]:
            owner[i] = group
        start = end
    runs = []
    for i, group in enumerate(owner):
        if runs and runs[-1][2] == group and runs[-1][1] == i:
            runs[-1][1] = i + 1
        else:
            runs.append([i, i + 1, group])
    return runs


def _jagged(dense, size, dim, ends, product, zeros_shape):
    """cat along `dim` of product(start, stop, group) for each run, zeros where no group writes."""
    import tandem  # noqa: PLC0415

    pieces = []
    for start, stop, group in _group_slices(ends, size):
        if group is None:
            shape = list(zeros_shape)
            shape[dim] = stop - start
            pieces.append(tandem.zeros(shape, dtype=dense.dtype, device=dense.device))
        else:
            pieces.append(product(start, stop, group))
    if not pieces:
        return tandem.zeros(zeros_shape, dtype=dense.dtype, device=dense.device)
    return tandem.cat(pieces, dim)


def grouped_mm(mat_a, mat_b, *, offs=None, bias=None, out_dtype=None):
    """Grouped matrix multiply. 2D x 3D: rows of mat_a in group g times mat_b[g], shape (M, N). 3D x 2D: mat_a[g]
    times the columns of mat_b in group g, shape (M, N). 2D x 2D: the group's slice of the shared K dim,
    shape (G, M, N). 3D x 3D (no offs): bmm. `offs[g]` (int32) is where group g ends."""
    import tandem  # noqa: PLC0415

    _check_tensor(mat_a, "input", 1)
    _check_tensor(mat_b, "mat2", 2)
    _check_tensor(offs, "offs")
    _check_tensor(bias, "bias")
    _validate(mat_a, mat_b, offs, bias, out_dtype)
    a_2d, b_2d = mat_a.dim() == 2, mat_b.dim() == 2
    if not a_2d and not b_2d:
        if mat_a.shape[0] != mat_b.shape[0]:
            raise RuntimeError("batched dimension has to match")
        return tandem.bmm(mat_a, mat_b)
    groups = offs.shape[0]
    if a_2d != b_2d and groups != (mat_b if a_2d else mat_a).shape[0]:
        raise RuntimeError("matrix batch sizes have to match")
    ends = offs.tolist()  # the group bounds decide shapes, so they are read on the host (as PyTorch's .cpu())
    if a_2d and not b_2d:
        m, n = mat_a.shape[0], mat_b.shape[-1]
        return _jagged(mat_a, m, 0, ends, lambda s, e, g: tandem.mm(mat_a[s:e], mat_b[g]), (m, n))
    if b_2d and not a_2d:
        m, n = mat_a.shape[1], mat_b.shape[1]
        return _jagged(mat_a, n, 1, ends, lambda s, e, g: tandem.mm(mat_a[g], mat_b[:, s:e]), (m, n))
    # 2D x 2D: each group contracts its own slice of K, writing its own (M, N) output
    m, n = mat_a.shape[0], mat_b.shape[1]
    outputs, start = [], 0
    for end in ends:
        outputs.append(tandem.mm(mat_a[:, start:end], mat_b[start:end]))
        start = end
    if not outputs:
        return tandem.zeros((0, m, n), dtype=mat_a.dtype, device=mat_a.device)
    return tandem.stack(outputs)
