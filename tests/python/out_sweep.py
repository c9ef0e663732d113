"""The functions of PyTorch's public namespaces that take out=, and a simple valid call of each, for the out=
sweep (test_out_arg_sweep.py).

The list comes from ATen's operator schemas (torch._C._jit_get_all_schemas()): every public op with an overload
that has keyword-only out arguments, mapped to its Python name (linalg_x -> linalg.x, special_x -> special.x,
fft_x -> fft.x). A call is built from the out overload's own arguments: a small tensor for each Tensor (its
shape and dtype chosen by the argument's name), a number, dim or size for the rest, defaults left out. CALLS
overrides the functions whose arguments that rule cannot guess; SKIP names the ones left out, each with why."""
import torch

TENSOR_NAMES = ("linalg.", "special.", "fft.")

# A well-conditioned symmetric positive-definite 3x3 matrix with entries in (0, 1): valid input for the
# elementwise functions with a (0, 1) domain (acos, atanh, logit, erfinv, ...) and for the decompositions.
SPD = [[0.9, 0.2, 0.1], [0.2, 0.8, 0.3], [0.1, 0.3, 0.7]]
INDEX = [[0, 1, 2], [2, 0, 1], [1, 2, 0]]
INTS = [[5, 3, 2], [7, 1, 4], [6, 9, 8]]
INTEGER_OPS = {"bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "bitwise_left_shift", "bitwise_right_shift",
               "gcd", "lcm", "bincount"}
RANDOM = {"bernoulli", "multinomial", "normal", "poisson", "rand", "rand_like", "randn", "randn_like", "randint",
          "randint_like", "randperm", "random", "binomial", "empty", "empty_like", "empty_strided"}


def public_name(aten_name):
    """torch's Python name of an ATen op, or None when it has none."""
    for prefix, module in (("linalg_", torch.linalg), ("special_", torch.special), ("fft_", torch.fft)):
        if aten_name.startswith(prefix):
            short = aten_name[len(prefix):]
            return f"{prefix[:-1]}.{short}" if hasattr(module, short) else None
    return aten_name if hasattr(torch, aten_name) and not aten_name.startswith("_") else None


def out_overloads():
    """{public name: [out-overload schemas]} for the ATen ops with keyword-only out arguments."""
    found = {}
    for schema in torch._C._jit_get_all_schemas():
        if not schema.name.startswith("aten::") or not any(a.is_out for a in schema.arguments):
            continue
        name = public_name(schema.name[len("aten::"):])
        if name:
            found.setdefault(name, []).append(schema)
    return found


def resolve(module, dotted):
    for part in dotted.split("."):
        module = getattr(module, part, None)
        if module is None:
            return None
    return module


def _tensor(name, fn):
    if fn in INTEGER_OPS:
        return torch.tensor(INTS)
    if name in ("index", "indices"):
        return torch.tensor(INDEX)
    if name == "mask":
        return torch.tensor(INDEX) > 0
    if name in ("vec", "vec1", "vec2", "tau", "boundaries", "weights", "bins"):
        return torch.tensor(SPD[0])
    if name in ("batch1", "batch2"):
        return torch.tensor([SPD, SPD])
    return torch.tensor(SPD)


def _value(arg, fn):
    """A value for one argument of an out overload, or ... for an argument to leave to its default."""
    kind, name = str(arg.type), arg.name
    if arg.has_default_value():
        return ...
    if kind == "Tensor" or kind == "Optional[Tensor]":
        return _tensor(name, fn)
    if kind == "List[Tensor]":
        return [torch.tensor(SPD), torch.tensor(SPD)]
    if kind in ("int", "SymInt"):
        return {"n": 2, "k": 1, "p": 2, "repeats": 2}.get(name, 1)
    if kind in ("List[int]", "List[SymInt]", "Optional[List[int]]"):
        return [3, 3] if name in ("size", "shape") else [1]
    if kind in ("number", "float", "Optional[number]", "Optional[float]"):
        return 0.5
    if kind == "bool":
        return True
    if kind == "str":
        return "sum"
    raise LookupError(f"no sample for {name}: {kind}")


def generic_call(fn, schema):
    """(args, kwargs) for `schema`'s non-out arguments, or None when one has no sample."""
    args, kwargs = [], {}
    try:
        for a in schema.arguments:
            if a.is_out:
                continue
            v = _value(a, fn)
            if v is ...:
                continue
            if a.kwarg_only:
                kwargs[a.name] = v
            else:
                if len(args) < len([b for b in schema.arguments if not b.kwarg_only and not b.is_out
                                    and schema.arguments.index(b) < schema.arguments.index(a)]):
                    return None  # a positional argument after a defaulted one: needs an override
                args.append(v)
    except LookupError:
        return None
    return args, kwargs


