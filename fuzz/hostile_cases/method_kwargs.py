"""Keywords on Tensor methods and torch functions: PyTorch's aliases (axis for dim, keepdims for keepdim, other
for the second operand, input= by name), misspelled and unexpected keywords (their TypeError messages), keywords
given twice (positional and by name), keyword-only arguments given positionally, and size arguments given as
keywords (view(size=), reshape(shape=), permute(dims=), repeat(repeats=))."""
from . import R


def x(L, d, shape=(2, 3), dtype="float32"):
    return R(L, shape, d, dtype)


CASES = {
    # ---- aliases PyTorch accepts
    "sum/axis": lambda L, d: x(L, d).sum(axis=1),
    "sum/keepdims": lambda L, d: x(L, d).sum(1, keepdims=True),
    "sum/axis_keepdims": lambda L, d: x(L, d).sum(axis=0, keepdims=True),
    "mean/axis": lambda L, d: x(L, d).mean(axis=0),
    "amax/axis": lambda L, d: x(L, d).amax(axis=1),
    "max/dim_keepdim_kw": lambda L, d: tuple(x(L, d).max(dim=1, keepdim=True)),
    "max/axis": lambda L, d: tuple(x(L, d).max(axis=1)),
    "argmax/axis": lambda L, d: x(L, d).argmax(axis=0),
    "std/axis": lambda L, d: x(L, d).std(axis=1),
    "cumsum/axis": lambda L, d: x(L, d).cumsum(axis=1),
    "squeeze/axis": lambda L, d: x(L, d, (2, 1, 3)).squeeze(axis=1),
    "unsqueeze/dim_kw": lambda L, d: x(L, d).unsqueeze(dim=0),
    "unsqueeze/axis": lambda L, d: x(L, d).unsqueeze(axis=0),
    "transpose/dim_kws": lambda L, d: x(L, d).transpose(dim0=0, dim1=1),
    "transpose/axis_kws": lambda L, d: x(L, d).transpose(axis0=0, axis1=1),
    "swapaxes/kws": lambda L, d: x(L, d).swapaxes(axis0=0, axis1=1),
    "flip/dims_kw": lambda L, d: x(L, d).flip(dims=(0,)),
    "roll/kws": lambda L, d: x(L, d).roll(shifts=1, dims=1),
    "cat/axis": lambda L, d: L.cat([x(L, d), x(L, d)], axis=1),
    "cat/tensors_kw": lambda L, d: L.cat(tensors=[x(L, d), x(L, d)], dim=0),
    "stack/axis": lambda L, d: L.stack([x(L, d), x(L, d)], axis=0),
    "concat/axis": lambda L, d: L.concat([x(L, d), x(L, d)], axis=1),
    "add/other_kw": lambda L, d: x(L, d).add(other=x(L, d)),
    "add/input_kw": lambda L, d: L.add(input=x(L, d), other=2.0),
    "add/alpha_positional": lambda L, d: x(L, d).add(x(L, d), 2),
    "clamp/min_max_kw": lambda L, d: x(L, d).clamp(min=-1, max=1),
    "topk/kws": lambda L, d: tuple(x(L, d).topk(k=2, dim=1, largest=False)),
    "sort/kws": lambda L, d: tuple(x(L, d).sort(dim=0, descending=True)),
    "gather/kws": lambda L, d: x(L, d).gather(dim=1, index=L.zeros(2, 1, dtype=L.int64, device=d)),
    "norm/kws": lambda L, d: x(L, d).norm(p=1, dim=1, keepdim=True),
    "where/condition_kw": lambda L, d: L.where(condition=x(L, d) > 0, input=x(L, d), other=0.0),
    "pow/exponent_kw": lambda L, d: x(L, d).pow(exponent=2),
    "view/size_kw": lambda L, d: x(L, d).view(size=(3, 2)),
    "reshape/shape_kw": lambda L, d: x(L, d).reshape(shape=(3, 2)),
    "permute/dims_kw": lambda L, d: x(L, d).permute(dims=(1, 0)),
    "repeat/repeats_kw": lambda L, d: x(L, d).repeat(repeats=(2, 1)),
    "expand/size_kw": lambda L, d: x(L, d, (1, 3)).expand(size=(2, 3)),
    "new_zeros/size_kw": lambda L, d: x(L, d).new_zeros(size=(2,)),
    "split/kws": lambda L, d: x(L, d).split(split_size=1, dim=0),
    "chunk/kws": lambda L, d: x(L, d).chunk(chunks=2, dim=1),
    "to/dtype_kw": lambda L, d: x(L, d).to(dtype=L.float64),
    "softmax/dim_kw": lambda L, d: x(L, d).softmax(dim=1),
    "flatten/kws": lambda L, d: x(L, d, (2, 3, 2)).flatten(start_dim=1, end_dim=2),
    "var/correction_kw": lambda L, d: x(L, d).var(1, correction=0),
    "all/axis": lambda L, d: (x(L, d) > 0).all(axis=1),
    "any/dim_tuple": lambda L, d: (x(L, d) > 0).any(dim=(0, 1)),
    # ---- misspelled, unexpected and repeated keywords
    "sum/keep_dim": lambda L, d: x(L, d).sum(1, keep_dim=True),
    "sum/dims": lambda L, d: x(L, d).sum(dims=1),
    "sum/unknown": lambda L, d: x(L, d).sum(foo=1),
    "mean/keepdim_and_keepdims": lambda L, d: x(L, d).mean(1, keepdim=True, keepdims=True),
    "sum/dim_and_axis": lambda L, d: x(L, d).sum(dim=0, axis=1),
    "sum/dim_twice": lambda L, d: x(L, d).sum(0, dim=1),
    "add/unknown": lambda L, d: x(L, d).add(x(L, d), beta=2),
    "add/other_twice": lambda L, d: x(L, d).add(x(L, d), other=x(L, d)),
    "mul/unknown": lambda L, d: L.mul(x(L, d), 2, alpha=3),
    "view/unknown": lambda L, d: x(L, d).view(shape=(3, 2)),
    "reshape/size_kw": lambda L, d: x(L, d).reshape(size=(3, 2)),
    "permute/axes": lambda L, d: x(L, d).permute(axes=(1, 0)),
    "transpose/dim_kw": lambda L, d: x(L, d).transpose(dim=0),
    "max/keepdim_without_dim": lambda L, d: x(L, d).max(keepdim=True),
    "clamp/minimum": lambda L, d: x(L, d).clamp(minimum=0),
    "cat/dims": lambda L, d: L.cat([x(L, d)], dims=0),
    "zeros/unknown": lambda L, d: L.zeros(2, dtyp=L.float32),
    "ones/size_kw_and_positional": lambda L, d: L.ones(2, size=(3,)),
    "tensor/unknown": lambda L, d: L.tensor([1.0], dtpye=L.float32),
    "arange/unknown": lambda L, d: L.arange(3, steps=1),
    "full/fill_kw": lambda L, d: L.full(size=(2,), fill_value=3.0, device=d),
    "full/value_kw": lambda L, d: L.full((2,), value=3.0),
    "linspace/num_kw": lambda L, d: L.linspace(0, 1, num=3),
    "to/unknown": lambda L, d: x(L, d).to(dtpe=L.float64),
    "softmax/axis": lambda L, d: x(L, d).softmax(axis=1),
    "item/argument": lambda L, d: x(L, d, (1,)).item(0),
    "numel/argument": lambda L, d: x(L, d).numel(0),
    "size/dim_kw": lambda L, d: x(L, d).size(dim=1),
    "size/axis_kw": lambda L, d: x(L, d).size(axis=1),
    "dim/argument": lambda L, d: x(L, d).dim(1),
    "backward/unknown": lambda L, d: x(L, d).requires_grad_().sum().backward(retain=True),
    "requires_grad_/kw": lambda L, d: x(L, d).requires_grad_(requires_grad=True).requires_grad,
    "requires_grad_/unknown": lambda L, d: x(L, d).requires_grad_(grad=True),
    # ---- keyword-only and positional-only misuse
    "sum/dtype_positional": lambda L, d: x(L, d).sum(1, False, L.float64),
    "sum/dtype_kw": lambda L, d: x(L, d).sum(1, dtype=L.float64),
    "std/unbiased_and_correction": lambda L, d: x(L, d).std(1, unbiased=True, correction=0),
    "var/correction_positional": lambda L, d: x(L, d).var(1, 0),
    "sort/stable_positional": lambda L, d: x(L, d).sort(0, False, True),
    "sort/stable_kw": lambda L, d: tuple(x(L, d).sort(stable=True, dim=0)),
    "argsort/stable_kw": lambda L, d: x(L, d).argsort(stable=True),
    "nn.functional.softmax/dim_kw": lambda L, d: L.nn.functional.softmax(x(L, d), dim=0),
    "nn.functional.softmax/axis": lambda L, d: L.nn.functional.softmax(x(L, d), axis=0),
    "nn.functional.relu/inplace_positional": lambda L, d: L.nn.functional.relu(x(L, d), False),
    "nn.functional.linear/unknown": lambda L, d: L.nn.functional.linear(x(L, d), x(L, d), bais=None),
}

