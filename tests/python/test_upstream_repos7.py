"""What the seventh sweep of real repositories run unchanged on tandem found (docs/compat.md, "Upstream
repositories", "Seventh sweep"): each test is our own smallest form of one failure, checked against PyTorch."""
import math
import typing

import pytest
import torch

import tandem

LIBS = (tandem, torch)


def _on(lib, device):
    return device if lib is tandem else "cpu"


# torchquad's VEGAS map builds its per-dimension edges with np.repeat's torch form, repeat_interleave(row, dim, 0),
# then rewrites one row at a time. tandem's result was the expanded input flattened, a view with stride 0 along
# the repeated size-1 dim: every row was the same memory, and the integrals came out wrong.
_REPEAT_CASES = [((1, 4), 2, 0), ((1, 4), 3, None), ((2, 3), 1, 1), ((2, 1, 3), 2, 1), ((3,), 1, 0), ((2, 3), 0, 1),
                 ((1, 1), 4, -1)]


@pytest.mark.parametrize("shape, repeats, dim", _REPEAT_CASES)
def test_repeat_interleave_with_an_int_is_a_fresh_tensor(device, shape, repeats, dim):
    got = []
    for lib in LIBS:
        x = lib.arange(float(math.prod(shape)), device=_on(lib, device)).reshape(shape)
        y = lib.repeat_interleave(x, repeats, dim=dim)
        before = x.tolist()
        if y.numel():
            y.view(-1)[0] = -1.0  # a write into the result reaches neither the input nor the other repeats
        got.append((tuple(y.shape), y.stride(), y.is_contiguous(), y.dtype.itemsize, y.tolist(), x.tolist() == before,
                    y.data_ptr() != x.data_ptr() or not y.numel(), y.device.type))
    assert got[0][:7] == got[1][:7]
    assert got[0][7] == device.split(":")[0]


def test_repeat_interleave_rows_are_written_one_at_a_time(device):
    """The VEGAS map's pattern: one row rewritten, the other keeps its values; as a method too."""
    got = []
    for lib in LIBS:
        edges = lib.linspace(0, 1, 5, dtype=lib.float64, device=_on(lib, device)).reshape(1, 5)
        for table in (lib.repeat_interleave(edges, 2, dim=0), edges.repeat_interleave(2, dim=0)):
            table[0][1:-1] = lib.tensor([0.1, 0.2, 0.3], dtype=lib.float64, device=_on(lib, device))
            got.append(table.tolist())
    assert got[:2] == got[2:]
    assert got[0][1] == [0.0, 0.25, 0.5, 0.75, 1.0]


def test_repeat_interleave_of_a_channels_last_input_is_row_major():
    got = []
    for lib in LIBS:
        x = lib.arange(16.0).reshape(1, 4, 2, 2).to(memory_format=lib.channels_last)
        y = x.repeat_interleave(2, dim=1)
        got.append((y.stride(), y.is_contiguous(), y.tolist()))
    assert got[0] == got[1]


def test_repeat_interleave_keeps_gradients(device):
    got = []
    for lib in LIBS:
        x = lib.tensor([[1.0, 2.0]], device=_on(lib, device), requires_grad=True)
        y = lib.repeat_interleave(x, 3, dim=0)
        (y * lib.arange(6.0, device=_on(lib, device)).reshape(3, 2)).sum().backward()
        got.append((type(y.grad_fn).__name__ in ("ViewBackward0", "UnsafeViewBackward0"), x.grad.tolist()))
    assert got[0] == got[1]


