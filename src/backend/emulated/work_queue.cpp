#include "backend/emulated/work_queue.h"

#include "core/long_work.h"

namespace tandem::emulated {

WorkQueue::WorkQueue() : worker_([this] { run(); }) {}

WorkQueue::~WorkQueue() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  work_cv_.notify_one();
  worker_.join();
}

uint64_t WorkQueue::push(std::function<void()> task) {
  uint64_t seq;
  {
    std::lock_guard<std::mutex> lock(mu_);
    tasks_.push_back(std::move(task));
    seq = ++pushed_;
  }
  work_cv_.notify_one();
  return seq;
}

void WorkQueue::wait_for(uint64_t seq) {
  if (done(seq)) return;
  LongWorkRegion region;  // a wait for the device: other Python threads run meanwhile (taken before mu_)
  std::unique_lock<std::mutex> lock(mu_);
  done_cv_.wait(lock, [&] { return completed_ >= seq; });
}

void WorkQueue::synchronize() {
  uint64_t target;
  {
    std::lock_guard<std::mutex> lock(mu_);
    target = pushed_;
  }
  wait_for(target);
}

bool WorkQueue::done(uint64_t seq) {
  std::lock_guard<std::mutex> lock(mu_);
  return completed_ >= seq;
}

uint64_t WorkQueue::last_pushed() {
  std::lock_guard<std::mutex> lock(mu_);
  return pushed_;
}

bool WorkQueue::idle() {
  std::lock_guard<std::mutex> lock(mu_);
  return completed_ == pushed_;
}

void WorkQueue::run() {
  while (true) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mu_);
      work_cv_.wait(lock, [&] { return stop_ || !tasks_.empty(); });
      if (tasks_.empty()) return;  // stop requested and nothing left
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task();  // kernels never throw (front ends validate first)
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++completed_;
    }
    done_cv_.notify_all();
  }
}

}  // namespace tandem::emulated
