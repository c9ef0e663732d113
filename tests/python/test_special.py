"""The special functions and the integer/bit ops of issue 14 against PyTorch: values at the edges (signed zeros,
poles, negative integers, infinities, NaN, huge and tiny arguments), accuracy sweeps in float64 (tails of
log_ndtr/ndtri/erfcx, both sides of the Bessel series/asymptotic switch), dtype rules and errors, the scalar
forms and operators, gradients and node names, and tandem.special's names. test_op_list.py, test_elementwise.py
and test_out_arg.py cover every dtype pair, out= and gradcheck of each op of the list."""
import math

import numpy as np

import pytest
import torch

import tandem
from oracle import assert_same, from_torch, to_torch

UNARY = ["lgamma", "digamma", "i0", "i0e", "i1", "i1e", "sinc", "erfcx", "ndtr", "ndtri", "log_ndtr", "entr",
         "logit", "frac"]
SPECIAL = [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, -3.0, 0.5, -0.5, 1.5, -2.5, 0.25, 0.999, 1e-300, -1e-300, 1e-8, 3.0,
           10.0, -10.5, 29.9, 30.1, -30.1, 100.0, -100.0, 700.0, 1e10, -1e10, 1e30, -1e30, float("inf"),
           float("-inf"), float("nan")]


def torch_fn(name):
    return getattr(torch, name) if hasattr(torch, name) else getattr(torch.special, name)


def values(got):
    return to_torch(got)


@pytest.mark.parametrize("op", UNARY)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_unary_special_values(op, dtype, device):
    x = torch.tensor(SPECIAL, dtype=getattr(torch, dtype))
    expected = torch_fn(op)(x)
    got = getattr(tandem, op)(from_torch(x, device))
    tol = {"float32": (4e-6, 1e-30), "float64": (2e-14, 1e-300)}[dtype]
    if op == "ndtr":  # PyTorch's (1 + erf(x/sqrt 2)) / 2 cancels below -8: 0 where tandem's erfc form is not
        tol = (tol[0], {"float32": 1e-7, "float64": 2e-16}[dtype])
    assert_same(got, expected, rtol=tol[0], atol=tol[1])
    zero = expected == 0
    assert torch.equal(torch.signbit(values(got)[zero]), torch.signbit(expected[zero])), "signs of zero differ"


# (op, low, high) sweeps, float64, against PyTorch's values
SWEEPS = [("lgamma", -20.5, 60.0), ("digamma", -20.3, 60.0), ("i0", -60.0, 60.0), ("i0e", -700.0, 700.0),
          ("i1", -60.0, 60.0), ("i1e", -700.0, 700.0), ("sinc", -20.0, 20.0), ("erfcx", -26.0, 60.0),
          ("ndtr", -37.0, 9.0), ("log_ndtr", -60.0, 12.0), ("ndtri", 1e-6, 1 - 1e-6), ("entr", 0.0, 50.0),
          ("logit", 1e-6, 1 - 1e-6), ("frac", -50.0, 50.0)]


@pytest.mark.parametrize("op,low,high", SWEEPS, ids=[s[0] for s in SWEEPS])
def test_float64_accuracy_sweep(op, low, high):
    x = torch.linspace(low, high, 4001, dtype=torch.float64)
    got = values(getattr(tandem, op)(from_torch(x)))
    # digamma/lgamma pass through zeros (relative error grows there): an absolute floor
    torch.testing.assert_close(got, torch_fn(op)(x), rtol=1e-13, atol=1e-14, equal_nan=True)


def test_ndtr_keeps_its_lower_tail():
    x = [-10.5, -20.0, -37.0, -8.3, -3.0]
    want = [0.5 * math.erfc(-v / math.sqrt(2)) for v in x]
    got = tandem.special.ndtr(tandem.tensor(x, dtype=tandem.float64)).tolist()
    # (x / sqrt 2 rounds in both: relative differences grow as x^2 eps)
    assert all(math.isclose(g, w, rel_tol=1e-12) for g, w in zip(got, want)), (got, want)


def test_tails_of_the_normal_functions():
    p = torch.tensor([1e-308, 1e-300, 1e-200, 1e-100, 1e-50, 1e-20, 1e-10, 1e-5, 1e-3, 0.02, 0.3, 0.5],
                     dtype=torch.float64)
    p = torch.cat([p, 1 - p[6:]])
    torch.testing.assert_close(values(tandem.special.ndtri(from_torch(p))), torch.special.ndtri(p), rtol=1e-14, atol=0)
    x = torch.tensor([-1e30, -1e10, -1e5, -200.0, -38.5, -20.0, -5.0, -1.0, -0.5, 0.0, 5.0, 10.0, 30.0, 1e5],
                     dtype=torch.float64)
    torch.testing.assert_close(values(tandem.special.log_ndtr(from_torch(x))), torch.special.log_ndtr(x), rtol=1e-14,
                               atol=0)
    y = torch.tensor([-26.5, -5.0, 0.0, 1.0, 25.9, 26.1, 1e3, 1e10, 1e200, 1e300], dtype=torch.float64)
    torch.testing.assert_close(values(tandem.special.erfcx(from_torch(y))), torch.special.erfcx(y), rtol=1e-14, atol=0)


