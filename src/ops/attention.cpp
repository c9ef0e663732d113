#include "ops/attention.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <mutex>
#include <utility>
#include <vector>

#include "autograd/formulas_attention.h"
#include "autograd/grad_mode.h"
#include "autograd/node.h"
#include "autograd/sum_to.h"
#include "core/error.h"
#include "core/generator.h"
#include "core/parallel.h"
#include "core/profiler.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/factories.h"
#include "ops/gemm_launch.h"
#include "ops/indexing.h"
#include "ops/random.h"
#include "ops/reduce.h"
#include "ops/view.h"

namespace tandem {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// How blocks are cut unless the caller gives a budget (measured with bench/nn_bench.py's SDPA shapes, batch 8
// x 8 heads x L = S = 256 and 512, head dim 64, 1 thread): one head's rows up to 256 Ki scores (1 MiB in
// float32) per block, since the GEMMs lose more to packing in short blocks than the softmax gains from cache;
// heads smaller than 16 Ki scores go several to a block to save per-op overhead; causal blocks take 64 rows,
// so that the keys they skip outweigh the shorter GEMMs.
constexpr int64_t kBlockScores = int64_t{1} << 18;
constexpr int64_t kMinBlockScores = int64_t{1} << 14;
constexpr int64_t kCausalRows = 64;

// Half-precision inputs are normalised in float32, as PyTorch's math backend does.
DType compute_dtype(DType d) { return d == DType::Float64 ? DType::Float64 : DType::Float32; }

DimVector batch_of(const Tensor& t) {
  return t.dim() > 2 ? DimVector(IntArrayRef(t.sizes()).first(static_cast<size_t>(t.dim() - 2)))
                     : DimVector();
}

DimVector with_matrix(DimVector batch, int64_t rows, int64_t cols) {
  batch.push_back(rows);
  batch.push_back(cols);
  return batch;
}

// out = alpha * (a @ b) + beta * out (launch_gemm), also for an empty inner dim: alpha * 0 + beta * out.
void gemm_into(const Tensor& a, const Tensor& b, const Tensor& out, double alpha, double beta) {
  if (out.numel() > 0 && a.size(-1) == 0) {
    if (beta == 0.0) fill_(out, Scalar(0.0));
    return;
  }
  launch_gemm(a, b, out, alpha, beta);
}

// The operands in the compute dtype, broadcast to one batch shape (at least one dim: 2-D inputs get a
// leading 1), and how they are cut into blocks.
struct Operands {
  Tensor q, k, v;   // (batch..., L, E), (batch..., S, E), (batch..., S, Ev)
  Tensor blocked;   // from a bool mask: true where a query may not attend, (batch..., L, S); or undefined
  Tensor bias;      // a floating mask in the compute dtype, (batch..., L, S); or undefined
  Tensor future;    // is_causal: (row_step, row_step) bool, true above the diagonal
  DimVector batch;  // a block takes one index of each batch dim but the last, and a run of the last (heads)
  int64_t L = 0, S = 0, E = 0, Ev = 0;
  DType dtype = DType::Float32;
  Device device;
  int64_t head_step = 1, row_step = 1;
  bool empty = true;  // no score to compute (then the output is zeros)
};

// Batch item `outer` (an index of every batch dim but the last), heads [h0, h0 + nh) of the last batch dim,
// query rows [r0, r0 + rows), against keys [0, keys).
struct Block {
  DimVector outer;
  int64_t h0, nh, r0, rows, keys;
};

DimVector user_batch(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask) {
  DimVector batch = broadcast_shapes(broadcast_shapes(batch_of(q), batch_of(k)), batch_of(v));
  if (mask.defined()) batch = broadcast_shapes(batch, batch_of(mask));
  return batch;
}

Operands prepare(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, bool is_causal,
                 int64_t block_scores) {
  Operands o;
  o.dtype = compute_dtype(q.dtype());
  o.device = q.device();
  o.L = q.size(-2);
  o.S = k.size(-2);
  o.E = q.size(-1);
  o.Ev = v.size(-1);
  o.batch = user_batch(q, k, v, mask);
  if (o.batch.empty()) o.batch.push_back(1);
  auto operand = [&](const Tensor& t, int64_t rows, int64_t cols) {
    return expand(contiguous(to_dtype(t, o.dtype)), with_matrix(o.batch, rows, cols));
  };
  o.q = operand(q, o.L, o.E);
  o.k = operand(k, o.S, o.E);
  o.v = operand(v, o.S, o.Ev);
  if (mask.defined()) {
    const DimVector scores = with_matrix(o.batch, o.L, o.S);
    if (mask.dtype() == DType::Bool)
      o.blocked = expand(logical_not(mask), scores);
    else
      o.bias = expand(to_dtype(mask, o.dtype), scores);
  }
  const int64_t batch_numel = compute_numel(o.batch);
  o.empty = batch_numel == 0 || o.L == 0 || o.S == 0;
  if (o.empty) return o;
  // Whole rows of scores for as many query rows of one head (then heads) as the budget allows.
  if (block_scores > 0) {
    o.row_step = std::clamp<int64_t>(block_scores / o.S, 1, o.L);
    if (o.row_step == o.L) o.head_step = std::clamp<int64_t>(block_scores / (o.S * o.L), 1, o.batch.back());
  } else {
    o.row_step = std::clamp<int64_t>(kBlockScores / o.S, 1, is_causal ? std::min(kCausalRows, o.L) : o.L);
    if (o.row_step == o.L)
      o.head_step = std::clamp<int64_t>(kMinBlockScores / (o.S * o.L), 1, o.batch.back());
  }
  if (is_causal) {
    Tensor steps = arange(Scalar(int64_t{0}), Scalar(o.row_step), Scalar(int64_t{1}), DType::Int64, o.device);
    o.future = gt(unsqueeze(steps, 0), unsqueeze(steps, 1));
  }
  return o;
}

// f(block, first) for every block; `first` counts the scores of the blocks before it in the fixed order
// (where its dropout draws start). A causal block stops at the last key its last row sees. The blocks of one
// (outer item, head group) are one task, run in row order, so a task alone writes its heads' rows of every
// output (dk and dv accumulate over the row blocks). On the CPU with several threads the tasks run side by
// side, each on one thread (the ops inside then run serially, BLAS included): one parallel region per call
// instead of one per op of every block, which held 2-thread SDPA to 1.3x one thread (bench/nn_bench.py).
template <typename F>
void for_each_block(const Operands& o, bool is_causal, F&& f) {
  const size_t outer_dims = o.batch.size() - 1;
  const int64_t heads = o.batch.back();
  const int64_t outer_numel = compute_numel(IntArrayRef(o.batch).first(outer_dims));
  std::vector<std::vector<std::pair<Block, uint64_t>>> tasks;
  uint64_t first = 0;
  Block b{DimVector(outer_dims, 0), 0, 0, 0, 0, o.S};
  for (int64_t item = 0; item < outer_numel; ++item) {
    for (int64_t rest = item, d = static_cast<int64_t>(outer_dims) - 1; d >= 0; --d) {
      b.outer[static_cast<size_t>(d)] = rest % o.batch[static_cast<size_t>(d)];
      rest /= o.batch[static_cast<size_t>(d)];
    }
    for (b.h0 = 0; b.h0 < heads; b.h0 += o.head_step) {
      b.nh = std::min(o.head_step, heads - b.h0);
      tasks.emplace_back();
      for (b.r0 = 0; b.r0 < o.L; b.r0 += o.row_step) {
        b.rows = std::min(o.row_step, o.L - b.r0);
        b.keys = is_causal ? std::min(o.S, b.r0 + b.rows) : o.S;
        tasks.back().emplace_back(b, first);
        first += static_cast<uint64_t>(b.nh * b.rows * b.keys);
      }
    }
  }
  auto run = [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t)
      for (const auto& [block, block_first] : tasks[static_cast<size_t>(t)]) f(block, block_first);
  };
  const auto count = static_cast<int64_t>(tasks.size());
  if (!o.device.is_cpu() || count < 2 || get_num_threads() < 2) return run(0, count);
  // An error inside a region must not leave it (std::terminate): the first one is rethrown after it.
  std::exception_ptr error;
  std::mutex error_mu;
  parallel_for(0, count, 1, [&](int64_t t0, int64_t t1) {
    autograd::GradModeGuard off(false);  // thread-local: the workers' own mode
    try {
      run(t0, t1);
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mu);
      if (!error) error = std::current_exception();
    }
  });
  if (error) std::rethrow_exception(error);
}

