// Reads graph files: JSON syntax, types, known values and which keys may appear. Whatever the
// reader cannot judge alone (references, sizes, cycles) is left to validateGraph().
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/graph_validator.hpp"

namespace rnnwb {
namespace {

using nlohmann::json;

const std::set<std::string> kTopKeys{"format", "version", "name", "layers", "connections", "ui"};
const std::set<std::string> kLayerKeys{"id", "kind", "size", "activation", "bias", "loss"};
const std::set<std::string> kConnectionKeys{"id", "from", "to", "type", "delay", "density", "seed"};

std::string quoted(const std::string& s) { return "'" + s + "'"; }

// Collects the reader's problems and remembers which layers and connections they concern, so
// that validation does not pile consequences on top of a field the reader could not read.
class GraphReader {
 public:
  GraphLoadResult read(std::string_view text);

 private:
  void problem(std::string message) { m_problems.push_back({std::move(message), {}, {}, 0, 0}); }
  void layerProblem(int index, const std::string& message);
  void connectionProblem(int index, const std::string& message);
  bool readHeader(const json& doc);
  void readLayer(int index, const json& item);
  void readConnection(int index, const json& item);
  std::string layerLabel(int index) const;
  std::string connectionLabel(int index) const;
  std::optional<int> readInt(const json& value, long long min, long long max);

