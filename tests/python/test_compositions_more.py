"""The functions and methods of python/tandem/_compositions_more.py against PyTorch: values, dtypes, shapes and
devices on every device, float64 gradients (finite differences and PyTorch's), and PyTorch's errors."""
import array
import warnings

import numpy as np
import pytest
import torch

import tandem
from tandem.autograd import gradcheck

from oracle import assert_same, from_torch, random_torch


def rand(shape, dtype="float32", seed=0):
    return random_torch(shape, dtype, torch.Generator().manual_seed(seed))


F, D, I, B = rand((3, 4)), rand((3, 4), "float64", 1), rand((3, 4), "int64", 2), rand((3, 3), "bool", 3)
V, W, I3 = rand((4,), seed=6), rand((3,), seed=7), rand((3,), "int64", 8)
F3, M, SQ = rand((2, 3, 4), seed=4), rand((3, 3), seed=9), rand((2, 3, 3), "float64", 5)
SPECIAL = torch.tensor([1.5, float("nan"), float("inf"), -float("inf"), -0.0, 2.0])
HALF = SPECIAL.half()
INTS = torch.tensor([7, -7, 6, -6, 0, 5])
DIVISORS = torch.tensor([2, 2, -4, -4, 3, -5])
FREXP = torch.tensor([0.0, -0.0, 1.0, -3.0, 8.0, 0.1, 1e-40, 3e38, float("inf"), -float("inf"), float("nan")])
FREXP64 = torch.tensor([5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 1 - 2 ** -53, 2 ** 52 + 1.0],
                       dtype=torch.float64)
LU_A = rand((2, 4, 4), "float64", 11)


def lu_factor(lib, T):
    return lib.linalg.lu_factor(T(LU_A))