// Rows [r0, r0 + n) of the block's batch items of a (batch..., rows, cols) tensor.
Tensor rows_of(const Tensor& t, const Block& b, int64_t r0, int64_t n) {
  Tensor w = t;
  for (size_t d = 0; d < b.outer.size(); ++d) w = narrow(w, static_cast<int64_t>(d), b.outer[d], 1);
  return narrow(narrow(w, static_cast<int64_t>(b.outer.size()), b.h0, b.nh), -2, r0, n);
}

Tensor scores_window(const Tensor& t, const Block& b) {
  return narrow(rows_of(t, b, b.r0, b.rows), -1, 0, b.keys);
}

DimVector block_shape(const Operands& o, const Block& b) {
  DimVector shape(o.batch.size(), 1);
  shape[shape.size() - 1] = b.nh;
  return with_matrix(shape, b.rows, b.keys);
}

// scale * q k^T + start (a per-row offset, or undefined) with the masks applied (-inf where a query may not
// attend), for one block. The offset and a float mask are written first and the GEMM adds onto them (beta =
// 1), which costs no more than the zeroing a GEMM with beta = 0 does, instead of a pass per addition.
Tensor block_scores(const Operands& o, const AttentionConfig& c, const Block& b,
                    const Tensor& start = Tensor()) {
  Tensor s = empty(block_shape(o, b), o.dtype, o.device);
  double beta = 0.0;
  if (start.defined()) {
    copy_(s, start);
    beta = 1.0;
  }
  if (o.bias.defined()) {
    beta == 0.0 ? copy_(s, scores_window(o.bias, b)) : add_(s, scores_window(o.bias, b));
    beta = 1.0;
  }
  gemm_into(rows_of(o.q, b, b.r0, b.rows), transpose(rows_of(o.k, b, 0, b.keys), -2, -1), s, c.scale, beta);
  if (o.blocked.defined()) masked_fill_(s, scores_window(o.blocked, b), Scalar(-kInf));
  if (c.is_causal && b.r0 < b.keys) {  // only the keys from r0 on can lie after some row of the block
    const int64_t width = b.keys - b.r0;
    masked_fill_(narrow(s, -1, b.r0, width), narrow(narrow(o.future, 0, 0, b.rows), 1, 0, width),
                 Scalar(-kInf));
  }
  return s;
}

