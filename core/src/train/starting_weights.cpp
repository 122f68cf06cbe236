#include "starting_weights.hpp"

#include <stdexcept>

#include "rnnwb/core/engine/parameter_init.hpp"
#include "rnnwb/core/engine/parameter_io.hpp"
#include "rnnwb/core/safetensors.hpp"

namespace rnnwb::train {

ParameterSet startingParameters(const CompiledPlan& plan, const TrainConfig& config) {
  if (config.initWeights.empty()) return initParameters(plan, config.seed);
  try {
    return parametersFromTensors(plan, readSafetensors(config.initWeights));
  } catch (const std::exception& e) {
    // Said as a setting's error, so that it reaches the user before a run folder is made.
    throw std::invalid_argument("init_weights " + config.initWeights + ": " + e.what());
  }
}

TrainConfig keepRunFiles(const RunFolder& folder, const TrainConfig& config,
                         const ParameterSet& starting, bool writeFiles) {
  TrainConfig kept = config;  // the run stands alone: it names its own copies
  kept.graph = folder.graphPath().filename().string();
  if (config.initWeights.empty()) return kept;
  kept.initWeights = kStartingWeightsFile;
  // The values the run started from, masks included: the same as the file's for every key the
  // graph has (parametersFromTensors read them all), without the file's other keys.
  if (writeFiles)
    writeSafetensors(folder.dir() / kStartingWeightsFile,
                     parametersToTensors(starting, /*withMasks=*/true),
                     {{"written_by", "rnnwb train: the weights this run started from"}});
  return kept;
}

}  // namespace rnnwb::train
