"""Waiting for an emulated GPU's queued kernels before a tensor's geometry or storage changes in place.

The emulated device runs each queued kernel later on a worker thread, and a kernel that was given the tensor itself
(arange, linspace, uniform_, normal_: the fills) reads its sizes, strides and storage only then. So `x.data = y`,
`set_`, `resize_` or `as_strided_` right after `x = arange(6, device="cuda")` had the fill land in the new
geometry, or in y's memory (hostile round 10, docs/reliability.md). A real GPU's launch reads the geometry when it
is queued, so only emulated devices wait. The C++ fix would be for queued tasks to keep a snapshot view of each
tensor (src/kernels/emulated/async_kernels.h, Hold<const Tensor&>); then this module can go."""
from . import _C

_emulated = {}  # device index -> whether it is an emulated GPU (asked once per device)


def settle_queued_kernels(tensor):
    """Returns once the kernels queued on tensor's device have run, if it is an emulated GPU; at once otherwise."""
    # is_cuda and get_device() rather than .device: they make no device object (the binding caches those for the
    # process, and the exit leak report lists them)
    if not tensor.is_cuda:
        return
    index = tensor.get_device()
    if index not in _emulated:
        _emulated[index] = bool(_C._cuda_properties(index)["is_emulated"])
    if _emulated[index]:
        _C._cuda_synchronize(index)


def _settled_set_data(core_set_data):
    def _set_data(target, value):
        settle_queued_kernels(target)
        return core_set_data(target, value)

    _set_data.__doc__ = core_set_data.__doc__
    return _set_data


def install():
    """_C._set_data (what .data assignment, Module._apply, parametrize and Parameter materialisation call) waits
    for the target's queued kernels first."""
    if not getattr(_C._set_data, "_settles_queue", False):
        _C._set_data = _settled_set_data(_C._set_data)
        _C._set_data._settles_queue = True
