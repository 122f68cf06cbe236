#pragma once
// The StepRunner of the device: three arenas in device memory (one allocation each, grown, never
// freed between chunks: the memory pool), a cuBLAS handle on a private stream, and one CUDA graph
// per schedule key, captured on the first run of a schedule and replayed after (the per-frame
// steps of recurrent nodes then cost one graph launch per chunk). No CUDA type in this header.
#include <map>
#include <memory>
#include <string>

#include "step_runner.hpp"

namespace rnnwb::gpu {

struct CudaStepRunnerOptions {
  int device = 0;
  bool graphs = true;  // capture schedules into CUDA graphs; false: launch step by step
  /// Time every step with CUDA events (by kind; products by shape) and every transfer: launches
  /// step by step, whatever `graphs` says. For finding where a chunk's time goes.
  bool profile = false;
};

class CudaStepRunner final : public StepRunner {
 public:
  /// Throws std::runtime_error "no CUDA device: <reason>" when the device cannot be used.
  explicit CudaStepRunner(CudaStepRunnerOptions options = {});
  ~CudaStepRunner() override;
  CudaStepRunner(const CudaStepRunner&) = delete;
  CudaStepRunner& operator=(const CudaStepRunner&) = delete;

  void reserve(std::size_t floats, std::size_t ints, std::size_t doubles) override;
  void uploadFloats(std::int64_t offset, const float* values, std::size_t count) override;
  void uploadInts(std::int64_t offset, const std::int32_t* values, std::size_t count) override;
  void downloadFloats(std::int64_t offset, float* values, std::size_t count) override;
  void downloadDoubles(std::int64_t offset, double* values, std::size_t count) override;
  void execute(const LaunchSchedule& schedule, std::uint64_t key) override;
  /// With options.profile: milliseconds summed since construction, by what took them
  /// ("Gemm 128x4096x1024 NT", "Activate", "upload", ...). Empty otherwise.
  std::map<std::string, double> profile() const;

 private:
  class Device;
  std::unique_ptr<Device> m_device;
};

}  // namespace rnnwb::gpu
