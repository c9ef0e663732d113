"""fx.GraphModule: an nn.Module whose forward is Python code generated from a Graph. It holds the submodules,
parameters and tensors its graph refers to (copied from the root it was built from), regenerates forward on
``recompile()``, deep-copies with its graph, and pickles as its state and code (loading re-traces the code)."""
import copy
import itertools
import linecache

import tandem

from ._codegen import base_globals
from .graph import Graph

__all__ = ["GraphModule"]

_source_counter = itertools.count()


def _exec_with_source(src, globals_):
    """Runs generated source under a unique file name registered with linecache, so that tracebacks and
    inspect.getsource show the generated lines."""
    filename = f"<eval_with_key>.{next(_source_counter)}"
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    exec(compile(src, filename, "exec"), globals_)


def _forward_from_src(src, globals_):
    scope = dict(globals_)
    _exec_with_source(src, scope)
    return scope["forward"]


def _is_plain_tensor(value):
    return isinstance(value, tandem.Tensor) and not isinstance(value, tandem.nn.Parameter)


def _set_attr(to_module, field, value):
    # A tensor that is not a Parameter is kept as a buffer (state_dict and .to() see it), as PyTorch does.
    if _is_plain_tensor(value):
        to_module.register_buffer(field, value)
    else:
        setattr(to_module, field, value)


def _copy_attr(from_module, to_module, target):
    """Copies the attribute at dotted path `target` of `from_module` onto `to_module`, creating plain Modules for
    the levels in between (a level already copied whole is left alone)."""
    *prefix, field = target.split(".")
    for item in prefix:
        f = getattr(from_module, item)
        t = getattr(to_module, item, None)
        if f is t:
            return
        if t is None:
            t = tandem.nn.Module()
            setattr(to_module, item, t)
        from_module, to_module = f, t
    _set_attr(to_module, field, getattr(from_module, field))


def _assign_attr(value, to_module, target):
    *prefix, field = target.split(".")
    for item in prefix:
        t = getattr(to_module, item, None)
        if t is None:
            t = tandem.nn.Module()
            setattr(to_module, item, t)
        to_module = t
    _set_attr(to_module, field, value)


class _CodeOnlyModule(tandem.nn.Module):
    """A module made of a saved __dict__: what deepcopy and unpickling rebuild a GraphModule from."""

    def __init__(self, body):
        super().__init__()
        self.__dict__ = body


