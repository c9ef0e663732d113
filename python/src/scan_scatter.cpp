// Bindings of the composed scans (cumprod, cummax/cummin, logcumsumexp, cumsum_/cumprod_) and reducing
// scatters (scatter_reduce, index_reduce, masked_scatter) as tandem.X and Tensor.X where PyTorch has both.
#include <nanobind/stl/string.h>

#include <string>

#include "bindings.h"
#include "core/error.h"
#include "ops/scan.h"
#include "ops/scatter_reduce.h"

namespace tandem::py {

namespace {

// PyTorch's argument parser: dim is a required int (a bool or None is refused). `position` counts from 1 as
// PyTorch's message does: one more in the tandem.X form than in the Tensor.X form, where self is not counted.
int64_t dim_arg(nb::handle h, const char* fn, int position) {
  const bool ok = !h.is_none() && !PyBool_Check(h.ptr()) && !PyFloat_Check(h.ptr()) &&
                  PyIndex_Check(h.ptr()) && (!is_tensor(h) || as_tensor_ref(h).dim() == 0);
  TANDEM_CHECK(ok, Type, fn, "(): argument 'dim' (position ", position, ") must be int, not ",
               nb::inst_name(h).c_str());
  return nb::cast<int64_t>(nb::int_(h));
}

const Tensor& tensor_arg(nb::handle h, const char* fn, const char* arg, int position) {
  TANDEM_CHECK(is_tensor(h), Type, fn, "(): argument '", arg, "' (position ", position,
               ") must be Tensor, not ", nb::inst_name(h).c_str());
  return as_tensor_ref(h);
}

std::string reduce_arg(nb::handle h, const char* fn, int position) {
  TANDEM_CHECK(PyUnicode_Check(h.ptr()), Type, fn, "(): argument 'reduce' (position ", position,
               ") must be str, not ", nb::inst_name(h).c_str());
  return nb::cast<std::string>(h);
}

// tandem.return_types.cummax / cummin, created at import and kept for the process's life.
nb::handle pair_types[2];
nb::object named_pair(bool is_max, ValuesIndices r) {
  return pair_types[is_max ? 0 : 1](wrap(std::move(r.first)), wrap(std::move(r.second)));
}

// make(shift) builds the binding; shift is 1 for tandem.X (input is argument 1) and 0 for Tensor.X.
template <typename Make, typename... Extra>
void def_both(nb::module_& m, nb::class_<Tensor>& tensor, const char* name, Make make,
              const Extra&... extra) {
  m.def(name, make(1), nb::arg("input"), extra...);
  tensor.def(name, make(0), extra...);
}

}  // namespace

void init_scan_scatter(nb::module_& m) {
  auto cls = nb::type<Tensor>();
  auto& tensor = static_cast<nb::class_<Tensor>&>(cls);
  auto none = nb::none();

  nb::object rt = m.attr("return_types");
  nb::object namedtuple = nb::module_::import_("collections").attr("namedtuple");
  const char* pair_names[] = {"cummax", "cummin"};
  for (int i = 0; i < 2; ++i) {
    nb::object t = namedtuple(pair_names[i], nb::make_tuple("values", "indices"));
    t.attr("__module__") = "tandem.return_types";
    rt.attr(pair_names[i]) = t;
    pair_types[i] = t.release();
  }

  def_both(
      m, tensor, "cumprod",
      [](int shift) {
        return [shift](const Tensor& x, nb::handle dim, nb::handle dtype, nb::handle out) {
          return into_out(
              "cumprod",
              cumprod(x, dim_arg(dim, "cumprod", 1 + shift), scan_dtype(to_optional_dtype(dtype), out)), out,
              {&x}, OutOverlap::PartialRefused);
        };
      },
      nb::arg("dim").none(), nb::kw_only(), nb::arg("dtype") = none, nb::arg("out") = none);
  auto extreme = [&](const char* name, bool is_max) {
    def_both(
        m, tensor, name,
        [name, is_max](int shift) {
          return [name, is_max, shift](const Tensor& x, nb::handle dim, nb::handle out) {
            int64_t d = dim_arg(dim, name, 1 + shift);
            return into_outs(name, named_pair(is_max, is_max ? cummax(x, d) : cummin(x, d)), out, {&x},
                             "expected scalar_type {result} but found {out}");
          };
        },
        nb::arg("dim").none(), nb::kw_only(), nb::arg("out") = none);
  };
  extreme("cummax", true);
  extreme("cummin", false);
  def_both(
      m, tensor, "logcumsumexp",
      [](int shift) {
        return [shift](const Tensor& x, nb::handle dim, nb::handle out) {
          return write_out("logcumsumexp", logcumsumexp(x, dim_arg(dim, "logcumsumexp", 1 + shift)), out,
                           {&x}, "expected scalar_type {result} but found {out}");
        };
      },
      nb::arg("dim").none(), nb::kw_only(), nb::arg("out") = none);
  tensor.def("cumsum_",
             returning_self("cumsum_",
                            [](const Tensor& x, nb::handle dim, nb::handle dtype) {
                              return cumsum_(x, dim_arg(dim, "cumsum_", 1), to_optional_dtype(dtype));
                            }),
             nb::arg("dim").none(), nb::kw_only(), nb::arg("dtype") = none);
  tensor.def("cumprod_",
             returning_self("cumprod_",
                            [](const Tensor& x, nb::handle dim, nb::handle dtype) {
                              return cumprod_(x, dim_arg(dim, "cumprod_", 1), to_optional_dtype(dtype));
                            }),
             nb::arg("dim").none(), nb::kw_only(), nb::arg("dtype") = none);

  def_both(
      m, tensor, "scatter_reduce",
      [](int shift) {
        return [shift](const Tensor& x, nb::handle dim, const Tensor& index, nb::handle src_arg,
                       nb::handle reduce, bool include_self, nb::handle out) {
          const Tensor& src = tensor_arg(src_arg, "scatter_reduce", "src", 3 + shift);
          return write_out("scatter_reduce",
                           scatter_reduce(x, dim_arg(dim, "scatter_reduce", 1 + shift), index, src,
                                          reduce_arg(reduce, "scatter_reduce", 4 + shift), include_self),
                           out, {&x, &index, &src}, kStructuredOutDtype);
        };
      },
      nb::arg("dim").none(), nb::arg("index"), nb::arg("src"), nb::arg("reduce").none(), nb::kw_only(),
      nb::arg("include_self") = true, nb::arg("out") = none);
  tensor.def("scatter_reduce_",
             returning_self("scatter_reduce_",
                            [](const Tensor& x, nb::handle dim, const Tensor& index, nb::handle src,
                               nb::handle reduce, bool include_self) {
                              return scatter_reduce_(x, dim_arg(dim, "scatter_reduce_", 1), index,
                                                     tensor_arg(src, "scatter_reduce_", "src", 3),
                                                     reduce_arg(reduce, "scatter_reduce_", 4), include_self);
                            }),
             nb::arg("dim").none(), nb::arg("index"), nb::arg("src"), nb::arg("reduce").none(), nb::kw_only(),
             nb::arg("include_self") = true);

  def_both(
      m, tensor, "index_reduce",
      [](int shift) {
        return [shift](const Tensor& x, nb::handle dim, const Tensor& index, const Tensor& source,
                       nb::handle reduce, bool include_self, nb::handle out) {
          return write_out("index_reduce",
                           index_reduce(x, dim_arg(dim, "index_reduce", 1 + shift), index, source,
                                        reduce_arg(reduce, "index_reduce", 4 + shift), include_self),
                           out, {&x, &index, &source}, kStructuredOutDtype);
        };
      },
      nb::arg("dim").none(), nb::arg("index"), nb::arg("source"), nb::arg("reduce").none(), nb::kw_only(),
      nb::arg("include_self") = true, nb::arg("out") = none);
  tensor.def("index_reduce_",
             returning_self("index_reduce_",
                            [](const Tensor& x, nb::handle dim, const Tensor& index, const Tensor& source,
                               nb::handle reduce, bool include_self) {
                              return index_reduce_(x, dim_arg(dim, "index_reduce_", 1), index, source,
                                                   reduce_arg(reduce, "index_reduce_", 4), include_self);
                            }),
             nb::arg("dim").none(), nb::arg("index"), nb::arg("source"), nb::arg("reduce").none(),
             nb::kw_only(), nb::arg("include_self") = true);

  def_both(
      m, tensor, "masked_scatter",
      [](int) {
        return [](const Tensor& x, const Tensor& mask, const Tensor& source) {
          return masked_scatter(x, mask, source);
        };
      },
      nb::arg("mask"), nb::arg("source"));
  tensor.def("masked_scatter_",
             returning_self("masked_scatter_",
                            [](const Tensor& x, const Tensor& mask, const Tensor& source) {
                              return masked_scatter_(x, mask, source);
                            }),
             nb::arg("mask"), nb::arg("source"));
}

}  // namespace tandem::py
