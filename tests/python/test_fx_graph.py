"""tandem.fx beyond tracing, against PyTorch's torch.fx: editing graphs (nodes, insertion points, copying,
dead-code elimination, lint), GraphModule's submodule handling, copies and pickling, the Interpreter and
Transformer, subgraph rewriting, ShapeProp and conv-bn fusion; with PyTorch's errors for misuse."""
import copy
import importlib
import operator
import pickle

import numpy as np
import pytest

import tandem
import fx_models

torch = pytest.importorskip("torch")
LIBS = [tandem, torch]


def build_by_hand(lib):
    """x, y -> neg(tanh(cat([x, y]))) made with graph calls."""
    g = lib.fx.Graph()
    x = g.placeholder("x")
    y = g.placeholder("y")
    cat = g.call_function(lib.cat, ([x, y],))
    tanh = g.call_method("tanh", (cat,))
    neg = g.call_function(operator.neg, (tanh,))
    g.output(neg)
    return g


def test_graph_built_by_hand():
    texts = []
    for lib in LIBS:
        g = build_by_hand(lib)
        g.lint()
        gm = lib.fx.GraphModule(lib.nn.Module(), g)
        texts.append((str(g), gm.code))
        out = gm(lib.ones(1), lib.zeros(1))
        assert out.tolist() == pytest.approx([-math_tanh(1.0), 0.0])
        nodes = list(g.nodes)
        assert [n.op for n in nodes] == ["placeholder", "placeholder", "call_function", "call_method",
                                          "call_function", "output"]
        assert nodes[2].all_input_nodes == [nodes[0], nodes[1]]
        assert list(nodes[0].users) == [nodes[2]]
        assert nodes[4].format_node() == "%neg : [num_users=1] = call_function[target=operator.neg](args = (%tanh,), " \
                                         "kwargs = {})"
        assert len(g.nodes) == 6 and [n.name for n in reversed(g.nodes)][0] == "output"
    assert texts[0] == texts[1]


def math_tanh(v):
    import math
    return math.tanh(v)


def test_proxies_on_a_graph_appending_tracer():
    codes = []
    for lib in LIBS:
        graph = lib.fx.Graph()
        tracer = lib.fx.proxy.GraphAppendingTracer(graph)
        x = lib.fx.Proxy(graph.placeholder("x"), tracer)
        y = lib.fx.Proxy(graph.placeholder("y"), tracer)
        c = lib.neg(lib.tanh(lib.cat([x, y])))
        lib.add(c, c)  # recorded, unused
        graph.output(c.node)
        gm = lib.fx.GraphModule(lib.nn.Module(), graph)
        codes.append(gm.code)
        assert repr(x) == "Proxy(x)"
    assert codes[0] == codes[1]


def test_replace_op_and_inserting_points():
    codes = []
    for lib in LIBS:
        class M(lib.nn.Module):
            def forward(self, x, y):
                return x + y, lib.add(x, y), x.add(y)

        traced = lib.fx.symbolic_trace(M())
        patterns = {operator.add, lib.add, "add"}
        for n in traced.graph.nodes:
            if any(n.target == p for p in patterns):
                with traced.graph.inserting_after(n):
                    new = traced.graph.call_function(lib.bitwise_and, n.args, n.kwargs)
                    n.replace_all_uses_with(new)
                traced.graph.erase_node(n)
        traced.recompile()
        codes.append(traced.code)
        x, y = lib.tensor([6, 3]), lib.tensor([3, 5])
        assert [t.tolist() for t in traced(x, y)] == [[2, 1]] * 3
        # inserting_after puts each new node right after the anchor (so in reverse creation order), as PyTorch
        g = lib.fx.Graph()
        a = g.placeholder("a")
        g.output(a)
        with g.inserting_after(a):
            first = g.call_function(lib.relu, (a,))
            second = g.call_function(lib.neg, (first,))
        assert [n.name for n in g.nodes] == ["a", "neg", "relu", "output"]
        with g.inserting_before(None):
            g.placeholder("b")
        assert [n.name for n in g.nodes][0] == "b"
    assert codes[0] == codes[1]


