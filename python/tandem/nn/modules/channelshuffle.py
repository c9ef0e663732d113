"""PyTorch's module path for ChannelShuffle (torch.nn.modules.channelshuffle); it is defined in breadth.py."""
from .breadth import ChannelShuffle

__all__ = ["ChannelShuffle"]
