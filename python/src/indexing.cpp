// Tensor.__getitem__ / __setitem__: the Python index (ints, slices, None, Ellipsis, bools, masks, integer
// tensors and lists) is parsed here into views plus per-dim advanced indices; the ops do the rest.
#include <cstring>
#include <vector>

#include "autograd/formulas.h"
#include "autograd/node.h"
#include "bindings.h"
#include "core/error.h"
#include "ops/copy.h"
#include "ops/indexing.h"
#include "ops/view.h"

namespace tandem::py {

Tensor tensor_from_data(nb::handle data, std::optional<DType> dtype, Device device);  // creation.cpp
void init_indexing_ops(nb::module_& m);                                               // indexing_ops.cpp

namespace {

// NumPy 2 calls its bool scalar numpy.bool, NumPy 1 numpy.bool_.
bool is_numpy_bool(PyObject* o) {
  const char* name = Py_TYPE(o)->tp_name;
  return std::strcmp(name, "numpy.bool") == 0 || std::strcmp(name, "numpy.bool_") == 0;
}
bool is_python_bool(PyObject* o) { return PyBool_Check(o) || is_numpy_bool(o); }
bool is_int_index(PyObject* o) { return !is_python_bool(o) && (PyLong_Check(o) || PyIndex_Check(o)); }
bool is_mask(const Tensor& t) { return t.dtype() == DType::Bool || t.dtype() == DType::UInt8; }

int64_t as_index_int(PyObject* o) {
  nb::object i = nb::steal(PyNumber_Index(o));
  if (!i.is_valid()) throw nb::python_error();
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(i.ptr(), &overflow);
  TANDEM_CHECK(!overflow, Value, "Overflow when unpacking long long\nhint: index ", nb::str(i).c_str(),
               " does not fit in int64");  // PyTorch's error for an index past int64
  return v;
}

// A list index as a tensor: ints -> int64, bools -> a mask; [] selects nothing (int64, as PyTorch).
// An index given as data (a list, a NumPy array) is a tensor of the dtype its values infer, made int64 unless
// it is a mask (bool or uint8), as PyTorch's indexing_tensor_from_data does: float values are truncated.
Tensor data_index(nb::handle data) {
  const Tensor t = tensor_from_data(data, std::nullopt, Device());
  return is_mask(t) || t.dtype() == DType::Int64 ? t : to_dtype(t, DType::Int64);
}
Tensor sequence_index(nb::handle seq) {
  if (PySequence_Size(seq.ptr()) == 0) return empty(DimVector{0}, DType::Int64);
  return data_index(seq);
}

// Dims of self an index item consumes (None, Ellipsis and bools consume none; a mask consumes its ndim).
int64_t consumed_dims(PyObject* o) {
  if (o == Py_None || o == Py_Ellipsis || is_python_bool(o)) return 0;
  if (is_tensor(o)) {
    const Tensor& t = as_tensor_ref(o);
    return is_mask(t) ? t.dim() : 1;
  }
  return 1;
}

struct Parsed {
  Tensor view;                  // self after ints, slices, None and Ellipsis
  std::vector<Tensor> indices;  // advanced index per dim of view (undefined = whole dim)
  bool advanced = false;
  bool uint8_mask = false;       // a uint8 mask is among the advanced indices (deprecated in PyTorch)
  bool lone_uint8_mask = false;  // the only advanced index is a uint8 mask (PyTorch's masked_fill_ path)
  int64_t advanced_items = 0;    // index tensors and sequences beyond 0-d ones
  bool lone_mask = false;        // the only advanced item is a mask (bool or uint8)
  // The only advanced item is an int64 index or a 0-d mask: PyTorch writes a number through index_fill_.
  bool index_fill_path = false;
};

// PyTorch's deprecation warning for uint8 masks, given where it goes through its advanced-indexing path.
void warn_uint8_mask(const Parsed& p) {
  if (p.uint8_mask &&
      PyErr_WarnEx(
          PyExc_UserWarning,
          "indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead.", 1) < 0)
    throw nb::python_error();  // warnings turned into errors
}

// PyTorch (2.15 still) reads a short non-tuple sequence that holds a tensor, a sequence, a slice, None or
// Ellipsis as a tuple of indices (x[[rows, cols]] is x[rows, cols]), with a deprecation warning. Other
// sequences, and NumPy arrays, are tensor data (x[[0, 2]] picks rows 0 and 2).
bool sequence_as_tuple(PyObject* index) {
  if (PyTuple_Check(index) || is_tensor(index) || !PySequence_Check(index)) return false;
  if (std::strcmp(Py_TYPE(index)->tp_name, "numpy.ndarray") == 0) return false;
  Py_ssize_t n = PySequence_Size(index);
  if (n < 0) {
    PyErr_Clear();
    return false;
  }
  if (n >= 32) return false;
  for (Py_ssize_t i = 0; i < n; ++i) {
    nb::object item = nb::steal(PySequence_GetItem(index, i));
    if (!item) {
      PyErr_Clear();
      return false;
    }
    PyObject* o = item.ptr();
    if (is_tensor(o) || PySequence_Check(o) || PySlice_Check(o) || o == Py_None || o == Py_Ellipsis)
      return true;
  }
  return false;
}

class IndexParser {
 public:
  explicit IndexParser(const Tensor& self) : self_(self), result_(self) {}