def test_inline_a_module_call_with_proxies():
    codes = []
    for lib in LIBS:
        class M(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.relu = lib.nn.ReLU()

            def forward(self, x):
                return self.relu(x) + 1.0

        m = lib.fx.symbolic_trace(M())
        tracer = lib.fx.proxy.GraphAppendingTracer(m.graph)
        for node in m.graph.nodes:
            if (node.op, node.target) == ("call_module", "relu"):
                with m.graph.inserting_before(node):
                    args = lib.fx.node.map_arg(node.args, lambda n: lib.fx.Proxy(n, tracer))
                    out = lib.nn.functional.relu(*args, inplace=False)
                    node.replace_all_uses_with(out.node)
                    m.graph.erase_node(node)
        m.recompile()
        m.delete_all_unused_submodules()
        codes.append(m.code)
        assert [name for name, _ in m.named_modules()] == [""]
        assert m(lib.tensor([-1.0, 2.0])).tolist() == [1.0, 3.0]
    assert codes[0] == codes[1]


def test_wrap_output_with_a_traced_module():
    for lib in LIBS:
        class M(lib.nn.Module):
            def forward(self, x, y):
                return lib.cat([x, y])

        traced = lib.fx.symbolic_trace(M())
        x, y = lib.tensor([[-1.0, 2.0]]), lib.tensor([[3.0, -4.0]])
        before = traced(x, y)
        output = [n for n in traced.graph.nodes if n.op == "output"][0]
        wrap_node = output.all_input_nodes[0]
        act = lib.fx.symbolic_trace(lib.nn.LeakyReLU())
        with traced.graph.inserting_after(wrap_node):
            output.args = (act(lib.fx.Proxy(wrap_node)).node,)
        traced.recompile()
        assert tandem.equal(tandem.tensor(traced(x, y).tolist()), tandem.tensor(
            [[-0.01, 2.0], [3.0, -0.04]])) if lib is tandem else torch.allclose(
            traced(x, y), torch.nn.functional.leaky_relu(before))


def test_node_editing_api_and_errors():
    for lib in LIBS:
        g = build_by_hand(lib)
        x, y, cat, tanh, neg, out = list(g.nodes)
        with pytest.raises(RuntimeError, match=r"^Tried to erase Node tanh but it still had 1 users in the graph: "
                                               r"\{neg: None\}!$"):
            g.erase_node(tanh)
        with pytest.raises(TypeError, match="'immutable_list' object does not support mutation"):
            cat.args[0].append(x)
        with pytest.raises(TypeError, match="'immutable_dict' object does not support mutation"):
            neg.kwargs["a"] = 1
        neg.replace_input_with(tanh, cat)
        assert neg.args == (cat,) and tanh.users == {}
        neg.update_arg(0, x)
        assert list(x.users) == [cat, neg]
        neg.kwargs = {"k": y}
        assert neg.all_input_nodes == [x, y]
        assert g.eliminate_dead_code() is True
        assert [n.name for n in g.nodes] == ["x", "y", "neg", "output"]
        assert g.eliminate_dead_code() is False
        with pytest.raises(ValueError, match="but a Callable is expected$"):
            g.create_node("call_function", "not_callable")
        with pytest.raises(ValueError, match="but a str is expected$"):
            g.create_node("call_method", operator.add)
        # moving nodes: prepend/append
        out.prepend(neg)
        x.append(y)
        assert [n.name for n in g.nodes] == ["x", "y", "neg", "output"]
        assert neg.prev is y and neg.next is out
        # node_copy and graph_copy
        g2 = lib.fx.Graph()
        env = {}
        result = g2.graph_copy(g, env)
        assert result is env[neg]
        g2.output(result)
        assert str(g2) == str(g)
        assert str(copy.deepcopy(g)) == str(g)


def test_lint_errors():
    for lib in LIBS:
        g = lib.fx.Graph()
        a = g.placeholder("a")
        b = g.call_function(operator.neg, (a,))
        g.output(b)
        b.prepend(g.call_function(operator.abs, (b,)))
        with pytest.raises(RuntimeError, match="^Argument 'neg' of Node 'abs_1' was used before it has been "
                                               "defined! Please check that Nodes in the graph are topologically "
                                               "ordered\n"):
            g.lint()
        other = lib.fx.Graph()
        foreign = other.placeholder("z")
        g2 = lib.fx.Graph()
        p = g2.placeholder("p")
        g2.output(g2.call_function(operator.add, (p, foreign)))
        with pytest.raises(RuntimeError, match="^Argument 'z' of Node 'add' does not belong to this Graph, but was "
                                               "used as an argument!"):
            g2.lint()
        gm = lib.fx.symbolic_trace(lib.nn.Sequential(lib.nn.Linear(1, 1)))
        with pytest.raises(AttributeError, match="^Sequential has no attribute `missing`$"):
            gm.graph.call_module("missing", ())
        gm.graph.create_node("call_module", "missing")
        with pytest.raises(RuntimeError, match="^Node missing target missing references nonexistent attribute "
                                               "missing of $"):
            gm.graph.lint()


def test_graph_module_submodules_and_dict_root():
    for lib in LIBS:
        root = lib.nn.Module()
        root.block = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.ReLU())
        root.extra = lib.nn.Linear(2, 2)
        g = lib.fx.Graph()
        x = g.placeholder("x")
        h = g.call_module("block.0", (x,))
        w = g.get_attr("extra.weight")
        g.output(g.call_function(operator.add, (h, w)))
        gm = lib.fx.GraphModule(root, g)
        assert sorted(name for name, _ in gm.named_modules()) == ["", "block", "block.0", "extra"]
        assert gm.block.__class__.__name__ == "Module" and gm.get_submodule("block.0") is root.block[0]
        assert gm.extra.weight is root.extra.weight
        assert gm.add_submodule("new.deep", lib.nn.Tanh()) is True
        assert isinstance(gm.get_submodule("new.deep"), lib.nn.Tanh)
        gm.delete_all_unused_submodules()
        assert sorted(name for name, _ in gm.named_modules()) == ["", "block", "block.0", "extra"]
        assert gm.delete_submodule("block.0") is True and gm.delete_submodule("nothing") is False
        by_dict = lib.fx.GraphModule({"block.0": root.block[0], "extra.weight": root.extra.weight}, g)
        assert by_dict.get_submodule("block.0") is root.block[0]
        with pytest.raises(RuntimeError, match="^Node block_0 referenced target block.0 but that target was not "
                                               "provided in ``root``!$"):
            lib.fx.GraphModule({}, g)
        with pytest.raises(RuntimeError, match="^Unsupported type 3 passed for root!$"):
            lib.fx.GraphModule(3, g)


