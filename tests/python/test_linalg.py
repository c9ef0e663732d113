"""Matrix products (matmul/@, mm, bmm, mv, dot, outer, addmm) against PyTorch: values, dtypes, shapes,
broadcasting, strided inputs, empty dims and error messages."""
import math

import pytest
import torch

import tandem

ALL_DTYPES = ["uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]


def to_tandem(t, device="cpu"):
    """A contiguous tandem copy of a torch tensor (flattened so empty shapes survive the list round trip)."""
    dtype = getattr(tandem, str(t.dtype).split(".")[1])
    # tandem.tensor(floats, dtype=float64) currently rounds through the default dtype; build float64 data
    # with float64 as the default so the inputs are exact.
    previous = tandem.get_default_dtype()
    tandem.set_default_dtype(tandem.float64)
    try:
        flat = tandem.tensor(t.flatten().tolist(), dtype=dtype, device=device)
    finally:
        tandem.set_default_dtype(previous)
    return flat.reshape(tuple(t.shape))


def check(result, expected, rtol=None, atol=None):
    assert str(result.dtype).split(".")[1] == str(expected.dtype).split(".")[1]
    assert tuple(result.shape) == tuple(expected.shape)
    values = [result.tolist()] if result.dim() == 0 else result.reshape(-1).tolist()
    got = torch.tensor(values, dtype=expected.dtype).reshape(expected.shape)
    torch.testing.assert_close(got, expected, rtol=rtol, atol=atol, equal_nan=True)


def small_ints(shape, dtype, seed):
    """Values in [-3, 3] (or [0, 3] for uint8): every product and sum is exact in every dtype."""
    g = torch.Generator().manual_seed(seed)
    low = 0 if dtype == "uint8" else -3
    return torch.randint(low, 4, shape, generator=g).to(getattr(torch, dtype))


def randn(shape, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(shape, generator=g, dtype=torch.float64).to(getattr(torch, dtype))


MATMUL_SHAPES = [
    ((3,), (3,)),
    ((2, 3), (3,)),
    ((3,), (3, 4)),
    ((2, 3), (3, 4)),
    ((1, 1), (1, 1)),
    ((5, 1), (1, 4)),
    ((2, 5, 3), (3,)),
    ((2, 5, 3), (3, 4)),
    ((3,), (2, 3, 4)),
    ((5, 3), (2, 3, 4)),
    ((2, 5, 3), (2, 3, 4)),
    ((2, 5, 3), (1, 3, 4)),
    ((1, 5, 3), (6, 3, 4)),
    ((2, 1, 5, 3), (3, 3, 4)),
    ((4, 1, 2, 3), (1, 5, 3, 2)),
    ((2, 2, 2, 3), (3,)),
    ((3,), (2, 2, 3, 2)),
    ((0, 3), (3, 4)),
    ((2, 0), (0, 4)),
    ((0,), (0,)),
    ((2, 3), (3, 0)),
    ((0, 2, 3), (3, 4)),
    ((2, 0, 3), (2, 3, 4)),
    ((2, 4, 0), (2, 0, 5)),
    ((0, 4, 3), (1, 3, 5)),
    ((2, 4, 0), (0, 5)),
    ((2, 4, 0), (0,)),
    ((2, 0, 0), (0, 0)),
    ((3,), (2, 3, 0)),
    ((0, 4, 3), (3,)),
]


@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_matmul_shapes(sa, sb, dtype, device):
    a, b = small_ints(sa, dtype, 1), small_ints(sb, dtype, 2)
    ta, tb = to_tandem(a, device), to_tandem(b, device)
    check(ta @ tb, a @ b)
    check(tandem.matmul(ta, tb), torch.matmul(a, b))
    check(ta.matmul(tb), a.matmul(b))


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("sa,sb", [((3,), (3,)), ((4, 3), (3,)), ((3,), (3, 5)), ((4, 3), (3, 5)),
                                   ((2, 4, 3), (2, 3, 5)), ((2, 4, 3), (3, 5)), ((4, 3), (2, 3, 5))])
def test_matmul_dtypes(dtype, sa, sb, device):
    a, b = small_ints(sa, dtype, 3), small_ints(sb, dtype, 4)
    check(to_tandem(a, device) @ to_tandem(b, device), a @ b)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (7, 5, 3), (1, 64, 33), (33, 64, 1), (1, 100, 1), (65, 130, 70)])
