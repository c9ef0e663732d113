// The MPI process group: host tensors directly, device tensors staged through host memory with the ordinary
// copy functions (so the transfer guard and the profiler count them).
//
// One thread per process makes every MPI call (MPI is started with MPI_THREAD_FUNNELED there), in the order
// operations were issued, which is the order MPI needs on every rank. Collectives are MPI's blocking ones;
// point-to-point messages are posted (MPI_Isend/MPI_Irecv) and polled, so an isend and an irecv between two
// ranks can never wait on each other. Blocking collectives first exchange a small description of what each
// rank passed, so that a rank passing a different shape, dtype, device type or collective raises on every
// rank instead of corrupting memory or hanging.
#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <deque>
#include <functional>
#include <future>
#include <sstream>
#include <thread>

#include "autograd/grad_mode.h"
#include "core/error.h"
#include "distributed/process_group.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/view.h"

namespace tandem::distributed {

namespace {

// ---- the MPI thread ----

// Every MPI call of the process is made by this one thread (MPI_THREAD_FUNNELED), in submission order. A
// blocking collective is submitted and waited for; the waiting thread never calls MPI itself, so a collective
// that another rank never joins still lets wait() time out and raise. (Running it inline in the waiting
// thread would save two thread switches, ~10 us per call here, but a stuck collective would then hang the
// caller.)
class MpiThread {
 public:
  static MpiThread& instance() {
    static MpiThread* thread = new MpiThread();  // lives until exit; shutdown() stops it
    return *thread;
  }

  // Runs `fn` after everything submitted before it; `work` completes when it returns (or throws). fn may
  // instead hand completion to a posted request (post_request) and return false.
  void submit(const WorkPtr& work, std::function<bool()> fn) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      TANDEM_CHECK(!stopped_, Runtime,
                   "tandem.distributed: the MPI runtime has shut down (this process is exiting); no more "
                   "collectives can run");
      queue_.push_back({work, std::move(fn)});
    }
    cv_.notify_all();
  }
  // Called on the MPI thread: `request` completes `work`, then `then` runs (e.g. copies a staged result
  // back).
  // `then` runs when the request completes, also when it failed (rc, MPI's error code, tells), so that it can
  // explain the failure in the terms of its call; an error it leaves unexplained is reported with MPI's code.
  void post_request(MPI_Request request, const WorkPtr& work,
                    std::function<void(int rc, const MPI_Status&)> then) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      inflight_.push_back({request, work, std::move(then)});
    }
    cv_.notify_all();
  }

  void start() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (started_) return;
    started_ = true;
    std::promise<void> ready;
    auto ready_future = ready.get_future();
    thread_ = std::thread([this, &ready] { run(ready); });
    ready_future.get();  // rethrows a failed MPI_Init
  }

  void shutdown(std::chrono::milliseconds grace) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!started_ || stopped_) return;
      stopped_ = true;
      abort_ = had_timeout();
    }
    cv_.notify_all();
    if (abort_ || finished_.wait_for(grace) != std::future_status::ready) {
      // A collective that never returns would make MPI_Finalize (and the process) wait forever.
      MPI_Abort(MPI_COMM_WORLD, 1);
      std::_Exit(1);
    }
    thread_.join();
  }

 private:
  struct Task {
    WorkPtr work;
    std::function<bool()> fn;
  };
  struct Inflight {
    MPI_Request request;
    WorkPtr work;
    std::function<void(int rc, const MPI_Status&)> then;
  };

  static void execute(Task& task) {
    autograd::GradModeGuard no_grad(false);  // collectives write tensors below autograd, as PyTorch's do
    try {
      if (task.fn()) task.work->finish();
    } catch (...) {
      task.work->finish(std::current_exception());
    }
  }

  void run(std::promise<void>& ready) {
    try {
      int initialized = 0;
      MPI_Initialized(&initialized);
      int provided = 0;
      if (!initialized) {
        // Forked DataLoader workers never call MPI; Open MPI's warning about fork() would only alarm users.
        setenv("OMPI_MCA_mpi_warn_on_fork", "0", 0);
        TANDEM_CHECK(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) == MPI_SUCCESS,
                     Runtime, "tandem.distributed: MPI_Init_thread failed");
        owns_mpi_ = true;
      }
      MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
      ready.set_value();
    } catch (...) {
      ready.set_exception(std::current_exception());
      return;
    }
    for (;;) {
      Task task;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        // Idle: sleep until there is an operation. With requests in flight: poll them every 50 us, sooner
        // when an operation arrives.
        auto has_task = [this] { return stopped_ || !queue_.empty(); };
        if (inflight_.empty())
          cv_.wait(lock, has_task);
        else
          cv_.wait_for(lock, std::chrono::microseconds(50), has_task);
        if (!queue_.empty()) {
          task = std::move(queue_.front());
          queue_.pop_front();
        } else if (stopped_ && inflight_.empty()) {
          break;
        }
      }
      if (task.fn) execute(task);
      poll_inflight();
    }
    if (owns_mpi_) MPI_Finalize();
    finished_promise_.set_value();
  }

  // Only the MPI thread polls; post_request appends under the mutex.
  void poll_inflight() {
    std::vector<Inflight> pending;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      pending.swap(inflight_);
    }
    std::vector<Inflight> still;
    for (Inflight& item : pending) {
      int done = 0;
      MPI_Status status;
      int rc = MPI_Test(&item.request, &done, &status);
      if (!done && rc == MPI_SUCCESS) {
        still.push_back(std::move(item));
        continue;
      }
      try {
        if (item.then) item.then(rc, status);
        TANDEM_CHECK(rc == MPI_SUCCESS, Runtime, "tandem.distributed: ", item.work->description,
                     " failed in MPI (error ", rc, ")");
        item.work->finish();
      } catch (...) {
        item.work->finish(std::current_exception());
      }
    }
    std::lock_guard<std::mutex> lock(mutex_);
    inflight_.insert(inflight_.begin(), std::make_move_iterator(still.begin()),
                     std::make_move_iterator(still.end()));
  }

  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<Task> queue_;
  std::vector<Inflight> inflight_;
  std::thread thread_;
  bool started_ = false, stopped_ = false, abort_ = false, owns_mpi_ = false;
  std::promise<void> finished_promise_;
  std::future<void> finished_ = finished_promise_.get_future();
};

