"""Timer: runs a Python statement (after its setup) many times and reports a Measurement, as
torch.utils.benchmark.Timer."""
import enum
import textwrap
import timeit

import tandem

from . import common

__all__ = ["Timer", "timer", "Language"]


def timer():
    """The default clock: with CUDA devices (real or emulated) it first waits for the current device's queued
    work, so a timed statement that launches kernels is charged for them (as PyTorch's timer does)."""
    if tandem.cuda.is_available():
        tandem.cuda.synchronize()
    return timeit.default_timer()


class Language(enum.Enum):
    PYTHON = 0
    CPP = 1


def _clean(code):
    code = textwrap.dedent(code)
    return (code[1:] if code.startswith("\n") else code).rstrip()


class Timer:
    """Timer(stmt, setup, global_setup, timer, globals, label, sub_label, description, env, num_threads,
    language): `stmt` runs in a namespace holding `globals` (and `torch`, bound to tandem, as in PyTorch, so
    copied benchmark code runs unchanged) with `num_threads` intra-op threads."""

    _timer_cls = timeit.Timer

    def __init__(self, stmt="pass", setup="pass", global_setup="", timer=timer, globals=None, label=None,
                 sub_label=None, description=None, env=None, num_threads=1, language=Language.PYTHON):
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        if language in (Language.CPP, "cpp", "c++"):
            raise NotImplementedError("tandem.utils.benchmark.Timer times Python statements only (PyTorch's C++ "
                                      "timer compiles against libtorch)\nhint: time the statement through "
                                      "tandem's Python API, or use bench/ (Google Benchmark) for C++")
        if language not in (Language.PYTHON, "py", "python"):
            raise ValueError(f"Invalid language `{language}`.")
        if global_setup:
            raise ValueError(f"global_setup is C++ only, got `{global_setup}`. Most likely this code can simply "
                             "be moved to `setup`.")
        self._globals = dict(globals or {})
        self._globals.setdefault("torch", tandem)
        self._language = Language.PYTHON
        stmt, setup = _clean(stmt), _clean(setup)
        self._timer = self._timer_cls(stmt=stmt, setup=setup, timer=timer, globals=self._globals)
        self._task_spec = common.TaskSpec(stmt=stmt, setup=setup, global_setup=global_setup, label=label,
                                          sub_label=sub_label, description=description, env=env,
                                          num_threads=num_threads)

    def _timeit(self, number):
        # A zero time would break the statistics (and the block-size estimate divides by it).
        return max(self._timer.timeit(number), 1e-9)

    def timeit(self, number=1000000):
        """One block of `number` runs, after a warm-up of number // 100 (at least 2) runs."""
        with common.set_torch_threads(self._task_spec.num_threads):
            self._timeit(number=max(int(number // 100), 2))
            return common.Measurement(number_per_run=number, raw_times=[self._timeit(number=number)],
                                      task_spec=self._task_spec)

    def repeat(self, repeat=-1, number=-1):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def autorange(self, callback=None):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def collect_callgrind(self, *args, **kwargs):
        raise NotImplementedError("tandem.utils.benchmark does not collect Callgrind instruction counts\nhint: "
                                  "run the script under `valgrind --tool=callgrind` directly")

    def _estimate_block_size(self, min_run_time):
        """The smallest power of ten of runs per block whose time dwarfs the timer's own overhead."""
        with common.set_torch_threads(self._task_spec.num_threads):
            overheads = sorted(self._timeit(0) for _ in range(5))
            overhead = overheads[2]
            number = 1
            while True:
                taken = self._timeit(number)
                if (overhead / taken <= 1e-4 and taken >= min_run_time / 1000) or taken > min_run_time:
                    break
                if number * 10 > 2147483647:
                    break
                number *= 10
        return number

    def _measure_blocks(self, number, stop, min_run_time, max_run_time=None, callback=None):
        """Times blocks of `number` runs until at least min_run_time was spent and stop(times) agrees (or
        max_run_time is exceeded)."""
        total, times, can_stop = 0.0, [], False
        with common.set_torch_threads(self._task_spec.num_threads):
            while total < min_run_time or not can_stop:
                spent = self._timeit(number)
                times.append(spent)
                total += spent
                if callback:
                    callback(number, spent)
                can_stop = stop(times)
                if max_run_time and total > max_run_time:
                    break
        return times

    def blocked_autorange(self, callback=None, min_run_time=0.2):
        """Blocks of a size chosen so that the timer's overhead is negligible, for at least min_run_time."""
        number = self._estimate_block_size(min_run_time)
        times = self._measure_blocks(number, lambda times: True, min_run_time, callback=callback)
        return common.Measurement(number_per_run=number, raw_times=times, task_spec=self._task_spec)

    def adaptive_autorange(self, threshold=0.1, *, min_run_time=0.01, max_run_time=10.0, callback=None):
        """Blocks until the interquartile range is below `threshold` of the median (after more than 3 blocks and
        at least min_run_time), or max_run_time was spent."""
        number = self._estimate_block_size(min_run_time=0.05)

        def confident(times):
            return len(times) > 3 and common.Measurement(number, times, self._task_spec).meets_confidence(threshold)

        times = self._measure_blocks(number, confident, min_run_time, max_run_time, callback=callback)
        return common.Measurement(number_per_run=number, raw_times=times, task_spec=self._task_spec)
