"""tandem's public functions behave as PyTorch's, which are C functions: stored as a class attribute (`class Block:
conv = torch.conv3d`), such a function is not bound as a method, so `self.conv(x, w)` passes no `self` (kornia
relies on it); and they dispatch to __torch_function__ (tandem.overrides). Each public function of tandem,
tandem.linalg, tandem.special, tandem.fft and tandem.nn.functional, written in Python or bound from C++, is
replaced by a `_C.builtin_function` around it (python/src/builtin_function.cpp): called through vectorcall, pickled by reference
to its public name, printed as a built-in, the function kept as __wrapped__. Tensor's methods are replaced by
`_C.tensor_method` descriptors that dispatch the same way (python/src/torch_function.cpp)."""
import inspect
import sys
import types

from . import _C, _dispatch_forms, _parser_errors, overrides


_WRAPPED = ("tandem", "tandem.linalg", "tandem.special", "tandem.fft")
# Modules whose functions are tandem's own under their names without being PyTorch's Python functions: the Array
# API namespace (its own namespace), and torch.functional, whose stft/istft/... are torch's C functions (they
# get the wrappers in install).
_NOT_SHARING = ("tandem.array_api", "tandem.functional")


def _shared_with_public_modules():
    """The functions another public module of tandem exposes too (tandem.vmap is tandem.func.vmap, tandem.manual_seed
    is tandem.random.manual_seed): PyTorch writes those in Python as well, and they keep their identity."""
    shared = set()
    for name, module in list(sys.modules.items()):
        if name.startswith("tandem.") and name not in _WRAPPED and module is not None and \
                not name.startswith(_NOT_SHARING) and not any(part.startswith("_") for part in name.split(".")):
            names = vars(module)
            public = names.get("__all__")  # without one, the functions it defines (not those it imports)
            shared.update(id(fn) for attr, fn in names.items() if type(fn) is types.FunctionType and
                          (attr in public if isinstance(public, (list, tuple)) else fn.__module__ == name))
    return shared


# Functions that take no part in __torch_function__ dispatch (PyTorch's do not either): settings and queries of
# the library's state.
_NOT_DISPATCHED = frozenset({
    "is_tensor", "is_storage", "typename", "from_numpy", "frombuffer", "from_file", "from_dlpack", "manual_seed",
    "seed", "initial_seed", "save", "load",
    "compile", "cond", "while_loop", "broadcast_shapes", "is_grad_enabled", "is_inference_mode_enabled",
    "is_anomaly_enabled", "is_anomaly_check_nan_enabled", "is_warn_always_enabled", "is_autocast_enabled",
    "is_autocast_cpu_enabled", "is_autocast_cache_enabled", "is_deterministic_algorithms_warn_only_enabled",
    "is_vulkan_available", "is_distributed", "has_lapack", "has_mkl", "has_openmp", "has_spectral",
    "init_num_threads", "clear_autocast_cache", "autocast_increment_nesting", "autocast_decrement_nesting",
    "is_checkpoint_valid",
})
_SETTINGS_PREFIXES = ("set_", "get_", "are_", "use_")
# Tensor methods that do not dispatch: object protocol and construction (PyTorch leaves out __hash__, __iter__,
# __dir__, as_subclass, _make_subclass too).
_METHODS_NOT_DISPATCHED = frozenset({
    "__new__", "__init__", "__init_subclass__", "__subclasshook__", "__class_getitem__", "__torch_function__",
    "__getattribute__", "__setattr__", "__delattr__", "__sizeof__", "__reduce__", "__getstate__", "__setstate__",
    "__hash__", "__iter__", "__dir__", "__del__", "as_subclass", "_make_subclass",
})
# Operators whose TypeError under __torch_function__ becomes NotImplemented (Python then tries the other operand).
_BINARY_OPERATORS = frozenset(
    f"__{prefix}{name}__" for name in ("add", "sub", "mul", "matmul", "truediv", "floordiv", "div", "mod", "pow",
                                       "and", "or", "xor", "lshift", "rshift") for prefix in ("", "r", "i")) | {
    "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"}


# Conversions whose argument is data rather than a tensor operand: a mode sees them (PyTorch's does), an
# argument's __torch_function__ is not asked.
_MODES_ONLY = frozenset({"tensor", "as_tensor", "asarray"})


# Functions that dispatch like any other (a mode sees them, a stand-in argument gets them) but that PyTorch's
# get_ignored_functions() lists rather than get_overridable_functions(): the factories, the dtype queries and a few
# methods. The listings follow PyTorch's, so get_testing_overrides() has no entry for them either.
_LISTED_AS_IGNORED = frozenset({
    "zeros", "ones", "empty", "full", "arange", "range", "linspace", "logspace", "eye", "rand", "randn", "randint",
    "randperm", "tensor", "as_tensor", "asarray", "empty_strided", "empty_permuted", "scalar_tensor",
    "sparse_coo_tensor", "sparse_csr_tensor", "tril_indices", "triu_indices", "bartlett_window", "blackman_window",
    "hamming_window", "hann_window", "kaiser_window", "normal", "vander", "rand_like", "randn_like", "randint_like",
    "can_cast", "promote_types", "result_type", "as_strided", "fill"})
