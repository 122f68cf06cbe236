// The reader's part for version 2's fields (graph-format-v2.md). Version 1 files may use none of
// them: each is then a problem that says it needs version 2.
#include <limits>

#include "graph_reader.hpp"
#include "rnnwb/core/layer_grids.hpp"

namespace rnnwb::detail {
namespace {

constexpr long long kIntMin = std::numeric_limits<int>::min();
constexpr long long kIntMax = std::numeric_limits<int>::max();

}  // namespace

void GraphReader::readDimensions(const nlohmann::json& doc) {
  if (!doc.contains("dimensions") || m_version < kGraphFormatLatestVersion) return;
  if (auto d = readInt(doc["dimensions"], 1, 2))
    m_graph.dimensions = *d;
  else
    problem("\"dimensions\" must be 1 or 2, got " + describeJsonValue(doc["dimensions"]),
            {"dimensions"});
}

bool GraphReader::version2Key(const std::string& key, const std::set<std::string>& onlyInV2,
                              int layer, int connection) {
  if (!onlyInV2.count(key)) return false;
  if (m_version >= kGraphFormatLatestVersion) return true;
  const std::string message = inQuotes(key) + " needs \"version\": 2";
  if (layer >= 0)
    layerProblem(layer, message, key);
  else if (connection >= 0)
    connectionProblem(connection, message, key);
  else
    problem(message, {key});
  return true;
}

std::string GraphReader::readDelay(int index, const nlohmann::json& value) {
  Connection& c = m_graph.connections[index];
  if (m_version < kGraphFormatLatestVersion) {
    const auto d = readInt(value, kIntMin, kIntMax);
    if (!d) return "\"delay\" must be an integer >= 0, got " + describeJsonValue(value);
    c.delay = *d;
    m_delayArity[index] = 1;
    if (*d < 0)
      return "delay must be >= 0, got " + std::to_string(*d) +
             " (a negative delay needs \"version\": 2)";
    return {};
  }
  if (const auto d = readInt(value, kIntMin, kIntMax)) {
    c.delay = *d;
    m_delayArity[index] = 1;
    return {};
  }
  if (value.is_array() && (value.size() == 1 || value.size() == 2)) {
    const auto x = readInt(value[0], kIntMin, kIntMax);
    const auto y = value.size() == 2 ? readInt(value[1], kIntMin, kIntMax) : std::optional<int>(0);
    if (x && y) {
      c.delay = *x;
      c.delayY = *y;
      m_delayArity[index] = static_cast<int>(value.size());
      return {};
    }
  }
  return "\"delay\" must be an integer, [d] or [dx, dy] (integers of any sign), got " +
         describeJsonValue(value);
}

std::optional<double> GraphReader::readNumber(const nlohmann::json& item, const char* key,
                                              int layer, int connection) {
  if (!item.contains(key)) return std::nullopt;
  if (item[key].is_number()) return item[key].get<double>();
  const std::string message =
      std::string("\"") + key + "\" must be a number, got " + describeJsonValue(item[key]);
  if (layer >= 0)
    layerProblem(layer, message, key);
  else
    connectionProblem(connection, message, key);
  return std::nullopt;
}

void GraphReader::readVersion2Layer(int index, const nlohmann::json& item) {
  Layer& layer = m_graph.layers[index];
  layer.biasInit = readNumber(item, "bias_init", index, -1);
  if (item.contains("bias_trainable")) {
    if (item["bias_trainable"].is_boolean())
      layer.biasTrainable = item["bias_trainable"].get<bool>();
    else
      layerProblem(index,
                   "\"bias_trainable\" must be true or false, got " +
                       describeJsonValue(item["bias_trainable"]),
                   "bias_trainable");
  }
}

void GraphReader::readVersion2Connection(int index, const nlohmann::json& item) {
  Connection& c = m_graph.connections[index];
  const bool block = c.type == ConnectionType::Block;
  if (item.contains("block")) {
    const nlohmann::json& v = item["block"];
    const auto bx = v.is_array() && v.size() == 2 ? readInt(v[0], kIntMin, kIntMax) : std::nullopt;
    const auto by = v.is_array() && v.size() == 2 ? readInt(v[1], kIntMin, kIntMax) : std::nullopt;
    if (!block)
      connectionProblem(index, "\"block\" is only allowed on a block connection", "block");
    else if (bx && by)
      c.block = {*bx, *by};
    else
      connectionProblem(
          index, "\"block\" must be [bx, by], two integers >= 1, got " + describeJsonValue(v),
          "block");
  } else if (block) {
    connectionProblem(index, "a block connection needs \"block\": [bx, by]", "type");
  }
  if (item.contains("reduce")) {
    const nlohmann::json& v = item["reduce"];
    if (auto axis = v.is_string() ? reduceAxisFromString(v.get<std::string>()) : std::nullopt)
      c.reduce = *axis;
    else
      connectionProblem(index, "unknown reduce " + describeJsonValue(v) + " (expected \"y\")",
                        "reduce");
  }
  if (item.contains("trainable")) {
    if (item["trainable"].is_boolean())
      c.trainable = item["trainable"].get<bool>();
    else
      connectionProblem(
          index, "\"trainable\" must be true or false, got " + describeJsonValue(item["trainable"]),
          "trainable");
  }
  c.init = readNumber(item, "init", -1, index);
}

// A delay must have as many components as its connection's layers have dimensions. Whether they
// have one or two follows from the connections (a reduce makes 1-D layers in a 2-D graph), so
// this is judged once the whole graph is read.
void GraphReader::checkDelayArity() {
  const GridAnalysis grids = analyzeGrids(m_graph);
  const auto index = layerIndexViewById(m_graph);
  for (int c = 0; c < static_cast<int>(m_graph.connections.size()); ++c) {
    const Connection& connection = m_graph.connections[c];
    const int arity = m_delayArity[c];
    if (arity == 0 || m_brokenConnections.count(c) || connection.reduce != ReduceAxis::None)
      continue;
    int dimensions = m_graph.dimensions;
    const auto from = index.find(connection.from);
    if (from != index.end() && grids.layers[from->second].known())
      dimensions = grids.layers[from->second].dimensions;
    if (arity == dimensions) continue;
    if (arity == 1)
      connectionProblem(c,
                        "the delay has one component, but the connection joins 2-D layers: "
                        "write [dx, dy]",
                        "delay");
    else if (m_graph.dimensions == 1)
      connectionProblem(c, "the delay has two components, but the graph is 1-D: write one",
                        "delay");
    else
      connectionProblem(c,
                        "the delay has two components, but " + inQuotes(connection.from) +
                            " is a 1-D layer (after a reduce): write one, along x",
                        "delay");
  }
}

}  // namespace rnnwb::detail
