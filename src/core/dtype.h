// The dtype lists. Every per-dtype table in tandem is generated from TANDEM_FORALL_ALL_DTYPES so no two
// hand-kept tables can drift apart. TANDEM_FORALL_DTYPES is the real dtypes only: dispatch_dtype instantiates
// op bodies for those, so an op meets complex only where it asks for it (dispatch_dtype_with_complex), and
// uint16/uint32/uint64 only where it asks for them (dispatch_dtype_with_uint): PyTorch gives those three a
// small set of ops, and instantiating every kernel for them would cost build time for nothing.
#pragma once
#include <type_traits>
#include <cstdint>
#include <string_view>

#include "core/complex.h"
#include "core/half.h"

namespace tandem {

// _(EnumName, C++ storage type, PyTorch name, category, legacy name, C++ type name) -- the last two are what
// PyTorch prints in its messages ("Float"; "float != double", "out of bounds for short int").
#define TANDEM_FORALL_DTYPES(_)                                            \
  _(Bool, bool, "bool", Bool, "Bool", "bool")                              \
  _(UInt8, uint8_t, "uint8", Integral, "Byte", "unsigned char")            \
  _(Int8, int8_t, "int8", Integral, "Char", "signed char")                 \
  _(Int16, int16_t, "int16", Integral, "Short", "short int")               \
  _(Int32, int32_t, "int32", Integral, "Int", "int")                       \
  _(Int64, int64_t, "int64", Integral, "Long", "long int")                 \
  _(Float16, Half, "float16", Floating, "Half", "c10::Half")               \
  _(BFloat16, BFloat16, "bfloat16", Floating, "BFloat16", "c10::BFloat16") \
  _(Float32, float, "float32", Floating, "Float", "float")                 \
  _(Float64, double, "float64", Floating, "Double", "double")
#define TANDEM_FORALL_COMPLEX_DTYPES(_)                                                     \
  _(Complex64, complex<float>, "complex64", Complex, "ComplexFloat", "c10::complex<float>") \
  _(Complex128, complex<double>, "complex128", Complex, "ComplexDouble", "c10::complex<double>")
#define TANDEM_FORALL_WIDE_UINT_DTYPES(_)                                 \
  _(UInt16, uint16_t, "uint16", Integral, "UInt16", "short unsigned int") \
  _(UInt32, uint32_t, "uint32", Integral, "UInt32", "unsigned int")       \
  _(UInt64, uint64_t, "uint64", Integral, "UInt64", "long unsigned int")
#define TANDEM_FORALL_ALL_DTYPES(_) \
  TANDEM_FORALL_DTYPES(_)           \
  TANDEM_FORALL_COMPLEX_DTYPES(_)   \
  TANDEM_FORALL_WIDE_UINT_DTYPES(_)

enum class DType : int8_t {
#define TANDEM_ENUM(e, t, n, c, title, cpp) e,
  TANDEM_FORALL_ALL_DTYPES(TANDEM_ENUM)
#undef TANDEM_ENUM
};
constexpr int kNumRealDTypes = 10;  // the dtypes dispatch_dtype covers (TANDEM_FORALL_DTYPES)
constexpr int kNumDTypes = 15;  // every dtype, complex and uint16..64 included: the size of per-dtype tables

// Type-promotion categories, ordered: a higher category wins regardless of width.
enum class DTypeCategory : int8_t { Bool = 0, Integral = 1, Floating = 2, Complex = 3 };

template <DType D>
struct CppTypeOf;
#define TANDEM_CPP_TYPE(e, t, n, c, title, cpp) \
  template <>                       \
  struct CppTypeOf<DType::e> {      \
    using type = t;                 \
  };
TANDEM_FORALL_ALL_DTYPES(TANDEM_CPP_TYPE)
#undef TANDEM_CPP_TYPE
template <DType D>
using cpp_type_t = typename CppTypeOf<D>::type;

template <typename T>
constexpr DType dtype_of();
#define TANDEM_DTYPE_OF(e, t, n, c, title, cpp) \
  template <>                       \
  constexpr DType dtype_of<t>() {   \
    return DType::e;                \
  }
TANDEM_FORALL_ALL_DTYPES(TANDEM_DTYPE_OF)
#undef TANDEM_DTYPE_OF

size_t element_size(DType d);
std::string_view dtype_name(DType d);  // "float32"
// The legacy name PyTorch uses in error messages: "Float", "Long", "Bool", ...
std::string_view dtype_title(DType d);
// The C++ type name PyTorch prints in some messages: "long int", "c10::Half", ...
std::string_view dtype_cpp_name(DType d);
DTypeCategory dtype_category(DType d);
inline bool is_floating(DType d) { return dtype_category(d) == DTypeCategory::Floating; }
inline bool is_complex(DType d) { return dtype_category(d) == DTypeCategory::Complex; }
// uint16, uint32, uint64: the unsigned dtypes beyond uint8, which only some ops take (see dispatch_dtype).
constexpr bool is_wide_uint(DType d) {
  return d == DType::UInt16 || d == DType::UInt32 || d == DType::UInt64;
}
constexpr bool is_unsigned_integral(DType d) { return d == DType::UInt8 || is_wide_uint(d); }
// complex64 <-> float32, complex128 <-> float64 (a real dtype maps to itself / to its complex counterpart;
// float16 and bfloat16 map to complex64, tandem having no complex32).
DType complex_value_dtype(DType d);
DType complex_dtype_for(DType real);
inline bool is_integral(DType d, bool include_bool) {
  DTypeCategory c = dtype_category(d);
  return c == DTypeCategory::Integral || (include_bool && c == DTypeCategory::Bool);
}
// PyTorch's promote_types table (complex included: complex64 with float64 gives complex128).
DType promote_types(DType a, DType b);

// The dtype a Python float becomes (float32 unless set_default_dtype changed it). Process-wide, as in PyTorch.
DType default_float_dtype();
void set_default_float_dtype(DType d);

// Arithmetic on 16-bit floats is done in float; everything else in its own type.
template <typename T>
struct OpMath {
  using type = T;
};
template <>
struct OpMath<Half> {
  using type = float;
};
template <>
struct OpMath<BFloat16> {
  using type = float;
};
template <typename T>
using opmath_t = typename OpMath<T>::type;

// The error an op body raises for a dtype it was not written for (complex, or uint16..64), in PyTorch's
// words: "<op>" not implemented for 'ComplexFloat' (NotImplementedError). `op` may be null (a kernel without
// a name).
[[noreturn]] void throw_dtype_not_implemented(const char* op, DType d);

}  // namespace tandem

