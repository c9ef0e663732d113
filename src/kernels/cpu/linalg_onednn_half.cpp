// float16/bfloat16 matrix products through oneDNN's matmul primitive, in builds that found oneDNN. On a CPU
// with bfloat16 units (AVX512-BF16, AMX) it multiplies the 16-bit values as they are, accumulating in float:
// 128 x 768 x 3072 took 0.87 ms against 4.7 ms through widened float32 copies on the development machine's
// AMX (docs/core.md, "Matrix products"). Where oneDNN has only its reference implementation for a dtype
// (float16 without AVX512-FP16, bfloat16 on most AVX2 CPUs) or refuses the layout, the product is left to
// linalg_half.cpp's widening path.
#include <omp.h>
#include <oneapi/dnnl/dnnl.h>

#include <cstring>
#include <optional>

#include "core/long_work.h"
#include "core/parallel.h"
#include "kernels/cpu/gemm_batch.h"
#include "kernels/cpu/isa_region.h"

TANDEM_CPU_KERNELS_BEGIN

namespace {

// Products of a million multiply-adds or more run in a LongWorkRegion (other Python threads run meanwhile),
// as the float32 ones do.
constexpr int64_t kLongGemm = int64_t{1} << 20;

// One CPU engine for the process, never destroyed: products may run while static objects are torn down.
dnnl_engine_t cpu_engine() {
  static const dnnl_engine_t engine = [] {
    dnnl_engine_t e = nullptr;
    return dnnl_engine_create(&e, dnnl_cpu, 0) == dnnl_success ? e : nullptr;
  }();
  return engine;
}

// The oneDNN objects of one call, released in reverse order of creation whichever way the call ends.
struct MatmulHandles {
  dnnl_primitive_attr_t attr = nullptr;
  dnnl_post_ops_t post_ops = nullptr;
  dnnl_primitive_desc_t desc = nullptr;
  dnnl_primitive_t primitive = nullptr;
  dnnl_memory_t memory[3] = {nullptr, nullptr, nullptr};
  dnnl_stream_t stream = nullptr;
  MatmulHandles() = default;
  MatmulHandles(const MatmulHandles&) = delete;
  MatmulHandles& operator=(const MatmulHandles&) = delete;
  ~MatmulHandles() {
    if (stream) dnnl_stream_destroy(stream);
    for (dnnl_memory_t m : memory)
      if (m) dnnl_memory_destroy(m);
    if (primitive) dnnl_primitive_destroy(primitive);
    if (desc) dnnl_primitive_desc_destroy(desc);
    if (post_ops) dnnl_post_ops_destroy(post_ops);
    if (attr) dnnl_primitive_attr_destroy(attr);
  }
};

bool matrix_desc(dnnl_memory_desc_t* desc, int64_t rows, int64_t cols, int64_t rs, int64_t cs,
                 dnnl_data_type_t type) {
  const dnnl_dims_t dims = {rows, cols}, strides = {rs, cs};
  return dnnl_memory_desc_init_by_strides(desc, 2, dims, type, strides) == dnnl_success;
}

}  // namespace

bool onednn_half_gemm(const GemmArgs& g) {
  const dnnl_engine_t engine = cpu_engine();
  if (engine == nullptr) return false;
  const dnnl_data_type_t type = g.dtype == DType::BFloat16 ? dnnl_bf16 : dnnl_f16;
  dnnl_memory_desc_t a, b, out;
  if (!matrix_desc(&a, g.m, g.k, g.a.row_stride, g.a.col_stride, type) ||
      !matrix_desc(&b, g.k, g.n, g.b.row_stride, g.b.col_stride, type) ||
      !matrix_desc(&out, g.m, g.n, g.out.row_stride, 1, type))
    return false;
  MatmulHandles h;
  dnnl_matmul_desc_t op;
  if (dnnl_matmul_desc_init(&op, &a, &b, nullptr, &out) != dnnl_success) return false;
  if (g.alpha != 1.0 || g.beta != 0.0) {
    // out = alpha * (a @ b) + beta * out: alpha scales the product, beta the old output (a "sum" post-op,
    // which reads it only when it is there).
    const float alpha = static_cast<float>(g.alpha);
    if (dnnl_primitive_attr_create(&h.attr) != dnnl_success ||
        dnnl_primitive_attr_set_output_scales(h.attr, 1, 0, &alpha) != dnnl_success)
      return false;
    if (g.beta != 0.0) {
      if (dnnl_post_ops_create(&h.post_ops) != dnnl_success ||
          dnnl_post_ops_append_sum(h.post_ops, static_cast<float>(g.beta)) != dnnl_success ||
          dnnl_primitive_attr_set_post_ops(h.attr, h.post_ops) != dnnl_success)
        return false;
    }
  }
  if (dnnl_primitive_desc_create(&h.desc, &op, h.attr, engine, nullptr) != dnnl_success) return false;
  const char* implementation = nullptr;
  if (dnnl_primitive_desc_query(h.desc, dnnl_query_impl_info_str, 0, &implementation) != dnnl_success ||
      implementation == nullptr || std::strstr(implementation, "ref") != nullptr)
    return false;  // the reference loop is slower than widening to float32 and BLAS
  if (dnnl_primitive_create(&h.primitive, h.desc) != dnnl_success ||
      dnnl_memory_create(&h.memory[0], &a, engine, DNNL_MEMORY_NONE) != dnnl_success ||
      dnnl_memory_create(&h.memory[1], &b, engine, DNNL_MEMORY_NONE) != dnnl_success ||
      dnnl_memory_create(&h.memory[2], &out, engine, DNNL_MEMORY_NONE) != dnnl_success ||
      dnnl_stream_create(&h.stream, engine, dnnl_stream_default_flags) != dnnl_success)
    return false;
  // oneDNN's threads are OpenMP's: as many as tandem's, one inside a parallel region of tandem's.
  const int threads = omp_in_parallel() ? 1 : get_num_threads();
  if (omp_get_max_threads() != threads) omp_set_num_threads(threads);
  std::optional<LongWorkRegion> region;
  if (g.m * g.n * g.k >= kLongGemm) region.emplace();
  const dnnl_exec_arg_t args[3] = {
      {DNNL_ARG_SRC, h.memory[0]}, {DNNL_ARG_WEIGHTS, h.memory[1]}, {DNNL_ARG_DST, h.memory[2]}};
  // Every batch element runs the same primitive on its own data. A failure after the first element has
  // written part of the output would leave the rest to a path that recomputes all of it: it cannot happen
  // once the primitive exists (execution allocates nothing but its scratchpad, made with the primitive).
  bool ok = true;
  for_each_batch<uint16_t>(g, [&](uint16_t* pa, uint16_t* pb, uint16_t* po) {
    if (!ok) return;
    ok = dnnl_memory_set_data_handle(h.memory[0], pa) == dnnl_success &&
         dnnl_memory_set_data_handle(h.memory[1], pb) == dnnl_success &&
         dnnl_memory_set_data_handle(h.memory[2], po) == dnnl_success &&
         dnnl_primitive_execute(h.primitive, h.stream, 3, args) == dnnl_success;
  });
  return ok && dnnl_stream_wait(h.stream) == dnnl_success;
}

TANDEM_CPU_KERNELS_END
