#include "rnnwb/core/train/resume_point.hpp"

#include <stdexcept>

namespace rnnwb::train {
namespace fs = std::filesystem;

namespace {

void requireCheckpointFolder(const RunFolder& folder) {
  std::error_code ec;
  const fs::file_status status = fs::status(folder.checkpointDir(), ec);
  const char* problem = !fs::exists(status)         ? "is missing"
                        : !fs::is_directory(status) ? "is not a folder"
                                                    : nullptr;
  if (problem)
    throw std::runtime_error(folder.checkpointDir().string() + " " + problem +
                             ", so the run cannot continue where it stopped; nothing was changed "
                             "(restore it, or start a new run in another folder)");
}

std::string temporariesNote(const std::vector<fs::path>& removed) {
  std::string note = "removed " + std::to_string(removed.size()) +
                     " unfinished temporary file(s) of an interrupted write:";
  for (const fs::path& p : removed) note += " " + p.filename().string();
  return note;
}

}  // namespace

ResumePoint restoreNewestCheckpoint(const RunFolder& folder,
                                    const std::function<std::int64_t(const fs::path&)>& restore,
                                    bool removeTemporaries) {
  requireCheckpointFolder(folder);
  ResumePoint point;
  if (removeTemporaries)
    if (const auto removed = folder.removeStaleTemporaries(); !removed.empty())
      point.notes.push_back(temporariesNote(removed));
  const auto all = folder.checkpoints();
  std::vector<std::string> failures;
  for (auto it = all.rbegin(); it != all.rend(); ++it) {
    const auto& [step, path] = *it;
    try {
      const std::int64_t held = restore(path);
      if (held != step)
        throw std::runtime_error(path.string() + ": holds step " + std::to_string(held) +
                                 " but is named for step " + std::to_string(step));
    } catch (const std::exception& e) {
      failures.push_back(e.what());
      continue;
    }
    point.checkpoint = path;
    for (const std::string& failure : failures)
      point.notes.push_back("skipped an unusable checkpoint (" + failure +
                            "); continuing from the previous one, " + path.filename().string());
    return point;
  }
  if (!failures.empty()) {
    std::string message = "no checkpoint in " + folder.checkpointDir().string() +
                          " can be used, so the run cannot continue; nothing was changed:";
    for (const std::string& failure : failures) message += "\n  " + failure;
    throw std::runtime_error(message);
  }
  return point;
}

}  // namespace rnnwb::train
