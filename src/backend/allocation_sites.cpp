#include "backend/allocation_sites.h"

#include <mutex>
#include <unordered_map>

namespace tandem::allocation_sites {

namespace {
struct Entry {
  Device device;
  size_t bytes;
  std::string site;
};
std::mutex mu;
std::unordered_map<const void*, Entry> live;  // block -> where it was allocated
std::atomic<SiteProvider> provider{nullptr};
}  // namespace

namespace detail {
std::atomic<bool> recording{false};

void record(Device device, const void* ptr, size_t bytes) {
  SiteProvider p = provider.load(std::memory_order_acquire);
  std::string site = p ? p() : std::string();
  std::lock_guard<std::mutex> lock(mu);
  if (!recording.load(std::memory_order_relaxed)) return;  // switched off meanwhile: keep the map clear
  live[ptr] = Entry{device, bytes, std::move(site)};
}

void forget(const void* ptr) {
  std::lock_guard<std::mutex> lock(mu);
  live.erase(ptr);
}
}  // namespace detail

void set_site_provider(SiteProvider p) { provider.store(p, std::memory_order_release); }

void set_recording(bool on) {
  std::lock_guard<std::mutex> lock(mu);
  detail::recording.store(on, std::memory_order_relaxed);
  if (!on) live.clear();
}

std::vector<SitedAllocation> attach_sites(Device device, const std::vector<size_t>& largest) {
  std::vector<SitedAllocation> out;
  std::unordered_multimap<size_t, const std::string*> by_size;
  std::lock_guard<std::mutex> lock(mu);
  for (const auto& [ptr, e] : live)
    if (e.device == device && !e.site.empty()) by_size.emplace(e.bytes, &e.site);
  for (size_t bytes : largest) {
    SitedAllocation a{static_cast<int64_t>(bytes), {}};
    auto it = by_size.find(bytes);
    if (it != by_size.end()) {
      a.site = *it->second;
      by_size.erase(it);
    }
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace tandem::allocation_sites
