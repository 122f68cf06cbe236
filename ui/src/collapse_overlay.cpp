#include "collapse_overlay.hpp"

#include <algorithm>

#include <QVariantAnimation>

#include "connection_item.hpp"
#include "frame_item.hpp"
#include "frame_overlay.hpp"
#include "layer_item.hpp"
#include "recurrent_node_item.hpp"
#include "rnnwb/ui/free_placement.hpp"
#include "rnnwb/ui/graph_scene.hpp"

namespace rnnwb::ui {

CollapseOverlay::CollapseOverlay(GraphScene* scene)
    : m_scene(scene), m_animation(new QVariantAnimation(this)) {
  m_animation->setDuration(450);
  m_animation->setEasingCurve(QEasingCurve::InOutCubic);
  m_animation->setStartValue(0.0);
  m_animation->setEndValue(1.0);
  connect(m_animation, &QVariantAnimation::valueChanged, this,
          [this](const QVariant& value) { apply(value.toDouble()); });
  // Unfolded, the wires of a collapsed frame end at its box again, not at the node's.
  connect(m_animation, &QVariantAnimation::finished, this, &CollapseOverlay::settle);
}

CollapseOverlay::~CollapseOverlay() { clear(); }

void CollapseOverlay::clear() {
  m_animation->stop();
  for (CondensedEdgeItem* edge : m_edges) delete edge;
  m_edges.clear();
  for (Box& box : m_boxes) {
    delete box.item;
    delete box.frame;
  }
  m_boxes.clear();
  m_boxOfNode.clear();
  m_squeezes.clear();
  m_compactness = 0;
}

void CollapseOverlay::rebuild(bool collapsed) {
  // Put members back home first: apply() moves them from where the document has them.
  for (Box& box : m_boxes) box.target = 0;
  apply(1.0);
  clear();
  const GraphDocument& doc = *m_scene->document();
  if (!doc.analysis()) return;
  const Graph& graph = doc.graph();
  const auto& nodes = doc.analysis()->nodes;
  m_boxOfNode.assign(nodes.size(), -1);
  int number = 0;
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    if (!nodes[n].recurrent) continue;
    Box box{nullptr, nullptr, {}, {}};
    for (int layer : nodes[n].layers) {
      box.members.push_back(graph.layers[layer].id);
      box.centre += doc.position(graph.layers[layer].id) / double(nodes[n].layers.size());
    }
    std::vector<std::string> order;
    for (int layer : nodes[n].innerOrder) order.push_back(graph.layers[layer].id);
    ++number;
    box.item = new RecurrentNodeItem(number, int(n) + 1, box.members, order, nodes[n].scan);
    box.item->setPos(box.centre);
    box.frame = new RecurrentFrameItem(number, box.members.front(),
                                       RecurrentFrameItem::outline(doc, nodes[n].layers));
    m_scene->addItem(box.frame);
    m_scene->addItem(box.item);
    box.target = collapsed != bool(m_exceptions.count(box.members.front())) ? 1.0 : 0.0;
    box.t = box.from = box.target;
    m_boxOfNode[n] = static_cast<int>(m_boxes.size());
    m_boxes.push_back(box);
  }
  computeSqueezes();
  rebuildEdges();
  apply(1.0);
}

namespace {
// Scene units the columns of a folded node keep beyond its box's width: room, on either side,
// for the label of a condensed edge ("4 connections").
constexpr double kEdgeRoom = 60.0;
}  // namespace

void CollapseOverlay::computeSqueezes() {
  const GraphDocument& doc = *m_scene->document();
  std::vector<Squeeze> ranges;
  for (const Box& box : m_boxes) {
    Squeeze s{box.centre.x(), box.centre.x(), 0};
    for (const std::string& id : box.members) {
      s.left = std::min(s.left, doc.position(id).x());
      s.right = std::max(s.right, doc.position(id).x());
    }
    // The folded box is wider than a layer: the columns keep the difference (more than the
    // members' spread when the node is one or two layers: then the view widens there).
    s.keep = std::max(0.0, box.item->boundingRect().width() - LayerItem::kWidth + kEdgeRoom);
    ranges.push_back(s);
  }
  std::sort(ranges.begin(), ranges.end(),
            [](const Squeeze& a, const Squeeze& b) { return a.left < b.left; });
  m_squeezes.clear();
  for (const Squeeze& s : ranges) {
    if (!m_squeezes.empty() && s.left <= m_squeezes.back().right) {
      Squeeze& last = m_squeezes.back();  // nodes side by side in one column range
      last.right = std::max(last.right, s.right);
      last.keep = std::max(last.keep, s.keep);
    } else {
      m_squeezes.push_back(s);
    }
  }
}

