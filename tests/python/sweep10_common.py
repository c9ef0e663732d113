"""Helpers shared by the sweep 10 programs (tests/python/sweep10_*.py)."""


def builtin_class(exc):
    """The builtin exception class users catch (tandem raises subclasses of it)."""
    return next(c for c in type(exc).__mro__ if c.__module__ == "builtins").__name__


def error_of(call):
    """[builtin class, first line of the message] of what call() raises, or None. A CUDA tensor's type is named
    torch.cuda.FloatTensor; the reference run is on the CPU, so that part of a message is read without it."""
    try:
        call()
    except Exception as exc:
        return [builtin_class(exc), str(exc).split("\n")[0].replace(".cuda.", ".")]
    return None


def dtype_name(t):
    return str(t.dtype)
