#pragma once
// Reading and writing graph files (../shared/spec/graph-format.md, version 1).
//
// Unknown keys are rejected with a message that names them (a typo such as "activaton" must not
// silently become the default); only the top-level "ui" object is free-form, and it is kept
// verbatim through a load/save round trip.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rnnwb/core/diagnostic.hpp"
#include "rnnwb/core/graph.hpp"

namespace rnnwb {

struct GraphLoadResult {
  /// Present unless the text is not JSON or not a graph file at all. It may still be invalid
  /// when problems is not empty.
  std::optional<Graph> graph;
  std::vector<Diagnostic> problems;  // reader problems, then validation problems

  bool ok() const { return graph.has_value() && problems.empty(); }
};

/// Parses and validates a graph file's text, reporting every problem found.
GraphLoadResult parseGraph(std::string_view text);
/// Reads and validates a file; a missing or unreadable file is a problem too.
GraphLoadResult loadGraphFile(const std::filesystem::path& path);
/// "FILE:LINE:COLUMN" where the problem has a position in the file, else "FILE" (the prefix of
/// a command-line message, as compilers write it; the message itself never repeats it).
std::string problemPlace(const std::filesystem::path& file, const Diagnostic& problem);
/// Reads a file that must be valid; throws GraphError listing every problem otherwise, each
/// message prefixed with problemPlace().
Graph loadValidGraph(const std::filesystem::path& path);

/// The canonical text of a graph: fields equal to the spec's defaults are left out.
std::string serializeGraph(const Graph& graph);
/// Writes atomically (a temporary file beside the target, then a rename): a failure never
/// leaves a half-written file. Throws std::runtime_error with the path on failure.
void saveGraphFile(const Graph& graph, const std::filesystem::path& path);
/// Writes text to a file atomically, as saveGraphFile does: a temporary file beside it
/// (temporaryPathFor), fsync'ed, renamed over it, and the folder fsync'ed, so that a kill, a full
/// disk or a power loss leaves the old or the new contents. An existing file keeps its mode and
/// (as far as permitted) its owner; a symbolic link is followed and kept. A device or a pipe
/// (`/dev/stdout`, a FIFO) is written into, as nothing can replace it; a folder is refused. Throws
/// std::runtime_error naming the file, what failed and why (e.g. "No space left on device").
void writeFileAtomically(const std::filesystem::path& path, std::string_view text);
/// The temporary file writeFileAtomically uses: "PATH.tmp-PID" (stale ones are removed by whoever
/// owns the folder, e.g. a resumed run).
std::filesystem::path temporaryPathFor(const std::filesystem::path& path);

}  // namespace rnnwb
