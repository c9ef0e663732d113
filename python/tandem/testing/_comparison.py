"""assert_close: PyTorch's torch.testing.assert_close over tandem tensors, with its default tolerances, its
recursion into sequences and mappings, and its error messages word for word (tensor reprs are tandem's).

Inputs are paired like PyTorch's: None with None, bools, Python/NumPy numbers, then tensor-likes of directly
related types (two tandem tensors, two NumPy arrays: a tensor and an array do not pair, as in PyTorch).
"""
import cmath
import collections.abc
import warnings

from .. import _C
from .._layouts import is_sparse_tensor

__all__ = ["assert_close", "assert_allclose"]

# {dtype: (rtol, atol)}, PyTorch's table; other dtypes (integers, bool) compare exactly.
_DTYPE_PRECISIONS = {
    _C.float16: (0.001, 1e-5),
    _C.bfloat16: (0.016, 1e-5),
    _C.float32: (1.3e-6, 1e-5),
    _C.float64: (1e-7, 1e-7),
    _C.complex64: (1.3e-6, 1e-5),  # PyTorch's table has the complex dtypes (a complex64 pair is compared close,
    _C.complex128: (1e-7, 1e-7),  # not equal)
}


class _Unsupported(Exception):
    """A pair type cannot handle these inputs: try the next one."""


class _Mismatch(Exception):
    """A user-facing failure, turned into its exception type (with the item path) by _to_error."""

    def __init__(self, type, msg, id=()):
        super().__init__(msg)
        self.type, self.msg, self.id = type, msg, id

    def to_error(self, msg=None):
        if not isinstance(msg, str):
            generated = self.msg
            if self.id:
                generated += f"\n\nThe failure occurred for item {''.join(str([item]) for item in self.id)}"
            msg = msg(generated) if callable(msg) else generated
        return self.type(msg)


def _default_tolerances(*dtypes):
    rtols, atols = zip(*[_DTYPE_PRECISIONS.get(d, (0.0, 0.0)) for d in dtypes])
    return max(rtols), max(atols)


def _tolerances(*dtypes, rtol, atol, id):
    if (rtol is None) ^ (atol is None):
        raise _Mismatch(ValueError, "Both 'rtol' and 'atol' must be either specified or omitted, "
                        f"but got no {'rtol' if rtol is None else 'atol'}.", id)
    if rtol is not None:
        return rtol, atol
    return _default_tolerances(*dtypes)


def _mismatch_msg(*, default_identifier, extra, abs_diff, abs_diff_idx, atol, rel_diff, rel_diff_idx, rtol):
    equality = rtol == 0 and atol == 0

    def diff_line(kind, diff, idx, tol):
        if idx is None:
            line = f"{kind.title()} difference: {diff}"
        else:
            line = f"Greatest {kind} difference: {diff} at index {idx}"
        return line + ("" if equality else f" (up to {tol} allowed)") + "\n"

    msg = f"{default_identifier} are not {'equal' if equality else 'close'}!\n\n"
    if extra:
        msg += f"{extra.strip()}\n"
    msg += diff_line("absolute", abs_diff, abs_diff_idx, atol)
    msg += diff_line("relative", rel_diff, rel_diff_idx, rtol)
    return msg.strip()


def _scalar_mismatch_msg(actual, expected, *, rtol, atol):
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_msg(default_identifier="Scalars", extra=f"Expected {expected} but got {actual}.",
                         abs_diff=abs_diff, abs_diff_idx=None, atol=atol, rel_diff=rel_diff, rel_diff_idx=None,
                         rtol=rtol)


def _unravel(flat_index, shape):
    index = []
    for size in reversed(tuple(shape)):
        flat_index, mod = divmod(flat_index, size)
        index.append(mod)
    return tuple(reversed(index))


def _tensor_mismatch_msg(actual, expected, matches, *, rtol, atol, identifier="Tensor-likes"):
    total = matches.numel()
    mismatches = total - int(_C.sum(matches))
    extra = f"Mismatched elements: {mismatches} / {total} ({mismatches / total:.1%})"
    actual_flat, expected_flat, matches_flat = actual.flatten(), expected.flatten(), matches.flatten()
    if not actual.dtype.is_floating_point and not actual.dtype.is_complex:  # complex differences stay complex
        actual_flat, expected_flat = actual_flat.to(_C.int64), expected_flat.to(_C.int64)
    abs_diff = _C.abs(actual_flat - expected_flat)
    abs_diff[matches_flat] = 0  # only mismatches count for the greatest difference
    max_abs, max_abs_idx = _C.max(abs_diff, 0)
    rel_diff = abs_diff / _C.abs(expected_flat)
    rel_diff[matches_flat] = 0
    max_rel, max_rel_idx = _C.max(rel_diff, 0)
    return _mismatch_msg(default_identifier=identifier, extra=extra, abs_diff=max_abs.item(),
                         abs_diff_idx=_unravel(int(max_abs_idx), matches.shape), atol=atol,
                         rel_diff=max_rel.item(), rel_diff_idx=_unravel(int(max_rel_idx), matches.shape), rtol=rtol)


