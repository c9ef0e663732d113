"""tandem.jit.annotations: the typing names TorchScript code imports from torch.jit.annotations (timm's DenseNet
does `from torch.jit.annotations import List`). They are typing's own objects, as in PyTorch; tandem compiles
nothing, so they only annotate."""
from typing import Any, Dict, List, Optional, Tuple, Union  # noqa: F401


class _BroadcastingList:
    """BroadcastingListN[T]: TorchScript's "one T or N of them" parameter type. Outside the compiler PyTorch's
    subscript gives None (the annotation carries no Python type), and so does this one."""

    def __getitem__(self, types):
        return None


BroadcastingList1 = _BroadcastingList()
BroadcastingList2 = _BroadcastingList()
BroadcastingList3 = _BroadcastingList()
