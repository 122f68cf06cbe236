#include "collapse_overlay.hpp"

#include <QVariantAnimation>

#include "connection_item.hpp"
#include "layer_item.hpp"
#include "recurrent_node_item.hpp"
#include "rnnwb/ui/graph_scene.hpp"

namespace rnnwb::ui {

CollapseOverlay::CollapseOverlay(GraphScene* scene)
    : m_scene(scene), m_animation(new QVariantAnimation(this)) {
  m_animation->setDuration(450);
  m_animation->setEasingCurve(QEasingCurve::InOutCubic);
  connect(m_animation, &QVariantAnimation::valueChanged, this,
          [this](const QVariant& value) { apply(value.toDouble()); });
}

CollapseOverlay::~CollapseOverlay() { clear(); }

void CollapseOverlay::clear() {
  m_animation->stop();
  for (CondensedEdgeItem* edge : m_edges) delete edge;
  m_edges.clear();
  for (Box& box : m_boxes) delete box.item;
  m_boxes.clear();
  m_boxOfNode.clear();
  m_members.clear();
}

void CollapseOverlay::rebuild(bool collapsed) {
  // Put members back home first: apply() moves them from where the document has them.
  apply(0);
  clear();
  const GraphDocument& doc = *m_scene->document();
  if (doc.analysis()) {
    const Graph& graph = doc.graph();
    const auto& nodes = doc.analysis()->nodes;
    m_boxOfNode.assign(nodes.size(), -1);
    int number = 0;
    for (std::size_t n = 0; n < nodes.size(); ++n) {
      if (!nodes[n].recurrent) continue;
      Box box{nullptr, {}, {}};
      for (int layer : nodes[n].layers) {
        box.members.push_back(graph.layers[layer].id);
        box.centre += doc.position(graph.layers[layer].id) / double(nodes[n].layers.size());
        m_members.insert(graph.layers[layer].id);
      }
      std::vector<std::string> order;
      for (int layer : nodes[n].innerOrder) order.push_back(graph.layers[layer].id);
      box.item = new RecurrentNodeItem(++number, int(n) + 1, box.members, order);
      box.item->setPos(box.centre);
      m_scene->addItem(box.item);
      m_boxOfNode[n] = static_cast<int>(m_boxes.size());
      m_boxes.push_back(box);
    }
    // The condensed DAG's edges that touch a box, one per pair of nodes.
    std::map<std::pair<int, int>, std::vector<const Connection*>> grouped;
    const auto index = layerIndexById(graph);
    for (const Connection& c : graph.connections) {
      const int from = doc.analysis()->nodeOfLayer[index.at(c.from)];
      const int to = doc.analysis()->nodeOfLayer[index.at(c.to)];
      if (from != to && (m_boxOfNode[from] >= 0 || m_boxOfNode[to] >= 0))
        grouped[{from, to}].push_back(&c);
    }
    for (const auto& [pair, connections] : grouped) {
      QGraphicsItem* from = endpointOf(pair.first);
      QGraphicsItem* to = endpointOf(pair.second);
      if (!from || !to) continue;
      auto* edge = new CondensedEdgeItem(from, to, connections);
      m_scene->addItem(edge);
      m_edges.push_back(edge);
    }
  }
  m_t = collapsed ? 1.0 : 0.0;
  apply(m_t);
}

QGraphicsItem* CollapseOverlay::endpointOf(int node) const {
  if (m_boxOfNode[node] >= 0) return m_boxes[m_boxOfNode[node]].item;
  const GraphDocument& doc = *m_scene->document();
  const std::string& id = doc.graph().layers[doc.analysis()->nodes[node].layers.front()].id;
  const auto it = m_scene->m_layers.find(id);
  return it == m_scene->m_layers.end() ? nullptr : it->second;
}

void CollapseOverlay::animateTo(bool collapsed, bool animated) {
  m_animation->stop();
  const double target = collapsed ? 1.0 : 0.0;
  if (!animated) {
    apply(target);
    return;
  }
  m_animation->setStartValue(m_t);
  m_animation->setEndValue(target);
  m_animation->start();
}

void CollapseOverlay::apply(double t) {
  m_t = t;
  const GraphDocument& doc = *m_scene->document();
  const bool wasSyncing = m_scene->m_syncing;
  m_scene->m_syncing = true;  // members fly to their box: a view effect, not a move
  for (const Box& box : m_boxes) {
    for (const std::string& id : box.members) {
      const auto it = m_scene->m_layers.find(id);
      if (it == m_scene->m_layers.end()) continue;
      const QPointF home = doc.position(id);
      it->second->setPos(home + (box.centre - home) * t);
      it->second->setOpacity(1.0 - t);
      it->second->setVisible(t < 1.0);
    }
    box.item->setOpacity(t);
    box.item->setScale(0.4 + 0.6 * t);
    box.item->setVisible(t > 0.0);
  }
  m_scene->m_syncing = wasSyncing;
  for (ConnectionItem* item : m_scene->m_connections) {
    const Connection& c = item->connection();
    if (!m_members.count(c.from) && !m_members.count(c.to)) continue;
    item->updatePath();
    item->setOpacity(1.0 - t);
    item->setVisible(t < 1.0);
  }
  for (CondensedEdgeItem* edge : m_edges) {
    edge->updatePath();
    edge->setOpacity(t);
    edge->setVisible(t > 0.0);
  }
}

void CollapseOverlay::highlight(const std::vector<int>& layers) {
  const Graph& graph = m_scene->document()->graph();
  for (const Box& box : m_boxes) {
    bool on = false;
    for (int layer : layers)
      on = on || (layer >= 0 && layer < int(graph.layers.size()) &&
                  std::count(box.members.begin(), box.members.end(), graph.layers[layer].id));
    box.item->setHighlighted(on);
  }
}

std::vector<std::vector<std::string>> CollapseOverlay::shownBoxes() const {
  std::vector<std::vector<std::string>> shown;
  for (const Box& box : m_boxes)
    if (box.item->isVisible()) shown.push_back(box.members);
  return shown;
}

}  // namespace rnnwb::ui
