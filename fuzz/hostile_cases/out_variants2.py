"""out= with hostile out tensors on the function families out_variants.py leaves out: index and selection ops
(gather, index_add, masked_select, nonzero, take_along_dim, scatter), search and counting (searchsorted,
bucketize, histc, argmax/argmin, all/any with their bool/uint8 rule), scans (cumprod, cummin, logcumsumexp),
statistics (var, std, norm, median, nanmedian, quantile, logsumexp), softmax-like functions with dtype=, products
(outer, addr, vdot, inner, kron, tensordot, cross, chain_matmul), the elementwise families composed in Python
(special.*, xlogy, heaviside, ldexp, logit, nan_to_num, signbit, isposinf, polar, complex, float_power, round with
decimals, frexp, deg2rad), random functions (randperm, randint, normal, bernoulli, multinomial) and dtype= next to
out=. Each case returns what the out tensor holds afterwards and whether the function returned it."""
from . import R, T, Case


def x(L, d, shape=(2, 3), dtype="float32"):
    return R(L, shape, d, dtype)


def pos(L, d, shape=(2, 3), dtype="float32"):
    return R(L, shape, d, dtype).abs() + 0.1


def z(L, d, shape=(2, 3), dtype="float32"):
    return L.zeros(shape, device=d, dtype=getattr(L, dtype))


def E(L, d, dtype="float32"):
    return L.empty(0, device=d, dtype=getattr(L, dtype))


def I(L, d, values):
    return T(L, values, d, "int64")


def into(fn, out):
    """Calls fn(out) and returns (whether it returned out itself, out's contents)."""
    r = fn(out)
    if isinstance(out, (tuple, list)):
        return tuple(a is b for a, b in zip(r, out)), tuple(out)
    return r is out, out


def _grad(L, d, shape=(2, 3)):
    return x(L, d, shape).requires_grad_()


