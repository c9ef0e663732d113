// Which build of the CPU kernels runs (kernels/cpu_capability.h), for tandem.backends.cpu, and which kernels
// the BLAS library runs (kernels/blas_info.h), for tandem.__config__.
#include "kernels/cpu_capability.h"
#include "kernels/blas_info.h"

#include "bindings.h"

namespace tandem::py {

void init_cpu_capability(nb::module_& m) {
  // (chosen, [capabilities this CPU runs], [capabilities this build has], note on TANDEM_CPU_CAPABILITY)
  m.def("_cpu_capability", [] {
    nb::list supported, built;
    for (int i = 0; i < kNumCpuCapabilities; ++i) {
      auto c = static_cast<CpuCapability>(i);
      if (cpu_supports(c)) supported.append(cpu_capability_name(c));
      if (cpu_capability_built(c)) built.append(cpu_capability_name(c));
    }
    return nb::make_tuple(cpu_capability_name(cpu_capability()), supported, built,
                          nb::str(cpu_capability_note().c_str()));
  });
  // (OpenBLAS's build description, its kernel set): both empty in a build without BLAS.
  m.def("_blas_info",
        [] { return nb::make_tuple(nb::str(blas_config().c_str()), nb::str(blas_core_name().c_str())); });
}

}  // namespace tandem::py
