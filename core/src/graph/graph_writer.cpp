// Writes graph files in a canonical, readable form: defaults left out, short objects on one line.

#include "rnnwb/core/graph_io.hpp"

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
  if (layer.loss != LossKind::None) j["loss"] = std::string(toString(layer.loss));
  return j;
}

ordered connectionJson(const Connection& c, int index) {
  ordered j;
  if (c.id != defaultConnectionId(c.from, c.to, c.delay)) j["id"] = c.id;
  j["from"] = c.from;
  j["to"] = c.to;
  if (c.type != ConnectionType::Full) j["type"] = std::string(toString(c.type));
  if (c.delay != 0) j["delay"] = c.delay;
  if (c.density != 1.0) j["density"] = c.density;
  // A sparse connection's seed is always written: its mask must not change when the
  // connections before it are reordered or deleted.
  if (c.type == ConnectionType::Full &&
      (c.density < 1.0 || c.seed != static_cast<std::uint64_t>(index)))
    j["seed"] = c.seed;
  return j;
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
  doc["version"] = kGraphFormatVersion;
  if (!graph.name.empty()) doc["name"] = graph.name;
  doc["layers"] = ordered::array();
  for (const Layer& layer : graph.layers) doc["layers"].push_back(layerJson(layer));
  doc["connections"] = ordered::array();
  for (std::size_t i = 0; i < graph.connections.size(); ++i)
    doc["connections"].push_back(connectionJson(graph.connections[i], static_cast<int>(i)));
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