double CollapseOverlay::squeezedX(double x) const {
  double removed = 0;
  for (const Squeeze& s : m_squeezes) {
    const double gives = (s.right - s.left - s.keep) * m_compactness;  // < 0: widens
    const double width = s.right - s.left;
    const double part = width > 0     ? std::clamp((x - s.left) / width, 0.0, 1.0)
                        : x > s.left  ? 1.0
                        : x == s.left ? 0.5
                                      : 0.0;
    removed += gives * part;
  }
  return x - removed;
}

QPointF CollapseOverlay::shownPosition(QPointF home) const {
  return {squeezedX(home.x()), home.y()};
}

QPointF CollapseOverlay::shownCentre(const Box& box) const {
  // Folded, a box sits in the middle of the room its columns keep, wherever among them its
  // members' centre was.
  const QPointF centre = shownPosition(box.centre);
  for (const Squeeze& s : m_squeezes)
    if (box.centre.x() >= s.left && box.centre.x() <= s.right) {
      const double middle = (squeezedX(s.left) + squeezedX(s.right)) / 2;
      return {centre.x() + (middle - centre.x()) * m_compactness, centre.y()};
    }
  return centre;
}

int CollapseOverlay::boxOfLayer(const std::string& id) const {
  for (std::size_t b = 0; b < m_boxes.size(); ++b)
    if (std::count(m_boxes[b].members.begin(), m_boxes[b].members.end(), id)) return int(b);
  return -1;
}

QGraphicsItem* CollapseOverlay::endpointOf(int node, const std::string& layerId) const {
  const int box = m_boxOfNode[node];
  if (box >= 0 && (m_boxes[box].target > 0 || m_boxes[box].t > 0)) return m_boxes[box].item;
  if (FrameItem* frame = collapsedFrameOf(layerId)) return frame;
  const auto it = m_scene->m_layers.find(layerId);
  return it == m_scene->m_layers.end() ? nullptr : it->second;
}

FrameItem* CollapseOverlay::collapsedFrameOf(const std::string& layerId) const {
  return m_scene->m_frames ? m_scene->m_frames->collapsedFrameOf(layerId) : nullptr;
}

bool CollapseOverlay::isInCollapsedFrame(const std::string& layerId) const {
  // A recurrent node folded alone takes its members, even those of a collapsed frame.
  const int b = boxOfLayer(layerId);
  return (b < 0 || m_boxes[b].target == 0) && collapsedFrameOf(layerId) != nullptr;
}

void CollapseOverlay::rebuildEdges() {
  for (CondensedEdgeItem* edge : m_edges) delete edge;
  m_edges.clear();
  const GraphDocument& doc = *m_scene->document();
  if (!doc.analysis()) return;
  const Graph& graph = doc.graph();
  // The condensed DAG's edges that touch a folded box, one per pair of endpoints (a box, a
  // collapsed frame, or a layer of a node shown unfolded). Inside one box, none.
  std::map<std::pair<QGraphicsItem*, QGraphicsItem*>, std::vector<const Connection*>> grouped;
  const auto index = layerIndexById(graph);
  for (const Connection& c : graph.connections) {
    const int from = doc.analysis()->nodeOfLayer[index.at(c.from)];
    const int to = doc.analysis()->nodeOfLayer[index.at(c.to)];
    QGraphicsItem* a = endpointOf(from, c.from);
    QGraphicsItem* b = endpointOf(to, c.to);
    if (!a || !b || a == b) continue;
    const auto isBox = [](const QGraphicsItem* item) {
      return item->type() == RecurrentNodeItem::Type || item->type() == FrameItem::Type;
    };
    if (isBox(a) || isBox(b)) grouped[{a, b}].push_back(&c);
  }
  for (const auto& [pair, connections] : grouped) {
    auto* edge = new CondensedEdgeItem(pair.first, pair.second, connections);
    m_scene->addItem(edge);
    m_edges.push_back(edge);
  }
}

void CollapseOverlay::startChange(bool animated) {
  m_animation->stop();
  for (Box& box : m_boxes) box.from = box.t;
  rebuildEdges();
  if (!animated) {
    apply(1.0);
    settle();
    return;
  }
  apply(0.0);
  m_animation->start();
}

void CollapseOverlay::settle() {
  rebuildEdges();
  applyToConnections();
}

