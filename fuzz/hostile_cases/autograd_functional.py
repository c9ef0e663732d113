"""torch.autograd.functional (jacobian, hessian, vjp, jvp, hvp, vhp) with outputs that are not tensors, v of the
wrong shape or count, create_graph/strict/vectorize/strategy options, inputs that do not reach the output, integer
inputs; torch.autograd.forward_ad (dual levels, tangents of the wrong shape or dtype, unpack outside a level);
torch.utils.checkpoint (use_reentrant both ways, inputs without grad, non-tensor outputs, preserve_rng_state,
keyword arguments), and gradcheck/gradgradcheck on float32 inputs, wrong gradients and non-tensor outputs."""
from . import R, T


def F(L):
    return L.autograd.functional


def x3(L, d):
    return R(L, (3,), d)


def cube(x):
    return (x ** 3).sum()


def square(x):
    return x ** 2


def checkpointed(L, d, fn, *inputs, **kw):
    """fn through checkpoint, then backward of the sum: the gradients of the inputs that require grad."""
    out = L.utils.checkpoint.checkpoint(fn, *inputs, **kw)
    (out if isinstance(out, L.Tensor) else out[0]).sum().backward()
    return [i.grad for i in inputs if isinstance(i, L.Tensor) and i.requires_grad]


def leaf(L, d, shape=(3,)):
    return R(L, shape, d).requires_grad_()


def dual_value(L, d, primal, tangent):
    fwAD = L.autograd.forward_ad
    with fwAD.dual_level():
        y = fwAD.make_dual(primal, tangent).sin()
        return fwAD.unpack_dual(y).tangent


