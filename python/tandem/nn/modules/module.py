"""nn.Module: the bookkeeping of parameters, buffers and submodules, as in PyTorch."""
from collections import OrderedDict

from ... import _C
from ..._C import Tensor
from ...autograd import no_grad as _no_grad
from ..parameter import Buffer, Parameter
from . import module_hooks as _hooks
from . import module_state as _state
from .module_hooks import RemovableHandle  # noqa: F401 (PyTorch's torch.utils.hooks.RemovableHandle)
from .module_hooks import (  # the global hook tables, read by every call
    _global_backward_hooks, _global_backward_pre_hooks, _global_forward_hooks, _global_forward_pre_hooks,
)
from .module_hooks import (  # noqa: F401 (torch.nn.modules.module.register_module_*_hook)
    register_module_backward_hook, register_module_forward_hook, register_module_forward_pre_hook,
    register_module_full_backward_hook, register_module_full_backward_pre_hook,
)

_IncompatibleKeys = _state._IncompatibleKeys


def _typename(obj):
    """torch.typename, as PyTorch's registration errors name values ('torch.FloatTensor', 'int')."""
    from ..._compositions_more import typename  # noqa: PLC0415  (tandem's namespace is still being built)
    return typename(obj)


def _is_buffer_value(value):
    """A tensor of any layout (tandem.sparse's are Tensors too; Whisper keeps its alignment-head mask as a sparse
    buffer)."""
    return isinstance(value, Tensor)


def _addindent(s, num_spaces):
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    first = lines.pop(0)
    # blank lines stay empty, as PyTorch's (an extra_repr ending in a newline nests without trailing spaces)
    return first + "\n" + "\n".join(num_spaces * " " + line if line.strip() else "" for line in lines)


def _apply_to_parameter(module, key, param, fn, swap, overwrite):
    """One parameter (and its .grad) of Module._apply: see Module._apply_in_place for the three ways."""
    if swap:
        from ...utils import swap_tensors  # noqa: PLC0415  (tandem.utils imports nn)
    applied = fn(param)
    grad = param.grad
    if swap:
        try:
            if grad is not None:
                param.grad = None
            swap_tensors(param, Parameter(applied, requires_grad=param.requires_grad))
        except Exception as e:
            if grad is not None:
                param.grad = grad
            raise RuntimeError(f"_apply(): Couldn't swap {module._get_name()}.{key}") from e
        out = param
    elif overwrite:
        out = Parameter(applied, param.requires_grad)
        module._parameters[key] = out
    else:
        if applied is not param:
            if param.requires_grad and not (applied.dtype.is_floating_point or applied.dtype.is_complex):
                # PyTorch's `param.data = applied` check (module.type(torch.int32) on trainable parameters)
                raise RuntimeError("data set to a tensor that requires gradients must be floating point or complex "
                                   "dtype")
            _C._set_data(param, applied)
        out = param
    if grad is None:
        return
    grad_applied = fn(grad)
    if swap:
        grad_applied.requires_grad_(grad.requires_grad)
        try:
            swap_tensors(grad, grad_applied)
        except Exception as e:
            raise RuntimeError(f"_apply(): Couldn't swap {module._get_name()}.{key}.grad") from e
        out.grad = grad
    elif overwrite:
        out.grad = grad_applied.requires_grad_(grad.requires_grad)
    elif grad_applied is not grad:
        _C._set_data(grad, grad_applied)


