"""out= on the functions that take it, with hostile out tensors (beyond the valid calls of
tests/python/test_out_arg_sweep.py and the overlap cases of inplace_aliasing.py): an out of a dtype the result
cannot be cast to ("result type Float can't be cast to the desired output type Long") or of a wider/narrower one
that PyTorch accepts, a non-empty out of the wrong shape (resized, with a warning the harness does not compare),
non-contiguous, transposed and expanded outs, an out that is the input or overlaps it partially, an out that
requires grad (under grad mode and under no_grad), out= as a list or a tuple of the wrong length for the functions
with two results (sort, topk, max(dim), kthvalue, ...), out= given positionally, and the factories' out= with a
conflicting dtype=. Each case returns what the out tensor holds afterwards and whether the function returned it."""
from . import R, T, Case


def x(L, d, shape=(2, 3), dtype="float32"):
    return R(L, shape, d, dtype)


def z(L, d, shape=(2, 3), dtype="float32"):
    return L.zeros(shape, device=d, dtype=getattr(L, dtype))


def E(L, d, dtype="float32"):
    return L.empty(0, device=d, dtype=getattr(L, dtype))


def into(fn, out):
    """Calls fn(out) and returns (whether it returned out itself, out's contents)."""
    r = fn(out)
    if isinstance(out, (tuple, list)):
        return tuple(a is b for a, b in zip(r, out)), tuple(out)
    return r is out, out


def _grad_out(L, d, fn, shape=(2, 3)):
    return fn(z(L, d, shape).requires_grad_())


def _no_grad(L, fn):
    with L.no_grad():
        return fn()


