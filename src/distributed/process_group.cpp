// What every process group shares: Work, ReduceOp names.
#include "distributed/process_group.h"

#include <atomic>

#include "core/error.h"

namespace tandem::distributed {

const char* reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum:
      return "SUM";
    case ReduceOp::Avg:
      return "AVG";
    case ReduceOp::Product:
      return "PRODUCT";
    case ReduceOp::Min:
      return "MIN";
    case ReduceOp::Max:
      return "MAX";
    case ReduceOp::BAnd:
      return "BAND";
    case ReduceOp::BOr:
      return "BOR";
    case ReduceOp::BXor:
      return "BXOR";
  }
  return "?";
}

bool Work::is_completed() {
  std::lock_guard<std::mutex> lock(mutex_);
  return done_;
}

void Work::finish(std::exception_ptr error) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    error_ = std::move(error);
    done_ = true;
  }
  done_cv_.notify_all();
}

namespace {
std::atomic<bool> timed_out{false};
}

bool had_timeout() { return timed_out.load(); }
void mark_timed_out() { timed_out = true; }

void Work::wait(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!done_cv_.wait_for(lock, timeout, [this] { return done_; })) {
    timed_out = true;
    TANDEM_CHECK(
        false, Runtime, "tandem.distributed: ", description, " timed out after ", timeout.count(),
        " ms: another rank did not take part (it may have died, be stuck, or called a different "
        "collective).\nhint: every rank must call the same collectives in the same order; the job aborts "
        "when this process exits. init_process_group(timeout=...) sets the limit.");
  }
  if (error_) std::rethrow_exception(error_);
}

}  // namespace tandem::distributed
