"""tandem.ops.aten (python/tandem/_library/aten.py): PyTorch's ATen operators as callable objects that run
tandem's ops, checked against torch.ops.aten: results, overload objects (names, schemas, use as dictionary keys)
and the errors for a missing op, a missing overload and a call that does not fit the schema."""
import numpy as np

import pytest
import torch

import tandem
from tandem._library import aten as tandem_aten

DEVICES = ["cpu", "cuda:0"]
X = np.arange(12, dtype=np.float32).reshape(3, 4) / 7 - 0.5
IDX = np.array([2, 0], dtype=np.int64)


def pair(device):
    return torch.tensor(X), tandem.tensor(X, device=device)


def check_same(ours, theirs):
    if isinstance(theirs, (tuple, list)):
        assert isinstance(ours, (tuple, list)) and len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            check_same(o, t)
        return
    if isinstance(theirs, torch.Tensor):
        assert isinstance(ours, tandem.Tensor)
        assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1]
        assert tuple(ours.shape) == tuple(theirs.shape)
        np.testing.assert_allclose(ours.detach().cpu().numpy(), theirs.detach().numpy(), rtol=1e-6, atol=1e-6)
    else:
        assert ours == theirs


# (overload path, args builder, keywords): lib is torch or tandem, x the 3x4 tensor of that library; keywords
# that name a dtype are built per library too.
CALLS = [
    ("add.Tensor", lambda lib, x: (x, x * 2), {}),
    ("add.Tensor", lambda lib, x: (x, 3), {"alpha": 2}),
    ("add.Scalar", lambda lib, x: (x, 1.5), {}),
    ("add_.Tensor", lambda lib, x: (x.clone(), x), {}),
    ("sub.Tensor", lambda lib, x: (x, x.flip(0)), {}),
    ("mul.Tensor", lambda lib, x: (x, x), {}),
    ("clone.default", lambda lib, x: (x.t(),), {}),
    ("detach.default", lambda lib, x: (x,), {}),
    ("alias.default", lambda lib, x: (x.t(),), {}),
    ("mm.default", lambda lib, x: (x, x.t()), {}),
    ("addmm.default", lambda lib, x: (lib.ones(3, 3, device=x.device), x, x.t()), {"beta": 0.5}),
    ("cat.default", lambda lib, x: ([x, x * 3], 1), {}),
    ("stack.default", lambda lib, x: ([x, x],), {}),
    ("slice.Tensor", lambda lib, x: (x, 1, 1, 3), {}),
    ("slice.Tensor", lambda lib, x: (x, -1, 0, 9223372036854775807, 2), {}),
    ("slice.Tensor", lambda lib, x: (x,), {}),
    ("select.int", lambda lib, x: (x, 1, -1), {}),
    ("index.Tensor", lambda lib, x: (x, [None, lib.tensor(IDX, device=x.device)]), {}),
    ("index.Tensor", lambda lib, x: (x, [lib.tensor(IDX, device=x.device)]), {}),
    ("index.Tensor", lambda lib, x: (x, [x > 0]), {}),
    ("index_select.default", lambda lib, x: (x, 1, lib.tensor(IDX, device=x.device)), {}),
    ("unsqueeze.default", lambda lib, x: (x, 0), {}),
    ("squeeze.dim", lambda lib, x: (x[:1], 0), {}),
    ("squeeze.default", lambda lib, x: (x[:1],), {}),
    ("unbind.int", lambda lib, x: (x, 1), {}),
    ("flip.default", lambda lib, x: (x, [0, 1]), {}),
    ("sort.default", lambda lib, x: (x, 0, True), {}),
    ("sort.stable", lambda lib, x: (x,), {"stable": True, "dim": 1}),
    ("sum.dim_IntList", lambda lib, x: (x, [1], True), {}),
    ("sum.default", lambda lib, x: (x,), {}),
    ("mean.dim", lambda lib, x: (x, [0]), {}),
    ("max.dim", lambda lib, x: (x, 1), {}),
    ("var.correction", lambda lib, x: (x, [1]), {"correction": 0}),
    ("view.default", lambda lib, x: (x, [4, 3]), {}),
    ("_unsafe_view.default", lambda lib, x: (x, [2, 6]), {}),
    ("expand.default", lambda lib, x: (x[:1], [5, 4]), {}),
    ("permute.default", lambda lib, x: (x, [1, 0]), {}),
    ("transpose.int", lambda lib, x: (x, 0, 1), {}),
    ("split.Tensor", lambda lib, x: (x, 3, 1), {}),
    ("split_with_sizes.default", lambda lib, x: (x, [1, 3], 1), {}),
    ("_to_copy.default", lambda lib, x: (x,), lambda lib: {"dtype": lib.float64}),
    ("_softmax.default", lambda lib, x: (x, 1, False), {}),
    ("_log_softmax.default", lambda lib, x: (x, 0, False), {}),
    ("where.self", lambda lib, x: (x > 0, x, -x), {}),
    ("relu.default", lambda lib, x: (x,), {}),
    ("gelu.default", lambda lib, x: (x,), {"approximate": "tanh"}),
    ("leaky_relu.default", lambda lib, x: (x, 0.2), {}),
    ("hardtanh.default", lambda lib, x: (x, -0.1, 0.1), {}),
    ("linalg_vector_norm.default", lambda lib, x: (x, 3), {}),
    ("special_expit.default", lambda lib, x: (x,), {}),
    ("zeros.default", lambda lib, x: ([2, 3],), lambda lib: {"dtype": lib.int32}),
    ("new_zeros.default", lambda lib, x: (x, [2]), {}),
    ("zeros_like.default", lambda lib, x: (x,), {}),
    ("full.default", lambda lib, x: ([2], 7.0), {}),
    ("mse_loss.default", lambda lib, x: (x, x * 0.5), {}),
    ("mse_loss.default", lambda lib, x: (x, x * 0.5, 0), {}),
    ("nll_loss.default", lambda lib, x: (x.log_softmax(1), lib.tensor([0, 3, 1], device=x.device)), {}),
    ("binary_cross_entropy.default", lambda lib, x: (x.sigmoid(), (x > 0).float(), None, 2), {}),
    ("embedding.default", lambda lib, x: (x, lib.tensor([[0, 2], [1, 1]], device=x.device)), {}),
    ("embedding.default", lambda lib, x: (x, lib.tensor([0, 2], device=x.device), 2), {}),
    ("tensordot.default", lambda lib, x: (x, x, [1], [1]), {}),
    ("broadcast_tensors.default", lambda lib, x: ([x, x[:1]],), {}),
    ("block_diag.default", lambda lib, x: ([x, x[:1]],), {}),
    ("cdist.default", lambda lib, x: (x, x[:2]), {}),
    ("sym_size.int", lambda lib, x: (x, 1), {}),
    ("sym_numel.default", lambda lib, x: (x,), {}),
    ("topk.default", lambda lib, x: (x, 2), {}),
    ("gather.default", lambda lib, x: (x, 1, lib.tensor([[0], [3], [1]], device=x.device)), {}),
    ("masked_fill.Scalar", lambda lib, x: (x, x > 0, 0.25), {}),
]


