#pragma once
// The frames of GraphScene (layer_frames.hpp): one FrameItem per frame of the document, fitted
// around its shown layers as they move, and the gestures on frames, each one undo step: frame the
// selected layers, rename, recolour, delete a frame (its layers stay), drag a frame with its
// layers. It also gives the canvas its context menu.
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
  void selectFrameLayers(int index);
  /// The frames as drawn (scene units); an empty rect for one with no layer shown.
  std::vector<QRectF> frameRects() const;

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
  void fit();
  void replaceFrames(std::vector<LayerFrame> frames, const QString& text);

  GraphScene* m_scene;
  std::vector<FrameItem*> m_items;
  QList<QAction*> m_canvasActions;
  PositionMap m_dragBefore;
  int m_dragId = 1 << 24;  // apart from the scene's own drags: moves merge within one drag
};

}  // namespace rnnwb::ui
