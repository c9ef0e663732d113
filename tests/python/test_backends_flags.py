"""tandem.backends' library switches (docs/compat.md, "Runtime modules"): mkl, mkldnn, openmp, opt_einsum, nnpack,
mha and backends.cuda's attention-kernel flags, library preferences and cuFFT plan cache. Each answers truthfully
for tandem and keeps PyTorch's defaults, signatures, read-back and errors."""
import inspect
import os
import subprocess
import sys
import warnings

import pytest
import torch

import tandem
from oracle import assert_same_error

C = tandem.backends.cuda


@pytest.fixture
def restore_flags():
    """Both libraries' process-wide flags as they were before the test."""
    saved = {lib: (lib.backends.cuda.flash_sdp_enabled(), lib.backends.cuda.mem_efficient_sdp_enabled(),
                   lib.backends.cuda.math_sdp_enabled(), lib.backends.cuda.cudnn_sdp_enabled(),
                   lib.backends.cuda.fp16_bf16_reduction_math_sdp_allowed(), lib.backends.mkldnn.set_flags(),
                   lib.backends.nnpack.set_flags(True), lib.backends.mha.get_fastpath_enabled(),
                   lib.backends.cuda.preferred_linalg_library(), lib.backends.cuda.preferred_blas_library())
             for lib in (torch, tandem)}
    yield
    for lib, (flash, mem, math, cudnn, reduction, mkldnn, nnpack, fastpath, linalg, blas) in saved.items():
        cuda = lib.backends.cuda
        cuda.enable_flash_sdp(flash), cuda.enable_mem_efficient_sdp(mem), cuda.enable_math_sdp(math)
        cuda.enable_cudnn_sdp(cudnn), cuda.allow_fp16_bf16_reduction_math_sdp(reduction)
        lib.backends.mkldnn.set_flags(*mkldnn), lib.backends.nnpack.set_flags(*nnpack)
        lib.backends.mha.set_fastpath_enabled(fastpath)
        cuda.preferred_linalg_library(linalg), cuda.preferred_blas_library(blas)


def _sdp_flags(lib):
    cuda = lib.backends.cuda
    return (cuda.flash_sdp_enabled(), cuda.mem_efficient_sdp_enabled(), cuda.math_sdp_enabled(),
            cuda.cudnn_sdp_enabled(), cuda.fp16_bf16_reduction_math_sdp_allowed())


def test_module_names_are_there():
    for name in ("mkl", "mkldnn", "openmp", "opt_einsum", "nnpack", "mha"):
        theirs = getattr(torch.backends, name)
        ours = getattr(tandem.backends, name)
        wanted = getattr(theirs, "__all__", None) or [n for n in ("is_available", "flags", "set_flags", "verbose",
                                                                  "get_fastpath_enabled", "set_fastpath_enabled",
                                                                  "VERBOSE_ON", "VERBOSE_OFF") if hasattr(theirs, n)]
        assert all(hasattr(ours, n) for n in wanted), name
    for name in ("enable_flash_sdp", "flash_sdp_enabled", "enable_math_sdp", "math_sdp_enabled",
                 "enable_mem_efficient_sdp", "mem_efficient_sdp_enabled", "enable_cudnn_sdp", "cudnn_sdp_enabled",
                 "allow_fp16_bf16_reduction_math_sdp", "fp16_bf16_reduction_math_sdp_allowed", "sdp_kernel",
                 "preferred_linalg_library", "preferred_blas_library", "is_flash_attention_available",
                 "can_use_flash_attention", "can_use_efficient_attention", "can_use_cudnn_attention",
                 "is_ck_sdpa_available"):
        ours, theirs = inspect.signature(getattr(C, name)), inspect.signature(getattr(torch.backends.cuda, name))
        assert list(ours.parameters) == list(theirs.parameters), name
        assert [p.default for p in ours.parameters.values()] == [p.default for p in theirs.parameters.values()]
    for module, name in ((tandem.backends.mkldnn, "flags"), (tandem.backends.nnpack, "flags"),
                         (tandem.backends.opt_einsum, "flags"), (tandem.backends.mkldnn, "set_flags")):
        ours = inspect.signature(getattr(module, name))
        theirs = inspect.signature(getattr(getattr(torch.backends, module.__name__.split(".")[-1]), name))
        assert str(ours) == str(theirs), (module.__name__, name)


def test_availability_is_tandems():
    assert tandem.backends.mkl.is_available() is False is tandem.has_mkl
    assert tandem.backends.mkldnn.is_available() is False and tandem.backends.mkldnn.is_acl_available() is False
    assert tandem.backends.nnpack.is_available() is False
    assert tandem.backends.opt_einsum.is_available() is False and tandem.backends.opt_einsum.get_opt_einsum() is None
    assert C.is_flash_attention_available() is False and C.is_ck_sdpa_available() is False


