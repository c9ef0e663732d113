"""deg2rad, windows, block_diag, cov, trapezoid, gradient, *_scatter, *_copy, linalg.vander/tensorinv/... and
the Tensor predicates, against PyTorch on every device (values, dtypes, float64 gradients, errors)."""
import warnings

import pytest
import torch

import tandem
from oracle import assert_same, assert_same_error, rand_values

V = rand_values(3, 4, seed=1)
M = rand_values(3, 3, seed=2)


def _t(lib, values, device, dtype="float64", grad=False):
    x = lib.tensor(values, dtype=getattr(lib, dtype), device=device if lib is tandem else "cpu")
    return x.requires_grad_() if grad else x


def _compare(got, want, device):
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want)
        for g, w in zip(got, want):
            _compare(g, w, device)
    else:
        assert_same(got, want, device=tandem.device(device))


def _check(case, device, grads=True):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got, got_leaves = case(tandem, device)
        want, want_leaves = case(torch, "cpu")
    _compare(got, want, device)
    if grads and want_leaves:
        first = want[0] if isinstance(want, (tuple, list)) else want
        first.sin().sum().backward()
        (got[0] if isinstance(got, (tuple, list)) else got).sin().sum().backward()
        for g, w in zip(got_leaves, want_leaves):
            assert_same(g.grad, w.grad)


class Raw:
    """A positional argument passed as is (not made a tensor)."""

    def __init__(self, value):
        self.value = value


def _fn(name, *values, dtype="float64", grad=True, **kw):
    def case(lib, dev):
        args = [v.value if isinstance(v, Raw) else _t(lib, v, dev, dtype, grad) for v in values]
        leaves = [a for a in args if hasattr(a, "grad")]
        fn = lib
        for part in name.split("."):
            fn = getattr(fn, part)
        return fn(*args, **kw), leaves if grad else []
    case.__qualname__ = name
    return case


@pytest.mark.parametrize("case", [
    _fn("deg2rad", V), _fn("rad2deg", V), _fn("deg2rad", [180, 90], dtype="int64", grad=False),
    _fn("diagflat", V[0], offset=1), _fn("diagflat", M, offset=-1),
    _fn("block_diag", V, [1.0, 2.0], M), _fn("block_diag", [1, 2], [[3], [4]], dtype="int32", grad=False),
    _fn("combinations", V[0]), _fn("combinations", V[0], r=3, with_replacement=True),
    _fn("vander", V[0], grad=False), _fn("vander", V[0], N=3, increasing=True, grad=False),
    _fn("vander", [1, 2, 3], dtype="int32", grad=False),
    _fn("linalg.vander", V), _fn("linalg.vander", V, N=2),
    _fn("cov", V), _fn("cov", V[0]), _fn("cov", V, correction=0), _fn("corrcoef", V),
    _fn("cov", [[1, 2, 3], [2, 2, 5]], dtype="int64", grad=False),
    _fn("trapezoid", V), _fn("trapezoid", V, dim=0, dx=0.5), _fn("trapz", V, V[0]),
    _fn("trapezoid", [1, 2, 3], dtype="int64", grad=False), _fn("cumulative_trapezoid", V),
    _fn("cumulative_trapezoid", V, dx=2.0, dim=0), _fn("cumulative_trapezoid", V, [0.0, 1.0, 3.0, 3.5]),
    _fn("gradient", V), _fn("gradient", V, spacing=2.0, dim=1, edge_order=2),
    _fn("gradient", V, spacing=[0.5, 2.0]), _fn("gradient", [1, 2, 4, 8], dtype="int64", grad=False),
    _fn("linalg.diagonal", V, offset=1), _fn("linalg.tensorinv", rand_values(4, 2, 2, seed=3), ind=1),
    _fn("linalg.tensorsolve", rand_values(2, 3, 6, seed=4), rand_values(2, 3, seed=5)),
    _fn("frobenius_norm", V, dim=(0, 1)), _fn("nuclear_norm", M), _fn("isreal", V, grad=False),
    _fn("split_with_sizes", V, Raw([1, 2])), _fn("split_with_sizes", V, Raw([3, 1]), dim=1),
    _fn("select_scatter", V, V[1], dim=0, index=2), _fn("select_scatter", V, [1.0, 2.0, 3.0], dim=1, index=-1),
    _fn("slice_scatter", rand_values(4, 2, seed=6), [[1.0, 2.0], [3.0, 4.0]], dim=0, start=0, end=None, step=2),
    _fn("slice_scatter", V, [[1.0], [2.0], [3.0]], dim=1, start=1, end=2),
    _fn("diagonal_scatter", M, [1.0, 2.0], offset=1), _fn("diagonal_scatter", V, [1.0, 2.0, 3.0]),
    _fn("diagonal_scatter", V, [5.0, 6.0], offset=-1),
    _fn("view_copy", V, Raw([4, 3])), _fn("permute_copy", V, Raw((1, 0))), _fn("t_copy", V),
    _fn("select_copy", V, Raw(0), Raw(1)), _fn("slice_copy", V, Raw(1), Raw(1), Raw(3)), _fn("unbind_copy", V),
    _fn("split_copy", V, Raw(2)), _fn("expand_copy", V[0], Raw([2, 4])),
    _fn("unsqueeze_copy", V, Raw(1)), _fn("squeeze_copy", [[1.0, 2.0]]), _fn("transpose_copy", V, Raw(0), Raw(1)),
    _fn("diagonal_copy", M), _fn("unfold_copy", V[0], Raw(0), Raw(2), Raw(1)), _fn("alias_copy", V),
], ids=lambda c: c.__qualname__)
def test_against_pytorch(case, device):
    _check(case, device)


