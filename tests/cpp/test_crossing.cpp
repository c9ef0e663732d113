// The transfer guard's per-thread state and the crossing hooks (backend/crossing.h), without any device:
// CrossingRecord is what every transfer entry point constructs first.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "backend/crossing.h"

using namespace tandem;

namespace {
struct Seen {
  Crossing crossing;
  GuardLevel level;
};
std::vector<Seen> g_reported;
std::vector<Crossing> g_recorded;

void report(const Crossing& c, GuardLevel level) {
  g_reported.push_back({c, level});
  if (level == GuardLevel::Disallow || level == GuardLevel::DisallowExplicit)
    throw std::runtime_error("refused");
}
void record(const Crossing& c, int64_t, int64_t duration_ns) {
  EXPECT_GE(duration_ns, 0);
  g_recorded.push_back(c);
}

const Device kCuda0(DeviceType::CUDA, 0);

class CrossingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g_reported.clear();
    g_recorded.clear();
    set_crossing_hooks({&report, &record});
  }
  void TearDown() override {
    for (int k = 0; k < kCrossingKinds; ++k) set_guard_level(static_cast<CrossingKind>(k), GuardLevel::Allow);
    set_crossing_profiling(false);
    set_crossing_hooks({});
  }
};

void host_to_device() { CrossingRecord r(CrossingKind::HostToDevice, Device(), kCuda0, 8); }
}  // namespace

TEST_F(CrossingTest, DefaultLevelsReportNothing) {
  host_to_device();
  EXPECT_TRUE(g_reported.empty());
  EXPECT_TRUE(g_recorded.empty());
}

TEST_F(CrossingTest, DisallowRefusesImplicitCrossingsOnly) {
  set_guard_level(CrossingKind::HostToDevice, GuardLevel::Disallow);
  EXPECT_THROW(host_to_device(), std::runtime_error);
  {
    CrossingScope scope(".cuda()", true);
    host_to_device();  // explicit: allowed
  }
  set_guard_level(CrossingKind::HostToDevice, GuardLevel::DisallowExplicit);
  CrossingScope scope(".cuda()", true);
  EXPECT_THROW(host_to_device(), std::runtime_error);
  ASSERT_EQ(g_reported.size(), 2u);
  EXPECT_FALSE(g_reported[0].crossing.is_explicit);
  EXPECT_TRUE(g_reported[1].crossing.is_explicit);
  EXPECT_STREQ(g_reported[1].crossing.op, ".cuda()");
}

TEST_F(CrossingTest, OtherDirectionsAndCopiesWithinOneDeviceAreNotGuarded) {
  set_guard_level(CrossingKind::DeviceToHost, GuardLevel::DisallowExplicit);
  host_to_device();
  set_guard_level(CrossingKind::DeviceToDevice, GuardLevel::DisallowExplicit);
  CrossingRecord within(CrossingKind::DeviceToDevice, kCuda0, kCuda0, 8);
  EXPECT_TRUE(g_reported.empty());
}

TEST_F(CrossingTest, OutermostScopeWins) {
  set_guard_level(CrossingKind::HostToDevice, GuardLevel::Log);
  {
    CrossingScope outer("print", false);
    CrossingScope inner(".tolist()", true);
    host_to_device();
  }
  host_to_device();
  ASSERT_EQ(g_reported.size(), 2u);
  EXPECT_STREQ(g_reported[0].crossing.op, "print");
  EXPECT_FALSE(g_reported[0].crossing.is_explicit);
  EXPECT_STREQ(g_reported[1].crossing.op, "");
}

TEST_F(CrossingTest, LevelsArePerThread) {
  set_guard_level(CrossingKind::HostToDevice, GuardLevel::Disallow);
  GuardLevel seen = GuardLevel::Disallow;
  std::thread([&] {
    seen = guard_level(CrossingKind::HostToDevice);
    set_guard_level(CrossingKind::HostToDevice, GuardLevel::Allow);
  }).join();
  EXPECT_EQ(seen, GuardLevel::Allow);
  EXPECT_EQ(guard_level(CrossingKind::HostToDevice), GuardLevel::Disallow);
}

TEST_F(CrossingTest, ProfilingRecordsEveryThreadButNotRefusedCrossings) {
  set_crossing_profiling(true);
  host_to_device();
  std::thread(host_to_device).join();
  set_guard_level(CrossingKind::HostToDevice, GuardLevel::Disallow);
  EXPECT_THROW(host_to_device(), std::runtime_error);
  { CrossingRecord sync(CrossingKind::Sync, kCuda0, kCuda0, 0); }
  ASSERT_EQ(g_recorded.size(), 3u);
  EXPECT_EQ(g_recorded[0].nbytes, 8u);
  EXPECT_EQ(g_recorded[0].to, kCuda0);
  EXPECT_EQ(g_recorded[2].kind, CrossingKind::Sync);
}