def _m():
    return torch.tensor(SPD)


# Calls the generic rule cannot build (name -> (args, kwargs)); torch tensors, converted for tandem.
CALLS = {
    "arange": ([5], {}), "linspace": ([0.0, 1.0, 5], {}), "logspace": ([0.0, 1.0, 5], {}),
    "zeros": ([[2, 3]], {}), "ones": ([[2, 3]], {}), "full": ([[2, 3], 1.5], {}), "eye": ([3], {}),
    "rand": ([[2, 3]], {}), "randn": ([[2, 3]], {}), "randint": ([10, [2, 3]], {}), "randperm": ([5], {}),
    "empty": ([[2, 3]], {}), "empty_permuted": ([[2, 3], [1, 0]], {}),
    "cat": ([[_m(), _m()]], {}), "concat": ([[_m(), _m()]], {}), "concatenate": ([[_m(), _m()]], {}),
    "stack": ([[_m(), _m()]], {}), "hstack": ([[_m(), _m()]], {}), "vstack": ([[_m(), _m()]], {}),
    "dstack": ([[_m(), _m()]], {}), "column_stack": ([[_m(), _m()]], {}), "row_stack": ([[_m(), _m()]], {}),
    "where": ([torch.tensor(INDEX) > 0, _m(), -_m()], {}),
    "clamp": ([_m(), 0.2, 0.5], {}), "clip": ([_m(), 0.2, 0.5], {}),
    "sort": ([_m()], {}), "topk": ([_m(), 2], {}), "kthvalue": ([_m(), 2], {}), "max": ([_m(), 1], {}),
    "min": ([_m(), 1], {}), "median": ([_m(), 1], {}), "nanmedian": ([_m(), 1], {}), "mode": ([_m(), 1], {}),
    "cummax": ([_m(), 1], {}), "cummin": ([_m(), 1], {}), "aminmax": ([_m()], {"dim": 1}),
    "sum": ([_m(), 1], {}), "mean": ([_m(), 1], {}), "prod": ([_m(), 1], {}), "nansum": ([_m(), 1], {}),
    "nanmean": ([_m(), 1], {}), "std": ([_m(), 1], {}), "var": ([_m(), 1], {}), "logsumexp": ([_m(), 1], {}),
    "argmax": ([_m(), 1], {}), "argmin": ([_m(), 1], {}), "amax": ([_m(), 1], {}), "amin": ([_m(), 1], {}),
    "all": ([_m() > 0.3, 1], {}), "any": ([_m() > 0.3, 1], {}), "count_nonzero": ([_m()], {}),
    "cumsum": ([_m(), 1], {}), "cumprod": ([_m(), 1], {}), "logcumsumexp": ([_m(), 1], {}),
    "norm": ([_m(), 2, 1], {}), "quantile": ([_m(), 0.5], {}), "nanquantile": ([_m(), 0.5], {}),
    "index_select": ([_m(), 1, torch.tensor([2, 0])], {}), "gather": ([_m(), 1, torch.tensor(INDEX)], {}),
    "take": ([_m(), torch.tensor([0, 4, 8])], {}), "take_along_dim": ([_m(), torch.tensor(INDEX), 1], {}),
    "masked_select": ([_m(), torch.tensor(INDEX) > 0], {}), "nonzero": ([torch.tensor(INDEX)], {}),
    "nonzero_static": ([torch.tensor(INDEX)], {"size": 4}),
    "matmul": ([_m(), _m()], {}), "mm": ([_m(), _m()], {}), "bmm": ([torch.tensor([SPD]), torch.tensor([SPD])], {}),
    "addmm": ([_m(), _m(), _m()], {}), "baddbmm": ([torch.tensor([SPD])] * 3, {}),
    "addbmm": ([_m(), torch.tensor([SPD]), torch.tensor([SPD])], {}), "addmv": ([_m()[0], _m(), _m()[0]], {}),
    "addr": ([_m(), _m()[0], _m()[1]], {}), "mv": ([_m(), _m()[0]], {}), "dot": ([_m()[0], _m()[1]], {}),
    "vdot": ([_m()[0], _m()[1]], {}), "outer": ([_m()[0], _m()[1]], {}), "ger": ([_m()[0], _m()[1]], {}),
    "inner": ([_m(), _m()], {}), "kron": ([_m(), _m()], {}), "tensordot": ([_m(), _m()], {}),
    "cross": ([_m(), _m()], {"dim": 1}), "chain_matmul": ([_m(), _m(), _m()], {}),
    "linalg.multi_dot": ([[_m(), _m(), _m()]], {}), "linalg.vecdot": ([_m(), _m()], {}),
    "linalg.solve_triangular": ([_m(), _m()], {"upper": True}), "linalg.householder_product": ([_m(), _m()[0]], {}),
    "linalg.matrix_power": ([_m(), 3], {}), "matrix_power": ([_m(), 3], {}),
    "diag": ([_m()], {}), "diag_embed": ([_m()], {}), "tril": ([_m()], {}), "triu": ([_m()], {}),
    "diff": ([_m()], {}), "flip": ([_m(), [0]], {}), "roll": ([_m(), 1, 0], {}), "rot90": ([_m()], {}),
    "squeeze": ([_m()[None]], {}), "unsqueeze": ([_m(), 0], {}), "histc": ([_m()], {"bins": 4}),
    "searchsorted": ([torch.tensor([0.1, 0.5, 0.9]), _m()], {}),
    "bucketize": ([_m(), torch.tensor([0.1, 0.5, 0.9])], {}),
    "polygamma": ([1, _m()], {}), "special.polygamma": ([1, _m()], {}), "mvlgamma": ([_m() + 1, 1], {}),
    "special.multigammaln": ([_m() + 1, 1], {}), "lerp": ([_m(), -_m(), 0.5], {}),
    "addcmul": ([_m(), _m(), _m()], {}), "addcdiv": ([_m(), _m(), _m()], {}),
    "nan_to_num": ([_m()], {}), "renorm": ([_m(), 2, 0, 1.0], {}), "dist": ([_m(), -_m()], {}),
    "float_power": ([_m(), 2], {}), "pow": ([_m(), 2], {}), "frexp": ([_m()], {}), "ldexp": ([_m(), _m()], {}),
    "msort": ([_m()], {}), "argsort": ([_m()], {"stable": True}), "trace": ([_m()], {}),
    "complex": ([_m(), -_m()], {}), "polar": ([_m(), -_m()], {}),
    "linalg.lu_solve": ([*torch.linalg.lu_factor(torch.tensor(SPD)), _m()], {}),
    "lu_solve": ([_m(), *torch.linalg.lu_factor(torch.tensor(SPD))], {}),
    "linalg.ldl_solve": ([*torch.linalg.ldl_factor(torch.tensor(SPD)), _m()], {}),
    "cholesky_solve": ([_m(), torch.linalg.cholesky(torch.tensor(SPD))], {}),
    "triangular_solve": ([_m(), _m()], {}), "ormqr": ([_m(), _m()[0], _m()], {}), "orgqr": ([_m(), _m()[0]], {}),
    "linalg.tensorsolve": ([_m(), _m()[0]], {}), "linalg.tensorinv": ([_m()], {"ind": 1}),
    "repeat_interleave": ([torch.tensor([1, 2])], {}), "block_diag": ([_m(), _m()], {}),
    "fft.fftfreq": ([5], {}), "fft.rfftfreq": ([5], {}), "isin": ([_m(), _m()[0]], {}),
    "tril_indices": ([3, 3], {}), "triu_indices": ([3, 3], {}), "bincount": ([torch.tensor([1, 2, 2, 0])], {}),
    "heaviside": ([_m() - 0.5, _m()], {}), "xlogy": ([_m(), _m()], {}), "special.xlogy": ([_m(), _m()], {}),
    "special.xlog1py": ([_m(), _m()], {}), "special.zeta": ([_m() + 1, _m()], {}),
    "histogram": ([_m()], {"bins": 4}), "logit": ([_m()], {}), "special.logit": ([_m()], {}),
    "linalg.cond": ([_m()], {}), "linalg.matrix_rank": ([_m()], {}), "linalg.pinv": ([_m()], {}),
    "linalg.norm": ([_m()], {}), "linalg.vector_norm": ([_m()], {}), "linalg.matrix_norm": ([_m()], {}),
    "nuclear_norm": ([_m()], {}), "frobenius_norm": ([_m(), [0, 1]], {}), "linalg.cross": ([_m(), _m()], {}),
    "index_add": ([_m(), 0, torch.tensor([2, 0, 1]), _m()], {}),
    "index_copy": ([_m(), 0, torch.tensor([2, 0, 1]), _m()], {}),
    "index_fill": ([_m(), 0, torch.tensor([2, 0]), 0.5], {}), "masked_fill": ([_m(), torch.tensor(INDEX) > 0, 0.5], {}),
    "scatter": ([_m(), 1, torch.tensor(INDEX), -_m()], {}), "scatter_add": ([_m(), 1, torch.tensor(INDEX), -_m()], {}),
    "scatter_reduce": ([_m(), 1, torch.tensor(INDEX), -_m(), "sum"], {}),
    "narrow_copy": ([_m(), 0, 1, 2], {}), "select_copy": ([_m(), 0, 1], {}), "slice_copy": ([_m()], {}),
    "unsqueeze_copy": ([_m(), 0], {}), "squeeze_copy": ([_m()[None]], {}), "permute_copy": ([_m(), [1, 0]], {}),
    "transpose_copy": ([_m(), 0, 1], {}), "t_copy": ([_m()], {}), "expand_copy": ([_m()[0], [2, 3]], {}),
    "view_copy": ([_m(), [9]], {}), "diagonal_copy": ([_m()], {}), "alias_copy": ([_m()], {}),
    "view_as_real_copy": ([torch.complex(_m(), -_m())], {}), "view_as_complex_copy": ([_m()[:, :2].contiguous()], {}),
    "detach_copy": ([_m()], {}), "as_strided_copy": ([_m(), [2, 2], [1, 2]], {}), "unfold_copy": ([_m(), 0, 2, 1], {}),
    "clone": ([_m()], {}), "threshold": ([_m(), 0.5, 0.0], {}), "hardshrink": ([_m() - 0.5], {}),
    "softmax": ([_m(), 1], {}), "log_softmax": ([_m(), 1], {}), "constant_pad_nd": ([_m(), [1, 1]], {}),
    "fill": ([_m(), 0.5], {}), "full_like": ([_m(), 0.5], {}), "zeros_like": ([_m()], {}), "ones_like": ([_m()], {}),
    "scalar_tensor": ([1.5], {}), "rsub": ([_m(), _m()], {}), "floor_divide": ([_m(), 0.3], {}),
    "true_divide": ([_m(), _m()], {}), "remainder": ([_m(), 0.3], {}), "fmod": ([_m(), 0.3], {}),
    "embedding": ([_m(), torch.tensor([0, 2])], {}), "pixel_shuffle": ([torch.rand(1, 4, 2, 2), 2], {}),
    "pixel_unshuffle": ([torch.rand(1, 1, 4, 4), 2], {}), "channel_shuffle": ([torch.rand(1, 4, 2, 2), 2], {}),
    "celu": ([_m()], {}), "relu": ([_m() - 0.5], {}), "logaddexp": ([_m(), _m()], {}),
    "hamming_window": ([5], {}), "hann_window": ([5], {}), "bartlett_window": ([5], {}), "blackman_window": ([5], {}),
    "kaiser_window": ([5], {}), "range": ([0.0, 4.0], {}), "native_layer_norm": ([_m(), [3], None, None, 1e-5], {}),
    "as_strided_scatter": ([_m(), torch.ones(2, 2), [2, 2], [1, 2]], {}),
    "diagonal_scatter": ([_m(), torch.ones(3)], {}), "select_scatter": ([_m(), torch.ones(3), 0, 1], {}),
    "slice_scatter": ([_m(), torch.ones(1, 3)], {"start": 1, "end": 2}),
    "empty_strided": ([[2, 3], [3, 1]], {}), "index_reduce": ([_m(), 0, torch.tensor([2, 0, 1]), _m(), "prod"], {}),
    "lu_unpack": ([*torch.linalg.lu_factor(torch.tensor(SPD))], {}),
    "index_put": ([_m(), (torch.tensor([0, 2]),), torch.tensor(0.5)], {}),
    "linalg.lstsq": ([_m(), _m()], {"driver": "gels"}),  # the driver both devices have
    "affine_grid_generator": ([torch.rand(1, 2, 3), [1, 1, 2, 2], False], {}),
    "batch_norm_update_stats": ([torch.rand(2, 3, 4, 4), torch.zeros(3), torch.ones(3), 0.1], {}),
    "conv_tbc": ([torch.rand(5, 2, 3), torch.rand(2, 3, 4), torch.rand(4)], {}),
    "convolution": ([torch.rand(2, 3, 4, 4), torch.rand(2, 3, 3, 3), None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1],
                    {}),
    "grid_sampler_2d": ([torch.rand(2, 3, 4, 4), torch.rand(2, 3, 3, 2) * 2 - 1, 0, 0, False], {}),
    "grid_sampler_3d": ([torch.rand(1, 2, 3, 3, 3), torch.rand(1, 2, 2, 2, 3) * 2 - 1, 0, 0, False], {}),
    "linalg.matrix_sqrth": ([_m()], {}),
    "native_batch_norm": ([torch.rand(2, 3, 4, 4), None, None, torch.zeros(3), torch.ones(3), True, 0.1, 1e-5], {}),
    "native_dropout": ([_m(), 0.0, True], {}),
    "native_group_norm": ([torch.rand(2, 3, 4, 4), None, None, 2, 3, 16, 1, 1e-5], {}),
    "segment_reduce": ([torch.arange(6.0), "sum"], {"lengths": torch.tensor([2, 4])}),
}

