// Built when CMake found no MPI: tandem.distributed.is_available() is False and starting a group says why.
#include "core/error.h"
#include "distributed/process_group.h"

namespace tandem::distributed {

bool mpi_available() { return false; }

ProcessGroupPtr mpi_world(std::chrono::milliseconds) {
  TANDEM_CHECK(
      false, Runtime,
      "tandem was built without MPI, so tandem.distributed cannot start a process group.\nhint: install "
      "Open MPI (Debian: apt-get install libopenmpi-dev openmpi-bin) and rebuild tandem");
}

std::string mpi_open_port(std::chrono::milliseconds timeout) {
  mpi_world(timeout);  // says why not
  return {};
}

ProcessGroupPtr mpi_join(const std::string&, int, int, std::chrono::milliseconds timeout,
                         const std::function<void()>&) {
  return mpi_world(timeout);
}

bool mpi_started() { return false; }

void shutdown_mpi(std::chrono::milliseconds) {}

}  // namespace tandem::distributed
