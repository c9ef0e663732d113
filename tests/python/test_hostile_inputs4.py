"""Regression tests for what the fourth round of the differential hostile-input harness (fuzz/hostile_diff.py, the
fft, complex_ops, autograd_api, random_sampling, index_ops, shape_ops and distributions tables) found: one case
per finding, written once for both libraries and run with PyTorch (the oracle, on the CPU) and tandem on every
device. Where PyTorch raises, tandem raises the same exception type with PyTorch's first line (tandem may add a
`hint:` line); where PyTorch returns, tandem returns the same values, dtype and shape (random draws: the same
dtype and shape)."""
import numpy as np
import pytest
import torch

import tandem
from hostile_helpers import T, X, assert_matches_pytorch


def Z(L, shape, d="cpu"):
    """Deterministic complex64 values."""
    return L.complex(X(L, shape, d), X(L, shape, d).flip(-1) * 0.6)


def leaf(L, d, shape=(3,)):
    return X(L, shape, d).requires_grad_()


def hooked(L, d, hook):
    x = leaf(L, d)
    x.register_hook(hook)
    (x * 2).sum().backward()
    return x.grad


def set_grad(L, d, value):
    x = leaf(L, d)
    x.grad = x if value == "self" else value
    return x.grad


def grad_mode_set(L, mode):
    try:
        L.set_grad_enabled(mode)
    finally:
        L.set_grad_enabled(True)


def global_seed(L, value):
    try:
        return L.manual_seed(value).initial_seed()
    finally:
        L.manual_seed(0)


class _Double(object):
    """A custom Function (one class per library) that doubles its input in place and marks it dirty."""

    @staticmethod
    def make(L):
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        def backward(ctx, g):
            return g * 2
        return type("Double", (L.autograd.Function,), {"forward": staticmethod(forward),
                                                       "backward": staticmethod(backward)})


def mark_dirty_grad(L, d):
    a = leaf(L, d)
    b = a * 1
    c = _Double.make(L).apply(b)
    c.sum().backward()
    return c is b, b.grad_fn is not None, a.grad


def custom(L, backward, forward):
    return type("Scale", (L.autograd.Function,), {"forward": staticmethod(forward),
                                                  "backward": staticmethod(backward)})


def run_custom(L, d, backward, forward=lambda ctx, x, y: x * 2 + y):
    x, y = leaf(L, d), leaf(L, d)
    custom(L, backward, forward).apply(x, y).sum().backward()
    return x.grad, y.grad


def _save_int(ctx, x, y):
    ctx.save_for_backward(x, 3)
    return x + y


def _dirty_not_returned(ctx, x, y):
    ctx.mark_dirty(x)
    return x * 2


def _saved_exp_modified(L, d):
    x = leaf(L, d)
    y = x.exp()
    y.add_(1)
    y.sum().backward()


def _batched_grad(L, d, g):
    x = leaf(L, d)
    return L.autograd.grad(x * 2, x, g, is_grads_batched=True)