def test_openmp_is_available_because_tandem_loads_an_openmp_runtime():
    if not sys.platform.startswith("linux"):
        pytest.skip("reads /proc/self/maps")
    code = ("import tandem; maps = open('/proc/self/maps').read(); "
            "print(tandem.backends.openmp.is_available(), 'libgomp' in maps or 'libomp' in maps)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=os.environ)
    assert out.stdout.split() == ["True", "True"], out.stderr


def test_verbose_modes_refuse_as_pytorch_without_the_library():
    for module, message in ((tandem.backends.mkl, "Failed to set MKL into verbose mode."),
                            (tandem.backends.mkldnn, "Failed to set MKLDNN into verbose mode.")):
        with module.verbose(module.VERBOSE_OFF):
            pass
        with pytest.raises(AssertionError, match=f"^{message} Please consider to disable this verbose scope.$"):
            with module.verbose(module.VERBOSE_ON):
                pass
    assert (tandem.backends.mkldnn.VERBOSE_ON_CREATION, tandem.backends.mkl.VERBOSE_ON) == (2, 1)


def test_mkldnn_flags_keep_pytorchs_defaults_and_checks(restore_flags):
    M, T = tandem.backends.mkldnn, torch.backends.mkldnn
    for name in ("enabled", "deterministic", "fp32_precision"):
        assert getattr(M, name) == getattr(T, name), name
    assert M.allow_tf32 is None and M.set_flags() == (True, False, None, "none")
    with M.flags(enabled=False, deterministic=True):
        assert (M.enabled, M.deterministic) == (False, True)
    assert (M.enabled, M.deterministic) == (True, False)
    M.deterministic = True
    assert M.deterministic is True
    M.fp32_precision = "tf32"
    assert M.fp32_precision == "tf32"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch warns that oneDNN TF32 needs an Intel GPU
        for name, bad in (("enabled", "x"), ("deterministic", 1), ("allow_tf32", 1), ("fp32_precision", "bad")):
            assert_same_error(lambda lib: setattr(lib.backends.mkldnn, name, bad))
        assert_same_error(lambda lib: lib.backends.mkldnn.flags(enabled="x").__enter__())
    assert M.enabled is True


def test_nnpack_and_mha_flags(restore_flags):
    N = tandem.backends.nnpack
    assert N.set_flags(False) == torch.backends.nnpack.set_flags(False) == (True,)
    with N.flags(enabled=True):
        assert N.set_flags(True) == (True,)
    assert N.set_flags(False) == (False,)
    assert_same_error(lambda lib: lib.backends.nnpack.set_flags("x"))
    H = tandem.backends.mha
    assert H.get_fastpath_enabled() is torch.backends.mha.get_fastpath_enabled() is True
    H.set_fastpath_enabled(False)
    assert H.get_fastpath_enabled() is False


@pytest.mark.skipif(torch.backends.opt_einsum.is_available(), reason="PyTorch's answers differ with opt_einsum")
def test_opt_einsum_answers_as_pytorch_without_the_package():
    O = tandem.backends.opt_einsum
    assert (O.enabled, O.strategy) == (torch.backends.opt_einsum.enabled, torch.backends.opt_einsum.strategy)
    assert O.set_flags() == torch.backends.opt_einsum.set_flags() == (False, None)
    assert_same_error(lambda lib: lib.backends.opt_einsum.set_flags(True))
    assert_same_error(lambda lib: lib.backends.opt_einsum.set_flags(None, "greedy"))
    with O.flags(enabled=False):
        assert O.enabled is False
    O.strategy = "greedy"  # stored unchecked, as PyTorch's attribute
    assert O.strategy == "greedy"
    O.strategy = None
    a, b = tandem.ones(2, 3), tandem.ones(3, 4)
    assert tandem.einsum("ij,jk->ik", a, b).tolist() == [[3.0] * 4] * 2  # einsum needs none of it


def test_sdp_flags_read_back_as_pytorchs(restore_flags):
    assert _sdp_flags(tandem) == _sdp_flags(torch) == (True, True, True, True, False)
    for lib in (torch, tandem):
        lib.backends.cuda.enable_flash_sdp(False)
        lib.backends.cuda.enable_math_sdp(False)
        lib.backends.cuda.allow_fp16_bf16_reduction_math_sdp(True)
    assert _sdp_flags(tandem) == _sdp_flags(torch) == (False, True, False, True, True)
    for name in ("enable_flash_sdp", "enable_mem_efficient_sdp", "enable_math_sdp", "enable_cudnn_sdp",
                 "allow_fp16_bf16_reduction_math_sdp"):
        for bad in ("a", 1, None):
            assert_same_error(lambda lib: getattr(lib.backends.cuda, name)(bad))


def test_sdpa_kernel_sets_the_flags_as_pytorchs(restore_flags):
    def both(make_backends, set_priority=False):
        seen = []
        for lib in (torch, tandem):
            B = lib.nn.attention.SDPBackend
            with lib.nn.attention.sdpa_kernel(make_backends(B), set_priority=set_priority) as ctx:
                assert ctx == {}
                seen.append(_sdp_flags(lib))
            seen.append(_sdp_flags(lib))
        assert seen[0] == seen[2] and seen[1] == seen[3] == (True, True, True, True, False)

    both(lambda B: B.MATH)
    both(lambda B: [B.FLASH_ATTENTION, B.EFFICIENT_ATTENTION])
    both(lambda B: [])
    both(lambda B: B.ERROR)
    both(lambda B: [B.CUDNN_ATTENTION, B.MATH, B.MATH], set_priority=True)
    assert C.SDPBackend is tandem.nn.attention.SDPBackend
    assert str(C.SDPBackend.MATH) == str(torch.backends.cuda.SDPBackend.MATH) == "SDPBackend.MATH"


def test_sdpa_kernel_changes_no_result(device, restore_flags):
    q = tandem.randn(2, 3, 4, 8).to(device)
    expected = tandem.nn.functional.scaled_dot_product_attention(q, q, q, is_causal=True)
    with tandem.nn.attention.sdpa_kernel(tandem.nn.attention.SDPBackend.FLASH_ATTENTION):
        got = tandem.nn.functional.scaled_dot_product_attention(q, q, q, is_causal=True)
    assert got.tolist() == expected.tolist()


def test_sdp_kernel_is_deprecated_as_pytorchs(restore_flags):
    messages = []
    for lib in (torch, tandem):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with lib.backends.cuda.sdp_kernel(enable_flash=False, enable_cudnn=False) as ctx:
                assert ctx == {}
                assert _sdp_flags(lib) == (False, True, True, False, False)
        assert _sdp_flags(lib) == (True, True, True, True, False)
        messages.append([(w.category, str(w.message)) for w in caught])
    assert messages[0] == messages[1] and messages[1][0][0] is FutureWarning


def test_sdpa_params_and_can_use_queries():
    q = tandem.randn(1, 2, 3, 4)
    params = C.SDPAParams(q, q, q, None, 0.5, True, False)
    assert (params.query is q, params.attn_mask, params.dropout, params.is_causal, params.enable_gqa) == \
        (True, None, 0.5, True, False)
    for query in (C.can_use_flash_attention, C.can_use_efficient_attention, C.can_use_cudnn_attention):
        assert query(params) is False
        with pytest.warns(UserWarning, match="tandem has no"):
            assert query(params, True) is False
        with pytest.raises(TypeError, match="expected params to be torch.backends.cuda.SDPAParams, but got int"):
            query(1)
    with pytest.raises(TypeError):
        C.SDPAParams(q, q, q, None, 0.0, False)


def test_preferred_libraries_read_back_as_pytorchs(restore_flags):
    for choice in (None, "cusolver", "magma", "default"):
        assert repr(C.preferred_linalg_library(choice)) == repr(torch.backends.cuda.preferred_linalg_library(choice))
    for choice in (None, "cublaslt", "ck", "hipblas", "hipblaslt", "default", "cublas"):
        ours, theirs = C.preferred_blas_library(choice), torch.backends.cuda.preferred_blas_library(choice)
        assert (repr(ours), str(ours), int(ours)) == (repr(theirs), str(theirs), int(theirs))
    assert repr(C.preferred_blas_library(type(C.preferred_blas_library()).Cublaslt)) == "<_BlasBackend.Cublaslt: 2>"
    for bad in ("x", 1, 1.5):
        assert_same_error(lambda lib: lib.backends.cuda.preferred_linalg_library(bad))
        assert_same_error(lambda lib: lib.backends.cuda.preferred_blas_library(bad))


@pytest.mark.skipif(not tandem.cuda.is_available(), reason="no CUDA device (set TANDEM_EMULATE_CUDA=2)")
def test_cufft_plan_cache_checks_as_pytorchs():
    n = tandem.cuda.device_count()
    cache = C.cufft_plan_cache[n - 1]
    assert cache is not None and C.cufft_plan_cache[f"cuda:{n - 1}"].device_index == n - 1
    assert (cache.size, cache.max_size) == (0, 4096)
    try:
        cache.max_size = 10
        assert C.cufft_plan_cache[n - 1].max_size == 10 and C.cufft_plan_cache[0].max_size == (10 if n == 1 else 4096)
        with tandem.cuda.device(n - 1):
            assert C.cufft_plan_cache.max_size == 10  # the manager's attributes are the current device's
        with pytest.raises(RuntimeError, match="^cuFFT plan cache size must be non-negative, but got -1$"):
            cache.max_size = -1
        with pytest.raises(RuntimeError, match="^cuFFT plan cache size can not be larger than 4096, but got 4097$"):
            cache.max_size = 4097
        with pytest.raises(TypeError, match="max_size must be an int, not str"):
            cache.max_size = "1"
        with pytest.raises(RuntimeError, match=r"^\.size is a read-only property"):
            cache.size = 1
        cache.clear()
    finally:
        cache.max_size = 4096
    for bad in (n, -1):
        with pytest.raises(RuntimeError, match=f"^cufft_plan_cache: expected 0 <= device index < {n}, but got device "
                                               f"with index {bad}$"):
            C.cufft_plan_cache[bad]
    with pytest.raises(ValueError, match="^Expected a torch.device with a specified index or an integer, but "
                                         "got:cuda$"):
        C.cufft_plan_cache["cuda"]
