"""Layers that complete torch.nn's list: BatchNorm3d and its lazy form, the lazy instance norms, Unflatten,
Bilinear, RReLU, ChannelShuffle, NLLLoss2d (deprecated alias) and the legacy CrossMapLRN2d."""
import math
import warnings

import tandem

from .. import functional as F
from .. import init
from ..parameter import Parameter
from .lazy import _LazyNormBase
from .loss import NLLLoss
from .module import Module
from .normalization import _BatchNorm
from .normalization_more import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d

__all__ = ["BatchNorm3d", "LazyBatchNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d",
           "Unflatten", "Bilinear", "RReLU", "ChannelShuffle", "NLLLoss2d", "CrossMapLRN2d"]


class BatchNorm3d(_BatchNorm):
    _expected_dims = (5,)


class LazyBatchNorm3d(_LazyNormBase, BatchNorm3d):
    cls_to_become = BatchNorm3d


class LazyInstanceNorm1d(_LazyNormBase, InstanceNorm1d):
    cls_to_become = InstanceNorm1d


class LazyInstanceNorm2d(_LazyNormBase, InstanceNorm2d):
    cls_to_become = InstanceNorm2d


class LazyInstanceNorm3d(_LazyNormBase, InstanceNorm3d):
    cls_to_become = InstanceNorm3d


class Unflatten(Module):
    """Expands dimension `dim` of the input into `unflattened_size`."""

    def __init__(self, dim, unflattened_size):
        super().__init__()
        if isinstance(dim, int):
            self._require_tuple_int(unflattened_size)
        elif isinstance(dim, str):
            raise NotImplementedError("Unflatten with a named dimension needs named tensors, which tandem does not "
                                      "have\nhint: pass the dimension's index")
        else:
            raise TypeError("invalid argument type for dim parameter")
        self.dim = dim
        self.unflattened_size = unflattened_size

    @staticmethod
    def _require_tuple_int(input):
        if isinstance(input, (tuple, list)):
            for idx, elem in enumerate(input):
                if not isinstance(elem, int):
                    raise TypeError("unflattened_size must be tuple of ints, "
                                    f"but found element of type {type(elem).__name__} at pos {idx}")
            return
        raise TypeError(f"unflattened_size must be a tuple of ints, but found type {type(input).__name__}")

    def forward(self, input):
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


class Bilinear(Module):
    """y = x1^T A x2 + b with A of shape (out_features, in1_features, in2_features)."""

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in1_features, self.in2_features, self.out_features = in1_features, in2_features, out_features
        self.weight = Parameter(tandem.empty((out_features, in1_features, in2_features), device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(tandem.empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.in1_features <= 0:  # the bound below divides by it: PyTorch's ValueError, not ZeroDivisionError
            raise ValueError(f"in1_features must be > 0, but got (in1_features={self.in1_features})")
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class RReLU(Module):
    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        inplace_str = ", inplace=True" if self.inplace else ""
        return f"lower={self.lower}, upper={self.upper}{inplace_str}"


class ChannelShuffle(Module):
    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self):
        return f"groups={self.groups}"


class NLLLoss2d(NLLLoss):
    """Deprecated: NLLLoss already takes (N, C, H, W) inputs."""

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
        warnings.warn("`NLLLoss2d` has been deprecated. Please use `NLLLoss` instead as a drop-in replacement and see "
                      "https://pytorch.org/docs/main/nn.html#torch.nn.NLLLoss for more details.", FutureWarning,
                      stacklevel=2)
        super().__init__(weight, size_average, ignore_index, reduce, reduction)


class _CrossMapLRNFunction(tandem.autograd.Function):
    """Lua Torch's SpatialCrossMapLRN. Its forward sums squares over a running channel window whose first channel
    is never dropped (a quirk of the original recurrence, which PyTorch keeps), and its backward is the original
    closed form over a symmetric window; both are reproduced here with cumulative sums over channels."""

    @staticmethod
    def forward(ctx, input, size, alpha, beta, k):
        c = input.shape[1]
        pre_pad = int((size - 1) / 2 + 1)
        square = input * input
        csum = tandem.cat([tandem.zeros_like(square[:, :1]), square.cumsum(1)], 1)  # csum[j] = sum of sq[:j]
        hi = [min(ch + pre_pad - 1, c - 1) + 1 for ch in range(c)]
        lo = [ch - pre_pad + 1 if ch > pre_pad else 0 for ch in range(c)]
        dev = input.device
        scale = (csum.index_select(1, tandem.tensor(hi, device=dev))
                 - csum.index_select(1, tandem.tensor(lo, device=dev)))
        keep_first = tandem.tensor([1.0 if x > 0 else 0.0 for x in lo], dtype=input.dtype, device=dev)
        scale = scale + square[:, :1] * keep_first.reshape(1, c, 1, 1)
        scale = scale * (alpha / size) + k
        output = scale.pow(-beta) * input
        ctx.save_for_backward(input, output, scale)
        ctx.params = (size, alpha, beta)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, output, scale = ctx.saved_tensors
        size, alpha, beta = ctx.params
        c = input.shape[1]
        inverse_pre_pad = int(size - (size - 1) / 2)
        ratio = grad_output * output / scale
        # padded[p] = ratio[p - inverse_pre_pad]; channel ch accumulates padded[ch .. ch + size - 1].
        csum = tandem.cat([tandem.zeros_like(ratio[:, :1]), ratio.cumsum(1)], 1)
        hi = [min(max(ch + size - inverse_pre_pad, 0), c) for ch in range(c)]
        lo = [min(max(ch - inverse_pre_pad, 0), c) for ch in range(c)]
        dev = input.device
        accum = (csum.index_select(1, tandem.tensor(hi, device=dev))
                 - csum.index_select(1, tandem.tensor(lo, device=dev)))
        grad_input = scale.pow(-beta) * grad_output - (2 * alpha * beta / size) * input * accum
        return grad_input, None, None, None, None


class CrossMapLRN2d(Module):
    def __init__(self, size, alpha=1e-4, beta=0.75, k=1):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead.")
        return _CrossMapLRNFunction.apply(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
