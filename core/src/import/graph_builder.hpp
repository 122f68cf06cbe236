#pragma once
// The graph an import builds (onnx_import.hpp): layers with unique ids made from the model's
// names, connections whose weights are summed where two reach the same layer from the same
// source, and at the end the resolved Graph with its weights under the parameter keys.
#include <string>
#include <vector>

#include "import_values.hpp"
#include "rnnwb/core/graph.hpp"
#include "rnnwb/core/onnx_import.hpp"

namespace rnnwb::onnx_import {

class GraphBuilder {
 public:
  /// A new layer; `idHint` is made a valid, unique layer id (model names hold '/', '.', ':').
  int addLayer(const std::string& idHint, LayerKind kind, int size,
               Activation activation = Activation::Identity);
  const Layer& layer(int index) const { return m_layers[index]; }
  Layer& layer(int index) { return m_layers[index]; }
  int layerCount() const { return static_cast<int>(m_layers.size()); }
  /// The units of a whole layer, in order.
  std::vector<Unit> unitsOf(int layer) const;
  /// Gives an additive layer a bias (added to what it has).
  void addBias(int layer, const std::vector<float>& values);
  /// Renames a layer (before finish()): the first free id made from `idHint`.
  void renameLayer(int layer, const std::string& idHint);

  /// `weight` is [to.size, from.size], row-major; summed into an existing full connection of the
  /// same layers and delay.
  void addFull(int from, int to, int delay, const std::vector<float>& weight);
  void addDiagonal(int from, int to, int delay, const std::vector<float>& weight);
  void addIdentity(int from, int to, int delay);
  void addComplement(int from, int to, int delay);
  /// z_to = M · units, M [to.size, units.size()] row-major: a full connection per source layer.
  void connectUnits(const std::vector<Unit>& units, int to, const std::vector<float>& matrix);
  /// z_to = units: an identity connection where `units` are one whole layer of to's size in
  /// order, else selecting full connections.
  void connectSelection(const std::vector<Unit>& units, int to);

  /// The graph (connection ids as version 2's defaults) and its weights.
  OnnxImport finish(const std::string& name);

 private:
  struct Edge {
    Connection connection;
    int from = 0, to = 0;
    std::vector<float> weight;
  };
  std::string uniqueId(const std::string& hint) const;
  void add(int from, int to, int delay, ConnectionType type, const std::vector<float>& weight);

  std::vector<Layer> m_layers;
  std::vector<std::vector<float>> m_biases;  // per layer; empty: none
  std::vector<Edge> m_edges;
};

}  // namespace rnnwb::onnx_import
