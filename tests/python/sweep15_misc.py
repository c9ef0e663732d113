"""Sweep 15 programs, reproducible sampling with Generator objects (only what is deterministic across libraries:
shapes, dtypes, ranges, reproducibility within one library), tensor printing (repr/str of large, tiny, mixed,
integer, bool, complex and half tensors under set_printoptions), and einsum / tensordot / kron / cartesian_prod /
combinations / tril_indices / meshgrid manipulation."""
import numpy as np

from sweep15_common import array, cases


def generator_reproducibility(torch, device):
    g = torch.Generator(device=device)
    g.manual_seed(1550)
    state = g.get_state()
    a = torch.rand(5, generator=g, device=device)
    b = torch.randn(2, 3, generator=g, device=device)
    g.set_state(state)
    a2 = torch.rand(5, generator=g, device=device)
    b2 = torch.randn(2, 3, generator=g, device=device)
    g2 = torch.Generator(device=device).manual_seed(1550)
    a3 = torch.rand(5, generator=g2, device=device)
    probs = array(torch, [0.1, 0.0, 0.6, 0.3], device)
    g.manual_seed(7)
    with_rep = torch.multinomial(probs, 20, replacement=True, generator=g)
    without = torch.multinomial(probs, 3, replacement=False, generator=g)
    batch = torch.multinomial(probs.expand(4, 4), 2, generator=g)
    perm = torch.randperm(10, generator=g, device=device)
    bern = torch.bernoulli(torch.full((1000,), 0.3, device=device), generator=g)
    bern_p = torch.bernoulli(torch.zeros(3, device=device), p=1.0)
    normal_t = torch.normal(array(torch, [0.0, 100.0], device), array(torch, [1.0, 0.001], device), generator=g)
    normal_ms = torch.normal(5.0, array(torch, [0.0, 0.0], device))
    normal_size = torch.normal(2.0, 3.0, size=(2, 5), generator=g, device=device)
    ri = torch.randint(3, 9, (50,), generator=g, device=device)
    ri_like = torch.randint_like(ri, 4)
    return cases(torch, {
        "rerun_same": lambda: bool(torch.equal(a, a2) and torch.equal(b, b2) and torch.equal(a, a3)),
        "state_dtype": lambda: [state.dtype, state.dim(), g.initial_seed()],
        "rand_range": lambda: bool(((a >= 0) & (a < 1)).all()), "randn_shape": lambda: b.shape,
        "with_rep": lambda: [with_rep.shape, with_rep.dtype, bool((with_rep != 1).all())],
        "without": lambda: [sorted(without.tolist()) != [], len(set(without.tolist())), bool((without != 1).all())],
        "batch": lambda: [batch.shape, bool((batch != 1).all()), bool((batch[:, 0] != batch[:, 1]).all())],
        "too_many": lambda: (lambda s: [s.shape, sorted(s.tolist()), int(s[-1])])(torch.multinomial(probs, 4, replacement=False)),
        "too_many_5": lambda: torch.multinomial(probs, 5, replacement=False),
        "neg_prob": lambda: torch.multinomial(array(torch, [-0.1, 1.0], device), 1),
        "perm": lambda: [sorted(perm.tolist()), perm.dtype],
        "perm_dtype": lambda: torch.randperm(4, dtype=torch.int32, device=device).dtype,
        "bern": lambda: [bern.dtype, set(bern.unique().tolist()) <= {0.0, 1.0}, 200 < int(bern.sum()) < 400],
        "bern_p": lambda: bern_p, "normal_t": lambda: [normal_t.shape, abs(normal_t[1].item() - 100) < 0.1],
        "normal_ms": lambda: normal_ms, "normal_size": lambda: [normal_size.shape, normal_size.dtype],
        "normal_neg_std": lambda: torch.normal(array(torch, [0.0], device), array(torch, [-1.0], device)),
        "ri": lambda: [ri.dtype, int(ri.min()) >= 3, int(ri.max()) < 9], "ri_like": lambda: [
            ri_like.dtype, int(ri_like.max()) < 4],
        "set_state_chains": lambda: [g.set_state(state) is g, bool(torch.equal(
            torch.Generator(device=device).set_state(state).get_state(), state))],
        "seed_returns": lambda: type(torch.Generator().manual_seed(3)).__name__,
        "gen_device": lambda: g.device.type == torch.device(device).type, "seed_int": lambda: isinstance(torch.Generator().seed(), int),
        "global_reseed": lambda: _global_reseed(torch, device),
        "fork_rng": lambda: _fork_rng(torch),
        "uniform_": lambda: _uniform(torch, device, g),
    })


