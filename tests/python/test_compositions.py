"""The compositions of python/tandem/_compositions.py and tandem.finfo/iinfo against PyTorch: values, dtypes and
shapes on every device, float64 gradients by finite differences, and PyTorch's error types and messages."""
import math
import warnings

import pytest
import torch

import tandem
from tandem.autograd import gradcheck

from oracle import assert_same, from_torch, random_torch


def rand(shape, dtype="float32", seed=0):
    return random_torch(shape, dtype, torch.Generator().manual_seed(seed))


F, D, I, B = rand((3, 4)), rand((3, 4), "float64", 1), rand((3, 4), "int64", 2), rand((3, 3), "bool", 3)
F3, SQ, V, W = rand((2, 3, 4), seed=4), rand((2, 4, 4), seed=5), rand((4,), seed=6), rand((5,), seed=7)
NAN = torch.tensor([[1.0, float("nan"), 3.0], [float("nan"), float("nan"), -2.0]])
REPEATS = torch.tensor([2, 0, 1])
XLOGY_X, XLOGY_Y = torch.tensor([0.0, 0, 2, 3, 1]), torch.tensor([0.0, float("nan"), 0, 2, -1])

# Each case is called as case(lib, T) with lib = tandem or torch and T moving a torch input into lib.
VALUES = {
    "tril": lambda lib, T: lib.tril(T(F), 1), "triu": lambda lib, T: lib.triu(T(I), -1),
    "tril_bool": lambda lib, T: T(B).tril(), "triu_batched": lambda lib, T: T(F3).triu(diagonal=2),
    "tril_": lambda lib, T: T(F).clone().tril_(-1), "triu_": lambda lib, T: T(I).clone().triu_(1),
    "tril_indices": lambda lib, T: lib.tril_indices(3, 5, 1, device=T(V).device),
    "triu_indices": lambda lib, T: lib.triu_indices(4, 3, -1, dtype=lib.int32, device=T(V).device),
    "diagonal": lambda lib, T: lib.diagonal(T(F3), 1, 2, 0), "diagonal_neg": lambda lib, T: T(F).diagonal(-1),
    "diagonal_t": lambda lib, T: T(F).t().diagonal(1), "diagonal_sliced": lambda lib, T: T(F)[:, 1:].diagonal(),
    "diagonal_empty": lambda lib, T: T(F).diagonal(9),
    "diag_1d": lambda lib, T: lib.diag(T(V), -2), "diag_2d": lambda lib, T: T(I).diag(1),
    "diag_embed": lambda lib, T: lib.diag_embed(T(F), 1, 0, 2), "diag_embed_neg": lambda lib, T: T(I).diag_embed(-1),
    "trace": lambda lib, T: lib.trace(T(F)), "trace_int": lambda lib, T: T(I).trace(),
    "repeat": lambda lib, T: T(F).repeat(2, 1, 3), "repeat_tuple": lambda lib, T: T(V).repeat((2, 2)),
    "repeat_interleave": lambda lib, T: lib.repeat_interleave(T(F), 2),
    "repeat_interleave_dim": lambda lib, T: T(I).repeat_interleave(T(REPEATS), dim=0),
    "repeat_interleave_0d": lambda lib, T: T(F).repeat_interleave(T(torch.tensor(3)), dim=1),
    "repeat_interleave_size": lambda lib, T: lib.repeat_interleave(T(F), T(REPEATS), 0, output_size=3),
    "repeat_interleave_index": lambda lib, T: lib.repeat_interleave(T(torch.tensor([0, 2, 1, 0], dtype=torch.int32))),
    "tile": lambda lib, T: lib.tile(T(F), (2,)), "tile_method": lambda lib, T: T(V).tile(2, 2),
    "roll": lambda lib, T: lib.roll(T(F), 1), "roll_dims": lambda lib, T: T(I).roll((1, -5), (0, 1)),
    "roll_empty": lambda lib, T: T(F[:0]).roll(1, 7),
    "rot90": lambda lib, T: lib.rot90(T(F)), "rot90_k": lambda lib, T: T(F3).rot90(-1, [2, 0]),
    "rot90_2": lambda lib, T: T(F).rot90(2),
    "broadcast_tensors": lambda lib, T: lib.broadcast_tensors(T(F), T(V), T(torch.tensor(2.0))),
    "broadcast_to": lambda lib, T: T(V).broadcast_to((3, 4)),
    "meshgrid_ij": lambda lib, T: lib.meshgrid(T(V), T(W), indexing="ij"),
    "meshgrid_xy": lambda lib, T: lib.meshgrid([T(V), T(W), T(V[:2])], indexing="xy"),
    "cartesian_prod": lambda lib, T: lib.cartesian_prod(T(V[:2]), T(W), T(V[:3])),
    "kron": lambda lib, T: lib.kron(T(F), T(F3)), "kron_int": lambda lib, T: T(I).kron(T(I[:2, :2])),
    "tensordot": lambda lib, T: lib.tensordot(T(F3), T(F3), ([0, 2], [0, 2])),
    "tensordot_int": lambda lib, T: lib.tensordot(T(I), T(I.t()), 1),
    "tensordot_0": lambda lib, T: lib.tensordot(T(V), T(W), 0),
    "tensordot_broadcast": lambda lib, T: lib.tensordot(T(I[:, :1].int()), T(I.int()), ([1], [0])),
    "cross": lambda lib, T: lib.cross(T(F[:, :3]), T(F[1:2, 1:]), dim=1),
    "cross_int": lambda lib, T: T(I[:, :3]).cross(T(I[:, 1:]), -1),
    "cdist": lambda lib, T: lib.cdist(T(F3), T(F3[:1])), "cdist_p1": lambda lib, T: lib.cdist(T(F), T(F), p=1),
    "cdist_p0": lambda lib, T: lib.cdist(T(F), T(F.round()), p=0),
    "cdist_inf": lambda lib, T: lib.cdist(T(F), T(F3), p=float("inf")),
    "cdist_mm": lambda lib, T: lib.cdist(T(F), T(F3), compute_mode="use_mm_for_euclid_dist"),
    "diff": lambda lib, T: lib.diff(T(F)), "diff_n": lambda lib, T: T(I).diff(2, 0, append=T(I)),
    "diff_bool": lambda lib, T: lib.diff(T(B), prepend=T(B)), "diff_big_n": lambda lib, T: T(V).diff(9),
    "movedim": lambda lib, T: lib.movedim(T(F3), (0, 2), (2, -3)), "moveaxis": lambda lib, T: T(F3).moveaxis(0, -1),
    "swapaxes": lambda lib, T: lib.swapaxes(T(F3), 0, 2), "swapdims": lambda lib, T: T(F3).swapdims(1, 2),
    "atleast_1d": lambda lib, T: lib.atleast_1d(T(torch.tensor(2.0))),
    "atleast_2d": lambda lib, T: lib.atleast_2d(T(V), T(F)),
    "atleast_3d": lambda lib, T: lib.atleast_3d([T(torch.tensor(1)), T(V), T(F), T(F3)]),
    "column_stack": lambda lib, T: lib.column_stack([T(F[:, 0]), T(F), T(F[:, 1])]),
    "hsplit": lambda lib, T: lib.hsplit(T(F), 2), "hsplit_1d": lambda lib, T: T(V).hsplit([1, 3]),
    "vsplit": lambda lib, T: T(F).vsplit([2]), "dsplit": lambda lib, T: lib.dsplit(T(F3), 4),
    "tensor_split": lambda lib, T: lib.tensor_split(T(W), 3),
    "tensor_split_idx": lambda lib, T: T(F).tensor_split([-2, 1, 10], dim=1),
    "tensor_split_tensor": lambda lib, T: lib.tensor_split(T(W), lib.tensor([1, 3])),
    "unflatten": lambda lib, T: lib.unflatten(T(F3), -1, (2, -1)),
    "unflatten_method": lambda lib, T: T(F).t().unflatten(0, [2, 2]),
    "narrow_copy": lambda lib, T: lib.narrow_copy(T(F), 1, 1, 2),
    "take_along_dim": lambda lib, T: lib.take_along_dim(T(F), T(torch.tensor([[0], [2], [1]])), 1),
    "count_nonzero": lambda lib, T: lib.count_nonzero(T(I)), "count_nonzero_dim": lambda lib, T: T(B).count_nonzero(0),
    "count_nonzero_dims": lambda lib, T: lib.count_nonzero(T(F3).round(), (0, 2)),
    "aminmax": lambda lib, T: lib.aminmax(T(F)), "aminmax_dim": lambda lib, T: T(I).aminmax(dim=-1, keepdim=True),
    "aminmax_keep": lambda lib, T: lib.aminmax(T(F3), keepdim=True),
    "var_mean": lambda lib, T: lib.var_mean(T(F3), 1), "var_mean_unbiased": lambda lib, T: lib.var_mean(T(F), False),
    "std_mean": lambda lib, T: lib.std_mean(T(F3), [0, 2], correction=0, keepdim=True),
    "std_mean_pos": lambda lib, T: lib.std_mean(T(D), 1, False, True),
    "nansum": lambda lib, T: lib.nansum(T(NAN)), "nansum_dim": lambda lib, T: T(NAN).nansum(1, keepdim=True),
    "nansum_int": lambda lib, T: lib.nansum(T(I), 0), "nansum_dtype": lambda lib, T: T(NAN).nansum(dtype=lib.float64),
    "nanmean": lambda lib, T: lib.nanmean(T(NAN), 0), "nanmean_all": lambda lib, T: T(NAN).nanmean(),
    "clone": lambda lib, T: lib.clone(T(F)),
    "addcmul": lambda lib, T: lib.addcmul(T(F), T(V), T(F), value=-0.5),
    "addcmul_int": lambda lib, T: lib.addcmul(T(I), T(I), T(I), value=0.5),
    "addcdiv": lambda lib, T: T(F).addcdiv(T(V), T(F).abs() + 1, value=2),
    "addcmul_": lambda lib, T: T(F).clone().addcmul_(T(V), T(F)),
    "addcdiv_": lambda lib, T: T(F).clone().addcdiv_(T(V), T(F).abs() + 1, value=3),
    "lerp": lambda lib, T: lib.lerp(T(F), T(F3), 0.25), "lerp_hi": lambda lib, T: T(F).lerp(T(V), 0.75),
    "lerp_tensor": lambda lib, T: lib.lerp(T(F), T(V), T(F3).sigmoid()),
    "lerp_": lambda lib, T: T(F).clone().lerp_(T(V), T(F).sigmoid()),
    "xlogy": lambda lib, T: lib.xlogy(T(XLOGY_X), T(XLOGY_Y)),
    "xlogy_int": lambda lib, T: lib.xlogy(T(I), T(I).abs()), "xlogy_scalar": lambda lib, T: lib.xlogy(2, T(F).abs()),
    "xlogy_method": lambda lib, T: T(F).xlogy(3.0), "xlogy_": lambda lib, T: T(F).clone().xlogy_(T(V).abs()),
    "square": lambda lib, T: lib.square(T(F)), "square_int": lambda lib, T: T(I).square(),
    "square_bool": lambda lib, T: lib.square(T(B)), "square_": lambda lib, T: T(I).clone().square_(),
    "reciprocal": lambda lib, T: lib.reciprocal(T(F)), "reciprocal_int": lambda lib, T: T(I).reciprocal(),
    "reciprocal_": lambda lib, T: T(F).clone().reciprocal_(),
    "clamp_min": lambda lib, T: lib.clamp_min(T(F), 0.5), "clamp_max": lambda lib, T: T(F).clamp_max(T(V)),
    "clamp_min_": lambda lib, T: T(I).clone().clamp_min_(0), "clamp_max_": lambda lib, T: T(F).clone().clamp_max_(0.1),
    "rsub": lambda lib, T: lib.rsub(T(F), T(V), alpha=2), "rsub_scalar": lambda lib, T: lib.rsub(T(I), 2.5),
    "true_divide": lambda lib, T: T(I).true_divide(T(V)), "true_divide_": lambda lib, T: T(F).clone().true_divide_(2),
    "fmod": lambda lib, T: lib.fmod(T(torch.tensor([-7, 7, -7, 7, 0, 6])), T(torch.tensor([2, -2, -2, 2, 3, -3]))),
    "fmod_float": lambda lib, T: T(F * 3).fmod(T(V)), "fmod_scalar": lambda lib, T: lib.fmod(T(F * 3), -1.5),
    "fmod_": lambda lib, T: T(F * 3).fmod_(1.25),
    "einsum_mm": lambda lib, T: lib.einsum("ij,jk->ik", T(F), T(F.t())),
    "einsum_bmm": lambda lib, T: lib.einsum("bij,bjk->bik", T(F3), T(F3.transpose(1, 2))),
    "einsum_trace": lambda lib, T: lib.einsum("ii", T(F[:, :3])),
    "einsum_diag": lambda lib, T: lib.einsum("bii->bi", T(SQ)),
    "einsum_outer": lambda lib, T: lib.einsum("i,j", T(V), T(W)),
    "einsum_implicit": lambda lib, T: lib.einsum("jBi,ij", T(F3), T(F3[:, 0].t())),
    "einsum_ellipsis": lambda lib, T: lib.einsum("...ij,...jk", T(F3[:, None]), T(SQ)),
    "einsum_ellipsis_sum": lambda lib, T: lib.einsum("i...->...", T(F3)),
    "einsum_ellipsis_mid": lambda lib, T: lib.einsum("a...c,c->...a", T(F3), T(V)),
    "einsum_three": lambda lib, T: lib.einsum("ab,bc,cd->da", T(F), T(F3[0].t()), T(F)),
    "einsum_broadcast1": lambda lib, T: lib.einsum("ij,jk", T(F[:, :1]), T(F)),
    "einsum_batch_keep": lambda lib, T: lib.einsum("bij,bj->bi", T(F3), T(F3[:, 0])),
    "einsum_list": lambda lib, T: lib.einsum(" i j , j k -> k i ", [T(F), T(F.t())]),
    "einsum_sublist": lambda lib, T: lib.einsum(T(F3), [0, 1, 2], T(F), [1, 2], [0]),
    "einsum_sublist_ellipsis": lambda lib, T: lib.einsum(T(F3), [..., 26], [..., 26]),
    "einsum_int": lambda lib, T: lib.einsum("ij,kj->ik", T(I), T(I)),
    "einsum_int_sum": lambda lib, T: lib.einsum("ij->j", T(I.int())),
    "einsum_scalar": lambda lib, T: lib.einsum(",i->i", T(torch.tensor(2.0)), T(V)),
    "einsum_empty": lambda lib, T: lib.einsum("ij,jk->ik", T(torch.ones(2, 0)), T(torch.ones(0, 3))),
    # two-operand equations that are one bmm take the cached-plan path: permuted operands and outputs, label
    # groups flattened into one bmm dim, repeated calls with the same plan
    "einsum_plan_transposed": lambda lib, T: [lib.einsum("bij,bkj->bki", T(F3), T(F3)) for _ in range(2)][1],
    "einsum_plan_groups": lambda lib, T: lib.einsum("ijk,jil->kl", T(F3.permute(1, 0, 2)), T(F3)),
    "einsum_plan_dot": lambda lib, T: lib.einsum("i,i->", T(V), T(V)),
}


