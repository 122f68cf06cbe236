#pragma once
// Private to rnnwb_train: what of a run's config must stay the same across --resume, and how a
// config.json edited between two sessions is found (each checkpoint carries the fingerprint of
// the config it was written under, TrainingPosition::config).
#include <string>
#include <vector>

#include "rnnwb/core/train/train_config.hpp"

namespace rnnwb::train {

/// The config as compact JSON, less what --resume may change (steps, epochs, the ranks the
/// launcher sets) and the paths of the run's own copies (graph, task.model), which are written
/// relative to the folder and read back absolute.
std::string resumeFingerprint(const TrainConfig& config);

struct ConfigChanges {
  std::vector<std::string> refused;  // "task.delay: 20 at the checkpoint, 5 in config.json"
  std::vector<std::string> logged;   // changes that only say where and how often files are kept
};

/// The leaves that differ between the fingerprint a checkpoint holds and the config's now. Keys
/// only about the folder's files (checkpoint_every, keep_checkpoints, hostfile) are `logged`;
/// every other change would alter the run, so it is `refused`.
ConfigChanges configChanges(const std::string& atCheckpoint, const std::string& now);

}  // namespace rnnwb::train
