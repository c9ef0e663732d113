// Bindings of the order statistics (median, nanmedian, kthvalue, mode, quantile, nanquantile, msort), the
// searches and set ops (searchsorted, bucketize, unique, unique_consecutive, isin) and the counting ops
// (bincount, histc, histogram): tandem.X, and Tensor.X where PyTorch has the method too.
#include <nanobind/stl/string.h>

#include <string>

#include "bindings.h"
#include "core/error.h"
#include "ops/copy.h"
#include "ops/histogram.h"
#include "ops/order_stats.h"
#include "ops/out_arg.h"
#include "ops/search_sets.h"
#include "parser_errors.h"

namespace tandem::py {

namespace {

// torch.return_types-style named tuples, created at import and kept for the process's life.
enum ResultKind { kMedian, kNanmedian, kKthvalue, kMode, kHistogram, kNumKinds };
nb::handle& result_type(ResultKind kind) {
  static nb::handle types[kNumKinds];
  return types[kind];
}
nb::object named(ResultKind kind, const Tensor& a, const Tensor& b) {
  return result_type(kind)(wrap(a), wrap(b));
}
nb::object named(ResultKind kind, const ValuesIndices& r) { return named(kind, r.first, r.second); }

template <typename Fn, typename... Extra>
void def_both(nb::module_& m, nb::class_<Tensor>& tensor, const char* name, Fn fn, const Extra&... extra) {
  m.def(name, fn, nb::arg("input"), extra...);
  tensor.def(name, fn, extra...);
}

// def_both for bindings whose messages name argument positions: make(shift) builds the binding, with shift 1
// for tandem.X (input is argument 1) and 0 for Tensor.X (self is not counted).
template <typename Make, typename... Extra>
void def_both_positioned(nb::module_& m, nb::class_<Tensor>& tensor, const char* name, Make make,
                         const Extra&... extra) {
  m.def(name, make(1), nb::arg("input"), extra...);
  tensor.def(name, make(0), extra...);
}

bool truthy(nb::handle h) {
  int r = PyObject_IsTrue(h.ptr());
  if (r < 0) throw nb::python_error();
  return r != 0;
}

// An int argument of a binding shared by tandem.X and Tensor.X: its error names the position the call used
// (parser_errors.h, defer_argument_position).
int64_t positioned_int_arg(nb::handle h, const char* fn, const char* arg) {
  if (!is_int_argument(h)) defer_argument_position(fn, arg);
  return int_arg(h, fn, arg);
}

std::optional<int64_t> optional_int(nb::handle h, const char* fn, const char* arg) {
  if (h.is_none()) return std::nullopt;
  return int_arg(h, fn, arg);
}
std::optional<Tensor> optional_tensor(nb::handle h, const char* fn, const char* arg) {
  if (h.is_none()) return std::nullopt;
  return expect_tensor(h, fn, arg);
}
double float_arg(nb::handle h, const char* fn, const char* arg) {
  TANDEM_CHECK(PyNumber_Check(h.ptr()) && !is_tensor(h), Type, fn, "(): argument '", arg,
               "' must be float, not ", nb::inst_name(h).c_str());
  double v = PyFloat_AsDouble(h.ptr());
  if (v == -1.0 && PyErr_Occurred()) throw nb::python_error();
  return v;
}

// histc's and histogram's message for an out (hist) of another dtype.
constexpr const char* kHistogramOutDtype =
    "torch.histogram: input tensor and hist tensor should have the same dtype, but got input {result_cpp} "
    "and hist "
    "{out_cpp}";

// PyTorch checks histogram's outs first (its parser, then histogramdd_prepare_out): a tuple of two tensors of
// the input's dtype. `position`: out's place among the overload's arguments, as the parser names it.
void check_histogram_outs(const Tensor& x, nb::handle out, int position) {
  if (out.is_none()) return;
  if (!nb::isinstance<nb::tuple>(out) && !nb::isinstance<nb::list>(out))
    refuse_as_invalid_combination("histogram", *registered_parser_signatures("histogram"), "out", out,
                                  "tuple of Tensors");
  TANDEM_CHECK(nb::len(out) == 2, Type, "expected tuple of 2 elements but got ", nb::len(out),
               "\nhint: pass out=(hist, bin_edges)");
  for (size_t i = 0; i < 2; ++i)
    TANDEM_CHECK(is_tensor(out[i]), Type, "expected Tensor as element ", i, " in argument ", position,
                 ", but got ", nb::inst_name(out[i]).c_str(), "\nhint: pass out=(hist, bin_edges)");
  const DType hist = as_tensor_ref(out[0]).dtype(), edges = as_tensor_ref(out[1]).dtype();
  const char* hint = "\nhint: histogram writes the input's dtype: pass outs of that dtype";
  TANDEM_CHECK(hist == x.dtype(), Runtime,
               "torch.histogram: input tensor and hist tensor should have the same dtype, but got input ",
               dtype_cpp_name(x.dtype()), " and hist ", dtype_cpp_name(hist), hint);
  TANDEM_CHECK(
      edges == x.dtype(), Runtime,
      "torch.histogram: input tensor and bin_edges tensor should have the same dtype, but got input ",
      dtype_cpp_name(x.dtype()), " and bin_edges ", dtype_cpp_name(edges), " for dimension 0", hint);
}

// median's and nanmedian's messages (PyTorch's argument checks name median for both).
constexpr const char* kMedianValuesOutDtype =
    "Expected tensor for 'values' to have the same type as tensor for argument #2 'self'; but type "
    "{out_legacy} "
    "does not equal {result_legacy} (while checking arguments for median)";
constexpr const char* kMedianIndicesOutDtype =
    "Expected tensor for argument #1 'indices' to have scalar type Long; but got {out_legacy} instead (while "
    "checking arguments for median)";

// median/nanmedian: no dim reduces everything (and takes no keepdim), as PyTorch's two overloads.
void def_median(nb::module_& m, nb::class_<Tensor>& tensor, const char* name, bool ignore_nan) {
  def_both_positioned(
      m, tensor, name,
      [name, ignore_nan](int) {
        return [name, ignore_nan](const Tensor& x, nb::handle dim, nb::handle keepdim,
                                  nb::handle out) -> nb::object {
          if (dim.is(Py_Ellipsis)) {  // not given (an explicit None is PyTorch's TypeError below)
            // PyTorch's whole-tensor overload takes neither keepdim nor out=.
            TANDEM_CHECK(keepdim.is_none() && out.is_none(), Type, name,
                         "() missing 1 required positional arguments: \"dim\"",
                         "\nhint: keepdim and out= need a dim, e.g. x.", name, "(dim=0, keepdim=True)");
            return wrap(ignore_nan ? tandem::nanmedian(x) : tandem::median(x));
          }
          int64_t d = positioned_int_arg(dim, name, "dim");
          bool kd = !keepdim.is_none() && truthy(keepdim);
          return into_outs(name,
                           named(ignore_nan ? kNanmedian : kMedian,
                                 ignore_nan ? tandem::nanmedian(x, d, kd) : tandem::median(x, d, kd)),
                           out, {&x}, kMedianValuesOutDtype, kMedianIndicesOutDtype);
        };
      },
      nb::arg("dim").none() = nb::ellipsis(), nb::arg("keepdim") = nb::none(), nb::kw_only(),
      nb::arg("out") = nb::none());
}

// quantile/nanquantile: q a number or a tensor; interpolation by name.
void def_quantile(nb::module_& m, nb::class_<Tensor>& tensor, const char* name, bool ignore_nan) {
  def_both(
      m, tensor, name,
      [name, ignore_nan](const Tensor& x, nb::handle q, nb::handle dim, bool keepdim,
                         nb::handle interpolation, nb::handle out) {
        // A q, dim or interpolation of another type fits neither of PyTorch's overloads (q a Tensor or a
        // float): its listing of both, worded from the call.
        const bool q_ok = is_tensor(q) || PyFloat_Check(q.ptr()) || PyLong_Check(q.ptr());
        if (!q_ok || !(dim.is_none() || is_int_argument(dim)) ||
            !(PyUnicode_Check(interpolation.ptr()) ||
              PyBytes_Check(interpolation.ptr())))  // str_arg takes bytes too
          refuse_as_invalid_combination(
              name,
              {{{"Tensor input", "Tensor q", "int dim = None", "bool keepdim = False"},
                "*, str interpolation = \"linear\", Tensor out = None"},
               {{"Tensor input", "float q", "int dim = None", "bool keepdim = False"},
                "*, str interpolation = \"linear\", Tensor out = None"}},
              "q", q, "float");
        std::optional<int64_t> d = optional_int(dim, name, "dim");
        QuantileInterpolation how =
            parse_quantile_interpolation(str_arg(interpolation, name, "interpolation"));
        Tensor r;
        if (is_tensor(q)) {
          const Tensor& qt = as_tensor_ref(q);
          r = ignore_nan ? nanquantile(x, qt, d, keepdim, how) : quantile(x, qt, d, keepdim, how);
        } else {
          TANDEM_CHECK(PyFloat_Check(q.ptr()) || PyLong_Check(q.ptr()), Type, name,
                       "(): argument 'q' must be float or Tensor, not ", nb::inst_name(q).c_str(),
                       "\nhint: pass several quantiles as a tensor, e.g. tandem.tensor([0.25, 0.75])");
          double qv = float_arg(q, name, "q");
          r = ignore_nan ? nanquantile(x, qv, d, keepdim, how) : quantile(x, qv, d, keepdim, how);
        }
        // PyTorch's quantile is a composition that copies its values into out (out then records the copy), so
        // an input that requires grad is no refusal.
        return write_out(name, r, out, {}, "quantile() out tensor must be same dtype as the input tensor");
      },
      nb::arg("q").none(), nb::arg("dim") = nb::none(), nb::arg("keepdim") = false, nb::kw_only(),
      nb::arg("interpolation").none() = "linear", nb::arg("out") = nb::none());
}

// The tuple unique/unique_consecutive return: the values alone, or with the inverse and/or counts asked for.
nb::object unique_result(const UniqueResult& r, bool return_inverse, bool return_counts) {
  if (return_inverse && return_counts) return nb::make_tuple(wrap(r.values), wrap(r.inverse), wrap(r.counts));
  if (return_inverse) return nb::make_tuple(wrap(r.values), wrap(r.inverse));
  if (return_counts) return nb::make_tuple(wrap(r.values), wrap(r.counts));
  return wrap(r.values);
}

void def_order_stats(nb::module_& m, nb::class_<Tensor>& tensor) {
  def_median(m, tensor, "median", false);
  def_median(m, tensor, "nanmedian", true);
  def_both_positioned(
      m, tensor, "kthvalue",
      [](int) {
        return [](const Tensor& x, nb::handle k, nb::handle dim, bool keepdim, nb::handle out) {
          const int64_t kth = positioned_int_arg(k, "kthvalue", "k");  // k first, as PyTorch reports
          return into_outs(
              "kthvalue",
              named(kKthvalue, tandem::kthvalue(x, kth, positioned_int_arg(dim, "kthvalue", "dim"), keepdim)),
              out, {&x}, "output values must be of same type as input",
              "output indices must be of scalar type Long");
        };
      },
      nb::arg("k").none(), nb::arg("dim").none() = -1, nb::arg("keepdim") = false, nb::kw_only(),
      nb::arg("out") = nb::none());
  def_both_positioned(
      m, tensor, "mode",
      [](int) {
        return [](const Tensor& x, nb::handle dim, bool keepdim, nb::handle out) {
          return into_outs("mode",
                           named(kMode, tandem::mode(x, positioned_int_arg(dim, "mode", "dim"), keepdim)),
                           out, {&x}, "expected scalar type '{result}' but got '{out}' for values output",
                           "expected scalar type '{result}' but got '{out}' for indices output");
        };
      },
      nb::arg("dim").none() = -1, nb::arg("keepdim") = false, nb::kw_only(), nb::arg("out") = nb::none());
  def_quantile(m, tensor, "quantile", false);
  def_quantile(m, tensor, "nanquantile", true);
  def_both(
      m, tensor, "msort",
      [](const Tensor& x, nb::handle out) {
        return write_out("msort", tandem::msort(x), out, {&x}, kStructuredOutDtype);
      },
      nb::kw_only(), nb::arg("out") = nb::none());
}

void def_search_sets(nb::module_& m, nb::class_<Tensor>& tensor) {
  m.def(
      "searchsorted",
      [](const Tensor& seq, nb::handle values, bool out_int32, bool right, nb::handle side, nb::handle sorter,
         nb::handle out) {
        std::optional<std::string> side_name;
        if (!side.is_none()) {
          side_name = str_arg(side, "searchsorted", "side");
        }
        std::optional<std::string_view> side_view;
        if (side_name) side_view = *side_name;
        std::optional<Tensor> order = optional_tensor(sorter, "searchsorted", "sorter");
        if (!out.is_none()) check_searchsorted_out(expect_tensor(out, "searchsorted", "out"), out_int32);
        Tensor r;
        Scalar s;
        if (is_tensor(values))
          r = tandem::searchsorted(seq, as_tensor_ref(values), out_int32, right, side_view, order);
        else if (to_scalar(values, s))
          r = tandem::searchsorted(seq, s, out_int32, right, side_view, order);
        else
          TANDEM_THROW(Type, "searchsorted(): argument 'input' must be Tensor or Number, not ",
                       nb::inst_name(values).c_str());
        return into_out("searchsorted", r, out, {});
      },
      nb::arg("sorted_sequence"), nb::arg("input"), nb::kw_only(), nb::arg("out_int32") = false,
      nb::arg("right") = false, nb::arg("side") = nb::none(), nb::arg("sorter") = nb::none(),
      nb::arg("out") = nb::none());
  m.def(
      "bucketize",
      [](nb::handle input, const Tensor& boundaries, bool out_int32, bool right, nb::handle out) {
        if (!out.is_none()) check_searchsorted_out(expect_tensor(out, "bucketize", "out"), out_int32);
        Tensor r;
        Scalar s;
        if (is_tensor(input))
          r = tandem::bucketize(as_tensor_ref(input), boundaries, out_int32, right);
        else if (to_scalar(input, s))
          r = tandem::bucketize(s, boundaries, out_int32, right);
        else
          TANDEM_THROW(Type, "bucketize(): argument 'input' must be Tensor or Number, not ",
                       nb::inst_name(input).c_str());
        return into_out("bucketize", r, out, {});
      },
      nb::arg("input"), nb::arg("boundaries"), nb::kw_only(), nb::arg("out_int32") = false,
      nb::arg("right") = false, nb::arg("out") = nb::none());

  def_both(
      m, tensor, "unique",
      [](const Tensor& x, bool sorted, bool return_inverse, bool return_counts, nb::handle dim) {
        (void)sorted;  // always sorted, as PyTorch's CPU unique
        return unique_result(tandem::unique(x, optional_int(dim, "unique", "dim")), return_inverse,
                             return_counts);
      },
      nb::arg("sorted") = true, nb::arg("return_inverse") = false, nb::arg("return_counts") = false,
      nb::arg("dim") = nb::none());
  def_both(
      m, tensor, "unique_consecutive",
      [](const Tensor& x, bool return_inverse, bool return_counts, nb::handle dim) {
        return unique_result(tandem::unique_consecutive(x, optional_int(dim, "unique_consecutive", "dim")),
                             return_inverse, return_counts);
      },
      nb::arg("return_inverse") = false, nb::arg("return_counts") = false, nb::arg("dim") = nb::none());
  // PyTorch's three overloads: a call that fits none (two numbers, invert=1) gets their listing.
  constexpr const char* kIsinKeywords =
      "*, bool assume_unique = False, bool invert = False, Tensor out = None";
  static const std::vector<ParserSignature>& isin_overloads =
      register_parser_signatures("isin", {{{"Tensor elements", "Tensor test_elements"}, kIsinKeywords},
                                          {{"Number element", "Tensor test_elements"}, kIsinKeywords},
                                          {{"Tensor elements", "Number test_element"}, kIsinKeywords}});
  m.def(
      "isin",
      [](nb::handle elements, nb::handle test_elements, bool assume_unique, bool invert, nb::handle out) {
        Tensor r;
        Scalar s;
        if (is_tensor(elements) && is_tensor(test_elements))
          r = tandem::isin(as_tensor_ref(elements), as_tensor_ref(test_elements), assume_unique, invert);
        else if (is_tensor(elements) && to_scalar(test_elements, s))
          r = tandem::isin(as_tensor_ref(elements), s, assume_unique, invert);
        else if (is_tensor(test_elements) && to_scalar(elements, s))
          r = tandem::isin(s, as_tensor_ref(test_elements), assume_unique, invert);
        else
          refuse_as_invalid_combination("isin", isin_overloads, "elements", elements, "Tensor");
        return into_out("isin", r, out, {});
      },
      nb::arg("elements"), nb::arg("test_elements"), nb::kw_only(), nb::arg("assume_unique") = false,
      nb::arg("invert") = false, nb::arg("out") = nb::none());
}

void def_counting(nb::module_& m, nb::class_<Tensor>& tensor) {
  def_both(
      m, tensor, "bincount",
      [](const Tensor& x, nb::handle weights, nb::handle minlength) {
        return tandem::bincount(x, optional_tensor(weights, "bincount", "weights"),
                                int_arg(minlength, "bincount", "minlength"));
      },
      nb::arg("weights") = nb::none(), nb::arg("minlength") = 0);
  def_both(
      m, tensor, "histc",
      [](const Tensor& x, nb::handle bins, nb::handle min, nb::handle max, nb::handle out) {
        Tensor r = tandem::histc(x, int_arg(bins, "histc", "bins"), float_arg(min, "histc", "min"),
                                 float_arg(max, "histc", "max"));
        return write_out("histc", r, out, {&x}, kHistogramOutDtype);
      },
      nb::arg("bins") = 100, nb::arg("min") = 0, nb::arg("max") = 0, nb::kw_only(),
      nb::arg("out") = nb::none());
  // PyTorch's two overloads: a float bins, range= with bin edges or an out= that is not a tuple get their
  // listing.
  static const std::vector<ParserSignature>& histogram_overloads = register_parser_signatures(
      "histogram",
      {{{"Tensor input", "Tensor bins"},
        "*, Tensor weight = None, bool density = False, tuple of Tensors out = None"},
       {{"Tensor input", "int bins = 100"},
        "*, tuple of floats range = None, Tensor weight = None, bool density = False, tuple of Tensors out = "
        "None"}});
  def_both(
      m, tensor, "histogram",
      [](const Tensor& x, nb::handle bins, nb::handle range, nb::handle weight, bool density,
         nb::handle out) {
        const bool edges_given = is_tensor(bins);
        if (!edges_given && (!PyIndex_Check(bins.ptr()) || PyBool_Check(bins.ptr())))
          refuse_as_invalid_combination("histogram", histogram_overloads, "bins", bins, "int");
        if (edges_given && !range.is_none())
          refuse_as_invalid_combination("histogram", histogram_overloads, "range", range, "tuple of floats");
        check_histogram_outs(x, out, edges_given ? 4 : 5);
        std::optional<Tensor> w = optional_tensor(weight, "histogram", "weight");
        if (edges_given) {
          Histogram h = tandem::histogram(x, as_tensor_ref(bins), w, density);
          return into_outs("histogram", named(kHistogram, h.hist, h.bin_edges), out, {&x},
                           kHistogramOutDtype);
        }
        std::optional<std::pair<double, double>> r;
        if (!range.is_none()) {
          TANDEM_CHECK(PySequence_Check(range.ptr()) && !nb::isinstance<nb::str>(range), Type,
                       "histogram(): argument 'range' must be tuple of floats, not ",
                       nb::inst_name(range).c_str());
          nb::sequence seq = nb::borrow<nb::sequence>(range);
          TANDEM_CHECK(
              nb::len(seq) == 2, Runtime,
              "torch.histogramdd: for a 1-dimensional histogram range should have 2 elements, but got ",
              nb::len(seq), "\nhint: pass range=(min, max)");
          r = std::make_pair(float_arg(seq[0], "histogram", "range"),
                             float_arg(seq[1], "histogram", "range"));
        }
        Histogram h = tandem::histogram(x, int_arg(bins, "histogram", "bins"), r, w, density);
        return into_outs("histogram", named(kHistogram, h.hist, h.bin_edges), out, {&x}, kHistogramOutDtype);
      },
      nb::arg("bins") = 100, nb::kw_only(), nb::arg("range") = nb::none(), nb::arg("weight") = nb::none(),
      nb::arg("density") = false, nb::arg("out") = nb::none());
}

}  // namespace

void init_order_stats(nb::module_& m) {
  auto cls = nb::type<Tensor>();
  auto& tensor = static_cast<nb::class_<Tensor>&>(cls);

  nb::object rt = m.attr("return_types");
  nb::object namedtuple = nb::module_::import_("collections").attr("namedtuple");
  const char* names[kNumKinds] = {"median", "nanmedian", "kthvalue", "mode", "histogram"};
  for (int i = 0; i < kNumKinds; ++i) {
    nb::object fields =
        i == kHistogram ? nb::make_tuple("hist", "bin_edges") : nb::make_tuple("values", "indices");
    nb::object t = namedtuple(names[i], fields);
    t.attr("__module__") = "tandem.return_types";
    rt.attr(names[i]) = t;
    result_type(static_cast<ResultKind>(i)) = t.release();
  }

  def_order_stats(m, tensor);
  def_search_sets(m, tensor);
  def_counting(m, tensor);
}

}  // namespace tandem::py
