"""Differentiable collectives (torch.distributed.nn.functional): each returns new tensors and its backward is the
collective that carries the gradients back (an all-reduce's is an all-reduce, a broadcast's a reduce to the
source, an all-gather's an all-to-all summed). PyTorch marks broadcast, all_gather and all_reduce deprecated in
favour of torch.distributed._functional_collectives, with a FutureWarning; so does tandem."""
import warnings

import tandem
from tandem import distributed as dist
from tandem.autograd import Function
from tandem.distributed import ReduceOp, group

__all__ = ["broadcast", "reduce", "all_gather", "all_to_all", "all_reduce"]


def _deprecated(name, suggestion):
    warnings.warn(f"torch.distributed.nn.functional.{name} is deprecated, use {suggestion} instead.",
                  category=FutureWarning, stacklevel=3)


def broadcast(tensor, src, group=group.WORLD):
    """A copy of src's tensor on every rank; the gradient is the sum of every rank's, on src (zero elsewhere)."""
    _deprecated("broadcast", "torch.distributed._functional_collectives.broadcast")
    return _Broadcast.apply(src, group, tensor)


def reduce(tensor, dst, op=ReduceOp.SUM, group=group.WORLD):
    """The reduction of every rank's tensor, on dst; the gradient is dst's, broadcast to every rank."""
    return _Reduce.apply(dst, op, group, tensor)


def all_gather(tensor, group=group.WORLD):
    """A tuple of every rank's tensor; each rank's gradient is the sum over ranks of the gradient of its slot."""
    _deprecated("all_gather", "torch.distributed._functional_collectives.all_gather_single")
    return _AllGather.apply(group, tensor)


def all_to_all(output_tensor_list, input_tensor_list, group=group.WORLD):
    """Rank r's input j goes to rank j's output r; the gradients travel back the same way."""
    return _AlltoAll.apply(group, output_tensor_list, *input_tensor_list)


def all_reduce(tensor, op=ReduceOp.SUM, group=group.WORLD):
    """The reduction of every rank's tensor, on every rank; the gradient is the all-reduce of the gradients."""
    _deprecated("all_reduce", "torch.distributed._functional_collectives.all_reduce")
    return _AllReduce.apply(op, group, tensor)


class _Broadcast(Function):
    @staticmethod
    def forward(ctx, src, group, tensor):
        ctx.src, ctx.group, ctx.global_rank = src, group, dist.get_rank()
        tensor = tensor.clone()  # the collectives write in place: work on a copy
        dist.broadcast(tensor, src, group=group)
        return tensor

    @staticmethod
    def backward(ctx, grad_output):
        gx = _Reduce.apply(ctx.src, ReduceOp.SUM, ctx.group, grad_output)
        if ctx.src != ctx.global_rank:
            gx.zero_()
        return None, None, gx


class _Reduce(Function):
    @staticmethod
    def forward(ctx, dst, op, group, tensor):
        ctx.dst, ctx.group = dst, group
        tensor = tensor.clone()
        dist.reduce(tensor, dst, op=op, group=group)
        return tensor

    @staticmethod
    def backward(ctx, grad_output):
        return None, None, None, _Broadcast.apply(ctx.dst, ctx.group, grad_output)


class _AllGather(Function):
    @staticmethod
    def forward(ctx, group, tensor):
        tensor = tensor.contiguous()
        ctx.group = group
        out = [tandem.empty_like(tensor) for _ in range(dist.get_world_size(group=group))]
        dist.all_gather(out, tensor, group=group)
        return tuple(out)

    @staticmethod
    def backward(ctx, *grad_outputs):
        # every rank holds the gradient of every slot: rank r needs slot r from all of them, summed
        received = _AlltoAll.apply(ctx.group, [tandem.empty_like(g) for g in grad_outputs], *grad_outputs)
        return None, tandem.sum(tandem.stack(received), dim=0)


class _AlltoAll(Function):
    @staticmethod
    def forward(ctx, group, out_tensor_list, *tensors):
        ctx.group = group
        ctx.input_sizes = [t.size() for t in tensors]
        dist.all_to_all(out_tensor_list, [t.contiguous() for t in tensors], group=group)
        return tuple(out_tensor_list)

    @staticmethod
    def backward(ctx, *grad_outputs):
        back = [tandem.empty(size, device=grad_outputs[0].device, dtype=grad_outputs[0].dtype)
                for size in ctx.input_sizes]
        return (None, None) + _AlltoAll.apply(ctx.group, back, *[g.contiguous() for g in grad_outputs])


class _AllReduce(Function):
    @staticmethod
    def forward(ctx, op, group, tensor):
        ctx.op, ctx.group = op, group
        tensor = tensor.clone(memory_format=tandem.contiguous_format)
        dist.all_reduce(tensor, op=op, group=group)
        return tensor

    @staticmethod
    def backward(ctx, grad_output):
        return None, None, _AllReduce.apply(ctx.op, ctx.group, grad_output)
