"""repr(tensor) in PyTorch's format, and the print options that control it.

Only the printed values cross into Python: a tensor with more than ``threshold`` elements is cut to its
``edgeitems`` first and last entries along every long dim (with narrow/select) before ``tolist``, so printing
a huge tensor never copies all of it.
"""
import contextlib
import dataclasses
import math

from . import _C
from ._transfer_guard import _crossing


@dataclasses.dataclass
class _PrintOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: object = None  # None: chosen per tensor; True/False: forced


_options = _PrintOptions()
PRINT_OPTS = _options  # PyTorch's name for the live options (programs read PRINT_OPTS.threshold)
_PROFILES = {
    "default": dict(precision=4, threshold=1000, edgeitems=3, linewidth=80),
    "short": dict(precision=2, threshold=1000, edgeitems=2, linewidth=80),
    "full": dict(precision=4, threshold=math.inf, edgeitems=3, linewidth=80),
}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None):
    """Set how tensors print. ``profile`` ('default', 'short', 'full') sets a group of options first; the
    other arguments then override it. ``sci_mode`` is always replaced, so leaving it out restores automatic
    choice of scientific notation (as in PyTorch)."""
    for name, value in _PROFILES.get(profile, {}).items():
        setattr(_options, name, value)
    for name, value in (("precision", precision), ("threshold", threshold), ("edgeitems", edgeitems),
                        ("linewidth", linewidth)):
        if value is not None:
            setattr(_options, name, value)
    _options.sci_mode = sci_mode


def get_printoptions():
    """The current print options as a dict (a copy: changing it changes nothing)."""
    return dataclasses.asdict(_options)


@contextlib.contextmanager
def printoptions(**kwargs):
    """Temporarily set print options: ``with tandem.printoptions(precision=2): print(t)``."""
    saved = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**saved)


class _Elided:
    """Stands where a summarised dim skips entries."""


_ELIDED = _Elided()


def _edge_values(t, summarize, edge):
    """Nested lists of t's values (a number for 0-d); when summarising, each dim longer than 2 * edge keeps
    its first and last ``edge`` entries around an _ELIDED marker."""
    if t.dim() == 0:
        return t.item()
    n = t.shape[0]
    if not summarize:
        return t.tolist()
    if n > 2 * edge:
        if t.dim() == 1:
            return t.narrow(0, 0, edge).tolist() + [_ELIDED] + t.narrow(0, n - edge, edge).tolist()
        keep = list(range(edge)) + [None] + list(range(n - edge, n))
        return [_ELIDED if i is None else _edge_values(t.select(0, i), True, edge) for i in keep]
    if t.dim() == 1:
        return t.tolist()
    return [_edge_values(t.select(0, i), True, edge) for i in range(n)]


def _leaves(node, out):
    if isinstance(node, list):
        for x in node:
            _leaves(x, out)
    elif node is not _ELIDED:
        out.append(node)
    return out


class _Formatter:
    """Turns each value into a string of one common width, choosing fixed, integer-like or scientific
    notation from all printed values of a floating tensor."""

    def __init__(self, values, floating, precision, sci_mode):
        self.floating = floating
        self.precision = precision
        self.int_mode = True  # floats that are all whole numbers print as "3."
        self.sci_mode = False
        self.width = 1
        if not floating:
            self.width = max((len(str(v)) for v in values), default=1)
            return
        finite = [v for v in values if math.isfinite(v) and v != 0]
        if finite:  # otherwise (only zeros, nan, inf) every value prints as "0." / "nan" / "inf" unpadded
            self._choose_float_mode(finite, sci_mode)

    def _choose_float_mode(self, finite, forced_sci):
        magnitudes = [abs(v) for v in finite]
        lo, hi = min(magnitudes), max(magnitudes)
        self.int_mode = all(v == math.ceil(v) for v in finite)
        if forced_sci is None:
            self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4
        else:
            self.sci_mode = forced_sci
        if self.sci_mode:
            self.width = max(len(f"{v:.{self.precision}e}") for v in finite)
        elif self.int_mode:
            self.width = max(len(f"{v:.0f}") + 1 for v in finite)  # + 1 for the trailing "."
        else:
            self.width = max(len(f"{v:.{self.precision}f}") for v in finite)

    def __call__(self, value):
        if not self.floating:
            text = str(value)
        elif self.sci_mode:
            text = f"{value:.{self.precision}e}"
        elif self.int_mode:
            text = f"{value:.0f}"
            if math.isfinite(value):
                text += "."
        else:
            text = f"{value:.{self.precision}f}"
        return text.rjust(self.width)


class _ComplexFormatter:
    """PyTorch's complex layout: the real parts and the imaginary parts each get their own formatter (so each
    chooses its notation alone), joined as "1.5000-2.0000j"."""

    def __init__(self, values, precision, sci_mode):
        self.real = _Formatter([v.real for v in values], True, precision, sci_mode)
        self.imag = _Formatter([v.imag for v in values], True, precision, sci_mode)
        self.width = self.real.width + self.imag.width + 1  # + 1 for the "j"

    def __call__(self, value):
        imag = (self.imag(value.imag) + "j").lstrip()
        return self.real(value.real) + (imag if imag[0] in "+-" else "+" + imag)


def _default_complex_dtype():
    return _C.complex128 if _C.get_default_dtype() == _C.float64 else _C.complex64


