"""The dropout layers: Dropout, the channel-wise Dropout1d/2d/3d, AlphaDropout and FeatureAlphaDropout."""
from .. import functional as F
from .module import Module

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"]


class _DropoutNd(Module):
    """p and inplace, checked and shown as PyTorch's dropout layers do; active in training mode only."""

    # The functional's name, looked up in F at each call (as PyTorch's forward does), so that a program or a
    # library that replaces F.dropout is heard by the layers too.
    _fn_name = None

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input):
        return getattr(F, self._fn_name)(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """Zeroes elements with probability p (scaling the rest by 1/(1-p)) in training mode only."""

    _fn_name = "dropout"


class Dropout1d(_DropoutNd):
    _fn_name = "dropout1d"


class Dropout2d(_DropoutNd):
    _fn_name = "dropout2d"


class Dropout3d(_DropoutNd):
    _fn_name = "dropout3d"


class AlphaDropout(_DropoutNd):
    # PyTorch's alpha dropout layers ignore inplace (they keep it only for the repr).
    def forward(self, input):
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    def forward(self, input):
        return F.feature_alpha_dropout(input, self.p, self.training)