def _global_reseed(torch, device):
    torch.manual_seed(11)
    x = torch.rand(3, device=device)
    torch.manual_seed(11)
    return bool(torch.equal(x, torch.rand(3, device=device)))


def _fork_rng(torch):
    torch.manual_seed(3)
    before = torch.get_rng_state()
    with torch.random.fork_rng(devices=[]):
        torch.rand(10)
    return bool(torch.equal(before, torch.get_rng_state()))


def _uniform(torch, device, g):
    t = torch.empty(100, device=device)
    t.uniform_(-2, -1, generator=g)
    e = torch.empty(100, device=device).exponential_(2.0, generator=g)
    n = torch.empty(5, device=device).normal_(0, 0, generator=g)
    ge = torch.empty(200, device=device).geometric_(0.5, generator=g)
    c = torch.empty(5, device=device).cauchy_(generator=g)
    ln = torch.empty(5, device=device).log_normal_(generator=g)
    r = torch.empty(50, dtype=torch.long, device=device).random_(0, 5, generator=g)
    return [bool(((t >= -2) & (t < -1)).all()), bool((e >= 0).all()), n, bool((ge >= 1).all()),
            bool((ge == ge.round()).all()), c.shape, bool((ln > 0).all()), int(r.max()) < 5, r.dtype]


def _printing(torch, fn):
    try:
        return fn()
    finally:
        torch.set_printoptions(profile="default")


def tensor_printing(torch, device):
    big = torch.arange(2000, dtype=torch.float32, device=device).reshape(40, 50) / 7
    tiny = array(torch, [1e-8, 2.5e-9, 3e-10], device, torch.float32)
    mixed = array(torch, [1e-5, 1.0, 12345.678], device, torch.float32)
    ints = array(torch, [[1, -200, 3], [40000, 5, 6]], device)
    return cases(torch, {
        "big": lambda: repr(big.cpu()), "tiny": lambda: repr(tiny.cpu()), "mixed": lambda: str(mixed.cpu()),
        "ints": lambda: repr(ints.cpu()), "bool": lambda: repr(array(torch, [[True, False], [False, True]], "cpu")),
        "complex": lambda: repr(array(torch, [1 + 2j, -0.5j, 3.25], "cpu", torch.complex64)),
        "complex_nan": lambda: repr(array(torch, [complex(float("nan"), 1.0), 1e6 + 1j], "cpu")),
        "half": lambda: repr(array(torch, [0.1, 1000.0, -2.5], "cpu", torch.float16)),
        "bf16": lambda: repr(array(torch, [0.1, 3.0], "cpu", torch.bfloat16)),
        "i8": lambda: repr(array(torch, [-1, 2], "cpu", torch.int8)),
        "u8": lambda: repr(array(torch, [1, 255], "cpu", torch.uint8)),
        "f64": lambda: repr(array(torch, [1.0, 2.5], "cpu", torch.float64)),
        "nan_inf": lambda: repr(array(torch, [float("nan"), float("inf"), -float("inf"), 1.5], "cpu")),
        "int_valued_float": lambda: repr(array(torch, [1.0, 2.0, -3.0], "cpu")),
        "large_int_valued": lambda: repr(array(torch, [1e10, 2.0], "cpu")),
        "neg_zero": lambda: repr(array(torch, [-0.0, 0.0], "cpu")),
        "3d": lambda: str(torch.arange(24, device="cpu").reshape(2, 3, 4)),
        "big_3d": lambda: repr(torch.arange(3000, device="cpu").reshape(10, 20, 15)),
        "empty2d": lambda: repr(torch.empty(0, 3)), "empty_i": lambda: repr(torch.empty(2, 0, dtype=torch.int64)),
        "scalar_h": lambda: repr(torch.tensor(2.5, dtype=torch.float16)),
        "cuda_suffix": lambda: repr(array(torch, [1.0], device)).replace("cuda:0", "DEV").replace(", device='DEV'",
                                                                                                     ""),
    })