def _ordered_bits(x):
    """float32 values as integers that count ulps across zero too."""
    bits = x.view(np.int32).astype(np.int64)
    return np.where(bits < 0, -(bits & 0x7FFFFFFF), bits)


def test_float32_ndtri_is_within_one_ulp_everywhere(device):
    # Every 4099th float in (0, 1), the smallest subnormals, both sides of the central/tail switch at
    # |p - 1/2| = 0.425, and the floats next to 1/2 and 1.
    p = np.arange(1, np.float32(1).view(np.int32), 4099, dtype=np.int32).view(np.float32)
    edges = np.array([1.4e-45, 2.8e-45, 1e-40, 1.17549435e-38, 0.075, 0.07499999, 0.07500001, 0.925, 0.92499995,
                      0.92500001, np.nextafter(np.float32(0.5), np.float32(0)), 0.5,
                      np.nextafter(np.float32(0.5), np.float32(1)), np.nextafter(np.float32(1), np.float32(0))],
                     dtype=np.float32)
    p = np.concatenate([p, edges])
    got = tandem.special.ndtri(tandem.tensor(p, device=device))
    assert got.dtype == tandem.float32 and got.device == tandem.device(device)
    want = torch.special.ndtri(torch.from_numpy(p).double()).float().numpy()
    ulps = np.abs(_ordered_bits(got.cpu().numpy()) - _ordered_bits(want))
    assert ulps.max() <= 1, (p[ulps.argmax()], got.cpu().numpy()[ulps.argmax()], want[ulps.argmax()])
    special = tandem.tensor([0.0, -0.0, 1.0, -0.5, 1.5, math.nan, math.inf, -math.inf], device=device)
    assert tandem.special.ndtri(special).tolist()[:3] == [-math.inf, -math.inf, math.inf]
    assert all(math.isnan(v) for v in tandem.special.ndtri(special).tolist()[3:])


@pytest.mark.parametrize("op", UNARY + ["signbit"])
def test_half_precision_within_one_step(op, device):
    x = torch.linspace(-6.3, 6.3, 57, dtype=torch.float32)
    if op in ("ndtri", "logit"):
        x = torch.linspace(0.01, 0.99, 57, dtype=torch.float32)
    for dtype in (torch.float16, torch.bfloat16):
        xs = x.to(dtype)
        got = getattr(tandem, op)(from_torch(xs, device))
        try:
            expected = torch_fn(op)(xs)
        except NotImplementedError:  # PyTorch's CPU erfcx/ndtri/log_ndtr have no 16-bit kernels; tandem's do
            expected = torch_fn(op)(xs.float()).to(dtype)
        tol = 2e-3 if dtype == torch.float16 else 1.6e-2  # computed in float32 or float64, rounded once
        if op == "signbit":
            assert_same(got, expected)
        else:
            assert_same(got, expected, rtol=tol, atol=tol)


def test_dtype_rules_and_errors(device):
    ints = tandem.tensor([0, -1, 3], device=device)
    for op in UNARY[:-1]:
        assert getattr(tandem, op)(ints).dtype == tandem.float32
    assert tandem.lgamma(ints).tolist()[:2] == [math.inf, math.inf]
    with pytest.raises(NotImplementedError, match="^\"frac_cpu\" not implemented for 'Long'"):
        tandem.frac(ints)
    with pytest.raises(NotImplementedError, match="^\"frac_cpu\" not implemented for 'Bool'"):
        tandem.frac(ints > 0)
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired output type Long"):
        ints.lgamma_()
    x = tandem.tensor([0.5, -0.0], device=device)
    assert x.lgamma_() is x and x.tolist()[1] == math.inf


def test_signbit_of_every_dtype(device):
    f = torch.tensor([0.0, -0.0, -1.5, 2.0, float("inf"), float("-inf"), float("nan"), -float("nan")])
    for dtype in (torch.float64, torch.float32, torch.float16, torch.bfloat16):
        assert_same(tandem.signbit(from_torch(f.to(dtype), device)), torch.signbit(f.to(dtype)))
    for dtype in (torch.int8, torch.int64, torch.uint8, torch.bool):
        i = torch.tensor([0, 1, 5], dtype=dtype) if dtype in (torch.uint8, torch.bool) else torch.tensor([0, -3, 5],
                                                                                                       dtype=dtype)
        assert_same(tandem.signbit(from_torch(i, device)), torch.signbit(i))
    assert from_torch(f, device).signbit().grad_fn is None


