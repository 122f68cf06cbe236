#pragma once
// One process at a time per run folder: two trainers writing the same checkpoints and metrics
// would mix two runs and lose one. The lock is an flock() on DIR/run.lock, which holds
// "PID HOST SINCE" of the holder so that a refused process can say who has the folder.
#include <filesystem>
#include <optional>
#include <string>

namespace rnnwb::train {

class RunFolderLock {
 public:
  /// Takes the lock, creating the folder when it does not exist yet. Throws std::runtime_error
  /// naming the holder ("process 123 on host h since ...") when another process has it. The
  /// kernel drops an flock when its process dies, so the lock of a crashed run is simply taken
  /// over; takenOverFrom() then says from whom.
  explicit RunFolderLock(const std::filesystem::path& dir);
  /// Releases the lock (and removes a folder it created that still holds nothing else, so that
  /// a failed start leaves nothing behind).
  ~RunFolderLock();
  RunFolderLock(const RunFolderLock&) = delete;
  RunFolderLock& operator=(const RunFolderLock&) = delete;

  /// "process PID on host HOST since TIME" of a holder that ended without releasing the lock.
  const std::optional<std::string>& takenOverFrom() const { return m_takenOverFrom; }
  static std::filesystem::path lockPath(const std::filesystem::path& dir) {
    return dir / "run.lock";
  }

 private:
  std::filesystem::path m_dir;
  int m_fd = -1;
  bool m_createdFolder = false;
  std::optional<std::string> m_takenOverFrom;
};

/// The pid of the process that holds `dir`'s lock, when it runs on this host: what to signal to
/// stop a run this process did not start (one a closed workbench left training, or one started
/// in a shell). Nothing when no process holds the lock, or when the holder is on another host
/// (a shared folder), where its pid names some other process.
std::optional<long> localLockHolder(const std::filesystem::path& dir);

}  // namespace rnnwb::train
