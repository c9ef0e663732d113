"""nn.utils.prune, as PyTorch's (the "Pruning Tutorial"): pruning `name` of a module moves the parameter to
`name + "_orig"`, stores a 0/1 mask as the buffer `name + "_mask"`, and recomputes the attribute `name` as
mask * orig before each forward (a forward pre-hook that is the pruning method itself). Pruning the same
tensor again wraps the methods in a PruningContainer, whose newest method only acts on what the earlier masks
kept. State dicts hold `name_orig` and `name_mask`, as PyTorch's; `remove` makes the pruning permanent."""
import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable

import tandem

__all__ = ["BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured", "L1Unstructured",
           "RandomStructured", "LnStructured", "CustomFromMask", "identity", "random_unstructured",
           "l1_unstructured", "random_structured", "ln_structured", "global_unstructured", "custom_from_mask",
           "remove", "is_pruned"]


def _pruning_hooks(module, name):
    """(hook id, method) for the pruning methods of `module` acting on `name`."""
    return [(k, h) for k, h in module._forward_pre_hooks.items()
            if isinstance(h, BasePruningMethod) and h._tensor_name == name]


class BasePruningMethod(ABC):
    """The base of the pruning methods: subclasses define compute_mask (and PRUNING_TYPE, "unstructured",
    "structured" or "global", which tells a PruningContainer how to restrict them to what is still kept)."""

    _tensor_name: str  # set by apply (PyTorch has no default either: an unapplied method has no name)

    def __call__(self, module, inputs):
        # The forward pre-hook: the pruned tensor is recomputed from the (trained) original every forward.
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t, default_mask):
        """The new mask for importance scores `t`, keeping the zeros of `default_mask`."""

    def apply_mask(self, module):
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned")
        orig = getattr(module, self._tensor_name + "_orig")
        mask = getattr(module, self._tensor_name + "_mask")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        """Prunes `module.name` with a new cls(*args, **kwargs), combined with any earlier pruning of it."""
        method = cls._combined_with_earlier(module, name, *args, **kwargs)
        orig = getattr(module, name)
        if importance_scores is None:
            importance_scores = orig
        elif importance_scores.shape != orig.shape:
            raise AssertionError(f"importance_scores should have the same shape as parameter {name} of {module}, "
                                 f"got {importance_scores.shape} vs {orig.shape}")
        first_pruning = not isinstance(method, PruningContainer)
        if first_pruning:
            # The parameter itself (same object, so optimizers keep it) becomes name_orig.
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = tandem.ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone(memory_format=tandem.contiguous_format)
        try:
            mask = method.compute_mask(importance_scores, default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if first_pruning:  # put the parameter back where it was
                module.register_parameter(name, module._parameters.pop(name + "_orig"))
            raise
        return method

    @classmethod
    def _combined_with_earlier(cls, module, name, *args, **kwargs):
        """A new cls method for `name`; when `name` was pruned before, the container of old and new methods (the
        old hook is unregistered: apply registers the combined one)."""
        earlier = _pruning_hooks(module, name)
        if len(earlier) > 1:
            raise AssertionError(f"Avoid adding multiple pruning hooks to the same tensor {name} of module "
                                 f"{module}. Use a PruningContainer.")
        for hook_id, _ in earlier:
            del module._forward_pre_hooks[hook_id]
        method = cls(*args, **kwargs)
        method._tensor_name = name
        if not earlier:
            return method
        old = earlier[0][1]
        container = old if isinstance(old, PruningContainer) else PruningContainer(old)
        container.add_pruning_method(method)
        return container

    def prune(self, t, default_mask=None, importance_scores=None):
        """t times this method's mask for it (computed from importance_scores when given)."""
        if importance_scores is None:
            importance_scores = t
        elif importance_scores.shape != t.shape:
            raise AssertionError(f"importance_scores should have the same shape as tensor t, got "
                                 f"{importance_scores.shape} vs {t.shape}")
        if default_mask is None:
            default_mask = tandem.ones_like(t)
        return t * self.compute_mask(importance_scores, default_mask=default_mask)

    def remove(self, module):
        """Makes the pruning permanent: `name` becomes a plain parameter holding the pruned values (the
        name_orig parameter object, so optimizers keep working) and name_orig / name_mask go away."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be removed")
        name = self._tensor_name
        pruned = self.apply_mask(module)
        if hasattr(module, name):
            delattr(module, name)
        orig = module._parameters.pop(name + "_orig")
        orig.data = pruned.data
        del module._buffers[name + "_mask"]
        setattr(module, name, orig)


class PruningContainer(BasePruningMethod):
    """The pruning methods applied in turn to one tensor; compute_mask applies the newest one to what the
    earlier masks kept (entries, channels along its dim, or everything for "global" methods)."""

    def __init__(self, *args):
        self._pruning_methods = ()
        if len(args) == 1:
            self._tensor_name = args[0]._tensor_name
            self.add_pruning_method(args[0])
        else:
            for method in args:
                self.add_pruning_method(method)

    def add_pruning_method(self, method):
        if method is not None and not isinstance(method, BasePruningMethod):
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError(f"Can only add pruning methods acting on the parameter named '{self._tensor_name}' "
                             f"to PruningContainer {self}. Found '{method._tensor_name}'")
        self._pruning_methods += (method,)

    def __len__(self):
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx):
        return self._pruning_methods[idx]

    def compute_mask(self, t, default_mask):
        method = self._pruning_methods[-1]
        kept = _kept_region(method, t, default_mask)
        new_mask = default_mask.to(dtype=t.dtype)
        partial = method.compute_mask(t[kept], default_mask=default_mask[kept])
        new_mask[kept] = partial.to(dtype=new_mask.dtype)
        return new_mask


def _kept_region(method, t, mask):
    """The index of the part of `t` that `method` may still prune, given the earlier `mask`."""
    kind = method.PRUNING_TYPE
    if kind == "unstructured":
        return mask == 1
    if kind == "structured":
        if not hasattr(method, "dim"):
            raise AttributeError('Pruning methods of PRUNING_TYPE "structured" need to have the attribute `dim` '
                                 'defined.')
        ndim = t.dim()
        dim = method.dim + ndim if method.dim < 0 else method.dim
        if dim < 0:
            raise IndexError(f"Index is out of bounds for tensor with dimensions {ndim}")
        other_dims = [d for d in range(ndim) if d != dim]
        channels_kept = mask.sum(dim=other_dims) != 0
        return tuple(channels_kept if d == dim else slice(None) for d in range(ndim))
    if kind == "global":
        return tuple(slice(None) for _ in range(len(t.shape)))
    raise ValueError(f"Unrecognized PRUNING_TYPE {kind}")


class Identity(BasePruningMethod):
    """Prunes nothing: sets up the reparametrization with a mask of ones."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        return default_mask

    @classmethod
    def apply(cls, module, name):
        return super().apply(module, name)


def _unstructured_mask(default_mask, amount, flat_indices_to_prune):
    """A copy of default_mask with `amount` entries zeroed (a count, or a fraction of all entries), at the flat
    indices flat_indices_to_prune(count) picks."""
    count = _count_to_prune(amount, default_mask.nelement())
    mask = default_mask.clone(memory_format=tandem.contiguous_format)
    if count:
        mask.view(-1)[flat_indices_to_prune(count)] = 0
    return mask


class RandomUnstructured(BasePruningMethod):
    """Prunes `amount` (a count, or a fraction of the entries) of the still-kept entries, chosen at random."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _check_amount(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        return _unstructured_mask(
            default_mask, self.amount, lambda k: tandem.topk(tandem.rand_like(t).view(-1), k=k).indices)

    @classmethod
    def apply(cls, module, name, amount):
        return super().apply(module, name, amount=amount)


class L1Unstructured(BasePruningMethod):
    """Prunes `amount` of the entries with the smallest absolute values."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _check_amount(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        return _unstructured_mask(
            default_mask, self.amount, lambda k: tandem.topk(tandem.abs(t).view(-1), k=k, largest=False).indices)

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