def test_gcd_lcm_with_pytorchs_signs(device):
    a = torch.tensor([-12, 12, -12, 0, 0, 4, 7, -(2**63), 2**62])
    b = torch.tensor([18, -18, -18, 0, -5, 6, 0, 0, 6])
    for op in ("gcd", "lcm"):
        assert_same(getattr(tandem, op)(from_torch(a, device), from_torch(b, device)), getattr(torch, op)(a, b))
    i8 = torch.tensor([100, -100, -128, 3], dtype=torch.int8)
    j8 = torch.tensor([3, 3, 0, -128], dtype=torch.int8)
    for op in ("gcd", "lcm"):
        assert_same(getattr(tandem, op)(from_torch(i8, device), from_torch(j8, device)), getattr(torch, op)(i8, j8))
    mixed = getattr(tandem, "gcd")(from_torch(i8, device), from_torch(b[:4].int(), device))
    assert_same(mixed, torch.gcd(i8, b[:4].int()))
    assert tandem.gcd(from_torch(a, device), tandem.tensor(6)).tolist() == torch.gcd(a, torch.tensor(6)).tolist()
    with pytest.raises(TypeError, match=r"^gcd\(\): argument 'other' \(position 2\) must be Tensor, not int"):
        tandem.gcd(from_torch(a, device), 6)  # PyTorch takes tensors only
    x = from_torch(a.clone(), device)
    assert x.gcd_(from_torch(b, device)) is x and x.tolist() == torch.gcd(a, b).tolist()
    for op, kernel in (("gcd", "gcd_cpu"), ("lcm", "lcm_cpu")):
        with pytest.raises(NotImplementedError, match=f"^\"{kernel}\" not implemented for 'Float'"):
            getattr(tandem, op)(tandem.tensor([1.0], device=device), tandem.tensor([2], device=device))
        with pytest.raises(NotImplementedError, match=f"^\"{kernel}\" not implemented for 'Bool'"):
            getattr(tandem, op)(tandem.tensor([True], device=device), tandem.tensor([False], device=device))


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64"])
def test_shifts_at_and_past_the_width(dtype, device):
    td = getattr(torch, dtype)
    a = torch.tensor([1, 5, 127, 0, 3] + ([] if dtype == "uint8" else [-1, -5, -128]), dtype=td)
    amounts = [0, 1, 7, 8, 9, 15, 16, 31, 32, 63, 64, 100] + ([] if dtype == "uint8" else [-1, -64])
    a2, s2 = a.reshape(-1, 1), torch.tensor(amounts, dtype=td).reshape(1, -1)
    ta, ts = from_torch(a2, device), from_torch(s2, device)
    assert_same(tandem.bitwise_left_shift(ta, ts), torch.bitwise_left_shift(a2, s2))
    assert_same(tandem.bitwise_right_shift(ta, ts), torch.bitwise_right_shift(a2, s2))
    assert_same(ta << ts, a2 << s2)
    assert_same(ta >> ts, a2 >> s2)
    for s in (0, 3, 9, 70):
        assert_same(ta << s, a2 << s)
        assert_same(ta >> s, a2 >> s)


def test_shift_operators_and_errors(device):
    x = tandem.tensor([1, 2, -8], device=device)
    assert (1 << x).tolist() == (1 << torch.tensor([1, 2, -8])).tolist()
    assert (64 >> tandem.tensor([1, 2, 3], device=device)).tolist() == [32, 16, 8]
    y = x.clone()
    y <<= 2
    assert y.tolist() == [4, 8, -32]
    y >>= tandem.tensor([1, 1, 1], device=device)
    assert y.tolist() == [2, 4, -16]
    assert (tandem.tensor([True, False], device=device) << 1).tolist() == [2, 0]
    assert x.bitwise_left_shift_(1) is x and x.tolist() == [2, 4, -16]
    with pytest.raises(NotImplementedError, match="^\"lshift_cpu\" not implemented for 'Float'"):
        tandem.tensor([1.5], device=device) << 1
    with pytest.raises(NotImplementedError, match="^\"rshift_cpu\" not implemented for 'Bool'"):
        tandem.bitwise_right_shift(tandem.tensor([True], device=device), tandem.tensor([True], device=device))


def test_heaviside(device):
    x = torch.tensor([-1.0, 0.0, -0.0, 2.0, float("nan"), float("inf"), float("-inf")])
    v = torch.tensor([0.5, 0.5, 0.7, 0.5, 0.5, 0.5, 0.5])
    assert_same(tandem.heaviside(from_torch(x, device), from_torch(v, device)), torch.heaviside(x, v))
    i, j = torch.tensor([-3, 0, 4]), torch.tensor([7, 7, 7])
    assert_same(tandem.heaviside(from_torch(i, device), from_torch(j, device)), torch.heaviside(i, j))
    b, c = torch.tensor([True, False, False]), torch.tensor([True, True, False])
    assert_same(tandem.heaviside(from_torch(b, device), from_torch(c, device)), torch.heaviside(b, c))
    with pytest.raises(RuntimeError, match="^heaviside is not yet implemented for tensors with different dtypes."):
        tandem.heaviside(from_torch(i, device), from_torch(v[:3], device))
    t = from_torch(x, device)
    assert t.heaviside_(from_torch(v, device)) is t
    assert_same(t, torch.heaviside(x, v))


