"""Moving a forward's arguments to the device a DistributedDataParallel module lives on, as PyTorch's DDP does
when it was given ``device_ids``: programs feed it CPU batches (``ddp_model(torch.randn(20, 10))``) and expect
them to arrive on the module's device. Tensors and PackedSequences inside tuples, lists, namedtuples and dicts are
moved with the differentiable ``.to``; containers whose tensors are all there already come back as the same
object; anything else is passed by reference."""
import tandem

from ..._C import Tensor
from ..utils.rnn import PackedSequence
from .scatter_gather import _is_namedtuple


def _move(obj, device):
    if isinstance(obj, PackedSequence):
        return obj if obj.data.device == device else obj.to(device)
    if isinstance(obj, Tensor):
        return obj if obj.device == device else obj.to(device)
    if _is_namedtuple(obj):
        return _rebuilt(obj, list(obj), device, lambda items: type(obj)(*items))
    if isinstance(obj, (tuple, list)) and obj:
        return _rebuilt(obj, list(obj), device, type(obj))
    if isinstance(obj, dict) and obj:
        keys = list(obj)
        return _rebuilt(obj, list(obj.values()), device, lambda values: type(obj)(zip(keys, values)))
    return obj


def _rebuilt(container, items, device, make):
    moved = [_move(item, device) for item in items]
    if all(m is i for m, i in zip(moved, items)):
        return container  # nothing moved: keep the caller's object
    return make(moved)


def to_kwargs(inputs, kwargs, device):
    """PyTorch's DDP.to_kwargs for one device: ``((moved inputs,), (moved kwargs,))``, each side padded with an
    empty tuple or dict when only the other has something, and ``((), ())`` when both are empty."""
    device = tandem.device(device)
    moved_inputs = [_move(tuple(inputs), device)] if inputs else []
    moved_kwargs = [_move(kwargs, device)] if kwargs else []
    if len(moved_inputs) < len(moved_kwargs):
        moved_inputs.append(())
    elif len(moved_kwargs) < len(moved_inputs):
        moved_kwargs.append({})
    return tuple(moved_inputs), tuple(moved_kwargs)
