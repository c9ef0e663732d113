"""Every torch.nn.functional loss with hostile targets and weights, beyond nn_losses.py, nn_functional_shapes.py and
the loss rows of functional.py/nn.py/string_enums.py: class indices out of range or negative with reduction='none'
and in 3-d/4-d inputs, ignore_index that equals a real class or a negative one, every target ignored with each
reduction and with smoothing, probability targets with the wrong class count or an integer dtype, weights of the
wrong size, dtype or rank, binary_cross_entropy's domain (negative and NaN inputs, exact 0/1) and its target size
check, bce_with_logits' pos_weight broadcasting, kl_div log_target with each reduction, poisson/gaussian_nll edge
arguments (full=True, zero or NaN var, var shapes PyTorch accepts or refuses), the ranking/embedding losses with
targets outside {-1, 1}, multilabel_margin's -1 terminators, multi_margin's p and weights, triplet margins and
distance functions, ctc_loss lengths and blank, huber/smooth_l1 with infinite delta/beta, and the deprecated
size_average/reduce pair. On the GPU PyTorch checks class targets with device-side asserts; those cases compare
its CPU wording (tandem checks on every device)."""
from . import R, T


def F(L):
    return L.nn.functional


def x(L, d, shape=(3, 5), dtype="float32"):
    return R(L, shape, d, dtype)


def p(L, d, shape=(3, 4), dtype="float32"):
    """Probabilities strictly inside (0, 1)."""
    return R(L, shape, d, dtype).sigmoid()


def y(L, d, values, dtype="int64"):
    return T(L, values, d, dtype)


def pm(L, d, values):
    """A float target of +-1 (or whatever values are given)."""
    return T(L, values, d, "float32")


def grad_of(L, d, fn, shape=(3, 5)):
    leaf = R(L, shape, d, "float32").requires_grad_()
    fn(leaf).backward()
    return leaf.grad


def ctc(L, d, targets, input_lengths, target_lengths, **kw):
    log_probs = R(L, (6, 2, 4), d, "float32").log_softmax(2)
    return F(L).ctc_loss(log_probs, targets, input_lengths, target_lengths, **kw)


