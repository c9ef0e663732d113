"""einsum and tensordot: contractions as one matrix product per operand pair (permute, reshape, mm/bmm), so
they run at GEMM speed on every device and differentiate through the products. Re-exported by _compositions."""
import math

from . import _C
from ._autocast import active as _amp_active, run as _amp_run
from ._dim_args import _ints, _require_tensor_list, _tp_name, _wrap_dim
from ._out import TENSORDOT_DTYPE, TENSORDOT_GRAD, with_out

Tensor = _C.Tensor

def _matmul_over(a, a_free, a_sum, b, b_sum, b_free):
    """a * b summed over the paired dims a_sum / b_sum, as one matrix product; result dims a_free + b_free."""
    free_a, free_b = [a.shape[d] for d in a_free], [b.shape[d] for d in b_free]
    k = math.prod(a.shape[d] for d in a_sum)
    a2 = a.permute(a_free + a_sum).reshape(math.prod(free_a), k)
    b2 = b.permute(b_sum + b_free).reshape(k, math.prod(free_b))
    return a2.mm(b2).reshape(free_a + free_b)


@with_out("tensordot", TENSORDOT_DTYPE, refuse_grad=False, grad_resize_error=TENSORDOT_GRAD)
def tensordot(a, b, dims=2):
    if _amp_active() and a.is_cuda and _C.is_autocast_enabled("cuda"):
        # PyTorch's CUDA autocast promotes tensordot's inputs and runs it unlowered; under CPU autocast it is
        # unlisted, so its inner product is lowered as mm is (no suspension here then)
        return _amp_run("cuda_promote", lambda x, y: tensordot(x, y, dims), a, b)
    if not isinstance(dims, (tuple, list, Tensor, int)):
        raise RuntimeError("tensordot expects dims to be int or tuple[list[int], list[int]] or list[list[int]] "
                           f"containing two lists, but got dims={dims}")
    if isinstance(dims, Tensor):  # a 2 x k tensor is the two lists; one element is the count, as an int
        dims = dims.tolist() if dims.numel() > 1 else int(dims.item())
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > a.dim() or dims > b.dim():
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        dims_a, dims_b = list(range(-dims, 0)), list(range(dims))
    else:
        dims_a, dims_b = dims
        for d, (name, position) in ((dims_a, ("dims_self", 3)), (dims_b, ("dims_other", 4))):
            if not isinstance(d, (list, tuple)):  # PyTorch passes the pair on to its op, which wants int lists
                raise TypeError(f"tensordot(): argument '{name}' (position {position}) must be tuple of ints, not "
                                f"{type(d).__name__}")
        dims_a, dims_b = (list(_ints(d, "tensordot(): argument 'dims'")) for d in (dims_a, dims_b))
        if len(dims_a) != len(dims_b):
            raise RuntimeError("both dimension lists should have same length")
    if a.dtype != b.dtype:
        raise RuntimeError("both inputs should have same dtype")
    for x, ds in ((a, dims_a), (b, dims_b)):
        seen = set()
        for d in ds:
            if _wrap_dim(d, x.dim()) in seen:
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
            seen.add(_wrap_dim(d, x.dim()))
    for da, db in zip(dims_a, dims_b):
        sa, sb = a.shape[da], b.shape[db]
        if sa != sb and sb == 1:  # a size-1 dim broadcasts: sum the other operand over it first
            a = a.sum(da, keepdim=True, dtype=a.dtype)
        elif sa != sb and sa == 1:
            b = b.sum(db, keepdim=True, dtype=b.dtype)
        elif sa != sb:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {sa} in dim {da} and "
                               f"second has size {sb} in dim {db}")
    a_sum, b_sum = [_wrap_dim(d, a.dim()) for d in dims_a], [_wrap_dim(d, b.dim()) for d in dims_b]
    a_free = [d for d in range(a.dim()) if d not in a_sum]
    b_free = [d for d in range(b.dim()) if d not in b_sum]
    return _matmul_over(a, a_free, a_sum, b, b_sum, b_free)


# einsum: labels are letters, and ints 0..k-1 for the dims an ellipsis covers (right-aligned across operands).
# A sublist's ints name letters in PyTorch's order: 0 -> 'A', 26 -> 'a'.


