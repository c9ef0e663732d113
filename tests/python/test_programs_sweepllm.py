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
