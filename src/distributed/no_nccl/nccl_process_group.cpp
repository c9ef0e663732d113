// Built without CUDA or NCCL: CUDA tensors go through the MPI group, staged via host memory.
#include "core/error.h"
#include "distributed/process_group.h"

namespace tandem::distributed {

bool nccl_available() { return false; }

ProcessGroupPtr nccl_world(const ProcessGroupPtr&, std::chrono::milliseconds) {
  TANDEM_CHECK(false, Runtime,
               "Distributed package doesn't have NCCL built in\nhint: tandem was built without CUDA's NCCL; "
               "use backend=\"mpi\", which stages CUDA tensors through host memory");
}

}  // namespace tandem::distributed
