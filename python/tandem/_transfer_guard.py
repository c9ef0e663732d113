"""tandem.transfer_guard and tandem.cuda.set_sync_debug_mode: per-thread rules for crossings of the host/device
boundary.

The check runs in C++ on every crossing (src/backend/crossing.h, called from the copy and sync functions of
src/backend/transfer.h); this module turns settings into per-thread levels and the C++ reports into log lines,
warnings and TransferGuardError.
"""
import logging
import os
import warnings

from . import _C
from ._errors import TransferGuardError

# Index = the C++ GuardLevel; level 5 (Warn) is only reachable through set_sync_debug_mode.
LEVELS = ("allow", "log", "disallow", "log_explicit", "disallow_explicit")
_WARN = 5
# Index = the C++ CrossingKind.
DIRECTIONS = ("host_to_device", "device_to_host", "device_to_device", "sync")
_HOST_TO_DEVICE, _DEVICE_TO_HOST, _DEVICE_TO_DEVICE, _SYNC = range(4)

logger = logging.getLogger("tandem.transfer_guard")


def _kinds(direction):
    if direction == "all":
        return range(len(DIRECTIONS))
    if direction not in DIRECTIONS:
        raise ValueError(f"transfer_guard: unknown direction {direction!r}\n"
                         f"hint: use one of {', '.join(map(repr, DIRECTIONS + ('all',)))}")
    return (DIRECTIONS.index(direction),)


class transfer_guard:
    """Sets how the calling thread treats crossings of the host/device boundary.

    ``level``: "allow" (the default), "log" (one log line per implicit crossing), "disallow" (implicit crossings
    raise TransferGuardError), "log_explicit"/"disallow_explicit" (the same for explicit crossings too).
    ``direction``: "host_to_device", "device_to_host", "device_to_device", "sync" or "all".

    Explicit crossings are the ones asked for by name: ``.cpu()``, ``.to()``, ``.cuda()``, ``.item()``,
    ``.tolist()``, ``.numpy(force=True)``, ``copy_`` between devices, ``tandem.tensor(..., device=)``,
    ``tandem.cuda.synchronize()``.
    Everything else is implicit: printing a device tensor, ``bool(t)``/``float(t)``/``int(t)``, values an op reads
    or moves on its own, ``tandem.tensor([cuda_scalar, ...])``.

    Like ``torch.set_grad_enabled`` it works both ways: calling it sets the level for the thread until changed;
    used in a ``with`` block it restores the thread's previous levels on exit, so nested blocks re-allow or
    tighten locally. Settings never leak into other threads (new threads start at "allow").
    """

    def __init__(self, level, direction="all"):
        if level not in LEVELS:
            raise ValueError(f"transfer_guard: unknown level {level!r}\n"
                             f"hint: use one of {', '.join(map(repr, LEVELS))}")
        kinds = _kinds(direction)
        self._previous = _C._transfer_guard_levels()
        for kind in kinds:
            _C._set_transfer_guard_level(kind, LEVELS.index(level))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        for kind, level in enumerate(self._previous):
            _C._set_transfer_guard_level(kind, level)
        return False


def get_transfer_guard(direction):
    """The calling thread's level for one direction ("warn" when set by set_sync_debug_mode("warn"))."""
    if direction == "all":
        raise ValueError("get_transfer_guard: name one direction\n"
                         f"hint: use one of {', '.join(map(repr, DIRECTIONS))}")
    level = _C._transfer_guard_levels()[_kinds(direction)[0]]
    return "warn" if level == _WARN else LEVELS[level]


_SYNC_MODES = {"default": 0, "warn": _WARN, "error": LEVELS.index("disallow_explicit")}


def set_sync_debug_mode(debug_mode):
    """PyTorch's sync debug mode on tandem's transfer guard, for the calling thread.

    "default"/0 allows, "warn"/1 warns (UserWarning at your line) and "error"/2 raises TransferGuardError on
    every device sync and device->host copy, explicit ones (``.item()``, ``.cpu()``, ``synchronize()``)
    included, as PyTorch does. Unlike PyTorch it is per thread. To flag only the implicit ones (printing,
    ``bool(t)``, values read inside ops), use ``transfer_guard("disallow", "device_to_host")``.
    """
    if isinstance(debug_mode, str):
        if debug_mode not in _SYNC_MODES:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, `warn`, `error`")
        level = _SYNC_MODES[debug_mode]
    elif debug_mode in (0, 1, 2):
        level = list(_SYNC_MODES.values())[debug_mode]
    else:
        raise RuntimeError("invalid value of debug_mode, expected one of 0, 1, 2")
    for kind in (_DEVICE_TO_HOST, _SYNC):
        _C._set_transfer_guard_level(kind, level)


def get_sync_debug_mode():
    """0 (default), 1 (warn) or 2 (error), as in PyTorch: read from the thread's guard on device syncs."""
    level = _C._transfer_guard_levels()[_SYNC]
    return {_WARN: 1, LEVELS.index("disallow_explicit"): 2}.get(level, 0)


def _describe(kind, explicit, op, shape, dtype, source, target, nbytes, filename, lineno):
    what = f"{'explicit' if explicit else 'implicit'} "
    if kind == _SYNC:
        what += f"sync of {source}"
    else:
        what += f"{DIRECTIONS[kind]} transfer ({source} -> {target}, {nbytes} bytes)"
    if op:
        what += f" by {op}"
    if shape is not None:
        what += f" of a tensor of shape {tuple(shape)}, dtype {dtype}, device {source}"
    return what + f" at {filename}:{lineno}"


def _report(level, kind, explicit, op, shape, dtype, source, target, nbytes, filename, lineno):
    """Called from C++ (backend/crossing.h) for a crossing the thread's level logs, warns about or refuses."""
    text = _describe(kind, explicit, op, shape, dtype, source, target, nbytes, filename, lineno)
    if level in (LEVELS.index("log"), LEVELS.index("log_explicit")):
        logger.warning("tandem.transfer_guard: %s", text)
        return
    if level == _WARN:
        warnings.warn_explicit(f"tandem sync debug mode: {text}", UserWarning, filename or "<unknown>", lineno)
        return
    direction = DIRECTIONS[kind]
    allow = f'`with tandem.transfer_guard("allow", "{direction}"):`'
    if explicit:
        hint = (f"level {LEVELS[level]!r} refuses explicit crossings too; allow this one with {allow} around the "
                f"line, or use level 'disallow', which refuses only implicit crossings")
    else:
        hint = (f"move the data where you mean to with an explicit call (.item(), .cpu(), .to(device)), "
                f"or allow this crossing with {allow} around the line")
    raise TransferGuardError(
        f"tandem.transfer_guard: {text} is disallowed (level {LEVELS[level]!r})\nhint: {hint}",
        direction=direction, explicit=bool(explicit), op=op, shape=None if shape is None else tuple(shape),
        dtype=dtype, source=source, target=target, nbytes=nbytes, level=LEVELS[level], filename=filename,
        lineno=lineno, hint=hint)


def _crossing(op):
    """``with _crossing("print"):`` names the crossings tandem's Python code makes on the user's behalf
    (they stay implicit even when done through .tolist()/.item())."""
    return _C._CrossingScope(op, False)


# The package's directory as its modules' code objects spell it (the sys.path entry it was imported through),
# so the C++ frame walker can tell tandem's frames from the user's with a prefix check.
_C._set_boundary_hooks(_report, os.path.dirname(__file__) + os.sep)
