#pragma once
// The task a config names, built for N streams of h' frames.
#include <cstdint>
#include <memory>

#include "rnnwb/core/train/task.hpp"
#include "rnnwb/core/train/train_config.hpp"

namespace rnnwb::train {

/// Throws std::invalid_argument for an unknown kind or options out of range, std::runtime_error
/// for a text file that cannot be read or decoded (both name what is wrong).
std::unique_ptr<Task> makeTask(const TaskConfig& config, StreamShape shape, std::uint64_t seed);

}  // namespace rnnwb::train
