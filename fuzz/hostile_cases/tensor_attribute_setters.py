"""Tensor attributes assigned and deleted with hostile values, beyond autograd_api.py, autograd_misuse2.py and
subclass_state.py (which hold a few grad and requires_grad forms): `t.data = v` with values of other shapes,
dtypes, devices and kinds, on leaves that require grad, on views and on Parameters (and what the tensor reports
afterwards: shape, dtype, version, grad); `t.grad = g` with the wrong shape, dtype, device, layout or kind, on
integer tensors, non-leaves and views, with a gradient that requires grad or is the tensor itself, then a
backward that accumulates into it; `t.requires_grad = v` with ints, None, strings, on integer, bool and complex
tensors and on non-leaves; requires_grad_() with odd arguments; retain_grad on leaves and integer tensors; the
read-only attributes (shape, dtype, device, grad_fn, is_leaf, ndim, T, layout, _version) assigned and deleted;
t.real/t.imag assigned; names read and assigned; and arbitrary Python attributes set and deleted."""
from . import R, T


def x(L, d, shape=(2, 3), dtype="float32"):
    return R(L, shape, d, dtype)


def leaf(L, d, shape=(2, 3), dtype="float32"):
    return x(L, d, shape, dtype).requires_grad_()


def assign(t, name, value):
    setattr(t, name, value)
    return t


def delete(t, name):
    delattr(t, name)
    return t


def state(t):
    """What a tensor reports about itself after an assignment (device left out: the oracle runs on the CPU)."""
    return (tuple(t.shape), str(t.dtype).split(".")[-1], t.requires_grad, t.is_leaf,
            None if t.grad is None else (tuple(t.grad.shape), str(t.grad.dtype).split(".")[-1]))


def set_data(L, d, t, value):
    t.data = value
    return state(t), t.detach().clone()


def set_grad(L, d, t, value):
    t.grad = value
    return state(t)


def grad_then_backward(L, d, value, fn=lambda t: (t * 2).sum()):
    t = leaf(L, d)
    t.grad = value
    fn(t).backward()
    return t.grad


def version_after_data(L, d):
    t = x(L, d)
    before = t._version
    t.data = x(L, d, (4,))
    return t._version - before, tuple(t.shape)


