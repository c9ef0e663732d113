"""tandem.onnx: present so that programs which `import torch.onnx` (for an optional export step) run; tandem has
no ONNX exporter, so export raises."""

__all__ = ["export", "is_in_onnx_export"]


def export(model, args=(), f=None, *unused_args, **unused_kwargs):
    raise NotImplementedError(
        "tandem.onnx.export: tandem cannot export ONNX graphs\nhint: save the weights with "
        "tandem.save(model.state_dict(), 'model.pt'), load them into the same model in PyTorch with "
        "torch.load(..., weights_only=True) and export from there")


def is_in_onnx_export():
    """Always False: tandem never traces for ONNX."""
    return False
