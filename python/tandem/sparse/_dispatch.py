"""What a public function or Tensor method does with a sparse operand (_SparseBase.__torch_function__).

A sparse tensor is a tandem.Tensor over a placeholder C++ tensor (_base.py), so no function may read it as data.
Every public function, Tensor method and operator hands a call with a sparse argument here, and one of three
things happens:
- the function was written for sparse operands (tandem.mm, matmul, addmm, spmm, mv, ...): its body runs as it
  ran before sparse tensors were Tensors;
- tandem.cat / concat / concatenate / stack / zeros_like / empty_like: _join.py's sparse forms run;
- the layout has a method of that name (tandem.abs(s) is s.abs(), tandem.sum(s, 0) is s.sum(0),
  tandem.add(dense, s) is s.__radd__(dense)): the method runs;
- anything else raises PyTorch's NotImplementedError "Could not run 'aten::<op>' with arguments from the
  'SparseCPU' backend." with tandem's hint (what PyTorch says for an op without a sparse kernel)."""
from .. import _C, _dispatch_forms
from . import _join
from ._base import _SparseBase, is_dense

Tensor = _C.Tensor

# tandem.<name> whose Python bodies take sparse operands themselves (sparse/__init__.py's install() wraps them).
_SPARSE_AWARE_NAMES = ("mm", "spmm", "matmul", "addmm", "mv", "is_tensor", "sparse_coo_tensor", "sparse_csr_tensor",
                       "sparse_csc_tensor", "smm", "hspmm")
_sparse_aware = set()  # filled on first use: the public objects (builtin_function wrappers) of those names

# func(dense, sparse) with no keywords as the sparse operand's reflected method: dense + s, tandem.add(dense, s),
# dense.mul(s), ... (PyTorch computes them; tandem's layouts define the reflected forms).
_REFLECTED = {"add": "__radd__", "__add__": "__radd__", "__radd__": "__add__", "sub": "__rsub__",
              "__sub__": "__rsub__", "subtract": "__rsub__", "mul": "__rmul__", "__mul__": "__rmul__",
              "multiply": "__rmul__", "__rmul__": "__mul__", "__matmul__": "__rmatmul__", "bmm": "_rbmm"}


def _aware():
    if not _sparse_aware:
        import tandem  # noqa: PLC0415  (this module is imported while tandem is being built)

        _sparse_aware.update(getattr(tandem, name) for name in _SPARSE_AWARE_NAMES if hasattr(tandem, name))
        _sparse_aware.add(tandem.nn.functional.linear)  # a sparse input goes through tandem.addmm / matmul
        _sparse_aware.add(Tensor.sparse_mask)  # dense.sparse_mask(sparse mask): written for sparse masks
    return _sparse_aware


def _first_sparse(args, kwargs):
    """The first sparse tensor among the arguments (one level into lists and tuples, where cat's tensors are)."""
    for arg in (*args, *kwargs.values()):
        if isinstance(arg, _SparseBase):
            return arg
        if isinstance(arg, (list, tuple)):
            for item in arg:
                if isinstance(item, _SparseBase):
                    return item
    return None


def _own_method(kind, name):
    """The layout's own method called name (defined by tandem.sparse, not inherited from Tensor), or None."""
    for klass in kind.__mro__:
        if klass is Tensor:
            return None
        if name in vars(klass):
            return getattr(kind, name)
    return None


# dense.add(s, alpha=...), tandem.sub(dense, s, alpha=...), dense.add_(s), ...: dense results (_dense_with_sparse)
_DENSE_WITH_SPARSE = {"add": 1, "sub": -1, "subtract": -1, "add_": 1, "sub_": -1, "subtract_": -1}


