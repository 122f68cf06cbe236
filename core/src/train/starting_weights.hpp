#pragma once
// The weights a new run starts from: drawn from the seed (initParameters), or read from the
// safetensors file that `init_weights` names (rnnwb init, rnnwb import, a run's weights). A run
// keeps its own copy of that file (kStartingWeightsFile), as it keeps its own copy of the graph,
// so that its folder stands alone.
#include <string>

#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/engine/parameter_set.hpp"
#include "rnnwb/core/train/run_folder.hpp"
#include "rnnwb/core/train/train_config.hpp"

namespace rnnwb::train {

inline constexpr const char* kStartingWeightsFile = "init_weights.safetensors";

/// The seed's weights, or those of config.initWeights: every key of the graph's layout, F32, of
/// its shape (parametersFromTensors; errors name init_weights, the file and the key).
ParameterSet startingParameters(const CompiledPlan& plan, const TrainConfig& config);

/// Writes the starting weights into the folder when the config names a file, and returns the
/// config as the folder keeps it: its graph and starting weights named by their copies there.
TrainConfig keepRunFiles(const RunFolder& folder, const TrainConfig& config,
                         const ParameterSet& starting, bool writeFiles);

}  // namespace rnnwb::train
