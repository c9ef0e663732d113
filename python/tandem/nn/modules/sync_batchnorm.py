"""SyncBatchNorm, as torch.nn.SyncBatchNorm: batch statistics over the whole process group. Without an
initialised tandem.distributed group (or with one process, or in eval mode) it is BatchNorm. With one, the
per-channel sum, sum of squares and count are all-reduced in forward, and the two gradient sums in backward, so
every rank normalises with, and differentiates through, the global statistics. Unlike PyTorch, host (cpu)
tensors may be synchronised too, since tandem.distributed's MPI backend reduces them."""
import tandem

from ..parameter import untracked
from .normalization import _BatchNorm

__all__ = ["SyncBatchNorm"]


def _reduce_dims(x):
    return [0] + list(range(2, x.dim()))


class _SyncNormalize(tandem.autograd.Function):
    """(x - mean) * invstd with mean/invstd global; backward all-reduces sum(g) and sum(g * xhat)."""

    @staticmethod
    def forward(ctx, x, mean, invstd, count, group):
        shape = [1, -1] + [1] * (x.dim() - 2)
        xhat = (x - mean.reshape(shape)) * invstd.reshape(shape)
        ctx.save_for_backward(xhat, invstd)
        ctx.count, ctx.group = count, group
        return xhat

    @staticmethod
    def backward(ctx, grad):
        import tandem.distributed as dist
        xhat, invstd = ctx.saved_tensors
        dims = _reduce_dims(grad)
        sums = tandem.cat([grad.sum(dims), (grad * xhat).sum(dims)])
        dist.all_reduce(sums, group=ctx.group)
        c = invstd.shape[0]
        shape = [1, -1] + [1] * (grad.dim() - 2)
        mean_g = (sums[:c] / ctx.count).reshape(shape)
        mean_gx = (sums[c:] / ctx.count).reshape(shape)
        return (grad - mean_g - xhat * mean_gx) * invstd.reshape(shape), None, None, None, None


class SyncBatchNorm(_BatchNorm):
    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 process_group=None, device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input):
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def forward(self, input):
        self._check_input_dim(input)
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")
        if not self._needs_sync():
            return super().forward(input)
        import tandem.distributed as dist
        momentum = 0.0 if self.momentum is None else self.momentum
        if self.track_running_stats:
            untracked(self.num_batches_tracked).add_(1)
            if self.momentum is None:
                momentum = 1.0 / float(self.num_batches_tracked.item())
        dims = _reduce_dims(input)
        with tandem.no_grad():
            x = untracked(input)
            local_count = x.numel() // x.size(1)
            stats = tandem.cat([x.sum(dims), (x * x).sum(dims),
                                tandem.full((1,), float(local_count), dtype=x.dtype, device=x.device)])
            dist.all_reduce(stats, group=self.process_group)
            c = x.size(1)
            count = float(stats[2 * c].item())
            mean = stats[:c] / count
            var = (stats[c:2 * c] / count - mean * mean).clamp(min=0)
            invstd = (var + self.eps).rsqrt()
            if self.track_running_stats:
                if count <= 1:
                    raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                                     f"{list(input.shape)}")
                untracked(self.running_mean).mul_(1 - momentum).add_(mean * momentum)
                untracked(self.running_var).mul_(1 - momentum).add_(var * (momentum * count / (count - 1)))
        out = _SyncNormalize.apply(input, mean, invstd, count, self.process_group)
        shape = [1, -1] + [1] * (input.dim() - 2)
        if self.weight is not None:
            out = out * self.weight.reshape(shape)
        if self.bias is not None:
            out = out + self.bias.reshape(shape)
        return out

    def _needs_sync(self):
        if not self.training:
            return False
        import tandem.distributed as dist
        if not (dist.is_available() and dist.is_initialized()):
            return False
        return dist.get_world_size(self.process_group) > 1

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """A copy of `module` with every BatchNorm*D replaced by a SyncBatchNorm sharing its tensors."""
        module_output = module
        if isinstance(module, _BatchNorm):
            module_output = SyncBatchNorm(module.num_features, module.eps, module.momentum, module.affine,
                                          module.track_running_stats, process_group, bias=module.bias is not None)
            if module.affine:
                module_output.weight = module.weight
                module_output.bias = module.bias
            module_output.running_mean = module.running_mean
            module_output.running_var = module.running_var
            module_output.num_batches_tracked = module.num_batches_tracked
            module_output.training = module.training
            if hasattr(module, "qconfig"):
                module_output.qconfig = module.qconfig
        for name, child in module.named_children():
            module_output.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        del module
        return module_output