def test_matmul_random_values(dtype, m, k, n, device):
    a, b = randn((m, k), dtype, 5), randn((k, n), dtype, 6)
    check(to_tandem(a, device) @ to_tandem(b, device), a @ b)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_matmul_half_random_values(dtype, device):
    a, b = randn((9, 40), dtype, 7), randn((40, 11), dtype, 8)
    # Both accumulate in float and round once; allow one unit of the 16-bit format.
    check(to_tandem(a, device) @ to_tandem(b, device), a @ b, rtol=2e-2, atol=2e-2)


def test_integer_overflow_wraps(device):
    a = torch.full((2, 2), 100, dtype=torch.int8)
    check(to_tandem(a, device) @ to_tandem(a, device), a @ a)
    big = torch.full((3, 3), 2**62, dtype=torch.int64)
    check(to_tandem(big, device) @ to_tandem(big, device), big @ big)
    u = torch.full((2, 4), 200, dtype=torch.uint8)
    check(to_tandem(u, device) @ to_tandem(u.T.contiguous(), device), u @ u.T)


# Strided views of a (4, 6) matrix `a` and a (6, 5) matrix `b`, built the same way on both sides.
VIEWS = {
    "contiguous": lambda x: x,
    "transposed": lambda x: x.T.contiguous().T,
    "narrowed": lambda x: x.transpose(0, 1).contiguous().transpose(0, 1).narrow(1, 0, x.shape[1]),
}


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "float16"])
@pytest.mark.parametrize("view_a", ["contiguous", "transposed", "col_slice", "row_step", "both_strided", "expanded"])
@pytest.mark.parametrize("view_b", ["contiguous", "transposed", "col_slice", "row_step", "both_strided", "expanded"])
def test_matmul_strided_operands(dtype, view_a, view_b, device):
    def make(rows, cols, kind, seed):
        if kind == "contiguous":
            base = small_ints((rows, cols), dtype, seed)
            return base, to_tandem(base, device)
        if kind == "transposed":
            base = small_ints((cols, rows), dtype, seed)
            return base.T, to_tandem(base, device).T
        if kind == "col_slice":  # rows with a stride larger than their length
            base = small_ints((rows, cols + 3), dtype, seed)
            return base.narrow(1, 2, cols), to_tandem(base, device).narrow(1, 2, cols)
        if kind == "row_step":  # transposed and sliced: unit row stride, padded column stride
            base = small_ints((cols, rows + 2), dtype, seed)
            return base.T.narrow(0, 1, rows), to_tandem(base, device).T.narrow(0, 1, rows)
        if kind == "both_strided":  # neither stride is 1: must be copied for BLAS
            base = small_ints((rows, cols, 2), dtype, seed)
            return base.select(2, 1), to_tandem(base, device).select(2, 1)
        base = small_ints((1, cols), dtype, seed)  # stride 0 rows
        return base.expand(rows, cols), to_tandem(base, device).expand(rows, cols)

    a, ta = make(4, 6, view_a, 1)
    b, tb = make(6, 5, view_b, 2)
    check(ta @ tb, a @ b)
    check(ta.narrow(0, 0, 1) @ tb, a.narrow(0, 0, 1) @ b)  # a single row: gemv on b
    check(ta @ tb.narrow(1, 2, 1), a @ b.narrow(1, 2, 1))  # a single column: gemv on a
    check(ta @ tb.select(1, 3), a @ b.select(1, 3))  # matrix @ strided vector
    check(ta.select(0, 2) @ tb, a.select(0, 2) @ b)  # strided vector @ matrix
    check(ta.select(0, 1) @ tb.select(1, 0), a.select(0, 1) @ b.select(1, 0))  # dot of strided vectors


