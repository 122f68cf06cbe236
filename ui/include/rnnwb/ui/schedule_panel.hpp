#pragma once
// The schedule panel: the order of computation from the SCC analysis, which nodes run for all
// frames of a chunk at once and which step frame by frame (with their inner order). Hovering an
// entry highlights its layers on the canvas; clicking one selects them and scrolls to them.
#include <vector>

#include <QWidget>

class QLabel;
class QTreeWidget;

namespace rnnwb::ui {

class GraphDocument;
class GraphScene;

class SchedulePanel : public QWidget {
  Q_OBJECT
 public:
  SchedulePanel(GraphDocument* document, GraphScene* scene, QWidget* parent = nullptr);
  int stepCount() const;
  /// What hovering step `row` does; -1 clears (tests call it directly).
  void hoverStep(int row);
  /// What clicking an entry does: selects these layers (indices) and scrolls the canvas there.
  void showLayers(const std::vector<int>& layers);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void refresh();
  GraphDocument* m_document;
  GraphScene* m_scene;
  QLabel* m_summary;
  QTreeWidget* m_tree;
};

}  // namespace rnnwb::ui
