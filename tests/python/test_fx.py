"""tandem.fx symbolic tracing against PyTorch's torch.fx: the same modules (tests/python/fx_models.py) traced by both
give the same nodes, the same printed graph and the same generated code; the GraphModule computes what the module
computes (values and gradients, cpu and emulated cuda); misuse raises PyTorch's errors."""
import math
import operator

import numpy as np
import pytest

import tandem
import fx_models

torch = pytest.importorskip("torch")
LIBS = [tandem, torch]


def node_summary(graph):
    """(op, name, target as PyTorch's graph listing prints it, args / kwargs as listed) for each node."""
    return [line.strip() for line in str(graph).split("\n")]


@pytest.mark.parametrize("name", fx_models.MODEL_NAMES)
def test_traced_graph_and_code_match_pytorch(name):
    ours, _ = fx_models.make(tandem, name)
    theirs, _ = fx_models.make(torch, name)
    gm_ours = tandem.fx.symbolic_trace(ours)
    gm_theirs = torch.fx.symbolic_trace(theirs)
    assert node_summary(gm_ours.graph) == node_summary(gm_theirs.graph)
    assert gm_ours.code == gm_theirs.code
    assert [(n.op, n.name) for n in gm_ours.graph.nodes] == [(n.op, n.name) for n in gm_theirs.graph.nodes]
    assert type(gm_ours).__name__ == type(gm_theirs).__name__ == type(ours).__name__


def _flatten(value):
    if isinstance(value, dict):
        return [v for key in sorted(value) for v in _flatten(value[key])]
    if isinstance(value, (tuple, list)):
        return [v for item in value for v in _flatten(item)]
    return [value]


@pytest.mark.parametrize("name", fx_models.MODEL_NAMES)
def test_graph_module_values_and_gradients(name, device):
    module, inputs = fx_models.make(tandem, name, device)
    module.eval()
    gm = tandem.fx.symbolic_trace(module)
    want = _flatten(module(*inputs))
    got = _flatten(gm(*inputs))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        if isinstance(w, tandem.Tensor):
            assert g.device == w.device and g.dtype == w.dtype
            assert tandem.equal(g, w)
        else:
            assert g == w
    # gradients of the parameters through the generated forward equal the eager ones
    tensors = [w for w in want if isinstance(w, tandem.Tensor) and w.requires_grad]
    if tensors:
        eager_params = dict(module.named_parameters())
        fx_params = dict(gm.named_parameters())  # the same paths, in the graph's order
        assert sorted(fx_params) == sorted(eager_params)
        names = sorted(eager_params)
        grads_eager = tandem.autograd.grad(sum(t.sum() for t in tensors), [eager_params[n] for n in names],
                                           allow_unused=True)
        outs = [g for g in _flatten(gm(*inputs)) if isinstance(g, tandem.Tensor) and g.requires_grad]
        grads_fx = tandem.autograd.grad(sum(t.sum() for t in outs), [fx_params[n] for n in names],
                                        allow_unused=True)
        for a, b in zip(grads_eager, grads_fx):
            assert (a is None) == (b is None)
            if a is not None:
                assert tandem.equal(a, b)
    # and PyTorch's traced module gives the same numbers
    theirs, their_inputs = fx_models.make(torch, name)
    theirs.eval()
    ref = _flatten(torch.fx.symbolic_trace(theirs)(*their_inputs))
    for g, r in zip(got, ref):
        if isinstance(r, torch.Tensor):
            np.testing.assert_allclose(g.cpu().detach().numpy(), r.detach().numpy(), rtol=1e-5, atol=1e-6)
        else:
            assert tuple(g) == tuple(r) if isinstance(r, tuple) else g == r


def test_leaf_modules_and_sequential(lib=None):
    for lib in LIBS:
        m = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.Sequential(lib.nn.ReLU(), lib.nn.Identity()))
        gm = lib.fx.symbolic_trace(m)
        assert [(n.op, n.target) for n in gm.graph.nodes if n.op == "call_module"] == [
            ("call_module", "0"), ("call_module", "1.0"), ("call_module", "1.1")]
        tracer = lib.fx.Tracer()
        assert tracer.is_leaf_module(lib.nn.Linear(1, 1), "x") is True
        assert tracer.is_leaf_module(m, "") is False


