#pragma once
// Writing the files of a folder this program owns (a run folder) without ever following a
// symbolic link: a link planted at `checkpoints/step-N.safetensors`, `run.lock` or any other name
// the run writes is replaced by the file, inside the folder, and its target stays untouched (a
// link to /dev/zero swallowed the last checkpoint; a dangling one made a file outside the folder).
// Paths a user names (`-o`, a graph saved in the editor) go through writeFileAtomically instead,
// which follows links as an editor does.
#include <cstdio>
#include <filesystem>
#include <string_view>

namespace rnnwb {

/// writeFileAtomically's temporary, fsync and rename, onto `path` itself: a link (or a device
/// node, a FIFO) there is replaced, never written through; a folder is refused. The temporary is
/// created exclusively (O_EXCL | O_NOFOLLOW). Throws std::runtime_error naming the file and why.
void writeFolderFile(const std::filesystem::path& path, std::string_view text);

/// Opens `path` for appending ("ab"), first removing a symbolic link found there (the link only,
/// not what it names), and with O_NOFOLLOW, so that the file appended to is always in the folder.
/// Returns null with errno set when it cannot be opened.
std::FILE* openFolderFileForAppending(const std::filesystem::path& path);

/// Removes a symbolic link at `path` (the link, not its target); true when there was one.
bool removeLinkAt(const std::filesystem::path& path);

}  // namespace rnnwb
