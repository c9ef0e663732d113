// The extension module tandem._C. Each area registers itself from its own file.
#include <cstdlib>
#include <string_view>

#include "bindings.h"
#include "kernels/startup.h"

NB_MODULE(_C, m) {
  using namespace tandem::py;
  // nanobind lists the tensors still alive when the interpreter tears the module down. Objects held at exit
  // through autograd graphs (cycles the collector cannot see through C++ nodes) are not leaks a user can act
  // on, so the report is for developers: TANDEM_REPORT_LEAKS=1 turns it on.
  const char* report_leaks = std::getenv("TANDEM_REPORT_LEAKS");
  nb::set_leak_warnings(report_leaks != nullptr && std::string_view(report_leaks) == "1");
  tandem::start_runtime();
  init_errors(m);
  init_dtype_device(m);
  init_size(m);
  init_tensor(m);
  init_elementwise(m);
  init_special(m);
  init_views(m);
  init_storage(m);
  init_creation(m);
  init_protocol(m);
  init_reductions(m);
  init_indexing(m);
  init_random(m);
  init_numpy(m);
  init_linalg(m);
  init_linalg_decomp(m);
  init_fft(m);
  init_cuda(m);
  init_conversions(m);
  init_autograd(m);
  init_autograd_graph(m);
  init_serialization(m);
  init_nn(m);
  init_boundary(m);
  init_long_work(m);
  init_op_profiler(m);
  init_cpu_capability(m);
  init_distributed(m);
  init_autocast(m);
  init_scan_scatter(m);
  init_order_stats(m);
  init_unfold(m);
  init_attention(m);
  init_complex(m);
  init_builtin_function(m);
  init_torch_function(m);
  init_operator_slots(m);
  init_numpy_arg_names(m);  // last: it adds overloads to the functions and methods defined above
}
