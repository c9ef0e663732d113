"""Short FX programs of our own, in the style of pytorch/examples' fx/ folder and PyTorch's FX tutorials (custom
tracers, inlining with proxies, inverting a function, op replacement, subgraph rewriting, wrapping an output,
recording module paths, a feature extractor, a profiling interpreter, a conv-bn fuser written with graph edits). Each is a script that
says `import torch`; it runs once with PyTorch and once with `torch` mapped to tandem, and the two print the same."""
import builtins
import contextlib
import io
import re

import pytest

import tandem

torch = pytest.importorskip("torch")

_real_import = builtins.__import__


def _tandem_import(name, globals=None, locals=None, fromlist=(), level=0):
    if level == 0 and (name == "torch" or name.startswith("torch.")):
        name = "tandem" + name[len("torch"):]
    return _real_import(name, globals, locals, fromlist, level)


def run_program(source, lib):
    """Runs `source` as __main__ with `torch` being `lib`; returns what it printed."""
    scope = {"__name__": "__main__"}
    if lib is tandem:
        scope["__builtins__"] = {**vars(builtins), "__import__": _tandem_import}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, "<fx program>", "exec"), scope)
    return re.sub(r" at 0x[0-9a-f]+", " at 0x...", out.getvalue())


PROGRAMS = {}

PROGRAMS["custom_tracers"] = """
import torch
from torch.fx import Tracer, symbolic_trace, GraphModule

class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.act = torch.nn.ReLU()
        self.lin = torch.nn.Linear(2, 2)
    def forward(self, x):
        return self.act(self.lin(x))

def table(graph):
    for n in graph.nodes:
        target = n.target if isinstance(n.target, str) else n.target.__name__
        print(n.op, n.name, target, n.args, dict(n.kwargs))

table(symbolic_trace(M()).graph)

class ThroughRelu(Tracer):
    def is_leaf_module(self, m, qualname):
        if isinstance(m, torch.nn.ReLU):
            return False
        return super().is_leaf_module(m, qualname)

graph = ThroughRelu().trace(M())
table(graph)

class Tagging(Tracer):
    def create_node(self, kind, target, args, kwargs, name=None, type_expr=None):
        node = super().create_node(kind, target, args, kwargs, name)
        node.tag = "seen"
        return node

print(all(getattr(n, "tag", None) == "seen" for n in Tagging().trace(M()).nodes))
print(GraphModule(M(), graph).code)
"""

PROGRAMS["inline_with_proxies"] = """
import torch
from torch.fx import Proxy, symbolic_trace
from torch.fx.node import map_arg

class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.act = torch.nn.Tanh()
    def forward(self, x):
        return self.act(x) * 2.0

m = symbolic_trace(M())
tracer = torch.fx.proxy.GraphAppendingTracer(m.graph)
for node in m.graph.nodes:
    if node.op == "call_module":
        with m.graph.inserting_before(node):
            args = map_arg(node.args, lambda n: Proxy(n, tracer))
            out = torch.tanh(*args)
            node.replace_all_uses_with(out.node)
            m.graph.erase_node(node)
m.recompile()
print(m.code)
print(m(torch.tensor([0.0, 1.0])).tolist())
"""

PROGRAMS["invert"] = """
import torch
import torch.fx as fx

inverse = {torch.exp: torch.log, torch.log: torch.exp, torch.sinh: torch.asinh, torch.asinh: torch.sinh}

def invert(fn):
    traced = fx.symbolic_trace(fn)
    graph = fx.Graph()
    env = {}
    for node in reversed(traced.graph.nodes):
        if node.op == "call_function":
            env[node.args[0].name] = graph.call_function(inverse[node.target], (env[node.name],))
        elif node.op == "output":
            env[node.args[0].name] = graph.placeholder(node.name)
        elif node.op == "placeholder":
            graph.output(env[node.name])
    graph.lint()
    return fx.GraphModule(traced, graph)

def f(x):
    return torch.exp(torch.sinh(x))

g = invert(f)
print(g.code)
print([round(v, 4) for v in f(g(torch.arange(1, 4).double())).tolist()])
"""

