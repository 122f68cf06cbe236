#pragma once
// Which rank of how many this process is, as the launcher (mpirun, mpiexec) tells it through the
// environment, and the communicator that joins the ranks.
#include <functional>
#include <memory>
#include <string>

#include "rnnwb/core/dist/communicator.hpp"

namespace rnnwb::dist {

struct LaunchInfo {
  int rank = 0;
  int size = 1;
  std::string launcher;  // "Open MPI", "MPICH (PMI)" or "" (not launched by an MPI runtime)
};

/// Reads OMPI_COMM_WORLD_RANK / _SIZE (Open MPI) or PMI_RANK / PMI_SIZE (MPICH's Hydra).
/// `getenv` is ::getenv unless a test passes another. Throws std::runtime_error naming the
/// variable when a value is not a number or the rank is outside [0, size).
LaunchInfo detectLaunch(const std::function<const char*(const char*)>& getenv = {});

/// True when this build has the MPI communicator (CMake found MPI).
bool builtWithMpi();

/// The communicator of the job this process belongs to: a single-process one when it was not
/// launched as one of several ranks, the MPI one otherwise (MPI_Init here; MPI_Finalize when it
/// is destroyed, so open it once per process). Launched as one of several ranks by a build
/// without MPI, throws std::runtime_error saying how to get MPI.
std::unique_ptr<Communicator> openWorld();

}  // namespace rnnwb::dist
