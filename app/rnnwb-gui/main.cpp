// rnnwb-gui: the RNN Workbench window.
//   rnnwb-gui [GRAPH]                                   open the workbench (on a graph file)
//   rnnwb-gui --screenshot OUT.png [--collapsed] [--select LAYER] [--run DIR]... [--sparsity K]
//             [GRAPH]
//                                                       render the window offscreen, then exit
//   rnnwb-gui --run DIR... [GRAPH]                      open with the training panel on runs
#include <cstdio>
#include <cstring>

#include <QApplication>
#include <QCommandLineParser>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QTimer>

#include "rnnwb/ui/autosave.hpp"
#include "rnnwb/ui/file_actions.hpp"
#include "rnnwb/ui/graph_document.hpp"
#include "rnnwb/ui/graph_scene.hpp"
#include "rnnwb/ui/graph_view.hpp"
#include "rnnwb/ui/main_window.hpp"
#include "rnnwb/ui/mask_panel.hpp"
#include "rnnwb/ui/run_follower.hpp"
#include "rnnwb/ui/train_form.hpp"
#include "rnnwb/ui/training_panel.hpp"

namespace {

bool wantsScreenshot(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--screenshot", 12) == 0) return true;
  return false;
}

/// Shows the training panel following run folders (overlaid), its form set to the first's
/// config.
bool showRuns(rnnwb::ui::MainWindow& window, const QStringList& dirs) {
  rnnwb::ui::TrainingPanel* panel = window.trainingPanel();
  if (auto* dock = qobject_cast<QDockWidget*>(panel->parentWidget())) {
    dock->show();
    window.resizeDocks({dock}, {440}, Qt::Vertical);
  }
  for (const QString& dir : dirs)
    if (!panel->openRun(dir)) {
      std::fprintf(stderr, "rnnwb-gui: %s\n", qPrintable(panel->message()));
      return false;
    }
  if (const auto& config = panel->follower(dirs.front())->config())
    panel->form()->setConfig(*config);
  panel->form()->setRunDir(dirs.front());
  return true;
}

/// Shows the Sparsity dock on recurrent node `node` (1-based) and waits for its figures.
bool showSparsity(rnnwb::ui::MainWindow& window, int node) {
  rnnwb::ui::MaskPanel* panel = window.maskPanel();
  if (auto* dock = qobject_cast<QDockWidget*>(panel->parentWidget())) {
    dock->show();
    dock->raise();
    window.resizeDocks({dock}, {470}, Qt::Vertical);
  }
  if (!panel->setCurrentNode(node - 1)) {
    std::fprintf(stderr, "rnnwb-gui: --sparsity %d: the graph has %d recurrent node(s)\n", node,
                 panel->recurrentNodeCount());
    return false;
  }
  QElapsedTimer waited;
  waited.start();
  while (!panel->isUpToDate() && waited.elapsed() < 60000)
    QApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
  return true;
}

int takeScreenshot(rnnwb::ui::MainWindow& window, const QString& graph, const QString& out,
                   bool collapsed, const QString& select, const QStringList& runs,
                   int sparsityNode) {
  if (!graph.isEmpty()) {
    QString error;
    if (!window.document()->open(graph, &error)) {
      std::fprintf(stderr, "rnnwb-gui: %s\n", qPrintable(error));
      return 1;
    }
  }
  window.show();
  QApplication::processEvents();
  window.scene()->setCollapsed(collapsed, false);
  if (!select.isEmpty()) {
    const int layer = window.document()->layerIndex(select.toStdString());
    if (layer < 0) {
      std::fprintf(stderr, "rnnwb-gui: no layer '%s' to select\n", qPrintable(select));
      return 1;
    }
    window.scene()->selectItems({layer}, {});
  }
  if (!runs.isEmpty() && !showRuns(window, runs)) return 1;
  if (sparsityNode > 0 && !showSparsity(window, sparsityNode)) return 1;
  QApplication::processEvents();
  window.view()->fitToWindow();
  QApplication::processEvents();
  if (!window.grab().save(out)) {
    std::fprintf(stderr, "rnnwb-gui: cannot write %s\n", qPrintable(out));
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // A screenshot needs no display: render offscreen unless told otherwise.
  if (wantsScreenshot(argc, argv) && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
    qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("rnnwb"));
  QApplication::setApplicationName(QStringLiteral("RNN Workbench"));

  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("RNN Workbench: draw and analyse graphs of "
                                                  "recurrent networks"));
  parser.addHelpOption();
  const QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                      QStringLiteral("Render the window to a PNG and exit."),
                                      QStringLiteral("FILE.png"));
  const QCommandLineOption collapsed(QStringLiteral("collapsed"),
                                     QStringLiteral("With --screenshot: the collapsed view."));
  const QCommandLineOption select(QStringLiteral("select"),
                                  QStringLiteral("With --screenshot: select this layer."),
                                  QStringLiteral("LAYER"));
  const QCommandLineOption run(QStringLiteral("run"),
                               QStringLiteral("Show the training panel following this run "
                                              "folder (repeat to compare runs)."),
                               QStringLiteral("DIR"));
  const QCommandLineOption sparsity(QStringLiteral("sparsity"),
                                    QStringLiteral("With --screenshot: show the Sparsity dock on "
                                                   "recurrent node K (1-based)."),
                                    QStringLiteral("K"));
  parser.addOptions({screenshot, collapsed, select, run, sparsity});
  parser.addPositionalArgument(QStringLiteral("GRAPH"), QStringLiteral("A .rnn.json graph."),
                               QStringLiteral("[GRAPH]"));
  parser.process(app);
  const QStringList positional = parser.positionalArguments();
  const QString graph = positional.isEmpty() ? QString() : positional.front();

  int sparsityNode = 0;
  if (parser.isSet(sparsity)) {
    bool ok = false;
    sparsityNode = parser.value(sparsity).toInt(&ok);
    if (!ok || sparsityNode < 1) {
      std::fprintf(stderr, "rnnwb-gui: --sparsity needs a recurrent node number, 1 or more\n");
      return 2;
    }
  }

  rnnwb::ui::MainWindow window;
  if (parser.isSet(screenshot))
    return takeScreenshot(window, graph, parser.value(screenshot), parser.isSet(collapsed),
                          parser.value(select), parser.values(run), sparsityNode);

  window.show();
  const QString autosaveDir = rnnwb::ui::Autosave::defaultDirectory();
  window.fileActions()->offerRecovery(autosaveDir);
  if (!graph.isEmpty() && !window.document()->isModified())
    window.fileActions()->openFile(graph);
  window.fileActions()->startAutosave(autosaveDir, 30000);
  if (parser.isSet(run)) showRuns(window, parser.values(run));
  QTimer::singleShot(0, window.view(), &rnnwb::ui::GraphView::fitToWindow);
  return app.exec();
}
