"""PyTorch's deprecated positional overloads that old programs still use (custom optimizers, the char-RNN
tutorial): t.add_(alpha, other), t.sub(alpha, other), torch.add(input, alpha, other), t.addcmul_(value, t1, t2),
torch.addcdiv(input, value, t1, t2), torch.addmm(beta, input, alpha, mat1, mat2), t.baddbmm_(beta, batch1, batch2),
... Each forwards to the keyword form (alpha=/value=/beta=) after PyTorch's warning, which PyTorch gives once per
process whichever overload comes first.

add/sub (tandem.add, Tensor.add, Tensor.add_, ...) take theirs as second nanobind overloads in
python/src/elementwise.cpp, tried only when the current signature refuses a call, so the hot methods keep no Python
wrapper; they call warn_once below. addcmul/addcdiv and the beta/alpha products (addmm, addbmm, baddbmm, addmv,
addr) are wrapped here."""
import numbers
import warnings

from ._C import Tensor

_warned = []

# name -> (scalar's name, names of the tensors after it)
_SIGNATURES = {"add": ("alpha", ("other",)), "sub": ("alpha", ("other",)),
               "addcmul": ("value", ("tensor1", "tensor2")), "addcdiv": ("value", ("tensor1", "tensor2"))}
_WRAPPED = ("addcmul", "addcdiv")
# name -> the two tensors after input; PyTorch's deprecated forms put beta (and alpha) before them
_PRODUCTS = {"addmm": ("mat1", "mat2"), "addbmm": ("batch1", "batch2"), "baddbmm": ("batch1", "batch2"),
             "addmv": ("mat", "vec"), "addr": ("vec1", "vec2")}
_OUT_DTYPE_FORMS = ("addmm", "baddbmm")  # a second signature (out_dtype): PyTorch's "invalid combination" error


def _signatures(name, function):
    base = name[:-1] if name.endswith("_") else name
    if base in _PRODUCTS:
        return _product_signatures(name, base, function)
    scalar, tensors = _SIGNATURES[base]
    head, out = ("Tensor input, ", ", Tensor out = None") if function else ("", "")
    listed = ", ".join(f"Tensor {t}" for t in tensors)
    old = f"{name}({head}Number {scalar}, {listed}{', *' + out if function else ''})"
    return old, f"{name}({head}{listed}, *, Number {scalar} = 1{out})"


def warn_once(name, function, stacklevel=2):
    """PyTorch's deprecation warning for the scalar-first overload `name` (a Tensor method unless `function`), given
    once per process; stacklevel 2 names the frame that called the C++ overload (C++ frames are not Python's)."""
    if _warned:
        return
    _warned.append(name)
    old, new = _signatures(name, function)
    warnings.warn(f"This overload of {name} is deprecated:\n\t{old}\nConsider using one of the following "
                  f"signatures instead:\n\t{new}", UserWarning, stacklevel=stacklevel)


def _is_deprecated_call(args, count):
    """True for (Number, Tensor...) positionals: the scalar first, then the operation's tensors."""
    return (len(args) == count + 1 and isinstance(args[0], numbers.Number)
            and all(isinstance(a, Tensor) for a in args[1:]))


def _method(name, current):
    scalar, tensors = _SIGNATURES[name.rstrip("_")]

    count = len(tensors)

    def method(self, *args, **kwargs):
        # The length test first: the usual call has fewer positionals, and this wrapper sits on a hot path.
        if len(args) > count and _is_deprecated_call(args, count) and scalar not in kwargs:
            warn_once(name, function=False, stacklevel=3)
            return current(self, *args[1:], **{scalar: args[0]}, **kwargs)
        return current(self, *args, **kwargs)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = current.__doc__
    return method


def _function(name, current):
    scalar, tensors = _SIGNATURES[name]

    count = len(tensors)

    def function(input, *args, **kwargs):
        if len(args) > count and _is_deprecated_call(args, count) and scalar not in kwargs:
            warn_once(name, function=True, stacklevel=3)
            return current(input, *args[1:], **{scalar: args[0]}, **kwargs)
        return current(input, *args, **kwargs)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = current.__doc__
    return function


