#pragma once
// The collapsed view of GraphScene: for every recurrent node of the SCC analysis, a box listing
// its members and inner order, and the condensed DAG's edges into and out of it. Folding
// animates the members into their box (and back); the document is never touched.
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
class CondensedEdgeItem;

class CollapseOverlay : public QObject {
 public:
  explicit CollapseOverlay(GraphScene* scene);
  ~CollapseOverlay() override;

  /// Deletes the overlay's items; the scene calls it before deleting its connection items.
  void clear();
  /// Recreates the boxes from the document's analysis and shows the given state at once.
  void rebuild(bool collapsed);
  void animateTo(bool collapsed, bool animated);
  void highlight(const std::vector<int>& layers);
  /// Members of each box, in schedule order, while the boxes are shown.
  std::vector<std::vector<std::string>> shownBoxes() const;

 private:
  struct Box {
    RecurrentNodeItem* item;
    std::vector<std::string> members;
    QPointF centre;
  };
  void apply(double t);  // 0: expanded, 1: collapsed
  QGraphicsItem* endpointOf(int node) const;

  GraphScene* m_scene;
  std::vector<Box> m_boxes;
  std::vector<int> m_boxOfNode;  // SCC node index -> index into m_boxes, or -1
  std::vector<CondensedEdgeItem*> m_edges;
  std::set<std::string> m_members;
  QVariantAnimation* m_animation;
  double m_t = 0;
};

}  // namespace rnnwb::ui