class Module:
    """Base class of all layers and models. Subclasses define ``forward`` and assign submodules, Parameters
    and buffers as attributes in ``__init__`` (after calling ``super().__init__()``)."""

    training: bool
    # With call_super_init = True, Module.__init__ passes its arguments on to the next class in the MRO (a mixin
    # that a multiple-inheritance model also initialises), as PyTorch's does.
    call_super_init = False

    def __init__(self, *args, **kwargs):
        if not self.call_super_init and kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                            f"'{next(iter(kwargs))}'")
        if not self.call_super_init and args:
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but {len(args) + 1} were "
                            "given")
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_non_persistent_buffers_set", set())
        object.__setattr__(self, "_modules", OrderedDict())
        self._init_hook_tables()
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    _HOOK_DICTS = ("_forward_pre_hooks", "_forward_hooks", "_backward_pre_hooks", "_backward_hooks",
                   "_state_dict_pre_hooks", "_state_dict_hooks", "_load_state_dict_pre_hooks",
                   "_load_state_dict_post_hooks")
    _HOOK_ID_SETS = ("_forward_pre_hooks_with_kwargs", "_forward_hooks_with_kwargs", "_forward_hooks_always_called",
                     "_state_dict_post_hook_ids", "_load_state_dict_pre_hook_with_module")

    def _init_hook_tables(self):
        d = self.__dict__
        for name in self._HOOK_DICTS:
            d.setdefault(name, OrderedDict())
        for name in self._HOOK_ID_SETS:
            d.setdefault(name, set())
        d.setdefault("_is_full_backward_hook", None)

    def __setstate__(self, state):
        # A module pickled before a hook table existed (an older tandem) gets empty tables.
        self.__dict__.update(state)
        self._init_hook_tables()

    def forward(self, *args, **kwargs):
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function\n'
            "hint: define forward(self, ...) in your Module subclass"
        )

    def __call__(self, *args, **kwargs):
        d = self.__dict__  # subscripts and module globals: the cheapest test of "no hook anywhere"
        if not (d["_forward_pre_hooks"] or d["_forward_hooks"] or d["_backward_hooks"] or d["_backward_pre_hooks"]
                or _global_forward_pre_hooks or _global_forward_hooks or _global_backward_pre_hooks
                or _global_backward_hooks):
            return self.forward(*args, **kwargs)
        return _hooks.call_with_hooks(self, args, kwargs)

    # PyTorch's names for what __call__ runs, which libraries call or check directly (module._call_impl(x) runs
    # the hooks and forward; _compiled_call_impl is None until torch.compile replaces it)
    _call_impl = _wrapped_call_impl = __call__
    _compiled_call_impl = None

    # ---- hooks (module_hooks.py runs them) --------------------------------------------------------------
    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """hook(module, args) runs before forward; a non-None result replaces the positional arguments. With
        with_kwargs, hook(module, args, kwargs) may return (args, kwargs)."""
        extra = [self._forward_pre_hooks_with_kwargs] if with_kwargs else []
        return _hooks.add_hook(self._forward_pre_hooks, hook, prepend, extra)

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        """hook(module, args, output) (or (module, args, kwargs, output)) runs after forward; a non-None result
        replaces the output. always_call hooks run even when forward raises."""
        extra = ([self._forward_hooks_with_kwargs] if with_kwargs else []) + (
            [self._forward_hooks_always_called] if always_call else [])
        return _hooks.add_hook(self._forward_hooks, hook, prepend, extra)

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """hook(module, grad_output) runs when the output gradients are known; may return new grad_output."""
        return _hooks.add_hook(self._backward_pre_hooks, hook, prepend)

    def register_full_backward_hook(self, hook, prepend=False):
        """hook(module, grad_input, grad_output) runs when the input gradients are known; may return new
        grad_input."""
        if self._is_full_backward_hook is False:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a single Module. "
                               "Please use only one of them.")
        object.__setattr__(self, "_is_full_backward_hook", True)
        return _hooks.add_hook(self._backward_hooks, hook, prepend)

    def register_backward_hook(self, hook):
        """Deprecated in PyTorch, where grad_input is that of the module's last autograd node; tandem runs it as a
        full backward hook (grad_input of the module's inputs)."""
        if self._is_full_backward_hook is True:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a single Module. "
                               "Please use only one of them.")
        object.__setattr__(self, "_is_full_backward_hook", False)
        return _hooks.add_hook(self._backward_hooks, hook)

    def register_state_dict_pre_hook(self, hook):
        """hook(module, prefix, keep_vars) runs before the module saves its state."""
        return _hooks.add_hook(self._state_dict_pre_hooks, hook)

    def register_state_dict_post_hook(self, hook):
        """hook(module, state_dict, prefix, local_metadata) runs after the module and its children saved."""
        return _hooks.add_hook(self._state_dict_hooks, hook, extra=[self._state_dict_post_hook_ids])

    def _register_state_dict_hook(self, hook):
        return _hooks.add_hook(self._state_dict_hooks, hook)

    def register_load_state_dict_pre_hook(self, hook):
        """hook(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)."""
        return _hooks.add_hook(self._load_state_dict_pre_hooks, hook,
                               extra=[self._load_state_dict_pre_hook_with_module])

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        extra = [self._load_state_dict_pre_hook_with_module] if with_module else []
        return _hooks.add_hook(self._load_state_dict_pre_hooks, hook, extra=extra)

    def register_load_state_dict_post_hook(self, hook):
        """hook(module, incompatible_keys) runs after loading; it may edit the key lists in place."""
        return _hooks.add_hook(self._load_state_dict_post_hooks, hook)

    # ---- registration -------------------------------------------------------------------------------
    def _check_name(self, name, kind):
        if "_parameters" not in self.__dict__:
            raise AttributeError(f"cannot assign {kind} before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {_typename(name)}")
        if "." in name:  # PyTorch names the offending name for modules only
            raise KeyError(f'{kind} name can\'t contain "."' + (f", got: {name}" if kind == "module" else ""))
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')

    def register_parameter(self, name, param):
        self._check_name(name, "parameter")
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                "(torch.nn.Parameter or None required)"
            )
        self._parameters[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        self._check_name(name, "buffer")
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not _is_buffer_value(tensor):
            raise TypeError(
                f"cannot assign '{_typename(tensor)}' object to buffer '{name}' (torch Tensor or None required)"
            )
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name, module):
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        self._check_name(name, "module")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        self._modules[name] = module

    register_module = add_module

    def get_submodule(self, target):
        mod = self
        for item in target.split(".") if target else []:
            if not hasattr(mod, item):
                raise AttributeError(f"{mod._get_name()} has no attribute `{item}`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):  # a parameter or a plain attribute on the path
                raise AttributeError(f"`{item}` is not an nn.Module")
        return mod

    def set_submodule(self, target, module, strict=False):
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        parent_path, _, name = target.rpartition(".")
        parent = self.get_submodule(parent_path)
        if strict and not hasattr(parent, name):
            raise AttributeError(f"{parent._get_name()} has no attribute `{name}`")
        if hasattr(parent, name) and not isinstance(getattr(parent, name), Module):
            raise AttributeError(f"`{name}` is not an nn.Module")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        setattr(parent, name, module)

    def get_parameter(self, target):
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(f"{mod._get_name()} has no attribute `{name}`")
        param = getattr(mod, name)
        if not isinstance(param, Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return param

    def get_buffer(self, target):
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(f"{mod._get_name()} has no attribute `{name}`")
        if name not in mod._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return getattr(mod, name)

    def __getattr__(self, name):
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            if store in d and name in d[store]:
                return d[store][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        d = self.__dict__
        params = d.get("_parameters")

        def remove_from(*stores):
            for store in stores:
                if store is not None and name in store:
                    del store[name]
            d.pop(name, None)

        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(d.get("_buffers"), d.get("_modules"))
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as parameter '{name}' "
                    "(torch.nn.Parameter or None expected)"
                )
            params[name] = None
        elif isinstance(value, Module):
            if d.get("_modules") is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            remove_from(params, d.get("_buffers"))
            d["_modules"][name] = value
        elif d.get("_modules") is not None and name in d["_modules"]:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as child module '{name}' (torch.nn.Module or None expected)"
                )
            d["_modules"][name] = None
        elif isinstance(value, Buffer) or (d.get("_buffers") is not None and name in d["_buffers"]):
            if value is not None and not _is_buffer_value(value):
                raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' (torch.nn.Buffer, torch.Tensor "
                                "or None expected)")
            if isinstance(value, Buffer):
                persistent = value.persistent
            else:
                persistent = name not in self._non_persistent_buffers_set
            self.register_buffer(name, value, persistent)
        else:
            object.__setattr__(self, name, value)

    def __delattr__(self, name):
        for store in (self._parameters, self._buffers, self._modules):
            if name in store:
                del store[name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        keys = list(super().__dir__()) + list(self._parameters) + list(self._buffers) + list(self._modules)
        return sorted(k for k in set(keys) if not k[0].isdigit())

    # ---- traversal (iterative: a stack of (prefix, module), no recursion over user-sized trees) ---------
    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        memo = set() if memo is None else memo
        stack = [(prefix, self)]
        while stack:
            name, mod = stack.pop()
            if remove_duplicate:
                if mod in memo:  # the modules themselves, as PyTorch's memo holds them (callers may pass one)
                    continue
                memo.add(mod)
            yield name, mod
            children = [(name + ("." if name else "") + n, m) for n, m in mod._modules.items() if m is not None]
            stack.extend(reversed(children))

    def modules(self, remove_duplicate=True):
        for _, m in self.named_modules(remove_duplicate=remove_duplicate):
            yield m

    def named_children(self):
        seen = set()
        for name, m in self._modules.items():
            if m is not None and id(m) not in seen:
                seen.add(id(m))
                yield name, m

    def children(self):
        for _, m in self.named_children():
            yield m

    def _named_members(self, get_members_fn, prefix="", recurse=True, remove_duplicate=True):
        """PyTorch's: get_members_fn(module) gives (name, value) pairs (subclasses pass their own, e.g.
        ``lambda m: m._parameters.items()``); tandem's own callers pass the name of the dict to read."""
        if isinstance(get_members_fn, str):
            store = get_members_fn
            get_members_fn = lambda module: getattr(module, store).items()  # noqa: E731
        seen = set()
        mods = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for mod_prefix, mod in mods:
            for name, value in get_members_fn(mod):
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                seen.add(id(value))
                yield mod_prefix + ("." if mod_prefix else "") + name, value

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse=True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    # ---- modes and gradients ----------------------------------------------------------------------------
    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        object.__setattr__(self, "training", mode)
        for m in self.children():  # through each child's train(), which subclasses may override
            m.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                p.grad.zero_()

    def apply(self, fn):
        """fn on every submodule, children before their parent (PyTorch's post-order), then on self."""
        order, stack = [], [(self, False)]
        while stack:
            mod, children_done = stack.pop()
            if children_done:
                order.append(mod)
                continue
            stack.append((mod, True))
            stack.extend((child, False) for child in reversed(list(mod.children())))
        for m in order:
            fn(m)
        return self

    # ---- moving between dtypes and devices (in place: Parameter objects keep their identity) ------------
    def to_empty(self, *, device, recurse=True):
        """Parameters and buffers moved to `device` without copying their values (uninitialised memory)."""
        import tandem
        return self._apply(lambda t: tandem.empty_like(t, device=device), recurse=recurse)

    def type(self, dst_type):
        return self._apply(lambda t: t.type(dst_type))

    def compile(self, *args, **kwargs):
        """PyTorch compiles the module in place (its state_dict keys unchanged); tandem runs it eagerly."""

    def _apply(self, fn, recurse=True):
        # Each child goes through its own _apply, as in PyTorch: a subclass that overrides it to convert
        # tensors it keeps outside _parameters/_buffers (gpytorch's ExactGP and its train_inputs) sees
        # model.to(dtype) also when it sits inside another module.
        if recurse:
            for child in self.children():
                child._apply(fn)
        with _no_grad():
            self._apply_in_place(fn)
        return self

    def _apply_in_place(self, fn):
        # This module's own parameters and buffers. PyTorch's three ways, chosen by tandem.__future__: by
        # default each Parameter object keeps its identity and gets the converted data (what optimizers holding
        # it rely on); with the swap switch it also takes the converted tensor's class and attributes
        # (utils.swap_tensors); with the overwrite switch the module gets new Parameter objects.
        from ... import __future__ as future
        swap = future.get_swap_module_params_on_conversion()
        overwrite = future.get_overwrite_module_params_on_conversion()
        for key, t in self._parameters.items():
            if t is not None:
                _apply_to_parameter(self, key, t, fn, swap, overwrite)
        for key, t in self._buffers.items():
            if t is not None:
                self._buffers[key] = fn(t)

    def to(self, *args, memory_format=None, **kwargs):
        device, dtype, non_blocking = _parse_to(*args, **kwargs)
        if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
            raise TypeError(f"nn.Module.to only accepts floating point or complex dtypes, but got desired "
                            f"dtype={dtype}")

        def convert(t):
            # As PyTorch: memory_format applies to the 4-D and 5-D tensors (conv weights) only; the dtype to the
            # floating and complex ones.
            fmt = {"memory_format": memory_format} if memory_format is not None and t.dim() in (4, 5) else {}
            keeps_dtype = not (t.is_floating_point() or t.is_complex())
            return t.to(device=device, dtype=None if keeps_dtype else dtype, non_blocking=non_blocking, **fmt)

        return self._apply(convert)

    def cpu(self):
        return self._apply(lambda t: t.cpu())

    def cuda(self, device=None):
        return self._apply(lambda t: t.cuda(device) if device is not None else t.cuda())

    def share_memory(self):
        """Moves every parameter, its gradient and every buffer into shared memory, in place
        (Tensor.share_memory_), so processes the module is then sent to work on the same values; returns self."""
        for t in list(self.parameters()) + list(self.buffers()):
            t.share_memory_()
            if t.grad is not None:
                t.grad.share_memory_()
        return self

    def float(self):
        return self._apply(lambda t: t.to(_C.float32) if t.is_floating_point() else t)

    def double(self):
        return self._apply(lambda t: t.to(_C.float64) if t.is_floating_point() else t)

    def half(self):
        return self._apply(lambda t: t.to(_C.float16) if t.is_floating_point() else t)

    def bfloat16(self):
        return self._apply(lambda t: t.to(_C.bfloat16) if t.is_floating_point() else t)

    # ---- state dicts (module_state.py) -------------------------------------------------------------------
    _version = 1  # written to state_dict()._metadata; a subclass bumps it when its saved form changes

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        return _state.state_dict(self, *args, destination=destination, prefix=prefix, keep_vars=keep_vars)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        _state.save_to_state_dict(self, destination, prefix, keep_vars)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        _state.load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                                    unexpected_keys, error_msgs)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        return _state.load_state_dict(self, state_dict, strict, assign)

    def get_extra_state(self):
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never be called. Please "
                           "file an issue at https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml "
                           "to report this bug.")

    def set_extra_state(self, state):
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never be called. Please "
                           "file an issue at https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml "
                           "to report this bug.")

    # ---- printing ---------------------------------------------------------------------------------------
    def _replicate_for_data_parallel(self):
        """A shallow copy for nn.parallel.replicate: its own (empty) parameter table and copies of the buffer and
        child tables, which replicate fills with the per-device tensors and child replicas."""
        replica = self.__new__(type(self))
        replica.__dict__ = self.__dict__.copy()
        replica.__dict__.update(_parameters={}, _buffers=self._buffers.copy(), _modules=self._modules.copy(),
                                _is_replica=True)
        return replica

    def extra_repr(self):
        return ""

    def _get_name(self):
        return type(self).__name__

    def __repr__(self):
        lines = []
        extra = self.extra_repr()
        if extra:
            lines = extra.split("\n")
        for key, module in self._modules.items():
            lines.append("(" + key + "): " + _addindent(repr(module), 2))
        main = self._get_name() + "("
        if lines:
            if len(lines) == 1 and not self._modules:
                main += lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"


