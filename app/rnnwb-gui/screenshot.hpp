#pragma once
// What `rnnwb-gui --screenshot` renders: the window on a graph, optionally collapsed, with a
// layer selected, the training panel on run folders, or the Packing or Sparsity dock shown.
#include <QString>
#include <QStringList>

namespace rnnwb::ui {
class MainWindow;
}

struct ScreenshotRequest {
  QString graph;  // empty: an untitled graph
  QString out;    // the PNG to write
  bool collapsed = false;
  QString select;       // a layer id to select
  QStringList runs;     // run folders for the training panel
  QStringList logDirs;  // folders of runs for the training panel
  bool packing = false;
  int sparsityNode = 0;  // 1-based recurrent node for the Sparsity dock; 0: not shown
};

/// Shows the training panel following run folders (overlaid) and folders of runs, its form set to
/// the first run's config. Prints the reason and returns false when a folder cannot be followed.
bool showRuns(rnnwb::ui::MainWindow& window, const QStringList& dirs,
              const QStringList& logDirs = {});

/// Renders the request into request.out; returns the process's exit status (errors printed).
int takeScreenshot(rnnwb::ui::MainWindow& window, const ScreenshotRequest& request);
