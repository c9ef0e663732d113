"""What the direct operator slots (python/src/operator_slots.cpp) save: `t[0]`, `t[0, 1]`, `t[:, 1]`, `a + b`,
`a * 2.0` and `a += b` (as operator.iadd) on small tensors, timed in one process with the slots installed and with CPython's generic
dispatchers put back (re-assigning the methods on the class does that), NumPy's time beside them. Rounds
alternate so that both see the same machine; each figure is the best of many short repeats (ns per operation).

    PYTHONPATH=python .venv/bin/python bench/operator_slots_bench.py
"""
import operator
import timeit

import numpy as np

import tandem

CASES = [("t[0]", "a[0]"), ("t[0, 1]", "a[0, 1]"), ("t[:, 1]", "a[:, 1]"), ("x + y", "n + m"), ("x * 2.0", "n * 2.0"),
         ("iadd(x, y)", "iadd(n, m)")]  # x += y, which timeit would make a local
METHODS = ["__getitem__", "__setitem__", "__add__", "__mul__", "__iadd__"]


def best_ns(stmt, env, number=20000, repeat=40):
    return min(timeit.repeat(stmt, globals=env, number=number, repeat=repeat)) / number * 1e9


def main():
    data = np.random.default_rng(0).random((64, 64), dtype=np.float32)
    env = {"t": tandem.tensor(data), "x": tandem.tensor([1.0]), "y": tandem.tensor([2.0]), "a": data,
           "n": np.array([1.0]), "m": np.array([2.0]), "iadd": operator.iadd}
    methods = {name: vars(tandem.Tensor)[name] for name in METHODS}
    times = {}
    for _ in range(3):
        for mode in ("slots", "generic"):
            if mode == "generic":
                for name, method in methods.items():
                    setattr(tandem.Tensor, name, method)  # CPython puts its generic dispatchers back
            else:
                tandem._C._install_operator_slots()
            assert tandem._C._operator_slots_installed() == (mode == "slots")
            for stmt, _ in CASES:
                times.setdefault((stmt, mode), []).append(best_ns(stmt, env))
    tandem._C._install_operator_slots()
    print(f"{'case':10s} {'slots':>8s} {'generic':>8s} {'numpy':>8s}  (ns)  generic/slots  numpy/slots")
    for stmt, numpy_stmt in CASES:
        slots, generic = min(times[(stmt, "slots")]), min(times[(stmt, "generic")])
        numpy_ns = best_ns(numpy_stmt, env)
        print(f"{stmt:10s} {slots:8.0f} {generic:8.0f} {numpy_ns:8.0f}        x{generic / slots:.2f}        "
              f"x{numpy_ns / slots:.2f}")


if __name__ == "__main__":
    main()
