"""Typed boundary errors. Each keeps PyTorch's exception base and first message line, so code written for
PyTorch catches them unchanged, and carries the facts as attributes for code that wants to react:

- ``DeviceMismatchError(RuntimeError)``: devices, op, operand, expected_device, fix
- ``HostConversionError(TypeError)``: device, shape, dtype, requires_grad, reason, fix
- ``RequiresGradConversionError(HostConversionError, RuntimeError)``: ``numpy()`` of a tensor that requires
  grad, which PyTorch reports as a RuntimeError; being both, every ``except`` clause written for PyTorch's
  error still catches it, and ``except tandem.HostConversionError`` catches both reasons
- ``OutOfMemoryError(RuntimeError)`` (also ``tandem.cuda.OutOfMemoryError``): device, requested_bytes,
  allocated_bytes, reserved_bytes, free_bytes, total_bytes, largest_allocations, fix
- ``TransferGuardError(RuntimeError)``: direction, explicit, op, shape, dtype, source, target, nbytes, level,
  filename, lineno, hint

The classes mapped from C++ error kinds are created in C++ (python/src/errors.cpp), in one place;
TransferGuardError is defined below and raised by the transfer guard's reporter (_transfer_guard.py).
"""
from ._C import (  # noqa: F401
    DeviceMismatchError,
    HostConversionError,
    OutOfMemoryError,
    RequiresGradConversionError,
)


class TransferGuardError(RuntimeError):
    """A crossing of the host/device boundary that ``tandem.transfer_guard`` disallows.

    Attributes: ``direction`` ("host_to_device", "device_to_host", "device_to_device", "sync"), ``explicit``
    (whether the code asked for it by name, like ``.item()``), ``op`` (what crossed: ".item()", "print", ...;
    "" for a value read inside an op), ``shape``/``dtype`` of the tensor (None when unknown), ``source``/
    ``target`` devices, ``nbytes``, ``level`` (the guard level that refused it), ``filename``/``lineno`` (the
    first frame outside tandem) and ``hint`` (how to allow it).
    """

    def __init__(self, message, **fields):
        super().__init__(message)
        self.__dict__.update(fields)
