// The NCCL process group: collectives on real CUDA tensors, queued on the current stream of the tensor's
// device (so they are ordered with the kernels that produced the data, as PyTorch's are), with one NCCL
// communicator per process on its current device. Its unique id is handed out over the MPI group.
//
// A Work completes when an event recorded after the operation has passed; wait() needs nothing more from the
// host for later work on the same stream, so it only checks for errors (asynchronous semantics, as PyTorch's
// NCCL work). Since no host thread blocks on the operations, a watchdog thread (distributed/watchdog.h) polls
// their events and NCCL's asynchronous error: one past the group's timeout aborts the communicator
// (ncclCommAbort ends the stuck kernels), and every later wait or collective raises. Built only with the CUDA
// backend and NCCL; never run on emulated devices (host memory).
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <nccl.h>

#include <algorithm>
#include <atomic>
#include <cstring>

#include "backend/accelerator.h"
#include "core/error.h"
#include "distributed/process_group.h"
#include "distributed/watchdog.h"
#include "ops/copy.h"
#include "ops/view.h"

namespace tandem::distributed {

namespace {

#define TANDEM_NCCL_FUNCTIONS(_)                                                                 \
  _(GetErrorString)                                                                              \
  _(AllReduce)                                                                                   \
  _(Broadcast) _(Reduce) _(AllGather) _(ReduceScatter) _(Send) _(Recv) _(GroupStart) _(GroupEnd) \
      _(CommSplit) _(CommDestroy) _(CommAbort) _(CommGetAsyncError) _(GetUniqueId) _(CommInitRank)

// NCCL is loaded when a NCCL group starts, not linked: PyTorch ships its own libnccl.so.2, and a process that
// imports tandem first would otherwise make PyTorch bind to the toolkit's copy (missing symbols at its
// import).
struct NcclApi {
#define TANDEM_NCCL_FN(name) decltype(&::nccl##name) name = nullptr;
  TANDEM_NCCL_FUNCTIONS(TANDEM_NCCL_FN)
#undef TANDEM_NCCL_FN
};

const NcclApi& api() {
  static const NcclApi loaded = [] {
    NcclApi a;
    void* lib = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    TANDEM_CHECK(lib, Runtime, "tandem.distributed: could not load NCCL (libnccl.so.2): ", dlerror(),
                 "\nhint: put the CUDA toolkit's lib directory on LD_LIBRARY_PATH, or use backend=\"mpi\"");
#define TANDEM_NCCL_FN(name)                                             \
  a.name = reinterpret_cast<decltype(a.name)>(dlsym(lib, "nccl" #name)); \
  TANDEM_CHECK(a.name, Runtime,                                          \
               "tandem.distributed: libnccl.so.2 has no nccl" #name " (NCCL 2.18 or newer needed)");
    TANDEM_NCCL_FUNCTIONS(TANDEM_NCCL_FN)
#undef TANDEM_NCCL_FN
    return a;
  }();
  return loaded;
}

void check_nccl(ncclResult_t rc, const char* what) {
  TANDEM_CHECK(rc == ncclSuccess, Runtime, "tandem.distributed: ", what,
               " failed in NCCL: ", api().GetErrorString(rc));
}
void check_cuda(cudaError_t rc, const char* what) {
  TANDEM_CHECK(rc == cudaSuccess, Runtime, "tandem.distributed: ", what,
               " failed in CUDA: ", cudaGetErrorString(rc));
}

ncclDataType_t nccl_type(DType d, const char* what) {
  switch (d) {
    case DType::Bool:
    case DType::UInt8:
      return ncclUint8;
    case DType::Int8:
      return ncclInt8;
    case DType::Int32:
      return ncclInt32;
    case DType::Int64:
      return ncclInt64;
    case DType::UInt32:
      return ncclUint32;
    case DType::UInt64:
      return ncclUint64;
    case DType::Float16:
      return ncclFloat16;
    case DType::BFloat16:
      return ncclBfloat16;
    case DType::Float32:
      return ncclFloat32;
    case DType::Float64:
      return ncclFloat64;
    case DType::Int16:
    case DType::UInt16:
    case DType::Complex64:
    case DType::Complex128:
      break;
  }
  TANDEM_CHECK(false, Type, what, ": NCCL has no ", dtype_name(d), " type\nhint: convert to int32 first");
}

ncclRedOp_t nccl_op(ReduceOp op, DType d, const char* what) {
  const bool is_bool = d == DType::Bool;  // 0/1 bytes: logical or is max, logical and is min
  switch (op) {
    case ReduceOp::Sum:
      return is_bool ? ncclMax : ncclSum;
    case ReduceOp::Avg:
      TANDEM_CHECK(is_floating(d), Runtime, "result type Float can't be cast to the desired output type ",
                   dtype_title(d));
      return ncclAvg;
    case ReduceOp::Product:
      return is_bool ? ncclMin : ncclProd;
    case ReduceOp::Min:
      return ncclMin;
    case ReduceOp::Max:
      return ncclMax;
    default:
      break;
  }
  TANDEM_CHECK(false, NotImplemented, what, ": ReduceOp.", reduce_op_name(op), " is not supported by NCCL");
}

// The event recorded after an operation, shared by its Work and the watchdog (either may outlive the other).
struct CompletionEvent {
  cudaEvent_t event{};
  CompletionEvent(cudaStream_t stream, const char* what) {
    check_cuda(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), what);
    check_cuda(cudaEventRecord(event, stream), what);
  }
  ~CompletionEvent() { cudaEventDestroy(event); }
  CompletionEvent(const CompletionEvent&) = delete;
  CompletionEvent& operator=(const CompletionEvent&) = delete;
};

class NcclWork final : public Work {
 public:
  NcclWork(std::shared_ptr<CompletionEvent> done, std::weak_ptr<Watchdog> watchdog, const char* what)
      : done_(std::move(done)), watchdog_(std::move(watchdog)) {
    description = what;
  }
  bool is_completed() override { return cudaEventQuery(done_->event) == cudaSuccess; }
  void wait(std::chrono::milliseconds) override {
    if (auto watchdog = watchdog_.lock()) watchdog->check();
    cudaError_t rc = cudaEventQuery(done_->event);
    TANDEM_CHECK(rc == cudaSuccess || rc == cudaErrorNotReady, Runtime, "tandem.distributed: ", description,
                 " failed on the GPU: ", cudaGetErrorString(rc));
  }

 private:
  std::shared_ptr<CompletionEvent> done_;
  std::weak_ptr<Watchdog> watchdog_;
};

class NcclProcessGroup final : public ProcessGroup {
 public:
  NcclProcessGroup(ncclComm_t comm, int device, int rank, int size, std::chrono::milliseconds timeout)
      : comm_(comm), device_(device) {
    rank_ = rank;
    size_ = size;
    timeout_ = timeout;
    watchdog_ = std::make_shared<Watchdog>(
        timeout, Watchdog::Hooks{[device] { cudaSetDevice(device); },
                                 [this] {
                                   ncclResult_t rc = ncclSuccess;
                                   if (api().CommGetAsyncError(comm_, &rc) != ncclSuccess)
                                     return std::string();
                                   if (rc == ncclSuccess || rc == ncclInProgress) return std::string();
                                   return std::string(api().GetErrorString(rc));
                                 },
                                 [this] {
                                   api().CommAbort(comm_);
                                   aborted_ = true;
                                 }});
  }
  ~NcclProcessGroup() override {
    watchdog_.reset();  // its thread stops before the communicator goes
    if (!aborted_) api().CommDestroy(comm_);
  }
  std::string backend_name() const override { return "nccl"; }

  WorkPtr all_reduce(const Tensor& tensor, ReduceOp op) override {
    return run("all_reduce", {tensor}, [&](cudaStream_t s, std::vector<Tensor>& t) {
      check_nccl(api().AllReduce(t[0].data_ptr(), t[0].data_ptr(), t[0].numel(),
                                 nccl_type(t[0].dtype(), "all_reduce"),
                                 nccl_op(op, t[0].dtype(), "all_reduce"), comm_, s),
                 "all_reduce");
    });
  }
  WorkPtr broadcast(const Tensor& tensor, int root) override {
    return run("broadcast", {tensor}, [&](cudaStream_t s, std::vector<Tensor>& t) {
      check_nccl(api().Broadcast(t[0].data_ptr(), t[0].data_ptr(), t[0].numel(),
                                 nccl_type(t[0].dtype(), "broadcast"), root, comm_, s),
                 "broadcast");
    });
  }
  WorkPtr reduce(const Tensor& tensor, int root, ReduceOp op) override {
    return run("reduce", {tensor}, [&](cudaStream_t s, std::vector<Tensor>& t) {
      check_nccl(
          api().Reduce(t[0].data_ptr(), t[0].data_ptr(), t[0].numel(), nccl_type(t[0].dtype(), "reduce"),
                       nccl_op(op, t[0].dtype(), "reduce"), root, comm_, s),
          "reduce");
    });
  }
  WorkPtr all_gather_into_tensor(const Tensor& output, const Tensor& input) override {
    TANDEM_CHECK(output.numel() == input.numel() * size_ && output.dtype() == input.dtype(), Value,
                 "all_gather_into_tensor: output_tensor must have world_size (", size_,
                 ") times the elements of input_tensor, in the same dtype");
    return run("all_gather_into_tensor", {output, input}, [&](cudaStream_t s, std::vector<Tensor>& t) {
      check_nccl(api().AllGather(t[1].data_ptr(), t[0].data_ptr(), t[1].numel(),
                                 nccl_type(t[1].dtype(), "all_gather_into_tensor"), comm_, s),
                 "all_gather_into_tensor");
    });
  }
  WorkPtr all_gather(const std::vector<Tensor>& outputs, const Tensor& input) override {
    TANDEM_CHECK(static_cast<int>(outputs.size()) == size_, Value,
                 "all_gather: tensor_list must hold one tensor per "
                 "rank (",
                 size_, "), got ", outputs.size());
    Tensor flat =
        empty(DimVector{static_cast<int64_t>(size_) * input.numel()}, input.dtype(), input.device());
    WorkPtr work = all_gather_into_tensor(flat, input);
    for (int r = 0; r < size_; ++r)
      copy_(outputs[static_cast<size_t>(r)],
            view(narrow(flat, 0, r * input.numel(), input.numel()), outputs[static_cast<size_t>(r)].sizes()));
    return work;
  }
  WorkPtr reduce_scatter_tensor(const Tensor& output, const Tensor& input, ReduceOp op) override {
    TANDEM_CHECK(input.numel() == output.numel() * size_ && output.dtype() == input.dtype(), Value,
                 "reduce_scatter_tensor: input must have world_size (", size_,
                 ") times the elements of output, in the same dtype");
    return run("reduce_scatter_tensor", {output, input}, [&](cudaStream_t s, std::vector<Tensor>& t) {
      check_nccl(api().ReduceScatter(t[1].data_ptr(), t[0].data_ptr(), t[0].numel(),
                                     nccl_type(t[0].dtype(), "reduce_scatter_tensor"),
                                     nccl_op(op, t[0].dtype(), "reduce_scatter_tensor"), comm_, s),
                 "reduce_scatter_tensor");
    });
  }
  WorkPtr gather(const Tensor& input, const std::vector<Tensor>& outputs, int root) override {
    std::vector<Tensor> all{input};
    if (rank_ == root) all.insert(all.end(), outputs.begin(), outputs.end());
    return run("gather", all, [&](cudaStream_t s, std::vector<Tensor>& t) {
      ncclDataType_t type = nccl_type(input.dtype(), "gather");
      check_nccl(api().GroupStart(), "gather");
      if (rank_ == root)
        for (int r = 0; r < size_; ++r)
          check_nccl(api().Recv(t[1 + r].data_ptr(), input.numel(), type, r, comm_, s), "gather");
      check_nccl(api().Send(t[0].data_ptr(), input.numel(), type, root, comm_, s), "gather");
      check_nccl(api().GroupEnd(), "gather");
    });
  }
  WorkPtr scatter(const Tensor& output, const std::vector<Tensor>& inputs, int root) override {
    std::vector<Tensor> all{output};
    if (rank_ == root) all.insert(all.end(), inputs.begin(), inputs.end());
    return run("scatter", all, [&](cudaStream_t s, std::vector<Tensor>& t) {
      ncclDataType_t type = nccl_type(output.dtype(), "scatter");
      check_nccl(api().GroupStart(), "scatter");
      if (rank_ == root)
        for (int r = 0; r < size_; ++r)
          check_nccl(api().Send(t[1 + r].data_ptr(), output.numel(), type, r, comm_, s), "scatter");
      check_nccl(api().Recv(t[0].data_ptr(), output.numel(), type, root, comm_, s), "scatter");
      check_nccl(api().GroupEnd(), "scatter");
    });
  }
  WorkPtr all_to_all_single(const Tensor& output, const Tensor& input,
                            const std::vector<int64_t>& output_splits,
                            const std::vector<int64_t>& input_splits) override {
    const int64_t in_row = input.dim() && input.sizes()[0] ? input.numel() / input.sizes()[0] : 0;
    const int64_t out_row = output.dim() && output.sizes()[0] ? output.numel() / output.sizes()[0] : 0;
    auto splits = [&](const std::vector<int64_t>& given, const Tensor& t) {
      std::vector<int64_t> s = given;
      if (s.empty()) s.assign(static_cast<size_t>(size_), (t.dim() ? t.sizes()[0] : 1) / size_);
      TANDEM_CHECK(static_cast<int>(s.size()) == size_, Value, "all_to_all_single: one split size per rank");
      return s;
    };
    std::vector<int64_t> in_s = splits(input_splits, input), out_s = splits(output_splits, output);
    return run("all_to_all_single", {output, input}, [&](cudaStream_t s, std::vector<Tensor>& t) {
      ncclDataType_t type = nccl_type(input.dtype(), "all_to_all_single");
      const size_t esize = input.element_size();
      int64_t in_at = 0, out_at = 0;
      check_nccl(api().GroupStart(), "all_to_all_single");
      for (int r = 0; r < size_; ++r) {
        const int64_t n_in = in_s[static_cast<size_t>(r)] * in_row,
                      n_out = out_s[static_cast<size_t>(r)] * out_row;
        check_nccl(api().Send(static_cast<char*>(t[1].data_ptr()) + in_at * esize, n_in, type, r, comm_, s),
                   "all_to_all_single");
        check_nccl(api().Recv(static_cast<char*>(t[0].data_ptr()) + out_at * esize, n_out, type, r, comm_, s),
                   "all_to_all_single");
        in_at += n_in;
        out_at += n_out;
      }
      check_nccl(api().GroupEnd(), "all_to_all_single");
    });
  }
  WorkPtr send(const Tensor& tensor, int dst, int tag) override {
    return run("send", {tensor}, [&](cudaStream_t s, std::vector<Tensor>& t) {
      check_nccl(api().Send(t[0].data_ptr(), t[0].numel(), nccl_type(t[0].dtype(), "send"), dst, comm_, s),
                 "send");
    });
  }
  WorkPtr recv(const Tensor& tensor, int src, int tag) override {
    TANDEM_CHECK(src >= 0, NotImplemented, "recv: NCCL needs the source rank (src=None is MPI only)");
    auto work = run("recv", {tensor}, [&](cudaStream_t s, std::vector<Tensor>& t) {
      check_nccl(api().Recv(t[0].data_ptr(), t[0].numel(), nccl_type(t[0].dtype(), "recv"), src, comm_, s),
                 "recv");
    });
    work->source_rank = src;
    return work;
  }
  WorkPtr barrier() override {
    Tensor one = full(DimVector{1}, Scalar(1.0), DType::Float32,
                      Device(DeviceType::CUDA, static_cast<int16_t>(device_)));
    return all_reduce(one, ReduceOp::Sum);
  }
  std::shared_ptr<ProcessGroup> new_group(const std::vector<int>& ranks) override {
    auto it = std::find(ranks.begin(), ranks.end(), rank_);
    const bool member = it != ranks.end();
    ncclComm_t sub = nullptr;
    check_nccl(api().CommSplit(comm_, member ? 0 : NCCL_SPLIT_NOCOLOR,
                               member ? static_cast<int>(it - ranks.begin()) : 0, &sub, nullptr),
               "new_group");
    if (!member) return nullptr;
    return std::make_shared<NcclProcessGroup>(sub, device_, static_cast<int>(it - ranks.begin()),
                                              static_cast<int>(ranks.size()), timeout_);
  }

 private:
  // Runs `body` on the current stream of the tensors' device with contiguous tensors (non-contiguous ones go
  // through a contiguous copy that is written back after).
  template <typename Body>
  WorkPtr run(const char* what, std::vector<Tensor> tensors, Body body) {
    for (const Tensor& t : tensors)
      TANDEM_CHECK(t.device().is_cuda() && t.device().index == device_, DeviceMismatch, what,
                   ": NCCL tensors must be on this process's device cuda:", device_, ", got ",
                   t.device().str(), "\nhint: move the tensor with .to(\"cuda:", device_,
                   "\") or use a cpu tensor (MPI)");
    watchdog_->check();  // an aborted communicator runs nothing more
    std::vector<Tensor> dense;
    for (const Tensor& t : tensors) dense.push_back(contiguous(t));
    AcceleratorBackend& cuda = cuda_backend();
    auto stream = reinterpret_cast<cudaStream_t>(cuda.native_stream(device_, cuda.current_stream(device_)));
    body(stream, dense);
    for (size_t i = 0; i < tensors.size(); ++i)
      if (!dense[i].is_same(tensors[i])) copy_(tensors[i], dense[i]);
    auto done = std::make_shared<CompletionEvent>(stream, what);
    watchdog_->watch([done] { return cudaEventQuery(done->event) != cudaErrorNotReady; }, what);
    return std::make_shared<NcclWork>(done, watchdog_, what);
  }

  ncclComm_t comm_;
  int device_;
  std::atomic<bool> aborted_{false};
  std::shared_ptr<Watchdog> watchdog_;
};

}  // namespace

bool nccl_available() { return true; }

ProcessGroupPtr nccl_world(const ProcessGroupPtr& bootstrap, std::chrono::milliseconds timeout) {
  AcceleratorBackend& cuda = cuda_backend();
  TANDEM_CHECK(
      cuda.has_native_handles(), Runtime,
      "init_process_group(backend=\"nccl\") needs a real CUDA device (emulated devices are host memory)");
  const int device = cuda.current_device();
  ncclUniqueId id;
  Tensor id_bytes = empty(DimVector{static_cast<int64_t>(sizeof(id))}, DType::UInt8, Device());
  if (bootstrap->rank() == 0) {
    check_nccl(api().GetUniqueId(&id), "init_process_group");
    std::memcpy(id_bytes.data_ptr(), &id, sizeof(id));
  }
  bootstrap->broadcast(id_bytes, 0)->wait(timeout);
  std::memcpy(&id, id_bytes.data_ptr(), sizeof(id));
  check_cuda(cudaSetDevice(device), "init_process_group");
  ncclComm_t comm = nullptr;
  check_nccl(api().CommInitRank(&comm, bootstrap->size(), id, bootstrap->rank()), "init_process_group");
  return std::make_shared<NcclProcessGroup>(comm, device, bootstrap->rank(), bootstrap->size(), timeout);
}

}  // namespace tandem::distributed