  Parsed parse(nb::handle index) {
    if (sequence_as_tuple(index.ptr())) {
      if (PyErr_WarnEx(
              PyExc_UserWarning,
              "Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed "
              "in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be "
              "interpreted as tensor index, x[torch.tensor(seq)], which will result either in an error "
              "or a different result",
              1) < 0)
        throw nb::python_error();  // warnings turned into errors
      nb::object items = nb::steal(PySequence_Tuple(index.ptr()));
      if (!items) throw nb::python_error();
      return parse(items);
    }
    PyObject* single = index.ptr();
    PyObject* const* items = &single;
    Py_ssize_t n = 1;
    if (PyTuple_Check(index.ptr())) {
      items = &PyTuple_GET_ITEM(index.ptr(), 0);
      n = PyTuple_GET_SIZE(index.ptr());
    }
    int64_t specified = 0;
    for (Py_ssize_t i = 0; i < n; ++i) specified += consumed_dims(items[i]);
    TANDEM_CHECK(specified <= self_.dim(), Index, "too many indices for tensor of dimension ", self_.dim(),
                 "\nhint: the tensor has shape ", self_.shape_str(), "; index at most ", self_.dim(),
                 " dims (None and ... add or skip dims without counting)");
    for (Py_ssize_t i = 0; i < n; ++i) {
      position_ = i;
      apply(items[i], specified);
    }
    return Parsed{result_,
                  std::move(indices_),
                  advanced_,
                  uint8_mask_,
                  tensor_items_ == 1 && uint8_mask_,
                  tensor_items_,
                  tensor_items_ == 1 && mask_items_ == 1,
                  tensor_items_ + zero_dim_masks_ == 1 && (long_items_ == 1 || zero_dim_masks_ == 1)};
  }

