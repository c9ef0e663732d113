"""The hook-based weight_norm / remove_weight_norm (deprecated in PyTorch in favour of
nn.utils.parametrizations.weight_norm): `name` is recomputed as g * v / ||v|| before every forward from the
parameters name_g and name_v."""
import warnings

import tandem

from ..._dim_args import _wrap_dim
from ..parameter import Parameter, untracked

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm", "norm_except_dim"]


def norm_except_dim(v, pow=2, dim=0):
    """The pow-norm of v over every dimension but `dim` (kept with size 1 elsewhere); dim=-1: the whole norm."""
    if dim == -1:
        return tandem.linalg.vector_norm(v, ord=pow)
    dim = _wrap_dim(dim, v.dim())  # a dim past v's is PyTorch's IndexError (it used to wrap around)
    dims = [d for d in range(v.dim()) if d != dim]
    return tandem.linalg.vector_norm(v, ord=pow, dim=dims, keepdim=True)


def _weight_norm(v, g, dim=0):
    """g * v / ||v|| over every dim but `dim`. Over the first or last dim PyTorch runs a fused kernel, which takes
    floating types only (a complex or integer weight is refused); the other dims compose, complex included."""
    if (dim == 0 or dim == v.dim() - 1) and not v.is_floating_point():
        raise NotImplementedError(f"\"weight_norm_kernel\" not implemented for '{v.dtype._scalar_type_name}'")
    return v * (g / norm_except_dim(v, 2, dim))


class WeightNorm:
    def __init__(self, name, dim):
        if dim is None:
            dim = -1
        self.name, self.dim = name, dim

    def compute_weight(self, module):
        return _weight_norm(getattr(module, self.name + "_v"), getattr(module, self.name + "_g"), self.dim)

    @staticmethod
    def apply(module, name, dim):
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
        if dim is None:
            dim = -1
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(untracked(norm_except_dim(weight, 2, dim)).clone()))
        module.register_parameter(name + "_v", Parameter(untracked(weight)))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        with tandem.no_grad():
            weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(untracked(weight)))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    """Reparametrises module.`name` as g * v / ||v|| (norm over every dim but `dim`; dim=None: whole tensor)."""
    warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                  "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning, stacklevel=2)
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name="weight"):
    return remove_reparametrization_hook(module, WeightNorm, name, "weight_norm")


def remove_reparametrization_hook(module, hook_type, name, what):
    """Undoes module.`name`'s hook of hook_type (weight_norm's or spectral_norm's), PyTorch's error if none."""
    for k, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, hook_type) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"{what} of '{name}' not found in {module}")