void CollapseOverlay::animateTo(bool collapsed, bool animated) {
  m_exceptions.clear();
  for (Box& box : m_boxes) box.target = collapsed ? 1.0 : 0.0;
  startChange(animated);
}

bool CollapseOverlay::toggleNodeOf(const std::string& memberId, bool collapsed) {
  const int b = boxOfLayer(memberId);
  if (b < 0) return false;
  Box& box = m_boxes[b];
  const std::string& key = box.members.front();
  if (!m_exceptions.erase(key)) m_exceptions.insert(key);
  box.target = collapsed != bool(m_exceptions.count(key)) ? 1.0 : 0.0;
  startChange(true);
  return true;
}

void CollapseOverlay::apply(double progress) {
  const GraphDocument& doc = *m_scene->document();
  const bool wasSyncing = m_scene->m_syncing;
  m_scene->m_syncing = true;  // members fly to their box: a view effect, not a move
  m_compactness = m_boxes.empty() ? 0.0 : 1.0;
  for (Box& box : m_boxes) {
    box.t = box.from + (box.target - box.from) * progress;
    m_compactness = std::min(m_compactness, box.t);  // compact only while every node is folded
  }
  std::set<std::string> members;
  for (Box& box : m_boxes) {
    const QPointF centre = clearOfUnfolded(box, shownCentre(box));
    for (const std::string& id : box.members) {
      members.insert(id);
      const auto it = m_scene->m_layers.find(id);
      if (it == m_scene->m_layers.end()) continue;
      const QPointF home = shownPosition(doc.position(id));
      it->second->setPos(home + (centre - home) * box.t);
      it->second->setOpacity(1.0 - box.t);
      it->second->setVisible(box.t < 1.0 && !isInCollapsedFrame(id));
    }
    box.item->setPos(centre);
    box.item->setOpacity(box.t);
    box.item->setScale(0.4 + 0.6 * box.t);
    box.item->setVisible(box.t > 0.0);
    box.frame->setOpacity(1.0 - box.t);
    // Around members drawn in a collapsed frame's box, the frame would outline empty canvas.
    const bool inFrames =
        std::any_of(box.members.begin(), box.members.end(),
                    [this](const std::string& id) { return isInCollapsedFrame(id); });
    box.frame->setVisible(box.t < 1.0 && !inFrames);
  }
  for (const auto& [id, item] : m_scene->m_layers)  // the plain layers, in the compact columns
    if (!members.count(id)) {
      item->setPos(shownPosition(doc.position(id)));
      item->setVisible(!isInCollapsedFrame(id));
    }
  m_scene->m_syncing = wasSyncing;
  if (m_scene->m_frames) m_scene->m_frames->fit();  // collapsed frames' boxes, where wires end
  applyToConnections();
}

QPointF CollapseOverlay::clearOfUnfolded(const Box& box, QPointF centre) const {
  const bool othersUnfolded = std::any_of(m_boxes.begin(), m_boxes.end(), [&](const Box& other) {
    return &other != &box && other.target == 0;
  });
  if (box.target == 0 || !othersUnfolded) return centre;
  const GraphDocument& doc = *m_scene->document();
  std::vector<QRectF> occupied;
  for (const Box& other : m_boxes)
    if (&other != &box && other.target == 0)  // its frame, with the loops rising above it
      occupied.push_back(other.frame->sceneBoundingRect().adjusted(-20, -40, 20, 20));
  for (const auto& [id, item] : m_scene->m_layers)
    if (std::find(box.members.begin(), box.members.end(), id) == box.members.end() &&
        boxOfLayer(id) < 0)
      occupied.push_back(layerFootprint(shownPosition(doc.position(id))));
  const QRectF shape = box.item->boundingRect();  // at full scale, as it ends
  return centre + freeOffset(occupied, {shape.translated(centre)});
}

void CollapseOverlay::applyToConnections() {
  for (ConnectionItem* item : m_scene->m_connections) {
    item->updatePath();
    const Connection& c = item->connection();
    const int a = boxOfLayer(c.from), b = boxOfLayer(c.to);
    const double t = std::max(a < 0 ? 0.0 : m_boxes[a].t, b < 0 ? 0.0 : m_boxes[b].t);
    item->setOpacity(1.0 - t);
    item->setVisible(t < 1.0 && !isInCollapsedFrame(c.from) && !isInCollapsedFrame(c.to));
  }
  for (CondensedEdgeItem* edge : m_edges) {
    edge->updatePath();
    const double t = std::max(edge->foldedness(), 0.0);
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
