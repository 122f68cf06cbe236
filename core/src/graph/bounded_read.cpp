// Reading a whole file with an end (bounded_read.hpp).
#include "rnnwb/core/bounded_read.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "rnnwb/core/memory_size.hpp"

namespace rnnwb {

void requireNotAFolder(const std::filesystem::path& path, std::string_view what) {
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode))
    throw std::runtime_error(path.string() + ": a folder, where " + std::string(what) +
                             " should be");
}

std::string readFileBounded(const std::filesystem::path& path, std::uint64_t limit,
                            std::string_view what) {
  requireNotAFolder(path, what);
  const auto tooLarge = [&] {
    return std::runtime_error(path.string() + ": " + std::string(what) + " is larger than " +
                              formatBytes(limit) + " (the limit for it)");
  };
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    throw std::runtime_error(path.string() + ": cannot read " + std::string(what) + ": " +
                             std::strerror(errno));
  std::string text;
  try {
    struct stat info {};
    if (::fstat(fd, &info) == 0 && S_ISREG(info.st_mode)) {
      if (static_cast<std::uint64_t>(info.st_size) > limit) throw tooLarge();
      text.reserve(static_cast<std::size_t>(info.st_size));
    }
    char chunk[1 << 16];
    for (;;) {
      const ssize_t n = ::read(fd, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0)
        throw std::runtime_error(path.string() + ": cannot read " + std::string(what) + ": " +
                                 std::strerror(errno));
      if (n == 0) break;
      if (text.size() + static_cast<std::size_t>(n) > limit) throw tooLarge();
      text.append(chunk, static_cast<std::size_t>(n));
    }
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  return text;
}

}  // namespace rnnwb
