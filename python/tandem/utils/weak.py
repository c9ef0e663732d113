"""tandem.utils.weak (torch.utils.weak): weak references and dictionaries keyed by object identity.

Tensors compare element-wise with ==, so a `weakref.WeakKeyDictionary` cannot key by them; these key by identity
instead: an entry lives as long as its key object does. Used by code that caches per-tensor or per-module state
without keeping it alive (hooks, optimizer helpers)."""
import collections.abc
import weakref

from .._C import Tensor

__all__ = ["WeakIdRef", "WeakIdKeyDictionary", "WeakTensorKeyDictionary", "TensorWeakRef"]

WeakRef = weakref.ref


class WeakIdRef(weakref.ref):
    """A weak reference hashed and compared by its referent's identity: two live references are equal when they
    point at the same object; a dead one is equal only to itself (its hash stays the id it was made with)."""
    __slots__ = ("_id",)

    def __new__(cls, key, callback=None):
        return super().__new__(cls, key, callback)

    def __init__(self, key, callback=None):
        super().__init__(key, callback)
        self._id = id(key)

    def __hash__(self):
        return self._id

    def __eq__(self, other):
        if not isinstance(other, WeakIdRef):
            return NotImplemented
        mine, theirs = self(), other()
        if mine is None or theirs is None:
            return self is other
        return mine is theirs

    def __ne__(self, other):
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal


class WeakIdKeyDictionary(collections.abc.MutableMapping):
    """A mapping whose keys are held weakly and matched by identity (`is`), not by ==: an entry goes away when its
    key is collected. Keys must support weak references (tensors, modules and most class instances do)."""

    def __init__(self, dict=None, ref_type=WeakIdRef):  # noqa: A002 - PyTorch's parameter name
        self._ref_type = ref_type
        self.data = {}
        owner = weakref.ref(self)

        def remove(ref):
            mapping = owner()
            if mapping is not None:
                mapping.data.pop(ref, None)

        self._remove = remove
        if dict is not None:
            self.update(dict)

    def _ref(self, key, callback=None):
        return self._ref_type(key, callback)

    def __getitem__(self, key):
        return self.data[self._ref(key)]

    def __setitem__(self, key, value):
        self.data[self._ref(key, self._remove)] = value

    def __delitem__(self, key):
        del self.data[self._ref(key)]

    def __contains__(self, key):
        try:
            ref = self._ref(key)
        except TypeError:  # an object that cannot be weakly referenced is never a key
            return False
        return ref in self.data

    def __iter__(self):
        for ref in list(self.data):
            key = ref()
            if key is not None:
                yield key

    def __len__(self):
        return sum(1 for ref in list(self.data) if ref() is not None)

    def __repr__(self):
        return f"<{type(self).__name__} at {id(self):#x}>"

    def keyrefs(self):
        """The weak references to the keys (some may be dead by the time they are used)."""
        return list(self.data)

    def copy(self):
        new = type(self)(ref_type=self._ref_type)
        for key, value in self.items():
            new[key] = value
        return new

    __copy__ = copy

    def __deepcopy__(self, memo):
        from copy import deepcopy
        new = type(self)(ref_type=self._ref_type)
        for key, value in self.items():
            new[key] = deepcopy(value, memo)
        return new


WeakTensorKeyDictionary = WeakIdKeyDictionary


class TensorWeakRef:
    """A weak reference to a tensor: calling it gives the tensor while it is alive, else None."""
    __slots__ = ("ref",)

    def __init__(self, tensor):
        assert isinstance(tensor, Tensor), f"expected tandem.Tensor, got {type(tensor)}."
        self.ref = weakref.ref(tensor)

    def __call__(self):
        return self.ref()