CASES = {
    # ---- complex tensors through ops that refuse or accept them
    "aminmax/complex": lambda L, d: L.aminmax(Z(L, (4,), d)),
    "fmax/complex": lambda L, d: L.fmax(Z(L, (4,), d), Z(L, (4,), d)),
    "fmin/complex": lambda L, d: L.fmin(Z(L, (4,), d), Z(L, (4,), d)),
    "isposinf/complex": lambda L, d: L.isposinf(Z(L, (4,), d)),
    "isneginf/complex": lambda L, d: L.isneginf(Z(L, (4,), d)),
    "nan_to_num/complex": lambda L, d: L.nan_to_num(T(L, [complex(float("nan"), float("inf")), 1j,
                                                          complex(float("-inf"), float("nan"))], d)),
    "bincount/complex_weights": lambda L, d: L.bincount(T(L, [0, 1, 1], d), weights=Z(L, (3,), d)),
    "sum/complex_to_float": lambda L, d: Z(L, (2, 3), d).sum(1, dtype=L.float32),
    "clamp/complex_tensor_bounds": lambda L, d: L.clamp(Z(L, (4,), d), Z(L, (4,), d), Z(L, (4,), d)),
    "clamp/real_complex_bound": lambda L, d: L.clamp(X(L, (4,), d), min=1j),
    "kthvalue/complex": lambda L, d: Z(L, (4,), d).kthvalue(1),
    "mode/complex": lambda L, d: Z(L, (4,), d).mode(),
    "fmod/complex": lambda L, d: L.fmod(Z(L, (4,), d), 2),
    "div/complex_trunc": lambda L, d: L.div(Z(L, (4,), d), 2, rounding_mode="trunc"),
    "div/complex_floor": lambda L, d: L.div(Z(L, (4,), d), 2, rounding_mode="floor"),
    "floor_divide/complex": lambda L, d: L.floor_divide(Z(L, (4,), d), 2),
    "searchsorted/complex": lambda L, d: L.searchsorted(Z(L, (4,), d), Z(L, (4,), d)),
    "bucketize/complex": lambda L, d: L.bucketize(Z(L, (4,), d), X(L, (4,), d).sort().values),
    "logcumsumexp/complex": lambda L, d: L.logcumsumexp(Z(L, (2, 5), d).to(L.complex128), 1),
    "view_as_complex/0dim": lambda L, d: L.view_as_complex(T(L, 1.0, d)),
    "view_as_complex/complex": lambda L, d: L.view_as_complex(Z(L, (2, 2), d)),
    "type/complex": lambda L, d: Z(L, (2,), d).type().replace("tandem", "torch").replace("torch.cuda.", "torch."),
    # ---- the autograd API misused
    "Function/grad_number": lambda L, d: run_custom(L, d, lambda ctx, g: (2.0, g)),
    "Function/mark_dirty": lambda L, d: mark_dirty_grad(L, d),
    "Function/mark_dirty_leaf": lambda L, d: _Double.make(L).apply(leaf(L, d)),
    "Function/dirty_not_returned": lambda L, d: run_custom(L, d, lambda ctx, g: (g, g), _dirty_not_returned),
    "Function/save_int": lambda L, d: run_custom(L, d, lambda ctx, g: (g, g), _save_int),
    "backward/grad_count_mismatch": lambda L, d: L.autograd.backward([(leaf(L, d) * 2).sum(),
                                                                      (leaf(L, d) * 3).sum()], [T(L, 1.0, d)]),
    "backward/gradient_wrong_shape": lambda L, d: (leaf(L, d) * 2).backward(L.ones(2, device=d)),
    "backward/inputs_empty": lambda L, d: (leaf(L, d) * 2).sum().backward(inputs=[]),
    "backward/inputs_not_requiring": lambda L, d: (leaf(L, d) * 2).sum().backward(inputs=[X(L, (3,), d)]),
    "autograd.grad/inputs_empty": lambda L, d: L.autograd.grad((leaf(L, d) * 2).sum(), []),
    "autograd.grad/unused": lambda L, d: (lambda x, w: L.autograd.grad((x * 2).sum(), (x, w)))(leaf(L, d),
                                                                                              leaf(L, d)),
    "autograd.grad/is_grads_batched_shape": lambda L, d: _batched_grad(L, d, L.ones(3, device=d)),
    "autograd.grad/is_grads_batched_ok": lambda L, d: _batched_grad(L, d, X(L, (2, 3), d)),
    "detach_/view": lambda L, d: (leaf(L, d, (2, 3)) * 1)[0].detach_(),
    "requires_grad_/int": lambda L, d: T(L, [1, 2], d).requires_grad_(),
    "requires_grad/attr_int": lambda L, d: setattr(T(L, [1, 2], d), "requires_grad", True),
    "func.grad/int_input": lambda L, d: L.func.grad(lambda x: x.sum())(T(L, [1, 2], d)),
    "grad/set_wrong_shape": lambda L, d: set_grad(L, d, L.ones(4, device=d)),
    "grad/set_wrong_dtype": lambda L, d: set_grad(L, d, L.ones(3, device=d, dtype=L.float64)),
    "grad/set_int": lambda L, d: set_grad(L, d, L.ones(3, device=d, dtype=L.int64)),
    "grad/set_number": lambda L, d: set_grad(L, d, 3.0),
    "grad/set_self": lambda L, d: set_grad(L, d, "self"),
    "hook/wrong_shape": lambda L, d: hooked(L, d, lambda g: g[:2]),
    "hook/wrong_dtype": lambda L, d: hooked(L, d, lambda g: g.double()),
    "hook/returns_number": lambda L, d: hooked(L, d, lambda g: 3.0),
    "hook/scales": lambda L, d: hooked(L, d, lambda g: g * 10),
    "hook/intermediate_wrong_shape": lambda L, d: (lambda x: (lambda y: (y.register_hook(lambda g: g.sum()),
                                                                         y.sum().backward()))(x * 2))(leaf(L, d)),
    "hook/post_accumulate_returns": lambda L, d: (lambda x: (x.register_post_accumulate_grad_hook(
        lambda t: t.grad * 3), (x * 2).sum().backward()))(leaf(L, d)),
    "inplace/saved_exp": lambda L, d: _saved_exp_modified(L, d),
    "set_grad_enabled/int": lambda L, d: grad_mode_set(L, 1),
    "set_grad_enabled/none": lambda L, d: grad_mode_set(L, None),
    "vmap/empty_batch": lambda L, d: L.func.vmap(lambda x: x * 2)(L.ones(0, 3, device=d)),
    "vmap/empty_batch_out_dims": lambda L, d: L.func.vmap(lambda x: (x.sum(), x), out_dims=(0, 1))(
        L.ones(0, 3, device=d)),
    # ---- random sampling: generators, seeds, parameters
    "Generator/device_float": lambda L, d: L.Generator(device=3.5),
    "Generator/seed_bool": lambda L, d: L.Generator().manual_seed(True),
    "Generator/seed_float": lambda L, d: L.Generator().manual_seed(1.5),
    "Generator/seed_str": lambda L, d: L.Generator().manual_seed("7"),
    "Generator/seed_tensor": lambda L, d: L.Generator().manual_seed(T(L, 7)),
    "Generator/seed_none": lambda L, d: L.Generator().manual_seed(None),
    "Generator/seed_numpy": lambda L, d: L.Generator().manual_seed(np.int64(5)).initial_seed(),
    "Generator/set_state_list": lambda L, d: L.Generator().set_state([1, 2]),
    "set_rng_state/list": lambda L, d: L.set_rng_state([0, 1]),
    "manual_seed/float": lambda L, d: global_seed(L, 2.0),
    "manual_seed/str": lambda L, d: global_seed(L, "3"),
    "manual_seed/numpy_int": lambda L, d: global_seed(L, np.int64(5)),
    "multinomial/nan_replacement": lambda L, d: L.multinomial(T(L, [1.0, float("nan")], d), 2, True),
    "multinomial/inf_replacement_first": lambda L, d: L.multinomial(T(L, [float("inf"), -1.0], d), 2, True),
    "multinomial/out_float": lambda L, d: L.multinomial(T(L, [0.5, 0.5], d), 2, out=L.empty(0, device=d)),
    "multinomial/samples_float": lambda L, d: L.multinomial(T(L, [0.5, 0.5], d), 1.0),
    "multinomial/method_samples_float": lambda L, d: T(L, [0.5, 0.5], d).multinomial(1.0),
    "normal/complex_mean": lambda L, d: L.normal(L.zeros(3, device=d, dtype=L.complex64), 2.0),
    "normal/complex_mean_tensor_std": lambda L, d: L.normal(L.zeros(3, device=d, dtype=L.complex64),
                                                            L.ones(3, device=d)),
    "normal/complex_std": lambda L, d: L.normal(0.0, L.ones(3, device=d, dtype=L.complex64)),
    "normal/mean_tensor_size": lambda L, d: L.normal(L.zeros(3, device=d), 1.0, size=(3,)),
    "normal/out_int": lambda L, d: L.normal(L.zeros(3, device=d), 1.0, out=L.empty(3, device=d,
                                                                                   dtype=L.int64)),
    "randint/complex_dtype": lambda L, d: L.randint(5, (3,), device=d, dtype=L.complex64),
    "random_/complex": lambda L, d: L.zeros(2, device=d, dtype=L.complex64).random_(),
    "randperm/complex": lambda L, d: L.randperm(3, device=d, dtype=L.complex64),
    "uniform_/range_overflow": lambda L, d: L.zeros(2, device=d).uniform_(-3e38, 3e38),
    "uniform_/range_overflow_float64": lambda L, d: L.zeros(2, device=d, dtype=L.float64).uniform_(-1e308, 1e308),
    "uniform_/half_range": lambda L, d: L.zeros(2, device=d, dtype=L.float16).uniform_(-60000, 60000),
    # ---- index ops
    "index_add/alpha_complex": lambda L, d: X(L, (3, 4), d).index_add(0, T(L, [0], d), X(L, (1, 4), d),
                                                                     alpha=1j),
    "index_add/source_0dim_self_1d": lambda L, d: T(L, [1.0, 2.0], d).index_add(0, T(L, [1], d), T(L, 5.0, d)),
    "index_copy/source_rank_wrong": lambda L, d: X(L, (3, 4), d).index_copy(0, T(L, [1], d), X(L, (4,), d)),
    "index_fill/2d_index": lambda L, d: X(L, (3, 4), d).index_fill(1, T(L, [[2]], d), 1.0),
    "index_fill/complex_into_real": lambda L, d: X(L, (3, 4), d).index_fill(1, T(L, [2], d), 1j),
    "index_put_/indices_not_tensor": lambda L, d: X(L, (3, 4), d).index_put_(([0, 2],), T(L, 1.0, d)),
    "index_put_/none_index": lambda L, d: X(L, (3, 4), d).index_put_((None, T(L, [1], d)), T(L, 1.0, d)),
    "index_put/function_none_index": lambda L, d: L.index_put(X(L, (3, 4), d), (T(L, [1], d), None),
                                                              T(L, 1.0, d)),
    "index_put_/too_many_indices": lambda L, d: X(L, (3, 4), d).index_put_((T(L, [0], d),) * 3, T(L, 1.0, d)),
    "nonzero/out_wrong_dtype": lambda L, d: L.nonzero(X(L, (3, 4), d) > 1, out=L.empty(0, device=d)),
    "scatter_add/src_dtype": lambda L, d: X(L, (3, 4), d).scatter_add(1, T(L, [[0]], d), X(L, (1, 1), d,
                                                                                          "float64")),
    "scatter_reduce/src_number": lambda L, d: X(L, (3, 4), d).scatter_reduce(1, T(L, [[0]], d), 2.0, "sum"),
    "scatter_reduce/function_src_number": lambda L, d: L.scatter_reduce(X(L, (3, 4), d), 1, T(L, [[0]], d), 2.0,
                                                                        "sum"),
    "select/index_past": lambda L, d: X(L, (3, 4), d).select(0, 3),
    "select/negative_index_past": lambda L, d: X(L, (3, 4), d).select(-1, -5),
    "select/0dim": lambda L, d: T(L, 1.0, d).select(0, 0),
    "select_scatter/index_past": lambda L, d: L.select_scatter(X(L, (3, 4), d), X(L, (4,), d), 0, 3),
    "slice_scatter/step_zero": lambda L, d: L.slice_scatter(X(L, (3, 4), d), X(L, (3, 2), d), 1, 0, 4, 0),
    # ---- shape ops
    "block_diag/not_tensor": lambda L, d: L.block_diag(X(L, (2, 2), d), [1.0]),
    "combinations/r_float": lambda L, d: L.combinations(X(L, (3,), d), r=2.0),
    "einsum/operand_not_tensor": lambda L, d: L.einsum("i->i", [1.0, 2.0]),
    "tensordot/dims_float": lambda L, d: L.tensordot(X(L, (2, 3), d), X(L, (3, 2), d), dims=1.0),
    "unflatten/0dim": lambda L, d: T(L, 1.0, d).unflatten(0, (1,)),
    "unflatten/two_inferred": lambda L, d: X(L, (6,), d).unflatten(0, (-1, -1)),
    "unflatten/negative_size": lambda L, d: X(L, (6,), d).unflatten(0, (-2, -3)),
    "unflatten/zero_size": lambda L, d: L.ones(0, device=d).unflatten(0, (0, -1)),
    "unflatten/inferred": lambda L, d: X(L, (2, 6), d).unflatten(1, (3, -1)),
    "Size/float": lambda L, d: L.Size((2.0,)),
    "Size/none_element": lambda L, d: L.Size([1, None]),
    "Size/tensor_and_bool": lambda L, d: L.Size((T(L, 2), True)),
    "expand/fewer_dims": lambda L, d: X(L, (1, 2), d).expand(2),
    "Normal/sample_float": lambda L, d: L.distributions.Normal(X(L, (2,), d), L.ones(2, device=d)).sample((2.0,)),
    # ---- fft and stft
    "fft2/out_wrong_dtype": lambda L, d: L.fft.fft2(Z(L, (3, 4), d), out=L.empty(0, device=d, dtype=L.int32)),
    "ifftn/out_wrong_dtype": lambda L, d: L.fft.ifftn(Z(L, (3, 4), d), out=L.empty(0, device=d)),
    "hfft2/dim_empty": lambda L, d: L.fft.hfft2(Z(L, (3, 4), d), dim=()),
    "irfft2/out_wrong_dtype": lambda L, d: L.fft.irfft2(Z(L, (3, 4), d), out=L.empty(0, device=d,
                                                                                      dtype=L.complex64)),
    "ihfft/out_complex128": lambda L, d: L.fft.ihfft(X(L, (6,), d), out=L.empty(0, device=d, dtype=L.complex128)),
    "fftfreq/n_tensor": lambda L, d: L.fft.fftfreq(T(L, 4), device=d),
    "rfftfreq/n_float": lambda L, d: L.fft.rfftfreq(4.0, device=d),
    "fftshift/0dim_dim": lambda L, d: L.fft.fftshift(T(L, 2.0, d), dim=0),
    "ifftshift/dim_float": lambda L, d: L.fft.ifftshift(X(L, (3, 4), d), dim=1.0),
    "fftshift/dim_tuple": lambda L, d: L.fft.fftshift(X(L, (3, 5), d), dim=(0, -1)),
    "stft/window_wrong": lambda L, d: L.stft(X(L, (32,), d), 8, window=L.ones(5, device=d), return_complex=True),
    "stft/n_fft_past_length": lambda L, d: L.stft(X(L, (4,), d), 8, center=False, return_complex=True),
    "stft/3d": lambda L, d: L.stft(X(L, (2, 3, 32), d), 8, window=L.ones(8, device=d), return_complex=True),
    "istft/hop_zero": lambda L, d: L.istft(Z(L, (5, 9), d), 8, hop_length=0, window=L.ones(8, device=d)),
    "istft/window_wrong": lambda L, d: L.istft(Z(L, (5, 9), d), 8, window=L.ones(3, device=d)),
}

