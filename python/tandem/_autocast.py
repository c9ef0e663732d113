"""The check and the call that the Python compositions among PyTorch's autocast-listed ops (linear,
layer_norm, the losses, attention) make on entry: ``if active(): return run(rule, fn, *args)`` calls fn
again with its tensor arguments cast by the rule and autocast suspended inside; the rules live in C++
(src/ops/autocast.h)."""
from ._C import _autocast_active as active, _autocast_run as run  # noqa: F401
