#include "rnnwb/core/train/run_folder.hpp"

#include <algorithm>
#include <ctime>
#include <stdexcept>

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
}

RunLog::RunLog(const fs::path& path) {
  m_file = std::fopen(path.c_str(), "ab");
  if (!m_file) throw std::runtime_error(path.string() + ": cannot open the log for appending");
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