def keywords_for(kwargs, lib):
    return kwargs(lib) if callable(kwargs) else kwargs


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("path,build,kwargs", CALLS, ids=[f"{c[0]}-{i}" for i, c in enumerate(CALLS)])
def test_overload_call_matches_pytorch(path, build, kwargs, device):
    tx, ox = pair(device)
    op_name, overload = path.split(".")
    theirs = getattr(getattr(torch.ops.aten, op_name), overload)(*build(torch, tx), **keywords_for(kwargs, torch))
    ours = getattr(getattr(tandem.ops.aten, op_name), overload)(*build(tandem, ox), **keywords_for(kwargs, tandem))
    check_same(ours, theirs)
    for r in ours if isinstance(ours, (tuple, list)) else [ours]:
        if isinstance(r, tandem.Tensor):
            assert r.device == tandem.device(device if r.device.type == "cuda" else "cpu")


def test_packet_call_picks_the_overload_from_the_arguments():
    tx, ox = pair("cpu")
    check_same(tandem.ops.aten.add(ox, 2), torch.ops.aten.add(tx, 2))
    check_same(tandem.ops.aten.add(ox, ox), torch.ops.aten.add(tx, tx))
    check_same(tandem.ops.aten.max(ox, 1), torch.ops.aten.max(tx, 1))
    check_same(tandem.ops.aten.max(ox), torch.ops.aten.max(tx))


