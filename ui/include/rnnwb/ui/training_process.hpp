#pragma once
// TrainingProcess: runs `rnnwb train` as a child process, so that a crash in training never takes
// the editor down. It finds the executable (the "training/rnnwb" setting, else `rnnwb` beside
// the running program), passes the child's output on line by line, stops it with SIGTERM (the
// trainer then checkpoints and exits with 143) and says in words how it ended. One run at a time
// per object (TrainingProcesses holds one per run that trains).
//
// The child runs in a session of its own (setsid) and writes its output to RUN/console.log,
// which is read from there: no pipe ties it to the workbench, so detach() can leave it running
// after the workbench exits (a hangup of the workbench's terminal does not reach it either).
#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>

class QTimer;

namespace rnnwb::ui {

class TrainingProcess : public QObject {
  Q_OBJECT
 public:
  enum class Outcome { Finished, Stopped, Failed, Crashed, NotStarted };
  Q_ENUM(Outcome)

  explicit TrainingProcess(QObject* parent = nullptr);
  ~TrainingProcess() override;

  /// The rnnwb executable to run, or empty with *why saying what was looked for.
  static QString findExecutable(QString* why);
  /// Overrides the search (tests, and the setting's value); empty restores it.
  void setExecutable(const QString& path) { m_executable = path; }
  /// The override set with setExecutable (empty: the search).
  QString executable() const { return m_executable; }

  /// The next launches run `ranks` processes through Open MPI's mpirun (data-parallel training,
  /// docs/distributed.md), over the hostfile's machines when one is given, else on this one
  /// (oversubscribed when there are more ranks than cores). 1: rnnwb alone.
  void setProcesses(int ranks, const QString& hostfile = {});
  /// mpirun, or empty with *why saying how to get it.
  static QString findMpirun(QString* why);
  /// The whole command of the latest start (mpirun and its options first, when it runs ranks).
  QStringList command() const { return m_command; }

  /// `rnnwb train GRAPH --config CONFIG --run-dir DIR`. False (and finished(NotStarted, ...))
  /// when no executable is found or one is already running.
  bool startNew(const QString& graph, const QString& config, const QString& runDir);
  /// `rnnwb train --resume --run-dir DIR [--steps N]` (steps 0: as the run's config says).
  bool resume(const QString& runDir, qint64 steps = 0);
  /// Sends SIGTERM; the trainer finishes its update, checkpoints and exits.
  void stop();
  bool isRunning() const;
  /// Lets go of the running child: it goes on, in its own session, writing its run folder (and
  /// console.log) after this object and the workbench are gone. No signals come for it any more.
  void detach();
  /// RUN/console.log: where the child's stdout and stderr go (appended, run after run).
  static QString outputPath(const QString& runDir);
  QString runDir() const { return m_runDir; }
  /// The child's arguments of the latest start.
  QStringList arguments() const { return m_arguments; }
  qint64 processId() const;

 signals:
  void started(const QString& runDir);
  /// One line of the child's output (console.log), without its newline.
  void logLine(const QString& line);
  /// How the run ended, with a sentence for the user (the trainer's error when it gave one).
  void finished(rnnwb::ui::TrainingProcess::Outcome outcome, const QString& message);

 private:
  bool launch(const QStringList& arguments, const QString& runDir);
  void readOutput();
  void createProcess();
  void onFinished(int exitCode, QProcess::ExitStatus status);
  void onError(QProcess::ProcessError error);

  QProcess* m_process;
  QString m_executable;
  QString m_runDir;
  QStringList m_arguments;
  QStringList m_command;
  int m_ranks = 1;
  QString m_hostfile;
  QTimer* m_outputPoll;       // reads console.log while the child runs
  qint64 m_outputOffset = 0;  // how much of console.log was read
  QByteArray m_pending;       // a line still being written
  QString m_lastError;        // the last "rnnwb train: error: ..." line
  bool m_stopRequested = false;
  bool m_reported = false;  // finished() already emitted for this launch
};

}  // namespace rnnwb::ui
