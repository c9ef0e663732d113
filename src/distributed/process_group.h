// Process groups: collectives and point-to-point messages between the processes of a distributed job, on an
// existing engine (MPI for host tensors and start-up, NCCL for CUDA tensors). tandem.distributed is thin
// Python over this interface (docs/distributed.md).
//
// Every operation returns a Work that completes when the operation has finished in this process; blocking
// calls are the same operation followed by wait(). Operations run in the order they were issued, on every
// rank in the same order, as MPI and NCCL require.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace tandem::distributed {

enum class ReduceOp : int8_t { Sum, Avg, Product, Min, Max, BAnd, BOr, BXor };
const char* reduce_op_name(ReduceOp op);  // "SUM", as PyTorch's ReduceOp prints

// One operation in flight. wait() rethrows the operation's error; a wait past the group's timeout throws
// tandem's distributed timeout error and marks the process so that it aborts the job at exit instead of
// waiting forever for the stuck operation.
class Work {
 public:
  virtual ~Work() = default;
  virtual bool is_completed();
  // Blocks until done, or throws after `timeout`. (NCCL's work makes the current stream wait instead.)
  virtual void wait(std::chrono::milliseconds timeout);
  void finish(std::exception_ptr error = nullptr);
  // recv from any source: the rank the message came from.
  int source_rank = -1;
  std::string description;  // "all_reduce", for the timeout message

 private:
  std::mutex mutex_;
  std::condition_variable done_cv_;
  bool done_ = false;
  std::exception_ptr error_;
};
using WorkPtr = std::shared_ptr<Work>;

class ProcessGroup {
 public:
  virtual ~ProcessGroup() = default;
  int rank() const { return rank_; }
  int size() const { return size_; }
  virtual std::string backend_name() const = 0;
  std::chrono::milliseconds timeout() const { return timeout_; }

  // In place on `tensor`: every rank ends with the reduction of all ranks' tensors.
  virtual WorkPtr all_reduce(const Tensor& tensor, ReduceOp op) = 0;
  // Without the cross-rank argument check, for callers whose layout every rank agreed on beforehand (the DDP
  // reducer's buckets).
  virtual WorkPtr all_reduce_unchecked(const Tensor& tensor, ReduceOp op) { return all_reduce(tensor, op); }
  virtual WorkPtr broadcast(const Tensor& tensor, int root) = 0;
  // Only the root's tensor receives the result.
  virtual WorkPtr reduce(const Tensor& tensor, int root, ReduceOp op) = 0;
  // outputs[r] receives rank r's input (one output per rank, each the input's shape).
  virtual WorkPtr all_gather(const std::vector<Tensor>& outputs, const Tensor& input) = 0;
  // output is world_size times input along dim 0 (or the same numel, flat).
  virtual WorkPtr all_gather_into_tensor(const Tensor& output, const Tensor& input) = 0;
  // input is world_size times output; rank r receives the reduction of every rank's r-th chunk.
  virtual WorkPtr reduce_scatter_tensor(const Tensor& output, const Tensor& input, ReduceOp op) = 0;
  // outputs (root only, one per rank) receive each rank's input.
  virtual WorkPtr gather(const Tensor& input, const std::vector<Tensor>& outputs, int root) = 0;
  // inputs (root only, one per rank): rank r's output receives inputs[r].
  virtual WorkPtr scatter(const Tensor& output, const std::vector<Tensor>& inputs, int root) = 0;
  // Splits along dim 0 (empty: equal splits); chunk r of the input goes to rank r.
  virtual WorkPtr all_to_all_single(const Tensor& output, const Tensor& input,
                                    const std::vector<int64_t>& output_splits,
                                    const std::vector<int64_t>& input_splits) = 0;
  virtual WorkPtr send(const Tensor& tensor, int dst, int tag) = 0;
  virtual WorkPtr recv(const Tensor& tensor, int src, int tag) = 0;  // src -1: any source
  virtual WorkPtr barrier() = 0;
  // A group of the given ranks of this group (every rank of this group calls it, as in PyTorch); null on the
  // ranks that are not members.
  virtual std::shared_ptr<ProcessGroup> new_group(const std::vector<int>& ranks) = 0;

 protected:
  int rank_ = 0;
  int size_ = 1;
  std::chrono::milliseconds timeout_{std::chrono::minutes(30)};
};
using ProcessGroupPtr = std::shared_ptr<ProcessGroup>;

// Whether this build has the MPI process group (and NCCL: real CUDA tensors).
bool mpi_available();
bool nccl_available();
// The world group over MPI (MPI is started on first use, once per process). `timeout` bounds every wait.
ProcessGroupPtr mpi_world(std::chrono::milliseconds timeout);
// Processes not started together by an MPI launcher (mp.spawn, a launcher that sets RANK and WORLD_SIZE) join
// into one group through MPI's dynamic process calls: rank 0 opens a port (mpi_open_port), hands its name to
// the others over a store (Python), and every rank calls mpi_join with it. Open MPI needs its ompi-server
// running, its URI in OMPI_MCA_pmix_server_uri before MPI starts (tandem.distributed starts one:
// docs/distributed.md, "Without mpirun").
std::string mpi_open_port(std::chrono::milliseconds timeout);
// The group of `size` joining processes, ranked by `rank` (0 .. size - 1, each once). Rank 0 accepts the
// others on `port` and closes it once all have joined. A newcomer calls `connected` (may be empty) once it is
// in the group: the caller lets the next newcomer connect only then, since Open MPI 4.1 deadlocked now and
// then when two processes connected to one port at once.
ProcessGroupPtr mpi_join(const std::string& port, int rank, int size, std::chrono::milliseconds timeout,
                         const std::function<void()>& connected);
// Whether MPI has started in this process (its environment, the server URI included, is read then).
bool mpi_started();
// The world group over NCCL for CUDA tensors: one NCCL communicator per process on its current CUDA device,
// its unique id handed out over `bootstrap` (an MPI group).
ProcessGroupPtr nccl_world(const ProcessGroupPtr& bootstrap, std::chrono::milliseconds timeout);
// Ends the MPI side at process exit: waits for queued operations (up to `grace`), then MPI_Finalize; after a
// timed-out operation, MPI_Abort instead (a stuck collective would never return).
void shutdown_mpi(std::chrono::milliseconds grace);
// True once a wait timed out in this process (or a watchdog found an operation past its timeout: the mark
// makes the process abort the job at exit).
bool had_timeout();
void mark_timed_out();

}  // namespace tandem::distributed
