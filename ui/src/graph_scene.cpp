#include "rnnwb/ui/graph_scene.hpp"

#include <cmath>

#include <QApplication>
#include <QGraphicsPathItem>
#include <QGraphicsSceneMouseEvent>
#include <QPainter>
#include <QStyleOptionGraphicsItem>
#include <QUndoStack>

#include "canvas_colours.hpp"
#include "collapse_overlay.hpp"
#include "connection_item.hpp"
#include "edge_routing.hpp"
#include "frame_overlay.hpp"
#include "layer_item.hpp"
#include "recurrent_node_item.hpp"
#include "rnnwb/ui/graph_commands.hpp"

namespace rnnwb::ui {

GraphScene::GraphScene(GraphDocument* document, QObject* parent)
    : QGraphicsScene(parent),
      m_document(document),
      m_overlay(std::make_unique<CollapseOverlay>(this)) {
  connect(document, &GraphDocument::replaced, this, [this] {
    clearSelection();
    m_layerOrder.clear();
    m_connectionCount = 0;
  });
  connect(document, &GraphDocument::structureChanged, this, &GraphScene::syncStructure);
  connect(document, &GraphDocument::positionsChanged, this, &GraphScene::syncPositions);
  connect(document, &GraphDocument::problemsChanged, this, &GraphScene::syncProblems);
  connect(this, &QGraphicsScene::selectionChanged, this, &GraphScene::selectedIdsChanged);
  connect(this, &GraphScene::selectedIdsChanged, this, &GraphScene::markAttachedWires);
  syncStructure();
  syncProblems();
  m_frames = new FrameOverlay(this);  // after the scene's own slots: it fits around synced boxes
  refreshFolding();                   // a file saved with a collapsed frame
}

GraphScene::~GraphScene() {
  // Deleting selected items emits selectionChanged; nobody may look at a half-destroyed scene.
  blockSignals(true);
  delete m_frames;
  m_overlay.reset();
  // Connections point at layer items: they go first.
  for (ConnectionItem* item : m_connections) delete item;
  m_connections.clear();
  for (auto& [id, item] : m_layers) delete item;
  m_layers.clear();
}

std::vector<std::string> GraphScene::layerIds() const {
  std::vector<std::string> ids;
  for (const auto& [id, item] : m_layers) ids.push_back(id);
  return ids;
}

QRectF GraphScene::layerBox(const std::string& id) const {
  const auto it = m_layers.find(id);
  return it == m_layers.end() ? QRectF() : it->second->boxRect().translated(it->second->pos());
}

bool GraphScene::isLayerShown(const std::string& id) const {
  const auto it = m_layers.find(id);
  return it != m_layers.end() && it->second->isVisible();
}

bool GraphScene::isConnectionShown(int index) const {
  for (const ConnectionItem* item : m_connections)
    if (item->connectionIndex() == index) return item->isVisible();
  return false;
}

void GraphScene::syncStructure() {
  QSignalBlocker blocker(this);  // one selectionChanged at the end, not one per item
  // What was selected, by id and by index: an edit in place (same counts) keeps the selection
  // by index, so a renamed layer or a connection whose default id changed stays selected.
  const Graph& graph = m_document->graph();
  const std::set<std::string> selectedLayers = selectedLayerIds();
  std::set<int> selectedLayerIndices;
  for (int i = 0; i < static_cast<int>(m_layerOrder.size()); ++i)
    if (selectedLayers.count(m_layerOrder[i])) selectedLayerIndices.insert(i);
  const bool sameLayers = m_layerOrder.size() == graph.layers.size();
  const bool sameConnections = m_connectionCount == graph.connections.size();
  std::set<std::string> selectedConnectionIds;
  std::set<int> selectedConnectionIndices;
  for (const ConnectionItem* item : m_connections) {
    if (!item->isSelected()) continue;
    selectedConnectionIds.insert(item->connection().id);
    selectedConnectionIndices.insert(item->connectionIndex());
  }
  m_overlay->clear();
  for (ConnectionItem* item : m_connections) delete item;
  m_connections.clear();

  // Layer items are updated in place, not recreated: one may be handling a mouse event.
  std::set<std::string> alive;
  m_syncing = true;
  m_layerOrder.clear();
  for (int i = 0; i < static_cast<int>(graph.layers.size()); ++i) {
    const Layer& layer = graph.layers[i];
    m_layerOrder.push_back(layer.id);
    if (!alive.insert(layer.id).second) continue;  // a duplicate id: the problems panel says so
    LayerItem*& item = m_layers[layer.id];
    if (!item) {
      item = new LayerItem(this, layer);
      addItem(item);
    }
    item->setLayer(layer);
    const auto heat = m_heat.find(layer.id);
    item->setHeat(heat == m_heat.end() ? std::nullopt : std::optional<double>(heat->second));
    item->setPos(m_document->position(layer.id));
    item->setOpacity(1.0);  // the overlay folds members away again if it must
    item->setVisible(true);
    item->setSelected(sameLayers ? selectedLayerIndices.count(i) > 0
                                 : selectedLayers.count(layer.id) > 0);
  }
  for (auto it = m_layers.begin(); it != m_layers.end();) {
    if (alive.count(it->first)) {
      ++it;
      continue;
    }
    delete it->second;
    it = m_layers.erase(it);
  }
  m_syncing = false;
  rebuildConnections();
  m_connectionCount = graph.connections.size();
  for (ConnectionItem* item : m_connections)
    item->setSelected(sameConnections ? selectedConnectionIndices.count(item->connectionIndex()) > 0
                                      : selectedConnectionIds.count(item->connection().id) > 0);
  m_overlay->rebuild(m_collapsed);
  syncProblems();
  blocker.unblock();
  emit selectedIdsChanged();
}

void GraphScene::rebuildConnections() {
  const Graph& graph = m_document->graph();
  std::map<std::pair<std::string, std::string>, int> lanes;
  for (int i = 0; i < static_cast<int>(graph.connections.size()); ++i) {
    const Connection& c = graph.connections[i];
    // A connection naming a missing layer is drawn too, so that it can be selected and fixed.
    const auto from = m_layers.find(c.from), to = m_layers.find(c.to);
    auto* item =
        new ConnectionItem(i, c, from == m_layers.end() ? nullptr : from->second,
                           to == m_layers.end() ? nullptr : to->second, graph.dimensions == 2);
    addItem(item);
    // Parallel connections (either direction between the same two layers) get their own lane.
    const auto key = std::minmax(c.from, c.to);
    item->setLane(lanes[{key.first, key.second}]++);
    m_connections.push_back(item);
  }
  nestLoops();
  markAttachedWires();
}

void GraphScene::nestLoops() {
  std::vector<ConnectionItem*> loops;
  std::vector<std::pair<double, double>> spans;
  std::pair<double, double> span;
  for (ConnectionItem* item : m_connections)
    if (item->isBackward(&span)) {
      loops.push_back(item);
      spans.push_back(span);
    }
  const std::vector<int> lanes = nestedLanes(spans);
  for (std::size_t i = 0; i < loops.size(); ++i) loops[i]->setLoopLane(lanes[i]);
}

void GraphScene::syncPositions(const QStringList& ids) {
  m_syncing = true;
  for (const QString& id : ids) {
    const auto it = m_layers.find(id.toStdString());
    if (it == m_layers.end()) continue;
    const QPointF p = m_document->position(it->first);
    if (it->second->pos() != p) it->second->setPos(p);
    updateConnectionsOf(it->first);
  }
  nestLoops();  // moved layers may have turned loops or changed their spans
  m_syncing = false;
  m_overlay->rebuild(m_collapsed);
}

void GraphScene::updateConnectionsOf(const std::string& layerId) {
  for (ConnectionItem* item : m_connections)
    if (item->joins(layerId)) item->updatePath();
}

void GraphScene::syncProblems() {
  const std::set<std::string> layers = problemLayers();
  const std::set<int> connections = problemConnections();
  for (const auto& [id, item] : m_layers) item->setProblem(layers.count(id) > 0);
  for (ConnectionItem* item : m_connections)
    item->setProblem(connections.count(item->connectionIndex()) > 0);
}

std::set<std::string> GraphScene::problemLayers() const {
  std::set<std::string> ids;
  const Graph& graph = m_document->graph();
  for (const Diagnostic& d : m_document->problems())
    for (int layer : d.layers)
      if (layer >= 0 && layer < static_cast<int>(graph.layers.size()))
        ids.insert(graph.layers[layer].id);
  return ids;
}

std::set<int> GraphScene::problemConnections() const {
  std::set<int> indices;
  for (const Diagnostic& d : m_document->problems())
    indices.insert(d.connections.begin(), d.connections.end());
  return indices;
}

std::set<std::string> GraphScene::selectedLayerIds() const {
  std::set<std::string> ids;
  for (const auto& [id, item] : m_layers)
    if (item->isSelected()) ids.insert(id);
  return ids;
}

std::set<int> GraphScene::selectedConnections() const {
  std::set<int> indices;
  for (const ConnectionItem* item : m_connections)
    if (item->isSelected()) indices.insert(item->connectionIndex());
  return indices;
}

void GraphScene::selectItems(const std::vector<int>& layers, const std::vector<int>& connections) {
  QSignalBlocker blocker(this);
  clearSelection();
  const Graph& graph = m_document->graph();
  for (int layer : layers) {
    if (layer < 0 || layer >= static_cast<int>(graph.layers.size())) continue;
    const auto it = m_layers.find(graph.layers[layer].id);
    if (it != m_layers.end()) it->second->setSelected(true);
  }
  for (ConnectionItem* item : m_connections)
    if (std::count(connections.begin(), connections.end(), item->connectionIndex()))
      item->setSelected(true);
  blocker.unblock();
  emit selectedIdsChanged();
}

void GraphScene::setLayerHeat(const std::map<std::string, double>& heat) {
  m_heat = heat;
  for (const auto& [id, item] : m_layers) {
    const auto found = m_heat.find(id);
    item->setHeat(found == m_heat.end() ? std::nullopt : std::optional<double>(found->second));
  }
}

std::optional<double> GraphScene::layerHeat(const std::string& id) const {
  const auto item = m_layers.find(id);
  return item == m_layers.end() ? std::nullopt : item->second->heat();
}

void GraphScene::highlightLayers(const std::vector<int>& layers) {
  const Graph& graph = m_document->graph();
  std::set<std::string> ids;
  for (int layer : layers)
    if (layer >= 0 && layer < static_cast<int>(graph.layers.size()))
      ids.insert(graph.layers[layer].id);
  for (const auto& [id, item] : m_layers) item->setHighlighted(ids.count(id) > 0);
  m_overlay->highlight(layers);
}

void GraphScene::setCollapsed(bool collapsed, bool animated) {
  if (collapsed == m_collapsed) return;
  m_collapsed = collapsed;
  m_overlay->animateTo(collapsed, animated);
  emit collapsedChanged(collapsed);
}

bool GraphScene::toggleRecurrentNode(const std::string& memberId) {
  return m_overlay->toggleNodeOf(memberId, m_collapsed);
}

void GraphScene::refreshFolding() { m_overlay->rebuild(m_collapsed); }

std::vector<std::vector<std::string>> GraphScene::recurrentNodeBoxes() const {
  return m_overlay->shownBoxes();
}

void GraphScene::mousePressEvent(QGraphicsSceneMouseEvent* event) {
  ++m_dragId;  // every press starts a new drag: its moves merge into one undo step
  QGraphicsScene::mousePressEvent(event);
}

void GraphScene::mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event) {
  // A recurrent node's box or frame on top: fold or unfold that node alone. (Handled here: an
  // item that did not take the first press would get the double-click as a press.)
  for (QGraphicsItem* item : items(event->scenePos())) {
    if (!item->isVisible()) continue;
    std::string member;
    if (item->type() == RecurrentNodeItem::Type)
      member = static_cast<RecurrentNodeItem*>(item)->firstMember();
    else if (item->type() == RecurrentFrameItem::Type)
      member = static_cast<RecurrentFrameItem*>(item)->firstMember();
    else
      break;  // a box or an arrow is on top
    toggleRecurrentNode(member);
    event->accept();
    return;
  }
  QGraphicsScene::mouseDoubleClickEvent(event);
}