def same(ours, theirs, device):
    if isinstance(theirs, torch.Tensor):
        assert_same(ours, theirs, device=tandem.device(device))
    elif isinstance(theirs, tuple):
        assert type(ours).__name__ == type(theirs).__name__ and len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            same(a, b, device)
    else:
        assert ours == theirs


@pytest.mark.parametrize("case", VALUES.values(), ids=VALUES.keys())
def test_values_match_pytorch(case, device):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        same(case(tandem, lambda t: from_torch(t, device)), case(torch, lambda t: t), device)


def leaf(shape, seed, device="cpu", positive=False):
    t = rand(shape, "float64", seed)
    t = t.abs() + 0.5 if positive else t
    return from_torch(t, device).requires_grad_()


# name: (function of tandem tensors, their shapes); inputs are random float64 leaves (positive when flagged).
GRADIENTS = {
    "tril": (lambda x: tandem.tril(x, 1), [(3, 4)]), "triu": (lambda x: x.triu(-1), [(2, 3, 3)]),
    "tril_": (lambda x: (x * 1).tril_(), [(3, 3)]),
    "diagonal": (lambda x: x.diagonal(1, 0, 2), [(3, 2, 4)]),
    "diagonal_copy": (lambda x: x[:, 1:].diagonal(), [(3, 4)]),
    "diag_1d": (lambda x: tandem.diag(x, 1), [(3,)]), "diag_2d": (lambda x: x.diag(-1), [(3, 4)]),
    "diag_embed": (lambda x: x.diag_embed(-1, 2, 0), [(2, 3)]), "trace": (tandem.trace, [(3, 4)]),
    "repeat": (lambda x: x.repeat(2, 1, 2), [(2, 3)]), "tile": (lambda x: x.tile(2), [(2, 3)]),
    "repeat_interleave": (lambda x: x.repeat_interleave(tandem.tensor([1, 0, 3]), 1), [(2, 3)]),
    "roll": (lambda x: x.roll((1, 2), (0, 1)), [(2, 3)]), "rot90": (lambda x: x.rot90(3, (1, 0)), [(2, 3)]),
    "broadcast_tensors": (lambda a, b: tandem.broadcast_tensors(a, b)[0] * 2, [(3, 1), (4,)]),
    "meshgrid": (lambda a, b: tandem.meshgrid(a, b, indexing="xy")[1], [(2,), (3,)]),
    "cartesian_prod": (tandem.cartesian_prod, [(2,), (3,)]), "kron": (tandem.kron, [(2, 3), (3, 1, 2)]),
    "tensordot": (lambda a, b: tandem.tensordot(a, b, ([1, 0], [2, 0])), [(3, 2, 4), (3, 5, 2)]),
    "einsum": (lambda a, b, c: tandem.einsum("bij,bjk,k->bi", a, b, c), [(2, 3, 4), (2, 4, 3), (3,)]),
    "einsum_diag": (lambda a: tandem.einsum("iij->j", a), [(3, 3, 2)]),
    "cross": (lambda a, b: tandem.cross(a, b, dim=0), [(3, 2), (3, 2)]),
    "cdist": (tandem.cdist, [(2, 3, 4), (5, 4)]), "cdist_p3": (lambda a, b: tandem.cdist(a, b, 3), [(3, 4), (2, 4)]),
    "cdist_mm": (lambda a, b: tandem.cdist(a, b, compute_mode="use_mm_for_euclid_dist"), [(3, 4), (2, 4)]),
    "diff": (lambda a, b: a.diff(2, 0, prepend=b), [(3, 2), (1, 2)]),
    "movedim": (lambda x: x.movedim(0, 2), [(2, 3, 4)]), "unflatten": (lambda x: x.unflatten(1, (2, 2)), [(3, 4)]),
    "narrow_copy": (lambda x: x.narrow_copy(1, 1, 2), [(3, 4)]), "aminmax": (lambda x: x.aminmax(dim=1).max, [(3, 4)]),
    "var_mean": (lambda x: tandem.var_mean(x, 1)[0], [(3, 4)]), "std_mean": (lambda x: tandem.std_mean(x)[1], [(3, 4)]),
    "nansum": (lambda x: x.nansum(0), [(3, 4)]), "nanmean": (lambda x: x.nanmean(1), [(3, 4)]),
    "addcmul": (lambda a, b, c: a.addcmul(b, c, value=2), [(3, 4), (4,), (3, 1)]),
    "addcdiv": (tandem.addcdiv, [(3, 4), (4,), (3, 1)], True),
    "addcmul_": (lambda a, b, c: (a * 1).addcmul_(b, c), [(3, 4), (4,), (3, 1)]),
    "lerp": (lambda a, b: a.lerp(b, 0.75), [(3, 4), (4,)]),
    "lerp_tensor": (lambda a, b, w: tandem.lerp(a, b, w), [(3, 4), (4,), (3, 1)]),
    "lerp_": (lambda a, b, w: (a * 1).lerp_(b, w), [(3, 4), (4,), (4,)]),
    "xlogy": (tandem.xlogy, [(3, 4), (4,)], True), "xlogy_": (lambda a, b: (a * 1).xlogy_(b), [(3, 4), (4,)], True),
    "xlogy_into_constant": (lambda b: tandem.full((3, 4), 2.0, dtype=tandem.float64).xlogy_(b), [(4,)], True),
    "square": (tandem.square, [(3, 4)]), "reciprocal": (lambda x: x.reciprocal(), [(3, 4)], True),
    "reciprocal_": (lambda x: (x * 1).reciprocal_(), [(3, 4)], True),
    "clamp_min": (lambda x: x.clamp_min(0.1), [(3, 4)]),
    "rsub": (lambda a, b: tandem.rsub(a, b, alpha=3), [(3,), (3,)]),
    "fmod": (tandem.fmod, [(3, 4), (4,)], True), "fmod_": (lambda a: (a * 3).fmod_(-0.7), [(3, 4)]),
}


