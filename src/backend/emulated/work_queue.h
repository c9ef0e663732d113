// An in-order work queue run by one worker thread: the emulated counterpart of a CUDA stream. Host code
// pushes work and runs ahead; synchronisation points wait for the queue, as they would for a GPU.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace tandem::emulated {

class WorkQueue {
 public:
  WorkQueue();
  ~WorkQueue();  // finishes pending work, then joins
  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;

  // Enqueues a task; returns its sequence number (1, 2, ...).
  uint64_t push(std::function<void()> task);
  // Blocks until every task pushed so far has run.
  void synchronize();
  // Blocks until task `seq` has run.
  void wait_for(uint64_t seq);
  bool done(uint64_t seq);
  uint64_t last_pushed();
  bool idle();

  // fork() while a worker is inside a kernel would copy its half-held locks into the child and, worse, runs
  // OpenBLAS's fork handler, which stops BLAS threads the worker's GEMM is waiting for (the parent hangs).
  // So fork waits until every queue is idle and holds their mutexes until it returns (pthread_atfork).
  static void before_fork();
  static void after_fork();

 private:
  void run();
  // Throws (and forgets) the error a task raised, if any; mu_ held.
  void raise_kept_error_locked();
  std::mutex mu_;
  std::condition_variable work_cv_, done_cv_;
  std::deque<std::function<void()>> tasks_;
  uint64_t pushed_ = 0, completed_ = 0;
  bool stop_ = false;
  std::string error_;  // the first error a task raised since the last one was reported
  std::thread worker_;
};

}  // namespace tandem::emulated
