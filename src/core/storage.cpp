#include "core/storage.h"

namespace tandem {

thread_local bool InferenceMode::enabled_ = false;

void StorageImpl::add_pending_write(IntrusivePtr<PendingWrite> write) {
  std::lock_guard<std::mutex> lock(pending_mu_);
  pending_.push_back(std::move(write));
  has_pending_.store(true, std::memory_order_release);
}

// Waits under the lock: a second reader arriving meanwhile must not see the flag cleared before the
// writes are done.
void StorageImpl::wait_pending_writes() const {
  std::lock_guard<std::mutex> lock(pending_mu_);
  for (auto& w : pending_) w->wait();
  pending_.clear();
  has_pending_.store(false, std::memory_order_release);
}

}  // namespace tandem
