// A thread that watches a process group's operations that run asynchronously on a device (NCCL's: queued on
// a CUDA stream, so no wait() ever blocks on them and Work::wait's timeout cannot fire). Each watched
// operation is a completion test; one still incomplete after the group's timeout, or an asynchronous error
// the group reports, marks the group failed: `abort` runs once (NCCL: ncclCommAbort, which makes stuck
// kernels exit), and every later check() throws, so the next wait or collective raises instead of hanging.
#pragma once
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace tandem::distributed {

class Watchdog {
 public:
  struct Hooks {
    std::function<void()> thread_start;        // e.g. cudaSetDevice for the thread's event queries
    std::function<std::string()> async_error;  // "" while healthy
    std::function<void()> abort;               // called once, on the watchdog's thread
  };
  Watchdog(std::chrono::milliseconds timeout, Hooks hooks,
           std::chrono::milliseconds poll_interval = std::chrono::milliseconds(100));
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  // `completed` is called on the watchdog's thread until it returns true; it must stay callable until then.
  void watch(std::function<bool()> completed, std::string description);
  // Throws the recorded failure (a timeout: tandem's distributed timeout error), if any.
  void check() const;
  bool failed() const;
  size_t watched() const;  // operations not yet seen complete

 private:
  struct Entry {
    std::function<bool()> completed;
    std::string description;
    std::chrono::steady_clock::time_point start;
  };
  void run();
  void fail(std::string message, bool timed_out);

  const std::chrono::milliseconds timeout_, poll_interval_;
  Hooks hooks_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<Entry> entries_;
  std::string failure_;
  bool failure_is_timeout_ = false;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace tandem::distributed
