"""The fourteenth program sweep: scientific computing and the tutorials' autograd, each program written once against a
module called `torch`, run with PyTorch and with tandem standing in for it, and their results compared. The programs
live in sweep14_quantum.py (a state-vector quantum circuit simulator, a split-step Schroedinger solver, unitary
evolution by matrix_exp, complex parameters trained by Adam, pseudo-spectral Burgers / Poisson solvers, FFT
convolution and correlation, a complex-valued CNN), sweep14_linalg.py (Gaussian process regression with
cholesky_solve, a Glow invertible 1x1 convolution with slogdet and an LU weight, PCA / ZCA whitening, least squares
with every lstsq driver, power iteration and Lanczos, a Kalman RTS smoother, matrix functions and norms,
Hessian-vector products and a Hessian-free Newton step), sweep14_autograd.py ("Learning PyTorch with Examples", a
heat-equation PINN, a neural ODE trained by the adjoint method, custom Functions with gradcheck, a deep-equilibrium
layer, iterative pruning with a custom method, orthogonal parametrizations), sweep14_probabilistic.py
(torch.distributions: a VAE's ELBO, conjugate Bayesian regression, Gaussian mixtures by gradient and EM, transformed
distributions, the discrete and continuous families) and sweep14_metric.py (triplet mining, pair losses, NT-Xent and a
MoCo queue, circle / multi-similarity losses, proxy and center losses, retrieval metrics). The focused tests below
cover what they found (docs/compat.md, "Program sweep 14")."""
import importlib
import math

import numpy as np
import pytest

import sweep14_autograd
import sweep14_linalg
import sweep14_metric
import sweep14_probabilistic
import sweep14_quantum
import tandem
from test_programs_sweeputil import DEFAULT_TOLERANCE, assert_same_results, program_test
from test_programs_sweeputil import call_outcome as _outcome  # noqa: E402
from test_programs_sweeputil import same_outcome  # noqa: E402

torch = pytest.importorskip("torch")

DEVICES = ["cpu"] + (["cuda"] if tandem.cuda.is_available() else [])
_MODULES = (sweep14_quantum, sweep14_linalg, sweep14_autograd, sweep14_probabilistic, sweep14_metric)


test_program_matches_pytorch = program_test(_MODULES, DEVICES)


_same = same_outcome


def _matrix(lib, device, values, dtype="float32"):
    return lib.tensor(np.asarray(values), dtype=getattr(lib, dtype), device=device)


# ---- LinAlgError keeps PyTorch's class name ------------------------------------------------------------------------
def test_linalg_error_class_is_named_as_pytorchs():
    assert tandem.linalg.LinAlgError.__name__ == torch.linalg.LinAlgError.__name__ == "_LinAlgError"
    assert tandem.linalg.LinAlgError is tandem._C._LinAlgError and issubclass(tandem.linalg.LinAlgError, RuntimeError)
    with pytest.raises(tandem.linalg.LinAlgError) as info:
        tandem.linalg.cholesky(tandem.tensor([[1.0, 2.0], [2.0, 1.0]]))
    assert type(info.value).__name__ == "_LinAlgError"


# ---- pinv / matrix_rank: the legacy positional tolerance and tensor tolerances -----------------------------------
_DIAG = [[1.0, 0.0, 0.0], [0.0, 0.05, 0.0], [0.0, 0.0, 0.001]]
_STACK = [[[1.0, 0.0], [0.0, 1e-3]], [[1.0, 0.0], [0.0, 1e-3]]]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("call", [
    lambda L, A: L.linalg.matrix_rank(A, 0.01), lambda L, A: L.linalg.matrix_rank(A, tol=0.01),
    lambda L, A: L.linalg.matrix_rank(A, 0.01, True), lambda L, A: L.linalg.matrix_rank(A, hermitian=True, tol=0.01),
    lambda L, A: L.linalg.matrix_rank(A, L.tensor(0.01, device=A.device)),
    lambda L, A: L.linalg.matrix_rank(A, atol=0.0), lambda L, A: L.linalg.matrix_rank(A, atol=0.02, rtol=0.5),
    lambda L, A: L.linalg.pinv(A, 0.01), lambda L, A: L.linalg.pinv(A, rcond=0.1),
    lambda L, A: L.linalg.pinv(A, 0.01, True), lambda L, A: L.linalg.pinv(A, hermitian=True, rcond=0.01),
    lambda L, A: L.linalg.pinv(A, rcond=L.tensor(0.01, device=A.device)), lambda L, A: L.linalg.pinv(A, atol=0.0),
    lambda L, A: L.linalg.pinv(A, atol=0.01, rtol=0.0001)], ids=lambda c: "")
