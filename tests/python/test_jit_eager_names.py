"""torch.jit's annotation, isinstance, fusion-setting and exception names as PyTorch runs them eagerly
(tandem/jit/_eager_names.py), against PyTorch."""
import warnings
from typing import Any, Dict, List, Optional, Tuple, Union

import pytest
import torch

import tandem

LIBS = [torch, tandem]


def outcome(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = ("ok", fn())
        except Exception as e:  # noqa: BLE001 - the comparison records which error
            result = (type(e).__name__, str(e))
    return result, [str(w.message) for w in caught]


@pytest.mark.parametrize("value,hint", [
    ([], List[int]), ({}, Dict[str, int]), ([1.0], List[float]), ([1], List[float]), ((1, 2), Tuple[int, int]),
    ((1,), Tuple[int, int]), ((1, 2), Tuple[int, ...]), (1, Union[int, str]), ("a", Optional[int]),
    (None, Optional[int]), (3, int), (True, int), ([[1]], List[List[int]]), ({1: "a"}, Dict[int, str]),
    ({1: "a"}, Dict[str, str]), ([1], list), (1, Any), ([1], list[int]), ({"a": [1.5]}, Dict[str, List[float]]),
])
def test_isinstance_matches_pytorch_eager(value, hint):
    assert outcome(lambda: tandem.jit.isinstance(value, hint)) == outcome(lambda: torch.jit.isinstance(value, hint))


def test_isinstance_checks_tensor_elements():
    for lib in LIBS:
        assert lib.jit.isinstance([lib.ones(1)], List[lib.Tensor])
        assert not lib.jit.isinstance([lib.ones(1), 2], List[lib.Tensor])
        assert lib.jit.isinstance({"w": lib.ones(1)}, Dict[str, lib.Tensor])


def test_annotations_and_settings():
    for lib in LIBS:
        attr = lib.jit.Attribute(3, int)
        assert attr.value == 3 and attr.type is int and attr == (3, int)

        @lib.jit.interface
        class Proto:
            def forward(self, x: int) -> int:
                pass

        assert isinstance(Proto, type)
        def method(self, x: int) -> int:
            return x

        assert lib.jit.script_method(method) is method or lib is torch  # PyTorch returns a stub to compile later
        with lib.jit.optimized_execution(False), lib.jit.fuser("fuser1"), lib.jit.strict_fusion():
            pass
        with pytest.raises(Exception, match=r"^unrecognized fuser option \(name: fuser9\)$"):
            with lib.jit.fuser("fuser9"):
                pass
        previous = lib.jit.set_fusion_strategy([("DYNAMIC", 3)])
        assert previous == [("STATIC", 2), ("DYNAMIC", 10)]
        assert lib.jit.set_fusion_strategy(previous) == [("DYNAMIC", 3)]
        assert lib.jit.onednn_fusion_enabled() is False
        assert issubclass(lib.jit.Error, Exception) and issubclass(lib.jit.ScriptWarning, Warning)


def test_trace_module_runs_each_method_once():
    for lib in LIBS:
        class Counter(lib.nn.Module):
            calls = 0

            def forward(self, x):
                Counter.calls += 1
                return x * 2

        m = Counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            traced = lib.jit.trace_module(m, {"forward": lib.ones(2)})
        assert Counter.calls >= 1
        assert traced(lib.ones(2)).tolist() == [2.0, 2.0]
