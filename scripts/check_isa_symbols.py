#!/usr/bin/env python3
"""Checks that a linked binary runs on any x86-64 CPU until it dispatches: every function whose code uses
instructions beyond the baseline ISA (VEX/EVEX vector instructions, BMI, LZCNT, POPCNT, AVX-512 mask ops)
must belong to a CPU capability's kernels, namespace tandem::cpu::avx2 or tandem::cpu::avx512
(src/kernels/cpu/isa_region.h). A shared inline function compiled inside a capability's region would be
such a function outside those namespaces, and the linker could pick its copy for baseline callers.

Give it objects or static libraries (build/libtandem_core.a): their symbol tables name every function, local
ones included, where a stripped shared library (the Python extension) would attribute code to the wrong name.

TZCNT is not counted: its encoding is BSF's with a REP prefix, which GCC emits for the baseline too where the
input is known to be non-zero (older CPUs run it as BSF, with the same result).

Usage: check_isa_symbols.py FILE...   Exit status 1 (with the offending functions) when one is found.
"""
import re
import subprocess
import sys

CAPABILITY_NAMESPACES = ("tandem::cpu::avx2::", "tandem::cpu::avx512::")
# Mnemonics that x86-64's baseline (SSE2) lacks: VEX/EVEX-encoded ones start with v; the rest are BMI1/2,
# LZCNT, POPCNT and AVX-512 mask-register instructions.
BEYOND_BASELINE = re.compile(
    r"^(v[a-z0-9]+|andn|bextr|blsi|blsmsk|blsr|bzhi|mulx|pdep|pext|rorx|sarx|shlx|shrx|lzcnt|popcnt|"
    r"k(mov|and|or|xor|not|test|ortest|shift|add|unpck)[a-z]*)$")


def offending_functions(path):
    out = subprocess.run(["objdump", "-d", "-C", "--no-show-raw-insn", path], capture_output=True, text=True,
                         check=True).stdout
    bad, name = {}, None
    for line in out.splitlines():
        m = re.match(r"^[0-9a-f]+ <(.*)>:$", line)
        if m:
            name = m.group(1)
            continue
        parts = line.split("\t")
        if name is None or len(parts) < 2:
            continue
        mnemonic = parts[1].split()[0] if parts[1].split() else ""
        if mnemonic in ("rep", "lock", "notrack", "bnd", "data16") and len(parts[1].split()) > 1:
            mnemonic = parts[1].split()[1]
        if BEYOND_BASELINE.match(mnemonic):
            if any(ns in name for ns in CAPABILITY_NAMESPACES):
                continue
            bad.setdefault(name, mnemonic)
    return bad


def main(paths):
    failed = False
    for path in paths:
        bad = offending_functions(path)
        for name, mnemonic in sorted(bad.items()):
            print(f"{path}: {name} uses {mnemonic} outside a CPU capability's namespace")
        failed |= bool(bad)
        print(f"{path}: {'FAILED' if bad else 'ok'} ({len(bad)} functions beyond the baseline ISA outside "
              "tandem::cpu::<capability>)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