class GraphModule(tandem.nn.Module):
    """``GraphModule(root, graph, class_name='GraphModule')``: root is a Module (the attributes and submodules the
    graph's get_attr / call_module nodes name are copied from it) or a dict from those names to the objects."""

    def __new__(cls, *args, **kwargs):
        # Each instance gets its own class, so recompile() can install its forward without touching others.
        base = next(t for t in cls.__mro__ if t.__qualname__.split(".")[-1] != "GraphModuleImpl")

        class GraphModuleImpl(base):
            pass

        return super().__new__(GraphModuleImpl)

    def __init__(self, root, graph, class_name="GraphModule"):
        super().__init__()
        self.__class__.__name__ = class_name
        if isinstance(root, tandem.nn.Module):
            if hasattr(root, "training"):
                self.training = root.training
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    _copy_attr(root, self, node.target)
        elif isinstance(root, dict):
            targets = []
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    if node.target not in root:
                        raise RuntimeError(f"Node {node} referenced target {node.target} but that target was not "
                                           "provided in ``root``!")
                    targets.append(node.target)
            for target in sorted(targets, key=lambda t: t.count(".")):  # parents before their children
                _assign_attr(root[target], self, target)
        else:
            raise RuntimeError(f"Unsupported type {root} passed for root!")
        self.graph = graph
        tracer_cls = graph._tracer_cls
        self._tracer_cls = tracer_cls if tracer_cls and "<locals>" not in tracer_cls.__qualname__ else None
        self._tracer_extras = graph._tracer_extras or {}
        self.meta = {}

    # ---- the graph and its code -----------------------------------------------------------------------------------
    @property
    def graph(self):
        return self._graph

    @graph.setter
    def graph(self, g):
        if not isinstance(g, Graph):
            raise AssertionError(f"Expected a Graph instance, but got {type(g)}")
        self._graph = g
        g.owning_module = self
        self.recompile()

    @property
    def code(self):
        """The Python source of forward."""
        if not hasattr(self, "_code"):
            raise RuntimeError("Code has not been generated! Please report a bug to PyTorch")
        return self._code

    def recompile(self):
        """Regenerates forward from the graph (call it after editing the graph); returns the PythonCode."""
        python_code = self._graph.python_code(root_module="self")
        self._code = python_code.src
        type(self).forward = _forward_from_src(self._code, python_code.globals)
        return python_code

    def print_readable(self, print_output=True, include_stride=False, include_device=False, colored=False, *,
                       fast_sympy_print=False, expanded_def=False):
        """The code as a class definition, submodule GraphModules as nested classes; printed and returned."""
        text = self._readable(self._get_name())
        if print_output:
            print(text)
        return text

    def _readable(self, class_name):
        src = self._graph.python_code(root_module="self", verbose=True).src
        lines = src.strip().split("\n")
        body = "\n".join(("    " + line.rstrip()) if line.strip() else "" for line in lines)
        text = f"class {class_name}(torch.nn.Module):\n{body}\n"
        for name, child in self.named_children():
            if isinstance(child, GraphModule):
                nested = child._readable(name)
                text += "\n" + "\n".join(("    " + line) if line else "" for line in nested.split("\n"))
        return text

    def to_folder(self, folder, module_name="FxModule"):
        """Writes the module to `folder` as a package: ``from folder import FxModule`` rebuilds it."""
        from ._to_folder import write_folder
        write_folder(self, folder, module_name)

    def __str__(self):
        return "\n".join([super().__str__(), self._code,
                          "# To see more debug info, please use `graph_module.print_readable()`"])

    # ---- submodules -----------------------------------------------------------------------------------------------
    def add_submodule(self, target, m):
        """Installs `m` at dotted path `target`, creating plain Modules on the way; False if a level on the path
        is not a Module."""
        *prefix, field = target.split(".")
        mod = self
        for item in prefix:
            sub = getattr(mod, item, None)
            if sub is None:
                sub = tandem.nn.Module()
                setattr(mod, item, sub)
            if not isinstance(sub, tandem.nn.Module):
                return False
            mod = sub
        mod.add_module(field, m)
        return True

    def delete_submodule(self, target):
        """Removes the submodule at `target`; False if there is none."""
        *path, name = target.split(".")
        mod = self
        for item in path:
            if not hasattr(mod, item):
                return False
            mod = getattr(mod, item)
            if not isinstance(mod, tandem.nn.Module):
                return False
        if not hasattr(mod, name) or not isinstance(getattr(mod, name), tandem.nn.Module):
            return False
        delattr(mod, name)
        return True

    def delete_all_unused_submodules(self):
        """Removes every submodule that no call_module / get_attr node uses (nor contains one that is used)."""
        used = set()
        for node in self.graph.nodes:
            if node.op not in ("call_module", "get_attr"):
                continue
            atoms = node.target.split(".")
            used.update(".".join(atoms[:i + 1]) for i in range(len(atoms)))
            if node.op == "call_module":
                try:
                    submod = self.get_submodule(node.target)
                except AttributeError:
                    continue
                used.update(f"{node.target}.{name}" for name, _ in submod.named_modules() if name)
        for name in [name for name, _ in self.named_modules() if name not in used]:
            self.delete_submodule(name)

    # ---- copies -----------------------------------------------------------------------------------------------------
    def __copy__(self):
        res = GraphModule(self, self.graph)
        res.meta = getattr(self, "meta", {})
        return res

    def __deepcopy__(self, memo):
        res = type(self).__new__(type(self))
        memo[id(self)] = res
        fake = _CodeOnlyModule(copy.deepcopy(self.__dict__, memo))
        res.__init__(fake, fake.__dict__["_graph"])  # named GraphModule again, as PyTorch's copy is
        res.meta = copy.deepcopy(getattr(self, "meta", {}), memo)
        return res

    def __reduce__(self):
        # Pickled as its __dict__ and code; loading re-traces the code (the graph holds no picklable form of its
        # own), as PyTorch's GraphModule does.
        body = self.__dict__.copy()
        python_code = self.recompile()
        del body["_graph"]
        extra_globals = {k: v for k, v in python_code.globals.items() if k not in base_globals()}
        return (_reduce_graph_module, (body, extra_globals))


def _reduce_graph_module(body, extra_globals):
    from ._symbolic_trace import Tracer
    forward = _forward_from_src(body["_code"], {**base_globals(), **extra_globals})
    code_only = type("_CodeOnlyModule", (_CodeOnlyModule,), {"forward": forward})
    tracer_cls = body.get("_tracer_cls") or Tracer

    class KeepModules(tracer_cls):
        def is_leaf_module(self, _, __):
            return True

    root = code_only(body)
    graph = KeepModules().trace(root, **body.get("_tracer_extras", {}))
    graph._tracer_cls = tracer_cls
    gm = GraphModule(root, graph)
    for k, v in body.items():
        if not hasattr(gm, k):
            setattr(gm, k, v)
    return gm