def test_custom_tracer_traces_through_relu():
    codes = []
    for lib in LIBS:
        class LowerRelu(lib.fx.Tracer):
            def is_leaf_module(self, m, qualname):
                return False if isinstance(m, lib.nn.ReLU) else super().is_leaf_module(m, qualname)

        class M(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.relu = lib.nn.ReLU()

            def forward(self, x):
                return self.relu(x)

        graph = LowerRelu().trace(M())
        node = [n for n in graph.nodes if n.op == "call_function"][0]
        assert node.target is lib.nn.functional.relu
        assert node.kwargs == {"inplace": False}
        codes.append(lib.fx.GraphModule(M(), graph).code)
    assert codes[0] == codes[1]


def test_tagging_create_node_and_create_proxy_overrides():
    for lib in LIBS:
        seen = []

        class Tagging(lib.fx.Tracer):
            def create_node(self, kind, target, args, kwargs, name=None, type_expr=None):
                n = super().create_node(kind, target, args, kwargs, name)
                n.tag = "foo"
                return n

            def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None):
                proxy = super().create_proxy(kind, target, args, kwargs, name, type_expr)
                seen.append((kind, proxy.node.name))
                return proxy

        class M(lib.nn.Module):
            def forward(self, a, b):
                return a + b

        graph = Tagging().trace(M())
        assert all(getattr(n, "tag", None) == "foo" for n in graph.nodes)
        assert seen == [("placeholder", "a"), ("placeholder", "b"), ("call_function", "add")]


