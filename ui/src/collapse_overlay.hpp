#pragma once
// The collapsed view of GraphScene: for every recurrent node of the SCC analysis, a box listing
// its members and inner order, and the condensed DAG's edges into and out of it. Folding
// animates the members into their box (and back); the document is never touched. Each node can
// also be folded or unfolded alone (double-click its box, or its frame in the expanded view).
// In the expanded view, the layers of a collapsed frame (frame_overlay.hpp) are drawn as its box:
// their wires to other layers end at it, and those inside it are not drawn.
#include <set>
#include <string>
#include <vector>

#include <QObject>
#include <QPointF>
#include <QRectF>

class QGraphicsItem;
class QVariantAnimation;

namespace rnnwb::ui {

class GraphScene;
class RecurrentNodeItem;
class RecurrentFrameItem;
class CondensedEdgeItem;
class FrameItem;

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
  /// Where a layer at `home` (its document position) is drawn now. Folded, the view is compact:
  /// the columns a recurrent node's members spread over shrink (or grow) to its box's width,
  /// and what lies right of them moves by the difference. A drag moves the document position by
  /// what the mouse moved.
  QPointF shownPosition(QPointF home) const;

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
  /// The x-range (member centres) that a folded node's members spread over, and the width it
  /// keeps once folded (room for its box); overlapping ranges are merged.
  struct Squeeze {
    double left = 0, right = 0, keep = 0;
  };
  void apply(double progress);  // of the running change, 0 to 1
  void computeSqueezes();
  void applyToConnections();
  double squeezedX(double x) const;
  /// Where a folded box goes while another node is unfolded (no compact layout then): its
  /// members' centre, moved clear of the unfolded nodes' frames (and their loops) and of the
  /// other layers' boxes, which it overlapped.
  QPointF clearOfUnfolded(const Box& box, QPointF centre) const;
  QPointF shownCentre(const Box& box) const;
  void rebuildEdges();
  void startChange(bool animated);
  /// The change has ended: the edges as the boxes now stand.
  void settle();
  int boxOfLayer(const std::string& id) const;
  FrameItem* collapsedFrameOf(const std::string& layerId) const;
  /// Drawn as its collapsed frame's box (not as its recurrent node's).
  bool isInCollapsedFrame(const std::string& layerId) const;
  QGraphicsItem* endpointOf(int node, const std::string& layerId) const;

  GraphScene* m_scene;
  std::vector<Box> m_boxes;
  std::vector<int> m_boxOfNode;  // SCC node index -> index into m_boxes, or -1
  std::vector<CondensedEdgeItem*> m_edges;
  std::vector<Squeeze> m_squeezes;     // sorted, disjoint
  double m_compactness = 0;            // 0: the document's layout, 1: fully compact (all folded)
  std::set<std::string> m_exceptions;  // first members of nodes shown against the view's state
  QVariantAnimation* m_animation;
};

}  // namespace rnnwb::ui
