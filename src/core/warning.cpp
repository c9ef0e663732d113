#include "core/warning.h"

#include <atomic>

namespace tandem {

namespace {
std::atomic<WarningHandler> handler{nullptr};
}  // namespace

void warn(const std::string& message) {
  if (WarningHandler h = handler.load(std::memory_order_acquire)) h(message);
}

void set_warning_handler(WarningHandler h) { handler.store(h, std::memory_order_release); }

}  // namespace tandem
