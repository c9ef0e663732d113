"""Joining, splitting, tiling and reordering as a matrix, beyond shape_ops.py, empty_degenerate.py and
array_api_matrix.py (one case per hostile value there): cat/concat/concatenate, stack, hstack, vstack, dstack,
column_stack with partners of another dtype, rank, shape or device kind and dims past the rank; split (an int, a
list that does not sum, a 0 size, a negative size), chunk (0, negative, more chunks than rows), tensor_split (an int,
a list, a tensor of indices, a float), hsplit/vsplit/dsplit (not dividing, low rank), unbind, tile, repeat (fewer
sizes than dims, negatives, zeros), repeat_interleave (an int, a tensor of repeats, negatives, a mismatched length,
output_size), roll (shifts without dims, mismatched lengths, dims past the rank, huge shifts), flip/fliplr/flipud
(repeated and past dims), rot90 (k of 0..5 and negative, repeated dims, one dim) and movedim-free reorderings;
crossed with one list of inputs: (2, 3), (2, 3, 4), a transposed view, an expanded (stride 0) view, a strided
slice, (0, 3), (2, 0, 4), 0-d, 1-d, int64, bool and complex."""
from . import R, T

INPUTS = {
    "c23": lambda L, d: R(L, (2, 3), d, "float32"),
    "c234": lambda L, d: R(L, (2, 3, 4), d, "float32"),
    "transposed": lambda L, d: R(L, (2, 3), d, "float32").t(),
    "expanded": lambda L, d: R(L, (1, 3), d, "float32").expand(2, 3),
    "sliced": lambda L, d: R(L, (2, 6), d, "float32")[:, ::2],
    "zero": lambda L, d: L.empty(0, 3, device=d),
    "zero_mid": lambda L, d: L.empty(2, 0, 4, device=d),
    "scalar": lambda L, d: T(L, 1.5, d),
    "vec": lambda L, d: R(L, (5,), d, "float32"),
    "i64": lambda L, d: T(L, [[1, -2, 3], [4, 5, -6]], d, "int64"),
    "bool": lambda L, d: T(L, [[True, False, True], [False, True, True]], d, "bool"),
    "c64": lambda L, d: R(L, (2, 3), d, "float32").to(L.complex64) * (1 + 2j),
}


def _like(L, x, dtype):
    return x.to(getattr(L, dtype))


