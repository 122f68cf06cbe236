// GraphScene's wires made by the mouse: a drag from a port (a new connection, or a new layer
// when let go on the canvas), a selected wire's end dragged to another layer, and the wires of
// the selected layers marked. (The rest of the scene: graph_scene.cpp.)
#include <utility>

#include <QGraphicsPathItem>
#include <QUndoStack>

#include "canvas_colours.hpp"
#include "connection_item.hpp"
#include "layer_item.hpp"
#include "rnnwb/ui/graph_commands.hpp"
#include "rnnwb/ui/graph_document.hpp"
#include "rnnwb/ui/graph_scene.hpp"

namespace rnnwb::ui {

void GraphScene::beginConnectionDrag(const std::string& layerId, bool fromOutput,
                                     QPointF scenePos) {
  m_dragLayer = layerId;
  m_dragFromOutput = fromOutput;
  delete m_dragLine;
  m_dragLine =
      addPath(QPainterPath(), QPen(canvas::line(QColor(0x1e, 0x88, 0xe5)), 2, Qt::DashLine));
  m_dragLine->setZValue(5);
  updateConnectionDrag(scenePos);
}

void GraphScene::updateConnectionDrag(QPointF scenePos) {
  const auto it = m_layers.find(m_dragLayer);
  if (!m_dragLine || it == m_layers.end()) return;
  const QPointF start = m_dragFromOutput ? it->second->outPort() : it->second->inPort();
  QPainterPath path(start);
  path.lineTo(scenePos);
  m_dragLine->setPath(path);
}

void GraphScene::beginRetarget(int index, bool target, QPointF scenePos) {
  const auto& connections = m_document->graph().connections;
  if (index < 0 || index >= static_cast<int>(connections.size())) return;
  m_retarget = index;
  m_retargetTarget = target;
  // The wire hangs from the end that stays: the source's output, or the target's input.
  beginConnectionDrag(target ? connections[index].from : connections[index].to, target, scenePos);
}

bool GraphScene::retargetConnection(int index, bool target, const std::string& layerId) {
  const auto& connections = m_document->graph().connections;
  if (index < 0 || index >= static_cast<int>(connections.size())) return false;
  if (m_document->layerIndex(layerId) < 0) return false;
  const Connection& before = connections[index];
  Connection after = before;
  (target ? after.to : after.from) = layerId;
  if (after == before) return false;
  if (before.id == defaultConnectionId(before.from, before.to, before.delay))
    after.id =
        m_document->uniqueConnectionId(defaultConnectionId(after.from, after.to, after.delay));
  m_document->undoStack()->push(new EditConnectionCommand(m_document, index, after));
  selectItems({}, {index});
  return true;
}

void GraphScene::finishConnectionDrag(QPointF scenePos) {
  delete m_dragLine;
  m_dragLine = nullptr;
  const std::string target = layerAt(scenePos);
  const std::string source = m_dragLayer;
  m_dragLayer.clear();
  if (m_retarget >= 0) {
    const int index = std::exchange(m_retarget, -1);
    if (!target.empty()) retargetConnection(index, m_retargetTarget, target);
    return;
  }
  if (target.empty()) {
    // Dropped on empty canvas, away from where it started: offer a new layer there (as node
    // editors do). A short slip off the port offers nothing.
    const auto it = m_layers.find(source);
    const QPointF port = it == m_layers.end() ? scenePos
                         : m_dragFromOutput   ? it->second->outPort()
                                              : it->second->inPort();
    if (QLineF(port, scenePos).length() > 40)
      emit wireDroppedOnCanvas(source, m_dragFromOutput, scenePos);
    return;
  }
  if (m_dragFromOutput)
    connectLayers(source, target);
  else
    connectLayers(target, source);
}

bool GraphScene::connectLayers(const std::string& from, const std::string& to) {
  if (m_document->layerIndex(from) < 0 || m_document->layerIndex(to) < 0) return false;
  m_document->undoStack()->push(
      new AddConnectionCommand(m_document, makeConnection(*m_document, from, to)));
  // As node editors do: the new wire is selected, so the Properties panel shows it at once.
  selectItems({}, {static_cast<int>(m_document->graph().connections.size()) - 1});
  return true;
}

void GraphScene::markAttachedWires() {
  const std::set<std::string> selected = selectedLayerIds();
  for (ConnectionItem* wire : m_connections) {
    const Connection& c = wire->connection();
    wire->setAttached(selected.count(c.from) > 0 || selected.count(c.to) > 0);
  }
}

std::string GraphScene::layerAt(QPointF scenePos) const {
  for (const auto& [id, item] : m_layers)
    if (item->isVisible() && item->sceneBoundingRect().contains(scenePos)) return id;
  return {};
}

}  // namespace rnnwb::ui