CASES = {
    # ---- cross_entropy: class targets
    "cross_entropy/target_7_none": lambda L, d: F(L).cross_entropy(x(L, d), y(L, d, [0, 7, 1]), reduction="none"),
    "cross_entropy/target_minus_1_sum": lambda L, d: F(L).cross_entropy(x(L, d), y(L, d, [0, -1, 1]),
                                                                        reduction="sum"),
    "cross_entropy/default_ignore_minus_100": lambda L, d: F(L).cross_entropy(x(L, d), y(L, d, [-100, 1, 2])),
    "cross_entropy/target_minus_101": lambda L, d: F(L).cross_entropy(x(L, d), y(L, d, [-101, 1, 2])),
    "cross_entropy/ignore_index_is_a_class": lambda L, d: F(L).cross_entropy(x(L, d), y(L, d, [2, 2, 1]),
                                                                             ignore_index=2),
    "cross_entropy/ignore_index_past_classes": lambda L, d: F(L).cross_entropy(x(L, d), y(L, d, [7, 0, 1]),
                                                                               ignore_index=7),
    "cross_entropy/ignore_index_negative": lambda L, d: F(L).cross_entropy(x(L, d), y(L, d, [-3, 0, 1]),
                                                                           ignore_index=-3),
    "cross_entropy/all_ignored_sum": lambda L, d: F(L).cross_entropy(x(L, d), y(L, d, [-100] * 3), reduction="sum"),
    "cross_entropy/all_ignored_none": lambda L, d: F(L).cross_entropy(x(L, d), y(L, d, [-100] * 3),
                                                                      reduction="none"),
    "cross_entropy/all_ignored_smoothing_mean": lambda L, d: F(L).cross_entropy(x(L, d), y(L, d, [-100] * 3),
                                                                                label_smoothing=0.2),
    "cross_entropy/all_ignored_grad": lambda L, d: grad_of(L, d, lambda t: F(L).cross_entropy(
        t, y(L, d, [-100] * 3), reduction="sum")),
    "cross_entropy/target_oob_4d": lambda L, d: F(L).cross_entropy(x(L, d, (1, 3, 2, 2)),
                                                                   y(L, d, [[[0, 1], [2, 3]]])),
    "cross_entropy/target_shape_4d_wrong": lambda L, d: F(L).cross_entropy(x(L, d, (1, 3, 2, 2)),
                                                                           y(L, d, [[0, 1, 2, 0]])),
    "cross_entropy/target_0dim_for_batch": lambda L, d: F(L).cross_entropy(x(L, d), y(L, d, 1)),
    "cross_entropy/target_int16": lambda L, d: F(L).cross_entropy(x(L, d), y(L, d, [0, 1, 2], "int16")),
    "cross_entropy/smoothing_nan": lambda L, d: F(L).cross_entropy(x(L, d), y(L, d, [0, 1, 2]),
                                                                   label_smoothing=float("nan")),
    "cross_entropy/smoothing_0_5_none": lambda L, d: F(L).cross_entropy(x(L, d), y(L, d, [0, 1, 2]),
                                                                        label_smoothing=0.5, reduction="none"),
    "cross_entropy/weight_float64": lambda L, d: F(L).cross_entropy(x(L, d), y(L, d, [0, 1, 2]),
                                                                    weight=L.ones(5, dtype=L.float64, device=d)),
    "cross_entropy/weight_len_6": lambda L, d: F(L).cross_entropy(x(L, d), y(L, d, [0, 1, 2]),
                                                                  weight=L.ones(6, device=d)),
    "cross_entropy/weight_int": lambda L, d: F(L).cross_entropy(x(L, d), y(L, d, [0, 1, 2]),
                                                                weight=L.ones(5, dtype=L.int64, device=d)),
    "cross_entropy/weight_negative": lambda L, d: F(L).cross_entropy(x(L, d), y(L, d, [0, 1, 2]),
                                                                     weight=-L.arange(1.0, 6.0, device=d)),
    "cross_entropy/weight_zero_mean": lambda L, d: F(L).cross_entropy(x(L, d), y(L, d, [0, 1, 2]),
                                                                      weight=L.zeros(5, device=d)),
    "cross_entropy/weight_ignore_smoothing": lambda L, d: F(L).cross_entropy(
        x(L, d), y(L, d, [0, 4, 2]), weight=L.arange(1.0, 6.0, device=d), ignore_index=4, label_smoothing=0.3),
    # ---- cross_entropy: probability targets
    "cross_entropy/probs_wrong_classes": lambda L, d: F(L).cross_entropy(x(L, d), p(L, d, (3, 4))),
    "cross_entropy/probs_wrong_batch": lambda L, d: F(L).cross_entropy(x(L, d), p(L, d, (2, 5))),
    "cross_entropy/probs_long_same_shape": lambda L, d: F(L).cross_entropy(x(L, d), L.ones(3, 5, dtype=L.int64,
                                                                                            device=d)),
    "cross_entropy/probs_negative": lambda L, d: F(L).cross_entropy(x(L, d), x(L, d)),
    "cross_entropy/probs_float64_target": lambda L, d: F(L).cross_entropy(x(L, d), p(L, d, (3, 5), "float64")),
    "cross_entropy/probs_weight_wrong_len": lambda L, d: F(L).cross_entropy(x(L, d), p(L, d, (3, 5)),
                                                                            weight=L.ones(4, device=d)),
    "cross_entropy/probs_none_smoothing_weight": lambda L, d: F(L).cross_entropy(
        x(L, d), p(L, d, (3, 5)), weight=L.arange(1.0, 6.0, device=d), label_smoothing=0.1, reduction="none"),
    "cross_entropy/probs_grad": lambda L, d: grad_of(L, d, lambda t: F(L).cross_entropy(t, p(L, d, (3, 5)))),
    # ---- deprecated size_average/reduce
    "cross_entropy/size_average_false": lambda L, d: F(L).cross_entropy(x(L, d), y(L, d, [0, 1, 2]),
                                                                        size_average=False),
    "cross_entropy/reduce_false": lambda L, d: F(L).cross_entropy(x(L, d), y(L, d, [0, 1, 2]), reduce=False),
    "nll_loss/reduce_false_size_average_true": lambda L, d: F(L).nll_loss(x(L, d), y(L, d, [0, 1, 2]),
                                                                          size_average=True, reduce=False),
    "mse_loss/size_average_false": lambda L, d: F(L).mse_loss(x(L, d), x(L, d, (3, 5)).flip(0),
                                                              size_average=False),
    "l1_loss/reduce_false_ignores_reduction": lambda L, d: F(L).l1_loss(x(L, d), x(L, d).flip(0), reduce=False,
                                                                        reduction="sum"),
    # ---- nll_loss
    "nll_loss/target_7_none": lambda L, d: F(L).nll_loss(x(L, d), y(L, d, [0, 7, 1]), reduction="none"),
    "nll_loss/target_minus_1": lambda L, d: F(L).nll_loss(x(L, d), y(L, d, [0, -1, 1])),
    "nll_loss/3d_target_oob": lambda L, d: F(L).nll_loss(x(L, d, (2, 3, 4)), y(L, d, [[0, 1, 2, 5], [0, 0, 0, 0]])),
    "nll_loss/3d_target_wrong_shape": lambda L, d: F(L).nll_loss(x(L, d, (2, 3, 4)), y(L, d, [[0, 1, 2],
                                                                                              [0, 0, 0]])),
    "nll_loss/weight_zero_all_mean": lambda L, d: F(L).nll_loss(x(L, d), y(L, d, [0, 1, 2]),
                                                                weight=L.zeros(5, device=d)),
    "nll_loss/weight_2d": lambda L, d: F(L).nll_loss(x(L, d), y(L, d, [0, 1, 2]), weight=L.ones(1, 5, device=d)),
    "nll_loss/weight_float64": lambda L, d: F(L).nll_loss(x(L, d), y(L, d, [0, 1, 2]),
                                                          weight=L.ones(5, dtype=L.float64, device=d)),
    "nll_loss/all_ignored_weight_sum": lambda L, d: F(L).nll_loss(x(L, d), y(L, d, [1, 1, 1]), ignore_index=1,
                                                                  weight=L.ones(5, device=d), reduction="sum"),
    "nll_loss/input_3d_none": lambda L, d: F(L).nll_loss(x(L, d, (2, 3, 4)), y(L, d, [[0, 1, 2, 0], [2, 2, 1, 0]]),
                                                         reduction="none"),
    "nll_loss/unbatched_target_oob": lambda L, d: F(L).nll_loss(x(L, d, (5,)), y(L, d, 5)),
    "nll_loss/unbatched_target_1d": lambda L, d: F(L).nll_loss(x(L, d, (5,)), y(L, d, [1])),
    # ---- binary_cross_entropy
    "binary_cross_entropy/input_negative": lambda L, d: F(L).binary_cross_entropy(T(L, [-0.1, 0.5], d),
                                                                                  T(L, [0.0, 1.0], d)),
    "binary_cross_entropy/input_nan": lambda L, d: F(L).binary_cross_entropy(T(L, [float("nan"), 0.5], d),
                                                                             T(L, [0.0, 1.0], d)),
    "binary_cross_entropy/input_exact_0_1": lambda L, d: F(L).binary_cross_entropy(
        T(L, [0.0, 1.0, 0.0, 1.0], d), T(L, [0.0, 1.0, 1.0, 0.0], d), reduction="none"),
    "binary_cross_entropy/target_outside_01": lambda L, d: F(L).binary_cross_entropy(p(L, d), x(L, d, (3, 4))),
    "binary_cross_entropy/target_numel_differs": lambda L, d: F(L).binary_cross_entropy(p(L, d, (3,)),
                                                                                        p(L, d, (4,))),
    "binary_cross_entropy/target_1_vs_3x1": lambda L, d: F(L).binary_cross_entropy(p(L, d, (3, 1)),
                                                                                   p(L, d, (3,))),
    "binary_cross_entropy/weight_not_broadcastable": lambda L, d: F(L).binary_cross_entropy(
        p(L, d), p(L, d).flip(0), weight=L.ones(3, device=d)),
    "binary_cross_entropy/input_int": lambda L, d: F(L).binary_cross_entropy(L.ones(3, dtype=L.int64, device=d),
                                                                             L.ones(3, dtype=L.int64, device=d)),
    "binary_cross_entropy/target_float64": lambda L, d: F(L).binary_cross_entropy(p(L, d), p(L, d, (3, 4),
                                                                                              "float64")),
    "binary_cross_entropy/grad_at_0": lambda L, d: _bce_grad(L, d),
    "binary_cross_entropy/reduce_false": lambda L, d: F(L).binary_cross_entropy(p(L, d), p(L, d).flip(0),
                                                                                reduce=False),
    # ---- binary_cross_entropy_with_logits
    "bce_with_logits/pos_weight_per_class": lambda L, d: F(L).binary_cross_entropy_with_logits(
        x(L, d, (3, 4)), p(L, d), pos_weight=L.arange(1.0, 5.0, device=d)),
    "bce_with_logits/pos_weight_column": lambda L, d: F(L).binary_cross_entropy_with_logits(
        x(L, d, (3, 4)), p(L, d), pos_weight=L.arange(1.0, 4.0, device=d).reshape(3, 1)),
    "bce_with_logits/pos_weight_grows_result": lambda L, d: F(L).binary_cross_entropy_with_logits(
        x(L, d, (3, 4)), p(L, d), pos_weight=L.ones(2, 3, 4, device=d), reduction="none"),
    "bce_with_logits/pos_weight_0dim": lambda L, d: F(L).binary_cross_entropy_with_logits(
        x(L, d, (3, 4)), p(L, d), pos_weight=L.tensor(2.0, device=d)),
    "bce_with_logits/pos_weight_negative": lambda L, d: F(L).binary_cross_entropy_with_logits(
        x(L, d, (3, 4)), p(L, d), pos_weight=-L.ones(4, device=d), reduction="none"),
    "bce_with_logits/weight_and_pos_weight": lambda L, d: F(L).binary_cross_entropy_with_logits(
        x(L, d, (3, 4)), p(L, d), weight=L.arange(1.0, 4.0, device=d).reshape(3, 1),
        pos_weight=L.arange(1.0, 5.0, device=d), reduction="sum"),
    "bce_with_logits/weight_not_broadcastable": lambda L, d: F(L).binary_cross_entropy_with_logits(
        x(L, d, (3, 4)), p(L, d), weight=L.ones(3, device=d)),
    "bce_with_logits/logits_inf": lambda L, d: F(L).binary_cross_entropy_with_logits(
        T(L, [float("inf"), -float("inf"), 100.0, -100.0], d), T(L, [1.0, 0.0, 0.0, 1.0], d), reduction="none"),
    "bce_with_logits/input_int": lambda L, d: F(L).binary_cross_entropy_with_logits(
        L.ones(3, dtype=L.int64, device=d), L.ones(3, device=d)),
    "bce_with_logits/pos_weight_grad": lambda L, d: grad_of(L, d, lambda t: F(L).binary_cross_entropy_with_logits(
        t, p(L, d, (3, 5)), pos_weight=L.arange(1.0, 6.0, device=d)), (3, 5)),
    # ---- kl_div
    "kl_div/log_target_sum": lambda L, d: F(L).kl_div(x(L, d).log_softmax(1), x(L, d).flip(0).log_softmax(1),
                                                      reduction="sum", log_target=True),
    "kl_div/log_target_none_inf": lambda L, d: F(L).kl_div(T(L, [-1.0, -2.0], d), T(L, [-float("inf"), 0.0], d),
                                                           reduction="none", log_target=True),
    "kl_div/target_negative": lambda L, d: F(L).kl_div(T(L, [-1.0, -2.0], d), T(L, [-0.5, 0.5], d),
                                                       reduction="none"),
    "kl_div/float64_target": lambda L, d: F(L).kl_div(x(L, d).log_softmax(1),
                                                      x(L, d, (3, 5), "float64").softmax(1), reduction="batchmean"),
    "kl_div/batchmean_1d": lambda L, d: F(L).kl_div(T(L, [-1.0, -2.0, -0.5], d), T(L, [0.2, 0.3, 0.5], d),
                                                    reduction="batchmean"),
    "kl_div/size_average_false": lambda L, d: F(L).kl_div(T(L, [-1.0, -2.0], d), T(L, [0.3, 0.7], d),
                                                          size_average=False),
    # ---- poisson_nll_loss
    "poisson_nll_loss/full_targets_0_1_2": lambda L, d: F(L).poisson_nll_loss(
        T(L, [0.5, 0.2, 1.0], d), T(L, [0.0, 1.0, 2.0], d), full=True, reduction="none"),
    "poisson_nll_loss/log_false_zero_input": lambda L, d: F(L).poisson_nll_loss(
        T(L, [0.0, 2.0], d), T(L, [1.0, 3.0], d), log_input=False, reduction="none"),
    "poisson_nll_loss/log_false_negative_input": lambda L, d: F(L).poisson_nll_loss(
        T(L, [-1.0, 2.0], d), T(L, [1.0, 3.0], d), log_input=False, reduction="none"),
    "poisson_nll_loss/target_negative_full": lambda L, d: F(L).poisson_nll_loss(
        T(L, [0.5, 0.2], d), T(L, [-3.0, 5.0], d), full=True, reduction="none"),
    "poisson_nll_loss/broadcast": lambda L, d: F(L).poisson_nll_loss(x(L, d, (3, 1)), x(L, d, (1, 4)).abs()),
    "poisson_nll_loss/bad_reduction": lambda L, d: F(L).poisson_nll_loss(x(L, d), x(L, d), reduction="batchmean"),
    # ---- gaussian_nll_loss
    "gaussian_nll_loss/var_zero_eps": lambda L, d: F(L).gaussian_nll_loss(x(L, d), x(L, d).flip(0),
                                                                          L.zeros(3, 5, device=d), reduction="none"),
    "gaussian_nll_loss/var_nan": lambda L, d: F(L).gaussian_nll_loss(x(L, d), x(L, d).flip(0),
                                                                     L.full((3, 5), float("nan"), device=d)),
    "gaussian_nll_loss/full": lambda L, d: F(L).gaussian_nll_loss(x(L, d), x(L, d).flip(0),
                                                                  L.ones(3, 5, device=d), full=True),
    "gaussian_nll_loss/var_batch_only": lambda L, d: F(L).gaussian_nll_loss(x(L, d), x(L, d).flip(0),
                                                                            L.ones(3, device=d)),
    "gaussian_nll_loss/var_last_dim_1": lambda L, d: F(L).gaussian_nll_loss(x(L, d), x(L, d).flip(0),
                                                                            L.ones(3, 1, device=d)),
    "gaussian_nll_loss/var_features_only": lambda L, d: F(L).gaussian_nll_loss(x(L, d), x(L, d).flip(0),
                                                                               L.ones(5, device=d)),
    "gaussian_nll_loss/var_float_number": lambda L, d: F(L).gaussian_nll_loss(x(L, d), x(L, d).flip(0), 2.0),
    "gaussian_nll_loss/var_requires_grad": lambda L, d: _gnll_var_grad(L, d),
    "gaussian_nll_loss/eps_negative": lambda L, d: F(L).gaussian_nll_loss(x(L, d), x(L, d).flip(0),
                                                                          L.zeros(3, 5, device=d), eps=-1.0),
    # ---- ranking and embedding losses with targets outside {-1, 1}
    "margin_ranking_loss/target_zero": lambda L, d: F(L).margin_ranking_loss(
        x(L, d, (4,)), x(L, d, (4,)).flip(0), pm(L, d, [0.0, 0.0, 1.0, -1.0]), reduction="none"),
    "margin_ranking_loss/target_2": lambda L, d: F(L).margin_ranking_loss(
        x(L, d, (4,)), x(L, d, (4,)).flip(0), pm(L, d, [2.0, -2.0, 1.0, 0.5]), margin=0.5, reduction="none"),
    "margin_ranking_loss/margin_negative": lambda L, d: F(L).margin_ranking_loss(
        x(L, d, (4,)), x(L, d, (4,)).flip(0), pm(L, d, [1.0, -1.0, 1.0, -1.0]), margin=-1.0),
    "margin_ranking_loss/target_long": lambda L, d: F(L).margin_ranking_loss(
        x(L, d, (4,)), x(L, d, (4,)).flip(0), y(L, d, [1, -1, 1, -1])),
    "margin_ranking_loss/target_broadcasts": lambda L, d: F(L).margin_ranking_loss(
        x(L, d, (4,)), x(L, d, (4,)).flip(0), pm(L, d, [1.0])),
    "hinge_embedding_loss/target_2": lambda L, d: F(L).hinge_embedding_loss(
        x(L, d, (4,)), pm(L, d, [2.0, 1.0, -1.0, -2.0]), reduction="none"),
    "hinge_embedding_loss/margin_negative": lambda L, d: F(L).hinge_embedding_loss(
        x(L, d, (4,)), pm(L, d, [1.0, -1.0, -1.0, 1.0]), margin=-2.0, reduction="none"),
    "hinge_embedding_loss/target_long": lambda L, d: F(L).hinge_embedding_loss(
        x(L, d, (4,)), y(L, d, [1, -1, -1, 1])),
    "hinge_embedding_loss/broadcast": lambda L, d: F(L).hinge_embedding_loss(
        x(L, d, (3, 1)), pm(L, d, [1.0, -1.0, 1.0, -1.0]), reduction="none"),
    "cosine_embedding_loss/target_zero": lambda L, d: F(L).cosine_embedding_loss(
        x(L, d, (3, 4)), x(L, d, (3, 4)).flip(0), pm(L, d, [0.0, 1.0, -1.0]), reduction="none"),
    "cosine_embedding_loss/target_wrong_len": lambda L, d: F(L).cosine_embedding_loss(
        x(L, d, (3, 4)), x(L, d, (3, 4)).flip(0), pm(L, d, [1.0, -1.0])),
    "cosine_embedding_loss/inputs_3d": lambda L, d: F(L).cosine_embedding_loss(
        x(L, d, (3, 4, 2)), x(L, d, (3, 4, 2)), pm(L, d, [1.0, -1.0, 1.0])),
    "cosine_embedding_loss/target_0dim_2d_input": lambda L, d: F(L).cosine_embedding_loss(
        x(L, d, (3, 4)), x(L, d, (3, 4)), L.tensor(1.0, device=d)),
    "cosine_embedding_loss/zero_vector": lambda L, d: F(L).cosine_embedding_loss(
        L.zeros(2, 3, device=d), x(L, d, (2, 3)), pm(L, d, [1.0, -1.0]), reduction="none"),
    "cosine_embedding_loss/margin_above_one": lambda L, d: F(L).cosine_embedding_loss(
        x(L, d, (3, 4)), x(L, d, (3, 4)).flip(0), pm(L, d, [-1.0, -1.0, -1.0]), margin=1.5),
    "soft_margin_loss/target_zero": lambda L, d: F(L).soft_margin_loss(x(L, d, (4,)), pm(L, d, [0.0, 1.0, -1.0, 2.0]),
                                                                       reduction="none"),
    # ---- multilabel_margin_loss and multi_margin_loss
    "multilabel_margin_loss/terminator_first": lambda L, d: F(L).multilabel_margin_loss(
        x(L, d, (2, 4)), y(L, d, [[-1, 1, 2, 3], [0, -1, 2, 3]]), reduction="none"),
    "multilabel_margin_loss/all_labels": lambda L, d: F(L).multilabel_margin_loss(
        x(L, d, (2, 4)), y(L, d, [[0, 1, 2, 3], [3, 2, 1, 0]]), reduction="none"),
    "multilabel_margin_loss/minus_2": lambda L, d: F(L).multilabel_margin_loss(
        x(L, d, (2, 4)), y(L, d, [[-2, 1, 2, 3], [0, -1, 0, 0]])),
    "multilabel_margin_loss/target_past_after_terminator": lambda L, d: F(L).multilabel_margin_loss(
        x(L, d, (2, 4)), y(L, d, [[1, -1, 9, 3], [0, -1, 0, 0]])),
    "multilabel_margin_loss/target_past": lambda L, d: F(L).multilabel_margin_loss(
        x(L, d, (2, 4)), y(L, d, [[4, -1, 0, 0], [0, -1, 0, 0]])),
    "multilabel_margin_loss/repeated_label": lambda L, d: F(L).multilabel_margin_loss(
        x(L, d, (1, 4)), y(L, d, [[1, 1, 1, -1]]), reduction="sum"),
    "multilabel_margin_loss/1d": lambda L, d: F(L).multilabel_margin_loss(x(L, d, (4,)), y(L, d, [3, 0, -1, 1])),
    "multilabel_margin_loss/target_int32": lambda L, d: F(L).multilabel_margin_loss(
        x(L, d, (1, 4)), y(L, d, [[1, -1, 0, 0]], "int32")),
    "multilabel_margin_loss/grad": lambda L, d: grad_of(L, d, lambda t: F(L).multilabel_margin_loss(
        t, y(L, d, [[1, 3, -1, 0, 0], [0, -1, 0, 0, 0], [4, 2, 1, -1, 0]])), (3, 5)),
    "multi_margin_loss/p_2": lambda L, d: F(L).multi_margin_loss(x(L, d), y(L, d, [0, 4, 2]), p=2,
                                                                 reduction="none"),
    "multi_margin_loss/p_minus_1": lambda L, d: F(L).multi_margin_loss(x(L, d), y(L, d, [0, 4, 2]), p=-1),
    "multi_margin_loss/p_float_2": lambda L, d: F(L).multi_margin_loss(x(L, d), y(L, d, [0, 4, 2]), p=2.0),
    "multi_margin_loss/target_negative": lambda L, d: F(L).multi_margin_loss(x(L, d), y(L, d, [0, -1, 2])),
    "multi_margin_loss/weight_wrong_len": lambda L, d: F(L).multi_margin_loss(x(L, d), y(L, d, [0, 4, 2]),
                                                                              weight=L.ones(4, device=d)),
    "multi_margin_loss/margin_negative": lambda L, d: F(L).multi_margin_loss(x(L, d), y(L, d, [0, 4, 2]),
                                                                             margin=-1.0, reduction="none"),
    "multi_margin_loss/input_3d": lambda L, d: F(L).multi_margin_loss(x(L, d, (3, 5, 1)), y(L, d, [0, 4, 2])),
    "multi_margin_loss/target_2d": lambda L, d: F(L).multi_margin_loss(x(L, d), y(L, d, [[0], [4], [2]])),
    "multi_margin_loss/target_float": lambda L, d: F(L).multi_margin_loss(x(L, d), pm(L, d, [0.0, 4.0, 2.0])),
    # ---- triplet losses
    "triplet_margin_loss/margin_negative": lambda L, d: F(L).triplet_margin_loss(
        x(L, d, (3, 4)), x(L, d, (3, 4)).flip(0), x(L, d, (3, 4)).flip(1), margin=-1.0),
    "triplet_margin_loss/margin_zero": lambda L, d: F(L).triplet_margin_loss(
        x(L, d, (3, 4)), x(L, d, (3, 4)).flip(0), x(L, d, (3, 4)).flip(1), margin=0.0, reduction="none"),
    "triplet_margin_loss/p_1_swap": lambda L, d: F(L).triplet_margin_loss(
        x(L, d, (3, 4)), x(L, d, (3, 4)).flip(0), x(L, d, (3, 4)).flip(1), p=1, swap=True, reduction="none"),
    "triplet_margin_loss/p_0": lambda L, d: F(L).triplet_margin_loss(
        x(L, d, (3, 4)), x(L, d, (3, 4)).flip(0), x(L, d, (3, 4)).flip(1), p=0),
    "triplet_margin_loss/shape_differs": lambda L, d: F(L).triplet_margin_loss(
        x(L, d, (3, 4)), x(L, d, (3, 5)), x(L, d, (3, 4))),
    "triplet_margin_loss/batch_broadcasts": lambda L, d: F(L).triplet_margin_loss(
        x(L, d, (3, 4)), x(L, d, (1, 4)), x(L, d, (3, 4)).flip(0), reduction="none"),
    "triplet_margin_with_distance_loss/margin_negative": lambda L, d: F(L).triplet_margin_with_distance_loss(
        x(L, d, (3, 4)), x(L, d, (3, 4)).flip(0), x(L, d, (3, 4)).flip(1), margin=-0.5),
    "triplet_margin_with_distance_loss/default_distance_swap": lambda L, d: F(L).triplet_margin_with_distance_loss(
        x(L, d, (3, 4)), x(L, d, (3, 4)).flip(0), x(L, d, (3, 4)).flip(1), swap=True, reduction="none"),
    "triplet_margin_with_distance_loss/dims_differ": lambda L, d: F(L).triplet_margin_with_distance_loss(
        x(L, d, (3, 4)), x(L, d, (4,)), x(L, d, (3, 4))),
    "triplet_margin_with_distance_loss/bad_reduction": lambda L, d: F(L).triplet_margin_with_distance_loss(
        x(L, d, (3, 4)), x(L, d, (3, 4)), x(L, d, (3, 4)), reduction="avg"),
    "triplet_margin_with_distance_loss/distance_returns_matrix": lambda L, d: F(L).triplet_margin_with_distance_loss(
        x(L, d, (3, 4)), x(L, d, (3, 4)).flip(0), x(L, d, (3, 4)).flip(1),
        distance_function=lambda a, b: (a - b).abs(), reduction="none"),
    # ---- ctc_loss
    "ctc_loss/target_lengths_past_targets": lambda L, d: ctc(L, d, y(L, d, [[1, 2], [1, 3]]), [6, 6], [3, 2]),
    "ctc_loss/blank_negative": lambda L, d: ctc(L, d, y(L, d, [[1, 2], [1, 3]]), [6, 6], [2, 2], blank=-1),
    "ctc_loss/blank_3_in_targets": lambda L, d: ctc(L, d, y(L, d, [[3, 2], [1, 3]]), [6, 6], [2, 2], blank=3,
                                                    reduction="none"),
    "ctc_loss/input_length_negative": lambda L, d: ctc(L, d, y(L, d, [[1, 2], [1, 3]]), [-1, 6], [2, 2]),
    "ctc_loss/input_length_zero": lambda L, d: ctc(L, d, y(L, d, [[1, 2], [1, 3]]), [0, 6], [0, 2],
                                                   reduction="none"),
    "ctc_loss/target_length_negative": lambda L, d: ctc(L, d, y(L, d, [[1, 2], [1, 3]]), [6, 6], [-1, 2]),
    "ctc_loss/repeats_need_blanks": lambda L, d: ctc(L, d, y(L, d, [[1, 1, 1, 1], [2, 2, 2, 2]]), [6, 6], [4, 3],
                                                     reduction="none"),
    "ctc_loss/sum_zero_infinity": lambda L, d: ctc(L, d, y(L, d, [[1, 1, 1, 1], [2, 3, 1, 2]]), [6, 6], [4, 4],
                                                   reduction="sum", zero_infinity=True),
    "ctc_loss/lengths_tensors_float": lambda L, d: ctc(L, d, y(L, d, [[1, 2], [1, 3]]), T(L, [6.0, 6.0], d),
                                                       T(L, [2.0, 2.0], d)),
    "ctc_loss/target_lengths_wrong_count": lambda L, d: ctc(L, d, y(L, d, [[1, 2], [1, 3]]), [6, 6], [2]),
    "ctc_loss/log_probs_float64": lambda L, d: F(L).ctc_loss(R(L, (6, 2, 4), d, "float64").log_softmax(2),
                                                             y(L, d, [[1, 2], [1, 3]]), [6, 5], [2, 1]),
    "ctc_loss/grad": lambda L, d: grad_of(L, d, lambda t: F(L).ctc_loss(
        t.log_softmax(2), y(L, d, [[1, 2], [1, 3]]), [6, 5], [2, 1]), (6, 2, 4)),
    # ---- huber / smooth_l1 and the plain regressions
    "huber_loss/delta_inf": lambda L, d: F(L).huber_loss(x(L, d), x(L, d).flip(0), delta=float("inf"),
                                                         reduction="none"),
    "huber_loss/delta_nan": lambda L, d: F(L).huber_loss(x(L, d), x(L, d).flip(0), delta=float("nan")),
    "huber_loss/weight_broadcast": lambda L, d: F(L).huber_loss(x(L, d), x(L, d).flip(0),
                                                                weight=L.arange(1.0, 6.0, device=d)),
    "smooth_l1_loss/beta_inf": lambda L, d: F(L).smooth_l1_loss(x(L, d), x(L, d).flip(0), beta=float("inf"),
                                                                reduction="none"),
    "smooth_l1_loss/beta_tiny": lambda L, d: F(L).smooth_l1_loss(x(L, d), x(L, d).flip(0), beta=1e-30),
    "smooth_l1_loss/grad_beta_zero_at_equal": lambda L, d: grad_of(L, d, lambda t: F(L).smooth_l1_loss(
        t, R(L, (3, 5), d, "float32"), beta=0.0)),
    "mse_loss/reduction_batchmean": lambda L, d: F(L).mse_loss(x(L, d), x(L, d), reduction="batchmean"),
    "l1_loss/complex": lambda L, d: F(L).l1_loss(x(L, d).to(L.complex64), x(L, d).flip(0).to(L.complex64)),
    "mse_loss/target_requires_grad": lambda L, d: _mse_target_grad(L, d),
    "multilabel_soft_margin_loss/weight_wrong_len": lambda L, d: F(L).multilabel_soft_margin_loss(
        x(L, d), p(L, d, (3, 5)).round(), weight=L.ones(4, device=d)),
    "multilabel_soft_margin_loss/target_long": lambda L, d: F(L).multilabel_soft_margin_loss(
        x(L, d), L.ones(3, 5, dtype=L.int64, device=d)),
    # ---- loss modules
    "MultiMarginLoss/p_3": lambda L, d: L.nn.MultiMarginLoss(p=3),
    "TripletMarginLoss/margin_negative": lambda L, d: L.nn.TripletMarginLoss(margin=-1.0)(
        x(L, d, (3, 4)), x(L, d, (3, 4)), x(L, d, (3, 4))),
    "TripletMarginWithDistanceLoss/margin_zero": lambda L, d: L.nn.TripletMarginWithDistanceLoss(margin=0.0)(
        x(L, d, (3, 4)), x(L, d, (3, 4)).flip(0), x(L, d, (3, 4)).flip(1)),
    "CTCLoss/blank_past_classes": lambda L, d: L.nn.CTCLoss(blank=4)(
        R(L, (6, 2, 4), d, "float32").log_softmax(2), y(L, d, [[1, 2], [1, 3]]), [6, 6], [2, 2]),
    "NLLLoss/size_average_false_module": lambda L, d: L.nn.NLLLoss(size_average=False)(x(L, d), y(L, d, [0, 1, 2])),
    "CrossEntropyLoss/weight_buffer_moved": lambda L, d: L.nn.CrossEntropyLoss(
        weight=L.arange(1.0, 6.0)).to(d)(x(L, d), y(L, d, [0, 1, 4])),
    "BCELoss/weight_wrong_shape_forward": lambda L, d: L.nn.BCELoss(weight=L.ones(2, device=d))(p(L, d), p(L, d)),
    "GaussianNLLLoss/var_wrong_shape": lambda L, d: L.nn.GaussianNLLLoss()(x(L, d), x(L, d), L.ones(2, 5,
                                                                                                     device=d)),
    "PoissonNLLLoss/full_module": lambda L, d: L.nn.PoissonNLLLoss(log_input=False, full=True)(
        p(L, d, (3, 5)) * 4, T(L, [[0.0, 1.0, 2.0, 3.0, 4.0]] * 3, d)),
    "HuberLoss/delta_zero_module": lambda L, d: L.nn.HuberLoss(delta=0.0)(x(L, d), x(L, d)),
    "KLDivLoss/log_target_module": lambda L, d: L.nn.KLDivLoss(reduction="batchmean", log_target=True)(
        x(L, d).log_softmax(1), x(L, d).flip(1).log_softmax(1)),
    "CosineEmbeddingLoss/target_2": lambda L, d: L.nn.CosineEmbeddingLoss()(
        x(L, d, (3, 4)), x(L, d, (3, 4)).flip(0), pm(L, d, [2.0, 1.0, -1.0])),
}