def print_options(torch, device):
    x = torch.tensor(np.linspace(-1, 1, 30) * np.pi, dtype=torch.float32).reshape(3, 10)
    sci = array(torch, [1e-6, 1.0, 1e6], "cpu", torch.float32)

    def opt(**kw):
        return lambda: _printing(torch, lambda: (torch.set_printoptions(**kw), repr(x), str(sci))[1:])

    return cases(torch, {
        "precision2": opt(precision=2), "precision8": opt(precision=8), "sci_on": opt(sci_mode=True),
        "sci_off": opt(sci_mode=False), "linewidth40": opt(linewidth=40), "threshold5": opt(threshold=5),
        "edgeitems1": opt(threshold=5, edgeitems=1), "short": opt(profile="short"), "full": opt(profile="full"),
        "short_then_precision": opt(profile="short", precision=6),
        "after_restore": lambda: (repr(x), str(sci)),
        "int_precision": lambda: _printing(torch, lambda: (torch.set_printoptions(precision=1),
                                                           repr(array(torch, [123456, 7], "cpu")))[1]),
        "half_sci": lambda: _printing(torch, lambda: (torch.set_printoptions(sci_mode=True),
                                                      repr(array(torch, [0.5, 2.0], "cpu", torch.float16)))[1]),
        "complex_prec": lambda: _printing(torch, lambda: (torch.set_printoptions(precision=2),
                                                          repr(array(torch, [1 / 3 + 2j / 3], "cpu")))[1]),
        "bad_profile": lambda: _printing(torch, lambda: torch.set_printoptions(profile="huge")),
        "format": lambda: [f"{torch.tensor(3.14159):.2f}", format(torch.tensor(2), "03d"),
                           "{:e}".format(torch.tensor(1234.5))],
        "format_vec": lambda: f"{x[0, :2]:.2f}",
    })


def einsum_manipulation(torch, device):
    rng = np.random.default_rng(1560)

    def t(*shape):
        return torch.tensor(rng.standard_normal(shape), dtype=torch.float64, device=device)

    A, B, C, v = t(3, 4), t(4, 5), t(2, 3, 4), t(4)
    S = t(4, 4)
    return cases(torch, {
        "mm": lambda: torch.einsum("ij,jk->ik", A, B), "bilinear": lambda: torch.einsum("i,ij,j->", v, S, v),
        "trace": lambda: torch.einsum("ii", S), "diag": lambda: torch.einsum("ii->i", S),
        "batch_outer": lambda: torch.einsum("bij,k->bijk", C, v[:2]).shape,
        "ellipsis": lambda: torch.einsum("...ij,...jk->...ik", C, B), "list_form": lambda: torch.einsum(
            "ij,jk", [A, B]),
        "sublist": lambda: torch.einsum(A, [0, 1], B, [1, 2], [0, 2]), "implicit": lambda: torch.einsum("ba", A),
        "sum_all": lambda: torch.einsum("ijk->", C), "repeated_out": lambda: torch.einsum("ij->ii", A),
        "bad_dims": lambda: torch.einsum("ij,jk->ik", A, A), "bad_operands": lambda: torch.einsum("ij,jk->ik", A),
        "spaces": lambda: torch.einsum("i j , j k -> i k", A, B),
        "tensordot_int": lambda: torch.tensordot(C, B, dims=1),
        "tensordot_pairs": lambda: torch.tensordot(C, A, dims=([1, 2], [0, 1])),
        "tensordot_0": lambda: torch.tensordot(v[:2], v[:3], dims=0).shape,
        "tensordot_list": lambda: torch.tensordot(C, A, dims=[[2], [1]]),
        "tensordot_bad": lambda: torch.tensordot(C, B, dims=([0], [0])),
        "kron": lambda: torch.kron(A[:2, :2], torch.eye(2, dtype=torch.float64, device=device)),
        "kron_int": lambda: torch.kron(array(torch, [1, 2], device), array(torch, [[1], [10]], device)),
        "kron_3d": lambda: torch.kron(C[:1], A[:2, :1]).shape,
        "inner_outer": lambda: (torch.inner(A, B.T), torch.outer(v, v[:2]), torch.ger(v[:2], v)),
        "vdot_dot": lambda: (torch.vdot(v, v), torch.dot(v, v)), "chain": lambda: torch.linalg.multi_dot([A, B, B.T]),
        "bmm_einsum": lambda: torch.allclose(torch.einsum("bij,bjk->bik", C, C.transpose(1, 2)),
                                             torch.bmm(C, C.transpose(1, 2))),
        "einsum_int": lambda: torch.einsum("i,i->", array(torch, [1, 2, 3], device), array(torch, [4, 5, 6], device)),
        "einsum_mixed": lambda: torch.einsum("i,i->", array(torch, [1, 2], device), array(torch, [1.0, 2.0], device)),
    })