void GraphScene::setSnapToGrid(bool snap) {
  m_snapToGrid = snap;
  update();  // the grid's dots come and go
}

QPointF GraphScene::snapped(QPointF position) const {
  // Only the user's drags snap: positions the document holds (a file's, a template's) stay.
  if (!m_snapToGrid || m_syncing) return position;
  return {std::round(position.x() / kGrid) * kGrid, std::round(position.y() / kGrid) * kGrid};
}

void GraphScene::drawBackground(QPainter* painter, const QRectF& rect) {
  // The palette's Base, read at each paint: a dark theme (or a change of theme) shows at once.
  painter->fillRect(rect, canvas::background());
  // The grid, on screen only (not in exported pictures), and only where its dots are apart.
  if (!m_snapToGrid || !dynamic_cast<QWidget*>(painter->device())) return;
  if (QStyleOptionGraphicsItem::levelOfDetailFromTransform(painter->worldTransform()) < 0.5) return;
  QColor dot = QApplication::palette().color(QPalette::Text);
  dot.setAlpha(45);
  painter->setPen(QPen(dot, 0));
  QVector<QPointF> dots;
  for (double x = std::floor(rect.left() / kGrid) * kGrid; x < rect.right(); x += kGrid)
    for (double y = std::floor(rect.top() / kGrid) * kGrid; y < rect.bottom(); y += kGrid)
      dots.append(QPointF(x, y));
  painter->drawPoints(dots.data(), int(dots.size()));
}

void GraphScene::layerItemMoved(LayerItem* item) {
  if (m_syncing) return;
  const std::string& id = item->layerId();
  const PositionMap before{{id, m_document->position(id)}};
  // The compact collapsed view draws layers away from their document positions: the document
  // position moves by what the layer moved on screen.
  const QPointF shown = m_overlay->shownPosition(before.at(id));
  const PositionMap after{{id, before.at(id) + (item->pos() - shown)}};
  updateConnectionsOf(id);
  if (before.at(id).toPoint() == after.at(id).toPoint()) return;
  m_document->undoStack()->push(new MoveLayersCommand(m_document, before, after, m_dragId));
}

}  // namespace rnnwb::ui