@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_batched_strided_and_broadcast(dtype, device):
    a = small_ints((3, 4, 5), dtype, 1)
    b = small_ints((5, 3, 2), dtype, 2)
    ta, tb = to_tandem(a, device), to_tandem(b, device)
    check(ta @ tb.permute(1, 0, 2), a @ b.permute(1, 0, 2))
    check(ta.transpose(1, 2).transpose(1, 2) @ tb.permute(1, 0, 2), a @ b.permute(1, 0, 2))
    check(ta.permute(0, 2, 1).mT @ tb.permute(1, 0, 2), a.permute(0, 2, 1).mT @ b.permute(1, 0, 2))
    check(ta.permute(1, 0, 2) @ tb.select(1, 0), a.permute(1, 0, 2) @ b.select(1, 0))  # folded after a copy
    v = small_ints((1, 5, 2), dtype, 3)
    check(ta @ to_tandem(v, device).expand(3, 5, 2), a @ v.expand(3, 5, 2))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "bfloat16"])
def test_explicit_products(dtype, device):
    m, k, n = 4, 3, 5
    a, b = small_ints((m, k), dtype, 1), small_ints((k, n), dtype, 2)
    v, w = small_ints((k,), dtype, 3), small_ints((k,), dtype, 4)
    b1, b2 = small_ints((2, m, k), dtype, 5), small_ints((2, k, n), dtype, 6)
    ta, tb, tv, tw = (to_tandem(x, device) for x in (a, b, v, w))
    check(tandem.mm(ta, tb), torch.mm(a, b))
    check(ta.mm(tb), a.mm(b))
    check(tandem.mv(ta, tv), torch.mv(a, v))
    check(ta.mv(tv), a.mv(v))
    check(tandem.dot(tv, tw), torch.dot(v, w))
    check(tv.dot(tw), v.dot(w))
    check(tandem.vdot(tv, tw), torch.vdot(v, w) if dtype.startswith("float") else torch.dot(v, w))
    check(tandem.outer(tv, tw), torch.outer(v, w))
    check(tandem.ger(tv, tw), torch.outer(v, w))
    check(tandem.bmm(to_tandem(b1, device), to_tandem(b2, device)), torch.bmm(b1, b2))
    check(to_tandem(b1, device).bmm(to_tandem(b2, device)), b1.bmm(b2))


def test_outer_promotes_and_supports_bool(device):
    a = torch.tensor([1, 2, 3], dtype=torch.int32)
    b = torch.tensor([0.5, 2.0])
    check(tandem.outer(to_tandem(a, device), to_tandem(b, device)), torch.outer(a, b))
    t = torch.tensor([True, False])
    check(tandem.outer(to_tandem(t, device), to_tandem(t, device)), torch.outer(t, t))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "float16"])
@pytest.mark.parametrize("input_shape", [(4, 5), (5,), (1, 5), (4, 1), ()])
@pytest.mark.parametrize("beta,alpha", [(1, 1), (2, 3), (0, 1), (0, 2)])
def test_addmm(dtype, input_shape, beta, alpha, device):
    inp = small_ints(input_shape, dtype, 1)
    a, b = small_ints((4, 3), dtype, 2), small_ints((3, 5), dtype, 3)
    expected = torch.addmm(inp, a, b, beta=beta, alpha=alpha)
    ti, ta, tb = to_tandem(inp, device), to_tandem(a, device), to_tandem(b, device)
    check(tandem.addmm(ti, ta, tb, beta=beta, alpha=alpha), expected)
    check(ti.expand(4, 5).addmm(ta, tb, beta=beta, alpha=alpha), expected)


def test_addmm_float_scalars_and_nan_input(device):
    inp = torch.full((3,), float("nan"))
    a, b = randn((3, 2), "float32", 1), randn((2, 3), "float32", 2)
    ti, ta, tb = to_tandem(inp, device), to_tandem(a, device), to_tandem(b, device)
    check(tandem.addmm(ti, ta, tb, beta=0), torch.addmm(inp, a, b, beta=0))
    inp = randn((3, 3), "float32", 3)
    check(tandem.addmm(to_tandem(inp, device), ta, tb, beta=0.5, alpha=-1.5),
          torch.addmm(inp, a, b, beta=0.5, alpha=-1.5))
    # An empty inner dim: the product is zero, beta * input remains.
    e1, e2 = torch.ones(3, 0), torch.ones(0, 3)
    check(tandem.addmm(to_tandem(inp, device), to_tandem(e1, device), to_tandem(e2, device), beta=2),
          torch.addmm(inp, e1, e2, beta=2))