# Each case is called as case(lib, T) with lib = tandem or torch and T moving a torch input into lib.
VALUES = {
    "nan_to_num": lambda lib, T: lib.nan_to_num(T(SPECIAL)),
    "nan_to_num_args": lambda lib, T: lib.nan_to_num(T(SPECIAL), 2.0, 3.0, -4.0),
    "nan_to_num_half": lambda lib, T: T(HALF).nan_to_num(posinf=7),
    "nan_to_num_bf16": lambda lib, T: T(SPECIAL.bfloat16()).nan_to_num(),
    "nan_to_num_int": lambda lib, T: lib.nan_to_num(T(I), nan=1.5),
    "nan_to_num_bool": lambda lib, T: lib.nan_to_num(T(B)),
    "nan_to_num_": lambda lib, T: T(SPECIAL).clone().nan_to_num_(neginf=0.0),
    "nan_to_num__fn": lambda lib, T: lib.nan_to_num_(T(SPECIAL).clone()),
    "isposinf": lambda lib, T: lib.isposinf(T(SPECIAL)), "isneginf": lambda lib, T: T(SPECIAL).isneginf(),
    "isposinf_int": lambda lib, T: lib.isposinf(T(I)), "isneginf_bool": lambda lib, T: lib.isneginf(T(B)),
    "sgn": lambda lib, T: lib.sgn(T(SPECIAL)), "sgn_int": lambda lib, T: T(I).sgn(),
    "sgn_bool": lambda lib, T: T(B).sgn(), "sgn_": lambda lib, T: T(F).clone().sgn_(),
    "fix": lambda lib, T: lib.fix(T(F * 3)), "fix_int": lambda lib, T: T(I).fix(),
    "fix_": lambda lib, T: (T(F) * 3).fix_(),
    "fmin": lambda lib, T: lib.fmin(T(SPECIAL), T(torch.tensor(1.0))),
    "fmin_nan": lambda lib, T: lib.fmin(T(torch.tensor([float("nan"), 1.0, float("nan")])),
                                        T(torch.tensor([2.0, float("nan"), float("nan")]))),
    "fmin_mixed": lambda lib, T: T(I[:, :1]).fmin(T(F)), "fmin_bool": lambda lib, T: lib.fmin(T(B), T(B.t())),
    "fmax_method": lambda lib, T: T(SPECIAL).fmax(T(torch.tensor(1.0))),
    "inner": lambda lib, T: lib.inner(T(F), T(F3)), "inner_1d": lambda lib, T: T(V).inner(T(V)),
    "inner_0d": lambda lib, T: lib.inner(T(F), T(torch.tensor(2.0))),
    "inner_int": lambda lib, T: lib.inner(T(I), T(I)),
    "divide": lambda lib, T: lib.divide(T(F), T(V)),
    "divide_trunc": lambda lib, T: lib.divide(T(INTS), T(DIVISORS), rounding_mode="trunc"),
    "divide_floor": lambda lib, T: T(INTS).divide(T(DIVISORS), rounding_mode="floor"),
    "divide_trunc_float": lambda lib, T: lib.div(T(F * 5), T(V), rounding_mode="trunc"),
    "divide_trunc_scalar": lambda lib, T: lib.div(T(INTS), 4, rounding_mode="trunc"),
    "divide_trunc_mixed": lambda lib, T: lib.div(T(INTS), 2.5, rounding_mode="trunc"),
    "div_floor_method": lambda lib, T: T(F).div(T(V), rounding_mode="floor"),
    "divide_": lambda lib, T: T(F).clone().divide_(2.0), "div_trunc_": lambda lib, T: T(I).clone().div_(
        3, rounding_mode="trunc"),
    "div_plain": lambda lib, T: lib.div(T(I), 2), "div_plain_method": lambda lib, T: T(I).div(T(I3[:1])),
    "arccos": lambda lib, T: lib.arccos(T(F / 5)), "arcsin": lambda lib, T: T(F / 5).arcsin(),
    "arctan": lambda lib, T: lib.arctan(T(F)), "arccosh": lambda lib, T: T(F.abs() + 1).arccosh(),
    "arcsinh": lambda lib, T: lib.arcsinh(T(F)), "arctanh": lambda lib, T: T(F / 5).arctanh(),
    "arctan2": lambda lib, T: lib.arctan2(T(F), T(V)), "arctan2_m": lambda lib, T: T(F).arctan2(T(V)),
    "arctan_": lambda lib, T: T(F).clone().arctan_(), "arccos_": lambda lib, T: T(F / 5).clone().arccos_(),
    "arctan2_": lambda lib, T: T(F).clone().arctan2_(T(V)),
    "absolute": lambda lib, T: T(I).absolute(), "absolute_": lambda lib, T: T(F).clone().absolute_(),
    "multiply": lambda lib, T: T(F).multiply(T(I)), "multiply_": lambda lib, T: T(F).clone().multiply_(2),
    "subtract": lambda lib, T: T(F).subtract(T(V), alpha=2), "subtract_": lambda lib, T: T(I).clone().subtract_(1),
    "negative": lambda lib, T: T(I).negative(), "negative_": lambda lib, T: T(F).clone().negative_(),
    "greater": lambda lib, T: T(F).greater(T(V)), "greater_": lambda lib, T: T(F).clone().greater_(0),
    "greater_equal": lambda lib, T: lib.greater_equal(T(I), 0), "ge_m": lambda lib, T: T(F).greater_equal(T(V)),
    "less": lambda lib, T: T(I).less(1), "less_equal": lambda lib, T: lib.less_equal(T(F), T(V)),
    "less_equal_m": lambda lib, T: T(I).less_equal(0), "not_equal": lambda lib, T: lib.not_equal(T(I), 1),
    "not_equal_m": lambda lib, T: T(B).not_equal(T(B.t())), "less_equal_": lambda lib, T: T(I).clone().less_equal_(0),
    "clip_": lambda lib, T: T(F).clone().clip_(-0.5, 0.5),
    "positive": lambda lib, T: lib.positive(T(I)), "positive_m": lambda lib, T: T(F).positive(),
    "ravel": lambda lib, T: lib.ravel(T(F).t()), "detach": lambda lib, T: lib.detach(T(F)),
    "addr": lambda lib, T: lib.addr(T(F), T(W), T(V)),
    "addr_scaled": lambda lib, T: lib.addr(T(V), T(W), T(V), beta=0.5, alpha=2),
    "addr_beta0": lambda lib, T: lib.addr(T(SPECIAL[1:2].expand(3, 4)), T(W), T(V), beta=0),
    "addr_int": lambda lib, T: T(I).addr(T(I3), T(I[0]), beta=2, alpha=3),
    "addr_bool": lambda lib, T: lib.addr(T(B), T(B[0]), T(B[1])),
    "addr_bool_beta0": lambda lib, T: lib.addr(T(B), T(B[0]), T(B[1]), beta=0),
    "addr_mixed": lambda lib, T: lib.addr(T(I[:, :1]), T(W), T(I[0]), beta=0.5),
    "addr_": lambda lib, T: T(F).clone().addr_(T(W), T(V), alpha=-1),
    "addmv": lambda lib, T: lib.addmv(T(W), T(F), T(V)),
    "addmv_scaled": lambda lib, T: T(W[:1]).addmv(T(F), T(V), beta=-1, alpha=0.5),
    "addmv_beta0": lambda lib, T: lib.addmv(T(SPECIAL[1:4]), T(F), T(V), beta=0),
    "addmv_": lambda lib, T: T(W).clone().addmv_(T(F), T(V), beta=2),
    "addbmm": lambda lib, T: lib.addbmm(T(V), T(F3.transpose(1, 2)), T(F3)),
    "addbmm_scaled": lambda lib, T: T(F3[0].t() @ F3[0]).addbmm(T(F3.transpose(1, 2)), T(F3), beta=0.5, alpha=2),
    "addbmm_": lambda lib, T: T(M).clone().addbmm_(T(F3), T(F3.transpose(1, 2)), beta=0),
    "baddbmm": lambda lib, T: lib.baddbmm(T(M), T(F3), T(F3.transpose(1, 2))),
    "baddbmm_scaled": lambda lib, T: T(W).baddbmm(T(F3), T(F3.transpose(1, 2)), beta=2, alpha=-1),
    "baddbmm_": lambda lib, T: T(F3 @ F3.transpose(1, 2)).baddbmm_(T(F3), T(F3.transpose(1, 2)), alpha=0.5),
    "addmm_": lambda lib, T: T(M).clone().addmm_(T(F), T(F.t()), beta=0.5),
    "cosine_similarity": lambda lib, T: lib.cosine_similarity(T(F), T(V), dim=-1),
    "pairwise_distance": lambda lib, T: lib.pairwise_distance(T(F), T(V), p=1, keepdim=True),
    "pdist": lambda lib, T: lib.pdist(T(F)), "pdist_p1": lambda lib, T: lib.pdist(T(D), p=1),
    "pdist_inf": lambda lib, T: lib.pdist(T(F), float("inf")), "pdist_one_row": lambda lib, T: lib.pdist(T(F[:1])),
    "dropout_eval": lambda lib, T: lib.dropout(T(F), 0.5, False),
    "dropout_p1": lambda lib, T: lib.dropout(T(F), 1.0, True),
    "alpha_dropout_eval": lambda lib, T: lib.alpha_dropout(T(F), 0.3, False),
    "feature_dropout_p0": lambda lib, T: lib.feature_dropout(T(F3), 0.0, True),
    "feature_alpha_dropout_eval": lambda lib, T: lib.feature_alpha_dropout(T(F3), 0.2, False),
    "is_nonzero": lambda lib, T: (lib.is_nonzero(T(torch.tensor([0.0]))), T(torch.tensor(3)).is_nonzero(),
                                  lib.is_nonzero(T(torch.tensor(float("nan"))))),
    "is_same_size": lambda lib, T: (lib.is_same_size(T(F), T(D)), T(F).is_same_size(T(V))),
    "predicates": lambda lib, T: (lib.is_complex(T(F)), T(I).is_complex(), lib.is_conj(T(F)), T(F).is_neg(),
                                  T(I).is_signed(), T(torch.tensor([1], dtype=torch.uint8)).is_signed(),
                                  T(B).is_signed(), T(F).is_signed(), T(F).is_inference()),
    "resolve": lambda lib, T: (lib.resolve_conj(T(F)), T(I).resolve_neg()),
    "frexp": lambda lib, T: lib.frexp(T(FREXP)), "frexp_64": lambda lib, T: T(FREXP64).frexp(),
    "frexp_half": lambda lib, T: lib.frexp(T(FREXP[:7].half())),
    "frexp_bf16": lambda lib, T: lib.frexp(T(FREXP[2:6].bfloat16())),
    "ldexp": lambda lib, T: lib.ldexp(T(F), T(I)), "ldexp_int": lambda lib, T: T(I3).ldexp(T(I3)),
    "ldexp_64": lambda lib, T: lib.ldexp(T(D), T(I[0])), "ldexp_": lambda lib, T: T(F).clone().ldexp_(T(I)),
    "chain_matmul": lambda lib, T: lib.chain_matmul(T(F), T(F.t()), T(M)),
    "chain_matmul_one": lambda lib, T: lib.chain_matmul(T(F)),
    "dist": lambda lib, T: lib.dist(T(F), T(V)), "dist_p": lambda lib, T: T(F).dist(T(V), 3),
    "dist_inf": lambda lib, T: lib.dist(T(D), T(D.flip(0)), float("inf")),
    "dist_0": lambda lib, T: T(F).dist(T(V), 0),
    "renorm": lambda lib, T: lib.renorm(T(F), 2, 0, 1.5), "renorm_dim": lambda lib, T: T(F3).renorm(1, -1, 2),
    "renorm_": lambda lib, T: T(D).clone().renorm_(3, 1, 0.5),
    "matrix_power": lambda lib, T: lib.matrix_power(T(SQ), 3), "matrix_power_m": lambda lib, T: T(M).matrix_power(0),
    "matrix_power_neg": lambda lib, T: T(SQ).matrix_power(-2),
    "matrix_exp": lambda lib, T: lib.matrix_exp(T(SQ)), "matrix_exp_m": lambda lib, T: T(SQ).matrix_exp(),
    "pinverse": lambda lib, T: lib.pinverse(T(D)), "pinverse_m": lambda lib, T: T(D.t()).pinverse(rcond=0.5),
    "lu_unpack": lambda lib, T: lib.lu_unpack(*lu_factor(lib, T)),
    "lu_unpack_wide": lambda lib, T: lib.lu_unpack(*lib.linalg.lu_factor(T(D))),
    "lu_unpack_tall": lambda lib, T: lib.lu_unpack(*lib.linalg.lu_factor(T(D.t()))),
    "lu_unpack_data_only": lambda lib, T: lib.lu_unpack(*lu_factor(lib, T), unpack_pivots=False)[1:],
    "lu": lambda lib, T: lib.lu(T(LU_A)), "lu_infos": lambda lib, T: T(LU_A).lu(get_infos=True),
    "lu_solve": lambda lib, T: lib.lu_solve(T(LU_A[:, :, :2]), *lu_factor(lib, T)),
    "lu_solve_m": lambda lib, T: T(LU_A[:, :, :1]).lu_solve(*lu_factor(lib, T)),
    "index_put": lambda lib, T: lib.index_put(T(F), (T(torch.tensor([0, 2])),), T(V)),
    "index_put_acc": lambda lib, T: lib.index_put(T(V), (T(torch.tensor([1, 1, 3])),), T(W), True),
    "index_put_": lambda lib, T: lib.index_put_(T(F).clone(), (T(torch.tensor([1])), T(torch.tensor([2]))),
                                                T(torch.tensor(9.0))),
    "put": lambda lib, T: lib.put(T(F), T(torch.tensor([[0, 5], [-1, 11]])), T(F[:2, :2])),
    "put_acc": lambda lib, T: T(I).put(T(torch.tensor([1, 1, 1])), T(I3), accumulate=True),
    "put_": lambda lib, T: T(F).clone().put_(T(torch.tensor([3, 4])), T(V[:2])),
    "put_t": lambda lib, T: T(F).t().clone().t().put_(T(torch.tensor([3, -4])), T(V[:2])),
    "put_view": lambda lib, T: T(F).clone().t().put_(T(torch.tensor([1, 2, 1])), T(W), accumulate=True),
    "fill_diagonal_": lambda lib, T: T(F).clone().fill_diagonal_(5),
    "fill_diagonal_tall": lambda lib, T: T(rand((7, 3))).fill_diagonal_(-1.5, wrap=True),
    "fill_diagonal_tall_nowrap": lambda lib, T: T(rand((7, 3))).fill_diagonal_(2),
    "fill_diagonal_wide_wrap": lambda lib, T: T(rand((3, 7), "int64")).fill_diagonal_(2, True),
    "fill_diagonal_3d": lambda lib, T: T(rand((3, 3, 3))).fill_diagonal_(1),
    "fill_diagonal_t": lambda lib, T: T(F).clone().t().fill_diagonal_(0),
    "H": lambda lib, T: T(F).H, "mH": lambda lib, T: T(F3).mH, "mT": lambda lib, T: T(F3).mT,
    "unfold": lambda lib, T: T(torch.arange(7.0)).unfold(0, 3, 2),
    "unfold_tiles": lambda lib, T: T(F3).unfold(2, 2, 2), "unfold_gap": lambda lib, T: T(F3).unfold(-1, 1, 3),
    "unfold_gap_end": lambda lib, T: T(torch.arange(7.0)).unfold(0, 1, 4),
    "unfold_overlap": lambda lib, T: T(F3).unfold(1, 2, 1), "unfold_0d": lambda lib, T: T(torch.tensor(3.0)).unfold(
        0, 1, 1),
    "unfold_empty": lambda lib, T: T(torch.arange(7.0)).unfold(0, 0, 1),
    "unfold_int_t": lambda lib, T: T(I).t().unfold(1, 2, 1),
    "sum_to_size": lambda lib, T: T(F3).sum_to_size(3, 1), "sum_to_size_t": lambda lib, T: T(F).sum_to_size((1, 4)),
    "sum_to_size_same": lambda lib, T: T(I).sum_to_size(3, 4), "sum_to_size_all": lambda lib, T: T(F3).sum_to_size(1),
    "reversed": lambda lib, T: reversed(T(F)), "reversed_0d": lambda lib, T: reversed(T(torch.tensor(2))),
    "contains": lambda lib, T: (2 in T(I3 * 0 + 2), 2.5 in T(I), T(torch.tensor(True)) in T(B), 99 in T(I),
                                T(torch.tensor([1, 2])) in T(torch.tensor([[0, 9], [5, 2]]))),
    "new_sizes": lambda lib, T: tuple(T(F).new(2, 3).shape), "new_data": lambda lib, T: T(I).new([1, 2]),
    "new_empty": lambda lib, T: T(F).new(),
}


