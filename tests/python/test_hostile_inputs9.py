"""Regression tests for what the ninth round of the differential hostile-input harness (fuzz/hostile_diff.py, the
layouts_strides, attention, parametrizations, sparse_ops2, export_fx_jit and distributed_single tables) found and
fixed in tandem's Python layer: one case per finding, taken by name from the harness's own tables (so the test runs
the expression the harness ran) and run with PyTorch (the oracle, on the CPU) and tandem on every device. Where
PyTorch raises, tandem raises the same exception type with PyTorch's first line (type only where PyTorch's line
goes on to list its dispatch keys); where PyTorch returns, tandem returns the same values, dtype, shape and, for
the layout cases, strides. Findings whose cause is in C++ stay in the tables' KNOWN entries ("needs C++")."""
import os
import sys

import pytest

pytest.importorskip("torch")

from hostile_helpers import assert_matches_pytorch  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "fuzz"))
from hostile_cases import (attention, distributed_single, export_fx_jit, layouts_strides,  # noqa: E402
                           sparse_ops2)

# (table, case, compare PyTorch's first line too)
FIXED = [(layouts_strides, name, True) for name in (
    "conv3d/cl3_input", "conv_transpose2d/cl_input", "conv_transpose3d/cl3_input", "conv1d/transposed_input",
    "max_pool3d/cl3", "max_pool3d/cl3_indices", "adaptive_max_pool2d/cl_indices", "interpolate/cl_nearest",
    "interpolate/cl_bilinear", "interpolate/cl3_trilinear", "group_norm/cl", "pad/cl_constant", "pad/cl_reflect",
    "pixel_shuffle/cl", "pixel_unshuffle/cl", "channel_shuffle/cl", "roll/cl")]
FIXED += [(attention, name, True) for name in (
    "causal/int_flag", "causal/none_flag", "causal/numpy_bool", "sdpa/scale_string", "sdpa/dropout_string",
    "sdpa/query_list", "sdpa/gqa_none", "mask/list", "mask/0dim", "mask/1d", "sdpa/dropout_negative",
    "sdpa/int_inputs", "sdpa/scale_tensor", "mha/empty_sequence")]
FIXED += [(sparse_ops2, name, True) for name in (
    "cat/empty_nnz", "coalesce/empty", "softmax/empty", "sum/empty", "hspmm/3d", "smm/3d", "sum/dense_input_no_dim",
    "bmm/dense_sparse", "sparse_mask/sparse_self", "mul/sparse_dense_shape_mismatch")]
FIXED += [(sparse_ops2, name, False) for name in (
    "cat/dense_then_sparse", "hspmm/dense_first", "sum/dense_input", "softmax/dense_input", "log_softmax/dense_input")]
FIXED += [(export_fx_jit, name, True) for name in (
    "export/args_not_tuple", "export/kwargs_not_dict", "export/dim_name_not_str", "export/dims_helper",
    "export/dynamic_string", "export/dynamic_not_dim", "export/dynamic_dim_out_of_range", "export/dynamic_wrong_name",
    "export/python_flag_true", "export/python_flag_changed", "export/call_non_tensor", "export/load_garbage",
    "jit/trace_non_tensor_output", "jit/trace_dict_output", "jit/trace_int_input", "jit/freeze_unscripted",
    "jit/freeze_training", "jit/save_plain_module", "jit/load_missing", "jit/load_directory")]
FIXED += [(export_fx_jit, "export/data_dependent_branch", False)]
FIXED += [(distributed_single, name, True) for name in (
    "init/store_and_init_method", "init/bad_init_method", "init/bad_backend", "init/timeout_not_timedelta",
    "backend/not_str", "broadcast/src_out_of_range", "broadcast/src_negative", "reduce/dst_out_of_range",
    "broadcast_object_list/src_out_of_range", "gather/list_too_long", "scatter/list_too_long",
    "all_gather/list_too_long", "all_gather/list_empty", "all_gather/not_a_list", "all_to_all_single/bad_split",
    "all_gather_object/list_too_short", "get_global_rank/out_of_range", "get_group_rank/out_of_range")]
FIXED += [(distributed_single, name, False) for name in ("init/negative_world", "init/rank_past_world")]

CASES = {f"{table.__name__.rsplit('.', 1)[1]}/{name}": (getattr(table.CASES[name], "fn", table.CASES[name]),
                                                        first_line)
         for table, name, first_line in FIXED}


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_input_matches_pytorch(name, device):
    case, first_line = CASES[name]
    if name.startswith("distributed_single/") and device != "cpu":
        pytest.skip("the process-group cases hold CPU tensors: one device is enough")
    assert_matches_pytorch(case, device, first_line=first_line)


def test_follow_input_layout_leaves_row_major_and_non_image_inputs_alone():
    import tandem
    from tandem._layouts import follow_input_layout

    out = tandem.ones(2, 3, 4, 5)
    assert follow_input_layout(out, tandem.ones(2, 3, 4, 5)) is out  # a row-major input: nothing to follow
    assert follow_input_layout(out, tandem.ones(2, 3, 20)) is out  # no channels-last form for 3-d
    cl_input = tandem.ones(2, 3, 4, 5).contiguous(memory_format=tandem.channels_last)
    assert follow_input_layout(out, cl_input).stride() == (60, 1, 15, 3)
    # only inputs of the result's rank count (a 3-d op's unbatched 4-d input is not channels-last)
    assert follow_input_layout(tandem.ones(1, 2, 3, 4, 5), cl_input).stride() == (120, 60, 20, 5, 1)