PROGRAMS["primitive_library"] = """
import torch
import torch.fx

def scale_lowp(x):
    return x.float().mul(0.5).half()

torch.fx.wrap(scale_lowp)

def add_lowp(a, b):
    a, b = a.float(), b.float()
    return (a + b).half()

torch.fx.wrap(add_lowp)

class Foo(torch.nn.Module):
    def forward(self, x, y):
        return add_lowp(scale_lowp(x), scale_lowp(y))

traced = torch.fx.symbolic_trace(Foo())
print(traced.code)

for node in traced.graph.nodes:
    if node.op == "call_function" and node.target is scale_lowp:
        tracer = torch.fx.proxy.GraphAppendingTracer(node.graph)
        with node.graph.inserting_before(node):
            args = torch.fx.node.map_arg(node.args, lambda n: torch.fx.Proxy(n, tracer))
            node.replace_all_uses_with(node.target(*args).node)
            node.graph.erase_node(node)
traced.recompile()
print(traced.code)

class Inlining(torch.fx.Tracer):
    def create_node(self, kind, target, args, kwargs, name=None, type_expr=None):
        if kind == "call_function" and target is add_lowp:
            tracer = torch.fx.proxy.GraphAppendingTracer(self.graph)
            args = torch.fx.node.map_arg(args, lambda n: torch.fx.Proxy(n, tracer))
            return target(*args).node
        return super().create_node(kind, target, args, kwargs, name, type_expr)

module = torch.fx.GraphModule(Foo(), Inlining().trace(Foo()))
print(module.code)
out = module(torch.ones(2, dtype=torch.float16), torch.ones(2, dtype=torch.float16))
print(out.dtype, out.tolist())
"""

PROGRAMS["graph_from_proxies"] = """
import torch
from torch.fx import Proxy, Graph, GraphModule

graph = Graph()
tracer = torch.fx.proxy.GraphAppendingTracer(graph)
x = Proxy(graph.placeholder("x"), tracer)
y = Proxy(graph.placeholder("y"), tracer)
c = torch.neg(torch.tanh(torch.cat([x, y])))
unused = torch.add(c, c)
graph.output(c.node)
mod = GraphModule(torch.nn.Module(), graph)
print(mod.code)
print(graph)
print([round(v, 4) for v in mod(torch.zeros(1), torch.ones(1)).tolist()])
"""

PROGRAMS["replace_op"] = """
import operator
import torch
from torch.fx import symbolic_trace

class M(torch.nn.Module):
    def forward(self, x, y):
        return x + y, torch.add(x, y), x.add(y)

traced = symbolic_trace(M())
for n in traced.graph.nodes:
    if any(n.target == p for p in (operator.add, torch.add, "add")):
        with traced.graph.inserting_after(n):
            new = traced.graph.call_function(torch.bitwise_xor, n.args, n.kwargs)
            n.replace_all_uses_with(new)
        traced.graph.erase_node(n)
traced.recompile()
print(traced.code)
print([t.tolist() for t in traced(torch.tensor([5, 3]), torch.tensor([1, 6]))])
"""

PROGRAMS["subgraph_rewriter"] = """
import torch
from torch.fx import symbolic_trace, replace_pattern

class M(torch.nn.Module):
    def forward(self, x, w1, w2):
        m1 = torch.cat([torch.neg(w1), w2]).sum()
        m2 = torch.cat([torch.neg(w1), w2]).sum()
        return x + torch.max(m1) + torch.max(m2)

traced = symbolic_trace(M())

def pattern(a1, a2):
    return torch.cat([torch.neg(a1), a2]).sum()

def replacement(w1, w2):
    return torch.stack([w1, w2])

matches = replace_pattern(traced, pattern, replacement)
print(len(matches), sorted(n.name for n in matches[0].nodes_map))
print(traced.code)
print(traced(torch.ones(2), torch.tensor([1.0, 4.0]), torch.tensor([2.0, 3.0])).tolist())
"""

