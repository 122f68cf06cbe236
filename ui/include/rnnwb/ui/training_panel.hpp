#pragma once
// The training panel (a dock of the workbench): a form for a new run, Train / Stop / Resume (of
// the selected run: several train at once), the runs it follows (launched here or opened from a
// folder that a run elsewhere writes), their live plots overlaid, and the trainer's output.
// Training runs in a child process (TrainingProcess), so that a crash or a bad config shows here as
// an error and the editor goes on. Train first writes the current document, unsaved edits included,
// beside the config it launches with (RUN/launch/graph.rnn.json, RUN/launch/config.json): never a
// stale file.
#include <map>
#include <optional>
#include <vector>

#include <QString>
#include <QWidget>

#include "rnnwb/core/train/train_config.hpp"
#include "rnnwb/ui/training_process.hpp"

class QLabel;
class QPlainTextEdit;
class QPushButton;

namespace rnnwb::ui {

class GraphDocument;
class LogDirWatcher;
class RunFollower;
class RunList;
class RunPlot;
class RunsScatter;
class RunsTable;
class TrainForm;
class TrainingProcesses;

class TrainingPanel : public QWidget {
  Q_OBJECT
 public:
  explicit TrainingPanel(GraphDocument* document, QWidget* parent = nullptr);
  ~TrainingPanel() override;

  TrainForm* form() const { return m_form; }
  /// Shows this algorithm, N and window in the form (the Memory budget panel's choice), the
  /// rest of the form as it was.
  void useAlgorithm(const QString& algorithm, int streams, int h, int hPrime);
  RunPlot* plot() const { return m_plot; }
  RunList* runList() const { return m_runs; }
  /// The runs' settings against their final metrics (HParams), under the list.
  RunsTable* runsTable() const { return m_table; }
  /// One metric of that table against one setting, a dot per run (HParams' scatter view).
  RunsScatter* runsScatter() const { return m_scatter; }
  /// The process of the latest Train or Resume (runs started earlier may still train: several
  /// runs train at once, each with its own process).
  TrainingProcess* process() const;
  /// The process training this run folder here, or null.
  TrainingProcess* trainerOf(const QString& runDir) const;
  /// The follower of a run folder (by any spelling of its path), or null.
  RunFollower* follower(const QString& runDir) const;

  /// The message line: what went wrong (isError) or how the last run ended.
  QString message() const;
  bool messageIsError() const { return m_messageIsError; }
  QString logText() const;

 signals:
  /// The selected run, or what it reported, changed: its folder's node_times.json may be new
  /// (the Schedule and the canvas show where its time goes). Empty when no run is selected.
  void currentRunUpdated(const QString& runDir);

 public slots:
  /// Writes the document and the form's config into the run folder's launch/ and starts
  /// `rnnwb train`. False, with the reason in message(), when it cannot start.
  bool startTraining();
  /// Continues the selected run (extended to the form's steps when it had finished).
  bool resumeRun();
  /// Stops the selected run (it checkpoints; Resume continues it); the others train on.
  void stopTraining();
  /// Follows a run folder, running or not, written here or elsewhere. False when it is no run.
  bool openRun(const QString& runDir);
  /// Follows every run folder under `dir` (4 levels down), and each new one that appears there
  /// while the panel is open, named by its path within `dir`. False when it is no folder.
  bool openLogDir(const QString& dir);
  void removeCurrentRun();
  void exportPlot();
  /// Floats the Training dock as a window as large as the screen (true), or docks it back.
  void popOutPlots(bool out);
  /// Fills the form from a training config file (a run's config.json too); the graph stays the
  /// document. False, with the reason in message(), when the file is no config.
  bool loadConfig(const QString& path);

 public:
  /// A new run folder beside the graph: GRAPHDIR/runs/<graph>-<yyyymmdd>-<n>, the first n free;
  /// empty while the document has no file.
  QString proposedRunDir() const;
  /// Asks what to do when the window closes while a run trains: stop it (and wait for its
  /// checkpoint), leave it running and detach (detached_runs.hpp), or cancel the close. True
  /// when the window may close.
  bool confirmClose();

 private:
  QWidget* createFormSide();
  QWidget* createPlotSide();
  QWidget* createRunsSide();
  /// Follows the runs under `root` (an absolute folder) and new ones there; how many it holds.
  int watchLogDir(const QString& root);
  RunFollower* followRun(const QString& runDir, const QString& label = {}, bool makeCurrent = true);
  void markRunsWithoutWallTime();
  void showMessage(const QString& text, bool error);
  void showRunLog(const QString& runDir);
  bool isOwnRunning(const QString& key) const;  // this panel's process trains that run
  void appendLog(const QString& text);
  /// The reader scrolled the output: it follows new lines again once at the end.
  void followLogAsScrolled();
  /// A line of a run's output: named by its run when several train at once.
  void appendRunLog(const QString& runDir, const QString& text);
  void showFormProblems(const QStringList& problems);
  void onFormChanged();
  /// The next free folder beside the graph, unless the form holds one the user chose.
  void proposeRunDir();
  void onDocumentFileChanged();  // another document: its folder, and no word on the old one
  /// The form's settings per graph file (QSettings): kept at Train, shown again on opening.
  void rememberForm(const train::TrainConfig& config);
  void recallForm();
  /// Before a folder is made: the task the form names can run on the graph (sizes, losses).
  QString taskMismatch(const train::TrainConfig& config) const;
  void proposeBundledText();  // char-lm's text: the corpus the project ships, when found
  void stopAndWait();
  void onProcessFinished(TrainingProcess* process, TrainingProcess::Outcome outcome,
                         const QString& message);
  void updateButtons();
  /// The pid training `runDir` on this host when it is not this panel's own process.
  std::optional<long> externalHolder(const QString& runDir) const;
  void setProcessesOfRun(TrainingProcess& process, const RunFollower& run);
  bool stageLaunch(const QString& runDir, QString* graphPath, QString* configPath);

  GraphDocument* m_document;
  TrainingProcesses* m_processes;
  TrainForm* m_form = nullptr;
  RunPlot* m_plot = nullptr;
  RunList* m_runs = nullptr;
  RunsTable* m_table = nullptr;
  RunsScatter* m_scatter = nullptr;
  QPlainTextEdit* m_log = nullptr;
  QLabel* m_message = nullptr;
  QPushButton* m_train = nullptr;
  QPushButton* m_stop = nullptr;
  QPushButton* m_resume = nullptr;
  std::map<QString, RunFollower*> m_followers;  // by absolute run folder
  std::vector<LogDirWatcher*> m_logDirs;        // folders of runs followed
  bool m_messageIsError = false;
  bool m_logFollows = true;          // the output shows new lines (the reader has not scrolled up)
  bool m_showsFormProblems = false;  // the message lists the form's problems
  QString m_proposedRunDir;          // the folder the panel last proposed (not the user's own)
};

}  // namespace rnnwb::ui
