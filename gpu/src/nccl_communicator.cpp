// ncclAllReduce of device buffers between ranks; the NCCL id travels over the host communicator.
#include "rnnwb/gpu/nccl_communicator.hpp"

#include <nccl.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "cuda_check.hpp"

namespace rnnwb::gpu {
namespace {

void checkNccl(ncclResult_t result, const char* call) {
  if (result != ncclSuccess)
    throw std::runtime_error(std::string(call) + " failed: " + ncclGetErrorString(result));
}

class NcclCommunicator final : public dist::Communicator {
 public:
  NcclCommunicator(dist::Communicator& host, int device) : m_host(host), m_device(device) {
    ncclUniqueId id{};
    if (host.rank() == 0) checkNccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
    host.broadcast(std::as_writable_bytes(std::span(id.internal)), 0);
    WB_CUDA_CHECK(cudaSetDevice(device));
    WB_CUDA_CHECK(cudaStreamCreateWithFlags(&m_stream, cudaStreamNonBlocking));
    checkNccl(ncclCommInitRank(&m_comm, host.size(), id, host.rank()), "ncclCommInitRank");
  }
  ~NcclCommunicator() override {
    if (m_comm) ncclCommDestroy(m_comm);
    if (m_stream) WB_CUDA_CHECK_NOTHROW(cudaStreamDestroy(m_stream));
  }

  int rank() const override { return m_host.rank(); }
  int size() const override { return m_host.size(); }
  std::string name() const override { return "NCCL"; }

  void allreduceSum(std::span<float> deviceValues) override {
    WB_CUDA_CHECK(cudaSetDevice(m_device));
    checkNccl(ncclGroupStart(), "ncclGroupStart");
    for (std::size_t begin = 0; begin < deviceValues.size(); begin += bucketFloats()) {
      const std::size_t count = std::min(bucketFloats(), deviceValues.size() - begin);
      float* bucket = deviceValues.data() + begin;
      checkNccl(ncclAllReduce(bucket, bucket, count, ncclFloat, ncclSum, m_comm, m_stream),
                "ncclAllReduce");
    }
    checkNccl(ncclGroupEnd(), "ncclGroupEnd");
    waitForStream();
  }
  void allreduceSumHost(std::span<double> values) override { m_host.allreduceSumHost(values); }
  void broadcast(std::span<std::byte> bytes, int root) override { m_host.broadcast(bytes, root); }
  [[noreturn]] void abortAll(int exitCode) override {
    if (m_comm) ncclCommAbort(m_comm), m_comm = nullptr;
    m_host.abortAll(exitCode);
    std::abort();  // not reached: abortAll ends the process
  }

 private:
  // Polls rather than cudaStreamSynchronize so that a peer's failure (NCCL's async error) ends
  // the wait with an error instead of a hang.
  void waitForStream() {
    for (long polls = 0;; ++polls) {
      const cudaError_t state = cudaStreamQuery(m_stream);
      if (state == cudaSuccess) return;
      if (state != cudaErrorNotReady) WB_CUDA_CHECK(state);
      ncclResult_t async = ncclSuccess;
      checkNccl(ncclCommGetAsyncError(m_comm, &async), "ncclCommGetAsyncError");
      if (async != ncclSuccess) {
        ncclCommAbort(m_comm);
        m_comm = nullptr;
        throw std::runtime_error(std::string("ncclAllReduce failed on rank ") +
                                 std::to_string(rank()) + ": " + ncclGetErrorString(async) +
                                 " (a peer rank died or its device failed)");
      }
      if (polls > 2000) std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }

  dist::Communicator& m_host;
  int m_device = 0;
  ncclComm_t m_comm = nullptr;
  cudaStream_t m_stream = nullptr;
};

}  // namespace

std::unique_ptr<dist::Communicator> makeNcclCommunicator(dist::Communicator& host, int device) {
  return std::make_unique<NcclCommunicator>(host, device);
}

}  // namespace rnnwb::gpu
