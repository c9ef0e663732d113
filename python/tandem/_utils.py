"""torch._utils: the tensor and Parameter rebuild functions that PyTorch's pickles name (a tensor pickled with
plain pickle is _rebuild_tensor_v2 of a storage from torch.storage._load_from_bytes), so a program's pickle of
PyTorch tensors (a cached dataset, a saved replay buffer) loads into tandem tensors."""
from ._torch_format_read import (_rebuild_parameter, _rebuild_parameter_with_state, _rebuild_tensor,  # noqa: F401
                                 _rebuild_tensor_v2, _rebuild_tensor_v3)
