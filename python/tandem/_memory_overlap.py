"""PyTorch's partial-overlap rule for the in-place ops composed in Python (addcmul_, addcdiv_, lerp_, ...).

Those compute their result into a fresh tensor and copy it into self, so the C++ check of the written-to
tensor against its inputs (src/kernels/tensor_iterator.cpp) never sees the original inputs. PyTorch refuses an
input that shares some, but not all, of self's memory (x[2:].addcmul_(x[:4], y)): its result would depend on the
order a kernel visits elements. The same rule as the C++ check: identical memory in the same layout is an
ordinary in-place op, and layouts that are not dense (strided slices) are too irregular to decide cheaply and
are let through, as PyTorch lets them through."""
from . import _C

Tensor = _C.Tensor

PARTIAL_OVERLAP = ("unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
                   "single memory location. Please clone() the tensor before performing the operation.")


def _dense(t):
    """PyTorch's is_non_overlapping_and_dense: the elements cover one block of memory, each once."""
    dims = sorted((st, sz) for sz, st in zip(t.shape, t.stride()) if sz != 1)
    expected = 1
    for stride, size in dims:
        if stride != expected:
            return False
        expected *= size
    return True


def check_no_partial_overlap(out, inputs):
    """Raises PyTorch's RuntimeError when one of `inputs` (tensors or anything else) overlaps `out` partially.
    Optimizers call addcmul_ and lerp_ per parameter, so the usual case (memory apart) costs two data_ptr reads."""
    start = None
    for t in inputs:
        if not isinstance(t, Tensor) or t is out:
            continue
        if start is None:
            n = out.numel()
            if n == 0:
                return
            start = out.data_ptr()
            end = start + n * out.element_size()
        t_start = t.data_ptr()
        t_end = t_start + t.numel() * t.element_size()
        if t_start >= end or start >= t_end or t.device != out.device:
            continue  # apart (for the dense layouts the rule decides on, these spans are exact)
        if not (_dense(out) and _dense(t)) or out.is_meta:  # meta tensors have no memory (every data_ptr is 0)
            continue
        same_block = start == t_start and end == t_end
        if not same_block or t.stride() != out.stride():
            raise RuntimeError(PARTIAL_OVERLAP + "\nhint: an input overlaps the tensor written in place; pass "
                               "the input's .clone()")