def test_pinv_and_matrix_rank_forms_match_pytorch(call, device):
    _same(lambda lib, dev: call(lib, _matrix(lib, dev, _DIAG)), device)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("fn", ["matrix_rank", "pinv"])
@pytest.mark.parametrize("kind", ["atol", "rtol"])
def test_tensor_tolerances_are_one_per_matrix_as_pytorch(kind, fn, device):
    _same(lambda lib, dev: getattr(lib.linalg, fn)(_matrix(lib, dev, _STACK), **{
        kind: lib.tensor([1e-4, 1e-2], device=dev)}), device)


def test_atol_zero_keeps_the_default_rtol_as_pytorch():
    A = [[1.0, 0.0], [0.0, 1e-9]]
    for fn in ("matrix_rank", "pinv"):
        _same(lambda lib, dev: getattr(lib.linalg, fn)(_matrix(lib, dev, A), atol=0.0), "cpu")
        _same(lambda lib, dev: getattr(lib.linalg, fn)(_matrix(lib, dev, A), atol=lib.tensor(0.0)), "cpu")
    assert int(tandem.linalg.matrix_rank(tandem.tensor(A), atol=0.0)) == 1


@pytest.mark.parametrize("call", [
    lambda L: L.linalg.matrix_rank(L.ones(3, 3), "a"), lambda L: L.linalg.pinv(L.ones(3, 3), "a"),
    lambda L: L.linalg.pinv(L.ones(3, 3), 0.1, "a"), lambda L: L.linalg.matrix_rank(L.ones(3, 3), 0.1, True, True),
    lambda L: L.linalg.matrix_rank(L.ones(3)), lambda L: L.linalg.matrix_rank(L.ones(3, 3, dtype=L.int64)),
    lambda L: L.linalg.matrix_rank(L.ones(2, 3), hermitian=True), lambda L: L.linalg.pinv(L.ones(3)),
    lambda L: L.linalg.pinv(L.ones(3, 3, dtype=L.int64)), lambda L: L.linalg.pinv(L.ones(2, 2, dtype=L.float16)),
    lambda L: L.linalg.matrix_rank(L.eye(2), atol=L.tensor(1j)), lambda L: L.linalg.pinv(L.eye(2), rtol=L.tensor(1j))],
    ids=lambda c: "")
def test_pinv_and_matrix_rank_refusals_match_pytorch(call):
    _same(lambda lib, dev: call(lib), "cpu")


def test_tolerance_keywords_next_to_the_legacy_one_are_refused():
    for call in (lambda L: L.linalg.pinv(L.eye(2), 0.1, atol=0.2), lambda L: L.linalg.matrix_rank(L.eye(2), 0.1,
                                                                                                  rtol=0.2)):
        for lib in (tandem, torch):
            with pytest.raises(TypeError, match=r"received an invalid combination of arguments - got \(Tensor, "
                                                r"float, [ar]tol=float\), but expected one of:"):
                call(lib)


