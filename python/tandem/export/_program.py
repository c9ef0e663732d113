"""The ExportedProgram that torch.export.export returns, and the capture behind it: the module traced by tandem.fx,
its parameters and buffers named as PyTorch's graph signature names them, and the guards that module() checks
on every call (input structure, static sizes, the ranges of dynamic dimensions)."""
import copy
import inspect

from .. import fx
from ..utils import _pytree as pytree
from ._dims import _NO_BOUND, Dim, ValueRanges, _DimHint, _RangedHint


class UserError(RuntimeError):
    """What torch._dynamo.exc.UserError reports in PyTorch (a RuntimeError there too): export was called in a way
    it cannot serve."""


class ConstraintViolationError(RuntimeError):
    """PyTorch's error (torch.fx.experimental.symbolic_shapes) for a dynamic_shapes entry the example contradicts."""


class GuardOnDataDependentSymNode(RuntimeError):
    """PyTorch's error for Python control flow on a tensor's value (tandem's tracer cannot capture it either)."""


_DIM_SPEC_KINDS = "None, an int, a Dim, Dim.AUTO, Dim.STATIC, or Dim.DYNAMIC, "


_EXPORT_NOTE = ("\n\nThe error above occurred when calling torch.export.export. If you would like to view some more "
                "information about this error, and get a list of all other errors that may occur in your export "
                "call, you can replace your `export()` call with `draft_export()`.")


class ExportGraphSignature:
    """Which graph inputs are parameters, buffers and user inputs, and which outputs the user gets back."""

    def __init__(self, parameters, buffers, non_persistent_buffers, user_inputs, user_outputs):
        self.parameters = tuple(parameters)
        self.buffers = tuple(buffers)
        self.non_persistent_buffers = tuple(non_persistent_buffers)
        self.user_inputs = tuple(user_inputs)
        self.user_outputs = tuple(user_outputs)

    def __repr__(self):
        lines = ["# inputs"] + [f"{name}: PARAMETER target='{name}'" for name in self.parameters]
        lines += [f"{name}: BUFFER target='{name}' persistent={name not in self.non_persistent_buffers}"
                  for name in self.buffers]
        lines += [f"{name}: USER_INPUT" for name in self.user_inputs]
        lines += ["", "# outputs"] + [f"{name}: USER_OUTPUT" for name in self.user_outputs]
        return "\n".join(lines)


def _dim_specs(signature, args, kwargs, dynamic_shapes):
    """{(input name, dim): Dim or hint} from dynamic_shapes given by argument name (a dict) or by position."""
    if dynamic_shapes is None:
        return {}
    bound = signature.bind(*args, **kwargs)
    names = list(bound.arguments)
    if isinstance(dynamic_shapes, dict):
        unknown = [k for k in dynamic_shapes if k not in names]
        if unknown:
            raise UserError(f"When `dynamic_shapes` is specified as a dict, its top-level keys must be the arg names "
                            f"{names} of `inputs`, but here they are {list(dynamic_shapes)}. Alternatively, you could "
                            "also ignore arg names entirely and specify `dynamic_shapes` as a list/tuple matching "
                            "`inputs`. For more information about this error, see: https://pytorch.org/docs/main/"
                            "generated/exportdb/index.html#dynamic-shapes-validation" + _EXPORT_NOTE)
        by_name = dynamic_shapes
    else:
        if len(dynamic_shapes) != len(names):
            raise UserError("Detected mismatch between the structure of `inputs` and `dynamic_shapes`: `inputs` has "
                            f"{len(names)} elements, but `dynamic_shapes` has {len(dynamic_shapes)} elements\nFor "
                            "more information about this error, see: https://pytorch.org/docs/main/generated/"
                            "exportdb/index.html#dynamic-shapes-validation" + _EXPORT_NOTE)
        by_name = dict(zip(names, dynamic_shapes))
    specs = {}
    for name, spec in by_name.items():
        if spec is None:
            continue
        items = spec.items() if isinstance(spec, dict) else enumerate(spec)
        for dim, value in items:
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, (int, Dim, _DimHint, _RangedHint)):
                raise UserError(f"Unexpected dimension mapped to index {dim} in input tensor shape {spec} specified "
                                f"at `dynamic_shapes[{name!r}]` (expected {_DIM_SPEC_KINDS} but got {value!r} "
                                "instead)" + _EXPORT_NOTE)
            specs[(name, dim)] = value
    return specs


