"""PyTorch's argument parser's checks for the creation functions tandem writes in Python (tensor, as_tensor,
asarray, frombuffer, from_numpy): a missing data argument and keyword arguments of the wrong type, worded as its
parser words them, before any data is read."""
import sys

from . import _C
from ._dim_args import _is_int, _parser_type_name, _tp_name

MISSING = object()  # the data argument not given


def check(name, data, extra=(), data_label="data", device=None, **flags):
    """data: MISSING when not given; extra: positionals past it (the functions take `data=MISSING, *extra` so
    that both words are PyTorch's); device: the device argument; flags: the bool keywords (None passes where it
    is the default: asarray's copy and requires_grad, which the caller leaves out when they are None)."""
    if data is MISSING:
        raise TypeError(f'{name}() missing 1 required positional arguments: "{data_label}"')
    if extra:
        raise TypeError(f"{name}() takes 1 positional argument but {len(extra) + 1} were given")
    for label, value in flags.items():
        if type(value) is not bool:  # Python bools only: PyTorch refuses 1 and numpy.bool_ here
            raise TypeError(f"{name}(): argument '{label}' must be bool, not {_parser_type_name(value)}")
    if device is not None and not isinstance(device, (str, _C.device)) and not _is_int(device):
        raise TypeError(f"{name}(): argument 'device' must be torch.device, not {_parser_type_name(device)}")


def from_numpy(*args, **kwargs):
    """torch.from_numpy: one positional NumPy array (the core imports any buffer; PyTorch takes arrays only)."""
    if kwargs:
        raise TypeError("tandem._VariableFunctionsClass.from_numpy() takes no keyword arguments")
    if len(args) != 1:
        raise TypeError(f"tandem._VariableFunctionsClass.from_numpy() takes exactly one argument ({len(args)} given)")
    np = sys.modules.get("numpy")  # never imported: nothing can be an array
    if np is None or not isinstance(args[0], np.ndarray):
        raise TypeError(f"expected np.ndarray (got {_tp_name(args[0])})")
    return _C.from_numpy(args[0])


def requires_grad_(out, requires_grad):
    """out with requires_grad set as a factory sets it: PyTorch's factories word an integer dtype's refusal
    "Only Tensors of floating point and complex dtype ..." (requires_grad_() itself says "only ... floating point
    dtype")."""
    if not requires_grad:
        return out
    if not (out.is_floating_point() or out.is_complex()):
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    return out.requires_grad_()


def factory_options(name, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False):
    """The keyword arguments of a one-signature factory written in Python (empty_strided, scalar_tensor), checked in
    PyTorch's parser order with its words ("empty_strided(): argument 'dtype' must be torch.dtype, not int");
    returns the dtype with Python's number types read as PyTorch's parser reads them (float is float64)."""
    from ._finfo import _PYTHON_TYPES
    from ._layouts import layout as layout_type

    if isinstance(dtype, type) and dtype in _PYTHON_TYPES:
        dtype = _PYTHON_TYPES[dtype]
    elif dtype is not None and not isinstance(dtype, _C.dtype):
        raise TypeError(f"{name}(): argument 'dtype' must be torch.dtype, not {_parser_type_name(dtype)}")
    if layout is not None and not isinstance(layout, layout_type):
        raise TypeError(f"{name}(): argument 'layout' must be torch.layout, not {_parser_type_name(layout)}")
    check(name, None, device=device, pin_memory=pin_memory, requires_grad=requires_grad)
    return dtype
