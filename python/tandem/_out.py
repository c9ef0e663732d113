"""out= for the functions composed in Python (baddbmm, addr, tensordot, cross, linalg.*, ...): the result,
computed as without out=, written into out with PyTorch's rules (tandem._C._write_out; src/ops/out_arg.h):
autograd refused, out's dtype checked (exactly the result's for PyTorch's structured ops, with that op's
message; castable for the others), out resized with PyTorch's warning, and out itself returned. Because the
result is computed first, out may be one of the inputs."""
import functools
import inspect

from . import _C
from ._return_types import out_type

Tensor = _C.Tensor

# The message of PyTorch's structured kernels (mm, baddbmm, addmv, cross, linalg.matmul, ...).
STRUCTURED = "Expected out tensor to have dtype {result_cpp}, but got {out_cpp} instead"
CASTABLE = None  # ops built on TensorIterator: the result need only cast to out's dtype
# TensorIterator ops that keep their input's dtype (clamp, fix, hardshrink, ...) want it in out too.
FOUND_DTYPE = "Found dtype {out} but expected {result}"


def write_out(fn, result, out, inputs, dtype_error=STRUCTURED):
    """out filled with result (see the module docstring); inputs: the call's tensors (for the autograd check)."""
    return _C._write_out(aten_name(fn), result, out, [t for t in inputs if isinstance(t, Tensor)], dtype_error)


def write_outs(fn, result, out, inputs, dtype_error=STRUCTURED):
    """write_out for one result or, for functions with several results, each of a tuple of outs (out=(values,
    indices)), with dtype_error or its own entry of a tuple of them; the result comes back with its own type (a
    named tuple) holding the outs themselves."""
    if not isinstance(result, tuple):
        return write_out(fn, result, out, inputs, dtype_error)
    if not isinstance(out, (tuple, list)):
        raise TypeError(f"{aten_name(fn)}(): argument 'out' must be tuple of Tensors, not {type(out).__name__}")
    if len(out) != len(result):  # PyTorch's parser words this one without the function's name
        raise TypeError(f"expected tuple of {len(result)} elements but got {len(out)}")
    # dtype_error: one message for every out, or a tuple of one per result (frexp's mantissa and exponent)
    errors = dtype_error if isinstance(dtype_error, tuple) else (dtype_error,) * len(result)
    written = [write_out(fn, r, o, inputs, e) for r, o, e in zip(result, out, errors)]
    return out_type(type(result))(*written) if hasattr(result, "_fields") else tuple(written)


def aten_name(fn):
    """The name PyTorch's argument parser and autograd check give a function: its ATen op's (linalg.qr is
    linalg_qr, fft.fft fft_fft)."""
    return fn.replace(".", "_")


def _tensors(args):
    for a in args:
        if isinstance(a, Tensor):
            yield a
        elif isinstance(a, (list, tuple)):
            yield from (t for t in a if isinstance(t, Tensor))


# tensordot's (and inner's) out= errors: another dtype, and an out that requires grad and needs resizing.
TENSORDOT_DTYPE = ("tensordot: Expected the output tensor to have dtype {result}, but got an output tensor with dtype "
                   "{out}")
# multi_dot's (and chain_matmul's) out= dtype error.
MULTI_DOT_DTYPE = "multi_dot(): expected out tensor to have dtype {result_cpp} but got {out_cpp}"
TENSORDOT_GRAD = ("tensordot(): the 'out' tensor was specified and requires gradients, and its shape does not match "
                  "the expected result. Either remove the 'out' argument, ensure it does not require gradients, or "
                  "make sure its shape matches the expected output.")


def _factory_kwargs(kwargs, out):
    """A factory's dtype= and device= with out=: out's unless given; a given dtype or device type other than out's
    is PyTorch's error."""
    kwargs = dict(kwargs)
    dtype, device = kwargs.get("dtype"), kwargs.get("device")
    if dtype is None:
        kwargs["dtype"] = out.dtype
    elif dtype != out.dtype:
        raise RuntimeError(f"dtype {dtype._scalar_type_name} does not match dtype of out parameter "
                           f"({out.dtype._scalar_type_name})\nhint: leave dtype= away (the values are made in out's "
                           "dtype)")
    if device is None:
        kwargs["device"] = out.device
    elif _C.device(device).type != out.device.type:
        raise RuntimeError(f"device type {_C.device(device).type} does not match device type of out parameter "
                           f"({out.device.type})\nhint: leave device= away (the values are made on out's device)")
    return kwargs


def call_with_out(fn_name, fn, args, kwargs, out, dtype_error=STRUCTURED, *, grad_name=None, refuse_grad=True,
                  factory=False, grad_resize_error=None, quiet_resize=False):
    """fn(*args, **kwargs) written into out with write_outs' rules, after PyTorch's first check (autograd).
    grad_name: the name PyTorch's autograd error gives (the ATen op that refuses, e.g. linalg_inv_ex for
    linalg.inv); refuse_grad=False for PyTorch's compositions that write into out from a recorded result
    (linalg.matrix_norm, tensordot, ...): out then gets the values only. factory=True: a factory (logspace,
    range) makes its values in out's dtype and on out's device unless dtype=/device= are given, as PyTorch's do.
    grad_resize_error: the error for an out that requires grad and would be resized (refuse_grad=False only;
    otherwise copying into such an out raises the leaf error). quiet_resize=True: PyTorch resizes out without
    its warning (addbmm)."""
    inputs = list(_tensors(list(args) + list(kwargs.values())))
    if not isinstance(out, (Tensor, tuple, list)):
        raise TypeError(f"{aten_name(fn_name)}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if factory and isinstance(out, Tensor):
        kwargs = _factory_kwargs(kwargs, out)
    if refuse_grad:
        # PyTorch's first check; its factories' error names the op with its namespace (aten::logspace)
        name = grad_name or (f"aten::{fn_name}" if factory else aten_name(fn_name))
        _C._check_out_autograd(name, inputs, list(_tensors([out])))
        result = fn(*args, **kwargs)
        if quiet_resize and isinstance(out, Tensor) and out.shape != result.shape:
            out.resize_(0)  # keeps out's storage; resize_out then grows it without the warning
        return write_outs(fn_name, result, out, inputs, dtype_error)
    result = fn(*args, **kwargs)
    if (grad_resize_error and isinstance(out, Tensor) and out.requires_grad and _C.is_grad_enabled()
            and out.shape != result.shape):
        raise RuntimeError(grad_resize_error)
    detached = type(result)(*(r.detach() for r in result)) if isinstance(result, tuple) else result.detach()
    return write_outs(fn_name, detached, out, (), dtype_error)


def with_out(fn_name, dtype_error=STRUCTURED, **options):
    """Decorator: gives a function composed in Python PyTorch's keyword-only out= (call_with_out's rules).
    Without out the call costs one extra Python frame (about 0.15 us); hot functions take out= themselves and
    call call_with_out instead."""
    def decorate(fn):
        @functools.wraps(fn)
        def call(*args, out=None, **kwargs):
            if out is None:
                return fn(*args, **kwargs)
            return call_with_out(fn_name, fn, args, kwargs, out, dtype_error, **options)

        sig = inspect.signature(fn)
        if "out" not in sig.parameters:  # show out= in help() and inspect.signature, as PyTorch's docs do
            params = list(sig.parameters.values())
            at = next((i for i, p in enumerate(params) if p.kind == p.VAR_KEYWORD), len(params))
            params.insert(at, inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY, default=None))
            call.__signature__ = sig.replace(parameters=params)
        return call

    return decorate