// The dropout factors of one block (0, or 1/(1-p) for a kept weight): Philox draws that start `first`
// blocks after the forward's reservation, so the backward regenerates exactly the forward's factors.
Tensor dropout_factors(const Operands& o, const AttentionConfig& c, const Block& b, const Tensor& like,
                       uint64_t first) {
  if (c.dropout_noise.defined()) return scores_window(c.dropout_noise, b);
  Tensor z = empty(like.sizes(), o.dtype, o.device);
  if (c.dropout_p >= 1.0) return fill_(z, Scalar(0.0));
  Generator gen(o.device, c.dropout.seed);
  gen.reserve(c.dropout.offset + first);
  bernoulli_(z, 1.0 - c.dropout_p, &gen);
  return mul_(z, Scalar(1.0 / (1.0 - c.dropout_p)));
}

// Writes the attention into `out` (batch..., L, Ev) and, when defined, the per-row logsumexp of the scores
// into `lse` (batch..., L, 1); +inf marks a row that may attend nothing (its probabilities exp(s - lse) are
// 0).
void attention_forward(const Operands& o, const AttentionConfig& c, const Tensor& out, const Tensor& lse) {
  if (o.empty) {
    fill_(out, Scalar(0.0));
    if (lse.defined()) fill_(lse, Scalar(kInf));
    return;
  }
  const bool may_block = o.blocked.defined() || o.bias.defined();
  for_each_block(o, c.is_causal, [&](const Block& b, uint64_t first) {
    Tensor s = block_scores(o, c, b);
    Tensor p = softmax(s, -1);
    // Without a mask or a backward, no row is blocked and no logsumexp is wanted: skip the reductions.
    Tensor top = may_block || lse.defined() ? amax(s, DimVector{-1}, true) : Tensor();
    Tensor none = may_block ? eq(top, Scalar(-kInf)) : Tensor();
    if (lse.defined()) {
      // The largest probability is exp(top - lse), so lse = top - log(max p): two cheap max reductions
      // instead of a second pass of exponentials.
      Tensor l = sub_out(top, log_(amax(p, DimVector{-1}, true)), rows_of(lse, b, b.r0, b.rows));
      if (may_block) masked_fill_(l, none, Scalar(kInf));
    }
    if (may_block) masked_fill_(p, none, Scalar(0.0));
    if (c.dropout_p > 0.0) mul_(p, dropout_factors(o, c, b, p, first));
    gemm_into(p, rows_of(o.v, b, 0, b.keys), rows_of(out, b, b.r0, b.rows), 1.0, 0.0);
  });
}

