"""nn.Module: the bookkeeping of parameters, buffers and submodules, as in PyTorch."""
from collections import OrderedDict, namedtuple

from ... import _C
from ..._C import Tensor
from ...autograd import no_grad as _no_grad
from ..parameter import Buffer, Parameter


def _typename(obj):
    """torch.typename, as PyTorch's registration errors name values ('torch.FloatTensor', 'int')."""
    from ..._compositions_more import typename  # noqa: PLC0415  (tandem's namespace is still being built)
    return typename(obj)

class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """load_state_dict's result; printed as PyTorch prints it when every key matched."""

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _addindent(s, num_spaces):
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    first = lines.pop(0)
    return first + "\n" + "\n".join(num_spaces * " " + line for line in lines)


class RemovableHandle:
    """Returned by register_*_hook: ``remove()`` (or leaving a ``with`` block) unregisters the hook."""

    _next_id = 0

    def __init__(self, hooks, hook):
        self.hooks_dict_ref = hooks
        self.id = RemovableHandle._next_id
        RemovableHandle._next_id += 1
        hooks[self.id] = hook

    def remove(self):
        self.hooks_dict_ref.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class Module:
    """Base class of all layers and models. Subclasses define ``forward`` and assign submodules, Parameters
    and buffers as attributes in ``__init__`` (after calling ``super().__init__()``)."""

    training: bool

    def __init__(self, *args, **kwargs):
        if args or kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got unexpected arguments")
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_non_persistent_buffers_set", set())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "_forward_pre_hooks", OrderedDict())
        object.__setattr__(self, "_forward_hooks", OrderedDict())

    def forward(self, *args, **kwargs):
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function\n'
            "hint: define forward(self, ...) in your Module subclass"
        )

    def __call__(self, *args, **kwargs):
        if not (self._forward_pre_hooks or self._forward_hooks):
            return self.forward(*args, **kwargs)
        for hook in list(self._forward_pre_hooks.values()):
            result = hook(self, args)
            if result is not None:
                args = result if isinstance(result, tuple) else (result,)
        output = self.forward(*args, **kwargs)
        for hook in list(self._forward_hooks.values()):
            result = hook(self, args, output)
            if result is not None:
                output = result
        return output

    def register_forward_pre_hook(self, hook):
        """hook(module, args) runs before forward; a non-None result replaces the positional arguments."""
        return RemovableHandle(self._forward_pre_hooks, hook)

    def register_forward_hook(self, hook):
        """hook(module, args, output) runs after forward; a non-None result replaces the output."""
        return RemovableHandle(self._forward_hooks, hook)

    # ---- registration -------------------------------------------------------------------------------
    def _check_name(self, name, kind):
        if "_parameters" not in self.__dict__:
            raise AttributeError(f"cannot assign {kind} before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain "."')
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
        if tensor is not None and not isinstance(tensor, Tensor):
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
            if not hasattr(mod, item) or not isinstance(getattr(mod, item), Module):
                raise AttributeError(f"{type(mod).__name__} has no attribute `{item}`")
            mod = getattr(mod, item)
        return mod

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
            if value is not None and not isinstance(value, Tensor):
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
                if id(mod) in memo:
                    continue
                memo.add(id(mod))
            yield name, mod
            children = [(name + ("." if name else "") + n, m) for n, m in mod._modules.items() if m is not None]
            stack.extend(reversed(children))

    def modules(self):
        for _, m in self.named_modules():
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

    def _named_members(self, store, prefix, recurse, remove_duplicate=True):
        seen = set()
        mods = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for mod_prefix, mod in mods:
            for name, value in getattr(mod, store).items():
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
    def _apply(self, fn):
        with _no_grad():
            self._apply_in_place(fn)
        return self

    def _apply_in_place(self, fn):
        for mod in self.modules():
            for store in (mod._parameters, mod._buffers):
                for key, t in store.items():
                    if t is None:
                        continue
                    moved = fn(t)
                    if moved is t:
                        continue
                    if isinstance(t, Parameter):
                        _C._set_data(t, moved)
                        grad = t.grad
                        if grad is not None:
                            _C._set_data(grad, fn(grad))
                    else:
                        store[key] = moved

    def to(self, *args, memory_format=None, **kwargs):
        device, dtype, non_blocking = _parse_to(*args, **kwargs)
        if dtype is not None and not dtype.is_floating_point:
            raise TypeError(f"nn.Module.to only accepts floating point dtypes, but got desired dtype={dtype}")

        def convert(t):
            # As PyTorch: memory_format applies to the 4-D and 5-D tensors (conv weights) only.
            fmt = {"memory_format": memory_format} if memory_format is not None and t.dim() in (4, 5) else {}
            return t.to(device=device, dtype=dtype if t.is_floating_point() else None, non_blocking=non_blocking,
                        **fmt)

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

    # ---- state dicts ------------------------------------------------------------------------------------
    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        if args:
            raise TypeError("state_dict() takes keyword arguments only (destination=, prefix=, keep_vars=)")
        out = OrderedDict() if destination is None else destination
        for mod_prefix, mod in self.named_modules(prefix=prefix.rstrip("."), remove_duplicate=False):
            base = mod_prefix + "." if mod_prefix else ""
            for name, p in mod._parameters.items():
                if p is not None:
                    out[base + name] = p if keep_vars else _C._make_subclass(Tensor, p, False)
            for name, b in mod._buffers.items():
                if b is not None and name not in mod._non_persistent_buffers_set:
                    out[base + name] = b if keep_vars else _C._make_subclass(Tensor, b, False)
        return out

    def load_state_dict(self, state_dict, strict=True, assign=False):
        if not hasattr(state_dict, "items"):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        own = self.state_dict(keep_vars=True)
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        errors = []
        for key, target in own.items():
            if key not in state_dict:
                continue
            src = state_dict[key]
            if not isinstance(src, Tensor):
                errors.append(
                    f'While copying the parameter named "{key}", expected torch.Tensor or Tensor-like object '
                    f"from checkpoint but received {type(src)}"
                )
                continue
            if tuple(src.shape) != tuple(target.shape):
                errors.append(
                    f"size mismatch for {key}: copying a param with shape {src.shape!r} from checkpoint, "
                    f"the shape in current model is {target.shape!r}."
                )
                continue
            if assign:
                _C._set_data(target, src)
            else:
                _C._make_subclass(Tensor, target, False).copy_(src)
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in unexpected)))
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in missing)))
        if errors:
            hint = ""
            if unexpected and missing and all(k.startswith("module.") for k in unexpected):
                hint = ("\nhint: this state_dict was saved from a DistributedDataParallel wrapper (keys start with "
                        "'module.'): save model.module.state_dict(), or strip the prefix with tandem.nn.modules."
                        "utils.consume_prefix_in_state_dict_if_present(state_dict, 'module.')")
            raise RuntimeError(
                "Error(s) in loading state_dict for {}:\n\t{}".format(type(self).__name__, "\n\t".join(errors))
                + hint
            )
        return _IncompatibleKeys(missing, unexpected)

    # ---- printing ---------------------------------------------------------------------------------------
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
    """(device, dtype, non_blocking) from Module.to's forms: to(device), to(dtype), to(device, dtype),
    to(tensor), each with non_blocking= (positional after the device or tensor, as in PyTorch)."""
    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    non_blocking = kwargs.pop("non_blocking", False)
    if kwargs:
        raise TypeError(f"to() got unexpected keyword arguments {sorted(kwargs)}")
    for a in args:
        if isinstance(a, Tensor):
            device, dtype = a.device, a.dtype
        elif isinstance(a, _C.dtype):
            dtype = a
        elif isinstance(a, bool):  # before int: bool is an int subclass
            non_blocking = a
        elif isinstance(a, (str, int, _C.device)):
            device = a
        else:
            raise TypeError(f"to() received an invalid combination of arguments: {type(a).__name__}")
    return device, dtype, non_blocking