def test_uninitialised_output_never_leaks(device):
    # k == 0 products and beta == 0 must write zeros, whatever the fresh memory held.
    for _ in range(3):
        r = tandem.zeros(50, 0) @ tandem.zeros(0, 60)
        assert r.tolist() == [[0.0] * 60] * 50
        r = tandem.zeros(7, 0, dtype=tandem.int32) @ tandem.zeros(0, 3, dtype=tandem.int32)
        assert r.tolist() == [[0] * 3] * 7


def test_large_float32_matches_torch(device):
    a, b = randn((300, 200), "float32", 1), randn((200, 250), "float32", 2)
    check(to_tandem(a, device) @ to_tandem(b, device), a @ b, rtol=1e-4, atol=1e-4)
    check(to_tandem(a, device).T @ to_tandem(a, device), a.T @ a, rtol=1e-4, atol=1e-4)


def errors_match(tandem_fn, torch_fn):
    with pytest.raises(Exception) as expected:
        torch_fn()
    with pytest.raises(Exception) as got:
        tandem_fn()
    assert type(got.value).__name__ == type(expected.value).__name__
    lines = str(got.value).split("\n")
    assert lines[0] == str(expected.value).split("\n")[0]
    return lines


F32, F64 = "float32", "float64"
ERROR_CASES = [
    ("matmul", ((2, 3), F32), ((4, 5), F32)),
    ("matmul", ((2, 3), F32), ((3, 5), F64)),
    ("matmul", ((2, 3), F32), ((4, 5), F64)),
    ("matmul", ((3,), F32), ((3,), F64)),
    ("matmul", ((3,), F32), ((4,), F32)),
    ("matmul", ((2, 3), F32), ((3,), F64)),
    ("matmul", ((3, 4), F32), ((3,), F32)),
    ("matmul", ((3,), F32), ((4, 3), F32)),
    ("matmul", ((2, 2, 3), F32), ((3, 2), F64)),
    ("matmul", ((2, 2, 3), F32), ((4, 3), F32)),
    ("matmul", ((2, 3, 4), F32), ((3,), F32)),
    ("matmul", ((2, 2, 3), F32), ((2, 3, 2), F64)),
    ("matmul", ((2, 3), F32), ((2, 3, 2), F64)),
    ("matmul", ((2, 3, 4), F32), ((2, 5, 3), F32)),
    ("matmul", ((2, 3, 4), F32), ((3, 4, 3), F32)),
    ("matmul", ((3,), F32), ((2, 4, 3), F32)),
    ("matmul", ((), F32), ((2, 2), F32)),
    ("matmul", ((2, 2), F32), ((), F32)),
    ("matmul", ((), F32), ((), F32)),
    ("matmul", ((2, 2), "bool"), ((2, 2), "bool")),
    ("matmul", ((2, 2), "bool"), ((2,), "bool")),
    ("matmul", ((2,), "bool"), ((2,), "bool")),
    ("matmul", ((2, 2, 2), "bool"), ((2, 2, 2), "bool")),
    ("matmul", ((2, 2), F32), ((2, 2), "float16")),
    ("matmul", ((2, 2), "int32"), ((2, 2), "int64")),
    ("matmul", ((2, 2), "bfloat16"), ((2, 2), "int8")),
    ("matmul", ((2, 2), "uint8"), ((2, 2), "int16")),
    ("matmul", ((2, 2), "bool"), ((2, 2), F64)),
    ("mm", ((3,), F32), ((3, 4), F32)),
    ("mm", ((4, 3), F32), ((3,), F32)),
    ("mm", ((2, 3, 1), F32), ((3, 1, 1), F32)),
    ("mm", ((2, 3), F32), ((4, 5), F32)),
    ("mm", ((2, 3), F32), ((3, 5), F64)),
    ("bmm", ((3, 4), F32), ((3, 4, 3), F32)),
    ("bmm", ((2, 3, 3), F32), ((3, 1), F32)),
    ("bmm", ((2, 3, 4), F32), ((2, 5, 3), F32)),
    ("bmm", ((2, 2, 3), F32), ((3, 3, 2), F64)),
    ("bmm", ((2, 2, 3), F32), ((2, 3, 2), F64)),
    ("mv", ((3, 4), F32), ((3,), F32)),
    ("mv", ((3,), F32), ((3,), F32)),
    ("mv", ((2, 3), F32), ((3, 1), F32)),
    ("mv", ((2, 3), F64), ((3,), F32)),
    ("mv", ((2, 3), F32), ((4,), F64)),
    ("dot", ((3,), F32), ((4,), F32)),
    ("dot", ((2,), F32), ((3,), F64)),
    ("dot", ((2, 1), F32), ((3,), F32)),
    ("dot", ((2,), F32), ((3, 1), F32)),
    ("outer", ((2,), F32), ((3, 1), F32)),
    ("outer", ((2, 1), F32), ((3,), F32)),
]