  Graph m_graph;
  std::vector<Diagnostic> m_problems;
  std::set<int> m_brokenLayers, m_brokenConnections;
  std::vector<bool> m_connectionHasId;
};

std::string GraphReader::layerLabel(int index) const {
  const std::string& id = m_graph.layers[index].id;
  return id.empty() ? "layer #" + std::to_string(index) : "layer " + quoted(id);
}

std::string GraphReader::connectionLabel(int index) const {
  const Connection& c = m_graph.connections[index];
  if (!c.id.empty()) return "connection " + quoted(c.id);
  return "connection #" + std::to_string(index);
}

void GraphReader::layerProblem(int index, const std::string& message) {
  m_problems.push_back({layerLabel(index) + ": " + message, {index}, {}, 0, 0});
  m_brokenLayers.insert(index);
}

void GraphReader::connectionProblem(int index, const std::string& message) {
  m_problems.push_back({connectionLabel(index) + ": " + message, {}, {index}, 0, 0});
  m_brokenConnections.insert(index);
}

std::optional<int> GraphReader::readInt(const json& value, long long min, long long max) {
  if (!value.is_number_integer()) return std::nullopt;
  long long v = value.is_number_unsigned()
                    ? static_cast<long long>(std::min<std::uint64_t>(
                          value.get<std::uint64_t>(), std::numeric_limits<long long>::max()))
                    : value.get<long long>();
  if (v < min || v > max) return std::nullopt;
  return static_cast<int>(v);
}

bool GraphReader::readHeader(const json& doc) {
  if (!doc.is_object()) {
    problem("a graph file must hold a JSON object");
    return false;
  }
  for (const auto& [key, value] : doc.items())
    if (!kTopKeys.count(key)) problem("unknown top-level key " + quoted(key));
  if (!doc.contains("format") || doc["format"] != kGraphFormatName) {
    problem(std::string("\"format\" must be \"") + std::string(kGraphFormatName) + "\"" +
            (doc.contains("format") ? ", got " + doc["format"].dump() : ", and it is missing"));
    return false;
  }
  if (!doc.contains("version") || doc["version"] != kGraphFormatVersion) {
    problem("unknown \"version\" " +
            (doc.contains("version") ? doc["version"].dump() : "(missing)") +
            ": this program reads version " + std::to_string(kGraphFormatVersion));
    return false;
  }
  if (doc.contains("name")) {
    if (doc["name"].is_string())
      m_graph.name = doc["name"].get<std::string>();
    else
      problem("\"name\" must be a string");
  }
  if (doc.contains("ui")) {
    if (doc["ui"].is_object())
      m_graph.ui = doc["ui"];
    else
      problem("\"ui\" must be an object");
  }
  return true;
}

void GraphReader::readLayer(int index, const json& item) {
  m_graph.layers.emplace_back();
  Layer& layer = m_graph.layers.back();
  if (!item.is_object()) {
    layerProblem(index, "must be a JSON object");
    return;
  }
  if (!item.contains("id"))
    layerProblem(index, "missing \"id\"");
  else if (!item["id"].is_string())
    layerProblem(index, "\"id\" must be a string");
  else
    layer.id = item["id"].get<std::string>();

  for (const auto& [key, value] : item.items())
    if (!kLayerKeys.count(key)) layerProblem(index, "unknown key " + quoted(key));

  if (!item.contains("kind")) {
    layerProblem(index, "missing \"kind\"");
  } else if (auto kind = item["kind"].is_string()
                             ? layerKindFromString(item["kind"].get<std::string>())
                             : std::nullopt) {
    layer.kind = *kind;
  } else {
    layerProblem(index, "unknown kind " + item["kind"].dump() +
                            " (expected input, additive or multiplicative)");
  }
  layer.bias = defaultBias(layer.kind);

  if (!item.contains("size"))
    layerProblem(index, "missing \"size\"");
  else if (auto size = readInt(item["size"], std::numeric_limits<int>::min(),
                               std::numeric_limits<int>::max()))
    layer.size = *size;
  else
    layerProblem(index, "\"size\" must be an integer >= 1, got " + item["size"].dump());

  const bool input = layer.kind == LayerKind::Input;
  for (const char* key : {"activation", "bias", "loss"})
    if (input && item.contains(key))
      layerProblem(index, std::string("an input layer takes no \"") + key + "\"");

  if (item.contains("activation")) {
    const json& v = item["activation"];
    if (auto a = v.is_string() ? activationFromString(v.get<std::string>()) : std::nullopt)
      layer.activation = *a;
    else
      layerProblem(index, "unknown activation " + v.dump() +
                              " (expected identity, sigmoid, tanh, relu or softmax)");
  }
  if (item.contains("bias")) {
    if (item["bias"].is_boolean())
      layer.bias = item["bias"].get<bool>();
    else
      layerProblem(index, "\"bias\" must be true or false, got " + item["bias"].dump());
  }
  if (item.contains("loss")) {
    const json& v = item["loss"];
    if (auto l = v.is_string() ? lossFromString(v.get<std::string>()) : std::nullopt)
      layer.loss = *l;
    else
      layerProblem(index, "unknown loss " + v.dump() + " (expected cross_entropy or mse)");
  }
}

void GraphReader::readConnection(int index, const json& item) {
  m_graph.connections.emplace_back();
  Connection& c = m_graph.connections.back();
  c.seed = static_cast<std::uint64_t>(index);
  m_connectionHasId.push_back(false);
  if (!item.is_object()) {
    connectionProblem(index, "must be a JSON object");
    return;
  }
  if (item.contains("id")) {
    if (item["id"].is_string()) {
      c.id = item["id"].get<std::string>();
      m_connectionHasId.back() = true;
    } else {
      connectionProblem(index, "\"id\" must be a string");
    }
  }
  for (const char* key : {"from", "to"}) {
    std::string& end = std::string(key) == "from" ? c.from : c.to;
    if (!item.contains(key))
      connectionProblem(index, std::string("missing \"") + key + "\"");
    else if (!item[key].is_string())
      connectionProblem(index, std::string("\"") + key + "\" must be a layer id");
    else
      end = item[key].get<std::string>();
  }
  if (item.contains("delay")) {
    if (auto d = readInt(item["delay"], std::numeric_limits<int>::min(),
                         std::numeric_limits<int>::max()))
      c.delay = *d;
    else
      connectionProblem(index, "\"delay\" must be an integer >= 0, got " + item["delay"].dump());
  }
  if (!m_connectionHasId.back() && !c.from.empty() && !c.to.empty())
    c.id = defaultConnectionId(c.from, c.to, std::max(c.delay, 0));

  for (const auto& [key, value] : item.items())
    if (!kConnectionKeys.count(key)) connectionProblem(index, "unknown key " + quoted(key));
  if (item.contains("type")) {
    const json& v = item["type"];
    if (auto t = v.is_string() ? connectionTypeFromString(v.get<std::string>()) : std::nullopt)
      c.type = *t;
    else
      connectionProblem(index,
                        "unknown type " + v.dump() + " (expected full, diagonal or identity)");
  }
  for (const char* key : {"density", "seed"})
    if (c.type != ConnectionType::Full && item.contains(key))
      connectionProblem(index, std::string("\"") + key + "\" is only allowed on a full connection");
  if (item.contains("density")) {
    if (item["density"].is_number())
      c.density = item["density"].get<double>();
    else
      connectionProblem(index,
                        "\"density\" must be a number in (0, 1], got " + item["density"].dump());
  }
  if (item.contains("seed")) {
    if (item["seed"].is_number_unsigned())
      c.seed = item["seed"].get<std::uint64_t>();
    else
      connectionProblem(index, "\"seed\" must be an integer >= 0, got " + item["seed"].dump());
  }
}

GraphLoadResult GraphReader::read(std::string_view text) {
  json doc;
  try {
    doc = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    // Position of the byte where parsing stopped, as line and column for the user.
    const std::size_t at = std::min<std::size_t>(e.byte == 0 ? 0 : e.byte - 1, text.size());
    int line = 1, column = 1;
    for (std::size_t i = 0; i < at; ++i) {
      if (text[i] == '\n')
        ++line, column = 1;
      else
        ++column;
    }
    std::string reason = e.what();
    if (auto p = reason.find(": ", reason.find("parse error")); p != std::string::npos)
      reason = reason.substr(p + 2);
    GraphLoadResult result;
    result.problems.push_back({"malformed JSON at line " + std::to_string(line) + ", column " +
                                   std::to_string(column) + ": " + reason,
                               {},
                               {},
                               line,
                               column});
    return result;
  }
  if (!readHeader(doc)) return {std::nullopt, m_problems};

  if (!doc.contains("layers") || !doc["layers"].is_array()) {
    problem("\"layers\" must be an array of layers");
  } else {
    int i = 0;
    for (const json& item : doc["layers"]) readLayer(i++, item);
  }
  if (doc.contains("connections")) {
    if (!doc["connections"].is_array()) {
      problem("\"connections\" must be an array of connections");
    } else {
      int i = 0;
      for (const json& item : doc["connections"]) readConnection(i++, item);
    }
  }

  // Validation problems about a layer or connection the reader already faulted are left out:
  // they are consequences of the first message, not news.
  for (Diagnostic& d : validateGraph(m_graph)) {
    bool consequence = false;
    for (int l : d.layers) consequence |= m_brokenLayers.count(l) > 0;
    for (int c : d.connections) consequence |= m_brokenConnections.count(c) > 0;
    if (!consequence) m_problems.push_back(std::move(d));
  }
  return {std::move(m_graph), std::move(m_problems)};
}

}  // namespace

GraphLoadResult parseGraph(std::string_view text) { return GraphReader().read(text); }

GraphLoadResult loadGraphFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    GraphLoadResult result;
    result.problems.push_back(
        {std::string("cannot read file: ") + std::strerror(errno), {}, {}, 0, 0});
    return result;
  }
  std::ostringstream text;
  text << in.rdbuf();
  return parseGraph(text.str());
}

Graph loadValidGraph(const std::filesystem::path& path) {
  GraphLoadResult result = loadGraphFile(path);
  if (!result.ok()) {
    for (Diagnostic& d : result.problems) {
      d.message = path.string() + ": " + d.message;
      d.file = path.string();
    }
    throw GraphError(std::move(result.problems));
  }
  return std::move(*result.graph);
}

}  // namespace rnnwb
