#include "backend/oom_error.h"

#include <cstdio>

#include "core/error.h"

namespace tandem {

std::string format_bytes(double b) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) {
    b /= 1024;
    ++u;
  }
  char buf[64];
  if (u == 0)
    std::snprintf(buf, sizeof buf, "%.0f bytes", b);
  else
    std::snprintf(buf, sizeof buf, "%.2f %s", b, units[u]);
  return buf;
}

void throw_cuda_out_of_memory(const OutOfMemoryReport& r) {
  auto fmt = [](size_t b) { return format_bytes(static_cast<double>(b)); };
  std::string top;
  for (size_t b : r.largest_live) top += (top.empty() ? "" : ", ") + fmt(b);
  TANDEM_THROW(OutOfMemory, "CUDA out of memory. Tried to allocate ", fmt(r.requested), ". GPU ", r.device,
               " has a total capacity of ", fmt(r.capacity), " of which ", fmt(r.free),
               " is free. Of the allocated memory ", fmt(r.allocated), " is allocated by tandem, and ",
               fmt(r.reserved - r.allocated),
               " is reserved by tandem but unallocated.\nhint: largest live "
               "allocations on cuda:",
               r.device, ": ", top.empty() ? std::string("none") : top,
               "; free tensors you no longer need (del x), use a smaller batch, or move data to the CPU",
               r.note.empty() ? std::string() : " (" + r.note + ")");
}

}  // namespace tandem