def test_deepcopy_and_pickle_of_graph_module(device):
    module, inputs = fx_models.make(tandem, "cnn", device)
    module.eval()
    gm = tandem.fx.symbolic_trace(module)
    want = gm(*inputs)
    copied = copy.deepcopy(gm)
    assert copied.code == gm.code and type(copied) is not type(gm)
    assert tandem.equal(copied(*inputs), want)
    assert getattr(copied.features, "0").weight is not getattr(gm.features, "0").weight
    loaded = pickle.loads(pickle.dumps(gm))
    assert loaded.code == gm.code
    assert tandem.equal(loaded(*inputs), want)
    assert loaded._get_name() == "GraphModule" == copied._get_name()  # as PyTorch's copies are named
    shallow = copy.copy(gm)
    assert getattr(shallow.features, "0") is getattr(gm.features, "0")  # the submodules are shared


def test_pickle_keeps_wrapped_functions():
    gm = tandem.fx.symbolic_trace(fx_wrapped_forward)
    loaded = pickle.loads(pickle.dumps(gm))
    assert loaded.code == gm.code and 'torch.fx._symbolic_trace.wrap("math_sqrt")' in gm.code
    assert loaded(tandem.ones(4)).tolist() == [2.0] * 4


def fx_wrapped_forward(x):
    import math
    return x * math.sqrt(x.size(0))


