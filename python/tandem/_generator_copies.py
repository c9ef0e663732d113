"""Copying a Generator: pickle, copy.deepcopy and Generator.clone_state(), as PyTorch's; and the methods' argument
checks in the words of PyTorch's C methods (METH_O and METH_NOARGS: "Generator.manual_seed() takes exactly one
argument (0 given)", "... takes no keyword arguments"), where the bindings said nanobind's "incompatible function
arguments".

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


def _c_method(name, method, takes_one):
    """method(self[, arg]) refusing keywords and other argument counts as CPython does for PyTorch's C methods."""
    def checked(self, *args, **kwargs):
        if kwargs:
            raise TypeError(f"Generator.{name}() takes no keyword arguments")
        if takes_one and len(args) != 1:
            raise TypeError(f"Generator.{name}() takes exactly one argument ({len(args)} given)")
        if not takes_one and args:
            raise TypeError(f"Generator.{name}() takes no arguments ({len(args)} given)")
        return method(self, *args)

    checked.__name__ = checked.__qualname__ = name
    checked.__doc__ = method.__doc__
    checked._checks_arguments = True
    return checked


def _graphsafe(name):
    def refuse(self, *args):
        # PyTorch's CPU generator has no graph-safe state (its CUDA one serves CUDA graphs, which tandem lacks)
        raise NotImplementedError(f"{name} is not supported in this Generator")
    return refuse


def _device_setter(self, value):
    raise AttributeError("attribute 'device' of 'tandem._C.Generator' objects is not writable")


def install():
    if not getattr(_C.Generator.set_state, "_returns_self", False):
        _C.Generator.set_state = _chaining_set_state(_C.Generator.set_state)
        _C.Generator.set_state._returns_self = True
    _C.Generator.__reduce__ = _reduce
    _C.Generator.__setstate__ = _setstate
    _C.Generator.clone_state = _clone_state
    _C.Generator.graphsafe_get_state = _graphsafe("graphsafe_get_state")
    _C.Generator.graphsafe_set_state = _graphsafe("graphsafe_set_state")
    for name, takes_one in (("manual_seed", True), ("set_state", True), ("graphsafe_set_state", True),
                            ("seed", False), ("get_state", False), ("initial_seed", False), ("clone_state", False),
                            ("graphsafe_get_state", False)):
        method = getattr(_C.Generator, name)
        if not getattr(method, "_checks_arguments", False):
            setattr(_C.Generator, name, _c_method(name, method, takes_one))
    device = _C.Generator.__dict__.get("device")
    if device is not None and getattr(device, "fset", None) is None:
        _C.Generator.device = property(device.__get__ if not hasattr(device, "fget") else device.fget, _device_setter,
                                       doc=getattr(device, "__doc__", None))