@pytest.mark.parametrize("name", list(GRADIENTS))
def test_gradients(name):
    fn, shapes, *positive = GRADIENTS[name]
    inputs = tuple(leaf(s, seed, positive=bool(positive)) for seed, s in enumerate(shapes))
    assert gradcheck(fn, inputs)


def test_gradients_on_devices(device):
    a, b = leaf((2, 3, 4), 0, device), leaf((2, 4, 3), 1, device)
    assert gradcheck(lambda a, b: tandem.einsum("bij,bjk->bk", a, b).diag_embed().tril(), (a, b))


def test_nan_positions_get_no_gradient():
    x = from_torch(NAN.double()).requires_grad_()
    ref = NAN.double().requires_grad_()
    for fn in (lambda lib, t: lib.nansum(t), lambda lib, t: lib.nanmean(t, 1).sum()):
        grad, = tandem.autograd.grad(fn(tandem, x), [x])
        assert_same(grad, torch.autograd.grad(fn(torch, ref), [ref])[0])


def test_xlogy_where_x_is_zero_matches_pytorch():
    results = []
    for lib in (tandem, torch):
        x = lib.tensor([0.0, 0.0, 0.0, 0.0, 2.0], dtype=lib.float64, requires_grad=True)
        y = lib.tensor([0.0, 2.0, -1.0, float("inf"), 0.0], dtype=lib.float64, requires_grad=True)
        out = lib.xlogy(x, y)
        results.append([out.tolist()] + [g.tolist() for g in lib.autograd.grad(out.sum(), [x, y])])
    ours, theirs = results
    # xlogy is a kernel with PyTorch's gradient: d/dy at x == y == 0 is 0 / 0 = NaN, d/dx at y = inf is inf.
    torch.testing.assert_close(torch.tensor(ours), torch.tensor(theirs), equal_nan=True)