// key/value with each head repeated for query_heads / heads consecutive query heads (repeat_interleave on
// dim -3), as PyTorch's enable_gqa does.
Tensor share_heads(const Tensor& t, int64_t query_heads) {
  const int64_t heads = t.size(-3);
  TANDEM_CHECK(heads > 0 && query_heads % heads == 0, Runtime,
               "Number of heads in key and value must divide the number of heads in query",
               "\nhint: with enable_gqa=True, query.size(-3) (", query_heads,
               ") must be a multiple of key.size(-3) and value.size(-3) (", heads, ")");
  if (heads == query_heads) return t;
  DimVector grouped(IntArrayRef(t.sizes()).first(static_cast<size_t>(t.dim() - 2)));
  grouped.push_back(query_heads / heads);
  grouped.push_back(t.size(-2));
  grouped.push_back(t.size(-1));
  DimVector shared(IntArrayRef(t.sizes()).first(static_cast<size_t>(t.dim() - 3)));
  shared.push_back(query_heads);
  shared.push_back(t.size(-2));
  shared.push_back(t.size(-1));
  return reshape(expand(unsqueeze(t, -3), grouped), shared);
}

// PyTorch's message for the inner dims of its batched products (q @ k^T, then weights @ v).
void check_inner(int64_t batch, int64_t expected, int64_t got) {
  TANDEM_CHECK(expected == got, Runtime, "Expected size for first two dimensions of batch2 tensor to be: [",
               batch, ", ", expected, "] but got: [", batch, ", ", got, "].",
               "\nhint: query and key need the same last dim (E), key and value the same number of rows (S)");
}

void check_operands(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, bool is_causal) {
  TANDEM_CHECK(q.dim() >= 2 && k.dim() >= 2 && v.dim() >= 2, Runtime,
               "Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: ",
               q.dim(), " key.dim: ", k.dim(), " and value.dim: ", v.dim(), " instead.");
  TANDEM_CHECK(q.dtype() == k.dtype() && q.dtype() == v.dtype(), Runtime,
               "Expected query, key, and value to have the same dtype, but got query.dtype: ",
               dtype_cpp_name(q.dtype()), " key.dtype: ", dtype_cpp_name(k.dtype()),
               " and value.dtype: ", dtype_cpp_name(v.dtype()), " instead.");
  TANDEM_CHECK(is_floating(q.dtype()), NotImplemented, "scaled_dot_product_attention: \"",
               dtype_title(q.dtype()), "\" inputs are not supported",
               "\nhint: attention computes in floating point; convert with .float()");
  check_same_device("scaled_dot_product_attention", q, k, "query", "key");
  check_same_device("scaled_dot_product_attention", q, v, "query", "value");
  // PyTorch's broadcast message, whose dim numbers count batch dims padded to two (3-D inputs run as 4-D).
  auto padded = [](const Tensor& t) {
    DimVector b = batch_of(t);
    while (b.size() < 2) b.insert(0, 1);
    return b;
  };
  broadcast_shapes(broadcast_shapes(padded(q), padded(k)), padded(v));
  check_inner(compute_numel(broadcast_shapes(batch_of(q), batch_of(k))), q.size(-1), k.size(-1));
  check_inner(compute_numel(broadcast_shapes(batch_of(q), batch_of(v))), k.size(-2), v.size(-2));
  if (!mask.defined()) return;
  TANDEM_CHECK(!is_causal, Runtime,
               "_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True");
  TANDEM_CHECK(
      mask.dtype() == DType::Bool || is_floating(mask.dtype()), Runtime,
      "Expected attn_mask dtype to be bool or float or to match query dtype, but got attn_mask.dtype: ",
      dtype_cpp_name(mask.dtype()), " and  query.dtype: ", dtype_cpp_name(q.dtype()), " instead.");
  check_same_device("scaled_dot_product_attention", q, mask, "query", "attn_mask");
  // The mask broadcasts to the scores without enlarging them (PyTorch adds it in place).
  DimVector scores = with_matrix(user_batch(q, k, v, Tensor()), q.size(-2), k.size(-2));
  DimVector both = broadcast_shapes(scores, mask.sizes());
  TANDEM_CHECK(both == scores, Runtime, "output with shape ", shape_to_string(scores),
               " doesn't match the broadcast shape ", shape_to_string(both),
               "\nhint: attn_mask may not have more batch dims (or larger ones) than query, key and value");
}

