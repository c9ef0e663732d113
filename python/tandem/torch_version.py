"""tandem.torch_version.TorchVersion, as torch.torch_version's: a version string that compares as a version.

Programs gate features on `torch.__version__ >= "2.0"` or `>= (2, 0)`; a plain string would compare "2.15"
below "2.9". The parser covers what version strings of PyTorch and tandem hold (PEP 440's release,
pre-release, post-release, dev-release and local label); a string that is no version compares as a string.
"""
import re

__all__ = ["TorchVersion"]

_PATTERN = re.compile(r"v?(\d+(?:\.\d+)*)(?:[-_.]?(a|b|rc|alpha|beta|c)[-_.]?(\d*))?(?:[-_.]?post[-_.]?(\d*))?"
                      r"(?:[-_.]?dev[-_.]?(\d*))?(?:\+([a-z0-9]+(?:[-_.][a-z0-9]+)*))?", re.IGNORECASE)
_PRE_ORDER = {"a": 0, "alpha": 0, "b": 1, "beta": 1, "c": 2, "rc": 2}


def _key(text):
    """A tuple that orders versions as PEP 440 does."""
    match = _PATTERN.fullmatch(text.strip())
    if match is None:
        raise ValueError(f"Invalid version: {text!r}")
    release, pre, pre_n, post, dev, local = match.groups()
    numbers = [int(p) for p in release.split(".")]
    while len(numbers) > 1 and numbers[-1] == 0:  # 2.0 == 2.0.0
        numbers.pop()
    # A dev release sorts before its pre-releases, which sort before the release; post releases after it.
    pre_key = (_PRE_ORDER[pre.lower()], int(pre_n or 0)) if pre else ((-1, 0) if dev is not None and post is None
                                                                       else (3, 0))
    post_key = int(post or 0) if post is not None else -1
    dev_key = int(dev or 0) if dev is not None else float("inf")
    local_key = tuple((0, int(p)) if p.isdigit() else (-1, p.lower()) for p in re.split(r"[-_.]", local)) if local else ()
    return (tuple(numbers), pre_key, post_key, dev_key, local_key)


def _other_key(other):
    if isinstance(other, tuple):  # (2, 0) means release 2.0
        return _key(".".join(str(part) for part in other))
    if isinstance(other, str):
        return _key(other)
    return NotImplemented


def _comparison(name, test):
    def compare(self, other):
        try:
            other_key = _other_key(other)
        except ValueError:  # not a version ("abc"): compared as strings, as PyTorch does
            return test(str(self), str(other))
        if other_key is NotImplemented:
            return NotImplemented
        return test(_key(self), other_key)

    compare.__name__ = name
    return compare


class TorchVersion(str):
    """A str whose comparisons with strings and tuples are version comparisons."""

    __lt__ = _comparison("__lt__", lambda a, b: a < b)
    __le__ = _comparison("__le__", lambda a, b: a <= b)
    __gt__ = _comparison("__gt__", lambda a, b: a > b)
    __ge__ = _comparison("__ge__", lambda a, b: a >= b)
    __eq__ = _comparison("__eq__", lambda a, b: a == b)
    __ne__ = _comparison("__ne__", lambda a, b: a != b)
    __hash__ = str.__hash__