@pytest.mark.parametrize("name", ["hann_window", "hamming_window", "blackman_window", "bartlett_window",
                                  "kaiser_window"])
@pytest.mark.parametrize("length", [0, 1, 2, 7])
@pytest.mark.parametrize("periodic", [True, False])
def test_windows(name, length, periodic, device):
    got = getattr(tandem, name)(length, periodic, device=device, dtype=tandem.float64)
    assert_same(got, getattr(torch, name)(length, periodic, dtype=torch.float64), device=tandem.device(device))
    assert_same(getattr(tandem, name)(length), getattr(torch, name)(length))


def test_vander_gradient_by_finite_differences(device):
    # PyTorch's vander cannot differentiate (its in-place cumprod); tandem's is checked numerically.
    x = tandem.tensor(V[0], dtype=tandem.float64, device=device, requires_grad=True)
    assert tandem.autograd.gradcheck(lambda a: tandem.vander(a, N=4), (x,))
    assert tandem.autograd.gradcheck(lambda a: tandem.linalg.vander(a), (x,))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_16_bit_windows_and_angles_round_as_pytorch(dtype, device):
    for name in ("hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"):
        for periodic in (True, False):
            assert_same(getattr(tandem, name)(9, periodic, dtype=getattr(tandem, dtype), device=device),
                        getattr(torch, name)(9, periodic, dtype=getattr(torch, dtype)), rtol=0, atol=0)
    values = [180.0, 90.0, 33.3, -721.0]
    for name in ("deg2rad", "rad2deg"):
        assert_same(getattr(tandem, name)(tandem.tensor(values, dtype=getattr(tandem, dtype), device=device)),
                    getattr(torch, name)(torch.tensor(values, dtype=getattr(torch, dtype))), rtol=0, atol=0)


def test_windows_extra_args_and_logspace(device):
    assert_same(tandem.hamming_window(6, False, 0.5, 0.5, device=device), torch.hamming_window(6, False, 0.5, 0.5))
    assert_same(tandem.kaiser_window(6, True, 5.0, device=device), torch.kaiser_window(6, True, 5.0))
    assert_same(tandem.logspace(0, 2, 5, device=device), torch.logspace(0, 2, 5))
    assert_same(tandem.logspace(-1, 3, 4, base=2, dtype=tandem.float64, device=device),
                torch.logspace(-1, 3, 4, base=2, dtype=torch.float64))
    assert_same(tandem.logspace(0, 2, 3, dtype=tandem.int64, device=device), torch.logspace(0, 2, 3,
                                                                                            dtype=torch.int64))


def test_range_scalar_tensor_unravel(device):
    with pytest.warns(UserWarning, match="torch.range is deprecated"):
        got = tandem.range(1, 4, device=device)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same(got, torch.range(1, 4))
        assert_same(tandem.range(0, 1, 0.25, dtype=tandem.float64), torch.range(0, 1, 0.25, dtype=torch.float64))
    assert_same(tandem.scalar_tensor(3, device=device), torch.scalar_tensor(3))
    assert_same(tandem.scalar_tensor(True, dtype=tandem.int32), torch.scalar_tensor(True, dtype=torch.int32))
    for idx, shape in (([5, 7, -1, 8], (2, 4)), ([0, 11], (3, 4)), ([3], 5)):
        got = tandem.unravel_index(tandem.tensor(idx, device=device), shape)
        want = torch.unravel_index(torch.tensor(idx), shape)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert_same(g, w)


def test_tensor_methods(device):
    t = tandem.tensor(V, dtype=tandem.float64, device=device)
    x = torch.tensor(V, dtype=torch.float64)
    assert_same(t.deg2rad(), x.deg2rad())
    assert_same(t.clone().rad2deg_(), x.clone().rad2deg_())
    assert_same(t.diagflat(), x.diagflat())
    assert_same(t.cov(), x.cov())
    assert_same(t.corrcoef(), x.corrcoef())
    assert_same(t.hardshrink(0.3), x.hardshrink(0.3))
    assert_same(t.isreal(), x.isreal())
    assert_same(t.select_scatter(t[0], 0, 1), x.select_scatter(x[0], 0, 1))
    assert_same(t.slice_scatter(t[:2], 0, 1), x.slice_scatter(x[:2], 0, 1))
    assert_same(t.diagonal_scatter(t.diagonal()), x.diagonal_scatter(x.diagonal()))
    assert [s.shape for s in t.split_with_sizes([1, 3], 1)] == [s.shape for s in x.split_with_sizes([1, 3], 1)]
    w = tandem.tensor([0.25], dtype=tandem.float64, device=device)
    assert_same(t.unsqueeze(0).prelu(w), x.unsqueeze(0).prelu(torch.tensor([0.25], dtype=torch.float64)))
    assert t.new_empty_strided((2, 3), (1, 2)).stride() == x.new_empty_strided((2, 3), (1, 2)).stride()
    assert t.new_empty_strided((2, 3), (1, 2)).dtype == tandem.float64
    for name in ("is_sparse", "is_quantized", "is_nested", "is_meta", "is_mkldnn", "is_xpu", "is_mps",
                 "is_sparse_csr"):
        assert getattr(t, name) is False and getattr(x, name) is False
    assert tandem.is_inference(t) is False and torch.is_inference(x) is False
    with tandem.inference_mode():
        assert tandem.is_inference(tandem.ones(1)) is True