CASES = {
    # ---- dtype of out: promotion into the out's dtype (PyTorch's canCast: no float into an integer, no complex
    # into a real, anything into complex or a wider float)
    "add/out_long_of_float": lambda L, d: L.add(x(L, d), x(L, d), out=z(L, d, dtype="int64")),
    "add/out_int32_of_int64_ok": lambda L, d: into(lambda o: L.add(T(L, [1, 2], d), T(L, [3, 4], d), out=o),
                                                   z(L, d, (2,), "int32")),
    "add/out_float64_of_float32_ok": lambda L, d: into(lambda o: L.add(x(L, d), 1, out=o), z(L, d, dtype="float64")),
    "add/out_float16_of_float32_ok": lambda L, d: into(lambda o: L.add(x(L, d), 1, out=o), z(L, d, dtype="float16")),
    "add/out_complex_of_float_ok": lambda L, d: into(lambda o: L.add(x(L, d), 1, out=o), z(L, d, dtype="complex64")),
    "add/out_float_of_complex": lambda L, d: L.add(T(L, [1j, 2], d), 1, out=z(L, d, (2,))),
    "add/out_bool_of_int": lambda L, d: L.add(T(L, [1, 2], d), 1, out=z(L, d, (2,), "bool")),
    "mul/out_uint8_of_int64": lambda L, d: into(lambda o: L.mul(T(L, [100, 3], d), 3, out=o), z(L, d, (2,), "uint8")),
    "sub/out_int_of_float_scalar": lambda L, d: L.sub(T(L, [1, 2], d), 0.5, out=z(L, d, (2,), "int64")),
    "div/out_long_true_division": lambda L, d: L.div(T(L, [3, 4], d), T(L, [2, 2], d), out=z(L, d, (2,), "int64")),
    "div/out_long_floor_ok": lambda L, d: into(lambda o: L.div(T(L, [3, 4], d), T(L, [2, 2], d),
                                                               rounding_mode="floor", out=o), z(L, d, (2,), "int64")),
    "true_divide/out_int": lambda L, d: L.true_divide(T(L, [3, 4], d), 2, out=z(L, d, (2,), "int32")),
    "exp/out_long": lambda L, d: L.exp(x(L, d), out=z(L, d, dtype="int64")),
    "exp/out_of_int_input_long": lambda L, d: L.exp(T(L, [1, 2], d), out=z(L, d, (2,), "int64")),
    "exp/out_of_int_input_float64_ok": lambda L, d: into(lambda o: L.exp(T(L, [1, 2], d), out=o),
                                                         z(L, d, (2,), "float64")),
    "sqrt/out_bool": lambda L, d: L.sqrt(x(L, d).abs(), out=z(L, d, dtype="bool")),
    "abs/out_int_of_float": lambda L, d: L.abs(x(L, d), out=z(L, d, dtype="int32")),
    "abs/out_float_of_complex_ok": lambda L, d: into(lambda o: L.abs(T(L, [3 + 4j, 1j], d), out=o), z(L, d, (2,))),
    "neg/out_float_of_int_ok": lambda L, d: into(lambda o: L.neg(T(L, [1, -2], d), out=o), z(L, d, (2,))),
    "floor/out_long": lambda L, d: L.floor(x(L, d), out=z(L, d, dtype="int64")),
    "sign/out_int_of_float": lambda L, d: L.sign(x(L, d), out=z(L, d, dtype="int64")),
    "eq/out_float_ok": lambda L, d: into(lambda o: L.eq(x(L, d), x(L, d), out=o), z(L, d)),
    "eq/out_int_ok": lambda L, d: into(lambda o: L.lt(x(L, d), 0, out=o), z(L, d, dtype="int64")),
    "logical_and/out_float_ok": lambda L, d: into(lambda o: L.logical_and(x(L, d), x(L, d) > 0, out=o), z(L, d)),
    "bitwise_and/out_float": lambda L, d: L.bitwise_and(T(L, [3, 5], d), T(L, [1, 4], d), out=z(L, d, (2,))),
    "sum/out_long_of_float": lambda L, d: L.sum(x(L, d), 1, out=z(L, d, (2,), "int64")),
    "sum/out_float64_ok": lambda L, d: into(lambda o: L.sum(x(L, d), 1, out=o), z(L, d, (2,), "float64")),
    "sum/out_dtype_mismatch": lambda L, d: L.sum(x(L, d), 1, dtype=L.float64, out=z(L, d, (2,))),
    "sum/out_int_of_int_dtype_ok": lambda L, d: into(lambda o: L.sum(T(L, [[1, 2], [3, 4]], d, "int32"), 0, out=o),
                                                     z(L, d, (2,), "int64")),
    "mean/out_long": lambda L, d: L.mean(x(L, d), 0, out=z(L, d, (3,), "int64")),
    "mean/out_float64_ok": lambda L, d: into(lambda o: L.mean(x(L, d), 0, out=o), z(L, d, (3,), "float64")),
    "prod/out_long": lambda L, d: L.prod(x(L, d), 0, out=z(L, d, (3,), "int64")),
    "amax/out_float64": lambda L, d: L.amax(x(L, d), 0, out=z(L, d, (3,), "float64")),
    "cumsum/out_long_of_float": lambda L, d: L.cumsum(x(L, d), 1, out=z(L, d, dtype="int64")),
    "cumsum/out_float64_ok": lambda L, d: into(lambda o: L.cumsum(x(L, d), 1, out=o), z(L, d, dtype="float64")),
    "cumprod/out_int32_of_int64": lambda L, d: into(lambda o: L.cumprod(T(L, [2, 3, 4], d), 0, out=o),
                                                    z(L, d, (3,), "int32")),
    "mm/out_float64": lambda L, d: L.mm(x(L, d), x(L, d, (3, 2)), out=z(L, d, (2, 2), "float64")),
    "mm/out_long": lambda L, d: L.mm(x(L, d), x(L, d, (3, 2)), out=z(L, d, (2, 2), "int64")),
    "matmul/out_float64": lambda L, d: L.matmul(x(L, d), x(L, d, (3, 2)), out=z(L, d, (2, 2), "float64")),
    "bmm/out_half": lambda L, d: L.bmm(x(L, d, (2, 2, 3)), x(L, d, (2, 3, 2)), out=z(L, d, (2, 2, 2), "float16")),
    "addmm/out_float64": lambda L, d: L.addmm(z(L, d, (2, 2)), x(L, d), x(L, d, (3, 2)),
                                              out=z(L, d, (2, 2), "float64")),
    "mv/out_float64": lambda L, d: L.mv(x(L, d), x(L, d, (3,)), out=z(L, d, (2,), "float64")),
    "dot/out_float64": lambda L, d: L.dot(x(L, d, (3,)), x(L, d, (3,)), out=z(L, d, (), "float64")),
    "cat/out_long_of_float": lambda L, d: L.cat([x(L, d), x(L, d)], out=z(L, d, (4, 3), "int64")),
    "cat/out_float64_ok": lambda L, d: into(lambda o: L.cat([x(L, d), x(L, d)], out=o), z(L, d, (4, 3), "float64")),
    "cat/out_float_of_int_ok": lambda L, d: into(lambda o: L.cat([T(L, [1], d), T(L, [2], d)], out=o), z(L, d, (2,))),
    "stack/out_long_of_float": lambda L, d: L.stack([x(L, d), x(L, d)], out=z(L, d, (2, 2, 3), "int64")),
    "stack/out_float64_ok": lambda L, d: into(lambda o: L.stack([x(L, d), x(L, d)], out=o),
                                              z(L, d, (2, 2, 3), "float64")),
    "where/out_long": lambda L, d: L.where(x(L, d) > 0, x(L, d), 0.0, out=z(L, d, dtype="int64")),
    "where/out_float64_ok": lambda L, d: into(lambda o: L.where(x(L, d) > 0, x(L, d), 0.0, out=o),
                                              z(L, d, dtype="float64")),
    "clamp/out_long": lambda L, d: L.clamp(x(L, d), -1, 1, out=z(L, d, dtype="int64")),
    "clamp/out_int_of_int_float_bound": lambda L, d: L.clamp(T(L, [1, 5], d), 0.5, 3, out=z(L, d, (2,), "int64")),
    "clamp/out_float_of_int_ok": lambda L, d: into(lambda o: L.clamp(T(L, [1, 5], d), 0, 3, out=o), z(L, d, (2,))),
    "pow/out_long_float_exponent": lambda L, d: L.pow(T(L, [2, 3], d), 0.5, out=z(L, d, (2,), "int64")),
    "maximum/out_long": lambda L, d: L.maximum(x(L, d), x(L, d), out=z(L, d, dtype="int64")),
    "lerp/out_float64": lambda L, d: L.lerp(x(L, d), x(L, d), 0.5, out=z(L, d, dtype="float64")),
    "addcmul/out_float64": lambda L, d: L.addcmul(x(L, d), x(L, d), x(L, d), out=z(L, d, dtype="float64")),
    "linalg.inv/out_float64": lambda L, d: L.linalg.inv(L.eye(2, device=d), out=z(L, d, (2, 2), "float64")),
    "linalg.vector_norm/out_float64": lambda L, d: L.linalg.vector_norm(x(L, d), out=z(L, d, (), "float64")),
    "linalg.vector_norm/out_float64_with_dtype_ok": lambda L, d: into(
        lambda o: L.linalg.vector_norm(x(L, d), dtype=L.float64, out=o), z(L, d, (), "float64")),
    "linalg.solve/out_long": lambda L, d: L.linalg.solve(L.eye(2, device=d), x(L, d, (2,)), out=z(L, d, (2,), "int64")),
    "softmax/out_float64": lambda L, d: L.softmax(x(L, d), 1, out=z(L, d, dtype="float64")),

    # ---- shape of out: a non-empty out of another shape is resized (PyTorch warns), an empty one silently
    "add/out_wrong_shape_resized": lambda L, d: into(lambda o: L.add(x(L, d), 1, out=o), z(L, d, (5,))),
    "add/out_bigger_resized": lambda L, d: into(lambda o: L.add(x(L, d), 1, out=o), z(L, d, (4, 4))),
    "exp/out_empty_resized": lambda L, d: into(lambda o: L.exp(x(L, d), out=o), E(L, d)),
    "sum/out_wrong_shape": lambda L, d: into(lambda o: L.sum(x(L, d), 1, out=o), z(L, d, (7,))),
    "sum/out_keepdim_shape": lambda L, d: into(lambda o: L.sum(x(L, d), 1, keepdim=True, out=o), E(L, d)),
    "mm/out_wrong_shape": lambda L, d: into(lambda o: L.mm(x(L, d), x(L, d, (3, 2)), out=o), z(L, d, (3, 3))),
    "cat/out_wrong_shape": lambda L, d: into(lambda o: L.cat([x(L, d), x(L, d)], 1, out=o), z(L, d, (2,))),
    "cumsum/out_wrong_shape": lambda L, d: into(lambda o: L.cumsum(x(L, d), 0, out=o), z(L, d, (3, 2))),
    "arange/out_wrong_shape": lambda L, d: into(lambda o: L.arange(5, out=o), z(L, d, (2,), "int64")),
    "arange/out_float_dtype_from_out": lambda L, d: into(lambda o: L.arange(0, 2, 0.5, out=o), E(L, d)),
    "arange/out_long_float_step": lambda L, d: into(lambda o: L.arange(0, 2, 0.5, out=o), E(L, d, "int64")),
    "linspace/out_resized": lambda L, d: into(lambda o: L.linspace(0, 1, 5, out=o), z(L, d, (2,))),
    "linspace/out_long": lambda L, d: into(lambda o: L.linspace(0, 10, 5, out=o), E(L, d, "int64")),
    "zeros/out_resized": lambda L, d: into(lambda o: L.zeros(2, 2, out=o), z(L, d, (3,), "int32")),
    "ones/out_empty": lambda L, d: into(lambda o: L.ones((3,), out=o), E(L, d, "float64")),
    "full/out_int": lambda L, d: into(lambda o: L.full((2,), 7, out=o), E(L, d, "int32")),
    "full/out_int_float_fill": lambda L, d: into(lambda o: L.full((2,), 7.5, out=o), E(L, d, "int32")),
    "zeros/out_dtype_conflict": lambda L, d: L.zeros(2, dtype=L.float64, out=E(L, d)),
    "ones/out_dtype_same_ok": lambda L, d: into(lambda o: L.ones(2, dtype=L.float32, out=o), E(L, d)),
    "eye/out_resized": lambda L, d: into(lambda o: L.eye(2, 3, out=o), z(L, d, (1,))),
    "randn/out_shape": Case(lambda L, d: into(lambda o: L.randn(2, 3, out=o), E(L, d, "float64")), "shape"),
    "randn/out_long": lambda L, d: L.randn(2, out=E(L, d, "int64")),
    "rand/out_half_shape": Case(lambda L, d: into(lambda o: L.rand(4, out=o), E(L, d, "float16")), "shape"),
    "randint/out_float_shape": Case(lambda L, d: into(lambda o: L.randint(0, 5, (3,), out=o), E(L, d)), "shape"),

    # ---- non-contiguous, transposed, expanded outs
    "add/out_transposed": lambda L, d: into(lambda o: L.add(x(L, d, (3, 3)), 1, out=o), z(L, d, (3, 3)).t()),
    "add/out_strided_slice": lambda L, d: (lambda base: (L.add(x(L, d, (3,)), 1, out=base[::2]), base)[1])(
        z(L, d, (6,))),
    "mm/out_transposed": lambda L, d: into(lambda o: L.mm(x(L, d), x(L, d, (3, 2)), out=o), z(L, d, (2, 2)).t()),
    "sum/out_strided": lambda L, d: (lambda base: (L.sum(x(L, d), 1, out=base[:, 0]), base)[1])(z(L, d, (2, 2))),
    "cumsum/out_transposed": lambda L, d: into(lambda o: L.cumsum(x(L, d, (3, 3)), 1, out=o), z(L, d, (3, 3)).t()),
    "cat/out_transposed": lambda L, d: into(lambda o: L.cat([x(L, d, (2, 2)), x(L, d, (1, 2))], out=o),
                                            z(L, d, (2, 3)).t()),
    "add/out_expanded": lambda L, d: L.add(x(L, d), 1, out=z(L, d, (1, 3)).expand(2, 3)),
    "exp/out_expanded": lambda L, d: L.exp(x(L, d), out=z(L, d, (3,)).expand(2, 3)),
    "mm/out_expanded": lambda L, d: L.mm(x(L, d, (2, 2)), x(L, d, (2, 2)), out=z(L, d, (2, 1)).expand(2, 2)),
    "fill/out_zero_stride_resize": lambda L, d: L.add(x(L, d), 1, out=z(L, d, (1,)).expand(4)),

    # ---- out that is, or overlaps, an input
    "add/out_is_input_ok": lambda L, d: (lambda a: into(lambda o: L.add(a, 1, out=o), a))(x(L, d)),
    "mm/out_is_input": lambda L, d: (lambda a: L.mm(a, a, out=a))(x(L, d, (2, 2))),
    "mm/out_is_second_input": lambda L, d: (lambda a: L.mm(x(L, d, (2, 2)), a, out=a))(x(L, d, (2, 2))),
    "matmul/out_is_input": lambda L, d: (lambda a: L.matmul(a, a, out=a))(x(L, d, (2, 2))),
    "bmm/out_is_input": lambda L, d: (lambda a: L.bmm(a, a, out=a))(x(L, d, (2, 2, 2))),
    "addmm/out_is_self": lambda L, d: (lambda a: into(lambda o: L.addmm(a, x(L, d, (2, 2)), x(L, d, (2, 2)), out=o),
                                                      a))(x(L, d, (2, 2))),
    "cat/out_is_input": lambda L, d: (lambda a: L.cat([a, a], out=a))(x(L, d, (2,))),
    "stack/out_partial_overlap": lambda L, d: (lambda a: L.stack([a[:2], a[2:4]], out=a[1:5].view(2, 2)))(
        x(L, d, (6,))),
    "sort/values_out_is_input": lambda L, d: (lambda a: L.sort(a, out=(a, L.empty(0, dtype=L.long, device=d))))(
        x(L, d, (4,))),
    "cumsum/out_is_input_ok": lambda L, d: (lambda a: into(lambda o: L.cumsum(a, 0, out=o), a))(x(L, d, (4,))),
    "index_select/out_is_input": lambda L, d: (lambda a: L.index_select(a, 0, T(L, [1, 0], d), out=a))(
        x(L, d, (2, 2))),
    "gather/out_is_input": lambda L, d: (lambda a: L.gather(a, 1, T(L, [[1, 0], [0, 1]], d), out=a))(
        x(L, d, (2, 2))),
    "take/out_is_input": lambda L, d: (lambda a: L.take(a, T(L, [1, 0], d), out=a))(x(L, d, (2,))),
    "neg/out_partial_overlap": lambda L, d: (lambda a: L.neg(a[:4], out=a[1:5]))(x(L, d, (6,))),
    "mul/out_index_overlap": lambda L, d: (lambda a: L.mul(a, 2, out=a.as_strided((2,), (1,), 1)))(x(L, d, (2,))),

    # ---- out that requires grad
    "add/out_requires_grad": lambda L, d: _grad_out(L, d, lambda o: L.add(x(L, d), 1, out=o)),
    "exp/out_requires_grad": lambda L, d: _grad_out(L, d, lambda o: L.exp(x(L, d), out=o)),
    "add/input_requires_grad_out_plain": lambda L, d: L.add(x(L, d).requires_grad_(), 1, out=z(L, d)),
    "sum/out_requires_grad": lambda L, d: _grad_out(L, d, lambda o: L.sum(x(L, d), 1, out=o), (2,)),
    "mm/input_requires_grad": lambda L, d: L.mm(x(L, d).requires_grad_(), x(L, d, (3, 2)), out=z(L, d, (2, 2))),
    "cat/input_requires_grad": lambda L, d: L.cat([x(L, d).requires_grad_()], out=z(L, d)),
    "add/out_requires_grad_no_grad_ok": lambda L, d: _no_grad(L, lambda: into(
        lambda o: L.add(x(L, d), 1, out=o), z(L, d).requires_grad_())),
    "add/input_requires_grad_no_grad_ok": lambda L, d: _no_grad(L, lambda: into(
        lambda o: L.add(x(L, d).requires_grad_(), 1, out=o), z(L, d))),
    "sort/input_requires_grad": lambda L, d: L.sort(x(L, d).requires_grad_(), out=(z(L, d), z(L, d, dtype="int64"))),
    "arange/out_requires_grad": lambda L, d: L.arange(3.0, out=z(L, d, (3,)).requires_grad_()),
    "zeros/out_requires_grad": lambda L, d: L.zeros(3, out=z(L, d, (3,)).requires_grad_()),

    # ---- tuple outs: sort, topk, max(dim), min(dim), kthvalue, mode, median(dim), cummax, aminmax, linalg.*
    "sort/out_ok": lambda L, d: into(lambda o: L.sort(x(L, d), 1, out=o), (E(L, d), E(L, d, "int64"))),
    "sort/out_list": lambda L, d: into(lambda o: L.sort(x(L, d), 1, out=o), [E(L, d), E(L, d, "int64")]),
    "sort/out_one_tensor": lambda L, d: L.sort(x(L, d), out=E(L, d)),
    "sort/out_three": lambda L, d: L.sort(x(L, d), out=(E(L, d), E(L, d, "int64"), E(L, d))),
    "sort/out_one_tuple": lambda L, d: L.sort(x(L, d), out=(E(L, d),)),
    "sort/indices_float": lambda L, d: L.sort(x(L, d), out=(E(L, d), E(L, d))),
    "sort/indices_int32": lambda L, d: L.sort(x(L, d), out=(E(L, d), E(L, d, "int32"))),
    "sort/values_long": lambda L, d: L.sort(x(L, d), out=(E(L, d, "int64"), E(L, d, "int64"))),
    "sort/values_float64": lambda L, d: L.sort(x(L, d), out=(E(L, d, "float64"), E(L, d, "int64"))),
    "sort/same_tensor_twice": lambda L, d: (lambda o: L.sort(x(L, d), out=(o, o)))(E(L, d, "int64")),
    "topk/out_ok": lambda L, d: into(lambda o: L.topk(x(L, d), 2, out=o), (E(L, d), E(L, d, "int64"))),
    "topk/out_indices_float": lambda L, d: L.topk(x(L, d), 2, out=(E(L, d), E(L, d))),
    "topk/out_values_int": lambda L, d: L.topk(x(L, d), 2, out=(E(L, d, "int64"), E(L, d, "int64"))),
    "topk/out_wrong_shape": lambda L, d: into(lambda o: L.topk(x(L, d), 2, out=o),
                                              (z(L, d, (5,)), z(L, d, (5,), "int64"))),
    "max/dim_out_ok": lambda L, d: into(lambda o: L.max(x(L, d), 1, out=o), (E(L, d), E(L, d, "int64"))),
    "max/dim_out_indices_int32": lambda L, d: L.max(x(L, d), 1, out=(E(L, d), E(L, d, "int32"))),
    "max/dim_out_values_float64": lambda L, d: L.max(x(L, d), 1, out=(E(L, d, "float64"), E(L, d, "int64"))),
    "max/out_single_no_dim": lambda L, d: into(lambda o: L.max(x(L, d), out=o), E(L, d)),
    "max/dim_out_single": lambda L, d: L.max(x(L, d), 1, out=E(L, d)),
    "max/binary_out_ok": lambda L, d: into(lambda o: L.max(x(L, d), x(L, d), out=o), E(L, d)),
    "min/dim_out_keepdim": lambda L, d: into(lambda o: L.min(x(L, d), 0, keepdim=True, out=o),
                                             (E(L, d), E(L, d, "int64"))),
    "kthvalue/out_ok": lambda L, d: into(lambda o: L.kthvalue(x(L, d), 2, 1, out=o), (E(L, d), E(L, d, "int64"))),
    "kthvalue/out_indices_float": lambda L, d: L.kthvalue(x(L, d), 2, 1, out=(E(L, d), E(L, d))),
    "median/dim_out_ok": lambda L, d: into(lambda o: L.median(x(L, d), 1, out=o), (E(L, d), E(L, d, "int64"))),
    "mode/out_ok": lambda L, d: into(lambda o: L.mode(T(L, [[1., 1., 2.], [3., 3., 3.]], d), 1, out=o),
                                     (E(L, d), E(L, d, "int64"))),
    "cummax/out_ok": lambda L, d: into(lambda o: L.cummax(x(L, d), 1, out=o), (E(L, d), E(L, d, "int64"))),
    "cummax/out_indices_int32": lambda L, d: L.cummax(x(L, d), 1, out=(E(L, d), E(L, d, "int32"))),
    "aminmax/out_ok": lambda L, d: into(lambda o: L.aminmax(x(L, d), dim=1, out=o), (E(L, d), E(L, d))),
    "aminmax/out_long": lambda L, d: L.aminmax(x(L, d), out=(E(L, d, "int64"), E(L, d))),
    "linalg.eigh/out_ok": lambda L, d: into(lambda o: L.linalg.eigh(L.eye(2, device=d), out=o), (E(L, d), E(L, d))),
    "linalg.slogdet/out_ok": lambda L, d: into(lambda o: L.linalg.slogdet(L.eye(2, device=d) * 2, out=o),
                                               (E(L, d), E(L, d))),
    "linalg.qr/out_one": lambda L, d: L.linalg.qr(L.eye(2, device=d), out=E(L, d)),
    "linalg.eigh/out_one_tensor": lambda L, d: L.linalg.eigh(L.eye(2, device=d), out=E(L, d)),
    "linalg.svd/out_two": lambda L, d: L.linalg.svd(L.eye(2, device=d), out=(E(L, d), E(L, d))),
    "linalg.lstsq/out_one": lambda L, d: L.linalg.lstsq(L.eye(2, device=d), L.eye(2, device=d), out=(E(L, d),)),
    "aminmax/out_list_one": lambda L, d: L.aminmax(x(L, d), out=[E(L, d)]),
    "aminmax/out_tensor": lambda L, d: L.aminmax(x(L, d), out=E(L, d)),
    "linalg.inv/out_tuple": lambda L, d: L.linalg.inv(L.eye(2, device=d), out=(E(L, d),)),
    "linalg.inv/out_int": lambda L, d: L.linalg.inv(L.eye(2, device=d), out=3),
    "linalg.qr/input_requires_grad": lambda L, d: L.linalg.qr(L.eye(2, device=d).requires_grad_(),
                                                              out=(E(L, d), E(L, d))),
    "linalg.eig/input_requires_grad": lambda L, d: L.linalg.eig(L.eye(2, device=d).requires_grad_(),
                                                                out=(E(L, d, "complex64"), E(L, d, "complex64"))),
    "linalg.matrix_rank/input_requires_grad_ok": lambda L, d: into(lambda o: L.linalg.matrix_rank(
        L.eye(2, device=d).requires_grad_(), out=o), E(L, d, "int64")),
    "linalg.eigvals/input_requires_grad_ok": lambda L, d: into(lambda o: L.linalg.eigvals(
        L.eye(2, device=d).requires_grad_(), out=o), E(L, d, "complex64")),
    "logspace/out_requires_grad": lambda L, d: L.logspace(0, 1, 3, out=E(L, d).requires_grad_()),
    "var_mean/out_not_taken": lambda L, d: L.var_mean(x(L, d), 1, out=(E(L, d), E(L, d))),

    # ---- how out= is passed
    "add/out_positional": lambda L, d: L.add(x(L, d), x(L, d), 1, z(L, d)),
    "exp/out_positional": lambda L, d: L.exp(x(L, d), z(L, d)),
    "add/out_not_tensor": lambda L, d: L.add(x(L, d), 1, out=[0.0] * 6),
    "add/out_none_ok": lambda L, d: L.add(x(L, d), 1, out=None),
    "exp/out_tuple": lambda L, d: L.exp(x(L, d), out=(z(L, d),)),
    "sum/out_number": lambda L, d: L.sum(x(L, d), 1, out=3),
    "mm/out_numpy_like_list": lambda L, d: L.mm(x(L, d), x(L, d, (3, 2)), out=[[0.0, 0.0], [0.0, 0.0]]),
    "cat/out_tuple": lambda L, d: L.cat([x(L, d)], out=(z(L, d),)),
    "method/out_kwarg": lambda L, d: x(L, d).add(1, out=z(L, d)),
    "linalg.inv/out_is_input": lambda L, d: (lambda a: into(lambda o: L.linalg.inv(a, out=o), a))(
        L.eye(2, device=d) * 2),
}

_PARSER_WORDS = ("needs C++ (wording only, TypeError both): PyTorch's argument parser reports \"received an invalid "
                 "combination of arguments - got (...)\" where tandem's binding names the bad argument")
_NANOBIND_WORDS = ("needs C++ (wording only, TypeError both): nanobind's \"incompatible function arguments\" where "
                   "PyTorch's parser says how many positional arguments it takes or which keyword it does not")
KNOWN = {
    "bmm/out_is_input": "PyTorch's CPU bmm writes into its input while still reading it (the values depend on its "
                        "loop order; torch.bmm(b, b) without out= gives the product tandem gives)",
    "add/out_positional": _NANOBIND_WORDS, "exp/out_positional": _NANOBIND_WORDS, "method/out_kwarg": _NANOBIND_WORDS,
    "max/dim_out_single": _PARSER_WORDS, "sort/out_one_tensor": _PARSER_WORDS, "mm/out_numpy_like_list":
        _PARSER_WORDS, "var_mean/out_not_taken": _PARSER_WORDS,
}