 private:
  void record(const Tensor& index) {
    if (static_cast<int64_t>(indices_.size()) <= dim_) indices_.resize(dim_ + 1);
    indices_[dim_++] = index;
    advanced_ = true;
  }
  // A bool as an index: a new dim of size 1 that is kept (true) or emptied (false).
  void apply_bool(bool keep) {
    result_ = unsqueeze(result_, dim_);
    record(keep ? full(DimVector{1}, Scalar(int64_t{0}), DType::Int64) : empty(DimVector{0}, DType::Int64));
  }
  // An integer index. PyTorch's out-of-bounds message names its position in the index (x[0, 7] is about
  // dimension 1 of x), not the dim of the partly indexed result that it selects from.
  void apply_int(int64_t index) {
    if (dim_ < result_.dim()) {
      const int64_t size = result_.sizes()[dim_];
      TANDEM_CHECK(index >= -size && index < size, Index, "index ", index, " is out of bounds for dimension ",
                   position_, " with size ", size);
    }
    result_ = select(result_, dim_, index);
  }
  void apply_tensor(const Tensor& t) {
    if (t.dim() == 0 && is_mask(t)) {
      ++zero_dim_masks_;
      return apply_bool(item(t).to_bool());
    }
    if (t.dim() == 0 && is_integral(t.dtype(), false)) return apply_int(item(t).to_int());
    ++tensor_items_;
    if (!is_mask(t)) {
      long_items_ += t.dtype() == DType::Int64;
      return record(t);
    }
    ++mask_items_;
    uint8_mask_ = uint8_mask_ || t.dtype() == DType::UInt8;
    for (const Tensor& c : mask_indices(result_, dim_, t)) record(c);
  }
  void apply_slice(PyObject* o) {
    Py_ssize_t start, stop, step;
    if (PySlice_Unpack(o, &start, &stop, &step) < 0) throw nb::python_error();
    // `:` past the last dim (after a second Ellipsis) selects everything without looking at the dim, as in
    // PyTorch; elsewhere it is a real slice (a view recorded for autograd).
    if (start == 0 && stop == PY_SSIZE_T_MAX && step == 1 && dim_ >= result_.dim()) {
      ++dim_;
      return;
    }
    result_ = python_slice(result_, dim_++, start, stop, step);
  }
  void apply(PyObject* o, int64_t specified) {
    if (std::strcmp(Py_TYPE(o)->tp_name, "numpy.ndarray") == 0) {
      // A NumPy index array is the data it holds (its list, or its scalar when 0-d), read as PyTorch reads
      // index data, except that a uint8 array stays uint8: a (deprecated) mask, as in PyTorch.
      nb::object array = nb::borrow(o);
      nb::object data = array.attr("tolist")();
      if (array.attr("dtype").attr("str").equal(nb::str("|u1")))
        return apply_tensor(tensor_from_data(data, DType::UInt8, Device()));
      return apply(data.ptr(), specified);
    }
    if (is_int_index(o) && !is_tensor(o)) {
      apply_int(as_index_int(o));
    } else if (PySlice_Check(o)) {
      apply_slice(o);
    } else if (o == Py_None) {
      result_ = unsqueeze(result_, dim_++);
    } else if (o == Py_Ellipsis) {
      // Every Ellipsis spans the unindexed dims, as in PyTorch: a second one moves what follows past the
      // end (x[..., ..., None] is an IndexError), and x[..., ...] is x.
      dim_ += self_.dim() - specified;
    } else if (PyBool_Check(o)) {  // a NumPy bool is refused below, as in PyTorch
      apply_bool(o == Py_True);
    } else if (is_tensor(o)) {
      apply_tensor(as_tensor_ref(o));
    } else if (PySequence_Check(o)) {
      // Any other sequence is tensor data, as in PyTorch (so t["a"] fails in tensor creation).
      apply_tensor(sequence_index(o));
    } else {
      TANDEM_THROW(Index,
                   "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
                   "valid indices (got ",
                   Py_TYPE(o)->tp_name, ")");
    }
  }

