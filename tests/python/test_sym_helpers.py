"""tandem.sym_int/sym_float/sym_max/...: the plain-number meaning of PyTorch's SymInt-aware helpers, against PyTorch."""
import numpy as np
import pytest
import torch

import tandem
from oracle import raised

CASES = [("sym_int", (2.7,)), ("sym_int", (-2.7,)), ("sym_int", (True,)), ("sym_int", ("a",)), ("sym_float", (3,)),
         ("sym_float", (True,)), ("sym_max", (2, 3.5)), ("sym_max", (2.0, 3)), ("sym_max", (2, 3)), ("sym_max", (True, 2)),
         ("sym_max", (np.int64(2), 3.0)), ("sym_min", (2, 3.0)), ("sym_min", (4, 3)), ("sym_min", ("a", "b")),
         ("sym_not", (True,)), ("sym_not", (0,)), ("sym_sqrt", (4,)), ("sym_sqrt", (-1.0,)), ("sym_ite", (True, 1, 2)),
         ("sym_ite", (False, "a", "b")), ("sym_ite", (0, "a", "b")), ("sym_sum", ([1, 2, 3],)), ("sym_sum", ((1.5, 2),)),
         ("sym_sum", (1, 2)), ("sym_sum", ([],))]


@pytest.mark.parametrize("name, args", CASES, ids=[f"{n}{a}" for n, a in CASES])
def test_sym_helpers_match_pytorch(name, args):
    want, got = raised(lambda: getattr(torch, name)(*args)), raised(lambda: getattr(tandem, name)(*args))
    if want is None:
        w, g = getattr(torch, name)(*args), getattr(tandem, name)(*args)
        assert g == w and type(g) is type(w)
    else:
        assert type(got) is type(want) and str(got) == str(want)


def test_sym_helpers_take_zero_dim_tensors():
    x = tandem.tensor(2.5)
    assert tandem.sym_int(x) == 2 and tandem.sym_float(x) == 2.5 and tandem.sym_sqrt(tandem.tensor(4.0)) == 2.0
    assert tandem.sym_not(tandem.tensor(0)) is True


def test_symbolic_number_types_exist_for_annotations_and_isinstance():
    # Libraries annotate with Union[int, torch.SymInt] and check isinstance(x, torch.SymInt) at import and run
    # time; in an eager run no value is ever symbolic.
    from typing import Union
    for lib in (torch, tandem):
        for name in ("SymInt", "SymFloat", "SymBool"):
            kind = getattr(lib, name)
            assert isinstance(kind, type) and kind is getattr(lib.types, name)
            assert not any(isinstance(v, kind) for v in (3, 2.5, True, lib.ones(1)))
            assert Union[int, kind] != int
        assert lib.types.py_sym_types == (lib.SymInt, lib.SymFloat, lib.SymBool)
        assert lib.compiled_with_cxx11_abi() is True
        assert lib.sym_constrain_range(3, min=0, max=5) is None
        assert lib.sym_constrain_range_for_size(3) is None
    with pytest.raises(TypeError, match="tandem runs eagerly"):
        tandem.SymInt(object())