def _parse_to(*args, **kwargs):
    """(device, dtype, non_blocking) from Module.to's forms, bound as PyTorch's argument parser binds them:
    to(device=None, dtype=None, non_blocking=False, copy=False), to(dtype, non_blocking=False, copy=False) and
    to(tensor, non_blocking=False, copy=False), by position or by name; anything else is its TypeError."""
    if len(args) == 5 and not kwargs:  # five arguments fit only the device form, whose parse counts positions first
        raise TypeError("to() takes from 0 to 4 positional arguments but 5 were given")
    for names in _TO_FORMS:
        if len(args) > len(names) or any(k not in names for k in kwargs):
            continue
        bound = dict(zip(names, args))
        if any(k in bound for k in kwargs):
            continue
        bound.update(kwargs)
        if names[0] != "device" and names[0] not in bound:  # dtype and tensor are required in their forms
            continue
        if not all(_TO_KINDS[k](v) for k, v in bound.items()):
            continue
        if bound.get("copy"):
            raise RuntimeError(".to() does not accept copy argument")
        source = bound.get("tensor")
        if source is not None:
            return source.device, source.dtype, bound.get("non_blocking", False)
        return bound.get("device"), bound.get("dtype"), bound.get("non_blocking", False)
    raise TypeError(f"to() received an invalid combination of arguments - got ({_parser_got(args, kwargs)}), but "
                    "expected one of:\n * (torch.device device = None, torch.dtype dtype = None, bool non_blocking "
                    "= False, bool copy = False, *, torch.memory_format memory_format = None)\n * (torch.dtype "
                    "dtype, bool non_blocking = False, bool copy = False, *, torch.memory_format memory_format = "
                    "None)\n * (Tensor tensor, bool non_blocking = False, bool copy = False, *, torch.memory_format "
                    "memory_format = None)\n")


