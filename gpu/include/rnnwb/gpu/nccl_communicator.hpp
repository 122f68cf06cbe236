#pragma once
// NCCL between the GPUs of a data-parallel job, one rank per GPU (docs/distributed.md). No CUDA
// or NCCL type here.
#include <memory>

#include "rnnwb/core/dist/communicator.hpp"

namespace rnnwb::gpu {

/// A communicator whose allreduceSum takes DEVICE memory (the gradient on the GPU) and sums it
/// with ncclAllReduce, one call per bucket in one NCCL group on its own stream. `host` (the MPI
/// communicator of the same ranks) carries NCCL's unique id from rank 0 and does the small host
/// collectives (allreduceSumHost, broadcast); it must outlive this one. `device` is this rank's
/// CUDA device (usually its local rank). Collective: every rank constructs it together.
/// Throws std::runtime_error naming the NCCL or CUDA call that failed.
std::unique_ptr<dist::Communicator> makeNcclCommunicator(dist::Communicator& host, int device);

}  // namespace rnnwb::gpu