def same(ours, theirs, device):
    if isinstance(theirs, torch.Tensor):
        assert_same(ours, theirs, device=tandem.device(device))
    elif isinstance(theirs, tuple):
        assert type(ours).__name__ == type(theirs).__name__ and len(ours) == len(theirs), (ours, theirs)
        for a, b in zip(ours, theirs):
            same(a, b, device)
    else:
        assert ours == theirs, (ours, theirs)


@pytest.mark.parametrize("case", VALUES.values(), ids=VALUES.keys())
def test_values_match_pytorch(case, device):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # chain_matmul's deprecation; its text is checked below
        same(case(tandem, lambda t: from_torch(t, device)), case(torch, lambda t: t), device)


def raised(call):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            call()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e).split("\nhint:")[0]
    return None


# Each case raises the same error type and first line in tandem and in PyTorch.
ERRORS = {
    "isposinf_not_tensor": lambda lib, T: lib.isposinf(3.0),
    "fmin_scalar": lambda lib, T: lib.fmin(T(F), 2), "fmax_scalar": lambda lib, T: lib.fmax(T(F), 2.5),
    "inner_mismatch": lambda lib, T: lib.inner(T(F), T(W)),
    "divide_mode": lambda lib, T: lib.divide(T(F), 2, rounding_mode="bad"),
    "divide_zero": lambda lib, T: lib.divide(T(I), 0, rounding_mode="trunc"),
    "divide_bool": lambda lib, T: lib.divide(T(B), T(B), rounding_mode="floor"),
    "divide_bool_trunc": lambda lib, T: T(B).div(T(B), rounding_mode="trunc"),
    "positive_bool": lambda lib, T: lib.positive(T(B)),
    "addr_2d": lambda lib, T: lib.addr(T(F), T(F), T(V)),
    "addr_float_beta": lambda lib, T: lib.addr(T(I), T(I3), T(I[0]), beta=0.5),
    "addr_float_alpha": lambda lib, T: T(I).addr(T(I3), T(I[0]), alpha=1.5),
    "addr_shape": lambda lib, T: lib.addr(T(M), T(W), T(V)),
    "addmv_shape": lambda lib, T: lib.addmv(T(W), T(F), T(W)),
    "addmv_input": lambda lib, T: lib.addmv(T(V), T(F), T(V)),
    "addbmm_3d": lambda lib, T: lib.addbmm(T(M), T(F), T(F)),
    "addbmm_batches": lambda lib, T: lib.addbmm(T(M), T(F3), T(F3[:1].transpose(1, 2))),
    "addbmm_sizes": lambda lib, T: lib.addbmm(T(F), T(F3), T(F3)),
    "addbmm_expand": lambda lib, T: lib.addbmm(T(V), T(F3), T(F3.transpose(1, 2))),
    "addbmm_b1": lambda lib, T: lib.addbmm(T(M), T(F), T(F3)),
    "addbmm_4d": lambda lib, T: lib.addbmm(T(M), T(F3), T(F3.unsqueeze(-1))),
    "addbmm_dtype": lambda lib, T: lib.addbmm(T(M.double()), T(F3), T(F3.transpose(1, 2))),
    "addmv_dims": lambda lib, T: lib.addmv(T(F[:, :1]), T(F), T(V)),
    "addmv_dtype": lambda lib, T: lib.addmv(T(W), T(F), T(V.double())),
    "baddbmm_3d": lambda lib, T: lib.baddbmm(T(M), T(F3), T(F)),
    "baddbmm_sizes": lambda lib, T: lib.baddbmm(T(V), T(F3), T(F3)),
    "baddbmm_expand": lambda lib, T: lib.baddbmm(T(rand((7, 3, 3))), T(F3), T(F3.transpose(1, 2))),
    "baddbmm_1": lambda lib, T: lib.baddbmm(T(M), T(F), T(F3)),
    "baddbmm_dtypes": lambda lib, T: lib.baddbmm(T(M), T(F3), T(F3.transpose(1, 2).double())),
    "baddbmm_input_dtype": lambda lib, T: lib.baddbmm(T(M.double()), T(F3), T(F3.transpose(1, 2))),
    "pdist_1d": lambda lib, T: lib.pdist(T(V)), "pdist_int": lambda lib, T: lib.pdist(T(I)),
    "pdist_p": lambda lib, T: lib.pdist(T(F), p=-1),
    "dropout_p": lambda lib, T: lib.dropout(T(F), 1.5, True), "dropout_neg": lambda lib, T: lib.dropout(T(F), -0.1,
                                                                                                         False),
    "dropout_train_missing": lambda lib, T: lib.dropout(T(F), 0.5),
    "feature_dropout_1d": lambda lib, T: lib.feature_dropout(T(V), 0.5, True),
    "is_nonzero_many": lambda lib, T: lib.is_nonzero(T(V)), "is_nonzero_empty": lambda lib, T: T(V[:0]).is_nonzero(),
    "empty_strided_dims": lambda lib, T: lib.empty_strided((2, 3), (1,)),
    "frexp_int": lambda lib, T: lib.frexp(T(I)),
    "ldexp_scalar": lambda lib, T: lib.ldexp(T(F), 2),
    "chain_matmul_empty": lambda lib, T: lib.chain_matmul(),
    "chain_matmul_1d": lambda lib, T: lib.chain_matmul(T(F), T(V)),
    "renorm_1d": lambda lib, T: lib.renorm(T(V), 2, 0, 1), "renorm_p": lambda lib, T: T(F).renorm(0, 0, 1),
    "renorm_maxnorm": lambda lib, T: T(F).renorm(2, 0, -1.5),
    "matrix_power_shape": lambda lib, T: lib.matrix_power(T(F), 2),
    "put_range": lambda lib, T: T(F).put_(T(torch.tensor([12])), T(V[:1])),
    "put_range_neg": lambda lib, T: lib.put(T(F), T(torch.tensor([0, -13])), T(V[:2])),
    "put_int_index": lambda lib, T: T(F).put_(T(torch.tensor([1], dtype=torch.int32)), T(V[:1])),
    "put_numel": lambda lib, T: T(F).put_(T(torch.tensor([1, 2])), T(V[:1])),
    "put_dtype": lambda lib, T: T(F).put_(T(torch.tensor([1])), T(D[0, :1])),
    "fill_diagonal_1d": lambda lib, T: T(V).fill_diagonal_(1),
    "fill_diagonal_unequal": lambda lib, T: T(F3).fill_diagonal_(1),
    "exponential_lambda": lambda lib, T: T(F).exponential_(-1),
    "exponential_zero": lambda lib, T: T(F).exponential_(0.0),
    "exponential_int": lambda lib, T: T(I).exponential_(),
    "geometric_p": lambda lib, T: T(F).geometric_(1), "geometric_p0": lambda lib, T: T(F).geometric_(0.0),
    "cauchy_sigma": lambda lib, T: T(F).cauchy_(0, -1.5), "cauchy_int": lambda lib, T: T(I).cauchy_(),
    "log_normal_std": lambda lib, T: T(F).log_normal_(1, 0),
    "log_normal_int": lambda lib, T: T(I).log_normal_(),
    "random_order": lambda lib, T: T(F).random_(5, 3), "random_equal": lambda lib, T: T(I).random_(3, 3),
    "random_from_bounds": lambda lib, T: T(I.to(torch.uint8)).random_(-1, 3),
    "random_to_bounds": lambda lib, T: T(I.to(torch.uint8)).random_(0, 300),
    "random_int8": lambda lib, T: T(I.to(torch.int8)).random_(-200, 3),
    "random_kwarg": lambda lib, T: T(F).random_(from_=1),
    "H_1d": lambda lib, T: T(V).H, "H_3d": lambda lib, T: T(F3).H, "mH_1d": lambda lib, T: T(V).mH,
    "unfold_size": lambda lib, T: T(V).unfold(0, 5, 1), "unfold_step": lambda lib, T: T(V).unfold(0, 2, 0),
    "unfold_neg": lambda lib, T: T(V).unfold(0, -1, 1), "unfold_dim": lambda lib, T: T(V).unfold(1, 1, 1),
    "unfold_0d": lambda lib, T: T(torch.tensor(1.0)).unfold(0, 2, 1),
    "sum_to_size": lambda lib, T: T(F).sum_to_size(3), "sum_to_size_long": lambda lib, T: T(V).sum_to_size(2, 4),
    "contains_str": lambda lib, T: "a" in T(F), "contains_list": lambda lib, T: [1] in T(I),
    "lu_unpack_1d": lambda lib, T: lib.lu_unpack(T(V), T(torch.tensor([1], dtype=torch.int32))),
}


