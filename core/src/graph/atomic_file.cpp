// writeFileAtomically: a temporary file beside the target, flushed to the disk, renamed over the
// target, and the folder flushed too, so that a kill, a full disk or a power loss leaves either
// the old file or the new one, never a mixture or nothing.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <stdexcept>

#include "rnnwb/core/graph_io.hpp"

namespace rnnwb {
namespace {
namespace fs = std::filesystem;

std::string reason(int error) { return std::strerror(error); }

// Writing through a symbolic link replaces the file it names and keeps the link (as an editor
// does); a rename onto the link itself would turn it into a plain file.
fs::path resolveLinks(fs::path path) {
  for (int hops = 0; hops < 40; ++hops) {
    std::error_code ec;
    if (!fs::is_symlink(fs::symlink_status(path, ec))) return path;
    const fs::path link = fs::read_symlink(path, ec);
    if (ec) return path;
    path = link.is_absolute() ? link : path.parent_path() / link;
  }
  throw std::runtime_error(path.string() + ": too many levels of symbolic links");
}

void writeAll(int fd, std::string_view text, const fs::path& tmp) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::runtime_error("cannot write " + tmp.string() + ": " + reason(errno));
    text.remove_prefix(static_cast<std::size_t>(n));
  }
}

// The rename is only durable once the folder's entry is on the disk too.
void syncFolder(const fs::path& folder) {
  const int fd = ::open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return;  // a folder that cannot be opened for reading still holds the new file
  ::fsync(fd);
  ::close(fd);
}

// Writes, flushes and closes the temporary file, giving it the mode and owner of the file it
// replaces (rnnwb format must not turn a 0600 file into 0644).
void writeTemporary(const fs::path& tmp, std::string_view text,
                    const std::optional<struct stat>& original) {
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) throw std::runtime_error("cannot create " + tmp.string() + ": " + reason(errno));
  try {
    if (original) {
      if (::fchmod(fd, original->st_mode & 07777) != 0)
        throw std::runtime_error("cannot set the mode of " + tmp.string() + ": " + reason(errno));
      // Only root may give a file away; for others the owner stays theirs, as with any editor.
      if (::fchown(fd, original->st_uid, original->st_gid) != 0 && errno != EPERM)
        throw std::runtime_error("cannot set the owner of " + tmp.string() + ": " + reason(errno));
    }
    writeAll(fd, text, tmp);
    if (::fsync(fd) != 0)
      throw std::runtime_error("cannot flush " + tmp.string() + " to the disk: " + reason(errno));
  } catch (...) {
    ::close(fd);
    throw;
  }
  if (::close(fd) != 0)
    throw std::runtime_error("cannot write " + tmp.string() + ": " + reason(errno));
}

// A device or a pipe cannot be replaced, only written into: `-o /dev/stdout`, a FIFO. (Renaming
// a file over /dev/full made the command, run by root, replace the device node itself.)
void writeInto(const fs::path& path, std::string_view text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error(path.string() + ": cannot open: " + reason(errno));
  try {
    writeAll(fd, text, path);
  } catch (...) {
    ::close(fd);
    throw;
  }
  if (::close(fd) != 0)
    throw std::runtime_error("cannot write " + path.string() + ": " + reason(errno));
}

}  // namespace

std::filesystem::path temporaryPathFor(const std::filesystem::path& path) {
  fs::path tmp = path;
  tmp += ".tmp-" + std::to_string(::getpid());
  return tmp;
}

void writeFileAtomically(const std::filesystem::path& path, std::string_view text) {
  if (struct stat info{}; ::stat(path.c_str(), &info) == 0 && !S_ISREG(info.st_mode)) {
    if (S_ISDIR(info.st_mode)) throw std::runtime_error(path.string() + ": a folder, not a file");
    writeInto(path, text);
    return;
  }
  const fs::path target = resolveLinks(path);
  std::optional<struct stat> original;
  if (struct stat info{}; ::stat(target.c_str(), &info) == 0) original = info;
  const fs::path tmp = temporaryPathFor(target);
  try {
    writeTemporary(tmp, text, original);
    if (::rename(tmp.c_str(), target.c_str()) != 0)
      throw std::runtime_error("cannot replace the file: " + reason(errno));
  } catch (const std::exception& e) {
    ::unlink(tmp.c_str());
    throw std::runtime_error(path.string() + ": " + e.what());
  }
  syncFolder(target.parent_path());
}

}  // namespace rnnwb
