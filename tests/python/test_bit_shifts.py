"""tandem.bitwise_left_shift / bitwise_right_shift and the Tensor operators << >> <<= >>= (op-list kernels)
against PyTorch: every integer dtype, counts inside and outside [0, bits) (PyTorch defines those: << gives 0, >>
the sign fill), Python-scalar operands on either side, promotion, in-place forms, out=, and the errors for
floating and bool operands, on every device."""
import pytest
import torch

import tandem
from oracle import INT_NAMES, assert_same, assert_same_error, from_torch, torch_dtype


def _cases(name):
    info = torch.iinfo(torch_dtype(name))
    bits = info.bits
    values = [info.min, info.min + 1, -3, -1, 0, 1, 3, 77, info.max - 1, info.max]
    values = sorted({max(info.min, min(info.max, v)) for v in values})
    counts = [-9, -1, 0, 1, 2, bits - 2, bits - 1, bits, bits + 1, 2 * bits, 100 % (info.max + 1)]
    x = torch.tensor([v for v in values for _ in counts], dtype=torch_dtype(name))
    s = torch.tensor([c for _ in values for c in counts], dtype=torch.int64).clamp(info.min, info.max)
    return x, s.to(torch_dtype(name))


@pytest.mark.parametrize("name", INT_NAMES)
def test_shifts_match_pytorch_for_every_count(device, name):
    x, s = _cases(name)
    tx, ts = from_torch(x, device), from_torch(s, device)
    assert_same(tx << ts, x << s, device=tandem.device(device))
    assert_same(tx >> ts, x >> s, device=tandem.device(device))
    assert_same(tandem.bitwise_left_shift(tx, ts), torch.bitwise_left_shift(x, s))
    assert_same(tandem.bitwise_right_shift(tx, ts), torch.bitwise_right_shift(x, s))
    assert_same(tx.bitwise_left_shift(ts), x.bitwise_left_shift(s))
    assert_same(tx.bitwise_right_shift(ts), x.bitwise_right_shift(s))


@pytest.mark.parametrize("name", INT_NAMES)
def test_shifts_with_python_scalars(device, name):
    x, _ = _cases(name)
    tx = from_torch(x, device)
    for count in (0, 1, 3, 7, 8, 63, 64, 70):
        assert_same(tx << count, x << count)
        assert_same(tx >> count, x >> count)
    small = from_torch(x.clamp(0, 9), device)
    assert_same(3 << small, 3 << x.clamp(0, 9))
    assert_same(-100 >> small, -100 >> x.clamp(0, 9))


@pytest.mark.parametrize("pair", [("int8", "int64"), ("uint8", "int8"), ("int16", "int32"), ("bool", "int64")])
def test_shifts_promote_as_pytorch(device, pair):
    a = torch.tensor([1, 0, 1], dtype=torch_dtype(pair[0])) if pair[0] == "bool" else \
        torch.tensor([5, 0, 100], dtype=torch_dtype(pair[0]))
    b = torch.tensor([1, 2, 3], dtype=torch_dtype(pair[1]))
    ta, tb = from_torch(a, device), from_torch(b, device)
    assert_same(ta << tb, a << b)
    assert_same(tb >> ta, b >> a)
    assert_same(ta << 1, a << 1)
    zero_dim = torch.tensor(2, dtype=torch.int64)  # a 0-d tensor promotes like a scalar, as in PyTorch
    assert_same(from_torch(b, device) << from_torch(zero_dim, device), b << zero_dim)


def test_in_place_shifts_and_out(device):
    x = torch.tensor([1, -8, 3, 100], dtype=torch.int8)
    s = torch.tensor([1, 2, 9, -1], dtype=torch.int8)
    tx, ts = from_torch(x, device), from_torch(s, device)
    alias = tx
    tx <<= ts
    x <<= s
    assert tx is alias and tx.device == tandem.device(device)
    assert_same(tx, x)
    tx >>= 1
    x >>= 1
    assert_same(tx, x)
    assert_same(tx.bitwise_left_shift_(ts), x.bitwise_left_shift_(s))
    assert_same(tx.bitwise_right_shift_(2), x.bitwise_right_shift_(2))
    out = tandem.empty(4, dtype=tandem.int8, device=device)
    result = tandem.bitwise_left_shift(tx, 1, out=out)
    assert result is out
    assert_same(out, torch.bitwise_left_shift(x, 1))


@pytest.mark.parametrize("case", [
    lambda lib: lib.tensor([1.0, 2.0]) << 1,
    lambda lib: lib.tensor([1.0], dtype=lib.float64) >> 1,
    lambda lib: lib.tensor([1, 2]) >> 1.5,
    lambda lib: lib.tensor([True]) << lib.tensor([True]),
    lambda lib: lib.bitwise_left_shift(lib.tensor([1.5]), lib.tensor([1])),
])
def test_shift_errors_match_pytorch(case):
    assert_same_error(case)
