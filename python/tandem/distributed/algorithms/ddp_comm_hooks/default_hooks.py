"""The default DDP communication hooks: ``ddp.register_comm_hook(process_group_or_None, hook)``. Each averages
the bucket over the group (divide by the world size, then all-reduce), returning a Future of the averaged
buffer; the compressing ones all-reduce a float16/bfloat16 copy and write it back into the bucket's dtype."""
import tandem
import tandem.distributed as dist

__all__ = ["allreduce_hook", "bf16_compress_hook", "fp16_compress_hook"]


def _group(process_group):
    return process_group if process_group is not None else dist.group.WORLD


def _averaged(group, tensor):
    tensor.div_(dist.get_world_size(group))
    return dist.all_reduce(tensor, group=group, async_op=True).get_future().then(lambda fut: fut.value()[0])


def allreduce_hook(process_group, bucket):
    """What DDP does without a hook: the bucket's average over the group."""
    return _averaged(_group(process_group), bucket.buffer())


def _compressing(dtype):
    def hook(process_group, bucket):
        buffer = bucket.buffer()
        compressed = buffer.to(dtype)

        def decompress(fut):
            buffer.copy_(fut.value())
            return buffer

        return _averaged(_group(process_group), compressed).then(decompress)
    return hook


fp16_compress_hook = _compressing(tandem.float16)
fp16_compress_hook.__name__ = fp16_compress_hook.__qualname__ = "fp16_compress_hook"
fp16_compress_hook.__doc__ = "Averages the bucket as float16 (half the bytes on the wire), written back in its dtype."
bf16_compress_hook = _compressing(tandem.bfloat16)
bf16_compress_hook.__name__ = bf16_compress_hook.__qualname__ = "bf16_compress_hook"
bf16_compress_hook.__doc__ = "Averages the bucket as bfloat16, written back in its dtype."
