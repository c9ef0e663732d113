// The DistributedDataParallel reducer: averages the parameters' gradients over a process group while backward
// is still running. Parameters are grouped into buckets (reverse registration order, about bucket_cap_bytes
// each, one dtype and device per bucket); each parameter's AccumulateGrad node tells the reducer when its
// .grad is final, and a bucket whose gradients are all final is flattened and all-reduced asynchronously, so
// communication overlaps the rest of backward. Buckets are launched in the same order on every rank (MPI and
// NCCL match collectives by order). When the last bucket is launched, the reducer waits for all of them and
// writes the averages back into .grad.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "autograd/node.h"
#include "distributed/process_group.h"

namespace tandem::distributed {

class Reducer : public std::enable_shared_from_this<Reducer> {
 public:
  static std::shared_ptr<Reducer> create(std::vector<Tensor> params, std::vector<std::string> names,
                                         ProcessGroupPtr group, int64_t bucket_cap_bytes, bool find_unused);
  ~Reducer();
  Reducer(const Reducer&) = delete;
  Reducer& operator=(const Reducer&) = delete;

  // Called by each forward (with grad mode on and sync required): checks the previous iteration's reduction
  // finished, then expects this iteration's hooks. With find_unused, parameters the outputs' graph does not
  // reach are marked ready now (they contribute zeros).
  void prepare_for_backward(const std::vector<Tensor>& outputs);
  // no_sync(): while false, backward only accumulates gradients locally.
  void set_require_sync(bool sync) { require_sync_ = sync; }
  std::vector<std::vector<int64_t>> bucket_indices() const;
  // Backward passes whose gradients were all-reduced so far (tests check the hooks fired).
  int64_t reductions() const { return reductions_; }

 private:
  Reducer(std::vector<Tensor> params, std::vector<std::string> names, ProcessGroupPtr group,
          int64_t bucket_cap_bytes, bool find_unused);
  void install_hooks();
  void mark_ready(size_t param, bool used);
  void launch_ready_buckets();
  void finalize();
  std::string drain_in_flight();

  struct Bucket {
    std::vector<size_t> params;
    std::vector<int64_t> offsets;  // of each parameter in the flat buffer
    int64_t numel = 0;
    size_t pending = 0;
    Tensor flat;
    Tensor used;  // with find_unused: 1 per parameter that got a gradient on this rank
    WorkPtr work, used_work;
  };

  std::vector<Tensor> params_;
  std::vector<std::string> names_;
  std::vector<std::shared_ptr<Node>> accumulators_;  // kept alive: their post hooks are ours
  std::vector<int64_t> hook_ids_;
  ProcessGroupPtr group_;
  bool find_unused_;
  std::vector<Bucket> buckets_;
  std::vector<size_t> bucket_of_;  // parameter -> bucket
  std::vector<bool> ready_, locally_used_;
  size_t next_bucket_ = 0;
  bool expect_hooks_ = false, started_ = false, require_sync_ = true;
  int64_t reductions_ = 0;
};

}  // namespace tandem::distributed
