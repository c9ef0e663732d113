"""tandem's public functions written in Python behave as PyTorch's C functions (python/src/builtin_function.cpp):
never bound as methods when stored as class attributes, pickled and copied by reference, printed as built-ins,
with their signature and docstring."""
import copy
import inspect
import pickle
import types

import numpy as np
import pytest
import torch

import tandem


def _torch_builtin_names(module, tandem_module):
    return [name for name in dir(module) if not name.startswith("_")
            and isinstance(getattr(module, name), types.BuiltinFunctionType) and hasattr(tandem_module, name)]


def _bound_on_a_class(f):
    class Holder:
        attribute = f

    return Holder().attribute is not f


def test_functional_binds_where_pytorch_binds():
    """nn.functional's functions are Python functions in PyTorch (bound when stored on a class), a few builtins."""
    names = [name for name in dir(torch.nn.functional) if not name.startswith("_") and hasattr(tandem.nn.functional, name)
             and callable(getattr(torch.nn.functional, name)) and not isinstance(getattr(torch.nn.functional, name), type)
             and not name.startswith("has_torch_function")]
    assert len(names) > 100
    differ = [name for name in names if _bound_on_a_class(getattr(torch.nn.functional, name)) !=
              _bound_on_a_class(getattr(tandem.nn.functional, name))]
    assert differ == []


def test_functional_carries_the_names_pytorch_code_reaches_through_it():
    F = tandem.nn.functional
    assert F.Tensor is tandem.Tensor
    assert F.handle_torch_function is tandem.overrides.handle_torch_function
    for name in ("has_torch_function", "has_torch_function_unary", "has_torch_function_variadic"):
        assert getattr(F, name) is getattr(tandem.overrides, name)
    assert F.has_torch_function((tandem.ones(1),)) is False
    assert F.GRID_SAMPLE_INTERPOLATION_MODES == torch.nn.functional.GRID_SAMPLE_INTERPOLATION_MODES
    assert F.GRID_SAMPLE_PADDING_MODES == torch.nn.functional.GRID_SAMPLE_PADDING_MODES
    x, w, b = tandem.randn(5, 2, 3), tandem.randn(3, 3, 4), tandem.randn(4)
    expect = torch.nn.functional.conv_tbc(*(torch.from_numpy(t.numpy()) for t in (x, w, b)), 1)
    np.testing.assert_allclose(F.conv_tbc(x, w, b, 1).numpy(), expect.numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("sub", ["", "linalg", "special", "fft"])
def test_no_function_pytorch_has_in_c_is_a_descriptor(sub):
    t_mod = getattr(torch, sub) if sub else torch
    d_mod = getattr(tandem, sub) if sub else tandem
    names = _torch_builtin_names(t_mod, d_mod)
    assert len(names) > (300 if not sub else 10)
    binding = [name for name in names if not isinstance(getattr(d_mod, name), type)
               and _bound_on_a_class(getattr(d_mod, name))]
    # Functions tandem shares with another public module keep their identity there (tandem.vmap is
    # tandem.func.vmap, as in PyTorch); to_dlpack is a C function in PyTorch, tandem.utils.dlpack's in tandem.
    assert set(binding) <= {"to_dlpack"}


def test_class_attribute_is_not_bound_as_a_method():
    results = []
    for L in (torch, tandem):
        class Block:
            conv = L.conv3d
            mix = L.addcmul
            det = L.linalg.det

            def forward(self, x, w):
                return self.conv(x, w), self.mix(x, x, x, value=2.0), self.det(x[0, 0, 0, :2, :2])

        x = L.arange(2 * 8.0, dtype=L.float64).reshape(1, 1, 2, 2, 4)
        w = L.ones(1, 1, 1, 1, 1, dtype=L.float64)
        results.append([r.tolist() for r in Block().forward(x, w)])
    assert results[1] == results[0]


def test_public_attributes_and_signature():
    f = tandem.addcmul
    assert type(f).__name__ == "builtin_function"
    assert f.__name__ == f.__qualname__ == "addcmul" and f.__module__ == "tandem"
    assert repr(f) == "<built-in function addcmul>"
    assert inspect.signature(f) == inspect.signature(f.__wrapped__)
    assert f.__doc__ == f.__wrapped__.__doc__
    assert tandem.linalg.det.__module__ == "tandem.linalg"
    assert callable(f) and not inspect.isfunction(f)


def test_pickle_and_copy_keep_identity():
    for f in (tandem.addcmul, tandem.linalg.det, tandem.special.ndtr, tandem.conv3d):
        if type(f).__name__ != "builtin_function":
            continue
        assert pickle.loads(pickle.dumps(f)) is f
        assert copy.copy(f) is f and copy.deepcopy(f) is f


def test_functions_shared_with_public_modules_keep_their_identity():
    # (as in PyTorch 2.15: torch.vmap is torch.func.vmap, torch.save is torch.serialization.save, ...)
    assert tandem.vmap is tandem.func.vmap and tandem.manual_seed is tandem.random.manual_seed
    assert tandem.save is tandem.serialization.save and tandem.istft is tandem.functional.istft


def test_calls_pass_keywords_and_errors_through():
    a = tandem.tensor([1.0, 2.0])
    assert tandem.addcmul(a, a, a, value=0.5).tolist() == [1.5, 4.0]
    with pytest.raises(TypeError, match="unexpected keyword"):
        tandem.addcmul(a, a, a, bogus=1)
    with pytest.raises(RuntimeError):
        tandem.addcmul(a, tandem.ones(3), a)


def test_attributes_can_be_set_like_on_functions():
    f = tandem.addcmul
    f.custom_marker = 3
    try:
        assert f.custom_marker == 3
    finally:
        del f.custom_marker


def test_wrapping_something_not_callable_is_refused():
    with pytest.raises(TypeError, match="the function is not callable"):
        tandem._C._builtin_function(3, "x", "tandem")
