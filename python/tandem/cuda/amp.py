"""tandem.cuda.amp: PyTorch's older spelling of tandem.amp for CUDA (deprecated there too, with the same
FutureWarnings); everything forwards to tandem.amp with device_type 'cuda'."""
import functools
import warnings

import tandem
from .. import amp as _amp
from ..amp._device_spellings import device_amp_classes

__all__ = ["autocast", "custom_fwd", "custom_bwd", "GradScaler"]

autocast, GradScaler = device_amp_classes("cuda", tandem.float16)


def custom_fwd(fwd=None, *, cast_inputs=None):
    """``tandem.amp.custom_fwd(device_type="cuda", ...)``."""
    warnings.warn("`torch.cuda.amp.custom_fwd(args...)` is deprecated. Please use "
                  "`torch.amp.custom_fwd(args..., device_type='cuda')` instead.", FutureWarning, stacklevel=2)
    return functools.partial(_amp.custom_fwd, device_type="cuda", cast_inputs=cast_inputs)(fwd)


def custom_bwd(bwd):
    """``tandem.amp.custom_bwd(device_type="cuda")``."""
    warnings.warn("`torch.cuda.amp.custom_bwd(args...)` is deprecated. Please use "
                  "`torch.amp.custom_bwd(args..., device_type='cuda')` instead.", FutureWarning, stacklevel=2)
    return _amp.custom_bwd(bwd, device_type="cuda")
