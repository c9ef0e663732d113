// The meta device's kernels: a slot wherever the CPU has one, and none of them does any work, because a meta
// tensor has no memory and its front end has already decided the result's sizes, dtype and device. Slots that
// answer with something found in the data: bernoulli's and multinomial's validity reports say "valid" (there
// is nothing to find invalid, as PyTorch's meta kernels check no values), and count_nonzero, which would size
// a result, raises NotImplementedError on the calling thread (meta kernels run synchronously), as PyTorch's
// meta device refuses nonzero.
#include <type_traits>

#include "core/error.h"
#include "kernels/fft_kernels.h"
#include "kernels/fused_optim.h"
#include "kernels/kernel_table.h"
#include "kernels/lapack_kernels.h"
#include "kernels/meta/meta_kernels.h"

namespace tandem::meta {

namespace {

template <typename Fn>
struct NoWork;
template <typename R, typename... Args>
struct NoWork<R (*)(Args...)> {
  static R call(Args...) {
    if constexpr (!std::is_void_v<R>) {
      if constexpr (std::is_same_v<R, bool>) {
        return true;  // bernoulli: "every probability was in [0, 1]"
      } else if constexpr (std::is_same_v<R, MultinomialStatus>) {
        return MultinomialStatus::kOk;
      } else {
        // count_nonzero, which sizes nonzero's (and boolean indexing's) result, is the only other slot that
        // returns what it found; a new one must say here what a meta tensor answers.
        static_assert(std::is_same_v<R, int64_t>, "a new kind of slot result: decide its meta answer");
        refuse_data_dependent("nonzero");
      }
    }
  }
};

template <typename Fn>
void fill(Fn& meta_slot, Fn cpu_slot) {
  if (cpu_slot) meta_slot = &NoWork<Fn>::call;
}

// index.min_max answers with the smallest and largest index; a meta index has none, so front ends skip the
// range check for meta (ops/index_plan.cpp) and this slot is never reached with data to report.
void index_min_max(const Tensor&, int64_t* min, int64_t* max) { *min = *max = 0; }

}  // namespace

void refuse_data_dependent(const char* op) {
  TANDEM_THROW(NotImplemented, "aten::", op,
               ": attempted to run this operator with Meta tensors, but its result depends on the tensor's "
               "values, which a meta tensor does not have\nhint: run it on a real device (module.to_empty("
               "device=...) gives a meta module memory), or use an op whose result's shape follows from its "
               "arguments' shapes");
}

void register_meta_kernels(KernelTable& table, const KernelTable& cpu) {
  table = cpu;  // the CPU's slots, each then replaced by its no-work form
  for (auto& slot : table.unary) fill(slot, slot);
  for (auto& slot : table.binary) fill(slot, slot);
  for_each_kernel_slot(table, [](const char*, auto& slot) { fill(slot, slot); });
  if (table.index.min_max) table.index.min_max = &index_min_max;
  fill(optim_step_kernel(DeviceType::Meta), optim_step_kernel(DeviceType::CPU));
}

void register_meta_fft_kernels(FftKernels& table, const FftKernels& cpu) {
  fill(table.c2c, cpu.c2c);
  fill(table.r2c, cpu.r2c);
  fill(table.c2r, cpu.c2r);
  table.max_rank = cpu.max_rank;
  table.library = cpu.library;
}

void register_meta_lapack_kernels(LapackKernels& table, const LapackKernels& cpu) {
  fill(table.lu_factor, cpu.lu_factor);
  fill(table.lu_solve, cpu.lu_solve);
  fill(table.lu_inverse, cpu.lu_inverse);
  fill(table.cholesky, cpu.cholesky);
  fill(table.cholesky_solve, cpu.cholesky_solve);
  fill(table.triangular_solve, cpu.triangular_solve);
  fill(table.qr_factor, cpu.qr_factor);
  fill(table.qr_q, cpu.qr_q);
  fill(table.qr_multiply, cpu.qr_multiply);
  fill(table.ldl_factor, cpu.ldl_factor);
  fill(table.ldl_solve, cpu.ldl_solve);
  fill(table.eigh, cpu.eigh);
  fill(table.svd, cpu.svd);
  fill(table.eig, cpu.eig);
  table.ldl_hermitian = cpu.ldl_hermitian;
  table.complex = cpu.complex;
}

}  // namespace tandem::meta
