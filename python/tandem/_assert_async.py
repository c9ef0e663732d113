"""tandem._assert_async: PyTorch's tensor assertion (kornia's enhance functions check their arguments with it so
that the check stays inside a compiled graph). PyTorch's CUDA version fails later, on the device; tandem reads
the one value at once (a device-to-host copy on CUDA), so the error comes at the call on every device."""
from . import _C

_MISSING = object()


def _assert_async(input, assert_msg=_MISSING):
    if not isinstance(input, _C.Tensor):
        raise TypeError(f"_assert_async(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if assert_msg is not _MISSING and not isinstance(assert_msg, str):
        raise TypeError("_assert_async(): argument 'assert_msg' (position 2) must be str, not "
                        f"{type(assert_msg).__name__}")
    count = input.numel()
    if count == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if count > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    if not input.item():
        raise RuntimeError("Expected Tensor with single nonzero value, but got zero" if assert_msg is _MISSING
                           else assert_msg)


def _assert(condition, message):
    """PyTorch's ``torch._assert``: ``assert condition, message`` that symbolic tracing records as a call (a Proxy
    condition goes to its __torch_function__) instead of failing on the Proxy's truth value."""
    from . import overrides
    if type(condition) is not _C.Tensor and overrides.has_torch_function((condition,)):
        return overrides.handle_torch_function(_assert, (condition,), condition, message)
    assert condition, message