def test_diagonal_is_a_view_where_the_layout_allows():
    def write_diagonals(lib):
        x = lib.zeros(3, 4)
        x.diagonal(1).fill_(1.0)
        x.t().diagonal(-2).add_(2.0)
        x.reshape(1, 3, 4).diagonal(0, 2, 1).add_(3.0)
        return x

    assert_same(write_diagonals(tandem), write_diagonals(torch))
    x = tandem.zeros(3, 4)
    # A slice whose rows do not flatten into one strided dim: an as_strided view (as PyTorch's), not a copy.
    assert x.diagonal()._is_view_of(x) and x[:, 1:].diagonal()._is_view_of(x)


def test_broadcast_shapes_and_views():
    assert tandem.broadcast_shapes(3, (2, 1), tandem.Size([1, 1, 1])) == torch.broadcast_shapes(3, (2, 1), (1, 1, 1))
    assert isinstance(tandem.broadcast_shapes((2, 3)), tandem.Size) and tandem.broadcast_shapes() == ()
    x = tandem.ones(3)
    assert tandem.broadcast_tensors(x, tandem.ones(2, 1))[0]._is_view_of(x)
    assert tandem.meshgrid(x, x, indexing="ij")[0]._is_view_of(x)
    assert all(p._is_view_of(x) for p in tandem.tensor_split(x, 2))


