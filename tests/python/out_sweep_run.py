"""Running one out= call of the sweep (out_sweep.py) in PyTorch and in tandem and comparing them."""
import numpy as np
import pytest
import torch

import tandem

import out_sweep


def to_tandem(v, device):
    if isinstance(v, torch.Tensor):
        dtype = getattr(tandem, str(v.dtype).split(".")[-1])
        return tandem.tensor(v.tolist(), dtype=dtype, device=device) if v.dim() else \
            tandem.tensor(v.item(), dtype=dtype, device=device)
    if isinstance(v, (list, tuple)) and any(isinstance(x, torch.Tensor) for x in v):
        return type(v)(to_tandem(x, device) for x in v)
    return v


def sample_calls(name):
    """The calls to try for `name`: its CALLS entry, else one per out overload the generic rule can build."""
    if name in out_sweep.CALLS:
        return [out_sweep.CALLS[name]]
    calls = []
    for schema in out_sweep.out_overloads().get(name, []):
        call = out_sweep.generic_call(name.split(".")[-1], schema)
        if call is not None:
            calls.append(call)
    return calls


def torch_reference(name):
    """(args, kwargs, result) of the first sample call PyTorch accepts with out=, or None when it takes none."""
    fn = out_sweep.resolve(torch, name)
    for args, kwargs in sample_calls(name):
        try:
            result = fn(*args, **kwargs)
            outs = empty_outs(result, torch, "cpu")
            fn(*args, **kwargs, out=outs)
        except (TypeError, RuntimeError, ValueError, IndexError, NotImplementedError):
            continue
        return args, kwargs, result
    return None


def empty_outs(result, lib, device):
    """Empty outs of the result's dtypes (resized by the call, without a warning)."""
    def one(r):
        dtype = getattr(lib, str(r.dtype).split(".")[-1])
        return lib.empty(0, dtype=dtype, device=device)
    return tuple(one(r) for r in result) if isinstance(result, tuple) else one(result)


def _numpy(t):
    t = t.cpu() if hasattr(t, "cpu") else t
    if isinstance(t, torch.Tensor):
        t = t.resolve_conj().resolve_neg()
    if str(t.dtype).endswith("bfloat16"):
        t = t.float()
    return np.asarray(t.tolist()) if not hasattr(t, "numpy") else t.numpy()


def check(name, args, kwargs, reference, device):
    """Calls tandem's `name` with out= and asserts what PyTorch does: out itself returned (each of a tuple of
    outs), resized to the result's shape, with PyTorch's values (shape and dtype only for random functions)."""
    fn = out_sweep.resolve(tandem, name)
    targs = [to_tandem(a, device) for a in args]
    tkwargs = {k: to_tandem(v, device) for k, v in kwargs.items()}
    outs = empty_outs(reference, tandem, device)
    got = fn(*targs, **tkwargs, out=outs)
    pairs = list(zip(got, outs, reference)) if isinstance(reference, tuple) else [(got, outs, reference)]
    if isinstance(reference, tuple):
        assert isinstance(got, tuple) and len(got) == len(reference)
    for g, o, r in pairs:
        assert g is o, f"{name}: out= must return the out tensor itself"
        assert tuple(o.shape) == tuple(r.shape), f"{name}: shape {tuple(o.shape)} != {tuple(r.shape)}"
        assert str(o.dtype).split(".")[-1] == str(r.dtype).split(".")[-1]
        assert o.device == tandem.device(device)
        if name.split(".")[-1] not in out_sweep.RANDOM:
            want, have = _numpy(r), _numpy(o)
            if want.dtype.kind in "fc":
                np.testing.assert_allclose(have, want, rtol=2e-5, atol=2e-6, equal_nan=True, err_msg=name)
            else:
                np.testing.assert_array_equal(have, want, err_msg=name)


def _wider_outs(result, lib, device):
    """Empty outs one size wider than the result (float64 for float32, complex128 for complex64), other dtypes
    kept: the call must either cast into them or refuse them, as PyTorch does."""
    def one(r):
        name = str(r.dtype).split(".")[-1]
        name = {"float32": "float64", "complex64": "complex128"}.get(name, name)
        return lib.empty(0, dtype=getattr(lib, name), device=device)
    return tuple(one(r) for r in result) if isinstance(result, tuple) else one(result)


def check_wider_out(name, args, kwargs, reference, device):
    """PyTorch's answer to a float64 out for a float32 result (cast into it, or refuse it with the op's own
    message) is tandem's: the same error type and first line, or no error and PyTorch's values."""
    try:
        want = out_sweep.resolve(torch, name)(*args, **kwargs, out=_wider_outs(reference, torch, "cpu"))
        torch_error = None
    except RuntimeError as e:
        torch_error = e
    targs = [to_tandem(a, device) for a in args]
    tkwargs = {k: to_tandem(v, device) for k, v in kwargs.items()}
    if torch_error is not None:
        with pytest.raises(type(torch_error)) as caught:
            out_sweep.resolve(tandem, name)(*targs, **tkwargs, out=_wider_outs(reference, tandem, device))
        assert str(caught.value).split("\nhint:")[0] == str(torch_error).split("\n")[0]
        return
    got = out_sweep.resolve(tandem, name)(*targs, **tkwargs, out=_wider_outs(reference, tandem, device))
    pairs = zip(got, want) if isinstance(want, tuple) else [(got, want)]
    for g, w in pairs:
        assert str(g.dtype).split(".")[-1] == str(w.dtype).split(".")[-1]
        if name.split(".")[-1] not in out_sweep.RANDOM:
            np.testing.assert_allclose(_numpy(g), _numpy(w), rtol=2e-5, atol=2e-6, equal_nan=True, err_msg=name)
