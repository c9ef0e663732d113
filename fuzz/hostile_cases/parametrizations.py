"""nn.utils parametrizations and pruning misused: weight_norm/spectral_norm/orthogonal/register_parametrization
with wrong names, removed twice, right_inverse raising or returning the wrong shape, on buffers and non-tensors; the
old-style weight_norm/spectral_norm hooks; nn.utils.prune with amounts out of range, wrong names, removed twice,
global pruning with odd inputs."""
from . import R


def lin(L, d, i=4, o=3):
    L.manual_seed(0)
    m = L.nn.Linear(i, o)
    with L.no_grad():
        m.weight.copy_(R(L, (o, i), "cpu", "float32", 1.0))
        m.bias.copy_(R(L, (o,), "cpu", "float32", 0.5))
    return m.to(d)


def P(L):
    return L.nn.utils.parametrize


def PZ(L):
    return L.nn.utils.parametrizations


def prune(L):
    return L.nn.utils.prune


def double_mod(L):
    class Double(L.nn.Module):
        def forward(self, x):
            return x * 2

    return Double()


def raising_inverse(L):
    class Bad(L.nn.Module):
        def forward(self, x):
            return x

        def right_inverse(self, x):
            raise ValueError("no inverse here")

    return Bad()


def reshaping_mod(L):
    class Flat(L.nn.Module):
        def forward(self, x):
            return x.reshape(-1)

    return Flat()


def wrong_inverse_shape(L):
    class Half(L.nn.Module):
        def forward(self, x):
            return x.repeat(2, 1)

        def right_inverse(self, x):
            return x[:1]

    return Half()


def tuple_inverse(L):
    class Split(L.nn.Module):
        def forward(self, a, b):
            return a + b

        def right_inverse(self, x):
            return x * 0.5, x * 0.5

    return Split()


def dtype_changing(L):
    class ToDouble(L.nn.Module):
        def forward(self, x):
            return x.double()

    return ToDouble()


def registered(L, d, mod, name="weight", **kw):
    m = lin(L, d)
    P(L).register_parametrization(m, name, mod, **kw)
    return m


def remove_twice(L, d):
    m = registered(L, d, double_mod(L))
    P(L).remove_parametrizations(m, "weight")
    P(L).remove_parametrizations(m, "weight")


def summary(m):
    return sorted(n for n, _ in m.named_parameters()), sorted(n for n, _ in m.named_buffers())


def pruned(L, d, how="l1", amount=0.5, name="weight", **kw):
    m = lin(L, d)
    fn = {"l1": prune(L).l1_unstructured, "random": prune(L).random_unstructured, "ln": prune(L).ln_structured,
          "identity": prune(L).identity}[how]
    if how == "identity":
        fn(m, name)
    elif how == "ln":
        fn(m, name, amount=amount, **kw)
    else:
        fn(m, name, amount=amount, **kw)
    return m


def _weight_norm_old(L, d, name="weight", dim=0):
    m = lin(L, d)
    return L.nn.utils.weight_norm(m, name, dim)


def _spectral_old(L, d, **kw):
    m = lin(L, d)
    return L.nn.utils.spectral_norm(m, **kw)