# ---- norms: PyTorch's checks, in its order ------------------------------------------------------------------------
_NORM_CALLS = [
    lambda L: L.linalg.norm(L.ones(2, 2, 2), ord=2), lambda L: L.linalg.norm(L.ones(2, 2, 2), ord="fro"),
    lambda L: L.linalg.norm(L.ones(2, 2, 2), ord="nuc", dim=(0, 1, 2)),
    lambda L: L.linalg.norm(L.ones(2, 2, 2), ord=1, dim=(0, 1, 2)), lambda L: L.linalg.norm(L.ones(2, 2, 2), dim=()),
    lambda L: L.linalg.norm(L.ones(2, 2), ord="nuc", dim=0), lambda L: L.linalg.norm(L.ones(2, 2), dim=1, ord="fro"),
    lambda L: L.linalg.norm(L.ones(2, 2, dtype=L.int64), ord=1), lambda L: L.linalg.norm(L.ones(2), ord="nuc"),
    lambda L: L.linalg.norm(L.ones(2, 2, 2), ord="fro", dim=(0, 1), keepdim=True),
    lambda L: L.linalg.norm(L.arange(8.0).reshape(2, 2, 2), ord=math.inf, dim=(2, 0)),
    lambda L: L.linalg.matrix_norm(L.ones(2, 2), dim=(0,)), lambda L: L.linalg.matrix_norm(L.ones(2, 2, 2),
                                                                                           dim=(0, 1, 2)),
    lambda L: L.linalg.matrix_norm(L.ones(2, 2), dim=(0, 0)), lambda L: L.linalg.matrix_norm(L.ones(2, 2), dim=(1, -1)),
    lambda L: L.linalg.matrix_norm(L.ones(2, 2), ord=1, dim=(0, 5)), lambda L: L.linalg.matrix_norm(L.ones(2), ord=5),
    lambda L: L.linalg.matrix_norm(L.ones(2, 2), ord=1.5), lambda L: L.linalg.matrix_norm(L.ones(2), ord="x"),
    lambda L: L.linalg.matrix_norm(L.ones(2, 2, dtype=L.int64), dim=(0,)),
    lambda L: L.linalg.matrix_norm(L.ones(2, 2, dtype=L.float16), ord=2),
    lambda L: L.linalg.matrix_norm(L.ones(2, 2, dtype=L.float16), ord="nuc"),
    lambda L: L.linalg.matrix_norm(L.ones(2, 2, dtype=L.float16), ord=1),
    lambda L: L.linalg.matrix_norm(L.ones(2, 2), dtype=L.int64),
    lambda L: L.linalg.matrix_norm(L.ones(2, 2, dtype=L.complex64), dtype=L.float32),
    lambda L: L.linalg.matrix_norm(L.ones(2, 2, dtype=L.float64), dtype=L.float32),
    lambda L: L.linalg.matrix_norm(L.ones(2, 2), ord="nuc", dtype=L.float16),
    lambda L: L.linalg.matrix_norm(L.ones(2, 2), ord=1, dtype=L.float64),
    lambda L: L.linalg.vector_norm(L.ones(2, 2), dtype=L.float16),
    lambda L: L.linalg.vector_norm(L.ones(2), dtype=L.complex64),
    lambda L: L.linalg.vector_norm(L.ones(2, dtype=L.float16), dtype=L.float32),
    lambda L: L.linalg.vector_norm(L.ones(2, dtype=L.complex128), dtype=L.complex64),
    lambda L: L.linalg.vector_norm(L.zeros(0), ord=-1), lambda L: L.linalg.vector_norm(L.zeros(0, 3), ord=-2, dim=0),
    lambda L: L.linalg.vector_norm(L.zeros(0, 3), ord=-2, dim=1),
    lambda L: L.linalg.vector_norm(L.ones(3, 0), ord=math.inf, dim=(0, 1)),
    lambda L: L.linalg.vector_norm(L.ones(3, 0), ord=math.inf, keepdim=True),
    lambda L: L.linalg.vector_norm(L.zeros(0, 3), ord=0, dim=0)]


@pytest.mark.parametrize("call", _NORM_CALLS, ids=lambda c: "")
def test_norm_checks_match_pytorch(call):
    _same(lambda lib, dev: call(lib), "cpu")


