"""gradgradcheck: second derivatives checked against finite differences of the first (autograd) derivatives,
as torch.autograd.gradgradcheck. It differentiates func's vector-Jacobian product with respect to the inputs
and to random grad_outputs, so the ops in func need double-backward formulas (tandem's formulas are written with
public ops, so create_graph=True works for them)."""
import tandem

from .. import _C
from .gradcheck import _as_tuple, gradcheck

__all__ = ["gradgradcheck"]


def _random_like(o, gen):
    """A random grad_output for o that requires grad (complex: normal real and imaginary parts)."""
    if o.is_complex():
        value_dtype = tandem.float64 if o.dtype == tandem.complex128 else tandem.float32
        parts = tandem.randn(tuple(o.shape) + (2,), dtype=value_dtype, generator=gen, device="cpu")
        return tandem.view_as_complex(parts).to(o.device).requires_grad_()
    if o.is_floating_point():
        return tandem.randn(o.shape, dtype=o.dtype, generator=gen, device="cpu").to(o.device).requires_grad_()
    return tandem.zeros_like(o)


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False, masked=False):
    """True when the gradients of func's backward pass match finite differences (use float64 inputs)."""
    if not (check_fwd_over_rev or check_rev_over_rev):  # PyTorch's assertion, before anything else
        raise AssertionError("Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True")
    if check_fwd_over_rev:
        raise NotImplementedError("gradgradcheck(check_fwd_over_rev=True): tandem has no forward-mode AD\n"
                                  "hint: leave check_fwd_over_rev at its default")
    if not check_rev_over_rev:
        return True
    tupled_inputs = _as_tuple(inputs)
    if grad_outputs is None:
        # Random grad_outputs (fixed seed so that a failure reproduces), differentiable like the inputs.
        gen = tandem.Generator().manual_seed(233)
        outputs = [o for o in _as_tuple(func(*tupled_inputs)) if isinstance(o, _C.Tensor) and o.requires_grad]
        tupled_grad_outputs = tuple(_random_like(o, gen) for o in outputs)
    else:
        tupled_grad_outputs = _as_tuple(grad_outputs)
    num_outputs = len(tupled_grad_outputs)
    diff_input_idx = [i for i, x in enumerate(tupled_inputs) if isinstance(x, _C.Tensor) and x.requires_grad]
    diff_grad_output_idx = [i for i, g in enumerate(tupled_grad_outputs) if g.requires_grad]

    def new_func(*args):
        input_args = args[:-num_outputs]
        grad_outputs_ = args[-num_outputs:]
        # gradcheck evaluates this under no_grad for its finite differences; the inner backward needs a graph.
        with tandem.enable_grad():
            outputs = [o for o in _as_tuple(func(*input_args)) if isinstance(o, _C.Tensor) and o.requires_grad]
            diff_inputs = [input_args[i] for i in diff_input_idx]
            grads = tandem.autograd.grad(outputs, diff_inputs, list(grad_outputs_), create_graph=True,
                                         allow_unused=True)
        return tuple(g for g in grads if g is not None)

    if not diff_input_idx and not diff_grad_output_idx:
        # PyTorch's gradgradcheck hands this to gradcheck, whose ValueError it is
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of them "
                         "have requires_grad=True.")
    return gradcheck(new_func, tupled_inputs + tupled_grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol, check_grad_dtypes=check_grad_dtypes,
                     fast_mode=fast_mode)
