#pragma once
// Where a resumed run continues from, chosen so that nothing is destroyed before the run can
// really continue: a folder without its checkpoints/ is refused (not "started over" with its
// metrics truncated), a checkpoint that cannot be read or holds impossible values is skipped for
// the previous one with a note saying so, and when none can be read the resume is refused.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "rnnwb/core/train/run_folder.hpp"

namespace rnnwb::train {

struct ResumePoint {
  /// The checkpoint restored; none when the run had not written one yet (it starts at step 0).
  std::optional<std::filesystem::path> checkpoint;
  /// What the user must be told: checkpoints skipped and why, temporary files removed.
  std::vector<std::string> notes;
};

/// Restores, newest first, the first checkpoint that `restore` accepts; `restore` loads the file
/// into the trainer (throwing std::exception when it cannot) and returns the step it holds,
/// which must be the step in the file's name. Removes stale temporary files first when
/// `removeTemporaries` (the folder's writer only: in a data-parallel run every rank restores, and
/// another rank would take rank 0's temporary for a dead writer's and delete it while rank 0 is
/// about to rename it; tst_dist_train failed so once: "metrics.jsonl: cannot replace the file").
/// Throws
/// std::runtime_error, having changed nothing but those temporaries, when checkpoints/ is
/// missing or not a folder, or when no checkpoint can be restored (listing each and why).
ResumePoint restoreNewestCheckpoint(
    const RunFolder& folder,
    const std::function<std::int64_t(const std::filesystem::path&)>& restore,
    bool removeTemporaries = true);

}  // namespace rnnwb::train
