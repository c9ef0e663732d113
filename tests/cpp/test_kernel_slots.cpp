// Every registered device fills every kernel slot: front ends call slots without a null check, so an empty
// one would crash instead of raising. The slot lists come from op_list.def and kernel_slots.def.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "kernels/kernel_table.h"

namespace tandem {
namespace {

std::vector<std::string> empty_slots(const KernelTable& t) {
  std::vector<std::string> empty;
  for (int i = 0; i < kNumUnaryOps; ++i)
    if (!t.unary[i]) empty.push_back(std::string("unary.") + unary_op_name(static_cast<UnaryOp>(i)));
  for (int i = 0; i < kNumBinaryOps; ++i)
    if (!t.binary[i]) empty.push_back(std::string("binary.") + binary_op_name(static_cast<BinaryOp>(i)));
  for_each_kernel_slot(t, [&](const char* path, auto slot) {
    if (!slot) empty.push_back(path);
  });
  return empty;
}

TEST(KernelSlots, CpuFillsEverySlot) {
  EXPECT_EQ(empty_slots(kernel_table(DeviceType::CPU)), std::vector<std::string>{});
}

TEST(KernelSlots, CudaSlotFillsEverySlot) {
  // Without a GPU this checks the emulated devices; on a GPU machine without TANDEM_EMULATE_CUDA, the real
  // ones.
  if (!std::getenv("TANDEM_EMULATE_CUDA")) setenv("TANDEM_EMULATE_CUDA", "1", 0);
  ASSERT_TRUE(has_backend(DeviceType::CUDA));
  EXPECT_EQ(empty_slots(kernel_table(DeviceType::CUDA)), std::vector<std::string>{});
}

TEST(KernelSlots, SlotListCoversTheTable) {
  // Every field of KernelTable is a slot the walk visits: a field added outside kernel_slots.def would be
  // missed by the emulated wrapper and by the tests above.
  size_t visited = 0;
  KernelTable t;
  for_each_kernel_slot(t, [&](const char*, auto slot) { visited += sizeof(slot); });
  EXPECT_EQ(sizeof(KernelTable), visited + sizeof(t.unary) + sizeof(t.binary));
}

}  // namespace
}  // namespace tandem
