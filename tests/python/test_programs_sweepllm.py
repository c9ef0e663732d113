"""What the LLM/diffusion program sweep (minGPT, LLMs-from-scratch, llm.c, x-transformers, denoising-diffusion,
pytorch-seq2seq, pytorch-made) found, each checked against PyTorch on every device."""
import operator

import numpy as np
import pytest
import torch

import tandem


def _outcome(fn):
    """fn()'s value, or its exception's type and message (what a program would see)."""
    try:
        return ("ok", fn())
    except Exception as e:  # noqa: BLE001 - the exception itself is what is compared
        return (type(e).__name__, str(e).replace("tandem", "torch"))


def _plain(v):
    return v.tolist() if hasattr(v, "tolist") else v


# LLMs-from-scratch ch05 generate(): `if idx_next == eos_id: break` with eos_id=None. A tensor compared with None
# is False (== ) / True (!=); ordering and arithmetic with None are Python's TypeError naming both types.
OPERATORS = [operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge, operator.add,
             operator.sub, operator.mul, operator.truediv, operator.floordiv, operator.mod, operator.pow,
             operator.and_, operator.or_, operator.xor, operator.lshift, operator.rshift, operator.matmul]


@pytest.mark.parametrize("op", OPERATORS, ids=lambda op: op.__name__)
@pytest.mark.parametrize("reflected", [False, True])
def test_operators_with_none_match_pytorch(device, op, reflected):
    t, ref = tandem.tensor([1, 2], device=device), torch.tensor([1, 2])
    call = (lambda a: op(None, a)) if reflected else (lambda a: op(a, None))
    got, want = _outcome(lambda: call(t)), _outcome(lambda: call(ref))
    assert got == want


@pytest.mark.parametrize("op", [operator.iadd, operator.isub, operator.imul, operator.itruediv, operator.iand,
                                operator.ior, operator.imatmul], ids=lambda op: op.__name__)
def test_inplace_operators_with_none_raise_pythons_type_error(device, op):
    got = _outcome(lambda: op(tandem.tensor([1, 2], device=device), None))
    want = _outcome(lambda: op(torch.tensor([1, 2]), None))
    assert got == want and got[0] == "TypeError"


def test_scalar_tensor_compared_with_none_in_a_condition(device):
    t = tandem.tensor(3, device=device)
    assert (t == None) is False and (t != None) is True  # noqa: E711 - the comparison under test
    assert (None == t) is False and (None != t) is True  # noqa: E711
    assert [x for x in [t, None] if x is not None and x == 3] == [t]


