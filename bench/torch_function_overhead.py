"""What the __torch_function__ check costs per call (python/src/torch_function.cpp), side by side with PyTorch.

Each call on small tensors is timed three ways in one process: tandem as shipped (the wrappers that look for
__torch_function__ first), tandem with its wrappers taken out for the measurement (Tensor's methods and the
functions put back as the raw nanobind/Python callables), and PyTorch. A Tensor subclass's call (which goes
through Tensor.__torch_function__ in both libraries) is timed too.

Usage: PYTHONPATH=python python bench/torch_function_overhead.py
"""
import contextlib
import os
import sys
import timeit

import torch

import tandem

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from machine import describe  # noqa: E402


def best_ns(fn, number=100000, repeats=7):
    return min(timeit.repeat(fn, number=number, repeat=repeats)) / number * 1e9


@contextlib.contextmanager
def raw_implementations():
    """Tensor's methods and tandem's functions as they were before the wrappers, for the duration."""
    tensor, saved_methods, saved_functions = tandem.Tensor, {}, {}
    for name, method in list(vars(tensor).items()):
        if type(method).__name__ == "tensor_method":
            saved_methods[name] = method
            setattr(tensor, name, method.__wrapped__)
    for name, fn in list(vars(tandem).items()):
        if type(fn).__name__ == "builtin_function":
            saved_functions[name] = fn
            setattr(tandem, name, fn.__wrapped__)
    try:
        yield
    finally:
        for name, method in saved_methods.items():
            setattr(tensor, name, method)
        for name, fn in saved_functions.items():
            setattr(tandem, name, fn)


def cases(lib):
    x, y = lib.ones(4), lib.ones(4)

    class Sub(lib.Tensor):
        pass

    s = x.as_subclass(Sub)
    return {
        "x.add(y)": lambda: x.add(y),
        "x + y": lambda: x + y,
        "lib.add(x, y)": lambda: lib.add(x, y),
        "lib.mul(x, 2)": lambda: lib.mul(x, 2),
        "x[0]": lambda: x[0],
        "x.sum()": lambda: x.sum(),
        "lib.cat([x, y])": lambda: lib.cat([x, y]),
        "x.view(2, 2)": lambda: x.view(2, 2),
        "subclass + 1": lambda: s + 1,
    }


def main():
    info = describe()
    print(f"# {info['cpu']} ({info['cores']} cores), flags: {' '.join(info['cpu_flags'])}; torch {info['torch']}, "
          "one thread")
    torch.set_num_threads(1)
    tandem.set_num_threads(1)
    shipped = {name: best_ns(fn) for name, fn in cases(tandem).items()}
    with raw_implementations():
        raw = {name: best_ns(fn) for name, fn in cases(tandem).items() if name != "subclass + 1"}
    reference = {name: best_ns(fn) for name, fn in cases(torch).items()}
    print(f"{'call':18s} {'tandem':>9s} {'no check':>9s} {'check':>7s} {'torch':>9s} {'torch/tandem':>13s}")
    for name in shipped:
        without = raw.get(name)
        cost = f"{shipped[name] - without:6.1f}" if without is not None else "     -"
        print(f"{name:18s} {shipped[name]:7.1f}ns {without or float('nan'):7.1f}ns {cost}ns "
              f"{reference[name]:7.1f}ns {reference[name] / shipped[name]:12.2f}x")


if __name__ == "__main__":
    main()