@pytest.mark.parametrize("case", ERRORS.values(), ids=ERRORS.keys())
def test_errors_match_pytorch(case, device):
    ours = raised(lambda: case(tandem, lambda t: from_torch(t, device)))
    theirs = raised(lambda: case(torch, lambda t: t))
    if ours is not None:  # kernel names carry the device, as PyTorch's do on CUDA: "div_floor_cuda"
        ours = (ours[0], ours[1].replace('_cuda"', '_cpu"'))
    assert theirs is not None and ours == theirs


def leaf(shape, seed, device="cpu", positive=False):
    t = rand(shape, "float64", seed)
    t = t.abs() + 0.5 if positive else t
    return from_torch(t, device).requires_grad_()


# name: (function of tandem tensors, their shapes); inputs are random float64 leaves (positive when flagged).
GRADIENTS = {
    "nan_to_num": (lambda x: tandem.nan_to_num(x.log()), [(3, 4)]),  # NaN where x < 0: no gradient there
    "fmin": (lambda a, b: tandem.fmin(a, b), [(3, 4), (4,)]), "fmax": (lambda a, b: a.fmax(b), [(3, 4), (3, 1)]),
    "inner": (lambda a, b: tandem.inner(a, b), [(2, 3), (4, 3)]),
    "divide": (lambda a, b: a.divide(b), [(3, 4), (4,)], True),
    "arc": (lambda a, b: tandem.arctan2(a, b) + a.arcsinh() + tandem.arctan(b), [(3, 4), (4,)]),
    "addr": (lambda x, a, b: tandem.addr(x, a, b, beta=0.5, alpha=-2), [(3, 4), (3,), (4,)]),
    "addmv": (lambda x, m, v: x.addmv(m, v, alpha=3), [(3,), (3, 4), (4,)]),
    "addbmm": (lambda x, a, b: tandem.addbmm(x, a, b, beta=2), [(3, 4), (2, 3, 5), (2, 5, 4)]),
    "baddbmm": (lambda x, a, b: x.baddbmm(a, b, alpha=0.5), [(4,), (2, 3, 5), (2, 5, 4)]),
    "addr_": (lambda x, a, b: x.clone().addr_(a, b), [(3, 4), (3,), (4,)]),
    "baddbmm_": (lambda x, a, b: (x * 1).baddbmm_(a, b), [(2, 3, 4), (2, 3, 5), (2, 5, 4)]),
    "cosine_similarity": (lambda a, b: tandem.cosine_similarity(a, b), [(3, 4), (3, 4)]),
    "pdist": (lambda x: tandem.pdist(x), [(4, 3)]), "pdist_p3": (lambda x: tandem.pdist(x, 3), [(4, 3)]),
    "dist": (lambda a, b: tandem.dist(a, b, 1.5), [(3, 4), (4,)]),
    "renorm": (lambda x: x.renorm(2, 0, 1.0), [(3, 4)]), "renorm_1": (lambda x: x.renorm(1, 1, 0.5), [(3, 4)]),
    "frexp": (lambda x: tandem.frexp(x * 10).mantissa, [(3, 4)]),
    "ldexp": (lambda x: tandem.ldexp(x, tandem.tensor([1, -2, 0, 3])), [(3, 4)]),
    "chain_matmul": (lambda a, b, c: tandem.linalg.multi_dot([a, b, c]), [(2, 3), (3, 4), (4, 2)]),
    "matrix_power": (lambda a: a.matrix_power(3), [(3, 3)]),
    "pinverse": (lambda a: tandem.pinverse(a), [(3, 2)]),
    "lu_unpack": (lambda a: sum(t.sum() for t in tandem.lu_unpack(*tandem.linalg.lu_factor(a))[1:]), [(3, 3)]),
    "put": (lambda x, s: tandem.put(x, tandem.tensor([1, 5, 1]), s, accumulate=True), [(3, 4), (3,)]),
    "put_": (lambda x, s: x.clone().t().put_(tandem.tensor([0, 7]), s), [(3, 4), (2,)]),
    "fill_diagonal_": (lambda x: (x * 1).fill_diagonal_(2.0, wrap=True), [(7, 3)]),
    "unfold": (lambda x: x.unfold(1, 3, 1), [(2, 5)]), "unfold_gap": (lambda x: x.unfold(0, 2, 3), [(7, 2)]),
    "unfold_0d": (lambda x: x.sum().unfold(0, 1, 1), [(2,)]),
    "sum_to_size": (lambda x: x.sum_to_size(3, 1), [(2, 3, 4)]),
    "H": (lambda x: x.H * x.mH, [(3, 3)]),
}


