"""Symbolic tracing: Tracer runs a module's forward (or a function) on Proxies and records what it does as a
Graph; symbolic_trace wraps the result in a GraphModule. While tracing, nn.Module.__call__ and __getattr__ are
patched so that submodule calls go through Tracer.call_module (leaf modules become call_module nodes) and
parameter reads become get_attr nodes; functions marked with ``wrap`` (and math's) are recorded as calls instead of
being traced through."""
import builtins
import collections
import functools
import inspect
import math
import types
import warnings

import tandem

from .graph import Graph
from .node import has_side_effect, map_aggregate
from .proxy import ParameterProxy, Proxy, Scope, ScopeContextManager, TracerBase

__all__ = ["Tracer", "symbolic_trace", "wrap", "PH", "PHBase", "is_fx_tracing"]

# (id of the module globals, function name) -> those globals: the functions `wrap` registered, patched in each trace
_wrapped_fns_to_patch = {}
_is_fx_tracing_flag = False


def is_fx_tracing():
    """True while a Tracer is running."""
    return _is_fx_tracing_flag


def wrap(fn_or_name):
    """Registers a module-level function (or its name) as an FX leaf: symbolic tracing records a call of it
    instead of tracing through it. Returns the argument unchanged."""
    if callable(fn_or_name):
        fn_name = fn_or_name.__name__
    elif isinstance(fn_or_name, str):
        fn_name = fn_or_name
    else:
        raise RuntimeError("Unsupported type for global function! Must be either a callable or string name")
    caller = inspect.currentframe().f_back
    try:
        if caller.f_code.co_name != "<module>":
            raise NotImplementedError("wrap must be called at the top level of a module")
        _wrapped_fns_to_patch[(id(caller.f_globals), fn_name)] = caller.f_globals
    finally:
        del caller  # a frame held in a local keeps the importing stack alive until the next collection
    return fn_or_name


# Concrete values an equality assertion can check (PyTorch's base argument types, tensors excepted).
_ASSERTABLE_TYPES = tuple(t for t in (str, int, float, bool, complex, tandem.dtype, tandem.device,
                                      type(getattr(tandem, "contiguous_format", None)),
                                      type(getattr(tandem, "strided", None))) if t is not type(None))


class PHBase:
    """The object that represents a placeholder inside concrete_args (``concrete_args={'x': PH}``)."""

    def __repr__(self):
        return "PH"


PH = PHBase()


@has_side_effect
def _assert_is_none(value, msg):
    assert value is None, msg


# ---- patching -------------------------------------------------------------------------------------------------------
class _Patcher:
    """Replaces module globals and class attributes for the length of a trace and puts everything back after. A
    replacement made with deduplicate=True is marked, and not replaced again by a nested trace (which would
    otherwise wrap the wrapper)."""

    def __init__(self):
        self.patches_made = []  # (apply, undo) pairs, in order
        self.visited = set()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        for _, undo in reversed(self.patches_made):
            undo()
        self.patches_made.clear()

    def _record(self, apply, undo):
        self.patches_made.append((apply, undo))
        apply()

    def patch(self, frame_dict, name, new_fn, deduplicate=True):
        """frame_dict[name] = new_fn until the end of the trace."""
        new_fn.__fx_already_patched = deduplicate
        if name not in frame_dict:
            self._record(lambda: frame_dict.__setitem__(name, new_fn), lambda: frame_dict.pop(name, None))
        elif getattr(frame_dict[name], "__fx_already_patched", False):
            return
        else:
            old = frame_dict[name]
            self._record(lambda: frame_dict.__setitem__(name, new_fn), lambda: frame_dict.__setitem__(name, old))

    def patch_method(self, cls, name, new_fn, deduplicate=True):
        """cls.name = new_fn until the end of the trace."""
        new_fn.__fx_already_patched = deduplicate
        orig = getattr(cls, name)
        if getattr(orig, "__fx_already_patched", False):
            return
        own = cls.__dict__.get(name, _MISSING)
        self._record(lambda: setattr(cls, name, new_fn),
                     lambda: setattr(cls, name, own) if own is not _MISSING else delattr(cls, name))

    def visit_once(self, thing):
        """True the first time `thing` is seen in this trace."""
        if id(thing) in self.visited:
            return False
        self.visited.add(id(thing))
        return True

    def revert_all_patches(self):
        for _, undo in self.patches_made:
            undo()
        return self.patches_made

    def reapply_all_patches(self):
        for apply, _ in self.patches_made:
            apply()
        return self.patches_made


_MISSING = object()


def _find_proxy(*objects):
    found = []

    def look(x):
        if not found and isinstance(x, Proxy):
            found.append(x)
        return x

    map_aggregate(objects, look)
    return found[0] if found else None


