// Writes graph files in a canonical, readable form: defaults left out, short objects on one line.

#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/layer_grids.hpp"

namespace rnnwb {
namespace {

using ordered = nlohmann::ordered_json;

ordered layerJson(const Layer& layer) {
  ordered j;
  j["id"] = layer.id;
  j["kind"] = std::string(toString(layer.kind));
  j["size"] = layer.size;
  if (layer.activation != Activation::Identity)
    j["activation"] = std::string(toString(layer.activation));
  if (layer.bias != defaultBias(layer.kind)) j["bias"] = layer.bias;
  if (layer.biasInit) j["bias_init"] = *layer.biasInit;
  if (!layer.biasTrainable) j["bias_trainable"] = false;
  if (layer.loss != LossKind::None) j["loss"] = std::string(toString(layer.loss));
  return j;
}

// `dimensions`: of the connection's layers, which says how its delay is written (an integer in
// 1-D, [dx, dy] in 2-D) and which default id it has.
ordered connectionJson(const Connection& c, int index, int dimensions) {
  ordered j;
  const int delay[2] = {c.delay, c.delayY};
  const std::span<const int> components(delay, dimensions == 2 ? 2 : 1);
  if (c.id != defaultConnectionId(c.from, c.to, components)) j["id"] = c.id;
  j["from"] = c.from;
  j["to"] = c.to;
  if (c.type != ConnectionType::Full) j["type"] = std::string(toString(c.type));
  if (c.block != std::array<int, 2>{0, 0}) j["block"] = c.block;
  if (c.reduce != ReduceAxis::None) j["reduce"] = std::string(toString(c.reduce));
  if (c.isDelayed()) {
    if (dimensions == 2)
      j["delay"] = std::array<int, 2>{c.delay, c.delayY};
    else
      j["delay"] = c.delay;
  }
  if (c.density != 1.0) j["density"] = c.density;
  // A sparse connection's seed is always written: its mask must not change when the
  // connections before it are reordered or deleted.
  if (c.type == ConnectionType::Full &&
      (c.density < 1.0 || c.seed != static_cast<std::uint64_t>(index)))
    j["seed"] = c.seed;
  if (!c.trainable) j["trainable"] = false;
  if (c.init) j["init"] = *c.init;
  return j;
}

// The dimensions of each connection's layers: its source's, as far as the graph says; else the
// graph's (a 1-D connection with a [dx, dy] delay is written so, and the reader names it).
std::vector<int> connectionDimensions(const Graph& graph) {
  std::vector<int> dimensions(graph.connections.size(), graph.dimensions == 2 ? 2 : 1);
  if (graph.dimensions != 2) return dimensions;
  const GridAnalysis grids = analyzeGrids(graph);
  const auto index = layerIndexViewById(graph);
  for (std::size_t c = 0; c < graph.connections.size(); ++c) {
    const Connection& connection = graph.connections[c];
    const auto from = index.find(connection.from);
    if (from != index.end() && grids.layers[from->second].known() &&
        connection.reduce == ReduceAxis::None && connection.delayY == 0)
      dimensions[c] = grids.layers[from->second].dimensions;
  }
  return dimensions;
}

// Short values on one line, long ones spread over lines: a layer or a position stays on one
// line, and a diff of a graph file shows one line per layer or connection changed.
void writePretty(const ordered& value, int indent, std::string& out) {
  constexpr std::size_t kLineWidth = 96;
  const std::string compact = value.dump();
  // A list of objects (layers, connections) always gets one line per object.
  const bool listOfObjects = value.is_array() && !value.empty() && value.front().is_object();
  if (!value.is_structured() || value.empty() ||
      (!listOfObjects && compact.size() + indent <= kLineWidth)) {
    // nlohmann's compact dump has no spaces after ':' and ','; add them for readability.
    if (!value.is_structured()) {
      out += compact;
      return;
    }
    const bool object = value.is_object();
    out += object ? "{" : "[";
    bool first = true;
    for (auto it = value.begin(); it != value.end(); ++it) {
      if (!first) out += ", ";
      first = false;
      if (object) out += ordered(it.key()).dump() + ": ";
      writePretty(*it, indent + 2, out);
    }
    out += object ? "}" : "]";
    return;
  }
  const bool object = value.is_object();
  const std::string pad(indent + 2, ' ');
  out += object ? "{\n" : "[\n";
  bool first = true;
  for (auto it = value.begin(); it != value.end(); ++it) {
    if (!first) out += ",\n";
    first = false;
    out += pad;
    if (object) out += ordered(it.key()).dump() + ": ";
    writePretty(*it, indent + 2, out);
  }
  out += "\n" + std::string(indent, ' ') + (object ? "}" : "]");
}

}  // namespace

std::string serializeGraph(const Graph& graph) {
  ordered doc;
  doc["format"] = std::string(kGraphFormatName);
  doc["version"] = usesVersion2(graph) ? kGraphFormatLatestVersion : kGraphFormatVersion;
  if (!graph.name.empty()) doc["name"] = graph.name;
  if (graph.dimensions != 1) doc["dimensions"] = graph.dimensions;
  doc["layers"] = ordered::array();
  for (const Layer& layer : graph.layers) doc["layers"].push_back(layerJson(layer));
  doc["connections"] = ordered::array();
  const std::vector<int> dimensions = connectionDimensions(graph);
  for (std::size_t i = 0; i < graph.connections.size(); ++i)
    doc["connections"].push_back(
        connectionJson(graph.connections[i], static_cast<int>(i), dimensions[i]));
  if (!graph.ui.empty()) doc["ui"] = ordered::parse(graph.ui.dump());
  std::string out;
  writePretty(doc, 0, out);
  out += '\n';
  return out;
}

void saveGraphFile(const Graph& graph, const std::filesystem::path& path) {
  writeFileAtomically(path, serializeGraph(graph));
}

}  // namespace rnnwb