// ---- dtypes, ops, staging ----

MPI_Datatype mpi_type(DType d) {
  switch (d) {
    case DType::Bool:
      return MPI_C_BOOL;
    case DType::UInt8:
      return MPI_UINT8_T;
    case DType::Int8:
      return MPI_INT8_T;
    case DType::Int16:
      return MPI_INT16_T;
    case DType::Int32:
      return MPI_INT32_T;
    case DType::Int64:
      return MPI_INT64_T;
    case DType::UInt16:
      return MPI_UINT16_T;
    case DType::UInt32:
      return MPI_UINT32_T;
    case DType::UInt64:
      return MPI_UINT64_T;
    case DType::Float16:
    case DType::BFloat16:
      return MPI_UINT16_T;  // moved as bits; reduced in float32 (see reduce_type)
    case DType::Float32:
      return MPI_FLOAT;
    case DType::Float64:
      return MPI_DOUBLE;
    case DType::Complex64:
      return MPI_C_FLOAT_COMPLEX;
    case DType::Complex128:
      return MPI_C_DOUBLE_COMPLEX;
  }
  return MPI_BYTE;
}

// MPI has no 16-bit float arithmetic: those reduce in float32 (one rounding at the end, as a float32
// accumulator would give).
DType reduce_type(DType d) { return d == DType::Float16 || d == DType::BFloat16 ? DType::Float32 : d; }

MPI_Op mpi_op(ReduceOp op, DType d, const char* what) {
  const bool is_bool = d == DType::Bool;
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Avg:
      return is_bool ? MPI_LOR : MPI_SUM;
    case ReduceOp::Product:
      return is_bool ? MPI_LAND : MPI_PROD;
    case ReduceOp::Min:
      return is_bool ? MPI_LAND : MPI_MIN;
    case ReduceOp::Max:
      return is_bool ? MPI_LOR : MPI_MAX;
    case ReduceOp::BAnd:
    case ReduceOp::BOr:
    case ReduceOp::BXor:
      TANDEM_CHECK(!is_floating(d), Type, what, ": ReduceOp.", reduce_op_name(op),
                   " needs an integer or bool tensor, got ", dtype_name(d));
      if (is_bool) return op == ReduceOp::BAnd ? MPI_LAND : op == ReduceOp::BOr ? MPI_LOR : MPI_LXOR;
      return op == ReduceOp::BAnd ? MPI_BAND : op == ReduceOp::BOr ? MPI_BOR : MPI_BXOR;
  }
  return MPI_SUM;
}

void check_reduce_args(ReduceOp op, DType d, const char* what) {
  TANDEM_CHECK(op != ReduceOp::Avg || is_floating(d), Runtime,
               "result type Float can't be cast to the desired "
               "output type ",
               dtype_title(d), "\nhint: ", what,
               " with ReduceOp.AVG needs a floating-point tensor; "
               "reduce with ReduceOp.SUM and divide by the world size");
  mpi_op(op, d, what);  // the bitwise ops' dtype check
}

