"""tandem._dynamo.eval_frame: the OptimizedModule that tandem.compile wraps a module in, as PyTorch's compile does.

tandem compiles nothing (every op already runs a compiled C++ kernel), but what a compiled module looks like is
part of PyTorch's behaviour that programs rely on: the original module is the child ``_orig_mod`` (so
``state_dict`` keys carry PyTorch's ``_orig_mod.`` prefix and checkpoints of compiled PyTorch models load, and
``model._orig_mod`` unwraps it), calls run it eagerly, and reads and writes of other attributes (``training``
included) go through to it.
"""
from .nn.modules.module import Module

__all__ = ["OptimizedModule"]


class OptimizedModule(Module):
    """A module wrapped by ``tandem.compile``: ``_orig_mod`` holds it, calls run it as is."""

    _OWN_ATTRIBUTES = frozenset({"_orig_mod", "forward", "__dict__"})

    def __init__(self, mod):
        super().__init__()
        self._modules["_orig_mod"] = mod

    def forward(self, *args, **kwargs):
        return self._modules["_orig_mod"](*args, **kwargs)

    def __len__(self):
        """The wrapped module's length (a compiled Sequential or ModuleList), as PyTorch's proxy gives it."""
        inner = self._modules["_orig_mod"]
        if hasattr(type(inner), "__len__"):
            return len(inner)
        raise TypeError(f"{type(inner).__name__} does not support len()")

    @property
    def training(self):
        return self._modules["_orig_mod"].training

    @training.setter
    def training(self, mode):
        modules = self.__dict__.get("_modules")
        if modules and "_orig_mod" in modules:  # Module.__init__ sets it before there is an _orig_mod
            modules["_orig_mod"].training = mode

    def _wrapped(self):
        modules = self.__dict__.get("_modules")
        return modules.get("_orig_mod") if modules else None

    def __getattr__(self, name):
        inner = self._wrapped()
        if inner is None or name == "_orig_mod":
            return super().__getattr__(name)
        return getattr(inner, name)

    def __setattr__(self, name, value):
        inner = self._wrapped()
        if inner is None or name in self._OWN_ATTRIBUTES or hasattr(type(self), name):
            super().__setattr__(name, value)
        else:
            setattr(inner, name, value)

    def __delattr__(self, name):
        inner = self._wrapped()
        if inner is None or name in self._OWN_ATTRIBUTES or name in self.__dict__:
            super().__delattr__(name)
        else:
            delattr(inner, name)
