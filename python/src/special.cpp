// Bindings of the composite special functions (ops/special.h) and of the op-list functions that PyTorch
// calls with more arguments: polygamma(n, x), logit(x, eps), float_power, mvlgamma(x, p). Registered after
// the op list, so logit(x, eps) is an overload next to the generated logit(x, *, out=).
#include <nanobind/stl/optional.h>

#include "bindings.h"
#include "core/error.h"
#include "ops/elementwise.h"
#include "ops/special.h"

namespace tandem::py {

namespace {

nb::object float_power_function(nb::handle a, nb::handle b) {
  Scalar s;
  if (is_tensor(a)) {
    const Tensor& ta = as_tensor_ref(a);
    if (is_tensor(b)) return wrap(float_power(ta, as_tensor_ref(b)));
    TANDEM_CHECK(to_scalar(b, s), Type, "float_power(): argument 'exponent' must be Tensor or Number, not ",
                 nb::inst_name(b).c_str());
    return wrap(float_power(ta, s));
  }
  TANDEM_CHECK(is_tensor(b) && to_scalar(a, s), Type, "float_power(): argument 'input' must be Tensor, not ",
               nb::inst_name(a).c_str());
  return wrap(float_power(s, as_tensor_ref(b)));
}

}  // namespace

void init_special(nb::module_& m) {
  auto cls = nb::type<Tensor>();
  nb::class_<Tensor>& tensor = static_cast<nb::class_<Tensor>&>(cls);

  m.def(
      "polygamma",
      [](int64_t n, const Tensor& x, nb::handle out) {
        return into_out("polygamma", polygamma(n, x), out, {&x});
      },
      nb::arg("n"), nb::arg("input"), nb::kw_only(), nb::arg("out") = nb::none());
  tensor.def(
      "polygamma", [](const Tensor& x, int64_t n) { return polygamma(n, x); }, nb::arg("n"));
  tensor.def("polygamma_", returning_self("polygamma_", [](const Tensor& x, int64_t n) { polygamma_(n, x); }),
             nb::arg("n"));

  m.def(
      "logit", [](const Tensor& x, std::optional<double> eps) { return eps ? logit(x, *eps) : logit(x); },
      nb::arg("input"), nb::arg("eps").none());
  tensor.def(
      "logit", [](const Tensor& x, std::optional<double> eps) { return eps ? logit(x, *eps) : logit(x); },
      nb::arg("eps").none());
  tensor.def("logit_",
             returning_self("logit_",
                            [](const Tensor& x, std::optional<double> eps) {
                              if (eps)
                                logit_(x, *eps);
                              else
                                logit_(x);
                            }),
             nb::arg("eps").none());

  m.def(
      "float_power",
      [](nb::handle a, nb::handle b, nb::handle out) -> nb::object {
        nb::object r = float_power_function(a, b);
        if (out.is_none()) return r;
        return write_out(
            "float_power", as_tensor_ref(r), out,
            {is_tensor(a) ? &as_tensor_ref(a) : nullptr, is_tensor(b) ? &as_tensor_ref(b) : nullptr},
            "the output given to float_power has dtype {out} but the operation's result requires "
            "dtype {result}");
      },
      nb::arg("input"), nb::arg("exponent"), nb::kw_only(), nb::arg("out") = nb::none());
  tensor.def(
      "float_power", [](const Tensor& a, nb::handle b) { return float_power_function(nb::cast(a), b); },
      nb::arg("exponent"));
  tensor.def("float_power_",
             returning_self("float_power_",
                            [](const Tensor& a, nb::handle b) {
                              Scalar s;
                              if (is_tensor(b)) {
                                float_power_(a, as_tensor_ref(b));
                                return;
                              }
                              TANDEM_CHECK(
                                  to_scalar(b, s), Type,
                                  "float_power_(): argument 'exponent' must be Tensor or Number, not ",
                                  nb::inst_name(b).c_str());
                              float_power_(a, s);
                            }),
             nb::arg("exponent"));

  m.def(
      "mvlgamma",
      [](const Tensor& x, int64_t p, nb::handle out) {
        return into_out("mvlgamma", multigammaln(x, p), out, {&x});
      },
      nb::arg("input"), nb::arg("p"), nb::kw_only(), nb::arg("out") = nb::none());
  tensor.def(
      "mvlgamma", [](const Tensor& x, int64_t p) { return multigammaln(x, p); }, nb::arg("p"));
  tensor.def("mvlgamma_",
             returning_self("mvlgamma_", [](const Tensor& x, int64_t p) { multigammaln_(x, p); }),
             nb::arg("p"));
}

}  // namespace tandem::py
