#pragma once
// Reading a whole file with an end: every reader of the project's files (graphs, configs,
// checkpoints, metrics, texts, sizes, models) stops at a limit instead of reading what has no
// end (a config.json linked to /dev/zero was read for 4.3 GB), and calls a folder a folder.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace rnnwb {

/// Limits of the readers, in bytes (docs/reliability.md lists them).
inline constexpr std::uint64_t kGraphFileLimit = std::uint64_t{256} << 20;
inline constexpr std::uint64_t kConfigFileLimit = std::uint64_t{16} << 20;
inline constexpr std::uint64_t kTextFileLimit = std::uint64_t{1} << 30;
inline constexpr std::uint64_t kListFileLimit = std::uint64_t{256} << 20;   // sizes, words, ids
inline constexpr std::uint64_t kOnnxModelLimit = std::uint64_t{256} << 20;  // rnnwb import

/// The whole file. Throws std::runtime_error "PATH: a folder, where WHAT should be" for a folder,
/// "PATH: cannot read WHAT: REASON" when it cannot be opened, and "PATH: WHAT is larger than LIMIT
/// (the limit for it)" past `limit` bytes: read in chunks, so a device without end (/dev/zero)
/// stops there too. `what` names the kind of file ("the config file").
std::string readFileBounded(const std::filesystem::path& path, std::uint64_t limit,
                            std::string_view what);

/// Throws "PATH: a folder, where WHAT should be" when `path` is a folder; for readers that stream a
/// file.
void requireNotAFolder(const std::filesystem::path& path, std::string_view what);

}  // namespace rnnwb
