"""Sweep 21 programs, NumPy arrays where PyTorch expects tensors: data-science code that hands arrays straight from
pandas/NumPy to torch functions and falls back to torch.as_tensor when PyTorch's argument parser refuses them with
a TypeError (the idiom `try: f(a) except TypeError: f(torch.as_tensor(a))`), so the exception type and PyTorch's
message ("must be Tensor, not numpy.ndarray", "expected Tensor as element 0 in argument 0, but got numpy.ndarray")
decide what the program does.

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep21.py)."""
import numpy as np

from test_programs_sweeputil import rounded as _r


def _with_fallback(torch, device, log, name, fn, *args):
    """Calls fn(*args); on a TypeError records PyTorch's message and retries with the arrays as tensors."""
    try:
        out = fn(*args)
        log.append([name, "ok"])
    except TypeError as e:
        log.append([name, "TypeError", str(e).split("\nhint:")[0]])

        def conv(a):
            if isinstance(a, (np.ndarray, np.generic)):
                return torch.as_tensor(a, device=device)
            if isinstance(a, (list, tuple)):
                return type(a)(conv(v) for v in a)
            return a
        out = fn(*[conv(a) for a in args])
    except Exception as e:  # anything else is a different program path
        log.append([name, type(e).__name__])
        return None
    if isinstance(out, (list, tuple)):
        return [_r(o.float(), 4) for o in out]
    return _r(out.float(), 4)


# ---- single tensor arguments given as arrays --------------------------------------------------------------------------
def numpy_arrays_as_tensor_arguments(torch, device):
    F = torch.nn.functional
    rng = np.random.default_rng(2700)
    pts = rng.standard_normal((4, 3)).astype(np.float32)
    ref = torch.tensor(rng.standard_normal((5, 3)), dtype=torch.float32, device=device)
    labels = np.array([0, 2, 1, 2])
    mat = rng.standard_normal((3, 3)).astype(np.float32)
    series = np.cumsum(rng.standard_normal(6)).astype(np.float32)
    log, results = [], {}
    calls = {
        "cdist": (torch.cdist, pts, ref),
        "cdist_second": (torch.cdist, ref, pts),
        "diff": (torch.diff, series),
        "diff_prepend": (lambda s, p: torch.diff(s, prepend=p), torch.tensor(series, device=device), series[:1]),
        "one_hot": (F.one_hot, labels),
        "embedding": (F.embedding, labels, torch.eye(3, device=device)),
        "cross_entropy_target": (F.cross_entropy, torch.zeros(4, 3, device=device), labels),
        "kron": (torch.kron, torch.eye(2, device=device), mat[:2, :2]),
        "rot90": (torch.rot90, mat),
        "diag_embed": (torch.diag_embed, series[:3]),
        "trapezoid": (torch.trapezoid, series),
        "linalg_norm": (torch.linalg.norm, mat),
        "linalg_cross": (torch.linalg.cross, torch.ones(3, device=device), mat[0]),
        "block_diag": (torch.block_diag, mat, torch.eye(2, device=device)),
        "fft": (lambda x: torch.view_as_real(torch.fft.fft(x)), series),
        "layer_norm_weight": (lambda x, w: F.layer_norm(x, (3,), w), torch.tensor(mat, device=device), mat[0]),
        "cov_fweights": (lambda x, w: torch.cov(x, fweights=w), torch.tensor(mat, device=device),
                         np.array([1, 2, 1])),
        "meshgrid": (lambda a, b: torch.meshgrid(a, b, indexing="ij"), series[:2], series[2:5]),
        "cartesian_prod": (torch.cartesian_prod, series[:2], series[2:4]),
        "column_stack": (lambda xs: torch.column_stack(xs), [series[:3], series[3:]]),
        "pad_sequence": (lambda xs: torch.nn.utils.rnn.pad_sequence(xs, batch_first=True), [series[:2], series[2:5]]),
        "einsum": (lambda a, b: torch.einsum("ij,kj->ik", a, b), torch.tensor(mat, device=device), pts),
        "nll_loss_input": (torch.nn.functional.nll_loss, np.log(np.full((4, 3), 1 / 3, dtype=np.float32)),
                           torch.tensor(labels, device=device)),
        "cross": (lambda a, b: torch.cross(a, b, dim=0), mat[1], torch.ones(3, device=device)),
    }
    for name, (fn, *args) in calls.items():
        results[name] = _with_fallback(torch, device, log, name, fn, *args)
    return {"log": log, "results": results}


# ---- arrays inside the tensor lists of stack/cat -----------------------------------------------------------------------
def numpy_arrays_in_tensor_lists(torch, device):
    rng = np.random.default_rng(2710)
    chunks = [rng.standard_normal((2, 3)).astype(np.float32) for _ in range(3)]
    first = torch.tensor(chunks[0], device=device)
    log, results = [], {}
    calls = {
        "stack": (lambda xs: torch.stack(xs), [first, chunks[1]]),
        "cat": (lambda xs: torch.cat(xs), chunks),
        "hstack": (lambda xs: torch.hstack(xs), [first] + chunks[1:]),
        "vstack": (lambda xs: torch.vstack(xs), chunks),
        "scalar": (lambda xs: torch.stack(xs), [torch.tensor(1.0, device=device), np.float64(2.0)]),
    }
    for name, (fn, *args) in calls.items():
        results[name] = _with_fallback(torch, device, log, name, fn, *args)
    return {"log": log, "results": results}


# ---- arrays handed to functions bound from C++ ----------------------------------------------------------------------------
def numpy_arrays_to_bound_functions(torch, device):
    F = torch.nn.functional
    rng = np.random.default_rng(2720)
    scores = rng.standard_normal((4, 3)).astype(np.float32)
    x = torch.tensor(scores, device=device)
    order = np.argsort(scores[:, 0])
    log, results = [], {}
    calls = {
        "index_select": (lambda t, i: t.index_select(0, i), x, order),
        "gather": (lambda t, i: t.gather(1, i), x, np.zeros((4, 1), dtype=np.int64)),
        "bincount": (torch.bincount, np.array([0, 2, 2, 1])),
        "sort": (lambda a: torch.sort(a, dim=0).values, scores),
        "isclose": (torch.isclose, x, scores),
        "cumsum": (lambda a: torch.cumsum(a, 0), scores),
        "relu": (F.relu, scores),
        "masked_fill": (lambda t, m: t.masked_fill(m, 0.0), x, scores > 0),
    }
    for name, (fn, *args) in calls.items():
        results[name] = _with_fallback(torch, device, log, name, fn, *args)
    return {"log": log, "results": results}


# numpy_arrays_to_bound_functions was a strict xfail until session 43: a NumPy array for a Tensor parameter of a
# C++-bound function now gets PyTorch's parser message (python/tandem/_parser_errors.py), not nanobind's.
PROGRAMS = [numpy_arrays_as_tensor_arguments, numpy_arrays_in_tensor_lists, numpy_arrays_to_bound_functions]