def _pair_repr(pair, extras):
    """PyTorch's Pair.__repr__ (shown when comparing raised an unexpected exception)."""
    names = ("id", "actual", "expected", *extras)
    body = [f"    {name}={getattr(pair, name, None)!s}," for name in names]
    return "\n".join((f"{type(pair).__name__.lstrip('_')}(", *body, ")"))


def _type_repr(value):
    """repr(type(value)), with tandem's tensor class by its public name (PyTorch's reads <class 'torch.Tensor'>)."""
    return "<class 'tandem.Tensor'>" if type(value) is _C.Tensor else repr(type(value))


_UNEXPECTED = ("resulted in the unexpected exception above. If you are a user and see this message during normal "
               "operation please file an issue at https://github.com/pytorch/pytorch/issues. If you are a developer "
               "and working on the comparison functions, please except the previous error and raise an expressive "
               "`ErrorMeta` instead.")


class _NonePair:
    def __init__(self, actual, expected, id, **options):
        if not (actual is None or expected is None):
            raise _Unsupported
        self.actual, self.expected, self.id = actual, expected, id

    def compare(self):
        if not (self.actual is None and self.expected is None):
            raise _Mismatch(AssertionError, f"None mismatch: {self.actual} is not {self.expected}", self.id)


def _numpy():
    import sys
    return sys.modules.get("numpy")  # an input can only be a NumPy object if NumPy is already imported


class _BooleanPair:
    def __init__(self, actual, expected, id, **options):
        np = _numpy()
        types = (bool,) if np is None else (bool, np.bool_)
        if not (isinstance(actual, types) and isinstance(expected, types)):
            raise _Unsupported
        self.actual, self.expected, self.id = bool(actual), bool(expected), id

    def compare(self):
        if self.actual is not self.expected:
            raise _Mismatch(AssertionError, f"Booleans mismatch: {self.actual} is not {self.expected}", self.id)


class _NumberPair:
    # Python numbers compare with the tolerances of the dtype PyTorch maps them to (int64, float64, complex128).
    _TOLERANCE_DTYPES = {int: _C.int64, float: _C.float64}
    _COMPLEX_TOLERANCES = (1e-7, 1e-7)

    def __init__(self, actual, expected, id, rtol=None, atol=None, equal_nan=False, check_dtype=False,
                 **options):
        np = _numpy()
        types = (int, float, complex) if np is None else (int, float, complex, np.number)
        if not (isinstance(actual, types) and isinstance(expected, types)):
            raise _Unsupported
        actual, expected = (x.item() if np is not None and isinstance(x, np.number) else x
                            for x in (actual, expected))
        self.actual, self.expected, self.id = actual, expected, id
        self.equal_nan, self.check_dtype = equal_nan, check_dtype
        for x in (actual, expected):
            if type(x) not in (int, float, complex):  # PyTorch's _TYPE_TO_DTYPE[type(x)]: True against 1 fails
                raise KeyError(type(x))
        if any(type(x) is complex for x in (actual, expected)) and rtol is None and atol is None:
            self.rtol, self.atol = self._COMPLEX_TOLERANCES
        else:
            self.rtol, self.atol = _tolerances(*[self._TOLERANCE_DTYPES.get(type(x), _C.float64)
                                                 for x in (actual, expected)], rtol=rtol, atol=atol, id=id)

    def __repr__(self):
        return _pair_repr(self, ("rtol", "atol", "equal_nan", "check_dtype"))

    def compare(self):
        if self.check_dtype and type(self.actual) is not type(self.expected):
            raise _Mismatch(AssertionError, f"The (d)types do not match: {type(self.actual)} != "
                            f"{type(self.expected)}.", self.id)
        if self.actual == self.expected:
            return
        if self.equal_nan and cmath.isnan(self.actual) and cmath.isnan(self.expected):
            return
        abs_diff = abs(self.actual - self.expected)
        if cmath.isfinite(abs_diff) and abs_diff <= self.atol + self.rtol * abs(self.expected):
            return
        raise _Mismatch(AssertionError, _scalar_mismatch_msg(self.actual, self.expected, rtol=self.rtol,
                                                             atol=self.atol), self.id)


