"""The hook-based spectral_norm / remove_spectral_norm: before every forward, `name` = name_orig / sigma, with
sigma estimated by power iteration on the buffers name_u and name_v (updated in place in training mode only), as
torch.nn.utils.spectral_norm. PyTorch's state-dict version hooks are not reproduced (tandem's Module has none);
state dicts have PyTorch's keys (name_orig, name_u, name_v)."""
import tandem

from .. import functional as F
from ..parameter import Parameter, untracked
from .weight_norm import remove_reparametrization_hook

__all__ = ["SpectralNorm", "spectral_norm", "remove_spectral_norm"]


class SpectralNorm:
    _version = 1

    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        self.name, self.dim, self.eps = name, dim, eps
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.n_power_iterations = n_power_iterations

    def reshape_weight_to_matrix(self, weight):
        weight_mat = weight
        if self.dim != 0:
            weight_mat = weight_mat.permute(self.dim, *[d for d in range(weight_mat.dim()) if d != self.dim])
        return weight_mat.reshape(weight_mat.size(0), -1)

    def compute_weight(self, module, do_power_iteration):
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with tandem.no_grad():
                plain = untracked(weight_mat)
                for _ in range(self.n_power_iterations):
                    untracked(v).copy_(F.normalize(tandem.mv(plain.t(), u), dim=0, eps=self.eps))
                    untracked(u).copy_(F.normalize(tandem.mv(plain, v), dim=0, eps=self.eps))
            u, v = u.clone(), v.clone()  # autograd must see the values of this step, not later in-place ones
        sigma = tandem.dot(u, tandem.mv(weight_mat, v))
        return weight / sigma

    def remove(self, module):
        with tandem.no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, Parameter(untracked(weight).clone()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        with tandem.no_grad():
            weight_mat = fn.reshape_weight_to_matrix(untracked(weight))
            h, w = weight_mat.size()
            u = F.normalize(weight.new_empty(h).normal_(0, 1), dim=0, eps=fn.eps)
            v = F.normalize(weight.new_empty(w).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        object.__setattr__(module, fn.name, untracked(weight))  # a plain attribute, as PyTorch's weight.data
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        return fn


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    if dim is None:
        from ..modules.conv_more import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module, name="weight"):
    return remove_reparametrization_hook(module, SpectralNorm, name, "spectral_norm")
