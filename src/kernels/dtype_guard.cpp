// The complex guard: every kernel slot of every device is wrapped so that a complex operand reaching a slot
// written for real dtypes raises PyTorch's NotImplementedError ("abs_cpu" not implemented for 'ComplexFloat')
// on the calling thread, before any kernel runs. Real op bodies are never instantiated for complex
// (dispatch_dtype is real-only) and an emulated device runs kernels on its stream's worker thread, where a
// throw would end the process: so the check belongs here, at the call, once for all slots, rather than in
// every front end.
//
// Slots that do take complex: copy (every dtype pair), where, gemm, the complex_* slots, and the index moves
// (which move elements by width; put's accumulation adds in the dtype, so it is refused for complex).
#include <string>
#include <string_view>
#include <utility>

#include "kernels/kernel_table.h"
#include "kernels/startup.h"
#include "kernels/tensor_iterator.h"

namespace tandem {

namespace {

KernelTable& unguarded(DeviceType type) {
  static KernelTable tables[kNumDeviceTypes];
  return tables[static_cast<int>(type)];
}

// The first complex dtype among a call's operands, or -1.
inline int complex_of(const Tensor& t) { return t.defined() && is_complex(t.dtype()) ? int(t.dtype()) : -1; }
inline int complex_of(const TensorIterator& it) {
  for (int k = 0; k < it.ntensors(); ++k)
    if (is_complex(it.dtype(k))) return int(it.dtype(k));
  return -1;
}
inline int complex_of(const GemmArgs& g) { return is_complex(g.dtype) ? int(g.dtype) : -1; }
inline int complex_of(const IndexPlan& p) { return is_complex(p.dtype) ? int(p.dtype) : -1; }
template <typename T>
int complex_of(const T&) {
  return -1;
}

// PyTorch names a kernel by op and device: "abs_cpu", "sort_cuda".
[[noreturn]] void refuse(std::string_view slot, DeviceType type, int dtype) {
  std::string name(slot.substr(slot.rfind('.') == std::string_view::npos ? 0 : slot.rfind('.') + 1));
  name += type == DeviceType::CPU ? "_cpu" : "_cuda";
  throw_complex_not_implemented(name.c_str(), static_cast<DType>(dtype));
}

template <typename Fn>
struct Guarded;
template <typename R, typename... Args>
struct Guarded<R (*)(Args...)> {
  // Get::fn(): the unguarded slot; Get::name(): its name; Get::type(): the device type.
  template <typename Get>
  static R call(Args... args) {
    int c = -1;
    ((c = c >= 0 ? c : complex_of(args)), ...);
    if (__builtin_expect(c >= 0, 0)) refuse(Get::name(), Get::type(), c);
    return Get::fn()(std::forward<Args>(args)...);
  }
};

template <DeviceType D>
struct IndexPutGuard {
  static void call(const IndexPlan& plan, bool accumulate) {
    if (accumulate && is_complex(plan.dtype)) refuse("index_put", D, int(plan.dtype));
    unguarded(D).index.put(plan, accumulate);
  }
};

template <DeviceType D, int I>
struct UnaryGet {
  static DeviceType type() { return D; }
  static ElementwiseKernel fn() { return unguarded(D).unary[I]; }
  static const char* name() { return unary_op_name(static_cast<UnaryOp>(I)); }
};
template <DeviceType D, int I>
struct BinaryGet {
  static DeviceType type() { return D; }
  static ElementwiseKernel fn() { return unguarded(D).binary[I]; }
  static const char* name() { return binary_op_name(static_cast<BinaryOp>(I)); }
};
template <DeviceType D, int... I>
void guard_unary(KernelTable& t, std::integer_sequence<int, I...>) {
  ((t.unary[I] = t.unary[I] ? &Guarded<ElementwiseKernel>::call<UnaryGet<D, I>> : nullptr), ...);
}
template <DeviceType D, int... I>
void guard_binary(KernelTable& t, std::integer_sequence<int, I...>) {
  ((t.binary[I] = t.binary[I] ? &Guarded<ElementwiseKernel>::call<BinaryGet<D, I>> : nullptr), ...);
}

// Slots that handle complex operands themselves keep their kernel.
constexpr bool takes_complex(std::string_view path) {
  return path == "copy" || path == "where" || path == "complex_unary" || path == "complex_binary" ||
         path == "index.gather" || path == "linalg.gemm";
}

template <DeviceType D>
void guard_table(KernelTable& t) {
  unguarded(D) = t;
  guard_unary<D>(t, std::make_integer_sequence<int, kNumUnaryOps>{});
  guard_binary<D>(t, std::make_integer_sequence<int, kNumBinaryOps>{});
  if (t.index.put) t.index.put = &IndexPutGuard<D>::call;
#define TANDEM_GUARD_SLOT(path)                                                    \
  do {                                                                             \
    struct Get {                                                                   \
      static DeviceType type() { return D; }                                       \
      static auto fn() { return unguarded(D).path; }                               \
      static const char* name() { return #path; }                                  \
    };                                                                             \
    if (t.path && !takes_complex(#path) && std::string_view(#path) != "index.put") \
      t.path = &Guarded<decltype(t.path)>::template call<Get>;                     \
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

void guard_complex_operands(DeviceType type) {
  if (type == DeviceType::CPU)
    guard_table<DeviceType::CPU>(kernel_table_for_registration(DeviceType::CPU));
  else
    guard_table<DeviceType::CUDA>(kernel_table_for_registration(DeviceType::CUDA));
}

}  // namespace tandem