@pytest.mark.parametrize("layer", ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d"])
def test_dropout_layers_call_the_functional_of_the_moment(device, layer, monkeypatch):
    """nn.Dropout's forward looks F.dropout up when it runs (as PyTorch's does), so a program or library that
    replaces the functional is heard by the layers too."""
    name = layer.lower()
    seen = {}
    for lib in (tandem, torch):
        calls = []

        def fake(input, p=0.5, training=True, inplace=False, calls=calls):
            calls.append((p, training, inplace))
            return input * 2

        monkeypatch.setattr(lib.nn.functional, name, fake)
        x = lib.ones(2, 3, 4, 5, device=device if lib is tandem else "cpu")
        out = getattr(lib.nn, layer)(0.25)(x)
        seen[lib.__name__] = (calls, out.sum().item())
    assert seen["tandem"] == seen["torch"] == ([(0.25, True, False)], 240.0)


def test_inductor_config_knobs_match_pytorch():
    """llm.c's train_gpt2.py imports torch._inductor.config at the top and sets coordinate_descent_tuning before
    torch.compile: the commonly set knobs exist with PyTorch's defaults, and other names fail as in PyTorch."""
    import torch._inductor.config as want

    import tandem._inductor.config as got
    for name in ["coordinate_descent_tuning", "coordinate_descent_check_all_directions",
                 "coordinate_descent_search_radius", "max_autotune", "max_autotune_gemm", "max_autotune_pointwise",
                 "fx_graph_cache", "freezing", "epilogue_fusion", "aggressive_fusion", "force_fuse_int_mm_with_mul",
                 "benchmark_kernel", "cpp_wrapper", "conv_1x1_as_mm", "shape_padding", "split_reductions", "debug"]:
        assert getattr(got, name) == getattr(want, name), name
    for name in ["unique_kernel_names", "cudagraphs", "cudagraph_trees", "autotune_pointwise", "autotune_cublasLt",
                 "divisible_by_16"]:
        assert getattr(got.triton, name) == getattr(want.triton, name), name
    assert hasattr(got, "coordinate_descent_tuning")
    got.coordinate_descent_tuning = True
    try:
        assert got.coordinate_descent_tuning is True
    finally:
        got.coordinate_descent_tuning = False
    for target, lib in [(got, "config"), (got.triton, "config.triton")]:
        for action in [lambda t: t.no_such_knob, lambda t: setattr(t, "no_such_knob", 1)]:
            with pytest.raises(AttributeError) as e:
                action(target)
            assert str(e.value) == f"torch._inductor.{lib}.no_such_knob does not exist"


MEMORY_FIGURES = ["memory_stats", "memory_allocated", "max_memory_allocated", "memory_reserved",
                  "max_memory_reserved", "memory_stats_as_nested_dict"]


def test_memory_figures_without_cuda_are_empty_as_in_pytorch():
    """llm.c's train_gpt2.py ends with print(torch.cuda.max_memory_allocated() // 1024 // 1024) also on the CPU:
    without CUDA PyTorch's memory figures are 0 ({} for the stats), not an error."""
    import os
    import subprocess
    import sys
    import textwrap
    code = textwrap.dedent(f"""
        import sys
        lib = __import__(sys.argv[1])
        if lib.cuda.is_available():
            print("skip")
        for name in {MEMORY_FIGURES!r}:
            for args in [(), (0,), ("cuda:0",)]:
                r = getattr(lib.cuda, name)(*args)
                print(name, args, type(r).__name__ if isinstance(r, dict) else "", dict(r) if isinstance(r, dict) else r)
    """)
    env = {k: v for k, v in os.environ.items() if not k.startswith("TANDEM_EMULATE")}
    outs = [subprocess.run([sys.executable, "-c", code, lib], env=env, capture_output=True, text=True, timeout=120)
            for lib in ("tandem", "torch")]
    for out in outs:
        assert out.returncode == 0, out.stderr
    if "skip" in outs[0].stdout or "skip" in outs[1].stdout:
        pytest.skip("a real CUDA device is present")
    assert outs[0].stdout == outs[1].stdout and "max_memory_allocated () " in outs[0].stdout


@pytest.mark.parametrize("name", MEMORY_FIGURES[1:5])
def test_memory_figures_on_a_device_count_its_tensors(device, name):
    if not device.startswith("cuda"):
        pytest.skip("the figures describe CUDA devices")
    x = tandem.ones(1024, device=device)
    assert getattr(tandem.cuda, name)(device) >= x.numel() * 4


# LLMs-from-scratch appendix A (code-part2) shows PyTorch's error for `cpu_tensor + cuda_tensor`: its
# TensorIterator takes the first operand not on the CPU as the common device and names it first.
PYTORCH_CPU_PLUS_CUDA = ("Expected all tensors to be on the same device, but found at least two devices, "
                         "cuda:0 and cpu!")


@pytest.mark.parametrize("form", ["cpu + cuda", "cuda + cpu", "cpu.add_(cuda)", "torch.mul(cpu, cuda)",
                                  "cpu < cuda"])
def test_mixed_device_elementwise_names_the_device_as_pytorch(device, form):
    if not device.startswith("cuda"):
        pytest.skip("needs a second device")
    cpu, cuda = tandem.tensor([1.0, 2.0, 3.0]), tandem.tensor([4.0, 5.0, 6.0], device="cuda:0")
    with pytest.raises(RuntimeError) as info:
        eval(form, {"cpu": cpu, "cuda": cuda, "torch": tandem})
    first, hint = str(info.value).splitlines()
    assert first == PYTORCH_CPU_PLUS_CUDA
    assert "is on cpu" in hint and ".to('cuda:0')" in hint
    assert (cpu[0] + cuda).device == "cuda:0"  # a 0-dim CPU tensor still joins any device


def _same_bits(got, want):
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    assert np.array_equal(got.cpu().float().numpy(), want.float().numpy(), equal_nan=True)


def _bits_16(dtype, *shape, seed=0, scale=8.0):
    data = np.random.RandomState(seed).standard_normal(shape).astype(np.float32) * scale
    return (tandem.tensor(data).to(getattr(tandem, dtype)), torch.tensor(data).to(getattr(torch, dtype)))


# LLMs-from-scratch's bfloat16 GQA model (attn_scores / keys.shape[-1] ** 0.5): PyTorch's mul and div take the
# number in float, so the element and the number meet in float and round once; add and sub round the number to
# the tensor's dtype first. Either way tandem now agrees bit for bit.
NUMBER_FORMS = {
    "x / 32 ** 0.5": lambda x: x / 32 ** 0.5,
    "x * 0.1234567": lambda x: x * 0.1234567,
    "0.1234567 * x": lambda x: 0.1234567 * x,
    "x * 3": lambda x: x * 3,
    "x / 1e-3": lambda x: x / 1e-3,
    "x + 0.3333": lambda x: x + 0.3333,
    "0.3333 + x": lambda x: 0.3333 + x,
    "x - 1.7777": lambda x: x - 1.7777,
    "3.3333 - x": lambda x: 3.3333 - x,
    "torch.mul(x, 0.1234567)": lambda x: (tandem if isinstance(x, tandem.Tensor) else torch).mul(x, 0.1234567),
    "x.div(5.6568)": lambda x: x.div(5.6568),
    "x.mul_(0.1234567)": lambda x: x.clone().mul_(0.1234567),
    "x.div_(5.6568)": lambda x: x.clone().div_(5.6568),
    "x * 0-dim float32": lambda x: x * (tandem if isinstance(x, tandem.Tensor) else torch).tensor(0.1234567),
    "x / 0-dim float64": lambda x: x / (tandem if isinstance(x, tandem.Tensor) else torch).tensor(
        5.6568, dtype=(tandem if isinstance(x, tandem.Tensor) else torch).float64),
}


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("form", list(NUMBER_FORMS))
def test_16_bit_arithmetic_with_a_number_matches_pytorch_bit_for_bit(device, dtype, form):
    x, ref = _bits_16(dtype, 4096)
    fn = NUMBER_FORMS[form]
    _same_bits(fn(x.to(device)), fn(ref))


def test_16_bit_mul_with_a_number_keeps_its_gradient(device):
    x = tandem.tensor([1.5, -2.25, 3.0], dtype=tandem.bfloat16, device=device, requires_grad=True)
    ref = torch.tensor([1.5, -2.25, 3.0], dtype=torch.bfloat16, requires_grad=True)
    for t in (x, ref):
        (t / 32 ** 0.5 * 0.1234567).sum().backward()
    _same_bits(x.grad, ref.grad)
    assert (x / 32 ** 0.5).grad_fn.name() == "DivBackward0"


# The GQA model's feed-forward: nn.Linear with bias on a (batch, tokens, features) input. PyTorch folds the
# leading dims into one addmm, so the bias joins the product before its single rounding.
@pytest.mark.parametrize("dtype", ["bfloat16", "float32"])
@pytest.mark.parametrize("shape", [(1, 10, 128), (2, 3, 5, 128)])
def test_linear_with_bias_on_batched_input_rounds_once_as_pytorch(device, dtype, shape):
    (a, ra), (w, rw), (b, rb) = (_bits_16(dtype, *shape, seed=1, scale=1.0), _bits_16(dtype, 96, 128, seed=2,
                                 scale=1.0), _bits_16(dtype, 96, seed=3, scale=1.0))
    a, w, b = (t.to(device).requires_grad_() for t in (a, w, b))
    ra, rw, rb = (t.requires_grad_() for t in (ra, rw, rb))
    got, want = tandem.nn.functional.linear(a, w, b), torch.nn.functional.linear(ra, rw, rb)
    assert tuple(got.shape) == tuple(want.shape)
    if device == "cpu" or dtype == "float32":
        np.testing.assert_allclose(got.detach().cpu().float().numpy(), want.detach().float().numpy(),
                                   rtol=0 if dtype == "bfloat16" else 1e-5, atol=0 if dtype == "bfloat16" else 1e-5)
    got.float().square().sum().backward()
    want.float().square().sum().backward()
    for g, r in ((a.grad, ra.grad), (w.grad, rw.grad), (b.grad, rb.grad)):
        np.testing.assert_allclose(g.cpu().float().numpy(), r.float().numpy(), rtol=2e-2, atol=2e-2)


def test_linear_on_a_non_contiguous_batched_input_still_matches(device):
    x = tandem.randn(3, 4, 8, device=device).transpose(0, 1)
    w, b = tandem.randn(5, 8, device=device), tandem.randn(5, device=device)
    ref = torch.tensor(x.cpu().numpy()), torch.tensor(w.cpu().numpy()), torch.tensor(b.cpu().numpy())
    got = tandem.nn.functional.linear(x, w, b)
    np.testing.assert_allclose(got.cpu().numpy(), torch.nn.functional.linear(*ref).numpy(), rtol=1e-5, atol=1e-5)


def test_16_bit_mul_by_a_0_dim_tensor_on_the_left_rounds_it_as_pytorch(device):
    """The book's GELU: torch.sqrt(torch.tensor(2.0 / torch.pi)) * x with x in bfloat16. A 0-dim tensor first
    is cast to the tensor's dtype (only a second operand, or a Python number, stays in float)."""
    x, ref = _bits_16("bfloat16", 4096)
    got = tandem.sqrt(tandem.tensor(2.0 / tandem.pi)) * x.to(device)
    _same_bits(got, torch.sqrt(torch.tensor(2.0 / torch.pi)) * ref)
