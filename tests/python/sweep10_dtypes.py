"""Sweep 10 programs, dtype and promotion surprises as forum threads discuss them: integer versus true division,
floor division of negatives, integer overflow that wraps, bool arithmetic and its refusals, what a Python number or
a 0-dim tensor does to the result dtype, type_as and .to(other), and the in-place dtype errors with the exact
messages users paste into a search box.

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep10.py)."""
import numpy as np

from sweep10_common import dtype_name as _dt, error_of as _error


# ---- division: / is true division, // floors, div(rounding_mode=), remainder versus fmod with negatives ---------
def division_semantics(torch, device):
    a = torch.tensor([7, -7, 7, -7, 0], device=device)
    b = torch.tensor([2, 2, -2, -2, 3], device=device)
    found = {"true_div": [(a / b).tolist(), _dt(a / b), _dt(a / 2), _dt(torch.true_divide(a, b))],
             "floor_div": [(a // b).tolist(), _dt(a // b), (a // 2.0).tolist(), _dt(a // 2.0)],
             "trunc": [torch.div(a, b, rounding_mode="trunc").tolist(), _dt(torch.div(a, b, rounding_mode="floor"))],
             "floor_float": torch.div(a.float(), b, rounding_mode="floor").tolist(),
             "remainder_fmod": [(a % b).tolist(), torch.fmod(a, b).tolist(), torch.remainder(a, 3).tolist(),
                                (a.float() % -3).tolist()],
             "int_div_zero": _error(lambda: a.cpu() // torch.zeros_like(a.cpu())),  # CUDA does not check
             "float_div_zero": [str(v) for v in (a.float() / 0).tolist()],
             "rounding_bad": _error(lambda: torch.div(a, b, rounding_mode="round"))}
    f = torch.tensor([2.5, -2.5, 0.5, 1.5, -0.5], device=device)
    found["round"] = [f.round().tolist(), torch.round(torch.tensor([1.2345, -2.5551]), decimals=2).tolist(),
                      f.trunc().tolist(), f.floor().tolist(), f.ceil().tolist(), f.long().tolist(),
                      f.frac().tolist()]
    found["python_vs_tensor"] = [-7 // 2, (torch.tensor(-7) // 2).item(), int(-7 / 2),
                                 int(torch.tensor(-7) / 2)]
    found["inplace_div_int"] = _error(lambda: a.clone().div_(2))
    c = a.clone()
    c //= 2
    found["inplace_floordiv"] = [c.tolist(), _dt(c)]
    found["reciprocal_int"] = [_dt(torch.reciprocal(a[:4])), _dt(a.sqrt()), _dt(a.exp()), _dt(a.sigmoid()),
                               _dt(a.abs()), _dt(a.neg())]
    found["pow"] = [_dt(a ** 2), _dt(a ** 0.5), _dt(2 ** a.abs()), _dt(2.0 ** a), _error(lambda: a ** -1),
                    (a.float() ** -1).tolist()]
    return found


# ---- overflow and unsigned types: int8/uint8 wrap, large int64, float16 limits, sum promotes to int64 ---------
def overflow_and_ranges(torch, device):
    i8 = torch.tensor([127, -128, 100], dtype=torch.int8, device=device)
    u8 = torch.tensor([0, 255, 200], dtype=torch.uint8, device=device)
    found = {"int8_wrap": [(i8 + 1).tolist(), (i8 * 2).tolist(), _dt(i8 + 1), (-i8).tolist()],
             "uint8_wrap": [(u8 + 100).tolist(), (u8 - 1).tolist(), _dt(u8 + 1), (u8 + 1.5).tolist(),
                            _dt(u8 + 1.5)],
             "sum_promotes": [_dt(i8.sum()), i8.sum().item(), _dt(u8.sum()), u8.sum().item(),
                              _dt(torch.tensor([True, True]).sum()), _dt(i8.cumsum(0)),
                              _dt(i8.sum(dtype=torch.int8)), i8.sum(dtype=torch.int8).item()],
             "prod": [_dt(u8.prod()), torch.tensor([2, 3], dtype=torch.int32).prod().item()],
             "mean_int": _error(lambda: i8.mean()),
             "mean_dtype": i8.mean(dtype=torch.float32).item()}
    big = torch.tensor([2 ** 62], device=device)
    found["int64"] = [(big * 2).item(), (big * 4).item(), torch.iinfo(torch.int64).max,
                      _error(lambda: torch.tensor([2 ** 63]))]
    h = torch.tensor([60000.0, 1e-8, 70000.0], dtype=torch.float16, device=device)
    found["float16"] = [h.tolist(), (h * 2).tolist(), torch.finfo(torch.float16).max, torch.finfo(torch.float16).eps,
                        torch.finfo(torch.bfloat16).eps, torch.finfo(torch.float32).tiny]
    found["bfloat16"] = torch.tensor([1.0 + 2 ** -8, 256.0 + 1.0, 3.14159], dtype=torch.bfloat16).tolist()
    found["float32_int"] = [torch.tensor(16777217, dtype=torch.float32).item(),
                            torch.tensor(16777217.0, dtype=torch.float64).long().item()]
    found["casts"] = [torch.tensor([-1.7, 2.9, 300.5]).to(torch.uint8).tolist()[:2],
                      torch.tensor([-1, 256, 511]).to(torch.uint8).tolist(),
                      torch.tensor([0.0, 0.1, -2.0]).bool().tolist(),
                      torch.tensor([3, 0]).to(torch.bool).tolist()]
    found["iinfo"] = [torch.iinfo(torch.uint8).max, torch.iinfo(torch.int16).min, torch.iinfo(torch.int32).bits,
                      str(torch.finfo(torch.float32).dtype), torch.finfo().resolution]
    found["clamp_int"] = [torch.tensor([1, 5, 9]).clamp(2, 6).tolist(),
                          _dt(torch.tensor([1, 5, 9]).clamp(2.5, 6)),
                          torch.tensor([1, 5, 9]).clamp(2.5, 6).tolist()]
    found["abs_min_int"] = torch.tensor([-128], dtype=torch.int8).abs().tolist()
    found["bitwise"] = [(torch.tensor([5]) << 2).tolist(), (torch.tensor([-8]) >> 1).tolist(),
                        (torch.tensor([6]) & 3).tolist(), (~torch.tensor([0], dtype=torch.uint8)).tolist(),
                        _error(lambda: torch.tensor([1.0]) & 1)]
    return found


# ---- bool arithmetic: sums and means of masks, ~ versus -, the refusals of - on bool tensors ----------------------
def bool_arithmetic(torch, device):
    m = torch.tensor([True, False, True, True], device=device)
    n = torch.tensor([False, False, True, False], device=device)
    found = {"sum_mean": [m.sum().item(), _dt(m.sum()), m.float().mean().item(), m.double().mean().item(),
                          m.count_nonzero().item()],
             "ops": [(m + n).tolist(), _dt(m + n), (m * n).tolist(), _dt(m * n), (m & n).tolist(),
                     (m | n).tolist(), (m ^ n).tolist(), (~m).tolist(), m.logical_not().tolist()],
             "with_numbers": [(m + 1).tolist(), _dt(m + 1), (m * 2.5).tolist(), _dt(m * 2.5), _dt(m / 2),
                              (m * torch.tensor(3, device=device)).tolist()],
             "neg": _error(lambda: -m),
             "sub": _error(lambda: m - n),
             "sub_number": _error(lambda: m - 1),
             "rsub": _error(lambda: 1 - m),
             "mean_bool": _error(lambda: m.mean())}
    x = torch.tensor([1.0, -2.0, 3.0, -4.0], device=device)
    found["mask_mult"] = [(x * m).tolist(), (x * (x > 0)).tolist(), _dt(x * m),
                          torch.where(m, x, torch.zeros_like(x)).tolist()]
    found["logical_mixed"] = [torch.logical_and(x, torch.tensor([1, 0, 2, 0], device=device)).tolist(),
                              torch.logical_or(x > 0, n).tolist(), _dt(torch.logical_xor(x, x))]
    found["bool_index_bool"] = m[n].tolist()
    found["bool_max"] = [m.max().item(), m.any().item(), torch.max(m, n).tolist(), m.int().argmax().item()]
    found["bool_compare"] = [(m == 1).tolist(), (m > n).tolist(), (m == True).all().item()]  # noqa: E712
    found["inplace_bool"] = _error(lambda: m.clone().add_(1.5))
    z = m.clone()
    z |= n
    z &= torch.tensor([True, True, False, True], device=device)
    found["inplace_logic"] = z.tolist()
    found["all_empty"] = [torch.tensor([], dtype=torch.bool).all().item(),
                          torch.tensor([], dtype=torch.bool).any().item()]
    found["bool_to_index"] = [m.nonzero().flatten().tolist(), torch.arange(4)[m.cpu()].tolist()]
    found["accuracy"] = (torch.tensor([1, 2, 0, 1]) == torch.tensor([1, 0, 0, 1])).float().mean().item()
    found["sum_of_comparisons"] = [(x > 0).sum().item(), int((x > 0).sum()), type((x > 0).sum().item()).__name__]
    return found


# ---- promotion with numbers and 0-dim tensors; type_as, .to(other), result_type, promote_types, can_cast -------
def promotion_rules(torch, device):
    i = torch.tensor([1, 2, 3], device=device)
    f = torch.tensor([1.0, 2.0, 3.0], device=device)
    d0 = torch.tensor(2.0, dtype=torch.float64, device=device)
    h = torch.tensor([1.0], dtype=torch.float16, device=device)
    found = {"with_numbers": [_dt(i + 1), _dt(i + 1.0), _dt(i * True), _dt(f + 1), _dt(h + 1.0),
                              _dt(h + 100000.0), (h + 100000.0).tolist()],
             "zero_dim": [_dt(f + d0), _dt(i + d0), _dt(h + torch.tensor(1.0)), _dt(i + torch.tensor(1)),
                          _dt(torch.tensor(1, dtype=torch.int8) + torch.tensor([1], dtype=torch.uint8))],
             "tensors": [_dt(i + f), _dt(h + f), _dt(torch.tensor([1], dtype=torch.uint8)
                                                    + torch.tensor([1], dtype=torch.int8)),
                         _dt(torch.tensor([1.0], dtype=torch.bfloat16, device=device) + h),
                         _dt(torch.tensor([1], dtype=torch.int32) + torch.tensor([1]))],
             "result_type": [str(torch.result_type(i, 1.0)), str(torch.result_type(f, d0)),
                             str(torch.result_type(torch.tensor(1), torch.tensor([1], dtype=torch.int8)))],
             "promote_types": [str(torch.promote_types(torch.int32, torch.float16)),
                               str(torch.promote_types(torch.uint8, torch.int8)),
                               str(torch.promote_types(torch.bool, torch.int16))],
             "can_cast": [torch.can_cast(torch.float64, torch.int32), torch.can_cast(torch.int32, torch.float16),
                          torch.can_cast(torch.float32, torch.float16), torch.can_cast(torch.bool, torch.uint8)],
             "complex": [_dt(f + 1j), _dt(torch.tensor([1j], device=device) * d0), _dt(f.double() * 1j)]}
    found["type_as"] = [_dt(i.type_as(f)), _dt(f.type_as(i)), f.type_as(i).tolist(),
                        _dt(i.to(f)), _dt(i.to(h)), _dt(i.to(torch.float16)), _dt(f.to(d0))]
    found["type_strings"] = [f.cpu().type(), i.cpu().type(), h.cpu().type(), f.cpu().type(torch.int32).type(),
                             f.cpu().type("torch.DoubleTensor").type(), str(f.double().dtype), str(f.half().dtype),
                             str(f.bfloat16().dtype), str(f.char().dtype), str(f.short().dtype),
                             str(f.byte().dtype)]
    found["default_dtype"] = [_dt(torch.tensor([1.0])), _dt(torch.tensor(3)), _dt(torch.tensor([1, 2.0])),
                              _dt(torch.tensor([True, 1])), _dt(torch.tensor([1, 2j])), _dt(torch.arange(3.0)),
                              _dt(torch.arange(0, 1, 0.5)), _dt(torch.full((2,), 7)), _dt(torch.full((2,), 7.0)),
                              _dt(torch.full((2,), True)), _dt(torch.zeros(2, dtype=int)),
                              _dt(torch.ones(1, dtype=float)), _dt(torch.tensor([1], dtype=bool))]
    torch.set_default_dtype(torch.float64)
    try:
        found["default_float64"] = [_dt(torch.tensor([1.0])), _dt(torch.zeros(1)), _dt(i * 0.5),
                                    _dt(torch.tensor([1j])), _dt(torch.arange(2.0))]
    finally:
        torch.set_default_dtype(torch.float32)
    found["is_floating"] = [f.is_floating_point(), i.is_floating_point(), torch.is_complex(f + 1j),
                            f.dtype.is_floating_point, i.dtype.is_signed, torch.uint8.is_signed,
                            f.dtype.itemsize, h.element_size(), torch.float64.to_complex() == torch.complex128]
    return found


# ---- in-place dtype errors: += with a float into an int tensor, out= of the wrong dtype, index_add_ dtypes -----
def inplace_dtype_errors(torch, device):
    i = torch.tensor([1, 2, 3], device=device)
    f = torch.tensor([0.5, 1.5, 2.5], device=device)
    found = {}

    def iadd():
        t = i.clone()
        t += 0.5

    def imul_tensor():
        t = i.clone()
        t *= f

    def itruediv():
        t = i.clone()
        t /= 2

    found["augmented"] = [_error(iadd), _error(imul_tensor), _error(itruediv)]
    g = f.clone()
    g += i  # float += int is fine
    found["float_plus_int"] = [g.tolist(), _dt(g)]
    h = f.clone().half()
    h += f  # a wider right-hand side is cast down
    found["half_plus_float"] = [_dt(h), h.tolist()]
    found["out_dtype"] = _error(lambda: torch.add(f, f, out=torch.empty(3, dtype=torch.int64, device=device)))
    out = torch.empty(3, dtype=torch.float64, device=device)
    torch.add(f, f, out=out)
    found["out_wider"] = [_dt(out), out.tolist()]
    found["index_add"] = _error(lambda: torch.zeros(3, device=device).index_add_(0, i - 1, i))
    found["scatter_dtype"] = _error(lambda: torch.zeros(3, device=device).scatter_(0, i - 1, i))
    found["index_float"] = _error(lambda: f[f])
    found["copy_casts"] = torch.zeros(3, dtype=torch.int32, device=device).copy_(f * 2).tolist()
    t = i.clone()
    t[0] = 7.9  # setitem casts silently
    t[1:] = torch.tensor([-1.5, 2.5], device=device)
    found["setitem_casts"] = t.tolist()
    found["masked_fill_float"] = i.masked_fill(i > 1, 2.7).tolist()
    found["fill_float"] = i.clone().fill_(3.9).tolist()
    found["clamp_inplace"] = _error(lambda: i.clone().clamp_(0.5, 1.5))
    found["addcmul_int"] = _error(lambda: i.clone().addcmul_(i, i, value=0.5))
    found["mm_mixed"] = _error(lambda: torch.mm(torch.ones(2, 2, device=device),
                                                torch.ones(2, 2, dtype=torch.float64, device=device)))
    found["matmul_int_float"] = _error(lambda: torch.ones(2, 2, dtype=torch.int64, device=device)
                                       @ torch.ones(2, 2, device=device))
    found["linear_double"] = _error(lambda: torch.nn.Linear(2, 2).to(device)(torch.ones(1, 2, dtype=torch.float64,
                                                                                          device=device)))
    found["lerp"] = _error(lambda: torch.lerp(f, f.double(), 0.5))
    found["where_mixed"] = _dt(torch.where(f > 1, f.double(), i))
    return found


PROGRAMS = [division_semantics, overflow_and_ranges, bool_arithmetic, promotion_rules, inplace_dtype_errors]
NEEDS_CPP = {}
