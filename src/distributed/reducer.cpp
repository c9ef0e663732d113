#include "distributed/reducer.h"

#include <sstream>
#include <unordered_set>

#include "core/error.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/view.h"

namespace tandem::distributed {

namespace {
int64_t next_hook_id = 1;  // hooks are installed from Python's thread (GIL held)
}

std::shared_ptr<Reducer> Reducer::create(std::vector<Tensor> params, std::vector<std::string> names,
                                         ProcessGroupPtr group, int64_t bucket_cap_bytes, bool find_unused) {
  std::shared_ptr<Reducer> reducer(
      new Reducer(std::move(params), std::move(names), std::move(group), bucket_cap_bytes, find_unused));
  reducer->install_hooks();
  return reducer;
}

Reducer::Reducer(std::vector<Tensor> params, std::vector<std::string> names, ProcessGroupPtr group,
                 int64_t bucket_cap_bytes, bool find_unused)
    : params_(std::move(params)),
      names_(std::move(names)),
      group_(std::move(group)),
      find_unused_(find_unused) {
  TANDEM_CHECK(group_, Runtime, "DistributedDataParallel: no process group");
  TANDEM_CHECK(names_.size() == params_.size(), Value, "DistributedDataParallel: one name per parameter");
  ready_.assign(params_.size(), false);
  locally_used_.assign(params_.size(), false);
  bucket_of_.assign(params_.size(), 0);
  // Gradients become final roughly in reverse order of registration (the last layer's first), so buckets are
  // filled from the end: the first bucket is ready early and its all-reduce overlaps the rest of backward.
  for (size_t k = params_.size(); k-- > 0;) {
    const Tensor& p = params_[k];
    const int64_t bytes = p.numel() * static_cast<int64_t>(p.element_size());
    bool fresh = buckets_.empty();
    if (!fresh) {
      const Bucket& b = buckets_.back();
      const Tensor& first = params_[b.params[0]];
      fresh =
          first.dtype() != p.dtype() || first.device() != p.device() ||
          (b.numel * static_cast<int64_t>(first.element_size()) + bytes > bucket_cap_bytes && b.numel > 0);
    }
    if (fresh) buckets_.emplace_back();
    Bucket& b = buckets_.back();
    b.params.push_back(k);
    b.offsets.push_back(b.numel);
    b.numel += p.numel();
    bucket_of_[k] = buckets_.size() - 1;
  }
}

void Reducer::install_hooks() {
  std::weak_ptr<Reducer> weak = shared_from_this();
  for (size_t i = 0; i < params_.size(); ++i) {
    std::shared_ptr<Node> node = autograd::grad_accumulator(params_[i]);
    auto* acc = dynamic_cast<autograd::AccumulateGrad*>(node.get());
    TANDEM_CHECK(acc, Runtime, "DistributedDataParallel: parameter ", names_[i],
                 " has no gradient accumulator");
    const int64_t id = next_hook_id++;
    acc->post_hooks.emplace_back(id, [weak, i](const Tensor&) {
      if (auto self = weak.lock()) self->mark_ready(i, true);
    });
    accumulators_.push_back(std::move(node));
    hook_ids_.push_back(id);
  }
}

Reducer::~Reducer() {
  for (size_t i = 0; i < accumulators_.size(); ++i) {
    auto* acc = static_cast<autograd::AccumulateGrad*>(accumulators_[i].get());
    std::erase_if(acc->post_hooks, [&](const auto& h) { return h.first == hook_ids_[i]; });
  }
}

std::vector<std::vector<int64_t>> Reducer::bucket_indices() const {
  std::vector<std::vector<int64_t>> out;
  for (const Bucket& b : buckets_) out.emplace_back(b.params.begin(), b.params.end());
  return out;
}

// Waits for the all-reduces a failed iteration launched: their buffers are reused by the next one, and a
// collective still in flight would write into them. Returns the first failure's message ("" when none).
std::string Reducer::drain_in_flight() {
  std::string failure;
  for (Bucket& b : buckets_) {
    for (WorkPtr* w : {&b.work, &b.used_work}) {
      if (!*w) continue;
      try {
        (*w)->wait(group_->timeout());
      } catch (const std::exception& e) {
        if (failure.empty()) failure = e.what();
      }
      w->reset();
    }
  }
  return failure;
}

void Reducer::prepare_for_backward(const std::vector<Tensor>& outputs) {
  if (started_) {
    const std::string in_flight_failure = drain_in_flight();
    std::ostringstream os;
    os << "Expected to have finished reduction in the prior iteration before starting a new one. This error "
          "indicates that your module has parameters that were not used in producing loss. You can enable "
          "unused "
          "parameter detection by passing the keyword argument `find_unused_parameters=True` to "
          "`torch.nn.parallel.DistributedDataParallel`, and by making sure all `forward` function outputs "
          "participate in calculating loss.\nParameters which did not receive grad for rank "
       << group_->rank() << ":";
    for (size_t i = 0; i < params_.size(); ++i)
      if (!ready_[i]) os << " " << names_[i] << " (index " << i << ")";
    os << "\nhint: pass find_unused_parameters=True to DistributedDataParallel, or make every parameter take "
          "part "
          "in the loss on every rank";
    if (!in_flight_failure.empty())
      os << "\n(an all-reduce launched before this error failed too: " << in_flight_failure << ")";
    started_ = false;
    TANDEM_CHECK(false, Runtime, os.str());
  }
  // No work is in flight here: finalize() waited for every bucket, and an iteration that stopped part-way
  // (started_) was drained above.
  for (Bucket& b : buckets_) b.pending = b.params.size();
  ready_.assign(params_.size(), false);
  locally_used_.assign(params_.size(), false);
  next_bucket_ = 0;
  expect_hooks_ = require_sync_;
  if (!expect_hooks_ || !find_unused_) return;
  // Walk the graph from the outputs: parameters whose accumulator it never reaches get no gradient this
  // iteration and are marked ready now.
  std::unordered_set<const Node*> seen;
  std::vector<const Node*> stack;
  for (const Tensor& out : outputs) {
    if (!out.defined()) continue;
    autograd::Edge e = autograd::gradient_edge(out);
    if (e.fn && seen.insert(e.fn.get()).second) stack.push_back(e.fn.get());
  }
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    for (const autograd::Edge& e : n->next_edges)
      if (e.fn && seen.insert(e.fn.get()).second) stack.push_back(e.fn.get());
  }
  for (size_t i = 0; i < params_.size(); ++i)
    if (!seen.count(accumulators_[i].get())) mark_ready(i, false);
}

