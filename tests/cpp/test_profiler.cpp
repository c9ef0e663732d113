// The op-level profiler's recorder (core/profiler.h): nothing recorded when off, nesting and parents, an op
// re-entering itself recorded once, ranges left open across stop, threads, memory, one session at a time, and
// the with_stack hook.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "core/profiler.h"
#include "core/profiler_stack.h"
#include "core/tensor.h"

using namespace tandem;

namespace {

std::vector<std::string> names(const std::vector<profiler::Event>& events) {
  std::vector<std::string> out;
  for (const auto& e : events) out.push_back(e.name);
  return out;
}

const profiler::Event& find(const std::vector<profiler::Event>& events, const std::string& name) {
  auto it = std::find_if(events.begin(), events.end(), [&](const auto& e) { return e.name == name; });
  EXPECT_NE(it, events.end()) << name;
  return *it;
}

}  // namespace

TEST(Profiler, RecordsNothingWhenOff) {
  EXPECT_EQ(profiler::flags(), 0u);
  { profiler::RecordScope scope("aten::add"); }
  profiler::start(0);
  std::vector<profiler::Event> events = profiler::stop();
  EXPECT_TRUE(events.empty());
  EXPECT_FALSE(profiler::is_recording());
  { profiler::RecordScope scope("aten::add"); }
  profiler::start(0);
  EXPECT_TRUE(profiler::stop().empty());  // the scope above ran between sessions
}

