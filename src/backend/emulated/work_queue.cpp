#include "backend/emulated/work_queue.h"

#include <pthread.h>

#include <algorithm>
#include <vector>

#include "core/error.h"
#include "core/long_work.h"

namespace tandem::emulated {

namespace {
// Every live queue, for the fork handlers (never destroyed: queues may outlive other statics at exit).
std::mutex& live_mutex() {
  static auto* m = new std::mutex;
  return *m;
}
std::vector<WorkQueue*>& live_queues() {
  static auto* v = new std::vector<WorkQueue*>;
  return *v;
}
}  // namespace

WorkQueue::WorkQueue() : worker_([this] { run(); }) {
  static std::once_flag fork_handlers;
  std::call_once(fork_handlers, [] {
    pthread_atfork(&WorkQueue::before_fork, &WorkQueue::after_fork, &WorkQueue::after_fork);
  });
  std::lock_guard<std::mutex> lock(live_mutex());
  live_queues().push_back(this);
}

void WorkQueue::before_fork() {
  live_mutex().lock();  // released by after_fork, in the parent and in the child
  std::vector<WorkQueue*>& qs = live_queues();
  // Drain every queue, then take every mutex and check nothing was pushed meanwhile (a task on one queue may
  // wait for another queue, so no mutex is held while draining). The forking thread may hold the Python
  // lock: the wait opens no LongWorkRegion (workers never need that lock).
  while (true) {
    for (WorkQueue* q : qs) {
      std::unique_lock<std::mutex> lock(q->mu_);
      q->done_cv_.wait(lock, [&] { return q->completed_ == q->pushed_; });
    }
    size_t locked = 0;
    for (WorkQueue* q : qs) {
      q->mu_.lock();
      ++locked;
      if (q->completed_ != q->pushed_) break;
    }
    if (locked == qs.size() && (qs.empty() || qs.back()->completed_ == qs.back()->pushed_)) return;
    for (size_t i = 0; i < locked; ++i) qs[i]->mu_.unlock();
  }
}

void WorkQueue::after_fork() {
  for (WorkQueue* q : live_queues()) q->mu_.unlock();
  live_mutex().unlock();
}

WorkQueue::~WorkQueue() {
  {
    std::lock_guard<std::mutex> lock(live_mutex());
    std::vector<WorkQueue*>& qs = live_queues();
    qs.erase(std::remove(qs.begin(), qs.end(), this), qs.end());
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  work_cv_.notify_one();
  worker_.join();
}

void WorkQueue::raise_kept_error_locked() {
  if (error_.empty()) return;
  std::string message = std::move(error_);
  error_.clear();
  TANDEM_THROW(Runtime, message);
}

uint64_t WorkQueue::push(std::function<void()> task) {
  uint64_t seq;
  {
    std::lock_guard<std::mutex> lock(mu_);
    raise_kept_error_locked();
    tasks_.push_back(std::move(task));
    seq = ++pushed_;
  }
  work_cv_.notify_one();
  return seq;
}

void WorkQueue::wait_for(uint64_t seq) {
  if (!done(seq)) {
    LongWorkRegion region;  // a wait for the device: other Python threads run meanwhile (taken before mu_)
    std::unique_lock<std::mutex> lock(mu_);
    done_cv_.wait(lock, [&] { return completed_ >= seq; });
  }
  std::lock_guard<std::mutex> lock(mu_);
  raise_kept_error_locked();
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
    // Kernels do not throw once the front end has validated their arguments, with one exception: a tensor
    // whose storage resize_ shrank below it is refused where the kernel takes its data pointer, which on this
    // device is here. Like a real device's asynchronous fault, the error is kept and raised by the next call
    // that launches on this queue or waits for it (StorageImpl's destructor, which waits, catches it).
    std::string error;
    try {
      task();
    } catch (const std::exception& e) {
      error = e.what();
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!error.empty() && error_.empty()) error_ = std::move(error);
      ++completed_;
    }
    done_cv_.notify_all();
  }
}

}  // namespace tandem::emulated
