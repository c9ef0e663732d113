"""PyTorch's warning that its CSR support is in beta: given when a CSR tensor is made (any constructor,
conversion or op result), once a process, or every time under tandem.set_warn_always(True), at the user's line,
as PyTorch's TORCH_WARN_ONCE in its CSR tensor's constructor. The first sentence is PyTorch's, so filters written
for it ("ignore:Sparse CSR tensor support") match; the rest points at tandem's docs, not PyTorch's tracker."""
import os
import sys
import warnings

from .._tensor_extras import is_warn_always_enabled

MESSAGE = ("Sparse CSR tensor support is in beta state. If you miss a functionality in the sparse tensor support, "
           "docs/ops.md (\"Sparse tensors\") lists what tandem's sparse tensors support.")
_warned = []
_TANDEM_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def warn_csr_beta():
    if _warned and not is_warn_always_enabled():
        return
    _warned.append(True)
    frame, level = sys._getframe(0), 1
    while frame is not None and frame.f_code.co_filename.startswith(_TANDEM_DIR):  # the user's line
        frame, level = frame.f_back, level + 1
    warnings.warn(MESSAGE, UserWarning, stacklevel=level)
