"""gradcheck: compares the analytical gradients (the engine) with central finite differences, element by
element. A test tool: it drives C++ ops from Python loops, which is fine at test sizes.

Complex numbers are checked as PyTorch's gradcheck does, as pairs of real numbers: a complex input element is
two columns of the real Jacobian (perturbed along 1 and along 1j), a complex output element two rows (its real
and imaginary parts, whose gradients come from backward passes with grad_output 1 and 1j). With PyTorch's
convention (grad = dL/dx + i dL/dy) the analytical entries are the real and imaginary parts of the gradient."""
import math

from .. import _C
from ._capture import engine_grad as _engine_grad

__all__ = ["gradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """A gradient that does not match (PyTorch's torch.autograd.gradcheck.GradcheckError, a RuntimeError)."""


def _elements(t):
    """0-dim views of every element of t (any strides), in row-major order."""
    views = [t]
    for _ in range(t.dim()):
        views = [v.select(0, i) for v in views for i in range(v.shape[0])]
    return views


def _flat_values(outputs, keep):
    """The real numbers of the outputs at the positions `keep` marks: each complex element as its real then its
    imaginary part (integer outputs too: PyTorch's finite differences cover every output)."""
    vals = []
    for o, kept in zip(outputs, keep):
        if not kept or not isinstance(o, _C.Tensor):
            continue
        for v in o.detach().reshape(-1).tolist():
            if isinstance(v, complex):
                vals.extend((v.real, v.imag))
            else:
                vals.append(float(v))
    return vals


def _quotient(a, b):
    """a / b as a tensor division gives it (eps=0: 0/0 is NaN, x/0 an infinity), not Python's ZeroDivisionError."""
    if b != 0:
        return a / b
    return math.nan if a == 0 or a != a else math.copysign(math.inf, a)


def _close(a, n, rtol, atol):
    """PyTorch's allclose for one element: equal (infinities included), or a finite error within the tolerance."""
    if a == n:
        return True
    error = abs(a - n)
    return math.isfinite(error) and error <= atol + rtol * abs(n)


def _check_inputs(inputs):
    """PyTorch's _check_inputs: an input that requires grad may not overlap itself (a stride-0 dim of size > 1:
    the finite differences would move several elements at once), and at least one input requires grad."""
    any_requires_grad = False
    for idx, inp in enumerate(inputs):
        if isinstance(inp, _C.Tensor) and inp.requires_grad:
            if inp.layout is _strided() and not all(st > 0 or sz <= 1 for st, sz in zip(inp.stride(), inp.shape)):
                raise RuntimeError(f"The {idx}th input has a dimension with stride 0. gradcheck only supports inputs "
                                   "that are non-overlapping to be able to compute the numerical gradients correctly."
                                   " You should call .contiguous on the input before passing it to gradcheck.")
            any_requires_grad = True
    if not any_requires_grad:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of them "
                         "have requires_grad=True.")


def _strided():
    from .._layouts import strided  # noqa: PLC0415

    return strided


def _check_tolerances(rtol, atol):
    """The checks PyTorch's allclose makes of the tolerances gradcheck hands it (the comparison raises them)."""
    for name, value, position in (("rtol", rtol, 3), ("atol", atol, 4)):
        if not isinstance(value, (int, float)):
            raise TypeError(f"allclose(): argument '{name}' (position {position}) must be float, not "
                            f"{type(value).__name__}")
    for name, value in (("rtol", rtol), ("atol", atol)):
        if not value >= 0:
            raise RuntimeError(f"{name} must be greater than or equal to zero, but got {value:g}")


_NONDET_NOTE = """\n
NOTE: If your op relies on non-deterministic operations i.e., it is listed here:
https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html
this failure might be expected.

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `nondet_tol=<tol>` as a keyword argument.
"""  # PyTorch's FAILED_NONDET_MSG (its OpInfo and module-test advice left out)


def _directions(x):
    """The perturbation directions of one element of x: 1, and 1j too when x is complex."""
    return (1.0, 1j) if x.is_complex() else (1.0,)


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, nondet_tol=0.0,
              check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
              check_batched_forward_grad=False, check_forward_ad=False, check_backward_ad=True, fast_mode=False,
              masked=None):
    """True when d func / d inputs from autograd matches finite differences (use float64 inputs).

    PyTorch's keywords, with these meanings here: ``nondet_tol`` is the most two backward passes may differ by
    (the analytical Jacobian is computed twice, as PyTorch's reentrancy check does); ``check_grad_dtypes``
    checks each gradient's dtype against its input's; ``fast_mode`` is accepted and the full Jacobian is
    compared (a stricter check than PyTorch's fast mode); ``check_undefined_grad`` is accepted with nothing to
    check (tandem's engine gives formulas zero gradients, never undefined ones). A function none of whose
    outputs requires grad must have a zero numerical gradient (PyTorch's check). Forward-mode AD and batched
    (vmap) gradients do not exist in tandem, so asking to check them raises NotImplementedError, and so does
    ``masked=True``; and as in PyTorch, check_backward_ad=False without check_forward_ad is an AssertionError."""
    if not (check_forward_ad or check_backward_ad):  # PyTorch's assertions come before anything else
        raise AssertionError("Expected at least one of check_forward_ad or check_backward_ad to be True")
    for flag, name in ((check_batched_grad, "check_batched_grad"), (check_batched_forward_grad,
                       "check_batched_forward_grad"), (check_forward_ad, "check_forward_ad"), (masked, "masked")):
        if flag:
            raise NotImplementedError(f"gradcheck({name}=True): tandem has no forward-mode AD, vmap or masked "
                                      f"gradients\nhint: leave {name} at its default")
    try:
        return _gradcheck(func, inputs, eps, atol, rtol, raise_exception, nondet_tol, check_grad_dtypes)
    except GradcheckError:
        if raise_exception:
            raise
        return False  # PyTorch's raise_exception=False answers False for its GradcheckErrors only