def _sublist_equation(args):
    """einsum(op0, sub0, op1, sub1, ..., [out]) -> ("equation", operands)."""
    def letters(sublist):
        out = []
        for s in sublist:
            if s is Ellipsis:
                out.append("...")
            elif s >= 0 and s < 52:  # in PyTorch's order, so that a float or a str fails as there (TypeError)
                out.append(chr(ord("A") + s) if s < 26 else chr(ord("a") + s - 26))
            else:
                raise ValueError("einsum(): subscript in subscript list is not within the valid range [0, 52)")
        return "".join(out)

    paired = len(args) - len(args) % 2
    equation = ",".join(letters(s) for s in args[1:paired:2])
    if len(args) % 2:
        equation += "->" + letters(args[-1])
    return equation, args[0:paired:2]


def _parse_subscripts(equation, start, stop, owner):
    """The labels of equation[start:stop] ('...' as Ellipsis) with PyTorch's errors; owner names the term."""
    labels, dots = [], 0
    for pos in range(start, stop):
        c = equation[pos]
        if c == " ":
            continue
        if c == ".":
            if Ellipsis in labels:
                raise RuntimeError(f"einsum(): found '.' for {owner} for which an ellipsis was already found"
                                   if owner != "output" else
                                   "einsum(): found '.' for output but an ellipsis (...) was already found")
            dots += 1
            if dots == 3:
                labels.append(Ellipsis)
                dots = 0
            continue
        if dots:
            break
        if not (c.isascii() and c.isalpha()):
            raise RuntimeError(f"einsum(): invalid subscript given at index {pos} in the equation string, "
                               "subscripts must be in [a-zA-Z]")
        labels.append(c)
    if dots:
        raise RuntimeError(f"einsum(): found '.' for {owner} that is not part of any ellipsis"
                           + (" (...)" if owner == "output" else ""))
    return labels


def _parse_equation(equation, operands):
    """Each operand's labels and the output's, with ellipses expanded to int labels."""
    arrow = equation.find("->")
    lhs_end = len(equation) if arrow < 0 else arrow
    bounds, start = [], 0
    for pos in range(lhs_end + 1):
        if pos == lhs_end or equation[pos] == ",":
            if len(bounds) == len(operands):
                raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
            bounds.append((start, pos))
            start = pos + 1
    if len(bounds) < len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    terms = [_parse_subscripts(equation, a, b, f"operand {k}") for k, (a, b) in enumerate(bounds)]
    covered = 0
    for k, (term, op) in enumerate(zip(terms, operands)):
        n = len(term) - (Ellipsis in term)
        if Ellipsis not in term and n != op.dim():
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({n}) does not match the number "
                               f"of dimensions ({op.dim()}) for operand {k} and no ellipsis was given")
        if n > op.dim():
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({n}) is more than the number "
                               f"of dimensions ({op.dim()}) for operand {k}")
        covered = max(covered, op.dim() - n)
    labels = []
    for term, op in zip(terms, operands):
        if Ellipsis in term:
            i, k = term.index(Ellipsis), op.dim() - len(term) + 1
            term = term[:i] + list(range(covered - k, covered)) + term[i + 1:]
        labels.append(term)
    letters = [c for term in labels for c in term if isinstance(c, str)]
    if arrow < 0:  # implicit output: the ellipsis, then the letters used once, sorted
        return labels, list(range(covered)) + sorted(c for c in set(letters) if letters.count(c) == 1)
    output = []
    for c in _parse_subscripts(equation, arrow + 2, len(equation), "output"):
        if c is Ellipsis:
            output += range(covered)
        elif c not in letters:
            raise RuntimeError(f"einsum(): output subscript {c} does not appear in the equation for any input operand")
        elif c in output:
            raise RuntimeError(f"einsum(): output subscript {c} appears more than once in the output")
        else:
            output.append(c)
    return labels, output


def _take_repeated(op, labels, k):
    """'ii' in one operand: its diagonal, appended as the last dim."""
    for pos, label in enumerate(labels):
        first = labels.index(label)
        if op.shape[pos] != op.shape[first]:
            raise RuntimeError(f"einsum(): subscript {label} is repeated for operand {k} but the sizes don't match, "
                               f"{op.shape[pos]} != {op.shape[first]}")
    for label in dict.fromkeys(labels):
        while labels.count(label) > 1:
            i = labels.index(label)
            j = labels.index(label, i + 1)
            op = op.diagonal(0, i, j)  # the Tensor method _compositions.install adds
            labels = [x for n, x in enumerate(labels) if n not in (i, j)] + [label]
    return op, labels


