"""The case tables of fuzz/hostile_diff.py, one module per area. Each case is `fn(lib, device)`, written once for
both libraries (lib is torch or tandem); the harness runs it with torch on the CPU and tandem on each device."""
import importlib
import pkgutil


class Case:
    """fn(lib, device) and how to compare its results: "close" (dtype tolerances), "exact", "shape" (random
    results: dtype and shape only) or "any-message" (an error's type only: the wording is our own)."""

    def __init__(self, fn, mode="close"):
        self.fn, self.mode = fn, mode


def T(L, values, d="cpu", dtype=None):
    """A tensor from a Python value, on device d, dtype by name."""
    return L.tensor(values, device=d, dtype=getattr(L, dtype) if dtype else None)


def R(L, shape, d="cpu", dtype="float64", scale=5.0):
    """Deterministic values in [-scale, scale] in the given shape (no RNG: both libraries see the same). sin of a
    quadratic, so rows and columns are independent (sin of an arithmetic sequence would make every matrix rank 2)."""
    n = 1
    for s in shape:
        n *= s
    k = L.arange(n, dtype=L.float64)
    x = (k * k * 0.37 + k * 1.3 + 0.5).sin().mul(scale).reshape(shape)
    return x.to(device=d, dtype=getattr(L, dtype))


def _modules():
    return [importlib.import_module(f"{__name__}.{info.name}") for info in pkgutil.iter_modules(__path__)]


def all_cases():
    cases = {}
    for module in _modules():
        for name, case in module.CASES.items():
            key = f"{module.__name__.rsplit('.', 1)[1]}/{name}"
            assert key not in cases, key
            cases[key] = case if isinstance(case, Case) else Case(case)
    return cases


def known_differences():
    """Cases where tandem differs from PyTorch on purpose, each with the reason (a module's KNOWN table): the
    harness reports them apart from the findings."""
    known = {}
    for module in _modules():
        for name, reason in getattr(module, "KNOWN", {}).items():
            known[f"{module.__name__.rsplit('.', 1)[1]}/{name}"] = reason
    return known