Tensor finish_grad(const Tensor& grad, const Tensor& like) {
  return to_dtype(autograd::sum_to(grad, like.sizes()), like.dtype());
}

}  // namespace

Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key_, const Tensor& value_,
                                    const Tensor& attn_mask, const AttentionOptions& options) {
  profiler::RecordScope profile_scope("aten::scaled_dot_product_attention", query, key_, value_, attn_mask,
                                      options);
  Tensor key = key_, value = value_;
  if (options.enable_gqa && query.dim() >= 3 && key.dim() >= 3 && value.dim() >= 3) {
    key = share_heads(key, query.size(-3));
    value = share_heads(value, query.size(-3));
  }
  check_operands(query, key, value, attn_mask, options.is_causal);
  AttentionConfig c;
  c.scale = options.scale ? *options.scale : 1.0 / std::sqrt(static_cast<double>(query.size(-1)));
  c.is_causal = options.is_causal;
  c.dropout_p = options.dropout_p > 0.0 ? options.dropout_p : 0.0;
  c.block_scores = options.block_scores;
  const bool record = autograd::should_record(query, key, value, attn_mask);
  DimVector batch = user_batch(query, key, value, attn_mask);
  Tensor out = empty(with_matrix(batch, query.size(-2), value.size(-1)), query.dtype(), query.device());
  Tensor lse;
  {
    autograd::GradModeGuard off(false);
    Operands o = prepare(query, key, value, attn_mask, c.is_causal, c.block_scores);
    // Each block's draws start at its first score's count, so the scores bound the blocks used.
    if (c.dropout_p > 0.0 && !o.empty && query.device().is_cpu()) {
      // PyTorch's CPU attention with dropout is its math backend: dropout over the whole probability matrix.
      c.dropout_noise = empty(with_matrix(o.batch, o.L, o.S), o.dtype, o.device);
      if (c.dropout_p >= 1.0)
        fill_(c.dropout_noise, Scalar(0.0));
      else
        div_(bernoulli_(c.dropout_noise, 1.0 - c.dropout_p), Scalar(1.0 - c.dropout_p));
    } else if (c.dropout_p > 0.0 && !o.empty) {
      c.dropout = default_generator(query.device())
                      .reserve(static_cast<uint64_t>(compute_numel(with_matrix(o.batch, o.L, o.S))));
    }
    Tensor out_c = compute_dtype(out.dtype()) == out.dtype()
                       ? view(out, with_matrix(o.batch, o.L, o.Ev))
                       : empty(with_matrix(o.batch, o.L, o.Ev), o.dtype, o.device);
    if (record) lse = empty(with_matrix(o.batch, o.L, 1), o.dtype, o.device);
    attention_forward(o, c, out_c, lse);
    if (out_c.dtype() != out.dtype()) copy_(view(out, out_c.sizes()), out_c);
  }
  if (record) autograd::record_scaled_dot_product_attention(query, key, value, attn_mask, out, lse, c);
  return out;
}

