#pragma once
// The in-memory model of a graph file (../shared/spec/graph-format.md, version 1, and
// graph-format-v2.md, version 2: one model holds both; the writer picks the version).
//
// A Graph holds *resolved* values: the reader applies every default of the spec (connection ids,
// seeds, bias), so two files that mean the same network give equal Graphs. A Graph may be invalid
// (the editor holds one while the user draws); validateGraph() says what is wrong with it.
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "rnnwb/core/layer_types.hpp"

namespace rnnwb {

/// The version of a graph that uses nothing of version 2 (what older builds read).
inline constexpr int kGraphFormatVersion = 1;
/// The newest version this program reads and writes.
inline constexpr int kGraphFormatLatestVersion = 2;
inline constexpr std::string_view kGraphFormatName = "rnnwb.graph";

std::string_view toString(LayerKind kind);
std::string_view toString(Activation activation);
std::string_view toString(LossKind loss);  // "none" for LossKind::None
std::string_view toString(ConnectionType type);
std::string_view toString(ReduceAxis axis);  // "none" for ReduceAxis::None
std::optional<LayerKind> layerKindFromString(std::string_view text);
std::optional<Activation> activationFromString(std::string_view text);
std::optional<LossKind> lossFromString(std::string_view text);  // "none" is not a file value
std::optional<ConnectionType> connectionTypeFromString(std::string_view text);
std::optional<ReduceAxis> reduceAxisFromString(
    std::string_view text);  // "none" is not a file value

struct Layer {
  std::string id;
  LayerKind kind = LayerKind::Additive;
  int size = 1;
  Activation activation = Activation::Identity;
  bool bias = true;
  LossKind loss = LossKind::None;
  std::optional<double> biasInit =
      std::nullopt;           // version 2: the bias's starting value (only with a bias)
  bool biasTrainable = true;  // version 2: false keeps the bias fixed (only with a bias)

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
  int delay = 0;  // the delay of a 1-D connection; dx (along the width) of a 2-D one. Any sign
                  // in version 2; version 1 files hold delays >= 0 only.
  double density = 1.0;    // full only; (0, 1]
  std::uint64_t seed = 0;  // full only; draws the mask when density < 1
  // Version 2 fields come after version 1's, so that positional initialisers still work.
  int delayY = 0;                     // dy (along the height) of a 2-D connection; 0 in a 1-D one
  std::array<int, 2> block = {0, 0};  // block connections: [bx, by], each >= 1; else {0, 0}
  ReduceAxis reduce = ReduceAxis::None;       // Y: sums a 2-D source over its rows into a 1-D layer
  bool trainable = true;                      // false: the weight keeps its value (version 2)
  std::optional<double> init = std::nullopt;  // every weight starts at this value (version 2)

  bool isSparse() const { return type == ConnectionType::Full && density < 1.0; }
  /// Some component of the delay is not 0.
  bool isDelayed() const { return delay != 0 || delayY != 0; }
  /// full, diagonal and block connections have a weight; identity and complement have none.
  bool hasWeight() const;
  bool operator==(const Connection&) const = default;
};

/// "<from>-><to>", with "@<delay>" appended when delay is not 0 (version 1: when it is > 0).
std::string defaultConnectionId(std::string_view from, std::string_view to, int delay);
/// Version 2: "<from>-><to>", with "@" and the delay's components joined by commas appended when
/// one is not 0 ("h->h@1,0" for a 2-D delay, "h->h@-1" for a 1-D one).
std::string defaultConnectionId(std::string_view from, std::string_view to,
                                std::span<const int> delay);

struct Graph {
  std::string name;
  int dimensions = 1;  // version 2: 1 (positions are frames) or 2 (positions are (x, y))
  std::vector<Layer> layers;
  std::vector<Connection> connections;
  nlohmann::json ui = nlohmann::json::object();  // free-form editor data, kept on save

  bool operator==(const Graph&) const = default;
};

/// True when the graph uses something of version 2 (graph-format-v2.md): the writer then writes
/// version 2, and version 1 otherwise.
bool usesVersion2(const Graph& graph);

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