PROGRAMS["wrap_output"] = """
import torch
from torch.fx import Proxy, symbolic_trace

class M(torch.nn.Module):
    def forward(self, x, y):
        return torch.cat([x, y])

traced = symbolic_trace(M())
x, y = torch.tensor([[-1.0, 2.0]]), torch.tensor([[3.0, -4.0]])
before = traced(x, y)
output = [n for n in traced.graph.nodes if n.op == "output"][0]
wrapped = output.all_input_nodes[0]
act = symbolic_trace(torch.nn.LeakyReLU(0.5))
with traced.graph.inserting_after(wrapped):
    output.args = (act(Proxy(wrapped)).node,)
traced.recompile()
print(traced.code)
torch.testing.assert_close(traced(x, y), torch.nn.LeakyReLU(0.5)(before))
print(traced(x, y).tolist())
"""

PROGRAMS["module_paths"] = """
import torch
import torch.fx

class PathTracer(torch.fx.Tracer):
    current = ""
    def __init__(self):
        super().__init__()
        self.origin = {}
    def call_module(self, m, forward, args, kwargs):
        old = self.current
        try:
            self.current = self.path_of_module(m)
            return super().call_module(m, forward, args, kwargs)
        finally:
            self.current = old
    def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None):
        proxy = super().create_proxy(kind, target, args, kwargs, name, type_expr)
        self.origin[proxy.node] = self.current
        return proxy

class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(2, 2, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(2)
    def forward(self, x):
        return torch.relu(self.bn(self.conv(x)) + x)

net = torch.nn.Sequential(Block(), Block(), torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten())
tracer = PathTracer()
graph = tracer.trace(net)
for node in graph.nodes:
    print("Node", node, "is from module", tracer.origin.get(node))
"""

PROGRAMS["profiling_interpreter"] = """
import statistics
import time
import torch
import torch.fx

class ProfilingInterpreter(torch.fx.Interpreter):
    def __init__(self, mod):
        super().__init__(torch.fx.symbolic_trace(mod))
        self.runtimes = {}
        self.total = []
    def run(self, *args):
        start = time.perf_counter()
        result = super().run(*args)
        self.total.append(time.perf_counter() - start)
        return result
    def run_node(self, n):
        start = time.perf_counter()
        result = super().run_node(n)
        self.runtimes.setdefault(n, []).append(time.perf_counter() - start)
        return result

model = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.ReLU(), torch.nn.Flatten(), torch.nn.LazyLinear(2)
                            if False else torch.nn.Linear(4 * 6 * 6, 2))
interp = ProfilingInterpreter(model)
x = torch.ones(1, 3, 8, 8)
for _ in range(3):
    out = interp.run(x)
print(out.shape, len(interp.total))
for node, times in interp.runtimes.items():
    print(node.op, node.name, len(times), statistics.mean(times) >= 0)
"""