def test_meshgrid_warns_without_indexing_like_pytorch():
    for lib in (tandem, torch):
        with pytest.warns(UserWarning, match="^torch.meshgrid: in an upcoming release, it will be required to pass"):
            lib.meshgrid(lib.ones(2), lib.ones(3))


def test_cross_without_dim_warns_and_picks_the_first_size_3_dim():
    for lib in (tandem, torch):
        with pytest.warns(UserWarning, match="^Using torch.cross without specifying the dim arg is deprecated"):
            out = lib.cross(lib.ones(3, 2), lib.ones(3, 2))
        assert tuple(out.shape) == (3, 2)


def test_cdist_matmul_form_for_large_inputs():
    a, b = rand((2, 30, 5), "float64"), rand((40, 5), "float64", 1)
    assert_same(tandem.cdist(from_torch(a), from_torch(b)), torch.cdist(a, b))


def test_einsum_matches_pytorch_on_a_larger_contraction():
    a, b, c = rand((4, 5, 6), seed=1), rand((6, 7), seed=2), rand((4, 7, 3), seed=3)
    ours = tandem.einsum("bij,jk,bkl->bil", *(from_torch(t) for t in (a, b, c)))
    assert_same(ours, torch.einsum("bij,jk,bkl->bil", a, b, c), rtol=1e-4, atol=1e-4)


def test_aminmax_is_a_named_tuple():
    result = tandem.aminmax(tandem.tensor([3, 1, 2]))
    assert type(result) is tandem.return_types.aminmax
    assert (result.min.item(), result.max.item()) == (1, 3)
    assert repr(result) == "tandem.return_types.aminmax(\nmin=tensor(1),\nmax=tensor(3))"  # PyTorch's layout


def test_in_place_geometry_methods():
    for lib in (tandem, torch):
        x = lib.arange(6.0).reshape(2, 3)
        assert x.t_() is x and tuple(x.shape) == (3, 2) and x.stride() == (1, 3)
        x.unsqueeze_(0).transpose_(0, 2).squeeze_(2)
        assert tuple(x.shape) == (2, 3) and x.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
        x.swapaxes_(0, 1).swapdims_(1, 0).unsqueeze_(1).squeeze_()
        assert tuple(x.shape) == (2, 3)
        with lib.no_grad():
            p = lib.ones(2, 3, requires_grad=True)
            p.t_()
        assert tuple(p.shape) == (3, 2)


def test_in_place_geometry_invalidates_saved_values_like_pytorch():
    for lib in (tandem, torch):
        w = lib.ones(2, 3, requires_grad=True)
        x = lib.ones(2, 3)
        y = w * x
        x.t_()
        with pytest.raises(RuntimeError, match="^one of the variables needed for gradient computation has been "
                                               "modified by an inplace operation"):
            y.sum().backward()


def test_in_place_geometry_refuses_recorded_tensors():
    leaf_ = tandem.ones(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="^a leaf Variable that requires grad is being used in an in-place"):
        leaf_.t_()
    with pytest.raises(NotImplementedError, match="hint: use the out-of-place form"):
        (leaf_ * 2).unsqueeze_(0)


