"""What the third sweep of real repositories run unchanged on tandem found (scientific and probabilistic libraries;
docs/compat.md, "Upstream repositories"): each test is our own smallest form of one failure, checked against
PyTorch."""
import typing
import warnings

import pytest
import torch

import tandem

needs_two_cuda = pytest.mark.skipif(tandem.cuda.device_count() < 2,
                                    reason="needs 2 CUDA devices (TANDEM_EMULATE_CUDA=2)")

def _scaled_by_three(lib):
    class ScaleByThree(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, options):
            ctx.options = options  # what the backward will need, kept on ctx
            ctx.save_for_backward(x)
            return x * 3

        @staticmethod
        def backward(ctx, grad):
            return grad * 3, None

    return ScaleByThree


# rtqichen/torchdiffeq's tests read `out.grad_fn.adjoint_options`, set on ctx in forward: in PyTorch a custom
# Function's grad_fn is its ctx. tandem's grad_fn is a separate node, which had none of ctx's attributes.
def test_function_grad_fn_reads_and_sets_ctx_attributes(device):
    got = {}
    for lib, dev in ((tandem, device), (torch, "cpu")):
        x = lib.ones(2, device=dev, requires_grad=True)
        node = _scaled_by_three(lib).apply(x, {"norm": "seminorm"}).grad_fn
        node.extra = 7  # set through the node, read back from it
        got[lib] = (node.options, node.needs_input_grad, node.extra, node.name())
    assert got[tandem] == got[torch] == ({"norm": "seminorm"}, (True, False), 7, "ScaleByThreeBackward")


def test_grad_fn_missing_attribute_names_the_node():
    for lib in (tandem, torch):
        x = lib.ones(2, requires_grad=True)
        node = _scaled_by_three(lib).apply(x, None).grad_fn
        with pytest.raises(AttributeError, match="^'ScaleByThreeBackward' object has no attribute 'absent'$"):
            node.absent
        assert not hasattr(node, "absent")
        # a built-in op's node has no ctx: no attribute can be read or set on it
        mul_node = (x * 2).grad_fn
        with pytest.raises(AttributeError, match="^'MulBackward0' object has no attribute 'options'$"):
            mul_node.options
        with pytest.raises(AttributeError, match="^'MulBackward0' object has no attribute 'options'$"):
            mul_node.options = 1


def test_function_grad_fn_attributes_do_not_leak_between_nodes():
    fn = _scaled_by_three(tandem)
    x = tandem.ones(2, requires_grad=True)
    first, second = fn.apply(x, "first"), fn.apply(x, "second")
    assert (first.grad_fn.options, second.grad_fn.options) == ("first", "second")
    (first.sum() + second.sum()).backward()
    assert x.grad.tolist() == [6.0, 6.0]


# cornellius-gp/linear_operator writes `torch.eye(n).type_as(A)` for a CUDA matrix A: PyTorch's type_as is
# t.type(other.type()), so it takes other's device type as well as its dtype; tandem's kept the device.
@needs_two_cuda
def test_type_as_takes_the_other_tensors_device_type():
    cpu = tandem.ones(2, dtype=tandem.float32)
    on_cuda = tandem.ones(2, dtype=tandem.float64, device="cuda")
    moved = cpu.type_as(on_cuda)
    assert moved.device == tandem.device("cuda:0") and moved.dtype == tandem.float64
    back = on_cuda.type_as(tandem.ones(1, dtype=tandem.int32))
    assert back.device == tandem.device("cpu") and back.dtype == tandem.int32
    # same device type: only the dtype changes (a tensor on cuda:1 stays there), as t.type(name) does
    other_gpu = tandem.ones(2, device="cuda:1")
    assert other_gpu.type_as(on_cuda).device == tandem.device("cuda:1")
    same = tandem.ones(2)
    assert same.type_as(cpu).data_ptr() == same.data_ptr()  # nothing to convert: no copy


def test_type_as_argument_errors():
    cases = [lambda lib: lib.ones(2).type_as(3), lambda lib: lib.ones(2).type_as(),
             lambda lib: lib.ones(2).type_as(lib.ones(1), lib.ones(1)),
             lambda lib: lib.ones(2).type_as(other=lib.ones(1), x=1)]
    for case in cases:
        messages = []
        for lib in (tandem, torch):
            with pytest.raises(TypeError) as got:
                case(lib)
            messages.append(str(got.value))
        assert messages[0] == messages[1]
    assert tandem.ones(2).type_as(other=tandem.ones(1, dtype=tandem.int64)).dtype == tandem.int64


