// A storage with a pending write (a non_blocking device-to-host copy) makes every host access wait for it
// once, and waits before its memory is freed.
#include <gtest/gtest.h>

#include "core/tensor.h"

using namespace tandem;

namespace {
Tensor four_floats() {
  const int64_t shape[] = {4};
  return empty(shape, DType::Float32);
}

struct CountingWrite final : PendingWrite {
  int* waits;
  explicit CountingWrite(int* w) : waits(w) {}
  void wait() override { ++*waits; }
};
}  // namespace

TEST(PendingWrite, HostAccessWaitsOnceThenRunsFree) {
  int waits = 0;
  Tensor t = four_floats();
  t.storage()->add_pending_write(IntrusivePtr<PendingWrite>(new CountingWrite(&waits)));
  t.storage()->add_pending_write(IntrusivePtr<PendingWrite>(new CountingWrite(&waits)));
  EXPECT_TRUE(t.storage()->has_pending_writes());
  void* raw = t.storage()->data_without_waiting();
  EXPECT_EQ(waits, 0);
  EXPECT_EQ(t.data_ptr(), raw);
  EXPECT_EQ(waits, 2);  // both writes waited for
  EXPECT_FALSE(t.storage()->has_pending_writes());
  (void)t.data_ptr();
  EXPECT_EQ(waits, 2);
}

TEST(PendingWrite, FreeingTheStorageWaits) {
  int waits = 0;
  {
    Tensor t = four_floats();
    t.storage()->add_pending_write(IntrusivePtr<PendingWrite>(new CountingWrite(&waits)));
  }
  EXPECT_EQ(waits, 1);
}
