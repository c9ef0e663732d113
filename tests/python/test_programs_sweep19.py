"""The nineteenth program sweep: generative models (a VQ-VAE with an EMA codebook, PixelCNN, a Glow step, MADE/MAF,
an R1-regularised GAN, rectified flow, a beta-VAE/IWAE), timm/HuggingFace building blocks (SE/ECA/CBAM with
stochastic depth, logits processors, beam search with a KV cache, grouped-query attention, layer-decay parameter
groups with the newer clipping utilities, a mixture of experts), model surgery and introspection (hook ordering,
module traversal, BN fusion, structured pruning, state-dict migration), NumPy-heavy code (NumPy scalars, NumPy
functions on tensors, from_numpy edge cases, rng pipelines), self-supervised losses (BYOL/SimSiam, VICReg, triplet
mining, margin softmax losses and SupCon, DINO and Sinkhorn) and PyTorch-1.x-era code (Variable, the typed
constructors, resize_/new_*, grad modes, the old loss arguments, set_default_tensor_type), each program written once
against a module called `torch`, run with PyTorch and with tandem standing in for it, and their results compared.
The focused tests below cover what they found (docs/compat.md, "Program sweep 19")."""
import warnings

import numpy as np
import pytest

import sweep19_blocks
import sweep19_generative
import sweep19_legacy
import sweep19_numpy
import sweep19_ssl
import sweep19_surgery
import tandem
from test_programs_sweeputil import program_test, same_outcome

torch = pytest.importorskip("torch")

DEVICES = ["cpu"] + (["cuda"] if tandem.cuda.is_available() else [])
_MODULES = (sweep19_generative, sweep19_blocks, sweep19_surgery, sweep19_numpy, sweep19_ssl, sweep19_legacy)


test_program_matches_pytorch = program_test(_MODULES, DEVICES)


# ---- the legacy constructors read their arguments as PyTorch's do -----------------------------------------------------
def _first_line(call):
    try:
        call()
    except TypeError as exc:
        return str(exc).split("\n")[0]
    return None


def _legacy_type(L, name, device):
    return getattr(L.cuda if device.startswith("cuda") else L, name)


