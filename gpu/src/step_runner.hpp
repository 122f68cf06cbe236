#pragma once
// What runs a LaunchSchedule: the CUDA step runner on a device, or the CPU interpreter of the
// tests. It owns the three arenas (float, int32, double) and moves data in and out of them by
// element offset. C++17: .cu files include it. Not thread-safe.
#include <cstddef>
#include <cstdint>

#include "launch_step.hpp"

namespace rnnwb::gpu {

class StepRunner {
 public:
  virtual ~StepRunner() = default;
  /// Arenas of at least these sizes (elements); contents are undefined after a growth.
  virtual void reserve(std::size_t floats, std::size_t ints, std::size_t doubles) = 0;
  virtual void uploadFloats(std::int64_t offset, const float* values, std::size_t count) = 0;
  virtual void uploadInts(std::int64_t offset, const std::int32_t* values, std::size_t count) = 0;
  virtual void downloadFloats(std::int64_t offset, float* values, std::size_t count) = 0;
  virtual void downloadDoubles(std::int64_t offset, double* values, std::size_t count) = 0;
  /// Runs the steps in order. `key` names the schedule (the same key, the same steps) so a runner
  /// may keep what it prepared for it (a CUDA graph) while its arenas stay where they are.
  virtual void execute(const LaunchSchedule& schedule, std::uint64_t key) = 0;
};

}  // namespace rnnwb::gpu
