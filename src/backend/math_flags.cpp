#include "backend/math_flags.h"

#include <atomic>

namespace tandem {

namespace {
std::atomic<bool> g_allow_tf32{false};
}

bool allow_tf32() { return g_allow_tf32.load(std::memory_order_relaxed); }
void set_allow_tf32(bool allow) { g_allow_tf32.store(allow, std::memory_order_relaxed); }

}  // namespace tandem
