#pragma once
// The Edit and View actions of the workbench and what they do: undo/redo from the document's
// stack, cut/copy/paste (graph-file text on the clipboard), delete, select all, auto-layout,
// palette entries (layers and cell templates), zoom, fit and the collapsed view. Every change
// goes through an undo command.
#include <optional>
#include <string>

#include <QObject>
#include <QPointF>

#include "rnnwb/ui/graph_fragment.hpp"

class QAction;
class QWidget;

namespace rnnwb::ui {

class GraphDocument;
class GraphScene;
class GraphView;

class EditActions : public QObject {
  Q_OBJECT
 public:
  /// `dialogParent` parents the template dialog; all must outlive this object.
  EditActions(GraphDocument* document, GraphScene* scene, GraphView* view, QWidget* dialogParent);

  QAction* undo;
  QAction* redo;
  QAction* cut;
  QAction* copy;
  QAction* paste;
  QAction* duplicate;  // Ctrl+D: a copy of the selection beside it, the clipboard untouched
  QAction* remove;
  QAction* selectAll;
  QAction* autoLayout;
  QAction* frameSelection;  // Ctrl+J: a named, coloured frame around the selected layers
  QAction* zoomIn;
  QAction* zoomOut;
  QAction* resetZoom;
  QAction* fitToWindow;
  QAction* find;        // the window connects it to its find field
  QAction* collapse;    // checkable: the collapsed view of recurrent nodes
  QAction* minimap;     // checkable: the canvas' minimap
  QAction* snapToGrid;  // checkable: dragged boxes land on the grid

  /// A palette entry: a layer is added at once, a template asks which layer feeds it and its
  /// size. `scenePos` is where it was dropped; for a click (none), a layer goes near the view's
  /// centre and a template beside the layer that feeds it. Either way onto free canvas.
  void addPaletteEntry(const QString& key, std::optional<QPointF> scenePos);
  /// Inserts a cell fed by `inputId`, starting at `origin` (none: beside that layer) or on the
  /// free canvas nearest to it, and selects it. A 2-D cell makes a 1-D graph 2-D in the same
  /// undo step. `outputs`, when given, receives the cell's output layers. False when that layer
  /// does not exist.
  bool insertTemplate(CellTemplate cell, const std::string& inputId, int size,
                      std::optional<QPointF> origin, std::vector<std::string>* outputs = nullptr);
  /// A wire let go on empty canvas: a menu of layers to add there, connected to it.
  void offerLayerForWire(const std::string& layerId, bool fromOutput, QPointF scenePos);
  /// What choosing from that menu does, as one undo step: a new layer (palette key) on free
  /// canvas near `scenePos`, fed by `layerId` (fromOutput) or feeding it.
  void addConnectedLayer(const QString& key, const std::string& layerId, bool fromOutput,
                         QPointF scenePos);
  /// An empty document becomes input x → the cell → output y (one undo step); false when the
  /// document has layers. A 2-D cell reads a 1-channel x, and its output states are summed over
  /// the rows (reduce y) into a ctc layer y of 5 classes.
  bool newFromTemplate(CellTemplate cell);
  void deleteSelection();
  void copySelection();
  void pasteClipboard();
  /// The selected layers and the connections among them, again, with fresh ids, on free canvas
  /// beside them (one undo step); the copy is selected.
  void duplicateSelection();
  void applyAutoLayout();

 protected:
  /// Ctrl+Z / Ctrl+Shift+Z (Ctrl+Y) in a text field of the window with nothing of its own to
  /// undo or redo go to the document's stack.
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void updateUndoActions();
  void createActions();
  void selectLastLayers(int count);
  GraphDocument* m_document;
  GraphScene* m_scene;
  GraphView* m_view;
  QWidget* m_dialogParent;
  int m_pasteCount = 0;
};

}  // namespace rnnwb::ui
