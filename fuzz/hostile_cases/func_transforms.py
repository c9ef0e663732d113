"""torch.func beyond autograd_api.py's table: vmap's in_dims/out_dims as nested tuples, lists and dicts (matching
the inputs' structure or not), in_dims for non-tensor and None leaves, negative and out-of-range dims per
argument, chunk_size, kwargs (never batched), outputs that are tuples, dicts and unbatched tensors, nested vmaps
with different dims; grad/grad_and_value of non-scalar, 1-element, integer and complex outputs with argnums
tuples and has_aux; vjp/jvp/jacrev/jacfwd/hessian with argnums, has_aux, bad cotangents and tangents; and
functional_call with missing, extra and strict parameter dicts."""
from . import R, T


def fn(L):
    return L.func


def a(L, d, shape=(4, 3)):
    return R(L, shape, d, "float64")


def linear(L, d):
    """A Linear(3, 2) with deterministic parameters (the libraries' generators differ), made outside any
    transform."""
    model = L.nn.Linear(3, 2).to(d).double()
    with L.no_grad():
        model.weight.copy_(a(L, d, (2, 3)) * 0.3)
        model.bias.copy_(a(L, d, (2,)) * 0.7)
    return model


def linear_call(L, d, params, model=None, **kw):
    model = linear(L, d) if model is None else model
    return fn(L).functional_call(model, params, (a(L, d, (2, 3)),), **kw)


def linear_params(L, d):
    return {"weight": a(L, d, (2, 3)), "bias": a(L, d, (2,))}


