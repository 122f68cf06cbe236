#include "rnnwb/ui/graph_fragment.hpp"

#include <map>

#include "rnnwb/core/graph_io.hpp"

namespace rnnwb::ui {

GraphFragment copyFragment(const GraphDocument& document, const std::set<std::string>& layerIds) {
  GraphFragment fragment;
  for (const Layer& layer : document.graph().layers) {
    if (!layerIds.count(layer.id)) continue;
    fragment.layers.push_back(layer);
    fragment.positions[layer.id] = document.position(layer.id);
  }
  for (const Connection& c : document.graph().connections)
    if (layerIds.count(c.from) && layerIds.count(c.to)) fragment.connections.push_back(c);
  return fragment;
}

std::string fragmentToText(const GraphFragment& fragment) {
  Graph graph;
  graph.name = "clipboard";
  graph.layers = fragment.layers;
  graph.connections = fragment.connections;
  for (const auto& [id, p] : fragment.positions) graph.ui["positions"][id] = {p.x(), p.y()};
  return serializeGraph(graph);
}

std::optional<GraphFragment> fragmentFromText(const std::string& text) {
  GraphLoadResult result = parseGraph(text);
  // A fragment is usually not a valid graph on its own (no output layer, say): only the text
  // has to be a graph file.
  if (!result.graph) return std::nullopt;
  GraphFragment fragment;
  fragment.layers = result.graph->layers;
  fragment.connections = result.graph->connections;
  const auto positions = result.graph->ui.find("positions");
  if (positions != result.graph->ui.end() && positions->is_object())
    for (const auto& [id, p] : positions->items())
      if (p.is_array() && p.size() == 2 && p[0].is_number() && p[1].is_number())
        fragment.positions[id] = QPointF(p[0].get<double>(), p[1].get<double>());
  return fragment;
}

GraphFragment prepareForInsert(const GraphDocument& document, GraphFragment fragment,
                               QPointF offset) {
  std::map<std::string, std::string> renamed;
  std::set<std::string> taken;
  for (const Layer& layer : document.graph().layers) taken.insert(layer.id);
  for (Layer& layer : fragment.layers) {
    std::string id = layer.id;
    for (int n = 2; taken.count(id); ++n) id = layer.id + std::to_string(n);
    taken.insert(id);
    renamed[layer.id] = id;
    layer.id = id;
  }
  std::set<std::string> connectionIds;
  for (const Connection& c : document.graph().connections) connectionIds.insert(c.id);
  for (Connection& c : fragment.connections) {
    const bool defaultId = c.id == defaultConnectionId(c.from, c.to, c.delay);
    if (renamed.count(c.from)) c.from = renamed[c.from];
    if (renamed.count(c.to)) c.to = renamed[c.to];
    std::string id = defaultId ? defaultConnectionId(c.from, c.to, c.delay) : c.id;
    const std::string base = id;
    for (int n = 2; connectionIds.count(id); ++n) id = base + "#" + std::to_string(n);
    connectionIds.insert(id);
    c.id = id;
  }
  PositionMap positions;
  for (const auto& [id, p] : fragment.positions)
    if (renamed.count(id)) positions[renamed[id]] = p + offset;
  fragment.positions = positions;
  return fragment;
}

}  // namespace rnnwb::ui
