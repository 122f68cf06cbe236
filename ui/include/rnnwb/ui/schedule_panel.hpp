#pragma once
// The schedule panel: the order of computation from the SCC analysis, which nodes run for all
// frames of a chunk at once and which step frame by frame (with their inner order). Hovering an
// entry highlights its layers on the canvas; clicking one selects them and scrolls to them.
#include <vector>

#include <optional>

#include <QWidget>

#include "rnnwb/ui/node_heat.hpp"

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
  /// A run's node_times.json: each step's time per chunk in a column (matched to the schedule
  /// by its layers, again after every edit) and each layer's share as a bar on the canvas;
  /// nothing hides both.
  void setNodeTimes(std::optional<train::NodeTimesFile> times);
  /// The time column's text of step `row` (empty when it has none).
  QString timeText(int row) const;
  /// What hovering step `row` does; -1 clears (tests call it directly).
  void hoverStep(int row);
  /// What clicking an entry does: selects these layers (indices) and scrolls the canvas there.
  void showLayers(const std::vector<int>& layers);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void refresh();
  void showHeat();
  GraphDocument* m_document;
  GraphScene* m_scene;
  QLabel* m_summary;
  QTreeWidget* m_tree;
  std::optional<train::NodeTimesFile> m_times;
};

}  // namespace rnnwb::ui
