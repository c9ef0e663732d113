"""Conv1d, Conv3d, the transposed convolutions, and Fold/Unfold (sliding blocks to and from columns)."""
from .. import functional as F
from .conv import _ConvForwardNd, _ConvNd, _ntuple
from .module import Module
from .utils import own_init

__all__ = ["Conv1d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "Fold", "Unfold"]


@own_init
class Conv1d(_ConvForwardNd):
    """1-D convolution over (N, C, L), any padding mode."""

    _dims = 1
    _conv = staticmethod(F.conv1d)


@own_init
class Conv3d(_ConvForwardNd):
    """3-D convolution over (N, C, D, H, W), any padding mode."""

    _dims = 3
    _conv = staticmethod(F.conv3d)


class _ConvTransposeNd(_ConvNd):
    """The transposed convolutions: weight (in, out/groups, *k); forward(input, output_size) picks the
    output_padding that reaches output_size, as PyTorch does."""

    _dims = 2
    _conv = None

    # PyTorch's signature (_ConvNd's), which subclasses written against PyTorch's source call with tuples; the
    # public ConvTranspose1d/2d/3d take the user's arguments (_public_init below)
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, transposed, output_padding,
                 groups, bias, padding_mode, device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, transposed, output_padding,
                         groups, bias, padding_mode, device=device, dtype=dtype)

    def _output_padding(self, input, output_size, stride, padding, kernel_size, num_spatial_dims, dilation=None):
        if output_size is None:
            return tuple(self.output_padding)
        non_spatial = 2 if input.dim() == num_spatial_dims + 2 else 1
        # kept as given (a tuple or a list): the message below shows it as PyTorch does
        if len(output_size) == non_spatial + num_spatial_dims:
            output_size = output_size[non_spatial:]
        if len(output_size) != num_spatial_dims:
            raise ValueError(f"ConvTranspose{num_spatial_dims}D: for {input.dim()}D input, output_size must have "
                             f"{num_spatial_dims} or {non_spatial + num_spatial_dims} elements "
                             f"(got {len(output_size)})")
        min_sizes = [(input.size(d + non_spatial) - 1) * stride[d] - 2 * padding[d]
                     + (dilation[d] if dilation is not None else 1) * (kernel_size[d] - 1) + 1
                     for d in range(num_spatial_dims)]
        max_sizes = [m + s - 1 for m, s in zip(min_sizes, stride)]
        for size, low, high in zip(output_size, min_sizes, max_sizes):
            if size < low or size > high:
                raise ValueError(f"requested an output size of {output_size}, but valid sizes range from {min_sizes} "
                                 f"to {max_sizes} (for an input of {input.size()[non_spatial:]})")
        return tuple(size - low for size, low in zip(output_size, min_sizes))

    def forward(self, input, output_size=None):
        output_padding = self._output_padding(input, output_size, self.stride, self.padding, self.kernel_size,
                                              self._dims, self.dilation)
        return self._conv(input, self.weight, self.bias, self.stride, self.padding, output_padding, self.groups,
                          self.dilation)


def _public_init(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
    """ConvTranspose1d/2d/3d(...): the user's arguments as _ConvTransposeNd's tuples."""
    n = self._dims
    _ConvTransposeNd.__init__(self, in_channels, out_channels, _ntuple(kernel_size, n), _ntuple(stride, n),
                              _ntuple(padding, n), _ntuple(dilation, n), True, _ntuple(output_padding, n), groups,
                              bias, padding_mode, device=device, dtype=dtype)


@own_init
class ConvTranspose1d(_ConvTransposeNd):
    _dims = 1
    _conv = staticmethod(F.conv_transpose1d)
    __init__ = _public_init


@own_init
class ConvTranspose2d(_ConvTransposeNd):
    _dims = 2
    _conv = staticmethod(F.conv_transpose2d)
    __init__ = _public_init


@own_init
class ConvTranspose3d(_ConvTransposeNd):
    _dims = 3
    _conv = staticmethod(F.conv_transpose3d)
    __init__ = _public_init


class Fold(Module):
    """Columns of sliding blocks (N, C * prod(kernel_size), L) summed back into (N, C, *output_size)."""

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def forward(self, input):
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, dilation={self.dilation}, "
                f"padding={self.padding}, stride={self.stride}")


class Unfold(Module):
    """Sliding blocks of (N, C, H, W) as columns (N, C * prod(kernel_size), L)."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size, self.dilation, self.padding, self.stride = kernel_size, dilation, padding, stride

    def forward(self, input):
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, dilation={self.dilation}, padding={self.padding}, "
                f"stride={self.stride}")
