"""Typed boundary errors. Each keeps PyTorch's exception base and first message line, so code written for
PyTorch catches them unchanged, and carries the facts as attributes for code that wants to react:

- ``DeviceMismatchError(RuntimeError)``: devices, op, operand, expected_device, fix
- ``HostConversionError(TypeError)``: device, shape, dtype, requires_grad, reason, fix
- ``RequiresGradConversionError(HostConversionError, RuntimeError)``: ``numpy()`` of a tensor that requires
  grad, which PyTorch reports as a RuntimeError; being both, every ``except`` clause written for PyTorch's
  error still catches it, and ``except tandem.HostConversionError`` catches both reasons
- ``OutOfMemoryError(RuntimeError)`` (also ``tandem.cuda.OutOfMemoryError``): device, requested_bytes,
  allocated_bytes, reserved_bytes, free_bytes, total_bytes, largest_allocations, fix

The classes are created in C++ (python/src/errors.cpp), where error kinds are mapped to Python in one place.
"""
from ._C import (  # noqa: F401
    DeviceMismatchError,
    HostConversionError,
    OutOfMemoryError,
    RequiresGradConversionError,
)