@pytest.mark.parametrize("fn,a,b", ERROR_CASES)
def test_errors_match_torch(fn, a, b):
    def make(lib, spec):
        shape, dtype = spec
        return lib.ones(shape, dtype=getattr(lib, dtype))

    lines = errors_match(lambda: getattr(tandem, fn)(make(tandem, a), make(tandem, b)),
                         lambda: getattr(torch, fn)(make(torch, a), make(torch, b)))
    assert len(lines) >= 2 and lines[1].startswith("hint: ")


def test_dtype_error_hint_names_the_fix():
    a, b = tandem.ones(2, 3), tandem.ones(3, 2, dtype=tandem.float64)
    with pytest.raises(RuntimeError) as e:
        a @ b
    assert "expected m1 and m2 to have the same dtype, but got: float != double" in str(e.value)
    assert ".float()" in str(e.value) and "astype(np.float32)" in str(e.value)


@pytest.mark.parametrize("inp,m1,m2", [
    (((3,), F32), ((3,), F32), ((2, 3), F32)),
    (((3,), F32), ((3, 2), F32), ((3,), F32)),
    (((3,), F32), ((3, 2), F32), ((3, 3), F32)),
    (((4,), F32), ((3, 2), F32), ((2, 3), F32)),
    (((2, 3), F32), ((3, 2), F32), ((2, 3), F32)),
    (((3,), F32), ((3, 2), F32), ((2, 3), F64)),
    (((3,), F32), ((3, 2), F64), ((2, 3), F64)),
    (((3,), F64), ((3, 2), F64), ((2, 3), F32)),
    (((3,), F32), ((3, 2), F64), ((2, 3), F32)),
    (((3,), "bool"), ((3, 2), "bool"), ((2, 3), "bool")),
])
def test_addmm_errors_match_torch(inp, m1, m2):
    def make(lib, spec):
        return lib.ones(spec[0], dtype=getattr(lib, spec[1]))

    errors_match(lambda: tandem.addmm(*(make(tandem, s) for s in (inp, m1, m2))),
                 lambda: torch.addmm(*(make(torch, s) for s in (inp, m1, m2))))


def test_non_tensor_operands():
    t = tandem.ones(2, 2)
    with pytest.raises(TypeError, match="unsupported operand type"):
        t @ [1, 2]
    with pytest.raises(TypeError, match="unsupported operand type"):
        [1, 2] @ t
    with pytest.raises(TypeError):
        tandem.mm(t, 2)
    with pytest.raises(TypeError):
        tandem.matmul(t, [[1.0]])


def test_rmatmul_with_tensor():
    a, b = torch.tensor([[1.0, 2.0]]), torch.tensor([[3.0], [4.0]])
    check(to_tandem(b).__rmatmul__(to_tandem(a)), a @ b)


def test_result_is_fresh_memory():
    a = tandem.ones(3, 3)
    r = a @ a
    assert not r._is_view_of(a)
    assert r.is_contiguous() and math.isclose(r.tolist()[0][0], 3.0)
