// The dtype guard: every kernel slot of every device is wrapped so that an operand of a dtype the slot was
// not written for raises PyTorch's NotImplementedError ("abs_cpu" not implemented for 'ComplexFloat',
// "lt_cpu" not implemented for 'UInt32') on the calling thread, before any kernel runs. Op bodies are
// instantiated for complex and for uint16/uint32/uint64 only where they ask (dispatch_dtype is real-only) and
// an emulated device runs kernels on its stream's worker thread, where a throw would end the process: so the
// check belongs here, at the call, once for all slots, rather than in every front end.
//
// Slots that take complex: copy (every dtype pair), where, gemm, the complex_* slots, and the index moves
// (which move elements by width, masked_scatter too; put's accumulation adds in the dtype, so it is refused
// for complex).
// Slots that take uint16..64: copy, where, clamp, the index moves (not accumulation), the reductions
// (max/min, sort, arg max/min; front ends convert sum/prod/cumsum inputs to int64 and all/any's to x != 0),
// count_nonzero, nonzero, randint, arange, and the op-list ops op_accepts.h's takes_wide_uint_v names.
#include <string>
#include <string_view>
#include <utility>

#include "kernels/functors.h"
#include "kernels/kernel_table.h"
#include "kernels/op_accepts.h"
#include "kernels/startup.h"
#include "kernels/tensor_iterator.h"

