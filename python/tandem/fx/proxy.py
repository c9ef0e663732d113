"""fx.Proxy: the stand-in value symbolic tracing passes through a program. Every operation on a Proxy (a tandem
function through ``__torch_function__``, a Tensor method, a Python operator, an attribute read) records a Node in
the tracer's graph and returns a new Proxy for its result. TracerBase turns Python values into node arguments;
GraphAppendingTracer appends to an existing graph (for building graphs with proxies by hand)."""
import collections
import copy
import dis
import inspect
import operator
import os
import sys
import traceback
from bisect import bisect_left

import tandem

from . import traceback as fx_traceback
from ._functional_calls import as_pytorch_records
from .graph import Graph
from .node import Node, map_aggregate

__all__ = ["TracerBase", "GraphAppendingTracer", "TraceError", "Proxy", "Attribute", "ParameterProxy", "Scope",
           "ScopeContextManager"]


class TraceError(ValueError):
    """Raised when traced code needs a Proxy's concrete value (control flow, iteration)."""


class Scope:
    """The module a node is recorded under: its qualified path and type."""

    def __init__(self, module_path, module_type):
        self.module_path = module_path
        self.module_type = module_type


class ScopeContextManager:
    """Sets a tracer's current Scope for the duration of a module call."""

    def __init__(self, scope, current_scope):
        self._prev = Scope(scope.module_path, scope.module_type)
        self._scope = scope
        scope.module_path = current_scope.module_path
        scope.module_type = current_scope.module_type

    def __enter__(self):
        return self._scope

    def __exit__(self, *exc):
        self._scope.module_path = self._prev.module_path
        self._scope.module_type = self._prev.module_type


def _base_types():
    """Values that are node arguments as they are (no node, no conversion)."""
    kinds = [str, int, float, bool, complex, bytes, tandem.dtype, tandem.Tensor, tandem.device, type(None),
             type(...), range]
    for name in ("memory_format", "layout", "qscheme"):
        kind = getattr(tandem, name, None)
        if isinstance(kind, type):
            kinds.append(kind)
    return tuple(kinds)


# The metadata a node re-recorded under preserve_node_meta (a Transformer's) keeps from the node it replaces.
_COPY_META_FIELDS = ["nn_module_stack", "torch_fn", "source_fn_stack", "original_aten", "recompute", "ac_graph_id",
                     "has_backward_hook", "from_node", "quantization_tag", "_numeric_debug_handle", "custom",
                     "partitioner_tag"]
_TANDEM_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _user_stack_trace():
    """The frames of the traced program that led to the current operation (tandem's own frames, and those of the
    tracer's callers before the traced function started, left out), in traceback's format."""
    frames = traceback.extract_stack()
    start = max((i for i, f in enumerate(frames) if f.name == "_run_patched" and f.filename.startswith(_TANDEM_DIR)),
                default=-1)
    if start < 0:
        return ""  # not inside the traced function (a placeholder, a graph built by hand): no trace, as PyTorch
    user = [f for f in frames[start + 1:] if not f.filename.startswith(_TANDEM_DIR)]
    return "".join(traceback.format_list(user)).strip()


