#pragma once
// GraphScene: the canvas' QGraphicsScene. It mirrors a GraphDocument (one box per layer id, one
// arrow per connection index), rebuilt or updated on the document's signals, and turns gestures
// on its items (moving boxes, dragging from ports) into undo commands. It never edits the
// document directly. Items stay private to ui; callers speak in layer ids and connection indices.
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <QGraphicsScene>

#include "rnnwb/ui/graph_document.hpp"

class QGraphicsPathItem;

namespace rnnwb::ui {

class LayerItem;
class ConnectionItem;
class CollapseOverlay;
class FrameOverlay;

class GraphScene : public QGraphicsScene {
  Q_OBJECT
 public:
  /// The document must outlive the scene.
  explicit GraphScene(GraphDocument* document, QObject* parent = nullptr);
  ~GraphScene() override;

  GraphDocument* document() const { return m_document; }

  std::vector<std::string> layerIds() const;  // layers that have a box
  int connectionItemCount() const { return static_cast<int>(m_connections.size()); }
  /// The scene rectangle of a layer's box; empty when it has none.
  QRectF layerBox(const std::string& id) const;
  /// False for a layer folded into a recurrent node box of the collapsed view, or into a
  /// collapsed frame's box.
  bool isLayerShown(const std::string& id) const;
  bool isConnectionShown(int index) const;

  std::set<std::string> selectedLayerIds() const;
  /// The frames around groups of layers and their gestures (frame_overlay.hpp).
  FrameOverlay* frames() const { return m_frames; }
  std::set<int> selectedConnections() const;
  void selectItems(const std::vector<int>& layers, const std::vector<int>& connections);
  /// Schedule hover: these layers (indices) are drawn highlighted; empty clears.
  void highlightLayers(const std::vector<int>& layers);
  /// Each layer's share of a run's time (by layer id, in [0, 1]; node_heat.hpp) as a bar on its
  /// box; layers not in the map, or an empty map, show none. Kept across edits.
  void setLayerHeat(const std::map<std::string, double>& heat);
  std::optional<double> layerHeat(const std::string& id) const;
  std::set<std::string> problemLayers() const;
  std::set<int> problemConnections() const;

  /// The "collapse recurrent nodes" view: each strongly connected component of the analysis
  /// folds into one box listing its members and inner order; the condensed DAG remains.
  bool isCollapsed() const { return m_collapsed; }
  void setCollapsed(bool collapsed, bool animated = true);
  /// Folds (or unfolds) the recurrent node with this member alone, against the view's state;
  /// false when the layer is in no recurrent node. A double-click on a box or frame does it.
  bool toggleRecurrentNode(const std::string& memberId);
  /// Members (ids, file order) of each recurrent node box shown, in schedule order.
  std::vector<std::vector<std::string>> recurrentNodeBoxes() const;
  /// Draws the folding again (recurrent node boxes and collapsed frames, and the wires that end
  /// at them): the frames call it when theirs changes.
  void refreshFolding();

  /// Grid snapping (on by default): boxes dragged by the user land on a kGrid grid, whose dots
  /// the canvas shows.
  static constexpr double kGrid = 20.0;
  bool snapsToGrid() const { return m_snapToGrid; }
  void setSnapToGrid(bool snap);
  /// Where a box being dragged to `position` lands.
  QPointF snapped(QPointF position) const;

  // Gestures, called by the items.
  void layerItemMoved(LayerItem* item);
  void beginConnectionDrag(const std::string& layerId, bool fromOutput, QPointF scenePos);
  void updateConnectionDrag(QPointF scenePos);
  void finishConnectionDrag(QPointF scenePos);
  /// Starts dragging an end of connection `index` (its target when `target`, else its source):
  /// finishConnectionDrag on a box moves that end there (retargetConnection); elsewhere, nothing.
  void beginRetarget(int index, bool target, QPointF scenePos);
  /// Points an end of a connection at another layer, one undo step (EditConnectionCommand); a
  /// default id ("h->y") follows the new ends. False when the layer does not exist or is the
  /// end it has. The connection stays selected.
  bool retargetConnection(int index, bool target, const std::string& layerId);
  /// What a drag between ports does: pushes an AddConnectionCommand. False when one of the
  /// layers is missing.
  bool connectLayers(const std::string& from, const std::string& to);
  /// The layer whose box is under a scene point, or "".
  std::string layerAt(QPointF scenePos) const;

 signals:
  void selectedIdsChanged();
  void collapsedChanged(bool collapsed);
  /// A wire dragged from a port of `layerId` was let go on empty canvas at `scenePos`.
  void wireDroppedOnCanvas(const std::string& layerId, bool fromOutput, QPointF scenePos);

 protected:
  void mousePressEvent(QGraphicsSceneMouseEvent* event) override;
  void mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event) override;
  void drawBackground(QPainter* painter, const QRectF& rect) override;

 private:
  void syncStructure();
  void syncPositions(const QStringList& ids);
  void syncProblems();
  void rebuildConnections();
  void nestLoops();  // the lanes of backward connections (edge_routing.hpp)
  void updateConnectionsOf(const std::string& layerId);
  void markAttachedWires();  // the wires of the selected layers stand out (Netron)

  friend class CollapseOverlay;
  GraphDocument* m_document;
  std::map<std::string, LayerItem*> m_layers;
  std::map<std::string, double> m_heat;
  std::vector<ConnectionItem*> m_connections;
  std::vector<std::string> m_layerOrder;  // layer ids in file order at the last sync
  std::size_t m_connectionCount = 0;      // connections in the document at the last sync
  std::unique_ptr<CollapseOverlay> m_overlay;
  FrameOverlay* m_frames = nullptr;
  bool m_collapsed = false;
  bool m_syncing = false;
  bool m_snapToGrid = true;  // true while items follow the document: their moves are no gesture
  int m_dragId = 0;
  QGraphicsPathItem* m_dragLine = nullptr;
  std::string m_dragLayer;
  bool m_dragFromOutput = true;
  int m_retarget = -1;  // the connection whose end the drag moves, or -1 (a new wire)
  bool m_retargetTarget = true;
};

}  // namespace rnnwb::ui
