#include "rnnwb/ui/graph_commands.hpp"

#include <algorithm>

namespace rnnwb::ui {
namespace {

QString q(const std::string& text) { return QString::fromStdString(text); }

bool hasDefaultId(const Connection& c) {
  return c.id == defaultConnectionId(c.from, c.to, c.delay);
}

}  // namespace

Connection makeConnection(const GraphDocument& document, const std::string& from,
                          const std::string& to) {
  Connection c;
  c.from = from;
  c.to = to;
  c.id = document.uniqueConnectionId(defaultConnectionId(from, to, 0));
  c.seed = document.graph().connections.size();
  return c;
}

Layer makeLayer(const GraphDocument& document, LayerKind kind, bool output) {
  Layer layer;
  layer.kind = kind;
  layer.size = 32;
  layer.bias = defaultBias(kind);
  std::string base = kind == LayerKind::Input ? "x" : kind == LayerKind::Additive ? "h" : "m";
  if (output) {
    base = "y";
    layer.activation = Activation::Softmax;
    layer.loss = LossKind::CrossEntropy;
  }
  layer.id = document.uniqueLayerId(base);
  return layer;
}

AddLayerCommand::AddLayerCommand(GraphDocument* document, Layer layer, QPointF position)
    : m_document(document),
      m_layer(std::move(layer)),
      m_position(position),
      m_index(static_cast<int>(document->graph().layers.size())) {
  setText(QStringLiteral("Add layer %1").arg(q(m_layer.id)));
}

void AddLayerCommand::redo() { m_document->insertLayer(m_index, m_layer, m_position); }
void AddLayerCommand::undo() { m_document->removeLayer(m_index); }

AddConnectionCommand::AddConnectionCommand(GraphDocument* document, Connection connection)
    : m_document(document),
      m_connection(std::move(connection)),
      m_index(static_cast<int>(document->graph().connections.size())) {
  setText(QStringLiteral("Connect %1 to %2").arg(q(m_connection.from), q(m_connection.to)));
}

void AddConnectionCommand::redo() { m_document->insertConnection(m_index, m_connection); }
void AddConnectionCommand::undo() { m_document->removeConnection(m_index); }

RemoveItemsCommand::RemoveItemsCommand(GraphDocument* document,
                                       const std::set<std::string>& layerIds,
                                       const std::set<int>& connectionIndices)
    : m_document(document) {
  const Graph& graph = document->graph();
  for (int i = 0; i < static_cast<int>(graph.layers.size()); ++i) {
    const Layer& layer = graph.layers[i];
    if (!layerIds.count(layer.id)) continue;
    std::optional<QPointF> position;
    if (document->hasPosition(layer.id)) position = document->position(layer.id);
    m_layers.push_back({i, layer, position});
  }
  for (int i = 0; i < static_cast<int>(graph.connections.size()); ++i) {
    const Connection& c = graph.connections[i];
    if (connectionIndices.count(i) || layerIds.count(c.from) || layerIds.count(c.to))
      m_connections.emplace_back(i, c);
  }
  setText(m_layers.empty() ? QStringLiteral("Delete %1 connection(s)").arg(m_connections.size())
                           : QStringLiteral("Delete %1 layer(s)").arg(m_layers.size()));
}

void RemoveItemsCommand::redo() {
  GraphDocument::EditScope scope(*m_document);
  for (auto it = m_connections.rbegin(); it != m_connections.rend(); ++it)
    m_document->removeConnection(it->first);
  for (auto it = m_layers.rbegin(); it != m_layers.rend(); ++it) m_document->removeLayer(it->index);
}

void RemoveItemsCommand::undo() {
  GraphDocument::EditScope scope(*m_document);
  for (const RemovedLayer& removed : m_layers)
    m_document->insertLayer(removed.index, removed.layer, removed.position);
  for (const auto& [index, connection] : m_connections)
    m_document->insertConnection(index, connection);
}

EditLayerCommand::EditLayerCommand(GraphDocument* document, int index, Layer layer)
    : m_document(document),
      m_index(index),
      m_before(document->graph().layers.at(index)),
      m_after(std::move(layer)),
      m_connectionsBefore(document->graph().connections),
      m_connectionsAfter(m_connectionsBefore) {
  if (m_after.id != m_before.id) {
    for (Connection& c : m_connectionsAfter) {
      const bool defaultId = hasDefaultId(c);
      if (c.from == m_before.id) c.from = m_after.id;
      if (c.to == m_before.id) c.to = m_after.id;
      if (defaultId) c.id = defaultConnectionId(c.from, c.to, c.delay);
    }
  }
  setText(QStringLiteral("Edit layer %1").arg(q(m_after.id)));
}

void EditLayerCommand::redo() {
  GraphDocument::EditScope scope(*m_document);
  m_document->replaceLayer(m_index, m_after);
  m_document->renamePosition(m_before.id, m_after.id);
  if (m_after.id != m_before.id) m_document->setConnections(m_connectionsAfter);
}

void EditLayerCommand::undo() {
  GraphDocument::EditScope scope(*m_document);
  m_document->replaceLayer(m_index, m_before);
  m_document->renamePosition(m_after.id, m_before.id);
  if (m_after.id != m_before.id) m_document->setConnections(m_connectionsBefore);
}

EditConnectionCommand::EditConnectionCommand(GraphDocument* document, int index,
                                             Connection connection)
    : m_document(document),
      m_index(index),
      m_before(document->graph().connections.at(index)),
      m_after(std::move(connection)) {
  if (hasDefaultId(m_before) && m_after.id == m_before.id)
    m_after.id = defaultConnectionId(m_after.from, m_after.to, m_after.delay);
  setText(QStringLiteral("Edit connection %1").arg(q(m_after.id)));
}

void EditConnectionCommand::redo() { m_document->replaceConnection(m_index, m_after); }
void EditConnectionCommand::undo() { m_document->replaceConnection(m_index, m_before); }

MoveLayersCommand::MoveLayersCommand(GraphDocument* document, PositionMap before, PositionMap after,
                                     int dragId, const QString& text)
    : m_document(document),
      m_before(std::move(before)),
      m_after(std::move(after)),
      m_dragId(dragId) {
  setText(text);
}

void MoveLayersCommand::redo() { m_document->setPositions(m_after); }
void MoveLayersCommand::undo() { m_document->setPositions(m_before); }

bool MoveLayersCommand::mergeWith(const QUndoCommand* other) {
  const auto* move = static_cast<const MoveLayersCommand*>(other);
  if (m_dragId < 0 || move->m_dragId != m_dragId) return false;
  for (const auto& [id, p] : move->m_after) {
    m_after[id] = p;
    if (!m_before.count(id)) m_before[id] = move->m_before.at(id);
  }
  return true;
}

InsertFragmentCommand::InsertFragmentCommand(GraphDocument* document, GraphFragment fragment,
                                             const QString& text)
    : m_document(document),
      m_fragment(std::move(fragment)),
      m_firstLayer(static_cast<int>(document->graph().layers.size())),
      m_firstConnection(static_cast<int>(document->graph().connections.size())) {
  // A dense connection gets the spec's default seed (its new index), so the file stays plain; a
  // sparse one keeps its seed and with it its mask.
  int index = m_firstConnection;
  for (Connection& c : m_fragment.connections)
    if (!c.isSparse())
      c.seed = index++;
    else
      ++index;
  setText(text);
}

void InsertFragmentCommand::redo() {
  GraphDocument::EditScope scope(*m_document);
  int index = m_firstLayer;
  for (const Layer& layer : m_fragment.layers) {
    std::optional<QPointF> position;
    if (m_fragment.positions.count(layer.id)) position = m_fragment.positions.at(layer.id);
    m_document->insertLayer(index++, layer, position);
  }
  index = m_firstConnection;
  for (const Connection& c : m_fragment.connections) m_document->insertConnection(index++, c);
}

void InsertFragmentCommand::undo() {
  GraphDocument::EditScope scope(*m_document);
  for (int i = static_cast<int>(m_fragment.connections.size()) - 1; i >= 0; --i)
    m_document->removeConnection(m_firstConnection + i);
  for (int i = static_cast<int>(m_fragment.layers.size()) - 1; i >= 0; --i)
    m_document->removeLayer(m_firstLayer + i);
}

RenameGraphCommand::RenameGraphCommand(GraphDocument* document, std::string name)
    : m_document(document), m_before(document->graph().name), m_after(std::move(name)) {
  setText(QStringLiteral("Rename graph"));
}

void RenameGraphCommand::redo() { m_document->setName(m_after); }
void RenameGraphCommand::undo() { m_document->setName(m_before); }

SetDimensionsCommand::SetDimensionsCommand(GraphDocument* document, int dimensions)
    : m_document(document), m_before(document->graph().dimensions), m_after(dimensions) {
  setText(dimensions == 2 ? QStringLiteral("Make the graph 2-D")
                          : QStringLiteral("Make the graph 1-D"));
}

void SetDimensionsCommand::redo() { m_document->setDimensions(m_after); }
void SetDimensionsCommand::undo() { m_document->setDimensions(m_before); }

SetFramesCommand::SetFramesCommand(GraphDocument* document, std::vector<LayerFrame> before,
                                   std::vector<LayerFrame> after, const QString& text)
    : QUndoCommand(text),
      m_document(document),
      m_before(std::move(before)),
      m_after(std::move(after)) {}

void SetFramesCommand::redo() { m_document->setFrames(m_after); }
void SetFramesCommand::undo() { m_document->setFrames(m_before); }

}  // namespace rnnwb::ui
