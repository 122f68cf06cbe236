#include "rnnwb/core/train/run_status.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>
#include <fstream>

#include <nlohmann/json.hpp>

#include "rnnwb/core/bounded_read.hpp"
#include "rnnwb/core/folder_file.hpp"
#include "rnnwb/core/graph_io.hpp"

namespace rnnwb::train {
namespace {

constexpr std::string_view kStates[] = {"running", "finished", "stopped", "failed"};

std::string utcNow() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

bool processExists(long pid) {
  if (pid <= 0) return true;  // unknown: do not guess
  return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

}  // namespace

std::string_view toString(RunState state) { return kStates[static_cast<int>(state)]; }

std::filesystem::path runStatusPath(const std::filesystem::path& runDir) {
  return runDir / "status.json";
}

void writeRunStatus(const std::filesystem::path& runDir, RunStatus status) {
  status.pid = static_cast<long>(::getpid());
  status.updated = utcNow();
  nlohmann::ordered_json j{{"state", toString(status.state)},
                           {"step", status.step},
                           {"total_steps", status.totalSteps},
                           {"pid", status.pid}};
  if (status.state == RunState::Failed) j["error"] = status.error;
  if (status.state == RunState::Stopped) j["signal"] = status.signal;
  j["updated"] = status.updated;
  // "running" is rewritten at every report and checkpoint; the run's end is kept on the disk.
  writeFolderFile(runStatusPath(runDir), j.dump(2) + "\n",
                  status.state == RunState::Running ? FolderFileDurability::ProgressNote
                                                    : FolderFileDurability::OnDisk);
}

std::optional<RunStatus> readRunStatus(const std::filesystem::path& runDir) {
  std::string text;
  try {  // a status.json that cannot be read (or is no file) says nothing about the run
    text = readFileBounded(runStatusPath(runDir), kConfigFileLimit, "the status file");
  } catch (const std::runtime_error&) {
    return std::nullopt;
  }
  try {
    const nlohmann::json j = nlohmann::json::parse(text);
    RunStatus s;
    const std::string state = j.at("state").get<std::string>();
    bool known = false;
    for (int i = 0; i < 4; ++i)
      if (kStates[i] == state) s.state = static_cast<RunState>(i), known = true;
    if (!known) return std::nullopt;
    s.step = j.at("step").get<std::int64_t>();
    s.totalSteps = j.value("total_steps", std::int64_t{0});
    s.pid = j.value("pid", 0L);
    s.error = j.value("error", std::string());
    s.signal = j.value("signal", 0);
    s.updated = j.value("updated", std::string());
    if (s.state == RunState::Running && !processExists(s.pid)) {
      s.state = RunState::Failed;
      s.error = "the training process (pid " + std::to_string(s.pid) + ") ended without a word";
    }
    return s;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;  // written by something else; the caller falls back to the files
  }
}

}  // namespace rnnwb::train
