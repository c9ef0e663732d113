"""torch.autograd.gradcheck and gradgradcheck misused, beyond autograd_functional.py (which holds the plain pass,
float32 inputs, one wrong backward, inputs without requires_grad and a float output): inputs given as a bare tensor,
a list, a tuple mixing tensors with ints, None and strings; float32/float16/complex/0-d/empty/non-contiguous and
expanded (stride 0) inputs; functions returning tuples, lists, None, integer tensors, outputs that do not require
grad, detached outputs, outputs of several dtypes, or that raise; tolerances that are zero, negative, huge or NaN;
eps of zero; raise_exception=False over each failure; check_backward_ad=False alone; check_grad_dtypes with a
Function returning the wrong dtype; Functions whose backward returns a wrong shape, too many or too few gradients,
a non-tensor, or is non-deterministic; unknown keywords and positional options; gradgradcheck with grad_outputs of
the wrong shape, count or kind, gen_non_contig_grad_outputs, first-order-only functions and a wrong double
backward. Every input is float64 and tiny unless the case is about the dtype or the size."""
import math

from . import R


def x(L, d, shape=(3,), dtype="float64"):
    return R(L, shape, d, dtype, scale=1.0).requires_grad_()


def gc(L, fn, inputs, **kw):
    return L.autograd.gradcheck(fn, inputs, **kw)


def ggc(L, fn, inputs, **kw):
    return L.autograd.gradgradcheck(fn, inputs, **kw)


def first_line_of(fn):
    """The first line of what fn raises (gradcheck's later lines print Jacobians), or its result."""
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - the case compares the error's type and first line
        return type(e).__name__, (str(e).splitlines() or [""])[0]


def function(L, forward, backward, name="F"):
    """An autograd.Function from forward(ctx, *args) and backward(ctx, *grads)."""
    return type(name, (L.autograd.Function,), {"forward": staticmethod(forward), "backward": staticmethod(backward)})


def save(ctx, *tensors):
    ctx.save_for_backward(*tensors)


def square(L):
    return function(L, lambda ctx, t: (save(ctx, t), t * t)[1], lambda ctx, g: g * 2 * ctx.saved_tensors[0])


def wrong_shape_grad(L):
    return function(L, lambda ctx, t: t * 2, lambda ctx, g: g.sum(0, keepdim=True))


def too_many_grads(L):
    return function(L, lambda ctx, t: t * 2, lambda ctx, g: (g * 2, g))


def none_grad(L):
    return function(L, lambda ctx, t: t * 2, lambda ctx, g: None)


def float_grad(L):
    return function(L, lambda ctx, t: t * 2, lambda ctx, g: 2.0)


def wrong_dtype_grad(L):
    return function(L, lambda ctx, t: t * 2, lambda ctx, g: (g * 2).float())


def nondeterministic(L):
    calls = []

    def backward(ctx, g):
        calls.append(1)
        return g * (2 + 1e-3 * len(calls))

    return function(L, lambda ctx, t: t * 2, backward)


def first_order_only(L):
    """A Function whose backward is not differentiable (once_differentiable)."""
    F = function(L, lambda ctx, t: (save(ctx, t), t * t)[1], None)
    F.backward = staticmethod(L.autograd.function.once_differentiable(
        lambda ctx, g: g * 2 * ctx.saved_tensors[0]))
    return F


def wrong_double_backward(L):
    """A Function whose backward is right to first order but built from a detached value (second order wrong)."""
    return function(L, lambda ctx, t: (save(ctx, t), t ** 3)[1],
                    lambda ctx, g: g * 3 * ctx.saved_tensors[0].detach() ** 2)


