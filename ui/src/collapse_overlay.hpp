#pragma once
// The collapsed view of GraphScene: for every recurrent node of the SCC analysis, a box listing
// its members and inner order, and the condensed DAG's edges into and out of it. Folding
// animates the members into their box (and back); the document is never touched. Each node can
// also be folded or unfolded alone (double-click its box, or its frame in the expanded view).
#include <set>
#include <string>
#include <vector>

#include <QObject>
#include <QPointF>

class QGraphicsItem;
class QVariantAnimation;

namespace rnnwb::ui {

class GraphScene;
class RecurrentNodeItem;
class RecurrentFrameItem;
class CondensedEdgeItem;

class CollapseOverlay : public QObject {
 public:
  explicit CollapseOverlay(GraphScene* scene);
  ~CollapseOverlay() override;

  /// Deletes the overlay's items; the scene calls it before deleting its connection items.
  void clear();
  /// Recreates the boxes from the document's analysis and shows the given state at once (nodes
  /// folded or unfolded alone keep that).
  void rebuild(bool collapsed);
  /// Every node to one state: the single-node exceptions end.
  void animateTo(bool collapsed, bool animated);
  /// Folds or unfolds the recurrent node that has this member, alone, against the view's
  /// state. False when the layer is in no recurrent node.
  bool toggleNodeOf(const std::string& memberId, bool collapsed);
  void highlight(const std::vector<int>& layers);
  /// Members of each box, in schedule order, while the boxes are shown.
  std::vector<std::vector<std::string>> shownBoxes() const;

 private:
  struct Box {
    RecurrentNodeItem* item;
    RecurrentFrameItem* frame;
    std::vector<std::string> members;
    QPointF centre;
    double t = 0;       // 0: expanded, 1: collapsed, as drawn now
    double from = 0;    // where the running animation started
    double target = 0;  // where it goes
  };
  void apply(double progress);  // of the running change, 0 to 1
  void rebuildEdges();
  void startChange(bool animated);
  int boxOfLayer(const std::string& id) const;
  QGraphicsItem* endpointOf(int node, const std::string& layerId) const;

  GraphScene* m_scene;
  std::vector<Box> m_boxes;
  std::vector<int> m_boxOfNode;  // SCC node index -> index into m_boxes, or -1
  std::vector<CondensedEdgeItem*> m_edges;
  std::set<std::string> m_exceptions;  // first members of nodes shown against the view's state
  QVariantAnimation* m_animation;
};

}  // namespace rnnwb::ui