void check_mpi(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  TANDEM_CHECK(false, Runtime, "tandem.distributed: ", what, " failed in MPI: ", std::string(text, len));
}

// A contiguous host tensor with t's values (t itself when it already is one): MPI reads and writes host
// memory.
Tensor staged(const Tensor& t, DType as) {
  if (t.device().is_cpu() && t.is_contiguous() && t.dtype() == as) return t;
  Tensor host = to_device(t, Device(), as, /*copy=*/false);
  return contiguous(host);
}
// Writes a staged result back into the caller's tensor (nothing when it was the tensor itself).
void unstage(const Tensor& t, const Tensor& host) {
  if (!host.is_same(t)) copy_(t, host);
}
Tensor staged_empty(const Tensor& like, DType as) { return empty(like.sizes(), as, Device()); }

constexpr const char* kSameSizeHint =
    "\nhint: send and recv tensors must have the same number of elements and dtype";

int count_of(const Tensor& t) {
  TANDEM_CHECK(t.numel() <= INT32_MAX, Value, "tandem.distributed: a tensor of ", t.numel(),
               " elements is over MPI's 2^31-1 element count per message; split it");
  return static_cast<int>(t.numel());
}

// ---- the cross-rank description check ----

// What a rank passed to a blocking collective, compared across ranks before any data moves.
struct Descriptor {
  int32_t op_kind = 0;  // hash of the collective's name
  int32_t dtype = -1;
  int32_t device_type = -1;
  int32_t ndim = -1;
  int32_t root = -1;
  int32_t reduce_op = -1;
  int64_t numel = 0;
  int64_t sizes[6] = {0, 0, 0, 0, 0, 0};
  uint64_t size_hash = 0;  // all dims (above 6 dims the listed sizes are a prefix)

  bool operator==(const Descriptor& o) const {
    return op_kind == o.op_kind && dtype == o.dtype && device_type == o.device_type && ndim == o.ndim &&
           root == o.root && reduce_op == o.reduce_op && numel == o.numel && size_hash == o.size_hash;
  }
};

int32_t name_hash(const char* s) {
  uint32_t h = 2166136261u;
  for (; *s; ++s) h = (h ^ static_cast<uint8_t>(*s)) * 16777619u;
  return static_cast<int32_t>(h & 0x7fffffff);
}

Descriptor describe(const char* what, const Tensor* t, int root = -1, std::optional<ReduceOp> op = {}) {
  Descriptor d;
  d.op_kind = name_hash(what);
  d.root = root;
  d.reduce_op = op ? static_cast<int32_t>(*op) : -1;
  if (t) {
    d.dtype = static_cast<int32_t>(t->dtype());
    d.device_type = static_cast<int32_t>(t->device().type);
    d.ndim = static_cast<int32_t>(t->dim());
    d.numel = t->numel();
    uint64_t h = 1469598103934665603ULL;  // FNV-1a over the sizes (unsigned: wraps by definition)
    for (int64_t i = 0; i < t->dim(); ++i) {
      if (i < 6) d.sizes[i] = t->sizes()[i];
      h = (h ^ static_cast<uint64_t>(t->sizes()[i])) * 1099511628211ULL;
    }
    d.size_hash = h;
  }
  return d;
}

std::string describe_text(const Descriptor& d, const std::vector<std::string>& names) {
  std::ostringstream os;
  auto it = std::find_if(names.begin(), names.end(),
                         [&](const std::string& n) { return name_hash(n.c_str()) == d.op_kind; });
  os << (it != names.end() ? *it : std::string("another operation"));
  if (d.dtype >= 0) {
    os << " of " << dtype_name(static_cast<DType>(d.dtype)) << " [";
    for (int i = 0; i < std::min(d.ndim, 6); ++i) os << (i ? ", " : "") << d.sizes[i];
    if (d.ndim > 6) os << ", ...";
    os << "] on " << device_type_name(static_cast<DeviceType>(d.device_type));
  }
  if (d.root >= 0) os << ", root " << d.root;
  if (d.reduce_op >= 0) os << ", op " << reduce_op_name(static_cast<ReduceOp>(d.reduce_op));
  return os.str();
}

const std::vector<std::string>& collective_names() {
  static const std::vector<std::string> names = {"all_reduce",
                                                 "broadcast",
                                                 "reduce",
                                                 "all_gather",
                                                 "all_gather_into_tensor",
                                                 "reduce_scatter_tensor",
                                                 "gather",
                                                 "scatter",
                                                 "all_to_all_single",
                                                 "barrier"};
  return names;
}

