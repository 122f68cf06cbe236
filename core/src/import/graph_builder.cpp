// The graph of an import (graph_builder.hpp).
#include "graph_builder.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <stdexcept>

namespace rnnwb::onnx_import {

int GraphBuilder::addLayer(const std::string& idHint, LayerKind kind, int size,
                           Activation activation) {
  Layer l;
  l.id = uniqueId(idHint);
  l.kind = kind;
  l.size = size;
  l.activation = activation;
  l.bias = false;
  m_layers.push_back(l);
  m_biases.emplace_back();
  return layerCount() - 1;
}

std::string GraphBuilder::uniqueId(const std::string& hint) const {
  std::string base;
  for (char c : hint) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
    if (ok)
      base += c;
    else if (!base.empty() && base.back() != '_')
      base += '_';
  }
  while (!base.empty() && base.back() == '_') base.pop_back();
  if (base.empty()) base = "layer";
  auto taken = [&](const std::string& id) {
    return std::any_of(m_layers.begin(), m_layers.end(),
                       [&](const Layer& l) { return l.id == id; });
  };
  std::string id = base;
  for (int n = 2; taken(id); ++n) id = base + "_" + std::to_string(n);
  return id;
}

void GraphBuilder::renameLayer(int layer, const std::string& idHint) {
  m_layers[layer].id.clear();
  m_layers[layer].id = uniqueId(idHint);
}

std::vector<Unit> GraphBuilder::unitsOf(int layer) const {
  std::vector<Unit> units;
  for (int i = 0; i < m_layers[layer].size; ++i) units.push_back({layer, i});
  return units;
}

void GraphBuilder::addBias(int layer, const std::vector<float>& values) {
  std::vector<float>& bias = m_biases[layer];
  if (bias.empty()) bias.assign(values.size(), 0.0f);
  for (std::size_t i = 0; i < values.size(); ++i) bias[i] += values[i];
  m_layers[layer].bias = true;
}

void GraphBuilder::add(int from, int to, int delay, ConnectionType type,
                       const std::vector<float>& weight) {
  for (Edge& e : m_edges) {
    if (e.from != from || e.to != to || e.connection.delay != delay) continue;
    if (type != ConnectionType::Full || e.connection.type != ConnectionType::Full)
      throw std::invalid_argument("two connections from '" + m_layers[from].id + "' to '" +
                                  m_layers[to].id + "' with delay " + std::to_string(delay));
    for (std::size_t i = 0; i < weight.size(); ++i) e.weight[i] += weight[i];
    return;
  }
  Edge e;
  e.from = from;
  e.to = to;
  e.connection.type = type;
  e.connection.delay = delay;
  e.weight = weight;
  m_edges.push_back(std::move(e));
}

void GraphBuilder::addFull(int from, int to, int delay, const std::vector<float>& weight) {
  add(from, to, delay, ConnectionType::Full, weight);
}
void GraphBuilder::addDiagonal(int from, int to, int delay, const std::vector<float>& weight) {
  add(from, to, delay, ConnectionType::Diagonal, weight);
}
void GraphBuilder::addIdentity(int from, int to, int delay) {
  add(from, to, delay, ConnectionType::Identity, {});
}
void GraphBuilder::addComplement(int from, int to, int delay) {
  add(from, to, delay, ConnectionType::Complement, {});
}

void GraphBuilder::connectUnits(const std::vector<Unit>& units, int to,
                                const std::vector<float>& matrix) {
  const int rows = m_layers[to].size, columns = static_cast<int>(units.size());
  std::vector<int> sources;
  for (const Unit& u : units)
    if (std::find(sources.begin(), sources.end(), u.layer) == sources.end())
      sources.push_back(u.layer);
  for (int source : sources) {
    const int width = m_layers[source].size;
    std::vector<float> weight(static_cast<std::size_t>(rows) * width, 0.0f);
    for (int j = 0; j < columns; ++j) {
      if (units[j].layer != source) continue;
      for (int r = 0; r < rows; ++r)
        weight[static_cast<std::size_t>(r) * width + units[j].index] +=
            matrix[static_cast<std::size_t>(r) * columns + j];
    }
    addFull(source, to, 0, weight);
  }
}

void GraphBuilder::connectSelection(const std::vector<Unit>& units, int to) {
  if (!units.empty() && units == unitsOf(units.front().layer) &&
      m_layers[to].size == static_cast<int>(units.size())) {
    addIdentity(units.front().layer, to, 0);
    return;
  }
  const std::size_t n = units.size();
  std::vector<float> matrix(n * n, 0.0f);
  for (std::size_t i = 0; i < n; ++i) matrix[i * n + i] = 1.0f;
  connectUnits(units, to, matrix);
}

OnnxImport GraphBuilder::finish(const std::string& name) {
  OnnxImport result;
  result.graph.name = name;
  result.graph.layers = m_layers;
  for (std::size_t l = 0; l < m_layers.size(); ++l)
    if (m_layers[l].bias)
      result.weights["layers." + m_layers[l].id + ".bias"] =
          Tensor::fromF32({m_layers[l].size}, m_biases[l]);
  for (Edge& e : m_edges) {
    Connection& c = e.connection;
    c.from = m_layers[e.from].id;
    c.to = m_layers[e.to].id;
    const std::array<int, 1> delay{c.delay};
    c.id = defaultConnectionId(c.from, c.to, delay);
    c.seed = result.graph.connections.size();
    if (c.type == ConnectionType::Full)
      result.weights["connections." + c.id + ".weight"] =
          Tensor::fromF32({m_layers[e.to].size, m_layers[e.from].size}, e.weight);
    if (c.type == ConnectionType::Diagonal)
      result.weights["connections." + c.id + ".weight"] =
          Tensor::fromF32({m_layers[e.to].size}, e.weight);
    result.graph.connections.push_back(c);
  }
  return result;
}

}  // namespace rnnwb::onnx_import