def test_real_tensor_complex_helpers(device):
    t, x = tandem.tensor([1.0, -2.0, float("nan")], device=device), torch.tensor([1.0, -2.0, float("nan")])
    for name in ("conj", "conj_physical", "real"):
        assert getattr(tandem, name)(t) is t and getattr(torch, name)(x) is x
    assert t.conj() is t and t.real is t and tandem.conj_physical_(t) is t
    assert_same(tandem.angle(t), torch.angle(x))
    assert_same(t.angle(), x.angle())
    assert_same(tandem.angle(tandem.tensor([1, -2], device=device)), torch.angle(torch.tensor([1, -2])))
    assert tandem.adjoint(tandem.ones(2, 3, device=device)).shape == (3, 2)
    assert_same_error(lambda lib: lib.adjoint(lib.ones(2)))
    assert_same_error(lambda lib: lib.ones(2).imag)


def test_apply_and_map_cpu_only(device):
    t, x = tandem.tensor(V), torch.tensor(V)
    assert_same(t.apply_(lambda v: v * 2 + 1), x.apply_(lambda v: v * 2 + 1))
    assert_same(t.map_(tandem.tensor(V[0]), lambda a, b: a - b), x.map_(torch.tensor(V[0]), lambda a, b: a - b))
    assert_same_error(lambda lib: lib.ones(3, requires_grad=True).apply_(lambda v: v))
    if device != "cpu":
        with pytest.raises(TypeError, match="^apply_ is only implemented on CPU tensors$"):
            tandem.ones(3, device=device).apply_(lambda v: v)


def test_errors():
    assert_same_error(lambda lib: lib.hann_window(-1))
    with pytest.raises(RuntimeError, match="^hann_window expects floating point dtypes, got: "):
        tandem.hann_window(5, dtype=tandem.int64)
    assert_same_error(lambda lib: lib.combinations(lib.ones(2, 2)))
    assert_same_error(lambda lib: lib.block_diag(lib.ones(2, 2, 2)))
    assert_same_error(lambda lib: lib.cov(lib.ones(2, 2, 2)))
    with pytest.raises(TypeError, match="^expected 'indices' to be integer dtype, but got tandem.float32$"):
        tandem.unravel_index(tandem.tensor([1.0]), (2, 4))  # PyTorch's text, the dtype printed as tandem's
    assert_same_error(lambda lib: lib.range(1, 4, 0))
    assert_same_error(lambda lib: lib.range(1, 4, -1))
    assert_same_error(lambda lib: lib.range(3))
    assert_same_error(lambda lib: lib.unravel_index(lib.tensor([0]), (0, 4)))
    assert_same_error(lambda lib: lib.unravel_index(lib.tensor([0]), (-1, 4)))
    assert_same_error(lambda lib: lib.trapezoid(lib.ones(3), 2))
    assert_same_error(lambda lib: lib.trapezoid(lib.ones(3), lib.ones(3), dx=1))
    assert_same_error(lambda lib: lib.cumulative_trapezoid(lib.ones(3), 2))
    assert_same_error(lambda lib: lib.trapz(lib.ones(3), 2))
    assert_same_error(lambda lib: lib.frobenius_norm(lib.tensor([[3, 4]]), (0, 1)))
    assert_same_error(lambda lib: lib.split_with_sizes(lib.arange(5), [2, 2]))
    assert_same_error(lambda lib: lib.select_scatter(lib.zeros(2, 2), lib.ones(3), 0, 0))
    assert_same_error(lambda lib: lib.slice_scatter(lib.zeros(4, 2), lib.ones(3, 2), 0, 0, None, 2))
    assert_same_error(lambda lib: lib.diagonal_scatter(lib.zeros(3, 3), lib.ones(3), 1))
    assert_same_error(lambda lib: lib.gradient(lib.tensor([1.0])))
    assert_same_error(lambda lib: lib.gradient(lib.tensor([1.0, 2.0]), edge_order=2))
    assert_same_error(lambda lib: lib.deg2rad_(lib.tensor([1, 2])))
    assert_same_error(lambda lib: lib.frobenius_norm(lib.ones(2, 3)))