// Runs on the MPI thread: every rank gets every rank's descriptor; any difference raises on all of them.
void check_same_on_all_ranks(MPI_Comm comm, int size, const char* what, const Descriptor& mine) {
  std::vector<Descriptor> all(static_cast<size_t>(size));
  check_mpi(
      MPI_Allgather(&mine, sizeof(Descriptor), MPI_BYTE, all.data(), sizeof(Descriptor), MPI_BYTE, comm),
      what);
  if (std::all_of(all.begin(), all.end(), [&](const Descriptor& d) { return d == all[0]; })) return;
  std::ostringstream os;
  os << "tandem.distributed." << what
     << ": the ranks passed different arguments (every rank must call the same collective with the same "
        "shape, dtype and device type):";
  for (int r = 0; r < size; ++r)
    os << "\n  rank " << r << ": " << describe_text(all[static_cast<size_t>(r)], collective_names());
  os << "\nhint: check that every rank runs the same code path with tensors of the same shape and dtype";
  TANDEM_CHECK(false, Runtime, os.str());
}

// ---- the group ----

class MpiProcessGroup;
std::shared_ptr<MpiProcessGroup> make_group(MPI_Comm comm, std::chrono::milliseconds timeout);

// Tasks queued on the MPI thread hold the group (shared_from_this), so a group dropped by Python while its
// operations are in flight stays alive until they finish.
class MpiProcessGroup final : public ProcessGroup, public std::enable_shared_from_this<MpiProcessGroup> {
 public:
  // rank and size come from the MPI thread (MPI_Comm_rank is an MPI call like any other).
  MpiProcessGroup(MPI_Comm comm, int rank, int size, std::chrono::milliseconds timeout) : comm_(comm) {
    rank_ = rank;
    size_ = size;
    timeout_ = timeout;
  }
  std::string backend_name() const override { return "mpi"; }

  WorkPtr all_reduce(const Tensor& tensor, ReduceOp op) override { return all_reduce(tensor, op, true); }
  WorkPtr all_reduce_unchecked(const Tensor& tensor, ReduceOp op) override {
    return all_reduce(tensor, op, false);
  }
  WorkPtr all_reduce(const Tensor& tensor, ReduceOp op, bool check) {
    check_reduce_args(op, tensor.dtype(), "all_reduce");
    return enqueue("all_reduce",
                   check ? std::optional(describe("all_reduce", &tensor, -1, op)) : std::nullopt, [=, this] {
                     Tensor host = staged(tensor, reduce_type(tensor.dtype()));
                     check_mpi(
                         MPI_Allreduce(MPI_IN_PLACE, host.data_ptr(), count_of(host), mpi_type(host.dtype()),
                                       mpi_op(op, host.dtype(), "all_reduce"), comm_),
                         "all_reduce");
                     if (op == ReduceOp::Avg) div_(host, Scalar(static_cast<double>(size_)));
                     unstage(tensor, host);
                   });
  }

  WorkPtr broadcast(const Tensor& tensor, int root) override {
    check_rank(root, "broadcast", "src");
    return enqueue("broadcast", describe("broadcast", &tensor, root), [=, this] {
      Tensor host = rank_ == root ? staged(tensor, tensor.dtype()) : staged_or_empty(tensor);
      check_mpi(MPI_Bcast(host.data_ptr(), count_of(host), mpi_type(host.dtype()), root, comm_), "broadcast");
      unstage(tensor, host);
    });
  }

  WorkPtr reduce(const Tensor& tensor, int root, ReduceOp op) override {
    check_rank(root, "reduce", "dst");
    check_reduce_args(op, tensor.dtype(), "reduce");
    return enqueue("reduce", describe("reduce", &tensor, root, op), [=, this] {
      Tensor host = staged(tensor, reduce_type(tensor.dtype()));
      void* send = rank_ == root ? MPI_IN_PLACE : host.data_ptr();
      check_mpi(MPI_Reduce(send, host.data_ptr(), count_of(host), mpi_type(host.dtype()),
                           mpi_op(op, host.dtype(), "reduce"), root, comm_),
                "reduce");
      if (rank_ == root) {
        if (op == ReduceOp::Avg) div_(host, Scalar(static_cast<double>(size_)));
        unstage(tensor, host);
      }
    });
  }

  WorkPtr all_gather(const std::vector<Tensor>& outputs, const Tensor& input) override {
    check_list(outputs, input, "all_gather", "tensor_list");
    return enqueue("all_gather", describe("all_gather", &input), [=, this] {
      Tensor host_in = staged(input, input.dtype());
      Tensor gathered =
          empty(DimVector{static_cast<int64_t>(size_) * input.numel()}, input.dtype(), Device());
      check_mpi(MPI_Allgather(host_in.data_ptr(), count_of(host_in), mpi_type(input.dtype()),
                              gathered.data_ptr(), count_of(host_in), mpi_type(input.dtype()), comm_),
                "all_gather");
      for (int r = 0; r < size_; ++r)
        copy_(outputs[static_cast<size_t>(r)],
              view(narrow(gathered, 0, r * input.numel(), input.numel()), input.sizes()));
    });
  }

