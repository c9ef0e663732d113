"""tandem.autograd.forward_ad: PyTorch's dual-number API for forward-mode AD is not implemented (it needs a
forward formula for every op; tandem has reverse-mode formulas only). Importing works so that code which only
imports it runs; making dual tensors raises NotImplementedError naming the way tandem computes
Jacobian-vector products instead: tandem.func.jvp (and tandem.autograd.functional.jvp), built from two reverse
passes (the double-backward trick). unpack_dual of an ordinary tensor returns it with no tangent, as in PyTorch."""
from collections import namedtuple

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual", "dual_level"]

_HINT = ("tandem has no forward-mode AD (dual tensors)\nhint: compute Jacobian-vector products with "
         "tandem.func.jvp(f, primals, tangents) (or tandem.autograd.functional.jvp), which tandem builds from "
         "two reverse-mode passes")


def _refuse(what):
    raise NotImplementedError(f"tandem.autograd.forward_ad.{what}: {_HINT}")


UnpackedDualTensor = namedtuple("UnpackedDualTensor", ["primal", "tangent"])


def enter_dual_level():
    _refuse("enter_dual_level")


def exit_dual_level(*, level=None):
    _refuse("exit_dual_level")


def make_dual(tensor, tangent, *, level=None):
    _refuse("make_dual")


def unpack_dual(tensor, *, level=None):
    """No tensor is ever dual in tandem, so this is (tensor, None), as PyTorch returns for a non-dual tensor."""
    return UnpackedDualTensor(tensor, None)


class dual_level:
    """The scope of dual tensors in PyTorch; entering it raises NotImplementedError in tandem (see above)."""

    def __enter__(self):
        _refuse("dual_level")

    def __exit__(self, *args):
        return None