CASES = {
    # ---- index and selection ops
    "gather/out_long_of_float": lambda L, d: L.gather(x(L, d), 1, I(L, d, [[0, 1], [2, 0]]), out=z(L, d, (2, 2),
                                                                                                   "int64")),
    "gather/out_float64": lambda L, d: L.gather(x(L, d), 1, I(L, d, [[0, 1], [2, 0]]), out=z(L, d, (2, 2),
                                                                                              "float64")),
    "gather/out_ok_resized": lambda L, d: into(lambda o: L.gather(x(L, d), 1, I(L, d, [[0], [2]]), out=o),
                                               z(L, d, (5,))),
    "index_add/out_ok": lambda L, d: into(lambda o: L.index_add(x(L, d), 0, I(L, d, [1]), x(L, d, (1, 3)), out=o),
                                          E(L, d)),
    "index_add/out_float64": lambda L, d: L.index_add(x(L, d), 0, I(L, d, [1]), x(L, d, (1, 3)),
                                                      out=z(L, d, dtype="float64")),
    "index_add/out_is_self_ok": lambda L, d: (lambda a: into(
        lambda o: L.index_add(a, 0, I(L, d, [1]), x(L, d, (1, 3)), out=o), a))(x(L, d)),
    "index_copy/out_ok": lambda L, d: into(lambda o: L.index_copy(x(L, d), 0, I(L, d, [1]), x(L, d, (1, 3)), out=o),
                                           E(L, d)),
    "index_fill/out_not_taken": lambda L, d: L.index_fill(x(L, d), 0, I(L, d, [1]), 2.0, out=E(L, d)),
    "scatter/out_ok": lambda L, d: into(lambda o: L.scatter(x(L, d), 1, I(L, d, [[0], [1]]), 5.0, out=o), E(L, d)),
    "scatter/out_long": lambda L, d: L.scatter(x(L, d), 1, I(L, d, [[0], [1]]), 5.0, out=E(L, d, "int64")),
    "scatter_add/out_ok": lambda L, d: into(lambda o: L.scatter_add(x(L, d), 1, I(L, d, [[0], [1]]),
                                                                    x(L, d, (2, 1)), out=o), E(L, d)),
    "scatter_reduce/out_ok": lambda L, d: into(lambda o: L.scatter_reduce(
        x(L, d), 1, I(L, d, [[0], [1]]), x(L, d, (2, 1)), "amax", out=o), E(L, d)),
    "masked_select/out_ok": lambda L, d: into(lambda o: L.masked_select(x(L, d), x(L, d) > 0, out=o), E(L, d)),
    "masked_select/out_long": lambda L, d: L.masked_select(x(L, d), x(L, d) > 0, out=E(L, d, "int64")),
    "masked_select/out_float64": lambda L, d: L.masked_select(x(L, d), x(L, d) > 0, out=E(L, d, "float64")),
    "nonzero/out_ok": lambda L, d: into(lambda o: L.nonzero(x(L, d) > 0, out=o), E(L, d, "int64")),
    "nonzero/out_int32": lambda L, d: L.nonzero(x(L, d) > 0, out=E(L, d, "int32")),
    "nonzero/out_float": lambda L, d: L.nonzero(x(L, d) > 0, out=E(L, d)),
    "nonzero/out_wrong_shape_ok": lambda L, d: into(lambda o: L.nonzero(x(L, d) > 0, out=o), z(L, d, (7,), "int64")),
    "take_along_dim/out_ok": lambda L, d: into(lambda o: L.take_along_dim(x(L, d), I(L, d, [[0], [2]]), 1, out=o),
                                               E(L, d)),
    "take_along_dim/out_long": lambda L, d: L.take_along_dim(x(L, d), I(L, d, [[0], [2]]), 1, out=E(L, d, "int64")),
    "index_select/out_float64": lambda L, d: L.index_select(x(L, d), 0, I(L, d, [1]), out=E(L, d, "float64")),
    "masked_scatter/out_not_taken": lambda L, d: L.masked_scatter(x(L, d), x(L, d) > 0, x(L, d), out=E(L, d)),

    # ---- searching and counting
    "searchsorted/out_ok": lambda L, d: into(lambda o: L.searchsorted(T(L, [1.0, 2.0, 3.0], d), x(L, d), out=o),
                                             E(L, d, "int64")),
    "searchsorted/out_int32_flag_ok": lambda L, d: into(lambda o: L.searchsorted(
        T(L, [1.0, 2.0, 3.0], d), x(L, d), out_int32=True, out=o), E(L, d, "int32")),
    "searchsorted/out_int32_flag_long_out": lambda L, d: L.searchsorted(T(L, [1.0, 2.0, 3.0], d), x(L, d),
                                                                        out_int32=True, out=E(L, d, "int64")),
    "searchsorted/out_float": lambda L, d: L.searchsorted(T(L, [1.0, 2.0, 3.0], d), x(L, d), out=E(L, d)),
    "bucketize/out_ok": lambda L, d: into(lambda o: L.bucketize(x(L, d), T(L, [0.0, 1.0], d), out=o),
                                          E(L, d, "int64")),
    "bucketize/out_int32_mismatch": lambda L, d: L.bucketize(x(L, d), T(L, [0.0, 1.0], d), out=E(L, d, "int32")),
    "histc/out_ok": lambda L, d: into(lambda o: L.histc(x(L, d), bins=4, min=-5, max=5, out=o), E(L, d)),
    "histc/out_float64": lambda L, d: L.histc(x(L, d), bins=4, min=-5, max=5, out=E(L, d, "float64")),
    "argmax/out_ok": lambda L, d: into(lambda o: L.argmax(x(L, d), 1, out=o), E(L, d, "int64")),
    "argmax/out_int32": lambda L, d: L.argmax(x(L, d), 1, out=E(L, d, "int32")),
    "argmax/out_float": lambda L, d: L.argmax(x(L, d), 1, out=E(L, d)),
    "argmin/out_no_dim_ok": lambda L, d: into(lambda o: L.argmin(x(L, d), out=o), z(L, d, (2,), "int64")),
    "all/out_bool_ok": lambda L, d: into(lambda o: L.all(x(L, d) > 0, 1, out=o), E(L, d, "bool")),
    "all/out_uint8_of_uint8": lambda L, d: into(lambda o: L.all(T(L, [[1, 0], [1, 1]], d, "uint8"), 1, out=o),
                                                E(L, d, "uint8")),
    "all/out_float": lambda L, d: L.all(x(L, d) > 0, 1, out=E(L, d)),
    "any/out_long": lambda L, d: L.any(x(L, d), 1, out=E(L, d, "int64")),
    "any/out_bool_of_float_ok": lambda L, d: into(lambda o: L.any(x(L, d), 1, out=o), E(L, d, "bool")),
    "count_nonzero/out_not_taken": lambda L, d: L.count_nonzero(x(L, d), out=E(L, d, "int64")),

    # ---- scans
    "cumprod/out_float64_ok": lambda L, d: into(lambda o: L.cumprod(x(L, d), 1, out=o), E(L, d, "float64")),
    "cumprod/out_long": lambda L, d: L.cumprod(x(L, d), 1, out=E(L, d, "int64")),
    "cumprod/dtype_and_out_differ": lambda L, d: L.cumprod(x(L, d), 1, dtype=L.float64, out=E(L, d)),
    "cumsum/dtype_and_out_differ": lambda L, d: L.cumsum(x(L, d), 1, dtype=L.float64, out=E(L, d)),
    "cumsum/int_out_of_int32_ok": lambda L, d: into(lambda o: L.cumsum(T(L, [1, 2, 3], d, "int32"), 0, out=o),
                                                    E(L, d, "int32")),
    "cummin/out_ok": lambda L, d: into(lambda o: L.cummin(x(L, d), 1, out=o), (E(L, d), E(L, d, "int64"))),
    "cummin/out_values_float64": lambda L, d: L.cummin(x(L, d), 1, out=(E(L, d, "float64"), E(L, d, "int64"))),
    "logcumsumexp/out_ok": lambda L, d: into(lambda o: L.logcumsumexp(x(L, d), 1, out=o), E(L, d)),
    "logcumsumexp/out_float64": lambda L, d: L.logcumsumexp(x(L, d), 1, out=E(L, d, "float64")),
    "logcumsumexp/out_long": lambda L, d: L.logcumsumexp(x(L, d), 1, out=E(L, d, "int64")),

    # ---- statistics
    "var/out_ok": lambda L, d: into(lambda o: L.var(x(L, d), 1, out=o), E(L, d)),
    "var/out_float64": lambda L, d: L.var(x(L, d), 1, out=E(L, d, "float64")),
    "std/out_long": lambda L, d: L.std(x(L, d), 1, out=E(L, d, "int64")),
    "std/out_correction_ok": lambda L, d: into(lambda o: L.std(x(L, d), 1, correction=0, out=o), E(L, d)),
    "norm/out_ok": lambda L, d: into(lambda o: L.norm(x(L, d), dim=1, out=o), E(L, d)),
    "norm/out_float64": lambda L, d: L.norm(x(L, d), dim=1, out=E(L, d, "float64")),
    "median/dim_out_ok": lambda L, d: into(lambda o: L.median(x(L, d), 0, out=o), (E(L, d), E(L, d, "int64"))),
    "median/no_dim_out_not_taken": lambda L, d: L.median(x(L, d), out=E(L, d)),
    "nanmedian/dim_out_ok": lambda L, d: into(lambda o: L.nanmedian(x(L, d), 1, out=o), (E(L, d), E(L, d, "int64"))),
    "quantile/out_ok": lambda L, d: into(lambda o: L.quantile(x(L, d), 0.5, dim=1, out=o), E(L, d)),
    "quantile/out_float64": lambda L, d: L.quantile(x(L, d), 0.5, dim=1, out=E(L, d, "float64")),
    "nanquantile/out_ok": lambda L, d: into(lambda o: L.nanquantile(x(L, d), 0.5, out=o), E(L, d)),
    "logsumexp/out_ok": lambda L, d: into(lambda o: L.logsumexp(x(L, d), 1, out=o), E(L, d)),
    "logsumexp/out_float64": lambda L, d: L.logsumexp(x(L, d), 1, out=E(L, d, "float64")),
    "logsumexp/out_long": lambda L, d: L.logsumexp(x(L, d), 1, out=E(L, d, "int64")),
    "mean/dtype_and_out_differ": lambda L, d: L.mean(x(L, d), 1, dtype=L.float64, out=E(L, d)),
    "nansum/out_float64": lambda L, d: L.nansum(x(L, d), 1, out=E(L, d, "float64")),
    "nanmean/out_ok": lambda L, d: into(lambda o: L.nanmean(x(L, d), 1, out=o), E(L, d)),
    "amin/out_long": lambda L, d: L.amin(x(L, d), 1, out=E(L, d, "int64")),
    "aminmax/dim_out_float64": lambda L, d: L.aminmax(x(L, d), dim=1, out=(E(L, d, "float64"), E(L, d, "float64"))),
    "softmax/out_ok": lambda L, d: into(lambda o: L.softmax(x(L, d), 1, out=o), E(L, d)),
    "log_softmax/dtype_and_out": lambda L, d: into(lambda o: L.log_softmax(x(L, d), 1, dtype=L.float64, out=o),
                                                   E(L, d, "float64")),
    "log_softmax/dtype_out_differ": lambda L, d: L.log_softmax(x(L, d), 1, dtype=L.float64, out=E(L, d)),

    # ---- products
    "outer/out_ok": lambda L, d: into(lambda o: L.outer(x(L, d, (2,)), x(L, d, (3,)), out=o), E(L, d)),
    "outer/out_long": lambda L, d: L.outer(x(L, d, (2,)), x(L, d, (3,)), out=E(L, d, "int64")),
    "ger/out_float64": lambda L, d: L.ger(x(L, d, (2,)), x(L, d, (3,)), out=E(L, d, "float64")),
    "addr/out_long": lambda L, d: L.addr(z(L, d), x(L, d, (2,)), x(L, d, (3,)), out=E(L, d, "int64")),
    "vdot/out_ok": lambda L, d: into(lambda o: L.vdot(x(L, d, (3,)), x(L, d, (3,)), out=o), E(L, d)),
    "vdot/out_float64": lambda L, d: L.vdot(x(L, d, (3,)), x(L, d, (3,)), out=E(L, d, "float64")),
    "inner/out_ok": lambda L, d: into(lambda o: L.inner(x(L, d), x(L, d, (4, 3)), out=o), E(L, d)),
    "kron/out_long": lambda L, d: L.kron(x(L, d, (2,)), x(L, d, (2,)), out=E(L, d, "int64")),
    "tensordot/out_ok": lambda L, d: into(lambda o: L.tensordot(x(L, d), x(L, d, (3, 2)), 1, out=o), E(L, d)),
    "tensordot/out_float64": lambda L, d: L.tensordot(x(L, d), x(L, d, (3, 2)), 1, out=E(L, d, "float64")),
    "cross/out_ok": lambda L, d: into(lambda o: L.linalg.cross(x(L, d), x(L, d), out=o), E(L, d)),
    "cross/out_long": lambda L, d: L.linalg.cross(x(L, d), x(L, d), out=E(L, d, "int64")),
    "chain_matmul/out_ok": Case(lambda L, d: into(lambda o: L.chain_matmul(x(L, d), x(L, d, (3, 2)), out=o),
                                                  E(L, d))),
    "linalg.multi_dot/out_float64": lambda L, d: L.linalg.multi_dot([x(L, d), x(L, d, (3, 2))],
                                                                    out=E(L, d, "float64")),
    "matmul/vec_out_0dim": lambda L, d: into(lambda o: L.matmul(x(L, d, (3,)), x(L, d, (3,)), out=o), z(L, d, (1,))),
    "mv/out_is_vector_input": lambda L, d: (lambda v: L.mv(x(L, d, (3, 3)), v, out=v))(x(L, d, (3,))),
    "baddbmm/out_long": lambda L, d: L.baddbmm(z(L, d, (1, 2, 2)), x(L, d, (1, 2, 3)), x(L, d, (1, 3, 2)),
                                               out=E(L, d, "int64")),
    "addbmm/out_ok": lambda L, d: into(lambda o: L.addbmm(z(L, d, (2, 2)), x(L, d, (1, 2, 3)), x(L, d, (1, 3, 2)),
                                                          out=o), z(L, d, (3,))),

    # ---- elementwise families composed in Python
    "special.expit/out_long": lambda L, d: L.special.expit(x(L, d), out=E(L, d, "int64")),
    "special.erfcx/out_ok": lambda L, d: into(lambda o: L.special.erfcx(x(L, d), out=o), E(L, d)),
    "special.xlog1py/out_long": lambda L, d: L.special.xlog1py(pos(L, d), pos(L, d), out=E(L, d, "int64")),
    "special.logsumexp/out_ok": lambda L, d: into(lambda o: L.special.logsumexp(x(L, d), 1, out=o), E(L, d)),
    "special.log_softmax/out_not_taken": lambda L, d: L.special.log_softmax(x(L, d), 1, out=E(L, d)),
    "special.softmax/dtype_positional_ok": lambda L, d: L.special.softmax(x(L, d), 1, L.float64),
    "special.log_softmax/dtype_positional": lambda L, d: L.special.log_softmax(x(L, d), 1, L.float64),
    "special.softmax/out_not_taken": lambda L, d: L.special.softmax(x(L, d), 1, out=E(L, d)),
    "special.logit/eps_out_ok": lambda L, d: into(lambda o: L.special.logit(pos(L, d) / 10, eps=0.2, out=o),
                                                  E(L, d, "float64")),
    "logit/eps_out_long": lambda L, d: L.logit(pos(L, d) / 10, 0.2, out=E(L, d, "int64")),
    "logit/eps_out_requires_grad": lambda L, d: L.logit(pos(L, d) / 10, 0.2, out=E(L, d).requires_grad_()),
    "special.zeta/out_float64": lambda L, d: into(lambda o: L.special.zeta(pos(L, d) + 1, pos(L, d), out=o),
                                                  E(L, d, "float64")),
    "special.i0e/out_requires_grad": lambda L, d: L.special.i0e(x(L, d), out=E(L, d).requires_grad_()),
    "special.entr/input_requires_grad": lambda L, d: L.special.entr(pos(L, d).requires_grad_(), out=E(L, d)),
    "xlogy/out_long": lambda L, d: L.xlogy(pos(L, d), pos(L, d), out=E(L, d, "int64")),
    "xlogy/scalar_first_out_ok": lambda L, d: into(lambda o: L.xlogy(2.0, pos(L, d), out=o), E(L, d)),
    "heaviside/out_ok": lambda L, d: into(lambda o: L.heaviside(x(L, d), T(L, [0.5], d), out=o), E(L, d)),
    "heaviside/out_float64": lambda L, d: L.heaviside(x(L, d), T(L, [0.5], d), out=E(L, d, "float64")),
    "ldexp/out_long": lambda L, d: L.ldexp(x(L, d), I(L, d, [1, 2, 3]), out=E(L, d, "int64")),
    "ldexp/out_ok": lambda L, d: into(lambda o: L.ldexp(x(L, d), I(L, d, [1, 2, 3]), out=o), E(L, d)),
    "logit/out_ok": lambda L, d: into(lambda o: L.logit(pos(L, d) / 10, 1e-6, out=o), E(L, d)),
    "logit/out_long": lambda L, d: L.logit(pos(L, d) / 10, out=E(L, d, "int64")),
    "nan_to_num/out_float64": lambda L, d: L.nan_to_num(x(L, d), out=E(L, d, "float64")),
    "signbit/out_float": lambda L, d: L.signbit(x(L, d), out=E(L, d)),
    "signbit/out_ok": lambda L, d: into(lambda o: L.signbit(x(L, d), out=o), E(L, d, "bool")),
    "isposinf/out_float": lambda L, d: L.isposinf(x(L, d), out=E(L, d)),
    "logical_not/out_float_ok": lambda L, d: into(lambda o: L.logical_not(x(L, d), out=o), E(L, d)),
    "logical_xor/out_long_ok": lambda L, d: into(lambda o: L.logical_xor(x(L, d), x(L, d) > 0, out=o),
                                                 E(L, d, "int64")),
    "polar/out_ok": lambda L, d: into(lambda o: L.polar(pos(L, d), x(L, d), out=o), E(L, d, "complex64")),
    "polar/out_float": lambda L, d: L.polar(pos(L, d), x(L, d), out=E(L, d)),
    "complex/out_complex128": lambda L, d: L.complex(x(L, d), x(L, d), out=E(L, d, "complex128")),
    "float_power/out_float32": lambda L, d: L.float_power(x(L, d), 2, out=E(L, d)),
    "float_power/out_ok": lambda L, d: into(lambda o: L.float_power(x(L, d), 2, out=o), E(L, d, "float64")),
    "round/decimals_out_ok": lambda L, d: into(lambda o: L.round(x(L, d), decimals=2, out=o), E(L, d)),
    "round/decimals_out_long": lambda L, d: L.round(x(L, d), decimals=2, out=E(L, d, "int64")),
    "frexp/out_ok": lambda L, d: into(lambda o: L.frexp(x(L, d), out=o), (E(L, d), E(L, d, "int32"))),
    "frexp/out_exponent_long": lambda L, d: L.frexp(x(L, d), out=(E(L, d), E(L, d, "int64"))),
    "deg2rad/out_long": lambda L, d: L.deg2rad(x(L, d), out=E(L, d, "int64")),
    "trunc/out_int_of_int_ok": lambda L, d: into(lambda o: L.trunc(I(L, d, [1, -2]), out=o), E(L, d, "int64")),
    "fix/out_float64": lambda L, d: L.fix(x(L, d), out=E(L, d, "float64")),
    "clamp_min/out_float64": lambda L, d: L.clamp_min(x(L, d), 0.0, out=E(L, d, "float64")),
    "hypot/out_long": lambda L, d: L.hypot(x(L, d), x(L, d), out=E(L, d, "int64")),
    "atan2/out_float64_ok": lambda L, d: into(lambda o: L.atan2(x(L, d), x(L, d), out=o), E(L, d, "float64")),
    "copysign/out_ok": lambda L, d: into(lambda o: L.copysign(x(L, d), -1.0, out=o), E(L, d)),
    "nextafter/out_float64": lambda L, d: L.nextafter(x(L, d), x(L, d), out=E(L, d, "float64")),

    # ---- random functions with out=
    "randperm/out_int32": lambda L, d: L.randperm(5, out=E(L, d, "int32")).sort()[0],
    "randperm/out_float": lambda L, d: L.randperm(5, out=E(L, d)).sort()[0],
    "randperm/out_dtype_conflict": lambda L, d: L.randperm(5, dtype=L.int32, out=E(L, d, "int64")),
    "randint/out_bool": Case(lambda L, d: L.randint(0, 2, (3,), out=E(L, d, "bool")), "shape"),
    "normal/tensor_mean_out": Case(lambda L, d: into(lambda o: L.normal(x(L, d), 1.0, out=o), E(L, d)), "shape"),
    "normal/out_long": lambda L, d: L.normal(x(L, d), 1.0, out=E(L, d, "int64")),
    "normal/floats_size_out": Case(lambda L, d: into(lambda o: L.normal(0.0, 1.0, (2, 2), out=o), E(L, d)),
                                   "shape"),
    "bernoulli/out_ok": Case(lambda L, d: into(lambda o: L.bernoulli(pos(L, d) / 10, out=o), E(L, d)), "shape"),
    "multinomial/out_ok": Case(lambda L, d: into(lambda o: L.multinomial(pos(L, d), 2, out=o), E(L, d, "int64")),
                               "shape"),
    "multinomial/out_float": lambda L, d: L.multinomial(pos(L, d), 2, out=E(L, d)),
    "rand/out_dtype_conflict": lambda L, d: L.rand(2, dtype=L.float64, out=E(L, d)),
    "empty/out_shape": lambda L, d: L.empty(2, 3, out=E(L, d)).shape,
    "empty/out_requires_grad": lambda L, d: L.empty(2, out=E(L, d).requires_grad_()),
    "empty/out_requires_grad_same_shape": lambda L, d: L.empty(2, out=z(L, d, (2,)).requires_grad_()),
    "frexp/out_mantissa_float64": lambda L, d: L.frexp(x(L, d), out=(E(L, d, "float64"), E(L, d, "int32"))),

    # ---- autograd with out=
    "var/input_requires_grad": lambda L, d: L.var(_grad(L, d), 1, out=E(L, d)),
    "gather/input_requires_grad": lambda L, d: L.gather(_grad(L, d), 1, I(L, d, [[0], [1]]), out=E(L, d)),
    "masked_select/input_requires_grad": lambda L, d: L.masked_select(_grad(L, d), x(L, d) > 0, out=E(L, d)),
    "outer/input_requires_grad": lambda L, d: L.outer(_grad(L, d, (2,)), x(L, d, (3,)), out=E(L, d)),
    "quantile/input_requires_grad": lambda L, d: L.quantile(_grad(L, d), 0.5, out=E(L, d)),
    "heaviside/input_requires_grad": lambda L, d: L.heaviside(_grad(L, d), x(L, d), out=E(L, d)),
    "argmax/input_requires_grad_ok": lambda L, d: into(lambda o: L.argmax(_grad(L, d), 1, out=o), E(L, d, "int64")),
    "nonzero/input_requires_grad_ok": lambda L, d: into(lambda o: L.nonzero(_grad(L, d), out=o), E(L, d, "int64")),
    "searchsorted/input_requires_grad_ok": lambda L, d: into(lambda o: L.searchsorted(
        T(L, [1.0, 2.0], d).requires_grad_(), x(L, d), out=o), E(L, d, "int64")),
}

_WORDING = ("needs C++ (wording only, TypeError both): nanobind's \"incompatible function arguments\" or "
            "Python's own \"unexpected keyword\" where PyTorch's parser says \"received an invalid combination of "
            "arguments\" or \"got an unexpected keyword argument 'out'\"")
_NORMAL_OUT = ("intended: PyTorch's normal(Tensor mean, float std, out=) adds mean into an out it has not resized "
               "(\"The size of tensor a (3) must match the size of tensor b (0)\"), unlike every other out= (and "
               "its own normal(float, float, size, out=)); tandem resizes out as everywhere")
KNOWN = {
    "count_nonzero/out_not_taken": _WORDING, "index_fill/out_not_taken": _WORDING,
    "masked_scatter/out_not_taken": _WORDING,
    "normal/tensor_mean_out": _NORMAL_OUT, "normal/out_long": _NORMAL_OUT,
    "mv/out_is_vector_input": "PyTorch's CPU mv zeroes out before reading its vector input when out is that input "
                              "(its result is all zeros); tandem computes the product first",
}
