// Typed errors. Front ends throw these; the Python layer maps each kind to one Python exception type in a
// single place (python/src/errors.cpp). Kernels never throw user-facing errors.
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>

namespace tandem {

enum class ErrorKind { Type, Value, Index, Runtime, NotImplemented, OutOfMemory };

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, std::string msg) : std::runtime_error(std::move(msg)), kind_(kind) {}
  ErrorKind kind() const { return kind_; }

 private:
  ErrorKind kind_;
};

namespace detail {
template <typename... Args>
std::string concat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}
[[noreturn]] void throw_error(ErrorKind kind, std::string msg);
}  // namespace detail

}  // namespace tandem

// TANDEM_CHECK(cond, Kind, parts...): throw tandem::Error of that kind with the concatenated message.
// The message is only built when the check fails, so checks are free on the hot path.
#define TANDEM_CHECK(cond, kind, ...)                                                        \
  do {                                                                                       \
    if (__builtin_expect(!(cond), 0))                                                        \
      ::tandem::detail::throw_error(::tandem::ErrorKind::kind, ::tandem::detail::concat(__VA_ARGS__)); \
  } while (0)

#define TANDEM_THROW(kind, ...) \
  ::tandem::detail::throw_error(::tandem::ErrorKind::kind, ::tandem::detail::concat(__VA_ARGS__))
