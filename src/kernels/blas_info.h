// Which BLAS library runs the CPU matrix products and LAPACK calls, and which of its kernel sets it chose for
// this CPU (tandem/_blas_core.py steers OpenBLAS's choice; tandem.__config__.show() prints both).
#pragma once
#include <string>

namespace tandem {

// OpenBLAS's build description (version, DYNAMIC_ARCH, threading); empty in a build without BLAS.
std::string blas_config();
// The kernel set OpenBLAS runs ("SkylakeX", "Haswell", "Prescott", ...); empty in a build without BLAS.
std::string blas_core_name();

}  // namespace tandem
