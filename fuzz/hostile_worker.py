"""The worker of fuzz/hostile_diff.py: reads [case, device] lines, runs the case with PyTorch (cached per case)
and tandem, and writes one verdict line per case. faulthandler prints the Python stack of a crash to stderr,
which the parent attaches to the finding."""
import faulthandler
import gc
import json
import math
import os
import re
import resource
import sys
import warnings

faulthandler.enable()
warnings.simplefilter("ignore")
limit = int(float(os.environ.get("HOSTILE_MEMORY_LIMIT_GB", "8")) * 2**30)
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402

import tandem  # noqa: E402

# assert_close imports torch.distributed on its first call: do that now, not inside a case's verdict.
torch.testing.assert_close(torch.zeros(1), torch.zeros(1))
from hostile_cases import all_cases  # noqa: E402

# The case's stdout is the channel to the parent: keep the ops' own prints off it.
channel = os.fdopen(os.dup(1), "w", buffering=1)
os.dup2(2, 1)

# Tolerances for values that both libraries compute with their own algorithms (float32 accumulations differ).
TOLERANCE = {"float64": (1e-7, 1e-9), "complex128": (1e-7, 1e-9), "float32": (2e-4, 1e-5),
             "complex64": (2e-4, 1e-5), "float16": (2e-2, 1e-3), "bfloat16": (3e-2, 1e-2)}


def first_line(error):
    """The comparable first line: tandem's names read as torch's, devices and kernel suffixes dropped."""
    line = (str(error).splitlines() or [""])[0]
    line = line.replace("tandem.", "torch.").replace("_cuda\"", "_cpu\"").replace("torch.cuda.", "torch.")
    line = re.sub(r"\bCUDA(\w+)Type\b", r"CPU\1Type", line)  # C++ type names: CUDAFloatType, CUDABoolType
    # PyTorch's TORCH_CHECK appends a request for a better message to its internal asserts: not part of the text
    line = line.split("  (Could this error message be improved?")[0]
    return re.sub(r", device='cuda:\d'", "", line)


def outcome(case, lib, device):
    try:
        value = case.fn(lib, device)
        if lib is tandem and device.startswith("cuda"):
            tandem.cuda.synchronize(device)  # a deferred device error (an integer division by zero) raises here
        return "value", value
    except Exception as e:  # noqa: BLE001 - the exception is what we compare
        return "error", e
    except BaseException as e:  # noqa: BLE001 - a RecursionError's parent, SystemExit from a bad op...
        return "error", e


def _dtype_name(dtype):
    return str(dtype).split(".")[-1]


def to_torch(x):
    """A tandem result as a torch tensor on the CPU (values exactly as tandem has them)."""
    if x.is_sparse if hasattr(x, "is_sparse") else False:
        x = x.to_dense()
    x = x.detach().cpu()
    dtype = getattr(torch, _dtype_name(x.dtype))
    if x.numel() == 0:
        return torch.empty(tuple(x.shape), dtype=dtype)
    if x.dtype in (tandem.bfloat16,):
        return torch.tensor(x.float().tolist(), dtype=torch.float32).to(dtype).reshape(tuple(x.shape))
    return torch.tensor(x.tolist(), dtype=dtype).reshape(tuple(x.shape))


def compare(got, expected, mode, path="result"):
    """None when tandem's value matches PyTorch's, else what differs."""
    if isinstance(expected, torch.Tensor):
        if not hasattr(got, "shape") or not hasattr(got, "dtype") or isinstance(got, torch.Tensor):
            return f"{path}: PyTorch returns a tensor, tandem {type(got).__name__}"
        if _dtype_name(got.dtype) != _dtype_name(expected.dtype):
            return f"{path}: dtype {_dtype_name(got.dtype)} vs PyTorch's {_dtype_name(expected.dtype)}"
        if tuple(got.shape) != tuple(expected.shape):
            return f"{path}: shape {tuple(got.shape)} vs PyTorch's {tuple(expected.shape)}"
        if mode == "shape":
            return None
        g = to_torch(got)
        e = expected.detach()
        if e.is_sparse:
            e = e.to_dense()
        rtol, atol = TOLERANCE.get(_dtype_name(e.dtype), (0, 0)) if mode != "exact" else (0, 0)
        try:
            torch.testing.assert_close(g, e, rtol=rtol, atol=atol, equal_nan=True)
        except AssertionError as err:
            return f"{path}: values differ: {str(err).splitlines()[:6]}\n tandem {g.flatten()[:8].tolist()}\n " \
                   f"torch  {e.flatten()[:8].tolist()}"
        return None
    if isinstance(expected, dict):
        if not isinstance(got, dict) or list(got) != list(expected):
            return f"{path}: {type(got).__name__} {got!r:.200} vs PyTorch's dict {expected!r:.200}"
        for k in expected:
            diff = compare(got[k], expected[k], mode, f"{path}[{k!r}]")
            if diff:
                return diff
        return None
    if isinstance(expected, str) and isinstance(got, str):  # names: tandem's read as torch's
        return None if mode == "shape" or got.replace("tandem", "torch") == expected else \
            f"{path}: {got!r:.200} vs PyTorch's {expected!r:.200}"
    if isinstance(expected, (tuple, list)):
        if not isinstance(got, (tuple, list)) or len(got) != len(expected):
            return f"{path}: {type(got).__name__} {got!r:.200} vs PyTorch's {type(expected).__name__} {expected!r:.200}"
        for i, (g, e) in enumerate(zip(got, expected)):
            diff = compare(g, e, mode, f"{path}[{i}]")
            if diff:
                return diff
        return None
    if isinstance(expected, float) and isinstance(got, (float, int)):
        if mode == "shape" or (math.isnan(expected) and math.isnan(got)) or math.isclose(got, expected, rel_tol=1e-6):
            return None
        return f"{path}: {got!r} vs PyTorch's {expected!r}"
    if isinstance(expected, (torch.dtype, torch.device, torch.Size, torch.layout)):
        return None if str(got).replace("tandem", "torch") == str(expected) else f"{path}: {got} vs {expected}"
    if mode != "shape" and type(got).__name__ != type(expected).__name__ and not (
            isinstance(expected, (int, bool, complex, str, type(None)))
            and type(got) is type(expected)):
        return f"{path}: {type(got).__name__} {got!r:.200} vs PyTorch's {type(expected).__name__} {expected!r:.200}"
    if mode != "shape" and got != expected:
        return f"{path}: {got!r:.200} vs PyTorch's {expected!r:.200}"
    return None


