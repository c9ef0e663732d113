"""gradcheck: compares the analytical gradients (the engine) with central finite differences, element by
element. A test tool: it drives C++ ops from Python loops, which is fine at test sizes.

Complex numbers are checked as PyTorch's gradcheck does, as pairs of real numbers: a complex input element is
two columns of the real Jacobian (perturbed along 1 and along 1j), a complex output element two rows (its real
and imaginary parts, whose gradients come from backward passes with grad_output 1 and 1j). With PyTorch's
convention (grad = dL/dx + i dL/dy) the analytical entries are the real and imaginary parts of the gradient."""
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


def _flat_values(outputs):
    """The real numbers of the outputs: each complex element as its real then its imaginary part."""
    vals = []
    for o in outputs:
        if isinstance(o, _C.Tensor) and o.is_complex():
            for v in _elements(o):
                c = complex(v.item())
                vals.extend((c.real, c.imag))
        elif isinstance(o, _C.Tensor) and o.is_floating_point():
            vals.extend(float(v.item()) for v in _elements(o))
    return vals


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

    PyTorch's keywords, with these meanings here: ``nondet_tol`` widens the tolerance; ``check_grad_dtypes``
    checks each gradient's dtype against its input's; ``fast_mode`` is accepted and the full Jacobian is
    compared (a stricter check than PyTorch's fast mode); ``check_undefined_grad`` is accepted with nothing to
    check (tandem's engine gives formulas zero gradients, never undefined ones); ``check_backward_ad=False``
    skips the comparison. Forward-mode AD and batched (vmap) gradients do not exist in tandem, so asking to
    check them raises NotImplementedError, and so does ``masked=True``."""
    for flag, name in ((check_batched_grad, "check_batched_grad"), (check_batched_forward_grad,
                       "check_batched_forward_grad"), (check_forward_ad, "check_forward_ad"), (masked, "masked")):
        if flag:
            raise NotImplementedError(f"gradcheck({name}=True): tandem has no forward-mode AD, vmap or masked "
                                      f"gradients\nhint: leave {name} at its default")
    inputs = _as_tuple(inputs)
    diff = [x for x in inputs if isinstance(x, _C.Tensor) and x.requires_grad]
    if not diff:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of them "
                         "have requires_grad=True.")
    if not check_backward_ad:
        return True
    # Numerical Jacobian: one column per input element.
    numerical = []
    for x in diff:
        cols = []
        with _C_no_grad():
            for e in _elements(x.detach()):
                orig = e.item()
                for d in _directions(x):
                    e.fill_(orig + eps * d)
                    plus = _flat_values(_as_tuple(func(*inputs)))
                    e.fill_(orig - eps * d)
                    minus = _flat_values(_as_tuple(func(*inputs)))
                    e.fill_(orig)
                    cols.append([(p - m) / (2 * eps) for p, m in zip(plus, minus)])
        numerical.append(cols)

    # Analytical Jacobian (the forward runs after the perturbations, which bumped the inputs' versions).
    # A non-tensor output is refused as PyTorch's gradcheck refuses it (reading its requires_grad: an
    # AttributeError); skipping it would answer True with nothing checked.
    outputs = [o for o in _as_tuple(func(*inputs)) if o.requires_grad]
    n_out = sum(o.numel() * len(_directions(o)) for o in outputs)
    # One row per real output number: a backward pass with a one-hot gradient (1, or 1j for the imaginary part
    # of a complex output). row_part names the part of a complex output a row is (None for real outputs).
    analytical = [[[0.0] * n_out for _ in range(x.numel() * len(_directions(x)))] for x in diff]
    row_part = []
    row = 0
    for o in outputs:
        for k in range(o.numel()):
            for d in _directions(o):
                row_part.append(None if not o.is_complex() else "real" if d == 1.0 else "imaginary")
                onehot = _C.zeros_like(o)
                _elements(onehot)[k].fill_(d)
                grads = _engine_grad([o], diff, [onehot], True, False, True)
                for i, g in enumerate(grads):
                    if g is None:
                        continue
                    if check_grad_dtypes and g.dtype != diff[i].dtype:
                        if raise_exception:
                            raise GradcheckError(f"Gradient has dtype mismatch: grad dtype {g.dtype}, input dtype "
                                               f"{diff[i].dtype} (input {i})")
                        return False
                    for j, v in enumerate(_elements(g)):
                        if diff[i].is_complex():  # the gradient's parts: the slopes along 1 and along 1j
                            c = complex(v.item())
                            analytical[i][2 * j][row], analytical[i][2 * j + 1][row] = c.real, c.imag
                        else:
                            analytical[i][j][row] = float(v.item())
                row += 1

    for i, x in enumerate(diff):
        parts = len(_directions(x))
        for col in range(x.numel() * parts):
            for r in range(n_out):
                a, n = analytical[i][col][r], numerical[i][col][r]
                if abs(a - n) > atol + nondet_tol + rtol * abs(n):
                    if raise_exception and parts == 1 and row_part[r] is None:
                        _raise_jacobian_mismatch(x, i, outputs, r, [c for c in numerical[i]],
                                                 analytical[i])
                    if raise_exception:
                        prefix = (f"While considering the {row_part[r]} part of complex outputs only, "
                                  if row_part[r] else "")
                        where = (f"element {col // parts} of the input" if parts == 1 else
                                 f"element {col // parts} of the input, its {('real', 'imaginary')[col % 2]} part")
                        raise GradcheckError(
                            f"{prefix}Jacobian mismatch for output {r} with respect to input {i},\n"
                            f"numerical:{n}\nanalytical:{a}\n({where})")
                    return False
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
