#include "kernels/blas_info.h"

#if TANDEM_HAS_BLAS
#include <cblas.h>
#endif

namespace tandem {

#if TANDEM_HAS_BLAS
std::string blas_config() { return openblas_get_config(); }
std::string blas_core_name() { return openblas_get_corename(); }
#else
std::string blas_config() { return {}; }
std::string blas_core_name() { return {}; }
#endif

}  // namespace tandem
