"""Copying a Generator: pickle, copy.deepcopy and Generator.clone_state(), as PyTorch's.

A sampler or a data pipeline that holds a generator is deep-copied (or pickled to a worker) with it, and the copy
has to continue the same stream. The state travels as get_state()'s tensor, with the seed it was started from;
the copy is a new generator on the same device, so the two then advance independently."""
from . import _C


def _reduce(self):
    # The callable and argument PyTorch's Generator.__reduce__ gives, so a pickle reads the same way.
    return (_C.Generator, (self.device,), (self.initial_seed(), None, self.get_state()))


def _setstate(self, state):
    seed, _offset, rng_state = state  # the offset is PyTorch's CUDA Philox position: a CPU pickle has None
    self.manual_seed(seed)
    self.set_state(rng_state)


def _clone_state(self):
    """A new generator on this one's device with this one's seed and state."""
    copy = _C.Generator(self.device)
    _setstate(copy, (self.initial_seed(), None, self.get_state()))
    return copy


def _chaining_set_state(core_set_state):
    def set_state(self, new_state):
        """Sets the generator's state from get_state()'s ByteTensor and returns the generator, as PyTorch's does
        (so `g = torch.Generator().set_state(s)` chains like manual_seed)."""
        core_set_state(self, new_state)
        return self
    return set_state


def install():
    if not getattr(_C.Generator.set_state, "_returns_self", False):
        _C.Generator.set_state = _chaining_set_state(_C.Generator.set_state)
        _C.Generator.set_state._returns_self = True
    _C.Generator.__reduce__ = _reduce
    _C.Generator.__setstate__ = _setstate
    _C.Generator.clone_state = _clone_state