  WorkPtr all_gather_into_tensor(const Tensor& output, const Tensor& input) override {
    check_chunked(output, input, "all_gather_into_tensor", "output_tensor", "input_tensor");
    return enqueue("all_gather_into_tensor", describe("all_gather_into_tensor", &input), [=, this] {
      Tensor host_in = staged(input, input.dtype());
      Tensor host_out = staged_or_empty(output);
      check_mpi(MPI_Allgather(host_in.data_ptr(), count_of(host_in), mpi_type(input.dtype()),
                              host_out.data_ptr(), count_of(host_in), mpi_type(input.dtype()), comm_),
                "all_gather_into_tensor");
      unstage(output, host_out);
    });
  }

  WorkPtr reduce_scatter_tensor(const Tensor& output, const Tensor& input, ReduceOp op) override {
    check_chunked(input, output, "reduce_scatter_tensor", "input", "output");
    check_reduce_args(op, input.dtype(), "reduce_scatter_tensor");
    return enqueue("reduce_scatter_tensor", describe("reduce_scatter_tensor", &input, -1, op), [=, this] {
      DType as = reduce_type(input.dtype());
      Tensor host_in = staged(input, as);
      Tensor host_out = empty(output.sizes(), as, Device());
      check_mpi(MPI_Reduce_scatter_block(host_in.data_ptr(), host_out.data_ptr(), count_of(host_out),
                                         mpi_type(as), mpi_op(op, as, "reduce_scatter_tensor"), comm_),
                "reduce_scatter_tensor");
      if (op == ReduceOp::Avg) div_(host_out, Scalar(static_cast<double>(size_)));
      copy_(output, host_out);
    });
  }

  WorkPtr gather(const Tensor& input, const std::vector<Tensor>& outputs, int root) override {
    check_rank(root, "gather", "dst");
    if (rank_ == root) check_list(outputs, input, "gather", "gather_list");
    TANDEM_CHECK(rank_ == root || outputs.empty(), Value,
                 "gather: Argument ``gather_list`` must NOT be specified on non-destination ranks.");
    return enqueue("gather", describe("gather", &input, root), [=, this] {
      Tensor host_in = staged(input, input.dtype());
      Tensor gathered;
      if (rank_ == root)
        gathered = empty(DimVector{static_cast<int64_t>(size_) * input.numel()}, input.dtype(), Device());
      check_mpi(MPI_Gather(host_in.data_ptr(), count_of(host_in), mpi_type(input.dtype()),
                           rank_ == root ? gathered.data_ptr() : nullptr, count_of(host_in),
                           mpi_type(input.dtype()), root, comm_),
                "gather");
      if (rank_ == root)
        for (int r = 0; r < size_; ++r)
          copy_(outputs[static_cast<size_t>(r)],
                view(narrow(gathered, 0, r * input.numel(), input.numel()), input.sizes()));
    });
  }

  WorkPtr scatter(const Tensor& output, const std::vector<Tensor>& inputs, int root) override {
    check_rank(root, "scatter", "src");
    if (rank_ == root) check_list(inputs, output, "scatter", "scatter_list");
    TANDEM_CHECK(rank_ == root || inputs.empty(), Value,
                 "scatter: Argument ``scatter_list`` must NOT be specified on non-source ranks.");
    return enqueue("scatter", describe("scatter", &output, root), [=, this] {
      Tensor all;
      if (rank_ == root) {
        std::vector<Tensor> flat;
        for (const Tensor& t : inputs) flat.push_back(reshape(staged(t, t.dtype()), DimVector{-1}));
        all = empty(DimVector{static_cast<int64_t>(size_) * output.numel()}, output.dtype(), Device());
        for (int r = 0; r < size_; ++r)
          copy_(narrow(all, 0, r * output.numel(), output.numel()), flat[static_cast<size_t>(r)]);
      }
      Tensor host_out = staged_or_empty(output);
      check_mpi(
          MPI_Scatter(rank_ == root ? all.data_ptr() : nullptr, count_of(output), mpi_type(output.dtype()),
                      host_out.data_ptr(), count_of(output), mpi_type(output.dtype()), root, comm_),
          "scatter");
      unstage(output, host_out);
    });
  }