def test_interpreter():
    for lib in LIBS:
        module, inputs = fx_models.make(lib, "residual")
        module.eval()
        gm = lib.fx.symbolic_trace(module)
        calls = []

        class Recording(lib.fx.Interpreter):
            def run_node(self, n):
                calls.append(n.op)
                return super().run_node(n)

            def call_function(self, target, args, kwargs):
                if target is lib.relu:
                    return lib.sigmoid(*args)
                return super().call_function(target, args, kwargs)

        result = Recording(gm).run(*inputs)
        assert calls == ["placeholder", "call_module", "call_module", "call_function", "call_module",
                         "call_module", "call_function", "call_function", "output"]
        assert lib.allclose(result, lib.sigmoid(module.bn2(module.conv2(lib.sigmoid(module.bn1(module.conv1(
            inputs[0]))))) + inputs[0]))
        assert lib.equal(lib.fx.Interpreter(gm).run(*inputs), module(*inputs))
        assert lib.equal(lib.fx.Interpreter(gm).boxed_run(list(inputs)), module(*inputs))
        interp = lib.fx.Interpreter(gm)
        node = [n for n in gm.graph.nodes if n.op == "call_module"][0]
        interp.env = {n: inputs[0] for n in gm.graph.nodes if n.op == "placeholder"}
        args, kwargs = interp.fetch_args_kwargs_from_env(node)
        assert args[0] is inputs[0] and kwargs == {}
        with pytest.raises(RuntimeError, match="^Expected positional argument for parameter x, but one was not "
                                               "passed in!"):
            lib.fx.Interpreter(gm).run()
        with pytest.raises(RuntimeError, match="^Node referenced nonexistent target nothing$"):
            lib.fx.Interpreter(gm).fetch_attr("nothing")
        with pytest.raises(RuntimeError, match=r"^Node conv1 referenced nonexistent value x! Run Graph.lint\(\) "
                                               "to diagnose such issues"):
            interp.env = {}
            interp.fetch_args_kwargs_from_env(node)


def test_interpreter_error_names_the_node():
    for lib in LIBS:
        gm = lib.fx.symbolic_trace(lambda x, y: lib.matmul(x, y))
        with pytest.raises(RuntimeError) as got:
            lib.fx.Interpreter(gm).run(lib.ones(2, 3), lib.ones(2, 3))
        assert "\n\nWhile executing %matmul : [num_users=1] = call_function[target=torch.matmul](args = (%x, " \
               "%y), kwargs = {})\nOriginal traceback:\nNone" in str(got.value)


