"""torch.nn's loss modules on hostile targets: class indices out of range or of the wrong dtype or shape,
probability targets of the wrong shape, bad weights, label smoothing and reductions, sizes that do not
broadcast, and inputs outside a loss's domain."""
from . import T
from .nn_modules import nn, x

CASES = {
    # ---- losses
    "CrossEntropyLoss/target_past": lambda L, d: nn(L).CrossEntropyLoss()(x(L, d, (2, 3)), T(L, [0, 3], d)),
    "CrossEntropyLoss/target_int32": lambda L, d: nn(L).CrossEntropyLoss()(x(L, d, (2, 3)), T(L, [0, 2], d,
                                                                                                "int32")),
    "CrossEntropyLoss/target_float_wrong_shape": lambda L, d: nn(L).CrossEntropyLoss()(x(L, d, (2, 3)),
                                                                                       x(L, d, (2, 4))),
    "CrossEntropyLoss/target_float_1d": lambda L, d: nn(L).CrossEntropyLoss()(x(L, d, (2, 3)), T(L, [0., 1.], d)),
    "CrossEntropyLoss/target_batch_wrong": lambda L, d: nn(L).CrossEntropyLoss()(x(L, d, (2, 3)),
                                                                                 T(L, [0, 1, 2], d)),
    "CrossEntropyLoss/label_smoothing_above_one": lambda L, d: nn(L).CrossEntropyLoss(label_smoothing=1.5)(
        x(L, d, (2, 3)), T(L, [0, 1], d)),
    "CrossEntropyLoss/weight_wrong": lambda L, d: nn(L).CrossEntropyLoss(weight=L.ones(2, device=d))(
        x(L, d, (2, 3)), T(L, [0, 1], d)),
    "CrossEntropyLoss/bad_reduction": lambda L, d: nn(L).CrossEntropyLoss(reduction="avg")(x(L, d, (2, 3)),
                                                                                           T(L, [0, 1], d)),
    "CrossEntropyLoss/3d_target_wrong": lambda L, d: nn(L).CrossEntropyLoss()(x(L, d, (2, 3, 4)),
                                                                              L.zeros(2, 5, dtype=L.int64,
                                                                                      device=d)),
    "CrossEntropyLoss/ignore_index_ok": lambda L, d: nn(L).CrossEntropyLoss(ignore_index=5)(x(L, d, (2, 3)),
                                                                                            T(L, [5, 1], d)),
    "NLLLoss/target_float": lambda L, d: nn(L).NLLLoss()(x(L, d, (2, 3)), T(L, [0., 1.], d)),
    "NLLLoss/input_1d_target_1d": lambda L, d: nn(L).NLLLoss()(x(L, d, (3,)), T(L, [0], d)),
    "NLLLoss/0dim_input": lambda L, d: nn(L).NLLLoss()(L.tensor(1.0, device=d), T(L, 0, d)),
    "NLLLoss/4d_target_shape": lambda L, d: nn(L).NLLLoss()(x(L, d, (2, 3, 4, 4)),
                                                            L.zeros(2, 4, 5, dtype=L.int64, device=d)),
    "MSELoss/not_broadcastable": lambda L, d: nn(L).MSELoss()(x(L, d, (2, 3)), x(L, d, (2, 4))),
    "MSELoss/int": lambda L, d: nn(L).MSELoss()(L.ones(2, dtype=L.int64, device=d), L.ones(2, dtype=L.int64,
                                                                                          device=d)),
    "L1Loss/bad_reduction": lambda L, d: nn(L).L1Loss(reduction="avg")(x(L, d, (2,)), x(L, d, (2,))),
    "BCELoss/input_above_one": lambda L, d: nn(L).BCELoss()(T(L, [0.5, 1.5], d), T(L, [0., 1.], d)),
    "BCELoss/size_differs": lambda L, d: nn(L).BCELoss()(T(L, [0.5, 0.5], d), T(L, [0., 1., 1.], d)),
    "BCEWithLogitsLoss/size_differs": lambda L, d: nn(L).BCEWithLogitsLoss()(T(L, [0.5, 0.5], d),
                                                                             T(L, [0., 1., 1.], d)),
    "BCEWithLogitsLoss/pos_weight_wrong": lambda L, d: nn(L).BCEWithLogitsLoss(pos_weight=L.ones(3, device=d))(
        x(L, d, (2, 2)), x(L, d, (2, 2))),
    "KLDivLoss/bad_reduction": lambda L, d: nn(L).KLDivLoss(reduction="avg")(x(L, d, (2,)), x(L, d, (2,))),
    "HuberLoss/delta_negative": lambda L, d: nn(L).HuberLoss(delta=-1.0)(x(L, d, (2,)), x(L, d, (2,))),
    "SmoothL1Loss/beta_negative": lambda L, d: nn(L).SmoothL1Loss(beta=-1.0)(x(L, d, (2,)), x(L, d, (2,))),
    "MarginRankingLoss/sizes_differ": lambda L, d: nn(L).MarginRankingLoss()(x(L, d, (2,)), x(L, d, (3,)),
                                                                             x(L, d, (2,))),
    "CosineEmbeddingLoss/target_2d": lambda L, d: nn(L).CosineEmbeddingLoss()(x(L, d, (2, 3)), x(L, d, (2, 3)),
                                                                              x(L, d, (2, 3))),
    "TripletMarginLoss/dims_differ": lambda L, d: nn(L).TripletMarginLoss()(x(L, d, (2, 3)), x(L, d, (2, 3)),
                                                                            x(L, d, (3,))),
    "CTCLoss/target_longer": lambda L, d: nn(L).CTCLoss()(x(L, d, (3, 1, 4)).log_softmax(2),
                                                          T(L, [[1, 2, 1, 2, 1]], d), T(L, [3], d), T(L, [5], d)),
    "CosineSimilarity/dim_past": lambda L, d: nn(L).CosineSimilarity(dim=2)(x(L, d, (2, 3)), x(L, d, (2, 3))),
    "PairwiseDistance/sizes_differ": lambda L, d: nn(L).PairwiseDistance()(x(L, d, (2, 3)), x(L, d, (2, 4))),
}

KNOWN = {
    "BCELoss/input_above_one": "PyTorch checks the inputs' range on its CPU only (a device-side assert on CUDA); "
                               "tandem too (on the GPU the loss is NaN, with no synchronisation)",
    "CrossEntropyLoss/target_past": "PyTorch checks class targets on its CPU only (a device-side assert on CUDA); "
                                    "on the GPU tandem's gather check raises a RuntimeError",
}
