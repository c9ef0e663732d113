"""quantize_dynamic: a copy of a model (or the model itself, inplace=True) whose Linear, LSTM, GRU and cell layers
are replaced by their dynamically quantized versions, chosen as PyTorch chooses them: by exact type (a subclass,
such as MultiheadAttention's out_proj, is left alone), by submodule name, or inherited from a parent named in
qconfig_spec. Only children are replaced, never the model passed in itself. Hooks on a replaced layer move to its
replacement."""
import copy
import itertools

import tandem
from tandem import nn

from ..._quantized_types import qint8, quint4x2, quint8
from ..nn.quantized import dynamic as nnqd
from .qconfig import default_dynamic_qconfig, float16_dynamic_qconfig

__all__ = ["quantize_dynamic", "get_default_dynamic_quant_module_mappings"]

_DYNAMIC_TYPES = (nn.Linear, nn.LSTM, nn.GRU, nn.LSTMCell, nn.RNNCell, nn.GRUCell)


def get_default_dynamic_quant_module_mappings():
    """Float layer type -> its dynamically quantized type."""
    return {nn.Linear: nnqd.Linear, nn.LSTM: nnqd.LSTM, nn.GRU: nnqd.GRU, nn.LSTMCell: nnqd.LSTMCell,
            nn.RNNCell: nnqd.RNNCell, nn.GRUCell: nnqd.GRUCell}


def _weight_only_refusal(dtype):
    return NotImplementedError(f"quantize_dynamic with dtype={dtype} (weight-only quantization of Embedding and "
                               "EmbeddingBag) is not supported by tandem\nhint: use dtype=tandem.qint8 or "
                               "tandem.float16 for Linear and recurrent layers")


def _default_spec(qconfig_spec, dtype):
    if qconfig_spec is None:
        if dtype is qint8:
            return dict(zip(_DYNAMIC_TYPES, itertools.repeat(default_dynamic_qconfig)))
        if dtype is tandem.float16:
            return dict(zip(_DYNAMIC_TYPES, itertools.repeat(float16_dynamic_qconfig)))
        if dtype is quint8 or dtype is quint4x2:
            raise _weight_only_refusal(dtype)
        raise ValueError(f"Don't know how to quantize with default settings for {dtype}. Provide full qconfig please")
    if isinstance(qconfig_spec, set):
        if dtype is qint8:
            qconfig = default_dynamic_qconfig
        elif dtype is tandem.float16:
            qconfig = float16_dynamic_qconfig
        elif dtype is quint8 or dtype is quint4x2:
            raise _weight_only_refusal(dtype)
        else:
            raise RuntimeError("Unknown dtype specified for quantize_dynamic: ", str(dtype))
        return dict(zip(qconfig_spec, itertools.repeat(qconfig)))
    if isinstance(qconfig_spec, dict):
        return qconfig_spec
    raise TypeError(f"qconfig_spec must be None, a set of layer types or names, or a dict mapping them to a QConfig, "
                    f"not {type(qconfig_spec).__name__}")


def _assign_qconfigs(module, spec, inherited, prefix, found):
    """found[module] = the qconfig of every module: its type's entry, else its name's, else its parent's."""
    qconfig = spec.get(type(module), inherited)
    qconfig = spec.get(prefix, qconfig)
    found[id(module)] = qconfig
    for name, child in module.named_children():
        _assign_qconfigs(child, spec, qconfig, f"{prefix}.{name}" if prefix else name, found)


def _swap(module, mapping, qconfigs):
    qconfig = qconfigs.get(id(module))
    target = mapping.get(type(module))
    if qconfig is None or target is None:
        return module
    module.qconfig = qconfig  # what from_float reads, as PyTorch's
    try:
        new = target.from_float(module)
    finally:
        del module.qconfig
    for hook_id, hook in module._forward_pre_hooks.items():
        new._forward_pre_hooks[hook_id] = hook
    for hook_id, hook in module._forward_hooks.items():
        new._forward_hooks[hook_id] = hook
    devices = {p.device for p in itertools.chain(module.parameters(), module.buffers())}
    if len(devices) == 1:
        new.to(devices.pop())
    return new


def _convert(module, mapping, qconfigs):
    for name, child in list(module.named_children()):
        _convert(child, mapping, qconfigs)
        module._modules[name] = _swap(child, mapping, qconfigs)


def quantize_dynamic(model, qconfig_spec=None, dtype=qint8, mapping=None, inplace=False):
    """Replaces model's Linear/LSTM/GRU/LSTMCell/GRUCell/RNNCell children (by default; qconfig_spec picks: a set
    of layer types or submodule names, or a dict of them to QConfigs) by dynamically quantized layers: int8
    weights (dtype=tandem.qint8) or float16 ones (tandem.float16). Returns the converted copy, or model itself
    with inplace=True."""
    spec = _default_spec(qconfig_spec, dtype)
    if mapping is None:
        mapping = get_default_dynamic_quant_module_mappings()
    if not inplace:
        model = copy.deepcopy(model)
    qconfigs = {}
    _assign_qconfigs(model, spec, None, "", qconfigs)
    _convert(model, mapping, qconfigs)
    return model
