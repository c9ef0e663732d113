// Typed errors. Front ends throw these; the Python layer maps each kind to one Python exception type in a
// single place (python/src/errors.cpp). Kernels never throw user-facing errors.
//
// Errors that carry data: an Error may hold ErrorDetails, a list of named values that python/src/errors.cpp
// sets as attributes of the Python exception (e.g. DeviceMismatchError.op, OutOfMemoryError.requested_bytes).
// That is the one mechanism for structured errors: a new attribute is a new entry here, nothing else changes.
// The message stays the whole story for C++ users and for printing; the details are for code that reacts.
#pragma once
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "core/device.h"
#include "core/dtype.h"

namespace tandem {

enum class ErrorKind {
  Type,
  Value,
  Index,
  Runtime,
  NotImplemented,
  OutOfMemory,         // tandem.cuda.OutOfMemoryError (RuntimeError), as torch.cuda.OutOfMemoryError
  DeviceMismatch,      // tandem.DeviceMismatchError (RuntimeError): operands on different devices
  HostConversion,      // tandem.HostConversionError (TypeError): a device tensor asked for as NumPy
  HostConversionGrad,  // tandem.RequiresGradConversionError (HostConversionError and RuntimeError): numpy()
                       // of a tensor that requires grad, a RuntimeError in PyTorch
};

// A live allocation as errors report it: its size and the user's source line that made it ("" when
// allocation sites were not being recorded).
struct SitedAllocation {
  int64_t bytes = 0;
  std::string site;
};

// One attribute's value. Python sees: bool/int/str as such, Device as tandem.device, DType as tandem.dtype,
// a shape as a tuple of ints, devices as a tuple of tandem.device, allocations as a list of (bytes, site or
// None) tuples.
using ErrorValue = std::variant<bool, int64_t, std::string, Device, DType, std::vector<int64_t>,
                                std::vector<Device>, std::vector<SitedAllocation>>;
struct ErrorField {
  std::string name;
  ErrorValue value;
};
using ErrorDetails = std::vector<ErrorField>;

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, std::string msg, ErrorDetails details = {})
      : std::runtime_error(std::move(msg)), kind_(kind), details_(std::move(details)) {}
  ErrorKind kind() const { return kind_; }
  const ErrorDetails& details() const { return details_; }

 private:
  ErrorKind kind_;
  ErrorDetails details_;
};

namespace detail {
template <typename... Args>
std::string concat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}
[[noreturn]] void throw_error(ErrorKind kind, std::string msg);
[[noreturn]] void throw_error(ErrorKind kind, std::string msg, ErrorDetails details);
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
