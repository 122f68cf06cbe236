#include "rnnwb/core/train/run_folder_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <sstream>
#include <stdexcept>

#include "rnnwb/core/folder_file.hpp"

namespace rnnwb::train {
namespace {
namespace fs = std::filesystem;

constexpr std::size_t kLockReadLimit = 4096;  // a holder line is under 300 bytes

std::string readAll(int fd) {
  std::string text;
  char buffer[256];
  ::lseek(fd, 0, SEEK_SET);
  for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0 && text.size() < kLockReadLimit;)
    text.append(buffer, static_cast<std::size_t>(n));
  return text;
}

// The line holderLine() writes: "PID HOST SINCE".
struct HolderLine {
  std::string pid, host, since;
};

HolderLine parseHolder(const std::string& line) {
  HolderLine holder;
  std::istringstream(line) >> holder.pid >> holder.host >> holder.since;
  return holder;
}

bool plainWord(const std::string& word, std::size_t longest) {
  return word.size() <= longest &&
         std::all_of(word.begin(), word.end(), [](char c) { return c > ' ' && c < 127; });
}

// A holder line told back in words; anything else is not echoed (1 MB of garbage in run.lock
// was printed whole), only its size.
std::string describeHolder(const std::string& line) {
  const HolderLine holder = parseHolder(line);
  if (holder.pid.empty()) return "another process";
  const bool pidIsNumber =
      holder.pid.size() <= 10 && holder.pid.find_first_not_of("0123456789") == std::string::npos;
  if (!pidIsNumber || !plainWord(holder.host, 255) || !plainWord(holder.since, 40))
    return "another process (run.lock holds " +
           (line.size() >= kLockReadLimit ? "more than " + std::to_string(kLockReadLimit)
                                          : std::to_string(line.size())) +
           " bytes that are not a holder line)";
  return "process " + holder.pid + " on host " + (holder.host.empty() ? "?" : holder.host) +
         (holder.since.empty() ? "" : " since " + holder.since);
}

std::string thisHost() {
  char host[256] = "unknown";
  ::gethostname(host, sizeof host - 1);
  return host;
}

std::string holderLine() {
  const std::string host = thisHost();
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char since[32];
  std::strftime(since, sizeof since, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return std::to_string(::getpid()) + " " + host + " " + since + "\n";
}

}  // namespace

RunFolderLock::RunFolderLock(const fs::path& dir) : m_dir(dir) {
  std::error_code ec;
  if (fs::is_symlink(fs::symlink_status(dir, ec)) && !fs::exists(dir, ec))  // said "File exists"
    throw std::runtime_error(dir.string() + ": a symbolic link to " +
                             fs::read_symlink(dir, ec).string() +
                             ", which does not exist: make the folder it names, or give another "
                             "run folder");
  m_createdFolder = !fs::exists(dir, ec);
  fs::create_directories(dir, ec);
  if (ec)
    throw std::runtime_error(dir.string() + ": cannot create the run folder: " + ec.message());
  const fs::path path = lockPath(dir);
  removeLinkAt(path);  // a link there would have its target emptied and locked
  m_fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (m_fd < 0)
    throw std::runtime_error(path.string() +
                             ": cannot open the lock file: " + std::strerror(errno));
  if (::flock(m_fd, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    const std::string holder = readAll(m_fd);
    ::close(m_fd);
    m_fd = -1;
    if (error == EWOULDBLOCK)
      throw std::runtime_error(dir.string() + " is in use by " + describeHolder(holder) +
                               "; wait until it ends or stop it, then try again");
    throw std::runtime_error(path.string() + ": cannot lock: " + std::strerror(error));
  }
  // A holder line left behind means its process ended without releasing (killed, crashed).
  if (const std::string previous = readAll(m_fd); !previous.empty())
    m_takenOverFrom = describeHolder(previous);
  const std::string line = holderLine();
  if (::ftruncate(m_fd, 0) != 0 || ::pwrite(m_fd, line.data(), line.size(), 0) < 0)
    throw std::runtime_error(path.string() +
                             ": cannot write the lock file: " + std::strerror(errno));
}

RunFolderLock::~RunFolderLock() {
  if (m_fd < 0) return;
  // An empty lock file tells the next holder that this one ended cleanly.
  [[maybe_unused]] const int ignored = ::ftruncate(m_fd, 0);
  ::close(m_fd);
  if (!m_createdFolder) return;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(m_dir, ec))
    if (entry.path().filename() != lockPath(m_dir).filename()) return;
  fs::remove(lockPath(m_dir), ec);
  fs::remove(m_dir, ec);
}

std::optional<long> localLockHolder(const fs::path& dir) {
  const int fd = ::open(RunFolderLock::lockPath(dir).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  // A lock we can take is held by nobody: its line (if any) names a process that ended.
  if (::flock(fd, LOCK_SH | LOCK_NB) == 0) {
    ::close(fd);
    return std::nullopt;
  }
  const HolderLine holder = parseHolder(readAll(fd));
  ::close(fd);
  if (holder.host != thisHost()) return std::nullopt;
  long pid = 0;
  if (!(std::istringstream(holder.pid) >> pid) || pid <= 0) return std::nullopt;
  return pid;
}

}  // namespace rnnwb::train
