// Bindings of the indexing and joining ops: cat/stack, gather/scatter, index_select, masked ops, nonzero,
// flip, take_along_dim, one_hot, index_put. Called from init_indexing.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/vector.h>

#include <vector>

#include "bindings.h"
#include "core/error.h"
#include "ops/copy.h"
#include "ops/indexing.h"
#include "ops/join.h"
#include "ops/layout.h"
#include "ops/out_arg.h"
#include "ops/scatter_reduce.h"
#include "ops/type_promotion.h"
#include "parser_errors.h"

namespace tandem::py {

void init_indexing_ops(nb::module_& m);

namespace {

std::vector<Tensor> tensor_list(nb::handle seq, const char* fn, const char* arg) {
  TANDEM_CHECK(PyList_Check(seq.ptr()) || PyTuple_Check(seq.ptr()), Type, fn, "(): argument '", arg,
               "' (position 1) must be tuple of Tensors, not ", Py_TYPE(seq.ptr())->tp_name);
  std::vector<Tensor> out;
  // PyTorch's text for an element that is not a tensor, naming its type as Python's C types do
  // ("numpy.ndarray", "numpy.float64", a user's class bare)
  for (nb::handle h : seq) {
    TANDEM_CHECK(is_tensor(h), Type, "expected Tensor as element ", out.size(), " in argument 0, but got ",
                 Py_TYPE(h.ptr())->tp_name);
    out.push_back(as_tensor_ref(h));
  }
  return out;
}

nb::object tensor_tuple(const std::vector<Tensor>& parts) {
  nb::list out;
  for (const Tensor& t : parts) out.append(wrap(t));
  return nb::tuple(out);
}

// index_put's indices: a tuple/list of tensors (PyTorch's Python binding refuses None entries too).
std::vector<Tensor> tensor_tuple(nb::handle seq) {
  TANDEM_CHECK(PyList_Check(seq.ptr()) || PyTuple_Check(seq.ptr()), Type,
               "index_put(): argument 'indices' must be tuple of Tensors, not ", nb::inst_name(seq).c_str());
  std::vector<Tensor> out;
  size_t i = 0;
  for (nb::handle h : seq) {
    TANDEM_CHECK(is_tensor(h), Type, "expected Tensor as element ", i, " in argument 0, but got ",
                 Py_TYPE(h.ptr())->tp_name);
    out.push_back(as_tensor_ref(h));
    ++i;
  }
  return out;
}

// PyTorch's parser error for masked_fill's arguments: the function form names its input too.
[[noreturn]] void throw_masked_fill_arguments(const char* name, nb::handle input, nb::handle mask,
                                              nb::handle value) {
  if (input.is_valid())
    throw_invalid_combination(name, {input, mask, value},
                              {{{"Tensor input", "Tensor mask", "Tensor value"}},
                               {{"Tensor input", "Tensor mask", "Number value"}}});
  throw_invalid_combination(name, {mask, value},
                            {{{"Tensor mask", "Tensor value"}}, {{"Tensor mask", "Number value"}}});
}

// masked_fill's mask and value (a Python number or a 0-d tensor); other types are the parser error above.
template <typename Fn>
Tensor with_fill_value(const char* name, nb::handle input, nb::handle mask, nb::handle value, Fn&& fn) {
  Scalar number;
  if (is_tensor(mask) && is_tensor(value)) return fn(as_tensor_ref(mask), as_tensor_ref(value));
  // A Python int past int64 is read as uint64, as PyTorch's parser does (the fill converts it checked).
  if (is_tensor(mask) && to_scalar(value, number, /*allow_uint64=*/true))
    return fn(as_tensor_ref(mask), number);
  throw_masked_fill_arguments(name, input, mask, value);
}

DimVector dims_arg(nb::handle h) { return to_shape(h, "flip"); }

// scatter's third operand, given positionally (a tensor or a number) or as value= (a number).
nb::handle scatter_source(nb::handle src, nb::handle value, const char* fn) {
  TANDEM_CHECK(src.is_none() || value.is_none(), Type, fn, "() got multiple values for argument 'value'");
  TANDEM_CHECK(!(src.is_none() && value.is_none()), Type, fn,
               "() missing 1 required positional argument: \"src\" (or value=)");
  return src.is_none() ? value : src;
}

// scatter(..., reduce="add"|"multiply"): PyTorch's older spelling of scatter_reduce(include_self=True).
Tensor scatter_reduce_arg(const Tensor& x, int64_t dim, const Tensor& index, nb::handle src,
                          nb::handle reduce, bool in_place) {
  TANDEM_CHECK(nb::isinstance<nb::str>(reduce), Type, "scatter(): argument 'reduce' must be str, not ",
               nb::inst_name(reduce).c_str());
  std::string kind = nb::cast<std::string>(reduce);
  TANDEM_CHECK(kind == "add" || kind == "multiply", Runtime,
               "reduce argument must be either add or multiply.");
  Tensor values;
  if (is_tensor(src)) {
    if (PyErr_WarnEx(
            PyExc_UserWarning,
            "The reduce argument of torch.scatter with Tensor src is deprecated and will be removed in a "
            "future PyTorch release. Use torch.scatter_reduce instead for more reduction options.",
            1) < 0)
      throw nb::python_error();
    values = as_tensor_ref(src);
  } else {
    values = full(index.sizes(), number_argument(src, "scatter", "value"), x.dtype(), x.device());
  }
  std::string_view op = kind == "add" ? "sum" : "prod";
  return in_place ? scatter_reduce_(x, dim, index, values, op) : scatter_reduce(x, dim, index, values, op);
}

// out= of the functions joining a list of tensors: autograd is refused for any of them, and, as PyTorch's
// cat and stack do, an out sharing any memory with an input (the same tensor included).
nb::object joined_into_out(const char* fn, const std::vector<Tensor>& inputs, const Tensor& result,
                           nb::handle out) {
  if (out.is_none()) return wrap(result);
  Tensor& o = expect_tensor(out, fn, "out");
  for (const Tensor& t : inputs) check_out_autograd(fn, o, {&t});
  // Every joining function is PyTorch's cat underneath: its type check is a TypeError naming torch.cat().
  TANDEM_CHECK(can_cast(result.dtype(), o.dtype()), Type,
               "torch.cat(): input types can't be cast to the desired output type ", dtype_title(o.dtype()),
               "\nhint: pass an out tensor of dtype ", dtype_name(result.dtype()), " or leave out= away");
  check_out(fn, o, result.dtype(), result.device(), {});
  resize_out(o, result.sizes());
  for (const Tensor& t : inputs) check_out_overlap(o, {&t}, OutOverlap::SharedRefused);
  copy_(o, result);
  return nb::borrow(out);
}

}  // namespace

void init_indexing_ops(nb::module_& m) {
  auto cls = nb::type<Tensor>();
  auto& tensor = static_cast<nb::class_<Tensor>&>(cls);

  // Every joining function takes out=; its name is the one PyTorch's messages give.
  auto def_join = [&](const char* name, const char* dim_name,
                      Tensor (*join)(const std::vector<Tensor>&, int64_t)) {
    m.def(
        name,
        [name, join](nb::handle tensors, int64_t dim, nb::handle out) {
          std::vector<Tensor> list = tensor_list(tensors, name, "tensors");
          return joined_into_out(name, list, join(list, dim), out);
        },
        nb::arg("tensors"), nb::arg(dim_name) = 0, nb::kw_only(), nb::arg("out") = nb::none());
  };
  auto cat_list = [](const std::vector<Tensor>& list, int64_t dim) { return cat(list, dim); };
  def_join("cat", "dim", cat_list);
  def_join("concat", "dim", cat_list);
  def_join("concatenate", "axis", cat_list);
  def_join("stack", "dim", [](const std::vector<Tensor>& list, int64_t dim) { return stack(list, dim); });
  auto def_stack = [&](const char* name, Tensor (*join)(const std::vector<Tensor>&)) {
    m.def(
        name,
        [name, join](nb::handle tensors, nb::handle out) {
          std::vector<Tensor> list = tensor_list(tensors, name, "tensors");
          return joined_into_out(name, list, join(list), out);
        },
        nb::arg("tensors"), nb::kw_only(), nb::arg("out") = nb::none());
  };
  def_stack("hstack", [](const std::vector<Tensor>& list) { return hstack(list); });
  def_stack("vstack", [](const std::vector<Tensor>& list) { return vstack(list); });
  def_stack("row_stack", [](const std::vector<Tensor>& list) { return vstack(list); });
  def_stack("dstack", [](const std::vector<Tensor>& list) { return dstack(list); });

  // sparse_grad=True asks PyTorch for a sparse gradient; tandem has no sparse tensors and gives the same
  // values dense.
  auto gather_fn = [](const Tensor& x, int64_t dim, const Tensor& index, bool) {
    return gather(x, dim, index);
  };
  m.def(
      "gather",
      [gather_fn](const Tensor& x, int64_t dim, const Tensor& index, bool sparse_grad, nb::handle out) {
        return write_out("gather", gather_fn(x, dim, index, sparse_grad), out, {&x, &index},
                         kStructuredOutDtype, OutOverlap::SharedRefused);
      },
      nb::arg("input"), nb::arg("dim"), nb::arg("index"), nb::kw_only(), nb::arg("sparse_grad") = false,
      nb::arg("out") = nb::none());
  tensor.def("gather", gather_fn, nb::arg("dim"), nb::arg("index"), nb::kw_only(),
             nb::arg("sparse_grad") = false);

  // scatter's src may be a tensor or a number (PyTorch's `value` overload). The older
  // `reduce="add"|"multiply"` form is scatter_reduce with include_self, a number standing for a src filled
  // with it.
  auto scatter_fn = [](const Tensor& x, int64_t dim, const Tensor& index, nb::handle src, nb::handle value,
                       nb::handle reduce) {
    src = scatter_source(src, value, "scatter");
    if (!reduce.is_none()) return scatter_reduce_arg(x, dim, index, src, reduce, false);
    if (is_tensor(src)) return scatter(x, dim, index, as_tensor_ref(src));
    return scatter(x, dim, index, number_argument(src, "scatter", "value"));
  };
  auto scatter_inplace_fn = [](const Tensor& x, int64_t dim, const Tensor& index, nb::handle src,
                               nb::handle value, nb::handle reduce) {
    src = scatter_source(src, value, "scatter_");
    if (!reduce.is_none()) return scatter_reduce_arg(x, dim, index, src, reduce, true);
    if (is_tensor(src)) return scatter_(x, dim, index, as_tensor_ref(src));
    return scatter_(x, dim, index, number_argument(src, "scatter_", "value"));
  };
  m.def(
      "scatter",
      [scatter_fn](const Tensor& x, int64_t dim, const Tensor& index, nb::handle src, nb::handle value,
                   nb::handle reduce, nb::handle out) {
        return write_out("scatter", scatter_fn(x, dim, index, src, value, reduce), out,
                         {&x, &index, is_tensor(src) ? &as_tensor_ref(src) : nullptr}, kStructuredOutDtype);
      },
      nb::arg("input"), nb::arg("dim"), nb::arg("index"), nb::arg("src") = nb::none(), nb::kw_only(),
      nb::arg("value") = nb::none(), nb::arg("reduce") = nb::none(), nb::arg("out") = nb::none());
  tensor.def("scatter", scatter_fn, nb::arg("dim"), nb::arg("index"), nb::arg("src") = nb::none(),
             nb::kw_only(), nb::arg("value") = nb::none(), nb::arg("reduce") = nb::none());
  tensor.def("scatter_", returning_self("scatter_", scatter_inplace_fn), nb::arg("dim"), nb::arg("index"),
             nb::arg("src") = nb::none(), nb::kw_only(), nb::arg("value") = nb::none(),
             nb::arg("reduce") = nb::none());
  auto scatter_add_fn = [](const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src) {
    return scatter_add(x, dim, index, src);
  };
  m.def(
      "scatter_add",
      [](const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src, nb::handle out) {
        return write_out("scatter_add", scatter_add(x, dim, index, src), out, {&x, &index, &src},
                         kStructuredOutDtype);
      },
      nb::arg("input"), nb::arg("dim"), nb::arg("index"), nb::arg("src"), nb::kw_only(),
      nb::arg("out") = nb::none());
  tensor.def("scatter_add", scatter_add_fn, nb::arg("dim"), nb::arg("index"), nb::arg("src"));
  tensor.def(
      "scatter_add_",
      returning_self("scatter_add_", [](const Tensor& x, int64_t dim, const Tensor& index,
                                        const Tensor& src) { return scatter_add_(x, dim, index, src); }),
      nb::arg("dim"), nb::arg("index"), nb::arg("src"));

  auto index_select_fn = [](const Tensor& x, int64_t dim, const Tensor& index) {
    return index_select(x, dim, index);
  };
  m.def(
      "index_select",
      [](const Tensor& x, int64_t dim, const Tensor& index, nb::handle out) {
        return write_out("index_select", index_select(x, dim, index), out, {&x, &index},
                         "index_select(): self and result must have the same scalar type",
                         OutOverlap::SharedRefused);
      },
      nb::arg("input"), nb::arg("dim"), nb::arg("index"), nb::kw_only(), nb::arg("out") = nb::none());
  tensor.def("index_select", index_select_fn, nb::arg("dim"), nb::arg("index"));

  auto index_add_fn = [](const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source,
                         nb::handle alpha) {
    return index_add(x, dim, index, source, number_argument(alpha, "index_add", "alpha"));
  };
  m.def(
      "index_add",
      [index_add_fn](const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source,
                     nb::handle alpha, nb::handle out) {
        return write_out("index_add", index_add_fn(x, dim, index, source, alpha), out, {&x, &index, &source},
                         kStructuredOutDtype);
      },
      nb::arg("input"), nb::arg("dim"), nb::arg("index"), nb::arg("source"), nb::kw_only(),
      nb::arg("alpha") = 1, nb::arg("out") = nb::none());
  tensor.def("index_add", index_add_fn, nb::arg("dim"), nb::arg("index"), nb::arg("source"), nb::kw_only(),
             nb::arg("alpha") = 1);
  tensor.def(
      "index_add_",
      returning_self(
          "index_add_",
          [](const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source, nb::handle alpha) {
            return index_add_(x, dim, index, source, number_argument(alpha, "index_add_", "alpha"));
          }),
      nb::arg("dim"), nb::arg("index"), nb::arg("source"), nb::kw_only(), nb::arg("alpha") = 1);
  auto index_copy_fn = [](const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source) {
    return index_copy(x, dim, index, source);
  };
  m.def(
      "index_copy",
      [](const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source, nb::handle out) {
        return write_out("index_copy", index_copy(x, dim, index, source), out, {&x, &index, &source},
                         kStructuredOutDtype, OutOverlap::PartialRefused);
      },
      nb::arg("input"), nb::arg("dim"), nb::arg("index"), nb::arg("source"), nb::kw_only(),
      nb::arg("out") = nb::none());
  tensor.def("index_copy", index_copy_fn, nb::arg("dim"), nb::arg("index"), nb::arg("source"));
  tensor.def(
      "index_copy_",
      returning_self("index_copy_", [](const Tensor& x, int64_t dim, const Tensor& index,
                                       const Tensor& source) { return index_copy_(x, dim, index, source); }),
      nb::arg("dim"), nb::arg("index"), nb::arg("source"));
  // index_fill's value: a number (a Python int past int64 read as uint64, as PyTorch's parser does; the fill
  // converts it checked) or a 0-d tensor.
  auto index_fill_inplace_fn = [](const Tensor& x, int64_t dim, const Tensor& index, nb::handle value) {
    if (is_tensor(value)) return index_fill_(x, dim, index, as_tensor_ref(value));
    Scalar number;
    if (to_scalar(value, number, /*allow_uint64=*/true)) return index_fill_(x, dim, index, number);
    return index_fill_(x, dim, index, number_argument(value, "index_fill_", "value"));
  };
  auto index_fill_fn = [=](const Tensor& x, int64_t dim, const Tensor& index, nb::handle value) {
    return index_fill_inplace_fn(clone_preserving_layout(x), dim, index, value);
  };
  m.def("index_fill", index_fill_fn, nb::arg("input"), nb::arg("dim"), nb::arg("index"), nb::arg("value"));
  // A call nanobind refuses (an int or list index) is explained from PyTorch's overloads.
  for (const char* name : {"index_fill", "index_fill_"})
    register_parser_signatures(name, {{{"Tensor input", "int dim", "Tensor index", "Tensor value"}},
                                      {{"Tensor input", "int dim", "Tensor index", "Number value"}}});
  tensor.def("index_fill", index_fill_fn, nb::arg("dim"), nb::arg("index"), nb::arg("value"));
  tensor.def("index_fill_", returning_self("index_fill_", index_fill_inplace_fn), nb::arg("dim"),
             nb::arg("index"), nb::arg("value"));
  auto take_fn = [](const Tensor& x, const Tensor& index) { return take(x, index); };
  m.def(
      "take",
      [](const Tensor& x, const Tensor& index, nb::handle out) {
        return write_out("take", take(x, index), out, {&x, &index},
                         "take(): self and out expected to have the same dtype, but got self.dtype = "
                         "{result} and out.dtype = {out}",
                         OutOverlap::SharedRefused);
      },
      nb::arg("input"), nb::arg("index"), nb::kw_only(), nb::arg("out") = nb::none());
  tensor.def("take", take_fn, nb::arg("index"));

  auto fill = [](const Tensor& x) {
    return [&x](const Tensor& mask, const auto& v) { return masked_fill(x, mask, v); };
  };
  m.def(
      "masked_fill",
      [fill](nb::handle x, nb::handle mask, nb::handle value) {
        if (!is_tensor(x)) throw_masked_fill_arguments("masked_fill", x, mask, value);
        return with_fill_value("masked_fill", x, mask, value, fill(as_tensor_ref(x)));
      },
      nb::arg("input").none(), nb::arg("mask").none(), nb::arg("value").none());
  tensor.def(
      "masked_fill",
      [fill](const Tensor& x, nb::handle mask, nb::handle value) {
        return with_fill_value("masked_fill", nb::handle(), mask, value, fill(x));
      },
      nb::arg("mask").none(), nb::arg("value").none());
  tensor.def("masked_fill_",
             returning_self("masked_fill_",
                            [](const Tensor& x, nb::handle mask, nb::handle value) {
                              return with_fill_value(
                                  "masked_fill_", nb::handle(), mask, value,
                                  [&](const Tensor& m, const auto& v) { return masked_fill_(x, m, v); });
                            }),
             nb::arg("mask").none(), nb::arg("value").none());
  // A call nanobind refuses (no value) is explained from PyTorch's overloads.
  for (const char* name : {"masked_fill", "masked_fill_"})
    register_parser_signatures(name, {{{"Tensor input", "Tensor mask", "Tensor value"}},
                                      {{"Tensor input", "Tensor mask", "Number value"}}});
  auto masked_select_fn = [](const Tensor& x, const Tensor& mask) { return masked_select(x, mask); };
  m.def(
      "masked_select",
      [](const Tensor& x, const Tensor& mask, nb::handle out) {
        return write_out("masked_select", masked_select(x, mask), out, {&x, &mask},
                         "masked_select(): self and result must have the same scalar type");
      },
      nb::arg("input"), nb::arg("mask"), nb::kw_only(), nb::arg("out") = nb::none());
  tensor.def("masked_select", masked_select_fn, nb::arg("mask"));

  auto nonzero_fn = [](const Tensor& x, bool as_tuple) -> nb::object {
    if (as_tuple) return tensor_tuple(nonzero_tuple(x));
    return wrap(nonzero(x));
  };
  m.def(
      "nonzero",
      [nonzero_fn](const Tensor& x, bool as_tuple, nb::handle out) -> nb::object {
        TANDEM_CHECK(!as_tuple || out.is_none(), Type,
                     "nonzero(): as_tuple=True returns new tensors and takes no out=\nhint: drop out=");
        if (as_tuple) return nonzero_fn(x, as_tuple);
        if (!out.is_none()) {
          const DType d = expect_tensor(out, "nonzero", "out").dtype();
          TANDEM_CHECK(d == DType::Int64, Runtime,
                       "nonzero: Expected out tensor to have scalar type Long but got scalar type",
                       dtype_title(d));
        }
        return into_out("nonzero", nonzero(x), out, {});  // indices: no gradient, so no autograd check
      },
      nb::arg("input"), nb::kw_only(), nb::arg("as_tuple") = false, nb::arg("out") = nb::none());
  tensor.def("nonzero", nonzero_fn, nb::kw_only(), nb::arg("as_tuple") = false);
  m.def(
      "argwhere", [](const Tensor& x) { return nonzero(x); }, nb::arg("input"));
  tensor.def("argwhere", [](const Tensor& x) { return nonzero(x); });

  m.def(
      "flip", [](const Tensor& x, nb::handle dims) { return flip(x, dims_arg(dims)); }, nb::arg("input"),
      nb::arg("dims"));
  tensor.def(
      "flip",
      [](const Tensor& x, nb::args args, nb::handle dims) {
        return flip(x, shape_from_args(args, dims, "flip", "dims"));
      },
      nb::arg("args"), nb::arg("dims") = nb::none());

  auto take_along_fn = [](const Tensor& x, const Tensor& indices, std::optional<int64_t> dim) {
    return take_along_dim(x, indices, dim);
  };
  m.def(
      "take_along_dim",
      [](const Tensor& x, const Tensor& indices, std::optional<int64_t> dim, nb::handle out) {
        return write_out("take_along_dim", take_along_dim(x, indices, dim), out, {&x, &indices},
                         kStructuredOutDtype);
      },
      nb::arg("input"), nb::arg("indices"), nb::arg("dim") = nb::none(), nb::kw_only(),
      nb::arg("out") = nb::none());
  tensor.def("take_along_dim", take_along_fn, nb::arg("indices"), nb::arg("dim") = nb::none());
  m.def(
      "fliplr", [](const Tensor& x) { return fliplr(x); }, nb::arg("input"));
  tensor.def("fliplr", [](const Tensor& x) { return fliplr(x); });
  m.def(
      "flipud", [](const Tensor& x) { return flipud(x); }, nb::arg("input"));
  tensor.def("flipud", [](const Tensor& x) { return flipud(x); });

  m.def(
      "one_hot", [](const Tensor& x, int64_t num_classes) { return one_hot(x, num_classes); },
      nb::arg("tensor"), nb::arg("num_classes") = -1);

  tensor.def("index_put_",
             returning_self("index_put_",
                            [](const Tensor& x, nb::handle indices, const Tensor& values, bool accumulate) {
                              return index_put_(x, tensor_tuple(indices), values, accumulate);
                            }),
             nb::arg("indices"), nb::arg("values"), nb::arg("accumulate") = false);
  tensor.def(
      "index_put",
      [](const Tensor& x, nb::handle indices, const Tensor& values, bool accumulate) {
        return index_put(x, tensor_tuple(indices), values, accumulate);
      },
      nb::arg("indices"), nb::arg("values"), nb::arg("accumulate") = false);
}

}  // namespace tandem::py
