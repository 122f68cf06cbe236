#pragma once
// The folder of one training run, which the workbench follows while `rnnwb train` writes it:
//
//   graph.rnn.json                 the graph being trained (a copy, so the run stands alone)
//   config.json                    the resolved config (every default filled in, paths absolute)
//   metrics.jsonl                  one line per report (metrics.hpp)
//   train.log                      what happened, one timestamped line per event
//   checkpoints/step-NNNNNNNNN.safetensors   the newest few checkpoints (checkpoint.hpp)
//   run.lock                       flock()ed while a process trains here (run_folder_lock.hpp)
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace rnnwb::train {

class RunFolder {
 public:
  explicit RunFolder(std::filesystem::path dir) : m_dir(std::move(dir)) {}

  const std::filesystem::path& dir() const { return m_dir; }
  std::filesystem::path graphPath() const { return m_dir / "graph.rnn.json"; }
  std::filesystem::path configPath() const { return m_dir / "config.json"; }
  std::filesystem::path metricsPath() const { return m_dir / "metrics.jsonl"; }
  std::filesystem::path logPath() const { return m_dir / "train.log"; }
  std::filesystem::path checkpointDir() const { return m_dir / "checkpoints"; }
  std::filesystem::path checkpointPath(std::int64_t step) const;

  /// Creates the folder for a new run. Throws std::runtime_error when it already holds a run
  /// (a config.json), saying to use --resume or another folder, or when it cannot be created.
  void createForNewRun() const;
  /// True when the folder holds a run that can be resumed (config.json and graph.rnn.json).
  bool holdsRun() const;

  /// Checkpoints in the folder, oldest first, with their steps.
  std::vector<std::pair<std::int64_t, std::filesystem::path>> checkpoints() const;
  std::optional<std::filesystem::path> newestCheckpoint() const;
  /// Deletes all but the newest `keep` checkpoints, then stale temporary files.
  void pruneCheckpoints(int keep) const;
  /// Removes the "*.tmp-PID" files that writes of other (killed) processes left in the folder
  /// and in checkpoints/; returns them. Call only while holding the folder's RunFolderLock.
  std::vector<std::filesystem::path> removeStaleTemporaries() const;

 private:
  std::filesystem::path m_dir;
};

/// train.log: appends "YYYY-MM-DDTHH:MM:SSZ message" lines, flushed one by one.
class RunLog {
 public:
  explicit RunLog(const std::filesystem::path& path);
  ~RunLog();
  RunLog(const RunLog&) = delete;
  RunLog& operator=(const RunLog&) = delete;
  void write(const std::string& message);

 private:
  std::FILE* m_file = nullptr;
};

}  // namespace rnnwb::train
