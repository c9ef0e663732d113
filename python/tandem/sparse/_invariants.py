"""tandem.sparse.check_sparse_tensor_invariants: the process-wide default of the sparse constructors'
check_invariants argument, as PyTorch's (a context manager, a decorator, and enable/disable/is_enabled).

tandem always checks what would read the wrong element (COO indices against the size, CSR crow/col bounds); the
flag adds what PyTorch's adds on top, the CSR rows' sorted and distinct columns. A constructor called without
check_invariants while the flag was never set warns once a process, with PyTorch's text, as PyTorch does."""
import os
import sys
import warnings

_state = {"enabled": None}  # None: never set, so checks are implicitly off
_warned = []
_TANDEM_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def resolve(check_invariants):
    """The check_invariants a constructor runs with: its argument, else the process-wide flag."""
    if check_invariants is not None:
        return bool(check_invariants)
    if _state["enabled"] is None and not _warned:
        _warned.append(True)
        frame, level = sys._getframe(0), 1
        while frame is not None and frame.f_code.co_filename.startswith(_TANDEM_DIR):  # the user's line
            frame, level = frame.f_back, level + 1
        warnings.warn("Sparse invariant checks are implicitly disabled. Memory errors (e.g. SEGFAULT) will occur "
                      "when operating on a sparse tensor which violates the invariants, but checks incur "
                      "performance overhead. To silence this warning, explicitly opt in or out. See "
                      "`tandem.sparse.check_sparse_tensor_invariants.__doc__` for guidance. ",
                      UserWarning, stacklevel=level)
    return bool(_state["enabled"])


class check_sparse_tensor_invariants:  # noqa: N801 - PyTorch's name
    """Controls the default of the sparse constructors' ``check_invariants``:

    - ``with tandem.sparse.check_sparse_tensor_invariants(): ...`` (or ``(False)`` to turn checks off inside),
    - ``@tandem.sparse.check_sparse_tensor_invariants()`` on a function,
    - ``check_sparse_tensor_invariants.enable()`` / ``.disable()`` / ``.is_enabled()`` for the whole process,
    - ``check_invariants=`` of one constructor call, which wins over the flag.

    Setting it either way (or entering the context manager) also silences the once-a-process warning a
    constructor gives while the flag was never set."""

    @staticmethod
    def is_enabled():
        """True when sparse constructors check the invariants by default."""
        return bool(_state["enabled"])

    @staticmethod
    def enable():
        """Check the invariants in every sparse constructor not given check_invariants."""
        _state["enabled"] = True

    @staticmethod
    def disable():
        """Do not check the optional invariants by default (tandem still checks index bounds)."""
        _state["enabled"] = False

    def __init__(self, enable=True):
        self.state = enable
        self.saved_state = None

    def __enter__(self):
        if self.saved_state is not None:
            raise RuntimeError("This context manager instance is already activated. Use a different context "
                               "manager instance for context nesting.")
        self.saved_state = self.is_enabled()
        _state["enabled"] = bool(self.state)

    def __exit__(self, exc_type, exc_value, traceback):
        _state["enabled"] = self.saved_state
        self.saved_state = None

    def __call__(self, function):
        def checked(*args, **kwargs):
            with type(self)(self.state):
                return function(*args, **kwargs)
        return checked
