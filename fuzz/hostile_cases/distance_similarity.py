"""Distances and similarities with hostile arguments, beyond shape_ops.py, functional.py and statistics.py: cdist
with p of 0, fractional, inf, negative and NaN, each compute_mode (and a bogus one), batch broadcasting, empty
sets, mismatched feature sizes, integer/half/complex/mixed dtypes and 1-d inputs; pdist's p and ranks;
cosine_similarity and pairwise_distance with eps of 0 or negative, broadcasting, dims out of range, keepdim and zero
vectors; F.normalize with p of 0, negative, inf and a dim out of range; cosine_embedding_loss' shapes; torch.dist
and the legacy torch.norm forms (p='fro'/'nuc' with dims, dtype=, out=), with the gradients at zero distance."""
from . import R, T


def F(L):
    return L.nn.functional


def x(L, d, shape=(3, 4), dtype="float32", scale=5.0):
    return R(L, shape, d, dtype, scale)


def y(L, d, shape=(5, 4), dtype="float32"):
    return R(L, shape, d, dtype, 3.0) + 0.5


def grad_of(L, d, fn, shape=(3, 4), dtype="float64"):
    leaf = x(L, d, shape, dtype).requires_grad_()
    fn(leaf).sum().backward()
    return leaf.grad


def same_rows(L, d, shape=(3, 4), dtype="float64"):
    """A leaf whose rows are all equal (zero pairwise distances)."""
    return L.ones(shape, dtype=getattr(L, dtype), device=d).requires_grad_()


def grad_same(L, d, fn):
    leaf = same_rows(L, d)
    fn(leaf).sum().backward()
    return leaf.grad