_LEGACY_ARGS = {
    "np_int": lambda T: list(T(np.int64(3)).shape),
    "np_ints": lambda T: list(T(np.int64(2), np.int32(3)).shape),
    "np_0d_int_array": lambda T: list(T(np.array(2)).shape),
    "size_kwarg": lambda T: list(T(size=(2, 3)).shape),
    "size_kwarg_int": lambda T: _first_line(lambda: T(size=4)),
    "size_and_positional": lambda T: _first_line(lambda: T(2, size=[4])),
    "unknown_kwarg": lambda T: _first_line(lambda: T(sz=3)),
    "data_kwarg": lambda T: T(data=[1, 2]),
    "data_kwarg_tensor": lambda T: T(data=T([1, 2])),
    "data_kwarg_float": lambda T: T(data=2.5),
    "other_kwarg_list": lambda T: _first_line(lambda: T(other=[1.5])),
    "other_kwarg": lambda T: T(other=T([1, 2])),
    "range": lambda T: T(range(3)),
    "ndarray": lambda T: T(np.array([1.5, 2.5])),
    "empty": lambda T: list(T().shape),
    "float": lambda T: T(2.5),
    "np_float": lambda T: T(np.float64(2.0)),
    "bool": lambda T: T(True),
    "dict": lambda T: T({1: 2}),
    "set": lambda T: T({1, 2}),
    "float_in_sizes": lambda T: T(2, 3.0),
    "list_in_sizes": lambda T: T(2, [1]),
    "str": lambda T: T("ab"),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", ["FloatTensor", "LongTensor"])
@pytest.mark.parametrize("case", list(_LEGACY_ARGS))
def test_legacy_constructor_arguments_match_pytorch(case, name, device):
    """Sizes are ints or anything with __index__ (NumPy integers, 0-d integer arrays), one Size or size=; a single
    list, tuple, range or array (or data=) is data; a number that is not an integer is refused with PyTorch's
    "new(): data must be a sequence (got float)". The CUDA types read their arguments the same way (PyTorch
    without a GPU refuses them, so the reference is the CPU type)."""
    def run(L, d):
        return _LEGACY_ARGS[case](_legacy_type(L, name, d))
    same_outcome(run, device)


@pytest.mark.parametrize("device", DEVICES)
def test_tensor_constructor_arguments_match_pytorch(device):
    for case in ("np_int", "np_0d_int_array", "size_kwarg", "float", "np_float", "list_in_sizes", "range"):
        same_outcome(lambda L, d: _LEGACY_ARGS[case](L.Tensor), device)


def test_legacy_types_describe_their_tensors():
    for L in (tandem, torch):
        assert L.FloatTensor.is_cuda is False and L.FloatTensor.is_sparse is False
        assert L.cuda.DoubleTensor.is_cuda is True and L.cuda.DoubleTensor.is_sparse_csr is False
        assert L.sparse.FloatTensor.is_sparse is True
        assert str(L.sparse.FloatTensor.layout).endswith("sparse_coo")
        assert str(L.LongTensor.layout).endswith("strided") and str(L.cuda.LongTensor.layout).endswith("strided")
        assert L.IntTensor.is_xpu is False


# ---- Variable's arguments, t.volatile ----------------------------------------------------------------------------------
_VARIABLE = {
    "plain": lambda L: L.autograd.Variable(L.ones(2), requires_grad=True),
    "empty": lambda L: L.autograd.Variable(),
    "none": lambda L: L.autograd.Variable(None),
    "list": lambda L: L.autograd.Variable([1.0]),
    "int_requires_grad": lambda L: L.autograd.Variable(L.ones(2, dtype=L.long), requires_grad=True),
    "int_no_grad": lambda L: L.autograd.Variable(L.ones(2, dtype=L.long)),
    "requires_grad_none": lambda L: L.autograd.Variable(L.ones(2), requires_grad=None),
    "requires_grad_float": lambda L: L.autograd.Variable(L.ones(2), requires_grad=0.5),
    "requires_grad_2": lambda L: L.autograd.Variable(L.ones(2), requires_grad=2).requires_grad,
    "requires_grad_256": lambda L: L.autograd.Variable(L.ones(2), requires_grad=256),
    "requires_grad_negative": lambda L: L.autograd.Variable(L.ones(2), requires_grad=-1),
    "volatile_none": lambda L: L.autograd.Variable(L.ones(2), volatile=None),
    "grad_fn": lambda L: L.autograd.Variable(L.ones(2), False, False, "fn"),
    "name": lambda L: L.autograd.Variable(L.ones(2), name=3),
    "name_str": lambda L: L.autograd.Variable(L.ones(2), name="x"),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", list(_VARIABLE))
def test_variable_arguments_match_pytorch(case, device):
    same_outcome(lambda L, d: _VARIABLE[case](L), device)


def test_volatile_is_always_false_with_pytorchs_warnings():
    t = tandem.ones(2)
    with pytest.warns(UserWarning, match=r"^volatile was removed \(Variable.volatile is always False\)$"):
        assert t.volatile is False
    with pytest.warns(UserWarning, match="^volatile was removed and now has no effect. Use `with tandem.no_grad"):
        t.volatile = True
    with pytest.warns(UserWarning, match="^volatile was removed and now has no effect"):
        v = tandem.autograd.Variable(t, volatile=True)
    assert not v.requires_grad


def test_reduction_module_under_functional():
    assert tandem.nn.functional._Reduction is tandem.nn._reduction
    for L in (tandem, torch):
        assert [L.nn.functional._Reduction.legacy_get_string(a, b, emit_warning=False)
                for a, b in ((None, None), (False, None), (True, False))] == ["mean", "sum", "none"]
        assert L.nn.functional._Reduction.get_enum("sum") == 2


# ---- a ragged nest of arrays: PyTorch's length error, after its dtype inference -----------------------------------------
_RAGGED = {
    "short_row": lambda L, d: L.tensor([np.array([1, 2]), np.array([3])], device=d),
    "long_row": lambda L, d: L.tensor([np.array([1, 2]), np.array([3, 4, 5])], device=d),
    "deeper": lambda L, d: L.tensor([np.ones((2, 2)), np.ones((1, 2))], device=d),
    "deeper_inner": lambda L, d: L.tensor([np.ones((2, 2)), [[1.0, 2.0], [3.0]]], device=d),
    "list_row": lambda L, d: L.tensor([np.array([1, 2]), [3]], device=d),
    "more_dims": lambda L, d: L.tensor([np.array([1, 2]), np.array([[1, 2]])], device=d),
    "number_row": lambda L, d: L.tensor([np.array([1, 2]), 3], device=d),
    "string_row": lambda L, d: L.tensor([np.array([1, 2]), "ab"], device=d),
    "object_array": lambda L, d: L.tensor([np.ones((2, 2)), np.array([[1, 2], [3]], dtype=object)], device=d),
    "as_tensor": lambda L, d: L.as_tensor([np.array([1.0, 2.0]), np.array([3.0])], device=d),
    "float_dtype": lambda L, d: L.tensor([np.array([1, 2]), np.array([3])], dtype=L.float32, device=d),
    "fine": lambda L, d: L.tensor([np.array([1, 2]), np.array([3, 4])], device=d),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", list(_RAGGED))
def test_ragged_nest_of_arrays_matches_pytorch(case, device):
    same_outcome(_RAGGED[case], device)


# ---- named_modules keeps the modules themselves in its memo ----------------------------------------------------------
def test_named_modules_memo_holds_modules():
    def run(L):
        lin = L.nn.Linear(2, 2)
        net = L.nn.Sequential(lin, L.nn.Sequential(lin, L.nn.ReLU()))
        memo = {lin}
        names = [n for n, _ in net.named_modules(memo=memo)]
        return names, len(memo), all(isinstance(m, L.nn.Module) for m in memo)
    assert run(tandem) == run(torch) == (["", "1", "1.1"], 4, True)


# ---- scaled_dot_product_attention with a 0-d or 1-d mask: broadcast unless PyTorch's CPU flash check reads it --------
def _sdpa_case(q_shape, k_shape, mask, **kwargs):
    def run(L, d):
        numel = lambda s: int(np.prod(s))  # noqa: E731
        q = L.arange(float(numel(q_shape)), device=d).view(q_shape).sin()
        k = L.arange(float(numel(k_shape)), device=d).view(k_shape).cos()
        v = L.arange(float(numel(k_shape)), device=d).view(k_shape) / 7
        n = k_shape[-2]
        masks = {"bool": L.arange(n, device=d) % 3 != 2, "float": -(L.arange(n, device=d) % 2).float(),
                 "scalar": L.tensor(True, device=d), "grad": L.zeros(n, device=d, requires_grad=True),
                 "long": L.zeros(n, dtype=L.long, device=d)}
        return L.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=masks[mask], **kwargs)
    return run


_SDPA_MASKS = {
    "2d_bool": _sdpa_case((2, 3), (4, 3), "bool"),
    "3d_bool": _sdpa_case((1, 2, 3), (1, 4, 3), "bool"),
    "3d_float": _sdpa_case((1, 2, 3), (1, 4, 3), "float"),
    "3d_scalar": _sdpa_case((1, 2, 3), (1, 4, 3), "scalar"),
    "4d_bool": _sdpa_case((1, 1, 2, 3), (1, 1, 4, 3), "bool"),
    "4d_scalar": _sdpa_case((1, 1, 2, 3), (1, 1, 4, 3), "scalar"),
    "4d_mask_requires_grad": _sdpa_case((1, 1, 2, 3), (1, 1, 4, 3), "grad"),
    "4d_batch_broadcast": _sdpa_case((2, 1, 2, 3), (1, 1, 4, 3), "bool"),
    "4d_dropout": _sdpa_case((1, 1, 2, 3), (1, 1, 4, 3), "bool", dropout_p=0.5),
    "4d_gqa": _sdpa_case((1, 2, 2, 3), (1, 1, 4, 3), "bool", enable_gqa=True),
    "4d_causal": _sdpa_case((1, 1, 2, 3), (1, 1, 4, 3), "bool", is_causal=True),
    "4d_long": _sdpa_case((1, 1, 2, 3), (1, 1, 4, 3), "long"),
    "5d_bool": _sdpa_case((1, 1, 1, 2, 3), (1, 1, 1, 4, 3), "bool"),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", list(_SDPA_MASKS))
def test_sdpa_vector_masks_match_pytorch(case, device):
    if case == "4d_dropout":  # random: only whether it runs and its shape
        same_outcome(lambda L, d: list(_SDPA_MASKS[case](L, d).shape), device)
    else:
        same_outcome(_SDPA_MASKS[case], device)


# ---- the deprecated scalar-first overloads of addmm, addbmm, baddbmm, addmv, addr ---------------------------------------
_PRODUCT_SHAPES = {"addmm": ((2, 2), (2, 3), (3, 2)), "addbmm": ((2, 2), (2, 2, 3), (2, 3, 2)),
                   "baddbmm": ((2, 2, 2), (2, 2, 3), (2, 3, 2)), "addmv": ((2,), (2, 3), (3,)),
                   "addr": ((2, 3), (2,), (3,))}
_PRODUCT_FORMS = {
    "beta_alpha": lambda L, f, a, b, c: getattr(L, f)(0.5, a, 2.0, b, c),
    "beta": lambda L, f, a, b, c: getattr(L, f)(0.5, a, b, c),
    "int_scalars": lambda L, f, a, b, c: getattr(L, f)(2, a, 3, b, c),
    "out": lambda L, f, a, b, c: getattr(L, f)(0.5, a, 2.0, b, c, out=L.empty_like(a)),
    "method_beta_alpha": lambda L, f, a, b, c: getattr(a, f)(0.5, 2.0, b, c),
    "method_beta": lambda L, f, a, b, c: getattr(a, f)(0.5, b, c),
    "inplace_beta_alpha": lambda L, f, a, b, c: getattr(a.clone(), f + "_")(0.5, 2.0, b, c),
    "inplace_beta": lambda L, f, a, b, c: getattr(a.clone(), f + "_")(-1, b, c),
    "keywords": lambda L, f, a, b, c: getattr(L, f)(a, b, c, beta=0.5, alpha=2.0),
    "wrong_order": lambda L, f, a, b, c: getattr(L, f)(a, 0.5, b, c),
    "method_wrong_order": lambda L, f, a, b, c: getattr(a, f)(b, 0.5, c),
    "beta_twice": lambda L, f, a, b, c: getattr(L, f)(0.5, a, b, c, beta=2.0),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("form", list(_PRODUCT_FORMS))
@pytest.mark.parametrize("op", list(_PRODUCT_SHAPES))
def test_deprecated_product_overloads_match_pytorch(op, form, device):
    def run(L, d):
        a, b, c = (L.arange(float(np.prod(s)), device=d).view(s) / 5 - 0.5 for s in _PRODUCT_SHAPES[op])
        return _PRODUCT_FORMS[form](L, op, a, b, c)
    same_outcome(run, device)


def test_deprecated_product_overload_warns_with_pytorchs_text():
    from tandem import _deprecated_overloads
    saved = list(_deprecated_overloads._warned)
    _deprecated_overloads._warned.clear()  # PyTorch warns once a process, whichever overload comes first
    try:
        with pytest.warns(UserWarning) as record:
            tandem.addmm(0.5, tandem.ones(2, 2), 2.0, tandem.ones(2, 3), tandem.ones(3, 2))
        assert str(record[0].message).startswith(
            "This overload of addmm is deprecated:\n\taddmm(Number beta, Tensor input, Number alpha, Tensor mat1, "
            "Tensor mat2, *, Tensor out = None)\nConsider using one of the following signatures instead:\n\taddmm("
            "Tensor input, Tensor mat1, Tensor mat2, *, Number beta = 1, Number alpha = 1, Tensor out = None)")
        assert record[0].filename == __file__
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # once a process: the next deprecated call is quiet
            tandem.ones(2).addmv_(1, tandem.ones(2, 3), tandem.ones(3))
    finally:
        _deprecated_overloads._warned[:] = saved


# ---- full backward hooks of a module whose output is not a tensor or a tuple: skipped, as PyTorch's -----------------
def _dict_module(L, container):
    class Heads(L.nn.Module):
        def forward(self, x):
            out = {"a": x * 2, "b": x * 3}
            return out if container == "dict" else [out["a"], out["b"]] if container == "list" else (out["a"],
                                                                                                      out["b"])
    return Heads()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("container", ["dict", "list", "tuple"])
def test_full_backward_hooks_of_container_outputs_match_pytorch(container, device):
    def run(L, d):
        m = _dict_module(L, container)
        seen = []
        m.register_full_backward_hook(lambda mod, gi, go: seen.append(["hook", len(gi), len(go)]))
        m.register_full_backward_pre_hook(lambda mod, go: seen.append(["pre", len(go)]))
        x = L.ones(2, device=d, requires_grad=True)
        out = m(x)
        parts = out.values() if isinstance(out, dict) else out
        sum(p.sum() for p in parts).backward()
        return seen, x.grad
    same_outcome(run, device)


def test_full_backward_hook_on_a_list_output_warns_as_pytorch():
    m = _dict_module(tandem, "list")
    m.register_full_backward_hook(lambda *a: None)
    with pytest.warns(UserWarning, match=r"^For backward hooks to be called, module output should be a Tensor or a "
                                         r"tuple of Tensors but received <class 'list'>$") as record:
        m(tandem.ones(2, requires_grad=True))
    assert record[0].filename.endswith("module.py")  # as PyTorch's (stacklevel 2 inside its _call_impl)


# ---- nll_loss/cross_entropy with every target ignored: NaN loss, zero gradient, as PyTorch's kernel --------------------
_IGNORED = {
    "nll": lambda L, x: L.nn.functional.nll_loss(x.log_softmax(1), L.tensor([1, 1], device=x.device), ignore_index=1),
    "ce": lambda L, x: L.nn.functional.cross_entropy(x, L.tensor([1, 1], device=x.device), ignore_index=1),
    "ce_default_ignore": lambda L, x: L.nn.functional.cross_entropy(x, L.tensor([-100, -100], device=x.device)),
    "ce_smoothing": lambda L, x: L.nn.functional.cross_entropy(x, L.tensor([1, 1], device=x.device), ignore_index=1,
                                                              label_smoothing=0.1),
    "ce_weight_smoothing": lambda L, x: L.nn.functional.cross_entropy(
        x, L.tensor([1, 1], device=x.device), weight=L.tensor([1.0, 2.0], device=x.device), ignore_index=1,
        label_smoothing=0.1),
    "ce_spatial": lambda L, x: L.nn.functional.cross_entropy(x[..., None], L.tensor([[1], [1]], device=x.device),
                                                            ignore_index=1),
    "module": lambda L, x: L.nn.CrossEntropyLoss(ignore_index=0)(x, L.tensor([0, 0], device=x.device)),
    "none_with_inf": lambda L, x: L.nn.functional.nll_loss(
        x + L.tensor([[-float("inf"), 0.0], [0.0, 0.0]], device=x.device), L.tensor([0, 1], device=x.device),
        ignore_index=0, reduction="none"),
    "sum": lambda L, x: L.nn.functional.nll_loss(x, L.tensor([1, 1], device=x.device), ignore_index=1,
                                                 reduction="sum"),
    "zero_class_weight": lambda L, x: L.nn.functional.cross_entropy(  # not ignored: NaN gradient in PyTorch too
        x, L.tensor([0, 0], device=x.device), weight=L.tensor([0.0, 1.0], device=x.device)),
    "some_kept": lambda L, x: L.nn.functional.cross_entropy(x, L.tensor([0, 1], device=x.device), ignore_index=1,
                                                            label_smoothing=0.2),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", list(_IGNORED))
def test_all_ignored_targets_give_zero_gradients(case, device):
    def run(L, d):
        x = L.tensor([[1.0, 2.0], [0.5, 0.1]], device=d, requires_grad=True)
        loss = _IGNORED[case](L, x)
        loss.sum().backward()
        return loss, x.grad
    same_outcome(run, device)


# ---- linalg.vector_norm's gradient where the norm or an element is 0: PyTorch's masked 0, not NaN ----------------------
def _norm_case(ord, dim, dtype, fn="vector_norm"):
    def run(L, d):
        x = L.tensor([[0.5, -1.0, 2.0], [0.0, 0.0, 0.0], [3.0, -0.25, 0.0]], device=d, dtype=getattr(L, dtype))
        if dtype.startswith("complex"):
            x = x * (1 + 0.5j)
        x.requires_grad_(True)
        if fn == "vector_norm":
            y = L.linalg.vector_norm(x, ord, dim=dim)
        elif fn == "linalg_norm":
            y = L.linalg.norm(x, dim=dim)
        elif fn == "matrix_norm":
            y = L.linalg.matrix_norm(x * 0)
        else:
            y = L.nn.functional.normalize(x, p=ord, dim=1)
        (g,) = L.autograd.grad(y.sum(), x)
        return y, g
    return run


_NORMS = {f"ord{o}_dim{dim}_{dt}": _norm_case(o, dim, dt) for o in (2, 3, 0.5, 1.5, 1, -1, -0.5, float("inf"))
          for dim in (None, 1, (0, 1)) for dt in ("float32", "float64", "complex64")}
_NORMS.update({"linalg_norm": _norm_case(2, 1, "float32", "linalg_norm"),
               "matrix_fro_of_zeros": _norm_case(2, None, "float64", "matrix_norm"),
               "normalize_p3": _norm_case(3, None, "float32", "normalize")})


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", list(_NORMS))
def test_vector_norm_gradient_at_zero_matches_pytorch(case, device):
    same_outcome(_NORMS[case], device)


def test_vector_norm_without_grad_takes_the_plain_path():
    x = tandem.tensor([[0.0, 0.0], [3.0, 4.0]])
    assert tandem.linalg.vector_norm(x, dim=1).tolist() == [0.0, 5.0]
    assert tandem.linalg.vector_norm(x, -1, dim=1).tolist() == [0.0, pytest.approx(12 / 7)]
    with tandem.no_grad():
        y = tandem.linalg.vector_norm(x.requires_grad_(), 0.5, dim=1)
    assert not y.requires_grad and y.tolist() == [0.0, pytest.approx((3 ** 0.5 + 2) ** 2)]