@pytest.mark.parametrize("name", list(GRADIENTS))
def test_gradients(name):
    fn, shapes, *positive = GRADIENTS[name]
    inputs = tuple(leaf(s, seed, positive=bool(positive)) for seed, s in enumerate(shapes))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert gradcheck(fn, inputs)


def test_gradients_on_devices(device):
    x, y = leaf((3, 4), 0, device), leaf((3, 4), 1, device)
    assert gradcheck(lambda x, y: tandem.addr(x.fmin(y), x[:, 0], y[0]).unfold(1, 2, 1).nan_to_num(), (x, y))


def grads(lib, fn, *values):
    xs = [lib.tensor(v, dtype=lib.float64, requires_grad=True) for v in values]
    return [g.tolist() for g in lib.autograd.grad(fn(lib, *xs).sum(), xs)]


@pytest.mark.parametrize("fn", [
    lambda lib, x: lib.nan_to_num(x.log()),  # NaN, -inf and inf positions get no gradient
    lambda lib, x: lib.frexp(x).mantissa,
    lambda lib, x: x.renorm(2, 0, 0.5),
    lambda lib, x: lib.pdist(x.reshape(3, 2)),
], ids=["nan_to_num", "frexp", "renorm", "pdist"])
def test_gradients_equal_pytorch_at_special_points(fn):
    values = [[0.0, -1.0], [3.0, 0.0], [0.0, -1.0]]
    ours, theirs = grads(tandem, fn, values), grads(torch, fn, values)
    torch.testing.assert_close(torch.tensor(ours), torch.tensor(theirs), equal_nan=True)


@pytest.mark.parametrize("name", ["fmin", "fmax"])
def test_fmin_fmax_gradients_at_ties_and_nans_match_pytorch(name):
    a, b = [1.0, 2.0, float("nan"), 3.0, float("nan")], [1.0, float("nan"), 2.0, 0.0, float("nan")]
    fn = lambda lib, x, y: getattr(lib, name)(x, y)  # noqa: E731
    assert grads(tandem, fn, a, b) == grads(torch, fn, a, b)