  WorkPtr all_to_all_single(const Tensor& output, const Tensor& input,
                            const std::vector<int64_t>& output_splits,
                            const std::vector<int64_t>& input_splits) override {
    TANDEM_CHECK(output.dtype() == input.dtype(), Type,
                 "all_to_all_single: output and input must have the same "
                 "dtype, got ",
                 dtype_name(output.dtype()), " and ", dtype_name(input.dtype()));
    std::vector<int> send_counts = counts_for(input, input_splits, "input"),
                     recv_counts = counts_for(output, output_splits, "output");
    return enqueue("all_to_all_single", describe("all_to_all_single", nullptr), [=, this] {
      Tensor host_in = staged(input, input.dtype());
      Tensor host_out = staged_or_empty(output);
      std::vector<int> send_offsets = offsets(send_counts), recv_offsets = offsets(recv_counts);
      check_mpi(MPI_Alltoallv(host_in.data_ptr(), send_counts.data(), send_offsets.data(),
                              mpi_type(input.dtype()), host_out.data_ptr(), recv_counts.data(),
                              recv_offsets.data(), mpi_type(output.dtype()), comm_),
                "all_to_all_single");
      unstage(output, host_out);
    });
  }

  WorkPtr send(const Tensor& tensor, int dst, int tag) override {
    check_rank(dst, "send", "dst");
    TANDEM_CHECK(dst != rank_, Value,
                 "Invalid destination rank: destination rank should not be the same as the "
                 "rank of the current process.");
    auto work = make_work("send");
    MpiThread::instance().submit(work, [=, this, self = shared_from_this()] {
      Tensor host = staged(tensor, tensor.dtype());
      MPI_Request request;
      check_mpi(MPI_Isend(host.data_ptr(), count_of(host), mpi_type(host.dtype()), dst, tag, comm_, &request),
                "send");
      MpiThread::instance().post_request(request, work, [host](int, const MPI_Status&) {});  // keeps host alive
      return false;
    });
    return work;
  }

  WorkPtr recv(const Tensor& tensor, int src, int tag) override {
    if (src >= 0) check_rank(src, "recv", "src");
    TANDEM_CHECK(src != rank_, Value,
                 "Invalid source rank: source rank should not be the same as the rank of the "
                 "current process.");
    auto work = make_work("recv");
    MpiThread::instance().submit(work, [=, this, self = shared_from_this()] {
      Tensor host = staged_or_empty(tensor);
      MPI_Request request;
      check_mpi(MPI_Irecv(host.data_ptr(), count_of(host), mpi_type(host.dtype()),
                          src < 0 ? MPI_ANY_SOURCE : src, tag, comm_, &request),
                "recv");
      MpiThread::instance().post_request(request, work, [=](int rc, const MPI_Status& status) {
        const int from = status.MPI_SOURCE >= 0 ? status.MPI_SOURCE : src;
        const int64_t bytes = host.numel() * static_cast<int64_t>(element_size(host.dtype()));
        int error_class = MPI_SUCCESS;
        if (rc != MPI_SUCCESS) MPI_Error_class(rc, &error_class);
        TANDEM_CHECK(error_class != MPI_ERR_TRUNCATE, Runtime, "tandem.distributed.recv: the message from rank ",
                     from, " is larger than the tensor's ", host.numel(), " elements of ",
                     dtype_name(host.dtype()), " (", bytes, " bytes)", kSameSizeHint);
        if (rc != MPI_SUCCESS) return;  // reported with MPI's code by the caller
        int received = 0, received_bytes = 0;
        MPI_Get_count(&status, mpi_type(host.dtype()), &received);
        MPI_Get_count(&status, MPI_BYTE, &received_bytes);
        // MPI_UNDEFINED: the message's bytes are no whole number of elements (another dtype was sent).
        TANDEM_CHECK(received != MPI_UNDEFINED, Runtime, "tandem.distributed.recv: expected ", host.numel(),
                     " elements of ", dtype_name(host.dtype()), " (", bytes, " bytes) from rank ", from,
                     ", the message had ", received_bytes, " bytes", kSameSizeHint);
        TANDEM_CHECK(received == count_of(host), Runtime, "tandem.distributed.recv: expected ", host.numel(),
                     " elements from rank ", from, ", the message had ", received, kSameSizeHint);
        work->source_rank = status.MPI_SOURCE;
        unstage(tensor, host);
      });
      return false;
    });
    return work;
  }

  WorkPtr barrier() override {
    return enqueue("barrier", describe("barrier", nullptr),
                   [this] { check_mpi(MPI_Barrier(comm_), "barrier"); });
  }

