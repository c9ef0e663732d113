"""Functions bound from C++ (tandem.tanh, tandem.Tensor.relu: nanobind's nb_func and nb_method) copy and pickle as
PyTorch's builtin functions do: copy.copy and copy.deepcopy return the function itself, and pickle stores it by
name. A module holding one (TransformerEncoderLayer(activation=torch.tanh), self.act = torch.relu) can then be
deep-copied (TransformerEncoder clones its layer that way), copy.deepcopy'd and pickled."""
import copyreg

from . import _C


def _by_name(function):
    # A string is a global's name to pickle (looked up in function.__module__) and "the object itself" to copy.
    return function.__qualname__


def install():
    kinds = {type(f) for f in (*vars(_C).values(), *vars(_C.Tensor).values())
             if type(f).__module__ == "nanobind" and type(f).__name__ in ("nb_func", "nb_method")}
    for kind in kinds:
        copyreg.pickle(kind, _by_name)