def _channel_mask(t, dim, keep):
    """Ones in the channels of `t` along `dim` selected by `keep` (bool mask or indices), zeros elsewhere."""
    mask = tandem.zeros_like(t)
    mask[tuple(keep if d == dim % t.dim() else slice(None) for d in range(t.dim()))] = 1
    return mask


class RandomStructured(BasePruningMethod):
    """Prunes `amount` of the channels along `dim`, chosen at random."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim=-1):
        _check_amount(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t, default_mask):
        _check_structured(t, self.dim)
        channels = t.shape[self.dim]
        count = _count_to_prune(self.amount, channels)
        if count == 0:
            return default_mask
        scores = tandem.rand(channels, device=t.device)
        threshold = tandem.kthvalue(scores, k=count).values
        mask = _channel_mask(t, self.dim, scores > threshold)
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module, name, amount, dim=-1):
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prunes `amount` of the channels along `dim` with the smallest L`n` norm (n as for vector_norm, or "fro" /
    "nuc")."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, n, dim=-1):
        _check_amount(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t, default_mask):
        _check_structured(t, self.dim)
        channels = t.shape[self.dim]
        count = _count_to_prune(self.amount, channels)
        largest = tandem.topk(_channel_norms(t, self.n, self.dim), k=channels - count, largest=True)
        if count == 0:
            return default_mask
        mask = _channel_mask(t, self.dim, largest.indices)
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        return super().apply(module, name, amount=amount, n=n, dim=dim, importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """Prunes where the given mask is zero."""

    PRUNING_TYPE = "global"

    def __init__(self, mask):
        self.mask = mask

    def compute_mask(self, t, default_mask):
        if default_mask.shape != self.mask.shape:
            raise AssertionError(f"default_mask shape {default_mask.shape} must match self.mask shape "
                                 f"{self.mask.shape}")
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):
        return super().apply(module, name, mask=mask)


def identity(module, name):
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def custom_from_mask(module, name, mask):
    CustomFromMask.apply(module, name, mask)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs):
    """Prunes the (module, name) pairs of `parameters` together: `pruning_method` (an unstructured method
    class) chooses among all their entries at once, then each gets its share as a CustomFromMask."""
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    importance_scores = {} if importance_scores is None else importance_scores
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    parameters = list(parameters)
    flat = tandem.nn.utils.parameters_to_vector
    scores = flat([importance_scores.get((m, n), getattr(m, n)) for m, n in parameters])
    earlier_masks = flat([getattr(m, n + "_mask") if hasattr(m, n + "_mask") else tandem.ones_like(getattr(m, n))
                          for m, n in parameters])
    container = PruningContainer()
    container._tensor_name = "temp"
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError('Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. Found method '
                        f"{pruning_method} of type {method.PRUNING_TYPE}")
    container.add_pruning_method(method)
    mask = container.compute_mask(scores, earlier_masks)
    start = 0
    for m, n in parameters:
        param = getattr(m, n)
        custom_from_mask(m, n, mask=mask[start:start + param.numel()].view_as(param))
        start += param.numel()


def remove(module, name):
    """Makes the pruning of module.`name` permanent (see BasePruningMethod.remove)."""
    for hook_id, method in _pruning_hooks(module, name):
        method.remove(module)
        del module._forward_pre_hooks[hook_id]
        return module
    raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed")


def is_pruned(module):
    """True when `module` or one of its submodules has a pruning hook."""
    return any(isinstance(h, BasePruningMethod)
               for _, sub in module.named_modules() for h in sub._forward_pre_hooks.values())


def _check_amount(amount):
    """PyTorch's check when a method is made: a non-negative int or a float in [0, 1]."""
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    integral = isinstance(amount, numbers.Integral)
    if (integral and amount < 0) or (not integral and not 0.0 <= float(amount) <= 1.0):
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a non-negative integer")


def _count_to_prune(amount, size):
    """How many of `size` units `amount` means (a fraction is rounded as Python rounds), checked against size."""
    if isinstance(amount, numbers.Integral):
        if amount > size:
            raise ValueError(f"amount={amount} should be smaller than the number of parameters to prune={size}")
        return amount
    return round(amount * size)


def _check_structured(t, dim):
    if len(t.shape) <= 1:
        raise ValueError("Structured pruning can only be applied to multidimensional tensors. Found tensor of "
                         f"shape {t.shape} with {len(t.shape)} dims")
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")


def _channel_norms(t, n, dim):
    """The norm of each slice of `t` along `dim` (matrix norms for "nuc", and "fro" of 3-d tensors)."""
    dim = dim % t.dim() if dim < 0 else dim
    others = [d for d in range(t.dim()) if d != dim]
    if n == "nuc" or (n == "fro" and len(others) == 2):
        return tandem.linalg.matrix_norm(t, ord=n, dim=others if len(others) == 2 else (-2, -1))
    return tandem.linalg.vector_norm(t, ord=2 if n == "fro" else n, dim=others)
