#pragma once
// Private to rnnwb_dist: the MPI communicator where the build has one (mpi_communicator.cpp),
// and the answer of builtWithMpi (no_mpi.cpp otherwise).
#include <memory>

#include "rnnwb/core/dist/launch.hpp"

namespace rnnwb::dist {

/// MPI_Init, checks that MPI's rank and size are the launcher's, and returns the communicator of
/// MPI_COMM_WORLD. Throws std::runtime_error in a build without MPI.
std::unique_ptr<Communicator> openMpiWorld(const LaunchInfo& launch);

}  // namespace rnnwb::dist