def _sparse(lib, indices, values, size):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch's sparse-invariants note
        return lib.sparse_coo_tensor(indices, values, size)


# linear_operator's sparse-dense matmul backward uses `sparse.mT`; tandem's sparse COO tensors refused it.
@pytest.mark.parametrize("name", ["mT", "mH", "H"])
def test_sparse_matrix_transposes(device, name):
    for indices, values, size in (([[0, 1], [1, 2]], [1.0, 2.0], (2, 3)),
                                  ([[0, 1], [1, 0]], [1 + 2j, 3j], (2, 2))):
        ours = getattr(_sparse(tandem, indices, values, size).to(device), name)
        theirs = getattr(_sparse(torch, indices, values, size), name)
        assert ours.layout == tandem.sparse_coo and tuple(ours.shape) == tuple(theirs.shape)
        assert ours.to_dense().cpu().tolist() == theirs.to_dense().tolist()
    if name != "H":
        batched = ([[0, 1], [0, 1], [1, 2]], [1.0, 2.0], (2, 2, 3))
        ours, theirs = (getattr(_sparse(lib, *batched), name) for lib in (tandem, torch))
        assert ours.to_dense().tolist() == theirs.to_dense().tolist()


@pytest.mark.parametrize("name", ["mT", "mH", "H"])
def test_sparse_matrix_transposes_refuse_vectors_and_dense_dims(name):
    vector = ([[0, 1]], [1.0, 2.0], (3,))
    hybrid = ([[0, 1], [1, 0]], [[1.0] * 4, [2.0] * 4], (3, 2, 4))
    for args in (vector, hybrid) if name != "H" else (vector,):
        messages = []
        for lib in (tandem, torch):
            with pytest.raises(RuntimeError) as got:
                getattr(_sparse(lib, *args), name)
            messages.append(str(got.value))
        assert messages[0] == messages[1]


# pyro imports `from torch.serialization import MAP_LOCATION` (the annotation of load's map_location).
def test_serialization_annotations():
    assert {"MAP_LOCATION", "FileLike"} <= set(dir(tandem.serialization)) & set(dir(torch.serialization))
    ours = [a.__name__ if isinstance(a, type) else str(typing.get_origin(a)) for a in
            typing.get_args(tandem.serialization.MAP_LOCATION)]
    theirs = [a.__name__ if isinstance(a, type) else str(typing.get_origin(a)) for a in
              typing.get_args(torch.serialization.MAP_LOCATION)]
    assert ours == theirs  # a callable, a device, a str, a dict, None
    assert tandem.serialization.FileLike == tandem.types.FileLike


# pyro wraps every class of torch.distributions and concatenates their docstrings (`s.lstrip("\n")`); tandem's
# classes described themselves in their module docstrings, so most had __doc__ None.
def test_every_distribution_class_has_a_docstring():
    for namespace, lib in ((tandem.distributions, "tandem"), (tandem.distributions.transforms, "tandem")):
        missing = [n for n, c in vars(namespace).items() if isinstance(c, type) and not c.__doc__]
        assert missing == [], lib
    theirs = {n for n, c in vars(torch.distributions).items()
              if isinstance(c, type) and issubclass(c, torch.distributions.Distribution)}
    ours = {n for n, c in vars(tandem.distributions).items()
            if isinstance(c, type) and issubclass(c, tandem.distributions.Distribution)}
    assert theirs <= ours
    assert "Chi-squared" in tandem.distributions.Chi2.__doc__
    assert tandem.distributions.Normal.__doc__ != tandem.distributions.Distribution.__doc__


# Lightning-AI/torchmetrics' Metric.__init__ calls torch._C._log_api_usage_once (PyTorch's usage telemetry).
def test_log_api_usage_hooks():
    for lib in (tandem, torch):
        assert lib._C._log_api_usage_once("torchmetrics.metric.Metric") is None
        assert lib._C._log_api_usage_metadata("event", {"key": "value"}) is None
    bad_calls = [("_log_api_usage_once", (3,)), ("_log_api_usage_once", ()), ("_log_api_usage_once", ("a", "b")),
                 ("_log_api_usage_metadata", ("e",)), ("_log_api_usage_metadata", ("e", {"k": 3}))]
    for name, args in bad_calls:
        messages = []
        for lib in (tandem, torch):
            with pytest.raises(TypeError) as got:
                getattr(lib._C, name)(*args)
            messages.append(str(got.value).replace("torch._C", "tandem._C"))
        assert messages[0] == messages[1]


