"""torch._C._log_api_usage_once / _log_api_usage_metadata: PyTorch's usage-telemetry hooks, which libraries call
as they construct their objects (torchmetrics' Metric, torchvision's models). tandem logs nothing; it only
checks the arguments as PyTorch does, so a wrong call fails the same way."""


def _log_api_usage_once(*args):
    if len(args) != 1:
        raise TypeError(f"tandem._C._log_api_usage_once() takes exactly one argument ({len(args)} given)")
    if not isinstance(args[0], str):
        raise TypeError("bad argument type for built-in operation")


def _log_api_usage_metadata(*args):
    ok = (len(args) == 2 and isinstance(args[0], str) and hasattr(args[1], "items")
          and all(isinstance(k, str) and isinstance(v, str) for k, v in args[1].items()))
    if not ok:
        shown = ", ".join(repr(a) for a in args)
        raise TypeError("_log_api_usage_metadata(): incompatible function arguments. The following argument types "
                        "are supported:\n    1. (arg0: str, arg1: collections.abc.Mapping[str, str]) -> None\n\n"
                        f"Invoked with: {shown}")


def install(c_module):
    """Adds both to tandem._C, where library code looks for them (torch._C._log_api_usage_once)."""
    c_module._log_api_usage_once = _log_api_usage_once
    c_module._log_api_usage_metadata = _log_api_usage_metadata
