// Which input dtypes each op-list rule lets reach a kernel (the front ends cast or reject the others). The
// CPU and CUDA kernel tables instantiate loops only for these, so both backends accept exactly the same
// dtypes.
#pragma once
#include <utility>

#include "core/dtype.h"
#include "kernels/op_rules.h"

namespace tandem {

// The op-list ops whose kernels take uint16, uint32 and uint64 (dispatch_dtype_with_uint): the integer
// arithmetic, comparisons, bitwise ops and rounding the Array API needs for them. PyTorch itself has only
// mul, eq, ne, bitwise and/or/xor, minimum and maximum; every other op refuses them at the kernel call
// (kernels/dtype_guard.cpp) with PyTorch's NotImplementedError.
template <typename F>
inline constexpr bool takes_wide_uint_v = false;
#define TANDEM_TAKES_WIDE_UINT(F) \
  struct F;                       \
  template <>                     \
  inline constexpr bool takes_wide_uint_v<F> = true;
TANDEM_TAKES_WIDE_UINT(NegOp)
TANDEM_TAKES_WIDE_UINT(AbsOp)
TANDEM_TAKES_WIDE_UINT(SignOp)
TANDEM_TAKES_WIDE_UINT(FloorOp)
TANDEM_TAKES_WIDE_UINT(CeilOp)
TANDEM_TAKES_WIDE_UINT(RoundOp)
TANDEM_TAKES_WIDE_UINT(TruncOp)
TANDEM_TAKES_WIDE_UINT(BitwiseNotOp)
TANDEM_TAKES_WIDE_UINT(IsNanOp)
TANDEM_TAKES_WIDE_UINT(IsInfOp)
TANDEM_TAKES_WIDE_UINT(IsFiniteOp)
TANDEM_TAKES_WIDE_UINT(AddOp)
TANDEM_TAKES_WIDE_UINT(SubOp)
TANDEM_TAKES_WIDE_UINT(MulOp)
TANDEM_TAKES_WIDE_UINT(FloorDivOp)
TANDEM_TAKES_WIDE_UINT(RemainderOp)
TANDEM_TAKES_WIDE_UINT(PowOp)
TANDEM_TAKES_WIDE_UINT(MaximumOp)
TANDEM_TAKES_WIDE_UINT(MinimumOp)
TANDEM_TAKES_WIDE_UINT(EqOp)
TANDEM_TAKES_WIDE_UINT(NeOp)
TANDEM_TAKES_WIDE_UINT(LtOp)
TANDEM_TAKES_WIDE_UINT(LeOp)
TANDEM_TAKES_WIDE_UINT(GtOp)
TANDEM_TAKES_WIDE_UINT(GeOp)
TANDEM_TAKES_WIDE_UINT(BitwiseAndOp)
TANDEM_TAKES_WIDE_UINT(BitwiseOrOp)
TANDEM_TAKES_WIDE_UINT(BitwiseXorOp)
TANDEM_TAKES_WIDE_UINT(LeftShiftOp)
TANDEM_TAKES_WIDE_UINT(RightShiftOp)
#undef TANDEM_TAKES_WIDE_UINT

// The op-list ops PyTorch has no float16/bfloat16 kernels for (torch.special's Bessel functions and
// orthogonal polynomials): the kernel guard refuses those dtypes with PyTorch's NotImplementedError.
template <typename F>
inline constexpr bool refuses_half_v = false;
#define TANDEM_REFUSES_HALF(F) \
  struct F;                    \
  template <>                  \
  inline constexpr bool refuses_half_v<F> = true;
TANDEM_REFUSES_HALF(BesselJ0Op)
TANDEM_REFUSES_HALF(BesselJ1Op)
TANDEM_REFUSES_HALF(BesselY0Op)
TANDEM_REFUSES_HALF(BesselY1Op)
TANDEM_REFUSES_HALF(ModifiedBesselI0Op)
TANDEM_REFUSES_HALF(ModifiedBesselI1Op)
TANDEM_REFUSES_HALF(ModifiedBesselK0Op)
TANDEM_REFUSES_HALF(ModifiedBesselK1Op)
TANDEM_REFUSES_HALF(ScaledModifiedBesselK0Op)
TANDEM_REFUSES_HALF(ScaledModifiedBesselK1Op)
TANDEM_REFUSES_HALF(SphericalBesselJ0Op)
TANDEM_REFUSES_HALF(AiryAiOp)
TANDEM_REFUSES_HALF(ChebyshevTOp)
TANDEM_REFUSES_HALF(ChebyshevUOp)
TANDEM_REFUSES_HALF(ChebyshevVOp)
TANDEM_REFUSES_HALF(ChebyshevWOp)
TANDEM_REFUSES_HALF(ShiftedChebyshevTOp)
TANDEM_REFUSES_HALF(ShiftedChebyshevUOp)
TANDEM_REFUSES_HALF(ShiftedChebyshevVOp)
TANDEM_REFUSES_HALF(ShiftedChebyshevWOp)
TANDEM_REFUSES_HALF(HermiteHOp)
TANDEM_REFUSES_HALF(HermiteHeOp)
TANDEM_REFUSES_HALF(LaguerreLOp)
TANDEM_REFUSES_HALF(LegendrePOp)
#undef TANDEM_REFUSES_HALF

// dispatch_dtype, widened to uint16..64 for the ops above.
template <typename F, typename Fn>
decltype(auto) dispatch_op_dtype(DType d, Fn&& fn) {
  if constexpr (takes_wide_uint_v<F>)
    return dispatch_dtype_with_uint(d, std::forward<Fn>(fn));
  else
    return dispatch_dtype(d, std::forward<Fn>(fn));
}

template <typename T, UnaryRule R>
constexpr bool unary_accepts() {
  if constexpr (R == UnaryRule::Float || R == UnaryRule::FloatOnly)
    return is_floating_type_v<T>;
  else if constexpr (R == UnaryRule::Integral)
    return is_integral_or_bool_type_v<T>;
  else
    return true;
}

template <typename T, BinaryRule R>
constexpr bool binary_accepts() {
  if constexpr (R == BinaryRule::TrueDiv || R == BinaryRule::FloatOnly)
    return is_floating_type_v<T>;
  else if constexpr (R == BinaryRule::Integer)
    return is_integral_or_bool_type_v<T> && !std::is_same_v<T, bool>;
  else if constexpr (R == BinaryRule::Bitwise)
    return is_integral_or_bool_type_v<T>;
  else
    return true;
}

}  // namespace tandem
