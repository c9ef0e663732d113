"""tandem.__future__: the switches PyTorch uses to opt into behaviour that will become its default, read by
nn.Module's conversions (to/cuda/float/... through Module._apply) and by load_state_dict."""
_overwrite_module_params_on_conversion = False
_swap_module_params_on_conversion = False


def set_overwrite_module_params_on_conversion(value):
    """When True, converting a module (module.to(), .cuda(), .double(), ...) gives it new Parameter objects
    instead of changing the existing ones in place (references held elsewhere, e.g. by an optimizer, then
    keep the old tensors)."""
    global _overwrite_module_params_on_conversion
    _overwrite_module_params_on_conversion = bool(value)


def get_overwrite_module_params_on_conversion():
    return _overwrite_module_params_on_conversion


def set_swap_module_params_on_conversion(value):
    """When True, module conversions and load_state_dict replace each parameter's contents with
    tandem.utils.swap_tensors (the Parameter object, and so every reference to it, is kept; its class and
    attributes come from the converted tensor). Takes precedence over the overwrite switch."""
    global _swap_module_params_on_conversion
    _swap_module_params_on_conversion = bool(value)


def get_swap_module_params_on_conversion():
    return _swap_module_params_on_conversion
