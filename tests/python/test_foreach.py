"""torch._foreach_* against PyTorch: every argument form (scalar, scalar list, tensor list, tensor of scalars),
in-place and out-of-place, values, dtypes and devices, and PyTorch's errors."""
import pytest
import torch

import tandem
from oracle import assert_same_error, from_torch, to_torch


def lists(device):
    gen = torch.Generator().manual_seed(0)
    ref = [torch.rand(3, generator=gen, dtype=torch.float64) + 0.5,
           torch.rand(2, 2, generator=gen, dtype=torch.float64) + 0.5]
    return ref, [from_torch(t, device) for t in ref]


def same(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        torch.testing.assert_close(to_torch(g), w)


@pytest.mark.parametrize("op", ["abs", "exp", "sqrt", "neg", "sigmoid", "log1p", "reciprocal", "sign", "tanh", "frac"])
def test_unary(op, device):
    ref, ours = lists(device)
    same(getattr(tandem, f"_foreach_{op}")(ours), getattr(torch, f"_foreach_{op}")(ref))
    getattr(torch, f"_foreach_{op}_")(ref)
    assert getattr(tandem, f"_foreach_{op}_")(ours)[0] is ours[0]
    same(ours, ref)


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "maximum", "minimum", "clamp_min", "clamp_max", "pow"])
@pytest.mark.parametrize("form", ["scalar", "scalars", "tensors", "0d"])
def test_binary(op, form, device):
    ref, ours = lists(device)
    other = {"scalar": (1.5, 1.5), "scalars": ([0.5, 2.0], [0.5, 2.0]),
             "tensors": (ref, ours), "0d": (torch.tensor(0.75, dtype=torch.float64),
                                            from_torch(torch.tensor(0.75, dtype=torch.float64), device))}[form]
    if form == "0d" and op not in ("add", "sub", "mul", "div"):
        pytest.skip("PyTorch takes a 0-d tensor only for add/sub/mul/div")
    same(getattr(tandem, f"_foreach_{op}")(ours, other[1]), getattr(torch, f"_foreach_{op}")(ref, other[0]))
    if form == "tensors" and op in ("add", "sub"):
        same(getattr(tandem, f"_foreach_{op}")(ours, ours, alpha=2),
             getattr(torch, f"_foreach_{op}")(ref, ref, alpha=2))
    want = [t.clone() for t in ref]
    getattr(torch, f"_foreach_{op}_")(want, other[0] if form != "tensors" else ref)
    getattr(tandem, f"_foreach_{op}_")(ours, other[1])
    same(ours, want)


@pytest.mark.parametrize("name", ["addcmul", "addcdiv"])
@pytest.mark.parametrize("value", [1, 0.5, [0.5, 2.0], "tensor"])
def test_addcmul_addcdiv(name, value, device):
    ref, ours = lists(device)
    v_ref, v_ours = (torch.tensor([0.5, 2.0]), tandem.tensor([0.5, 2.0])) if value == "tensor" else (value, value)
    same(getattr(tandem, f"_foreach_{name}")(ours, ours, ours, v_ours),
         getattr(torch, f"_foreach_{name}")(ref, ref, ref, v_ref))
    getattr(torch, f"_foreach_{name}_")(ref, [t.clone() for t in ref], [t.clone() for t in ref], v_ref)
    getattr(tandem, f"_foreach_{name}_")(ours, [t.clone() for t in ours], [t.clone() for t in ours], v_ours)
    same(ours, ref)


def test_lerp_norm_max_copy_zero(device):
    ref, ours = lists(device)
    ends_ref, ends = [t * 3 for t in ref], [t * 3 for t in ours]
    same(tandem._foreach_lerp(ours, ends, 0.25), torch._foreach_lerp(ref, ends_ref, 0.25))
    same(tandem._foreach_lerp(ours, ends, ours), torch._foreach_lerp(ref, ends_ref, ref))
    for ord in (2, 1, float("inf")):
        same(tandem._foreach_norm(ours, ord), torch._foreach_norm(ref, ord))
    same(tandem._foreach_max(ours), torch._foreach_max(ref))
    torch._foreach_lerp_(ref, ends_ref, 0.5)
    tandem._foreach_lerp_(ours, ends, 0.5)
    same(ours, ref)
    dst = [tandem.zeros_like(t) for t in ours]
    tandem._foreach_copy_(dst, ours)
    same(dst, ref)
    tandem._foreach_zero_(dst)
    assert all(t.abs().sum().item() == 0 for t in dst)
    same(tandem._foreach_pow(2.0, ours), torch._foreach_pow(2.0, ref))


@pytest.mark.parametrize("case", [
    lambda lib: lib._foreach_add([], 1.0),
    lambda lib: lib._foreach_add([lib.ones(2)], [1.0, 2.0]),
    lambda lib: lib._foreach_add([lib.ones(2)], [lib.ones(2), lib.ones(2)]),
    lambda lib: lib._foreach_sub([lib.ones(2)], 1, alpha=2),
])
def test_errors_match_pytorch(case):
    assert_same_error(case)