def test_xlogy_and_xlog1py_special_values(device):
    nan = float("nan")
    a = torch.tensor([0.0, 0.0, 1.0, nan, 0.0, 2.0, -0.0, 3.0], dtype=torch.float64).reshape(-1, 1)
    b = torch.tensor([0.0, nan, 0.0, 1.0, -1.0, -2.0, float("inf"), 0.5], dtype=torch.float64).reshape(1, -1)
    for op in ("xlogy", "xlog1py"):
        fn = getattr(tandem.special, op)
        assert_same(fn(from_torch(a, device), from_torch(b, device)), torch_fn(op)(a, b), rtol=1e-15, atol=0)
        assert_same(fn(from_torch(a, device), 2.0), torch_fn(op)(a, 2.0), rtol=1e-15, atol=0)
        assert_same(fn(0, from_torch(b, device)), torch_fn(op)(0, b), rtol=1e-15, atol=0)
    assert tandem.xlogy(tandem.tensor([2, 0], device=device), tandem.tensor([3, 0], device=device)).dtype == tandem.float32


@pytest.mark.parametrize("op", ["xlogy", "xlog1py"])
def test_xlogy_gradients_and_node_names(op, device):
    a = torch.tensor([0.0, 0.5, 2.0], dtype=torch.float64, requires_grad=True)
    b = torch.tensor([0.3, 1.5, 4.0], dtype=torch.float64, requires_grad=True)
    ta = from_torch(a.detach(), device).requires_grad_()
    tb = from_torch(b.detach(), device).requires_grad_()
    for tforms, forms in [((ta, tb), (a, b)), ((2.0, tb), (2.0, b)), ((ta, 2.0), (a, 2.0))]:
        got, expected = getattr(tandem.special, op)(*tforms), torch_fn(op)(*forms)
        assert got.grad_fn.name() == expected.grad_fn.name()
        got.sum().backward()
        expected.sum().backward()
        for t, r in ((ta, a), (tb, b)):
            if r.grad is not None:
                assert_same(t.grad, r.grad, rtol=1e-14, atol=1e-15)
            t.grad, r.grad = None, None


def test_nextafter(device):
    for dtype in (torch.float32, torch.float64, torch.float16, torch.bfloat16):
        info = torch.finfo(dtype)
        v = torch.tensor([0.0, -0.0, 1.0, -1.0, info.tiny, info.smallest_normal / 4, info.max, -info.max, 2.0, 0.5,
                          float("inf"), float("nan"), 1e-3], dtype=dtype)
        a, b = v.reshape(-1, 1), v.reshape(1, -1)
        assert_same(tandem.nextafter(from_torch(a, device), from_torch(b, device)), torch.nextafter(a, b), rtol=0,
                    atol=0)
    x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    tx = from_torch(x.detach(), device).requires_grad_()
    y = tandem.nextafter(tx, tandem.tensor([3.0, 0.0], dtype=tandem.float64, device=device))
    assert y.grad_fn.name() == "NextafterBackward0"
    y.sum().backward()
    assert tx.grad.tolist() == [1.0, 1.0]
    with pytest.raises(NotImplementedError, match="^\"nextafter_cpu\" not implemented for 'Long'"):
        tandem.nextafter(tandem.tensor([1], device=device), tandem.tensor([2], device=device))


def test_nextafter_random_bit_patterns_match_pytorch_exactly(device):
    # The kernel steps the bit pattern branch-free: every sign, exponent, subnormal, infinity and NaN pattern.
    rng = np.random.default_rng(11)
    for np_dtype, bits, dtype in ((np.float32, np.uint32, torch.float32), (np.float64, np.uint64, torch.float64)):
        raw = rng.integers(0, np.iinfo(bits).max, size=(2, 20_000), dtype=bits, endpoint=True)
        a, b = (torch.from_numpy(r.view(np_dtype).copy()) for r in raw)
        b[::3] = a[::3]  # equal arguments
        b[1::3] = -a[1::3]
        a[::7] = 0.0
        for x, y in ((a, b), (b, a)):
            got = tandem.nextafter(from_torch(x, device), from_torch(y, device)).cpu().numpy()
            want = torch.nextafter(x, y).numpy()
            same = (got.view(bits) == want.view(bits)) | (np.isnan(got) & np.isnan(want))
            assert same.all(), (x[~torch.from_numpy(same)][:3], y[~torch.from_numpy(same)][:3])


def test_zeta(device):
    s = torch.tensor([2.0, 3.0, 1.0, 0.5, -1.0, 2.0, 4.5, 2.0, 3.0, 1.1, 60.0], dtype=torch.float64)
    q = torch.tensor([1.0, 2.0, 1.0, 1.0, 1.0, -1.5, 0.25, -2.0, 1e-5, 100.0, 1.5], dtype=torch.float64)
    assert_same(tandem.special.zeta(from_torch(s, device), from_torch(q, device)), torch.special.zeta(s, q),
                rtol=1e-13, atol=0)
    q_sweep = torch.linspace(0.05, 40, 500, dtype=torch.float64)
    for order in (1.5, 2.0, 7.0):
        assert_same(tandem.special.zeta(order, from_torch(q_sweep, device)), torch.special.zeta(order, q_sweep),
                    rtol=1e-13, atol=0)
    tq = from_torch(q_sweep[:4], device).requires_grad_()
    out = tandem.special.zeta(3.0, tq)
    assert out.grad_fn.name() == "SpecialZetaBackward1"
    out.sum().backward()
    rq = q_sweep[:4].clone().requires_grad_()
    torch.special.zeta(3.0, rq).sum().backward()
    assert_same(tq.grad, rq.grad, rtol=1e-12, atol=0)
    ts = from_torch(s[:2], device).requires_grad_()
    with pytest.raises(NotImplementedError, match="^the derivative for 'zeta' is not implemented."):
        tandem.special.zeta(ts, 2.0).sum().backward()