@pytest.mark.parametrize("device", DEVICES)
def test_norms_on_a_device_match_pytorch(device):
    x = np.random.default_rng(1460).standard_normal((3, 4, 5))
    for ord_, dim in (("fro", (0, 2)), ("nuc", (2, 1)), (1, (0, 1)), (-math.inf, (1, 2)), (2, (0, 1)), (-2, (0, 2))):
        _same(lambda lib, dev: lib.linalg.norm(lib.tensor(x, device=dev), ord=ord_, dim=dim, keepdim=True), device)
    _same(lambda lib, dev: lib.linalg.vector_norm(lib.tensor(x, device=dev), ord=-math.inf, dim=-1), device)


# ---- cond -----------------------------------------------------------------------------------------------------------
_COND_MATRICES = {"regular": [[1.0, 2.0], [3.0, 4.0]], "singular": [[1.0, 2.0], [2.0, 4.0]],
                  "zero": [[0.0, 0.0], [0.0, 0.0]]}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("A, p", [(A, p) for A in _COND_MATRICES
                                  for p in [None, 2, -2, 1, -1, math.inf, -math.inf, "fro", "nuc"]
                                  if (A, p) != ("singular", "nuc")],  # (the SVD of an inf matrix: LAPACK's own)
                         ids=str)
def test_cond_values_match_pytorch(A, p, device):
    A = _COND_MATRICES[A]
    _same(lambda lib, dev: lib.linalg.cond(_matrix(lib, dev, A), p), device)


@pytest.mark.parametrize("call", [
    lambda L: L.linalg.cond(L.ones(2, 3), p=1), lambda L: L.linalg.cond(L.ones(2, 3), p=1.0),
    lambda L: L.linalg.cond(L.ones(2, 3), p=-math.inf), lambda L: L.linalg.cond(L.ones(2, 3), p="fro"),
    lambda L: L.linalg.cond(L.ones(2, 3), p=True), lambda L: L.linalg.cond(L.ones(3)),
    lambda L: L.linalg.cond(L.ones(3), p=3), lambda L: L.linalg.cond(L.ones(3), p="x"),
    lambda L: L.linalg.cond(L.eye(2), p=3), lambda L: L.linalg.cond(L.eye(2), p=1.5),
    lambda L: L.linalg.cond(L.eye(2), p="abc"), lambda L: L.linalg.cond(L.eye(2), p=1e20),
    lambda L: L.linalg.cond(L.eye(2, dtype=L.int64), p="x"), lambda L: L.linalg.cond(L.zeros(3, 0, 0)),
    lambda L: L.linalg.cond(L.zeros(3, 0, 0), "fro"), lambda L: L.linalg.cond(L.zeros(2, 0, 3), 1),
    lambda L: L.linalg.cond(L.zeros(3, 0, 0, dtype=L.complex128), 1)], ids=lambda c: "")
def test_cond_checks_match_pytorch(call):
    _same(lambda lib, dev: call(lib), "cpu")


# ---- lstsq, vecdot, solve_triangular ----------------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda L: L.linalg.lstsq(L.ones(3, 2), L.ones(4)), lambda L: L.linalg.lstsq(L.ones(3, 2), L.ones(4, 1)),
    lambda L: L.linalg.lstsq(L.ones(2, 3, 2), L.ones(3)), lambda L: L.linalg.lstsq(L.ones(3, 2), L.ones(2, 2, 3, 1)),
    lambda L: L.linalg.vecdot(L.ones(3), L.ones(4)), lambda L: L.linalg.vecdot(L.ones(3), L.ones(3, dtype=L.float64)),
    lambda L: L.linalg.vecdot(L.ones(3, dtype=L.int64), L.ones(3, dtype=L.int64)),
    lambda L: L.linalg.vecdot(L.ones(3, dtype=L.bool), L.ones(3, dtype=L.bool)),
    lambda L: L.linalg.vecdot(L.ones(3, dtype=L.complex64), L.ones(3)),
    lambda L: L.linalg.vecdot(L.ones(3), L.ones(3), dim=5), lambda L: L.linalg.vecdot(L.ones(2, 3), L.ones(3), dim=5),
    lambda L: L.linalg.vecdot(L.tensor([1 + 2j, 3j]), L.tensor([2 - 1j, 1 + 1j])),
    lambda L: L.linalg.vecdot(L.ones(3), L.ones(4, 3)),
    lambda L: L.linalg.solve_triangular(L.eye(2), L.ones(2, 1))], ids=lambda c: "")
