// Reads graph files: JSON syntax, types, known values and which keys may appear. Whatever the
// reader cannot judge alone (references, sizes, cycles) is left to validateGraph().
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "graph_reader.hpp"
#include "rnnwb/core/bounded_read.hpp"
#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/graph_validator.hpp"
#include "rnnwb/core/json_read.hpp"

namespace rnnwb {
namespace detail {

namespace {
using nlohmann::json;

const std::set<std::string> kTopKeys{"format", "version", "name", "layers", "connections", "ui"};
const std::set<std::string> kLayerKeys{"id", "kind", "size", "activation", "bias", "loss"};
const std::set<std::string> kConnectionKeys{"id", "from", "to", "type", "delay", "density", "seed"};
// Keys that version 2 adds (graph-format-v2.md).
const std::set<std::string> kTopKeysV2{"dimensions"};
const std::set<std::string> kLayerKeysV2{"bias_init", "bias_trainable"};
const std::set<std::string> kConnectionKeysV2{"block", "reduce", "trainable", "init"};

std::set<std::string> unite(const std::set<std::string>& a, const std::set<std::string>& b) {
  std::set<std::string> all = a;
  all.insert(b.begin(), b.end());
  return all;
}
}  // namespace

std::string inQuotes(const std::string& s) { return "'" + s + "'"; }

std::string unknownKey(const std::string& key, const std::set<std::string>& known,
                       const char* what) {
  std::string message = what + inQuotes(key);
  if (auto near = closestName(key, known)) message += " (did you mean " + inQuotes(*near) + "?)";
  return message;
}

std::string GraphReader::layerLabel(int index) const {
  const std::string& id = m_graph.layers[index].id;
  return id.empty() ? "layer #" + std::to_string(index) : "layer " + inQuotes(id);
}

std::string GraphReader::connectionLabel(int index) const {
  const Connection& c = m_graph.connections[index];
  if (!c.id.empty()) return "connection " + inQuotes(c.id);
  return "connection #" + std::to_string(index);
}

JsonPath memberPath(const char* list, int index, const std::string& key) {
  JsonPath path{list, std::to_string(index)};
  if (!key.empty()) path.push_back(key);
  return path;
}

void GraphReader::layerProblem(int index, const std::string& message, const std::string& key) {
  m_problems.push_back({layerLabel(index) + ": " + message, {index}, {}, 0, 0});
  m_where.push_back(memberPath("layers", index, key));
  m_brokenLayers.insert(index);
}

void GraphReader::connectionProblem(int index, const std::string& message, const std::string& key) {
  m_problems.push_back({connectionLabel(index) + ": " + message, {}, {index}, 0, 0});
  m_where.push_back(memberPath("connections", index, key));
  m_brokenConnections.insert(index);
}

void GraphReader::locateProblems(std::string_view text) {
  if (m_problems.empty()) return;
  const std::vector<TextPosition> found = JsonLocator(text).locate(m_where);
  for (std::size_t i = 0; i < found.size(); ++i) {
    m_problems[i].line = found[i].line;
    m_problems[i].column = found[i].column;
  }
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
  // Keys are judged by the version the file claims, before the version itself is checked.
  if (!doc.contains("version") || doc["version"] != kGraphFormatVersion)
    m_version = kGraphFormatLatestVersion;
  for (const auto& [key, value] : doc.items())
    if (!kTopKeys.count(key) && !version2Key(key, kTopKeysV2, -1, -1))
      problem(unknownKey(key, unite(kTopKeys, kTopKeysV2), "unknown top-level key "), {key});
  if (!doc.contains("format") || doc["format"] != kGraphFormatName) {
    problem(std::string("\"format\" must be \"") + std::string(kGraphFormatName) + "\"" +
                (doc.contains("format") ? ", got " + describeJsonValue(doc["format"])
                                        : ", and it is missing"),
            {"format"});
    return false;
  }
  if (!doc.contains("version") ||
      (doc["version"] != kGraphFormatVersion && doc["version"] != kGraphFormatLatestVersion)) {
    problem("unknown \"version\" " +
                (doc.contains("version") ? describeJsonValue(doc["version"]) : "(missing)") +
                ": this program reads versions " + std::to_string(kGraphFormatVersion) + " and " +
                std::to_string(kGraphFormatLatestVersion),
            {"version"});
    return false;
  }
  readDimensions(doc);
  if (doc.contains("name")) {
    if (doc["name"].is_string())
      m_graph.name = doc["name"].get<std::string>();
    else
      problem("\"name\" must be a string", {"name"});
  }
  if (doc.contains("ui")) {
    if (doc["ui"].is_object())
      m_graph.ui = doc["ui"];
    else
      problem("\"ui\" must be an object", {"ui"});
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
    layerProblem(index, "\"id\" must be a string", "id");
  else
    layer.id = item["id"].get<std::string>();

  for (const auto& [key, value] : item.items())
    if (!kLayerKeys.count(key) && !version2Key(key, kLayerKeysV2, index, -1))
      layerProblem(index, unknownKey(key, unite(kLayerKeys, kLayerKeysV2)), key);

  if (!item.contains("kind")) {
    layerProblem(index, "missing \"kind\"");
  } else if (auto kind = item["kind"].is_string()
                             ? layerKindFromString(item["kind"].get<std::string>())
                             : std::nullopt) {
    layer.kind = *kind;
  } else {
    layerProblem(index,
                 "unknown kind " + describeJsonValue(item["kind"]) +
                     " (expected input, additive or multiplicative)",
                 "kind");
  }
  layer.bias = defaultBias(layer.kind);

  if (!item.contains("size"))
    layerProblem(index, "missing \"size\"");
  else if (auto size = readInt(item["size"], std::numeric_limits<int>::min(),
                               std::numeric_limits<int>::max()))
    layer.size = *size;
  else
    layerProblem(index, "\"size\" must be an integer >= 1, got " + describeJsonValue(item["size"]),
                 "size");
  readLayerValues(index, item);
  if (m_version >= kGraphFormatLatestVersion) readVersion2Layer(index, item);
}

void GraphReader::readLayerValues(int index, const json& item) {
  Layer& layer = m_graph.layers[index];
  const bool input = layer.kind == LayerKind::Input;
  for (const char* key : {"activation", "bias", "loss"})
    if (input && item.contains(key))
      layerProblem(index, std::string("an input layer takes no \"") + key + "\"", key);

  if (item.contains("activation")) {
    const json& v = item["activation"];
    if (auto a = v.is_string() ? activationFromString(v.get<std::string>()) : std::nullopt)
      layer.activation = *a;
    else
      layerProblem(index,
                   "unknown activation " + describeJsonValue(v) +
                       " (expected identity, sigmoid, tanh, relu or softmax)",
                   "activation");
  }
  if (item.contains("bias")) {
    if (item["bias"].is_boolean())
      layer.bias = item["bias"].get<bool>();
    else
      layerProblem(index, "\"bias\" must be true or false, got " + describeJsonValue(item["bias"]),
                   "bias");
  }
  if (item.contains("loss")) {
    const json& v = item["loss"];
    auto l = v.is_string() ? lossFromString(v.get<std::string>()) : std::nullopt;
    if (l == LossKind::Ctc && m_version < kGraphFormatLatestVersion)
      layerProblem(index, "the loss \"ctc\" needs \"version\": 2", "loss");
    else if (l)
      layer.loss = *l;
    else
      layerProblem(
          index,
          "unknown loss " + describeJsonValue(v) +
              (m_version < kGraphFormatLatestVersion ? " (expected cross_entropy or mse)"
                                                     : " (expected cross_entropy, mse or ctc)"),
          "loss");
  }
}

void GraphReader::readConnection(int index, const json& item) {
  m_graph.connections.emplace_back();
  Connection& c = m_graph.connections.back();
  c.seed = static_cast<std::uint64_t>(index);
  m_connectionHasId.push_back(false);
  m_delayArity.push_back(0);
  if (!item.is_object()) {
    connectionProblem(index, "must be a JSON object");
    return;
  }
  if (item.contains("id")) {
    if (item["id"].is_string()) {
      c.id = item["id"].get<std::string>();
      m_connectionHasId.back() = true;
    } else {
      connectionProblem(index, "\"id\" must be a string", "id");
    }
  }
  for (const char* key : {"from", "to"}) {
    std::string& end = std::string(key) == "from" ? c.from : c.to;
    if (!item.contains(key))
      connectionProblem(index, std::string("missing \"") + key + "\"");
    else if (!item[key].is_string())
      connectionProblem(index, std::string("\"") + key + "\" must be a layer id", key);
    else
      end = item[key].get<std::string>();
  }
  const std::string delayProblem = item.contains("delay") ? readDelay(index, item["delay"]) : "";
  if (!m_connectionHasId.back() && !c.from.empty() && !c.to.empty()) {
    if (m_version < kGraphFormatLatestVersion) {
      c.id = defaultConnectionId(c.from, c.to, std::max(c.delay, 0));
    } else {
      const int delay[2] = {c.delay, c.delayY};
      c.id = defaultConnectionId(c.from, c.to,
                                 std::span<const int>(delay, std::max(m_delayArity.back(), 1)));
    }
  }
  if (!delayProblem.empty()) connectionProblem(index, delayProblem, "delay");
  for (const auto& [key, value] : item.items())
    if (!kConnectionKeys.count(key) && !version2Key(key, kConnectionKeysV2, -1, index))
      connectionProblem(index, unknownKey(key, unite(kConnectionKeys, kConnectionKeysV2)), key);
  readConnectionType(index, item);
  readConnectionValues(index, item);
  if (m_version >= kGraphFormatLatestVersion) readVersion2Connection(index, item);
}

void GraphReader::readConnectionType(int index, const json& item) {
  if (!item.contains("type")) return;
  const json& v = item["type"];
  auto t = v.is_string() ? connectionTypeFromString(v.get<std::string>()) : std::nullopt;
  const bool v2Type = t == ConnectionType::Complement || t == ConnectionType::Block;
  if (v2Type && m_version < kGraphFormatLatestVersion)
    connectionProblem(index, "the type " + describeJsonValue(v) + " needs \"version\": 2", "type");
  else if (t)
    m_graph.connections[index].type = *t;
  else
    connectionProblem(index,
                      "unknown type " + describeJsonValue(v) +
                          (m_version < kGraphFormatLatestVersion
                               ? " (expected full, diagonal or identity)"
                               : " (expected full, diagonal, identity, complement or block)"),
                      "type");
}

void GraphReader::readConnectionValues(int index, const json& item) {
  Connection& c = m_graph.connections[index];
  for (const char* key : {"density", "seed"})
    if (c.type != ConnectionType::Full && item.contains(key))
      connectionProblem(index, std::string("\"") + key + "\" is only allowed on a full connection",
                        key);
  if (item.contains("density")) {
    if (item["density"].is_number())
      c.density = item["density"].get<double>();
    else
      connectionProblem(
          index,
          "\"density\" must be a number in (0, 1], got " + describeJsonValue(item["density"]),
          "density");
  }
  if (item.contains("seed")) {
    if (item["seed"].is_number_unsigned())
      c.seed = item["seed"].get<std::uint64_t>();
    else
      connectionProblem(index,
                        "\"seed\" must be an integer >= 0, got " + describeJsonValue(item["seed"]),
                        "seed");
  }
}

void GraphReader::addValidationProblems() {
  // Validation problems about a layer or connection the reader already faulted are left out:
  // they are consequences of the first message, not news.
  for (Diagnostic& d : validateGraph(m_graph)) {
    bool consequence = false;
    for (int l : d.layers) consequence |= m_brokenLayers.count(l) > 0;
    for (int c : d.connections) consequence |= m_brokenConnections.count(c) > 0;
    if (consequence) continue;
    // A validation problem is shown at the first connection or layer it names.
    if (!d.connections.empty())
      m_where.push_back(memberPath("connections", d.connections.front(), {}));
    else if (!d.layers.empty())
      m_where.push_back(memberPath("layers", d.layers.front(), {}));
    else
      m_where.emplace_back();
    m_problems.push_back(std::move(d));
  }
}

GraphLoadResult GraphReader::read(std::string_view text) {
  json doc;
  try {
    doc = parseJsonBounded(text);
  } catch (const JsonReadError& e) {
    GraphLoadResult result;
    result.problems.push_back({e.reason(), {}, {}, e.position().line, e.position().column});
    return result;
  }
  if (!readHeader(doc)) {
    locateProblems(text);
    return {std::nullopt, m_problems};
  }

  if (!doc.contains("layers") || !doc["layers"].is_array()) {
    problem("\"layers\" must be an array of layers", {"layers"});
  } else {
    int i = 0;
    for (const json& item : doc["layers"]) readLayer(i++, item);
  }
  if (doc.contains("connections")) {
    if (!doc["connections"].is_array()) {
      problem("\"connections\" must be an array of connections", {"connections"});
    } else {
      int i = 0;
      for (const json& item : doc["connections"]) readConnection(i++, item);
    }
  }

  checkDelayArity();
  addValidationProblems();
  locateProblems(text);
  return {std::move(m_graph), std::move(m_problems)};
}

}  // namespace detail

GraphLoadResult parseGraph(std::string_view text) { return detail::GraphReader().read(text); }

std::string problemPlace(const std::filesystem::path& file, const Diagnostic& problem) {
  if (problem.line <= 0) return file.string();
  return file.string() + ":" + std::to_string(problem.line) + ":" + std::to_string(problem.column);
}

GraphLoadResult loadGraphFile(const std::filesystem::path& path) {
  std::string text;
  try {
    text = readFileBounded(path, kGraphFileLimit, "the graph file");
  } catch (const std::runtime_error& e) {
    GraphLoadResult result;  // the place (the file) is added by whoever prints the problem
    const std::string message = e.what(), prefix = path.string() + ": ";
    result.problems.push_back(
        {message.starts_with(prefix) ? message.substr(prefix.size()) : message, {}, {}, 0, 0});
    return result;
  }
  return parseGraph(text);
}

Graph loadValidGraph(const std::filesystem::path& path) {
  GraphLoadResult result = loadGraphFile(path);
  if (!result.ok()) {
    for (Diagnostic& d : result.problems) {
      d.message = problemPlace(path, d) + ": " + d.message;
      d.file = path.string();
    }
    throw GraphError(std::move(result.problems));
  }
  return std::move(*result.graph);
}

}  // namespace rnnwb
