// Errors that carry data (core/error.h) and the allocation-site registry (backend/allocation_sites.h).
#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "backend/allocation_sites.h"
#include "backend/out_of_memory.h"
#include "core/error.h"
#include "ops/elementwise.h"

using namespace tandem;

namespace {
const ErrorValue* field(const Error& e, const std::string& name) {
  for (const ErrorField& f : e.details())
    if (f.name == name) return &f.value;
  return nullptr;
}
std::string user_line() { return "train.py:7"; }
const Device kCuda0(DeviceType::CUDA, 0), kCuda1(DeviceType::CUDA, 1);
}  // namespace

TEST(AllocationSites, AttachesRecordedSitesBySizeAndForgetsFreedBlocks) {
  int blocks[4];
  allocation_sites::set_site_provider(&user_line);
  allocation_sites::note_allocation(kCuda0, &blocks[0], 64);  // off: not recorded
  allocation_sites::set_recording(true);
  allocation_sites::note_allocation(kCuda0, &blocks[1], 100);
  allocation_sites::note_allocation(kCuda0, &blocks[2], 64);
  allocation_sites::note_allocation(kCuda1, &blocks[3], 100);  // another device never lends its site
  auto sited = allocation_sites::attach_sites(kCuda0, {100, 64, 64});
  ASSERT_EQ(sited.size(), 3u);
  EXPECT_EQ(sited[0].bytes, 100);
  EXPECT_EQ(sited[0].site, "train.py:7");
  EXPECT_EQ(sited[1].site, "train.py:7");
  EXPECT_EQ(sited[2].site, "");  // two 64-byte blocks, one recorded
  allocation_sites::note_free(&blocks[1]);
  EXPECT_EQ(allocation_sites::attach_sites(kCuda0, {100})[0].site, "");
  allocation_sites::set_recording(false);
  allocation_sites::set_recording(true);
  EXPECT_EQ(allocation_sites::attach_sites(kCuda1, {100})[0].site, "");  // switching off forgot everything
  allocation_sites::set_recording(false);
}

TEST(BoundaryErrors, OutOfMemoryCarriesTheFigures) {
  OutOfMemoryReport r;
  r.device = kCuda0;
  r.requested = 48 << 20;
  r.total = 64 << 20;
  r.free = 16 << 20;
  r.allocated = r.reserved = 48 << 20;
  r.largest = {48 << 20};
  try {
    throw_out_of_memory(r);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::OutOfMemory);
    std::string msg = e.what();
    EXPECT_EQ(msg.substr(0, msg.find('\n')),
              "CUDA out of memory. Tried to allocate 48.00 MiB. GPU 0 has a total capacity of 64.00 MiB of which "
              "16.00 MiB is free. Of the allocated memory 48.00 MiB is allocated by tandem, and 0 bytes is "
              "reserved by tandem but unallocated.");
    EXPECT_EQ(std::get<int64_t>(*field(e, "requested_bytes")), 48 << 20);
    EXPECT_EQ(std::get<Device>(*field(e, "device")), kCuda0);
    EXPECT_EQ(std::get<std::vector<SitedAllocation>>(*field(e, "largest_allocations")).size(), 1u);
    return;
  }
  FAIL() << "no error";
}

TEST(BoundaryErrors, DeviceMismatchNamesTheOperandAndTheFix) {
  try {
    throw_device_mismatch("mm", kCuda0, Device(), "mat2", kCuda0);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::DeviceMismatch);
    std::string msg = e.what();
    EXPECT_EQ(msg.substr(0, msg.find('\n')),
              "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!");
    EXPECT_EQ(std::get<std::string>(*field(e, "operand")), "mat2");
    EXPECT_EQ(std::get<std::string>(*field(e, "fix")), "mat2 = mat2.to('cuda:0')");
    EXPECT_EQ(std::get<std::vector<Device>>(*field(e, "devices")).size(), 2u);
    return;
  }
  FAIL() << "no error";
}
