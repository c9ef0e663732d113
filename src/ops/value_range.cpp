#include "ops/value_range.h"

#include <cmath>
#include <string_view>

#include "core/error.h"

namespace tandem {

namespace {
// The C type PyTorch's checked conversion names (Scalar's accessors, one per dtype).
std::string_view converted_type_name(DType dtype) {
  switch (dtype) {
    case DType::UInt8:
      return "uint8_t";
    case DType::UInt16:
      return "uint16_t";
    case DType::UInt32:
      return "uint32_t";
    case DType::UInt64:
      return "uint64_t";
    case DType::Int8:
      return "int8_t";
    case DType::Int16:
      return "int16_t";
    case DType::Int32:
      return "int";
    case DType::Int64:
      return "int64_t";
    case DType::Float16:
      return "c10::Half";
    case DType::BFloat16:
      return "c10::BFloat16";
    case DType::Float32:
      return "float";
    case DType::Float64:
      return "double";
    case DType::Complex64:
      return "c10::complex<float>";
    case DType::Complex128:
      return "c10::complex<double>";
    case DType::Bool:
      return "bool";
  }
  return dtype_cpp_name(dtype);
}
}  // namespace

void check_value_fits(const Scalar& v, DType dtype, bool for_fill) {
  // A complex value fits a real dtype only when its imaginary part is 0 (PyTorch's rule for fill and full);
  // bool takes any (true unless both parts are 0).
  if (v.is_complex() && !is_complex(dtype) && dtype != DType::Bool && v.to_complex().im != 0.0)
    TANDEM_THROW(
        Runtime, "value cannot be converted to type ", converted_type_name(dtype),
        " without overflow\nhint: a complex value needs a complex dtype, e.g. dtype=tandem.complex64");
  const bool floating = dtype == DType::Float16 || dtype == DType::BFloat16 || dtype == DType::Float32 ||
                        dtype == DType::Complex64;
  if (v.is_bool() || dtype == DType::Bool || dtype == DType::Float64 || dtype == DType::Complex128 ||
      (floating && !for_fill))
    return;
  double lo = 0, hi = 0;  // the representable range, as doubles (hi exclusive for int64: 2^63 rounds up)
  switch (dtype) {
    case DType::UInt8:
      lo = v.is_int() ? -255.0 : 0.0, hi = 255.0;
      break;
    case DType::UInt16:  // Python ints wrap from minus the maximum up, as for uint8
      lo = v.is_int() ? -65535.0 : 0.0, hi = 65535.0;
      break;
    case DType::UInt32:
      lo = v.is_int() ? -4294967295.0 : 0.0, hi = 4294967295.0;
      break;
    case DType::UInt64:  // every Python int from -2^63 to 2^64 - 1 (negative ones wrap)
      lo = v.is_int() ? -9223372036854775808.0 : 0.0, hi = 18446744073709551616.0;
      break;
    case DType::Int8:
      lo = -128.0, hi = 127.0;
      break;
    case DType::Int16:
      lo = -32768.0, hi = 32767.0;
      break;
    case DType::Int32:
      lo = -2147483648.0, hi = 2147483647.0;
      break;
    case DType::Int64:
      lo = -9223372036854775808.0, hi = 9223372036854775807.0;
      break;
    case DType::Float16:
      lo = -65504.0, hi = 65504.0;
      break;
    case DType::BFloat16:
      lo = -3.3895313892515355e38, hi = 3.3895313892515355e38;
      break;
    case DType::Float32:
    case DType::Complex64:  // each part, as a float
      lo = -3.4028234663852886e38, hi = 3.4028234663852886e38;
      break;
    default:
      return;
  }
  const auto fits_floating = [&](double d) { return std::isinf(d) || std::isnan(d) || (d >= lo && d <= hi); };
  bool fits;
  if (v.is_int() && v.is_big_unsigned()) {  // 2^63 and up: only uint64 and the wider floats hold it
    fits = dtype == DType::UInt64 || (floating && fits_floating(v.to_double()));
  } else if (v.is_int()) {
    fits = dtype == DType::Int64 || dtype == DType::UInt64 || (v.to_int() >= lo && v.to_int() <= hi);
  } else if (v.is_complex()) {
    fits = fits_floating(v.to_complex().re) && fits_floating(v.to_complex().im);
  } else {
    const double d = v.to_double();
    // A float goes to an integer type truncated, so anything below the largest value + 1 fits (127.9 is an
    // int8 127, as in PyTorch) while the lower bound stays closed (-128.5 does not fit). 2^63 / 2^64 are
    // already just past int64 / uint64.
    const bool hi_open = dtype == DType::Int64 || dtype == DType::UInt64;
    fits = floating ? fits_floating(d) : (d >= lo && d < (hi_open ? hi : hi + 1.0));  // NaN fails
  }
  TANDEM_CHECK(fits, Runtime, "value cannot be converted to type ",
               for_fill ? converted_type_name(dtype) : dtype_name(dtype),
               " without overflow\nhint: the value is outside the range of ", dtype_name(dtype),
               "; pick a wider dtype or a value in range");
}

}  // namespace tandem
