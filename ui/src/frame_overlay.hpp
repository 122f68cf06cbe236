#pragma once
// The frames of GraphScene (layer_frames.hpp): one FrameItem per frame of the document, fitted
// around its shown layers as they move, and the gestures on frames, each one undo step: frame the
// selected layers, rename, recolour, delete a frame (its layers stay), drag a frame with its
// layers, collapse a frame into one box and open it again. It also gives the canvas its context
// menu.
#include <vector>

#include <QList>
#include <QObject>
#include <QPointF>

#include "rnnwb/ui/graph_document.hpp"

class QAction;

namespace rnnwb::ui {

class FrameItem;
class GraphScene;

class FrameOverlay : public QObject {
 public:
  explicit FrameOverlay(GraphScene* scene);
  ~FrameOverlay() override;

  /// Frames the selected layers (taking them out of any other frame) as a new frame named
  /// `name` (empty: "frame", "frame 2", ...). False when no layer is selected.
  bool frameSelection(const QString& name = {});
  void renameFrame(int index, const QString& name);
  void setFrameColour(int index, const QColor& colour);
  void deleteFrame(int index);
  /// Collapses the frame into one box (a node editor's group) or opens it: one undo step, saved
  /// as the frame's "collapsed". The collapsed view of recurrent nodes draws every frame open.
  void setFrameCollapsed(int index, bool collapsed);
  /// The collapsed box that stands for this layer now, or null: its frame is open, the view is
  /// the collapsed one, or it has no such frame.
  FrameItem* collapsedFrameOf(const std::string& layerId) const;
  void selectFrameLayers(int index);
  /// The frames as drawn (scene units); an empty rect for one with no layer shown. A collapsed
  /// frame's is its box.
  std::vector<QRectF> frameRects() const;
  /// Fits the frames around their layers as they are drawn now (the folding calls it).
  void fit();

  /// The canvas' context menu (a right-click anywhere but on a frame's title).
  void setCanvasActions(QList<QAction*> actions) { m_canvasActions = std::move(actions); }

  // For FrameItem: a drag of its title bar moves its layers; its dialogs and menu.
  void beginDrag(int index);
  void dragTo(int index, QPointF delta);
  void renameWithDialog(int index);
  void showFrameMenu(int index, QPoint screenPos);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void rebuild();
  void replaceFrames(std::vector<LayerFrame> frames, const QString& text);

  GraphScene* m_scene;
  std::vector<FrameItem*> m_items;
  std::vector<LayerFrame> m_shownFrames;  // the document's frames as the items show them
  QList<QAction*> m_canvasActions;
  PositionMap m_dragBefore;
  int m_dragId = 1 << 24;  // apart from the scene's own drags: moves merge within one drag
};

}  // namespace rnnwb::ui