void Reducer::mark_ready(size_t i, bool used) {
  if (!expect_hooks_) return;  // no_sync(), or a backward without a DDP forward before it
  TANDEM_CHECK(!ready_[i], Runtime, "Expected to mark a variable ready only once. Parameter ", names_[i],
               " (index ", i,
               ") got a gradient twice in one iteration (a second backward through the same "
               "forward, or a parameter shared in a way DDP does not track).\nhint: call backward once per "
               "forward, or use no_sync() for the extra backward passes");
  started_ = true;
  ready_[i] = true;
  locally_used_[i] = used;
  Bucket& b = buckets_[bucket_of_[i]];
  const Tensor& p = params_[i];
  // The bucket's buffers live as long as the reducer (allocating them every step cost more than the rest of
  // the reducer's work: fresh pages for each buffer of a few hundred KiB).
  if (!b.flat.defined()) b.flat = empty(DimVector{b.numel}, p.dtype(), p.device());
  if (find_unused_ && !b.used.defined())
    b.used = empty(DimVector{static_cast<int64_t>(b.params.size())}, DType::UInt8, Device());
  if (find_unused_ && b.pending == b.params.size())
    fill_(b.used, Scalar(0));  // the bucket's first ready parameter
  size_t slot = 0;
  while (b.params[slot] != i) ++slot;
  Tensor region = narrow(b.flat, 0, b.offsets[slot], p.numel());
  AutogradMeta* meta = p.impl()->autograd();
  if (used && meta && meta->grad && meta->grad->defined()) {
    copy_(region, reshape(*meta->grad, DimVector{-1}));
    if (find_unused_) fill_(narrow(b.used, 0, static_cast<int64_t>(slot), 1), Scalar(1));
  } else {
    fill_(region, Scalar(0));
  }
  if (--b.pending == 0) launch_ready_buckets();
}

void Reducer::launch_ready_buckets() {
  while (next_bucket_ < buckets_.size() && buckets_[next_bucket_].pending == 0) {
    Bucket& b = buckets_[next_bucket_++];
    // SUM, divided here on the caller's thread in finalize: the MPI thread then runs no tensor math (an
    // OpenMP team of its own would compete with the caller's for the cores).
    b.work = group_->all_reduce_unchecked(b.flat, ReduceOp::Sum);
    if (find_unused_) b.used_work = group_->all_reduce_unchecked(b.used, ReduceOp::Max);
  }
  if (next_bucket_ == buckets_.size()) finalize();
}

void Reducer::finalize() {
  expect_hooks_ = false;
  started_ = false;
  for (Bucket& b : buckets_) {
    b.work->wait(group_->timeout());
    if (b.used_work) b.used_work->wait(group_->timeout());
    if (group_->size() > 1) div_(b.flat, Scalar(static_cast<double>(group_->size())));
    for (size_t slot = 0; slot < b.params.size(); ++slot) {
      const size_t i = b.params[slot];
      const Tensor& p = params_[i];
      AutogradMeta& meta = p.impl()->ensure_autograd();
      if (!meta.grad) meta.grad = std::make_shared<Tensor>();
      const bool globally_used =
          !find_unused_ || item(narrow(b.used, 0, static_cast<int64_t>(slot), 1)).to_int() > 0;
      if (!globally_used) continue;  // no rank used it: .grad stays as it was (None), as in PyTorch
      Tensor average = view(narrow(b.flat, 0, b.offsets[slot], p.numel()), p.sizes());
      if (meta.grad->defined())
        copy_(*meta.grad, average);
      else
        *meta.grad = clone(average);
    }
    b.work.reset();
    b.used_work.reset();
  }
  ++reductions_;
}

}  // namespace tandem::distributed
