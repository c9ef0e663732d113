#include "ops/view.h"

#include <algorithm>
#include <string>

#include "autograd/formulas.h"
#include "autograd/node.h"
#include "core/error.h"
#include "core/profiler.h"
#include "core/warning.h"
#include "ops/copy.h"

namespace tandem {

DimVector infer_size(IntArrayRef shape, int64_t numel) {
  DimVector out(shape);
  int64_t known = 1, infer = -1;
  bool overflow = false;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      TANDEM_CHECK(infer < 0, Runtime, "only one dimension can be inferred");
      infer = static_cast<int64_t>(i);
    } else {
      TANDEM_CHECK(shape[i] >= 0, Runtime, "invalid shape dimension ", shape[i], " at index ", i,
                   " of shape ", shape_to_string(shape));
      overflow |= __builtin_mul_overflow(known, shape[i], &known);
    }
  }
  // Sizes whose product overflows (compute_numel's rule: a later 0 does not undo it) hold no tensor: PyTorch
  // says so for an empty input and calls the shape invalid for any other.
  TANDEM_CHECK(!overflow || numel != 0, Runtime, "numel: integer multiplication overflow\nhint: the shape ",
               shape_to_string(shape), " has more elements than int64 holds");
  TANDEM_CHECK(overflow || infer < 0 || known != 0 || numel != 0, Runtime,
               "cannot reshape tensor of 0 elements into shape ", shape_to_string(shape),
               " because the unspecified dimension size -1 can be any value and is ambiguous");
  bool ok = !overflow && (infer >= 0 ? (known != 0 && numel % known == 0) : known == numel);
  TANDEM_CHECK(ok, Runtime, "shape '", shape_to_string(shape), "' is invalid for input of size ", numel);
  if (infer >= 0) out[infer] = numel / known;
  return out;
}

