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

/// How far a folder file's write must reach before writeFolderFile returns.
enum class FolderFileDurability {
  /// On the disk: the temporary is fsync'ed before the rename and the folder after it, so that a
  /// power loss leaves the old file or the new one (checkpoints, configs, a run's last status).
  OnDisk,
  /// A progress note rewritten at every report (status.json while running, node_times.json):
  /// renamed into place without an fsync. A kill still leaves the old file or the new one (the
  /// rename is atomic and the page cache outlives the process); a power loss may leave an older
  /// note, which the next report or the run's end rewrites. Two fsyncs per file cost 0.4-3.6 ms
  /// on a shared disk, and in a data-parallel run the other ranks wait for them at the next sum.
  ProgressNote,
};

/// writeFileAtomically's temporary, fsync and rename, onto `path` itself: a link (or a device
/// node, a FIFO) there is replaced, never written through; a folder is refused. The temporary is
/// created exclusively (O_EXCL | O_NOFOLLOW). Throws std::runtime_error naming the file and why.
void writeFolderFile(const std::filesystem::path& path, std::string_view text,
                     FolderFileDurability durability = FolderFileDurability::OnDisk);

/// Opens `path` for appending ("ab"), first removing a symbolic link found there (the link only,
/// not what it names), and with O_NOFOLLOW, so that the file appended to is always in the folder.
/// Returns null with errno set when it cannot be opened.
std::FILE* openFolderFileForAppending(const std::filesystem::path& path);

/// Removes a symbolic link at `path` (the link, not its target); true when there was one.
bool removeLinkAt(const std::filesystem::path& path);

}  // namespace rnnwb
