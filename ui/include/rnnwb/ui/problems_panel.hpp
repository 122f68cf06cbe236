#pragma once
// The problems panel: every Diagnostic of the live validation, one line each; clicking one
// selects the layers and connections it names on the canvas.
#include <QWidget>

class QLabel;
class QListWidget;

namespace rnnwb::ui {

class GraphDocument;
class GraphScene;

class ProblemsPanel : public QWidget {
  Q_OBJECT
 public:
  ProblemsPanel(GraphDocument* document, GraphScene* scene, QWidget* parent = nullptr);
  int problemCount() const;
  /// What clicking row `row` does (tests call it directly).
  void activateRow(int row);

 private:
  void refresh();
  GraphDocument* m_document;
  GraphScene* m_scene;
  QLabel* m_summary;
  QListWidget* m_list;
};

}  // namespace rnnwb::ui