CASES = {
    # ---- cdist: p
    "cdist/p2": lambda L, d: L.cdist(x(L, d), y(L, d)),
    "cdist/p0": lambda L, d: L.cdist(x(L, d), y(L, d), p=0),
    "cdist/p1": lambda L, d: L.cdist(x(L, d), y(L, d), p=1),
    "cdist/p0_5": lambda L, d: L.cdist(x(L, d), y(L, d), p=0.5),
    "cdist/p3": lambda L, d: L.cdist(x(L, d), y(L, d), p=3),
    "cdist/p_inf": lambda L, d: L.cdist(x(L, d), y(L, d), p=float("inf")),
    "cdist/p_negative": lambda L, d: L.cdist(x(L, d), y(L, d), p=-1),
    "cdist/p_neg_inf": lambda L, d: L.cdist(x(L, d), y(L, d), p=float("-inf")),
    "cdist/p_nan": lambda L, d: L.cdist(x(L, d), y(L, d), p=float("nan")),
    "cdist/p_int_tensor": lambda L, d: L.cdist(x(L, d), y(L, d), p=L.tensor(2.0)),
    "cdist/p_str": lambda L, d: L.cdist(x(L, d), y(L, d), p="fro"),
    # ---- cdist: compute_mode
    "cdist/mm_always": lambda L, d: L.cdist(x(L, d), y(L, d), compute_mode="use_mm_for_euclid_dist"),
    "cdist/mm_never": lambda L, d: L.cdist(x(L, d), y(L, d), compute_mode="donot_use_mm_for_euclid_dist"),
    "cdist/mm_if_necessary_big": lambda L, d: L.cdist(x(L, d, (30, 4)), y(L, d, (27, 4)),
                                                      compute_mode="use_mm_for_euclid_dist_if_necessary"),
    "cdist/mm_bogus": lambda L, d: L.cdist(x(L, d), y(L, d), compute_mode="fast"),
    "cdist/mm_none": lambda L, d: L.cdist(x(L, d), y(L, d), compute_mode=None),
    "cdist/mm_always_p1": lambda L, d: L.cdist(x(L, d), y(L, d), p=1, compute_mode="use_mm_for_euclid_dist"),
    "cdist/mm_always_same_points": lambda L, d: L.cdist(x(L, d), x(L, d), compute_mode="use_mm_for_euclid_dist"),
    # ---- cdist: shapes
    "cdist/feature_mismatch": lambda L, d: L.cdist(x(L, d), y(L, d, (5, 3))),
    "cdist/1d": lambda L, d: L.cdist(x(L, d, (4,)), y(L, d, (4,))),
    "cdist/0d": lambda L, d: L.cdist(L.tensor(1.0, device=d), L.tensor(2.0, device=d)),
    "cdist/1d_and_2d": lambda L, d: L.cdist(x(L, d, (4,)), y(L, d)),
    "cdist/batched": lambda L, d: L.cdist(x(L, d, (2, 3, 4)), y(L, d, (2, 5, 4))),
    "cdist/batch_broadcast": lambda L, d: L.cdist(x(L, d, (2, 1, 3, 4)), y(L, d, (3, 5, 4))),
    "cdist/batch_mismatch": lambda L, d: L.cdist(x(L, d, (2, 3, 4)), y(L, d, (3, 5, 4))),
    "cdist/batch_vs_2d": lambda L, d: L.cdist(x(L, d, (2, 3, 4)), y(L, d)),
    "cdist/empty_rows": lambda L, d: L.cdist(x(L, d, (0, 4)), y(L, d)),
    "cdist/empty_cols": lambda L, d: L.cdist(x(L, d), y(L, d, (0, 4))),
    "cdist/empty_features": lambda L, d: L.cdist(x(L, d, (3, 0)), y(L, d, (5, 0))),
    "cdist/empty_features_p_inf": lambda L, d: L.cdist(x(L, d, (3, 0)), y(L, d, (5, 0)), p=float("inf")),
    "cdist/empty_batch": lambda L, d: L.cdist(x(L, d, (0, 3, 4)), y(L, d, (0, 5, 4))),
    "cdist/single_points": lambda L, d: L.cdist(x(L, d, (1, 4)), y(L, d, (1, 4))),
    # ---- cdist: dtypes
    "cdist/int": lambda L, d: L.cdist(x(L, d).long(), y(L, d).long()),
    "cdist/bool": lambda L, d: L.cdist(x(L, d) > 0, y(L, d) > 0),
    "cdist/float64": lambda L, d: L.cdist(x(L, d, dtype="float64"), y(L, d, dtype="float64")),
    "cdist/mixed_f32_f64": lambda L, d: L.cdist(x(L, d), y(L, d, dtype="float64")),
    "cdist/half": lambda L, d: L.cdist(x(L, d, dtype="float16"), y(L, d, dtype="float16")),
    "cdist/bfloat16": lambda L, d: L.cdist(x(L, d, dtype="bfloat16"), y(L, d, dtype="bfloat16")),
    "cdist/complex": lambda L, d: L.cdist(x(L, d).to(L.complex64), y(L, d).to(L.complex64)),
    "cdist/nan_input": lambda L, d: L.cdist(T(L, [[float("nan"), 1.0]], d), T(L, [[0.0, 1.0], [1.0, 1.0]], d)),
    "cdist/inf_input": lambda L, d: L.cdist(T(L, [[float("inf"), 1.0]], d), T(L, [[0.0, 1.0]], d)),
    "cdist/inf_input_mm": lambda L, d: L.cdist(T(L, [[float("inf"), 1.0]], d), T(L, [[0.0, 1.0]], d),
                                               compute_mode="use_mm_for_euclid_dist"),
    "cdist/noncontiguous": lambda L, d: L.cdist(x(L, d, (4, 3)).t(), y(L, d, (4, 5)).t()),
    # ---- cdist: gradients
    "cdist/grad_p2": lambda L, d: grad_of(L, d, lambda t: L.cdist(t, y(L, d, dtype="float64"))),
    "cdist/grad_p1": lambda L, d: grad_of(L, d, lambda t: L.cdist(t, y(L, d, dtype="float64"), p=1)),
    "cdist/grad_p_inf": lambda L, d: grad_of(L, d, lambda t: L.cdist(t, y(L, d, dtype="float64"),
                                                                     p=float("inf"))),
    "cdist/grad_p0_5": lambda L, d: grad_of(L, d, lambda t: L.cdist(t, y(L, d, dtype="float64"), p=0.5)),
    "cdist/grad_p0": lambda L, d: grad_of(L, d, lambda t: L.cdist(t, y(L, d, dtype="float64"), p=0)),
    "cdist/grad_zero_distance_p2": lambda L, d: grad_same(L, d, lambda t: L.cdist(t, t.detach())),
    "cdist/grad_zero_distance_p1": lambda L, d: grad_same(L, d, lambda t: L.cdist(t, t.detach(), p=1)),
    "cdist/grad_zero_distance_p3": lambda L, d: grad_same(L, d, lambda t: L.cdist(t, t.detach(), p=3)),
    "cdist/grad_zero_distance_p0_5": lambda L, d: grad_same(L, d, lambda t: L.cdist(t, t.detach(), p=0.5)),
    "cdist/grad_zero_distance_inf": lambda L, d: grad_same(L, d, lambda t: L.cdist(t, t.detach(),
                                                                                   p=float("inf"))),
    "cdist/grad_mm_zero_distance": lambda L, d: grad_same(L, d, lambda t: L.cdist(
        t, t.detach(), compute_mode="use_mm_for_euclid_dist")),
    "cdist/grad_batched": lambda L, d: grad_of(L, d, lambda t: L.cdist(t, y(L, d, (2, 5, 4), "float64")),
                                               (2, 3, 4)),
    # ---- pdist
    "pdist/p2": lambda L, d: F(L).pdist(x(L, d)),
    "pdist/p0": lambda L, d: F(L).pdist(x(L, d), p=0),
    "pdist/p1": lambda L, d: F(L).pdist(x(L, d), p=1),
    "pdist/p_inf": lambda L, d: F(L).pdist(x(L, d), p=float("inf")),
    "pdist/p_negative": lambda L, d: F(L).pdist(x(L, d), p=-1.0),
    "pdist/p_nan": lambda L, d: F(L).pdist(x(L, d), p=float("nan")),
    "pdist/1d": lambda L, d: F(L).pdist(x(L, d, (4,))),
    "pdist/3d": lambda L, d: F(L).pdist(x(L, d, (2, 3, 4))),
    "pdist/one_row": lambda L, d: F(L).pdist(x(L, d, (1, 4))),
    "pdist/zero_rows": lambda L, d: F(L).pdist(x(L, d, (0, 4))),
    "pdist/zero_features": lambda L, d: F(L).pdist(x(L, d, (3, 0))),
    "pdist/int": lambda L, d: F(L).pdist(x(L, d).long()),
    "pdist/float64": lambda L, d: F(L).pdist(x(L, d, dtype="float64"), p=3),
    "pdist/half": lambda L, d: F(L).pdist(x(L, d, dtype="float16")),
    "pdist/noncontiguous": lambda L, d: F(L).pdist(x(L, d, (4, 3)).t()),
    "pdist/grad": lambda L, d: grad_of(L, d, lambda t: F(L).pdist(t)),
    "pdist/grad_zero_distance": lambda L, d: grad_same(L, d, lambda t: F(L).pdist(t)),
    "pdist/grad_zero_distance_p1": lambda L, d: grad_same(L, d, lambda t: F(L).pdist(t, p=1)),
    "pdist/grad_zero_distance_inf": lambda L, d: grad_same(L, d, lambda t: F(L).pdist(t, p=float("inf"))),
    # ---- cosine_similarity
    "cosine/plain": lambda L, d: F(L).cosine_similarity(x(L, d), y(L, d, (3, 4))),
    "cosine/dim0": lambda L, d: F(L).cosine_similarity(x(L, d), y(L, d, (3, 4)), dim=0),
    "cosine/dim_out_of_range": lambda L, d: F(L).cosine_similarity(x(L, d), y(L, d, (3, 4)), dim=2),
    "cosine/dim_negative_out": lambda L, d: F(L).cosine_similarity(x(L, d), y(L, d, (3, 4)), dim=-3),
    "cosine/broadcast": lambda L, d: F(L).cosine_similarity(x(L, d, (3, 1, 4)), y(L, d, (5, 4)), dim=-1),
    "cosine/not_broadcastable": lambda L, d: F(L).cosine_similarity(x(L, d), y(L, d)),
    "cosine/zero_vector": lambda L, d: F(L).cosine_similarity(L.zeros(2, 4, device=d), y(L, d, (2, 4))),
    "cosine/both_zero": lambda L, d: F(L).cosine_similarity(L.zeros(2, 4, device=d), L.zeros(2, 4, device=d)),
    "cosine/eps_zero_zero_vector": lambda L, d: F(L).cosine_similarity(L.zeros(2, 4, device=d), y(L, d, (2, 4)),
                                                                       eps=0.0),
    "cosine/eps_negative": lambda L, d: F(L).cosine_similarity(x(L, d), y(L, d, (3, 4)), eps=-1.0),
    "cosine/eps_huge": lambda L, d: F(L).cosine_similarity(x(L, d), y(L, d, (3, 4)), eps=1e6),
    "cosine/1d": lambda L, d: F(L).cosine_similarity(x(L, d, (4,)), y(L, d, (4,)), dim=0),
    "cosine/0d": lambda L, d: F(L).cosine_similarity(L.tensor(2.0, device=d), L.tensor(3.0, device=d), dim=0),
    "cosine/empty_dim": lambda L, d: F(L).cosine_similarity(x(L, d, (3, 0)), y(L, d, (3, 0))),
    "cosine/empty_batch": lambda L, d: F(L).cosine_similarity(x(L, d, (0, 4)), y(L, d, (0, 4))),
    "cosine/int": lambda L, d: F(L).cosine_similarity(x(L, d).long(), y(L, d, (3, 4)).long()),
    "cosine/mixed_dtype": lambda L, d: F(L).cosine_similarity(x(L, d), y(L, d, (3, 4), "float64")),
    "cosine/half": lambda L, d: F(L).cosine_similarity(x(L, d, dtype="float16"), y(L, d, (3, 4), "float16")),
    "cosine/huge_values": lambda L, d: F(L).cosine_similarity(x(L, d) * 1e30, y(L, d, (3, 4)) * 1e30),
    "cosine/grad_zero_vector": lambda L, d: _grad_cos_zero(L, d),
    "cosine/module": lambda L, d: L.nn.CosineSimilarity(dim=0, eps=1e-3)(x(L, d), y(L, d, (3, 4))),
    # ---- pairwise_distance
    "pairwise/plain": lambda L, d: F(L).pairwise_distance(x(L, d), y(L, d, (3, 4))),
    "pairwise/p1": lambda L, d: F(L).pairwise_distance(x(L, d), y(L, d, (3, 4)), p=1),
    "pairwise/p0": lambda L, d: F(L).pairwise_distance(x(L, d), y(L, d, (3, 4)), p=0),
    "pairwise/p_inf": lambda L, d: F(L).pairwise_distance(x(L, d), y(L, d, (3, 4)), p=float("inf")),
    "pairwise/p_negative": lambda L, d: F(L).pairwise_distance(x(L, d), y(L, d, (3, 4)), p=-1),
    "pairwise/eps_zero": lambda L, d: F(L).pairwise_distance(x(L, d), x(L, d), eps=0.0),
    "pairwise/eps_negative": lambda L, d: F(L).pairwise_distance(x(L, d), x(L, d), eps=-1.0),
    "pairwise/same_inputs": lambda L, d: F(L).pairwise_distance(x(L, d), x(L, d)),
    "pairwise/keepdim": lambda L, d: F(L).pairwise_distance(x(L, d), y(L, d, (3, 4)), keepdim=True),
    "pairwise/broadcast": lambda L, d: F(L).pairwise_distance(x(L, d), y(L, d, (1, 4))),
    "pairwise/not_broadcastable": lambda L, d: F(L).pairwise_distance(x(L, d), y(L, d)),
    "pairwise/1d": lambda L, d: F(L).pairwise_distance(x(L, d, (4,)), y(L, d, (4,))),
    "pairwise/1d_keepdim": lambda L, d: F(L).pairwise_distance(x(L, d, (4,)), y(L, d, (4,)), keepdim=True),
    "pairwise/1d_and_2d": lambda L, d: F(L).pairwise_distance(x(L, d, (4,)), y(L, d, (3, 4))),
    "pairwise/0d": lambda L, d: F(L).pairwise_distance(L.tensor(1.0, device=d), L.tensor(3.0, device=d)),
    "pairwise/3d": lambda L, d: F(L).pairwise_distance(x(L, d, (2, 3, 4)), y(L, d, (2, 3, 4))),
    "pairwise/empty": lambda L, d: F(L).pairwise_distance(x(L, d, (0, 4)), y(L, d, (0, 4))),
    "pairwise/empty_features": lambda L, d: F(L).pairwise_distance(x(L, d, (3, 0)), y(L, d, (3, 0))),
    "pairwise/int": lambda L, d: F(L).pairwise_distance(x(L, d).long(), y(L, d, (3, 4)).long()),
    "pairwise/module": lambda L, d: L.nn.PairwiseDistance(p=1.5, keepdim=True)(x(L, d), y(L, d, (3, 4))),
    "pairwise/grad_same": lambda L, d: grad_same(L, d, lambda t: F(L).pairwise_distance(t, t.detach())),
    # ---- F.normalize
    "normalize/plain": lambda L, d: F(L).normalize(x(L, d)),
    "normalize/p0": lambda L, d: F(L).normalize(x(L, d), p=0),
    "normalize/p_negative": lambda L, d: F(L).normalize(x(L, d), p=-1),
    "normalize/p_inf": lambda L, d: F(L).normalize(x(L, d), p=float("inf")),
    "normalize/p_nan": lambda L, d: F(L).normalize(x(L, d), p=float("nan")),
    "normalize/dim0": lambda L, d: F(L).normalize(x(L, d), dim=0),
    "normalize/dim_out_of_range": lambda L, d: F(L).normalize(x(L, d), dim=2),
    "normalize/dim_tuple": lambda L, d: F(L).normalize(x(L, d), dim=(0, 1)),
    "normalize/zero_rows": lambda L, d: F(L).normalize(L.zeros(2, 3, device=d)),
    "normalize/eps_zero_zero_rows": lambda L, d: F(L).normalize(L.zeros(2, 3, device=d), eps=0.0),
    "normalize/eps_negative": lambda L, d: F(L).normalize(x(L, d), eps=-1.0),
    "normalize/1d": lambda L, d: F(L).normalize(x(L, d, (4,)), dim=0),
    "normalize/0d": lambda L, d: F(L).normalize(L.tensor(3.0, device=d), dim=0),
    "normalize/empty": lambda L, d: F(L).normalize(x(L, d, (0, 3))),
    "normalize/int": lambda L, d: F(L).normalize(x(L, d).long()),
    "normalize/complex": lambda L, d: F(L).normalize(x(L, d).to(L.complex64)),
    "normalize/half": lambda L, d: F(L).normalize(x(L, d, dtype="float16")),
    "normalize/out": lambda L, d: F(L).normalize(x(L, d), out=L.empty(3, 4, device=d)),
    "normalize/out_wrong_shape": lambda L, d: F(L).normalize(x(L, d), out=L.empty(2, device=d)),
    "normalize/grad_zero_rows": lambda L, d: grad_same(L, d, lambda t: F(L).normalize(t - 1.0)),
    # ---- cosine_embedding_loss
    "cos_emb/plain": lambda L, d: F(L).cosine_embedding_loss(x(L, d), y(L, d, (3, 4)), T(L, [1.0, -1.0, 1.0], d)),
    "cos_emb/target_wrong_len": lambda L, d: F(L).cosine_embedding_loss(x(L, d), y(L, d, (3, 4)),
                                                                        T(L, [1.0, -1.0], d)),
    "cos_emb/target_2d": lambda L, d: F(L).cosine_embedding_loss(x(L, d), y(L, d, (3, 4)),
                                                                 T(L, [[1.0, -1.0, 1.0]], d)),
    "cos_emb/inputs_differ": lambda L, d: F(L).cosine_embedding_loss(x(L, d), y(L, d), T(L, [1.0, -1.0, 1.0], d)),
    "cos_emb/1d": lambda L, d: F(L).cosine_embedding_loss(x(L, d, (4,)), y(L, d, (4,)), T(L, 1.0, d)),
    "cos_emb/1d_target_1d": lambda L, d: F(L).cosine_embedding_loss(x(L, d, (4,)), y(L, d, (4,)), T(L, [1.0], d)),
    "cos_emb/3d": lambda L, d: F(L).cosine_embedding_loss(x(L, d, (2, 3, 4)), y(L, d, (2, 3, 4)),
                                                          T(L, [1.0, -1.0], d)),
    "cos_emb/target_int": lambda L, d: F(L).cosine_embedding_loss(x(L, d), y(L, d, (3, 4)), T(L, [1, -1, 1], d)),
    "cos_emb/target_zero": lambda L, d: F(L).cosine_embedding_loss(x(L, d), y(L, d, (3, 4)), T(L, [0.0, 2.0, -3.0],
                                                                                               d)),
    "cos_emb/margin_negative": lambda L, d: F(L).cosine_embedding_loss(x(L, d), y(L, d, (3, 4)),
                                                                       T(L, [-1.0, -1.0, -1.0], d), margin=-0.5),
    "cos_emb/zero_vectors": lambda L, d: F(L).cosine_embedding_loss(L.zeros(3, 4, device=d), y(L, d, (3, 4)),
                                                                    T(L, [1.0, -1.0, 1.0], d), reduction="none"),
    "cos_emb/empty": lambda L, d: F(L).cosine_embedding_loss(x(L, d, (0, 4)), y(L, d, (0, 4)), T(L, [], d)),
    "cos_emb/reduction_bogus": lambda L, d: F(L).cosine_embedding_loss(x(L, d), y(L, d, (3, 4)),
                                                                       T(L, [1.0, -1.0, 1.0], d), reduction="avg"),
    # ---- torch.dist
    "dist/p2": lambda L, d: L.dist(x(L, d), y(L, d, (3, 4))),
    "dist/p0": lambda L, d: L.dist(x(L, d), y(L, d, (3, 4)), p=0),
    "dist/p_inf": lambda L, d: L.dist(x(L, d), y(L, d, (3, 4)), p=float("inf")),
    "dist/p_neg_inf": lambda L, d: L.dist(x(L, d), y(L, d, (3, 4)), p=float("-inf")),
    "dist/p_negative": lambda L, d: L.dist(x(L, d), y(L, d, (3, 4)), p=-2),
    "dist/broadcast": lambda L, d: L.dist(x(L, d), y(L, d, (4,))),
    "dist/not_broadcastable": lambda L, d: L.dist(x(L, d), y(L, d)),
    "dist/int": lambda L, d: L.dist(x(L, d).long(), y(L, d, (3, 4)).long()),
    "dist/mixed": lambda L, d: L.dist(x(L, d), y(L, d, (3, 4), "float64")),
    "dist/empty": lambda L, d: L.dist(x(L, d, (0,)), y(L, d, (0,))),
    "dist/p_tensor": lambda L, d: L.dist(x(L, d), y(L, d, (3, 4)), p=L.tensor(3.0)),
    "dist/grad_same": lambda L, d: grad_same(L, d, lambda t: L.dist(t, t.detach())),
    # ---- torch.norm legacy forms
    "norm/fro_dim": lambda L, d: L.norm(x(L, d), p="fro", dim=(0, 1)),
    "norm/fro_one_dim": lambda L, d: L.norm(x(L, d), p="fro", dim=1),
    "norm/fro_three_dims": lambda L, d: L.norm(x(L, d, (2, 3, 4)), p="fro", dim=(0, 1, 2)),
    "norm/nuc": lambda L, d: L.norm(x(L, d), p="nuc"),
    "norm/nuc_dim": lambda L, d: L.norm(x(L, d, (2, 3, 4)), p="nuc", dim=(1, 2)),
    "norm/nuc_one_dim": lambda L, d: L.norm(x(L, d), p="nuc", dim=1),
    "norm/nuc_1d": lambda L, d: L.norm(x(L, d, (4,)), p="nuc"),
    "norm/p_bogus_str": lambda L, d: L.norm(x(L, d), p="max"),
    "norm/dtype_f64": lambda L, d: L.norm(x(L, d), dtype=L.float64),
    "norm/dtype_int": lambda L, d: L.norm(x(L, d), dtype=L.int64),
    "norm/dtype_half": lambda L, d: L.norm(x(L, d), p=1, dim=1, dtype=L.float16),
    "norm/int_input": lambda L, d: L.norm(x(L, d).long()),
    "norm/p0": lambda L, d: L.norm(x(L, d), p=0),
    "norm/p_inf_dim_keepdim": lambda L, d: L.norm(x(L, d), p=float("inf"), dim=0, keepdim=True),
    "norm/p_negative_dim": lambda L, d: L.norm(x(L, d), p=-1, dim=1),
    "norm/dim_out_of_range": lambda L, d: L.norm(x(L, d), dim=3),
    "norm/dim_repeated": lambda L, d: L.norm(x(L, d), dim=(1, 1)),
    "norm/out": lambda L, d: L.norm(x(L, d), dim=1, out=L.empty(3, device=d)),
    "norm/out_dtype_mismatch": lambda L, d: L.norm(x(L, d), dim=1, out=L.empty(3, dtype=L.float64, device=d)),
    "norm/complex": lambda L, d: L.norm(x(L, d).to(L.complex64), dim=1),
    "norm/empty_p_inf": lambda L, d: L.norm(x(L, d, (0, 3)), p=float("inf"), dim=1),
    "norm/empty_p_inf_reduced": lambda L, d: L.norm(x(L, d, (0, 3)), p=float("inf"), dim=0),
    "norm/empty_fro": lambda L, d: L.norm(x(L, d, (0, 3))),
    "norm/method_p_str_dim": lambda L, d: x(L, d).norm("fro", 1),
}