def combinatorics(torch, device):
    a = array(torch, [1, 2, 3, 4], device)
    b = array(torch, [10, 20], device)
    return cases(torch, {
        "cartesian": lambda: torch.cartesian_prod(a, b), "cartesian_3": lambda: torch.cartesian_prod(a[:2], b, b).shape,
        "cartesian_1": lambda: torch.cartesian_prod(a), "comb2": lambda: torch.combinations(a),
        "comb3": lambda: torch.combinations(a, r=3), "comb_rep": lambda: torch.combinations(a[:3], 2,
                                                                                           with_replacement=True),
        "comb0": lambda: torch.combinations(a, r=0), "comb_too_many": lambda: torch.combinations(a[:2], r=3),
        "comb_2d": lambda: torch.combinations(a.reshape(2, 2)),
        "tril": lambda: torch.tril_indices(4, 4), "tril_off": lambda: torch.tril_indices(3, 5, offset=1),
        "triu": lambda: torch.triu_indices(4, 3, -1), "tril_dtype": lambda: torch.tril_indices(3, 3,
                                                                                               dtype=torch.int32),
        "tril_fill": lambda: _fill_tril(torch, device),
        "mesh_ij": lambda: torch.meshgrid(a, b, indexing="ij"), "mesh_xy": lambda: torch.meshgrid(a, b, indexing="xy"),
        "mesh_list": lambda: torch.meshgrid([a[:2], b], indexing="ij"),
        "mesh_bad": lambda: torch.meshgrid(a, b, indexing="yx"),
        "mesh_3": lambda: [m.shape for m in torch.meshgrid(a, b, a[:3], indexing="xy")],
        "pairwise_via_mesh": lambda: (lambda ij: (ij[0] - ij[1]).abs().sum())(torch.meshgrid(a, a, indexing="ij")),
        "block_diag": lambda: torch.block_diag(array(torch, [[1, 2]], device), array(torch, [[3], [4]], device)),
        "rot90": lambda: torch.rot90(a.reshape(2, 2), 1, [0, 1]), "rot90_k3": lambda: a.reshape(2, 2).rot90(3),
        "vander": lambda: torch.vander(a[:3], N=4, increasing=True),
        "atleast": lambda: [torch.atleast_3d(a).shape, torch.atleast_2d(torch.tensor(1)).shape],
        "roll_multi": lambda: torch.roll(torch.arange(6, device=device).reshape(2, 3), (1, -1), (0, 1)),
        "flip": lambda: torch.fliplr(a.reshape(2, 2)), "triu_mask": lambda: torch.ones(3, 3, device=device).triu(1),
        "diag_embed": lambda: torch.diag_embed(array(torch, [[1, 2], [3, 4]], device), offset=1).shape,
    })


def _fill_tril(torch, device):
    n = 4
    idx = torch.tril_indices(n, n, device=device)
    vals = torch.arange(1.0, idx.shape[1] + 1, device=device)
    L = torch.zeros(n, n, device=device)
    L[idx[0], idx[1]] = vals
    return [L, bool(torch.equal(L[idx.unbind()], vals))]


PROGRAMS = [generator_reproducibility, tensor_printing, print_options, einsum_manipulation, combinatorics]
NEEDS_CPP = {}
