"""tandem.utils.weak against torch.utils.weak: dictionaries keyed weakly by identity, and tensor weak references."""
import copy
import gc

import pytest
import torch

import tandem
from tandem.utils import weak


@pytest.mark.parametrize("device", ["cpu", "cuda:0"])
def test_weak_id_key_dictionary_keys_by_identity_and_forgets_dead_keys(device):
    for lib, mod in ((torch, torch.utils.weak), (tandem, weak)):
        d = mod.WeakIdKeyDictionary()
        a = lib.ones(2, device="cpu" if lib is torch else device)
        b = lib.ones(2, device="cpu" if lib is torch else device)  # == a element-wise, another object
        d[a] = "a"
        d[b] = "b"
        assert (len(d), d[a], d[b], a in d, lib.ones(1) in d, [1] in d) == (2, "a", "b", True, False, False)
        assert [k is a or k is b for k in d] == [True, True]
        assert d.get(lib.zeros(1), 7) == 7 and d.setdefault(a, "x") == "a"
        e = d.copy()
        assert type(e) is mod.WeakIdKeyDictionary and e[a] == "a" and copy.deepcopy(d)[b] == "b"
        del b
        gc.collect()
        assert len(d) == 1 and len(e) == 1 and list(d.values()) == ["a"] and len(d.keyrefs()) == 1
        assert d.pop(a) == "a" and len(d) == 0
        with pytest.raises(TypeError, match="cannot create weak reference to 'list' object"):
            d[[1]] = 2
    assert weak.WeakTensorKeyDictionary is weak.WeakIdKeyDictionary
    m = tandem.nn.Linear(2, 2)
    assert weak.WeakIdKeyDictionary({m: 1})[m] == 1


def test_weak_id_ref_equality_and_hash():
    a, b = tandem.ones(1), tandem.ones(1)
    ra, ra2, rb = weak.WeakIdRef(a), weak.WeakIdRef(a), weak.WeakIdRef(b)
    assert ra == ra2 and hash(ra) == hash(ra2) == id(a) and ra != rb and ra() is a
    del a
    gc.collect()
    assert ra() is None and ra == ra and ra != ra2


def test_tensor_weak_ref():
    x = tandem.ones(3)
    r = weak.TensorWeakRef(x)
    assert r() is x
    del x
    gc.collect()
    assert r() is None
    with pytest.raises(AssertionError, match=r"^expected tandem\.Tensor, got <class 'int'>\.$"):
        weak.TensorWeakRef(3)
