#include "core/dtype.h"

#include <atomic>

#include "core/error.h"

namespace tandem {

namespace {
struct DTypeInfo {
  size_t size;
  std::string_view name;
  DTypeCategory category;
  std::string_view title;
  std::string_view cpp_name;
};
constexpr DTypeInfo kInfo[] = {
#define TANDEM_INFO(e, t, n, c, title, cpp) {sizeof(t), n, DTypeCategory::c, title, cpp},
    TANDEM_FORALL_ALL_DTYPES(TANDEM_INFO)
#undef TANDEM_INFO
};
std::atomic<DType> g_default_float{DType::Float32};

int width(DType d) { return static_cast<int>(kInfo[static_cast<int>(d)].size); }

DType signed_int_of_width(int bytes) {
  switch (bytes) {
    case 1: return DType::Int8;
    case 2: return DType::Int16;
    case 4: return DType::Int32;
    default: return DType::Int64;
  }
}
}  // namespace

size_t element_size(DType d) { return kInfo[static_cast<int>(d)].size; }
std::string_view dtype_name(DType d) { return kInfo[static_cast<int>(d)].name; }
std::string_view dtype_title(DType d) { return kInfo[static_cast<int>(d)].title; }
std::string_view dtype_cpp_name(DType d) { return kInfo[static_cast<int>(d)].cpp_name; }
DTypeCategory dtype_category(DType d) { return kInfo[static_cast<int>(d)].category; }

DType complex_value_dtype(DType d) {
  if (d == DType::Complex64) return DType::Float32;
  if (d == DType::Complex128) return DType::Float64;
  return d;
}
DType complex_dtype_for(DType real) {
  if (is_complex(real)) return real;
  return real == DType::Float64 ? DType::Complex128 : DType::Complex64;
}

DType promote_types(DType a, DType b) {
  if (a == b) return a;
  DTypeCategory ca = dtype_category(a), cb = dtype_category(b);
  if (ca == DTypeCategory::Complex || cb == DTypeCategory::Complex) {
    // The complex type whose value type holds both operands' floating parts: complex64 + float64 ->
    // complex128; integers and bool take the complex operand's own precision.
    DType va = complex_value_dtype(a), vb = complex_value_dtype(b);
    if (!is_floating(va)) return b;
    if (!is_floating(vb)) return a;
    return complex_dtype_for(promote_types(va, vb));
  }
  if (ca != cb) return ca > cb ? a : b;  // the higher category wins whatever the widths
  if (ca == DTypeCategory::Floating) {
    // float16 and bfloat16 have no common 16-bit type: PyTorch goes to float32.
    if (width(a) == width(b)) return DType::Float32;
    return width(a) > width(b) ? a : b;
  }
  // Integral, as the Array API's table: uint8 < uint16 < uint32 < uint64; an unsigned with a signed type
  // gives the smallest signed type holding both (uint8 + int8 -> int16, uint32 + int32 -> int64).
  const bool ua = is_unsigned_integral(a), ub = is_unsigned_integral(b);
  if (ua != ub) {
    const DType u = ua ? a : b, s = ua ? b : a;
    if (width(s) > width(u)) return s;
    TANDEM_CHECK(u != DType::UInt64, Runtime, "Promotion for uint64 and ", dtype_title(s),
                 " is not supported: no integer dtype holds both uint64's and ", dtype_name(s),
                 "'s values\nhint: cast one operand first, e.g. x.to(tandem.int64) (values above 2**63 - 1 "
                 "wrap) or y.to(tandem.uint64) (negative values wrap)");
    return signed_int_of_width(2 * width(u));
  }
  return width(a) > width(b) ? a : b;
}

void throw_dtype_not_implemented(const char* op, DType d) {
  if (op) TANDEM_THROW(NotImplemented, "\"", op, "\" not implemented for '", dtype_title(d), "'");
  if (is_wide_uint(d))
    TANDEM_THROW(NotImplemented, "\"kernel\" not implemented for '", dtype_title(d), "'",
                 "\nhint: uint16, uint32 and uint64 tensors support only the ops docs/dtypes.md lists; cast "
                 "first, e.g. x.to(tandem.int64)");
  TANDEM_THROW(NotImplemented, "\"kernel\" not implemented for '", dtype_title(d), "'",
               "\nhint: complex tensors support only the ops docs/ops.md lists under \"Complex numbers\"");
}

DType default_float_dtype() { return g_default_float.load(std::memory_order_relaxed); }
void set_default_float_dtype(DType d) { g_default_float.store(d, std::memory_order_relaxed); }

}  // namespace tandem
