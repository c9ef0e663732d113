// The recording entry points called by op front ends (src/ops) when some input requires grad and grad
// mode is on. Each takes the inputs and the output the front end computed (with grad mode off) and returns
// that output with its grad_fn attached. The formulas live in formulas_<family>.cpp.
#pragma once
#include <optional>

#include "autograd/formula_node.h"
#include "kernels/kernel_table.h"
#include "ops/reduce.h"

namespace tandem::autograd {

// ---- elementwise (formulas_elementwise.cpp) ----
// PyTorch's name of the op's autograd node (from op_list.def), or null when the op is not differentiable.
const char* unary_node_name(UnaryOp op);
const char* binary_node_name(BinaryOp op);
bool binary_has_gradient(BinaryOp op);  // false for heaviside, the comparisons, the integer ops, ...
Tensor record_unary(UnaryOp op, const Tensor& x, const Tensor& out);
// A null tensor pointer means that operand was the scalar next to it. `alpha`: add/sub's (a ± alpha * b).
Tensor record_binary(BinaryOp op, const Tensor* a, const Scalar& a_scalar, const Tensor* b,
                     const Scalar& b_scalar, const Tensor& out, const Scalar* alpha = nullptr);
Tensor record_where(const Tensor& cond, const Tensor& a, const Tensor& b, const Tensor& out);
// Activations with parameters (ops/activation.h): `node` is PyTorch's node name.
Tensor record_activation(const ActivationSpec& spec, const char* node, const Tensor& x, const Tensor& out);
Tensor record_clamp(const Tensor& x, const std::optional<Scalar>& lo, const std::optional<Scalar>& hi,
                    const Tensor& out);

// ---- recurrent cells (formulas_rnn.cpp; ops/rnn_cell.h) ----
// The LSTM cell's node is the grad_fn of both its outputs (h, c).
void record_lstm_cell(const Tensor& gates, const Tensor& c_prev, const Tensor& h, const Tensor& c);
void record_gru_cell(const Tensor& x_proj, const Tensor& h_proj, const Tensor& h, const Tensor& out);

// ---- layer normalisation (formulas_norm.cpp; ops/norm.h) ----
// weight and bias may be undefined; mean and rstd are the forward's row statistics.
void record_layer_norm(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& mean,
                       const Tensor& rstd, int64_t normalized_dims, double eps, const Tensor& out);
// ---- batch normalisation (formulas_norm.cpp; ops/batch_norm.h) ----
// mean and invstd: the per-channel statistics that normalised (the batch's in training, else the running
// ones), in the accumulation dtype; param_dtype: the weight and bias gradients' dtype.
void record_batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& mean,
                       const Tensor& invstd, bool training, double eps, DType param_dtype, const Tensor& out);
// ---- group normalisation (formulas_norm.cpp; ops/group_norm.h) ----
// mean and rstd: (N, group) in the accumulation dtype.
void record_group_norm(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& mean,
                       const Tensor& rstd, int64_t group, double eps, DType param_dtype, const Tensor& out);

// ---- views (formulas_view.cpp) ----
// Records `node` for a view and remembers the view's base, so that an in-place write into the view can
// re-base the base's history (rebase_history).
Tensor record_view(const std::shared_ptr<FormulaNode>& node, const Tensor& x, const Tensor& out);
// Shape-only views (view, squeeze, unsqueeze, reshape-as-view): the gradient is reshaped back.
Tensor record_reshape_view(const char* name, const Tensor& x, const Tensor& out);
Tensor record_permute(const Tensor& x, IntArrayRef dims, const Tensor& out);
// `name`: TBackward0 for Tensor.t(), which PyTorch records under its own name.
Tensor record_transpose(const Tensor& x, int64_t d0, int64_t d1, const Tensor& out,
                        const char* name = "TransposeBackward0");
Tensor record_alias(const char* name, const Tensor& x, const Tensor& out);  // gradient passes unchanged
Tensor record_expand(const Tensor& x, const Tensor& out);
Tensor record_slice(const Tensor& x, int64_t dim, int64_t start, int64_t stop, int64_t step,
                    const Tensor& out);
Tensor record_select(const Tensor& x, int64_t dim, int64_t index, const Tensor& out);
// The gradients of slice/select: `grad` placed into zeros of `sizes` (differentiable themselves).
Tensor slice_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, int64_t start, int64_t stop,
                      int64_t step);
Tensor select_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, int64_t index);

// ---- as_strided (formulas_as_strided.cpp; ops/as_strided.h) ----
// `out` is a view of x's storage with its own geometry; the gradient is as_strided_backward's.
Tensor record_as_strided(const Tensor& x, const Tensor& out, const char* name = "AsStridedBackward0");
Tensor record_as_strided_scatter(const Tensor& x, const Tensor& src, IntArrayRef sizes, IntArrayRef strides,
                                 int64_t offset, const Tensor& out);

// ---- copies (formulas_copy.cpp) ----
// clone/contiguous (CloneBackward0) and dtype/device conversions (ToCopyBackward0): the gradient goes back
// in the input's dtype and to the input's device.
Tensor record_copy(const char* name, const Tensor& x, const Tensor& out);
// In-place ops: after the raw write, `self` gets a node whose inputs are self's previous history and `src`.
void record_copy_(const Tensor& self, const Tensor& src);
// fill_ and zero_ (PyTorch's FillBackward2 and ZeroBackward0): no gradient reaches self's old values.
void record_fill_(const Tensor& self, const char* node_name);
// An in-place elementwise op with history: computes `out_of_place(clone of self)` and writes it into self.
template <typename F>
Tensor inplace_with_grad(const Tensor& self, F&& out_of_place);

