"""SummaryWriter.add_graph without a tracer: one forward pass is recorded with forward hooks on every submodule,
and the GraphDef (tensorboard's graph.proto) gets one node per innermost module call, named by its scope as
PyTorch names them (Net/Sequential[seq]/Linear[0]), plus input/<arg> and output/output.<i> IO nodes. An edge runs
from the call (or model input) that produced a tensor to each call that used it: found by the tensor's identity,
else by walking its grad_fn graph back through the functional code between modules to the nearest recorded
tensors (the inputs are made leaves that require grad, so that walk reaches them too)."""
import contextlib
import inspect

from . import _protobuf as pb


def _tensors(value):
    """The tensors in a (nested) tuple, list or dict, in order."""
    import tandem
    if isinstance(value, tandem.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _tensors(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _tensors(v)]
    return []


def _as_args(input_to_model):
    """torch.jit.trace's reading of example inputs: a tensor or dict is the one argument, a tuple the arguments,
    any other iterable is made a tuple; None calls the model without arguments."""
    import tandem
    if input_to_model is None:
        return ()
    if isinstance(input_to_model, (tandem.Tensor, dict)):
        return (input_to_model,)
    return tuple(input_to_model)


def _as_leaves(value):
    """value with each floating-point tensor replaced by a fresh leaf copy that requires grad, so everything
    computed from it has a grad_fn to walk back along."""
    import tandem
    if isinstance(value, tandem.Tensor):
        if value.is_floating_point() or value.is_complex():
            return value.detach().clone().requires_grad_()
        return value
    if isinstance(value, (list, tuple)):
        return type(value)(_as_leaves(v) for v in value)
    if isinstance(value, dict):
        return {k: _as_leaves(v) for k, v in value.items()}
    return value


def _scope_names(model):
    """module -> its scope: the model's class name, then Class[attribute] per level."""
    root = type(model).__name__
    scopes = {}
    for name, module in model.named_modules():
        if module in scopes:
            continue
        path, parent = [root], model
        for part in name.split(".") if name else []:
            parent = parent._modules[part]
            path.append(f"{type(parent).__name__}[{part}]")
        scopes[module] = "/".join(path)
    return scopes


class _Node:
    def __init__(self, name, op, inputs, shapes, attr):
        self.name, self.op, self.inputs, self.shapes, self.attr = name, op, inputs, shapes, attr


class _Recorder:
    def __init__(self, model):
        self.scopes = _scope_names(model)
        self.nodes = []
        self.calls = {}  # scope -> calls so far, to number repeated calls
        self.stack = []  # per active module call: did an inner module call become a node?
        self.by_tensor = {}  # id(tensor) -> (tensor, producer name); the tensor is kept so its id stays unique
        self.by_grad_fn = {}  # id(grad_fn) -> (grad_fn, producer name)
        self.by_leaf = []  # (data_ptr, shape, producer name) of the input leaves, as AccumulateGrad reaches them

    def record(self, tensor, producer):
        self.by_tensor[id(tensor)] = (tensor, producer)
        if tensor.grad_fn is not None:
            self.by_grad_fn[id(tensor.grad_fn)] = (tensor.grad_fn, producer)
        elif tensor.requires_grad:
            self.by_leaf.append((tensor.data_ptr(), tuple(tensor.shape), producer))

    def producers(self, tensor):
        """The names of the nodes tensor was computed from, nearest first found, without repeats."""
        known = self.by_tensor.get(id(tensor))
        if known is not None and known[0] is tensor:
            return [known[1]]
        # seen keeps the node objects it has visited: a node's Python object lives only while referenced, so a
        # dropped one's id could come back for another node.
        found, seen, pending = [], {}, [tensor.grad_fn] if tensor.grad_fn is not None else []
        while pending:
            fn = pending.pop(0)
            if fn is None or id(fn) in seen:
                continue
            seen[id(fn)] = fn
            known = self.by_grad_fn.get(id(fn))
            if known is not None and known[0] is fn:
                found.append(known[1])
                continue
            variable = getattr(fn, "variable", None)
            if variable is not None:  # AccumulateGrad: a leaf, one of the inputs or a parameter
                key = (variable.data_ptr(), tuple(variable.shape))
                found += [name for ptr, shape, name in self.by_leaf if (ptr, shape) == key]
                continue
            pending += [next_fn for next_fn, _ in fn.next_functions]
        return list(dict.fromkeys(found))

    def pre_hook(self, module, args):
        self.stack.append(False)

    def post_hook(self, module, args, kwargs, output):
        inner_node = self.stack.pop()
        if self.stack:
            self.stack[-1] = True
        if inner_node:
            return
        scope = self.scopes[module]
        count = self.calls.get(scope, 0)
        self.calls[scope] = count + 1
        name = scope if count == 0 else f"{scope}.{count}"
        inputs = [p for t in _tensors(args) + _tensors(kwargs) for p in self.producers(t)]
        outputs = _tensors(output)
        self.nodes.append(_Node(name, type(module).__name__, list(dict.fromkeys(inputs)),
                                [tuple(t.shape) for t in outputs], module.extra_repr()))
        for t in outputs:
            self.record(t, name)


def _input_names(model, args):
    """input/<parameter name> per tensor argument (input/<name>.<j> for several in one argument)."""
    try:
        parameters = [p.name for p in inspect.signature(model.forward).parameters.values()
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        parameters = []
    names = []
    for i, arg in enumerate(args):
        base = "input/" + (parameters[i] if i < len(parameters) else f"input.{i}")
        tensors = _tensors(arg)
        names += [(base, t) for t in tensors] if len(tensors) == 1 else [(f"{base}.{j}", t)
                                                                         for j, t in enumerate(tensors)]
    return names


@contextlib.contextmanager
def _eval_mode(model):
    training = model.training
    model.train(False)
    try:
        yield
    finally:
        model.train(training)


def record_graph(model, input_to_model):
    """The IO and module nodes of one forward pass of model, in eval mode (as PyTorch traces)."""
    import tandem
    args = _as_leaves(_as_args(input_to_model))
    recorder = _Recorder(model)
    inputs = []
    for name, tensor in _input_names(model, args):
        recorder.record(tensor, name)
        inputs.append(_Node(name, "IO Node", [], [tuple(tensor.shape)], ""))
    handles = []
    try:
        for module in recorder.scopes:
            handles.append(module.register_forward_pre_hook(recorder.pre_hook))
            handles.append(module.register_forward_hook(recorder.post_hook, with_kwargs=True))
        with _eval_mode(model), tandem.enable_grad():
            output = model(*args)
    finally:
        for handle in handles:
            handle.remove()
    outputs = [_Node(f"output/output.{i + 1}", "IO Node", recorder.producers(t), [tuple(t.shape)], "")
               for i, t in enumerate(_tensors(output))]
    used = {name for node in recorder.nodes + outputs for name in node.inputs}
    # as PyTorch's graph, inputs the model never used are left out
    return [node for node in inputs if node.name in used] + outputs + recorder.nodes


def _node_def(node):
    """NodeDef{name=1, op=2, input=3, attr=5: map<string, AttrValue{list=1: ListValue{shape=7}, s=2}>}."""
    shapes = b"".join(pb.bytes_field(7, b"".join(pb.bytes_field(2, pb.varint_field(1, d)) for d in shape))
                      for shape in node.shapes)
    attrs = [("attr", pb.bytes_field(2, node.attr)), ("_output_shapes", pb.bytes_field(1, shapes))]
    return (pb.bytes_field(1, node.name) + pb.bytes_field(2, node.op)
            + b"".join(pb.bytes_field(3, name) for name in node.inputs)
            + b"".join(pb.bytes_field(5, pb.bytes_field(1, key) + pb.bytes_field(2, value)) for key, value in attrs))


def graph_def(nodes):
    """GraphDef{node=1, versions=4: VersionDef{producer=22}} (the producer version PyTorch writes)."""
    return b"".join(pb.bytes_field(1, _node_def(node)) for node in nodes) + pb.bytes_field(4, pb.varint_field(1, 22))


def run_metadata():
    """RunMetadata{step_stats=1: StepStats{dev_stats=1: DeviceStepStats{device=1}}}: PyTorch's placeholder, which
    always names the CPU."""
    return pb.bytes_field(1, pb.bytes_field(1, pb.bytes_field(1, "/device:CPU:0")))


def describe(nodes):
    """The text add_graph(verbose=True) prints: one line per node."""
    return "\n".join(f"{node.name} = {node.op}({', '.join(node.inputs)}) -> {list(map(list, node.shapes))}"
                     for node in nodes)
