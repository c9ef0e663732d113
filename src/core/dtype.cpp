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
bool is_unsigned(DType d) { return d == DType::UInt8; }

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
  // Integral: mixing uint8 with a signed type needs a signed type wider than 8 bits.
  if (is_unsigned(a) || is_unsigned(b)) {
    DType s = is_unsigned(a) ? b : a;
    return signed_int_of_width(width(s) > 1 ? width(s) : 2);
  }
  return width(a) > width(b) ? a : b;
}

void throw_complex_not_implemented(const char* op, DType d) {
  if (op) TANDEM_THROW(NotImplemented, "\"", op, "\" not implemented for '", dtype_title(d), "'");
  TANDEM_THROW(NotImplemented, "\"kernel\" not implemented for '", dtype_title(d), "'",
               "\nhint: complex tensors support only the ops docs/ops.md lists under \"Complex numbers\"");
}

DType default_float_dtype() { return g_default_float.load(std::memory_order_relaxed); }
void set_default_float_dtype(DType d) { g_default_float.store(d, std::memory_order_relaxed); }

}  // namespace tandem