def _product_signatures(name, base, function):
    first, second = _PRODUCTS[base]
    head, out = ("Tensor input, ", ", *, Tensor out = None") if function else ("", "")
    old = f"{name}(Number beta, {head}Number alpha, Tensor {first}, Tensor {second}{out})"
    return old, f"{name}({head}Tensor {first}, Tensor {second}, *, Number beta = 1, Number alpha = 1" + \
        (", Tensor out = None)" if function else ")")


def _numbers_then_tensors(args, numbers_at):
    return all(isinstance(a, numbers.Number) if i in numbers_at else isinstance(a, Tensor) for i, a in enumerate(args))


def _product_function(name, current):
    def function(*args, **kwargs):
        if len(args) > 3 and isinstance(args[0], numbers.Number) and "beta" not in kwargs:
            if len(args) == 5 and _numbers_then_tensors(args, (0, 2)) and "alpha" not in kwargs:
                warn_once(name, function=True, stacklevel=3)  # (beta, input, alpha, t1, t2)
                return current(args[1], args[3], args[4], beta=args[0], alpha=args[2], **kwargs)
            if len(args) == 4 and _numbers_then_tensors(args, (0,)):
                warn_once(name, function=True, stacklevel=3)  # (beta, input, t1, t2)
                return current(args[1], args[2], args[3], beta=args[0], **kwargs)
        if len(args) > 3 and name in _OUT_DTYPE_FORMS:
            kind = lambda a: "Tensor" if type(a) is Tensor else type(a).__name__  # noqa: E731
            got = ", ".join([kind(a) for a in args] + [f"{k}={kind(v)}" for k, v in kwargs.items()])
            first, second = _PRODUCTS[name]
            raise TypeError(f"{name}() received an invalid combination of arguments - got ({got}), but expected one "
                            f"of:\n * (Tensor input, Tensor {first}, Tensor {second}, *, Number beta = 1, Number "
                            f"alpha = 1, Tensor out = None)\n * (Tensor input, Tensor {first}, Tensor {second}, "
                            f"torch.dtype out_dtype, *, Number beta = 1, Number alpha = 1, Tensor out = None)\n")
        if len(args) > 3:  # PyTorch's parser counts positionals only
            raise TypeError(f"{name}() takes 3 positional arguments but {len(args)} were given")
        return current(*args, **kwargs)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = current.__doc__
    return function


def _product_method(name, current):
    def method(self, *args, **kwargs):
        if len(args) > 2 and isinstance(args[0], numbers.Number) and "beta" not in kwargs:
            if len(args) == 4 and _numbers_then_tensors(args, (0, 1)) and "alpha" not in kwargs:
                warn_once(name, function=False, stacklevel=3)  # (beta, alpha, t1, t2)
                return current(self, args[2], args[3], beta=args[0], alpha=args[1], **kwargs)
            if len(args) == 3 and _numbers_then_tensors(args, (0,)):
                warn_once(name, function=False, stacklevel=3)  # (beta, t1, t2)
                return current(self, args[1], args[2], beta=args[0], **kwargs)
        if len(args) > 2:
            raise TypeError(f"{name}() takes 2 positional arguments but {len(args)} were given")
        return current(self, *args, **kwargs)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = current.__doc__
    return method


def install(namespace):
    """Wraps tandem.addcmul/addcdiv, the beta/alpha products and their Tensor methods (in-place forms included)
    once."""
    if getattr(Tensor.addcmul, "__module__", None) == __name__:
        return
    for name in _WRAPPED:
        namespace[name] = _function(name, namespace[name])
        for method_name in (name, name + "_"):
            wrapped = _method(method_name, getattr(Tensor, method_name))
            wrapped.__module__ = __name__
            setattr(Tensor, method_name, wrapped)
    for name in _PRODUCTS:
        namespace[name] = _product_function(name, namespace[name])
        for method_name in (name, name + "_"):
            wrapped = _product_method(method_name, getattr(Tensor, method_name))
            wrapped.__module__ = __name__
            setattr(Tensor, method_name, wrapped)