TEST(Profiler, NestingParentsAndSameNameReentry) {
  profiler::start(profiler::kRecordShapes);
  Tensor a = empty(DimVector{2, 3}, DType::Float32, Device());
  {
    profiler::Range range(profiler::begin_event("step", profiler::EventKind::UserAnnotation, Device()));
    profiler::RecordScope outer("aten::matmul", a, Scalar(2.0), 7);
    {
      profiler::RecordScope again("aten::matmul", a);  // the front end re-entering itself: not recorded
      profiler::RecordScope inner("aten::mm", a);
    }
  }
  std::vector<profiler::Event> events = profiler::stop();
  ASSERT_EQ(names(events), (std::vector<std::string>{"step", "aten::matmul", "aten::mm"}));
  const auto& step = find(events, "step");
  const auto& matmul = find(events, "aten::matmul");
  const auto& mm = find(events, "aten::mm");
  EXPECT_EQ(step.parent, -1);
  EXPECT_EQ(matmul.parent, step.id);
  EXPECT_EQ(mm.parent, matmul.id);
  EXPECT_LE(step.start_ns, matmul.start_ns);
  EXPECT_LE(mm.end_ns, matmul.end_ns);
  EXPECT_LE(matmul.end_ns, step.end_ns);
  ASSERT_EQ(matmul.inputs.size(), 3u);
  EXPECT_EQ(matmul.inputs[0].sizes, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(matmul.inputs[0].dtype, static_cast<int8_t>(DType::Float32));
  EXPECT_EQ(matmul.inputs[1].dtype, profiler::InputMeta::kNumber);
  EXPECT_EQ(matmul.inputs[2].dtype, profiler::InputMeta::kOther);
  EXPECT_TRUE(step.inputs.empty());
}

TEST(Profiler, RangeOpenAtStopEndsThereAndIsIgnoredLater) {
  profiler::start(0);
  profiler::Token t = profiler::begin_event("open", profiler::EventKind::UserAnnotation, Device());
  std::vector<profiler::Event> events = profiler::stop();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_GE(events[0].end_ns, events[0].start_ns);
  profiler::start(0);
  profiler::end_event(t);  // a token of the old session: nothing happens
  { profiler::RecordScope scope("aten::add"); }
  events = profiler::stop();
  ASSERT_EQ(names(events), std::vector<std::string>{"aten::add"});
  EXPECT_EQ(events[0].parent, -1);
}

TEST(Profiler, ThreadsRecordSideBySide) {
  profiler::start(0);
  constexpr int kThreads = 4, kOps = 500;
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([] {
      profiler::Range range(profiler::begin_event("worker", profiler::EventKind::UserAnnotation, Device()));
      for (int k = 0; k < kOps; ++k) profiler::RecordScope scope("aten::add");
    });
  for (auto& t : threads) t.join();
  std::vector<profiler::Event> events = profiler::stop();
  ASSERT_EQ(events.size(), static_cast<size_t>(kThreads * (kOps + 1)));
  std::vector<int64_t> workers;
  for (const auto& e : events)
    if (e.name == "worker") workers.push_back(e.id);
  for (const auto& e : events) {
    if (e.name != "aten::add") continue;
    auto parent = std::find_if(events.begin(), events.end(), [&](const auto& p) { return p.id == e.parent; });
    ASSERT_NE(parent, events.end());
    EXPECT_EQ(parent->name, "worker");
    EXPECT_EQ(parent->thread, e.thread);
  }
  EXPECT_EQ(workers.size(), static_cast<size_t>(kThreads));
}

TEST(Profiler, MemoryGoesToTheInnermostEvent) {
  profiler::start(profiler::kProfileMemory);
  {
    profiler::RecordScope scope("aten::empty");
    Tensor t =
        empty(DimVector{256}, DType::Float32, Device());  // allocated and freed inside: net 0, both counted
    Tensor kept = empty(DimVector{16}, DType::Float64, Device());
    static Tensor keep;
    keep = kept;
  }
  std::vector<profiler::Event> events = profiler::stop();
  ASSERT_EQ(names(events), std::vector<std::string>{"aten::empty"});
  EXPECT_EQ(events[0].self_cpu_memory, 128);
  EXPECT_EQ(events[0].self_device_memory, 0);
}

TEST(Profiler, OneSessionAtATime) {
  profiler::start(0);
  EXPECT_THROW(profiler::start(0), Error);
  EXPECT_TRUE(profiler::is_recording());
  profiler::stop();
  EXPECT_FALSE(profiler::is_recording());
  EXPECT_TRUE(profiler::stop().empty());
}

TEST(Profiler, AnEndOnAnotherThreadLeavesTheEventOpenUntilStop) {
  profiler::start(0);
  profiler::Token range = profiler::begin_event("range", profiler::EventKind::UserAnnotation, Device());
  std::thread([&] {
    profiler::RecordScope scope("aten::add");
    profiler::end_event(range);  // not this thread's event: ignored, and aten::add is not ended by it
  }).join();
  { profiler::RecordScope scope("aten::mul"); }
  std::vector<profiler::Event> events = profiler::stop();
  const auto& r = find(events, "range");
  const auto& mul = find(events, "aten::mul");
  EXPECT_EQ(mul.parent, r.id);  // the range was still open
  EXPECT_GE(r.end_ns, mul.end_ns);
  EXPECT_EQ(find(events, "aten::add").parent, -1);
}

namespace {
std::vector<int64_t> g_hooked;  // the event ids the stack hook was called with
void note_hooked(int64_t id) { g_hooked.push_back(id); }
}  // namespace

TEST(Profiler, StackHookSeesEachRecordedEventButNotKernelsOrSkippedReentry) {
  g_hooked.clear();
  profiler::set_stack_hook(&note_hooked);
  { profiler::RecordScope off("aten::add"); }  // not recording: no call
  EXPECT_TRUE(g_hooked.empty());
  profiler::start(0);
  {
    profiler::Range range(profiler::begin_event("step", profiler::EventKind::UserAnnotation, Device()));
    profiler::RecordScope outer("aten::matmul");
    profiler::RecordScope again("aten::matmul");  // not recorded, so no stack either
    profiler::KernelLaunch launch = profiler::kernel_launch();
    profiler::Range kernel(profiler::begin_kernel("gemm", Device(), launch));
  }
  std::vector<profiler::Event> events = profiler::stop();
  profiler::set_stack_hook(nullptr);
  ASSERT_EQ(names(events), (std::vector<std::string>{"step", "aten::matmul", "gemm"}));
  EXPECT_EQ(g_hooked, (std::vector<int64_t>{find(events, "step").id, find(events, "aten::matmul").id}));
  for (const auto& e : events) EXPECT_LE(e.start_ns, e.end_ns);
  g_hooked.clear();
  profiler::start(0);  // the hook removed: nothing called
  { profiler::RecordScope scope("aten::add"); }
  EXPECT_EQ(profiler::stop().size(), 1u);
  EXPECT_TRUE(g_hooked.empty());
}