class _TensorLikePair:
    def __init__(self, actual, expected, id, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False, **options):
        # Tensors of two sparse layouts are sibling classes, but Tensors both (one class each in PyTorch).
        both_tensors = isinstance(actual, _C.Tensor) and isinstance(expected, _C.Tensor)
        if not (isinstance(actual, type(expected)) or isinstance(expected, type(actual)) or both_tensors and (
                is_sparse_tensor(actual) or is_sparse_tensor(expected))):
            raise _Unsupported
        if not allow_subclasses and type(actual) is not type(expected):
            raise _Unsupported
        self.actual, self.expected = self._to_tensor(actual), self._to_tensor(expected)
        self.id = id
        self.rtol, self.atol = _tolerances(self.actual.dtype, self.expected.dtype, rtol=rtol, atol=atol, id=id)
        self.equal_nan, self.check_device, self.check_dtype = equal_nan, check_device, check_dtype
        self.check_stride, self.check_layout = check_stride, check_layout

    def __repr__(self):
        return _pair_repr(self, ("rtol", "atol", "equal_nan", "check_device", "check_dtype", "check_layout",
                                 "check_stride"))

    @staticmethod
    def _to_tensor(tensor_like):
        if isinstance(tensor_like, _C.Tensor):
            return tensor_like
        from .._creation import as_tensor
        try:
            return as_tensor(tensor_like)
        except Exception:
            raise _Unsupported from None

    def _fail_attribute(self, name, actual_value, expected_value):
        raise _Mismatch(AssertionError, f"The values for attribute '{name}' do not match: {actual_value} != "
                        f"{expected_value}.", self.id)

    def compare(self):
        actual, expected = self.actual, self.expected
        if actual.shape != expected.shape:
            self._fail_attribute("shape", actual.shape, expected.shape)
        if self.check_stride and actual.stride() != expected.stride():
            self._fail_attribute("stride()", actual.stride(), expected.stride())
        if self.check_device and actual.device != expected.device:
            self._fail_attribute("device", actual.device, expected.device)
        if self.check_dtype and actual.dtype != expected.dtype:
            self._fail_attribute("dtype", actual.dtype, expected.dtype)
        sparse = is_sparse_tensor(actual) or is_sparse_tensor(expected)
        if sparse and self.check_layout and actual.layout is not expected.layout:
            self._fail_attribute("layout", actual.layout, expected.layout)
        # Unchecked differences are equalised: both to the CPU, both to the promoted dtype.
        if actual.device != expected.device:
            actual, expected = actual.cpu(), expected.cpu()
        if actual.dtype != expected.dtype:
            dtype = _C.promote_types(actual.dtype, expected.dtype)
            actual, expected = actual.to(dtype), expected.to(dtype)
        actual, expected = actual.detach(), expected.detach()
        if sparse:  # compared part by part (their C++ tensors are placeholders), as PyTorch compares them
            self._compare_sparse(actual, expected)
        else:
            self._compare_values(actual, expected)

    def _compare_values(self, actual, expected, identifier="Tensor-likes", exact=False):
        rtol, atol = (0.0, 0.0) if exact else (self.rtol, self.atol)
        matches = _C.isclose(actual, expected, rtol=rtol, atol=atol, equal_nan=self.equal_nan)
        if bool(_C.all(matches)):
            return
        if actual.dim() == 0:
            msg = _scalar_mismatch_msg(actual.item(), expected.item(), rtol=rtol, atol=atol)
        else:
            msg = _tensor_mismatch_msg(actual, expected, matches, rtol=rtol, atol=atol, identifier=identifier)
        raise _Mismatch(AssertionError, msg, self.id)

    def _compare_sparse(self, actual, expected):
        """PyTorch's order: the number of entries, the index tensors (exactly), then the values; COO tensors are
        coalesced first. Tensors of different layouts (check_layout=False) are compared dense."""
        if actual.layout is not expected.layout:
            self._compare_values(*(x.to_dense() if is_sparse_tensor(x) else x for x in (actual, expected)))
            return
        name = {"sparse_coo": "COO", "sparse_csr": "CSR", "sparse_csc": "CSC"}[actual.layout._name]
        if name == "COO":
            actual, expected = actual.coalesce(), expected.coalesce()
        if actual._nnz() != expected._nnz():
            raise _Mismatch(AssertionError, f"The number of specified values in sparse {name} tensors does not "
                            f"match: {actual._nnz()} != {expected._nnz()}", self.id)
        parts = {"COO": ("indices",), "CSR": ("crow_indices", "col_indices"),
                 "CSC": ("ccol_indices", "row_indices")}[name]
        for part in parts:
            label = f"Sparse {name} indices" if name == "COO" else f"Sparse {name} {part}"
            self._compare_values(getattr(actual, part)(), getattr(expected, part)(), label, exact=True)
        self._compare_values(actual.values(), expected.values(), f"Sparse {name} values")


_PAIR_TYPES = (_NonePair, _BooleanPair, _NumberPair, _TensorLikePair)


