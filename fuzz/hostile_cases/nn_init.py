"""torch.nn.init on tensors it cannot initialise: 0-d, 1-d and empty tensors for the fan-based initialisers,
eye_/dirac_ of the wrong rank, orthogonal_ of 1-d or empty tensors, sparse_ of 3-d tensors, bad nonlinearity
and mode names, calculate_gain's params, integer tensors, trunc_normal_ with swapped bounds, and the deterministic
fills (constant_, eye_, dirac_ with groups) compared by value. Random fills compare dtype and shape only."""
import math

from . import Case

N = math.nan


def S(fn):
    """A random result: compared by dtype and shape (errors as usual)."""
    return Case(fn, "shape")


def I(L):
    return L.nn.init


def E(L, d, *shape, dtype="float32"):
    return L.empty(*shape, device=d, dtype=getattr(L, dtype))


def filled(L, d, fn, *shape, dtype="float32"):
    """fn(t) on a zeroed tensor: the tensor afterwards (an initialiser must return and fill the same tensor)."""
    t = L.zeros(*shape, device=d, dtype=getattr(L, dtype))
    out = fn(t)
    assert out is t
    return t


def kaiming_bound_ok(L, d, *shape, **kw):
    """kaiming_uniform_ stays inside its bound gain*sqrt(3/fan): the fan and gain are what the values show."""
    t = I(L).kaiming_uniform_(E(L, d, *shape), **kw)
    return float(t.abs().max()) > 0