def _gradcheck(func, inputs, eps, atol, rtol, raise_exception, nondet_tol, check_grad_dtypes):
    inputs = _as_tuple(inputs)
    _check_inputs(inputs)
    diff = [x for x in inputs if isinstance(x, _C.Tensor) and x.requires_grad]
    # The outputs first, as PyTorch reads them: a non-tensor output is refused there (reading its requires_grad:
    # an AttributeError); skipping it would answer True with nothing checked.
    func_out = _as_tuple(func(*inputs))
    outputs = [o for o in func_out if o.requires_grad]
    if any(o.layout is not _strided() for o in outputs):
        raise ValueError("Sparse output is not supported at gradcheck yet. Please call to_dense(masked_grad=...) on "
                         "the output of fn for gradcheck.")
    if not isinstance(eps, (int, float)) or isinstance(eps, bool):  # (diff is not empty: _check_inputs)
        diff[0].detach() - eps  # PyTorch's perturbation (entry - eps): a str or a bool eps fails there, its way
        eps = float(eps)  # a 0-d tensor: its value
    # The finite differences cover the outputs that require grad; with none, every output (whose numerical
    # gradient must then be zero).
    keep = [isinstance(o, _C.Tensor) and o.requires_grad for o in func_out] if outputs else \
        [isinstance(o, _C.Tensor) for o in func_out]
    # Numerical Jacobian: one column per input element.
    numerical = []
    for x in diff:
        cols = []
        with _C_no_grad():
            for e in _elements(x.detach()):
                orig = e.item()
                for d in _directions(x):
                    # Each output read as soon as it is made: one that is (a view of) the input moves with it.
                    e.fill_(orig + eps * d)
                    plus_out = _as_tuple(func(*inputs))
                    plus = _flat_values(plus_out, keep)
                    e.fill_(orig - eps * d)
                    minus_out = _as_tuple(func(*inputs))
                    minus = _flat_values(minus_out, keep)
                    e.fill_(orig)
                    for p, m in zip(plus_out, minus_out):  # PyTorch subtracts every output: a bool one refuses
                        if isinstance(p, _C.Tensor) and p.dtype == _C.bool:
                            p - m
                    cols.append([_quotient(p - m, 2 * eps) for p, m in zip(plus, minus)])
        numerical.append(cols)
    if not outputs:
        if any(v != 0 for cols in numerical for col in cols for v in col):
            raise GradcheckError("Numerical gradient for function expected to be zero")
        return True

    # Analytical Jacobian (the forward runs after the perturbations, which bumped the inputs' versions).
    outputs = [o for o in _as_tuple(func(*inputs)) if o.requires_grad]
    n_out = sum(o.numel() * len(_directions(o)) for o in outputs)
    # One row per real output number: a backward pass with a one-hot gradient (1, or 1j for the imaginary part
    # of a complex output). row_part names the part of a complex output a row is (None for real outputs).
    # The engine gives a tensor listed twice its gradient once: each distinct input is asked for once, and an input
    # passed twice (gradcheck(f, (t, t))) gets the whole gradient in both places, as torch.autograd.grad gives it.
    position, unique = {}, []
    for x in diff:
        if id(x) not in position:
            position[id(x)] = len(unique)
            unique.append(x)
    passes = []
    for _ in range(2):  # twice: PyTorch's reentrancy check (two backward passes must agree within nondet_tol)
        analytical = [[[0.0] * n_out for _ in range(x.numel() * len(_directions(x)))] for x in diff]
        row_part = []
        row = 0
        for o in outputs:
            for k in range(o.numel()):
                for d in _directions(o):
                    row_part.append(None if not o.is_complex() else "real" if d == 1.0 else "imaginary")
                    onehot = _C.zeros_like(o)
                    _elements(onehot)[k].fill_(d)
                    got = _engine_grad([o], unique, [onehot], True, False, True)
                    grads = [got[position[id(x)]] for x in diff]
                    for i, g in enumerate(grads):
                        if g is None:
                            continue
                        if check_grad_dtypes and g.dtype != diff[i].dtype:
                            raise GradcheckError(f"Gradient has dtype mismatch: grad dtype {g.dtype}, input dtype "
                                                 f"{diff[i].dtype} (input {i})")
                        for j, v in enumerate(g.detach().reshape(-1).tolist()):
                            if diff[i].is_complex():  # the gradient's parts: the slopes along 1 and along 1j
                                c = complex(v)
                                analytical[i][2 * j][row], analytical[i][2 * j + 1][row] = c.real, c.imag
                            else:
                                analytical[i][j][row] = float(v)
                    row += 1
        passes.append(analytical)
    analytical = passes[0]
    # PyTorch's reentrancy check, per input: (j1 - j2).abs().max() > nondet_tol (a NaN anywhere passes it)
    for x1, x2 in zip(*passes):
        diffs = [abs(a - b) for c1, c2 in zip(x1, x2) for a, b in zip(c1, c2)]
        if diffs and not any(v != v for v in diffs) and max(diffs) > nondet_tol:
            raise GradcheckError("Backward is not reentrant, i.e., running backward with same input and grad_output "
                                 "multiple times gives different values, although analytical gradient matches "
                                 f"numerical gradient.The tolerance for nondeterminism was {nondet_tol}." +
                                 _NONDET_NOTE)

    _check_tolerances(rtol, atol)
    # PyTorch's order: with a complex output the imaginary parts first, then the real parts (real outputs in both
    # passes); within a pass output by output, and for each output input by input.
    ranges, start = [], 0
    for o in outputs:
        ranges.append((start, start + o.numel() * len(_directions(o))))
        start = ranges[-1][1]
    passes_order = ("imaginary", "real") if any(o.is_complex() for o in outputs) else (None,)
    for part in passes_order:
        for k, (begin, end) in enumerate(ranges):
            for i, x in enumerate(diff):
                parts = len(_directions(x))
                for col in range(x.numel() * parts):
                    for r in range(begin, end):
                        if row_part[r] not in (None, part):
                            continue
                        a, n = analytical[i][col][r], numerical[i][col][r]
                        if _close(a, n, rtol, atol):
                            continue
                        if not raise_exception:
                            return False
                        if parts == 1 and row_part[r] is None and part is None:
                            _raise_jacobian_mismatch(x, i, outputs, r, [c for c in numerical[i]], analytical[i])
                        prefix = (f"While considering the {row_part[r]} part of complex outputs only, "
                                  if row_part[r] else "")
                        where = (f"element {col // parts} of the input" if parts == 1 else
                                 f"element {col // parts} of the input, its {('real', 'imaginary')[col % 2]} part")
                        raise GradcheckError(
                            f"{prefix}Jacobian mismatch for output {k} with respect to input {i},\n"
                            f"numerical:{n}\nanalytical:{a}\n({where})")
    return True


def _raise_jacobian_mismatch(x, i, outputs, row, numerical, analytical):
    """PyTorch's message for a real output and input: the whole Jacobian block of the output tensor holding
    `row` with respect to input i (rows: the input's elements, columns: the output's), numerical then
    analytical, printed as tensors of the input's dtype."""
    start = 0
    for k, o in enumerate(outputs):
        end = start + o.numel() * len(_directions(o))
        if row < end:
            break
        start = end

    import tandem  # (the package: this module is imported while it loads)

    def block(jacobian):
        return tandem.tensor([col[start:end] for col in jacobian], dtype=x.dtype).reshape(x.numel(), end - start)

    raise GradcheckError(f"Jacobian mismatch for output {k} with respect to input {i},\n"
                         f"numerical:{block(numerical)}\nanalytical:{block(analytical)}\n")


class _C_no_grad:
    def __enter__(self):
        self.prev = _C.is_grad_enabled()
        _C._set_grad_enabled(False)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self.prev)
