#pragma once
// node_times.json in a run folder: the wall time each node of the schedule took per chunk
// (Backend::nodeTimes), written at every report, read by the workbench to colour the canvas and
// the Schedule by where the time goes.
//
//   {"format": "rnnwb.node_times", "version": 1, "step": 400, "backend": "cpu",
//    "forward_passes": 420, "backward_passes": 400,
//    "nodes": [{"layers": ["x"], "recurrent": false, "forward_s": 0.01, "backward_s": 0.02}, ...]}
//
// forward_s and backward_s are summed over the passes; per chunk = seconds / passes.
#include <filesystem>
#include <string>
#include <vector>

#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/engine/backend.hpp"

namespace rnnwb::train {

struct NodeTimeRow {
  std::vector<std::string> layers;  // layer ids, the node's file order
  bool recurrent = false;
  double forwardPerChunk = 0;   // seconds
  double backwardPerChunk = 0;  // seconds; 0 when no backward pass ran
};

struct NodeTimesFile {
  long long step = 0;
  std::string backend;
  std::vector<NodeTimeRow> nodes;  // schedule order
};

/// The file's contents for a plan and the backend's times (empty times give no nodes).
NodeTimesFile nodeTimesFile(const CompiledPlan& plan, const NodeTimes& times, long long step,
                            const std::string& backend);

/// Writes atomically (writeFileAtomically).
void writeNodeTimes(const std::filesystem::path& path, const NodeTimesFile& file);

/// Reads the file; throws std::runtime_error naming the file and what is wrong.
NodeTimesFile readNodeTimes(const std::filesystem::path& path);

}  // namespace rnnwb::train