def test_polygamma(device):
    x = torch.tensor([0.1, 0.5, 1.0, 1.5, 2.25, 3.0, 10.0, 55.5, -0.5, -1.25, -3.7], dtype=torch.float64)
    for n in range(0, 6):
        # PyTorch's trigamma (n = 1) is within 5e-10 only (test_trigamma_is_accurate checks tandem's)
        rtol = 1e-9 if n == 1 else 1e-12
        assert_same(tandem.polygamma(n, from_torch(x, device)), torch.polygamma(n, x), rtol=rtol, atol=0)
        assert_same(from_torch(x, device).polygamma(n), torch.polygamma(n, x), rtol=rtol, atol=0)
    assert_same(tandem.special.polygamma(1, from_torch(x[:3].float(), device)), torch.polygamma(1, x[:3].float()),
                rtol=2e-6, atol=0)
    assert tandem.polygamma(2, tandem.tensor([1, 2], device=device)).dtype == tandem.float32
    with pytest.raises(RuntimeError, match="^polygamma\\(n, x\\) does not support negative n."):
        tandem.polygamma(-1, from_torch(x, device))
    t = from_torch(x, device)
    assert t.polygamma_(2) is t
    assert_same(t, torch.polygamma(2, x), rtol=1e-12, atol=0)


def test_trigamma_is_accurate():
    """polygamma(1, x), digamma's derivative, through the Hurwitz zeta: within a few ulps of mpmath's (PyTorch's own
    trigamma is 5e-10 off)."""
    mpmath = pytest.importorskip("mpmath")
    x = [0.1, 0.5, 1.0, 1.5, 2.25, 3.0, 10.0, 1e3, -0.5, -1.25, -7.9]
    for n in (1, 2, 3):
        got = tandem.polygamma(n, tandem.tensor(x, dtype=tandem.float64)).tolist()
        want = [float(mpmath.polygamma(n, v)) for v in x]
        assert all(math.isclose(g, w, rel_tol=2e-15) for g, w in zip(got, want)), (n, got, want)


@pytest.mark.parametrize("op", ["lgamma", "digamma", "i0", "i0e", "i1", "i1e", "sinc", "erfcx", "ndtr", "ndtri",
                                "log_ndtr", "entr", "logit", "frac", "polygamma2"])
def test_gradients_match_pytorch(op, device):
    x = torch.tensor([0.0, 0.3, 0.75, 1.6, -2.3, 3.5, -0.1], dtype=torch.float64)
    if op in ("ndtri", "logit"):
        x = torch.tensor([0.05, 0.3, 0.5, 0.75, 0.999], dtype=torch.float64)
    if op == "entr":
        x = x.abs() + 0.1
    if op == "log_ndtr":
        x = torch.cat([x, torch.tensor([-30.0, -8.0, 12.0], dtype=torch.float64)])
    if op == "lgamma":
        x = x + 0.05
    if op == "polygamma2":
        fn, tfn = (lambda t: torch.polygamma(2, t)), (lambda t: tandem.polygamma(2, t))
        x = x + 0.05
    else:
        fn, tfn = torch_fn(op), getattr(tandem, op)
    r = x.clone().requires_grad_()
    fn(r).sum().backward()
    t = from_torch(x, device).requires_grad_()
    tfn(t).sum().backward()
    rtol = 1e-9 if op == "digamma" else 1e-10  # digamma' is PyTorch's trigamma, within 5e-10
    assert_same(t.grad, r.grad, rtol=rtol, atol=1e-12)
    # second derivatives exist where PyTorch has them (create_graph)
    if op in ("lgamma", "sinc", "i0"):
        t2 = from_torch(x, device).requires_grad_()
        (g,) = tandem.autograd.grad(tfn(t2).sum(), t2, create_graph=True)
        g.sum().backward()
        r2 = x.clone().requires_grad_()
        (rg,) = torch.autograd.grad(fn(r2).sum(), r2, create_graph=True)
        rg.sum().backward()
        assert_same(t2.grad, r2.grad, rtol=1e-9, atol=1e-12)  # lgamma'' is PyTorch's trigamma