def _sum_except(op, labels, keep):
    dims = [i for i, label in enumerate(labels) if label not in keep]
    if not dims:
        return op, labels
    return op.sum(dims), [label for label in labels if label in keep]


def _drop_unit_labels(op, labels, drop):
    dims = [i for i, label in enumerate(labels) if label in drop]
    if not dims:
        return op, labels
    return op.squeeze(tuple(dims)), [label for label in labels if label not in drop]


def _product_pair(a, la, b, lb, batch, free_a, free_b):
    """a * b broadcast over batch + free_a + free_b: a pair with nothing to sum is an elementwise product, as in
    PyTorch, so it promotes mixed dtypes (a float64 operand times a float32 one) where a bmm would refuse them."""
    a = a.permute([la.index(x) for x in batch + free_a])
    b = b.permute([lb.index(x) for x in batch + free_b])
    a = a.reshape(list(a.shape) + [1] * len(free_b))
    b = b.reshape(list(b.shape[:len(batch)]) + [1] * len(free_a) + list(b.shape[len(batch):]))
    return a * b, batch + free_a + free_b


def _contract_pair(a, la, b, lb, later):
    """a and b with the labels they share contracted, or kept as batch dims when needed later: one bmm."""
    size = dict(zip(la, a.shape)) | dict(zip(lb, b.shape))
    # Summing over a shared size-1 label changes nothing: drop it, so that a pair left with no sum is a product.
    unit = {label for label in la if label in lb and label not in later and size[label] == 1}
    a, la = _drop_unit_labels(a, la, unit)
    b, lb = _drop_unit_labels(b, lb, unit)
    batch = [label for label in la if label in lb and label in later]
    summed = [label for label in la if label in lb and label not in later]
    free_a = [label for label in la if label not in lb]
    free_b = [label for label in lb if label not in la]
    if not summed:
        return _product_pair(a, la, b, lb, batch, free_a, free_b)

    def block(labels):
        return [size[label] for label in labels]

    def prod(labels):
        return math.prod(block(labels))

    a3 = a.permute([la.index(x) for x in batch + free_a + summed]).reshape(prod(batch), prod(free_a), prod(summed))
    b3 = b.permute([lb.index(x) for x in batch + summed + free_b]).reshape(prod(batch), prod(summed), prod(free_b))
    return _C.bmm(a3, b3).reshape(block(batch) + block(free_a) + block(free_b)), batch + free_a + free_b


# Two-operand equations that are one bmm (no repeated labels, no label summed within one operand, no size-1
# broadcasting), keyed by (equation, shapes): the parse and the permutations are worked out once, so a call on
# small matrices costs little more than the product itself (issue 14: einsum within 5% of bmm).
_BMM_PLANS = {}
_BMM_PLANS_MAX = 512


def _bmm_plan(equation, a, b):
    """(perm_a, shape_a3, perm_b, shape_b3, out_shape, out_perm), each None where the step is not needed; or None
    when the equation is not one bmm."""
    (la, lb), output = _parse_equation(equation, (a, b))
    if len(set(la)) != len(la) or len(set(lb)) != len(lb):
        return None
    size = dict(zip(la, a.shape))
    for label, s in zip(lb, b.shape):
        if size.setdefault(label, s) != s:
            return None  # broadcast or mismatched sizes: the general path handles (or refuses) them
    if any(label not in lb and label not in output for label in la) or \
            any(label not in la and label not in output for label in lb):
        return None
    batch = [x for x in la if x in lb and x in output]
    summed = [x for x in la if x in lb and x not in output]
    if all(size[x] == 1 for x in summed):
        return None  # nothing really summed: an elementwise product (the general path), which promotes dtypes
    free_a = [x for x in la if x not in lb]
    free_b = [x for x in lb if x not in la]

    def prod(labels):
        return math.prod(size[x] for x in labels)

    def perm(order, labels):
        p = [labels.index(x) for x in order]
        return None if p == list(range(len(p))) else p

    def shape3(order, outer):  # None when the permuted operand already has this shape
        s = (prod(batch), prod(outer[0]), prod(outer[1]))
        return None if [size[x] for x in order] == list(s) else s

    order_a, order_b, labels = batch + free_a + summed, batch + summed + free_b, batch + free_a + free_b
    out_shape = tuple(size[x] for x in labels)
    return (perm(order_a, la), shape3(order_a, (free_a, summed)), perm(order_b, lb),
            shape3(order_b, (summed, free_b)), None if len(batch) == len(free_a) == len(free_b) == 1 else out_shape, perm(output, labels))