def test_lstsq_vecdot_solve_triangular_checks_match_pytorch(call):
    _same(lambda lib, dev: call(lib), "cpu")


# ---- complex convolutions (PyTorch's Gauss trick) --------------------------------------------------------------------
def _complex(rng, *shape, dtype=np.complex64):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


_CONV_CASES = {
    "conv1d": ((2, 4, 9), (6, 2, 3), dict(stride=2, padding=1, groups=2)),
    "conv1d_same": ((1, 3, 8), (2, 3, 4), dict(padding="same", dilation=2)),
    "conv2d": ((2, 3, 7, 6), (4, 3, 3, 2), dict(stride=(2, 1), padding=(1, 0))),
    "conv3d": ((1, 2, 4, 5, 4), (3, 2, 2, 3, 2), dict(padding=1)),
    "conv_transpose1d": ((2, 4, 5), (4, 3, 3), dict(stride=2, output_padding=1)),
    "conv_transpose2d": ((1, 2, 4, 3), (2, 3, 3, 3), dict(stride=2, padding=1, dilation=1)),
    "conv_transpose3d": ((1, 2, 3, 3, 2), (2, 2, 2, 2, 2), dict(stride=(1, 2, 1))),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("bias, dtype", [(False, np.complex64), (True, np.complex128)], ids=["complex64", "bias128"])
@pytest.mark.parametrize("case", list(_CONV_CASES))
def test_complex_convolutions_match_pytorch(case, bias, dtype, device):
    in_shape, w_shape, kwargs = _CONV_CASES[case]
    rng = np.random.default_rng(1461)
    x, w = _complex(rng, *in_shape, dtype=dtype), _complex(rng, *w_shape, dtype=dtype)
    out_channels = w_shape[1] * kwargs.get("groups", 1) if "transpose" in case else w_shape[0]
    b = _complex(rng, out_channels, dtype=dtype) if bias else None
    fn = case.replace("_same", "")

    def run(lib, dev):
        xt, wt = lib.tensor(x, device=dev, requires_grad=True), lib.tensor(w, device=dev, requires_grad=True)
        bt = None if b is None else lib.tensor(b, device=dev, requires_grad=True)
        out = getattr(lib.nn.functional, fn)(xt, wt, bt, **kwargs)
        (out.abs() ** 2).sum().backward()
        grads = [xt.grad, wt.grad] + ([] if bt is None else [bt.grad])
        return [str(out.dtype), list(out.shape)] + [lib.view_as_real(t).flatten().tolist() for t in [out] + grads]

    tol = dict(rel=1e-4, abs=1e-4) if dtype == np.complex64 else dict(rel=1e-9, abs=1e-9)
    _same(run, device, tol)


@pytest.mark.parametrize("device", DEVICES)
def test_complex_conv_modules_train_as_pytorch(device):
    rng = np.random.default_rng(1462)
    w, x = _complex(rng, 3, 2, 3, 3), _complex(rng, 2, 2, 6, 6)

    def run(lib, dev):
        conv = lib.nn.Conv2d(2, 3, 3, padding=1, padding_mode="circular", bias=False, dtype=lib.complex64).to(dev)
        with lib.no_grad():
            conv.weight.copy_(lib.tensor(w))
        out = conv(lib.tensor(x, device=dev))
        out.abs().sum().backward()
        return [lib.view_as_real(out).flatten().tolist(), lib.view_as_real(conv.weight.grad).flatten().tolist()]

    _same(run, device, dict(rel=1e-4, abs=1e-4))


def test_mixed_real_and_complex_convolution_is_still_refused():
    x, w = tandem.ones(1, 1, 4, dtype=tandem.complex64), tandem.ones(1, 1, 2)
    with pytest.raises(RuntimeError):
        tandem.nn.functional.conv1d(x, w)
    with pytest.raises(RuntimeError):
        tandem.nn.functional.conv1d(w.reshape(1, 1, 2).expand(1, 1, 4).contiguous(), x[:, :, :2])


# ---- losses and interpolate refuse complex inputs as PyTorch's kernels do ----------------------------------------
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("call", [
    lambda L, d: L.nn.functional.mse_loss(L.tensor([1 + 2j], device=d), L.tensor([3j], device=d)),
    lambda L, d: L.nn.functional.mse_loss(L.tensor([1 + 2j], device=d), L.tensor([3.0], device=d)),
    lambda L, d: L.nn.functional.mse_loss(L.tensor([1.0], device=d), L.tensor([3j], device=d), reduction="none"),
    lambda L, d: L.nn.MSELoss()(L.tensor([1 + 2j], device=d), L.tensor([3j], device=d)),
    lambda L, d: L.nn.functional.smooth_l1_loss(L.tensor([1 + 2j], device=d), L.tensor([3j], device=d)),
    lambda L, d: L.nn.functional.huber_loss(L.tensor([1 + 2j], device=d), L.tensor([3j], device=d)),
    lambda L, d: L.nn.functional.l1_loss(L.tensor([1 + 2j], device=d), L.tensor([3j], device=d)),
    lambda L, d: L.nn.functional.binary_cross_entropy(L.tensor([0.5 + 0j], device=d), L.tensor([1 + 0j], device=d)),
    lambda L, d: L.nn.functional.mse_loss(L.tensor([1.0], device=d), L.tensor([3.0], device=d))], ids=lambda c: "")
def test_losses_refuse_complex_inputs_as_pytorch(call, device):
    got, want = _outcome(lambda: call(tandem, device)), _outcome(lambda: call(torch, "cpu"))
    if want[0] == "NotImplementedError":  # PyTorch names its kernel after the device ("mse_cpu", "mse_cuda")
        want = (want[0], want[1].replace("_cpu\"", f"_{tandem.device(device).type}\""))
    assert_same_results(list(got), list(want), DEFAULT_TOLERANCE)


@pytest.mark.parametrize("shape, modes", [((1, 1, 2), ["nearest", "linear", "area", "nearest-exact"]),
                                          ((1, 1, 2, 2), ["nearest", "bilinear", "bicubic", "area", "nearest-exact"]),
                                          ((1, 1, 2, 2, 2), ["nearest", "trilinear"])], ids=str)
def test_interpolate_refuses_complex_inputs_as_pytorch(shape, modes):
    for mode in modes:
        _same(lambda lib, dev: lib.nn.functional.interpolate(lib.ones(shape, dtype=lib.complex64), scale_factor=2,
                                                             mode=mode), "cpu")


# ---- gradcheck's mismatch message shows the Jacobian blocks as PyTorch's does ---------------------------------------
@pytest.mark.parametrize("call", [
    lambda L: L.autograd.gradcheck(lambda x: x.sin(), (L.tensor([1.0, 2.0], requires_grad=True),)),
    lambda L: L.autograd.gradcheck(lambda x: x.exp(), (L.tensor(1.0, requires_grad=True),)),
    lambda L: L.autograd.gradcheck(lambda x, y: (x.sin(), (y * x.sum()).detach() + y.pow(2)), (
        L.tensor([1.0, 2.0], dtype=L.float64, requires_grad=True),
        L.tensor([[0.5, 1.0, 1.5]], dtype=L.float64, requires_grad=True))),
    lambda L: L.autograd.gradcheck(lambda x: x.detach().sin() + x, (L.tensor([1.0, 2.0], dtype=L.float64,
                                                                            requires_grad=True),),
                                   raise_exception=False)],
    ids=lambda c: "")
def test_gradcheck_mismatch_message_matches_pytorch(call):
    _same(lambda lib, dev: call(lib), "cpu")
    with pytest.raises(RuntimeError):  # GradcheckError is a RuntimeError in both
        tandem.autograd.gradcheck(lambda x: x.detach().sin() + x, (tandem.tensor([1.0], dtype=tandem.float64,
                                                                                requires_grad=True),))


# ---- what the sweep found in the C++ front ends (fixed in session 37) -------------------------------------------------
@pytest.mark.parametrize("call", [lambda L: L.linalg.lu_factor(L.zeros(2, 2, 2)),
                                  lambda L: L.linalg.lu_factor(L.ones(2, 3)),
                                  lambda L: L.linalg.lu_factor_ex(L.zeros(2, 2), check_errors=True)], ids=lambda c: "")
def test_lu_factor_singular_errors_match_pytorch(call):
    _same(lambda lib, dev: call(lib), "cpu")


@pytest.mark.parametrize("call", [lambda L: L.linalg.inv_ex(L.zeros(2, 2, 2), check_errors=True),
                                  lambda L: L.linalg.cholesky_ex(L.zeros(2, 2), check_errors=True),
                                  lambda L: L.linalg.solve_ex(L.zeros(2, 2), L.ones(2), check_errors=True)],
                         ids=lambda c: "")
def test_ex_functions_name_themselves_in_errors(call):
    _same(lambda lib, dev: call(lib), "cpu")


def test_lu_without_pivoting_on_the_cpu_is_a_runtime_error():
    _same(lambda lib, dev: lib.linalg.lu(lib.eye(2), pivot=False), "cpu")


@pytest.mark.parametrize("call", [
    lambda L: L.linalg.solve_triangular(L.tensor([[2.0, 0], [1, 1]]), L.ones(2, 1, dtype=L.float64), upper=False),
    lambda L: L.linalg.solve_triangular(L.tensor([[2, 0], [1, 1]]), L.ones(2, 1), upper=False)], ids=lambda c: "")
def test_solve_triangular_dtypes_match_pytorch(call):
    _same(lambda lib, dev: call(lib), "cpu")


@pytest.mark.parametrize("call", [lambda L: L.det(L.ones(2, 2, dtype=L.float16)),
                                  lambda L: L.linalg.eigh(L.eye(2, dtype=L.float16)),
                                  lambda L: L.linalg.cholesky(L.eye(2, dtype=L.float16)),
                                  lambda L: L.linalg.svd(L.eye(2, dtype=L.float16)),
                                  lambda L: L.linalg.eigvalsh(L.eye(2, dtype=L.int64)),
                                  lambda L: L.linalg.lu_factor(L.eye(2, dtype=L.int64))], ids=lambda c: "")
def test_lapack_dtype_refusals_name_pytorchs_kernels(call):
    _same(lambda lib, dev: call(lib), "cpu")


# ---- cdist's gradient is PyTorch's cdist backward, not the norm's ---------------------------------------------------
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("p", [math.inf, 0.0, 0.5, 1.0, 2.0, 3.0], ids=str)
@pytest.mark.parametrize("other", ["shifted", "flipped", "self"])
def test_cdist_gradients_match_pytorch(other, p, device):
    x = np.array([[2.0, 1.0, 3.0], [1.0, 3.0, 2.0], [0.0, 0.0, 1.0]])

    def run(lib, dev):
        a = lib.tensor(x, device=dev, requires_grad=True)
        b = {"shifted": lambda: a + 0.5, "flipped": lambda: a.flip(1), "self": lambda: a}[other]()
        out = lib.cdist(a.unsqueeze(0), b.unsqueeze(0), p=p)
        (out * lib.arange(1.0, 10.0, dtype=lib.float64, device=dev).reshape(1, 3, 3)).sum().backward()
        return [out, a.grad]

    _same(run, device, dict(rel=1e-9, abs=1e-12, nan_ok=True))


def test_cdist_keeps_its_second_derivative_for_p_2():
    def run(lib, dev):
        x = lib.tensor([[2.0, 1.0, 3.0], [1.0, 3.0, 2.0]], dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad(lib.cdist(x, x + 0.5).sum(), x, create_graph=True)
        g.pow(2).sum().backward()
        return x.grad

    _same(run, "cpu", dict(rel=1e-9, abs=1e-12))


def test_custom_function_saved_tensors_are_readable_from_grad_fn():
    def run(lib, dev):
        class Double(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2

        y = Double.apply(lib.ones(2, requires_grad=True))
        before = [t.tolist() for t in y.grad_fn.saved_tensors]
        y.sum().backward()
        try:
            y.grad_fn.saved_tensors
        except RuntimeError as exc:
            return [before, str(exc).split(".")[0]]
        return [before, None]

    _same(run, "cpu")


@pytest.mark.parametrize("device", DEVICES)
def test_copying_reshape_of_a_complex_tensor_keeps_its_gradient(device):
    def run(lib, dev):
        x = lib.tensor([[1 + 1j, 2.0], [3j, 4.0]], dtype=lib.complex128, device=dev, requires_grad=True)
        y = lib.tensordot(x.t().reshape(4).reshape(2, 2), x.unsqueeze(0).expand(3, 2, 2), dims=([0], [1]))
        (y.abs() ** 2).sum().backward()
        return [lib.view_as_real(y), lib.view_as_real(x.grad)]

    _same(run, device)


# ---- complex activations, embeddings and weight norms as PyTorch takes or refuses them ----------------------------
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("call", [
    lambda L, d: L.view_as_real(L.nn.functional.silu(L.tensor([[1 + 1j, 0.5j, -2 + 0.1j]], device=d))),
    lambda L, d: L.view_as_real(L.nn.SiLU(inplace=True)(L.tensor([[1 + 1j, 0.5j]], device=d))),
    lambda L, d: L.nn.functional.silu(L.tensor([[1 + 1j, 0.5j]], device=d, requires_grad=True)),
    lambda L, d: L.nn.functional.embedding(L.tensor([1], device=d),
                                           L.ones(4, 2, dtype=L.complex64, device=d, requires_grad=True)),
    lambda L, d: L.view_as_real(L.nn.functional.embedding(L.tensor([1, 3], device=d),
                                                          L.arange(8, device=d).reshape(4, 2) * (1 + 1j))),
    lambda L, d: L.nn.utils.parametrizations.weight_norm(L.nn.Linear(2, 2, dtype=L.complex64).to(d)).weight,
    lambda L, d: L.nn.utils.weight_norm(L.nn.Linear(2, 2, dtype=L.complex64).to(d)),
    lambda L, d: L.nn.functional.glu(L.ones(2, dtype=L.complex64, device=d))], ids=lambda c: "")
def test_complex_activations_embeddings_weight_norms_match_pytorch(call, device):
    got, want = _outcome(lambda: call(tandem, device)), _outcome(lambda: call(torch, "cpu"))
    if want[0] == "NotImplementedError":  # PyTorch names its kernel after the device ("glu_cpu", "glu_cuda")
        want = (want[0], want[1].replace("_cpu\"", f"_{tandem.device(device).type}\""))
    assert_same_results(list(got), list(want), DEFAULT_TOLERANCE)


def _weight_norm_of(lib):
    """torch._weight_norm, or tandem's (nn/utils/weight_norm.py, which both weight-norm forms call)."""
    return getattr(lib, "_weight_norm", None) or importlib.import_module("tandem.nn.utils.weight_norm")._weight_norm


def test_silu_of_complex_under_no_grad_and_integer_glu_and_weight_norm():
    with tandem.no_grad():
        x = tandem.tensor([1 + 1j], requires_grad=True)
        assert tandem.nn.functional.silu(x).dtype == tandem.complex64
    _same(lambda lib, dev: lib.nn.functional.glu(lib.ones(2, dtype=lib.int64)), "cpu")
    _same(lambda lib, dev: _weight_norm_of(lib)(lib.ones(2, 2, dtype=lib.int64), lib.ones(2, 1, dtype=lib.int64), 0),
          "cpu")
    v = np.random.default_rng(1463).standard_normal((2, 3, 4)) * (1 + 0.5j)
    _same(lambda lib, dev: lib.view_as_real(_weight_norm_of(lib)(lib.tensor(v), lib.ones(1, 3, 1, dtype=lib.complex128),
                                                                 1)), "cpu")