def test_methods_and_functions_exist_where_pytorch_has_them():
    import tandem._compositions as comp

    for name in comp.__all__:
        assert hasattr(torch, name) and hasattr(tandem.Tensor, name) == hasattr(torch.Tensor, name), name
    for name in comp._methods():
        assert hasattr(torch.Tensor, name) and hasattr(tandem, name) <= hasattr(torch, name), name


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_finfo(dtype):
    ours, theirs = tandem.finfo(getattr(tandem, dtype)), torch.finfo(getattr(torch, dtype))
    for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(ours, attr) == getattr(theirs, attr), attr
        assert type(getattr(ours, attr)) is type(getattr(theirs, attr)), attr
    assert repr(ours) == repr(theirs)
    assert ours == tandem.finfo(getattr(tandem, dtype)) and hash(ours) == hash(tandem.finfo(getattr(tandem, dtype)))


def test_finfo_of_the_default_dtype():
    assert tandem.finfo() == tandem.finfo(tandem.float32)


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64"])
def test_iinfo(dtype):
    ours, theirs = tandem.iinfo(getattr(tandem, dtype)), torch.iinfo(getattr(torch, dtype))
    assert (ours.bits, ours.min, ours.max, ours.dtype) == (theirs.bits, theirs.min, theirs.max, theirs.dtype)
    assert repr(ours) == repr(theirs)