def test_transformer():
    codes = []
    for lib in LIBS:
        class M(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = lib.nn.Linear(2, 2)

            def forward(self, x, y=1.0):
                return lib.relu(self.lin(x)).add(y) + lib.relu(x)

        class ReluToSigmoid(lib.fx.Transformer):
            def call_function(self, target, args, kwargs):
                if target is lib.relu:
                    return super().call_function(lib.sigmoid, args, kwargs)
                return super().call_function(target, args, kwargs)

        module = M()
        gm = lib.fx.symbolic_trace(module)
        new = ReluToSigmoid(gm).transform()
        codes.append(new.code)
        x = lib.ones(1, 2)
        assert lib.allclose(new(x), lib.sigmoid(module.lin(x)) + 1.0 + lib.sigmoid(x))
        assert new.lin is module.lin
    assert codes[0] == codes[1]


def test_replace_pattern():
    codes = []
    for lib in LIBS:
        class M(lib.nn.Module):
            def forward(self, x, w1, w2):
                m1 = lib.cat([lib.neg(w1), w2]).sum()
                m2 = lib.cat([lib.neg(w1), w2]).sum()
                return x + lib.max(m1) + lib.max(m2)

        def pattern(a1, a2):
            return lib.cat([lib.neg(a1), a2]).sum()

        def replacement(w1, w2):
            return lib.stack([w1, w2])

        traced = lib.fx.symbolic_trace(M())
        matches = lib.fx.replace_pattern(traced, pattern, replacement)
        codes.append(traced.code)
        assert len(matches) == 2
        assert type(matches[0]).__name__ == "Match" and matches[0]._fields == ("anchor", "nodes_map")
        assert matches[0].anchor.name == "sum_1" and matches[0].anchor.graph is not traced.graph
        assert sorted(p.name for p in matches[0].nodes_map) == ["a1", "a2", "cat", "neg", "sum_1"]
        x, w1, w2 = lib.ones(2), lib.tensor([1.0, 5.0]), lib.tensor([2.0, 3.0])
        assert traced(x, w1, w2).tolist() == [11.0, 11.0]
    assert codes[0] == codes[1]
    assert "stack = torch.stack([w1, w2])" in codes[0] and "stack_1 = torch.stack([w1, w2]);  w1 = w2 = None" \
        in codes[0]


def test_replace_pattern_keeps_matches_whose_inner_values_escape():
    counts = []
    for lib in LIBS:
        def f(x):
            a = lib.relu(x)
            return lib.sigmoid(a), a  # relu's result is used outside the pattern: no match

        def pattern(x):
            return lib.sigmoid(lib.relu(x))

        def replacement(x):
            return lib.tanh(x)

        gm = lib.fx.symbolic_trace(f)
        counts.append(len(lib.fx.replace_pattern(gm, pattern, replacement)))
        gm2 = lib.fx.symbolic_trace(lambda x: lib.sigmoid(lib.relu(x)) + lib.sigmoid(lib.relu(x * 2)))
        counts.append(len(lib.fx.replace_pattern(gm2, pattern, replacement)))
        counts.append(gm2.code)
    assert counts[:3] == counts[3:] and counts[:2] == [0, 2]


def test_shape_prop():
    metas = []
    for lib in LIBS:
        module, inputs = fx_models.make(lib, "kwargs_tuple")
        gm = lib.fx.symbolic_trace(module)
        lib.fx.passes.shape_prop.ShapeProp(gm).propagate(*inputs)
        rows = []
        for n in gm.graph.nodes:
            meta = n.meta.get("tensor_meta")
            if isinstance(meta, tuple) and hasattr(meta, "shape"):
                rows.append((n.name, tuple(meta.shape), str(meta.dtype).split(".")[-1], meta.requires_grad,
                             meta.stride, str(meta.memory_format).split(".")[-1], meta.is_quantized, meta.qparams))
            else:
                rows.append((n.name, n.meta["type"].__name__.replace("Size", "tuple")))
        metas.append(rows)
    assert metas[0] == metas[1]
    TensorMetadata = tandem.fx.passes.shape_prop.TensorMetadata
    assert TensorMetadata._fields == torch.fx.passes.shape_prop.TensorMetadata._fields


def test_fuse_conv_bn():
    codes = []
    for lib in LIBS:
        module, inputs = fx_models.make(lib, "residual")
        module.eval()
        with lib.no_grad():
            module.bn1.running_mean.copy_(lib.tensor([0.1, -0.2, 0.3]))
            module.bn2.running_var.copy_(lib.tensor([0.5, 2.0, 1.5]))
        optimization = importlib.import_module(f"{lib.__name__}.fx.experimental.optimization")
        fused = optimization.fuse(module)
        codes.append(fused.code)
        assert not any(isinstance(m, lib.nn.BatchNorm2d) for m in fused.modules())
        np.testing.assert_allclose(np.array(fused(*inputs).tolist()), np.array(module(*inputs).tolist()),
                                   rtol=1e-5, atol=1e-6)
        assert isinstance(module.bn1, lib.nn.BatchNorm2d)  # not in place by default
    assert codes[0] == codes[1]


def test_normalized_arguments():
    for lib in LIBS:
        def helper(a, b=2, *, c=3):
            return a

        g = lib.fx.Graph()
        x = g.placeholder("x")
        n = g.call_function(helper, (x,), {"c": 4})
        pair = n.normalized_arguments(lib.nn.Module())
        assert pair.args == (x,) and pair.kwargs == {"b": 2, "c": 4}
        only_kwargs = n.normalized_arguments(lib.nn.Module(), normalize_to_only_use_kwargs=True)
        assert only_kwargs.args == () and only_kwargs.kwargs == {"a": x, "b": 2, "c": 4}


def test_print_readable_with_shapes_and_nested_graph_modules():
    texts = []
    for lib in LIBS:
        inner = lib.fx.symbolic_trace(lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.ReLU()))

        class Outer(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.inner = inner

            def forward(self, x):
                return self.inner(x).sum(), x.shape

        class KeepGraphModules(lib.fx.Tracer):
            def is_leaf_module(self, m, qualname):
                return isinstance(m, lib.fx.GraphModule) or super().is_leaf_module(m, qualname)

        root = Outer()
        gm = lib.fx.GraphModule(root, KeepGraphModules().trace(root))
        plain = gm.print_readable(print_output=False)
        lib.fx.passes.shape_prop.ShapeProp(gm).propagate(lib.ones(1, 2))
        texts.append((plain, gm.print_readable(print_output=False),
                      lib.fx.symbolic_trace(lambda x: x).print_readable(print_output=False)))
    assert texts[0] == texts[1]
    assert texts[0][1].startswith('class GraphModule(torch.nn.Module):\n    def forward(self, x: "f32[1, 2]"):\n'
                                  '        # No stacktrace found for following nodes\n'
                                  '        inner: "f32[1, 3]" = self.inner(x)\n')
    assert "\n    class inner(torch.nn.Module):\n        def forward(self, input):\n            input_1 = input\n\n" \
        in texts[0][1]


def test_profiler_range_operators_in_a_graph():
    codes = []
    for lib in LIBS:
        g = lib.fx.Graph()
        x = g.placeholder("x")
        handle = g.call_function(lib.ops.profiler._record_function_enter, ("foo",))
        y = g.call_function(lib.relu, (x,))
        g.call_function(lib.ops.profiler._record_function_exit, (handle,))
        g.output(y)
        gm = lib.fx.GraphModule(lib.nn.Module(), g)
        codes.append(gm.code)
        with lib.autograd.profiler.profile() as prof:
            out = gm(lib.tensor([-1.0, 1.0]))
        assert out.tolist() == [0.0, 1.0]
        assert "foo" in [e.key for e in prof.key_averages()]
        gm(lib.ones(1))  # outside a profiler the handle records nothing and the exit accepts it
        assert g.eliminate_dead_code() is False  # the range operators are side-effectful: kept
    assert codes[0] == codes[1]


def test_dead_code_elimination_keeps_mutating_operators():
    kept = []
    for lib in LIBS:
        @lib.library.custom_op("fxtest::fill_ones_", mutates_args=("x",))
        def fill_ones_(x: lib.Tensor) -> None:
            x.fill_(1.0)

        def f(x):
            lib.ops.fxtest.fill_ones_(x)
            unused = x * 3  # noqa: F841 (dead)
            x.add_(1)  # a method: not impure for PyTorch's dead-code elimination either
            return x + 1

        gm = lib.fx.symbolic_trace(f)
        gm.graph.eliminate_dead_code()
        gm.recompile()
        kept.append([n.name for n in gm.graph.nodes])
    assert kept[0] == kept[1] == ["x", "fill_ones_", "add", "output"]


def _misuse(lib):
    fx = lib.fx

    def trace(fn, **kwargs):
        return fx.symbolic_trace(fn, **kwargs)

    class NoForward(lib.nn.Module):
        pass

    class MissingAttribute(lib.nn.Module):
        def forward(self, x):
            return self.nothing

    class SelfInVarargs(lib.nn.Module):
        def forward(*args):
            return args

    def erase_from_other_graph():
        g1, g2 = fx.Graph(), fx.Graph()
        g2.erase_node(g1.placeholder("a"))

    def insert_before_other_graphs_node():
        g1, g2 = fx.Graph(), fx.Graph()
        g2.inserting_before(g1.placeholder("a"))

    def code_never_generated():
        gm = trace(lambda x: x)
        del gm._code
        return gm.code

    return {
        "graph_module_of_a_non_graph": lambda: fx.GraphModule(lib.nn.Module(), 3),
        "unknown_op": lambda: fx.Graph().create_node("bogus", "x"),
        "map_arg_of_a_non_callable": lambda: fx.node.map_arg((1,), 3),
        "args_not_a_tuple": lambda: fx.Graph().create_node("call_function", operator.add, [1, 2]),
        "erase_from_other_graph": erase_from_other_graph,
        "missing_attribute": lambda: trace(MissingAttribute()),
        "dict_key_is_a_proxy": lambda: trace(lambda x: {x: 1}),
        "insert_before_other_graphs_node": insert_before_other_graphs_node,
        "self_in_varargs": lambda: trace(SelfInVarargs()),
        "concrete_args_count": lambda: trace(lambda x, y: x, concrete_args=(1,)),
        "code_never_generated": code_never_generated,
        "no_forward": lambda: trace(NoForward()),
    }


@pytest.mark.parametrize("case", sorted(_misuse(torch)))
def test_misuse_errors_match_pytorch(case):
    errors = []
    for lib in LIBS:
        with pytest.raises(Exception) as got:
            _misuse(lib)[case]()
        errors.append((type(got.value).__name__, str(got.value).split("\nhint:")[0].replace("tandem", "torch")))
    assert errors[0] == errors[1]


def test_to_folder(tmp_path, monkeypatch):
    import sys
    module, inputs = fx_models.make(tandem, "cnn")
    module.eval()
    gm = tandem.fx.symbolic_trace(module)
    with pytest.warns(UserWarning, match=r"^Was not able to save the following children modules as reprs -saved as "
                                         r"pickled files instead: \['features'\]$"):
        gm.to_folder(tmp_path / "exported_cnn", "Exported")
    text = (tmp_path / "exported_cnn" / "module.py").read_text()
    assert "        setattr(self, 'head', Linear(in_features=16, out_features=5, bias=True))\n" in text
    assert "    def forward(self, x):\n" in text
    monkeypatch.syspath_prepend(str(tmp_path))
    exported = importlib.import_module("exported_cnn").Exported().eval()
    assert tandem.equal(exported(*inputs), gm(*inputs))
    sys.modules.pop("exported_cnn", None)
    sys.modules.pop("exported_cnn.module", None)


def _split(lib, partition_of, **kwargs):
    split_module = importlib.import_module(f"{lib.__name__}.fx.passes.split_module").split_module

    class M(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.l1 = lib.nn.Linear(4, 4)
            self.l2 = lib.nn.Linear(4, 4)
            self.p = lib.nn.Parameter(lib.ones(4))
            self.seq = lib.nn.Sequential(lib.nn.Linear(4, 4), lib.nn.ReLU())

        def forward(self, x, y, z=2):
            a = self.l1(x) + y
            b = a.relu() * self.p
            c = self.l2(b) + a
            return c, b, {"d": self.seq(c) * z}

    m = fx_models.init_from_numpy(lib, M())
    qualnames = {}
    split = split_module(lib.fx.symbolic_trace(m), m, lambda n: partition_of[n.name], qualname_map=qualnames,
                         **kwargs)
    return m, split, qualnames


@pytest.mark.parametrize("keep_names", [False, True])
def test_split_module(keep_names):
    partition_of = {"l1": 0, "add": 0, "relu": 1, "mul": 1, "l2": 1, "add_1": 1, "seq_0": 2, "seq_1": 2, "mul_1": 3}
    texts = []
    for lib in LIBS:
        m, split, qualnames = _split(lib, partition_of, keep_original_node_name=keep_names)
        texts.append((split.code, [(name, child.code) for name, child in split.named_children()],
                      sorted(qualnames.items())))
        x = fx_models.numpy_input(lib, (2, 4))
        got, want = split(x, x), m(x, x)
        assert lib.equal(got[0], want[0]) and lib.equal(got[1], want[1]) and lib.equal(got[2]["d"], want[2]["d"])
    assert texts[0] == texts[1]
    assert [name for name, _ in texts[0][1]] == ["submod_0", "submod_1", "submod_2", "submod_3"]


def test_split_module_cycle():
    partition_of = {"l1": 0, "add": 0, "relu": 1, "mul": 1, "l2": 1, "add_1": 1, "seq_0": 2, "seq_1": 0, "mul_1": 3}
    for lib in LIBS:
        with pytest.raises(RuntimeError, match="^cycle exists between partitions!$"):
            _split(lib, partition_of)


def test_on_generate_code():
    codes = []
    for lib in LIBS:
        gm = lib.fx.symbolic_trace(lambda x: x.relu() + 1)

        def add_comment(previous):
            def transform(body):
                body = previous(body) if previous else body
                return ["# generated\n"] + body
            return transform

        with gm.graph.on_generate_code(add_comment):
            gm.recompile()
            inside = gm.code
            with gm.graph.on_generate_code(add_comment):  # chained on the previous one
                gm.recompile()
                twice = gm.code
        gm.recompile()
        codes.append((inside, twice, gm.code))
        assert gm(lib.ones(1)).tolist() == [2.0]
    assert codes[0] == codes[1]
    assert codes[0][0].count("# generated") == 1 and codes[0][1].count("# generated") == 2
    assert "# generated" not in codes[0][2]


def test_transformer_keeps_node_metadata():
    kept = []
    for lib in LIBS:
        class M(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = lib.nn.Linear(2, 2)

            def forward(self, x):
                return lib.relu(self.lin(x)) + 1

        tracer = lib.fx.Tracer()
        tracer.record_stack_traces = True
        m = M()
        gm = lib.fx.GraphModule(m, tracer.trace(m))
        new = lib.fx.Transformer(gm).transform()
        for old, fresh in zip(gm.graph.nodes, new.graph.nodes):
            assert fresh.stack_trace == old.stack_trace
        kept.append([(n.name, n.stack_trace is not None, list(n.meta.get("nn_module_stack", {})))
                     for n in new.graph.nodes])
        assert not lib.fx.traceback.has_preserved_node_meta()  # only while transform() runs
    assert kept[0] == kept[1]
