// rnnwb-gui: the RNN Workbench window.
//   rnnwb-gui [GRAPH]                                   open the workbench (on a graph file)
//   rnnwb-gui --screenshot OUT.png [--collapsed] [--select LAYER] [--run DIR]... [--packing]
//             [--sparsity K] [GRAPH]                    render the window offscreen, then exit
//   rnnwb-gui --run DIR... [GRAPH]                      open with the training panel on runs
//   rnnwb-gui --logdir DIR [GRAPH]                      ... on every run under DIR, and new ones
//   rnnwb-gui --version | --help
#include <cstdio>
#include <cstring>
#include <memory>

#include <QApplication>
#include <QCommandLineParser>
#include <QDockWidget>
#include <QTimer>

#include "rnnwb/ui/autosave.hpp"
#include "rnnwb/ui/detached_runs.hpp"
#include "rnnwb/ui/file_actions.hpp"
#include "rnnwb/ui/graph_document.hpp"
#include "rnnwb/ui/graph_view.hpp"
#include "rnnwb/ui/main_window.hpp"
#include "rnnwb/ui/training_panel.hpp"
#include "screenshot.hpp"

namespace {

// --version and --help print and exit: they need no display, without which QApplication aborts.
bool wantsOnlyText(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    for (const char* flag : {"--version", "-v", "--help", "-h", "--help-all", "-?"})
      if (std::strcmp(argv[i], flag) == 0) return true;
  return false;
}

bool wantsScreenshot(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--screenshot", 12) == 0) return true;
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  // A screenshot needs no display: render offscreen unless told otherwise.
  if (wantsScreenshot(argc, argv) && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
    qputenv("QT_QPA_PLATFORM", "offscreen");
  const std::unique_ptr<QCoreApplication> app = wantsOnlyText(argc, argv)
                                                    ? std::make_unique<QCoreApplication>(argc, argv)
                                                    : std::make_unique<QApplication>(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("rnnwb"));
  QApplication::setApplicationName(QStringLiteral("RNN Workbench"));
  QApplication::setApplicationVersion(QStringLiteral(RNNWB_VERSION));

  QCommandLineParser parser;
  parser.setApplicationDescription(
      QStringLiteral("RNN Workbench: draw and analyse graphs of "
                     "recurrent networks"));
  parser.addHelpOption();
  parser.addVersionOption();
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
  const QCommandLineOption logdir(QStringLiteral("logdir"),
                                  QStringLiteral("Show the training panel following every run "
                                                 "folder under DIR, and new ones as they start "
                                                 "(as TensorBoard's --logdir)."),
                                  QStringLiteral("DIR"));
  const QCommandLineOption packing(QStringLiteral("packing"),
                                   QStringLiteral("With --screenshot: show the Packing dock on "
                                                  "64 synthetic words."));
  const QCommandLineOption sparsity(QStringLiteral("sparsity"),
                                    QStringLiteral("With --screenshot: show the Sparsity dock on "
                                                   "recurrent node K (1-based)."),
                                    QStringLiteral("K"));
  parser.addOptions({screenshot, collapsed, select, run, logdir, packing, sparsity});
  parser.addPositionalArgument(QStringLiteral("GRAPH"), QStringLiteral("A .rnn.json graph."),
                               QStringLiteral("[GRAPH]"));
  parser.process(*app);
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
    return takeScreenshot(
        window, {graph, parser.value(screenshot), parser.isSet(collapsed), parser.value(select),
                 parser.values(run), parser.values(logdir), parser.isSet(packing), sparsityNode});

  window.restoreLayout();
  window.show();
  const QString autosaveDir = rnnwb::ui::Autosave::defaultDirectory();
  window.fileActions()->offerRecovery(autosaveDir);
  if (!graph.isEmpty() && !window.document()->isModified()) window.fileActions()->openFile(graph);
  window.fileActions()->startAutosave(autosaveDir, 30000);
  if (parser.isSet(run) || parser.isSet(logdir))
    showRuns(window, parser.values(run), parser.values(logdir));
  // Runs a previous workbench left training: in the run list again, followed.
  if (!rnnwb::ui::reopenDetachedRuns(*window.trainingPanel()).isEmpty())
    if (auto* dock = qobject_cast<QDockWidget*>(window.trainingPanel()->parentWidget()))
      dock->show();
  QTimer::singleShot(0, window.view(), &rnnwb::ui::GraphView::showDocument);
  return app->exec();
}