PROGRAMS["conv_bn_fuser"] = """
import copy
import torch
import torch.fx as fx

def fuse_conv_bn_weights(conv, bn):
    scale = bn.weight / torch.sqrt(bn.running_var + bn.eps)
    fused = copy.deepcopy(conv)
    fused.weight = torch.nn.Parameter(conv.weight * scale.reshape(-1, 1, 1, 1))
    bias = conv.bias if conv.bias is not None else torch.zeros_like(bn.running_mean)
    fused.bias = torch.nn.Parameter((bias - bn.running_mean) * scale + bn.bias)
    return fused

def fuse(model):
    model = copy.deepcopy(model)
    traced = fx.symbolic_trace(model)
    modules = dict(traced.named_modules())
    for node in traced.graph.nodes:
        if node.op != "call_module" or not isinstance(modules[node.target], torch.nn.BatchNorm2d):
            continue
        conv_node = node.args[0]
        if conv_node.op != "call_module" or len(conv_node.users) > 1:
            continue
        conv = modules[conv_node.target]
        fused = fuse_conv_bn_weights(conv, modules[node.target])
        parent, _, name = conv_node.target.rpartition(".")
        setattr(modules[parent] if parent else traced, name, fused)
        node.replace_all_uses_with(conv_node)
        traced.graph.erase_node(node)
    traced.graph.lint()
    traced.delete_all_unused_submodules()
    traced.recompile()
    return traced

class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(2, 3, 3)
        self.bn = torch.nn.BatchNorm2d(3)
        self.head = torch.nn.Sequential(torch.nn.Conv2d(3, 3, 1), torch.nn.BatchNorm2d(3), torch.nn.ReLU())
    def forward(self, x):
        return self.head(self.bn(self.conv(x))).sum(dim=(2, 3))

torch.manual_seed(0)
net = Net().eval()
with torch.no_grad():
    for p in net.parameters():
        p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape))
    net.bn.running_mean.fill_(0.25)
    net.bn.running_var.fill_(2.0)
fused = fuse(net)
print(fused.code)
x = torch.linspace(-2, 2, 2 * 2 * 5 * 5).reshape(2, 2, 5, 5)
print(torch.allclose(fused(x), net(x), atol=1e-5), [n for n, _ in fused.named_modules()])
"""


PROGRAMS["feature_extractor"] = """
import torch
import torch.fx

# In the manner of torchvision's create_feature_extractor: name nodes by module path, return chosen ones.
class NodePathTracer(torch.fx.Tracer):
    def __init__(self):
        super().__init__()
        self.current = ""
        self.qualname = {}
    def call_module(self, m, forward, args, kwargs):
        old = self.current
        self.current = self.path_of_module(m)
        try:
            return super().call_module(m, forward, args, kwargs)
        finally:
            self.current = old
    def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None):
        proxy = super().create_proxy(kind, target, args, kwargs, name, type_expr)
        self.qualname[proxy.node] = self.current or proxy.node.name
        return proxy

def create_feature_extractor(model, return_nodes):
    tracer = NodePathTracer()
    graph = tracer.trace(model)
    wanted = {}
    for node in graph.nodes:
        if tracer.qualname.get(node) in return_nodes:
            wanted[return_nodes[tracer.qualname[node]]] = node
    output = [n for n in graph.nodes if n.op == "output"][0]
    with graph.inserting_after(output):
        graph.output(wanted)
    graph.erase_node(output)
    gm = torch.fx.GraphModule(tracer.root, graph, model.__class__.__name__)
    gm.graph.eliminate_dead_code()  # needs the owning module (call_module purity), in both libraries
    gm.recompile()
    gm.delete_all_unused_submodules()
    return gm

class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = torch.nn.Sequential(torch.nn.Conv2d(1, 2, 3), torch.nn.ReLU())
        self.body = torch.nn.Sequential(torch.nn.Conv2d(2, 2, 3), torch.nn.ReLU())
        self.head = torch.nn.Linear(2, 3)
    def forward(self, x):
        y = self.body(self.stem(x)).mean((2, 3))
        return self.head(y)

net = Net()
with torch.no_grad():
    for p in net.parameters():
        p.copy_(torch.linspace(-0.5, 0.5, p.numel()).reshape(p.shape))
extractor = create_feature_extractor(net, {"stem.1": "low", "body.1": "high"})
print(extractor.code)
print([n for n, _ in extractor.named_modules()])
features = extractor(torch.linspace(-1, 1, 49).reshape(1, 1, 7, 7))
print({k: (tuple(v.shape), round(v.sum().item(), 4)) for k, v in features.items()})
"""

@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_prints_what_pytorch_prints(name):
    theirs = run_program(PROGRAMS[name], torch)
    ours = run_program(PROGRAMS[name], tandem)
    assert ours.replace("tandem", "torch") == theirs
