"""Random inputs (hypothesis): shapes that broadcast, non-contiguous views (transposed, sliced, expanded),
0-d and empty tensors, every dtype pair — tandem's binary ops against PyTorch."""
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tandem
from oracle import DTYPE_NAMES, assert_same, from_torch, random_torch

OPS = ["add", "sub", "mul", "div", "maximum", "minimum", "eq", "lt", "logical_and", "remainder"]


@st.composite
def broadcastable_shapes(draw):
    ndim = draw(st.integers(0, 4))
    base = [draw(st.integers(0, 4)) for _ in range(ndim)]
    other = [s if draw(st.booleans()) else 1 for s in base]
    cut = draw(st.integers(0, ndim))
    return tuple(base), tuple(other[cut:])


def layout(x, kind):
    """The same values as torch tensor x, in a tandem tensor with the given memory layout."""
    if kind == "contiguous" or x.dim() < 2:
        return from_torch(x)
    if kind == "transposed":
        return from_torch(x.transpose(0, 1).contiguous()).transpose(0, 1)
    # sliced: every other element of a twice-as-wide tensor along the last dim
    wide = torch.repeat_interleave(x, 2, dim=-1)
    return from_torch(wide)[..., ::2]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shapes=broadcastable_shapes(), op=st.sampled_from(OPS), na=st.sampled_from(DTYPE_NAMES),
       nb=st.sampled_from(DTYPE_NAMES), la=st.sampled_from(["contiguous", "transposed", "sliced"]),
       lb=st.sampled_from(["contiguous", "transposed", "sliced"]), seed=st.integers(0, 2**31 - 1))
def test_binary_ops_match_torch_on_random_layouts(shapes, op, na, nb, la, lb, seed):
    gen = torch.Generator().manual_seed(seed)
    a = random_torch(shapes[0], na, gen, low=1, high=6)
    b = random_torch(shapes[1], nb, gen, low=1, high=6)
    ta, tb = layout(a, la), layout(b, lb)
    assert ta.tolist() == a.tolist() and tb.tolist() == b.tolist()
    try:
        expected = getattr(torch, op)(a, b)
    except RuntimeError as e:
        try:
            getattr(tandem, op)(ta, tb)
        except RuntimeError as ours:
            assert type(ours) is type(e) or isinstance(ours, RuntimeError)
            return
        raise AssertionError(f"torch raised {e!r}, tandem did not")
    got = getattr(tandem, op)(ta, tb)
    tol = {"float16": 1e-3, "bfloat16": 1e-2}.get(str(expected.dtype).split(".")[-1])
    assert_same(got, expected, rtol=tol, atol=tol)


@settings(max_examples=100, deadline=None)
@given(shape=st.lists(st.integers(0, 5), min_size=0, max_size=4), seed=st.integers(0, 2**31 - 1),
       name=st.sampled_from(["float32", "float64", "int64", "int32"]))
def test_inplace_add_on_views_writes_through_to_the_base(shape, seed, name):
    gen = torch.Generator().manual_seed(seed)
    x = random_torch(tuple(shape), name, gen)
    base = from_torch(x)
    view = base.t() if base.dim() == 2 else base
    view.add_(1)
    assert base.tolist() == (x + 1).tolist()
