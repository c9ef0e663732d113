"""What the transfer guard and the transfer profiler cost per crossing.

Times ``x.item()`` of a 0-d cuda tensor (one device->host crossing each) with everything at the default, with
a guard set on another direction (the check runs but does not apply), and inside a transfer profiler; the
difference is the cost per recorded event. Usage (no GPU needed):
    TANDEM_EMULATE_CUDA=1 PYTHONPATH=python python bench/boundary_overhead.py
"""
import os
import time
import timeit

os.environ.setdefault("TANDEM_EMULATE_CUDA", "1")
import tandem  # noqa: E402

N, REPEATS = 20000, 7


def per_call(fn):
    return min(timeit.repeat(fn, number=N, repeat=REPEATS)) / N


def main():
    x = tandem.tensor(1.0, device="cuda:0")
    item = x.item
    default = per_call(item)
    with tandem.transfer_guard("disallow", "host_to_device"):
        guarded = per_call(item)
    prof = tandem.profiler.transfers()
    with prof:
        profiled = per_call(item)
        t0 = time.perf_counter()
    events = prof.events
    export = (time.perf_counter() - t0) / len(events)  # closing the profiler and building TransferEvents
    assert len(events) == N * REPEATS
    print(f"x.item() on {x.device}: default {default * 1e6:.2f} us, guard on another direction "
          f"{guarded * 1e6:.2f} us, profiler on {profiled * 1e6:.2f} us "
          f"-> {(profiled - default) * 1e6:.2f} us per recorded event, plus {export * 1e6:.2f} us per event to "
          f"export them when the profiler closes")


if __name__ == "__main__":
    main()