def wrong_backward(L):
    class Wrong(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 3

    return Wrong.apply


CASES = {
    # ---- jacobian / hessian
    "jacobian/ok": lambda L, d: F(L).jacobian(square, x3(L, d)),
    "jacobian/tuple_inputs": lambda L, d: F(L).jacobian(lambda a, b: a * b, (x3(L, d), x3(L, d) + 1)),
    "jacobian/output_not_tensor": lambda L, d: F(L).jacobian(lambda x: 3.0, x3(L, d)),
    "jacobian/output_tuple_ok": lambda L, d: F(L).jacobian(lambda x: (x * 2, x.sum()), x3(L, d)),
    "jacobian/input_not_tensor": lambda L, d: F(L).jacobian(square, 3.0),
    "jacobian/int_input": lambda L, d: F(L).jacobian(square, T(L, [1, 2], d)),
    "jacobian/unused_input": lambda L, d: F(L).jacobian(lambda a, b: a * 2, (x3(L, d), x3(L, d))),
    "jacobian/unused_input_strict": lambda L, d: F(L).jacobian(lambda a, b: a * 2, (x3(L, d), x3(L, d)),
                                                               strict=True),
    "jacobian/independent_output_strict": lambda L, d: F(L).jacobian(lambda x: L.ones(2, device=d), x3(L, d),
                                                                      strict=True),
    "jacobian/vectorize_ok": lambda L, d: F(L).jacobian(square, x3(L, d), vectorize=True),
    "jacobian/forward_mode_no_vectorize": lambda L, d: F(L).jacobian(square, x3(L, d), strategy="forward-mode"),
    "jacobian/bad_strategy": lambda L, d: F(L).jacobian(square, x3(L, d), strategy="sideways"),
    "jacobian/strict_and_vectorize": lambda L, d: F(L).jacobian(square, x3(L, d), strict=True, vectorize=True),
    "jacobian/0d_input": lambda L, d: F(L).jacobian(lambda x: x * 3, T(L, 2.0, d, "float64")),
    "jacobian/empty_input": lambda L, d: F(L).jacobian(square, R(L, (0,), d)),
    "jacobian/create_graph": lambda L, d: F(L).jacobian(square, x3(L, d), create_graph=True).requires_grad,
    "hessian/ok": lambda L, d: F(L).hessian(cube, x3(L, d)),
    "hessian/non_scalar_output": lambda L, d: F(L).hessian(square, x3(L, d)),
    "hessian/linear_strict": lambda L, d: F(L).hessian(lambda x: x.sum(), x3(L, d), strict=True),
    "hessian/linear_ok": lambda L, d: F(L).hessian(lambda x: x.sum(), x3(L, d)),
    "hessian/tuple_inputs": lambda L, d: F(L).hessian(lambda a, b: (a * b).sum(), (x3(L, d), x3(L, d))),
    # ---- vjp / jvp / hvp / vhp
    "vjp/ok": lambda L, d: F(L).vjp(square, x3(L, d), x3(L, d) + 1),
    "vjp/v_wrong_shape": lambda L, d: F(L).vjp(square, x3(L, d), R(L, (2,), d)),
    "vjp/v_missing_non_scalar": lambda L, d: F(L).vjp(square, x3(L, d)),
    "vjp/v_none_scalar_ok": lambda L, d: F(L).vjp(cube, x3(L, d)),
    "vjp/v_not_tensor": lambda L, d: F(L).vjp(square, x3(L, d), 1.0),
    "vjp/v_count_wrong": lambda L, d: F(L).vjp(square, x3(L, d), (x3(L, d), x3(L, d))),
    "jvp/ok": lambda L, d: F(L).jvp(square, x3(L, d), x3(L, d) + 1),
    "jvp/v_wrong_shape": lambda L, d: F(L).jvp(square, x3(L, d), R(L, (4,), d)),
    "jvp/v_missing": lambda L, d: F(L).jvp(square, x3(L, d)),
    "jvp/scalar_input_v_none": lambda L, d: F(L).jvp(lambda x: x * 2, T(L, [2.0], d, "float64")),
    "hvp/ok": lambda L, d: F(L).hvp(cube, x3(L, d), x3(L, d) + 1),
    "hvp/non_scalar": lambda L, d: F(L).hvp(square, x3(L, d), x3(L, d)),
    "hvp/v_wrong_shape": lambda L, d: F(L).hvp(cube, x3(L, d), R(L, (2,), d)),
    "vhp/ok": lambda L, d: F(L).vhp(cube, x3(L, d), x3(L, d) - 1),
    "vhp/strict_linear": lambda L, d: F(L).vhp(lambda x: x.sum(), x3(L, d), x3(L, d), strict=True),
    # ---- forward_ad
    "forward_ad/ok": lambda L, d: dual_value(L, d, x3(L, d), x3(L, d) + 1),
    "forward_ad/tangent_wrong_shape": lambda L, d: dual_value(L, d, x3(L, d), R(L, (2,), d)),
    "forward_ad/tangent_wrong_dtype": lambda L, d: dual_value(L, d, x3(L, d), R(L, (3,), d, "float32")),
    "forward_ad/tangent_int": lambda L, d: dual_value(L, d, x3(L, d), T(L, [1, 2, 3], d)),
    "forward_ad/primal_int": lambda L, d: dual_value(L, d, T(L, [1, 2, 3], d), T(L, [1, 2, 3], d)),
    "forward_ad/make_dual_outside_level": lambda L, d: L.autograd.forward_ad.make_dual(x3(L, d), x3(L, d)),
    "forward_ad/unpack_plain": lambda L, d: (lambda u: (u.primal, u.tangent))(
        L.autograd.forward_ad.unpack_dual(x3(L, d))),
    # ---- checkpoint
    "checkpoint/non_reentrant_ok": lambda L, d: checkpointed(L, d, lambda x: x.sin() * 2, leaf(L, d),
                                                             use_reentrant=False),
    "checkpoint/reentrant_ok": lambda L, d: checkpointed(L, d, lambda x: x.sin() * 2, leaf(L, d),
                                                         use_reentrant=True),
    "checkpoint/reentrant_no_grad_inputs": lambda L, d: checkpointed(L, d, lambda x: x.sin(), R(L, (3,), d),
                                                                     use_reentrant=True),
    "checkpoint/non_reentrant_no_grad_inputs": lambda L, d: checkpointed(L, d, lambda x: x.sin(), R(L, (3,), d),
                                                                         use_reentrant=False),
    "checkpoint/non_tensor_arg": lambda L, d: checkpointed(L, d, lambda x, k: x * k, leaf(L, d), 3.0,
                                                           use_reentrant=False),
    "checkpoint/tuple_output": lambda L, d: checkpointed(L, d, lambda x: (x * 2, x * 3), leaf(L, d),
                                                         use_reentrant=False),
    "checkpoint/kwargs_reentrant": lambda L, d: L.utils.checkpoint.checkpoint(lambda x, y=1: x * y, leaf(L, d),
                                                                              y=2, use_reentrant=True),
    "checkpoint/kwargs_non_reentrant": lambda L, d: L.utils.checkpoint.checkpoint(
        lambda x, y=1: x * y, leaf(L, d), y=2, use_reentrant=False).sum().item(),
    "checkpoint/bad_kwarg": lambda L, d: L.utils.checkpoint.checkpoint(lambda x: x, leaf(L, d), use_reentrant=False,
                                                                       frobnicate=True),
    "checkpoint/dropout_preserved": lambda L, d: (lambda x: checkpointed(
        L, d, lambda t: L.nn.functional.dropout(t, 0.5) * 1.0, x, use_reentrant=False)[0].shape)(
        leaf(L, d, (8,))),
    "checkpoint/not_callable": lambda L, d: L.utils.checkpoint.checkpoint(3, leaf(L, d), use_reentrant=False),
    "checkpoint_sequential/ok": lambda L, d: (lambda seq: L.utils.checkpoint.checkpoint_sequential(
        seq, 2, leaf(L, d, (2, 3)), use_reentrant=False).shape)(
        L.nn.Sequential(L.nn.ReLU(), L.nn.Tanh(), L.nn.Sigmoid())),
    "checkpoint_sequential/segments_zero": lambda L, d: L.utils.checkpoint.checkpoint_sequential(
        L.nn.Sequential(L.nn.ReLU()), 0, leaf(L, d), use_reentrant=False),
    "checkpoint_sequential/segments_past": lambda L, d: L.utils.checkpoint.checkpoint_sequential(
        L.nn.Sequential(L.nn.ReLU(), L.nn.Tanh()), 5, leaf(L, d), use_reentrant=False).shape,
    # ---- gradcheck
    "gradcheck/ok": lambda L, d: L.autograd.gradcheck(lambda x: x.sin(), (leaf(L, d),)),
    "gradcheck/float32": lambda L, d: L.autograd.gradcheck(lambda x: x.sin(), (R(L, (3,), d, "float32")
                                                                                .requires_grad_(),)),
    "gradcheck/wrong_backward": lambda L, d: L.autograd.gradcheck(wrong_backward(L), (leaf(L, d),)),
    "gradcheck/wrong_backward_no_raise": lambda L, d: L.autograd.gradcheck(wrong_backward(L), (leaf(L, d),),
                                                                           raise_exception=False),
    "gradcheck/no_requires_grad": lambda L, d: L.autograd.gradcheck(lambda x: x.sin(), (R(L, (3,), d),)),
    "gradcheck/non_tensor_output": lambda L, d: L.autograd.gradcheck(lambda x: 3.0, (leaf(L, d),)),
    "gradgradcheck/ok": lambda L, d: L.autograd.gradgradcheck(lambda x: x.sin() * x, (leaf(L, d),)),
}

KNOWN = {}
