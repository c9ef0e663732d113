"""tandem.cuda.streams, as torch.cuda.streams: Stream, Event and ExternalStream under the module path some
libraries import them from."""
from .. import _C
from . import Event, Stream, init

__all__ = ["Stream", "Event", "ExternalStream"]


class ExternalStream(Stream):
    """A CUDA stream another library created (``stream_ptr``, a cudaStream_t as an int), as PyTorch's.

    tandem cannot queue its work on a stream it did not create, so construction raises: PyTorch's error without
    a device, a RuntimeError on an emulated device (which has no cudaStream_t), NotImplementedError on a real one.
    Data exchanged through DLPack or ``__cuda_array_interface__`` is already ordered with the producer's stream.
    """

    def __init__(self, stream_ptr, device=None, **kwargs):
        init()
        index = _C._cuda_device_index(device)
        if _C._cuda_properties(index)["is_emulated"]:
            raise RuntimeError(f"ExternalStream: cuda:{index} is an emulated device, which has no CUDA streams to "
                               "adopt\nhint: use tandem.cuda.Stream(); emulated devices never share streams with "
                               "other libraries")
        raise NotImplementedError("ExternalStream: tandem cannot yet run its work on a CUDA stream it did not "
                                  "create\nhint: use tandem.cuda.Stream(); tensors exchanged through DLPack or "
                                  "__cuda_array_interface__ are ordered with the other library's stream already")
