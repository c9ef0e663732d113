// Reductions, scans and sorts as module functions (tandem.sum) and Tensor methods (t.sum). Methods also take
// NumPy's spellings (axis, keepdims, out=None, ddof, dtype=np.float64) so np.sum(t) and friends dispatch
// here.
#include <nanobind/stl/optional.h>

#include <cmath>
#include <string>

#include "bindings.h"
#include "core/error.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/reduce.h"
#include "ops/view.h"
#include "parser_errors.h"

namespace tandem::py {

namespace {

bool truthy(nb::handle h) {
  int r = PyObject_IsTrue(h.ptr());
  if (r < 0) throw nb::python_error();
  return r != 0;
}

// Both names at once (dim and NumPy's axis) is PyTorch's TypeError (its parser reads axis as dim, then finds
// dim twice).
void check_not_both(nb::handle own, nb::handle alias, const char* fn, const char* alias_name) {
  TANDEM_CHECK(own.is_none() || alias.is_none(), Type, fn, "() got an unexpected keyword argument '", alias_name,
               "'");
}

// How a dim PyTorch's parser does not read is refused: with the listing of the function's overloads where it
// has several (sum, std, all, ...); else "fn(): argument 'dim' must be tuple of ints, not T", with the
// position when `position` names it (norm's, which is linalg_vector_norm's third argument in PyTorch), or the
// one the call gave it by (the wrapper adds it, and then names a refused list's first item, as PyTorch).
struct DimRefusal {
  const std::vector<ParserSignature>* overloads = nullptr;
  int position = 0;
};

[[noreturn]] void refuse_dims(nb::handle h, const char* fn, DimRefusal how) {
  if (how.overloads) refuse_as_invalid_combination(fn, *how.overloads, "dim", h, "tuple of ints");
  if (!how.position) {
    defer_argument_position(fn, "dim");
    TANDEM_THROW(Type, fn, "(): argument 'dim' must be tuple of ints, not ", parser_type_name(h));
  }
  if (PyTuple_Check(h.ptr()) || PyList_Check(h.ptr()))
    TANDEM_THROW(Type, fn, "(): argument 'dim' (position ", how.position,
                 ") must be tuple of ints, but found element of type ",
                 parser_type_name(nb::steal(PySequence_GetItem(h.ptr(), 0))), " at pos 0");
  TANDEM_THROW(Type, fn, "(): argument 'dim' (position ", how.position, ") must be tuple of ints, not ",
               parser_type_name(h));
}

// dim or its NumPy alias axis: None, an int, or a tuple/list of ints.
OptDims parse_dims(nb::handle dim, nb::handle axis, const char* fn, DimRefusal how = {}) {
  check_not_both(dim, axis, fn, "axis");
  nb::handle h = dim.is_none() ? axis : dim;
  if (h.is_none()) return std::nullopt;
  DimVector dims;
  if (PyTuple_Check(h.ptr()) || PyList_Check(h.ptr())) {
    // Read through a tuple: an item's __index__ could change a list under the loop.
    const nb::tuple items = nb::steal<nb::tuple>(PySequence_Tuple(h.ptr()));
    if (!items.is_valid()) throw nb::python_error();
    if (items.size() > 0 && !int_list_head(items[0])) refuse_dims(h, fn, how);  // (bindings.h)
    for (size_t i = 0; i < items.size(); ++i) {
      nb::handle item = items[i];
      TANDEM_CHECK(PyLong_Check(item.ptr()) || PyIndex_Check(item.ptr()), Type, fn,
                   "(): argument 'dim' failed to unpack the object at pos ", i + 1,
                   " with error \"type must be tuple of ints,but got ", parser_type_name(item), "\"");
      const nb::object index = nb::steal(PyNumber_Index(item.ptr()));  // a float tensor's refuses
      if (!index.is_valid()) throw nb::python_error();
      dims.push_back(nb::cast<int64_t>(index));
    }
    return dims;
  }
  const bool one = is_tensor(h)
                       ? as_tensor_ref(h).numel() == 1 && is_integral(as_tensor_ref(h).dtype(), false)
                       : is_int_argument(h);
  if (!one) refuse_dims(h, fn, how);
  dims.push_back(nb::cast<int64_t>(nb::int_(h)));
  return dims;
}

// A single dim (or None) where PyTorch takes only an int: a Python int or a 0-dim integer tensor (PyTorch's
// argument parser refuses bools and tensors with dims there, although their __index__ works).
std::optional<int64_t> parse_one_dim(nb::handle dim, nb::handle axis, const char* fn) {
  check_not_both(dim, axis, fn, "axis");
  nb::handle h = dim.is_none() ? axis : dim;
  if (h.is_none()) return std::nullopt;
  // No position here: the method's and the function's differ, and the wrapper names the one the call used
  // (python/tandem/_parser_errors.py, _with_position).
  if (!is_int_argument(h)) defer_argument_position(fn, "dim");
  return int_arg(h, fn, "dim");
}

// keepdim's default (False or None) does not count as given.
bool parse_keepdim(nb::handle keepdim, nb::handle keepdims, const char* fn) {
  check_not_both(keepdim.is(Py_False) ? nb::none() : keepdim, keepdims, fn, "keepdims");
  return truthy(keepdims.is_none() ? keepdim : keepdims);
}
// keepdim as PyTorch's parser takes it, a bool (nanobind refuses anything else, and
// python/tandem/_parser_errors.py words that as PyTorch: "sum(): argument 'keepdim' (position 2) must be
// bool, not int", so t.sum(0, 1) is no reduction over two dims); NumPy's keepdims stays any truth value.
bool parse_keepdim(bool keepdim, nb::handle keepdims, const char* fn) {
  return parse_keepdim(keepdim ? nb::handle(Py_True) : nb::handle(Py_False), keepdims, fn);
}

// A tandem dtype, or a NumPy dtype, scalar type or dtype string, matched by name ("float64"); nullopt for
// anything else.
OptDType readable_dtype(nb::handle h) {
  if (is_dtype_like(h)) return to_dtype(h);
  nb::object name;
  if (nb::isinstance<nb::str>(h))  // NumPy also spells dtypes as strings: dtype='float32'
    name = nb::borrow(h);
  else if (nb::hasattr(h, "name") && nb::isinstance<nb::str>(h.attr("name")))
    name = h.attr("name");
  else if (nb::hasattr(h, "__name__"))
    name = h.attr("__name__");
  if (name.is_valid()) {
    std::string n = nb::cast<std::string>(name);
    for (int i = 0; i < kNumDTypes; ++i)
      if (dtype_name(static_cast<DType>(i)) == n) return static_cast<DType>(i);
  }
  return std::nullopt;
}

// A dtype= that PyTorch's parser refuses: anything but a dtype, and a dtype name given as a str outside a
// NumPy call (np.sum(t, dtype="float64") passes axis=; the bindings take NumPy's names there).
bool refused_dtype(nb::handle dtype, bool numpy_call) {
  return !dtype.is_none() && (!readable_dtype(dtype) || (!numpy_call && PyUnicode_Check(dtype.ptr())));
}

// readable_dtype's, None as no dtype; anything else is the usual TypeError.
OptDType parse_dtype(nb::handle h) {
  if (h.is_none()) return std::nullopt;
  if (OptDType d = readable_dtype(h)) return d;
  return to_dtype(h);  // raises
}

// torch.return_types-style named tuples, created once at import and kept for the process's life.
nb::handle& pair_type(int which) {
  static nb::handle types[4];
  return types[which];
}
enum PairKind { kMax = 0, kMin = 1, kSort = 2, kTopk = 3 };
nb::object named_pair(PairKind kind, ValuesIndices r) {
  return pair_type(kind)(wrap(std::move(r.first)), wrap(std::move(r.second)));
}

double number(nb::handle h) {
  double v = PyFloat_AsDouble(h.ptr());
  if (v == -1.0 && PyErr_Occurred()) throw nb::python_error();
  return v;
}

double parse_norm_order(nb::handle p) {
  if (nb::isinstance<nb::str>(p)) {
    std::string s = nb::cast<std::string>(p);
    TANDEM_CHECK(s == "fro", NotImplemented, "norm(): p='", s,
                 "' is not supported\nhint: use p='fro', or a number such as 1, 2 or float('inf')");
    return 2.0;
  }
  TANDEM_CHECK(PyNumber_Check(p.ptr()), Type, "norm(): argument 'p' must be a number or 'fro', not ",
               nb::inst_name(p).c_str());
  return number(p);
}

// Correction for std/var from PyTorch's unbiased=/correction= or NumPy's ddof=.
double parse_correction(nb::handle unbiased, nb::handle correction, nb::handle ddof) {
  if (!correction.is_none()) return number(correction);
  if (!ddof.is_none()) return number(ddof);
  if (!unbiased.is_none()) return truthy(unbiased) ? 1.0 : 0.0;
  return 1.0;
}

// Defines `name` both as tandem.name(input, ...) and as the method Tensor.name(...).
template <typename Fn, typename... Extra>
void def_both(nb::module_& m, nb::class_<Tensor>& tensor, const char* name, Fn fn, const Extra&... extra) {
  m.def(name, fn, nb::arg("input"), extra...);
  tensor.def(name, fn, extra...);
}

}  // namespace

void init_reductions(nb::module_& m) {
  auto cls = nb::type<Tensor>();
  auto& tensor = static_cast<nb::class_<Tensor>&>(cls);

  nb::module_ rt =
      m.def_submodule("return_types", "Named (values, indices) results, like torch.return_types");
  nb::object namedtuple = nb::module_::import_("collections").attr("namedtuple");
  const char* pair_names[] = {"max", "min", "sort", "topk"};
  for (int i = 0; i < 4; ++i) {
    nb::object t = namedtuple(pair_names[i], nb::make_tuple("values", "indices"));
    t.attr("__module__") = "tandem.return_types";
    rt.attr(pair_names[i]) = t;
    pair_type(i) = t.release();
  }

  auto none = nb::none();
  // A default that tells a parameter not given from one given as None (PyTorch refuses prod(x, dim=None);
  // NumPy's np.max(t) passes out=None, np.sum(t) axis=None).
  //
  // A NumPy call (np.sum(t, dtype="float64") calls t.sum(axis=None, dtype="float64", out=None)) reads NumPy's
  // dtype names; a PyTorch call takes dtypes only (a str is its parser's error).
  m.attr("_not_given") = nb::steal(PyObject_CallNoArgs(reinterpret_cast<PyObject*>(&PyBaseObject_Type)));
  const nb::handle not_given = m.attr("_not_given");
  // sum/mean/nansum-style folds with an optional dtype.
  auto folds_with_dtype = [&](const char* name, Tensor (*op)(const Tensor&, const OptDims&, bool, OptDType)) {
    // PyTorch's overloads (mean's first also takes out=); the binding takes NumPy's names too, so a refused
    // call is explained from these.
    const std::vector<ParserSignature>* overloads = &register_parser_signatures(
        name, {{{"Tensor input"},
                std::string_view(name) == "mean" ? "*, torch.dtype dtype = None, Tensor out = None"
                                                 : "*, torch.dtype dtype = None"},
               {{"Tensor input", "tuple of ints dim", "bool keepdim = False"},
                "*, torch.dtype dtype = None, Tensor out = None"}});
    def_both(
        m, tensor, name,
        [op, name, overloads, not_given](const Tensor& x, nb::handle dim, bool keepdim, nb::handle dtype,
                                         nb::handle axis, nb::handle keepdims, nb::handle out) {
          const bool numpy_call = !axis.is(not_given);
          if (!numpy_call) axis = nb::none();
          // A dim that is no dim list (a float, a str, a bool, a tuple of bools) or a dtype that is none: its
          // listing of the overloads.
          const OptDims dims = parse_dims(dim, axis, name, {overloads});
          if (refused_dtype(dtype, numpy_call))
            refuse_as_invalid_combination(name, *overloads, "dtype", dtype, "torch.dtype");
          // Without dtype= the fold runs in out's dtype, as PyTorch's sum_out/mean_out (scan_dtype); mean
          // only where it can (a floating input and out), else its own dtype error or out='s cast error
          // stands.
          const OptDType asked = parse_dtype(dtype);
          OptDType run_as = scan_dtype(asked, out);
          const auto inexact = [](DType d) { return is_floating(d) || is_complex(d); };
          if (std::string_view(name) == "mean" && !asked && run_as &&
              !(inexact(*run_as) && inexact(x.dtype())))
            run_as = std::nullopt;
          return into_out(name, op(x, dims, parse_keepdim(keepdim, keepdims, name), run_as), out, {&x});
        },
        nb::arg("dim") = none, nb::arg("keepdim") = false, nb::kw_only(), nb::arg("dtype") = none,
        nb::arg("axis").none().sig("None") = not_given, nb::arg("keepdims") = none, nb::arg("out") = none);
  };
  folds_with_dtype("sum", &tandem::sum);
  folds_with_dtype("mean", &tandem::mean);
  def_both(
      m, tensor, "prod",
      [not_given](const Tensor& x, nb::handle dim, bool keepdim, nb::handle dtype, nb::handle axis,
                  nb::handle keepdims, nb::handle out) {
        const bool numpy_call = !axis.is(not_given);
        if (!numpy_call) axis = nb::none();
        // A dim that is no int (None given too: PyTorch's prod has no optional dim, NumPy's np.prod passes
        // axis=) or a dtype that is none (a str, but in a NumPy call) matches neither of PyTorch's overloads:
        // its listing of both.
        static const std::vector<ParserSignature> overloads = {
            {{"Tensor input"}, "*, torch.dtype dtype = None"},
            {{"Tensor input", "int dim", "bool keepdim = False"},
             "*, torch.dtype dtype = None, Tensor out = None"}};
        if (dim.is(not_given))
          dim = nb::none();
        else if (!is_int_argument(dim))
          refuse_as_invalid_combination("prod", overloads, "dim", dim, "int");
        if (refused_dtype(dtype, numpy_call))
          refuse_as_invalid_combination("prod", overloads, "dtype", dtype, "torch.dtype");
        return into_out(
            "prod",
            tandem::prod(x, parse_one_dim(dim, axis, "prod"), parse_keepdim(keepdim, keepdims, "prod"),
                         scan_dtype(parse_dtype(dtype), out)),
            out, {&x});
      },
      nb::arg("dim").none().sig("None") = not_given, nb::arg("keepdim") = false, nb::kw_only(),
      nb::arg("dtype") = none, nb::arg("axis").none().sig("None") = not_given, nb::arg("keepdims") = none,
      nb::arg("out") = none);

  // amax/amin/all/any: dims without dtype. all/any have PyTorch's overloads (a bad dim, a dtype= is their
  // listing), amax/amin one signature.
  auto plain_folds = [&](const char* name, Tensor (*op)(const Tensor&, const OptDims&, bool),
                         const std::vector<ParserSignature>* overloads) {
    def_both(
        m, tensor, name,
        [op, name, overloads](const Tensor& x, nb::handle dim, bool keepdim, nb::handle axis,
                              nb::handle keepdims, nb::handle out) {
          // amax/amin want out in the input's dtype (PyTorch's message); all/any write a bool or uint8 out,
          // and into a uint8 out PyTorch reduces the input converted to uint8 (0.5 is then false, as there).
          const bool all_or_any = name[1] != 'm';
          bool uint8_out = false;
          if (all_or_any && is_tensor(out)) {
            const DType given = as_tensor_ref(out).dtype();
            TANDEM_CHECK(given == DType::Bool || given == DType::UInt8, Runtime, name,
                         " only supports bool tensor for result, got: ", dtype_title(given),
                         "\nhint: pass a bool out tensor");
            uint8_out = given == DType::UInt8;
          }
          Tensor r = op(uint8_out ? to_dtype(x, DType::UInt8) : x, parse_dims(dim, axis, name, {overloads}),
                        parse_keepdim(keepdim, keepdims, name));
          const char* same_dtype = all_or_any ? nullptr
                                              : "Expected the dtype for input and out to match, but got "
                                                "{result} for input's dtype and {out} for out's dtype.";
          return write_out(name, r, out, {&x}, same_dtype);
        },
        nb::arg("dim") = none, nb::arg("keepdim") = false, nb::kw_only(), nb::arg("axis") = none,
        nb::arg("keepdims") = none, nb::arg("out") = none);
  };
  plain_folds("amax", &tandem::amax, nullptr);
  plain_folds("amin", &tandem::amin, nullptr);
  for (const char* name : {"all", "any"})
    plain_folds(name,
                name[1] == 'l' ? &tandem::all
                               : static_cast<Tensor (*)(const Tensor&, const OptDims&, bool)>(&tandem::any),
                &register_parser_signatures(
                    name, {{{"Tensor input"}, "*, Tensor out = None"},
                           {{"Tensor input", "tuple of ints dim = None", "bool keepdim = False"},
                            "*, Tensor out = None"},
                           {{"Tensor input", "int dim", "bool keepdim = False"}, "*, Tensor out = None"}}));

  // max/min: full reduction, (values, indices) along a dim (axis= too, as PyTorch's parser reads it), the
  // elementwise form with a tensor, or NumPy's form: np.max(t, axis=0) calls t.max(axis=0, out=None) and gets
  // the values only, as np.max returns. NumPy always passes out=, so out's default is not_given, which tells
  // the two calls apart.
  auto extreme = [&](const char* name, bool is_max) {
    // tandem.max(input, ...) and Tensor.max(...): `method` words a bad keepdim as PyTorch's each form does.
    auto make = [name, is_max, not_given](bool method) {
      return [name, is_max, not_given, method](
                 const Tensor& x, nb::handle other, nb::handle keepdim, nb::handle dim, nb::handle axis,
                 nb::handle keepdims, nb::handle out, nb::handle initial, nb::handle where) -> nb::object {
        const bool numpy_call = !out.is(not_given);
        if (!PyBool_Check(keepdim.ptr())) {  // max(t, 1, other): no overload takes a non-bool second argument
          // (a tensor first is the elementwise form, which takes nothing more: PyTorch reads it as a dim)
          TANDEM_CHECK(!is_tensor(other), Type, name,
                       "(): argument 'dim' (position 1) must be int, not Tensor");
          if (method)
            TANDEM_THROW(Type, name, "(): argument 'keepdim' (position 2) must be bool, not ",
                         parser_type_name(keepdim));
          throw_invalid_combination(
              name, {nb::cast(x), other, keepdim},
              {{{"Tensor input"}, "*, Tensor out = None"},
               {{"Tensor input", "Tensor other"}, "*, Tensor out = None"},
               {{"Tensor input", "int dim", "bool keepdim = False"}, "*, tuple of Tensors out = None"}});
        }
        if (!numpy_call) out = nb::none();
        TANDEM_CHECK(initial.is_none() && where.is_none(), Type, name,
                     "(): initial= and where= are not supported\nhint: filter the tensor first");
        bool kd = parse_keepdim(keepdim, keepdims, name);
        // As PyTorch's overloads: a tensor in the first place (or other=) is the elementwise form; dim= is
        // always a dim, even a 0-dim tensor (x.max(dim=tandem.tensor(1)) reduces, it does not compare).
        if (!other.is_none() && !dim.is_none())
          TANDEM_THROW(Type, name, "(): got both 'other' (or a first positional argument) and 'dim'");
        // A tensor then a keepdim: PyTorch reads the tensor as the dim of max(dim, keepdim), and refuses it
        // (the elementwise form takes no keepdim, which would be silently ignored).
        TANDEM_CHECK(!is_tensor(other) || keepdim.is(Py_False), Type, name,
                     "(): argument 'dim' (position 1) must be int, not Tensor");
        if (is_tensor(other))
          return into_out(name, is_max ? maximum(x, as_tensor_ref(other)) : minimum(x, as_tensor_ref(other)),
                          out, {&x});
        if (dim.is_none()) dim = other;
        // keepdim without a dim: no overload of PyTorch's takes it (the full reduction keeps no dims).
        TANDEM_CHECK(
            numpy_call || !dim.is_none() || !axis.is_none() || !keepdims.is_none() || !keepdim.is(Py_True),
            Type, name,
            "() received an invalid combination of arguments - got (keepdim=bool, ), but "
            "expected one of:\nhint: pass the dim to reduce (x.",
            name,
            "(dim, keepdim=True)), or use "
            "amax/amin(x, dim=None, keepdim=True) for every dim");
        if (dim.is_none() && !numpy_call) std::swap(dim, axis);
        if (dim.is_none()) {
          OptDims dims = parse_dims(dim, axis, name);
          if (!dims && !kd) return into_out(name, is_max ? tandem::max(x) : tandem::min(x), out, {&x});
          return into_out(name, is_max ? amax(x, dims, kd) : amin(x, dims, kd), out, {&x});
        }
        if (!is_int_argument(dim))  // neither a tensor nor an int: none of PyTorch's overloads, its listing
          refuse_as_invalid_combination(
              name,
              {{{"Tensor input"}, "*, Tensor out = None"},
               {{"Tensor input", "Tensor other"}, "*, Tensor out = None"},
               {{"Tensor input", "int dim", "bool keepdim = False"}, "*, tuple of Tensors out = None"}},
              "dim", dim, "int");
        int64_t d = *parse_one_dim(dim, nb::none(), name);
        return into_outs(
            name, named_pair(is_max ? kMax : kMin, is_max ? tandem::max(x, d, kd) : tandem::min(x, d, kd)),
            out, {&x});
      };
    };
    auto define = [&](auto& scope, auto fn, auto... input) {
      scope.def(name, fn, input..., nb::arg("other") = none, nb::arg("keepdim") = false, nb::kw_only(),
                nb::arg("dim") = none, nb::arg("axis") = none, nb::arg("keepdims") = none,
                nb::arg("out").none().sig("None") = not_given, nb::arg("initial") = none,
                nb::arg("where") = none);
    };
    define(m, make(false), nb::arg("input"));
    define(tensor, make(true));
  };
  extreme("max", true);
  extreme("min", false);

  auto arg_extreme = [&](const char* name, bool is_max) {
    def_both(
        m, tensor, name,
        [name, is_max](const Tensor& x, nb::handle dim, bool keepdim, nb::handle axis, nb::handle keepdims,
                       nb::handle out) {
          std::optional<int64_t> d = parse_one_dim(dim, axis, name);
          bool kd = parse_keepdim(keepdim, keepdims, name);
          // An index result has no gradient: PyTorch takes out= whether or not x requires grad.
          return write_out(name, is_max ? argmax(x, d, kd) : argmin(x, d, kd), out, {}, kStructuredOutDtype);
        },
        nb::arg("dim") = none, nb::arg("keepdim") = false, nb::kw_only(), nb::arg("axis") = none,
        nb::arg("keepdims") = none, nb::arg("out") = none);
  };
  arg_extreme("argmax", true);
  arg_extreme("argmin", false);

  // std/var: std(dim, unbiased, keepdim), std(unbiased) with a bool first, correction=, and NumPy's ddof=.
  auto spread = [&](const char* name, bool is_std) {
    def_both(
        m, tensor, name,
        [name, is_std](const Tensor& x, nb::handle dim, nb::handle unbiased, nb::handle keepdim,
                       nb::handle correction, nb::handle axis, nb::handle dtype, nb::handle out,
                       nb::handle ddof, nb::handle keepdims) {
          // None of PyTorch's three overloads takes: a bool first with more after it, a non-bool unbiased (a
          // number goes by keyword, as correction=), unbiased and correction together (one would be ignored),
          // a correction that is no number. Its listing of them, worded from the call.
          const bool bool_first = PyBool_Check(dim.ptr());
          const bool number_correction =
              correction.is_none() || is_tensor(correction) ||
              (PyNumber_Check(correction.ptr()) && !PyUnicode_Check(correction.ptr()));
          static const std::vector<ParserSignature> overloads = {
              {{"Tensor input", "tuple of ints dim", "bool unbiased = True", "bool keepdim = False"},
               "*, Tensor out = None"},
              {{"Tensor input", "tuple of ints dim = None"},
               "*, Number correction = None, bool keepdim = False, Tensor out = None"},
              {{"Tensor input", "bool unbiased = True"}}};
          if ((bool_first && !unbiased.is_none()) || !(unbiased.is_none() || PyBool_Check(unbiased.ptr())) ||
              !(unbiased.is_none() || correction.is_none()) || !number_correction)
            refuse_as_invalid_combination(name, overloads, "unbiased", unbiased, "bool");
          if (bool_first) {
            unbiased = dim;
            dim = nb::none();
          }
          OptDType dt = parse_dtype(dtype);
          Tensor in = dt ? tandem::to_dtype(x, *dt) : x;
          OptDims dims = parse_dims(dim, axis, name, {&overloads});
          double c = parse_correction(unbiased, correction, ddof);
          bool kd = parse_keepdim(keepdim, keepdims, name);
          return into_out(name, is_std ? stddev(in, dims, c, kd) : var(in, dims, c, kd), out, {&x});
        },
        nb::arg("dim") = none, nb::arg("unbiased") = none, nb::arg("keepdim") = false, nb::kw_only(),
        nb::arg("correction") = none, nb::arg("axis") = none, nb::arg("dtype") = none, nb::arg("out") = none,
        nb::arg("ddof") = none, nb::arg("keepdims") = none);
  };
  spread("std", true);
  spread("var", false);
  // The normalisation layers' variance (nn/functional.py): float32 stays float32.
  m.def(
      "_var_in_input_dtype",
      [](const Tensor& x, nb::handle dim, double correction, bool keepdim) {
        return var_in_input_dtype(x, parse_dims(dim, nb::none(), "var"), correction, keepdim);
      },
      nb::arg("input"), nb::arg("dim"), nb::arg("correction") = 0.0, nb::arg("keepdim") = false);

  def_both(
      m, tensor, "norm",
      [](const Tensor& x, nb::handle p, nb::handle dim, nb::handle keepdim, nb::handle dtype,
         nb::handle out) -> nb::object {
        // PyTorch's torch.norm hands dim and dtype to linalg_vector_norm(input, p, dim, keepdim, dtype=) by
        // position: its parser's errors name that function and position.
        const OptDims dims = parse_dims(dim, nb::none(), "linalg_vector_norm", {.position = 3});
        TANDEM_CHECK(dtype.is_none() || is_dtype_like(dtype), Type,
                     "linalg_vector_norm(): argument 'dtype' must be torch.dtype, not ",
                     parser_type_name(dtype));
        // PyTorch reads p='nuc', and p='fro' over more than two dims, as matrix norms: their checks and
        // messages, and 'nuc' computed by linalg.matrix_norm.
        if (nb::isinstance<nb::str>(p)) {
          std::string s = nb::cast<std::string>(p);
          TANDEM_CHECK(s == "fro" || s == "nuc", Runtime, "linalg.matrix_norm: Order ", s, " not supported.");
          if (s == "nuc" || (dims && dims->size() > 2)) {
            TANDEM_CHECK(x.dim() >= 2, Runtime,
                         "linalg.matrix_norm: The input tensor A must have at least 2 dimensions.");
            DimVector d = dims ? *dims : DimVector{};
            if (!dims)
              for (int64_t i = 0; i < x.dim(); ++i) d.push_back(i);
            std::string listed;
            for (int64_t v : d) listed += (listed.empty() ? "" : " ") + std::to_string(v);
            TANDEM_CHECK(d.size() == 2, Runtime, "linalg.matrix_norm: dim must be a 2-tuple. Got ", listed);
            nb::object linalg = nb::module_::import_("tandem.linalg");
            return linalg.attr("matrix_norm")(nb::cast(x), "nuc", nb::make_tuple(d[0], d[1]), truthy(keepdim),
                                              nb::arg("dtype") = dtype);
          }
        }
        return write_out("norm",
                         tandem::norm(x, parse_norm_order(p), dims, truthy(keepdim), parse_dtype(dtype)), out,
                         {&x}, kStructuredOutDtype);
      },
      nb::arg("p") = "fro", nb::arg("dim") = none, nb::arg("keepdim") = false, nb::arg("dtype") = none,
      nb::kw_only(), nb::arg("out") = none);

  def_both(
      m, tensor, "logsumexp",
      [not_given](const Tensor& x, nb::handle dim, nb::handle keepdim, nb::handle out) {
        // dim is required, and None is no dim list (PyTorch's one signature).
        TANDEM_CHECK(!dim.is(not_given), Type,
                     "logsumexp() missing 1 required positional arguments: \"dim\"");
        if (dim.is_none()) refuse_dims(dim, "logsumexp", {});
        OptDims dims = parse_dims(dim, nb::none(), "logsumexp");
        if (is_tensor(out)) {
          const DType given = as_tensor_ref(out).dtype();
          TANDEM_CHECK(is_floating(given) || is_complex(given), Runtime,
                       "logsumexp(): Expected floating point type for result tensor, but got: ",
                       dtype_title(given), "\nhint: pass a floating out tensor");
        }
        return into_out("logsumexp", tandem::logsumexp(x, dims.value_or(DimVector{}), truthy(keepdim)), out,
                        {&x});
      },
      nb::arg("dim").none().sig("None") = not_given, nb::arg("keepdim") = false, nb::kw_only(),
      nb::arg("out") = none);

  auto softmax_like = [&](const char* name, Tensor (*op)(const Tensor&, int64_t, OptDType)) {
    def_both(
        m, tensor, name,
        [op, name](const Tensor& x, nb::handle dim, nb::handle dtype, nb::handle out) {
          TANDEM_CHECK(!dim.is_none(), Type, name,
                       "(): missing required argument 'dim'\nhint: pass the dim to ",
                       "normalise over, e.g. x.", name, "(dim=-1)");
          // the position the call gave dim at (1 for the method, 2 for the function), added by the wrapper
          if (!is_int_argument(dim)) defer_argument_position(name, "dim");
          const int64_t d = int_arg(dim, name, "dim");
          const OptDType as = parse_dtype(dtype);
          if (as) warn_if_discarding_imag(x.dtype(), *as);  // dtype= converts first, as PyTorch's
          return write_out(name, op(x, d, as), out, {&x}, kStructuredOutDtype);
        },
        nb::arg("dim") = none, nb::arg("dtype") = none, nb::kw_only(), nb::arg("out") = none);
  };
  softmax_like("softmax", &tandem::softmax);
  softmax_like("log_softmax", &tandem::log_softmax);

  // cumsum(dim); NumPy's axis=None flattens first, as np.cumsum does.
  def_both(
      m, tensor, "cumsum",
      [](const Tensor& x, nb::handle dim, nb::handle dtype, nb::handle axis, nb::handle out) {
        std::optional<int64_t> d = parse_one_dim(dim, axis, "cumsum");
        const auto as = scan_dtype(parse_dtype(dtype), out);
        if (!d)
          return into_out("cumsum", tandem::cumsum(tandem::reshape(x, DimVector{-1}), 0, as), out, {&x},
                          OutOverlap::PartialRefused);
        return into_out("cumsum", tandem::cumsum(x, *d, as), out, {&x}, OutOverlap::PartialRefused);
      },
      nb::arg("dim") = none, nb::kw_only(), nb::arg("dtype") = none, nb::arg("axis") = none,
      nb::arg("out") = none);

  // PyTorch's two forms: with stable= (a keyword, None for False), dim and descending are keywords too.
  auto sort_into = [](const Tensor& x, int64_t dim, bool descending, bool stable, nb::handle out) {
    return into_outs("sort", named_pair(kSort, tandem::sort(x, dim, descending, stable)), out, {&x});
  };
  def_both(
      m, tensor, "sort",
      [sort_into](const Tensor& x, std::optional<bool> stable, int64_t dim, bool descending, nb::handle out) {
        return sort_into(x, dim, descending, stable.value_or(false), out);
      },
      nb::kw_only(), nb::arg("stable").none(), nb::arg("dim") = -1, nb::arg("descending") = false,
      nb::arg("out") = none);
  def_both(
      m, tensor, "sort",
      [sort_into](const Tensor& x, int64_t dim, bool descending, nb::handle out) {
        return sort_into(x, dim, descending, false, out);
      },
      nb::arg("dim") = -1, nb::arg("descending") = false, nb::kw_only(), nb::arg("out") = none);
  def_both(
      m, tensor, "argsort",
      [](const Tensor& x, int64_t dim, bool descending, bool stable, nb::handle out) {
        return into_out("argsort", tandem::argsort(x, dim, descending, stable), out, {&x});
      },
      nb::arg("dim") = -1, nb::arg("descending") = false, nb::kw_only(), nb::arg("stable") = false,
      nb::arg("out") = none);
  // k is an int, not a bool (PyTorch's parser refuses True); shift 1 for tandem.topk, 0 for Tensor.topk.
  auto topk_binding = [](int shift) {
    return
        [shift](const Tensor& x, nb::handle k_arg, int64_t dim, bool largest, bool sorted, nb::handle out) {
          int64_t k = 0;
          TANDEM_CHECK(!PyBool_Check(k_arg.ptr()) && nb::try_cast(k_arg, k), Type,
                       "topk(): argument 'k' (position ", 1 + shift, ") must be int, not ",
                       nb::inst_name(k_arg).c_str(),
                       "\nhint: pass how many elements to keep as an int, e.g. topk(x, 3)");
          return into_outs("topk", named_pair(kTopk, tandem::topk(x, k, dim, largest, sorted)), out, {&x});
        };
  };
  m.def("topk", topk_binding(1), nb::arg("input"), nb::arg("k"), nb::arg("dim") = -1,
        nb::arg("largest") = true, nb::arg("sorted") = true, nb::kw_only(), nb::arg("out") = none);
  tensor.def("topk", topk_binding(0), nb::arg("k"), nb::arg("dim") = -1, nb::arg("largest") = true,
             nb::arg("sorted") = true, nb::kw_only(), nb::arg("out") = none);
}

}  // namespace tandem::py