ERRORS = {
    "tril_1d": lambda lib: lib.tril(lib.ones(3)), "triu_1d": lambda lib: lib.ones(3).triu(),
    "tril_indices_row": lambda lib: lib.tril_indices(-1, 4), "triu_indices_col": lambda lib: lib.triu_indices(3, -4),
    "tril_indices_dtype": lambda lib: lib.tril_indices(3, 4, dtype=lib.float32),
    "diag_3d": lambda lib: lib.diag(lib.ones(2, 2, 2)), "diag_0d": lambda lib: lib.diag(lib.tensor(1.0)),
    "diagonal_same": lambda lib: lib.diagonal(lib.ones(2, 3), 0, 1, -1),
    "diagonal_1d": lambda lib: lib.ones(3).diagonal(),
    "diag_embed_same": lambda lib: lib.diag_embed(lib.ones(2), 0, 1, 1),
    "diag_embed_0d": lambda lib: lib.diag_embed(lib.tensor(1.0)), "trace_3d": lambda lib: lib.trace(lib.ones(2, 2, 2)),
    "repeat_short": lambda lib: lib.ones(2, 3).repeat(2), "repeat_negative": lambda lib: lib.ones(2, 3).repeat(2, -1),
    "repeat_none": lambda lib: lib.ones(2).repeat(),
    "ri_negative": lambda lib: lib.repeat_interleave(lib.ones(2), lib.tensor([1, -1])),
    "ri_size": lambda lib: lib.repeat_interleave(lib.ones(2, 3), lib.tensor([1, 1, 1]), 0),
    "ri_float": lambda lib: lib.repeat_interleave(lib.ones(2), lib.tensor([1.0, 1.0]), 0),
    "ri_2d": lambda lib: lib.repeat_interleave(lib.ones(2), lib.tensor([[1, 1]]), 0),
    "ri_negative_int": lambda lib: lib.ones(2).repeat_interleave(-1),
    "ri_index_0d": lambda lib: lib.repeat_interleave(lib.tensor(3)),
    "roll_align": lambda lib: lib.roll(lib.ones(2, 3), (1, 2), (0,)),
    "roll_no_dims": lambda lib: lib.ones(2).roll((1, 2)),
    "roll_empty": lambda lib: lib.roll(lib.ones(2), (), ()), "roll_dim": lambda lib: lib.roll(lib.ones(2, 3), [1], [5]),
    "roll_bool": lambda lib: lib.roll(lib.ones(2, 3), True, 0), "roll_float": lambda lib: lib.roll(lib.ones(2), 1.5),
    "repeat_bool": lambda lib: lib.ones(3).repeat(True), "tile_bool": lambda lib: lib.tile(lib.ones(3), (True,)),
    "rot90_dims": lambda lib: lib.rot90(lib.ones(2, 3), 1, [0, 1, 1]),
    "rot90_1d": lambda lib: lib.ones(3).rot90(1, [0, 0]),
    "rot90_same": lambda lib: lib.rot90(lib.ones(2, 3), 1, [0, -2]),
    "rot90_range": lambda lib: lib.rot90(lib.ones(2, 3), 1, [0, 5]),
    "broadcast_shapes": lambda lib: lib.broadcast_shapes((2, 3), (4, 3)),
    "broadcast_shapes_negative": lambda lib: lib.broadcast_shapes((2, -3)),
    "broadcast_tensors": lambda lib: lib.broadcast_tensors(lib.ones(2, 3), lib.ones(4, 3)),
    "meshgrid_indexing": lambda lib: lib.meshgrid(lib.ones(2), indexing="xx"),
    "meshgrid_dtype": lambda lib: lib.meshgrid(lib.ones(2), lib.ones(3, dtype=lib.int64), indexing="ij"),
    "meshgrid_empty": lambda lib: lib.meshgrid(indexing="ij"),
    "cartesian_2d": lambda lib: lib.cartesian_prod(lib.ones(2, 2)),
    "tensordot_size": lambda lib: lib.tensordot(lib.ones(2, 3), lib.ones(4, 5), 1),
    "tensordot_dtype": lambda lib: lib.tensordot(lib.ones(2, 3), lib.ones(3, 5, dtype=lib.float64), 1),
    "tensordot_negative": lambda lib: lib.tensordot(lib.ones(2, 3), lib.ones(3, 5), -1),
    "tensordot_many": lambda lib: lib.tensordot(lib.ones(2, 3), lib.ones(3, 5), 3),
    "tensordot_lists": lambda lib: lib.tensordot(lib.ones(2, 3), lib.ones(3, 5), ([1], [0, 1])),
    "tensordot_repeated": lambda lib: lib.tensordot(lib.ones(3, 3), lib.ones(3, 3), ([0, 0], [0, 1])),
    "einsum_fewer": lambda lib: lib.einsum("ij,jk", lib.ones(2, 3)),
    "einsum_more": lambda lib: lib.einsum("ij", lib.ones(2, 3), lib.ones(2)),
    "einsum_count": lambda lib: lib.einsum("ijk", lib.ones(2, 3)),
    "einsum_count_ellipsis": lambda lib: lib.einsum("ijk...", lib.ones(2, 3)),
    "einsum_output_missing": lambda lib: lib.einsum("ij->k", lib.ones(2, 3)),
    "einsum_output_twice": lambda lib: lib.einsum("ij->ii", lib.ones(2, 3)),
    "einsum_size": lambda lib: lib.einsum("ij,jk", lib.ones(2, 3), lib.ones(4, 5)),
    "einsum_ellipsis_size": lambda lib: lib.einsum("...i,...i", lib.ones(2, 3), lib.ones(4, 3)),
    "einsum_repeated_size": lambda lib: lib.einsum("ii", lib.ones(2, 3)),
    "einsum_dtype": lambda lib: lib.einsum("ij,jk", lib.ones(2, 3), lib.ones(3, 5, dtype=lib.float64)),
    "einsum_char": lambda lib: lib.einsum("i1", lib.ones(2, 3)),
    "einsum_two_ellipses": lambda lib: lib.einsum("...i...", lib.ones(2, 3)),
    "einsum_dots": lambda lib: lib.einsum("..i", lib.ones(2)),
    "einsum_output_dots": lambda lib: lib.einsum("i->.", lib.ones(2)),
    "einsum_output_ellipses": lambda lib: lib.einsum("...i->......", lib.ones(2, 3)),
    "einsum_arrows": lambda lib: lib.einsum("i->i->i", lib.ones(2)),
    "einsum_no_operand": lambda lib: lib.einsum("i"),
    "einsum_not_str": lambda lib: lib.einsum(3, lib.ones(3)),
    "einsum_sublist_range": lambda lib: lib.einsum(lib.ones(2, 3), [0, 60]),
    "cross_length": lambda lib: lib.cross(lib.ones(2, 4), lib.ones(2, 4), dim=1),
    "cross_dims": lambda lib: lib.cross(lib.ones(2, 3), lib.ones(3), dim=1),
    "cross_dtype": lambda lib: lib.cross(lib.ones(3), lib.ones(3, dtype=lib.float64), dim=0),
    "cdist_int": lambda lib: lib.cdist(lib.ones(2, 3, dtype=lib.int64), lib.ones(2, 3, dtype=lib.int64)),
    "cdist_1d": lambda lib: lib.cdist(lib.ones(2, 3), lib.ones(3)),
    "cdist_columns": lambda lib: lib.cdist(lib.ones(2, 3), lib.ones(2, 4)),
    "cdist_p": lambda lib: lib.cdist(lib.ones(2, 3), lib.ones(2, 3), p=-1),
    "cdist_mode": lambda lib: lib.cdist(lib.ones(2, 3), lib.ones(2, 3), compute_mode="x"),
    "cdist_batch": lambda lib: lib.cdist(lib.ones(2, 1, 3), lib.ones(3, 1, 3)),
    "diff_0d": lambda lib: lib.diff(lib.tensor(1.0)), "diff_order": lambda lib: lib.ones(3).diff(-1),
    "diff_prepend_dims": lambda lib: lib.diff(lib.ones(2, 3), prepend=lib.ones(3)),
    "diff_prepend_shape": lambda lib: lib.diff(lib.ones(2, 3), prepend=lib.ones(3, 3)),
    "diff_prepend_scalar": lambda lib: lib.diff(lib.ones(2, 3), prepend=1.0),
    "movedim_count": lambda lib: lib.movedim(lib.ones(2, 3), (0, 1), (1,)),
    "movedim_source": lambda lib: lib.movedim(lib.ones(2, 3), (0, 0), (1, 0)),
    "movedim_destination": lambda lib: lib.ones(2, 3).movedim((0, 1), (1, -1)),
    "movedim_range": lambda lib: lib.movedim(lib.ones(2, 3), 2, 0),
    "atleast_scalar": lambda lib: lib.atleast_1d(1.0),
    "tensor_split_0": lambda lib: lib.tensor_split(lib.ones(2, 3), 0, 1),
    "tensor_split_float": lambda lib: lib.tensor_split(lib.ones(2, 3), lib.tensor([1.0]), 1),
    "tensor_split_2d": lambda lib: lib.tensor_split(lib.ones(2, 3), lib.tensor([[1]]), 1),
    "tensor_split_0d": lambda lib: lib.tensor_split(lib.tensor(1.0), 2),
    "tensor_split_type": lambda lib: lib.tensor_split(lib.ones(2, 3), 1.5),
    "hsplit": lambda lib: lib.hsplit(lib.ones(2, 3), 2), "hsplit_0d": lambda lib: lib.tensor(1.0).hsplit(2),
    "hsplit_0": lambda lib: lib.hsplit(lib.ones(2, 3), 0), "vsplit_1d": lambda lib: lib.vsplit(lib.ones(3), 2),
    "vsplit": lambda lib: lib.ones(2, 3).vsplit(3), "dsplit_2d": lambda lib: lib.dsplit(lib.ones(2, 3), 2),
    "unflatten_product": lambda lib: lib.unflatten(lib.ones(2, 3), 1, (2, 2)),
    "unflatten_empty": lambda lib: lib.ones(2, 3).unflatten(1, ()),
    "aminmax_empty": lambda lib: lib.aminmax(lib.ones(0)),
    "aminmax_empty_dim": lambda lib: lib.ones(0, 3).aminmax(dim=0),
    "aminmax_positional": lambda lib: lib.aminmax(lib.ones(2, 3), 1),
    "var_mean_int": lambda lib: lib.var_mean(lib.ones(3, dtype=lib.int64)),
    "std_mean_int": lambda lib: lib.std_mean(lib.ones(3, dtype=lib.int64)),
    "nanmean_int": lambda lib: lib.nanmean(lib.ones(3, dtype=lib.int64)),
    "count_nonzero_dims": lambda lib: lib.count_nonzero(lib.ones(2, 3), (1, 1)),
    "addcmul_bool": lambda lib: lib.addcmul(*[lib.ones(3, dtype=lib.bool)] * 3),
    "addcdiv_int": lambda lib: lib.addcdiv(lib.ones(3), lib.ones(3, dtype=lib.int64), lib.ones(3, dtype=lib.int64)),
    "addcmul_shape": lambda lib: lib.ones(3).addcmul_(lib.ones(2, 3), lib.ones(3)),
    "addcmul_dtype": lambda lib: lib.ones(3, dtype=lib.int64).addcmul_(lib.ones(3), lib.ones(3)),
    "lerp_end_dtype": lambda lib: lib.lerp(lib.ones(3), lib.ones(3, dtype=lib.float16), 0.5),
    "lerp_weight_dtype": lambda lib: lib.ones(3).lerp(lib.ones(3), lib.ones(3, dtype=lib.int64)),
    "lerp_int": lambda lib: lib.lerp(lib.ones(3, dtype=lib.int64), lib.ones(3, dtype=lib.int64), 0.5),
    "lerp_shape": lambda lib: lib.ones(3).lerp_(lib.ones(2, 3), 0.5),
    "xlogy_dtype": lambda lib: lib.ones(3, dtype=lib.int64).xlogy_(2),
    "xlogy_scalars": lambda lib: lib.xlogy(2.0, 3.0),
    "square_bool": lambda lib: lib.ones(3, dtype=lib.bool).square_(),
    "reciprocal_int": lambda lib: lib.ones(3, dtype=lib.int64).reciprocal_(),
    "clamp_min_dtype": lambda lib: lib.ones(3, dtype=lib.int64).clamp_min_(0.5),
    "rsub_bool": lambda lib: lib.rsub(lib.ones(3, dtype=lib.bool), lib.ones(3, dtype=lib.bool)),
    "rsub_alpha": lambda lib: lib.rsub(lib.ones(3, dtype=lib.int64), 2, alpha=0.5),
    "true_divide_int": lambda lib: lib.ones(3, dtype=lib.int64).true_divide_(2),
    "fmod_zero": lambda lib: lib.fmod(lib.ones(3, dtype=lib.int64), lib.tensor([1, 0, 1])),
    "t_3d": lambda lib: lib.ones(2, 3, 4).t_(),
    "tril_leaf": lambda lib: lib.ones(3, 3, requires_grad=True).tril_(),
    "finfo_int": lambda lib: lib.finfo(lib.int32), "finfo_bool": lambda lib: lib.finfo(lib.bool),
    "finfo_type": lambda lib: lib.finfo(3), "iinfo_float": lambda lib: lib.iinfo(lib.float32),
    "iinfo_bool": lambda lib: lib.iinfo(lib.bool),
}


