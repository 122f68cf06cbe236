#include "rnnwb/core/train/node_times_file.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "rnnwb/core/bounded_read.hpp"
#include "rnnwb/core/folder_file.hpp"
#include "rnnwb/core/graph_io.hpp"

namespace rnnwb::train {
namespace {

double perPass(double seconds, int passes) { return passes > 0 ? seconds / passes : 0.0; }

NodeTimeRow rowFromJson(const nlohmann::json& node) {
  NodeTimeRow row;
  row.layers = node.at("layers").get<std::vector<std::string>>();
  row.recurrent = node.at("recurrent").get<bool>();
  row.forwardPerChunk = node.at("forward_s").get<double>();
  row.backwardPerChunk = node.at("backward_s").get<double>();
  return row;
}

}  // namespace

NodeTimesFile nodeTimesFile(const CompiledPlan& plan, const NodeTimes& times, long long step,
                            const std::string& backend) {
  NodeTimesFile file{step, backend, {}};
  if (times.empty()) return file;
  for (std::size_t n = 0; n < plan.nodes().size() && n < times.forwardSeconds.size(); ++n) {
    NodeTimeRow row;
    for (int layer : plan.nodes()[n].layers) row.layers.push_back(plan.graph().layers[layer].id);
    row.recurrent = plan.nodes()[n].recurrent;
    row.forwardPerChunk = perPass(times.forwardSeconds[n], times.forwardPasses);
    row.backwardPerChunk = perPass(times.backwardSeconds[n], times.backwardPasses);
    file.nodes.push_back(std::move(row));
  }
  return file;
}

void writeNodeTimes(const std::filesystem::path& path, const NodeTimesFile& file) {
  nlohmann::json nodes = nlohmann::json::array();
  for (const NodeTimeRow& row : file.nodes)
    nodes.push_back({{"layers", row.layers},
                     {"recurrent", row.recurrent},
                     {"forward_s", row.forwardPerChunk},
                     {"backward_s", row.backwardPerChunk}});
  const nlohmann::json doc = {{"format", "rnnwb.node_times"}, {"version", 1},   {"step", file.step},
                              {"backend", file.backend},      {"per", "chunk"}, {"nodes", nodes}};
  writeFolderFile(path, doc.dump(1) + "\n", FolderFileDurability::ProgressNote);
}

NodeTimesFile readNodeTimes(const std::filesystem::path& path) {
  const std::string text = readFileBounded(path, kConfigFileLimit, "the node times");
  try {
    const nlohmann::json doc = nlohmann::json::parse(text);
    if (doc.value("format", "") != "rnnwb.node_times")
      throw std::runtime_error("not a node times file (\"format\" is not \"rnnwb.node_times\")");
    NodeTimesFile file;
    file.step = doc.at("step").get<long long>();
    file.backend = doc.value("backend", "");
    for (const nlohmann::json& node : doc.at("nodes")) file.nodes.push_back(rowFromJson(node));
    return file;
  } catch (const nlohmann::json::exception& e) {
    // nlohmann's id and position are enough for a file the program wrote itself.
    throw std::runtime_error(path.string() + ": " + e.what());
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(path.string() + ": " + e.what());
  }
}

}  // namespace rnnwb::train
