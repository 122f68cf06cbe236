#pragma once
// A CPU interpreter of LaunchSchedules: each step with plain loops, the row operations' elements
// by the device kernels' own expressions (gpu/src/step_math.hpp), products by a naive triple loop
// in double. It checks the host side of the CUDA engine (the lowering, every offset, the executor's
// uploads and downloads) against CpuBackend on a machine without a device. Not a backend for users.
#include <vector>

#include "step_runner.hpp"

namespace rnnwb::testing {

class HostStepRunner final : public gpu::StepRunner {
 public:
  void reserve(std::size_t floats, std::size_t ints, std::size_t doubles) override;
  void uploadFloats(std::int64_t offset, const float* values, std::size_t count) override;
  void uploadInts(std::int64_t offset, const std::int32_t* values, std::size_t count) override;
  void downloadFloats(std::int64_t offset, float* values, std::size_t count) override;
  void downloadDoubles(std::int64_t offset, double* values, std::size_t count) override;
  void execute(const gpu::LaunchSchedule& schedule, std::uint64_t key) override;

  /// Steps run by the last execute(), and the keys seen (the executor's schedule cache).
  std::size_t stepsRun = 0;
  /// The arenas as the last step left them (the device step test starts the device from them).
  const std::vector<float>& floats() const { return m_floats; }
  const std::vector<double>& doubles() const { return m_doubles; }
  /// Where a step writes: [first, first + count) of the float arena, or of the double arena for
  /// the loss steps (`doubles` true).
  struct Output {
    std::int64_t first = 0, count = 0;
    bool doubles = false;
  };
  static Output outputOf(const gpu::LaunchStep& step);
  std::vector<std::uint64_t> keys;

 private:
  void run(const gpu::LaunchStep& step);
  /// The row operations (BroadcastRow .. ActivateBackward), each element by step_math.hpp.
  void rowOperation(const gpu::LaunchStep& step);
  void gemm(const gpu::LaunchStep& step);

  std::vector<float> m_floats;
  std::vector<std::int32_t> m_ints;
  std::vector<double> m_doubles;
};

}  // namespace rnnwb::testing