namespace {
// Strides for viewing x with `shape` without copying, if possible (PyTorch's computeStride).
bool view_strides(const Tensor& x, IntArrayRef shape, DimVector& out) {
  out = DimVector(shape.size());
  if (x.numel() == 0 || x.dim() == 0) {
    out = contiguous_strides(shape);
    return true;
  }
  const DimVector& old_sizes = x.sizes();
  const DimVector& old_strides = x.strides();
  int64_t view_d = static_cast<int64_t>(shape.size()) - 1;
  int64_t chunk_base_stride = old_strides.size() ? old_strides.back() : 1;
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = x.dim() - 1; d >= 0; --d) {
    tensor_numel *= old_sizes[d];
    if (d == 0 || (old_sizes[d - 1] != 1 && old_strides[d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1)) {
        out[view_d] = view_numel * chunk_base_stride;
        view_numel *= shape[view_d];
        view_d--;
      }
      if (view_numel != tensor_numel) return false;
      if (d > 0) {
        chunk_base_stride = old_strides[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  return view_d == -1;
}
}  // namespace

Tensor view_made_by(const char* op, Tensor view, const Tensor& base) {
  Tensor out = as_view_of(std::move(view), base);
  if (out.is_same(base)) return out;
  if (!autograd::GradMode::is_enabled()) {
    out.impl()->set_view_creation(
        autograd::GradMode::is_inference() ? ViewCreation::InferenceMode : ViewCreation::NoGradMode, op);
    return out;
  }
  const AutogradMeta* bm = base.impl()->autograd();
  if (base.impl()->view_creation() == ViewCreation::InCustomFunction ||
      (bm && bm->grad_fn && bm->grad_fn->output_is_custom_view(bm->output_nr)))
    out.impl()->set_view_creation(ViewCreation::InCustomFunction, op);
  else if (base.impl()->view_creation() == ViewCreation::MultiOutput ||
           (bm && bm->grad_fn && bm->grad_fn->multi_output_view))
    out.impl()->set_view_creation(ViewCreation::MultiOutput, op);
  else if (base.impl()->view_creation() != ViewCreation::Default)
    out.impl()->set_view_creation(ViewCreation::FromNoGradView, op);
  return out;
}

Tensor view(const Tensor& x, IntArrayRef shape) {
  profiler::RecordScope profile_scope("aten::view", x, shape);
  DimVector sizes = infer_size(shape, x.numel());
  DimVector strides;
  TANDEM_CHECK(
      view_strides(x, sizes, strides), Runtime,
      "view size is not compatible with input tensor's size and stride (at least one dimension spans "
      "across two contiguous subspaces). Use .reshape(...) instead.\nhint: x.reshape(",
      shape_to_string(shape).substr(1, shape_to_string(shape).size() - 2),
      ") copies when it must; or call .contiguous() before .view()");
  Tensor out = view_made_by("View", make_view(x, sizes, strides, x.storage_offset()), x);
  return autograd::should_record(x) ? autograd::record_reshape_view("ViewBackward0", x, out) : out;
}

Tensor reshape(const Tensor& x, IntArrayRef shape) {
  profiler::RecordScope profile_scope("aten::reshape", x, shape);
  DimVector sizes = infer_size(shape, x.numel());
  DimVector strides;
  if (view_strides(x, sizes, strides)) {
    Tensor out = view_made_by("View", make_view(x, sizes, strides, x.storage_offset()), x);
    return autograd::should_record(x) ? autograd::record_reshape_view("ViewBackward0", x, out) : out;
  }
  // A copy: not a view of x, nor of the temporary (PyTorch's _unsafe_view), so neither view tracking nor the
  // no_grad-view marks apply to it.
  Tensor copy = clone(x);
  Tensor out = make_view(copy, sizes, contiguous_strides(sizes), 0);
  return autograd::should_record(copy) ? autograd::record_reshape_view("UnsafeViewBackward0", copy, out)
                                       : out;
}

Tensor flatten(const Tensor& x, int64_t start_dim, int64_t end_dim) {
  profiler::RecordScope profile_scope("aten::flatten", x, start_dim, end_dim);
  if (x.dim() == 0) {  // the dims are still checked: a 0-dim tensor takes 0 and -1, as in PyTorch
    wrap_dim(start_dim, 0);
    wrap_dim(end_dim, 0);
    return reshape(x, DimVector{1});
  }
  start_dim = wrap_dim(start_dim, x.dim());
  end_dim = wrap_dim(end_dim, x.dim());
  TANDEM_CHECK(start_dim <= end_dim, Runtime,
               "flatten() has invalid args: start_dim cannot come after end_dim");
  if (start_dim == end_dim) return x;
  DimVector shape;
  for (int64_t d = 0; d < start_dim; ++d) shape.push_back(x.sizes()[d]);
  // The product can overflow only for an empty tensor (its 0 lies outside the flattened dims: expand() and
  // view() of 0 elements make such sizes); such a shape has no int64 size, so it is refused, not wrapped
  // around.
  int64_t n = 1;
  bool overflow = false, zero = false;
  for (int64_t d = start_dim; d <= end_dim; ++d) {
    zero |= x.sizes()[d] == 0;
    overflow |= __builtin_mul_overflow(n, x.sizes()[d], &n);
  }
  if (zero) n = 0;  // a 0 among the flattened dims makes the product 0 whatever came before it
  TANDEM_CHECK(zero || !overflow, Runtime, "flatten(): the sizes of dims ", start_dim, " to ", end_dim,
               " of a tensor of shape ", x.shape_str(),
               " multiply past int64\nhint: the tensor has no elements; make it with sizes whose "
               "product fits in int64");
  shape.push_back(n);
  for (int64_t d = end_dim + 1; d < x.dim(); ++d) shape.push_back(x.sizes()[d]);
  return reshape(x, shape);
}

Tensor permute(const Tensor& x, IntArrayRef dims) {
  profiler::RecordScope profile_scope("aten::permute", x, dims);
  int64_t nd = x.dim();
  TANDEM_CHECK(
      static_cast<int64_t>(dims.size()) == nd, Runtime,
      "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the "
      "desired ordering of dimensions i.e. input.dim() = ",
      nd, " is not equal to len(dims) = ", dims.size());
  DimVector sizes(nd), strides(nd);
  std::vector<bool> seen(nd, false);
  for (int64_t i = 0; i < nd; ++i) {
    int64_t d = wrap_dim(dims[i], nd);
    TANDEM_CHECK(!seen[d], Runtime, "permute(): duplicate dims are not allowed.");
    seen[d] = true;
    sizes[i] = x.sizes()[d];
    strides[i] = x.strides()[d];
  }
  Tensor out = view_made_by("Permute", make_view(x, sizes, strides, x.storage_offset()), x);
  return autograd::should_record(x) ? autograd::record_permute(x, dims, out) : out;
}

Tensor transpose(const Tensor& x, int64_t d0, int64_t d1) {
  profiler::RecordScope profile_scope("aten::transpose", x, d0, d1);
  int64_t nd = x.dim();
  if (nd == 0) {
    wrap_dim(d0, 0);
    wrap_dim(d1, 0);
    Tensor out = view_made_by("Transpose", alias(x), x);  // 0-d: a view of x itself
    return autograd::should_record(x) ? autograd::record_alias("TransposeBackward0", x, out) : out;
  }
  d0 = wrap_dim(d0, nd);
  d1 = wrap_dim(d1, nd);
  DimVector sizes = x.sizes(), strides = x.strides();
  std::swap(sizes[d0], sizes[d1]);
  std::swap(strides[d0], strides[d1]);
  Tensor out = view_made_by("Transpose", make_view(x, sizes, strides, x.storage_offset()), x);
  return autograd::should_record(x) ? autograd::record_transpose(x, d0, d1, out) : out;
}

Tensor t(const Tensor& x) {
  profiler::RecordScope profile_scope("aten::t", x);
  TANDEM_CHECK(x.dim() <= 2, Runtime, "t() expects a tensor with <= 2 dimensions, but self is ", x.dim(),
               "D");
  if (x.dim() < 2) {
    Tensor out = view_made_by("T", alias(x), x);
    return autograd::should_record(x) ? autograd::record_alias("TBackward0", x, out) : out;
  }
  Tensor out = view_made_by(
      "T",
      make_view(x, DimVector{x.size(1), x.size(0)}, DimVector{x.stride(1), x.stride(0)}, x.storage_offset()),
      x);
  return autograd::should_record(x) ? autograd::record_transpose(x, 0, 1, out, "TBackward0") : out;
}

Tensor matrix_T(const Tensor& x) {
  // PyTorch warns once per process; tandem at every use (Python's default filter shows it once per line).
  if (x.dim() == 0)
    warn("Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases.");
  else if (x.dim() != 2)
    warn(
        "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated and it "
        "will throw an error in a future release. Consider `x.mT` to transpose batches of matrices or "
        "`x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor.");
  DimVector dims(x.dim());
  for (int64_t i = 0; i < x.dim(); ++i) dims[i] = x.dim() - 1 - i;
  return permute(x, dims);
}

Tensor mT(const Tensor& x) {
  if (x.dim() == 0) {
    warn("Tensor.mT is deprecated on 0-D tensors. This function is the identity in these cases.");
    return x;
  }
  TANDEM_CHECK(x.dim() >= 2, Runtime, "tensor.mT is only supported on matrices or batches of matrices. Got ",
               x.dim(), "-D tensor.");
  return transpose(x, -2, -1);
}

Tensor squeeze(const Tensor& x) {
  profiler::RecordScope profile_scope("aten::squeeze", x);
  DimVector sizes, strides;
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (x.sizes()[d] == 1) continue;
    sizes.push_back(x.sizes()[d]);
    strides.push_back(x.strides()[d]);
  }
  Tensor out = view_made_by("Squeeze", make_view(x, sizes, strides, x.storage_offset()), x);
  return autograd::should_record(x) ? autograd::record_reshape_view("SqueezeBackward0", x, out) : out;
}

Tensor squeeze(const Tensor& x, IntArrayRef dims) {
  profiler::RecordScope profile_scope("aten::squeeze", x, dims);
  std::vector<bool> drop(std::max<int64_t>(x.dim(), 1), false), seen(drop.size(), false);
  for (int64_t d : dims) {
    int64_t w = wrap_dim(d, x.dim());
    TANDEM_CHECK(!seen[w], Runtime, "dim ", w, " appears multiple times in the list of dims");
    seen[w] = true;
    if (x.dim() > 0 && x.sizes()[w] == 1) drop[w] = true;
  }
  DimVector sizes, strides;
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (drop[d]) continue;
    sizes.push_back(x.sizes()[d]);
    strides.push_back(x.strides()[d]);
  }
  Tensor out = view_made_by("Squeeze", make_view(x, sizes, strides, x.storage_offset()), x);
  if (!autograd::should_record(x)) return out;
  return autograd::record_reshape_view(dims.size() == 1 ? "SqueezeBackward1" : "SqueezeBackward2", x, out);
}

Tensor unsqueeze(const Tensor& x, int64_t dim) {
  profiler::RecordScope profile_scope("aten::unsqueeze", x, dim);
  dim = wrap_dim(dim, x.dim() + 1);
  DimVector sizes = x.sizes(), strides = x.strides();
  // PyTorch's stride for the new size-1 dim: size * stride of the dim it precedes. It is never stepped, so
  // when that overflows (a huge dim of an empty tensor) any value will do: 1.
  int64_t st = 1;
  if (dim < x.dim() && __builtin_mul_overflow(x.sizes()[dim], x.strides()[dim], &st)) st = 1;
  sizes.insert(dim, 1);
  strides.insert(dim, st);
  Tensor out = view_made_by("Unsqueeze", make_view(x, sizes, strides, x.storage_offset()), x);
  return autograd::should_record(x) ? autograd::record_reshape_view("UnsqueezeBackward0", x, out) : out;
}

Tensor expand(const Tensor& x, IntArrayRef shape) {
  profiler::RecordScope profile_scope("aten::expand", x, shape);
  int64_t nd = static_cast<int64_t>(shape.size());
  TANDEM_CHECK(nd >= x.dim(), Runtime, "expand(", autograd::legacy_type_name(x), "{", x.shape_str(),
               "}, size=", shape_to_string(shape), "): the number of sizes provided (", shape.size(),
               ") must be greater or equal to the number of dimensions in the tensor (", x.dim(), ")");
  DimVector sizes(nd), strides(nd);
  for (int64_t i = nd - 1; i >= 0; --i) {
    int64_t off = nd - 1 - i;
    int64_t xd = x.dim() - 1 - off;
    int64_t want = shape[i];
    if (xd >= 0) {
      int64_t have = x.sizes()[xd];
      if (want == -1) want = have;
      TANDEM_CHECK(have == want || have == 1, Runtime, "The expanded size of the tensor (", want,
                   ") must match the existing size (", have, ") at non-singleton dimension ", i,
                   ".  Target sizes: ", shape_to_string(shape), ".  Tensor sizes: ", x.shape_str());
      sizes[i] = want;
      strides[i] = have == want ? x.strides()[xd] : 0;
    } else {
      TANDEM_CHECK(want >= 0, Runtime, "The expanded size of the tensor (", want,
                   ") isn't allowed in a leading, non-existing dimension ", i);
      sizes[i] = want;
      // A new leading dim of size 1 gets the stride a contiguous layout would give it, as PyTorch's
      // inferExpandGeometry does (visible in .stride(), and in the offset of an empty slice of that dim).
      // (Only its value differs, never an address: a product that overflows, possible for empty tensors
      // with huge dims, gives 0.)
      int64_t contiguous = 0;
      if (want == 1 && i + 1 < nd && __builtin_mul_overflow(sizes[i + 1], strides[i + 1], &contiguous))
        contiguous = 0;
      strides[i] = contiguous;
    }
  }
  Tensor out = view_made_by("Expand", make_view(x, sizes, strides, x.storage_offset()), x);
  return autograd::should_record(x) ? autograd::record_expand(x, out) : out;
}

Tensor broadcast_to(const Tensor& x, IntArrayRef shape) {
  profiler::RecordScope profile_scope("aten::broadcast_to", x, shape);
  return expand(x, shape);
}

Tensor narrow(const Tensor& x, int64_t dim, int64_t start, int64_t length) {
  profiler::RecordScope profile_scope("aten::narrow", x, dim, start, length);
  TANDEM_CHECK(x.dim() > 0, Runtime, "narrow() cannot be applied to a 0-dim tensor.");
  dim = wrap_dim(dim, x.dim());
  int64_t size = x.sizes()[dim];
  TANDEM_CHECK(start >= -size && start <= size, Index, "start out of range (expected to be in range of [",
               -size, ", ", size, "], but got ", start, ")");
  if (start < 0) start += size;
  TANDEM_CHECK(length >= 0, Runtime, "narrow(): length must be non-negative.");
  TANDEM_CHECK(start <= size - length, Runtime, "start (", start, ") + length (", length,
               ") exceeds dimension size (", size, ").");
  return slice(x, dim, start, start + length, 1);
}

Tensor select(const Tensor& x, int64_t dim, int64_t index) {
  profiler::RecordScope profile_scope("aten::select", x, dim, index);
  TANDEM_CHECK(x.dim() > 0, Index,
               "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
               "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number");
  dim = wrap_dim(dim, x.dim());
  int64_t size = x.sizes()[dim];
  TANDEM_CHECK(index >= -size && index < size, Index, "index ", index, " is out of bounds for dimension ",
               dim, " with size ", size);
  if (index < 0) index += size;
  DimVector sizes = x.sizes(), strides = x.strides();
  // Only an empty tensor can overflow here (a dim of 2**62 with a huge stride after view() of a 0-element
  // tensor); any offset is valid for its empty result, so it keeps x's.
  int64_t offset;
  if (__builtin_mul_overflow(index, strides[dim], &offset) ||
      __builtin_add_overflow(offset, x.storage_offset(), &offset))
    offset = x.storage_offset();
  sizes.erase(dim);
  strides.erase(dim);
  // Moved in (the IntArrayRef form copies them again): x[i] is among the hottest calls.
  Tensor out =
      view_made_by("Select", make_view(x, std::move(sizes), std::move(strides), offset, x.dtype()), x);
  return autograd::should_record(x) ? autograd::record_select(x, dim, index, out) : out;
}

Tensor slice(const Tensor& x, int64_t dim, int64_t start, int64_t stop, int64_t step) {
  profiler::RecordScope profile_scope("aten::slice", x, dim, start, stop, step);
  TANDEM_CHECK(step > 0, Value,
               "step must be greater than zero\nhint: negative steps are not supported "
               "(as in PyTorch); use x.flip(dim) to reverse");
  int64_t size = x.sizes()[dim];
  start = std::clamp<int64_t>(start, 0, size);
  stop = std::clamp<int64_t>(stop, start, size);
  DimVector sizes = x.sizes(), strides = x.strides();
  // PyTorch's offset even for an empty result (x[5:] of 5 elements starts one past the end): it is visible
  // through storage_offset() and data_ptr().
  // Only an empty result can overflow here (start == size on a dim whose stride is huge, as a size-1 dim's
  // may be); any offset is valid for it, so it keeps x's.
  int64_t offset;
  if (__builtin_mul_overflow(start, strides[dim], &offset) ||
      __builtin_add_overflow(offset, x.storage_offset(), &offset))
    offset = x.storage_offset();
  sizes[dim] = (stop - start) / step + ((stop - start) % step != 0);  // rounded up without overflow
  // A step that overflows the stride leaves at most one element, whose stride is never stepped
  // (x[::2**62]): keep the old one.
  if (__builtin_mul_overflow(strides[dim], step, &strides[dim])) strides[dim] = x.strides()[dim];
  Tensor out =
      view_made_by("Slice", make_view(x, std::move(sizes), std::move(strides), offset, x.dtype()), x);
  return autograd::should_record(x) ? autograd::record_slice(x, dim, start, stop, step, out) : out;
}

Tensor python_slice(const Tensor& x, int64_t dim, int64_t start, int64_t stop, int64_t step) {
  profiler::RecordScope profile_scope("aten::slice", x, dim, start, stop, step);
  dim = wrap_dim(dim, x.dim());  // an index with two Ellipsis items can put a slice past the last dim
  const int64_t size = x.sizes()[dim];
  if (start < 0) start = std::max<int64_t>(start + size, 0);
  if (stop < 0) stop = std::max<int64_t>(stop + size, 0);
  return slice(x, dim, std::min(start, size), std::min(stop, size), step);
}

namespace {
// Marks the recorded outputs of a function that returns several views (see Node::multi_output_view).
std::vector<Tensor> mark_multi_output_views(std::vector<Tensor> views, const char* name) {
  for (size_t i = 0; i < views.size(); ++i) {
    AutogradMeta* m = views[i].impl()->autograd();
    if (!m || !m->requires_grad || !m->grad_fn) continue;
    m->grad_fn->multi_output_view = name;
    m->grad_fn->multi_output_index = static_cast<int64_t>(i);
  }
  return views;
}
}  // namespace

std::vector<Tensor> unbind(const Tensor& x, int64_t dim) {
  profiler::RecordScope profile_scope("aten::unbind", x, dim);
  // A 0-d tensor's dim is wrapped as a 1-d one's first (out of [-1, 0] is the range error; -1 is named as 0).
  TANDEM_CHECK(x.dim() > 0, Index, "Dimension specified as ", wrap_dim(dim, 1),
               " but tensor has no dimensions");
  dim = wrap_dim(dim, x.dim());
  std::vector<Tensor> out;
  for (int64_t i = 0; i < x.sizes()[dim]; ++i) out.push_back(select(x, dim, i));
  return mark_multi_output_views(std::move(out), "Unbind");
}

std::vector<Tensor> split_with_sizes(const Tensor& x, IntArrayRef sizes, int64_t dim) {
  profiler::RecordScope profile_scope("aten::split_with_sizes", x, sizes, dim);
  TANDEM_CHECK(x.dim() > 0, Runtime, "split expects at least a 1-dimensional tensor");
  dim = wrap_dim(dim, x.dim());
  int64_t total = 0;
  bool overflow = false;  // sizes that overflow int64 cannot sum to a size
  for (int64_t s : sizes) {
    TANDEM_CHECK(s >= 0, Runtime,
                 "split_with_sizes expects split_sizes have only non-negative entries, but got "
                 "split_sizes=",
                 shape_to_string(sizes));
    overflow |= __builtin_add_overflow(total, s, &total);
  }
  TANDEM_CHECK(!overflow && total == x.sizes()[dim], Runtime,
               "split_with_sizes expects split_sizes to sum exactly to ", x.sizes()[dim],
               " (input tensor's size at dimension ", dim, "), but got split_sizes=", shape_to_string(sizes));
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t s : sizes) {
    out.push_back(slice(x, dim, start, start + s, 1));
    start += s;
  }
  return mark_multi_output_views(std::move(out), "SplitWithSizes");
}