class TracerBase:
    """Creates nodes and proxies in ``self.graph``."""

    graph: Graph
    record_stack_traces = False
    check_mutable_operations = False
    trace_asserts = False
    proxy_buffer_attributes = False
    traced_func_name = "forward"
    scope: Scope
    module_stack: collections.OrderedDict
    node_name_to_scope: dict

    def create_node(self, kind, target, args, kwargs, name=None, type_expr=None):
        """Adds a node to the graph (override to tag or redirect nodes)."""
        node = self.graph.create_node(kind, target, args, kwargs, name, type_expr)
        if fx_traceback.has_preserved_node_meta():
            # a Transformer re-recording a node: the new node keeps where the old one came from
            current = fx_traceback.get_current_meta()
            if current.get("stack_trace"):
                node.stack_trace = current["stack_trace"]
            for field in _COPY_META_FIELDS:
                if field in current:
                    node.meta[field] = copy.copy(current[field])
        scope = getattr(self, "scope", None)
        if scope is not None and hasattr(self, "node_name_to_scope"):
            self.node_name_to_scope[node.name] = (scope.module_path, scope.module_type)
        if getattr(self, "module_stack", None) and "nn_module_stack" not in node.meta:
            node.meta["nn_module_stack"] = collections.OrderedDict(self.module_stack)
        return node

    def proxy(self, node):
        return Proxy(node, self)

    def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None, proxy_factory_fn=None):
        """Records an operation on (possibly) proxies: arguments become node arguments, the result a Proxy."""
        args_ = self.create_arg(args)
        kwargs_ = self.create_arg(kwargs)
        if not isinstance(args_, tuple):
            raise AssertionError("args must be a tuple")
        if not isinstance(kwargs_, dict):
            raise AssertionError("kwargs must be a dict")
        node = self.create_node(kind, target, args_, kwargs_, name, type_expr)
        proxy = proxy_factory_fn(node) if proxy_factory_fn else self.proxy(node)
        if self.record_stack_traces and not proxy.node.stack_trace:
            proxy.node.stack_trace = _user_stack_trace() or None
        return proxy

    def create_arg(self, a):
        """A Python value as a node argument: proxies become their nodes, containers are converted element by
        element; anything else must be a base value (number, string, dtype, device, tensor, None, ...)."""
        if isinstance(a, Proxy):
            return a.node
        if hasattr(a, "__fx_create_arg__"):
            return a.__fx_create_arg__(self)
        if isinstance(a, tuple) and hasattr(a, "_fields"):
            return type(a)(*(self.create_arg(elem) for elem in a))
        if isinstance(a, (tuple, list)):
            return type(a)(self.create_arg(elem) for elem in a)
        if isinstance(a, dict):
            converted = {}
            for key, value in a.items():
                key = self.create_arg(key)

                def no_node(arg, key=key):
                    if isinstance(arg, Node):
                        raise RuntimeError("Keys for dictionaries used as an argument cannot contain a Node. Got key: "
                                           f"{key}")
                    return arg

                map_aggregate(key, no_node)
                converted[key] = self.create_arg(value)
            return converted
        if isinstance(a, slice):
            return slice(self.create_arg(a.start), self.create_arg(a.stop), self.create_arg(a.step))
        if isinstance(a, range):
            return range(self.create_arg(a.start), self.create_arg(a.stop), self.create_arg(a.step))
        if isinstance(a, Node) or isinstance(a, _BASE_TYPES) or a is None or a is ...:
            return a
        raise NotImplementedError(f"argument of type: {type(a)}")

    def to_bool(self, obj):
        """Called when a proxy is used as a condition: symbolic values cannot decide control flow."""
        raise TraceError("symbolically traced variables cannot be used as inputs to control flow")

    def iter(self, obj):
        """Called when a proxy is iterated (a loop, *args): its length is not known while tracing."""
        raise TraceError("Proxy object cannot be iterated. This can be attempted when the Proxy is used in a loop or "
                         "as a *args or **kwargs function argument. See the torch.fx docs on pytorch.org for a more "
                         "detailed explanation of what types of control flow can be traced, and check out the Proxy "
                         "docstring for help troubleshooting Proxy iteration errors")

    def keys(self, obj):
        """Called for ``**proxy``: records ``proxy.keys()``."""
        return Attribute(obj, "keys")()


_BASE_TYPES = _base_types()


class GraphAppendingTracer(TracerBase):
    """A tracer that appends to an existing graph: ``Proxy(graph.placeholder('x'), GraphAppendingTracer(graph))``."""

    def __init__(self, graph):
        super().__init__()
        self.graph = graph
        self.scope = Scope("", None)
        self.module_stack = collections.OrderedDict()
        self.node_name_to_scope = {}


def _unpack_count(frame):
    """The number of targets when `frame` is executing ``a, b = proxy`` (an UNPACK_SEQUENCE), else None."""
    instructions = list(dis.get_instructions(frame.f_code))
    if sys.version_info >= (3, 11):
        index = bisect_left([inst.offset for inst in instructions], frame.f_lasti)
    else:
        index = frame.f_lasti // 2
    if index < len(instructions) and instructions[index].opname == "UNPACK_SEQUENCE":
        return instructions[index].argval
    return None