N = math.nan
CASES = {
    # ---- inputs
    "inputs/bare_tensor": lambda L, d: gc(L, lambda t: t.sin(), x(L, d)),
    "inputs/list": lambda L, d: gc(L, lambda t: t.sin(), [x(L, d)]),
    "inputs/with_int": lambda L, d: gc(L, lambda t, k: t.sin() * k, (x(L, d), 3)),
    "inputs/with_none": lambda L, d: gc(L, lambda t, k: t.sin(), (x(L, d), None)),
    "inputs/with_str": lambda L, d: gc(L, lambda t, k: t.sin(), (x(L, d), "a")),
    "inputs/with_float": lambda L, d: gc(L, lambda t, k: t * k, (x(L, d), 2.5)),
    "inputs/two_one_without_grad": lambda L, d: gc(L, lambda a, b: a * b, (x(L, d), x(L, d).detach())),
    "inputs/two_with_grad": lambda L, d: gc(L, lambda a, b: a * b + a.exp(), (x(L, d), x(L, d, (3,)) + 1)),
    "inputs/same_tensor_twice": lambda L, d: (lambda t: gc(L, lambda a, b: a * b, (t, t)))(x(L, d)),
    "inputs/empty_tuple": lambda L, d: gc(L, lambda: L.ones(1), ()),
    "inputs/none": lambda L, d: gc(L, lambda: L.ones(1), None),
    "inputs/float32": lambda L, d: first_line_of(lambda: gc(L, lambda t: t * 2, (x(L, d, dtype="float32"),))),
    "inputs/float32_loose": lambda L, d: gc(L, lambda t: t * 2, (x(L, d, dtype="float32"),), eps=1e-2, atol=1e-2),
    "inputs/float16": lambda L, d: first_line_of(lambda: gc(L, lambda t: t * 2, (x(L, d, dtype="float16"),))),
    "inputs/complex128": lambda L, d: gc(L, lambda t: (t * t).real, (x(L, d).detach().to(L.complex128)
                                                                      .requires_grad_(),)),
    "inputs/complex_output": lambda L, d: gc(L, lambda t: t * (1 + 2j), (x(L, d),)),
    "inputs/0d": lambda L, d: gc(L, lambda t: t.exp(), (x(L, d, ()),)),
    "inputs/empty": lambda L, d: gc(L, lambda t: t * 2, (x(L, d, (0,)),)),
    "inputs/empty_2d": lambda L, d: gc(L, lambda t: t.sum(0), (x(L, d, (0, 3)),)),
    "inputs/noncontiguous": lambda L, d: gc(L, lambda t: t.exp(), (x(L, d, (2, 3)).detach().t().requires_grad_(),)),
    "inputs/expanded": lambda L, d: first_line_of(lambda: gc(L, lambda t: t * 2, (
        x(L, d, (1, 3)).detach().expand(2, 3).requires_grad_(),))),
    "inputs/non_leaf": lambda L, d: gc(L, lambda t: t.sin(), (x(L, d) * 2,)),
    "inputs/nested_tuple": lambda L, d: gc(L, lambda t: t[0].sin(), ((x(L, d),),)),
    "inputs/dict": lambda L, d: gc(L, lambda t: t.sin(), {"a": x(L, d)}),
    "inputs/parameter": lambda L, d: gc(L, lambda t: t.sin(), (L.nn.Parameter(x(L, d).detach()),)),
    "inputs/int_tensor_no_grad_with_float": lambda L, d: gc(L, lambda t, i: t * i, (x(L, d), L.arange(3, device=d))),
    "inputs/bool_tensor_only": lambda L, d: gc(L, lambda b: b.float(), (L.ones(3, dtype=L.bool, device=d),)),
    # ---- functions and their outputs
    "fn/tuple_outputs": lambda L, d: gc(L, lambda t: (t.sin(), t.cos()), (x(L, d),)),
    "fn/list_outputs": lambda L, d: gc(L, lambda t: [t.sin(), t * 3], (x(L, d),)),
    "fn/returns_none": lambda L, d: first_line_of(lambda: gc(L, lambda t: None, (x(L, d),))),
    "fn/returns_int_tensor": lambda L, d: gc(L, lambda t: (t * 10).long(), (x(L, d),)),
    "fn/returns_bool_tensor": lambda L, d: gc(L, lambda t: t > 0, (x(L, d),)),
    "fn/returns_detached": lambda L, d: first_line_of(lambda: gc(L, lambda t: t.detach() * 2, (x(L, d),))),
    "fn/returns_constant": lambda L, d: gc(L, lambda t: L.ones(2, dtype=L.float64, device=d), (x(L, d),)),
    "fn/returns_detached_no_raise": lambda L, d: gc(L, lambda t: t.detach() * 2, (x(L, d),), raise_exception=False),
    "fn/tuple_with_none": lambda L, d: gc(L, lambda t: (t.sin(), None), (x(L, d),)),
    "fn/tuple_with_int_tensor": lambda L, d: gc(L, lambda t: (t.sin(), t.argmax()), (x(L, d),)),
    "fn/tuple_with_float": lambda L, d: first_line_of(lambda: gc(L, lambda t: (t.sin(), 1.0), (x(L, d),))),
    "fn/output_float32": lambda L, d: first_line_of(lambda: gc(L, lambda t: t.float() * 2, (x(L, d),))),
    "fn/output_mixed_dtypes": lambda L, d: first_line_of(lambda: gc(L, lambda t: (t * 2, (t * 3).float()),
                                                                    (x(L, d),))),
    "fn/raises": lambda L, d: gc(L, lambda t: (_ for _ in ()).throw(ValueError("inside")), (x(L, d),)),
    "fn/wrong_arity": lambda L, d: gc(L, lambda a, b: a * b, (x(L, d),)),
    "fn/inplace_on_input": lambda L, d: first_line_of(lambda: gc(L, lambda t: t.mul_(2), (x(L, d),))),
    "fn/inplace_on_clone": lambda L, d: gc(L, lambda t: t.clone().mul_(2), (x(L, d),)),
    "fn/view_output": lambda L, d: gc(L, lambda t: t.view(3, 1), (x(L, d),)),
    "fn/input_returned": lambda L, d: gc(L, lambda t: t, (x(L, d),)),
    "fn/nondifferentiable_abs_at_zero": lambda L, d: first_line_of(lambda: gc(
        L, lambda t: t.abs(), (L.zeros(2, dtype=L.float64, device=d).requires_grad_(),))),
    "fn/relu_away_from_zero": lambda L, d: gc(L, lambda t: t.relu(), (x(L, d),)),
    "fn/module": lambda L, d: gc(L, L.nn.Tanh(), (x(L, d),)),
    "fn/not_callable": lambda L, d: gc(L, 3, (x(L, d),)),
    "fn/none": lambda L, d: gc(L, None, (x(L, d),)),
    "fn/output_depends_on_one_of_two": lambda L, d: gc(L, lambda a, b: a * 2, (x(L, d), x(L, d))),
    "fn/sparse_output": lambda L, d: first_line_of(lambda: gc(L, lambda t: t.to_sparse(), (x(L, d),))),
    "fn/discontinuous_floor": lambda L, d: first_line_of(lambda: gc(
        L, lambda t: t.floor() + t, (L.tensor([0.5, 1.0 - 1e-7], dtype=L.float64, device=d).requires_grad_(),))),
    # ---- Functions with broken backwards
    "function/square_ok": lambda L, d: gc(L, square(L).apply, (x(L, d),)),
    "function/wrong_shape_grad": lambda L, d: first_line_of(lambda: gc(L, wrong_shape_grad(L).apply, (x(L, d),))),
    "function/too_many_grads": lambda L, d: first_line_of(lambda: gc(L, too_many_grads(L).apply, (x(L, d),))),
    "function/none_grad": lambda L, d: first_line_of(lambda: gc(L, none_grad(L).apply, (x(L, d),))),
    "function/none_grad_no_raise": lambda L, d: gc(L, none_grad(L).apply, (x(L, d),), raise_exception=False),
    "function/float_grad": lambda L, d: first_line_of(lambda: gc(L, float_grad(L).apply, (x(L, d),))),
    "function/wrong_dtype_grad": lambda L, d: gc(L, wrong_dtype_grad(L).apply, (x(L, d),)),
    "function/wrong_dtype_grad_checked": lambda L, d: first_line_of(lambda: gc(
        L, wrong_dtype_grad(L).apply, (x(L, d),), check_grad_dtypes=True)),
    "function/wrong_dtype_checked_no_raise": lambda L, d: gc(L, wrong_dtype_grad(L).apply, (x(L, d),),
                                                             check_grad_dtypes=True, raise_exception=False),
    "function/nondeterministic": lambda L, d: first_line_of(lambda: gc(L, nondeterministic(L).apply, (x(L, d),))),
    "function/nondeterministic_tolerated": lambda L, d: gc(L, nondeterministic(L).apply, (x(L, d),), nondet_tol=1.0,
                                                           atol=1e-1),
    "function/undefined_grad_unchecked": lambda L, d: gc(L, square(L).apply, (x(L, d),), check_undefined_grad=False),
    # ---- options
    "options/eps_zero": lambda L, d: first_line_of(lambda: gc(L, lambda t: t.sin(), (x(L, d),), eps=0.0)),
    "options/eps_negative": lambda L, d: gc(L, lambda t: t.sin(), (x(L, d),), eps=-1e-6),
    "options/eps_huge": lambda L, d: first_line_of(lambda: gc(L, lambda t: t.sin(), (x(L, d),), eps=10.0)),
    "options/atol_zero_rtol_zero": lambda L, d: first_line_of(lambda: gc(L, lambda t: t.sin(), (x(L, d),), atol=0.0,
                                                                         rtol=0.0)),
    "options/atol_negative": lambda L, d: first_line_of(lambda: gc(L, lambda t: t * 2, (x(L, d),), atol=-1.0)),
    "options/atol_nan": lambda L, d: first_line_of(lambda: gc(L, lambda t: t * 2, (x(L, d),), atol=N)),
    "options/atol_huge_wrong_backward": lambda L, d: gc(L, wrong_shape_grad(L).apply, (x(L, d, (1,)),), atol=1e9),
    "options/raise_false_ok": lambda L, d: gc(L, lambda t: t.sin(), (x(L, d),), raise_exception=False),
    "options/raise_false_mismatch": lambda L, d: gc(L, lambda t: t.sin(), (x(L, d),), eps=10.0,
                                                    raise_exception=False),
    "options/raise_false_no_requires_grad": lambda L, d: gc(L, lambda t: t.sin(), (x(L, d).detach(),),
                                                            raise_exception=False),
    "options/backward_ad_false": lambda L, d: first_line_of(lambda: gc(L, lambda t: t.sin(), (x(L, d),),
                                                                       check_backward_ad=False)),
    "options/fast_mode": lambda L, d: gc(L, lambda t: t.sin(), (x(L, d),), fast_mode=True),
    "options/fast_mode_mismatch": lambda L, d: first_line_of(lambda: gc(L, lambda t: t.sin(), (x(L, d),), eps=10.0,
                                                                        fast_mode=True)),
    "options/unknown_kw": lambda L, d: gc(L, lambda t: t.sin(), (x(L, d),), tolerance=1e-3),
    "options/positional_eps": lambda L, d: gc(L, lambda t: t.sin(), (x(L, d),), 1e-6),
    "options/nondet_tol_negative": lambda L, d: gc(L, lambda t: t.sin(), (x(L, d),), nondet_tol=-1.0),
    "options/check_undefined_grad_false": lambda L, d: gc(L, lambda t: t.sin(), (x(L, d),),
                                                          check_undefined_grad=False),
    "options/check_grad_dtypes_ok": lambda L, d: gc(L, lambda t: t.sin(), (x(L, d),), check_grad_dtypes=True),
    "options/masked_false": lambda L, d: gc(L, lambda t: t.sin(), (x(L, d),), masked=False),
    "options/eps_int": lambda L, d: gc(L, lambda t: t * 2, (x(L, d),), eps=1),
    "options/eps_str": lambda L, d: gc(L, lambda t: t * 2, (x(L, d),), eps="a"),
    "options/atol_str": lambda L, d: gc(L, lambda t: t * 2, (x(L, d),), atol="a"),
    # ---- gradgradcheck
    "gradgradcheck/bare_tensor": lambda L, d: ggc(L, lambda t: t ** 3, x(L, d)),
    "gradgradcheck/two_inputs": lambda L, d: ggc(L, lambda a, b: a * a * b, (x(L, d), x(L, d) + 1)),
    "gradgradcheck/grad_outputs_given": lambda L, d: ggc(L, lambda t: t ** 3, (x(L, d),),
                                                         (L.ones(3, dtype=L.float64, device=d),)),
    "gradgradcheck/grad_outputs_bare_tensor": lambda L, d: ggc(L, lambda t: t ** 3, (x(L, d),),
                                                               L.ones(3, dtype=L.float64, device=d)),
    "gradgradcheck/grad_outputs_wrong_shape": lambda L, d: first_line_of(lambda: ggc(
        L, lambda t: t ** 3, (x(L, d),), (L.ones(4, dtype=L.float64, device=d),))),
    "gradgradcheck/grad_outputs_too_many": lambda L, d: first_line_of(lambda: ggc(
        L, lambda t: t ** 3, (x(L, d),), (L.ones(3, dtype=L.float64, device=d),) * 2)),
    "gradgradcheck/grad_outputs_float32": lambda L, d: first_line_of(lambda: ggc(
        L, lambda t: t ** 3, (x(L, d),), (L.ones(3, device=d),))),
    "gradgradcheck/grad_outputs_list_of_floats": lambda L, d: first_line_of(lambda: ggc(
        L, lambda t: t ** 3, (x(L, d),), [1.0, 1.0, 1.0])),
    "gradgradcheck/grad_outputs_requires_grad": lambda L, d: ggc(L, lambda t: t ** 3, (x(L, d),), (x(L, d),)),
    "gradgradcheck/non_contig_grad_outputs": lambda L, d: ggc(L, lambda t: t ** 3, (x(L, d, (2, 3)),),
                                                              gen_non_contig_grad_outputs=True),
    "gradgradcheck/tuple_outputs": lambda L, d: ggc(L, lambda t: (t ** 3, t.sin()), (x(L, d),)),
    "gradgradcheck/linear_fn": lambda L, d: ggc(L, lambda t: t * 2, (x(L, d),)),
    "gradgradcheck/first_order_only": lambda L, d: first_line_of(lambda: ggc(L, first_order_only(L).apply,
                                                                             (x(L, d),))),
    "gradgradcheck/wrong_double_backward": lambda L, d: first_line_of(lambda: ggc(
        L, wrong_double_backward(L).apply, (x(L, d),))),
    "gradgradcheck/wrong_double_backward_no_raise": lambda L, d: ggc(L, wrong_double_backward(L).apply, (x(L, d),),
                                                                     raise_exception=False),
    "gradgradcheck/no_requires_grad": lambda L, d: ggc(L, lambda t: t ** 3, (x(L, d).detach(),)),
    "gradgradcheck/int_output": lambda L, d: first_line_of(lambda: ggc(L, lambda t: (t * 10).long(), (x(L, d),))),
    "gradgradcheck/detached_output": lambda L, d: first_line_of(lambda: ggc(L, lambda t: t.detach() ** 2,
                                                                            (x(L, d),))),
    "gradgradcheck/float32": lambda L, d: first_line_of(lambda: ggc(L, lambda t: t ** 3,
                                                                    (x(L, d, dtype="float32"),))),
    "gradgradcheck/complex": lambda L, d: ggc(L, lambda t: (t * t * t).real, (x(L, d).detach().to(L.complex128)
                                                                               .requires_grad_(),)),
    "gradgradcheck/unknown_kw": lambda L, d: ggc(L, lambda t: t ** 3, (x(L, d),), tolerance=1),
    "gradgradcheck/check_fwd_over_rev_false": lambda L, d: ggc(L, lambda t: t ** 3, (x(L, d),),
                                                               check_fwd_over_rev=False, check_rev_over_rev=True),
    "gradgradcheck/rev_over_rev_false": lambda L, d: first_line_of(lambda: ggc(
        L, lambda t: t ** 3, (x(L, d),), check_rev_over_rev=False)),
    "gradgradcheck/eps_zero": lambda L, d: first_line_of(lambda: ggc(L, lambda t: t ** 3, (x(L, d),), eps=0.0)),
    "gradgradcheck/relu": lambda L, d: ggc(L, lambda t: t.relu() * t, (x(L, d),)),
    "gradgradcheck/empty": lambda L, d: ggc(L, lambda t: t ** 3, (x(L, d, (0,)),)),
    "gradgradcheck/0d": lambda L, d: ggc(L, lambda t: t ** 3, (x(L, d, ()),)),
    "gradgradcheck/module": lambda L, d: ggc(L, L.nn.Tanh(), (x(L, d),)),
    "gradgradcheck/fn_raises": lambda L, d: ggc(L, lambda t: (_ for _ in ()).throw(KeyError("k")), (x(L, d),)),
    # ---- more functions, inputs and options
    "more/matmul_two_inputs": lambda L, d: gc(L, lambda a, b: a @ b, (x(L, d, (2, 3)), x(L, d, (3, 2)))),
    "more/sum_to_scalar": lambda L, d: gc(L, lambda t: t.sum(), (x(L, d, (2, 3)),)),
    "more/cumsum": lambda L, d: gc(L, lambda t: t.cumsum(0), (x(L, d, (4,)),)),
    "more/softmax": lambda L, d: gc(L, lambda t: t.softmax(-1), (x(L, d, (2, 3)),)),
    "more/index_select_grad": lambda L, d: gc(L, lambda t: t[L.tensor([0, 0, 2], device=d)], (x(L, d),)),
    "more/sqrt_at_zero": lambda L, d: first_line_of(lambda: gc(L, lambda t: t.sqrt(), (
        L.tensor([0.0, 1.0], dtype=L.float64, device=d).requires_grad_(),))),
    "more/sqrt_at_zero_no_raise": lambda L, d: gc(L, lambda t: t.sqrt(), (
        L.tensor([0.0, 1.0], dtype=L.float64, device=d).requires_grad_(),), raise_exception=False),
    "more/log_negative_nan": lambda L, d: first_line_of(lambda: gc(L, lambda t: t.log(), (
        L.tensor([-1.0, 1.0], dtype=L.float64, device=d).requires_grad_(),))),
    "more/output_nan_constant": lambda L, d: gc(L, lambda t: t * 0 + float("nan"), (x(L, d),)),
    "more/output_inf": lambda L, d: first_line_of(lambda: gc(L, lambda t: t / 0.0, (x(L, d),))),
    "more/huge_values": lambda L, d: first_line_of(lambda: gc(L, lambda t: t * 1e30, (x(L, d),))),
    "more/rtol_only_huge": lambda L, d: gc(L, lambda t: t * t.detach(), (x(L, d),), rtol=1e9),
    "more/atol_inf": lambda L, d: gc(L, lambda t: t * t.detach(), (x(L, d),), atol=float("inf")),
    "more/nondet_tol_inf": lambda L, d: gc(L, nondeterministic(L).apply, (x(L, d),), nondet_tol=float("inf"),
                                           atol=1e-1),
    "more/nondet_tol_nan": lambda L, d: first_line_of(lambda: gc(L, lambda t: t.sin(), (x(L, d),),
                                                                 nondet_tol=N)),
    "more/eps_nan": lambda L, d: first_line_of(lambda: gc(L, lambda t: t * 2, (x(L, d),), eps=N)),
    "more/eps_tensor": lambda L, d: first_line_of(lambda: gc(L, lambda t: t * 2, (x(L, d),), eps=L.tensor(1e-6))),
    "more/eps_bool": lambda L, d: first_line_of(lambda: gc(L, lambda t: t * 2, (x(L, d),), eps=True)),
    "more/atol_bool": lambda L, d: gc(L, lambda t: t * 2, (x(L, d),), atol=True),
    "more/inputs_generator": lambda L, d: first_line_of(lambda: gc(L, lambda t: t * 2, (t for t in [x(L, d)]))),
    "more/inputs_set": lambda L, d: first_line_of(lambda: gc(L, lambda t: t * 2, {1, 2})),
    "more/two_outputs_one_detached": lambda L, d: gc(L, lambda t: (t.sin(), t.detach() * 2), (x(L, d),)),
    "more/two_outputs_first_detached": lambda L, d: gc(L, lambda t: (t.detach() * 2, t.sin()), (x(L, d),)),
    "more/output_scalar_0d": lambda L, d: gc(L, lambda t: (t * t).sum(), (x(L, d),)),
    "more/output_expanded": lambda L, d: gc(L, lambda t: t.expand(2, 3), (x(L, d),)),
    "more/output_transposed": lambda L, d: gc(L, lambda t: t.t(), (x(L, d, (2, 3)),)),
    "more/complex_input_real_output_abs": lambda L, d: gc(L, lambda t: t.abs(), (
        L.tensor([1 + 1j, -2 + 0.5j], dtype=L.complex128, device=d).requires_grad_(),)),
    "more/complex_mismatch": lambda L, d: first_line_of(lambda: gc(L, lambda t: t * t.detach(), (
        L.tensor([1 + 1j, -2 + 0.5j], dtype=L.complex128, device=d).requires_grad_(),))),
    "more/float_and_complex_inputs": lambda L, d: gc(L, lambda a, z: (a * z).real, (
        x(L, d, (2,)), L.tensor([1 + 1j, 0.5j], dtype=L.complex128, device=d).requires_grad_())),
    "more/wrong_grad_second_input": lambda L, d: first_line_of(lambda: gc(L, lambda a, b: a * b.detach() + b,
                                                                          (x(L, d), x(L, d) + 1))),
    "more/wrong_grad_second_output": lambda L, d: first_line_of(lambda: gc(L, lambda t: (t * 2, t * t.detach()),
                                                                           (x(L, d),))),
    "more/gradgradcheck_wrong_second_input": lambda L, d: first_line_of(lambda: ggc(
        L, lambda a, b: a * a * b.detach() + b * b, (x(L, d), x(L, d) + 1))),
    "more/gradgradcheck_grad_outputs_none_entry": lambda L, d: first_line_of(lambda: ggc(
        L, lambda t: t ** 3, (x(L, d),), (None,))),
    "more/gradgradcheck_atol_negative": lambda L, d: first_line_of(lambda: ggc(L, lambda t: t ** 3, (x(L, d),),
                                                                               atol=-1.0)),
    "more/gradgradcheck_nondet_negative": lambda L, d: first_line_of(lambda: ggc(L, lambda t: t ** 3, (x(L, d),),
                                                                                 nondet_tol=-1.0)),
    "more/pow_negative_real_base_complex_exponent": lambda L, d: gc(L, lambda b: L.tensor(
        [-0.6693, 2.0], dtype=L.float64, device=d) ** b, (L.tensor([0.5 + 0.25j, 1 - 1j], dtype=L.complex128,
                                                                   device=d).requires_grad_(),)),
    "more/analytical_nan": lambda L, d: first_line_of(lambda: gc(L, function(
        L, lambda ctx, t: t * 2, lambda ctx, g: g * float("nan")).apply, (x(L, d),))),
    # ---- the error type
    "error/is_runtime_error": lambda L, d: (lambda: (lambda e: (isinstance(e, RuntimeError), type(e).__name__))(
        _caught(lambda: gc(L, lambda t: t.sin(), (x(L, d),), eps=10.0))))(),
    "error/class_exported": lambda L, d: issubclass(L.autograd.gradcheck.GradcheckError, RuntimeError),
    "error/function_module_import": lambda L, d: L.autograd.gradcheck.__class__.__name__,
}


def _caught(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return e
    return None


KNOWN = {}
