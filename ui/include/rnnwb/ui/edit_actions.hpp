#pragma once
// The Edit and View actions of the workbench and what they do: undo/redo from the document's
// stack, cut/copy/paste (graph-file text on the clipboard), delete, select all, auto-layout,
// palette entries (layers and cell templates), zoom, fit and the collapsed view. Every change
// goes through an undo command.
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
  QAction* remove;
  QAction* selectAll;
  QAction* autoLayout;
  QAction* zoomIn;
  QAction* zoomOut;
  QAction* resetZoom;
  QAction* fitToWindow;
  QAction* collapse;  // checkable: the collapsed view of recurrent nodes

  /// A palette entry at a scene position: a layer is added at once, a template asks which
  /// layer feeds it and its size.
  void addPaletteEntry(const QString& key, QPointF scenePos);
  /// Inserts a cell fed by `inputId` and selects it. False when that layer does not exist.
  bool insertTemplate(CellTemplate cell, const std::string& inputId, int size, QPointF origin);
  void deleteSelection();
  void copySelection();
  void pasteClipboard();
  void applyAutoLayout();

 private:
  void createActions();
  void selectLastLayers(int count);
  GraphDocument* m_document;
  GraphScene* m_scene;
  GraphView* m_view;
  QWidget* m_dialogParent;
  int m_pasteCount = 0;
};

}  // namespace rnnwb::ui