std::vector<Tensor> split(const Tensor& x, int64_t split_size, int64_t dim) {
  profiler::RecordScope profile_scope("aten::split", x, split_size, dim);
  TANDEM_CHECK(x.dim() > 0, Runtime, "split expects at least a 1-dimensional tensor");
  TANDEM_CHECK(split_size >= 0, Runtime,
               "split expects split_size be non-negative, but got split_size=", split_size);
  dim = wrap_dim(dim, x.dim());
  int64_t size = x.sizes()[dim];
  DimVector sizes;
  if (split_size == 0) {
    TANDEM_CHECK(size == 0, Runtime,
                 "split_size can only be 0 if dimension size is 0, but got dimension size of ", size);
    sizes.push_back(0);
  }
  for (int64_t start = 0; split_size > 0 && start < size; start += split_size)
    sizes.push_back(std::min(split_size, size - start));
  if (sizes.empty()) sizes.push_back(0);
  return mark_multi_output_views(split_with_sizes(x, sizes, dim), "Split");
}

std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t dim) {
  profiler::RecordScope profile_scope("aten::chunk", x, chunks, dim);
  TANDEM_CHECK(x.dim() > 0, Runtime, "chunk expects at least a 1-dimensional tensor");
  TANDEM_CHECK(chunks > 0, Runtime, "chunk expects `chunks` to be greater than 0, got: ", chunks);
  dim = wrap_dim(dim, x.dim());
  int64_t size = x.sizes()[dim];
  // An empty dim gives `chunks` empty pieces, as PyTorch's (split by 0 would give one). Past 2**24 pieces the
  // list takes minutes to build and gigabytes to hold (PyTorch grinds on until memory runs out): refused at
  // once.
  if (size == 0) {
    TANDEM_CHECK(chunks <= (int64_t{1} << 24), Runtime, "chunk: ", chunks,
                 " empty chunks are more than a list can hold\nhint: chunk an empty dim into fewer pieces");
    return split_with_sizes(x, DimVector(static_cast<size_t>(chunks), 0), dim);
  }
  int64_t each = size / chunks + (size % chunks != 0);  // rounded up without overflow (chunks near 2**63)
  return split(x, each, dim);
}