def test_logit_eps(device):
    x = torch.tensor([0.0, 0.05, 0.3, 1.0, 2.0, -1.0], dtype=torch.float64)
    for eps in (None, 0.1, 0.0, -1.0):
        assert_same(tandem.logit(from_torch(x, device), eps), torch.logit(x, eps), rtol=1e-15, atol=0)
        assert_same(from_torch(x, device).logit(eps=eps), torch.logit(x, eps=eps), rtol=1e-15, atol=0)
        assert_same(tandem.special.logit(from_torch(x, device), eps=eps), torch.special.logit(x, eps=eps), rtol=1e-15,
                    atol=0)
    r = x.clone().requires_grad_()
    torch.logit(r, 0.1).sum().backward()
    t = from_torch(x, device).requires_grad_()
    out = tandem.logit(t, 0.1)
    assert out.grad_fn.name() == "LogitBackward0"
    out.sum().backward()
    assert_same(t.grad, r.grad, rtol=1e-14, atol=0)
    y = from_torch(x, device)
    assert y.logit_(0.1) is y
    assert_same(y, torch.logit(x, 0.1), rtol=1e-15, atol=0)
    assert tandem.logit(tandem.tensor([1, 0], device=device), eps=0.1).dtype == tandem.float32


def test_float_power(device):
    a, b = torch.tensor([2, 3, -8]), torch.tensor([2.5, -1.0, 1 / 3])
    assert_same(tandem.float_power(from_torch(a, device), from_torch(b, device)), torch.float_power(a, b))
    assert_same(tandem.float_power(from_torch(a, device), 2), torch.float_power(a, 2))
    assert_same(tandem.float_power(2, from_torch(b, device)), torch.float_power(2, b))
    h = torch.tensor([1.5, 2.0], dtype=torch.float16)
    assert_same(from_torch(h, device).float_power(from_torch(a[:2], device)), h.float_power(a[:2]))
    with pytest.raises(RuntimeError, match="^the base given to float_power_ has dtype Float but the operation's "
                       "result requires dtype Double"):
        tandem.tensor([1.0, 2.0], device=device).float_power_(2)
    d = tandem.tensor([1.0, 3.0], dtype=tandem.float64, device=device)
    assert d.float_power_(2) is d and d.tolist() == [1.0, 9.0]
    r = b.double().clone().requires_grad_()
    torch.float_power(r, 2.0).sum().backward()
    t = from_torch(b.double(), device).requires_grad_()
    tandem.float_power(t, 2.0).sum().backward()
    assert_same(t.grad, r.grad, rtol=1e-15, atol=0)


def test_multigammaln(device):
    x = torch.tensor([[2.0, 3.5], [10.0, 1.75]], dtype=torch.float64)
    for p in (1, 2, 3, 5):
        assert_same(tandem.special.multigammaln(from_torch(x + p, device), p), torch.special.multigammaln(x + p, p),
                    rtol=1e-14, atol=1e-14)
        assert_same(from_torch(x + p, device).mvlgamma(p), torch.mvlgamma(x + p, p), rtol=1e-14, atol=1e-14)
    assert tandem.mvlgamma(tandem.tensor([3, 4], device=device), 2).dtype == tandem.float32
    with pytest.raises(RuntimeError, match="^p has to be greater than or equal to 1"):
        tandem.mvlgamma(from_torch(x, device), 0)
    r = (x + 2).clone().requires_grad_()
    torch.mvlgamma(r, 2).sum().backward()
    t = from_torch(x + 2, device).requires_grad_()
    tandem.mvlgamma(t, 2).sum().backward()
    assert_same(t.grad, r.grad, rtol=1e-13, atol=0)


SPECIAL_NAMES = ["erf", "erfc", "erfinv", "erfcx", "expit", "logit", "exp2", "expm1", "log1p", "gammaln", "digamma",
                 "psi", "i0", "i0e", "i1", "i1e", "sinc", "ndtr", "ndtri", "log_ndtr", "entr", "round",
                 "modified_bessel_i0", "modified_bessel_i1"]


@pytest.mark.parametrize("name", SPECIAL_NAMES)
def test_special_namespace_matches_torch_special(name, device):
    x = torch.tensor([-2.5, -0.3, 0.0, 0.2, 0.7, 1.9, 4.0], dtype=torch.float64)
    if name in ("erfinv", "logit", "ndtri"):
        x = torch.tensor([0.01, 0.2, 0.5, 0.8, 0.95], dtype=torch.float64)
    assert_same(getattr(tandem.special, name)(from_torch(x, device)), getattr(torch.special, name)(x), rtol=1e-13,
                atol=1e-15)


def test_special_namespace_reductions_and_binaries(device):
    x = torch.tensor([[0.5, -1.0, 2.0], [3.0, 0.25, -0.5]], dtype=torch.float64)
    tx = from_torch(x, device)
    assert_same(tandem.special.logsumexp(tx, 1), torch.special.logsumexp(x, 1), rtol=1e-15, atol=0)
    assert_same(tandem.special.softmax(tx, 0), torch.special.softmax(x, 0), rtol=1e-15, atol=0)
    assert_same(tandem.special.log_softmax(tx, 1), torch.special.log_softmax(x, 1), rtol=1e-15, atol=0)
    assert_same(tandem.special.xlog1py(tx, tx), torch.special.xlog1py(x, x), rtol=1e-15, atol=0)
    assert_same(tandem.special.zeta(tx + 2, tx.abs()), torch.special.zeta(x + 2, x.abs()), rtol=1e-13, atol=0)


