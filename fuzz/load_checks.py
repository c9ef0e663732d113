"""What the Python fuzz targets accept from tandem.load: a result that survives save -> load unchanged, or a
clear refusal: a ValueError or RuntimeError whose message starts with "tandem.load:", PyTorch's
"PytorchStreamReader failed ..." RuntimeError for a damaged zip checkpoint, or an UnpicklingError from the
checkpoint's restricted unpickler. Any other exception is a finding."""
import io
import math
import pickle

import tandem
from tandem import _C


class Finding(AssertionError):
    """A broken contract; atheris reports it as a crash and saves the input."""


def load_or_refuse(data):
    """tandem.load(data), or None when it refused the bytes the way it should."""
    try:
        return tandem.load(io.BytesIO(data))
    except pickle.UnpicklingError:
        return None
    except (ValueError, RuntimeError) as e:
        if not str(e).startswith(("tandem.load:", "PytorchStreamReader failed")):
            raise Finding(f"{type(e).__name__} that is not one of tandem.load's refusals: {e}") from e
        return None


def same(a, b):
    """Equal trees: tensors by dtype, shape and bytes; NaN equals NaN; tuples and lists as saved."""
    if isinstance(a, _C.Tensor):
        return (isinstance(b, _C.Tensor) and a.dtype == b.dtype and tuple(a.shape) == tuple(b.shape)
                and _C._tensor_bytes(a) == _C._tensor_bytes(b))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    if isinstance(a, dict):
        return isinstance(b, dict) and list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def check_round_trip(obj):
    """What load returned, saved and loaded again, is the same object."""
    out = io.BytesIO()
    tandem.save(obj, out)
    back = tandem.load(io.BytesIO(out.getvalue()))
    if not same(obj, back):
        raise Finding(f"save(load(file)) does not load back the same: {obj!r} vs {back!r}")
