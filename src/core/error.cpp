#include "core/error.h"

namespace tandem::detail {
// Out of line so that the cold path of every TANDEM_CHECK stays small.
[[noreturn]] void throw_error(ErrorKind kind, std::string msg) { throw Error(kind, std::move(msg)); }
[[noreturn]] void throw_error(ErrorKind kind, std::string msg, ErrorDetails details) {
  throw Error(kind, std::move(msg), std::move(details));
}
}  // namespace tandem::detail