def _vector_str(values, indent, fmt, linewidth):
    items = [" ..." if v is _ELIDED else fmt(v) for v in values]
    per_line = max(1, int(math.floor((linewidth - indent) / (fmt.width + 2))))
    lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested_str(node, dim, indent, fmt, linewidth):
    if dim == 0:
        return fmt(node)
    if dim == 1:
        return _vector_str(node, indent, fmt, linewidth)
    parts = ["..." if x is _ELIDED else _nested_str(x, dim - 1, indent + 1, fmt, linewidth) for x in node]
    return "[" + ("," + "\n" * (dim - 1) + " " * (indent + 1)).join(parts) + "]"


def _add_suffixes(text, suffixes, indent, linewidth, newline_first=False):
    """Appends ", suffix" items, moving one to a new line when it would pass linewidth (the first one always
    when newline_first, as sparse tensors print). Each suffix is a (text, layout length) pair."""
    # Counts the last line as PyTorch does (two more than its length when there is no newline).
    last_line_len = len(text) - text.rfind("\n") + 1
    out = [text]
    for n, (suffix, length) in enumerate(suffixes):
        if (newline_first and n == 0) or last_line_len + length + 2 > linewidth:
            out.append(",\n" + " " * indent + suffix)
            last_line_len = indent + length
        else:
            out.append(", " + suffix)
            last_line_len += length + 2
    out.append(")")
    return "".join(out)


def _suffix(text):
    return (text, len(text))


def _dtype_suffix(dtype):
    # Laid out with the length of PyTorch's "torch." spelling, so lines break exactly where PyTorch's do.
    text = "dtype=" + repr(dtype)
    return (text, len(text.replace("tandem.", "torch.")))


def _dtype_is_implied(dtype):
    """Whether a tensor of this dtype prints without a dtype= suffix (PyTorch's rule)."""
    return dtype in (_C.get_default_dtype(), _default_complex_dtype(), _C.int64, _C.bool)


def tensor_body(t, indent):
    """t's values as tensor_repr lays them out when they start at column ``indent``, without the suffixes."""
    opts = _options
    if t.numel() == 0:
        return "[]"
    summarize = t.numel() > opts.threshold
    if summarize and not opts.edgeitems and t.dim() > 0:
        return "[...]"
    with _crossing("print"):  # an implicit crossing for tandem.transfer_guard
        values = _edge_values(t, summarize, opts.edgeitems)
    flat = [values] if t.dim() == 0 else _leaves(values, [])
    if t.dtype.is_complex:
        fmt = _ComplexFormatter(flat, opts.precision, opts.sci_mode)
    else:
        fmt = _Formatter(flat, t.is_floating_point(), opts.precision, opts.sci_mode)
    return _nested_str(values, t.dim(), indent, fmt, opts.linewidth)


def _tensor_str(self, indent):
    """PyTorch's name for tensor_body (programs that write tensors as text call it)."""
    return tensor_body(self, indent)


def _repr_prefix(t):
    """A subclass prints under its own name (``Sub([1., 2.])``, as PyTorch's), a tensor or a Parameter as
    ``tensor(``."""
    from .nn.parameter import Parameter  # imported here: tandem.nn imports this module's package
    kind = type(t)
    if kind is _C.Tensor or kind is Parameter or not isinstance(t, _C.Tensor):
        return "tensor("
    return kind.__name__ + "("


def tensor_repr(t):
    """PyTorch's repr for a tandem tensor, with ``tandem.`` where PyTorch writes ``torch.``."""
    opts = _options
    prefix = _repr_prefix(t)
    indent = len(prefix)
    suffixes = []
    if t.device.type != "cpu":
        suffixes.append(_suffix(f"device='{t.device}'"))
    if t.is_meta:  # no values to show: PyTorch prints "..." with the size and any dtype but the default
        suffixes.append(_suffix("size=" + str(tuple(t.shape))))
        if t.dtype != _C.get_default_dtype():
            suffixes.append(_dtype_suffix(t.dtype))
    elif t.numel() == 0:
        if t.dim() != 1:
            suffixes.append(_suffix("size=" + str(tuple(t.shape))))
        if t.dtype != _C.get_default_dtype():
            suffixes.append(_dtype_suffix(t.dtype))
    else:
        if not opts.edgeitems:  # nothing of a summary would be shown, so the shape is
            suffixes.append(_suffix("size=" + str(tuple(t.shape))))
        if not _dtype_is_implied(t.dtype):
            suffixes.append(_dtype_suffix(t.dtype))
    body = "..." if t.is_meta else tensor_body(t, indent)
    grad_fn = getattr(t, "grad_fn", None)
    if grad_fn is not None:
        # PyTorch prints the node's class name: CopySlices, where name() says torch::autograd::CopySlices.
        name = grad_fn.name().rsplit("::", 1)[-1] if hasattr(grad_fn, "name") else type(grad_fn).__name__
        suffixes.append(_suffix(f"grad_fn=<{name}>"))
    elif t.requires_grad:
        suffixes.append(_suffix("requires_grad=True"))
    return _add_suffixes(prefix + body, suffixes, indent, opts.linewidth)


def tensor_format(self, spec):
    """f"{loss:.3f}": a 0-dim tensor formats as its Python number; others only with an empty spec (as str)."""
    if self.dim() == 0 and not self.is_meta:
        return self.item().__format__(spec)
    return object.__format__(self, spec)
