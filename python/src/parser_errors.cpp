// See parser_errors.h.
#include "parser_errors.h"

#include <cstring>

#include "core/error.h"

namespace tandem::py {
namespace {

// Whether `h` fits a parameter of `type` ("Tensor", "Number"), as PyTorch's parser reads it.
bool fits(nb::handle h, const char* param) {
  if (std::strncmp(param, "Tensor", 6) == 0) return is_tensor(h);
  PyObject* o = h.ptr();
  return PyLong_Check(o) || PyFloat_Check(o) || PyComplex_Check(o);
}

}  // namespace

void throw_invalid_combination(const char* fn, std::initializer_list<nb::handle> given,
                               const std::vector<ParserSignature>& signatures) {
  std::string got, message = std::string(fn) + "() received an invalid combination of arguments - got (";
  for (nb::handle h : given) got += (got.empty() ? "" : ", ") + parser_type_name(h);
  message += got + "), but expected one of:\n";
  for (const ParserSignature& s : signatures) {
    message += " * (";
    for (size_t i = 0; i < s.params.size(); ++i) message += (i ? ", " : "") + std::string(s.params[i]);
    if (s.keyword_only) message += std::string(", ") + s.keyword_only;
    message += ")\n";
    if (!s.explained || s.params.size() != given.size()) continue;
    message += "      didn't match because some of the arguments have invalid types: (";
    size_t i = 0;
    for (nb::handle h : given) {
      const bool ok = fits(h, s.params[i]);
      message += (i ? ", " : "") + std::string(ok ? "" : "!") + parser_type_name(h) + (ok ? "" : "!");
      ++i;
    }
    message += ")\n";
  }
  TANDEM_THROW(Type, message);
}

}  // namespace tandem::py