_TO_FORMS = (("device", "dtype", "non_blocking", "copy"), ("dtype", "non_blocking", "copy"),
             ("tensor", "non_blocking", "copy"))
_TO_KINDS = {
    "device": lambda v: v is None or isinstance(v, (str, _C.device)) or isinstance(v, int) and not isinstance(v, bool),
    "dtype": lambda v: v is None or isinstance(v, _C.dtype),
    "tensor": lambda v: isinstance(v, Tensor),
    "non_blocking": lambda v: isinstance(v, bool),
    "copy": lambda v: isinstance(v, bool),
}


def _parser_type_name(value):
    if isinstance(value, Tensor):
        return "Tensor"
    if isinstance(value, _C.dtype):
        return "torch.dtype"
    if isinstance(value, _C.device):
        return "torch.device"
    return type(value).__name__


def _parser_got(args, kwargs):
    """The "got (...)" of PyTorch's argument-parser error: the positional types, then name=type for the keywords
    in the reverse of their order (as its parser lists them), each keyword followed by ", " when no argument was
    positional."""
    keywords = [f"{k}={_parser_type_name(v)}" for k, v in reversed(list(kwargs.items()))]
    if not args:
        return "".join(k + ", " for k in keywords)
    return ", ".join([_parser_type_name(a) for a in args] + keywords)