// ---- matrix products (formulas_linalg.cpp) ----
Tensor record_mm(const Tensor& a, const Tensor& b, const Tensor& out);
Tensor record_bmm(const Tensor& a, const Tensor& b, const Tensor& out);
Tensor record_batched_matmul(const Tensor& a, const Tensor& b, const Tensor& out);
Tensor record_mv(const Tensor& mat, const Tensor& vec, const Tensor& out);
Tensor record_dot(const Tensor& a, const Tensor& b, const Tensor& out);
Tensor record_addmm(const Tensor& input, const Tensor& m1, const Tensor& m2, const Scalar& beta,
                    const Scalar& alpha, const Tensor& out);

// ---- complex numbers (formulas_complex.cpp; ops/complex.h) ----
// z / |z| (0 at 0): PyTorch's sgn, the slope of |z|.
Tensor complex_sgn(const Tensor& z);
Tensor record_conj(const Tensor& x, const Tensor& out);
Tensor record_real(const Tensor& x, const Tensor& out);
Tensor record_imag(const Tensor& x, const Tensor& out);
Tensor record_view_as_real(const Tensor& x, const Tensor& out);
Tensor record_view_as_complex(const Tensor& x, const Tensor& out);
Tensor record_angle(const Tensor& x, const Tensor& out);  // complex x
Tensor record_sgn(const Tensor& x, const Tensor& out);    // complex x
Tensor record_polar(const Tensor& abs, const Tensor& angle, const Tensor& out);
Tensor record_make_complex(const Tensor& re, const Tensor& im, const Tensor& out);
// A complex matrix product of operands of at least 2 dims (batch dims broadcast).
Tensor record_complex_matmul(const Tensor& a, const Tensor& b, const Tensor& out);

// ---- reductions, scans, sorts (formulas_reduce.cpp) ----
// `dims` as the front end got them (unset: every dim).
Tensor record_sum(const Tensor& x, const OptDims& dims, bool keepdim, const Tensor& out);
Tensor record_mean(const Tensor& x, const OptDims& dims, bool keepdim, const Tensor& out);
Tensor record_prod(const Tensor& x, std::optional<int64_t> dim, bool keepdim, const Tensor& out);
// amax/amin (AmaxBackward0...) and max()/min() (MaxBackward1...): ties share the gradient evenly.
Tensor record_extreme(const char* name, const Tensor& x, const OptDims& dims, bool keepdim,
                      const Tensor& out);
// max(dim)/min(dim)/sort/topk: `values` get the node, `indices` none.
void record_select_values(const char* name, const Tensor& x, int64_t dim, bool keepdim, const Tensor& values,
                          const Tensor& indices);
// var (is_std false) / std; dof = reduced count - correction.
Tensor record_var(bool is_std, const Tensor& x, const OptDims& dims, double dof, bool keepdim,
                  const Tensor& out);
Tensor record_norm(const Tensor& x, double p, const OptDims& dims, bool keepdim, const Tensor& out);
Tensor record_logsumexp(const Tensor& x, const DimVector& dims, bool keepdim, const Tensor& out);
Tensor record_softmax(bool log_space, const Tensor& x, int64_t dim, const Tensor& out);
Tensor record_cumsum(const Tensor& x, int64_t dim, const Tensor& out);

// ---- indexing and joining (formulas_index.cpp) ----
Tensor record_index(const Tensor& x, const std::vector<Tensor>& indices, const Tensor& out);
Tensor record_index_put(const Tensor& x, const std::vector<Tensor>& indices, const Tensor& values,
                        bool accumulate, const Tensor& out);
// Inputs skipped by cat (1-D empty tensors) get an empty gradient.
Tensor record_cat(const std::vector<Tensor>& tensors, int64_t dim, const Tensor& out);
Tensor record_stack(const std::vector<Tensor>& tensors, int64_t dim, const Tensor& out);
Tensor record_gather(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& out);
// src null: scatter of a scalar value.
Tensor record_scatter(const Tensor& x, int64_t dim, const Tensor& index, const Tensor* src, bool accumulate,
                      const Tensor& out);
Tensor record_index_select(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& out);
Tensor record_index_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source,
                        const Scalar& alpha, const Tensor& out);
// index_copy / index_fill (value null: a scalar; else a 0-d tensor): the overwritten slices of x get no
// gradient.
Tensor record_index_copy(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source,
                         const Tensor& out);
Tensor record_index_fill(const Tensor& x, int64_t dim, const Tensor& index, const Tensor* value,
                         const Tensor& out);
Tensor record_take(const Tensor& x, const Tensor& index, const Tensor& out);
// value null: a scalar fill.
Tensor record_masked_fill(const Tensor& x, const Tensor& mask, const Tensor* value, const Tensor& out);
Tensor record_masked_select(const Tensor& x, const Tensor& mask, const Tensor& out);
Tensor record_flip(const Tensor& x, IntArrayRef dims, const Tensor& out);
bool any_requires_grad(const std::vector<Tensor>& tensors);

}  // namespace tandem::autograd

#include "ops/copy.h"

namespace tandem::autograd {
template <typename F>
Tensor inplace_with_grad(const Tensor& self, F&& out_of_place) {
  check_inplace(self);
  Tensor before = clone(self);  // the formula may save self's old value; the write below must not touch it
  return rebase_history(self, out_of_place(before));
}
}  // namespace tandem::autograd