def _as_method(func, args, kwargs):
    """The call as a method of its sparse operand, or None: tandem.abs(s) -> s.abs(); tandem.add(dense, s) ->
    s.__radd__(dense)."""
    name = getattr(func, "__name__", None)
    if name is None:
        return None
    if name in _DENSE_WITH_SPARSE and len(args) == 2 and is_dense(args[0]) and isinstance(args[1], _SparseBase) \
            and set(kwargs) <= {"alpha"} and (kwargs or name.endswith("_")):
        return lambda: _dense_with_sparse(name, args[0], args[1], kwargs.get("alpha", 1))
    if args and isinstance(args[0], _SparseBase):
        self, rest = args[0], args[1:]
    elif not args and isinstance(kwargs.get("input"), _SparseBase):
        kwargs = dict(kwargs)
        self, rest = kwargs.pop("input"), ()
    elif len(args) == 2 and not kwargs and isinstance(args[1], _SparseBase) and name in _REFLECTED:
        method = _own_method(type(args[1]), _REFLECTED[name])
        return None if method is None else (lambda: method(args[1], args[0]))
    else:
        return None
    method = _own_method(type(self), name)
    return None if method is None else (lambda: method(self, *rest, **kwargs))


def torch_function(cls, func, types, args, kwargs):
    if not all(kind is Tensor or issubclass(kind, _SparseBase) for kind in types):
        return NotImplemented  # another type's __torch_function__ may know this call (a stand-in, a subclass)
    kwargs = _dispatch_forms.without_defaults(func, kwargs)  # torch.norm(s) as written, not with out=None, ...
    if func in _aware():
        # The body itself, past the dispatching wrapper (calling func again would come back here); the dense ops
        # it runs on the parts still dispatch, so a sparse tensor that reached one would be refused, not read.
        return func.__wrapped__(*args, **kwargs)
    joined = _join.FUNCTIONS.get(getattr(func, "__name__", None))
    if joined is not None and _is_public(func):
        return joined(*args, **kwargs)
    call = _as_method(func, args, kwargs)
    if call is not None:
        return call()
    sparse = _first_sparse(args, kwargs)
    raise sparse._refuse(_aten_name(func))


def _is_public(func):
    """func is tandem.<its name> (tandem.cat, not some other function of that name)."""
    import tandem  # noqa: PLC0415  (this module is imported while tandem is being built)

    return getattr(tandem, func.__name__, None) is func


def _aten_name(func):
    """PyTorch's operator name in its refusal: Tensor.add for x + y, exp for tandem.exp and Tensor.exp."""
    name = getattr(func, "__name__", str(func))
    return name.strip("_") if name.startswith("__") and name.endswith("__") else name


def _dense_with_sparse(name, dense, sparse, alpha):
    """dense + alpha * sparse (sub: minus), a new dense tensor or, for add_/sub_, written into dense: PyTorch's
    dense-sparse addition, no broadcasting, its errors naming add. A CSR operand takes add only, as in PyTorch."""
    from .._dtype_functions import can_cast  # noqa: PLC0415  (imported while tandem is being built)
    from . import _csr, _math  # noqa: PLC0415  (they import this module's neighbours)

    csr = isinstance(sparse, _csr.SparseCsrTensor)
    if csr and _DENSE_WITH_SPARSE[name] < 0:
        raise RuntimeError("unsupported tensor layout: SparseCsr")
    scale = alpha * _DENSE_WITH_SPARSE[name]
    add = _csr.add_to_dense if csr else _math.add_to_dense
    if not name.endswith("_"):
        return add(dense, sparse, scale)
    result_type = _C.promote_types(dense.dtype, sparse.dtype)
    if not can_cast(result_type, dense.dtype):
        raise RuntimeError(f"Can't convert result type {result_type._scalar_type_name} to output "
                           f"{dense.dtype._scalar_type_name} in add operation")
    rows_only = (not csr and list(dense.shape) == list(sparse._size) and dense.dtype == sparse.dtype
                 and dense.is_contiguous()
                 and not (_C.is_grad_enabled() and (dense.requires_grad or sparse._vals.requires_grad)))
    if rows_only:
        # Only the entries' rows are read and written (an optimizer step over an embedding's sparse gradient).
        sizes = list(sparse._size[:sparse.sparse_dim()])
        values = sparse._vals * scale if scale != 1 else sparse._vals
        dense.view([-1] + list(values.shape[1:])).index_add_(0, _math.linear_index(sparse._idx, sizes), values)
        return dense
    return dense.copy_(add(dense, sparse, scale))