CASES = {
    # ---- register_parametrization
    "register/ok": lambda L, d: registered(L, d, double_mod(L)).weight,
    "register/names": lambda L, d: summary(registered(L, d, double_mod(L))),
    "register/is_parametrized": lambda L, d: (P(L).is_parametrized(registered(L, d, double_mod(L))),
                                              P(L).is_parametrized(registered(L, d, double_mod(L)), "bias"),
                                              P(L).is_parametrized(lin(L, d))),
    "register/missing_name": lambda L, d: registered(L, d, double_mod(L), name="nope"),
    "register/on_buffer": lambda L, d: _on_buffer(L, d),
    "register/on_non_tensor_attribute": lambda L, d: _on_attribute(L, d),
    "register/not_a_module": lambda L, d: registered(L, d, lambda x: x * 2),
    "register/none_module": lambda L, d: registered(L, d, None),
    "register/right_inverse_raises": lambda L, d: registered(L, d, raising_inverse(L)),
    "register/shape_changing": lambda L, d: registered(L, d, reshaping_mod(L)),
    "register/shape_changing_unsafe": lambda L, d: registered(L, d, reshaping_mod(L), unsafe=True).weight,
    "register/inverse_wrong_shape": lambda L, d: registered(L, d, wrong_inverse_shape(L)),
    "register/inverse_wrong_shape_unsafe": lambda L, d: registered(L, d, wrong_inverse_shape(L), unsafe=True).weight,
    "register/dtype_changing": lambda L, d: registered(L, d, dtype_changing(L)),
    "register/tuple_inverse": lambda L, d: (registered(L, d, tuple_inverse(L)).weight,
                                            summary(registered(L, d, tuple_inverse(L)))),
    "register/two_stacked": lambda L, d: _stacked(L, d).weight,
    "register/stacked_names": lambda L, d: summary(_stacked(L, d)),
    "register/assign_weight": lambda L, d: _assign(L, d),
    "register/assign_wrong_shape": lambda L, d: _assign(L, d, (2, 2)),
    "register/assign_with_raising_inverse": lambda L, d: _assign_raising(L, d),
    "register/cached": lambda L, d: _cached(L, d),
    "register/cached_nested": lambda L, d: _cached_nested(L, d),
    "register/state_dict_keys": lambda L, d: sorted(registered(L, d, double_mod(L)).state_dict()),
    "register/grad_flows": lambda L, d: _param_grad(L, d),
    "register/deepcopy": lambda L, d: __import__("copy").deepcopy(registered(L, d, double_mod(L))).weight,
    "register/type_name": lambda L, d: type(registered(L, d, double_mod(L))).__name__,
    "register/on_parametrized_again_names": lambda L, d: sorted(registered(L, d, double_mod(L)).parametrizations),
    # ---- remove_parametrizations
    "remove/ok_leave": lambda L, d: _removed(L, d, True),
    "remove/ok_drop": lambda L, d: _removed(L, d, False),
    "remove/twice": lambda L, d: remove_twice(L, d),
    "remove/not_parametrized": lambda L, d: P(L).remove_parametrizations(lin(L, d), "weight"),
    "remove/wrong_name": lambda L, d: P(L).remove_parametrizations(registered(L, d, double_mod(L)), "bias"),
    "remove/tuple_drop": lambda L, d: P(L).remove_parametrizations(registered(L, d, tuple_inverse(L)), "weight",
                                                                   leave_parametrized=False),
    "remove/tuple_leave": lambda L, d: _removed_tuple(L, d),
    "remove/type_name_after": lambda L, d: _removed_type(L, d),
    # ---- parametrizations.weight_norm / spectral_norm / orthogonal
    "pz_weight_norm/ok": lambda L, d: PZ(L).weight_norm(lin(L, d)).weight,
    "pz_weight_norm/names": lambda L, d: summary(PZ(L).weight_norm(lin(L, d))),
    "pz_weight_norm/dim1": lambda L, d: PZ(L).weight_norm(lin(L, d), dim=1).parametrizations.weight.original0,
    "pz_weight_norm/dim_none": lambda L, d: PZ(L).weight_norm(lin(L, d), dim=None).parametrizations.weight.original0,
    "pz_weight_norm/dim_out_of_range": lambda L, d: PZ(L).weight_norm(lin(L, d), dim=3),
    "pz_weight_norm/dim_negative": lambda L, d: PZ(L).weight_norm(lin(L, d), dim=-1).parametrizations.weight.original0,
    "pz_weight_norm/bad_name": lambda L, d: PZ(L).weight_norm(lin(L, d), name="nope"),
    "pz_weight_norm/on_bias": lambda L, d: PZ(L).weight_norm(lin(L, d), name="bias").bias,
    "pz_weight_norm/zero_weight": lambda L, d: _zero_weight_norm(L, d),
    "pz_spectral_norm/ok_eval": lambda L, d: PZ(L).spectral_norm(lin(L, d)).eval().weight.shape,
    "pz_spectral_norm/n_power_iterations_zero": lambda L, d: PZ(L).spectral_norm(lin(L, d), n_power_iterations=0),
    "pz_spectral_norm/n_power_iterations_negative": lambda L, d: PZ(L).spectral_norm(lin(L, d),
                                                                                     n_power_iterations=-1),
    "pz_spectral_norm/bad_name": lambda L, d: PZ(L).spectral_norm(lin(L, d), name="nope"),
    "pz_spectral_norm/on_1d_bias": lambda L, d: PZ(L).spectral_norm(lin(L, d), name="bias").bias,
    "pz_spectral_norm/dim_out_of_range": lambda L, d: PZ(L).spectral_norm(lin(L, d), dim=5),
    "pz_spectral_norm/names": lambda L, d: summary(PZ(L).spectral_norm(lin(L, d))),
    "pz_orthogonal/ok": lambda L, d: _orth_check(L, PZ(L).orthogonal(lin(L, d)).weight),
    "pz_orthogonal/bad_map": lambda L, d: PZ(L).orthogonal(lin(L, d), orthogonal_map="qr"),
    "pz_orthogonal/on_1d": lambda L, d: PZ(L).orthogonal(lin(L, d), name="bias"),
    "pz_orthogonal/bad_name": lambda L, d: PZ(L).orthogonal(lin(L, d), name="nope"),
    "pz_orthogonal/cayley": lambda L, d: _orth_check(L, PZ(L).orthogonal(lin(L, d, 3, 3),
                                                                       orthogonal_map="cayley").weight),
    "pz_orthogonal/householder": lambda L, d: _orth_check(L, PZ(L).orthogonal(lin(L, d),
                                                                            orthogonal_map="householder").weight),
    "pz_orthogonal/int_weight": lambda L, d: _orth_int(L, d),
    # ---- old-style weight_norm / spectral_norm
    "weight_norm/ok": lambda L, d: _weight_norm_old(L, d).weight_g,
    "weight_norm/names": lambda L, d: summary(_weight_norm_old(L, d)),
    "weight_norm/twice": lambda L, d: L.nn.utils.weight_norm(_weight_norm_old(L, d)),
    "weight_norm/bad_name": lambda L, d: _weight_norm_old(L, d, name="nope"),
    "weight_norm/dim_out_of_range": lambda L, d: _weight_norm_old(L, d, dim=4),
    "weight_norm/remove": lambda L, d: summary(L.nn.utils.remove_weight_norm(_weight_norm_old(L, d))),
    "weight_norm/remove_twice": lambda L, d: L.nn.utils.remove_weight_norm(
        L.nn.utils.remove_weight_norm(_weight_norm_old(L, d))),
    "weight_norm/remove_unnormed": lambda L, d: L.nn.utils.remove_weight_norm(lin(L, d)),
    "spectral_norm/twice": lambda L, d: L.nn.utils.spectral_norm(_spectral_old(L, d)),
    "spectral_norm/bad_name": lambda L, d: _spectral_old(L, d, name="nope"),
    "spectral_norm/names": lambda L, d: summary(_spectral_old(L, d)),
    "spectral_norm/remove_unnormed": lambda L, d: L.nn.utils.remove_spectral_norm(lin(L, d)),
    "spectral_norm/remove_twice": lambda L, d: L.nn.utils.remove_spectral_norm(
        L.nn.utils.remove_spectral_norm(_spectral_old(L, d))),
    "spectral_norm/zero_iterations": lambda L, d: _spectral_old(L, d, n_power_iterations=0),
    "spectral_norm/negative_eps": lambda L, d: _spectral_old(L, d, eps=-1.0).weight_orig,
    # ---- prune
    "prune/l1_ok": lambda L, d: pruned(L, d).weight,
    "prune/l1_names": lambda L, d: summary(pruned(L, d)),
    "prune/amount_int": lambda L, d: pruned(L, d, amount=5).weight_mask,
    "prune/amount_too_big_int": lambda L, d: pruned(L, d, amount=13),
    "prune/amount_too_big_float": lambda L, d: pruned(L, d, amount=1.5),
    "prune/amount_negative": lambda L, d: pruned(L, d, amount=-0.1),
    "prune/amount_negative_int": lambda L, d: pruned(L, d, amount=-1),
    "prune/amount_string": lambda L, d: pruned(L, d, amount="half"),
    "prune/amount_bool": lambda L, d: pruned(L, d, amount=True).weight_mask,
    "prune/amount_zero": lambda L, d: pruned(L, d, amount=0).weight_mask,
    "prune/amount_one_float": lambda L, d: pruned(L, d, amount=1.0).weight_mask,
    "prune/bad_name": lambda L, d: pruned(L, d, name="nope"),
    "prune/on_bias": lambda L, d: pruned(L, d, name="bias").bias_mask,
    "prune/twice_accumulates": lambda L, d: _prune_twice(L, d),
    "prune/random_shape": lambda L, d: pruned(L, d, "random", 0.5).weight_mask.sum(),
    "prune/ln_ok": lambda L, d: pruned(L, d, "ln", 1, n=2, dim=0).weight_mask,
    "prune/ln_dim_out_of_range": lambda L, d: pruned(L, d, "ln", 1, n=2, dim=3),
    "prune/ln_n_inf": lambda L, d: pruned(L, d, "ln", 1, n=float("inf"), dim=1).weight_mask,
    "prune/ln_n_string": lambda L, d: pruned(L, d, "ln", 1, n="fro", dim=1).weight_mask,
    "prune/ln_n_bad_string": lambda L, d: pruned(L, d, "ln", 1, n="nuc2", dim=1),
    "prune/identity": lambda L, d: pruned(L, d, "identity").weight_mask,
    "prune/remove": lambda L, d: summary(prune(L).remove(pruned(L, d), "weight")),
    "prune/remove_twice": lambda L, d: prune(L).remove(prune(L).remove(pruned(L, d), "weight"), "weight"),
    "prune/remove_unpruned": lambda L, d: prune(L).remove(lin(L, d), "weight"),
    "prune/is_pruned": lambda L, d: (prune(L).is_pruned(pruned(L, d)), prune(L).is_pruned(lin(L, d))),
    "prune/custom_mask": lambda L, d: prune(L).custom_from_mask(lin(L, d), "weight",
                                                                 L.ones(3, 4, device=d) > 0).weight,
    "prune/custom_mask_wrong_shape": lambda L, d: prune(L).custom_from_mask(lin(L, d), "weight",
                                                                             L.ones(2, 4, device=d) > 0),
    "prune/global_ok": lambda L, d: _global(L, d, 0.5),
    "prune/global_amount_too_big": lambda L, d: _global(L, d, 100),
    "prune/global_bad_method": lambda L, d: _global(L, d, 0.5, method=L.nn.utils.prune.LnStructured),
    "prune/global_empty": lambda L, d: prune(L).global_unstructured([], prune(L).L1Unstructured, amount=0.5),
    "prune/global_not_iterable": lambda L, d: prune(L).global_unstructured(lin(L, d), prune(L).L1Unstructured,
                                                                           amount=0.5),
    "prune/global_importance_scores_shape": lambda L, d: _global_scores(L, d),
}


