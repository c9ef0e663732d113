"""bitwise_left_shift / bitwise_right_shift and the Tensor operators << >> <<= >>=, with PyTorch's results.

tandem has no shift kernel (one needs new entries in the op list), so a shift is a thin composition of integer
ops: x << s is x * 2**s (integer products wrap exactly as a shifted-out bit is lost, 2**(bits-1) wrapping to
the sign bit), x >> s is floor(x / 2**s) (an arithmetic shift). PyTorch gives a shift count outside [0, bits)
a defined result, kept here: << gives 0, >> gives the sign fill (0, or -1 for a negative x).
"""
from . import _C
from ._compositions import _TITLE, _name

Tensor = _C.Tensor

__all__ = ["bitwise_left_shift", "bitwise_right_shift"]


def _operands(kernel, input, other):
    """Both operands as tensors of PyTorch's result dtype on the tensor operand's device; shifts exist only for
    integer dtypes, and PyTorch's error names the kernel and the dtype ("lshift_cpu" not implemented for 'Float')."""
    dtype = _C.result_type(input, other)
    device = input.device if isinstance(input, Tensor) else other.device
    if dtype.is_floating_point or dtype == _C.bool:
        raise NotImplementedError(f"\"{kernel}_{device.type}\" not implemented for '{_TITLE[_name(dtype)]}'")
    input, other = (t.to(dtype) if isinstance(t, Tensor) else _C.full((), t, dtype=dtype, device=device)
                    for t in (input, other))
    return input, other, dtype.itemsize * 8


def _power_of_two(exponent, dtype, top):
    """2**min(max(exponent, 0), top) in dtype (2**(bits-1) wraps to the sign bit, as the product needs)."""
    two = _C.full((), 2, dtype=dtype, device=exponent.device)
    return _C.pow(two, _C.clamp(exponent, 0, top))


def _finish(result, out):
    if out is None:
        return result
    out.copy_(result)
    return out


def bitwise_left_shift(input, other, *, out=None):
    input, other, bits = _operands("lshift", input, other)
    shifted = input * _power_of_two(other, input.dtype, bits - 1)
    in_range = (other >= 0) & (other < bits)
    return _finish(_C.where(in_range, shifted, _C.zeros((), dtype=input.dtype, device=input.device)), out)


def bitwise_right_shift(input, other, *, out=None):
    input, other, bits = _operands("rshift", input, other)
    top = bits - 2 if input.dtype.is_signed else bits - 1  # the largest power of two the dtype holds
    shifted = _C.floor_divide(input, _power_of_two(other, input.dtype, top))
    sign_fill = _C.where(input < 0, _C.full((), -1, dtype=input.dtype, device=input.device),
                         _C.zeros((), dtype=input.dtype, device=input.device))
    in_range = (other >= 0) & (other <= top)  # a signed x >> (bits-1) is its sign fill too
    return _finish(_C.where(in_range, shifted, sign_fill), out)


def _in_place(fn):
    def method(self, other):
        return self.copy_(fn(self, other))
    method.__name__ = method.__qualname__ = fn.__name__ + "_"
    return method


def _reflected(fn):
    def method(self, other):
        return fn(other, self)
    return method


def _methods():
    return {
        "bitwise_left_shift": bitwise_left_shift, "bitwise_right_shift": bitwise_right_shift,
        "bitwise_left_shift_": _in_place(bitwise_left_shift), "bitwise_right_shift_": _in_place(bitwise_right_shift),
        "__lshift__": bitwise_left_shift, "__rshift__": bitwise_right_shift,
        "__ilshift__": _in_place(bitwise_left_shift), "__irshift__": _in_place(bitwise_right_shift),
        "__rlshift__": _reflected(bitwise_left_shift), "__rrshift__": _reflected(bitwise_right_shift),
    }


def install(namespace):
    """Adds the functions and Tensor methods tandem's core does not provide (a core kernel, once added, wins)."""
    for name in __all__:
        namespace.setdefault(name, globals()[name])
    for name, method in _methods().items():
        if not hasattr(Tensor, name):
            setattr(Tensor, name, method)
