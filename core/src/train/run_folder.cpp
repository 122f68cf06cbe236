#include "rnnwb/core/train/run_folder.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <stdexcept>

#include "rnnwb/core/folder_file.hpp"

namespace rnnwb::train {
namespace fs = std::filesystem;

fs::path RunFolder::checkpointPath(std::int64_t step) const {
  char name[64];
  std::snprintf(name, sizeof name, "step-%09lld.safetensors", static_cast<long long>(step));
  return checkpointDir() / name;
}

void RunFolder::createForNewRun() const {
  if (fs::exists(configPath()))
    throw std::runtime_error(m_dir.string() +
                             " already holds a run; continue it with --resume "
                             "or choose another --run-dir");
  std::error_code ec;
  fs::create_directories(checkpointDir(), ec);
  if (ec)
    throw std::runtime_error(m_dir.string() + ": cannot create the run folder: " + ec.message());
}

bool RunFolder::holdsRun() const { return fs::exists(configPath()) && fs::exists(graphPath()); }

std::vector<std::pair<std::int64_t, fs::path>> RunFolder::checkpoints() const {
  std::vector<std::pair<std::int64_t, fs::path>> found;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(checkpointDir(), ec)) {
    const std::string name = entry.path().filename().string();
    long long step = 0;
    char tail[32] = {};
    // Only complete files count: a temporary file of an interrupted write has another name.
    if (std::sscanf(name.c_str(), "step-%lld.safetensor%1s", &step, tail) == 2 &&
        name == checkpointPath(step).filename().string())
      found.emplace_back(step, entry.path());
  }
  std::sort(found.begin(), found.end());
  return found;
}

std::optional<fs::path> RunFolder::newestCheckpoint() const {
  const auto all = checkpoints();
  if (all.empty()) return std::nullopt;
  return all.back().second;
}

void RunFolder::pruneCheckpoints(int keep) const {
  const auto all = checkpoints();
  for (std::size_t i = 0; i + keep < all.size(); ++i) {
    std::error_code ignored;  // a checkpoint that cannot be removed only costs disk space
    fs::remove(all[i].second, ignored);
  }
  removeStaleTemporaries();
}

static bool isTemporaryOfAnotherProcess(const fs::path& file) {
  const std::string name = file.filename().string();
  const auto at = name.rfind(".tmp-");
  if (at == std::string::npos || at + 5 == name.size()) return false;
  const std::string pid = name.substr(at + 5);
  if (pid.find_first_not_of("0123456789") != std::string::npos) return false;
  return pid != std::to_string(::getpid());  // this process may be writing its own right now
}

std::vector<fs::path> RunFolder::removeStaleTemporaries() const {
  // Only the holder of the folder's lock writes here, so a temporary file of another process is
  // what a killed writer left behind (writeFileAtomically's PATH.tmp-PID).
  std::vector<fs::path> removed;
  for (const fs::path& folder : {m_dir, checkpointDir()}) {
    std::error_code ec;
    for (const fs::directory_entry& entry : fs::directory_iterator(folder, ec)) {
      std::error_code ignored;
      if (entry.is_regular_file(ignored) && isTemporaryOfAnotherProcess(entry.path()) &&
          fs::remove(entry.path(), ignored))
        removed.push_back(entry.path());
    }
  }
  return removed;
}

RunLog::RunLog(const fs::path& path) {
  m_file = openFolderFileForAppending(path);
  if (!m_file)
    throw std::runtime_error(path.string() +
                             ": cannot open the log for appending: " + std::strerror(errno));
}

RunLog::~RunLog() {
  if (m_file) std::fclose(m_file);
}

void RunLog::write(const std::string& message) {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &utc);
  std::fprintf(m_file, "%s %s\n", stamp, message.c_str());
  std::fflush(m_file);
}

}  // namespace rnnwb::train