def _grad_cos_zero(L, d):
    leaf = L.zeros(2, 4, dtype=L.float64, device=d).requires_grad_()
    F(L).cosine_similarity(leaf, y(L, d, (2, 4), "float64")).sum().backward()
    return leaf.grad


_CUDA_KERNEL = ("PyTorch's CUDA cdist/pdist kernels take float and double only and name themselves \"cdist_cuda\"/"
                "\"pdist_cuda\", as tandem does on cuda; the harness compares with PyTorch's CPU text (\"cdist\")")
KNOWN = {
    "cdist/half": _CUDA_KERNEL, "cdist/bfloat16": _CUDA_KERNEL, "pdist/half": _CUDA_KERNEL,
    "cdist/mm_always_same_points": "PyTorch's matrix-product form (|a|^2 + |b|^2 - 2ab) loses a point's zero distance "
                                   "to itself to float32 cancellation (0.0028 here); tandem's same formula rounds "
                                   "to exactly 0 (its float32 GEMM accumulates differently); the other distances "
                                   "agree",
    "cosine/mixed_dtype": "float32 with float64: both normalise the float32 input in float32 (PyTorch's recipe), "
                          "and the two libraries' float32 norms round differently in the last bit (1e-7 relative), "
                          "above the float64 tolerance",
}
