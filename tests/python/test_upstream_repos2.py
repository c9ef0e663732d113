"""What the second sweep of real repositories run unchanged on tandem found (docs/compat.md, "Upstream
repositories"): each test is our own smallest form of one failure, checked against PyTorch."""
import pytest
import torch

import tandem


def _sparse_mask(lib):
    mask = lib.zeros(3, 4, dtype=lib.bool)
    mask[1, 2] = True
    mask[2, 0] = True
    return mask.to_sparse()


# openai/whisper keeps its alignment-head mask as a sparse non-persistent buffer
# (`register_buffer("alignment_heads", all_heads.to_sparse(), persistent=False)`), moves the model with .to(device)
# and reads `alignment_heads.indices().T`. PyTorch's sparse tensors are Tensors; tandem's are their own classes, and
# Module refused them as buffers.
def test_sparse_buffer_registration_and_conversion(device):
    ours, theirs = tandem.nn.Linear(2, 2), torch.nn.Linear(2, 2)
    for m, lib in ((ours, tandem), (theirs, torch)):
        m.register_buffer("heads", _sparse_mask(lib), persistent=False)
        m.register_buffer("coo", lib.eye(3).to_sparse())
    ours.to(device)
    assert ours.heads.device == tandem.device(device) and ours.coo.device == tandem.device(device)
    assert ours.heads.indices().T.tolist() == theirs.heads.indices().T.tolist()
    ours.half()
    theirs.half()
    # floating buffers follow the module's dtype, the bool mask keeps its own
    assert str(ours.coo.dtype) == "tandem.float16" and str(theirs.coo.dtype) == "torch.float16"
    assert str(ours.heads.dtype) == "tandem.bool" and str(theirs.heads.dtype) == "torch.bool"
    assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()] == ["heads", "coo"]


def test_sparse_buffer_assignment_and_state_dict(device):
    ours, theirs = tandem.nn.Module(), torch.nn.Module()
    for m, lib in ((ours, tandem), (theirs, torch)):
        m.register_buffer("coo", lib.zeros(3, 3).to_sparse())
        m.register_buffer("heads", _sparse_mask(lib), persistent=False)
        m.coo = lib.eye(3).to_sparse() * 2  # assigning to a registered buffer name goes through the buffer check
    ours.to(device)
    sd_ours, sd_theirs = ours.state_dict(), theirs.state_dict()
    assert list(sd_ours) == list(sd_theirs) == ["coo"]  # the non-persistent mask stays out
    assert sd_ours["coo"].layout == tandem.sparse_coo and sd_theirs["coo"].layout == torch.sparse_coo
    assert sd_ours["coo"].to_dense().tolist() == sd_theirs["coo"].to_dense().tolist()
    # loading a sparse entry replaces the buffer's values, on the buffer's device
    fresh = tandem.nn.Module()
    fresh.register_buffer("coo", tandem.zeros(3, 3, device=device).to_sparse())
    result = fresh.load_state_dict({"coo": (tandem.eye(3) * 5).to_sparse()})
    assert repr(result) == "<All keys matched successfully>"
    assert fresh.coo.device == tandem.device(device) and fresh.coo.layout == tandem.sparse_coo
    assert fresh.coo.to_dense().tolist() == (torch.eye(3) * 5).tolist()


def test_buffer_still_refuses_other_objects():
    for lib in (tandem, torch):
        m = lib.nn.Module()
        with pytest.raises(TypeError) as got:
            m.register_buffer("b", [1, 2])
        assert str(got.value) == "cannot assign 'list' object to buffer 'b' (torch Tensor or None required)"
        m.register_buffer("c", lib.zeros(2))
        with pytest.raises(TypeError) as got:
            m.c = 3
        assert str(got.value).startswith("cannot assign 'int' as buffer 'c'")


# huggingface/pytorch-image-models (timm) decorates its layer helpers with @torch.fx.wrap at import time, so
# `import timm` stopped at `tandem.fx`. fx.wrap registers and returns its argument, as PyTorch's does outside a
# trace.
_FX_MODULE = """
import {lib}.fx

@{lib}.fx.wrap
def leaf(x):
    return x * 2

def other(x):  # defined: a wrapped name missing from its module makes PyTorch's every later trace fail
    return x


{lib}.fx.wrap("other")
RESULT = leaf(3)
"""


@pytest.mark.parametrize("lib", [tandem, torch], ids=["tandem", "torch"])
def test_fx_wrap_at_module_level(lib):
    scope = {}
    exec(compile(_FX_MODULE.format(lib=lib.__name__), "<leaf module>", "exec"), scope)
    assert scope["RESULT"] == 6
    assert callable(scope["leaf"]) and scope["leaf"].__name__ == "leaf"


def test_fx_wrap_errors_match():
    for lib in (tandem, torch):
        with pytest.raises(RuntimeError, match="^Unsupported type for global function! Must be either a callable "
                                               "or string name$"):
            lib.fx.wrap(3)

        def inside():
            lib.fx.wrap("name")
        with pytest.raises(NotImplementedError, match="^wrap must be called at the top level of a module$"):
            inside()


def test_fx_traces_after_wrap():
    # tandem.fx now traces (tests/python/test_fx.py); a function wrap registered at import time is recorded as a
    # call, as in PyTorch.
    scope = {"__name__": "leafmod"}
    exec(compile(_FX_MODULE.format(lib="tandem"), "<leaf module>", "exec"), scope)
    gm = tandem.fx.symbolic_trace(lambda x: scope["leaf"](x) + 1)
    assert [n.op for n in gm.graph.nodes] == ["placeholder", "call_function", "call_function", "output"]


