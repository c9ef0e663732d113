"""What the op-level profiler costs per op: off (the one flag load every op pays) and recording.

Times ``a + b`` of one-element float tensors with no profiler and inside ``tandem.profiler.profile()``.
With ``--loop N`` it only runs N additions with no profiler (for callgrind's instruction count per op:
    valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.out python bench/profiler_overhead.py --loop 100000
minus the same run with --loop 0, divided by 100000). Usage: PYTHONPATH=python python bench/profiler_overhead.py
"""
import sys
import timeit

import tandem

N, REPEATS = 20000, 7


def loop(n):
    a, b = tandem.ones(1), tandem.ones(1)
    for _ in range(n):
        a + b


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--loop":
        loop(int(sys.argv[2]))
        return
    a, b = tandem.ones(1), tandem.ones(1)
    add = a.__add__
    off = min(timeit.repeat(lambda: add(b), number=N, repeat=REPEATS)) / N
    with tandem.profiler.profile() as prof:
        on = min(timeit.repeat(lambda: add(b), number=N, repeat=REPEATS)) / N
    events = len(prof.events())
    print(f"a + b, one element: {off * 1e9:.0f} ns without a profiler, {on * 1e9:.0f} ns recording "
          f"({(on - off) * 1e9:.0f} ns per recorded op; {events} events)")


if __name__ == "__main__":
    main()
