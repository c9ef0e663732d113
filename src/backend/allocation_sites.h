// Where device memory was allocated: the user's source line (file:line) of each live device allocation,
// recorded only while tandem.cuda.memory.record_allocation_sites(True) is on. Out-of-memory errors and
// tandem.cuda.memory_summary() name these lines next to the largest live allocations.
//
// Contract for allocators (emulated today, the real CUDA allocator likewise): call note_allocation for every
// block handed out (fresh or from the cache) and note_free for every block taken back, with `bytes` equal to
// the figure the backend reports for that block in largest_live_allocations. While recording is off (the
// default) each call is one relaxed atomic load. The site itself comes from a provider the Python layer
// installs, so allocators stay free of Python.
#pragma once
#include <atomic>
#include <cstddef>
#include <string>
#include <vector>

#include "core/device.h"
#include "core/error.h"

namespace tandem::allocation_sites {

// Returns the current user source line ("train.py:12"), or "" when there is none (no Python frame).
using SiteProvider = std::string (*)();
void set_site_provider(SiteProvider provider);

// Turning recording off also forgets every recorded site, so no stale entry can outlive its block.
void set_recording(bool on);

namespace detail {
extern std::atomic<bool> recording;
void record(Device device, const void* ptr, size_t bytes);
void forget(const void* ptr);
}  // namespace detail

inline bool recording() { return detail::recording.load(std::memory_order_relaxed); }

inline void note_allocation(Device device, const void* ptr, size_t bytes) {
  if (recording()) detail::record(device, ptr, bytes);
}
inline void note_free(const void* ptr) {
  if (recording()) detail::forget(ptr);
}

// Pairs the sizes a backend reports as a device's largest live allocations (largest first) with recorded
// sites. Matching is by size: every recorded entry is a live block of that size on that device, so each
// pairing names a real allocation of that size even when several blocks share one.
std::vector<SitedAllocation> attach_sites(Device device, const std::vector<size_t>& largest);

}  // namespace tandem::allocation_sites