# pyg-team/pytorch_geometric decides on its sparse paths with `'USE_MKL=OFF' in torch.__config__.show()`.
def test_config_show_and_parallel_info():
    text = tandem.__config__.show()
    assert text.startswith("tandem built with:\n") and text.endswith("\n")
    settings = text.split("Build settings: ")[1]
    assert "USE_MKL=OFF" in settings and "LAPACK_INFO=open" in settings
    assert f"USE_CUDA={'ON' if tandem.version.cuda else 'OFF'}" in settings
    assert f"TORCH_VERSION={tandem.__version__}" in settings
    # the same keys PyTorch prints, so that flag checks written against its text work
    theirs = torch.__config__.show().split("Build settings: ")[1]
    their_keys = {item.split("=")[0] for item in theirs.split(", ") if "=" in item}
    our_keys = {item.split("=")[0] for item in settings.split(", ") if "=" in item}
    assert {"USE_CUDA", "USE_MKL", "USE_OPENMP", "USE_MPI", "USE_NCCL", "TORCH_VERSION", "BLAS_INFO"} <= our_keys
    assert our_keys <= their_keys
    info = tandem.__config__.parallel_info()
    assert f"at::get_num_threads() : {tandem.get_num_threads()}" in info
    assert torch.__config__.parallel_info().startswith("ATen/Parallel:\n") and info.startswith("ATen/Parallel:\n")


# torch_geometric's Tensor subclasses opt out of the protocol with
# `__torch_function__ = torch._C._disabled_torch_function_impl`: such a type does not count as implementing it.
def test_disabled_torch_function_impl():
    results = []
    for lib in (tandem, torch):
        class OptedOut(lib.Tensor):
            __torch_function__ = lib._C._disabled_torch_function_impl

        class NotATensor:
            __torch_function__ = lib._C._disabled_torch_function_impl

        x = lib.ones(2).as_subclass(OptedOut)
        impl = lib._C._disabled_torch_function_impl
        results.append((
            lib.overrides.has_torch_function((x,)), lib.overrides.has_torch_function((NotATensor(),)),
            lib.overrides.is_tensor_like(NotATensor()), type(x + 1).__name__,
            OptedOut.__torch_function__ is impl, x.__torch_function__ is impl,  # not bound as a method
            impl(lib.add, (), (lib.ones(1), 2)).tolist(), impl(lib.mul, (), (lib.ones(1),), {"other": 3}).tolist(),
            repr(impl)))
    assert results[0] == results[1]
    assert results[0][:3] == (False, False, True)


# pyro's ignore_jit_warnings asks torch._C._get_tracing_state() and then filters torch.jit.TracerWarning.
def test_tracing_state_is_none_outside_trace_and_set_inside():
    for lib in (tandem, torch):
        assert lib._C._get_tracing_state() is None
        seen = []

        def double(x):
            seen.append(lib._C._get_tracing_state())
            return x * 2

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # trace's deprecation warning
            lib.jit.trace(double, lib.ones(2))
        assert seen[0] is not None  # PyTorch's trace runs it again to check the trace, untraced: None there
        assert type(seen[0]).__name__ == "TracingState"
        assert lib._C._get_tracing_state() is None
        assert issubclass(lib.jit.TracerWarning, Warning)
        with pytest.raises(TypeError, match="^_get_tracing_state\\(\\): incompatible function arguments"):
            lib._C._get_tracing_state(1)


# pyro's nn.module decorates methods with torch._jit_internal._copy_to_script_wrapper (and warns, an error under
# its test settings, when the import fails).
def test_jit_internal_copy_to_script_wrapper():
    import importlib

    marks = []
    for name in ("tandem._jit_internal", "torch._jit_internal"):
        module = importlib.import_module(name)

        def method(self):
            return 1

        assert module._copy_to_script_wrapper(method) is method
        marks.append(method._torchscript_modifier)
        assert {k: v for k, v in vars(module.FunctionModifiers).items() if not k.startswith("_")} == \
            {k: v for k, v in vars(importlib.import_module("torch._jit_internal").FunctionModifiers).items()
             if not k.startswith("_")}
    assert marks[0] == marks[1]