CASES = {
    # ---- vmap in_dims / out_dims structures
    "vmap/in_dims_tuple_nested": lambda L, d: fn(L).vmap(lambda p: p[0] * p[1], in_dims=((0, 1),))(
        (a(L, d), a(L, d, (3, 4)))),
    "vmap/in_dims_nested_wrong_structure": lambda L, d: fn(L).vmap(lambda p: p[0] * p[1], in_dims=((0, 1, 0),))(
        (a(L, d), a(L, d, (3, 4)))),
    "vmap/in_dims_dict": lambda L, d: fn(L).vmap(lambda p: p["x"] + p["y"], in_dims=({"x": 0, "y": None},))(
        {"x": a(L, d), "y": a(L, d, (3,))}),
    "vmap/in_dims_dict_missing_key": lambda L, d: fn(L).vmap(lambda p: p["x"] + p["y"], in_dims=({"x": 0},))(
        {"x": a(L, d), "y": a(L, d, (3,))}),
    "vmap/in_dims_list": lambda L, d: fn(L).vmap(lambda x, y: x + y, in_dims=[0, None])(a(L, d), a(L, d, (3,))),
    "vmap/in_dims_str": lambda L, d: fn(L).vmap(lambda x: x * 2, in_dims="0")(a(L, d)),
    "vmap/in_dims_for_number": lambda L, d: fn(L).vmap(lambda x, n: x * n, in_dims=(0, None))(a(L, d), 2.0),
    "vmap/in_dims_negative_per_arg": lambda L, d: fn(L).vmap(lambda x, y: x + y, in_dims=(-1, 0))(a(L, d, (3, 4)),
                                                                                                  a(L, d)),
    "vmap/in_dims_past_second_arg": lambda L, d: fn(L).vmap(lambda x, y: x + y, in_dims=(0, 2))(a(L, d),
                                                                                                a(L, d)),
    "vmap/in_dims_minus_past": lambda L, d: fn(L).vmap(lambda x: x * 2, in_dims=-3)(a(L, d)),
    "vmap/in_dims_bool": lambda L, d: fn(L).vmap(lambda x: x * 2, in_dims=True)(a(L, d)),
    "vmap/in_dims_on_0dim_arg": lambda L, d: fn(L).vmap(lambda x, s: x * s, in_dims=(0, 0))(a(L, d),
                                                                                            T(L, 2.0, d)),
    "vmap/in_dims_none_for_0dim": lambda L, d: fn(L).vmap(lambda x, s: x * s, in_dims=(0, None))(a(L, d),
                                                                                                 T(L, 2.0, d)),
    "vmap/out_dims_tuple": lambda L, d: fn(L).vmap(lambda x: (x * 2, x.sum()), out_dims=(1, 0))(a(L, d)),
    "vmap/out_dims_tuple_too_short": lambda L, d: fn(L).vmap(lambda x: (x * 2, x.sum()), out_dims=(1,))(a(L, d)),
    "vmap/out_dims_negative": lambda L, d: fn(L).vmap(lambda x: x * 2, out_dims=-1)(a(L, d, (4, 3, 2))),
    "vmap/out_dims_float": lambda L, d: fn(L).vmap(lambda x: x * 2, out_dims=1.0)(a(L, d)),
    "vmap/out_dims_for_0dim_output": lambda L, d: fn(L).vmap(lambda x: x.sum(), out_dims=1)(a(L, d)),
    "vmap/out_dims_none_unbatched_output": lambda L, d: fn(L).vmap(lambda x: T(L, 1.0, d), out_dims=None)(a(L, d)),
    "vmap/returns_dict": lambda L, d: fn(L).vmap(lambda x: {"s": x.sum(), "m": x.max()})(a(L, d)),
    "vmap/returns_list": lambda L, d: fn(L).vmap(lambda x: [x.sum(), x * 2])(a(L, d)),
    "vmap/returns_unbatched_tensor": lambda L, d: fn(L).vmap(lambda x: L.ones(2, device=d))(a(L, d)),
    "vmap/returns_tuple_with_number": lambda L, d: fn(L).vmap(lambda x: (x.sum(), 2))(a(L, d)),
    "vmap/kwarg_not_batched": lambda L, d: fn(L).vmap(lambda x, scale=1.0: x * scale)(a(L, d), scale=a(L, d, (3,))),
    "vmap/chunk_size": lambda L, d: fn(L).vmap(lambda x: x.sum(0), chunk_size=3)(a(L, d, (7, 3))),
    "vmap/chunk_size_zero": lambda L, d: fn(L).vmap(lambda x: x.sum(0), chunk_size=0)(a(L, d)),
    "vmap/chunk_size_negative": lambda L, d: fn(L).vmap(lambda x: x.sum(0), chunk_size=-2)(a(L, d)),
    "vmap/chunk_size_float": lambda L, d: fn(L).vmap(lambda x: x.sum(0), chunk_size=1.5)(a(L, d)),
    "vmap/nested_in_dims": lambda L, d: fn(L).vmap(fn(L).vmap(lambda x: x.sum(), in_dims=1), in_dims=2)(
        a(L, d, (2, 3, 4))),
    "vmap/nested_out_dims": lambda L, d: fn(L).vmap(fn(L).vmap(lambda x: x * 2, out_dims=1), out_dims=0)(
        a(L, d, (2, 3, 4, 5))),
    "vmap/ops_with_dims": lambda L, d: fn(L).vmap(lambda x: (x.softmax(-1), x.cumsum(0), x.transpose(0, 1)))(
        a(L, d, (2, 3, 4))),
    "vmap/matmul": lambda L, d: fn(L).vmap(lambda x, y: x @ y, in_dims=(0, None))(a(L, d, (4, 2, 3)),
                                                                                  a(L, d, (3, 5))),
    "vmap/indexing_with_batched_index": lambda L, d: fn(L).vmap(lambda x, i: x[i])(a(L, d), T(L, [0, 1, 2, 0], d)),
    "vmap/inplace_into_unbatched": lambda L, d: fn(L).vmap(lambda x, y: y.add_(x), in_dims=(0, None))(
        a(L, d), a(L, d, (3,))),
    "vmap/inplace_batched_ok": lambda L, d: fn(L).vmap(lambda x: x.mul_(2))(a(L, d)),
    "vmap/batch_dim_size_1": lambda L, d: fn(L).vmap(lambda x: x.sum())(a(L, d, (1, 3))),
    "vmap/int_input": lambda L, d: fn(L).vmap(lambda x: x * 2)(T(L, [[1, 2], [3, 4]], d)),
    "vmap/no_args": lambda L, d: fn(L).vmap(lambda: T(L, 1.0, d))(),
    # ---- grad / grad_and_value
    "grad/argnums_tuple": lambda L, d: fn(L).grad(lambda x, y: (x * y * y).sum(), argnums=(0, 1))(a(L, d, (3,)),
                                                                                                 a(L, d, (3,))),
    "grad/argnums_negative_past": lambda L, d: fn(L).grad(lambda x, y: (x * y).sum(), argnums=-3)(a(L, d, (3,)),
                                                                                                 a(L, d, (3,))),
    "grad/argnums_bool": lambda L, d: fn(L).grad(lambda x, y: (x * y).sum(), argnums=True)(a(L, d, (3,)),
                                                                                          a(L, d, (3,))),
    "grad/0dim_output_of_2d": lambda L, d: fn(L).grad(lambda x: (x ** 3).mean())(a(L, d)),
    "grad/output_shape_1_1": lambda L, d: fn(L).grad(lambda x: x.sum().reshape(1, 1))(a(L, d)),
    "grad/int_output": lambda L, d: fn(L).grad(lambda x: x.sum().long())(a(L, d)),
    "grad/output_float32_input_float64": lambda L, d: fn(L).grad(lambda x: x.float().sum())(a(L, d)),
    "grad/tuple_input": lambda L, d: fn(L).grad(lambda p: (p[0] * p[1]).sum())((a(L, d, (3,)), a(L, d, (3,)))),
    "grad/has_aux_dict": lambda L, d: fn(L).grad(lambda x: (x.sum(), {"m": x.max()}), has_aux=True)(a(L, d)),
    "grad/has_aux_non_scalar_first": lambda L, d: fn(L).grad(lambda x: (x * 2, x), has_aux=True)(a(L, d)),
    "grad/not_requiring_path": lambda L, d: fn(L).grad(lambda x: a(L, d).sum())(a(L, d)),
    "grad/detach_inside": lambda L, d: fn(L).grad(lambda x: (x.detach() * x).sum())(a(L, d)),
    "grad/nested_grad": lambda L, d: fn(L).grad(fn(L).grad(lambda x: (x ** 3).sum()))(T(L, 2.0, d, "float64")),
    "grad_and_value/has_aux": lambda L, d: fn(L).grad_and_value(lambda x: ((x ** 2).sum(), x.max()),
                                                                has_aux=True)(a(L, d)),
    "grad_and_value/non_scalar": lambda L, d: fn(L).grad_and_value(lambda x: x * 2)(a(L, d)),
    # ---- vjp / jvp / jacobians
    "vjp/tuple_outputs": lambda L, d: fn(L).vjp(lambda x: (x.sin(), x.sum()), a(L, d, (3,)))[1](
        (L.ones(3, device=d, dtype=L.float64), T(L, 2.0, d, "float64"))),
    "vjp/cotangent_wrong_dtype": lambda L, d: fn(L).vjp(lambda x: x * 2, a(L, d, (3,)))[1](L.ones(3, device=d)),
    "vjp/cotangent_count_wrong": lambda L, d: fn(L).vjp(lambda x: (x * 2, x), a(L, d, (3,)))[1](
        L.ones(3, device=d, dtype=L.float64)),
    "vjp/has_aux": lambda L, d: (lambda r: (r[0], r[1](L.ones(3, device=d, dtype=L.float64)), r[2]))(
        fn(L).vjp(lambda x: (x * 2, x.sum()), a(L, d, (3,)), has_aux=True)),
    "vjp/has_aux_not_tuple": lambda L, d: fn(L).vjp(lambda x: x * 2, a(L, d, (3,)), has_aux=True),
    "jvp/ok_two_primals": lambda L, d: fn(L).jvp(lambda x, y: x * y, (a(L, d, (3,)), a(L, d, (3,))),
                                                 (L.ones(3, device=d, dtype=L.float64),
                                                  L.ones(3, device=d, dtype=L.float64))),
    "jvp/tangent_count_wrong": lambda L, d: fn(L).jvp(lambda x, y: x * y, (a(L, d, (3,)), a(L, d, (3,))),
                                                      (L.ones(3, device=d, dtype=L.float64),)),
    "jvp/tangent_dtype_wrong": lambda L, d: fn(L).jvp(lambda x: x * 2, (a(L, d, (3,)),), (L.ones(3, device=d),)),
    "jvp/has_aux": lambda L, d: fn(L).jvp(lambda x: (x * 2, x.sum()), (a(L, d, (3,)),),
                                          (L.ones(3, device=d, dtype=L.float64),), has_aux=True),
    "jacrev/argnums_tuple": lambda L, d: fn(L).jacrev(lambda x, y: x * y, argnums=(0, 1))(a(L, d, (3,)),
                                                                                         a(L, d, (3,))),
    "jacrev/has_aux": lambda L, d: fn(L).jacrev(lambda x: (x.sin(), x.sum()), has_aux=True)(a(L, d, (3,))),
    "jacrev/tuple_output": lambda L, d: fn(L).jacrev(lambda x: (x.sin(), x.sum()))(a(L, d, (3,))),
    "jacrev/2d_input": lambda L, d: fn(L).jacrev(lambda x: x.sum(0))(a(L, d, (2, 3))),
    "jacrev/0dim": lambda L, d: fn(L).jacrev(lambda x: x ** 2)(T(L, 3.0, d, "float64")),
    "jacrev/argnums_past": lambda L, d: fn(L).jacrev(lambda x: x * 2, argnums=1)(a(L, d, (3,))),
    "jacfwd/ok": lambda L, d: fn(L).jacfwd(lambda x: x.sin() * x)(a(L, d, (3,))),
    "jacfwd/argnums_tuple": lambda L, d: fn(L).jacfwd(lambda x, y: x * y, argnums=(0, 1))(a(L, d, (3,)),
                                                                                         a(L, d, (3,))),
    "jacfwd/int_input": lambda L, d: fn(L).jacfwd(lambda x: x * 2)(T(L, [1, 2], d)),
    "hessian/non_scalar": lambda L, d: fn(L).hessian(lambda x: x ** 3)(a(L, d, (3,))),
    "hessian/argnums": lambda L, d: fn(L).hessian(lambda x, y: (x * x * y).sum(), argnums=1)(a(L, d, (3,)),
                                                                                           a(L, d, (3,))),
    # ---- functional_call
    "functional_call/ok": lambda L, d: linear_call(L, d, linear_params(L, d)),
    "functional_call/partial_params": lambda L, d: linear_call(L, d, {"bias": a(L, d, (2,))}),
    "functional_call/extra_key": lambda L, d: linear_call(L, d, dict(linear_params(L, d), extra=a(L, d, (2,)))),
    "functional_call/strict_missing": lambda L, d: linear_call(L, d, {"bias": a(L, d, (2,))}, strict=True),
    "functional_call/strict_extra": lambda L, d: linear_call(L, d, dict(linear_params(L, d),
                                                                        extra=a(L, d, (2,))), strict=True),
    "functional_call/wrong_shape": lambda L, d: linear_call(L, d, {"weight": a(L, d, (3, 3))}),
    "functional_call/tuple_of_dicts": lambda L, d: linear_call(L, d, ({"weight": a(L, d, (2, 3))},
                                                                      {"bias": a(L, d, (2,))})),
    "functional_call/tuple_of_dicts_overlap": lambda L, d: linear_call(L, d, ({"bias": a(L, d, (2,))},
                                                                              {"bias": a(L, d, (2,))})),
    "functional_call/args_not_tuple": lambda L, d: fn(L).functional_call(L.nn.Linear(3, 2).to(d).double(),
                                                                         linear_params(L, d), a(L, d, (2, 3))),
    "functional_call/grad_through": lambda L, d: (lambda m: fn(L).grad(lambda p: linear_call(L, d, p, m).sum())(
        linear_params(L, d)))(linear(L, d)),
}

KNOWN = {
    "vmap/chunk_size_float": "PyTorch fails later with an incidental TypeError (splitting the batch); tandem's "
                             "TypeError names chunk_size",
    "vmap/inplace_into_unbatched": "tandem's vmap runs the function once per batch element (docs/compat.md), so "
                                   "an in-place write into an unbatched tensor accumulates instead of PyTorch's "
                                   "broadcast error",
}