def first_line(error):
    return str(error).split("\n")[0]


@pytest.mark.parametrize("case", ERRORS.values(), ids=ERRORS.keys())
def test_errors_match_pytorch(case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as theirs:
            case(torch)
        with pytest.raises(Exception) as ours:
            case(tandem)
    assert type(ours.value) is type(theirs.value), (ours.value, theirs.value)
    assert first_line(ours.value) == first_line(theirs.value)


def test_meshgrid_refuses_2d_inputs():
    with pytest.raises(RuntimeError, match="^torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got:"):
        tandem.meshgrid(tandem.ones(2, 2), indexing="ij")


@pytest.mark.parametrize("shape,repeats", [((3, 4, 4), (2, 1, 1, 1)), ((1, 3), (1, 1)), ((1, 3), (4, 1)),
                                           ((2,), (3, 1)), ((2, 3), (1, 1))])
def test_repeat_returns_new_memory_that_in_place_ops_can_write(shape, repeats, device):
    """PyTorch's repeat always copies. pytorch/examples fast_neural_style repeats a style image over the batch
    (new leading dim) and divides it in place; a zero-stride view refused the write."""
    ref = torch.arange(math.prod(shape), dtype=torch.float32).reshape(shape)
    x = tandem.tensor(ref.tolist(), device=device)
    out = x.repeat(*repeats)
    expect = ref.repeat(*repeats)
    assert out.stride() == expect.stride()
    out.div_(2)
    assert out.cpu().tolist() == expect.div(2).tolist()
    assert x.cpu().tolist() == ref.tolist()  # the input is untouched
