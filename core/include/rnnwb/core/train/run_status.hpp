#pragma once
// status.json: what a run folder's run is doing, for the workbench and scripts to read instead of
// parsing stderr or guessing from the metrics. Written atomically (a reader sees the old file or
// the new one, never half of one) when the run starts, at each report and checkpoint, and when
// it ends:
//
//   {"state": "running" | "finished" | "stopped" | "failed", "step": 120, "total_steps": 500,
//    "pid": 4242, "error": "step 121: the training loss is nan" (failed only),
//    "signal": 15 (stopped only), "updated": "2026-12-01T13:59:00Z"}
//
// A "running" status whose process is gone (it was killed, or the machine went down) reads back
// as "failed" with the error "the training process (pid N) ended without a word"; that check
// only holds on the machine that ran it.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace rnnwb::train {

enum class RunState { Running, Finished, Stopped, Failed };

std::string_view toString(RunState state);

struct RunStatus {
  RunState state = RunState::Running;
  std::int64_t step = 0;
  std::int64_t totalSteps = 0;
  long pid = 0;
  std::string error;    // failed: what went wrong
  int signal = 0;       // stopped: the signal that stopped it
  std::string updated;  // UTC time of writing, ISO 8601
  bool operator==(const RunStatus&) const = default;
};

std::filesystem::path runStatusPath(const std::filesystem::path& runDir);

/// Writes status.json with this process's pid and the time.
void writeRunStatus(const std::filesystem::path& runDir, RunStatus status);

/// The folder's status, nothing when it has no (readable) status.json. A running status whose
/// process no longer exists comes back failed (see above).
std::optional<RunStatus> readRunStatus(const std::filesystem::path& runDir);

}  // namespace rnnwb::train