def test_overload_objects_look_like_pytorchs():
    for lib in (torch, tandem):
        aten = lib.ops.aten
        op = aten.clone.default
        assert op is aten.clone.default and op.overloadpacket is aten.clone
        assert op.__name__ == "clone.default" and aten.add.Tensor.__name__ == "add.Tensor"
        assert repr(op) == "<OpOverload(op='aten.clone', overload='default')>"
        assert str(aten.add.Tensor) == "aten.add.Tensor" and aten.add.Tensor.name() == "aten::add.Tensor"
        assert repr(aten.add) == "<OpOverloadPacket(op='aten.add')>"
        assert str(op._schema) == "aten::clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor"
        assert op._schema.overload_name == "" and aten.add.Tensor._schema.overload_name == "Tensor"
        assert [a.name for a in aten.add.Tensor._schema.arguments] == ["self", "other", "alpha"]
        assert {"Tensor", "Scalar", "out"} <= set(aten.add.overloads())
        assert isinstance(op, lib._ops.OpOverload) and isinstance(aten.add, lib._ops.OpOverloadPacket)
        handlers = {aten.add.Tensor: "add", aten.clone.default: "clone"}  # a table keyed by ops (PyG's pattern)
        assert handlers[aten.add.Tensor] == "add" and handlers[lib.ops.aten.clone.default] == "clone"
        assert hasattr(aten, "_sparse_addmm") and not hasattr(aten, "definitely_not_an_op")


def test_errors_match_pytorch():
    for lib in (torch, tandem):
        x = lib.ones(2)
        with pytest.raises(AttributeError, match=r"^'_OpNamespace' 'aten' object has no attribute 'not_an_op'$"):
            lib.ops.aten.not_an_op
        with pytest.raises(AttributeError, match=r"^The underlying op of 'aten.add' has no overload name 'nope'$"):
            lib.ops.aten.add.nope
        declaration = r"Declaration: aten::add.Tensor\(Tensor self, Tensor other, \*, Scalar alpha=1\) -> Tensor"
        with pytest.raises(RuntimeError, match=r"^aten::add\(\) is missing value for argument 'other'. " + declaration):
            lib.ops.aten.add.Tensor(x)
        with pytest.raises(RuntimeError, match=r"^aten::add\(\) expected at most 3 argument\(s\) but received 4 "
                                               r"argument\(s\). " + declaration):
            lib.ops.aten.add.Tensor(x, x, 1, 2)


def test_gradients_flow_through_aten_calls():
    a = tandem.tensor(X, requires_grad=True)
    out = tandem.ops.aten.mul.Tensor(tandem.ops.aten.slice.Tensor(a, 1, 0, 2), 3.0)
    out.sum().backward()
    expected = np.zeros_like(X)
    expected[:, :2] = 3
    np.testing.assert_array_equal(a.grad.numpy(), expected)


def test_every_listed_schema_parses_and_has_an_implementation():
    texts = tandem_aten.schema_texts()
    assert len(texts) > 700
    for name in texts:
        packet = tandem_aten.packet(name)
        assert packet is not None, name
        assert packet.overloads(), name


HOSTILE = {
    "slice_dim_out_of_range": lambda L: L.ops.aten.slice.Tensor(L.ones(2, 3), 5),
    "slice_negative_step": lambda L: L.ops.aten.slice.Tensor(L.ones(4), 0, 0, 4, -1),
    "slice_zero_step": lambda L: L.ops.aten.slice.Tensor(L.ones(4), 0, 0, 4, 0),
    "to_copy_string_dtype": lambda L: L.ops.aten._to_copy.default(L.ones(2), dtype="float"),
    "add_string_self": lambda L: L.ops.aten.add.Tensor("a", 1),
    "add_number_other": lambda L: L.ops.aten.add.Tensor(L.ones(2), 2),
    "unknown_keyword": lambda L: L.ops.aten.add.Tensor(L.ones(1), L.ones(1), beta=2),
    "cdist_bad_mode": lambda L: L.ops.aten.cdist.default(L.ones(2, 2), L.ones(2, 2), 2.0, 5),
    "softmax_bad_dim": lambda L: L.ops.aten._softmax.default(L.ones(2), 3, False),
    "mm_shapes": lambda L: L.ops.aten.mm.default(L.ones(2, 3), L.ones(2, 3)),
    "embedding_out_of_range": lambda L: L.ops.aten.embedding.default(L.ones(3, 2), L.tensor([5])),
    "sym_size_out_of_range": lambda L: L.ops.aten.sym_size.int(L.ones(2), 3),
}


def _outcome(lib, call):
    try:
        result = call(lib)
    except Exception as e:  # noqa: BLE001 - the comparison records which error
        return type(e).__name__, str(e).split("\n")[0].replace("tandem", "torch")
    return "ok", tuple(result.shape)


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_bad_calls_fail_as_pytorchs(name):
    assert _outcome(tandem, HOSTILE[name]) == _outcome(torch, HOSTILE[name])


def test_a_loss_reduction_out_of_range_is_refused():
    with pytest.raises(RuntimeError, match=r"^mse_loss: reduction must be 0 \(none\), 1 \(mean\) or 2 \(sum\), but "
                                           r"was: 7$"):
        tandem.ops.aten.mse_loss.default(tandem.ones(2), tandem.ones(2), 7)
