// The emulated device's kernel table: every CPU slot wrapped to run asynchronously on the device's stream.
// The slots come from kernels/op_list.def and kernels/kernel_slots.def, so a new slot is wrapped without a
// line here.
#include <string>
#include <utility>

#include "kernels/emulated/async_kernels.h"
#include "kernels/fused_optim.h"
#include "kernels/kernel_table.h"
#include "kernels/startup.h"

namespace tandem::emulated {

namespace {
const KernelTable& cpu_table() { return kernel_table_for_registration(DeviceType::CPU); }

// Kernel names for the profiler: "tandem::kernel::" and the slot (binary.add, reduce.softmax, copy).
template <int I>
struct UnaryGet {
  static ElementwiseKernel fn() { return cpu_table().unary[I]; }
  static const char* name() {
    static const std::string n =
        std::string("tandem::kernel::unary.") + unary_op_name(static_cast<UnaryOp>(I));
    return n.c_str();
  }
};
template <int I>
struct BinaryGet {
  static ElementwiseKernel fn() { return cpu_table().binary[I]; }
  static const char* name() {
    static const std::string n =
        std::string("tandem::kernel::binary.") + binary_op_name(static_cast<BinaryOp>(I));
    return n.c_str();
  }
};
template <int... I>
void wrap_unary(KernelTable& t, std::integer_sequence<int, I...>) {
  ((t.unary[I] = &AsyncSlot<ElementwiseKernel>::call<UnaryGet<I>>), ...);
}
template <int... I>
void wrap_binary(KernelTable& t, std::integer_sequence<int, I...>) {
  ((t.binary[I] = &AsyncSlot<ElementwiseKernel>::call<BinaryGet<I>>), ...);
}
}  // namespace

// Wraps the slot `path` of the table being filled; Get reads the same slot of the CPU table.
#define TANDEM_ASYNC_SLOT(path)                                             \
  do {                                                                      \
    struct Get {                                                            \
      static auto fn() { return cpu_table().path; }                         \
      static const char* name() { return "tandem::kernel::" #path; }        \
    };                                                                      \
    if (cpu_table().path) t.path = &AsyncSlot<decltype(t.path)>::call<Get>; \
  } while (0);

void register_emulated_kernels(KernelTable& t) {
  wrap_unary(t, std::make_integer_sequence<int, kNumUnaryOps>{});
  wrap_binary(t, std::make_integer_sequence<int, kNumBinaryOps>{});
#define TANDEM_TOP_SLOT(name, Type) TANDEM_ASYNC_SLOT(name)
#define TANDEM_REDUCE_SLOT(name, Type) TANDEM_ASYNC_SLOT(reduce.name)
#define TANDEM_INDEX_SLOT(name, Type) TANDEM_ASYNC_SLOT(index.name)
#define TANDEM_RANDOM_SLOT(name, Type) TANDEM_ASYNC_SLOT(random.name)
#define TANDEM_LINALG_SLOT(name, Type) TANDEM_ASYNC_SLOT(linalg.name)
#define TANDEM_NN_SLOT(name, Type) TANDEM_ASYNC_SLOT(nn.name)
#include "kernels/kernel_slots.def"
#undef TANDEM_TOP_SLOT
#undef TANDEM_REDUCE_SLOT
#undef TANDEM_INDEX_SLOT
#undef TANDEM_RANDOM_SLOT
#undef TANDEM_LINALG_SLOT
#undef TANDEM_NN_SLOT
  // The fused-update slot of the newer optimizers has its own table (kernels/fused_optim.h).
  struct GetOptimStep {
    static auto fn() { return optim_step_kernel(DeviceType::CPU); }
    static const char* name() { return "tandem::kernel::optim_step"; }
  };
  if (optim_step_kernel(DeviceType::CPU))
    optim_step_kernel(DeviceType::CUDA) = &AsyncSlot<OptimStepKernel>::call<GetOptimStep>;
}
#undef TANDEM_ASYNC_SLOT

}  // namespace tandem::emulated