_METHODS_LISTED_AS_IGNORED = frozenset({
    "new", "new_empty", "new_empty_strided", "new_full", "new_ones", "new_tensor", "new_zeros", "stride", "cholesky",
    "to_sparse_coo", "to_sparse_csr", "unflatten", "_use_count"})


def _dispatches(name):
    """How tandem.<name> takes part in dispatch: True (arguments and modes), "modes" or False."""
    if name in _MODES_ONLY:
        return "modes"
    return name not in _NOT_DISPATCHED and not name.startswith(_SETTINGS_PREFIXES)


def _is_cpp_function(fn):
    return type(fn).__module__ == "nanobind" and type(fn).__name__ == "nb_func"


def _wrap_namespace(namespace, module_name, shared, wrappers):
    for attr, fn in list(namespace.items()):
        ours = isinstance(fn, types.FunctionType) and (fn.__module__ or "").startswith("tandem")
        if attr.startswith("_") or not (ours or _is_cpp_function(fn)):
            continue
        if id(fn) in shared or (not ours and not _dispatches(attr)):
            if not _dispatches(attr):  # kept as it is (a C++ function that does not dispatch stays nanobind's)
                overrides._ignored.add(fn)
            continue
        if id(fn) in _functional_wrappers and attr in _FUNCTIONAL_BUILTINS:  # tandem.conv2d is F.conv2d
            namespace[attr] = wrappers[id(fn)] = _functional_wrappers[id(fn)]
            continue
        namespace[attr] = wrappers[id(fn)] = _C._builtin_function(fn, attr, module_name,
                                                                  dispatches=_dispatches(attr))
        if _dispatches(attr) and not (module_name == "tandem" and attr in _LISTED_AS_IGNORED):
            overrides._overridable.setdefault(sys.modules[module_name], []).append(namespace[attr])
        else:
            overrides._ignored.add(namespace[attr])


# The method PyTorch hands __torch_function__ for an operator (x + y arrives as Tensor.add, x += y as add_); the
# operators not named keep their own name (__floordiv__, __rsub__, ...).
_OPERATOR_METHODS = {
    "__add__": "add", "__radd__": "add", "__iadd__": "add_", "__sub__": "sub", "__isub__": "sub_",
    "__mul__": "mul", "__rmul__": "mul", "__imul__": "mul_", "__truediv__": "div", "__div__": "div",
    "__rtruediv__": "__rdiv__", "__itruediv__": "div_", "__idiv__": "div_", "__ifloordiv__": "floor_divide_",
    "__mod__": "remainder", "__imod__": "remainder_", "__pow__": "pow", "__ipow__": "pow_", "__matmul__": "matmul",
    "__rand__": "bitwise_and", "__ror__": "bitwise_or", "__rxor__": "bitwise_xor", "__eq__": "eq", "__ne__": "ne",
    "__lt__": "lt", "__le__": "le", "__gt__": "gt", "__ge__": "ge", "__neg__": "neg", "__abs__": "abs",
    "__pos__": "positive",
}
# PyTorch's Python 2 spellings of division, which its Tensor still has.
_DIVISION_ALIASES = {"__div__": "__truediv__", "__rdiv__": "__rtruediv__", "__idiv__": "__itruediv__"}


def _wrap_tensor_methods():
    tensor = _C.Tensor
    for alias, name in _DIVISION_ALIASES.items():
        if alias not in vars(tensor):
            setattr(tensor, alias, vars(tensor)[name])
    methods = {}
    for attr, fn in list(vars(tensor).items()):
        if not (isinstance(fn, types.FunctionType) or type(fn).__name__ == "nb_method"):
            continue  # properties, static and class methods, attributes
        if attr in _METHODS_NOT_DISPATCHED:
            overrides._ignored.add(fn)
            continue
        methods[attr] = fn
    wrapped = {}
    for attr in sorted(methods, key=lambda a: a in _OPERATOR_METHODS):  # the named methods first
        public_api = wrapped.get(_OPERATOR_METHODS.get(attr))
        method = wrapped[attr] = _C._tensor_method(methods[attr], attr, attr in _BINARY_OPERATORS, public_api)
        if getattr(methods[attr], "__doc__", None):
            method.__doc__ = methods[attr].__doc__
        setattr(tensor, attr, method)
        if attr in _METHODS_LISTED_AS_IGNORED:
            overrides._ignored.add(method)
        else:
            overrides._overridable.setdefault(tensor, []).append(method)
    overrides._NOWRAP.update(wrapped[name] for name in ("__reduce_ex__", "__copy__") if name in wrapped)
    overrides._TENSOR_SETITEM = wrapped.get("__setitem__")
    tensor.__torch_function__ = classmethod(overrides._tensor_torch_function)
    overrides._ignored.add(tensor.__torch_function__)
    _install_subclass_properties(tensor)