Tensor view_dtype(const Tensor& x, DType dtype) {
  profiler::RecordScope profile_scope("aten::view", x, dtype);
  const int64_t from = static_cast<int64_t>(element_size(x.dtype()));
  const int64_t to = static_cast<int64_t>(element_size(dtype));
  DimVector sizes(x.sizes()), strides(x.strides());
  int64_t offset = x.storage_offset();
  if (from != to) {
    auto what = [&] {
      return std::string(" to view ") + std::string(dtype_title(x.dtype())) + " as " +
             std::string(dtype_title(dtype)) + " (different element sizes)";
    };
    TANDEM_CHECK(x.dim() > 0, Runtime, "self.dim() cannot be 0", what());
    auto check_unit_stride = [&] {
      TANDEM_CHECK(strides.back() == 1, Runtime, "self.stride(-1) must be 1", what(), ", but got ",
                   strides.back());
    };
    if (from > to) {
      check_unit_stride();  // each element becomes `ratio` narrower ones along the last dim
      const int64_t ratio = from / to;
      for (size_t d = 0; d + 1 < strides.size(); ++d) strides[d] *= ratio;
      sizes[sizes.size() - 1] *= ratio;
      offset *= ratio;
    } else {  // `ratio` elements along the last dim become one
      const int64_t ratio = to / from;
      TANDEM_CHECK(sizes.back() % ratio == 0, Runtime, "self.size(-1) must be divisible by ", ratio, what(),
                   ", but got ", sizes.back());
      TANDEM_CHECK(offset % ratio == 0, Runtime, "self.storage_offset() must be divisible by ", ratio, what(),
                   ", but got ", offset);
      check_unit_stride();
      for (size_t d = 0; d + 1 < strides.size(); ++d) {
        TANDEM_CHECK(strides[d] % ratio == 0, Runtime, "self.stride(", d, ") must be divisible by ", ratio,
                     what(), ", but got ", strides[d]);
        strides[d] /= ratio;
      }
      sizes[sizes.size() - 1] /= ratio;
      offset /= ratio;
    }
  }
  return make_view(x, std::move(sizes), std::move(strides), offset, dtype);
}

Tensor alias(const Tensor& x) {
  profiler::RecordScope profile_scope("aten::alias", x);
  return make_view(x, x.sizes(), x.strides(), x.storage_offset());
}

}  // namespace tandem
