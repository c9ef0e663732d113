"""The twenty-first program sweep: PyTorch's tutorials and recipes not covered before (a spatial transformer, FGSM,
knowledge distillation, pruning, neural style transfer with an LBFGS closure, warm-starting from a partial
state_dict, zeroing gradients, char-RNN classification), interpretability (saliency, SmoothGrad, integrated
gradients, Grad-CAM with hooks, guided backpropagation, occlusion, class visualisation), point clouds and neural
rendering (PointNet, chamfer distance, kNN/EdgeConv, farthest point sampling, NeRF volume rendering with
searchsorted importance sampling, voxelisation), sparse routing (mixture of experts, GCN/GraphSAGE/GAT message
passing, segment pooling, metric learning, ranking losses), scientific ML (PINNs up to a fourth derivative, a
neural ODE with a hand-written adjoint, a Hamiltonian network, MAML through torch.func, a Fourier neural
operator, DeepONet), pipelines (pandas to a tabular model, saving and loading across devices, seq2seq with
attention, char-level generation, SWA, optimizer/scheduler combinations) and NumPy arrays handed to torch
functions, each program written once against a module called `torch`, run with PyTorch and with tandem standing in
for it, and their results compared. The focused tests below cover what they found (docs/compat.md, "Program
sweep 21")."""
import decimal

import numpy as np
import pytest

import sweep21_geometry
import sweep21_interop
import sweep21_interpret
import sweep21_pipelines
import sweep21_routing
import sweep21_sciml
import sweep21_tutorials
import tandem
from test_programs_sweeputil import program_test, same_outcome

torch = pytest.importorskip("torch")

DEVICES = ["cpu"] + (["cuda"] if tandem.cuda.is_available() else [])
_MODULES = (sweep21_tutorials, sweep21_interpret, sweep21_geometry, sweep21_routing, sweep21_sciml,
            sweep21_pipelines, sweep21_interop)


test_program_matches_pytorch = program_test(_MODULES, DEVICES)


class _UserClass:  # a class statement's type: PyTorch's parser names it bare ("UserClass"), not "module.UserClass"
    pass


_NOT_TENSORS = {
    "array": lambda: np.ones((3, 3), dtype=np.float32),
    "numpy_scalar": lambda: np.float64(2.0),
    "list": lambda: [1.0, 2.0, 3.0],
    "decimal": lambda: decimal.Decimal(1),
    "user_class": _UserClass,
}


def _t(L, d, *shape):
    return L.ones(*shape, device=d) if shape else L.ones(3, 3, device=d)


