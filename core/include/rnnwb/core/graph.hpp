#pragma once
// The in-memory model of a graph file (../shared/spec/graph-format.md, version 1).
//
// A Graph holds *resolved* values: the reader applies every default of the spec (connection ids,
// seeds, bias), so two files that mean the same network give equal Graphs. A Graph may be invalid
// (the editor holds one while the user draws); validateGraph() says what is wrong with it.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "rnnwb/core/layer_types.hpp"

namespace rnnwb {

inline constexpr int kGraphFormatVersion = 1;
inline constexpr std::string_view kGraphFormatName = "rnnwb.graph";

std::string_view toString(LayerKind kind);
std::string_view toString(Activation activation);
std::string_view toString(LossKind loss);  // "none" for LossKind::None
std::string_view toString(ConnectionType type);
std::optional<LayerKind> layerKindFromString(std::string_view text);
std::optional<Activation> activationFromString(std::string_view text);
std::optional<LossKind> lossFromString(std::string_view text);  // "none" is not a file value
std::optional<ConnectionType> connectionTypeFromString(std::string_view text);

struct Layer {
  std::string id;
  LayerKind kind = LayerKind::Additive;
  int size = 1;
  Activation activation = Activation::Identity;
  bool bias = true;
  LossKind loss = LossKind::None;

  bool isInput() const { return kind == LayerKind::Input; }
  bool isOutput() const { return loss != LossKind::None; }
  bool operator==(const Layer&) const = default;
};

/// The bias a layer of this kind has when the file does not say.
bool defaultBias(LayerKind kind);

struct Connection {
  std::string id;
  std::string from;
  std::string to;
  ConnectionType type = ConnectionType::Full;
  int delay = 0;
  double density = 1.0;    // full only; (0, 1]
  std::uint64_t seed = 0;  // full only; draws the mask when density < 1

  bool isSparse() const { return type == ConnectionType::Full && density < 1.0; }
  bool operator==(const Connection&) const = default;
};

/// "<from>-><to>", with "@<delay>" appended when delay > 0.
std::string defaultConnectionId(std::string_view from, std::string_view to, int delay);

struct Graph {
  std::string name;
  std::vector<Layer> layers;
  std::vector<Connection> connections;
  nlohmann::json ui = nlohmann::json::object();  // free-form editor data, kept on save

  bool operator==(const Graph&) const = default;
};

/// Index of the first layer with each id. Duplicate ids map to their first occurrence.
std::unordered_map<std::string, int> layerIndexById(const Graph& graph);
/// The same, with keys that view the graph's own strings: cheaper, valid while the graph lives
/// unchanged.
std::unordered_map<std::string_view, int> layerIndexViewById(const Graph& graph);

/// True for a non-empty string of letters, digits, '_' and '-'.
bool isValidLayerId(std::string_view id);
/// True for a non-empty string without '.' or white space.
bool isValidConnectionId(std::string_view id);

}  // namespace rnnwb