# PyTorch's Python functions that take no out= although ATen has an out overload (the out overload serves
# torch.compile and C++ only): checked by test_pytorch_takes_no_out_there.
NO_PYTHON_OUT = frozenset("""
adaptive_avg_pool1d avg_pool1d bartlett_window binary_cross_entropy_with_logits bincount binomial blackman_window
block_diag celu channel_shuffle clone constant_pad_nd count_nonzero diag_embed dist embedding empty_like fill flip
from_file full_like hamming_window hann_window index_fill index_put isinf isnan kaiser_window linalg.matrix_exp
masked_fill masked_scatter ones_like pixel_shuffle pixel_unshuffle poisson put rand_like randint_like randn_like relu
repeat_interleave roll rot90 rsub scalar_tensor std_mean trace tril_indices triu_indices unique_consecutive
unsafe_split var_mean zeros_like sparse_coo_tensor as_strided_scatter diagonal_scatter select_scatter empty_strided
empty_permuted histogramdd native_layer_norm affine_grid_generator batch_norm_update_stats conv_tbc convolution
grid_sampler_2d grid_sampler_3d linalg.matrix_sqrth native_dropout native_group_norm segment_reduce
""".split())

# Functions with out= in PyTorch that the sweep does not compare, and why.
SKIP = {
    "random": "torch.random is a module in Python; Tensor.random_ is the function",
    "split_copy": "PyTorch's out= list is not resized (outs must already have the pieces' shapes)",
    "split_with_sizes_copy": "PyTorch's out= list is not resized (outs must already have the pieces' shapes)",
    "unsafe_split_with_sizes": "PyTorch's out= list is not resized (outs must already have the pieces' shapes)",
    "batch_norm_stats": "PyTorch runs it on CUDA only (the SyncBatchNorm pieces): no CPU oracle for its out=",
    "batch_norm_elemt": "PyTorch runs it on CUDA only (the SyncBatchNorm pieces): no CPU oracle for its out=",
    "batch_norm_gather_stats": "PyTorch runs it on CUDA only (the SyncBatchNorm pieces): no CPU oracle for its out=",
    "batch_norm_gather_stats_with_counts": "PyTorch runs it on CUDA only (the SyncBatchNorm pieces): no CPU oracle for its out=",
    "batch_norm_backward_reduce": "PyTorch runs it on CUDA only (the SyncBatchNorm pieces): no CPU oracle for its out=",
    "batch_norm_backward_elemt": "PyTorch runs it on CUDA only (the SyncBatchNorm pieces): no CPU oracle for its out=",
    "hspmm": "a sparse operand and a sparse result (program sweep 11): the sweep's calls and outs are strided, and "
             "tandem's hspmm takes no out=",
}

# Where an out one size wider than the result (float64 for float32) gets another answer than PyTorch's, and why
# (test_wider_out_matches_pytorch; docs/compat.md).
WIDER_OUT_DIFFERENCES = {
    "fft.ifft": "tandem.fft casts into a wider complex out; PyTorch's c2c transforms refuse it",
    "fft.ihfft": "tandem.fft casts into a wider complex out; PyTorch's c2c transforms refuse it",
    "heaviside": "tandem's op list casts the result into out; PyTorch refuses operands and out of mixed dtypes",
    "median": "PyTorch's message names legacy tensor types (torch.DoubleTensor); tandem casts into the out",
    "nanmedian": "PyTorch's message names legacy tensor types (torch.DoubleTensor); tandem casts into the out",
}