_BINDING = ("needs C++ fix: a call no overload of the binding takes raises nanobind's TypeError 'incompatible "
            "function arguments' with its overload list, where PyTorch's argument parser names the unexpected "
            "keyword, the repeated argument or the positional count; the exception type matches")
KNOWN = {name: _BINDING for name in (
    "add/alpha_positional", "add/other_twice", "add/unknown", "arange/unknown", "backward/unknown", "cat/dims",
    "clamp/minimum", "dim/argument", "full/value_kw", "item/argument", "linspace/num_kw", "mul/unknown",
    "numel/argument", "permute/axes", "requires_grad_/unknown", "sort/stable_positional", "sum/dim_twice",
    "sum/dims", "sum/dtype_positional", "sum/keep_dim", "sum/unknown", "transpose/axis_kws", "transpose/dim_kw",
    "view/unknown", "zeros/unknown")}
KNOWN.update({
    "reshape/size_kw": "needs C++ fix: the binding's message names the unexpected 'size'; PyTorch's says the "
                       "required 'shape' is missing (the type matches)",
    "std/unbiased_and_correction": "needs C++ fix: the binding's parser-style message leaves out the positional "
                                   "dim ('got (correction=int, unbiased=bool, )' vs PyTorch's 'got (int, "
                                   "correction=int, unbiased=bool)')",
})