def _on_buffer(L, d):
    m = lin(L, d)
    m.register_buffer("buf", R(L, (3,), d, "float32"))
    P(L).register_parametrization(m, "buf", double_mod(L))
    return m.buf, summary(m)


def _on_attribute(L, d):
    m = lin(L, d)
    m.scale = 3.0
    P(L).register_parametrization(m, "scale", double_mod(L))


def _stacked(L, d):
    m = registered(L, d, double_mod(L))
    P(L).register_parametrization(m, "weight", double_mod(L))
    return m


def _assign(L, d, shape=(3, 4)):
    m = registered(L, d, double_mod(L))
    m.weight = R(L, shape, d, "float32")
    return m.weight, m.parametrizations.weight.original


def _assign_raising(L, d):
    m = registered(L, d, raising_inverse(L), unsafe=True)
    m.weight = R(L, (3, 4), d, "float32")


def _cached(L, d):
    m = registered(L, d, double_mod(L))
    with P(L).cached():
        a = m.weight
        b = m.weight
        return a is b, P(L).is_parametrized(m)


def _cached_nested(L, d):
    m = registered(L, d, double_mod(L))
    with P(L).cached():
        with P(L).cached():
            a = m.weight
        return a, m.weight is a


def _param_grad(L, d):
    m = registered(L, d, double_mod(L))
    m(R(L, (2, 4), d, "float32")).sum().backward()
    return m.parametrizations.weight.original.grad


