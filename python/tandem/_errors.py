"""tandem's typed boundary errors: Python exception classes whose attributes carry the data of the message."""


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