def test_module_path_tracer_call_module_override():
    results = []
    for lib in LIBS:
        class PathTracer(lib.fx.Tracer):
            current = ""

            def call_module(self, m, forward, args, kwargs):
                old = self.current
                try:
                    self.current = self.path_of_module(m)
                    return super().call_module(m, forward, args, kwargs)
                finally:
                    self.current = old

            def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None):
                proxy = super().create_proxy(kind, target, args, kwargs, name, type_expr)
                self.origin[proxy.node.name] = self.current
                return proxy

        class Inner(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = lib.nn.Linear(2, 2)

            def forward(self, x):
                return self.lin(x) + x

        class Outer(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.inner = Inner()

            def forward(self, x):
                return self.inner(x).relu()

        tracer = PathTracer()
        tracer.origin = {}
        tracer.trace(Outer())
        results.append(tracer.origin)
    assert results[0] == results[1] == {"x": "", "inner_lin": "inner.lin", "add": "inner", "relu": ""}


def test_concrete_args_code_and_values():
    codes = []
    for lib in LIBS:
        class M(lib.nn.Module):
            def forward(self, x, flag, none=None, n=3):
                if flag:
                    x = x + 1
                return x * n

        gm = lib.fx.symbolic_trace(M(), concrete_args={"flag": True, "none": None})
        codes.append(gm.code)
        x = lib.ones(2)
        assert gm(x, True).tolist() == [6.0, 6.0]
        with pytest.raises(AssertionError, match="^flag has been specialized to have value True but got another "
                                                 "value$"):
            gm(x, False)
        with pytest.raises(AssertionError, match="^none has been specialized to have value None but got another "
                                                 "value$"):
            gm(x, True, 1)
        with pytest.raises(RuntimeError, match="^Tracing expected 4 arguments but got 2 concrete arguments$"):
            lib.fx.symbolic_trace(M(), concrete_args=(1, 2))
    assert codes[0] == codes[1]
    assert "torch._assert(eq, 'flag has been specialized" in codes[0]
    assert "torch.fx._symbolic_trace._assert_is_none(none_1" in codes[0]


def test_control_flow_and_iteration_errors():
    iteration = ("Proxy object cannot be iterated. This can be attempted when the Proxy is used in a loop or as a "
                 "*args or **kwargs function argument. See the torch.fx docs on pytorch.org for a more detailed "
                 "explanation of what types of control flow can be traced, and check out the Proxy docstring for "
                 "help troubleshooting Proxy iteration errors")
    control = "symbolically traced variables cannot be used as inputs to control flow"

    def star(*a):
        return a

    cases = [(lambda x: [i for i in x], iteration), (lambda x: bool(x), control),
             (lambda x: x if x.sum() > 0 else -x, control), (lambda x: star(*x), iteration),
             (lambda x: star(**x), iteration), (lambda x: 1 in [x], control)]
    for fn, message in cases:
        errors = []
        for lib in LIBS:
            with pytest.raises(lib.fx.proxy.TraceError) as got:
                lib.fx.symbolic_trace(fn)
            assert isinstance(got.value, ValueError)
            errors.append(str(got.value))
        assert errors == [message, message]
    for lib in LIBS:
        with pytest.raises(RuntimeError, match=r"^'len' is not supported in symbolic tracing by default\. If you "
                                               r"want this call to be recorded, please call torch\.fx\.wrap\('len'\) "
                                               r"at module scope$"):
            lib.fx.symbolic_trace(lambda x: len(x))
        with pytest.raises(TypeError, match="^int\\(\\) argument must be a string, a bytes-like object or a real "
                                            "number, not 'Proxy'$"):
            lib.fx.symbolic_trace(lambda x: int(x))
        with pytest.raises(AssertionError, match="^Expected FunctionType, got <class 'int'>$"):
            lib.fx.symbolic_trace(3)


def test_tuple_unpacking_is_traced():
    def f(x):
        a, b = x
        return a - b

    codes = [lib.fx.symbolic_trace(f).code for lib in LIBS]
    assert codes[0] == codes[1]
    assert "getitem = x[0]" in codes[0] and "getitem_1 = x[1];  x = None" in codes[0]


_WRAP_SOURCE = """
import math
import {lib}.fx


def scaled(x, y):
    return x * y


{lib}.fx.wrap("scaled")


def forward(x):
    return scaled(x, math.sqrt(x.size(0)))
"""


def test_wrap_and_autowrapped_math():
    codes = []
    for lib in LIBS:
        scope = {"__name__": "leafmod"}
        exec(compile(_WRAP_SOURCE.format(lib=lib.__name__), "<leafmod>", "exec"), scope)
        gm = lib.fx.symbolic_trace(scope["forward"])
        codes.append(gm.code)
        nodes = [n for n in gm.graph.nodes if n.op == "call_function"]
        assert [n.target for n in nodes] == [math.sqrt, scope["scaled"]]
        assert gm(lib.ones(4)).tolist() == [2.0] * 4
    assert codes[0] == codes[1]
    assert codes[0].startswith('\ntorch.fx._symbolic_trace.wrap("math_sqrt")\n'
                               'torch.fx._symbolic_trace.wrap("leafmod_scaled")\n\ndef forward(self, x):')


def test_autowrap_functions_and_param_shapes_constant():
    for lib in LIBS:
        def helper(x):
            return x + 1

        class M(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.w = lib.nn.Parameter(lib.ones(3, 2))

            def forward(self, x):
                if self.w.shape[0] == 3:  # concrete under param_shapes_constant
                    x = x @ self.w
                return x

        tracer = lib.fx.Tracer(param_shapes_constant=True)
        graph = tracer.trace(M())
        assert [n.op for n in graph.nodes] == ["placeholder", "get_attr", "call_function", "output"]
        with pytest.raises(lib.fx.proxy.TraceError):
            lib.fx.Tracer().trace(M())
        global autowrapped_helper
        autowrapped_helper = helper

        def uses_helper(x):
            return autowrapped_helper(x) * 2

        graph = lib.fx.Tracer(autowrap_functions=(helper,)).trace(uses_helper)
        assert [n.target for n in graph.nodes if n.op == "call_function"] == [helper, operator.mul]


def test_getattr_of_parameters_and_buffers():
    for lib in LIBS:
        class M(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.sub = lib.nn.Linear(2, 2)
                self.register_buffer("running", lib.zeros(2))

            def forward(self, x):
                return x @ self.sub.weight + self.sub.weight.sum() + self.running

        gm = lib.fx.symbolic_trace(M())
        targets = [n.target for n in gm.graph.nodes if n.op == "get_attr"]
        # the parameter is read through a (cached) proxy; the buffer is not proxied (proxy_buffer_attributes is
        # False) and becomes a get_attr where it is used
        assert targets == ["sub.weight", "running"]


def test_tensor_and_proxy_mixed_operands():
    codes = []
    for lib in LIBS:
        class M(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.c = lib.ones(2)

            def forward(self, x):
                return self.c + x, lib.add(self.c, x), x.add(self.c), self.c * 2 - x

        gm = lib.fx.symbolic_trace(M())
        codes.append(gm.code)
        assert [t.tolist() for t in gm(lib.ones(2))] == [[2.0, 2.0], [2.0, 2.0], [2.0, 2.0], [1.0, 1.0]]
    assert codes[0] == codes[1]


def test_proxy_operators_and_attributes():
    def f(x, y):
        return (x @ y, x // 2, x % 3, x ** 2, x << 1, x >> 1, x & y, x | y, x ^ y, ~x, +x, x == y, x != y,
                x < y, x <= y, x >= y, x.T, x.dtype, 2 / x, 3 - x)

    codes = [lib.fx.symbolic_trace(f).code for lib in LIBS]
    assert codes[0] == codes[1]


def test_graph_module_printing():
    texts = []
    for lib in LIBS:
        module, _ = fx_models.make(lib, "mlp")
        gm = lib.fx.symbolic_trace(module)
        readable = gm.print_readable(print_output=False)
        texts.append((str(gm).split("\n", 1)[1].replace("tandem", "torch"), readable, str(gm.graph)))
    assert texts[0] == texts[1]
    assert texts[0][1].startswith("class MLP(torch.nn.Module):\n    def forward(self, x):\n"
                                  "        # No stacktrace found for following nodes\n")


def test_print_tabular(monkeypatch, capsys):
    import sys
    import types
    for lib in LIBS:
        monkeypatch.setitem(sys.modules, "tabulate", None)
        gm = lib.fx.symbolic_trace(lambda x: x + 1)
        with pytest.raises(ImportError):
            gm.graph.print_tabular()
        assert capsys.readouterr().out == ("`print_tabular` relies on the library `tabulate`, which could not be "
                                           "found on this machine. Run `pip install tabulate` to install the "
                                           "library.\n")
        rows = []
        fake = types.ModuleType("tabulate")
        fake.tabulate = lambda data, headers: rows.append((data, headers)) or "TABLE"
        monkeypatch.setitem(sys.modules, "tabulate", fake)
        gm.graph.print_tabular()
        assert capsys.readouterr().out == "TABLE\n"
        data, headers = rows[0]
        assert headers == ["opcode", "name", "target", "args", "kwargs"]
        assert [row[:3] for row in data] == [["placeholder", "x", "x"], ["call_function", "add", operator.add],
                                              ["output", "output", "output"]]


def test_varargs_and_kwargs_placeholders():
    codes = []
    for lib in LIBS:
        def f(x, *args, **kwargs):
            return x + args[0] + kwargs["k"]

        gm = lib.fx.symbolic_trace(f)
        codes.append(gm.code)
        assert [n.target for n in gm.graph.nodes if n.op == "placeholder"] == ["x", "*args", "**kwargs"]
    assert codes[0] == codes[1]


def test_public_names():
    for name in ["symbolic_trace", "Tracer", "wrap", "Graph", "GraphModule", "Interpreter", "Transformer", "Node",
                 "Proxy", "replace_pattern", "map_arg"]:
        assert hasattr(tandem.fx, name) and hasattr(torch.fx, name), name
    assert tandem.fx.node.map_arg is tandem.fx.map_arg
    assert tandem.fx.subgraph_rewriter.replace_pattern is tandem.fx.replace_pattern
    assert tandem.fx.proxy.GraphAppendingTracer is not None
    with pytest.raises(AttributeError, match="^module 'tandem.fx' has no attribute 'no_such_name'$"):
        tandem.fx.no_such_name


def test_functional_calls_recorded_as_pytorch_records_them():
    # PyTorch's Python-level nn.functional functions hand __torch_function__ their defaulted parameters as
    # keywords; tandem's tracer re-spells the call that way (python/tandem/fx/_functional_calls.py).
    def program(F):
        def f(x, t):
            a = F.relu(x) + F.softmax(x, 1) + F.dropout(x, 0.2, training=False)
            b = F.layer_norm(x, (3,)) + F.leaky_relu(x, 0.1) + F.hardtanh(x)
            c = F.max_pool1d(x.unsqueeze(0), 1).squeeze(0) + F.pad(x, (0, 0)) + F.normalize(x)
            return a + b + c + F.tanh(x) + F.sigmoid(x), F.cross_entropy(x, t), F.mse_loss(x, x)
        return f

    codes = []
    for lib in LIBS:
        gm = lib.fx.symbolic_trace(program(lib.nn.functional))
        codes.append(gm.code)
        out = gm(lib.ones(2, 3), lib.tensor([0, 2]))
        assert out[1].item() == pytest.approx(math.log(3))
    assert codes[0] == codes[1]
    assert "torch.nn.functional.relu(x, inplace = False)" in codes[0]
    assert "tanh = x.tanh()" in codes[0]


_MISSING_WRAP_SOURCE = """
import tandem.fx
tandem.fx.wrap("never_defined")
"""


def test_wrap_of_a_name_the_module_lacks_is_skipped():
    scope = {"__name__": "missing_wrap"}
    exec(compile(_MISSING_WRAP_SOURCE, "<missing_wrap>", "exec"), scope)
    gm = tandem.fx.symbolic_trace(lambda x: x + 1)  # PyTorch: KeyError 'never_defined', in every later trace
    assert gm(tandem.ones(1)).tolist() == [2.0]


def _spelling_cases(lib):
    return {
        "factory_with_proxy_device": lambda x: lib.ones(3, device=x.device),
        "like": lambda x: lib.zeros_like(x),
        "size": lambda x: x.size(),
        "index_none_ellipsis": lambda x: x[None, ..., 0],
        "stack_tuple": lambda x: lib.stack((x, x), 0),
        "constant_matmul": lambda x: lib.ones(2, 2) @ x,
        "inplace_operator": lambda x: x.__iadd__(1),
        "setitem": lambda x: x.__setitem__(0, 1),
        "where_scalars": lambda x: lib.where(x > 0, 1.0, 0.0),
        "max_named_tuple": lambda x: lib.max(x, dim=0).values,
        "sum_keywords": lambda x: lib.sum(x, dim=(0,), keepdim=True),
        "einsum": lambda x: lib.einsum("ij,jk->ik", x, x),
        "split_sizes": lambda x: x.split([1, 1]),
        "memory_format": lambda x: x.clone(memory_format=lib.contiguous_format),
        "dtype_argument": lambda x: x.type(lib.float64),
        "arange_of_size": lambda x: lib.arange(x.size(0)),
        "embedding": lambda x: lib.nn.functional.embedding(x, lib.ones(3, 2)),
        "transpose_property": lambda x: x.T,
        "functional_conv": lambda x: lib.nn.functional.conv1d(x.view(1, 1, -1), lib.ones(1, 1, 1)),
        "functional_keywords": lambda x: lib.nn.functional.relu(input=x),
        "keyword_only_input": lambda x: lib.add(input=x, other=1),
        "interpolate": lambda x: lib.nn.functional.interpolate(x.view(1, 1, -1), scale_factor=2.0),
    }


@pytest.mark.parametrize("case", sorted(_spelling_cases(torch)))
def test_call_spellings_match_pytorch(case):
    ours = tandem.fx.symbolic_trace(_spelling_cases(tandem)[case])
    theirs = torch.fx.symbolic_trace(_spelling_cases(torch)[case])
    assert ours.code == theirs.code
    assert node_summary(ours.graph) == node_summary(theirs.graph)


_NESTED_SOURCE = """
import {lib}
import {lib}.fx


def double(x):
    return x * 2


{lib}.fx.wrap("double")


class Inner({lib}.nn.Module):
    def forward(self, x):
        return double(x) + 1


class Outer({lib}.nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = Inner()

    def forward(self, x):
        return double(self.inner(x))


class InliningTracer({lib}.fx.Tracer):
    # traces each Inner on its own (a trace inside the trace) and records it as a leaf
    def call_module(self, m, forward, args, kwargs):
        if isinstance(m, Inner):
            self.inner_code = {lib}.fx.symbolic_trace(m).code
            return self.create_proxy("call_module", self.path_of_module(m), args, kwargs)
        return super().call_module(m, forward, args, kwargs)
"""


def test_trace_inside_a_trace_keeps_wrapped_functions_once():
    results = []
    for lib in LIBS:
        scope = {"__name__": "nested"}
        exec(compile(_NESTED_SOURCE.format(lib=lib.__name__), "<nested>", "exec"), scope)
        tracer = scope["InliningTracer"]()
        graph = tracer.trace(scope["Outer"]())
        targets = [n.target for n in graph.nodes if n.op == "call_function"]
        assert targets == [scope["double"]]  # the function itself, not a wrapper of it
        results.append((tracer.inner_code, lib.fx.GraphModule(scope["Outer"](), graph).code))
    assert results[0] == results[1]


def test_operators_of_torch_ops_are_recorded():
    codes = []
    for lib in LIBS:
        @lib.library.custom_op("fxtest::scaled_add", mutates_args=())
        def scaled_add(x: lib.Tensor, y: lib.Tensor, alpha: float = 1.0) -> lib.Tensor:
            return x + alpha * y

        def f(x):
            a = lib.ops.aten.relu(x) + lib.ops.aten.relu.default(x)
            return lib.ops.fxtest.scaled_add(a, x, alpha=2.0) + lib.ops.aten.cat([a, x]).sum()

        gm = lib.fx.symbolic_trace(f)
        codes.append((gm.code, node_summary(gm.graph)))
        assert gm(lib.tensor([-1.0, 2.0])).tolist() == [3.0, 13.0]
        assert [n.target for n in gm.graph.nodes if n.op == "call_function"][0] is lib.ops.aten.relu
    assert codes[0] == codes[1]
    assert "scaled_add = torch.ops.fxtest.scaled_add(add, x, alpha = 2.0)" in codes[0][0]


def test_record_stack_traces():
    # PyTorch 2.15 records the same frames plus its own tracer's (a filter that misses them); tandem keeps the
    # traced program's frames only.
    class M(tandem.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = tandem.nn.Linear(2, 2)

        def forward(self, x):
            return self.lin(x).relu()

    tracer = tandem.fx.Tracer()
    tracer.record_stack_traces = True
    m = M()
    gm = tandem.fx.GraphModule(m, tracer.trace(m))
    traces = {n.name: n.stack_trace for n in gm.graph.nodes}
    assert traces["x"] is None and traces["output"] is None
    assert traces["lin"].startswith(f'File "{__file__}", line ') and traces["lin"].endswith(
        ", in forward\n    return self.lin(x).relu()")
    readable = gm.print_readable(print_output=False)
    assert f"        # File: {__file__}:" in readable and " in forward, code: return self.lin(x).relu()\n" in readable
    assert tandem.fx.symbolic_trace(m).graph.find_nodes(op="call_module")[0].stack_trace is None  # off by default


def test_proxy_buffer_attributes():
    codes = []
    for lib in LIBS:
        class BufferProxies(lib.fx.Tracer):
            proxy_buffer_attributes = True

        class M(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.register_buffer("scale", lib.full((2,), 3.0))

            def forward(self, x):
                return x * self.scale.sum() + self.scale

        m = M()
        gm = lib.fx.GraphModule(m, BufferProxies().trace(m))
        codes.append(gm.code)
        assert gm(lib.ones(2)).tolist() == [9.0, 9.0]
    assert codes[0] == codes[1]
    assert "scale = self.scale" in codes[0] and "sum_1 = scale.sum()" in codes[0]