@pytest.mark.parametrize("op", ["xlogy", "xlog1py"])
def test_xlogy_gradients_where_x_is_zero(op, device):
    """PyTorch's d/dx: xlogy(g, y), 0 where x == 0 and the log is undefined; d/dy = x / y (0 / 0 is NaN)."""
    grads = []
    for lib, make in ((tandem, lambda v: tandem.tensor(v, dtype=tandem.float64, device=device, requires_grad=True)),
                      (torch, lambda v: torch.tensor(v, dtype=torch.float64, requires_grad=True))):
        x = make([0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0])
        y = make([0.0, 2.0, -1.0, float("inf"), 0.0, -1.5, float("nan")])
        out = getattr(lib.special, op)(x, y)
        grads.append([g.tolist() for g in lib.autograd.grad(out.sum(), [x, y])])
    torch.testing.assert_close(torch.tensor(grads[0]), torch.tensor(grads[1]), equal_nan=True, rtol=0, atol=0)


def test_scaled_bessel_never_overflows_and_shares_the_series(device):
    # i0e/i1e leave the factor e^|x| out of the Chebyshev series that i0/i1 and modified_bessel_i0/i1 use
    x = torch.tensor([-1e300, -800.0, -30.0, -8.0, -1e-3, 0.0, 2.5, 8.0, 8.5, 700.0, 1e5, 1e300, math.inf],
                     dtype=torch.float64)
    t = from_torch(x, device)
    for op in ("i0e", "i1e"):
        got = values(getattr(tandem.special, op)(t))
        assert bool(torch.isfinite(got).all()), op
        torch.testing.assert_close(got, getattr(torch.special, op)(x), rtol=1e-14, atol=0)
    y = torch.linspace(-40, 40, 801, dtype=torch.float64)
    assert torch.equal(values(tandem.i0(from_torch(y, device))), values(tandem.special.modified_bessel_i0(from_torch(y, device))))
    assert torch.equal(values(tandem.special.i1(from_torch(y, device))),
                       values(tandem.special.modified_bessel_i1(from_torch(y, device))))


def test_float32_lgamma_keeps_relative_precision_near_its_zeros(device):
    # lgamma's zeros at 1, 2 and -2.457..., -2.747...: float32 lgamma (the C library's lgammaf) against the
    # float64 values of the same float32 inputs
    zeros = [1.0, 2.0, -2.4570247382208, -2.7476826467274]
    xs = []
    for z in zeros:
        v = torch.tensor(z, dtype=torch.float32)
        for direction in (10.0, -10.0):
            w = v.clone()
            for _ in range(20):
                w = torch.nextafter(w, torch.tensor(direction))
                xs.append(w.item())
    x = torch.tensor(xs, dtype=torch.float32)
    got = values(tandem.lgamma(from_torch(x, device))).double()
    want = torch.lgamma(x.double())
    assert float(((got - want).abs() / want.abs()).max()) < 1e-6


# The zeros of lgamma below -2 (two in each (-n-1, -n); past -11 no float comes close) and of digamma below 0
LGAMMA_NEGATIVE_ZEROS = [-2.4570247382208006, -2.7476826467274127, -3.1435808883499803, -3.955294284858598,
                         -4.039361839740537, -4.991544640560047, -5.008218168322594, -5.998607480080875,
                         -6.001385294453154, -6.999801507890638, -7.000198333407325, -7.999975197095821,
                         -8.000024800270682, -8.999997244250977, -9.000002755714823, -9.99999972442663,
                         -10.000000275573013, -10.99999997494789]
DIGAMMA_ZEROS = [1.4616321449683622, -0.5040830082644554, -1.5734984731623904, -2.6107208684441447,
                 -3.635293366436901, -4.653237761743142]


def _float32_neighbours(centres, count):
    """The `count` floats on each side of each centre (and the centre rounded to float32)."""
    bits = np.array(centres, dtype=np.float32).view(np.int32).astype(np.int64)
    steps = np.arange(-count, count + 1)
    return (bits[:, None] + steps[None, :]).astype(np.int32).view(np.float32).ravel()


def _float32_gamma_inputs(zeros):
    # every 20011th bit pattern (all magnitudes, both signs, subnormals), dense [-12, 12], the floats around
    # the function's zeros, 0, the negative integers and half-integers, the overflow of lgamma near 4.08e36
    patterns = np.arange(0, 2**32, 20011, dtype=np.int64).astype(np.uint32).view(np.float32)
    dense = np.linspace(-12, 12, 240001, dtype=np.float32)
    around = _float32_neighbours(zeros + [0.0, 8.0] + [-n for n in range(1, 25)] + [0.5 - n for n in range(1, 25)],
                                 64)
    edges = np.array([1e-45, -1e-45, 1e-38, -1e-38, 4.0e36, 4.1e36, 3.4e38, -3.4e38, -8388607.5, -4194303.5,
                      -8388608.0, 8388608.0], dtype=np.float32)
    x = np.concatenate([patterns, dense, around, edges])
    return x[np.isfinite(x)]


