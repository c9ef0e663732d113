// Bindings of tandem.linalg's factorizations and solvers (ops/linalg_decomp.h) as private _C functions with
// PyTorch's argument names; python/tandem/linalg.py gives them their public names and named-tuple results.
// Singular and non-convergent inputs raise _C._LinAlgError (torch.linalg.LinAlgError, a RuntimeError).
#include <string>
#include <tuple>

#include <nanobind/stl/string.h>

#include "bindings.h"
#include "core/error.h"
#include "ops/linalg_decomp.h"
#include "ops/linalg_householder.h"
#include "ops/linalg_ldl.h"

namespace tandem::py {

namespace {

nb::handle& linalg_error_type() {
  static nb::handle type;
  return type;
}

bool is_linalg_error(const Error& e) {
  for (const ErrorField& f : e.details())
    if (f.name == "linalg_error") return true;
  return false;
}

// Calls f, turning the front end's LinAlgError-marked RuntimeErrors into _C._LinAlgError.
template <typename F>
auto linalg_call(F&& f) {
  try {
    return f();
  } catch (const Error& e) {
    if (!is_linalg_error(e)) throw;
    PyErr_SetString(linalg_error_type().ptr(), e.what());
    throw nb::python_error();
  }
}

nb::object tuple_of(const std::tuple<Tensor, Tensor>& t) {
  return nb::make_tuple(wrap(std::get<0>(t)), wrap(std::get<1>(t)));
}
nb::object tuple_of(const std::tuple<Tensor, Tensor, Tensor>& t) {
  return nb::make_tuple(wrap(std::get<0>(t)), wrap(std::get<1>(t)), wrap(std::get<2>(t)));
}

}  // namespace

void init_linalg_decomp(nb::module_& m) {
  nb::object error = nb::steal(PyErr_NewExceptionWithDoc(
      "tandem._C._LinAlgError",
      "A linear-algebra function failed on its input: a singular matrix, one that is not positive-definite, "
      "or "
      "an algorithm that did not converge (torch.linalg.LinAlgError, a RuntimeError).",
      PyExc_RuntimeError, nullptr));
  if (!error) throw nb::python_error();
  m.attr("_LinAlgError") = error;
  linalg_error_type() = error.release();

  m.def(
      "_linalg_lu_factor_ex",
      [](const Tensor& a, bool pivot, bool check_errors) {
        return linalg_call([&] { return tuple_of(linalg_lu_factor_ex(a, pivot, check_errors)); });
      },
      nb::arg("A"), nb::arg("pivot") = true, nb::arg("check_errors") = false);
  m.def(
      "_linalg_lu_factor",
      [](const Tensor& a, bool pivot) {
        return linalg_call([&] { return tuple_of(linalg_lu_factor(a, pivot)); });
      },
      nb::arg("A"), nb::arg("pivot") = true);
  m.def(
      "_linalg_lu",
      [](const Tensor& a, bool pivot) { return linalg_call([&] { return tuple_of(linalg_lu(a, pivot)); }); },
      nb::arg("A"), nb::arg("pivot") = true);
  m.def(
      "_linalg_lu_solve",
      [](const Tensor& lu, const Tensor& pivots, const Tensor& b, bool left, bool adjoint) {
        return linalg_lu_solve(lu, pivots, b, left, adjoint);
      },
      nb::arg("LU"), nb::arg("pivots"), nb::arg("B"), nb::arg("left") = true, nb::arg("adjoint") = false);
  m.def(
      "_linalg_solve_ex",
      [](const Tensor& a, const Tensor& b, bool left, bool check_errors) {
        return linalg_call([&] { return tuple_of(linalg_solve_ex(a, b, left, check_errors)); });
      },
      nb::arg("A"), nb::arg("B"), nb::arg("left") = true, nb::arg("check_errors") = false);
  // The forms without _ex raise naming themselves (PyTorch's _ex forms name linalg.inv_ex, ...).
  m.def(
      "_linalg_solve",
      [](const Tensor& a, const Tensor& b, bool left) {
        return linalg_call([&] { return linalg_solve(a, b, left); });
      },
      nb::arg("A"), nb::arg("B"), nb::arg("left") = true);
  m.def(
      "_linalg_inv", [](const Tensor& a) { return linalg_call([&] { return linalg_inv(a); }); },
      nb::arg("A"));
  m.def(
      "_linalg_cholesky",
      [](const Tensor& a, bool upper) { return linalg_call([&] { return linalg_cholesky(a, upper); }); },
      nb::arg("A"), nb::arg("upper") = false);
  m.def(
      "_linalg_inv_ex",
      [](const Tensor& a, bool check_errors) {
        return linalg_call([&] { return tuple_of(linalg_inv_ex(a, check_errors)); });
      },
      nb::arg("A"), nb::arg("check_errors") = false);
  m.def(
      "_linalg_det", [](const Tensor& a) { return linalg_det(a); }, nb::arg("A"));
  m.def(
      "_linalg_slogdet", [](const Tensor& a) { return tuple_of(linalg_slogdet(a)); }, nb::arg("A"));
  m.def(
      "_logdet", [](const Tensor& a) { return logdet(a); }, nb::arg("input"));
  m.def(
      "_linalg_solve_triangular",
      [](const Tensor& a, const Tensor& b, bool upper, bool left, bool unitriangular) {
        return linalg_solve_triangular(a, b, upper, left, unitriangular);
      },
      nb::arg("A"), nb::arg("B"), nb::arg("upper"), nb::arg("left") = true, nb::arg("unitriangular") = false);
  m.def(
      "_linalg_cholesky_ex",
      [](const Tensor& a, bool upper, bool check_errors) {
        return linalg_call([&] { return tuple_of(linalg_cholesky_ex(a, upper, check_errors)); });
      },
      nb::arg("A"), nb::arg("upper") = false, nb::arg("check_errors") = false);
  m.def(
      "_cholesky_solve",
      [](const Tensor& b, const Tensor& factor, bool upper) { return cholesky_solve(b, factor, upper); },
      nb::arg("input"), nb::arg("input2"), nb::arg("upper") = false);
  m.def(
      "_cholesky_inverse", [](const Tensor& factor, bool upper) { return cholesky_inverse(factor, upper); },
      nb::arg("input"), nb::arg("upper") = false);
  m.def(
      "_linalg_qr", [](const Tensor& a, const std::string& mode) { return tuple_of(linalg_qr(a, mode)); },
      nb::arg("A"), nb::arg("mode") = "reduced");
  m.def(
      "_geqrf", [](const Tensor& a) { return tuple_of(geqrf(a)); }, nb::arg("input"));
  m.def(
      "_linalg_householder_product",
      [](const Tensor& a, const Tensor& tau) { return linalg_householder_product(a, tau); }, nb::arg("input"),
      nb::arg("tau"));
  m.def(
      "_ormqr",
      [](const Tensor& a, const Tensor& tau, const Tensor& other, bool left, bool transpose) {
        return ormqr(a, tau, other, left, transpose);
      },
      nb::arg("input"), nb::arg("input2"), nb::arg("input3"), nb::arg("left") = true,
      nb::arg("transpose") = false);
  m.def(
      "_linalg_ldl_factor_ex",
      [](const Tensor& a, bool hermitian, bool check_errors) {
        return linalg_call([&] { return tuple_of(linalg_ldl_factor_ex(a, hermitian, check_errors)); });
      },
      nb::arg("A"), nb::arg("hermitian") = false, nb::arg("check_errors") = false);
  m.def(
      "_linalg_ldl_factor",
      [](const Tensor& a, bool hermitian) {
        return linalg_call([&] { return tuple_of(linalg_ldl_factor(a, hermitian)); });
      },
      nb::arg("A"), nb::arg("hermitian") = false);
  m.def(
      "_linalg_ldl_solve",
      [](const Tensor& ld, const Tensor& pivots, const Tensor& b, bool hermitian) {
        return linalg_ldl_solve(ld, pivots, b, hermitian);
      },
      nb::arg("LD"), nb::arg("pivots"), nb::arg("B"), nb::arg("hermitian") = false);
  m.def(
      "_linalg_eigh",
      [](const Tensor& a, const std::string& uplo) {
        return linalg_call([&] { return tuple_of(linalg_eigh(a, uplo)); });
      },
      nb::arg("A"), nb::arg("UPLO") = "L");
  m.def(
      "_linalg_eigvalsh",
      [](const Tensor& a, const std::string& uplo) {
        return linalg_call([&] { return linalg_eigvalsh(a, uplo); });
      },
      nb::arg("A"), nb::arg("UPLO") = "L");
  m.def(
      "_linalg_eig", [](const Tensor& a) { return linalg_call([&] { return tuple_of(linalg_eig(a)); }); },
      nb::arg("A"));
  m.def(
      "_linalg_eigvals", [](const Tensor& a) { return linalg_call([&] { return linalg_eigvals(a); }); },
      nb::arg("A"));
  m.def(
      "_linalg_svd",
      [](const Tensor& a, bool full_matrices) {
        return linalg_call([&] { return tuple_of(linalg_svd(a, full_matrices)); });
      },
      nb::arg("A"), nb::arg("full_matrices") = true);
  m.def(
      "_linalg_svdvals", [](const Tensor& a) { return linalg_call([&] { return linalg_svdvals(a); }); },
      nb::arg("A"));
}

}  // namespace tandem::py