def test_random_fills_follow_their_distributions(device):
    tandem.manual_seed(0)
    n = 20000
    x = tandem.empty(n, device=device, dtype=tandem.float64)
    assert x.exponential_(2.0) is x and x.device == tandem.device(device)
    assert bool((x >= 0).all()) and abs(x.mean().item() - 0.5) < 0.02
    x.geometric_(0.25)
    assert bool((x >= 1).all()) and bool((x == x.round()).all()) and abs(x.mean().item() - 4.0) < 0.1
    def median(t):
        return t.sort().values[n // 2].item()

    x.cauchy_(1.0, 2.0)
    assert abs(median(x) - 1.0) < 0.1 and abs(median((x - 1).abs()) - 2.0) < 0.15
    x.log_normal_(0.5, 0.25)
    assert bool((x > 0).all()) and abs(x.log().mean().item() - 0.5) < 0.01 and abs(x.log().std().item() - 0.25) < 0.01
    g = tandem.empty(5, dtype=tandem.int32, device=device).geometric_(0.5)
    assert g.dtype == tandem.int32 and bool((g >= 1).all())
    h = tandem.empty(1000, dtype=tandem.float16, device=device).exponential_()
    assert h.dtype == tandem.float16 and bool(h.isfinite().all())


@pytest.mark.parametrize("dtype, args, low, high", [
    ("float32", (), 0, 2 ** 24), ("float64", (10,), 0, 9), ("int64", (-5, 5), -5, 4), ("uint8", (), 0, 255),
    ("int8", (), 0, 127), ("bool", (), 0, 1), ("int32", (3, None), 3, 2 ** 31 - 1), ("int64", (), 0, 2 ** 63 - 1),
    ("float16", (), 0, 2 ** 11), ("bfloat16", (-3, 4), -3, 3), ("int16", (-2 ** 15, 2 ** 15), -2 ** 15, 2 ** 15 - 1),
])
def test_random_covers_the_range_of_each_dtype(device, dtype, args, low, high):
    x = tandem.zeros(4000, dtype=getattr(tandem, dtype), device=device)
    assert x.random_(*args) is x and x.dtype == getattr(tandem, dtype)
    values = x.to(tandem.float64) if dtype != "int64" else x
    lo, hi = values.min().item(), values.max().item()
    assert low <= lo and hi <= high
    span = high - low
    assert lo - low < span * 0.01 + 1 and high - hi < span * 0.01 + 1  # both ends are reached (or nearly)


def test_random_fills_take_a_generator(device):
    fills = [lambda t, g: t.exponential_(generator=g), lambda t, g: t.cauchy_(generator=g),
             lambda t, g: t.log_normal_(generator=g), lambda t, g: t.geometric_(0.3, generator=g),
             lambda t, g: t.random_(generator=g), lambda t, g: t.random_(7, generator=g)]
    for fill in fills:
        a, b = (fill(tandem.empty(6, device=device), tandem.Generator(device).manual_seed(3)) for _ in range(2))
        assert a.tolist() == b.tolist()


def test_random_fills_refuse_a_leaf_that_requires_grad():
    for lib in (tandem, torch):
        x = lib.zeros(3, requires_grad=True)
        with pytest.raises(RuntimeError, match="^a leaf Variable that requires grad is being used in an in-place"):
            x.exponential_()


def test_frombuffer_shares_memory_like_pytorch():
    for lib in (tandem, torch):
        data = bytearray(np.arange(4, dtype=np.float32).tobytes())
        t = lib.frombuffer(data, dtype=lib.float32, count=2, offset=4)
        assert t.tolist() == [1.0, 2.0] and t.dtype == lib.float32
        t[0] = 9.0
        assert np.frombuffer(data, dtype=np.float32)[1] == 9.0
        ints = lib.frombuffer(array.array("i", [5, 6]), dtype=lib.int32)
        assert ints.tolist() == [5, 6]
        assert lib.frombuffer(data, dtype=lib.int16, requires_grad=False).shape == (8,)


def test_frombuffer_warns_for_a_read_only_buffer():
    with pytest.warns(UserWarning, match="^The given buffer is not writable"):
        t = tandem.frombuffer(b"\x01\x00\x00\x00", dtype=tandem.int32)
    assert t.tolist() == [1]


@pytest.mark.parametrize("call", [
    lambda lib: lib.frombuffer(bytearray(8), dtype=lib.float32, count=3),
    lambda lib: lib.frombuffer(bytearray(7), dtype=lib.float32),
    lambda lib: lib.frombuffer(bytearray(8), dtype=lib.float32, offset=8),
    lambda lib: lib.frombuffer(bytearray(8), dtype=lib.float32, offset=-1),
    lambda lib: lib.frombuffer(bytearray(0), dtype=lib.float32),
    lambda lib: lib.frombuffer([1, 2], dtype=lib.float32),
    lambda lib: lib.frombuffer(bytearray(8)),
], ids=["count", "multiple", "offset", "negative_offset", "empty", "not_a_buffer", "no_dtype"])
def test_frombuffer_errors_match_pytorch(call):
    theirs = raised(lambda: call(torch))
    assert theirs is not None and raised(lambda: call(tandem)) == theirs


def asarray_cases(lib):
    """(description, result) pairs for torch.asarray's documented inputs."""
    arr = np.arange(3.0)
    return [
        ("list", lib.asarray([1, 2])), ("floats", lib.asarray([[1, 2], [3, 4.0]])),
        ("dtype", lib.asarray([1.0, 2], dtype=lib.float64)), ("scalar", lib.asarray(3.5)),
        ("numpy", lib.asarray(arr)), ("numpy_dtype", lib.asarray(arr, dtype=lib.float32)),
        ("numpy_scalar", lib.asarray(np.float32(2))), ("numpy_scalars", lib.asarray([np.float32(1)])),
        ("bytearray", lib.asarray(bytearray(b"ab"))), ("bytes", lib.asarray(b"ab")),
        ("memoryview", lib.asarray(memoryview(b"ab"))), ("array_f", lib.asarray(array.array("f", [1, 2]))),
        ("array_d", lib.asarray(array.array("d", [1, 2]))),
        ("buffer_dtype", lib.asarray(array.array("i", [1, 2]), dtype=lib.float32)),
        ("tensors", lib.asarray([lib.tensor(1.0), lib.tensor(2.0)])),
    ]


def test_asarray_values_match_pytorch():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # read-only buffers
        for (name, ours), (_, theirs) in zip(asarray_cases(tandem), asarray_cases(torch)):
            assert ours.tolist() == theirs.tolist() and str(ours.dtype)[7:] == str(theirs.dtype)[6:], name


def test_asarray_shares_memory_unless_asked_not_to():
    for lib in (tandem, torch):
        arr = np.arange(3.0)
        shared, copied = lib.asarray(arr), lib.asarray(arr, copy=True)
        arr[0] = 9
        assert shared[0].item() == 9 and copied[0].item() == 0
        buf = bytearray(b"\x01\x02")
        t = lib.asarray(buf)
        buf[0] = 7
        assert t.tolist() == [7, 2]
        x = lib.ones(2)
        assert lib.asarray(x) is x and lib.asarray(x, dtype=lib.float32) is x
        assert lib.asarray(x, copy=True) is not x and lib.asarray(x, dtype=lib.float64).dtype == lib.float64


def test_asarray_on_other_devices(device):
    x = tandem.ones(2, device=device)
    assert tandem.asarray(x, device=device) is x
    y = tandem.asarray([1.0, 2.0], device=device)
    assert y.device == tandem.device(device)
    z = tandem.asarray(x, device="cpu")
    assert z.device == tandem.device("cpu") and z.tolist() == [1.0, 1.0]
    if device != "cpu":
        with pytest.raises(ValueError, match=f"^can't alias tensor from device '{device}' to 'cpu'.$"):
            tandem.asarray(x, device="cpu", copy=False)


def test_asarray_requires_grad_like_pytorch():
    results = []
    for lib in (tandem, torch):
        row = []
        leaf_ = lib.ones(2, requires_grad=True)
        with pytest.warns(UserWarning, match="^torch.asarray: unspecified requires_grad now defaults"):
            same_ = lib.asarray(leaf_)
        row.append((same_ is leaf_, same_.requires_grad))
        for kw in ({"requires_grad": True}, {"copy": True}, {"copy": True, "requires_grad": False},
                   {"dtype": lib.float64}, {"dtype": lib.float64, "requires_grad": False}):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = lib.asarray(leaf_, **kw)
            row.append((r is leaf_, r.requires_grad, r.is_leaf, type(r.grad_fn).__name__))
        plain = lib.ones(2)
        r = lib.asarray(plain, requires_grad=True)
        row.append((r is plain, plain.requires_grad))  # PyTorch sets the flag on the tensor itself
        r = lib.asarray(np.arange(3.0), requires_grad=True)
        row.append((r.requires_grad, r.is_leaf))
        results.append(row)
    ours, theirs = results
    # grad_fn names differ where tandem records its copy under another node name: compare the rest.
    assert [r[:3] for r in ours] == [r[:3] for r in theirs]
    assert [r[3] == "NoneType" for r in ours[1:6]] == [r[3] == "NoneType" for r in theirs[1:6]]


@pytest.mark.parametrize("call", [
    lambda lib: lib.asarray(lib.ones(2), copy=False, dtype=lib.float64),
    lambda lib: lib.asarray(np.arange(3), dtype=lib.float32, copy=False),
    lambda lib: lib.asarray([1, 2], copy=False),
    lambda lib: lib.asarray(3, copy=False),
    lambda lib: lib.asarray([1, 2], requires_grad=True),
], ids=["tensor_dtype", "numpy_dtype", "sequence", "scalar", "int_grad"])
def test_asarray_errors_match_pytorch(call):
    theirs = raised(lambda: call(torch))
    assert theirs is not None and raised(lambda: call(tandem)) == theirs


@pytest.mark.parametrize("size, stride", [((2, 3), (3, 1)), ((2, 3), (1, 2)), ((2, 3, 4), (3, 1, 6)), ((1, 3), (7, 1)),
                                          ((2, 0, 3), (5, 5, 1)), ((), ())])
def test_empty_strided_makes_dense_layouts(device, size, stride):
    t = tandem.empty_strided(size, stride, dtype=tandem.float64, device=device)
    ref = torch.empty_strided(size, stride)
    assert tuple(t.shape) == tuple(ref.shape) and t.dtype == tandem.float64 and t.device == tandem.device(device)
    if ref.numel() and 1 not in size:
        assert t.stride() == ref.stride()
    assert not tandem.empty_strided(size, stride, requires_grad=True).is_leaf is False


def test_empty_strided_builds_layouts_with_gaps(device):
    # A view of a buffer of the full extent, as PyTorch's (as_strided).
    t = tandem.empty_strided((2, 3), (4, 1), device=device)
    want = torch.empty_strided((2, 3), (4, 1))
    assert t.stride() == want.stride() and t.shape == want.shape
    assert t.untyped_storage().nbytes() == want.untyped_storage().nbytes()
    assert tandem.empty_strided((2, 3), (4, 1), requires_grad=True).is_leaf


def test_unfold_is_a_view_like_pytorch(device):
    for lib in (tandem, torch):
        x = lib.zeros(2, 7, device=device if lib is tandem else "cpu")
        u = x.unfold(1, 3, 2)
        u[:, 1, 0] = 5.0  # the element windows 0 and 1 share
        u.select(2, 1).add_(1.0)
        assert x.tolist() == [[0, 1, 5, 1, 0, 1, 0]] * 2 and u.stride() == (7, 2, 1)
        assert u[:, 0, 2].tolist() == [5.0, 5.0]
    x = tandem.arange(8.0)
    assert x.unfold(0, 3, 1)._is_view_of(x) and x.t().unfold(0, 2, 2)._is_view_of(x)


def test_unfold_gradients_through_in_place_writes_match_pytorch():
    results = []
    for lib in (tandem, torch):
        w = lib.arange(1.0, 8.0, dtype=lib.float64).requires_grad_()
        x = w * 1
        u = x.unfold(0, 3, 2)
        u[1, 1] = u[0, 0] * 3  # a write through the view re-bases x's history
        (x * lib.arange(7.0, dtype=lib.float64)).sum().backward()
        node = x.unfold(0, 2, 1).grad_fn
        results.append((x.tolist(), w.grad.tolist(), node.name() if lib is tandem else type(node).__name__))
    assert results[0] == results[1]


def test_unfold_second_order_gradients_match_pytorch():
    results = []
    for lib in (tandem, torch):
        x = lib.arange(12.0, dtype=lib.float64).reshape(2, 6).requires_grad_()
        y = (x.unfold(1, 3, 2) ** 3).unfold(0, 1, 1).sum()
        g, = lib.autograd.grad(y, [x], create_graph=True)
        gg, = lib.autograd.grad((g.unfold(1, 2, 1) ** 2).sum(), [x])
        results.append((g.tolist(), gg.tolist()))
    assert results[0] == results[1]


def test_deprecation_warnings_match_pytorch():
    # PyTorch warns once per process (TORCH_WARN_ONCE), so its texts are checked here as tandem's.
    t, lib = from_torch(rand((3, 3), "float64")), tandem
    with pytest.warns(UserWarning, match="^torch.chain_matmul is deprecated"):
        lib.chain_matmul(t, t)
    with pytest.warns(UserWarning, match="^torch.lu is deprecated in favor of torch.linalg.lu_factor"):
        LU, piv = lib.lu(t)
    with pytest.warns(UserWarning, match="^torch.lu_solve is deprecated in favor of torch.linalg.lu_solve"):
        lib.lu_solve(t, LU, piv)
    with pytest.warns(UserWarning, match="^Tensor.H is deprecated on 0-D tensors"):
        assert t[0, 0].H.item() == t[0, 0].item()


@pytest.mark.parametrize("device", ["cpu", "cuda:0"])
def test_matrix_transposes_of_other_ranks_warn_as_pytorch(device):
    # PyTorch warns once per process (TORCH_WARN_ONCE); tandem warns at each use, with PyTorch's text.
    scalar, vector, cube = (tandem.arange(float(n), device=device).reshape(shape)
                            for n, shape in ((1, ()), (3, (3,)), (24, (2, 3, 4))))
    expect = {
        ("T", 0): "Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases.",
        ("mT", 0): "Tensor.mT is deprecated on 0-D tensors. This function is the identity in these cases.",
        ("H", 0): "Tensor.H is deprecated on 0-D tensors. Consider using x.conj().",
        ("mH", 0): "Tensor.mH is deprecated on 0-D tensors. Consider using x.conj().",
        ("T", 1): "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated and it "
                  "will throw an error in a future release. Consider `x.mT` to transpose batches of matrices or "
                  "`x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor.",
    }
    expect[("T", 3)] = expect[("T", 1)]
    for (name, rank), message in expect.items():
        x = {0: scalar, 1: vector, 3: cube}[rank]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            y = getattr(x, name)
        assert [(w.category, str(w.message)) for w in caught] == [(UserWarning, message)], (name, rank)
        assert y.shape == x.shape[::-1] and y.device == x.device
        assert y.cpu().tolist() == np.transpose(x.cpu().numpy()).tolist()
    for name in ("mT", "mH"):
        with pytest.raises(RuntimeError, match=rf"^tensor\.{name} is only supported on matrices or batches of "
                                               r"matrices\. Got 1-D tensor\.$"):
            getattr(vector, name)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert tandem.ones(2, 3, device=device).T.shape == (3, 2)  # a matrix: no warning


def test_typename():
    assert tandem.typename(tandem.ones(2)) == tandem.ones(2).type() == "tandem.FloatTensor"
    assert tandem.typename(tandem.ones(2, dtype=tandem.int64)) == "tandem.LongTensor"
    for obj in (3, "a", [1], warnings.warn, np.float32(1)):
        assert tandem.typename(obj) == torch.typename(obj)
    assert tandem.typename(tandem.nn.Linear) == "tandem.nn.modules.linear.Linear" == tandem.typename(
        tandem.nn.Linear(1, 1)).replace("torch", "tandem")


def test_div_out_and_rounding_mode_keyword():
    out = tandem.empty(3, dtype=tandem.int64)
    assert tandem.div(tandem.tensor([7, -7, 5]), 2, rounding_mode="trunc", out=out) is out
    assert out.tolist() == [3, -3, 2]
    assert tandem.div(tandem.tensor([1.0]), 2, out=tandem.empty(1)).tolist() == [0.5]
    x = tandem.tensor([7, -7])
    assert x.div_(2, rounding_mode="floor") is x and x.tolist() == [3, -4]


def test_legacy_new():
    for lib in (tandem, torch):
        x = lib.ones(2, dtype=lib.float64)
        assert x.new(2, 3).shape == (2, 3) and x.new(2, 3).dtype == lib.float64
        assert x.new((2, 3)).tolist() == [2.0, 3.0] and x.new([1, 2]).dtype == lib.float64
        assert x.new().shape == (0,) and x.new(lib.Size([4])).shape == (4,)
        alias = x.new(x)
        alias[0] = 5.0
        assert alias is not x and x[0].item() == 5.0
        with pytest.raises(TypeError, match="^expected"):
            x.new(lib.ones(2))


@pytest.mark.parametrize("shape", [(12, 7), (7, 12), (3, 10, 6)])
def test_svd_lowrank_recovers_a_low_rank_matrix(shape, device):
    """Random projections: not PyTorch's draw, so compare the reconstruction and the singular values (exact for
    a matrix of rank <= q) with PyTorch's, and the shapes."""
    g = torch.Generator().manual_seed(0)
    *batch, m, n = shape
    ref = torch.randn(*batch, m, 3, generator=g, dtype=torch.float64) @ torch.randn(*batch, 3, n, generator=g,
                                                                                 dtype=torch.float64)
    A = tandem.tensor(ref.tolist(), dtype=tandem.float64, device=device)
    U, S, V = tandem.svd_lowrank(A, q=4)
    tU, tS, tV = torch.svd_lowrank(ref, q=4)
    assert U.shape == tU.shape and S.shape == tS.shape and V.shape == tV.shape
    assert U.device == A.device
    torch.testing.assert_close(torch.tensor(S.cpu().tolist(), dtype=torch.float64), tS, atol=1e-8, rtol=1e-8)
    back = U @ tandem.diag_embed(S) @ V.mT
    torch.testing.assert_close(torch.tensor(back.cpu().tolist(), dtype=torch.float64), ref, atol=1e-9, rtol=1e-9)


def test_pca_lowrank_matches_the_centered_svd(device):
    g = torch.Generator().manual_seed(1)
    ref = torch.randn(30, 2, generator=g, dtype=torch.float64) @ torch.randn(2, 5, generator=g, dtype=torch.float64)
    ref = ref + 4.0  # a mean that centering removes
    A = tandem.tensor(ref.tolist(), dtype=tandem.float64, device=device)
    U, S, V = tandem.pca_lowrank(A, q=3)
    tU, tS, tV = torch.pca_lowrank(ref, q=3)
    assert (U.shape, S.shape, V.shape) == (tU.shape, tS.shape, tV.shape) == ((30, 3), (3,), (5, 3))
    torch.testing.assert_close(torch.tensor(S.cpu().tolist(), dtype=torch.float64)[:2], tS[:2], atol=1e-8,
                               rtol=1e-8)
    assert tuple(tandem.pca_lowrank(A)[1].shape) == tuple(torch.pca_lowrank(ref)[1].shape) == (5,)
    for q, niter, msg in ((6, 2, r"q\(=6\) must be non-negative integer and not greater than min\(m, n\)=5"),
                          (2, -1, r"niter\(=-1\) must be non-negative integer")):
        with pytest.raises(ValueError, match=msg):
            tandem.pca_lowrank(A, q=q, niter=niter)
        with pytest.raises(ValueError, match=msg):
            torch.pca_lowrank(ref, q=q, niter=niter)