def _originate_pairs(actual, expected, id, options):
    """The leaf pairs of two (possibly nested) inputs, walked with an explicit stack (no recursion)."""
    pairs, stack = [], [(actual, expected, id)]
    while stack:
        actual, expected, id = stack.pop()
        if (isinstance(actual, collections.abc.Sequence) and not isinstance(actual, str)
                and isinstance(expected, collections.abc.Sequence) and not isinstance(expected, str)):
            if len(actual) != len(expected):
                raise _Mismatch(AssertionError,
                                f"The length of the sequences mismatch: {len(actual)} != {len(expected)}", id)
            stack.extend((actual[i], expected[i], (*id, i)) for i in reversed(range(len(actual))))
            continue
        if isinstance(actual, collections.abc.Mapping) and isinstance(expected, collections.abc.Mapping):
            actual_keys, expected_keys = set(actual.keys()), set(expected.keys())
            if actual_keys != expected_keys:
                raise _Mismatch(AssertionError,
                                "The keys of the mappings do not match:\n"
                                f"Missing keys in the actual mapping: {sorted(expected_keys - actual_keys)}\n"
                                f"Additional keys in the actual mapping: {sorted(actual_keys - expected_keys)}", id)
            keys = list(actual_keys)
            try:  # sorted when possible, so the first failure reported does not depend on hashing
                keys = sorted(keys)
            except Exception:
                pass
            stack.extend((actual[k], expected[k], (*id, k)) for k in reversed(keys))
            continue
        for pair_type in _PAIR_TYPES:
            try:
                pairs.append(pair_type(actual, expected, id, **options))
                break
            except _Unsupported:
                continue
            except _Mismatch:
                raise
            except Exception as error:  # PyTorch's words for an exception a pair did not expect
                raise RuntimeError(
                    f"Originating a {pair_type.__name__.lstrip('_')}() at item {''.join(str([i]) for i in id)} "
                    f"with\n\n{type(actual).__name__}(): {actual}\n\nand\n\n{type(expected).__name__}(): "
                    f"{expected}\n\n{_UNEXPECTED}") from error
        else:
            raise _Mismatch(TypeError, f"No comparison pair was able to handle inputs of type {_type_repr(actual)} "
                            f"and {_type_repr(expected)}.", id)
    return pairs


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False, msg=None):
    """Asserts that ``actual`` and ``expected`` are close: |actual - expected| <= atol + rtol * |expected|
    elementwise, with PyTorch's default (rtol, atol) per dtype (float32: 1.3e-6, 1e-5; float64: 1e-7, 1e-7;
    float16: 1e-3, 1e-5; bfloat16: 1.6e-2, 1e-5; integers and bool: exact), after checking shape, device and
    dtype. Raises AssertionError with PyTorch's report; ``msg`` replaces it (a str) or rewrites it (a callable).
    """
    __tracebackhide__ = True
    options = dict(allow_subclasses=allow_subclasses, rtol=rtol, atol=atol, equal_nan=equal_nan,
                   check_device=check_device, check_dtype=check_dtype, check_layout=check_layout,
                   check_stride=check_stride)
    try:
        pairs = _originate_pairs(actual, expected, (), options)
    except _Mismatch as error:
        raise error.to_error() from None
    mismatches = []  # PyTorch compares every pair before it reports the first mismatch
    for pair in pairs:
        try:
            pair.compare()
        except _Mismatch as error:
            mismatches.append(error)
        except Exception as error:  # an invalid tolerance (negative, a string) fails inside isclose
            raise RuntimeError(f"Comparing\n\n{pair}\n\n{_UNEXPECTED}") from error
    if mismatches:
        raise mismatches[0].to_error(msg) from None


# assert_allclose's own (rtol, atol) table; other dtypes compare exactly.
_ALLCLOSE_PRECISIONS = {
    _C.float16: (1e-3, 1e-3),
    _C.float32: (1e-4, 1e-5),
    _C.float64: (1e-5, 1e-8),
}


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """PyTorch's deprecated (since 1.12) predecessor of assert_close, with its FutureWarning: non-tensors become
    tensors (``expected`` in ``actual``'s dtype), NaNs compare equal, dtypes may differ, and the default
    tolerances come from its own, looser table."""
    warnings.warn("`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a future "
                  "release. Please use `torch.testing.assert_close()` instead. You can find detailed upgrade "
                  "instructions in https://github.com/pytorch/pytorch/issues/61844.", FutureWarning, stacklevel=2)
    __tracebackhide__ = True
    from .._creation import tensor  # noqa: PLC0415  (tandem.testing is imported while tandem starts)
    if not isinstance(actual, _C.Tensor):
        actual = tensor(actual)
    if not isinstance(expected, _C.Tensor):
        expected = tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        rtols, atols = zip(*[_ALLCLOSE_PRECISIONS.get(t.dtype, (0.0, 0.0)) for t in (actual, expected)])
        rtol, atol = max(rtols), max(atols)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True,
                 check_dtype=False, check_stride=False, msg=msg or None)