# timm's DenseNet: `from torch.jit.annotations import List` (tandem.jit was a plain module).
def test_jit_annotations_are_typing_names():
    import typing
    import tandem.jit.annotations as ours
    import torch.jit.annotations as theirs
    for name in ("Any", "Dict", "List", "Optional", "Tuple", "Union"):
        assert getattr(ours, name) is getattr(theirs, name) is getattr(typing, name)
    for n in (1, 2, 3):
        assert getattr(ours, f"BroadcastingList{n}")[int] is getattr(theirs, f"BroadcastingList{n}")[int]


# timm 0.3.2 (the version facebookresearch/mae pins) declares DenseLayer.forward overloads with
# @torch.jit._overload_method, and imports torch.utils.model_zoo.
_OVERLOADS = '''
from typing import List

import {lib}


class Layer({lib}.nn.Module):
    @{lib}.jit._overload_method  # noqa: F811
    def forward(self, x: List[{lib}.Tensor]) -> {lib}.Tensor:
        pass

    @{lib}.jit._overload_method  # noqa: F811
    def forward(self, x: {lib}.Tensor) -> {lib}.Tensor:
        ...

    def forward(self, x):  # noqa: F811
        return x if isinstance(x, {lib}.Tensor) else {lib}.cat(x)


@{lib}.jit._overload
def double(x: int) -> int:
    ...


def double(x):  # noqa: F811
    return 2 * x
'''


@pytest.mark.parametrize("lib", [tandem, torch], ids=["tandem", "torch"])
def test_jit_overload_declarations_leave_the_definition(lib, tmp_path, monkeypatch):
    # the body check reads the source, so the declarations live in a real file
    (tmp_path / f"overloads_{lib.__name__}.py").write_text(_OVERLOADS.format(lib=lib.__name__))
    monkeypatch.syspath_prepend(str(tmp_path))
    module = __import__(f"overloads_{lib.__name__}")
    layer = module.Layer()
    assert layer([lib.ones(2), lib.zeros(1)]).tolist() == [1.0, 1.0, 0.0]
    assert layer(lib.ones(2)).tolist() == [1.0, 1.0]
    assert module.double(4) == 8


_BAD_OVERLOAD = '''
import {lib}


@{lib}.jit._overload
def f(x: int) -> int:
    return x
'''


@pytest.mark.parametrize("decorator", ["_overload", "_overload_method"])
def test_jit_overload_with_a_body_is_refused(decorator, tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    messages = []
    for lib in (tandem, torch):
        name = f"bad_{decorator}_{lib.__name__}"
        (tmp_path / f"{name}.py").write_text(_BAD_OVERLOAD.format(lib=lib.__name__).replace("_overload", decorator))
        with pytest.raises(RuntimeError) as got:
            __import__(name)
        messages.append(str(got.value).split("\n"))
    ours, theirs = messages
    assert ours[0] == theirs[0] == "Only `pass` statement or `...` can be the body of overload declaration:"
    # then the first three lines of the declaration (which name their own library), the last one marked
    assert [line.replace("tandem", "torch") for line in ours[1:4]] == theirs[1:4]
    assert theirs[3].endswith(" <- Expecting `pass` or `...` here!")


def test_model_zoo_load_url_is_hubs():
    import tandem.utils.model_zoo as ours
    import torch.utils.model_zoo as theirs
    assert ours.load_url is tandem.hub.load_state_dict_from_url
    assert theirs.load_url is torch.hub.load_state_dict_from_url
    assert ours.tqdm is theirs.tqdm  # both re-export tqdm's progress bar


# kornia checks its enhance arguments with torch._assert_async (adjust_gamma, adjust_contrast, solarize, ...).
@pytest.mark.parametrize("value", [True, 1, 0.5, float("nan"), -3])
def test_assert_async_passes_a_nonzero_value(device, value):
    assert tandem._assert_async(tandem.tensor(value, device=device)) is None
    assert torch._assert_async(torch.tensor(value)) is None
    assert tandem._assert_async(tandem.tensor([value], device=device), "message") is None


@pytest.mark.parametrize("make,args", [
    (lambda lib, dev: lib.tensor(False, **dev), ()),
    (lambda lib, dev: lib.tensor(0.0, **dev), ()),
    (lambda lib, dev: lib.tensor(0, **dev), ("gamma must be positive",)),
    (lambda lib, dev: lib.tensor([1, 1], **dev), ()),
    (lambda lib, dev: lib.tensor([True, False], **dev), ("message",)),
    (lambda lib, dev: lib.tensor([], **dev), ()),
    (lambda lib, dev: lib.tensor(True, **dev), (None,)),
    (lambda lib, dev: lib.tensor(True, **dev), (3,)),
    (lambda lib, dev: True, ()),
])
def test_assert_async_errors_match(device, make, args):
    with pytest.raises(Exception) as expected:
        torch._assert_async(make(torch, {}), *args)
    with pytest.raises(Exception) as got:
        tandem._assert_async(make(tandem, {"device": device}), *args)
    assert type(got.value) is type(expected.value)
    assert str(got.value) == str(expected.value)


# kornia annotates with `torch.torch.Tensor`: PyTorch's package has itself as the attribute `torch`.
def test_package_answers_torch_as_itself():
    assert torch.torch is torch
    assert tandem.torch is tandem and tandem.torch.torch.Tensor is tandem.Tensor
    ours, theirs = {}, {}
    exec("from tandem import *", ours)
    exec("from torch import *", theirs)
    assert "torch" not in ours and "torch" not in theirs
    with pytest.raises(AttributeError, match="^module 'tandem' has no attribute 'no_such_name'$"):
        tandem.no_such_name