def _removed(L, d, leave):
    m = registered(L, d, double_mod(L))
    P(L).remove_parametrizations(m, "weight", leave_parametrized=leave)
    return m.weight, summary(m), P(L).is_parametrized(m)


def _removed_tuple(L, d):
    m = registered(L, d, tuple_inverse(L))
    P(L).remove_parametrizations(m, "weight", leave_parametrized=True)
    return m.weight, summary(m)


def _removed_type(L, d):
    m = registered(L, d, double_mod(L))
    P(L).remove_parametrizations(m, "weight")
    return type(m).__name__


def _zero_weight_norm(L, d):
    m = lin(L, d)
    with L.no_grad():
        m.weight.zero_()
    return PZ(L).weight_norm(m).weight


def _orth_check(L, w):
    """W W^T (or W^T W) is the identity: orthogonality, not the exact matrix (the maps' bases may differ)."""
    w = w.detach().double()
    g = w @ w.t() if w.shape[0] <= w.shape[1] else w.t() @ w
    return (g - L.eye(g.shape[0], dtype=g.dtype, device=g.device)).abs().max().item() < 1e-5


def _orth_int(L, d):
    m = L.nn.Module()
    m.register_parameter("w", L.nn.Parameter(L.ones(3, 3, dtype=L.float64, device=d).to(L.int64),
                                             requires_grad=False))
    PZ(L).orthogonal(m, "w")


def _prune_twice(L, d):
    m = pruned(L, d, amount=0.25)
    prune(L).l1_unstructured(m, "weight", amount=0.25)
    return m.weight_mask, summary(m)


def _global(L, d, amount, method=None):
    a, b = lin(L, d), lin(L, d, 3, 2)
    prune(L).global_unstructured([(a, "weight"), (b, "weight")], method or prune(L).L1Unstructured, amount=amount)
    return a.weight_mask, b.weight_mask


def _global_scores(L, d):
    a = lin(L, d)
    prune(L).global_unstructured([(a, "weight")], prune(L).L1Unstructured,
                                 importance_scores={(a, "weight"): L.ones(2, 2, device=d)}, amount=0.5)


KNOWN = {}