def _is_constant(value):
    """A Python number, string or bool argument: PyTorch's export specializes on it (a guard checks each call)."""
    return isinstance(value, (bool, int, float, str))


def capture(mod, args, kwargs, dynamic_shapes):
    signature = inspect.signature(mod.forward)
    bound = signature.bind(*args, **kwargs)
    constants = {name: v for name, v in bound.arguments.items() if _is_constant(v)}
    try:
        graph_module = fx.symbolic_trace(mod, concrete_args=constants or None)
    except fx.proxy.TraceError as e:
        raise GuardOnDataDependentSymNode(f"Could not guard on data-dependent expression: {e}\nhint: export "
                                          "captures one path; use torch.cond for a branch on tensor values") from e
    dims = _dim_specs(signature, args, kwargs, dynamic_shapes)
    for (name, dim), value in dims.items():
        example = bound.arguments[name]
        if hasattr(example, "dim") and not -example.dim() <= dim < example.dim():
            # PyTorch's own failure (it writes the spec into a list of the tensor's dims)
            raise IndexError(f"list assignment index out of range\nhint: `{name}` has {example.dim()} dims; "
                             f"dynamic_shapes names dim {dim}")
        if not hasattr(example, "dim"):
            raise UserError(f"Expected dynamic shape spec for `{name}` to index a dimension of its tensor, got "
                            f"dimension {dim}" + _EXPORT_NOTE)
        if isinstance(value, int) and value != example.shape[dim]:
            raise ConstraintViolationError(f"Static shape constraint of {value} does not match input size of "
                                           f"{example.shape[dim]}, for L['{name}'].size()[{dim}]")
        if isinstance(value, Dim) and not value.min <= example.shape[dim] <= value.max:
            raise UserError(f"Received user-specified dim hint of {example.shape[dim]} for {name}.size()[{dim}], "
                            f"outside the range [{value.min}, {value.max}] of {value!r}." + _EXPORT_NOTE)
    placeholders = [n for n in graph_module.graph.nodes if n.op == "placeholder"]
    outputs = [n for n in graph_module.graph.nodes if n.op == "output"]
    user_outputs = [leaf.name for leaf in pytree.tree_leaves(outputs[0].args[0])
                    if isinstance(leaf, fx.Node)] if outputs else []
    non_persistent = [name for name, _ in mod.named_buffers()
                      if _owner_skips(mod, name)]
    # As in PyTorch, an argument left at its default or given as None is a constant of the graph, not an input.
    passed = [n.target for n in placeholders if bound.arguments.get(n.target) is not None]
    signature_out = ExportGraphSignature([n for n, _ in mod.named_parameters()], [n for n, _ in mod.named_buffers()],
                                         non_persistent, passed, user_outputs)
    state_dict = dict(mod.named_parameters())
    state_dict.update((n, b) for n, b in mod.named_buffers() if n not in non_persistent)
    constants = {n: b for n, b in mod.named_buffers() if n in non_persistent}
    return ExportedProgram(graph_module, signature_out, state_dict, constants, (args, kwargs), dims, signature)


def _owner_skips(mod, name):
    owner, _, leaf = name.rpartition(".")
    module = mod.get_submodule(owner) if owner else mod
    return leaf in module._non_persistent_buffers_set


