#include "backend/out_of_memory.h"

#include <cstdio>

#include "backend/allocation_sites.h"
#include "core/error.h"

namespace tandem {

std::string format_bytes(size_t bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  double b = static_cast<double>(bytes);
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

void throw_out_of_memory(const OutOfMemoryReport& r) {
  std::vector<SitedAllocation> largest = allocation_sites::attach_sites(r.device, r.largest);
  std::string top;
  for (const SitedAllocation& a : largest) {
    top += (top.empty() ? "" : ", ") + format_bytes(static_cast<size_t>(a.bytes));
    if (!a.site.empty()) top += " at " + a.site;
  }
  const std::string fix =
      "free tensors you no longer need (del x), use a smaller batch, or move data to the CPU";
  const char* sites_hint = allocation_sites::recording()
                               ? ""
                               : " (tandem.cuda.memory.record_allocation_sites(True) records where each "
                                 "allocation was made)";
  std::string msg = detail::concat(
      "CUDA out of memory. Tried to allocate ", format_bytes(r.requested), ". GPU ", r.device.index,
      " has a total capacity of ", format_bytes(r.total), " of which ", format_bytes(r.free),
      " is free. Of the allocated memory ", format_bytes(r.allocated), " is allocated by tandem, and ",
      format_bytes(r.reserved - r.allocated), " is reserved by tandem but unallocated.",  //
      "\nhint: largest live allocations on ", r.device.str(), ": ", top.empty() ? std::string("none") : top,
      "; ", fix, sites_hint, r.note.empty() ? "" : "; ", r.note,
      "\n(allocated: memory held by live tensors; reserved: allocated plus blocks tandem caches for reuse, "
      "released by tandem.cuda.empty_cache(); free: what the device can still hand out)");
  ErrorDetails details{
      {"device", r.device},
      {"requested_bytes", static_cast<int64_t>(r.requested)},
      {"allocated_bytes", static_cast<int64_t>(r.allocated)},
      {"reserved_bytes", static_cast<int64_t>(r.reserved)},
      {"free_bytes", static_cast<int64_t>(r.free)},
      {"total_bytes", static_cast<int64_t>(r.total)},
      {"largest_allocations", std::move(largest)},
      {"fix", fix},
  };
  detail::throw_error(ErrorKind::OutOfMemory, std::move(msg), std::move(details));
}

}  // namespace tandem
