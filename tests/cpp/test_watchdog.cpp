// The distributed watchdog (src/distributed/watchdog.h): operations that complete are forgotten, one past the
// timeout or an asynchronous error fails the group once (abort runs once) and every later check() throws.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "core/error.h"
#include "distributed/process_group.h"
#include "distributed/watchdog.h"

using namespace tandem::distributed;
using namespace std::chrono_literals;

namespace {
// Polls `condition` for up to 10 s (the watchdog's thread decides when; a loaded CI machine may be slow).
template <typename Condition>
bool eventually(Condition condition) {
  for (int i = 0; i < 1000; ++i) {
    if (condition()) return true;
    std::this_thread::sleep_for(10ms);
  }
  return condition();
}
std::string check_message(const Watchdog& w) {
  try {
    w.check();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(Watchdog, CompletedOperationsAreForgotten) {
  std::atomic<int> aborts{0};
  std::atomic<bool> done{false};
  Watchdog w(60s, {nullptr, nullptr, [&] { ++aborts; }}, 1ms);
  w.watch([&] { return done.load(); }, "all_reduce");
  EXPECT_EQ(w.watched(), 1u);
  done = true;
  EXPECT_TRUE(eventually([&] { return w.watched() == 0; }));
  EXPECT_FALSE(w.failed());
  EXPECT_NO_THROW(w.check());
  EXPECT_EQ(aborts.load(), 0);
}

TEST(Watchdog, AnOperationPastTheTimeoutAbortsOnceAndEveryCheckThrows) {
  std::atomic<int> aborts{0};
  Watchdog w(20ms, {nullptr, nullptr, [&] { ++aborts; }}, 1ms);
  w.watch([] { return true; }, "broadcast");
  w.watch([] { return false; }, "all_reduce");
  w.watch([] { return false; }, "barrier");
  ASSERT_TRUE(eventually([&] { return w.failed(); }));
  const std::string message = check_message(w);
  EXPECT_NE(message.find("tandem.distributed: all_reduce timed out after 20 ms (the watchdog aborted"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("hint: every rank must call the same collectives"), std::string::npos);
  try {
    w.check();
    ADD_FAILURE() << "check() did not throw";
  } catch (const tandem::Error& e) {
    EXPECT_EQ(e.kind(), tandem::ErrorKind::Runtime);
  }
  EXPECT_EQ(w.watched(), 0u);
  w.watch([] { return false; }, "send");  // an aborted group watches nothing more
  EXPECT_EQ(w.watched(), 0u);
  std::this_thread::sleep_for(30ms);
  EXPECT_EQ(aborts.load(), 1);
  EXPECT_TRUE(had_timeout());  // the process aborts the job at exit, as after a timed-out wait
}

TEST(Watchdog, AnAsynchronousErrorFailsTheGroup) {
  std::atomic<int> aborts{0};
  std::atomic<bool> broken{false};
  Watchdog w(60s,
             {nullptr, [&] { return broken ? std::string("unhandled system error") : std::string(); },
              [&] { ++aborts; }},
             1ms);
  w.watch([] { return false; }, "all_reduce");
  std::this_thread::sleep_for(20ms);
  EXPECT_FALSE(w.failed());
  broken = true;
  ASSERT_TRUE(eventually([&] { return w.failed(); }));
  EXPECT_NE(check_message(w).find("the communicator failed asynchronously: unhandled system error"),
            std::string::npos);
  EXPECT_EQ(aborts.load(), 1);
}

TEST(Watchdog, TheThreadStartHookRunsOnceOnTheWatchdogsThread) {
  std::atomic<int> starts{0};
  std::thread::id started_on;
  {
    Watchdog w(60s,
               {[&] {
                  started_on = std::this_thread::get_id();
                  ++starts;
                },
                nullptr, nullptr},
               1ms);
    ASSERT_TRUE(eventually([&] { return starts.load() == 1; }));
  }  // the destructor stops and joins the thread
  EXPECT_EQ(starts.load(), 1);
  EXPECT_NE(started_on, std::this_thread::get_id());
}