def _ulps_from_rounded(got, want64):
    with np.errstate(over="ignore"):
        rounded = want64.astype(np.float32)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(rounded))
    np.testing.assert_array_equal(got[np.isinf(rounded)], rounded[np.isinf(rounded)])
    finite = np.isfinite(rounded)
    ulps = np.abs(_ordered_bits(got[finite]) - _ordered_bits(rounded[finite]))
    return finite, ulps


def test_float32_lgamma_is_within_two_ulps_everywhere():
    # float32 lgamma on the CPU is a branch-free double computation (kernels/vector_gamma_math.h), measured
    # within 1.3 ulp over the floats; here within 2 of float64 lgamma rounded (glibc's, near-exact at the
    # zeros), relative precision kept at the zeros 1 and 2 and the negative ones.
    x = _float32_gamma_inputs([1.0, 2.0] + LGAMMA_NEGATIVE_ZEROS)
    got = tandem.lgamma(tandem.tensor(x))
    assert got.dtype == tandem.float32
    got = got.numpy()
    finite, ulps = _ulps_from_rounded(got, torch.lgamma(torch.from_numpy(x).double()).numpy())
    assert ulps.max() <= 2, (x[finite][ulps.argmax()], got[finite][ulps.argmax()])
    special = torch.tensor([0.0, -0.0, -1.0, -2.0, -8388608.0, -3e38, 1.0, 2.0, 4.1e36, math.inf, -math.inf,
                            math.nan])
    assert_same(tandem.lgamma(from_torch(special)), torch.lgamma(special))


def test_float32_digamma_is_within_one_ulp_everywhere():
    # float32 digamma on the CPU (kernels/vector_gamma_math.h) against SciPy's float64 psi rounded: within one
    # ulp, also next to digamma's zeros (1.4616... and one in each (-n-1, -n)), where results are tiny
    scipy_special = pytest.importorskip("scipy.special")
    x = _float32_gamma_inputs(DIGAMMA_ZEROS)
    x = x[(x > 0) | (x != np.round(x))]  # the poles are checked below (SciPy gives NaN or inf, PyTorch differs)
    got = tandem.digamma(tandem.tensor(x))
    assert got.dtype == tandem.float32
    got = got.numpy()
    finite, ulps = _ulps_from_rounded(got, scipy_special.psi(x.astype(np.float64)))
    assert ulps.max() <= 1, (x[finite][ulps.argmax()], got[finite][ulps.argmax()])
    special = torch.tensor([0.0, -0.0, -1.0, -2.0, -8388608.0, -3e38, 1.0, 1e-45, -1e-45, 3e38, math.inf,
                            -math.inf, math.nan])
    assert_same(tandem.digamma(from_torch(special)), torch.digamma(special))


@pytest.mark.parametrize("op", ["i0", "i0e", "i1", "i1e", "modified_bessel_i0", "modified_bessel_i1"])
def test_float32_bessel_i_is_the_float64_value_rounded(op, device):
    # float32 (and 16-bit) results go through a vectorised form of the series (bessel_math.h: both intervals in
    # one recurrence, an inline exp): the same double computation, so within one rounding of the float64 result.
    # Dense over both sides of the switch at 8, up to and past float32's overflow (I0(x) passes 3.4e38 near 91.9).
    fn = getattr(tandem.special, op)
    edges = [0.0, -0.0, 8.0, -8.0, np.nextafter(np.float32(8), np.float32(9)), 88.7, 91.5, 91.9, 92.0, 103.9, 104.0,
             104.5, 1e4, -1e4, 3e38, -3e38, 1e-40, -1e-40, float("inf"), float("-inf"), float("nan")]
    x = np.concatenate([np.linspace(-120, 120, 24001), edges]).astype(np.float32)
    got = fn(tandem.tensor(x, device=device))
    assert got.dtype == tandem.float32 and got.device == tandem.device(device)
    got = got.cpu().numpy()
    want = fn(tandem.tensor(x.astype(np.float64))).numpy()
    with np.errstate(over="ignore"):
        rounded = want.astype(np.float32)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(rounded))
    finite = np.isfinite(rounded)
    np.testing.assert_array_equal(got[~finite & ~np.isnan(rounded)], rounded[~finite & ~np.isnan(rounded)])
    ulps = np.abs(got[finite].view(np.int32).astype(np.int64) - rounded[finite].view(np.int32).astype(np.int64))
    ulps[got[finite] == rounded[finite]] = 0  # +0 and -0 (their signs are checked below)
    assert ulps.max() <= 1, (op, x[finite][ulps.argmax()], got[finite][ulps.argmax()], rounded[finite][ulps.argmax()])
    # odd/even as the functions are, signed zeros included
    np.testing.assert_array_equal(np.signbit(got[x == 0]), np.signbit(rounded[x == 0]))
