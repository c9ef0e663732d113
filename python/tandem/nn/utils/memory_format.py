"""convert_conv2d_weight_memory_format / convert_conv3d_weight_memory_format, as torch.nn.utils: the weights of a
module's (transposed) convolutions re-laid out in memory_format, the Parameters themselves kept (their .data
replaced), so optimizers holding them still see them."""
__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]


def _convert(module, memory_format, kinds):
    # an explicit stack: no recursion over a user-sized module tree
    pending = [module]
    while pending:
        current = pending.pop()
        if isinstance(current, kinds):
            current.weight.data = current.weight.detach().clone(memory_format=memory_format)
        pending.extend(current.children())
    return module


def convert_conv2d_weight_memory_format(module, memory_format):
    """module, with every Conv2d and ConvTranspose2d weight in memory_format (e.g. tandem.channels_last)."""
    from ..modules import Conv2d, ConvTranspose2d  # noqa: PLC0415

    return _convert(module, memory_format, (Conv2d, ConvTranspose2d))


def convert_conv3d_weight_memory_format(module, memory_format):
    """module, with every Conv3d and ConvTranspose3d weight in memory_format (e.g. tandem.channels_last_3d)."""
    from ..modules import Conv3d, ConvTranspose3d  # noqa: PLC0415

    return _convert(module, memory_format, (Conv3d, ConvTranspose3d))