CASES = {
    # ---- t.data = v
    "data/same_shape": lambda L, d: set_data(L, d, x(L, d), x(L, d) * 2),
    "data/other_shape": lambda L, d: set_data(L, d, x(L, d), x(L, d, (5,))),
    "data/other_dtype": lambda L, d: set_data(L, d, x(L, d), x(L, d, dtype="float64")),
    "data/int_on_float": lambda L, d: set_data(L, d, x(L, d), T(L, [1, 2], d)),
    "data/int_on_leaf_requiring_grad": lambda L, d: set_data(L, d, leaf(L, d), T(L, [1, 2], d)),
    "data/bool_on_leaf_requiring_grad": lambda L, d: set_data(L, d, leaf(L, d), T(L, [True], d)),
    "data/complex_on_leaf_requiring_grad": lambda L, d: set_data(L, d, leaf(L, d), T(L, [1j], d)),
    "data/half_on_leaf_requiring_grad": lambda L, d: set_data(L, d, leaf(L, d), x(L, d, dtype="float16")),
    "data/other_shape_on_leaf": lambda L, d: set_data(L, d, leaf(L, d), x(L, d, (4, 1))),
    "data/list": lambda L, d: set_data(L, d, x(L, d), [1.0, 2.0]),
    "data/float": lambda L, d: set_data(L, d, x(L, d), 1.0),
    "data/none": lambda L, d: set_data(L, d, x(L, d), None),
    "data/numpy": lambda L, d: set_data(L, d, x(L, d), __import__("numpy").ones(3)),
    "data/0d": lambda L, d: set_data(L, d, x(L, d), T(L, 5.0, d)),
    "data/empty": lambda L, d: set_data(L, d, x(L, d), x(L, d, (0, 3))),
    "data/requires_grad_value": lambda L, d: set_data(L, d, x(L, d), leaf(L, d, (3,))),
    "data/non_leaf_value": lambda L, d: set_data(L, d, x(L, d), leaf(L, d) * 2),
    "data/on_non_leaf": lambda L, d: set_data(L, d, leaf(L, d) * 2, x(L, d, (4,))),
    "data/self": lambda L, d: (lambda t: set_data(L, d, t, t))(x(L, d)),
    "data/own_view": lambda L, d: (lambda t: set_data(L, d, t, t[0]))(x(L, d)),
    "data/transposed": lambda L, d: (lambda t: (set_data(L, d, t, x(L, d, (3, 2)).t()), t.stride()))(x(L, d)),
    "data/expanded": lambda L, d: (lambda t: (set_data(L, d, t, x(L, d, (1, 3)).expand(4, 3)), t.stride()))(x(L, d)),
    "data/on_view_then_base": lambda L, d: (lambda base: (set_data(L, d, base[0], x(L, d, (5,))), base.clone()))(
        x(L, d)),
    "data/version_unchanged": lambda L, d: version_after_data(L, d),
    "data/keeps_grad": lambda L, d: (lambda t: (assign(t, "grad", x(L, d) * 0 + 1), set_data(L, d, t, x(L, d) * 3),
                                                t.grad))(leaf(L, d)),
    "data/keeps_grad_other_shape": lambda L, d: (lambda t: (assign(t, "grad", x(L, d) * 0 + 1),
                                                            set_data(L, d, t, x(L, d, (4,)))))(leaf(L, d)),
    "data/then_backward_other_shape": lambda L, d: (lambda t: (set_data(L, d, t, x(L, d, (4,))),
                                                               (t * t).sum().backward(), t.grad))(leaf(L, d)),
    "data/parameter_other_shape": lambda L, d: (lambda p: (set_data(L, d, p, x(L, d, (4,))), type(p).__name__))(
        L.nn.Parameter(x(L, d))),
    "data/parameter_int": lambda L, d: set_data(L, d, L.nn.Parameter(x(L, d)), T(L, [1, 2], d)),
    "data/parameter_no_grad_int": lambda L, d: set_data(L, d, L.nn.Parameter(x(L, d), requires_grad=False),
                                                        T(L, [1, 2], d)),
    "data/int_tensor_float_value": lambda L, d: set_data(L, d, T(L, [1, 2], d), x(L, d)),
    "data/del": lambda L, d: delete(x(L, d), "data"),
    "data/getter_is_detached": lambda L, d: (lambda t: (t.data.requires_grad, t.data.is_leaf, t.data.shape))(
        leaf(L, d) * 2),
    "data/getter_shares_memory": lambda L, d: (lambda t: (t.data.add_(1), t.detach().clone())[1])(x(L, d)),
    # ---- t.grad = g
    "grad/same": lambda L, d: set_grad(L, d, leaf(L, d), x(L, d)),
    "grad/wrong_shape": lambda L, d: set_grad(L, d, leaf(L, d), x(L, d, (3, 2))),
    "grad/broadcastable_shape": lambda L, d: set_grad(L, d, leaf(L, d), x(L, d, (3,))),
    "grad/0d": lambda L, d: set_grad(L, d, leaf(L, d), T(L, 1.0, d)),
    "grad/wrong_dtype": lambda L, d: set_grad(L, d, leaf(L, d), x(L, d, dtype="float64")),
    "grad/int_dtype": lambda L, d: set_grad(L, d, leaf(L, d), T(L, [[1, 2, 3], [4, 5, 6]], d)),
    "grad/half_dtype": lambda L, d: set_grad(L, d, leaf(L, d), x(L, d, dtype="float16")),
    "grad/complex_on_float": lambda L, d: set_grad(L, d, leaf(L, d), x(L, d).to(L.complex64)),
    "grad/list": lambda L, d: set_grad(L, d, leaf(L, d), [[1.0] * 3] * 2),
    "grad/float": lambda L, d: set_grad(L, d, leaf(L, d), 1.0),
    "grad/numpy": lambda L, d: set_grad(L, d, leaf(L, d), __import__("numpy").ones((2, 3), "float32")),
    "grad/none": lambda L, d: set_grad(L, d, leaf(L, d), None),
    "grad/on_no_grad_tensor": lambda L, d: set_grad(L, d, x(L, d), x(L, d)),
    "grad/on_int_tensor": lambda L, d: set_grad(L, d, T(L, [1, 2], d), T(L, [1, 2], d)),
    "grad/on_non_leaf": lambda L, d: set_grad(L, d, leaf(L, d) * 2, x(L, d)),
    "grad/on_view": lambda L, d: set_grad(L, d, leaf(L, d)[0], x(L, d, (3,))),
    "grad/requires_grad_value": lambda L, d: set_grad(L, d, leaf(L, d), leaf(L, d)),
    "grad/non_leaf_value": lambda L, d: set_grad(L, d, leaf(L, d), leaf(L, d) * 3),
    "grad/self": lambda L, d: (lambda t: set_grad(L, d, t, t))(leaf(L, d)),
    "grad/noncontiguous": lambda L, d: (lambda t: (set_grad(L, d, t, x(L, d, (3, 2)).t()), t.grad.stride()))(
        leaf(L, d)),
    "grad/expanded": lambda L, d: set_grad(L, d, leaf(L, d), x(L, d, (1, 3)).expand(2, 3)),
    "grad/sparse": lambda L, d: set_grad(L, d, leaf(L, d), x(L, d).to_sparse()),
    "grad/empty_on_empty": lambda L, d: set_grad(L, d, leaf(L, d, (0, 3)), x(L, d, (0, 3))),
    "grad/wrong_shape_empty": lambda L, d: set_grad(L, d, leaf(L, d, (0, 3)), x(L, d, (3, 0))),
    "grad/then_backward": lambda L, d: grad_then_backward(L, d, x(L, d)),
    "grad/then_backward_expanded": lambda L, d: grad_then_backward(L, d, x(L, d, (1, 3)).expand(2, 3)),
    "grad/then_backward_noncontig": lambda L, d: grad_then_backward(L, d, x(L, d, (3, 2)).t()),
    "grad/set_shared_then_backward": lambda L, d: (lambda g: (grad_then_backward(L, d, g), g)[1])(x(L, d)),
    "grad/parameter_wrong_shape": lambda L, d: set_grad(L, d, L.nn.Parameter(x(L, d)), x(L, d, (6,))),
    "grad/parameter_wrong_dtype": lambda L, d: set_grad(L, d, L.nn.Parameter(x(L, d)), x(L, d, dtype="float64")),
    "grad/del_twice": lambda L, d: state(delete(delete(assign(leaf(L, d), "grad", x(L, d)), "grad"), "grad")),
    "grad/del_on_non_leaf": lambda L, d: state(delete(leaf(L, d) * 2, "grad")),
    "grad/read_non_leaf": lambda L, d: (leaf(L, d) * 2).grad,
    "grad/read_non_leaf_retained": lambda L, d: (lambda y: (y.retain_grad(), y.sum().backward(), y.grad)[2])(
        leaf(L, d) * 2),
    # ---- requires_grad
    "requires_grad/int_tensor_true": lambda L, d: assign(T(L, [1, 2], d), "requires_grad", True),
    "requires_grad/bool_tensor_true": lambda L, d: assign(T(L, [True], d), "requires_grad", True),
    "requires_grad/complex_true": lambda L, d: state(assign(T(L, [1j], d), "requires_grad", True)),
    "requires_grad/half_true": lambda L, d: state(assign(x(L, d, dtype="float16"), "requires_grad", True)),
    "requires_grad/int_tensor_false": lambda L, d: state(assign(T(L, [1, 2], d), "requires_grad", False)),
    "requires_grad/one": lambda L, d: state(assign(x(L, d), "requires_grad", 1)),
    "requires_grad/zero": lambda L, d: state(assign(x(L, d), "requires_grad", 0)),
    "requires_grad/none": lambda L, d: state(assign(x(L, d), "requires_grad", None)),
    "requires_grad/str": lambda L, d: state(assign(x(L, d), "requires_grad", "yes")),
    "requires_grad/tensor_true": lambda L, d: state(assign(x(L, d), "requires_grad", T(L, True))),
    "requires_grad/numpy_bool": lambda L, d: state(assign(x(L, d), "requires_grad", __import__("numpy").bool_(True))),
    "requires_grad/non_leaf_false": lambda L, d: assign(leaf(L, d) * 2, "requires_grad", False),
    "requires_grad/non_leaf_true": lambda L, d: state(assign(leaf(L, d) * 2, "requires_grad", True)),
    "requires_grad/view_of_leaf_false": lambda L, d: assign(leaf(L, d)[0], "requires_grad", False),
    "requires_grad/detached_true": lambda L, d: state(assign((leaf(L, d) * 2).detach(), "requires_grad", True)),
    "requires_grad/del": lambda L, d: delete(x(L, d), "requires_grad"),
    "requires_grad/int_tensor_one": lambda L, d: assign(T(L, [1, 2], d), "requires_grad", 1),
    "requires_grad/parameter_false_then_true": lambda L, d: state(assign(assign(L.nn.Parameter(x(L, d)),
                                                                                "requires_grad", False),
                                                                         "requires_grad", True)),
    "requires_grad/in_no_grad": lambda L, d: (lambda t: (L.no_grad()(lambda: assign(t, "requires_grad", True))(),
                                                         state(t))[1])(x(L, d)),
    "requires_grad_/int_tensor": lambda L, d: T(L, [1, 2], d).requires_grad_(),
    "requires_grad_/int_tensor_false": lambda L, d: state(T(L, [1, 2], d).requires_grad_(False)),
    "requires_grad_/str_arg": lambda L, d: x(L, d).requires_grad_("yes"),
    "requires_grad_/none_arg": lambda L, d: x(L, d).requires_grad_(None),
    "requires_grad_/int_arg": lambda L, d: x(L, d).requires_grad_(1),
    "requires_grad_/kw": lambda L, d: state(x(L, d).requires_grad_(requires_grad=True)),
    "requires_grad_/bad_kw": lambda L, d: x(L, d).requires_grad_(grad=True),
    "requires_grad_/two_args": lambda L, d: x(L, d).requires_grad_(True, True),
    "requires_grad_/non_leaf_false": lambda L, d: (leaf(L, d) * 2).requires_grad_(False),
    "requires_grad_/non_leaf_true": lambda L, d: state((leaf(L, d) * 2).requires_grad_(True)),
    "requires_grad_/returns_self": lambda L, d: (lambda t: t.requires_grad_() is t)(x(L, d)),
    # ---- retain_grad
    "retain_grad/leaf": lambda L, d: (lambda t: (t.retain_grad(), t.retains_grad, state(t)))(leaf(L, d)),
    "retain_grad/no_grad_tensor": lambda L, d: x(L, d).retain_grad(),
    "retain_grad/int_tensor": lambda L, d: T(L, [1], d).retain_grad(),
    "retain_grad/twice": lambda L, d: (lambda y: (y.retain_grad(), y.retain_grad(), y.sum().backward(), y.grad)[3])(
        leaf(L, d) * 2),
    "retains_grad/assign": lambda L, d: assign(leaf(L, d) * 2, "retains_grad", True),
    "retains_grad/non_leaf_default": lambda L, d: (leaf(L, d) * 2).retains_grad,
    # ---- read-only attributes
    "shape/assign": lambda L, d: assign(x(L, d), "shape", (3, 2)),
    "dtype/assign": lambda L, d: assign(x(L, d), "dtype", L.float64),
    "device/assign": lambda L, d: assign(x(L, d), "device", "cpu"),
    "grad_fn/assign_none": lambda L, d: assign(leaf(L, d) * 2, "grad_fn", None),
    "is_leaf/assign": lambda L, d: assign(x(L, d), "is_leaf", False),
    "ndim/assign": lambda L, d: assign(x(L, d), "ndim", 3),
    "T/assign": lambda L, d: assign(x(L, d), "T", x(L, d, (3, 2))),
    "layout/assign": lambda L, d: assign(x(L, d), "layout", L.strided),
    "is_cuda/assign": lambda L, d: assign(x(L, d), "is_cuda", True),
    "version/assign": lambda L, d: assign(x(L, d), "_version", 5),
    "mT/assign": lambda L, d: assign(x(L, d), "mT", x(L, d, (3, 2))),
    "H/del": lambda L, d: delete(x(L, d), "H"),
    "nbytes/assign": lambda L, d: assign(x(L, d), "nbytes", 0),
    "itemsize/assign": lambda L, d: assign(x(L, d), "itemsize", 8),
    "base/assign": lambda L, d: assign(x(L, d), "_base", None),
    "is_sparse/assign": lambda L, d: assign(x(L, d), "is_sparse", True),
    "shape/assign_parameter": lambda L, d: assign(L.nn.Parameter(x(L, d)), "shape", (3, 2)),
    "dtype/assign_subclass": lambda L, d: assign(x(L, d).as_subclass(type("Sub", (L.Tensor,), {})), "dtype", L.float64),
    "shape/del": lambda L, d: delete(x(L, d), "shape"),
    "grad_fn/del": lambda L, d: delete(leaf(L, d) * 2, "grad_fn"),
    "is_leaf/del": lambda L, d: delete(x(L, d), "is_leaf"),
    "output_nr/assign": lambda L, d: assign(x(L, d), "output_nr", 1),
    "requires_grad/read_int": lambda L, d: T(L, [1], d).requires_grad,
    # ---- real / imag
    "real/assign_complex": lambda L, d: assign(T(L, [1 + 2j, 3 - 4j], d), "real", T(L, [9.0, 8.0], d)).clone(),
    "imag/assign_complex": lambda L, d: assign(T(L, [1 + 2j, 3 - 4j], d), "imag", T(L, [9.0, 8.0], d)).clone(),
    "real/assign_scalar": lambda L, d: assign(T(L, [1 + 2j], d), "real", 5.0).clone(),
    "real/assign_broadcast": lambda L, d: assign(T(L, [1 + 2j, 3j], d), "real", T(L, [7.0], d)).clone(),
    "real/assign_wrong_shape": lambda L, d: assign(T(L, [1 + 2j, 3j], d), "real", T(L, [7.0, 1.0, 2.0], d)),
    "real/assign_on_real": lambda L, d: assign(x(L, d), "real", x(L, d) * 2).clone(),
    "imag/assign_on_real": lambda L, d: assign(x(L, d), "imag", x(L, d)),
    "real/assign_complex_value": lambda L, d: assign(T(L, [1 + 2j], d), "real", T(L, [5j], d)),
    "real/assign_int_value": lambda L, d: assign(T(L, [1 + 2j], d), "real", T(L, [5], d)).clone(),
    "imag/assign_str": lambda L, d: assign(T(L, [1 + 2j], d), "imag", "a"),
    "imag/assign_list": lambda L, d: assign(T(L, [1 + 2j], d), "imag", [1.0]),
    "imag/assign_bool": lambda L, d: assign(T(L, [1 + 2j], d), "imag", True).clone(),
    "real/assign_int_scalar": lambda L, d: assign(T(L, [1 + 2j, 3j], d, "complex128"), "real", 4).clone(),
    "real/assign_numpy_scalar": lambda L, d: assign(T(L, [1 + 2j], d), "real", __import__("numpy").float64(2.0)),
    "real/assign_numpy_float32": lambda L, d: assign(T(L, [1 + 2j], d), "real", __import__("numpy").float32(2.0)),
    "real/assign_numpy_int": lambda L, d: assign(T(L, [1 + 2j], d), "real", __import__("numpy").int16(3)).clone(),
    "imag/assign_none_cdouble": lambda L, d: assign(T(L, [1 + 2j], d, "complex128"), "imag", None),
    "real/assign_requires_grad_leaf": lambda L, d: assign(T(L, [1 + 2j], d).requires_grad_(), "real", 1.0),
    "imag/assign_none": lambda L, d: assign(T(L, [1 + 2j], d), "imag", None),
    # ---- names
    "names/read": lambda L, d: x(L, d).names,
    "names/assign_none": lambda L, d: assign(x(L, d), "names", None).names,
    "names/assign_none_tuple": lambda L, d: assign(x(L, d), "names", (None, None)).names,
    "names/assign_wrong_len": lambda L, d: assign(x(L, d), "names", (None,)),
    "names/assign_int": lambda L, d: assign(x(L, d), "names", 3),
    "names/del": lambda L, d: delete(x(L, d), "names"),
    # ---- Python attributes
    "pyattr/set_and_read": lambda L, d: assign(x(L, d), "foo", 3).foo,
    "pyattr/read_missing": lambda L, d: x(L, d).foo,
    "pyattr/del_missing": lambda L, d: delete(x(L, d), "foo"),
    "pyattr/set_then_del": lambda L, d: hasattr(delete(assign(x(L, d), "foo", 3), "foo"), "foo"),
    "pyattr/survives_detach": lambda L, d: hasattr(assign(x(L, d), "foo", 3).detach(), "foo"),
    "pyattr/survives_view": lambda L, d: hasattr(assign(x(L, d), "foo", 3)[0], "foo"),
    "pyattr/survives_clone": lambda L, d: hasattr(assign(x(L, d), "foo", 3).clone(), "foo"),
    "pyattr/dict_set": lambda L, d: (lambda t: (t.__dict__.update(bar=1), t.bar)[1])(x(L, d)),
    "pyattr/shadow_method": lambda L, d: assign(x(L, d), "sum", 5).sum,
    "pyattr/shadow_method_del": lambda L, d: delete(assign(x(L, d), "sum", 5), "sum").sum(),
    "pyattr/parameter_attr": lambda L, d: assign(L.nn.Parameter(x(L, d)), "foo", 1).foo,
}

KNOWN = {}  # requires_grad_'s refusals follow PyTorch's parser since session 43 (python/tandem/_parser_errors.py)