  std::shared_ptr<ProcessGroup> new_group(const std::vector<int>& ranks) override {
    for (int r : ranks) check_rank(r, "new_group", "ranks");
    const bool member = std::find(ranks.begin(), ranks.end(), rank_) != ranks.end();
    // Every rank of this group splits its communicator: members by their order in `ranks`.
    int key = member ? static_cast<int>(std::find(ranks.begin(), ranks.end(), rank_) - ranks.begin()) : 0;
    auto result = std::make_shared<std::shared_ptr<MpiProcessGroup>>();
    auto work = make_work("new_group");
    MpiThread::instance().submit(work, [=, this, self = shared_from_this()] {
      MPI_Comm comm = MPI_COMM_NULL;
      check_mpi(MPI_Comm_split(comm_, member ? 0 : MPI_UNDEFINED, key, &comm), "new_group");
      if (comm != MPI_COMM_NULL) *result = make_group(comm, timeout_);
      return true;
    });
    work->wait(timeout_);
    return *result;
  }

 private:
  WorkPtr make_work(const char* what) {
    auto work = std::make_shared<Work>();
    work->description = what;
    return work;
  }

  // Queues a blocking collective: first the cross-rank check, then `body`, both on the MPI thread.
  template <typename Body>
  WorkPtr enqueue(const char* what, std::optional<Descriptor> descriptor, Body body) {
    auto work = make_work(what);
    MpiThread::instance().submit(work, [=, this, self = shared_from_this()] {
      if (descriptor) check_same_on_all_ranks(comm_, size_, what, *descriptor);
      body();
      return true;
    });
    return work;
  }

  Tensor staged_or_empty(const Tensor& t) {
    return t.device().is_cpu() && t.is_contiguous() ? t : staged_empty(t, t.dtype());
  }

  void check_rank(int r, const char* what, const char* arg) {
    TANDEM_CHECK(r >= 0 && r < size_, Value, what, ": ", arg, " rank ", r, " is out of range: the group has ",
                 size_, " rank", size_ == 1 ? "" : "s", " (0 to ", size_ - 1, ")");
  }

  void check_list(const std::vector<Tensor>& list, const Tensor& like, const char* what, const char* arg) {
    TANDEM_CHECK(static_cast<int>(list.size()) == size_, Value, what, ": ", arg,
                 " must hold one tensor per rank (", size_, "), got ", list.size());
    for (const Tensor& t : list) {
      TANDEM_CHECK(t.dtype() == like.dtype(), Type, what, ": every tensor in ", arg, " must have dtype ",
                   dtype_name(like.dtype()), ", got ", dtype_name(t.dtype()));
      // PyTorch's backends raise a RuntimeError for a mismatched shape or size (its c10d checks)
      TANDEM_CHECK(t.numel() == like.numel(), Runtime, what, ": every tensor in ", arg,
                   " must have the shape ", like.shape_str(), ", got ", t.shape_str());
    }
  }

  void check_chunked(const Tensor& big, const Tensor& small, const char* what, const char* big_name,
                     const char* small_name) {
    TANDEM_CHECK(big.dtype() == small.dtype(), Runtime, what, ": ", big_name, " and ", small_name,
                 " must have the same dtype, got ", dtype_name(big.dtype()), " and ",
                 dtype_name(small.dtype()));
    TANDEM_CHECK(big.numel() == small.numel() * size_, Runtime, what, ": ", big_name,
                 " must have world_size (", size_, ") times the elements of ", small_name, ": got ",
                 big.shape_str(), " and ", small.shape_str());
  }

  std::vector<int> counts_for(const Tensor& t, const std::vector<int64_t>& splits, const char* name) {
    const int64_t rows = t.dim() ? t.sizes()[0] : 1;
    const int64_t row_numel = rows ? t.numel() / rows : 0;
    std::vector<int> counts(static_cast<size_t>(size_));
    if (splits.empty()) {
      TANDEM_CHECK(rows % size_ == 0, Value, "all_to_all_single: the ", name, " tensor's first dimension (",
                   rows, ") must divide evenly by the world size (", size_,
                   ") when no split sizes are given");
      for (auto& c : counts) c = static_cast<int>(rows / size_ * row_numel);
      return counts;
    }
    TANDEM_CHECK(static_cast<int>(splits.size()) == size_, Value, "all_to_all_single: ", name,
                 "_split_sizes must have one entry per rank (", size_, "), got ", splits.size());
    int64_t total = 0;
    for (size_t i = 0; i < splits.size(); ++i) {
      TANDEM_CHECK(splits[i] >= 0, Value, "all_to_all_single: split sizes must be non-negative");
      total += splits[i];
      counts[i] = static_cast<int>(splits[i] * row_numel);
    }
    TANDEM_CHECK(total == rows, Value, "all_to_all_single: ", name, "_split_sizes add up to ", total,
                 ", but the ", name, " tensor's first dimension is ", rows);
    return counts;
  }