std::array<Tensor, 4> scaled_dot_product_attention_backward(const Tensor& grad, const Tensor& query,
                                                            const Tensor& key, const Tensor& value,
                                                            const Tensor& attn_mask, const Tensor& out,
                                                            const Tensor& logsumexp, const AttentionConfig& c,
                                                            bool mask_grad) {
  autograd::GradModeGuard off(false);
  Operands o = prepare(query, key, value, attn_mask, c.is_causal, c.block_scores);
  auto zeros = [&](int64_t rows, int64_t cols) {
    return full(with_matrix(o.batch, rows, cols), Scalar(0.0), o.dtype, o.device);
  };
  Tensor dq = o.empty ? zeros(o.L, o.E) : empty(with_matrix(o.batch, o.L, o.E), o.dtype, o.device);
  Tensor dk = zeros(o.S, o.E), dv = zeros(o.S, o.Ev);
  Tensor dmask = mask_grad ? zeros(o.L, o.S) : Tensor();
  if (!o.empty) {
    const DimVector out_shape = with_matrix(o.batch, o.L, o.Ev);
    Tensor g = expand(contiguous(to_dtype(grad, o.dtype)), out_shape);
    // D = rowsum(dO * O) = rowsum(P * dP), also with dropout (O already carries its factors); kept negated.
    Tensor neg_d = neg_(sum(mul(g, expand(to_dtype(out, o.dtype), out_shape)), DimVector{-1}, true));
    Tensor neg_lse = neg(logsumexp);
    for_each_block(o, c.is_causal, [&](const Block& b, uint64_t first) {
      Tensor p = exp_(block_scores(o, c, b, rows_of(neg_lse, b, b.r0, b.rows)));
      Tensor z = c.dropout_p > 0.0 ? dropout_factors(o, c, b, p, first) : Tensor();
      Tensor g_rows = rows_of(g, b, b.r0, b.rows);
      Tensor v_keys = rows_of(o.v, b, 0, b.keys);
      gemm_into(transpose(z.defined() ? mul(p, z) : p, -2, -1), g_rows, rows_of(dv, b, 0, b.keys), 1.0, 1.0);
      // dS = P * (dP - D); without dropout the GEMM adds dP onto -D.
      Tensor ds = empty(p.sizes(), o.dtype, o.device);
      if (!z.defined()) copy_(ds, rows_of(neg_d, b, b.r0, b.rows));
      gemm_into(g_rows, transpose(v_keys, -2, -1), ds, 1.0, z.defined() ? 0.0 : 1.0);
      if (z.defined()) add_(mul_(ds, z), rows_of(neg_d, b, b.r0, b.rows));
      mul_(ds, p);
      if (mask_grad) copy_(scores_window(dmask, b), ds);
      gemm_into(ds, rows_of(o.k, b, 0, b.keys), rows_of(dq, b, b.r0, b.rows), c.scale, 0.0);
      gemm_into(transpose(ds, -2, -1), rows_of(o.q, b, b.r0, b.rows), rows_of(dk, b, 0, b.keys), c.scale,
                1.0);
    });
  }
  return {finish_grad(dq, query), finish_grad(dk, key), finish_grad(dv, value),
          mask_grad ? finish_grad(dmask, attn_mask) : Tensor()};
}

Tensor scaled_dot_product_attention_dropout(const Tensor& query, const Tensor& key, const Tensor& value,
                                            const Tensor& attn_mask, const AttentionConfig& c) {
  profiler::RecordScope profile_scope("aten::scaled_dot_product_attention", query, key, value, attn_mask, c);
  autograd::GradModeGuard off(false);
  Operands o = prepare(query, key, value, attn_mask, c.is_causal, c.block_scores);
  Tensor z = full(with_matrix(o.batch, o.L, o.S), Scalar(0.0), o.dtype, o.device);
  if (o.empty || c.dropout_p <= 0.0) return o.empty ? z : fill_(z, Scalar(1.0));
  for_each_block(o, c.is_causal, [&](const Block& b, uint64_t first) {
    Tensor window = scores_window(z, b);
    copy_(window, dropout_factors(o, c, b, window, first));
  });
  return z;
}

}  // namespace tandem
