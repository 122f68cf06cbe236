#pragma once
// What an empty window shows on its canvas, instead of problems about a graph not yet drawn:
// the examples to open, the recent files, and new graphs from a cell template. MainWindow shows
// it while the document has no layers.
#include <QFrame>

#include "rnnwb/ui/graph_fragment.hpp"

class QListWidget;

namespace rnnwb::ui {

class StartPage : public QFrame {
  Q_OBJECT
 public:
  explicit StartPage(QWidget* parent = nullptr);
  /// Reads the examples folder and the recent files again.
  void refresh();
  /// The examples folder: $RNNWB_EXAMPLES, else share/rnnwb/examples of the install the program
  /// belongs to (found from its own folder, so under any prefix), else, for a program of the
  /// build tree, the source tree's. Never the source tree's for an installed program.
  static QString examplesDirectory();
  int exampleCount() const;

 signals:
  void fileChosen(const QString& path);
  void templateChosen(rnnwb::ui::CellTemplate cell);

 private:
  QListWidget* m_examples;
  QListWidget* m_recent;
};

}  // namespace rnnwb::ui
