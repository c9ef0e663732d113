"""tandem.cuda.amp: PyTorch's older spelling of tandem.amp for CUDA (deprecated there too, with the same
FutureWarnings); everything forwards to tandem.amp with device_type 'cuda'."""
import functools
import warnings

import tandem
from .. import amp as _amp

__all__ = ["autocast", "custom_fwd", "custom_bwd", "GradScaler"]


class autocast(_amp.autocast):
    """``tandem.amp.autocast("cuda", ...)``."""

    def __init__(self, enabled=True, dtype=None, cache_enabled=True):
        warnings.warn("`torch.cuda.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cuda', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cuda", enabled=enabled, dtype=tandem.float16 if dtype is None else dtype,
                         cache_enabled=cache_enabled)


class GradScaler(_amp.GradScaler):
    """``tandem.amp.GradScaler("cuda", ...)``."""

    def __init__(self, init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000, enabled=True):
        warnings.warn("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cuda', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cuda", init_scale=init_scale, growth_factor=growth_factor, backoff_factor=backoff_factor,
                         growth_interval=growth_interval, enabled=enabled)


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