def _is_type(got, expected):
    names = {c.__name__.strip("_") for c in type(got).__mro__}
    return type(expected).__name__.strip("_") in names


def verdict(case, expected, got):
    kind, value = expected
    got_kind, got_value = got
    if kind == "error" and got_kind == "value":
        return "missing-error", f"PyTorch raises {type(value).__name__}: {first_line(value)}; tandem returns " \
                                f"{got_value!r:.300}"
    if kind == "value" and got_kind == "error":
        return "spurious-error", f"tandem raises {type(got_value).__name__}: {str(got_value)[:400]}"
    if kind == "error":
        if not _is_type(got_value, value):
            return "wrong-type", f"tandem {type(got_value).__name__}: {first_line(got_value)[:300]} | PyTorch " \
                                 f"{type(value).__name__}: {first_line(value)[:300]}"
        if case.mode != "any-message" and first_line(got_value) != first_line(value):
            return "message", f"tandem: {first_line(got_value)[:300]} | PyTorch: {first_line(value)[:300]}"
        return "ok", ""
    diff = compare(got_value, value, case.mode)
    return ("wrong-value", diff) if diff else ("ok", "")


def _needs_values(error):
    """Whether tandem refused because a meta tensor has no values (PyTorch's meta errors, and Python code that
    reads a value with .item() or .tolist() along the way)."""
    return "meta" in str(error) or "no fake impl" in str(error)  # custom ops without one refuse meta, as PyTorch's


def meta_verdict(case, expected, got):
    """On the meta device (--devices meta) a case checks what meta tensors have: no crash or hang, PyTorch's
    shapes and dtypes (the oracle still runs on the CPU), and no error other than "this needs values". An input
    PyTorch refuses only by its values (an index out of range) passes on meta, as PyTorch's own meta kernels
    skip those checks: "meta-unchecked", not a finding."""
    kind, value = expected
    got_kind, got_value = got
    if got_kind == "value":
        if kind == "error":
            return "meta-unchecked", f"PyTorch (cpu) raises {type(value).__name__}: {first_line(value)[:200]}"
        diff = compare(got_value, value, "shape")
        return ("wrong-value", diff) if diff else ("ok", "")
    if kind == "value" and not _needs_values(got_value):
        return "spurious-error", f"tandem raises {type(got_value).__name__}: {str(got_value)[:400]}"
    return "ok", ""


def live_bytes(device):
    if device.startswith("cuda"):
        return tandem.cuda.memory_allocated(device)
    return None


def leak_check(case, device):
    """Bytes still held after the case ran three more times (its result and exception dropped)."""
    before = live_bytes(device)
    if before is None:
        return 0
    for _ in range(3):
        outcome(case, tandem, device)
        gc.collect()
    return live_bytes(device) - before


def main():
    cases = all_cases()
    oracle = {}
    # The objects of both libraries and the tables live to the end: the collections after each case (and the leak
    # check's) then walk only what the cases made, about 0.6 s less each with both libraries loaded.
    gc.collect()
    gc.freeze()
    channel.write("ready\n")
    for line in sys.stdin:
        name, device = json.loads(line)
        case = cases[name]
        if name not in oracle:
            channel.write("start torch\n")
            torch.manual_seed(0)
            oracle[name] = outcome(case, torch, "cpu")
        channel.write("start tandem\n")
        tandem.manual_seed(0)
        got = outcome(case, tandem, device)
        try:
            result, detail = (meta_verdict if device == "meta" else verdict)(case, oracle[name], got)
        except Exception as e:  # noqa: BLE001 - reading tandem's result failed (its repr, tolist)
            result, detail = "spurious-error", f"reading tandem's result raised {type(e).__name__}: {e}"
        del got
        gc.collect()
        if result == "ok":
            grown = leak_check(case, device)
            if grown > 0:
                result, detail = "leak", f"{grown} bytes more held on {device} after three more runs"
        channel.write(json.dumps({"case": name, "device": device, "verdict": result, "detail": detail}) + "\n")


if __name__ == "__main__":
    main()