def _run_bmm_plan(plan, a, b):
    perm_a, shape_a3, perm_b, shape_b3, out_shape, out_perm = plan
    if perm_a is not None:
        a = a.permute(perm_a)
    if shape_a3 is not None:
        a = a.reshape(shape_a3)
    if perm_b is not None:
        b = b.permute(perm_b)
    if shape_b3 is not None:
        b = b.reshape(shape_b3)
    out = _C.bmm(a, b)
    if out_shape is not None:
        out = out.reshape(out_shape)
    return out if out_perm is None else out.permute(out_perm)


def einsum(*args):
    """Operands are contracted left to right, each pair as one batched matrix product."""
    if len(args) == 3 and isinstance(args[0], str) and isinstance(args[1], Tensor) and isinstance(args[2], Tensor):
        key = (args[0], args[1].shape, args[2].shape)
        plan = _BMM_PLANS.get(key, False)
        if plan is False:
            try:
                plan = _bmm_plan(*key[:1], args[1], args[2])
            except RuntimeError:
                plan = None  # the general path raises the error
            if len(_BMM_PLANS) >= _BMM_PLANS_MAX:
                _BMM_PLANS.clear()
            _BMM_PLANS[key] = plan
        if plan is not None:
            return _run_bmm_plan(plan, args[1], args[2])
    if args and isinstance(args[0], bytes):  # PyTorch's parser decodes bytes for the equation
        args = (args[0].decode(),) + args[1:]
    if len(args) < 2:
        raise ValueError("einsum(): must specify the equation string and at least one operand, or at least one "
                         "operand and its subscripts list")
    if isinstance(args[0], Tensor):
        equation, operands = _sublist_equation(args)
    elif isinstance(args[0], str):
        equation, operands = args[0], args[1:]
        while len(operands) == 1 and isinstance(operands[0], (list, tuple)):  # PyTorch unwraps nested lists
            operands = tuple(operands[0])
        _require_tensor_list(operands, 1)  # PyTorch's argument parser: the operands form argument 1 (tp_name)
    else:
        raise TypeError(f"einsum(): argument 'equation' (position 1) must be str, not {_tp_name(args[0])}")
    labels, output = _parse_equation(equation, operands)
    ops, sizes = [], {}
    for k, (op, lab) in enumerate(zip(operands, labels)):
        op, lab = _take_repeated(op, lab, k)
        for label, s in zip(lab, op.shape):
            seen = sizes.get(label, 1)
            if s != 1 and seen != 1 and s != seen:
                if isinstance(label, int):  # sic: PyTorch's text runs "operand 1has" together
                    raise RuntimeError(f"einsum(): dimension {label} covered by ellipsis in operand {k}has size {s} "
                                       f"which does not broadcast with previously seen ellipsis with size {seen} "
                                       "for the respective dimension")
                raise RuntimeError(f"einsum(): subscript {label} has size {s} for operand {k} which does not "
                                   f"broadcast with previously seen size {seen}")
            sizes[label] = s if s != 1 else seen
        ops.append((op, lab))
    # A size-1 dim against a larger one broadcasts: drop it, and the other operand alone carries the label.
    ops = [(op.squeeze(tuple(d)), [x for i, x in enumerate(lab) if i not in d]) for op, lab in ops
           for d in [[i for i, (x, s) in enumerate(zip(lab, op.shape)) if s == 1 and sizes[x] != 1]]]
    a, la = ops[0]
    for k in range(1, len(ops)):
        b, lb = ops[k]
        later = set(output).union(*(lab for _, lab in ops[k + 1:]))
        a, la = _sum_except(a, la, later | set(lb))
        b, lb = _sum_except(b, lb, later | set(la))
        a, la = _contract_pair(a, la, b, lb, later)
    a, la = _sum_except(a, la, set(output))
    return a.permute([la.index(label) for label in output])
