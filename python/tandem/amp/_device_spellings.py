"""The classes behind PyTorch's older per-device spellings, tandem.cpu.amp and tandem.cuda.amp (deprecated in
PyTorch too): autocast and GradScaler bound to one device type, each constructor giving PyTorch's FutureWarning."""
import warnings

from .autocast_mode import autocast as _autocast
from .grad_scaler import GradScaler as _GradScaler


def device_amp_classes(device_type, default_dtype):
    """(autocast, GradScaler) for ``tandem.<device_type>.amp``; autocast's dtype defaults to default_dtype."""

    class autocast(_autocast):
        __doc__ = f'``tandem.amp.autocast("{device_type}", ...)``.'

        def __init__(self, enabled=True, dtype=None, cache_enabled=True):
            warnings.warn(f"`torch.{device_type}.amp.autocast(args...)` is deprecated. Please use "
                          f"`torch.amp.autocast('{device_type}', args...)` instead.", FutureWarning, stacklevel=2)
            super().__init__(device_type, enabled=enabled, dtype=default_dtype if dtype is None else dtype,
                             cache_enabled=cache_enabled)

    class GradScaler(_GradScaler):
        __doc__ = f'``tandem.amp.GradScaler("{device_type}", ...)``.'

        def __init__(self, init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                     enabled=True):
            warnings.warn(f"`torch.{device_type}.amp.GradScaler(args...)` is deprecated. Please use "
                          f"`torch.amp.GradScaler('{device_type}', args...)` instead.", FutureWarning, stacklevel=2)
            super().__init__(device_type, init_scale=init_scale, growth_factor=growth_factor,
                             backoff_factor=backoff_factor, growth_interval=growth_interval, enabled=enabled)

    for cls in (autocast, GradScaler):
        cls.__module__ = f"tandem.{device_type}.amp"
        cls.__qualname__ = cls.__name__
    return autocast, GradScaler
