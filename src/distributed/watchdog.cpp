#include "distributed/watchdog.h"

#include <utility>

#include "core/error.h"
#include "distributed/process_group.h"

namespace tandem::distributed {

Watchdog::Watchdog(std::chrono::milliseconds timeout, Hooks hooks, std::chrono::milliseconds poll_interval)
    : timeout_(timeout),
      poll_interval_(poll_interval),
      hooks_(std::move(hooks)),
      thread_([this] { run(); }) {}

Watchdog::~Watchdog() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void Watchdog::watch(std::function<bool()> completed, std::string description) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!failure_.empty()) return;  // the group is aborted: nothing it runs will complete
  entries_.push_back({std::move(completed), std::move(description), std::chrono::steady_clock::now()});
}

bool Watchdog::failed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return !failure_.empty();
}

size_t Watchdog::watched() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return entries_.size();
}

void Watchdog::check() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (failure_.empty()) return;
  // The timeout's text starts as Work::wait's, so Python maps both to DistBackendError.
  TANDEM_CHECK(false, Runtime, failure_);
}

void Watchdog::fail(std::string message, bool timed_out) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!failure_.empty()) return;
    failure_ = std::move(message);
    failure_is_timeout_ = timed_out;
    entries_.clear();
  }
  if (timed_out) mark_timed_out();
  if (hooks_.abort) hooks_.abort();
}

void Watchdog::run() {
  if (hooks_.thread_start) hooks_.thread_start();
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_) {
    wake_.wait_for(lock, poll_interval_, [this] { return stop_; });
    if (stop_ || !failure_.empty()) continue;
    // The checks run without the lock: a completion test may take a while (a driver call), and watch() must
    // not wait for it. Entries added meanwhile are appended after the ones taken here.
    std::vector<Entry> taken = std::move(entries_);
    entries_.clear();
    lock.unlock();
    std::string error = hooks_.async_error ? hooks_.async_error() : std::string();
    std::string overdue;
    std::vector<Entry> pending;
    const auto now = std::chrono::steady_clock::now();
    for (Entry& e : taken) {
      if (e.completed()) continue;
      if (overdue.empty() && now - e.start > timeout_) {
        overdue = "tandem.distributed: " + e.description + " timed out after " +
                  std::to_string(timeout_.count()) +
                  " ms (the watchdog aborted the communicator): another rank did not take part (it may have "
                  "died, be stuck, or called a different collective).\nhint: every rank must call the same "
                  "collectives in the same order; the job aborts when this process exits. "
                  "init_process_group(timeout=...) sets the limit.";
      }
      pending.push_back(std::move(e));
    }
    if (!error.empty()) {
      fail("tandem.distributed: the communicator failed asynchronously: " + error +
               "\nhint: the operation that failed was queued earlier; every later one on this group raises. "
               "Check the other ranks' output for the first error.",
           false);
    } else if (!overdue.empty()) {
      fail(std::move(overdue), true);
    }
    lock.lock();
    if (failure_.empty())
      entries_.insert(entries_.begin(), std::make_move_iterator(pending.begin()),
                      std::make_move_iterator(pending.end()));
  }
}

}  // namespace tandem::distributed