# e3nn compiles its tensor products through torch.fx and opt_einsum_fx, which reads an einsum node's operands as
# args[1:] and a tensordot node's kwargs["dims"]. PyTorch's Python-level functions (torch/functional.py) hand
# __torch_function__ a normalised call: einsum's list and sublist forms as ("equation", *operands), tensordot,
# cdist, norm and split with their options by keyword. tandem handed over the caller's arguments as they came.
class _Logged:
    def __init__(self, lib):
        calls = self.calls = []

        class Logged(lib.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                if func.__name__ in ("einsum", "tensordot", "cdist", "norm", "split"):
                    calls.append((func.__name__, tuple(a if isinstance(a, (str, int, float)) else type(a).__name__
                                                       for a in args), dict(kwargs or {})))
                return super().__torch_function__(func, types, args, kwargs or {})

        self.cls = Logged


def _normalised_calls(lib, device):
    logged = _Logged(lib)
    a = lib.arange(4.0, device=_on(lib, device)).reshape(2, 2).as_subclass(logged.cls)
    b = lib.ones(2, 2, device=_on(lib, device)).as_subclass(logged.cls)
    values = [
        lib.einsum("ij,jk->ik", a, b), lib.einsum("ij,jk->ik", [a, b]), lib.einsum("ij,jk->ik", (a, b)),
        lib.einsum(a, [0, 1], b, [1, 2], [0, 2]), lib.einsum(a, [0, Ellipsis], b, [30, 1]),
        lib.functional.einsum("ii", a), lib.tensordot(a, b, 1), lib.tensordot(a, b, dims=([1], [0])),
        lib.tensordot(a, b), lib.cdist(a, b), lib.cdist(a, b, 1.0), lib.norm(a), lib.norm(a, 1, 0, True),
        lib.norm(a, dim=1), lib.split(a, 1), lib.split(a, [1, 1], 1), lib.functional.split(a, 1, dim=1)]
    flat = [v for value in values for v in (value if isinstance(value, tuple) else (value,))]
    return logged.calls, [(type(v).__name__, v.as_subclass(lib.Tensor).tolist()) for v in flat]


def test_python_level_functions_hand_torch_function_pytorchs_form(device):
    ours, theirs = _normalised_calls(tandem, device), _normalised_calls(torch, "cpu")
    assert ours[0] == theirs[0]
    assert ours[1] == theirs[1]


def _traced_args(lib):
    class Contract(lib.nn.Module):
        def forward(self, a, b):
            return lib.einsum("ij,jk->ik", [a, b]) + lib.einsum(a, [0, 1], b, [1, 2]) + lib.tensordot(a, b, 1)

    graph = lib.fx.symbolic_trace(Contract()).graph
    return [(n.target.__name__, tuple(str(a) for a in n.args), n.kwargs) for n in graph.nodes
            if n.op == "call_function" and n.target.__name__ in ("einsum", "tensordot")]


def test_fx_records_einsum_and_tensordot_as_pytorch():
    assert _traced_args(tandem) == _traced_args(torch) == [
        ("einsum", ("ij,jk->ik", "a", "b"), {}),
        ("einsum", ("a", "[0, 1]", "b", "[1, 2]"), {}),  # a Proxy is no Tensor: PyTorch takes the call as it came
        ("tensordot", ("a", "b"), {"dims": 1, "out": None})]


# e3nn compiles modules with torch.jit.trace_module(mod, {"forward": [x, y]}): PyTorch's make_tuple takes any example
# that is not a tensor or a dict as the sequence of arguments; tandem passed the list as the one argument.
def _trace_module_calls(lib):
    seen, hooked = [], []

    class Pair(lib.nn.Module):
        def forward(self, x, y=None):
            seen.append((y is None, lib.jit.is_tracing()))
            return x if y is None else x + y

        def twice(self, x):
            seen.append(("twice", lib.jit.is_tracing()))
            return x * 2

    m = Pair()
    m.register_forward_hook(lambda module, args, out: hooked.append(len(args)))
    ones = lib.ones(2)
    for example in ([ones, ones], (ones, ones), [ones], ones):
        assert lib.jit.trace_module(m, {"forward": example}, check_trace=False) is not None
    lib.jit.trace_module(m, {"twice": [ones]}, check_trace=False)
    return seen, hooked, lib.jit.is_tracing()


@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_trace_module_takes_a_list_example_as_the_arguments():
    assert _trace_module_calls(tandem) == _trace_module_calls(torch)


# e3nn's Extract builds an fx Graph whose output node is typed Tuple[Tensor, Tensor]: the generated forward named
# `typing.Tuple` without `typing` among its globals (NameError). PyTorch makes each generic's origin a global.
def _annotated_module(lib):
    graph = lib.fx.Graph()
    x = graph.placeholder("x", type_expr=lib.Tensor)
    graph.placeholder("y", type_expr=typing.Optional[lib.Tensor])  # inputs the forward takes and ignores
    graph.placeholder("z", type_expr=typing.List[int])
    graph.placeholder("w", type_expr=dict[str, typing.Tuple[()]])
    relu = graph.call_function(lib.relu, (x,), type_expr=lib.Tensor)
    graph.output((relu, relu), type_expr=typing.Tuple[lib.Tensor, lib.Tensor])
    module = lib.fx.GraphModule({}, graph)
    out = module(lib.tensor([-1.0, 2.0]), None, [1], {})
    return module.code, [t.tolist() for t in out], [n.type is None for n in graph.nodes]


def test_fx_code_with_generic_annotations_runs():
    assert _annotated_module(tandem) == _annotated_module(torch)


# e3nn's code-generation mixin checks isinstance(submodule, (fx.GraphModule, torch._dynamo.OptimizedModule)) when
# a module is copied or pickled; tandem._dynamo had the class under eval_frame only.
def test_dynamo_exports_optimized_module():
    got = []
    for lib in LIBS:
        compiled = lib.compile(lib.nn.Linear(2, 2))
        got.append((lib._dynamo.OptimizedModule is lib._dynamo.eval_frame.OptimizedModule,
                    isinstance(compiled, lib._dynamo.OptimizedModule), "OptimizedModule" in dir(lib._dynamo),
                    isinstance(lib.nn.Linear(2, 2), lib._dynamo.OptimizedModule)))
    assert got[0] == got[1] == (True, True, True, False)


# Fixed in C++ after the sweep (session 45): views of a plain tensor made by narrow, select, t and as_strided are
# tracked, and a dense base of another layout (x.t().clone(), empty_like of a transposed tensor) takes a write with
# history through a slice (CopySlices lays the base's gradient out as the base).
def _write_through_views(lib, device):
    x = lib.arange(10.0, dtype=lib.float64, device=_on(lib, device)).reshape(2, 5).requires_grad_()
    y = x * 1
    outs = []
    for view, value in ((lambda z: z.narrow(-1, 0, 3), y[:, :3]), (lambda z: z.select(0, 1), y[0]),
                        (lambda z: z.t()[:3], y[:, :3].t()), (lambda z: z.as_strided((2, 3), (5, 1)), y[:, 1:4])):
        z = y.new_zeros(2, 5)
        view(z).copy_(value)
        outs.append((type(z.grad_fn).__name__, z.tolist()))
    w = lib.ones(3, 9, dtype=lib.float64, device=_on(lib, device), requires_grad=True)
    for base in (lib.arange(30.0, dtype=lib.float64, device=_on(lib, device)).reshape(10, 3).t().clone(),
                 lib.empty_like(lib.zeros(10, 3, dtype=lib.float64, device=_on(lib, device)).t()).zero_()):
        early = base[:, 2:4]  # a view taken before the write gets its history from the base
        base[:, :-1] = w * 2
        (base * base).sum().backward(retain_graph=True)
        outs.append((type(base.grad_fn).__name__, type(early.grad_fn).__name__, base.tolist(), w.grad.tolist()))
        w.grad = None
    return outs


def test_writes_with_history_through_untracked_views_and_permuted_bases(device):
    assert _write_through_views(tandem, device) == _write_through_views(torch, device)
