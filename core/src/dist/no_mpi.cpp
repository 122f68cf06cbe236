// Linked in place of mpi_communicator.cpp when CMake finds no MPI.
#include <stdexcept>

#include "world.hpp"

namespace rnnwb::dist {

bool builtWithMpi() { return false; }

std::unique_ptr<Communicator> openMpiWorld(const LaunchInfo&) {
  throw std::runtime_error("rnnwb was built without MPI (docs/distributed.md says how to get it)");
}

}  // namespace rnnwb::dist