def _create_wrapped_func(orig_fn):
    """A stand-in for a wrapped function: called with a proxy it records a call_function node."""

    @functools.wraps(orig_fn)
    def wrapped(*args, **kwargs):
        proxy = _find_proxy(args, kwargs)
        if proxy is not None:
            result = proxy.tracer.create_proxy("call_function", orig_fn, args, kwargs)
            result.node.meta["is_wrapped"] = True
            return result
        return orig_fn(*args, **kwargs)

    return wrapped


def _patch_wrapped_functions(patcher):
    for (_, name), frame_dict in list(_wrapped_fns_to_patch.items()):
        if name in frame_dict:
            orig_fn = frame_dict[name]
        elif hasattr(builtins, name):
            orig_fn = getattr(builtins, name)  # wrap('len'): the module's `len` becomes the recording one
        else:
            # wrap("f") in a module that never defined f: skipped (PyTorch's KeyError here would break every
            # later trace in the process, whatever it traces)
            continue
        patcher.patch(frame_dict, name, _create_wrapped_func(orig_fn))


def _autowrap_check(patcher, frame_dict, function_ids):
    """Patches, in these globals, each public function that is one of the autowrapped ones (math's)."""
    if patcher.visit_once(frame_dict):
        for name, value in list(frame_dict.items()):
            if not name.startswith("_") and callable(value) and id(value) in function_ids:
                patcher.patch(frame_dict, name, _create_wrapped_func(value))


def _patch_function(fn, nargs):
    """`fn` with its *args / **kwargs / keyword-only parameters made plain positional ones, so the tracer can pass
    one proxy for each."""
    code = fn.__code__
    flags = code.co_flags & ~(inspect.CO_VARARGS | inspect.CO_VARKEYWORDS)
    code = code.replace(co_argcount=nargs, co_posonlyargcount=0, co_kwonlyargcount=0, co_flags=flags)
    return types.FunctionType(code, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)


