#!/usr/bin/env python3
"""Fails when a source file includes a layer above its own (docs/core.md, "Layers").

Layers, top to bottom: bindings (python/src) -> distributed -> ops -> autograd -> kernels -> backend -> core. A file may
include its own layer and any layer below. Two rules on top of the order:
  - autograd may include ops' headers: gradient formulas and the engine are written with public ops (the one
    upward call; ops record autograd nodes, formulas use ops).
  - a concrete backend (backend/cpu, backend/cuda, backend/emulated) is private to itself, to the kernels of
    the same device (kernels/cuda, kernels/emulated) and to kernels/startup.cpp, which wires backends and
    kernel tables together. Everything else goes through backend/*.h interfaces.
Run with --counts to print the include counts between layers.
"""
import pathlib
import re
import sys
from collections import Counter

ROOT = pathlib.Path(__file__).resolve().parent.parent
ORDER = ["core", "backend", "kernels", "autograd", "ops", "distributed", "bindings"]
CONCRETE_BACKENDS = ("cpu", "cuda", "emulated")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def layer_of(path: str):
    if path.startswith("python/src/"):
        return "bindings"
    parts = path.split("/")
    if len(parts) > 2 and parts[0] == "src" and parts[1] in ORDER:
        return parts[1]
    return None


def resolve(including: pathlib.Path, target: str):
    """The repository path an include names (project includes are relative to src/ or to the file)."""
    for base in (ROOT / "src", including.parent):
        candidate = (base / target).resolve()
        if candidate.is_file():
            return candidate.relative_to(ROOT).as_posix()
    return None


def violation(src: str, dst: str):
    a, b = layer_of(src), layer_of(dst)
    if a is None or b is None or a == b and not dst.startswith("src/backend/"):
        return None
    if ORDER.index(b) > ORDER.index(a) and not (a == "autograd" and b == "ops"):
        return f"{a} includes {b}, a layer above it"
    d = dst.split("/")
    if b == "backend" and len(d) > 3 and d[2] in CONCRETE_BACKENDS:
        s = src.split("/")
        same_backend = a == "backend" and len(s) > 3 and s[2] == d[2]
        same_device_kernels = a == "kernels" and len(s) > 3 and s[2] == d[2]
        if not (same_backend or same_device_kernels or src == "src/kernels/startup.cpp"):
            return f"includes the concrete backend {'/'.join(d[:3])}; use the backend/*.h interfaces"
    return None


def main() -> int:
    files = sorted(p for p in [*ROOT.glob("src/**/*"), *ROOT.glob("python/src/*")] if p.is_file())
    problems, counts = [], Counter()
    for f in files:
        src = f.relative_to(ROOT).as_posix()
        for target in INCLUDE.findall(f.read_text(errors="replace")):
            dst = resolve(f, target)
            if dst is None:
                continue
            if layer_of(src) and layer_of(dst) and layer_of(src) != layer_of(dst):
                counts[(layer_of(src), layer_of(dst))] += 1
            why = violation(src, dst)
            if why:
                problems.append(f'{src}: #include "{target}": {why}')
    if "--counts" in sys.argv:
        for (a, b), n in sorted(counts.items(), key=lambda kv: (-ORDER.index(kv[0][0]), -ORDER.index(kv[0][1]))):
            print(f"{a:>9} -> {b:<9} {n}")
    for p in problems:
        print(p, file=sys.stderr)
    print(f"check_layers: {len(files)} files, {len(problems)} include(s) against the layer order")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
