#pragma once
// The toolbar's "Find layer" field (Ctrl+F), as Netron's search: it completes layer ids as you
// type; Enter selects the layer that matches (the exact id, else the first whose id starts
// with, else contains, the text, ignoring case) and centres the canvas on it, unfolding the
// collapsed view if the layer is folded away. A text that matches nothing turns the field red.
#include <QLineEdit>

class QStringListModel;

namespace rnnwb::ui {

class GraphDocument;
class GraphScene;
class GraphView;

class FindLayerField : public QLineEdit {
  Q_OBJECT
 public:
  FindLayerField(GraphDocument* document, GraphScene* scene, GraphView* view,
                 QWidget* parent = nullptr);
  /// Selects and shows the layer matching `text`; false (and the field red) when none does.
  bool findLayer(const QString& text);

 private:
  void refreshIds();
  GraphDocument* m_document;
  GraphScene* m_scene;
  GraphView* m_view;
  QStringListModel* m_ids;
};

}  // namespace rnnwb::ui
