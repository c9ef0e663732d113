"""torch.compiler.set_stance: how torch.compile'd code should run from here on ("default", "force_eager",
"eager_on_recompile", "fail_on_recompile", "eager_then_compile", "aot_eager_then_compile"). Usable as a call, a
context manager or a decorator, as PyTorch's. tandem's compile always runs the eager code and never recompiles,
so every stance runs the same way; the stance is kept (`current_stance()`) for code that reads it."""
import functools


class _Stance:
    def __init__(self, stance="default", skip_guard_eval_unsafe=False, backend=None):
        self.stance, self.skip_guard_eval_unsafe, self.backend = stance, skip_guard_eval_unsafe, backend

    def __repr__(self):
        return (f"DynamoStance(stance='{self.stance}', skip_guard_eval_unsafe={self.skip_guard_eval_unsafe}, "
                f"backend={self.backend})")


_current = _Stance()


def current_stance():
    return _current


class set_stance:
    """set_stance(stance="default", *, skip_guard_eval_unsafe=False, force_backend=None): sets the stance at
    once; as a context manager or decorator it restores the one before on the way out."""

    def __init__(self, stance="default", *, skip_guard_eval_unsafe=False, force_backend=None):
        global _current
        if force_backend is not None and stance != "default":
            raise RuntimeError("non-default stance cannot have force_backend set")
        self._previous = _current
        self._stance = _Stance(stance, skip_guard_eval_unsafe, force_backend)
        _current = self._stance

    def __enter__(self):
        global _current
        _current = self._stance
        return self

    def __exit__(self, *exc):
        global _current
        _current = self._previous

    def __call__(self, fn):
        global _current
        _current = self._previous  # as a decorator the stance holds only while `fn` runs
        stance = self._stance

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            global _current
            before, _current = _current, stance
            try:
                return fn(*args, **kwargs)
            finally:
                _current = before

        return wrapper