  const Tensor& self_;
  Tensor result_;
  int64_t dim_ = 0;
  Py_ssize_t position_ = 0;  // of the index being applied, in the index tuple
  std::vector<Tensor> indices_;
  bool advanced_ = false;
  int64_t tensor_items_ = 0;  // index tensors (and sequences) beyond 0-d ones
  int64_t mask_items_ = 0;
  int64_t long_items_ = 0;      // int64 ones among them
  int64_t zero_dim_masks_ = 0;  // 0-d bool or uint8 tensors (a kept or emptied new dim)
  bool uint8_mask_ = false;
};

// The value of x[index] = value, read before the index as PyTorch does: a tensor, or a Python number
// (anything else is PyTorch's TypeError, whatever the index).
struct AssignedValue {
  const Tensor* tensor = nullptr;
  Scalar number;
};

AssignedValue assigned_value(const Tensor& x, nb::handle value) {
  AssignedValue out;
  if (is_tensor(value)) {
    out.tensor = &as_tensor_ref(value);
    return out;
  }
  TANDEM_CHECK(to_scalar(value, out.number, true), Type, "can't assign a ", Py_TYPE(value.ptr())->tp_name,
               " to a tandem.", dtype_title(x.dtype()),
               "Tensor\nhint: assign a number or a tensor (tandem.tensor(...))");
  return out;
}

// The value as a tensor: a number as a 0-d tensor of x's dtype.
Tensor value_tensor(const Tensor& x, const AssignedValue& value) {
  return value.tensor ? *value.tensor : full(DimVector{}, value.number, x.dtype(), x.device());
}

// dst = value through a view: fill_ for numbers, copy_ for tensors (leading size-1 dims of value dropped).
// self[...] = value for a basic index: `dst` is the view of self that the index selects.
void assign_view(const Tensor& self, const Tensor& dst, const AssignedValue& value) {
  if (!value.tensor) {  // fill_ checks the value fits dst's dtype
    fill_(dst, value.number);
    return;
  }
  Tensor v = *value.tensor;
  while (v.dim() > dst.dim() && v.sizes()[0] == 1) v = select(v, 0, 0);
  // A source overlapping the destination would be read while written.
  if (v.storage().get() == dst.storage().get()) v = clone(v);
  if (autograd::should_record(v)) autograd::track_view_write(self, dst);
  copy_(dst, expand(v, dst.sizes()));
}

bool is_plain_int(PyObject* o) { return PyLong_CheckExact(o); }

// PyTorch's setitem reads a Python int value as a C long long whatever the tensor's dtype (uint64 aside,
// which takes 2^63 to 2^64 - 1): past that range it is PyTorch's ValueError, not the OverflowError of fill_.
void check_setitem_int(const Tensor& self, nb::handle value) {
  if (!PyLong_Check(value.ptr()) || PyBool_Check(value.ptr()) || self.dtype() == DType::UInt64) return;
  int overflow = 0;
  PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
  TANDEM_CHECK(overflow == 0, Value,
               "Overflow when unpacking long long\nhint: the value does not fit in 64 bits; write a float "
               "(float(v)) or use a uint64 tensor for values up to 2**64 - 1");
}

// x[index] for a basic index is tracked (tracked_view): writing a value with history through it
// (x[:, 1:] += y, which Python runs as getitem, iadd, setitem) gives x PyTorch's CopySlices history.
Tensor basic_view(const Tensor& self, Tensor view) { return tracked_view(self, std::move(view)); }

}  // namespace

Tensor tracked_view(const Tensor& x, Tensor view) {
  if (autograd::GradMode::is_enabled() && view.storage().get() == x.storage().get())
    autograd::track_view_write(x, view);
  return view;
}

Tensor tensor_getitem(const Tensor& self, nb::handle index) {
  // t[i] is the hottest form: no tuple handling (measured ~180 ns with the base mark, within noise).
  if (is_plain_int(index.ptr())) return basic_view(self, select(self, 0, as_index_int(index.ptr())));
  Parsed p = IndexParser(self).parse(index);
  if (p.advanced) {
    warn_uint8_mask(p);
    return tandem::index(p.view, p.indices);
  }
  if (!p.view.is_same(self)) return basic_view(self, p.view);
  // x[...] and x[()] are new views of x (AliasBackward0 in the graph, as in PyTorch).
  Tensor view = view_made_by("Alias", alias(self), self);
  return autograd::should_record(self) ? autograd::record_alias("AliasBackward0", self, view)
                                       : basic_view(self, view);
}

// x[mask] = number with one bool mask over x's leading dims: PyTorch's masked_fill_, one pass over x without
// the mask's coordinates (the general path computes nonzero(mask) first: 5x PyTorch's time on a 3000x6000
// mask). False when it does not apply.
// `index` as one bool mask over self's leading dims (of their sizes, on self's device), or null: where the
// assignments below apply (the general path words any error).
const Tensor* leading_mask(const Tensor& self, nb::handle index) {
  if (!is_tensor(index)) return nullptr;
  const Tensor& mask = as_tensor_ref(index);
  if (mask.dtype() != DType::Bool || mask.dim() == 0 || mask.dim() > self.dim() ||
      mask.device() != self.device())
    return nullptr;
  for (int64_t d = 0; d < mask.dim(); ++d)
    if (mask.sizes()[d] != self.sizes()[d]) return nullptr;
  return &mask;
}

bool fill_through_mask(const Tensor& self, nb::handle index, const AssignedValue& value) {
  const Tensor* found = leading_mask(self, index);
  if (!found) return false;
  const Tensor& mask = *found;
  // PyTorch's Python setitem writes a number with masked_fill_ itself (recorded as MaskedFillBackward0); a
  // tensor value goes through index_put_ (IndexPutBackward0, and index_put_'s warning for an expanded
  // tensor).
  if (value.tensor) return false;
  DimVector shape = mask.sizes();
  while (static_cast<int64_t>(shape.size()) < self.dim()) shape.push_back(1);
  const Tensor m = mask.dim() == self.dim() ? mask : reshape(mask, shape);
  masked_fill_(self, m, value.number);  // (it checks the value fits)
  return true;
}

// x[mask] = values with one bool mask over x's leading dims and a tensor of more than one element: index_put_
// with the mask itself, where the core writes a whole block of values ((count, *rest)) through its
// masked_scatter kernel instead of listing the mask's coordinates first. False when it does not apply.
bool put_through_mask(const Tensor& self, nb::handle index, const AssignedValue& value) {
  if (!value.tensor || value.tensor->numel() == 1) return false;  // one element: the masked_fill dispatch
  const Tensor* mask = leading_mask(self, index);
  if (!mask) return false;
  Tensor v = *value.tensor;
  int64_t ones = 0;  // PyTorch drops the value's leading size-1 dims, as the general path below
  while (ones < v.dim() && v.sizes()[ones] == 1) ++ones;
  if (ones) v = reshape(v, DimVector(std::span<const int64_t>(v.sizes().data() + ones, v.dim() - ones)));
  index_put_(self, {*mask}, v, false, IndexWriteOp::IndexPut);
  return true;
}

void tensor_setitem(const Tensor& self, nb::handle index, nb::handle value_object) {
  check_setitem_int(self, value_object);
  const AssignedValue value = assigned_value(self, value_object);
  if (is_plain_int(index.ptr())) return assign_view(self, select(self, 0, as_index_int(index.ptr())), value);
  if (index.ptr() == Py_False) return;  // selects nothing; PyTorch writes nothing and bumps no version
  // A lone True is PyTorch's basic index (x unsqueezed), written by copy_ (the value converted to x's dtype),
  // not index_put_ (which wants equal dtypes); inside a tuple it stays a mask.
  if (index.ptr() == Py_True) return assign_view(self, unsqueeze(self, 0), value);
  if (fill_through_mask(self, index, value) || put_through_mask(self, index, value)) return;
  Parsed p = IndexParser(self).parse(index);
  if (!p.advanced) return assign_view(self, p.view, value);
  // A number through one int64 index (or a 0-d mask) is PyTorch's index_fill_, which refuses a complex
  // number for a real tensor before converting it.
  TANDEM_CHECK(
      !(p.index_fill_path && !value.tensor && value.number.is_complex() && !is_complex(self.dtype())),
      Runtime, "index_fill_(): Converting complex Scalar to non-complex type is not supported",
      "\nhint: write value.real, or make the tensor complex");
  // PyTorch fills through masked_fill_ when one mask takes a one-element value, and that refuses uint8.
  TANDEM_CHECK(!(p.lone_uint8_mask && (!value.tensor || value.tensor->numel() == 1)), Runtime,
               "masked_fill_ only supports boolean masks, but got mask with dtype unsigned char\nhint: "
               "index with a bool mask: x[mask.bool()] = value");
  Tensor v = value_tensor(p.view, value);
  // PyTorch drops the value's leading size-1 dims first (so a one-element CPU tensor becomes 0-d, which moves
  // to a GPU tensor's device).
  if (v.dim() > 0 && v.sizes()[0] == 1) {
    int64_t ones = 0;
    while (ones < v.dim() && v.sizes()[ones] == 1) ++ones;
    v = reshape(v, DimVector(std::span<const int64_t>(v.sizes().data() + ones, v.dim() - ones)));
  }
  warn_uint8_mask(p);
  // A value with history written through a basic view of self (out[:, idx] = v): the write gives self
  // PyTorch's CopySlices history, as assign_view's does.
  if (autograd::should_record(v)) autograd::track_view_write(self, p.view);
  // Which op PyTorch's indexing writes through (only its warning for an expanded tensor tells): a number
  // through one index runs index_fill_, through one mask masked_fill_; a one-element tensor through one mask
  // runs index_put_, which runs masked_fill_.
  IndexWriteOp op = IndexWriteOp::IndexPut;
  if (!value.tensor && p.index_fill_path)
    op = IndexWriteOp::IndexFill;
  else if (!value.tensor && p.lone_mask)
    op = IndexWriteOp::MaskedFill;
  else if (p.lone_mask && v.numel() == 1)
    op = IndexWriteOp::IndexPutMaskedFill;
  index_put_(p.view, p.indices, v, false, op);
}

void init_indexing(nb::module_& m) {
  auto cls = nb::type<Tensor>();
  auto& tensor = static_cast<nb::class_<Tensor>&>(cls);

  tensor.def("__getitem__", &tensor_getitem, nb::arg("index").none());
  tensor.def("__setitem__", &tensor_setitem, nb::arg("index").none(), nb::arg("value").none());
  init_indexing_ops(m);
}

}  // namespace tandem::py