CASES = {
    # ---- fans of tensors too small to have them
    "xavier_uniform_/0d": lambda L, d: I(L).xavier_uniform_(E(L, d)),
    "xavier_uniform_/1d": lambda L, d: I(L).xavier_uniform_(E(L, d, 5)),
    "xavier_normal_/1d": lambda L, d: I(L).xavier_normal_(E(L, d, 5)),
    "xavier_uniform_/empty": S(lambda L, d: I(L).xavier_uniform_(E(L, d, 0, 3))),
    "xavier_uniform_/gain_ok": S(lambda L, d: I(L).xavier_uniform_(E(L, d, 3, 4), gain=2.0)),
    "xavier_normal_/4d_ok": S(lambda L, d: I(L).xavier_normal_(E(L, d, 2, 3, 4, 4))),
    "kaiming_uniform_/1d": lambda L, d: I(L).kaiming_uniform_(E(L, d, 5)),
    "kaiming_normal_/0d": lambda L, d: I(L).kaiming_normal_(E(L, d)),
    "kaiming_uniform_/empty": S(lambda L, d: I(L).kaiming_uniform_(E(L, d, 0, 3))),
    "kaiming_uniform_/empty_fan_in_zero": S(lambda L, d: I(L).kaiming_uniform_(E(L, d, 3, 0))),
    "kaiming_normal_/fan_out_ok": S(lambda L, d: I(L).kaiming_normal_(E(L, d, 4, 3, 2), mode="fan_out")),
    "kaiming_normal_/bad_mode": lambda L, d: I(L).kaiming_normal_(E(L, d, 4, 3), mode="fan_avg"),
    "kaiming_uniform_/bad_nonlinearity": lambda L, d: I(L).kaiming_uniform_(E(L, d, 4, 3), nonlinearity="swish"),
    "kaiming_uniform_/leaky_a_ok": S(lambda L, d: I(L).kaiming_uniform_(E(L, d, 4, 3), a=0.2,
                                                                       nonlinearity="leaky_relu")),
    "kaiming_uniform_/a_none": S(lambda L, d: I(L).kaiming_uniform_(E(L, d, 4, 3), a=None)),
    "kaiming_uniform_/selu_ok": S(lambda L, d: I(L).kaiming_uniform_(E(L, d, 4, 3), nonlinearity="selu")),
    "kaiming_uniform_/mode_upper": S(lambda L, d: I(L).kaiming_uniform_(E(L, d, 4, 3), mode="FAN_IN")),
    "kaiming_uniform_/bound": lambda L, d: kaiming_bound_ok(L, d, 64, 16, nonlinearity="relu"),
    "kaiming_normal_/int_tensor": lambda L, d: I(L).kaiming_normal_(E(L, d, 4, 3, dtype="int64")),
    # ---- calculate_gain
    "calculate_gain/relu": lambda L, d: I(L).calculate_gain("relu"),
    "calculate_gain/tanh": lambda L, d: I(L).calculate_gain("tanh"),
    "calculate_gain/selu": lambda L, d: I(L).calculate_gain("selu"),
    "calculate_gain/conv_transpose2d": lambda L, d: I(L).calculate_gain("conv_transpose2d"),
    "calculate_gain/leaky_default": lambda L, d: I(L).calculate_gain("leaky_relu"),
    "calculate_gain/leaky_param": lambda L, d: I(L).calculate_gain("leaky_relu", 0.5),
    "calculate_gain/leaky_int_param": lambda L, d: I(L).calculate_gain("leaky_relu", 1),
    "calculate_gain/leaky_bool_param": lambda L, d: I(L).calculate_gain("leaky_relu", True),
    "calculate_gain/leaky_str_param": lambda L, d: I(L).calculate_gain("leaky_relu", "0.1"),
    "calculate_gain/unknown": lambda L, d: I(L).calculate_gain("gelu"),
    "calculate_gain/none": lambda L, d: I(L).calculate_gain(None),
    # ---- deterministic fills
    "constant_/ok": lambda L, d: filled(L, d, lambda t: I(L).constant_(t, 2.5), 2, 3),
    "constant_/nan": lambda L, d: filled(L, d, lambda t: I(L).constant_(t, N), 2),
    "constant_/int_tensor_float": lambda L, d: filled(L, d, lambda t: I(L).constant_(t, 2.7), 3, dtype="int64"),
    "constant_/0d": lambda L, d: filled(L, d, lambda t: I(L).constant_(t, 1.5)),
    "constant_/empty": lambda L, d: filled(L, d, lambda t: I(L).constant_(t, 1.5), 0, 4),
    "zeros_/ok": lambda L, d: I(L).zeros_(L.ones(2, 2, device=d)),
    "ones_/int": lambda L, d: I(L).ones_(L.zeros(3, device=d, dtype=L.int32)),
    "eye_/ok": lambda L, d: filled(L, d, I(L).eye_, 2, 3),
    "eye_/1d": lambda L, d: I(L).eye_(E(L, d, 3)),
    "eye_/3d": lambda L, d: I(L).eye_(E(L, d, 2, 2, 2)),
    "eye_/empty_ok": lambda L, d: filled(L, d, I(L).eye_, 0, 3),
    "dirac_/ok": lambda L, d: filled(L, d, I(L).dirac_, 2, 2, 3),
    "dirac_/4d_ok": lambda L, d: filled(L, d, I(L).dirac_, 3, 2, 3, 3),
    "dirac_/2d": lambda L, d: I(L).dirac_(E(L, d, 2, 2)),
    "dirac_/6d": lambda L, d: I(L).dirac_(E(L, d, 1, 1, 1, 1, 1, 1)),
    "dirac_/groups_ok": lambda L, d: filled(L, d, lambda t: I(L).dirac_(t, groups=2), 4, 2, 3),
    "dirac_/groups_not_dividing": lambda L, d: I(L).dirac_(E(L, d, 3, 2, 3), groups=2),
    "dirac_/groups_zero": lambda L, d: I(L).dirac_(E(L, d, 2, 2, 3), groups=0),
    "dirac_/more_in_than_out": lambda L, d: filled(L, d, I(L).dirac_, 2, 5, 3),
    # ---- orthogonal_, sparse_, trunc_normal_, uniform_, normal_
    "orthogonal_/1d": lambda L, d: I(L).orthogonal_(E(L, d, 4)),
    "orthogonal_/0d": lambda L, d: I(L).orthogonal_(E(L, d)),
    "orthogonal_/empty": S(lambda L, d: I(L).orthogonal_(E(L, d, 0, 3))),
    "orthogonal_/wide_ok": lambda L, d: (lambda t: L.allclose(t @ t.T, L.eye(3, device=d), atol=1e-5))(
        I(L).orthogonal_(E(L, d, 3, 5))),
    "orthogonal_/tall_ok": lambda L, d: (lambda t: L.allclose(t.T @ t, L.eye(3, device=d), atol=1e-5))(
        I(L).orthogonal_(E(L, d, 5, 3))),
    "orthogonal_/4d_ok": S(lambda L, d: I(L).orthogonal_(E(L, d, 2, 3, 2, 2), gain=2.0)),
    "sparse_/ok": lambda L, d: int((I(L).sparse_(E(L, d, 10, 4), sparsity=0.5) == 0).sum()),
    "sparse_/3d": lambda L, d: I(L).sparse_(E(L, d, 2, 2, 2), sparsity=0.5),
    "sparse_/1d": lambda L, d: I(L).sparse_(E(L, d, 4), sparsity=0.5),
    "sparse_/sparsity_one": lambda L, d: int((I(L).sparse_(E(L, d, 4, 3), sparsity=1.0) == 0).sum()),
    "sparse_/sparsity_negative": S(lambda L, d: I(L).sparse_(E(L, d, 4, 3), sparsity=-0.5)),
    "trunc_normal_/ok_bounds": lambda L, d: (lambda t: bool((t >= -0.5).all() and (t <= 0.5).all()))(
        I(L).trunc_normal_(E(L, d, 1000), a=-0.5, b=0.5)),
    "trunc_normal_/swapped_bounds": S(lambda L, d: I(L).trunc_normal_(E(L, d, 10), a=1.0, b=-1.0)),
    "trunc_normal_/int_tensor": lambda L, d: I(L).trunc_normal_(E(L, d, 4, dtype="int64")),
    "trunc_normal_/empty_ok": S(lambda L, d: I(L).trunc_normal_(E(L, d, 0))),
    "uniform_/swapped": lambda L, d: I(L).uniform_(E(L, d, 4), a=1.0, b=0.0),
    "uniform_/equal_ok": lambda L, d: I(L).uniform_(E(L, d, 3), a=2.0, b=2.0),
    "normal_/negative_std": lambda L, d: I(L).normal_(E(L, d, 4), std=-1.0),
    "normal_/zero_std_ok": lambda L, d: I(L).normal_(E(L, d, 3), mean=1.5, std=0.0),
    "normal_/int_tensor": lambda L, d: I(L).normal_(E(L, d, 3, dtype="int64")),
    "uniform_/int_tensor": S(lambda L, d: I(L).uniform_(E(L, d, 3, dtype="int64"), 0, 10)),
    "uniform_/generator_ok": lambda L, d: L.equal(
        I(L).uniform_(E(L, d, 5), generator=L.Generator(device=d).manual_seed(3)),
        I(L).uniform_(E(L, d, 5), generator=L.Generator(device=d).manual_seed(3))),
    # ---- on parameters that require grad (the fills run without recording)
    "xavier_uniform_/parameter_ok": lambda L, d: (lambda p: (I(L).xavier_uniform_(p).requires_grad,
                                                             p.grad_fn is None))(
        L.nn.Parameter(E(L, d, 3, 4))),
    "constant_/leaf_requires_grad": lambda L, d: I(L).constant_(L.zeros(3, device=d, requires_grad=True),
                                                                1.0).requires_grad,
}

KNOWN = {}