class ExportedProgram:
    def __init__(self, graph_module, graph_signature, state_dict, constants, example_inputs, dims, signature):
        self.graph_module = graph_module
        self.graph_signature = graph_signature
        self.state_dict = state_dict
        self.constants = constants
        self.example_inputs = example_inputs
        self._dims = dims
        self._signature = signature
        self.range_constraints = self._ranges()

    @property
    def graph(self):
        return self.graph_module.graph

    def _ranges(self):
        ranges, index = {}, 0
        for value in self._dims.values():
            if isinstance(value, Dim):
                ranges.setdefault(value.__name__, ValueRanges(value.min, value.max))
            else:
                low = value.min if isinstance(value, _RangedHint) and value.min is not None else 2
                ranges[f"s{index}"] = ValueRanges(low, _NO_BOUND)
                index += 1
        return ranges

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Unable to call ExportedProgram directly. You should use `exported_program.module()` "
                           "instead.")

    def module(self):
        """A GraphModule that runs the captured graph after checking its inputs against the example's."""
        runner = copy.deepcopy(self.graph_module)
        program = self
        runner.register_forward_pre_hook(lambda module, args, kwargs: program._check_inputs(args, kwargs),
                                         with_kwargs=True)
        return runner

    def _check_inputs(self, args, kwargs):
        example_args, example_kwargs = self.example_inputs
        _, want_spec = pytree.tree_flatten((example_args, example_kwargs))
        _, got_spec = pytree.tree_flatten((tuple(args), dict(kwargs)))
        if got_spec != want_spec:
            raise ValueError(f"Trying to flatten user inputs with exported input tree spec: \n{want_spec}\nbut "
                             f"actually got inputs with tree spec of: \n{got_spec}.\nPlease check that the inputs "
                             "have the same number and type of args and kwargs as the ones you used when tracing.")
        want = self._signature.bind(*example_args, **example_kwargs).arguments
        got = self._signature.bind(*args, **kwargs).arguments
        sizes_of = {}
        for name, example in want.items():
            value = got[name]
            if _is_constant(example) and value != example:  # the graph holds the example's value
                raise AssertionError(f"Guard failed: {name} == {example!r}")
            for path, leaf in _tensor_leaves(name, example):
                actual = _at(value, path)
                for dim, size in enumerate(leaf.shape):
                    spec = self._dims.get((name, dim), self._dims.get((name, dim - leaf.dim())))
                    where = f"{name}{''.join(f'[{p!r}]' for p in path)}.size()[{dim}]"
                    sizes = actual.size()  # (a non-tensor fails here with PyTorch's AttributeError)
                    have = sizes[dim] if len(sizes) > dim else None
                    if spec is None:
                        if have != size:
                            raise AssertionError(f"Guard failed: {where} == {size}")
                    elif isinstance(spec, int) and not isinstance(spec, bool):
                        if have != spec:
                            raise AssertionError(f"Guard failed: {where} == {spec}")
                    elif isinstance(spec, Dim):
                        # PyTorch guards a lower bound above 2 only (sizes 0 and 1 are not special-cased)
                        if spec.min > 2 and have < spec.min:
                            raise AssertionError(f"Guard failed: {where} >= {spec.min}")
                        if have > spec.max:
                            raise AssertionError(f"Guard failed: {where} <= {spec.max}")
                        first = sizes_of.setdefault(spec.__name__, (where, have))
                        if first[1] != have:
                            raise AssertionError(f"Guard failed: {where} == {first[0]}")

    def run_decompositions(self, decomp_table=None, decompose_custom_triton_ops=False):
        """The graph already calls tandem's own operations, which have nothing below them to decompose into, so
        this returns a new program over the same graph."""
        return ExportedProgram(copy.deepcopy(self.graph_module), self.graph_signature, self.state_dict,
                               self.constants, self.example_inputs, self._dims, self._signature)

    def validate(self):
        return None

    def __str__(self):
        code = "\n".join(("    " + line).rstrip() for line in self.graph_module.code.strip().split("\n"))
        signature = "\n".join(("    " + line).rstrip() for line in repr(self.graph_signature).split("\n"))
        return f"ExportedProgram:\n{code}\n\nGraph signature:\n{signature}\n\nRange constraints: " \
               f"{self.range_constraints}\n"

    def _to_state(self):
        return {"graph_module": self.graph_module, "signature": vars(self.graph_signature),
                "state_dict": self.state_dict, "constants": self.constants, "example_inputs": self.example_inputs,
                "dims": {key: (value.__name__, value.min, value.max) if isinstance(value, Dim) else value.name
                         for key, value in self._dims.items() if not isinstance(value, _RangedHint)}}

    @classmethod
    def _from_state(cls, state):
        dims = {key: Dim(value[0], min=value[1], max=value[2]) if isinstance(value, tuple) else _DimHint[value]
                for key, value in state["dims"].items()}
        graph_module = state["graph_module"]
        signature = inspect.signature(graph_module.forward)
        return cls(graph_module, ExportGraphSignature(**state["signature"]), state["state_dict"], state["constants"],
                   state["example_inputs"], dims, signature)


def _tensor_leaves(name, value, path=()):
    """(path, tensor) for each tensor in a nest of lists, tuples and dicts, depth first, without recursion."""
    found, stack = [], [(path, value)]
    while stack:
        where, item = stack.pop()
        if hasattr(item, "shape") and hasattr(item, "dim"):
            found.append((where, item))
        elif isinstance(item, (list, tuple)):
            stack.extend((where + (i,), v) for i, v in reversed(list(enumerate(item))))
        elif isinstance(item, dict):
            stack.extend((where + (k,), v) for k, v in reversed(list(item.items())))
    return found


def _at(value, path):
    for step in path:
        value = value[step]
    return value