# Properties whose value is a tensor (a view of self): on a subclass with __torch_function__ they dispatch, as
# PyTorch's do, so the default handler returns the subclass (Sub.T is a Sub) and a custom one sees the access
# (func == Tensor.T.__get__). Each Python subclass of Tensor gets dispatching versions when it is defined
# (__init_subclass__), so a plain tensor keeps reading them in C++ (a Python property cost `x.T` 70 ns more). The
# other properties (shape, dtype, device, grad, data, ...) do not dispatch: they are on every hot path.
_DISPATCHING_PROPERTIES = ("T", "mT", "H", "mH", "real", "imag")


def _install_subclass_properties(tensor):
    originals = {attr: vars(tensor)[attr] for attr in _DISPATCHING_PROPERTIES}

    def dispatching(attr):
        original = originals[attr]
        read = original.fget

        def get(self):
            if _C._has_torch_function_unary(self):
                return overrides.handle_torch_function(original.__get__, (self,), self)
            return read(self)

        return property(get, original.fset, original.fdel, original.__doc__)

    def init_subclass(cls, **kwargs):
        super(tensor, cls).__init_subclass__(**kwargs)
        for attr in _DISPATCHING_PROPERTIES:
            if inspect.getattr_static(cls, attr) is originals[attr]:  # not one of the subclass's own
                setattr(cls, attr, dispatching(attr))

    tensor.__init_subclass__ = classmethod(init_subclass)


# tandem.nn.functional's functions that are builtins in PyTorch (torch.conv2d under another name, ...): those are not
# bound as methods when stored on a class; the others are Python functions there, and are.
_FUNCTIONAL_BUILTINS = frozenset({
    "adaptive_avg_pool1d", "avg_pool1d", "avg_pool2d", "avg_pool3d", "bilinear", "celu_", "channel_shuffle",
    "conv1d", "conv2d", "conv3d", "conv_tbc", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
    "cosine_similarity", "elu_", "gelu", "hardshrink", "hardtanh_", "leaky_relu_", "linear", "logsigmoid",
    "native_channel_shuffle", "one_hot", "pairwise_distance", "pdist", "pixel_shuffle", "pixel_unshuffle", "prelu",
    "relu_", "rrelu_", "scaled_dot_product_attention", "selu_", "softplus", "softshrink", "threshold_",
})


def wrap_functional(namespace):
    """tandem.nn.functional's functions dispatch to __torch_function__ as a whole (F.linear(subclass, w) is handed
    to the subclass as F.linear, PyTorch's order), keeping how each binds when stored on a class. Called at the
    end of tandem/nn/functional.py, so that what other modules take from it (`activation=F.relu` defaults,
    compared with `is`) is the wrapper; tandem.X that is the same function gets the same wrapper in install()."""
    for attr, fn in list(namespace.items()):
        if attr.startswith("_") or not isinstance(fn, types.FunctionType) or \
                not fn.__module__.startswith(("tandem.nn.functional", "tandem.nn._functional")):
            continue
        namespace[attr] = _functional_wrappers[id(fn)] = _C._builtin_function(
            fn, attr, "tandem.nn.functional", dispatches=True, binds=attr not in _FUNCTIONAL_BUILTINS)
        overrides._overridable.setdefault(namespace["__name__"], []).append(namespace[attr])


_functional_wrappers = {}  # id(function) -> its tandem.nn.functional wrapper


def install(namespace):
    shared, wrappers = _shared_with_public_modules(), {}
    _wrap_namespace(namespace, "tandem", shared, wrappers)
    for name in _WRAPPED[1:]:
        _wrap_namespace(vars(sys.modules[name]), name, shared, wrappers)
    # torch.functional.istft is torch.istft, torch.nn.functional.conv_tbc torch.conv_tbc: the same wrapper
    for module in ("tandem.functional", "tandem.nn.functional"):
        functional = vars(sys.modules[module])
        for attr, fn in list(functional.items()):
            if id(fn) in wrappers:
                functional[attr] = wrappers[id(fn)]
    functional_module = sys.modules["tandem.nn.functional"]  # the module, not its name, keys the overridable map
    overrides._overridable[functional_module] = overrides._overridable.pop("tandem.nn.functional", [])
    _dispatch_forms.install(namespace)
    _wrap_tensor_methods()
    _C._set_torch_function_hooks(overrides._dispatch, overrides._disabled_torch_function_impl)
    _C._set_refused_call_hook(_parser_errors.message)
