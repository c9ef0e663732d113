"""In-place ops and out= whose destination shares memory with an input: partial overlap (a shifted slice of the
same storage: PyTorch's "some elements of the input tensor and the written-to tensor refer to a single memory
location"), exact aliasing (allowed), self-overlapping destinations built with as_strided or unfold, transposed
and strided views written in place, in-place ops whose broadcast result is larger than self, and writes through
views of leaves that require grad. views.py covers expanded (stride 0) destinations; these are the others."""
from . import R, T


def ar(L, d, n=6, dtype="float32"):
    return L.arange(n, device=d, dtype=getattr(L, dtype))


def after(x, fn):
    """fn(x) runs for its write; the whole storage's values after it are the result."""
    fn(x)
    return x


def m(L, d, shape=(3, 3)):
    return R(L, shape, d, "float32")


CASES = {
    # ---- partial overlap between the destination and an input
    "add_/shifted_slice": lambda L, d: after(ar(L, d), lambda x: x[2:].add_(x[:4])),
    "mul_/shifted_slice_back": lambda L, d: after(ar(L, d), lambda x: x[:4].mul_(x[2:])),
    "copy_/shifted_slice": lambda L, d: after(ar(L, d), lambda x: x[:4].copy_(x[2:])),
    "copy_/shifted_by_one": lambda L, d: after(ar(L, d), lambda x: x[1:].copy_(x[:-1])),
    "add/out_shifted_slice": lambda L, d: after(ar(L, d), lambda x: L.add(x[:4], 1, out=x[2:])),
    "exp/out_shifted_slice": lambda L, d: after(ar(L, d), lambda x: L.exp(x[:4], out=x[2:])),
    "mul/out_other_shifted": lambda L, d: after(ar(L, d), lambda x: L.mul(ar(L, d, 4), x[:4], out=x[1:5])),
    "where/out_scalar_other": lambda L, d: after(ar(L, d), lambda x: L.where(
        T(L, [True, False, True, False], d), x[:4], 0.0, out=x[2:])),
    "where/out_overlaps_input": lambda L, d: after(ar(L, d), lambda x: L.where(
        T(L, [True, False, True, False], d), x[:4], L.zeros(4, device=d), out=x[2:])),
    "clamp/out_shifted": lambda L, d: after(ar(L, d), lambda x: L.clamp(x[:4], 1, 3, out=x[1:5])),
    "addcmul_/tensor1_overlaps": lambda L, d: after(ar(L, d), lambda x: x[2:].addcmul_(x[:4], ar(L, d, 4))),
    "lerp_/end_overlaps": lambda L, d: after(ar(L, d), lambda x: x[1:5].lerp_(x[:4], 0.5)),
    "sub_/transposed_self": lambda L, d: after(m(L, d), lambda x: x.sub_(x.t())),
    "copy_/transposed_self": lambda L, d: after(m(L, d), lambda x: x.copy_(x.t())),
    "add_/row_into_matrix": lambda L, d: after(m(L, d), lambda x: x.add_(x[0])),
    "mul_/column_into_matrix": lambda L, d: after(m(L, d), lambda x: x.mul_(x[:, :1])),
    "div_/0dim_element_of_self": lambda L, d: after(m(L, d), lambda x: x.div_(x[0, 0])),
    "index_copy_/source_overlaps": lambda L, d: after(m(L, d), lambda x: x.index_copy_(0, T(L, [1, 2], d),
                                                                                         x[:2])),
    "masked_scatter_/source_overlaps": lambda L, d: after(ar(L, d), lambda x: x[2:].masked_scatter_(
        T(L, [True, True, False, True], d), x[:4])),
    "cat/out_overlaps_input": lambda L, d: after(ar(L, d), lambda x: L.cat([x[:2], x[2:4]], out=x[1:5])),
    "cumsum/out_shifted": lambda L, d: after(ar(L, d), lambda x: L.cumsum(x[:4], 0, out=x[2:])),
    "neg/out_same_storage_disjoint": lambda L, d: after(ar(L, d), lambda x: L.neg(x[:3], out=x[3:])),
    "add_/disjoint_halves": lambda L, d: after(ar(L, d), lambda x: x[:3].add_(x[3:])),
    "copy_/interleaved_disjoint": lambda L, d: after(ar(L, d), lambda x: x[::2].copy_(x[1::2])),
    # ---- exact aliasing (allowed: each element reads before it writes)
    "add_/self": lambda L, d: after(ar(L, d), lambda x: x.add_(x)),
    "mul/out_self_both": lambda L, d: after(ar(L, d), lambda x: L.mul(x, x, out=x)),
    "sigmoid/out_self": lambda L, d: after(ar(L, d), lambda x: L.sigmoid(x, out=x)),
    "copy_/self": lambda L, d: after(ar(L, d), lambda x: x.copy_(x)),
    "addcdiv_/all_self": lambda L, d: after(ar(L, d) + 1, lambda x: x.addcdiv_(x, x)),
    "where/out_is_input": lambda L, d: after(ar(L, d), lambda x: L.where(x > 2, x, -x, out=x)),
    "clamp_/tensor_bounds_self": lambda L, d: after(ar(L, d), lambda x: x.clamp_(x, x)),
    # ---- self-overlapping destinations (not stride 0)
    "add_/as_strided_overlap": lambda L, d: after(ar(L, d), lambda x: x.as_strided((3, 2), (1, 1)).add_(1)),
    "copy_/as_strided_overlap": lambda L, d: after(ar(L, d), lambda x: x.as_strided((3, 2), (1, 1))
                                                   .copy_(L.ones(3, 2, device=d))),
    "exp/out_as_strided_overlap": lambda L, d: after(ar(L, d), lambda x: L.exp(ar(L, d, 6).reshape(3, 2),
                                                                               out=x.as_strided((3, 2), (1, 1)))),
    "add_/unfold_overlap": lambda L, d: after(ar(L, d), lambda x: x.unfold(0, 3, 1).add_(1)),
    "mul_/unfold_disjoint": lambda L, d: after(ar(L, d), lambda x: x.unfold(0, 2, 2).mul_(2)),
    "fill_/as_strided_overlap": lambda L, d: after(ar(L, d), lambda x: x.as_strided((3, 2), (1, 1)).fill_(7)),
    "zero_/unfold_overlap": lambda L, d: after(ar(L, d), lambda x: x.unfold(0, 3, 1).zero_()),
    "relu_/as_strided_overlap": lambda L, d: after(ar(L, d) - 3, lambda x: x.as_strided((3, 2), (1, 1)).relu_()),
    "index_fill_/unfold_overlap": lambda L, d: after(ar(L, d), lambda x: x.unfold(0, 3, 1).index_fill_(
        1, T(L, [0], d), 9.0)),
    "masked_fill_/unfold_overlap": lambda L, d: after(ar(L, d), lambda x: x.unfold(0, 3, 1).masked_fill_(
        L.ones(4, 3, device=d, dtype=L.bool), 1.0)),
    "uniform_/as_strided_overlap": lambda L, d: ar(L, d).as_strided((3, 2), (1, 1)).uniform_().shape,
    # ---- strided and transposed destinations (no overlap: must write the right elements)
    "add_/transposed": lambda L, d: after(m(L, d), lambda x: x.t().add_(ar(L, d, 3))),
    "copy_/every_other": lambda L, d: after(ar(L, d), lambda x: x[::2].copy_(T(L, [9.0, 8.0, 7.0], d))),
    "mul_/negative_step_flip": lambda L, d: after(ar(L, d), lambda x: x.flip(0).mul_(2)),
    "sin_/column": lambda L, d: after(m(L, d), lambda x: x[:, 1].sin_()),
    "add/out_transposed": lambda L, d: after(m(L, d), lambda x: L.add(ar(L, d, 9).reshape(3, 3), 1,
                                                                      out=x.t())),
    "pow_/diagonal": lambda L, d: after(m(L, d), lambda x: x.diagonal().pow_(2)),
    "sub_/permuted_3d": lambda L, d: after(R(L, (2, 3, 4), d, "float32"),
                                           lambda x: x.permute(2, 0, 1).sub_(1.5)),
    "copy_/from_transposed_other": lambda L, d: after(L.zeros(3, 3, device=d),
                                                      lambda x: x.copy_(ar(L, d, 9).reshape(3, 3).t())),
    "copy_/broadcast_source": lambda L, d: after(L.zeros(3, 3, device=d), lambda x: x.copy_(ar(L, d, 3))),
    "copy_/source_not_broadcastable": lambda L, d: L.zeros(3, 3, device=d).copy_(ar(L, d, 2)),
    "copy_/source_bigger": lambda L, d: L.zeros(3, device=d).copy_(ar(L, d, 9).reshape(3, 3)),
    "copy_/complex_into_float": lambda L, d: L.zeros(2, device=d).copy_(T(L, [1 + 2j, 3j], d)),
    "copy_/float_into_int": lambda L, d: L.zeros(2, device=d, dtype=L.int64).copy_(T(L, [1.7, -2.7], d)),
    "copy_/nan_into_bool": lambda L, d: L.zeros(2, device=d, dtype=L.bool).copy_(T(L, [float("nan"), 0.0], d)),
    # ---- in-place results larger than self
    "add_/broadcast_grows_2d": lambda L, d: m(L, d, (1, 3)).add_(m(L, d, (3, 3))),
    "mul_/broadcast_grows_rank": lambda L, d: m(L, d, (3,)).mul_(m(L, d, (2, 3))),
    "where_/not_a_method": lambda L, d: m(L, d).where(m(L, d) > 0, 0.0),
    "masked_fill_/mask_bigger": lambda L, d: m(L, d, (1, 3)).masked_fill_(L.ones(3, 3, device=d,
                                                                                 dtype=L.bool), 0.0),
    "clamp_/bounds_bigger": lambda L, d: m(L, d, (3,)).clamp_(min=m(L, d, (2, 3))),
    "lerp_/weight_bigger": lambda L, d: m(L, d, (3,)).lerp_(m(L, d, (3,)), m(L, d, (2, 3))),
    "addcmul_/tensors_bigger": lambda L, d: m(L, d, (3,)).addcmul_(m(L, d, (2, 3)), m(L, d, (3,))),
    # ---- views of leaves that require grad, and views of views
    "add_/view_of_leaf": lambda L, d: m(L, d).requires_grad_()[0].add_(1),
    "copy_/leaf_requires_grad": lambda L, d: m(L, d).requires_grad_().copy_(m(L, d)),
    "zero_/leaf_requires_grad": lambda L, d: m(L, d).requires_grad_().zero_(),
    "add_/leaf_under_no_grad": lambda L, d: _no_grad_add(L, m(L, d).requires_grad_()),
    "mul_/unbind_output": lambda L, d: (m(L, d).requires_grad_() * 1).unbind(0)[0].mul_(2),
    "add_/split_output": lambda L, d: (m(L, d).requires_grad_() * 1).split(1)[0].add_(2),
    "add_/chunk_output": lambda L, d: (m(L, d).requires_grad_() * 1).chunk(3)[1].add_(2),
    "add_/view_of_view_grad": lambda L, d: (lambda x: ((x * 1)[1:][0].add_(5), x)[1])(m(L, d).requires_grad_()),
    "add_/detached_view_shares": lambda L, d: after(ar(L, d), lambda x: x.detach()[1:3].add_(10)),
    "add_/inference_tensor_outside": lambda L, d: (lambda x: x.add_(1))(_inference(L, d)),
}


def _no_grad_add(L, leaf):
    with L.no_grad():
        leaf.add_(1)
    return leaf.detach(), leaf.requires_grad, leaf.is_leaf


def _inference(L, d):
    with L.inference_mode():
        return L.ones(3, device=d)


_ORDER = ("PyTorch lets this overlap through (its input is not dense) and its result depends on the order its "
          "kernel visits elements; tandem reads every input before it writes")
KNOWN = {
    "mul_/column_into_matrix": _ORDER, "masked_scatter_/source_overlaps": _ORDER,
    "add_/inference_tensor_outside": "tandem's inference_mode does not mark the tensors it makes (docs/compat.md), "
                                     "so they can be written in place afterwards",
}
