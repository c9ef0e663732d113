"""Shared helpers of the fifteenth program sweep: each program runs many small cases and returns every case's outcome
as plain values, so one difference from PyTorch names its case instead of stopping the program."""
import math

import numpy as np


def plain(torch, value):
    """Tensors as [dtype, shape, values] (NaN as the string 'nan'), dtypes and sizes as strings and lists."""
    if isinstance(value, torch.Tensor):
        v = value.detach().cpu()
        if v.is_complex():
            flat = [[c.real, c.imag] for c in v.reshape(-1).tolist()]
        else:
            flat = v.reshape(-1).tolist()
        return [str(v.dtype), list(v.shape), _nan_safe(flat)]
    if isinstance(value, torch.dtype):
        return str(value)
    if isinstance(value, torch.Size):
        return ["Size", list(value)]
    if isinstance(value, (list, tuple)):
        return [plain(torch, v) for v in value]
    if isinstance(value, dict):
        return {k: plain(torch, v) for k, v in value.items()}
    if isinstance(value, float):
        return _nan_safe(value)
    return value


def _nan_safe(x):
    if isinstance(x, list):
        return [_nan_safe(v) for v in x]
    if isinstance(x, float) and math.isnan(x):
        return "nan"
    return x


def outcome(torch, call):
    """A case's plain result, or its error's type and first message line (without a `hint:` line)."""
    try:
        return plain(torch, call())
    except Exception as exc:  # the error type and message are what the sweep compares
        return ["raised", type(exc).__name__, str(exc).split("\nhint:")[0].split("\n")[0]]


def cases(torch, table):
    return {name: outcome(torch, call) for name, call in table.items()}


def array(torch, values, device, dtype=None):
    return torch.tensor(np.asarray(values), dtype=dtype, device=device)