OPS = {
    # joins
    "cat_self": lambda L, x: L.cat([x, x]),
    "cat_self_last": lambda L, x: L.cat((x, x), -1),
    "cat_dim_past": lambda L, x: L.cat([x, x], dim=3),
    "cat_f64": lambda L, x: L.cat([x, _like(L, x, "float64")]),
    "cat_i32": lambda L, x: L.cat([x, _like(L, x, "int32")], 0),
    "cat_bool": lambda L, x: L.cat([_like(L, x, "bool"), x]),
    "cat_row": lambda L, x: L.cat([x, L.ones(1, 3, device=x.device, dtype=x.dtype)]),
    "cat_1d_empty": lambda L, x: L.cat([x, L.empty(0, device=x.device)]),
    "cat_2d_empty": lambda L, x: L.cat([L.empty(0, 3, device=x.device), x]),
    "cat_scalar_partner": lambda L, x: L.cat([x, L.tensor(1.0, device=x.device)]),
    "cat_tensor_arg": lambda L, x: L.cat(x),
    "cat_out_f64": lambda L, x: L.cat([x, x], out=L.empty(0, device=x.device, dtype=L.float64)),
    "cat_out_int": lambda L, x: L.cat([x, x], out=L.empty(0, device=x.device, dtype=L.int64)),
    "cat_out_self": lambda L, x: L.cat([x, x], out=x),
    "concat_str_dim": lambda L, x: L.concat([x, x], "a"),
    "concatenate_axis": lambda L, x: L.concatenate([x, x], axis=-1),
    "stack": lambda L, x: L.stack([x, x]),
    "stack_last": lambda L, x: L.stack([x, x], dim=-1),
    "stack_end": lambda L, x: L.stack([x, x], dim=x.dim()),
    "stack_past": lambda L, x: L.stack([x, x], dim=x.dim() + 1),
    "stack_neg_past": lambda L, x: L.stack([x, x], dim=-x.dim() - 2),
    "stack_f64": lambda L, x: L.stack([x, _like(L, x, "float64")]),
    "stack_transposed_partner": lambda L, x: L.stack([x, x.mT if x.dim() >= 2 else x]),
    "stack_empty_list": lambda L, x: L.stack([]),
    "stack_single": lambda L, x: L.stack((x,), 0),
    "stack_out_f64": lambda L, x: L.stack([x, x], out=L.empty(0, device=x.device, dtype=L.float64)),
    "hstack": lambda L, x: L.hstack([x, x]),
    "hstack_f64": lambda L, x: L.hstack([x, _like(L, x, "float64")]),
    "hstack_vec": lambda L, x: L.hstack([x, L.ones(2, device=x.device)]),
    "vstack": lambda L, x: L.vstack([x, x]),
    "vstack_vec": lambda L, x: L.vstack([x, L.ones(3, device=x.device)]),
    "dstack": lambda L, x: L.dstack([x, x]),
    "dstack_i32": lambda L, x: L.dstack([x, _like(L, x, "int32")]),
    "column_stack": lambda L, x: L.column_stack([x, x]),
    "column_stack_vec": lambda L, x: L.column_stack([x, L.ones(2, device=x.device)]),
    "row_stack": lambda L, x: L.row_stack((x, x)),
    # splits
    "split_1": lambda L, x: L.split(x, 1),
    "split_2_last": lambda L, x: x.split(2, -1),
    "split_0": lambda L, x: x.split(0),
    "split_negative": lambda L, x: x.split(-1),
    "split_list": lambda L, x: x.split([1, 1]),
    "split_list_short": lambda L, x: x.split([1]),
    "split_list_negative": lambda L, x: x.split([3, -1]),
    "split_list_zero": lambda L, x: x.split([0, 2]),
    "split_dim_past": lambda L, x: x.split(1, 4),
    "split_float": lambda L, x: x.split(1.0),
    "split_with_sizes": lambda L, x: x.split_with_sizes([1, 1]),
    "chunk_2": lambda L, x: x.chunk(2),
    "chunk_5": lambda L, x: L.chunk(x, 5, -1),
    "chunk_0": lambda L, x: x.chunk(0),
    "chunk_negative": lambda L, x: x.chunk(-2),
    "chunk_dim_past": lambda L, x: x.chunk(2, 3),
    "chunk_float": lambda L, x: x.chunk(2.0),
    "tensor_split_3": lambda L, x: L.tensor_split(x, 3),
    "tensor_split_0": lambda L, x: L.tensor_split(x, 0),
    "tensor_split_list": lambda L, x: x.tensor_split([1, 5], dim=-1),
    "tensor_split_decreasing": lambda L, x: x.tensor_split([2, 1]),
    "tensor_split_negative": lambda L, x: x.tensor_split([-1]),
    "tensor_split_tensor_int": lambda L, x: x.tensor_split(L.tensor(2)),
    "tensor_split_tensor_list": lambda L, x: x.tensor_split(L.tensor([1])),
    "tensor_split_tensor_float": lambda L, x: x.tensor_split(L.tensor([1.0])),
    "tensor_split_tensor_2d": lambda L, x: x.tensor_split(L.tensor([[1]])),
    "tensor_split_float": lambda L, x: x.tensor_split(2.0),
    "tensor_split_dim_past": lambda L, x: x.tensor_split(2, 4),
    "hsplit_2": lambda L, x: L.hsplit(x, 2),
    "hsplit_3": lambda L, x: x.hsplit(3),
    "hsplit_list": lambda L, x: x.hsplit([1]),
    "hsplit_0": lambda L, x: x.hsplit(0),
    "vsplit_2": lambda L, x: L.vsplit(x, 2),
    "vsplit_list": lambda L, x: x.vsplit([1, 1]),
    "dsplit_2": lambda L, x: L.dsplit(x, 2),
    "dsplit_list": lambda L, x: x.dsplit([1]),
    "unbind": lambda L, x: x.unbind(),
    "unbind_last": lambda L, x: L.unbind(x, -1),
    "unbind_past": lambda L, x: x.unbind(3),
    # tile / repeat
    "tile_2": lambda L, x: x.tile((2,)),
    "tile_2_2_2": lambda L, x: L.tile(x, (2, 2, 2)),
    "tile_0": lambda L, x: x.tile((0, 1)),
    "tile_negative": lambda L, x: x.tile((-1,)),
    "tile_empty": lambda L, x: x.tile(()),
    "tile_float": lambda L, x: x.tile((2.0,)),
    "tile_int": lambda L, x: L.tile(x, 2),
    "repeat_2_1": lambda L, x: x.repeat(2, 1),
    "repeat_fewer": lambda L, x: x.repeat(2),
    "repeat_3d": lambda L, x: x.repeat(1, 2, 1),
    "repeat_0": lambda L, x: x.repeat(0, 1),
    "repeat_negative": lambda L, x: x.repeat(-1, 1),
    "repeat_empty": lambda L, x: x.repeat(()),
    "repeat_tuple": lambda L, x: x.repeat((1, 2, 1, 1)),
    "repeat_interleave_2": lambda L, x: x.repeat_interleave(2),
    "repeat_interleave_dim": lambda L, x: L.repeat_interleave(x, 2, dim=-1),
    "repeat_interleave_0": lambda L, x: x.repeat_interleave(0, dim=0),
    "repeat_interleave_negative": lambda L, x: x.repeat_interleave(-1),
    "repeat_interleave_tensor": lambda L, x: x.repeat_interleave(L.tensor([1, 2]), dim=0),
    "repeat_interleave_tensor_short": lambda L, x: x.repeat_interleave(L.tensor([1, 2, 3]), dim=0),
    "repeat_interleave_tensor_negative": lambda L, x: x.repeat_interleave(L.tensor([1, -1]), dim=0),
    "repeat_interleave_tensor_float": lambda L, x: x.repeat_interleave(L.tensor([1.0, 2.0]), dim=0),
    "repeat_interleave_tensor_0d": lambda L, x: x.repeat_interleave(L.tensor(2)),
    "repeat_interleave_output_size": lambda L, x: x.repeat_interleave(2, dim=0, output_size=4),
    "repeat_interleave_output_size_wrong": lambda L, x: x.repeat_interleave(L.tensor([1, 2]), dim=0,
                                                                            output_size=5),
    "repeat_interleave_dim_past": lambda L, x: x.repeat_interleave(2, dim=3),
    "repeat_interleave_float": lambda L, x: x.repeat_interleave(2.0),
    # roll / flip / rot90
    "roll_1": lambda L, x: x.roll(1),
    "roll_dim": lambda L, x: L.roll(x, -1, 0),
    "roll_tuple": lambda L, x: x.roll((1, 1), (0, -1)),
    "roll_mismatch": lambda L, x: x.roll((1, 2), (0,)),
    "roll_tuple_no_dims": lambda L, x: x.roll((1, 2)),
    "roll_dim_past": lambda L, x: x.roll(1, 4),
    "roll_huge": lambda L, x: x.roll(2**62, 0),
    "roll_empty_shifts": lambda L, x: x.roll((), ()),
    "roll_float": lambda L, x: x.roll(1.0),
    "flip_0": lambda L, x: x.flip(0),
    "flip_all": lambda L, x: L.flip(x, list(range(x.dim()))),
    "flip_repeated": lambda L, x: x.flip((0, 0)),
    "flip_past": lambda L, x: x.flip(4),
    "flip_empty": lambda L, x: x.flip(()),
    "fliplr": lambda L, x: L.fliplr(x),
    "flipud": lambda L, x: x.flipud(),
    "rot90": lambda L, x: x.rot90(),
    "rot90_2": lambda L, x: L.rot90(x, 2),
    "rot90_3": lambda L, x: L.rot90(x, 3, (0, 1)),
    "rot90_5": lambda L, x: L.rot90(x, 5),
    "rot90_negative": lambda L, x: L.rot90(x, -1, [1, 0]),
    "rot90_same_dims": lambda L, x: L.rot90(x, 1, (0, 0)),
    "rot90_one_dim": lambda L, x: L.rot90(x, 1, (0,)),
    "rot90_dims_past": lambda L, x: L.rot90(x, 1, (0, 4)),
    "rot90_float_k": lambda L, x: L.rot90(x, 1.0),
}