# Random draws: the oracle and tandem draw differently, so only dtype and shape compare.
SHAPE_ONLY = {"normal/complex_mean", "normal/complex_mean_tensor_std"}
# Cases where only the exception type is PyTorch's: its argument parser lists every overload after the first
# line, and for these the first line names arguments tandem's binding does not see the same way.
TYPE_ONLY = set()


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_input_matches_pytorch(name, device):
    assert_matches_pytorch(CASES[name], device, first_line=name not in TYPE_ONLY, shape_only=name in SHAPE_ONLY,
                           seed=0)


def test_complex_logcumsumexp_gradient(device):
    # The holomorphic gradient conj(exp(x_i)) * sum_{j >= i} g_j conj(exp(-out_j)), as PyTorch's backward.
    base = torch.complex(torch.linspace(-1, 1, 6, dtype=torch.float64), torch.linspace(0.5, -0.5, 6,
                                                                                       dtype=torch.float64))
    g = torch.complex(torch.linspace(1, 2, 6, dtype=torch.float64), torch.linspace(-1, 0, 6, dtype=torch.float64))
    x = base.clone().requires_grad_()
    torch.autograd.backward(x.logcumsumexp(0), g)
    tx = tandem.tensor(base.tolist(), device=device, dtype=tandem.complex128).requires_grad_()
    tandem.autograd.backward(tx.logcumsumexp(0), tandem.tensor(g.tolist(), device=device, dtype=tandem.complex128))
    assert tx.grad.dtype == tandem.complex128 and tx.grad.device == tandem.device(device)
    np.testing.assert_allclose(np.array(tx.grad.cpu().tolist()), x.grad.resolve_conj().numpy(), rtol=1e-12,
                               atol=1e-12)


def test_version_counter_message_under_anomaly_mode(device):
    # With anomaly detection on, PyTorch's hint points at the backtrace it printed instead.
    with tandem.autograd.set_detect_anomaly(True):
        x = tandem.ones(3, device=device, requires_grad=True)
        y = x.exp()
        y.add_(1)
        with pytest.warns(UserWarning), pytest.raises(RuntimeError) as e:
            y.sum().backward()
    assert str(e.value).splitlines()[0].endswith(
        "expected version 0 instead. Hint: the backtrace further above shows the operation that failed to compute "
        "its gradient. The variable in question was changed in there or anywhere later. Good luck!")


def test_size_keeps_tensor_shapes_fast_and_exact():
    # Tensor.shape builds its Size without re-checking (its sizes are ints); Size() itself checks every item.
    s = tandem.ones(2, 3).shape
    assert type(s) is tandem.Size and s == (2, 3) and repr(s[1:]) == "tandem.Size([3])"
    assert tandem.Size((np.int64(4), True)) == (4, 1) and all(type(v) is int for v in tandem.Size((np.int64(4),)))
