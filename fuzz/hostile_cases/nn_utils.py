"""torch.nn.utils misuse: clip_grad_norm_/clip_grad_value_/get_total_norm with inf and NaN gradients,
error_if_nonfinite, odd norm types and max norms; parameters_to_vector/vector_to_parameters with vectors of the wrong
size or kind; the rnn helpers (pad_sequence, pack_padded_sequence, pad_packed_sequence, pack_sequence,
unpad_sequence) with unsorted, zero, too-long or wrongly-placed lengths; weight_norm/spectral_norm (old hooks and
parametrizations) with bad dims, names and iteration counts; parametrize with missing tensors, shape-changing
parametrizations and removal of what is not there; prune with amounts out of range, bad dims and removal of
unpruned tensors."""
import math

from . import R, T

N, INF = math.nan, math.inf


def U(L):
    return L.nn.utils


def P(L, d, values, grad):
    p = L.nn.Parameter(T(L, values, d))
    p.grad = T(L, grad, d)
    return p


def clipped(L, d, grads, max_norm=1.0, **kw):
    """(the total norm clip_grad_norm_ returns, the gradients after it) for parameters with these gradients."""
    params = [P(L, d, [0.0] * len(g), g) for g in grads]
    norm = U(L).clip_grad_norm_(params, max_norm, **kw)
    return norm, [p.grad for p in params]


def clipped_value(L, d, grad, clip):
    p = P(L, d, [0.0] * len(grad), grad)
    U(L).clip_grad_value_([p], clip)
    return p.grad


def lin(L, d, i=3, o=2):
    m = L.nn.Linear(i, o).to(d).double()
    with L.no_grad():
        m.weight.copy_(R(L, (o, i), d))
        m.bias.copy_(R(L, (o,), d))
    return m


def conv(L, d):
    m = L.nn.Conv2d(2, 3, 2).to(d).double()
    with L.no_grad():
        m.weight.copy_(R(L, (3, 2, 2, 2), d))
        m.bias.copy_(R(L, (3,), d))
    return m


def to_params(L, d, vec, *shapes):
    params = [L.nn.Parameter(L.zeros(s, device=d, dtype=L.float64)) for s in shapes]
    U(L).vector_to_parameters(vec, params)
    return [p.detach() for p in params]


def seqs(L, d, *lengths, feat=()):
    return [R(L, (n,) + feat, d) for n in lengths]


def packed(L, d, lengths, **kw):
    """pack_padded_sequence of a (T, B) batch with these lengths: the packed data and batch sizes."""
    T_ = max(lengths) if len(lengths) and max(lengths) > 0 else 1
    p = U(L).rnn.pack_padded_sequence(R(L, (T_, len(lengths)), d), lengths, **kw)
    return p.data, p.batch_sizes


def round_trip(L, d, lengths, **kw):
    p = U(L).rnn.pack_padded_sequence(R(L, (max(lengths), len(lengths), 2), d), lengths, enforce_sorted=False)
    return U(L).rnn.pad_packed_sequence(p, **kw)


def wn_forward(L, d, make, **kw):
    m = make(L, d)
    U(L).weight_norm(m, **kw)
    return m(R(L, (2, 3), d))


def sn_weight(L, d, **kw):
    m = lin(L, d, 4, 3)
    U(L).spectral_norm(m, **kw)
    return m.weight.shape


def parametrization(L, kind):
    """A parametrization module of L's nn (made per library): twice, flatten (changes the shape), int (changes the
    dtype), pair (returns a tuple) or inverse (with right_inverse)."""
    class Twice(L.nn.Module):
        def forward(self, x):
            return x * 2

    class Flatten(L.nn.Module):
        def forward(self, x):
            return x.reshape(-1)

    class ToInt(L.nn.Module):
        def forward(self, x):
            return x.long()

    class Pair(L.nn.Module):
        def forward(self, x):
            return x, x

    class WithInverse(L.nn.Module):
        def forward(self, x):
            return x * 2

        def right_inverse(self, x):
            return x / 2

    return {"twice": Twice, "flatten": Flatten, "int": ToInt, "pair": Pair, "inverse": WithInverse}[kind]()


