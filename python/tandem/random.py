"""tandem.random: the seeding functions under PyTorch's torch.random names, plus fork_rng.

The functions are tandem's own (tandem.manual_seed seeds the CPU generator and every CUDA device's); this module
only gathers them where ``torch.random`` scripts look. ``fork_rng`` saves and restores the CPU generator's
state and those of the CUDA devices in ``devices`` (all of them when None, as PyTorch).
"""
import contextlib

from . import _C

__all__ = ["set_rng_state", "get_rng_state", "manual_seed", "seed", "initial_seed", "fork_rng", "default_generator"]



def manual_seed(seed):
    """Seeds the CPU generator and every CUDA device's. As PyTorch's, it takes anything int() takes (2.0, "3",
    a NumPy integer); Generator.manual_seed wants an int."""
    return _C.manual_seed(int(seed))


seed = _C.seed
initial_seed = _C.initial_seed
get_rng_state = _C.get_rng_state
set_rng_state = _C.set_rng_state
default_generator = _C.default_generator


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices", device_type=None):
    """Restores the CPU's and the CUDA devices' generator states on leaving the block (nothing happens when
    ``enabled`` is False)."""
    if not enabled or device_type == "meta":
        yield
        return
    from . import cuda
    if devices is None:
        devices = range(cuda.device_count()) if cuda.is_available() else []
    indices = [cuda._index(d) for d in devices]  # ids, "cuda:N" or tandem.device; a non-iterable raises
    cpu_state = get_rng_state()
    cuda_states = [cuda.get_rng_state(i) for i in indices]
    try:
        yield
    finally:
        set_rng_state(cpu_state)
        for i, state in zip(indices, cuda_states):
            cuda.set_rng_state(state, i)
