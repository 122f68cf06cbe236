#include "screenshot.hpp"

#include <algorithm>
#include <cstdio>

#include <QApplication>
#include <QDockWidget>
#include <QElapsedTimer>

#include "rnnwb/ui/graph_document.hpp"
#include "rnnwb/ui/graph_scene.hpp"
#include "rnnwb/ui/graph_view.hpp"
#include "rnnwb/ui/main_window.hpp"
#include "rnnwb/ui/mask_panel.hpp"
#include "rnnwb/ui/packing_panel.hpp"
#include "rnnwb/ui/pixel_image_view.hpp"
#include "rnnwb/ui/run_follower.hpp"
#include "rnnwb/ui/train_form.hpp"
#include "rnnwb/ui/training_panel.hpp"

namespace {

/// Shows a bottom dock holding `panel`, in front of the others of its tab group.
void showDockOf(rnnwb::ui::MainWindow& window, QWidget* panel) {
  if (auto* dock = qobject_cast<QDockWidget*>(panel->parentWidget())) {
    dock->show();
    dock->raise();
    window.resizeDocks({dock}, {470}, Qt::Vertical);
  }
}

/// Shows the packing dock on 64 synthetic words in batches of 16 and waits for its picture.
bool showPacking(rnnwb::ui::MainWindow& window) {
  rnnwb::ui::PackingPanel* panel = window.packingPanel();
  showDockOf(window, panel);
  rnnwb::ui::PackingSettings settings;
  settings.source.wordCount = 64;
  settings.source.maxPixelSize = 60;
  settings.batchSize = 16;
  panel->setSettings(settings);
  QElapsedTimer clock;
  clock.start();
  while (panel->isBusy() && clock.elapsed() < 120000)
    QApplication::processEvents(QEventLoop::AllEvents, 50);
  if (panel->isBusy() || panel->messageIsError()) {
    std::fprintf(stderr, "rnnwb-gui: the packing view: %s\n",
                 panel->isBusy() ? "timed out" : qPrintable(panel->message()));
    return false;
  }
  QApplication::processEvents();  // the dock has its final size: fit the picture into it
  panel->view()->fitToWindow();
  return true;
}

/// Shows the Sparsity dock on recurrent node `node` (1-based) and waits for its figures.
bool showSparsity(rnnwb::ui::MainWindow& window, int node) {
  rnnwb::ui::MaskPanel* panel = window.maskPanel();
  showDockOf(window, panel);
  if (!panel->setCurrentNode(node - 1)) {
    std::fprintf(stderr, "rnnwb-gui: --sparsity %d: the graph has %d recurrent node(s)\n", node,
                 panel->recurrentNodeCount());
    return false;
  }
  QElapsedTimer waited;
  waited.start();
  while (!panel->isUpToDate() && waited.elapsed() < 60000)
    QApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
  if (!panel->isUpToDate()) {
    std::fprintf(stderr, "rnnwb-gui: the sparsity view: timed out\n");
    return false;
  }
  return true;
}

}  // namespace

bool showRuns(rnnwb::ui::MainWindow& window, const QStringList& dirs, const QStringList& logDirs) {
  rnnwb::ui::TrainingPanel* panel = window.trainingPanel();
  if (auto* dock = qobject_cast<QDockWidget*>(panel->parentWidget())) {
    dock->show();
    // Half the window at most: a 1280×720 screen keeps the canvas and the status bar.
    window.resizeDocks({dock}, {std::min(440, window.height() / 2)}, Qt::Vertical);
  }
  for (const QString& dir : dirs)
    if (!panel->openRun(dir)) {
      std::fprintf(stderr, "rnnwb-gui: %s\n", qPrintable(panel->message()));
      return false;
    }
  for (const QString& dir : logDirs)
    if (!panel->openLogDir(dir)) {
      std::fprintf(stderr, "rnnwb-gui: %s\n", qPrintable(panel->message()));
      return false;
    }
  if (dirs.isEmpty()) return true;
  if (const auto& config = panel->follower(dirs.front())->config())
    panel->form()->setConfig(*config);
  panel->form()->setRunDir(dirs.front());
  return true;
}

int takeScreenshot(rnnwb::ui::MainWindow& window, const ScreenshotRequest& request) {
  if (!request.graph.isEmpty()) {
    QString error;
    if (!window.document()->open(request.graph, &error)) {
      std::fprintf(stderr, "rnnwb-gui: %s\n", qPrintable(error));
      return 1;
    }
  }
  // The pictures in docs/ have one size, whatever screen (or none) renders them.
  window.resize(1500, 900);
  window.show();
  QApplication::processEvents();
  window.scene()->setCollapsed(request.collapsed, false);
  if (!request.select.isEmpty()) {
    const int layer = window.document()->layerIndex(request.select.toStdString());
    if (layer < 0) {
      std::fprintf(stderr, "rnnwb-gui: no layer '%s' to select\n", qPrintable(request.select));
      return 1;
    }
    window.scene()->selectItems({layer}, {});
  }
  if ((!request.runs.isEmpty() || !request.logDirs.isEmpty()) &&
      !showRuns(window, request.runs, request.logDirs))
    return 1;
  if (request.packing && !showPacking(window)) return 1;
  if (request.sparsityNode > 0 && !showSparsity(window, request.sparsityNode)) return 1;
  QApplication::processEvents();
  window.view()->fitToWindow();
  QApplication::processEvents();
  if (!window.grab().save(request.out)) {
    std::fprintf(stderr, "rnnwb-gui: cannot write %s\n", qPrintable(request.out));
    return 1;
  }
  return 0;
}