namespace tandem {

namespace {

KernelTable& unguarded(DeviceType type) {
  static KernelTable tables[kNumDeviceTypes];
  return tables[static_cast<int>(type)];
}

// Whether a slot takes an operand of dtype d (h: float16 and bfloat16, refused only by some op-list ops).
inline bool accepted(DType d, bool complex_ok, bool uint_ok, bool h = true) {
  return (complex_ok || !is_complex(d)) && (uint_ok || !is_wide_uint(d)) &&
         (h || (d != DType::Float16 && d != DType::BFloat16));
}
// The first dtype among a call's operands that the slot does not take, or -1.
inline int refused_of(const Tensor& t, bool c, bool u, bool) {
  return t.defined() && !accepted(t.dtype(), c, u) ? int(t.dtype()) : -1;
}
inline int refused_of(const TensorIterator& it, bool c, bool u, bool h) {
  for (int k = 0; k < it.ntensors(); ++k)
    if (!accepted(it.dtype(k), c, u, h)) return int(it.dtype(k));
  return -1;
}
inline int refused_of(const GemmArgs& g, bool c, bool u, bool) {
  return accepted(g.dtype, c, u) ? -1 : int(g.dtype);
}
inline int refused_of(const IndexPlan& p, bool c, bool u, bool) {
  return accepted(p.dtype, c, u) ? -1 : int(p.dtype);
}
template <typename T>
int refused_of(const T&, bool, bool, bool) {
  return -1;
}

// PyTorch names a kernel by op and device: "abs_cpu", "sort_cuda".
[[noreturn]] void refuse(std::string_view slot, DeviceType type, int dtype) {
  std::string name(slot.substr(slot.rfind('.') == std::string_view::npos ? 0 : slot.rfind('.') + 1));
  name += '_';
  name += device_type_name(type);
  throw_dtype_not_implemented(name.c_str(), static_cast<DType>(dtype));
}

// Which op-list ops take uint16..64, by op (from the functors op_list.def names).
constexpr bool kUnaryTakesWideUint[] = {
#define TANDEM_UNARY_OP(name, functor, ...) takes_wide_uint_v<functor>,
#include "kernels/op_list.def"
#undef TANDEM_UNARY_OP
};
constexpr bool kBinaryTakesWideUint[] = {
#define TANDEM_BINARY_OP(name, functor, ...) takes_wide_uint_v<functor>,
#include "kernels/op_list.def"
#undef TANDEM_BINARY_OP
};
constexpr bool kUnaryTakesHalf[] = {
#define TANDEM_UNARY_OP(name, functor, ...) !refuses_half_v<functor>,
#include "kernels/op_list.def"
#undef TANDEM_UNARY_OP
};
constexpr bool kBinaryTakesHalf[] = {
#define TANDEM_BINARY_OP(name, functor, ...) !refuses_half_v<functor>,
#include "kernels/op_list.def"
#undef TANDEM_BINARY_OP
};

template <typename Fn>
struct Guarded;
template <typename R, typename... Args>
struct Guarded<R (*)(Args...)> {
  // Get::fn(): the unguarded slot; Get::name(): its name; Get::type(): the device type.
  // Get::complex_ok(), Get::uint_ok(): which of those dtypes the slot takes.
  template <typename Get>
  static R call(Args... args) {
    int c = -1;
    ((c = c >= 0 ? c : refused_of(args, Get::complex_ok(), Get::uint_ok(), Get::half_ok())), ...);
    if (__builtin_expect(c >= 0, 0)) refuse(Get::name(), Get::type(), c);
    return Get::fn()(std::forward<Args>(args)...);
  }
};

template <DeviceType D>
struct IndexPutGuard {
  static void call(const IndexPlan& plan, bool accumulate) {
    if (accumulate && (is_complex(plan.dtype) || is_wide_uint(plan.dtype)))
      refuse("index_put", D, int(plan.dtype));
    unguarded(D).index.put(plan, accumulate);
  }
};

template <DeviceType D, int I>
struct UnaryGet {
  static DeviceType type() { return D; }
  static ElementwiseKernel fn() { return unguarded(D).unary[I]; }
  static const char* name() { return unary_op_name(static_cast<UnaryOp>(I)); }
  static constexpr bool complex_ok() { return false; }
  static constexpr bool uint_ok() { return kUnaryTakesWideUint[I]; }
  static constexpr bool half_ok() { return kUnaryTakesHalf[I]; }
};
template <DeviceType D, int I>
struct BinaryGet {
  static DeviceType type() { return D; }
  static ElementwiseKernel fn() { return unguarded(D).binary[I]; }
  static const char* name() { return binary_op_name(static_cast<BinaryOp>(I)); }
  static constexpr bool complex_ok() { return false; }
  static constexpr bool uint_ok() { return kBinaryTakesWideUint[I]; }
  static constexpr bool half_ok() { return kBinaryTakesHalf[I]; }
};
template <DeviceType D, int... I>
void guard_unary(KernelTable& t, std::integer_sequence<int, I...>) {
  ((t.unary[I] = t.unary[I] ? &Guarded<ElementwiseKernel>::call<UnaryGet<D, I>> : nullptr), ...);
}
template <DeviceType D, int... I>
void guard_binary(KernelTable& t, std::integer_sequence<int, I...>) {
  ((t.binary[I] = t.binary[I] ? &Guarded<ElementwiseKernel>::call<BinaryGet<D, I>> : nullptr), ...);
}

// Slots that handle complex or uint16..64 operands themselves (a slot taking both keeps its kernel
// unwrapped).
constexpr bool takes_complex(std::string_view path) {
  return path == "copy" || path == "where" || path == "complex_unary" || path == "complex_binary" ||
         path == "index.gather" || path == "index.masked_scatter" || path == "linalg.gemm";
}
constexpr bool takes_wide_uint(std::string_view path) {
  return path == "copy" || path == "where" || path == "clamp" || path == "index.gather" ||
         path == "reduce.reduce" || path == "reduce.arg_reduce" || path == "reduce.sort" ||
         path == "index.count_nonzero" || path == "index.nonzero" || path == "index.masked_scatter" ||
         path == "random.randint" || path == "random.arange";
}

template <DeviceType D>
void guard_table(KernelTable& t) {
  unguarded(D) = t;
  guard_unary<D>(t, std::make_integer_sequence<int, kNumUnaryOps>{});
  guard_binary<D>(t, std::make_integer_sequence<int, kNumBinaryOps>{});
  if (t.index.put) t.index.put = &IndexPutGuard<D>::call;
#define TANDEM_GUARD_SLOT(path)                                           \
  do {                                                                    \
    struct Get {                                                          \
      static DeviceType type() { return D; }                              \
      static auto fn() { return unguarded(D).path; }                      \
      static const char* name() { return #path; }                         \
      static constexpr bool complex_ok() { return takes_complex(#path); } \
      static constexpr bool uint_ok() { return takes_wide_uint(#path); }  \
      static constexpr bool half_ok() { return true; }                    \
    };                                                                    \
    if (t.path && !(takes_complex(#path) && takes_wide_uint(#path)) &&    \
        std::string_view(#path) != "index.put")                           \
      t.path = &Guarded<decltype(t.path)>::template call<Get>;            \
  } while (0);
#define TANDEM_TOP_SLOT(name, Type) TANDEM_GUARD_SLOT(name)
#define TANDEM_REDUCE_SLOT(name, Type) TANDEM_GUARD_SLOT(reduce.name)
#define TANDEM_INDEX_SLOT(name, Type) TANDEM_GUARD_SLOT(index.name)
#define TANDEM_RANDOM_SLOT(name, Type) TANDEM_GUARD_SLOT(random.name)
#define TANDEM_LINALG_SLOT(name, Type) TANDEM_GUARD_SLOT(linalg.name)
#define TANDEM_NN_SLOT(name, Type) TANDEM_GUARD_SLOT(nn.name)
#include "kernels/kernel_slots.def"
#undef TANDEM_TOP_SLOT
#undef TANDEM_REDUCE_SLOT
#undef TANDEM_INDEX_SLOT
#undef TANDEM_RANDOM_SLOT
#undef TANDEM_LINALG_SLOT
#undef TANDEM_NN_SLOT
#undef TANDEM_GUARD_SLOT
}

}  // namespace

void guard_operand_dtypes(DeviceType type) {
  switch (type) {
    case DeviceType::CPU:
      return guard_table<DeviceType::CPU>(kernel_table_for_registration(DeviceType::CPU));
    case DeviceType::CUDA:
      return guard_table<DeviceType::CUDA>(kernel_table_for_registration(DeviceType::CUDA));
    case DeviceType::Meta:
      return guard_table<DeviceType::Meta>(kernel_table_for_registration(DeviceType::Meta));
    default:  // PyTorch's other device types have no kernels (core/device.h)
      return;
  }
}

}  // namespace tandem
