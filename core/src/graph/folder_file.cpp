// Files of a folder this program owns, written without following links (folder_file.hpp).
#include "rnnwb/core/folder_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "rnnwb/core/graph_io.hpp"

namespace rnnwb {
namespace {
namespace fs = std::filesystem;

std::string folderErrorText(int error) { return std::strerror(error); }

void writeAllTo(int fd, std::string_view text, const fs::path& tmp) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      throw std::runtime_error("cannot write " + tmp.string() + ": " + folderErrorText(errno));
    text.remove_prefix(static_cast<std::size_t>(n));
  }
}

// The temporary is made afresh: whatever a name "PATH.tmp-PID" held (a planted link) goes first.
void writeFreshTemporary(const fs::path& tmp, std::string_view text, mode_t mode,
                         FolderFileDurability durability) {
  ::unlink(tmp.c_str());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0)
    throw std::runtime_error("cannot create " + tmp.string() + ": " + folderErrorText(errno));
  try {
    writeAllTo(fd, text, tmp);
    if (durability == FolderFileDurability::OnDisk && ::fsync(fd) != 0)
      throw std::runtime_error("cannot flush " + tmp.string() +
                               " to the disk: " + folderErrorText(errno));
  } catch (...) {
    ::close(fd);
    throw;
  }
  if (::close(fd) != 0)
    throw std::runtime_error("cannot write " + tmp.string() + ": " + folderErrorText(errno));
}

}  // namespace

void writeFolderFile(const fs::path& path, std::string_view text, FolderFileDurability durability) {
  mode_t mode = 0666;  // less the umask, as for any new file
  if (struct stat info{}; ::lstat(path.c_str(), &info) == 0) {
    if (S_ISDIR(info.st_mode)) throw std::runtime_error(path.string() + ": a folder, not a file");
    if (S_ISREG(info.st_mode)) mode = info.st_mode & 0777;
  }
  const fs::path tmp = temporaryPathFor(path);
  try {
    writeFreshTemporary(tmp, text, mode, durability);
    if (::rename(tmp.c_str(), path.c_str()) != 0)
      throw std::runtime_error("cannot replace the file: " + folderErrorText(errno));
  } catch (const std::exception& e) {
    ::unlink(tmp.c_str());
    throw std::runtime_error(path.string() + ": " + e.what());
  }
  if (durability != FolderFileDurability::OnDisk) return;
  const fs::path folder = path.parent_path();
  if (const int fd = ::open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY);
      fd >= 0) {
    ::fsync(fd);  // the rename is durable once the folder's entry is on the disk too
    ::close(fd);
  }
}

bool removeLinkAt(const fs::path& path) {
  struct stat info {};
  return ::lstat(path.c_str(), &info) == 0 && S_ISLNK(info.st_mode) && ::unlink(path.c_str()) == 0;
}

std::FILE* openFolderFileForAppending(const fs::path& path) {
  removeLinkAt(path);
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0) return nullptr;
  std::FILE* file = ::fdopen(fd, "ab");
  if (!file) ::close(fd);
  return file;
}

}  // namespace rnnwb