  static std::vector<int> offsets(const std::vector<int>& counts) {
    std::vector<int> out(counts.size());
    int at = 0;
    for (size_t i = 0; i < counts.size(); ++i) {
      out[i] = at;
      at += counts[i];
    }
    return out;
  }

  MPI_Comm comm_;
};

// On the MPI thread: a group over `comm` (which it takes over).
std::shared_ptr<MpiProcessGroup> make_group(MPI_Comm comm, std::chrono::milliseconds timeout) {
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  return std::make_shared<MpiProcessGroup>(comm, rank, size, timeout);
}

}  // namespace

bool mpi_available() { return true; }

ProcessGroupPtr mpi_world(std::chrono::milliseconds timeout) {
  MpiThread::instance().start();
  // Each init_process_group gets its own communicator, so a previous group's stray messages cannot match.
  auto result = std::make_shared<std::shared_ptr<MpiProcessGroup>>();
  auto work = std::make_shared<Work>();
  work->description = "init_process_group";
  MpiThread::instance().submit(work, [=] {
    MPI_Comm world = MPI_COMM_NULL;
    check_mpi(MPI_Comm_dup(MPI_COMM_WORLD, &world), "init_process_group");
    *result = make_group(world, timeout);
    return true;
  });
  work->wait(timeout);
  return *result;
}

std::string mpi_open_port(std::chrono::milliseconds timeout) {
  MpiThread::instance().start();
  auto port = std::make_shared<std::string>();
  auto work = std::make_shared<Work>();
  work->description = "init_process_group (opening an MPI port)";
  MpiThread::instance().submit(work, [=] {
    char name[MPI_MAX_PORT_NAME] = {};
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    check_mpi(MPI_Open_port(MPI_INFO_NULL, name), "MPI_Open_port");
    *port = name;
    return true;
  });
  work->wait(timeout);
  return *port;
}

ProcessGroupPtr mpi_join(const std::string& port, int rank, int size, std::chrono::milliseconds timeout,
                         const std::function<void()>& connected) {
  TANDEM_CHECK(size >= 1 && rank >= 0 && rank < size, Value, "init_process_group: rank ", rank,
               " is not in [0, world_size = ", size, ")");
  MpiThread::instance().start();
  auto result = std::make_shared<std::shared_ptr<MpiProcessGroup>>();
  auto work = std::make_shared<Work>();
  work->description = "init_process_group (joining the other processes)";
  MpiThread::instance().submit(work, [=] {
    // The group grows one process at a time: its members accept together (on rank 0's port), a newcomer
    // connects alone, and the two sides merge. The ranks are sorted last (the arrival order is the caller's).
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm group = MPI_COMM_NULL, bridge = MPI_COMM_NULL;
    if (rank == 0) {
      check_mpi(MPI_Comm_dup(MPI_COMM_SELF, &group), "init_process_group");
    } else {
      check_mpi(MPI_Comm_connect(port.c_str(), MPI_INFO_NULL, 0, MPI_COMM_SELF, &bridge), "MPI_Comm_connect");
      check_mpi(MPI_Intercomm_merge(bridge, 1, &group), "MPI_Intercomm_merge");
      MPI_Comm_free(&bridge);
      if (connected) connected();
    }
    MPI_Comm_set_errhandler(group, MPI_ERRORS_RETURN);
    int members = 1;
    MPI_Comm_size(group, &members);
    while (members < size) {
      check_mpi(MPI_Comm_accept(port.c_str(), MPI_INFO_NULL, 0, group, &bridge), "MPI_Comm_accept");
      MPI_Comm grown = MPI_COMM_NULL;
      check_mpi(MPI_Intercomm_merge(bridge, 0, &grown), "MPI_Intercomm_merge");
      MPI_Comm_free(&bridge);
      MPI_Comm_free(&group);
      group = grown;
      MPI_Comm_set_errhandler(group, MPI_ERRORS_RETURN);
      MPI_Comm_size(group, &members);
    }
    MPI_Comm ranked = MPI_COMM_NULL;
    check_mpi(MPI_Comm_split(group, 0, rank, &ranked), "init_process_group");
    MPI_Comm_free(&group);
    if (rank == 0) MPI_Close_port(port.c_str());
    int got = -1;
    MPI_Comm_rank(ranked, &got);
    *result = make_group(ranked, timeout);
    TANDEM_CHECK(got == rank, Runtime,
                 "init_process_group: two processes asked for the same rank (this one for ", rank,
                 ")\nhint: give each process its own rank in 0 .. world_size - 1");
    return true;
  });
  work->wait(timeout);
  return *result;
}

bool mpi_started() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  return initialized != 0;
}

void shutdown_mpi(std::chrono::milliseconds grace) { MpiThread::instance().shutdown(grace); }

}  // namespace tandem::distributed
