"""The arguments __torch_function__ handlers see for the functions PyTorch writes in Python (torch/functional.py):
those hand over a normalised call, not the caller's. einsum's list and sublist forms arrive as ("equation",
*operands); tensordot, cdist, norm and split pass their options by keyword with the defaults filled in. fx graphs
record these arguments, and passes over them rely on the form: opt_einsum_fx (e3nn) reads the operands as
args[1:] of an einsum node and a tensordot node's kwargs["dims"]."""
from . import _C
from ._einsum import _sublist_equation


def _einsum(args, kwargs):
    if kwargs or len(args) < 2:
        return None
    if isinstance(args[0], _C.Tensor):
        equation, operands = _sublist_equation(args)
    elif isinstance(args[0], str):
        equation, operands = args[0], args[1:]
        while len(operands) == 1 and isinstance(operands[0], (list, tuple)):  # PyTorch unwraps the list form
            operands = tuple(operands[0])
    else:
        return None
    return operands, (equation, *operands), {}


def _keyword_form(positional, relevant, defaults):
    """A normaliser for a signature f(*positional, **defaults) whose first `relevant` parameters dispatch: the
    positional parameters stay positional, the others go by keyword with their defaults; a call that does not
    bind is handed over as it came."""
    names = tuple(defaults)

    def normalise(args, kwargs):
        extra = len(args) - len(positional)
        if extra < 0 or extra > len(names) or any(k not in names or names.index(k) < extra for k in kwargs):
            return None
        options = dict(defaults)
        options.update(zip(names, args[len(positional):]))
        options.update(kwargs)
        return args[:relevant], args[:len(positional)], options

    normalise.defaults = defaults
    return normalise


FORMS = {
    "einsum": _einsum,
    "tensordot": _keyword_form(("a", "b"), 2, {"dims": 2, "out": None}),
    "cdist": _keyword_form(("x1", "x2"), 2, {"p": 2.0, "compute_mode": "use_mm_for_euclid_dist_if_necessary"}),
    "norm": _keyword_form(("input",), 1, {"p": "fro", "dim": None, "keepdim": False, "out": None, "dtype": None}),
    "split": _keyword_form(("tensor", "split_size_or_sections"), 1, {"dim": 0}),
}
BY_FUNCTION = {}  # tandem.<name>'s public wrapper (tandem.functional.<name> too) -> its form; install() fills it


def install(namespace):
    BY_FUNCTION.update((namespace[name], form) for name, form in FORMS.items())


def normalised(public_api, relevant_args, args, kwargs):
    """(relevant_args, args, kwargs) as PyTorch's Python function hands them to the handlers."""
    form = BY_FUNCTION.get(public_api)
    found = form(args, kwargs) if form is not None else None
    return (relevant_args, args, kwargs) if found is None else found


def without_defaults(public_api, kwargs):
    """kwargs less the options the normalised call filled in with their defaults: tandem's sparse tensors, whose
    __torch_function__ is tandem's own machinery (PyTorch's do not dispatch), take the call as it was written."""
    defaults = getattr(BY_FUNCTION.get(public_api), "defaults", None)
    if not defaults or not kwargs:
        return kwargs
    return {k: v for k, v in kwargs.items() if k not in defaults or not (
        v is defaults[k] or isinstance(v, (str, int, float)) and type(v) is type(defaults[k]) and v == defaults[k])}