class Proxy:
    """A value being traced: operations on it are recorded as nodes of ``self.tracer.graph``."""

    def __init__(self, node, tracer=None):
        if tracer is None:
            tracer = GraphAppendingTracer(node.graph)
        self.tracer = tracer
        self.node = node

    def __repr__(self):
        return f"Proxy({self.node.name})"

    def __getattr__(self, k):
        # Only reached for names a Proxy does not have: a tensor attribute or method, recorded when used.
        return Attribute(self, k)

    def __getstate__(self):
        return self.__dict__

    def __setstate__(self, state):
        self.__dict__ = state

    def __deepcopy__(self, memo):
        import copy
        new_dict = {k: copy.deepcopy(v, memo) for k, v in self.__dict__.items()}
        new_proxy = Proxy.__new__(type(self))
        new_proxy.__dict__ = new_dict
        return new_proxy

    def __call__(self, *args, **kwargs):
        return self.tracer.create_proxy("call_method", "__call__", (self,) + args, kwargs)

    def __iter__(self):
        count = _unpack_count(inspect.currentframe().f_back)
        if count is not None:  # `a, b = proxy`: the number of elements is in the code
            return (self[i] for i in range(count))
        return self.tracer.iter(self)

    def __abs__(self):
        return self.tracer.create_proxy("call_function", operator.abs, (self,), {})

    def __bool__(self):
        return self.tracer.to_bool(self)

    def keys(self):
        return self.tracer.keys(self)

    def __len__(self):
        raise RuntimeError("'len' is not supported in symbolic tracing by default. If you want this call to be "
                           "recorded, please call torch.fx.wrap('len') at module scope")

    @classmethod
    def __torch_function__(cls, orig_method, types, args=None, kwargs=None):
        args = args if args else ()
        kwargs = kwargs if kwargs else {}
        tracers = {}

        def find_tracer(a):
            if isinstance(a, cls):
                tracers[a.tracer] = None
            return a

        map_aggregate(args, find_tracer)
        map_aggregate(kwargs, find_tracer)
        if len(tracers) > 1:
            raise RuntimeError(f"Found multiple different tracers {list(tracers.keys())} while trying to trace "
                               f"operations {orig_method}")
        tracer = next(iter(tracers))
        if tandem.overrides.is_tensor_method_or_property(orig_method):
            return tracer.create_proxy("call_method", orig_method.__name__, args, kwargs)
        op, target, args, kwargs = as_pytorch_records(orig_method, args, kwargs)
        if op == "call_method":
            return tracer.create_proxy(op, target, args, kwargs)
        return tracer.create_proxy("call_function", target, args, kwargs,
                                   name=tracer.graph._target_to_str(orig_method.__name__))


class Attribute(Proxy):
    """``proxy.attr``: a getattr node when read as a value, a call_method node when called."""

    def __init__(self, root, attr):
        self.root = root
        self.attr = attr
        self.tracer = root.tracer
        self._node = None

    @property
    def node(self):
        # Created on first use: `x.float()` records only the method call, not a getattr too.
        if self._node is None:
            self._node = self.tracer.create_proxy("call_function", getattr, (self.root, self.attr), {}).node
        return self._node

    def __call__(self, *args, **kwargs):
        return self.tracer.create_proxy("call_method", self.attr, (self.root,) + args, kwargs)


class ParameterProxy(Proxy):
    """A parameter's proxy under ``param_shapes_constant``: its shape, size(), dim() and numel() are the
    parameter's real values, so code may branch on them."""

    def __init__(self, tracer, node, name, param):
        super().__init__(node, tracer)
        if not isinstance(param, tandem.nn.Parameter):
            raise AssertionError("ParameterProxy expects an nn.Parameter")
        self.param = param
        self.name = name

    def __repr__(self):
        return f"ParameterProxy({self.name})"

    @property
    def shape(self):
        return self.param.shape

    def size(self, dim=None):
        return self.param.size() if dim is None else self.param.size(dim)

    def dim(self):
        return self.param.dim()

    @property
    def ndim(self):
        return self.param.ndim

    def numel(self):
        return self.param.numel()

    def nelement(self):
        return self.param.nelement()


def _add_operator(method):
    """proxy <op> other, recorded as a call of the operator module's function."""
    target = getattr(operator, method)

    def impl(*args, **kwargs):
        return args[0].tracer.create_proxy("call_function", target, args, kwargs)

    impl.__name__ = f"__{method.rstrip('_')}__"
    setattr(Proxy, impl.__name__, impl)


def _add_reflected_operator(method):
    """other <op> proxy when `other` does not know proxies (1 + proxy): operator.add(1, proxy)."""
    target = getattr(operator, method)

    def impl(self, lhs):
        return self.tracer.create_proxy("call_function", target, (lhs, self), {})

    impl.__name__ = f"__r{method.rstrip('_')}__"
    setattr(Proxy, impl.__name__, impl)


_REFLECTABLE = ("add", "sub", "mul", "floordiv", "truediv", "mod", "pow", "lshift", "rshift", "and_", "or_", "xor",
                "matmul")
for _method in _REFLECTABLE + ("eq", "ne", "lt", "gt", "le", "ge", "pos", "neg", "invert", "getitem"):
    _add_operator(_method)
for _method in _REFLECTABLE:
    _add_reflected_operator(_method)
del _method
