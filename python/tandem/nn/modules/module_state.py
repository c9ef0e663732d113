"""Module.state_dict / load_state_dict in PyTorch's structure: each module saves and loads its own entries through
`_save_to_state_dict` / `_load_from_state_dict` (which subclasses override, e.g. to migrate old checkpoints using
the `_metadata` version), with extra state and the state-dict hooks. The walk over submodules is iterative."""
from collections import OrderedDict, namedtuple
from collections.abc import Mapping
import warnings

from ... import _C
from ..._C import Tensor
from ..._layouts import is_sparse_tensor
from ...autograd import no_grad
from ... import __future__ as _future
from ..parameter import Parameter, is_lazy


class _IncompatibleKeys(namedtuple("_IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """load_state_dict's result; printed as PyTorch prints it when every key matched."""

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__

_EXTRA_STATE_KEY_SUFFIX = "_extra_state"


def _plain(t, keep_vars):
    if keep_vars:
        return t
    if is_sparse_tensor(t):  # a sparse buffer: its detached self (its C++ tensor is a placeholder)
        return t.detach()
    if type(t) is not Tensor and _C._has_torch_function_unary(t):
        return t.detach()  # a subclass's detach goes through its __torch_function__ and keeps its type
    return _C._make_subclass(Tensor, t, False)


def has_extra_state(module):
    from .module import Module
    return type(module).get_extra_state is not Module.get_extra_state


def save_to_state_dict(module, destination, prefix, keep_vars):
    """The module's own parameters, persistent buffers and extra state (not its children's)."""
    for name, p in module._parameters.items():
        if p is not None:
            destination[prefix + name] = _plain(p, keep_vars)
    for name, b in module._buffers.items():
        if b is not None and name not in module._non_persistent_buffers_set:
            destination[prefix + name] = _plain(b, keep_vars)
    if has_extra_state(module):
        destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = module.get_extra_state()


def walk_modules(root, prefix, enter, leave):
    """enter(prefix, module) before a module's children and leave(prefix, module) after them, depth first in
    registration order (a shared submodule is visited at each place it appears), without recursion."""
    stack = [(prefix, root, False)]
    while stack:
        base, mod, done = stack.pop()
        if done:
            leave(base, mod)
            continue
        enter(base, mod)
        stack.append((base, mod, True))
        for name, child in reversed(list(mod._modules.items())):
            if child is not None:
                stack.append((base + name + ".", child, False))


def state_dict(module, *args, destination=None, prefix="", keep_vars=False):
    if args:
        warnings.warn("Positional args are being deprecated, use kwargs instead. Refer to https://pytorch.org/docs/"
                      "main/generated/torch.nn.Module.html#torch.nn.Module.state_dict for details.", FutureWarning,
                      stacklevel=3)
        # The old positional form (destination, prefix, keep_vars), each read only where its keyword was left at
        # its default, as PyTorch still does; positional arguments past the third are ignored there too.
        if destination is None:
            destination = args[0]
        if len(args) > 1 and prefix == "":
            prefix = args[1]
        if len(args) > 2 and keep_vars is False:
            keep_vars = args[2]
    if destination is None:
        destination = OrderedDict()
        destination._metadata = OrderedDict()
    metadata = getattr(destination, "_metadata", None)

    def enter(base, mod):
        if metadata is not None:
            metadata[base[:-1]] = dict(version=mod._version)
        for hook in mod._state_dict_pre_hooks.values():
            hook(mod, base, keep_vars)
        mod._save_to_state_dict(destination, base, keep_vars)

    returned = [destination]

    def leave(base, mod):  # after the module's children, as PyTorch's recursion
        for hook_id, hook in mod._state_dict_hooks.items():
            result = hook(mod, returned[0] if mod is module else destination, base, {})
            if result is not None and hook_id in mod._state_dict_post_hook_ids:
                raise RuntimeError("state_dict post-hook must return None")
            # A private hook's (_register_state_dict_hook) result replaces the dict its module's state_dict
            # returns; only the called module's is what the caller sees (opacus filters renamed keys so).
            if result is not None and mod is module:
                returned[0] = result

    walk_modules(module, prefix, enter, leave)
    return returned[0]


def _swap_in(target, src, assign):
    """load_state_dict under tandem.__future__'s swap switch, as PyTorch: the value module_load makes (a subclass
    may override it) is swapped into the target object, which keeps its identity and requires_grad."""
    from ...utils import swap_tensors
    with no_grad():
        new = target.module_load(src, assign=assign)
        if new is src or new is target:
            raise RuntimeError("module_load returned one of self or other, please .detach() the result if "
                               "returning one of the inputs in module_load")
        if isinstance(target, Parameter):
            if isinstance(new, Parameter):
                new.requires_grad_(target.requires_grad)
            else:
                new = Parameter(new, requires_grad=target.requires_grad)
        swap_tensors(target, new)


def load_from_state_dict(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                         error_msgs):
    """Copies the entries under `prefix` into the module's own parameters and persistent buffers."""
    for hook_id, hook in module._load_state_dict_pre_hooks.items():
        if hook_id in module._load_state_dict_pre_hook_with_module:
            hook(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
        else:
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
    local = {k: v for k, v in module._parameters.items() if v is not None}
    local.update((k, v) for k, v in module._buffers.items()
                 if v is not None and k not in module._non_persistent_buffers_set)
    assign = local_metadata.get("assign_to_params_buffers", False)
    swap = _future.get_swap_module_params_on_conversion()
    for name, target in local.items():
        key = prefix + name
        if key not in state_dict:
            if strict:
                missing_keys.append(key)
            continue
        src = state_dict[key]
        if is_sparse_tensor(target) and is_sparse_tensor(src) and tuple(src.shape) == tuple(target.shape):
            # PyTorch copies a sparse entry into a sparse buffer whole (its nonzeros replace the buffer's), keeping
            # the buffer's device and dtype; tandem's sparse tensors are immutable, so the buffer gets a new one.
            copied = src.detach().to(device=target.device, dtype=target.dtype)
            module._buffers[name] = copied.clone() if copied is src else copied
            continue
        if not isinstance(src, Tensor):
            error_msgs.append(f'While copying the parameter named "{key}", expected torch.Tensor or Tensor-like '
                              f"object from checkpoint but received {type(src)}")
            continue
        if is_sparse_tensor(target) or is_sparse_tensor(src):  # one sparse, one dense, or another size: refused
            error_msgs.append(f'While copying the parameter named "{key}", whose dimensions in the model are '
                              f"{target.shape} and whose dimensions in the checkpoint are {src.shape}, an "
                              f"exception occurred : ('copy_() between {target.layout} and {src.layout} tensors "
                              "is not implemented',).")
            continue
        if is_lazy(src) and not is_lazy(target):
            raise RuntimeError("Can't access the shape of an uninitialized parameter or buffer. This error usually "
                               "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
                               "initialized one. Call `forward` to initialize the parameters before accessing their "
                               "attributes.")
        if target.dim() == 0 and src.dim() == 1 and src.numel() == 1:  # PyTorch's pre-0.4 scalar parameters
            src = src[0]
        if not is_lazy(target) and tuple(src.shape) != tuple(target.shape):  # a lazy src has no shape to read
            error_msgs.append(f"size mismatch for {key}: copying a param with shape {src.shape!r} from checkpoint, "
                              f"the shape in current model is {target.shape!r}.")
            continue
        if not assign and target.is_meta and not src.is_meta:
            warnings.warn(f"for {key}: copying from a non-meta parameter in the checkpoint to a meta parameter in the "
                          "current model, which is a no-op. (Did you mean to pass `assign=True` to assign items in "
                          "the state dictionary to their corresponding key in the module instead of copying them in "
                          "place?)", stacklevel=2)
        try:
            if swap:
                _swap_in(target, src, assign)
            elif assign:
                if isinstance(target, Parameter) and target.requires_grad and not (
                        src.dtype.is_floating_point or src.dtype.is_complex):
                    # PyTorch wraps the checkpoint's tensor in a Parameter that requires grad, which refuses it
                    raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
                _C._set_data(target, src)
            else:
                with no_grad():
                    _C._make_subclass(Tensor, target, False).copy_(src)
        except Exception as e:
            error_msgs.append(f'While copying the parameter named "{key}", whose dimensions in the model are '
                              f"{target.shape} and whose dimensions in the checkpoint are {src.shape}, an "
                              f"exception occurred : {e.args}.")
    extra_key = prefix + _EXTRA_STATE_KEY_SUFFIX
    if has_extra_state(module):
        if extra_key in state_dict:
            module.set_extra_state(state_dict[extra_key])
        elif strict:
            missing_keys.append(extra_key)
    elif strict and extra_key in state_dict:
        unexpected_keys.append(extra_key)
    if strict:
        for key in state_dict:
            if key.startswith(prefix) and key != extra_key:
                first = key[len(prefix):].split(".", 1)[0]
                if first not in module._modules and first not in local:
                    unexpected_keys.append(key)


def load_state_dict(module, state_dict, strict=True, assign=False):
    if not isinstance(state_dict, Mapping):
        raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
    metadata = getattr(state_dict, "_metadata", None)
    state_dict = OrderedDict(state_dict)  # hooks may edit it; the caller's dict stays as it was
    if metadata is not None:
        state_dict._metadata = metadata
    missing, unexpected, errors = [], [], []
    incompatible = _IncompatibleKeys(missing, unexpected)

    # As in PyTorch, each child sees a dict of only its own keys, taken from its parent's after the parent's
    # _load_from_state_dict (and its pre-hooks) ran: a parent may rename its children's keys, a child cannot
    # change what its siblings or its parent see.
    local_dicts = {"": state_dict}

    def enter(base, mod):
        local_state = local_dicts.pop(base) if base in local_dicts else state_dict
        local_metadata = {} if metadata is None else dict(metadata.get(base[:-1], {}))
        if assign:
            local_metadata["assign_to_params_buffers"] = assign
        # strict=True here as in PyTorch: the lists are filtered by the caller's strict below.
        mod._load_from_state_dict(local_state, base, local_metadata, True, missing, unexpected, errors)
        for name, child in mod._modules.items():
            if child is not None:
                child_prefix = base + name + "."
                local_dicts[child_prefix] = {k: v for k, v in local_state.items() if k.startswith(child_prefix)}

    def leave(base, mod):  # post hooks see the keys found so far and may edit the lists in place
        for hook in mod._load_state_dict_post_hooks.values():
            if hook(mod, incompatible) is not None:  # PyTorch's assert: an AssertionError
                raise AssertionError("Hooks registered with ``register_load_state_dict_post_hook`` are not expected "
                                   "to return new values, if incompatible_keys need to be modified, it should be "
                                   "done inplace.")

    walk_modules(module, "", enter, leave)
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
        raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(type(module).__name__,
                                                                              "\n\t".join(errors)) + hint)
    return incompatible
