"""tandem.utils.benchmark, as torch.utils.benchmark: Timer (timeit, blocked_autorange, adaptive_autorange),
Measurement (median, mean, iqr, times, PyTorch's repr) and Compare (a table of measurements grouped by label,
rows by sub_label/stmt and num_threads, columns by description). Timing a statement that runs on a CUDA device
waits for the device before each clock reading (see timer.timer). Fuzzer, FuzzedParameter, FuzzedTensor and
ParameterAlias draw benchmark shapes and layouts (fuzzer.py). PyTorch's C++ timers and Callgrind collection are not
provided."""
from .common import Measurement, TaskSpec, ordered_unique, select_unit, set_torch_threads, trim_sigfig, \
    unit_to_english  # noqa: F401
from .compare import Colorize, Compare  # noqa: F401
from .fuzzer import FuzzedParameter, FuzzedTensor, Fuzzer, ParameterAlias  # noqa: F401
from .timer import Language, Timer, timer  # noqa: F401

__all__ = ["Timer", "timer", "Language", "Measurement", "TaskSpec", "Compare", "Colorize", "Fuzzer",
           "FuzzedParameter", "FuzzedTensor", "ParameterAlias", "select_unit",
           "unit_to_english", "trim_sigfig", "ordered_unique", "set_torch_threads"]