def parametrized(L, d, kind, name="weight", **kw):
    m = lin(L, d)
    L.nn.utils.parametrize.register_parametrization(m, name, parametrization(L, kind), **kw)
    return m.weight


def cached_twice(L, d):
    """Inside parametrize.cached(), a parametrized weight read twice is one tensor; outside, two."""
    m = lin(L, d)
    L.nn.utils.parametrize.register_parametrization(m, "weight", parametrization(L, "twice"))
    with L.nn.utils.parametrize.cached():
        inside = m.weight is m.weight
    return inside, m.weight is m.weight


def pruned(L, d, fn, name="weight"):
    """fn(module) prunes it: the weight afterwards and how many entries the mask zeroed."""
    m = lin(L, d, 4, 3)
    fn(m)
    mask = getattr(m, name + "_mask")
    return getattr(m, name), int((mask == 0).sum())


def PR(L):
    return L.nn.utils.prune


CASES = {
    # ---- clip_grad_norm_ / get_total_norm / clip_grad_value_
    "clip_grad_norm_/ok": lambda L, d: clipped(L, d, [[3.0, 4.0], [0.0, 12.0]], 6.5),
    "clip_grad_norm_/below_max_untouched": lambda L, d: clipped(L, d, [[0.3, 0.4]], 1.0),
    "clip_grad_norm_/inf_grad": lambda L, d: clipped(L, d, [[INF, 1.0]]),
    "clip_grad_norm_/nan_grad": lambda L, d: clipped(L, d, [[N, 1.0]]),
    "clip_grad_norm_/inf_grad_error": lambda L, d: clipped(L, d, [[INF, 1.0]], error_if_nonfinite=True),
    "clip_grad_norm_/nan_grad_error": lambda L, d: clipped(L, d, [[N, 1.0]], error_if_nonfinite=True),
    "clip_grad_norm_/inf_norm_type": lambda L, d: clipped(L, d, [[3.0, -4.0], [1.0, 2.0]], 1.0, norm_type=INF),
    "clip_grad_norm_/inf_norm_type_str": lambda L, d: clipped(L, d, [[3.0, -4.0]], 1.0, norm_type="inf"),
    "clip_grad_norm_/norm_type_zero": lambda L, d: clipped(L, d, [[3.0, 0.0, 2.0]], 1.0, norm_type=0),
    "clip_grad_norm_/norm_type_one": lambda L, d: clipped(L, d, [[3.0, -1.0]], 1.0, norm_type=1),
    "clip_grad_norm_/norm_type_negative": lambda L, d: clipped(L, d, [[3.0, -1.0]], 1.0, norm_type=-1.0),
    "clip_grad_norm_/norm_type_str": lambda L, d: clipped(L, d, [[3.0]], 1.0, norm_type="fro"),
    "clip_grad_norm_/max_norm_zero": lambda L, d: clipped(L, d, [[3.0, 4.0]], 0.0),
    "clip_grad_norm_/max_norm_negative": lambda L, d: clipped(L, d, [[3.0, 4.0]], -1.0),
    "clip_grad_norm_/max_norm_str": lambda L, d: clipped(L, d, [[3.0, 4.0]], "1.0"),
    "clip_grad_norm_/max_norm_tensor": lambda L, d: clipped(L, d, [[3.0, 4.0]], T(L, 1.0, d)),
    "clip_grad_norm_/no_grads": lambda L, d: U(L).clip_grad_norm_([L.nn.Parameter(L.ones(2, device=d))], 1.0),
    "clip_grad_norm_/empty_list": lambda L, d: U(L).clip_grad_norm_([], 1.0),
    "clip_grad_norm_/single_tensor": lambda L, d: (lambda p: (U(L).clip_grad_norm_(p, 1.0), p.grad))(
        P(L, d, [0.0, 0.0], [3.0, 4.0])),
    "clip_grad_norm_/mixed_dtypes": lambda L, d: (lambda a, b: (U(L).clip_grad_norm_([a, b], 1.0), a.grad, b.grad))(
        P(L, d, [0.0], [3.0]), L.nn.Parameter(L.zeros(1, device=d, dtype=L.float64))),
    "clip_grad_norm_/zero_grads": lambda L, d: clipped(L, d, [[0.0, 0.0]]),
    "clip_grad_norm_/empty_grad": lambda L, d: clipped(L, d, [[]]),
    "clip_grad_norm_/not_iterable": lambda L, d: U(L).clip_grad_norm_(3, 1.0),
    "get_total_norm/ok": lambda L, d: U(L).get_total_norm([T(L, [3.0], d), T(L, [4.0], d)]),
    "get_total_norm/empty": lambda L, d: U(L).get_total_norm([]),
    "get_total_norm/inf_error": lambda L, d: U(L).get_total_norm([T(L, [INF], d)], error_if_nonfinite=True),
    "clip_grads_with_norm_/ok": lambda L, d: (lambda p: (U(L).clip_grads_with_norm_([p], 1.0, T(L, 5.0, d)),
                                                         p.grad)[1])(P(L, d, [0.0, 0.0], [3.0, 4.0])),
    "clip_grad_value_/ok": lambda L, d: clipped_value(L, d, [3.0, -4.0, 0.5], 1.0),
    "clip_grad_value_/negative": lambda L, d: clipped_value(L, d, [3.0, -4.0, 0.5], -1.0),
    "clip_grad_value_/nan_clip": lambda L, d: clipped_value(L, d, [3.0, -4.0], N),
    "clip_grad_value_/nan_grad": lambda L, d: clipped_value(L, d, [N, -4.0], 1.0),
    "clip_grad_value_/inf_clip": lambda L, d: clipped_value(L, d, [INF, -4.0], INF),
    "clip_grad_value_/str_clip": lambda L, d: clipped_value(L, d, [3.0], "1"),
    "clip_grad_value_/zero": lambda L, d: clipped_value(L, d, [3.0, -4.0], 0),
    # ---- parameters_to_vector / vector_to_parameters
    "parameters_to_vector/ok": lambda L, d: U(L).parameters_to_vector(lin(L, d).parameters()),
    "parameters_to_vector/empty": lambda L, d: U(L).parameters_to_vector([]),
    "parameters_to_vector/not_tensors": lambda L, d: U(L).parameters_to_vector([1.0, 2.0]),
    "parameters_to_vector/mixed_dtypes": lambda L, d: U(L).parameters_to_vector([T(L, [1.0], d),
                                                                               T(L, [2.0], d, "float64")]),
    "parameters_to_vector/non_contiguous": lambda L, d: U(L).parameters_to_vector([R(L, (3, 2), d).t()]),
    "vector_to_parameters/ok": lambda L, d: to_params(L, d, R(L, (5,), d), (2,), (3,)),
    "vector_to_parameters/too_long": lambda L, d: to_params(L, d, R(L, (7,), d), (2,), (3,)),
    "vector_to_parameters/too_short": lambda L, d: to_params(L, d, R(L, (4,), d), (2,), (3,)),
    "vector_to_parameters/not_tensor": lambda L, d: to_params(L, d, [1.0, 2.0], (2,)),
    "vector_to_parameters/2d_vector": lambda L, d: to_params(L, d, R(L, (2, 2), d), (2, 2)),
    "vector_to_parameters/dtype_differs": lambda L, d: to_params(L, d, R(L, (2,), d, "float32"), (2,)),
    # ---- rnn helpers
    "pad_sequence/ok": lambda L, d: U(L).rnn.pad_sequence(seqs(L, d, 3, 1, 2), padding_value=-1.0),
    "pad_sequence/batch_first_left": lambda L, d: U(L).rnn.pad_sequence(seqs(L, d, 3, 1, feat=(2,)),
                                                                        batch_first=True, padding_side="left"),
    "pad_sequence/bad_side": lambda L, d: U(L).rnn.pad_sequence(seqs(L, d, 3, 1), padding_side="middle"),
    "pad_sequence/empty_list": lambda L, d: U(L).rnn.pad_sequence([]),
    "pad_sequence/trailing_mismatch": lambda L, d: U(L).rnn.pad_sequence([R(L, (2, 3), d), R(L, (2, 4), d)]),
    "pad_sequence/0d": lambda L, d: U(L).rnn.pad_sequence([T(L, 1.0, d), T(L, 2.0, d)]),
    "pad_sequence/zero_length": lambda L, d: U(L).rnn.pad_sequence(seqs(L, d, 0, 2)),
    "pad_sequence/all_zero_length": lambda L, d: U(L).rnn.pad_sequence(seqs(L, d, 0, 0)),
    "pad_sequence/mixed_dtype": lambda L, d: U(L).rnn.pad_sequence([R(L, (2,), d), R(L, (1,), d, "float32")]),
    "pad_sequence/single_tensor": lambda L, d: U(L).rnn.pad_sequence(R(L, (3, 2), d)),
    "pack_padded/ok": lambda L, d: packed(L, d, [3, 2, 1]),
    "pack_padded/unsorted_enforced": lambda L, d: packed(L, d, [1, 3, 2]),
    "pack_padded/unsorted_ok": lambda L, d: packed(L, d, [1, 3, 2], enforce_sorted=False),
    "pack_padded/zero_length": lambda L, d: packed(L, d, [3, 0]),
    "pack_padded/zero_length_unsorted": lambda L, d: packed(L, d, [0, 3], enforce_sorted=False),
    "pack_padded/negative_length": lambda L, d: packed(L, d, [3, -1]),
    "pack_padded/length_past_time": lambda L, d: U(L).rnn.pack_padded_sequence(R(L, (2, 2), d), [3, 1]),
    "pack_padded/count_mismatch": lambda L, d: U(L).rnn.pack_padded_sequence(R(L, (3, 3), d), [3, 2]),
    "pack_padded/lengths_tensor_ok": lambda L, d: U(L).rnn.pack_padded_sequence(
        R(L, (3, 2), d), T(L, [3, 2])).batch_sizes,
    "pack_padded/lengths_on_device": lambda L, d: U(L).rnn.pack_padded_sequence(
        R(L, (3, 2), d), T(L, [3, 2], d)).batch_sizes,
    "pack_padded/lengths_float": lambda L, d: U(L).rnn.pack_padded_sequence(R(L, (3, 2), d),
                                                                            T(L, [3.0, 2.0])).batch_sizes,
    "pack_padded/lengths_2d": lambda L, d: U(L).rnn.pack_padded_sequence(R(L, (3, 2), d), T(L, [[3, 2]])),
    "pack_padded/empty_batch": lambda L, d: U(L).rnn.pack_padded_sequence(R(L, (3, 0), d), []),
    "pack_padded/0d_input": lambda L, d: U(L).rnn.pack_padded_sequence(T(L, 1.0, d), [1]),
    "pad_packed/ok": lambda L, d: round_trip(L, d, [2, 4, 1]),
    "pad_packed/batch_first_value": lambda L, d: round_trip(L, d, [2, 4, 1], batch_first=True, padding_value=9.0),
    "pad_packed/total_length_longer": lambda L, d: round_trip(L, d, [2, 3], total_length=5),
    "pad_packed/total_length_shorter": lambda L, d: round_trip(L, d, [2, 3], total_length=2),
    "pad_packed/not_packed": lambda L, d: U(L).rnn.pad_packed_sequence(R(L, (3, 2), d)),
    "pack_sequence/unsorted": lambda L, d: U(L).rnn.pack_sequence(seqs(L, d, 1, 3)),
    "pack_sequence/unsorted_ok": lambda L, d: U(L).rnn.pack_sequence(seqs(L, d, 1, 3), enforce_sorted=False).data,
    "pack_sequence/empty": lambda L, d: U(L).rnn.pack_sequence([]),
    "unpad_sequence/ok": lambda L, d: U(L).rnn.unpad_sequence(R(L, (3, 2, 2), d), T(L, [3, 1])),
    "unpad_sequence/length_past": lambda L, d: U(L).rnn.unpad_sequence(R(L, (3, 2), d), T(L, [5, 1])),
    "unpack_sequence/ok": lambda L, d: U(L).rnn.unpack_sequence(U(L).rnn.pack_sequence(seqs(L, d, 3, 1))),
    # ---- weight_norm / spectral_norm (the old hooks)
    "weight_norm/ok": lambda L, d: wn_forward(L, d, lin),
    "weight_norm/dim_none": lambda L, d: wn_forward(L, d, lin, dim=None),
    "weight_norm/dim_negative": lambda L, d: wn_forward(L, d, lin, dim=-1),
    "weight_norm/dim_out_of_range": lambda L, d: wn_forward(L, d, lin, dim=3),
    "weight_norm/missing_name": lambda L, d: wn_forward(L, d, lin, name="kernel"),
    "weight_norm/twice": lambda L, d: (lambda m: (U(L).weight_norm(m), U(L).weight_norm(m)))(lin(L, d)),
    "weight_norm/remove_without": lambda L, d: U(L).remove_weight_norm(lin(L, d)),
    "weight_norm/remove_ok": lambda L, d: (lambda m: (U(L).remove_weight_norm(U(L).weight_norm(m)),
                                                      m(R(L, (1, 3), d)))[1])(lin(L, d)),
    "weight_norm/on_bias": lambda L, d: wn_forward(L, d, lin, name="bias"),
    "spectral_norm/ok": lambda L, d: sn_weight(L, d),
    "spectral_norm/zero_iterations": lambda L, d: sn_weight(L, d, n_power_iterations=0),
    "spectral_norm/negative_iterations": lambda L, d: sn_weight(L, d, n_power_iterations=-1),
    "spectral_norm/missing_name": lambda L, d: sn_weight(L, d, name="kernel"),
    "spectral_norm/twice": lambda L, d: (lambda m: (U(L).spectral_norm(m), U(L).spectral_norm(m)))(lin(L, d)),
    "spectral_norm/remove_without": lambda L, d: U(L).remove_spectral_norm(lin(L, d)),
    "spectral_norm/dim_out_of_range": lambda L, d: sn_weight(L, d, dim=5),
    "spectral_norm/eval_value": lambda L, d: (lambda m: float(L.linalg.matrix_norm(m.eval().weight, 2)) < 1.0001)(
        U(L).spectral_norm(lin(L, d, 4, 3), n_power_iterations=50)),
    # ---- parametrizations
    "parametrizations.weight_norm/ok": lambda L, d: (lambda m: m(R(L, (2, 3), d)))(
        U(L).parametrizations.weight_norm(lin(L, d))),
    "parametrizations.weight_norm/missing": lambda L, d: U(L).parametrizations.weight_norm(lin(L, d), "kernel"),
    "parametrizations.weight_norm/dim_out_of_range": lambda L, d: (lambda m: m(R(L, (2, 3), d)))(
        U(L).parametrizations.weight_norm(lin(L, d), dim=3)),
    "parametrizations.weight_norm/dim_none": lambda L, d: (lambda m: m(R(L, (2, 3), d)))(
        U(L).parametrizations.weight_norm(lin(L, d), dim=None)),
    "parametrizations.spectral_norm/dim_out_of_range": lambda L, d: U(L).parametrizations.spectral_norm(
        lin(L, d), dim=5),
    "parametrizations.spectral_norm/zero_iterations": lambda L, d: U(L).parametrizations.spectral_norm(
        lin(L, d), n_power_iterations=0),
    "parametrizations.orthogonal/ok": lambda L, d: (lambda m: L.allclose(m.weight @ m.weight.T,
                                                                         L.eye(2, device=d, dtype=L.float64)))(
        U(L).parametrizations.orthogonal(lin(L, d))),
    "parametrize/cached_same_object": lambda L, d: cached_twice(L, d),
    "parametrizations.spectral_norm/missing": lambda L, d: U(L).parametrizations.spectral_norm(lin(L, d),
                                                                                                "kernel"),
    "parametrizations.spectral_norm/1d": lambda L, d: U(L).parametrizations.spectral_norm(lin(L, d), "bias").bias,
    "parametrizations.orthogonal/1d": lambda L, d: U(L).parametrizations.orthogonal(lin(L, d), "bias"),
    "parametrizations.orthogonal/bad_map": lambda L, d: U(L).parametrizations.orthogonal(lin(L, d),
                                                                                        orthogonal_map="qr"),
    "parametrize/ok": lambda L, d: parametrized(L, d, "twice"),
    "parametrize/missing_tensor": lambda L, d: parametrized(L, d, "twice", name="kernel"),
    "parametrize/changes_shape": lambda L, d: parametrized(L, d, "flatten"),
    "parametrize/changes_shape_unsafe": lambda L, d: parametrized(L, d, "flatten", unsafe=True),
    "parametrize/changes_dtype": lambda L, d: parametrized(L, d, "int"),
    "parametrize/returns_tuple": lambda L, d: parametrized(L, d, "pair"),
    "parametrize/right_inverse_ok": lambda L, d: (lambda m: (m.weight, m.parametrizations.weight.original))(
        (lambda m: (L.nn.utils.parametrize.register_parametrization(m, "weight", parametrization(L, "inverse")),
                    m)[1])(lin(L, d))),
    "parametrize/not_a_module": lambda L, d: L.nn.utils.parametrize.register_parametrization(
        lin(L, d), "weight", lambda x: x * 2),
    "parametrize/remove_missing": lambda L, d: L.nn.utils.parametrize.remove_parametrizations(lin(L, d), "weight"),
    "parametrize/is_parametrized_false": lambda L, d: L.nn.utils.parametrize.is_parametrized(lin(L, d), "weight"),
    "parametrize/assign_parametrized": lambda L, d: (lambda m: (setattr(m, "weight", R(L, (2, 3), d)), m.weight)[1])(
        (lambda m: (L.nn.utils.parametrize.register_parametrization(m, "weight", parametrization(L, "twice")),
                    m)[1])(lin(L, d))),
    # ---- prune
    "prune/l1_ok": lambda L, d: pruned(L, d, lambda m: PR(L).l1_unstructured(m, "weight", amount=0.5)),
    "prune/l1_int_amount": lambda L, d: pruned(L, d, lambda m: PR(L).l1_unstructured(m, "weight", amount=5)),
    "prune/amount_above_one": lambda L, d: pruned(L, d, lambda m: PR(L).l1_unstructured(m, "weight", amount=1.5)),
    "prune/amount_negative": lambda L, d: pruned(L, d, lambda m: PR(L).l1_unstructured(m, "weight", amount=-0.1)),
    "prune/amount_past_count": lambda L, d: pruned(L, d, lambda m: PR(L).l1_unstructured(m, "weight", amount=13)),
    "prune/amount_negative_int": lambda L, d: pruned(L, d, lambda m: PR(L).l1_unstructured(m, "weight", amount=-1)),
    "prune/amount_str": lambda L, d: pruned(L, d, lambda m: PR(L).l1_unstructured(m, "weight", amount="1")),
    "prune/amount_zero": lambda L, d: pruned(L, d, lambda m: PR(L).l1_unstructured(m, "weight", amount=0)),
    "prune/amount_one_float": lambda L, d: pruned(L, d, lambda m: PR(L).l1_unstructured(m, "weight", amount=1.0)),
    "prune/missing_name": lambda L, d: pruned(L, d, lambda m: PR(L).l1_unstructured(m, "kernel", amount=1)),
    "prune/ln_structured_ok": lambda L, d: pruned(L, d, lambda m: PR(L).ln_structured(m, "weight", amount=1, n=2,
                                                                                    dim=0)),
    "prune/ln_structured_dim_bad": lambda L, d: pruned(L, d, lambda m: PR(L).ln_structured(m, "weight", amount=1,
                                                                                         n=2, dim=2)),
    "prune/ln_structured_amount_past": lambda L, d: pruned(L, d, lambda m: PR(L).ln_structured(
        m, "weight", amount=4, n=1, dim=0)),
    "prune/random_structured_1d": lambda L, d: pruned(L, d, lambda m: PR(L).random_structured(m, "bias", amount=1,
                                                                                            dim=0), "bias"),
    "prune/custom_mask_ok": lambda L, d: pruned(L, d, lambda m: PR(L).custom_from_mask(
        m, "weight", L.ones(3, 4, device=d).tril())),
    "prune/custom_mask_wrong_shape": lambda L, d: pruned(L, d, lambda m: PR(L).custom_from_mask(
        m, "weight", L.ones(4, 3, device=d))),
    "prune/remove_unpruned": lambda L, d: PR(L).remove(lin(L, d), "weight"),
    "prune/remove_ok": lambda L, d: (lambda m: (PR(L).l1_unstructured(m, "weight", 0.5), PR(L).remove(m, "weight"),
                                                m.weight.detach(), hasattr(m, "weight_mask"))[2:])(lin(L, d, 4, 3)),
    "prune/twice_compose": lambda L, d: pruned(L, d, lambda m: (PR(L).l1_unstructured(m, "weight", 3),
                                                                PR(L).l1_unstructured(m, "weight", 3))),
    "prune/global_ok": lambda L, d: (lambda a, b: (PR(L).global_unstructured(
        [(a, "weight"), (b, "weight")], pruning_method=PR(L).L1Unstructured, amount=5),
        int((a.weight_mask == 0).sum() + (b.weight_mask == 0).sum()))[1])(lin(L, d), lin(L, d, 2, 2)),
    "prune/global_not_unstructured": lambda L, d: PR(L).global_unstructured(
        [(lin(L, d), "weight")], pruning_method=PR(L).LnStructured, amount=1),
    "prune/global_amount_past": lambda L, d: PR(L).global_unstructured(
        [(lin(L, d), "weight")], pruning_method=PR(L).L1Unstructured, amount=7),
    "prune/importance_wrong_shape": lambda L, d: pruned(L, d, lambda m: PR(L).l1_unstructured(
        m, "weight", 1, importance_scores=L.ones(2, device=d))),
    "prune/is_pruned": lambda L, d: (lambda m: (PR(L).is_pruned(m), PR(L).l1_unstructured(m, "weight", 1),
                                                PR(L).is_pruned(m))[::2])(lin(L, d)),
}

KNOWN = {
    "pack_padded/length_past_time": "PyTorch packs a length longer than the padded input's time steps by reading "
                                    "past its end; tandem refuses (RuntimeError naming both)",
    "pack_padded/lengths_on_device": "PyTorch refuses lengths on a GPU too ('a 1D CPU int64 tensor'); the oracle's "
                                     "lengths are on its CPU",
    "pad_sequence/0d": "PyTorch's error is an internal ArrayRef slice assertion (RuntimeError); tandem's IndexError "
                       "names the missing dimension",
}
