"""parameters_to_vector / vector_to_parameters, as torch.nn.utils: one flat vector for a list of parameters."""
import tandem

from ..._C import Tensor


def _typename(obj):
    """torch.typename's spelling of obj's type, for error messages."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module, qualname = obj.__class__.__module__ or "", obj.__class__.__qualname__
    return qualname if module in {"", "builtins"} else f"{module}.{qualname}"


def _check_param_device(param, old_param_device):
    """The cuda index of `param` (-1 on the CPU); TypeError when it differs from the previous parameters'."""
    index = param.get_device() if param.device.type == "cuda" else -1
    if old_param_device is not None and index != old_param_device:
        raise TypeError("Found two parameters on different devices, this is currently not supported.")
    return index


def parameters_to_vector(parameters):
    """The parameters flattened and concatenated into one new 1-d tensor (all on one device)."""
    param_device = None
    vec = []
    for param in parameters:
        param_device = _check_param_device(param, param_device)
        vec.append(param.view(-1))
    return tandem.cat(vec)


def vector_to_parameters(vec, parameters):
    """Points each parameter's data at its slice of `vec` (a view: later writes to vec show in the parameters)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {_typename(vec)}")
    param_device = None
    pointer = 0
    for param in parameters:
        param_device = _check_param_device(param, param_device)
        num_param = param.numel()
        param.data = vec[pointer:pointer + num_param].view_as(param).data
        pointer += num_param