class Tracer(TracerBase):
    """Records a module's forward (or a function) as a Graph. Override is_leaf_module, call_module,
    create_proxy, create_node, create_arg or getattr to change what is recorded."""

    def __init__(self, autowrap_modules=(math,), autowrap_functions=(), param_shapes_constant=False):
        super().__init__()
        self._autowrap_function_ids = {
            id(value) for module in autowrap_modules for name, value in module.__dict__.items()
            if not name.startswith("_") and callable(value)}
        self._autowrap_function_ids.update(id(f) for f in autowrap_functions)
        self._autowrap_search = list(autowrap_modules)
        self.param_shapes_constant = param_shapes_constant
        self.submodule_paths = None
        self.root_module_name = ""
        self.scope = Scope("", None)
        self.module_stack = collections.OrderedDict()
        self.num_calls = {}
        self.node_name_to_scope = {}

    def __deepcopy__(self, memo):
        # the autowrapped modules (math) cannot be deep-copied: shared
        import copy
        new = Tracer.__new__(type(self))
        for k, v in self.__dict__.items():
            new.__dict__[k] = copy.copy(v) if k == "_autowrap_search" else copy.deepcopy(v, memo)
        return new

    # ---- values ---------------------------------------------------------------------------------------------------
    def create_arg(self, a):
        """As TracerBase.create_arg, plus: the root's parameters, buffers and submodules become get_attr nodes, and
        any other tensor constant is stored on the root as _tensor_constantN (or found where it already is)."""
        if isinstance(a, tandem.nn.Parameter):
            for name, p in self.root.named_parameters():
                if a is p:
                    return self.create_node("get_attr", name, (), {})
            raise NameError("parameter is not a member of this module")
        if isinstance(a, tandem.Tensor):
            for name, b in self.root.named_buffers():
                if a is b:
                    return self.create_node("get_attr", name, (), {})
        elif isinstance(a, tandem.nn.Module):
            for name, m in self.root.named_modules():
                if a is m:
                    return self.create_node("get_attr", name, (), {})
        if isinstance(a, tuple) and hasattr(a, "_fields"):
            # a named tuple written literally: a node that builds it
            return self.create_node("call_function", a.__class__, tuple(self.create_arg(e) for e in a), {})
        if isinstance(a, tandem.Tensor):
            qualname = self.tensor_attrs.get(a)
            if not qualname:
                qualname = self.get_fresh_qualname("_tensor_constant")
                setattr(self.root, qualname, a)
            return self.create_node("get_attr", qualname, (), {})
        return super().create_arg(a)

    def get_fresh_qualname(self, prefix):
        """An attribute name `prefix`N the root does not have yet."""
        i = 0
        while hasattr(self.root, f"{prefix}{i}"):
            i += 1
        return f"{prefix}{i}"

    # ---- modules --------------------------------------------------------------------------------------------------
    def is_leaf_module(self, m, module_qualified_name):
        """tandem's own layers (tandem.nn, not Sequential) are recorded as call_module; others are traced through."""
        module_name = type(m).__module__ or ""
        return module_name.startswith(("tandem.nn", "torch.nn")) and not isinstance(m, tandem.nn.Sequential)

    def path_of_module(self, mod):
        """The qualified name of `mod` under the root."""
        if self.submodule_paths:
            path = self.submodule_paths.get(mod)
            if path is None:
                raise NameError("module is not installed as a submodule")
            return path
        for name, m in self.root.named_modules():
            if mod is m:
                return name
        raise NameError("module is not installed as a submodule")

    def call_module(self, m, forward, args, kwargs):
        """A submodule call: a call_module node for a leaf, its forward traced through otherwise."""
        qualname = self.path_of_module(m)
        with ScopeContextManager(self.scope, Scope(qualname, type(m))) as scope:
            self.module_stack[scope.module_path] = (qualname, scope.module_type)
            if not self.is_leaf_module(m, qualname):
                result = forward(*args, **kwargs)
            else:
                result = self.create_proxy("call_module", qualname, args, kwargs)
            self.module_stack.popitem(last=True)
        return result

    def getattr(self, attr, attr_val, parameter_proxy_cache):
        """A module attribute read during tracing: the root's parameters become (cached) get_attr proxies."""

        def proxy_for(value, named):
            for name, p in named:
                if value is p:
                    if name not in parameter_proxy_cache:
                        factory = None
                        if self.param_shapes_constant:
                            def factory(node, name=name):
                                return ParameterProxy(self, node, name, value)
                        parameter_proxy_cache[name] = self.create_proxy("get_attr", name, (), {},
                                                                        proxy_factory_fn=factory)
                    return parameter_proxy_cache[name]
            return None

        if isinstance(attr_val, tandem.nn.Parameter):
            found = proxy_for(attr_val, self.root.named_parameters())
            if found is not None:
                return found
        if self.proxy_buffer_attributes and isinstance(attr_val, tandem.Tensor):
            found = proxy_for(attr_val, self.root.named_buffers())
            if found is not None:
                return found
        return attr_val

    # ---- arguments of the root ------------------------------------------------------------------------------------
    def create_args_for_root(self, root_fn, is_module, concrete_args=None):
        """Placeholders for the traced function's parameters (self skipped); returns the function to call (with
        *args / **kwargs made positional) and its arguments."""
        fn_for_analysis = inspect.unwrap(root_fn)
        code = fn_for_analysis.__code__
        total_args = code.co_argcount + code.co_kwonlyargcount
        names_iter = iter(code.co_varnames)
        args = []
        skip = 0
        if is_module:
            if total_args == 0:
                raise RuntimeError("``self`` argument cannot be part of *args expansion!")
            skip = 1
            next(names_iter)
            args.append(self.root)
        sig = inspect.signature(fn_for_analysis)
        has_varstuff = code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS)
        if isinstance(concrete_args, tuple) and concrete_args and has_varstuff and total_args == 1:
            for i, _ in enumerate(concrete_args):  # f(*args) with flat concrete_args: one placeholder each
                args.append(self.create_proxy("placeholder", f"input_{i}", (), {}))
            return root_fn, args
        arg_names = [next(names_iter) for _ in range(skip, total_args)]
        if isinstance(concrete_args, tuple):
            if len(arg_names) != len(concrete_args):
                raise RuntimeError(f"Tracing expected {len(arg_names)} arguments but got {len(concrete_args)} "
                                   "concrete arguments")
            concrete_args = dict(zip(arg_names, concrete_args))
        args.extend(self._proxy_placeholder(name, concrete_args, sig, fn_for_analysis) for name in arg_names)
        if code.co_kwonlyargcount > 0 or has_varstuff:
            if code.co_flags & inspect.CO_VARARGS:
                args.append(self._proxy_placeholder("*" + next(names_iter), concrete_args, sig, fn_for_analysis))
            if code.co_flags & inspect.CO_VARKEYWORDS:
                args.append(self._proxy_placeholder("**" + next(names_iter), concrete_args, sig, fn_for_analysis))
            root_fn = _patch_function(root_fn, len(args))
        return root_fn, args

    def _proxy_placeholder(self, name, concrete_args, sig, fn_for_analysis):
        if concrete_args is not None and name in concrete_args:
            return self._concrete_placeholder(name, concrete_args[name], sig)
        if name[0] == "*":
            default = ()
        else:
            param = sig.parameters[name]
            default = () if param.default is inspect.Parameter.empty else (param.default,)
        return self.create_proxy("placeholder", name, default, {},
                                 type_expr=fn_for_analysis.__annotations__.get(name, None))

    def _concrete_placeholder(self, name, value, sig):
        """A parameter given a concrete value: still a placeholder (named name_1), with an assertion that the call
        passes that value, and the traced code sees the value itself."""
        param = sig.parameters.get(name)
        default = () if param is None or param.default is inspect.Parameter.empty else (param.default,)
        out = self.create_proxy("placeholder", f"{name}_1", default, {})
        if isinstance(value, PHBase):
            if value is not PH:
                for attr, attr_value in vars(value).items():
                    setattr(out.node, attr, attr_value)
            return out
        if type(value) in _ASSERTABLE_TYPES:  # exact types, as PyTorch's check
            tandem._assert(out == value, f"{name} has been specialized to have value {value} but got another value")
        elif value is None:
            self.create_proxy("call_function", _assert_is_none,
                              (out, f"{name} has been specialized to have value None but got another value"), {})
        else:
            warnings.warn(f"Was not able to add assertion to guarantee correct input {name} to specialized function. "
                          "It is up to the user to make sure that your inputs match the inputs you specialized the "
                          "function with.")
        return value

    # ---- the trace ------------------------------------------------------------------------------------------------
    def _collect_tensor_attrs(self):
        """Tensors stored as plain attributes anywhere under the root, by qualified name (an explicit stack)."""
        self.tensor_attrs = {}
        stack = [(self.root, [])]
        while stack:
            module, prefix = stack.pop()
            for k, v in module.__dict__.items():
                if isinstance(v, tandem.Tensor):
                    self.tensor_attrs[v] = ".".join(prefix + [k])
            children = list(module.named_children())
            stack.extend((child, prefix + [name]) for name, child in reversed(children))

    def trace(self, root, concrete_args=None):
        """Traces `root` (a Module's forward, or a plain function) and returns the Graph."""
        global _is_fx_tracing_flag
        was_tracing = _is_fx_tracing_flag
        _is_fx_tracing_flag = True
        try:
            if isinstance(root, tandem.nn.Module):
                self.root = root
                if not hasattr(type(root), self.traced_func_name):
                    raise AssertionError(f"traced_func_name={self.traced_func_name} doesn't exist in "
                                         f"{type(root).__name__}")
                fn = getattr(type(root), self.traced_func_name)
                self.root_module_name = root._get_name()
                self.submodule_paths = {mod: name for name, mod in root.named_modules()}
            else:
                self.root = tandem.nn.Module()
                fn = root
            self.graph = Graph(tracer_cls=getattr(self, "__class__", None))
            self._collect_tensor_attrs()
            if not isinstance(fn, types.FunctionType):
                raise AssertionError(f"Expected FunctionType, got {type(fn)}")
            fn_globals = fn.__globals__
            fn, args = self.create_args_for_root(fn, isinstance(root, tandem.nn.Module), concrete_args)
            self._run_patched(fn, args, fn_globals)
            self.submodule_paths = None
        finally:
            _is_fx_tracing_flag = was_tracing
        return self.graph

    def _run_patched(self, fn, args, fn_globals):
        orig_getattr = tandem.nn.Module.__getattr__
        orig_call = tandem.nn.Module.__call__
        parameter_proxy_cache = {}
        tracer = self

        with _Patcher() as patcher:
            @functools.wraps(orig_getattr)
            def module_getattr_wrapper(mod, attr):
                return tracer.getattr(attr, orig_getattr(mod, attr), parameter_proxy_cache)

            @functools.wraps(orig_call)
            def module_call_wrapper(mod, *args, **kwargs):
                def forward(*args, **kwargs):
                    return orig_call(mod, *args, **kwargs)

                forward_globals = getattr(getattr(mod, "forward", mod), "__globals__", {})
                _autowrap_check(patcher, forward_globals, tracer._autowrap_function_ids)
                return tracer.call_module(mod, forward, args, kwargs)

            # deduplicate=False: a trace inside a trace patches the module methods again, for its own tracer
            patcher.patch_method(tandem.nn.Module, "__getattr__", module_getattr_wrapper, deduplicate=False)
            patcher.patch_method(tandem.nn.Module, "__call__", module_call_wrapper, deduplicate=False)
            _patch_wrapped_functions(patcher)
            _autowrap_check(patcher, fn_globals, self._autowrap_function_ids)
            for module in self._autowrap_search:
                _autowrap_check(patcher, module.__dict__, self._autowrap_function_ids)
            result = fn(*args)
            self.create_node("output", "output", (self.create_arg(result),), {},
                             type_expr=fn.__annotations__.get("return", None))


def symbolic_trace(root, concrete_args=None):
    """Traces a Module or function into a GraphModule (named after the module's class or the function)."""
    from .graph_module import GraphModule
    tracer = Tracer()
    graph = tracer.trace(root, concrete_args)
    name = root.__class__.__name__ if isinstance(root, tandem.nn.Module) else root.__name__
    return GraphModule(tracer.root, graph, name)