CASES = {}
for _op, _fn in OPS.items():
    for _i, _x in INPUTS.items():
        CASES[f"{_op}/{_i}"] = lambda L, d, fn=_fn, x=_x: fn(L, x(L, d))

_CAT_OVERLAP = ("C++ (src/ops/join.cpp, cat's out= check): PyTorch refuses an out= that is one of the inputs with "
                "\"some elements of the input tensor and the written-to tensor refer to a single memory location\" "
                "before anything else, also when it is empty; tandem writes an empty one and names an expanded one's "
                "internal overlap first")
_UNBIND_0D = ("fixed in C++ in session 48 (src/ops/view.cpp, unbind): a 0-d input is PyTorch's maybe_wrap_dim with the scalar wrap, then "
              "size(): unbind(-1) says \"Dimension specified as 0 but tensor has no dimensions\", unbind(3) the range "
              "error for [-1, 0]; tandem names the dim as given")
KNOWN = {f"cat_out_self/{i}": _CAT_OVERLAP for i in ("expanded", "zero", "zero_mid")}
KNOWN.update({f"{op}/scalar": _UNBIND_0D for op in ("unbind_last", "unbind_past")})

# Fixed in C++ in session 48 (tests/python/test_hostile_inputs22.py, test_fixed_in_cpp): unbind of a 0-d input wraps
# its dim as PyTorch's maybe_wrap_dim does (the reason above that starts "fixed in C++").
CPP_FIXED = [name for name, reason in KNOWN.items() if reason is _UNBIND_0D]
KNOWN = {name: reason for name, reason in KNOWN.items() if reason is not _UNBIND_0D}