# ---- a NumPy array (or another non-tensor) where PyTorch's parser expects a Tensor ------------------------------------
_TENSOR_ARGUMENTS = {
    "cdist_x1": lambda L, d, a: L.cdist(a, _t(L, d)),
    "cdist_x2": lambda L, d, a: L.cdist(_t(L, d), a),
    "cdist_x1_before_p": lambda L, d, a: L.cdist(a, _t(L, d), p="2"),
    "diff": lambda L, d, a: L.diff(a),
    "diff_before_n": lambda L, d, a: L.diff(a, n=1.5),
    "diff_prepend": lambda L, d, a: L.diff(_t(L, d), prepend=a),
    "one_hot": lambda L, d, a: L.nn.functional.one_hot(a),
    "one_hot_before_num_classes": lambda L, d, a: L.nn.functional.one_hot(a, 2.5),
    "one_hot_num_classes": lambda L, d, a: L.nn.functional.one_hot(L.tensor([0, 1], device=d), a),
    "embedding_indices": lambda L, d, a: L.nn.functional.embedding(a, _t(L, d)),
    "embedding_weight": lambda L, d, a: L.nn.functional.embedding(L.tensor([0], device=d), a),
    "embedding_padding_assert_first": lambda L, d, a: L.nn.functional.embedding(a, _t(L, d), padding_idx=5),
    "embedding_padding_ok": lambda L, d, a: L.nn.functional.embedding(a, _t(L, d), padding_idx=-1),
    "cross_entropy_input": lambda L, d, a: L.nn.functional.cross_entropy(a, L.tensor([0, 1, 2], device=d)),
    "cross_entropy_target": lambda L, d, a: L.nn.functional.cross_entropy(_t(L, d), a),
    "cross_entropy_weight": lambda L, d, a: L.nn.functional.cross_entropy(_t(L, d), L.tensor([0, 1, 2], device=d),
                                                                          weight=a),
    "cross_entropy_reduction_first": lambda L, d, a: L.nn.functional.cross_entropy(a, a, reduction="avg"),
    "nll_loss_input": lambda L, d, a: L.nn.functional.nll_loss(a, L.tensor([0, 1, 2], device=d)),
    "nll_loss_target": lambda L, d, a: L.nn.functional.nll_loss(_t(L, d), a),
    "kron_input": lambda L, d, a: L.kron(a, _t(L, d)),
    "kron_other": lambda L, d, a: L.kron(_t(L, d), a),
    "rot90": lambda L, d, a: L.rot90(a),
    "diag_embed": lambda L, d, a: L.diag_embed(a),
    "trapezoid_y": lambda L, d, a: L.trapezoid(a),
    "trapezoid_x": lambda L, d, a: L.trapezoid(_t(L, d), a),
    "linalg_norm": lambda L, d, a: L.linalg.norm(a),
    "linalg_cross_input": lambda L, d, a: L.linalg.cross(a, _t(L, d)),
    "linalg_cross_other": lambda L, d, a: L.linalg.cross(_t(L, d), a),
    "cross_other": lambda L, d, a: L.cross(_t(L, d), a, dim=0),
    "fft": lambda L, d, a: L.fft.fft(a),
    "layer_norm_weight": lambda L, d, a: L.nn.functional.layer_norm(_t(L, d), (3,), a),
    "layer_norm_input": lambda L, d, a: L.nn.functional.layer_norm(a, (3,)),
    "linear_input": lambda L, d, a: L.nn.functional.linear(a, _t(L, d)),
    "cov_fweights": lambda L, d, a: L.cov(_t(L, d), fweights=a),
    "bce_logits_pos_weight": lambda L, d, a: L.nn.functional.binary_cross_entropy_with_logits(
        _t(L, d), _t(L, d), pos_weight=a),
    "pixel_shuffle": lambda L, d, a: L.nn.functional.pixel_shuffle(a, 2),
    "pixel_shuffle_before_factor": lambda L, d, a: L.nn.functional.pixel_shuffle(a, 2.0),
    "pixel_unshuffle": lambda L, d, a: L.nn.functional.pixel_unshuffle(a, 1),
    "pixel_shuffle_factor": lambda L, d, a: L.nn.functional.pixel_shuffle(_t(L, d, 1, 4, 1, 1), a),
    # PyTorch's F.normalize calls input.norm(...): an AttributeError naming the missing method
    "normalize": lambda L, d, a: L.nn.functional.normalize(a),
    # these computed on the array (square/reciprocal/ravel/positive returned NumPy arrays) or failed on a missing
    # Tensor attribute
    "square": lambda L, d, a: L.square(a),
    "reciprocal": lambda L, d, a: L.reciprocal(a),
    "ravel": lambda L, d, a: L.ravel(a),
    "positive": lambda L, d, a: L.positive(a),
    "clone": lambda L, d, a: L.clone(a),
    "detach": lambda L, d, a: L.detach(a),
    "diag": lambda L, d, a: L.diag(a, 1),
    "diagonal": lambda L, d, a: L.diagonal(a, 1),
    "trace": lambda L, d, a: L.trace(a),
    "nansum": lambda L, d, a: L.nansum(a, 0),
    "nanmean": lambda L, d, a: L.nanmean(a),
    "count_nonzero": lambda L, d, a: L.count_nonzero(a),
    "cov": lambda L, d, a: L.cov(a),
    "corrcoef": lambda L, d, a: L.corrcoef(a),
    "cumulative_trapezoid": lambda L, d, a: L.cumulative_trapezoid(a),
    "gradient": lambda L, d, a: L.gradient(a),
    "pdist": lambda L, d, a: L.pdist(a),
    "matrix_exp": lambda L, d, a: L.matrix_exp(a),
    "broadcast_tensors": lambda L, d, a: L.broadcast_tensors(_t(L, d), a),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("kind", list(_NOT_TENSORS))
@pytest.mark.parametrize("case", list(_TENSOR_ARGUMENTS))
def test_non_tensor_arguments_are_pytorchs_type_error(case, kind, device):
    """The Python compositions check a Tensor parameter as PyTorch's argument parser does, in its order (before
    the other arguments' checks): a NumPy array is the TypeError "f(): argument 'x' (position n) must be Tensor,
    not numpy.ndarray" (CPython's tp_name: static C types with their module, a class statement's type bare), not
    an AttributeError from a missing Tensor method."""
    make = _NOT_TENSORS[kind]
    same_outcome(lambda L, d: _TENSOR_ARGUMENTS[case](L, d, make()), device)


_TENSOR_LISTS = {
    "block_diag": lambda L, d, a: L.block_diag(_t(L, d), a),
    "meshgrid": lambda L, d, a: L.meshgrid(a, L.ones(2, device=d), indexing="ij"),
    "meshgrid_before_indexing": lambda L, d, a: L.meshgrid([a], indexing=3),
    "meshgrid_list": lambda L, d, a: L.meshgrid([L.ones(2, device=d), a], indexing="xy"),
    "cartesian_prod": lambda L, d, a: L.cartesian_prod(L.ones(2, device=d), a),
    "column_stack": lambda L, d, a: L.column_stack([a]),
    "pad_sequence": lambda L, d, a: L.nn.utils.rnn.pad_sequence([L.ones(2, device=d), a]),
    "pad_sequence_before_side": lambda L, d, a: L.nn.utils.rnn.pad_sequence([a], padding_side="middle"),
    "einsum": lambda L, d, a: L.einsum("ij,jk->ik", _t(L, d), a),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("kind", list(_NOT_TENSORS))
@pytest.mark.parametrize("case", list(_TENSOR_LISTS))
def test_non_tensor_list_elements_are_pytorchs_type_error(case, kind, device):
    """A tensor-list parameter (block_diag's, meshgrid's, cartesian_prod's, column_stack's, pad_sequence's,
    einsum's operands) holding a NumPy array is PyTorch's "expected Tensor as element i in argument n, but got
    numpy.ndarray", before the other arguments are read."""
    make = _NOT_TENSORS[kind]
    same_outcome(lambda L, d: _TENSOR_LISTS[case](L, d, make()), device)


@pytest.mark.parametrize("device", DEVICES)
def test_tensor_arguments_still_work(device):
    """The checks cost nothing on the ordinary path: tensors (and the tensor lists) give PyTorch's values."""
    def run(L, d):
        F = L.nn.functional
        x = L.arange(9.0, device=d).view(3, 3) / 4
        idx = L.tensor([0, 2, 1], device=d)
        return [L.cdist(x, x.flip(0)), L.diff(x[0], prepend=x[1, :1]), F.one_hot(idx, 4),
                F.embedding(idx, x, padding_idx=-1), F.cross_entropy(x, idx), F.nll_loss(x.log_softmax(1), idx),
                L.kron(x[:2, :2], x[:2, :2]), L.rot90(x), L.diag_embed(x[0]), L.trapezoid(x), L.linalg.norm(x),
                L.linalg.cross(x, x.flip(1)), L.block_diag(x, x[0:1]), L.cartesian_prod(x[0], x[1]),
                L.column_stack([x[0], x[1]]), L.nn.utils.rnn.pad_sequence([x[0], x[1, :2]]),
                L.einsum("ij,jk->ik", x, x), *L.meshgrid(x[0], x[1], indexing="xy"),
                L.view_as_real(L.fft.fft(x[0]))]
    same_outcome(run, device)


def test_tp_name_matches_cpython():
    """_tp_name spells a type as CPython's tp_name (what PyTorch prints)."""
    from tandem._dim_args import _tp_name
    assert [_tp_name(v) for v in (np.ones(1), np.float64(1), np.int32(1), decimal.Decimal(1), _UserClass(), 1.5,
                                  [1], None, tandem.ones(1))] == \
        ["numpy.ndarray", "numpy.float64", "numpy.int32", "decimal.Decimal", "_UserClass", "float", "list",
         "NoneType", "Tensor"]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("value", ["array_0d", "int64", "tensor_0d", "float64", "by_name_array", "shuffle_array_0d",
                                   "shuffle_int64"])
def test_int_arguments_follow_pytorchs_int_rule(value, device):
    """A 0-d NumPy array has __index__ but PyTorch's parser refuses it for an int (one_hot's num_classes,
    pixel_shuffle's factor: "must be int, not numpy.ndarray"); NumPy integers and 0-d integer tensors are taken."""
    def run(L, d):
        F, idx = L.nn.functional, L.tensor([0, 2], device=d)
        return {"array_0d": lambda: F.one_hot(idx, np.array(3)), "int64": lambda: F.one_hot(idx, np.int64(3)),
                "tensor_0d": lambda: F.one_hot(idx, L.tensor(3)), "float64": lambda: F.one_hot(idx, np.float64(3)),
                "by_name_array": lambda: F.one_hot(idx, num_classes=np.array(3)),
                "shuffle_array_0d": lambda: F.pixel_shuffle(L.ones(1, 4, 1, 1, device=d), np.array(2)),
                "shuffle_int64": lambda: F.pixel_shuffle(L.ones(1, 4, 1, 1, device=d), np.int64(2))}[value]()
    same_outcome(run, device)


# ---- torch.serialization's allowlist, get_unsafe_globals_in_checkpoint, map_location strings ------------------------------
class _Config:
    def __init__(self):
        self.lr = 0.1


def _allowlist_steps(L):
    import argparse
    S = L.serialization
    ns = argparse.Namespace

    def listed():  # PyTorch lists two of its own classes by default (_FlatLayout, _MeshLayout)
        return sorted(g.__name__ for g in S.get_safe_globals() if not g.__name__.startswith("_F") and
                      not g.__name__.startswith("_M"))
    S.clear_safe_globals()
    out = []
    S.add_safe_globals([_Config])
    S.add_safe_globals([_Config, ns])
    out.append(listed())  # a set: _Config once
    with S.safe_globals([_Config]):
        out.append(listed())
    out.append(listed())  # leaving the block removed _Config, added before it
    block = S.safe_globals([_Config])
    out.append(type(block).__name__)
    with block:
        out.append(listed())
    with block:  # one object entered twice
        out.append(listed())
    block.__enter__()  # entered without a with, and not kept: still allowed
    out.append(listed())
    S.clear_safe_globals()
    for bad in (_Config, [[_Config]]):
        try:
            S.add_safe_globals(bad)
        except TypeError as e:
            out.append(str(e))
    out.append(listed())
    S.clear_safe_globals()
    return out


def test_safe_globals_is_pytorchs_set_and_class():
    """add_safe_globals keeps a set (an entry added twice is listed once); safe_globals is a class whose __exit__
    removes its entries even when they were allowed before the block, and whose instance can be entered again or
    without a `with` (a generator context manager was closed as soon as it was dropped)."""
    assert _allowlist_steps(tandem) == _allowlist_steps(torch)


def _unsafe_globals(L, tmp_path):
    import argparse
    import collections
    import io
    S = L.serialization
    S.clear_safe_globals()
    buf = io.BytesIO()
    L.save({"cfg": _Config(), "args": argparse.Namespace(a=1), "w": L.ones(2), "p": L.nn.Parameter(L.ones(1)),
            "od": collections.OrderedDict(a=1), "size": L.Size([1]), "dtype": L.float16, "dev": L.device("cpu"),
            "sd": L.nn.Linear(1, 1).state_dict(), "c": 1 + 2j, "s": {1}, "ba": bytearray(b"x")}, buf)
    out = [sorted(S.get_unsafe_globals_in_checkpoint(io.BytesIO(buf.getvalue())))]
    S.add_safe_globals([_Config])
    out.append(sorted(S.get_unsafe_globals_in_checkpoint(io.BytesIO(buf.getvalue()))))
    S.clear_safe_globals()
    with S.safe_globals([argparse.Namespace]):
        out.append(sorted(S.get_unsafe_globals_in_checkpoint(io.BytesIO(buf.getvalue()))))
    path = tmp_path / f"{L.__name__}.pt"
    L.save({"w": L.ones(1)}, str(path))
    out.append(S.get_unsafe_globals_in_checkpoint(str(path)))
    out.append(S.get_unsafe_globals_in_checkpoint(path))
    try:
        S.get_unsafe_globals_in_checkpoint(io.BytesIO(b"not a checkpoint"))
    except ValueError as e:
        out.append(str(e))
    return out


def test_get_unsafe_globals_in_checkpoint_matches_pytorch(tmp_path):
    """The globals a checkpoint's pickle names that weights_only=True would refuse (builtins read under their
    Python 3 names, the user's allowlist subtracted), from a file object or a path; a file that is no zip archive
    is PyTorch's ValueError."""
    assert _unsafe_globals(tandem, tmp_path) == _unsafe_globals(torch, tmp_path)


_LOCATIONS = ["gpu", "cpu:0", "CPU", "", " cpu", "lazy", "xpu", "xpu:1", "hpu", "privateuseone", "mps", "meta",
              "cpu", "cuda:abc", "dict_gpu", "dict_cpu0", "dict_cpu"]


@pytest.mark.parametrize("where", _LOCATIONS)
def test_map_location_strings_as_pytorchs_deserializers(where):
    """A map_location string (or a dict's value) is claimed by a backend's deserializer as in PyTorch's
    default_restore_location ("cpu" and "meta" exactly, "cuda..." by prefix); any other ("gpu", "cpu:0", "CPU") is
    its RuntimeError "don't know how to restore data location of torch.storage.UntypedStorage (tagged with gpu)",
    and xpu/hpu/privateuseone/mps their backends' messages."""
    def run(L, d):
        import io
        buf = io.BytesIO()
        L.save({"a": L.arange(3.0)}, buf)
        buf.seek(0)
        ml = {"dict_gpu": {"cpu": "gpu"}, "dict_cpu0": {"cpu": "cpu:0"}, "dict_cpu": {"cuda:0": "gpu"}}.get(where, where)
        out = L.load(buf, map_location=ml)["a"]
        return [out.device.type, out if out.device.type != "meta" else None]
    same_outcome(run, "cpu")


@pytest.mark.parametrize("attr", ["batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
                                  "persistent_workers", "num_workers", "collate_fn", "pin_memory", "timeout"])
def test_dataloader_refuses_changing_what_its_batches_come_from(attr):
    """As PyTorch's DataLoader.__setattr__: once constructed (a subclass's __init__ included), batch_size,
    batch_sampler, sampler, drop_last, dataset and persistent_workers cannot be set (the batch sampler already
    built would ignore them); other attributes can."""
    def run(L, d):
        loader = L.utils.data.DataLoader(list(range(6)), batch_size=2)
        setattr(loader, attr, {"num_workers": 0, "timeout": 0, "pin_memory": False}.get(attr))
        return [[b.tolist() for b in loader] if attr != "collate_fn" else "set", getattr(loader, attr) is None]
    same_outcome(run, "cpu")

    class Loader(tandem.utils.data.DataLoader):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.batch_size = 4
    with pytest.raises(ValueError, match="batch_size attribute should not be set after Loader is initialized"):
        Loader(list(range(3)))


# ---- optimizers pickle as PyTorch's __getstate__ says; plain SGD keeps no state -----------------------------------------
_SCHEDULED = {
    "step": lambda L, o: L.optim.lr_scheduler.StepLR(o, 2, gamma=0.5),
    "onecycle": lambda L, o: L.optim.lr_scheduler.OneCycleLR(o, max_lr=1.0, total_steps=10),
    "plateau": lambda L, o: L.optim.lr_scheduler.ReduceLROnPlateau(o, patience=0),
    "cosine_restarts": lambda L, o: L.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=2),
}


@pytest.mark.parametrize("kind", list(_SCHEDULED))
@pytest.mark.parametrize("how", ["pickle", "deepcopy", "save"])
def test_scheduler_with_its_optimizer_pickles(how, kind):
    """An lr scheduler wraps its optimizer's step on the instance; the optimizer's __getstate__ (defaults, state,
    param_groups, as PyTorch's) leaves that wrapper out, so the pair pickles, deep-copies and torch.saves."""
    def run(L, d):
        import copy
        import io
        import pickle
        p = L.nn.Parameter(L.arange(3.0))
        opt = L.optim.SGD([p], lr=0.4, momentum=0.9)
        sched = _SCHEDULED[kind](L, opt)
        for _ in range(3):
            (p * p).sum().backward()
            opt.step()
            sched.step(1.0) if kind == "plateau" else sched.step()
        pair = {"opt": opt, "sched": sched}
        if how == "pickle":
            back = pickle.loads(pickle.dumps(pair))
        elif how == "deepcopy":
            back = copy.deepcopy(pair)
        else:
            buf = io.BytesIO()
            L.save(pair, buf)
            buf.seek(0)
            back = L.load(buf, weights_only=False)
        o2 = back["opt"]
        return [sorted(k for k in vars(o2) if not k.startswith("_")), o2.param_groups[0]["lr"],
                o2.state[o2.param_groups[0]["params"][0]]["momentum_buffer"], back["sched"].last_epoch,
                back["sched"].optimizer is o2]
    same_outcome(run, "cpu")


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("momentum", [0.0, 0.9])
@pytest.mark.parametrize("sparse", [False, True])
def test_sgd_keeps_state_only_with_momentum(momentum, sparse, device):
    """PyTorch's SGD touches a parameter's state only for its momentum buffer: without momentum opt.state and
    state_dict()["state"] stay empty."""
    def run(L, d):
        emb = L.nn.Embedding(4, 2, sparse=sparse).to(d)
        with L.no_grad():
            emb.weight.copy_(L.arange(8.0).view(4, 2))
        opt = L.optim.SGD(emb.parameters(), lr=0.1, momentum=momentum)
        emb(L.tensor([0, 2], device=d)).sum().backward()
        opt.step()
        sd = opt.state_dict()
        return [len(opt.state), sorted(sd["state"]), [sorted(v) for v in sd["state"].values()], emb.weight]
    same_outcome(run, device)
