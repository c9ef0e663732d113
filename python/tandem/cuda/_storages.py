"""torch.cuda's legacy typed storage classes (tandem.cuda.FloatStorage & co.): constructing one makes a
TypedStorage of that dtype on the current CUDA device, and isinstance(s, tandem.cuda.FloatStorage) holds for a
float32 TypedStorage on a CUDA device, as in PyTorch."""
from .._storage import _LEGACY_DTYPES, TypedStorage, _warn_typed_storage_removal
from .. import _C


class _CudaStorageMeta(type):
    def __instancecheck__(cls, obj):
        return type(obj) is TypedStorage and obj.dtype == cls.dtype and obj.device.type == "cuda"

    def __repr__(cls):
        return f"<class 'tandem.cuda.{cls.__name__}'>"


def _new(cls, *args, wrap_storage=None, **kwargs):
    from . import current_device, init  # noqa: PLC0415  (tandem.cuda imports this module)
    init()
    _warn_typed_storage_removal(stacklevel=2)  # PyTorch's deprecation warning, pointing at the caller's line
    if wrap_storage is not None:
        return TypedStorage(*args, dtype=cls.dtype, wrap_storage=wrap_storage, _internal=True, **kwargs)
    return TypedStorage(*args, dtype=cls.dtype, device=f"cuda:{current_device()}", _internal=True, **kwargs)


def _from_buffer(cls, *args, **kwargs):
    _warn_typed_storage_removal()
    raise RuntimeError("from_buffer: Not available for CUDA storage")


CUDA_STORAGES = {
    name: _CudaStorageMeta(name, (TypedStorage,), {
        "dtype": getattr(_C, dtype_name), "__new__": _new, "from_buffer": classmethod(_from_buffer),
        "is_cuda": True, "__module__": "tandem.cuda", "__doc__": f"Legacy CUDA storage of {dtype_name}."})
    for name, dtype_name in _LEGACY_DTYPES.items()
}