def _bce_grad(L, d):
    leaf = T(L, [0.0, 1.0, 0.5], d).requires_grad_()
    F(L).binary_cross_entropy(leaf, T(L, [1.0, 0.0, 1.0], d)).backward()
    return leaf.grad


def _gnll_var_grad(L, d):
    var = L.full((3, 5), 0.5, device=d, requires_grad=True)
    F(L).gaussian_nll_loss(x(L, d), x(L, d).flip(0), var).backward()
    return var.grad


def _mse_target_grad(L, d):
    target = x(L, d).flip(0).requires_grad_()
    F(L).mse_loss(x(L, d), target).backward()
    return target.grad


_TARGETS_ON_CPU = ("on the GPU only: PyTorch checks class targets on its CPU only (a device-side assert on CUDA); on "
                   "the GPU tandem's gather check raises a RuntimeError (as nn.py's cross_entropy/target_oob)")
_PROBABILITIES_ON_CPU = ("on the GPU only: PyTorch checks binary_cross_entropy's input and target on its CPU only (a "
                         "device-side assert on CUDA); tandem does the same, a check on the GPU would cost a "
                         "synchronisation per loss (nn/functional.py _check_probabilities)")
KNOWN = {
    **{name: _TARGETS_ON_CPU for name in (
        "cross_entropy/target_7_none", "cross_entropy/target_minus_1_sum", "cross_entropy/target_minus_101",
        "cross_entropy/target_oob_4d", "nll_loss/target_7_none", "nll_loss/target_minus_1", "nll_loss/3d_target_oob",
        "nll_loss/unbatched_target_oob", "multi_margin_loss/target_negative")},
    **{name: _PROBABILITIES_ON_CPU for name in (
        "binary_cross_entropy/input_negative", "binary_cross_entropy/input_nan",
        "binary_cross_entropy/target_outside_01")},
}