namespace tandem {

template <typename T>
struct TypeTag {
  using type = T;
};

// Calls fn(TypeTag<T>{}) with T the C++ type of `d`, a real dtype. Bodies use `if constexpr` to skip dtypes
// an op does not support, so each op instantiates only the loops it needs. A complex or uint16..64 `d`
// raises NotImplementedError instead: op bodies are never instantiated for those unless they ask. (The
// dtype guard, kernels/dtype_guard.cpp, refuses such operands before a kernel runs; this is the backstop.)
template <typename Fn>
decltype(auto) dispatch_dtype(DType d, Fn&& fn) {
  switch (d) {
#define TANDEM_DISPATCH_CASE(e, t, n, c, title, cpp) \
  case DType::e:                         \
    return fn(TypeTag<t>{});
    TANDEM_FORALL_DTYPES(TANDEM_DISPATCH_CASE)
#undef TANDEM_DISPATCH_CASE
    default:
      break;
  }
  throw_dtype_not_implemented(nullptr, d);
}

// dispatch_dtype over the real dtypes and uint16, uint32, uint64 (the integer ops the Array API needs).
template <typename Fn>
decltype(auto) dispatch_dtype_with_uint(DType d, Fn&& fn) {
  switch (d) {
#define TANDEM_DISPATCH_CASE(e, t, n, c, title, cpp) \
  case DType::e:                                     \
    return fn(TypeTag<t>{});
    TANDEM_FORALL_DTYPES(TANDEM_DISPATCH_CASE)
    TANDEM_FORALL_WIDE_UINT_DTYPES(TANDEM_DISPATCH_CASE)
#undef TANDEM_DISPATCH_CASE
    default:
      break;
  }
  throw_dtype_not_implemented(nullptr, d);
}

// dispatch_dtype over the real dtypes and complex<float>, complex<double>.
template <typename Fn>
decltype(auto) dispatch_dtype_with_complex(DType d, Fn&& fn) {
  switch (d) {
#define TANDEM_DISPATCH_CASE(e, t, n, c, title, cpp) \
  case DType::e:                                     \
    return fn(TypeTag<t>{});
    TANDEM_FORALL_DTYPES(TANDEM_DISPATCH_CASE)
    TANDEM_FORALL_COMPLEX_DTYPES(TANDEM_DISPATCH_CASE)
#undef TANDEM_DISPATCH_CASE
    default:
      break;
  }
  throw_dtype_not_implemented(nullptr, d);
}

// dispatch over every dtype (copies, casts, element moves, the Python boundary).
template <typename Fn>
decltype(auto) dispatch_any_dtype(DType d, Fn&& fn) {
  switch (d) {
#define TANDEM_DISPATCH_CASE(e, t, n, c, title, cpp) \
  case DType::e:                                     \
    return fn(TypeTag<t>{});
    TANDEM_FORALL_ALL_DTYPES(TANDEM_DISPATCH_CASE)
#undef TANDEM_DISPATCH_CASE
  }
  __builtin_unreachable();
}

// Calls fn(TypeTag<complex<float>>{}) or fn(TypeTag<complex<double>>{}); `d` must be complex.
template <typename Fn>
decltype(auto) dispatch_complex(DType d, Fn&& fn) {
  if (d == DType::Complex128) return fn(TypeTag<complex<double>>{});
  return fn(TypeTag<complex<float>>{});
}

template <typename T>
constexpr bool is_floating_type_v = std::is_floating_point_v<T> || std::is_same_v<T, Half> ||
                                    std::is_same_v<T, BFloat16>;
template <typename T>
constexpr bool is_integral_or_bool_type_v = std::is_integral_v<T>;

}  // namespace tandem
